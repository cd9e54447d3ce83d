"""What `make test` sets up by itself: Chromium for the browser tests (scripts/need_chromium.sh)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "need_chromium.sh"
BASH = shutil.which("bash")


def _bin(tmp_path: Path, uid: int, chromium: bool) -> Path:
    """A PATH of its own: a fake `id` (the user), and a fake `chromium` or none."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "id").write_text(f"#!{BASH}\necho {uid}\n")
    (folder / "id").chmod(0o755)
    if chromium:
        (folder / "chromium").write_text(f"#!{BASH}\nexit 0\n")
        (folder / "chromium").chmod(0o755)
    return folder


def test_with_chromium_there_is_nothing_to_do(tmp_path):
    r = subprocess.run([BASH, str(SCRIPT)], env={"PATH": str(_bin(tmp_path, 1000, True))}, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_without_chromium_and_not_root_it_stops_at_once_with_the_command_to_run(tmp_path):
    r = subprocess.run([BASH, str(SCRIPT)], env={"PATH": str(_bin(tmp_path, 1000, False))}, capture_output=True, text=True)
    assert r.returncode == 1
    assert "sudo apt-get install -y chromium" in r.stderr
