"""Shared fixtures: a fresh store, the CLI run in-process or installed (`run`), and a GODS game factory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem import host, render
from pbem.cli import app
from pbem.host.store import open_db

render.install()  # the host writes reports with the render layer's renderer, as under the CLI

PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent))  # the installed console script


@pytest.fixture
def run(tmp_path):
    """Run the installed `pbem ARGS...` (a subprocess, as a user runs it) against a store and
    turns folder in tmp_path; returns the CompletedProcess."""
    assert PBEM, "the pbem console script is not installed beside this Python (make venv installs it)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"))

    def pbem(*args, input=None):
        return subprocess.run([PBEM, *map(str, args)], capture_output=True, text=True, env=env, cwd=tmp_path,
                              input=input, timeout=60)

    pbem.env, pbem.cwd = env, tmp_path
    return pbem


@pytest.fixture
def db(tmp_path):
    return open_db(str(tmp_path / "pbem.db"))


@pytest.fixture
def turns(tmp_path):
    folder = tmp_path / "turns"
    folder.mkdir()
    return folder


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """Run `pbem ARGS...` in-process against a store and turns folder in tmp_path.
    Returns click's Result (exit_code, stdout, stderr)."""
    monkeypatch.setenv("PBEM_DB", str(tmp_path / "pbem.db"))
    monkeypatch.setenv("PBEM_TURNS", str(tmp_path / "turns"))
    runner = CliRunner()

    def run(*args, input=None):
        return runner.invoke(app, [str(a) for a in args], input=input)

    return run


@pytest.fixture
def gods_game(db, turns):
    """Make a GODS game in the store; returns (game_id, {player: password})."""

    def make(players=("alice", "bob"), seed="1", game_id="g1", **kw):
        created = host.new_game(db, "gods", game_id, list(players), seed=seed, turns=turns, **kw)
        return game_id, {p["name"]: p["password"] for p in created["players"]}

    return make
