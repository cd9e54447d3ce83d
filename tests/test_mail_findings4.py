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


# --- 01. a message with blocks for several games: each read, each answered, none lost silently ------------

def _tribe(run, game_id: str, player: str) -> str:
    """A legal order of the player's turn-1 order form (a `tribe` line)."""
    report = run("report", game_id, "--player", player).stdout
    return next(line[4:] for line in report.splitlines() if line.startswith("#   tribe"))


def _two_games(run) -> tuple[dict, dict]:
    pw1 = new_game(run, "gods", "ath", ["zeus:caesar@play.test", "hera:hera@play.test"])
    pw2 = new_game(run, "gods", "olymp", ["ares:caesar@play.test", "apollo:apollo@play.test"])
    return pw1, pw2


def _latest(tmp_path, player: str) -> list[str]:
    import sqlite3

    con = sqlite3.connect(tmp_path / "pbem.db")
    try:
        return [r[0].decode() for r in con.execute("select raw from submissions where player = ? order by id", [player])]
    finally:
        con.close()


def test_blocks_for_two_games_in_one_mail_are_each_read_and_answered_in_one_reply(run, tmp_path):
    pw1, pw2 = _two_games(run)
    o1, o2 = _tribe(run, "ath", "zeus"), _tribe(run, "olymp", "ares")
    before = len(outbox_bodies(tmp_path, to="caesar@play.test"))
    r = run("ingest", eml(tmp_path, "m1", "caesar@play.test",
                          f"Hi GM, orders for both of my games below.\n\nGAME ath\nPLAYER zeus\nPASSWORD {pw1['zeus']}\n{o1}\nEND\n\n"
                          f"GAME olymp\nPLAYER ares\nPASSWORD {pw2['ares']}\n{o2}\nEND"))
    assert "m1.eml ath/zeus: orders accepted; olymp/ares: orders accepted" in r.stdout, r.stdout
    # both games have the orders: the first block is no longer lost
    assert any(o1 in raw for raw in _latest(tmp_path, "zeus")), _latest(tmp_path, "zeus")
    assert any(o2 in raw for raw in _latest(tmp_path, "ares"))
    # ONE reply covers both, each game's acknowledgement line by line
    mails = outbox_bodies(tmp_path, to="caesar@play.test")[before:]
    assert len(mails) == 1, mails
    reply = mails[0]
    assert "pbem acknowledgement: game ath, player zeus, turn 1" in reply, reply
    assert "pbem acknowledgement: game olymp, player ares, turn 1" in reply, reply
    assert f"line   6: accepted  {o1}" in reply and f"line  12: accepted  {o2}" in reply, reply
    assert "Not read" not in reply, reply


def test_a_refused_block_does_not_stop_the_other_games_and_is_told(run, tmp_path):
    pw1, pw2 = _two_games(run)
    o1, o2 = _tribe(run, "ath", "zeus"), _tribe(run, "olymp", "ares")
    r = run("ingest", eml(tmp_path, "m1", "caesar@play.test",
                          f"GAME ath\nPLAYER zeuss\nPASSWORD {pw1['zeus']}\n{o1}\nEND\n"
                          f"GAME olymp\nPLAYER ares\nPASSWORD {pw2['ares']}\n{o2}\nPRESS TO apollo\nhello apollo\nENDPRESS\nEND\n"
                          "WAIT\n"))
    assert "m1.eml olymp/ares: orders accepted" in r.stdout and "ath: unknown player 'zeuss' in game ath" in r.stdout, r.stdout
    reply = outbox_bodies(tmp_path, to="caesar@play.test")[-1]
    assert "== the block at line 1 (GAME ath, PLAYER zeuss) ==" in reply, reply
    assert "REFUSED: unknown player 'zeuss' in game ath" in reply, reply
    assert "pbem acknowledgement: game olymp, player ares" in reply and f"accepted  {o2}" in reply, reply
    # the press typed in olymp's block goes to olymp's apollo
    assert "done: press of 1 line sent to apollo." in reply, reply
    assert len(outbox_bodies(tmp_path, kind="press", to="apollo@play.test")) == 1
    # a line outside every block: which game is not guessed, and the player is told
    assert "== the lines outside the blocks ==" in reply and "line 14: WAIT" in reply, reply
    assert "REFUSED: which game? This line is outside the blocks of your message (ath/zeuss at line 1, olymp/ares at line 6)" \
        in reply, reply
    assert _latest(tmp_path, "zeus") == []
    import sqlite3

    con = sqlite3.connect(tmp_path / "pbem.db")
    subject = con.execute("select subject from outbox where to_addr = 'caesar@play.test' order by id desc").fetchone()[0]
    con.close()
    assert subject == "[pbem] your message: ath REFUSED, olymp/ares accepted, other lines REFUSED", subject


