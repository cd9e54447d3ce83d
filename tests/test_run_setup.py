"""What `make test` sets up by itself for the mail loop's tests: Dovecot (scripts/need_dovecot.sh),
wired into the Makefile's test target beside Chromium."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "need_dovecot.sh"
BASH = shutil.which("bash")


def _bin(tmp_path: Path, uid: int, dovecot: bool) -> dict:
    """An environment of its own: a fake `id` (the user), and a fake `dovecot` or none."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "id").write_text(f"#!{BASH}\necho {uid}\n")
    (folder / "id").chmod(0o755)
    if dovecot:
        (folder / "dovecot").write_text(f"#!{BASH}\nexit 0\n")
        (folder / "dovecot").chmod(0o755)
    return {"PATH": str(folder), "DOVECOT_SBIN": str(tmp_path / "no-sbin")}


def test_with_dovecot_there_is_nothing_to_do(tmp_path):
    r = subprocess.run([BASH, str(SCRIPT)], env=_bin(tmp_path, 1000, True), capture_output=True, text=True, check=False)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_without_dovecot_and_not_root_it_stops_at_once_with_the_command_to_run(tmp_path):
    r = subprocess.run([BASH, str(SCRIPT)], env=_bin(tmp_path, 1000, False), capture_output=True, text=True, check=False)
    assert r.returncode == 1
    assert "sudo apt-get install -y dovecot-imapd" in r.stderr


def test_make_test_installs_dovecot_before_the_suite():
    makefile = (ROOT / "Makefile").read_text()
    test_line = next(line for line in makefile.splitlines() if line.startswith("test:"))
    assert "dovecot" in test_line.split()
    assert "scripts/need_dovecot.sh" in makefile
