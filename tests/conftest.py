"""Shared fixtures: a fresh store, the CLI run in-process, and a GODS game factory."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pbem import host, render
from pbem.cli import app
from pbem.host.store import open_db

render.install()  # the host writes reports with the render layer's renderer, as under the CLI


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
