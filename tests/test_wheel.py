"""`pip install` of the built wheel (not editable) gives a working `pbem` with its game data
and templates inside: scripts/wheel_check.sh builds the wheel, installs it into a fresh
virtualenv and plays a short game from a folder outside the repository (about 30-60 s)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_wheel_installs_and_plays_a_game_outside_the_repo(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PBEM_DB", "PBEM_TURNS", "PBEM_NOW")}
    env["TMPDIR"] = str(tmp_path)
    r = subprocess.run(
        ["bash", str(REPO / "scripts" / "wheel_check.sh"), sys.executable],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "wheel-check: OK" in r.stdout, out
    # each step ran, from the installed copy
    assert "/venv/lib/" in r.stdout and "/site-packages/pbem/games" in r.stdout
    assert "every hash matches" in r.stdout
    assert "Traceback" not in out
    # the script cleans up after itself
    assert not list(tmp_path.glob("pbem-wheel-check.*"))
