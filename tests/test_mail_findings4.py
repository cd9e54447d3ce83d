"""Defects of the mail loop an independent tester found (tester 4), each met where the user
meets it: .eml files through the installed `pbem ingest`, and the reply read from the outbox."""

from __future__ import annotations

import json
import re

from test_new_gm import eml, outbox_bodies


def new_game(run, game_type: str, game_id: str, players, *more) -> dict[str, str]:
    """A game (seed 42, a deadline every 48h); returns {player: password}."""
    args = ["new", game_type, game_id, "--seed", "42", "--every", "48h", *more]
    for p in players:
        args += ["--player", p]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))


def awaited(run, game_id: str) -> list[str]:
    return json.loads(run("status", game_id, "--json").stdout)["games"][0]["awaiting"]


# --- 04. a player not asked this turn is never told the turn waits for them ---------------------------

def test_a_rejected_line_from_a_player_not_asked_does_not_make_the_turn_wait(run, tmp_path):
    pw = new_game(run, "ohgods", "o1", ["ann:ann@play.test", "bob:bob@play.test", "cat:cat@play.test"])
    assert awaited(run, "o1") == ["ann"]
    r = run("ingest", eml(tmp_path, "m1", "bob@play.test", f"GAME o1\nPLAYER bob\nPASSWORD {pw['bob']}\nnever block\npass"))
    assert "1 of 2 lines rejected" in r.stdout, r.stdout
    ack = outbox_bodies(tmp_path, kind="ack", to="bob@play.test")[-1]
    assert "accepted  never block" in ack and "REJECTED" in ack, ack
    assert "NOT READY" not in ack and "waits for your corrected orders" not in ack, ack
    assert "not asked for orders this turn, so the turn does not wait for you" in ack, ack
    assert "the rejected lines are skipped and the accepted ones kept" in ack, ack
    assert awaited(run, "o1") == ["ann"]  # true: nothing waits for bob
    # the player asked is still told the turn waits for them
    r = run("ingest", eml(tmp_path, "m2", "ann@play.test", f"GAME o1\nPLAYER ann\nPASSWORD {pw['ann']}\nnever block\nplay nosuchgod"))
    ack = outbox_bodies(tmp_path, kind="ack", to="ann@play.test")[-1]
    assert "You are NOT READY" in ack and "not asked" not in ack, ack