def test_of_several_copies_of_one_games_block_the_last_counts_and_the_others_are_named(run, tmp_path):
    pw1, _ = _two_games(run)
    o1 = _tribe(run, "ath", "zeus")
    r = run("ingest", eml(tmp_path, "m1", "caesar@play.test",
                          f"GAME ath\nPLAYER zeus\nPASSWORD {pw1['zeus']}\ntribe nonsense\nEND\n\n"
                          f"oops, this instead:\nGAME ath\nPLAYER zeus\nPASSWORD {pw1['zeus']}\n{o1}\nEND\n\n"
                          f"> GAME ath\n> PLAYER zeus\n> PASSWORD {pw1['zeus']}\n> pass\n> END\n"))
    assert "orders accepted" in r.stdout, r.stdout
    ack = outbox_bodies(tmp_path, kind="ack", to="caesar@play.test")[-1]
    assert f"accepted  {o1}" in ack and "nonsense" not in ack.split("=====")[-1], ack
    assert ("Not read: the block at line 1 (GAME ath, PLAYER zeus): an earlier block for the same game and player: "
            "of several, the last one counts.") in ack, ack
    assert "Not read: the block at line 14 (GAME ath, PLAYER zeus): quoted: quoted text is never read as orders" in ack, ack
    assert _latest(tmp_path, "zeus")[-1].count("PASSWORD") == 1 and o1 in _latest(tmp_path, "zeus")[-1]


def test_several_games_keep_to_the_mail_limit_and_say_what_was_not_sent(run, tmp_path):
    pw1, pw2 = _two_games(run)
    pw3 = new_game(run, "gods", "corinth", ["hermes:caesar@play.test", "ajax:ajax@play.test"])
    blocks = [("ath", "zeus", pw1["zeus"]), ("olymp", "ares", pw2["ares"]), ("corinth", "hermes", pw3["hermes"])]
    before = len(outbox_bodies(tmp_path, to="caesar@play.test"))
    run("ingest", eml(tmp_path, "m1", "caesar@play.test",
                      "".join(f"GAME {g}\nPLAYER {p}\nPASSWORD {w}\nREPORT\nEND\n" for g, p, w in blocks)))
    mails = outbox_bodies(tmp_path, to="caesar@play.test")[before:]
    assert len(mails) == 3, [m[:80] for m in mails]  # two reports and the one reply: at most 3 mails a message
    reply = mails[-1]
    assert reply.count("your report of turn 1 is sent to you separately") == 2, reply
    assert "REFUSED: not sent: one message is answered by at most 3 mails" in reply, reply
    assert "== the block at line 11 (GAME corinth, PLAYER hermes) ==" in reply, reply


