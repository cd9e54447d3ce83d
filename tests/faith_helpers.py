"""Helpers shared by the Faith tests that drive the installed `pbem`."""

from __future__ import annotations

from pbem import host
from pbem.host.store import open_db


def autoplay_to(run, game: str, phase: str, most: int = 10):
    """Let the bots play `game` (through the installed `pbem autoplay`, a turn at a time) until
    its open turn is in flow phase `phase`; returns the store and that turn's number."""
    db = open_db(str(run.cwd / "pbem.db"))
    for _ in range(most):
        if host.current_state(db, game)["flow"]["phase"] == phase:
            break
        assert run("autoplay", game, "--max-phases", "1", "--force").returncode == 0
    assert host.current_state(db, game)["flow"]["phase"] == phase
    return db, db["games"].get(game)["phase"]
