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


# --- 08. press to a seat nobody reads is refused, saying why; the GM's press says why no mail went -------

def _reply(tmp_path, to: str) -> str:
    return outbox_bodies(tmp_path, kind="notice", to=to)[-1]


def test_press_to_a_vacant_seat_is_refused_naming_why(run, tmp_path):
    pw = new_game(run, "ohgods", "o", ["ann:ann@play.test", "bob:bob@play.test", "cat:cat@play.test"])
    r = run("ingest", eml(tmp_path, "m1", "bob@play.test", f"GAME o\nPLAYER bob\nPASSWORD {pw['bob']}\nRESIGN"))
    assert "RESIGN" in r.stdout, r.stdout
    before = len(outbox_bodies(tmp_path, kind="press"))
    r = run("ingest", eml(tmp_path, "m2", "ann@play.test",
                          f"GAME o\nPLAYER ann\nPASSWORD {pw['ann']}\nPRESS TO bob\nLet us ally against cat.\nENDPRESS"))
    assert "rejected" in r.stdout and "nobody reads press to bob" in r.stdout, r.stdout
    reply = _reply(tmp_path, "ann@play.test")
    assert "REFUSED: nobody reads press to bob: bob's seat is vacant" in reply and "Nothing was sent" in reply, reply
    assert "sent to bob" not in reply, reply
    # to a vacant seat and a player: refused whole (nothing of it sent by guess), the others named
    r = run("ingest", eml(tmp_path, "m3", "ann@play.test",
                          f"GAME o\nPLAYER ann\nPASSWORD {pw['ann']}\nPRESS TO bob,cat\nLet us ally.\nENDPRESS"))
    reply = _reply(tmp_path, "ann@play.test")
    assert "REFUSED: nobody reads press to bob" in reply and "send it again to the others only" in reply, reply
    assert len(outbox_bodies(tmp_path, kind="press")) == before
    # the GM too is told why, and nothing is stored
    r = run("press", "o", "--to", "bob", "-", input="a private note\n")
    assert r.returncode != 0 and "nobody reads press to bob: bob's seat is vacant" in r.stdout + r.stderr, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert "no press yet" in run("press", "o", "--list").stdout
    # press to a seat that is read still goes, and says so
    r = run("ingest", eml(tmp_path, "m4", "ann@play.test",
                          f"GAME o\nPLAYER ann\nPASSWORD {pw['ann']}\nPRESS TO cat\nLet us ally.\nENDPRESS"))
    assert "done: press of 1 line sent to cat." in _reply(tmp_path, "ann@play.test")
    assert len(outbox_bodies(tmp_path, kind="press", to="cat@play.test")) == 1


def test_press_to_a_bot_seat_is_refused_and_gm_press_without_mail_says_why(run, tmp_path):
    pw = new_game(run, "gods", "g", ["ann:ann@play.test", "bob:bob@play.test"], "--option", "seat_policy=bot")
    run("ingest", eml(tmp_path, "m1", "bob@play.test", f"GAME g\nPLAYER bob\nPASSWORD {pw['bob']}\nRESIGN"))
    run("ingest", eml(tmp_path, "m2", "ann@play.test",
                      f"GAME g\nPLAYER ann\nPASSWORD {pw['ann']}\nPRESS TO bob\nhello\nENDPRESS"))
    assert "REFUSED: nobody reads press to bob: bob's seat is played by a bot" in _reply(tmp_path, "ann@play.test")
    # a GM's press to all in a game where nobody has an address: 0 mails, and why
    new_game(run, "gods", "h", ["zed", "yan"])
    r = run("press", "h", "--to", "all", "-", input="welcome\n")
    assert r.returncode == 0 and "0 mail(s) queued" in r.stdout, r.stdout
    assert "no player or observer has a mail address (zed, yan): listed in the next turn reports and on the site" in r.stdout, r.stdout
    r = run("press", "h", "--to", "zed", "-", input="hello\n")
    assert "0 mail(s) queued" in r.stdout and "zed has no mail address: listed in the next turn report" in r.stdout, r.stdout