def test_one_message_tries_one_wrong_password_and_the_guessing_throttle_counts_it(run, tmp_path):
    pw1, pw2 = _two_games(run)
    pw3 = new_game(run, "gods", "corinth", ["hermes:caesar@play.test", "ajax:ajax@play.test"])
    r = run("ingest", eml(tmp_path, "m1", "caesar@play.test",
                          f"GAME ath\nPLAYER zeus\nPASSWORD guess-1\nEND\nGAME olymp\nPLAYER ares\nPASSWORD guess-2\nEND\n"
                          f"GAME corinth\nPLAYER hermes\nPASSWORD {pw3['hermes']}\nEND\n"))
    # the message's record leads with the wrong password, for the seat it was tried on
    assert "m1.eml ath/zeus: bad password: wrong password" in r.stdout and r.stdout.startswith("rejected"), r.stdout
    reply = outbox_bodies(tmp_path, to="caesar@play.test")[-1]
    assert reply.count("REJECTED: wrong password") == 1, reply
    assert reply.count("NOT READ: the password of an earlier block (ath/zeus) was wrong") == 2, reply
    import sqlite3

    con = sqlite3.connect(tmp_path / "pbem.db")
    row = con.execute("select outcome, game_id, player, reason from inbox order by id desc limit 1").fetchone()
    con.close()
    # (pbem.mail.guard counts such rows per seat: the wrong password is counted as in a message of its own)
    assert row[:3] == ("rejected", "ath", "zeus") and row[3].startswith("bad password"), row


# --- 07. an order set that leaves an action out says so, and what is done by default --------------------

def test_gods_orders_with_one_of_two_actions_say_what_is_done_by_default(run, tmp_path):
    pw = new_game(run, "gods", "g", ["ann:ann@play.test", "bob:bob@play.test"])
    order = _tribe(run, "g", "ann")
    run("ingest", eml(tmp_path, "m1", "ann@play.test", f"GAME g\nPLAYER ann\nPASSWORD {pw['ann']}\n{order}"))
    ack = outbox_bodies(tmp_path, kind="ack", to="ann@play.test")[-1]
    found = re.search(r"NOT COMPLETE: after these orders your part of this turn is not over; this will be done for you "
                      r"by default: (discard [a-z ]+)\.", ack)
    assert found, ack
    assert ("You are the only player asked, so the turn is resolved at the judge's next run, before its deadline: to do "
            "more yourself, send your complete orders again now") in ack, ack
    # ...and promises no time until the deadline (the re-check of finding 07)
    assert "send again to change them before the turn is resolved (see above)" in ack, ack
    assert "before the deadline." not in ack, ack
    default = found.group(1)
    # her complete orders (the second action her own): nothing is left to a default, and the ack says nothing of it
    run("ingest", eml(tmp_path, "m2", "ann@play.test", f"GAME g\nPLAYER ann\nPASSWORD {pw['ann']}\n{order}\n{default}"))
    ack = outbox_bodies(tmp_path, kind="ack", to="ann@play.test")[-1]
    assert "2 accepted" in ack and "NOT COMPLETE" not in ack and "by default" not in ack, ack
    assert "send again to change them before the deadline." in ack, ack
    # what the first acknowledgement named is what resolution does when the second action is left out
    run("ingest", eml(tmp_path, "m3", "ann@play.test", f"GAME g\nPLAYER ann\nPASSWORD {pw['ann']}\n{order}"))
    assert "g turn 1: resolved" in run("resolve", "--all").stdout
    report = run("report", "g", "--player", "ann", "--turn", "2").stdout
    assert f"ann gave no further order; by default: {default}" in report, report


def test_oh_gods_orders_that_end_the_turn_early_say_so(run, tmp_path):
    pw = new_game(run, "ohgods", "o", ["ann:ann@play.test", "bob:bob@play.test"])
    report = run("report", "o", "--player", "ann").stdout
    play = next(line[4:] for line in report.splitlines() if line.startswith("#   play "))
    run("ingest", eml(tmp_path, "m1", "ann@play.test", f"GAME o\nPLAYER ann\nPASSWORD {pw['ann']}\n{play}"))
    ack = outbox_bodies(tmp_path, kind="ack", to="ann@play.test")[-1]
    assert ("After these orders your part of this turn ends (pass, by default): nothing else you could still do this "
            "turn is done.") in ack, ack
    run("ingest", eml(tmp_path, "m2", "ann@play.test", f"GAME o\nPLAYER ann\nPASSWORD {pw['ann']}\n{play}\npass"))
    ack = outbox_bodies(tmp_path, kind="ack", to="ann@play.test")[-1]
    assert "by default" not in ack and "2 accepted" in ack, ack
