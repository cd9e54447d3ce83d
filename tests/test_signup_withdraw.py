"""A sign-up can be taken back before the game starts (tester4 finding 14): by the player's
RESIGN by mail, by the GM's `pbem seat GAME NAME --withdraw`, or the whole sign-up closed by
`pbem end GAME`; a message for a game not started yet is refused with that reason, not as
"unknown game". And a vacant seat asked `--human` is told it has no player (finding 13)."""

from __future__ import annotations

import re

from test_mail_abuse import code_in
from test_new_gm import eml, outbox_bodies


def joined(run, tmp_path, game: str, addr: str, name: str) -> str:
    """JOIN by mail and confirm it; the password mailed."""
    run("ingest", eml(tmp_path, f"j-{name}", addr, f"JOIN {game} {name}"))
    code = code_in(outbox_bodies(tmp_path, to=addr)[-1], f"JOIN {game} {name} CONFIRM")
    run("ingest", eml(tmp_path, f"c-{name}", addr, f"JOIN {game} {name} CONFIRM {code}"))
    return re.search(r"Your password: (\S+)", outbox_bodies(tmp_path, to=addr)[-1]).group(1)


def test_a_player_withdraws_a_sign_up_by_mail_with_resign(run, tmp_path):
    assert run("new", "gods", "op", "--open", "3").returncode == 0
    pw = joined(run, tmp_path, "op", "zed@example.org", "zed")
    joined(run, tmp_path, "op", "amy@example.org", "amy")
    assert "2 of 3 seats taken" in run("status").stdout
    # a wrong password withdraws nothing
    r = run("ingest", eml(tmp_path, "bad", "zed@example.org", "GAME op\nPASSWORD nope\nRESIGN"))
    assert "rejected" in r.stdout, r.stdout
    assert "bad password for zed in game 'op'" in outbox_bodies(tmp_path, to="zed@example.org")[-1]
    assert "2 of 3 seats taken" in run("status").stdout
    # the right one does: the seat is open again, the player told, never "unknown game"
    r = run("ingest", eml(tmp_path, "ok", "zed@example.org", f"GAME op\nPASSWORD {pw}\nRESIGN"))
    assert "1 accepted" in r.stdout and "Traceback" not in r.stdout + r.stderr, r.stdout
    told = outbox_bodies(tmp_path, to="zed@example.org")[-1]
    assert "your sign-up (zed) for game op is withdrawn" in told and "unknown game" not in told, told
    status = run("status").stdout
    assert "1 of 3 seats taken (amy)" in status, status
    # the old password no longer speaks for anyone
    r = run("ingest", eml(tmp_path, "again", "zed@example.org", f"GAME op\nPASSWORD {pw}\nRESIGN"))
    assert "rejected" in r.stdout and "1 of 3 seats taken (amy)" in run("status").stdout


def test_other_mail_for_a_game_not_started_says_so(run, tmp_path):
    assert run("new", "gods", "op", "--open", "3").returncode == 0
    pw = joined(run, tmp_path, "op", "zed@example.org", "zed")
    r = run("ingest", eml(tmp_path, "orders", "zed@example.org", f"GAME op\nPLAYER zed\nPASSWORD {pw}\nREPORT"))
    assert "rejected" in r.stdout, r.stdout
    told = outbox_bodies(tmp_path, to="zed@example.org")[-1]
    assert "game 'op' has not started yet: it is open for sign-up (1 of 3 seats taken)" in told, told
    assert "send GAME op, your PASSWORD and RESIGN" in told and "unknown game" not in told
    # a stranger is told it has not started, without the part about withdrawing
    run("ingest", eml(tmp_path, "stranger", "x@example.org", "GAME op\nPLAYER x\nPASSWORD y\nREPORT"))
    told = outbox_bodies(tmp_path, to="x@example.org")[-1]
    assert "has not started yet" in told and "RESIGN" not in told, told


def test_the_gm_withdraws_a_sign_up_and_closes_a_sign_up(run, tmp_path):
    assert run("new", "gods", "op", "--open", "3").returncode == 0
    joined(run, tmp_path, "op", "zed@example.org", "zed")
    joined(run, tmp_path, "op", "amy@example.org", "amy")
    # the GM's other seat controls on an open game say how
    r = run("seat", "op", "zed", "--bot")
    assert r.returncode != 0 and "`pbem seat op NAME --withdraw`" in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = run("seat", "op", "nobody", "--withdraw")
    # (in the order they joined: the same second is ordered by name)
    assert r.returncode != 0 and "nobody signed up for game 'op' as 'nobody'; signed up: " in r.stderr, r.stderr
    assert sorted(r.stderr.split("signed up: ")[1].strip().split(", ")) == ["amy", "zed"], r.stderr
    r = run("seat", "op", "zed", "--withdraw", "--reason", "asked by phone")
    assert r.returncode == 0 and "the sign-up of zed is withdrawn" in r.stdout, r.stdout + r.stderr
    told = outbox_bodies(tmp_path, to="zed@example.org")[-1]
    assert "The GM has withdrawn your sign-up (zed) for game op" in told and "asked by phone" in told
    assert "1 of 3 seats taken (amy)" in run("status").stdout
    # pbem end of an open game: no result to record...
    r = run("end", "op", "--draw")
    assert r.returncode == 2 and "has no result to record" in r.stderr, r.stderr
    # ...alone, it closes the sign-up; whoever joined is told, the id is free again
    r = run("end", "op")
    assert r.returncode == 0 and "sign-up closed" in r.stdout, r.stdout + r.stderr
    assert "The GM has closed the sign-up for game op" in outbox_bodies(tmp_path, to="amy@example.org")[-1]
    assert "op" not in run("status").stdout
    assert run("new", "gods", "op", "--open", "2").returncode == 0


def test_a_vacant_seat_asked_human_is_told_it_has_no_player(run, tmp_path):
    assert run("new", "gods", "g", "-p", "ann:ann@example.org", "-p", "bob:bob@example.org").returncode == 0
    pw = re.search(r"Your password: (\S+)", outbox_bodies(tmp_path, to="bob@example.org")[-1]).group(1)
    run("ingest", eml(tmp_path, "res", "bob@example.org", f"GAME g\nPLAYER bob\nPASSWORD {pw}\nRESIGN"))
    assert "vacant" in run("status", "g").stdout
    r = run("seat", "g", "bob", "--human")
    assert r.returncode != 0 and "has no player (they resigned)" in r.stderr and "already" not in r.stderr, r.stderr


def test_a_signed_up_players_mail_with_her_password_is_always_answered(run, tmp_path):
    """The re-check of finding 12: the reply cap holds back answers to mail no seat vouches
    for; a sign-up's password from its address vouches as a seat's does."""
    assert run("new", "gods", "op", "--open", "3").returncode == 0
    pw = joined(run, tmp_path, "op", "amy@example.org", "amy")  # two replies already
    for n in range(3):
        r = run("ingest", eml(tmp_path, f"h{n}", "amy@example.org", f"GAME op\nPLAYER amy\nPASSWORD {pw}\nHELP"))
        assert "reply cap" not in r.stdout, r.stdout
    bodies = outbox_bodies(tmp_path, to="amy@example.org")
    assert sum("has not started yet" in b for b in bodies) == 3, bodies
    # without the password the cap still holds (a forged From knows no password)
    said = [run("ingest", eml(tmp_path, f"u{n}", "amy@example.org", "GAME op\nPLAYER amy\nHELP")).stdout for n in range(4)]
    assert "reply cap" in said[-1], said
