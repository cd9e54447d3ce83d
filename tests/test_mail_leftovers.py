"""Leftovers of the mail loop noted at the last stop, each met where the user meets it: real
.eml files through the installed `pbem ingest` (and the replies read back from the outbox),
and the installed `pbem` where the GM types."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from test_mail_abuse import code_in, outbox_rows
from test_mail_findings import NOW, new_game
from test_new_gm import eml, outbox_bodies


def game_submissions(where: Path, game_id: str, player: str) -> list[dict]:
    con = sqlite3.connect(where / "pbem.db")
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("select * from submissions where game_id = ? and player = ? order by id",
                                             [game_id, player])]
    finally:
        con.close()


def observers(where: Path, game_id: str = "g1") -> list[str]:
    con = sqlite3.connect(where / "pbem.db")
    try:
        return [r[0] for r in con.execute("select email from observers where game_id = ? order by email", [game_id])]
    finally:
        con.close()


TAKEN = "taken for game {}, the game your password belongs to"


# --- 1. no GAME line, seats in several games: the PASSWORD tells which -----------------------------------

def test_a_seat_holder_in_several_games_is_taken_for_the_game_their_password_belongs_to(run, tmp_path):
    new_game(run)
    pw2 = new_game(run, "g2")
    # orders alone, no GAME line, no [GAME_ID] in the subject: g2's password, so g2's orders
    r = run("ingest", eml(tmp_path, "n1", "zeus@play.test", f"PASSWORD {pw2['zeus']}\ntribe green 1,-2\n",
                          subject="my orders"))
    assert "accepted" in r.stdout and "g2/zeus" in r.stdout and "taken for g2" in r.stdout, r.stdout
    ack = outbox_rows(tmp_path, to="zeus@play.test")[-1]
    assert ack["kind"] == "ack" and ack["game_id"] == "g2", ack
    assert TAKEN.format("g2") in ack["body"] and "accepted  tribe green 1,-2" in ack["body"], ack["body"]
    assert len(game_submissions(tmp_path, "g2", "zeus")) == 1 and game_submissions(tmp_path, "g1", "zeus") == []
    # REPORT alone: that game's report, and it says why
    r = run("ingest", eml(tmp_path, "n2", "zeus@play.test", f"PASSWORD {pw2['zeus']}\nREPORT\n", subject="report please"))
    assert "accepted" in r.stdout and "g2/zeus" in r.stdout, r.stdout
    report = outbox_rows(tmp_path, to="zeus@play.test")[-1]
    assert report["kind"] == "report" and report["subject"] == "[g2] turn 1 report", report
    assert TAKEN.format("g2") in report["body"], report["body"]
    # several requests: the one reply says it too, and each was done in g2
    r = run("ingest", eml(tmp_path, "n3", "zeus@play.test", f"PASSWORD {pw2['zeus']}\nWAIT\nLIST\n", subject="hi"))
    reply = outbox_rows(tmp_path, to="zeus@play.test")[-1]
    assert reply["subject"].startswith("[g2] your commands: done"), reply
    assert TAKEN.format("g2") in reply["body"] and "line 2: WAIT\n  done:" in reply["body"], reply["body"]


def test_a_password_of_no_seat_or_of_several_still_asks_which_game(run, tmp_path):
    pw1 = new_game(run)
    new_game(run, "g2")
    # the password of no seat of this address: asked, nothing taken, and nothing told about it
    r = run("ingest", eml(tmp_path, "n1", "zeus@play.test", "PASSWORD hera-s-perhaps\ntribe green 1,-2\n", subject="o"))
    assert "rejected" in r.stdout and "which game?" in r.stdout, r.stdout
    reply = outbox_bodies(tmp_path, to="zeus@play.test")[-1]
    assert "g1, g2" in reply and "belongs to" not in reply, reply
    # another seat's password (hera's, of g1) from zeus's address: no seat of this address, asked
    r = run("ingest", eml(tmp_path, "n2", "zeus@play.test", f"PASSWORD {pw1['hera']}\ntribe green 1,-2\n", subject="o"))
    assert "which game?" in r.stdout, r.stdout
    # one password for both seats (the GM set it so): which game is still the player's to say
    con = sqlite3.connect(tmp_path / "pbem.db")
    with con:
        con.execute("update players set password = ? where game_id = 'g2' and name = 'zeus'", [pw1["zeus"]])
    con.close()
    r = run("ingest", eml(tmp_path, "n3", "zeus@play.test", f"PASSWORD {pw1['zeus']}\ntribe green 1,-2\n", subject="o"))
    assert "rejected" in r.stdout and "which game?" in r.stdout, r.stdout
    assert game_submissions(tmp_path, "g1", "zeus") == [] and game_submissions(tmp_path, "g2", "zeus") == []


# --- 2. the out-of-office check reads a format=flowed text unwrapped ---------------------------------------

def _flowed_reply(where: Path, name: str, body: str) -> Path:
    path = where / f"{name}.eml"
    path.write_bytes((
        "From: zeus@play.test\r\nTo: orders@judge.test\r\nSubject: Re: [g1] turn 1 report\r\n"
        f"Message-ID: <{name}@play.test>\r\nDate: Fri, 27 Nov 2026 22:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=UTF-8; format=flowed\r\nContent-Transfer-Encoding: 7bit\r\n\r\n"
        + body.replace("\n", "\r\n")).encode())
    return path


def test_a_flowed_out_of_office_text_split_at_a_soft_break_is_not_answered(run, tmp_path):
    new_game(run)
    before = len(outbox_bodies(tmp_path, to="zeus@play.test"))
    # no auto-reply header, no auto-reply subject; its one out-of-office sentence soft-wrapped
    # by the mail client ("out of the " / "office")
    body = ("Thank you for your message. Our whole team is out of the \noffice until 2 December; "
            "your mail will be read then.\n\nKind regards\n")
    r = run("ingest", _flowed_reply(tmp_path, "ooo", body))
    assert "ignored" in r.stdout and "auto-reply (an out-of-office text)" in r.stdout, r.stdout
    assert len(outbox_bodies(tmp_path, to="zeus@play.test")) == before  # never answered: no mail loop


# --- 3. READY alone: its subject says what it did ---------------------------------------------------------

def test_the_subject_of_ready_alone_says_the_orders_on_file_were_marked_ready(run, tmp_path):
    pw = new_game(run)

    def last_ack() -> dict:
        return [r for r in outbox_rows(tmp_path, to="zeus@play.test") if r["kind"] == "ack"][-1]

    head = f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\n"
    # over orders with a rejected line: marked ready, and the subject says the line is skipped
    run("ingest", eml(tmp_path, "m1", "zeus@play.test", head + "tirbe purple 0,1\ntribe green 1,-2"))
    assert last_ack()["subject"] == "[g1] turn 1: orders accepted, some lines rejected (zeus)"  # (as before)
    run("ingest", eml(tmp_path, "m2", "zeus@play.test", head + "READY"))
    ack = last_ack()
    assert ack["subject"] == "[g1] turn 1: orders on file marked ready, 1 rejected line skipped (zeus)", ack["subject"]
    assert "made ready" in ack["body"] and "replaces nothing" in ack["body"], ack["body"]
    # over orders with no rejected line: marked ready, nothing else said
    run("ingest", eml(tmp_path, "m3", "zeus@play.test", head + "tribe green 1,-2"))
    assert last_ack()["subject"] == "[g1] turn 1: orders accepted (zeus)"
    run("ingest", eml(tmp_path, "m4", "zeus@play.test", head + "READY"))
    assert last_ack()["subject"] == "[g1] turn 1: orders on file marked ready (zeus)", last_ack()["subject"]


# --- 4. an observer's new address: asked by the old one, confirmed by the new one -------------------------

def test_an_observer_moves_to_a_new_address_by_mail(run, tmp_path):
    new_game(run)
    assert run("observe", "g1", "owl@old.test").returncode == 0
    r = run("ingest", eml(tmp_path, "a1", "owl@old.test", "OBSERVE g1 ADDRESS owl@new.test"))
    assert "1 accepted" in r.stdout, r.stdout
    asked = outbox_bodies(tmp_path, to="owl@old.test")[-1]
    assert "from the new address, owl@new.test" in asked, asked
    code = code_in(asked, "OBSERVE g1 ADDRESS owl@new.test CONFIRM")
    assert outbox_bodies(tmp_path, to="owl@new.test") == [] and observers(tmp_path) == ["owl@old.test"]
    assert code not in r.stdout + run("status").stdout
    # a report queued for the old address, not sent yet
    assert run("resolve", "g1", "--force").returncode == 0
    # the code from the old address itself, or with another new address: refused, nothing moves
    for n, (sender, line) in enumerate([
            ("owl@old.test", f"OBSERVE g1 ADDRESS owl@new.test CONFIRM {code}"),
            ("mallory@evil.test", f"OBSERVE g1 ADDRESS mallory@evil.test CONFIRM {code}"),
            ("owl@new.test", "OBSERVE g1 ADDRESS owl@new.test CONFIRM 0123456789")]):
        r = run("ingest", eml(tmp_path, f"bad{n}", sender, line))
        assert "rejected" in r.stdout and "Traceback" not in r.stdout + r.stderr, r.stdout
        assert observers(tmp_path) == ["owl@old.test"]
    told = outbox_bodies(tmp_path, to="mallory@evil.test")[-1]
    assert "that is not the code mailed for moving an observer of game g1 to mallory@evil.test" in told, told
    # the new address confirms: moved, both told, and the report not yet sent goes to the new one
    r = run("ingest", eml(tmp_path, "a2", "owl@new.test", f"OBSERVE g1 ADDRESS owl@new.test CONFIRM {code}"))
    assert "1 accepted" in r.stdout, r.stdout
    assert observers(tmp_path) == ["owl@new.test"]
    new_rows = outbox_rows(tmp_path, to="owl@new.test")
    assert any(r["kind"] == "observer" and r["subject"] == "[g1] turn 2 public report" for r in new_rows), new_rows
    assert any("is now at owl@new.test" in r["body"] for r in new_rows)
    old = outbox_rows(tmp_path, to="owl@old.test")
    assert not any(r["kind"] == "observer" and r["status"] == "queued" and r["phase"] == 2 for r in old), old
    assert "is now at owl@new.test" in old[-1]["body"] and "no longer observes game g1" in old[-1]["body"], old[-1]
    # the next turn's report goes to the new address only
    assert run("resolve", "g1", "--force").returncode == 0
    assert any(r["subject"] == "[g1] turn 3 public report" for r in outbox_rows(tmp_path, to="owl@new.test"))
    assert not any(r["subject"] == "[g1] turn 3 public report" for r in outbox_rows(tmp_path, to="owl@old.test"))


def test_a_forged_from_moves_no_observer(run, tmp_path):
    new_game(run)
    assert run("observe", "g1", "owl@old.test").returncode == 0
    # the forger writes as the observer, to move its mail to the forger's address: the code
    # goes to the observer's own address, never to the forger's
    r = run("ingest", eml(tmp_path, "f1", "owl@old.test", "OBSERVE g1 ADDRESS mallory@evil.test"))
    assert "1 accepted" in r.stdout, r.stdout
    assert outbox_bodies(tmp_path, to="mallory@evil.test") == []
    assert "If you did not ask for it, ignore this mail: nothing changes." in outbox_bodies(tmp_path, to="owl@old.test")[-1]
    r = run("ingest", eml(tmp_path, "f2", "mallory@evil.test", "OBSERVE g1 ADDRESS mallory@evil.test CONFIRM 0123456789"))
    assert "rejected" in r.stdout and observers(tmp_path) == ["owl@old.test"], r.stdout
    # an address that observes nothing cannot ask for a move
    r = run("ingest", eml(tmp_path, "f3", "mallory@evil.test", "OBSERVE g1 ADDRESS mallory@evil2.test"))
    told = outbox_bodies(tmp_path, to="mallory@evil.test")[-1]
    assert "rejected" in r.stdout and "mallory@evil.test does not observe game 'g1'" in told, told
    # nor move to a non-address
    r = run("ingest", eml(tmp_path, "f4", "owl@old.test", "OBSERVE g1 ADDRESS owl at new"))
    told = outbox_bodies(tmp_path, to="owl@old.test")[-1]
    assert "rejected" in r.stdout and "is not an email address" in told, told


def test_the_gm_moves_an_observer_with_pbem_observe_email(run, tmp_path):
    new_game(run)
    assert run("observe", "g1", "owl@old.test").returncode == 0
    r = run("observe", "g1", "OWL@old.test", "--email", "owl@new.test")
    assert r.returncode == 0 and "the observer at owl@old.test is now at owl@new.test" in r.stdout, r.stdout + r.stderr
    # its first report, queued and not sent, went with it
    assert "1 message not yet sent to owl@old.test now goes to owl@new.test" in r.stdout, r.stdout
    assert observers(tmp_path) == ["owl@new.test"]
    assert any("is now at owl@new.test" in b for b in outbox_bodies(tmp_path, to="owl@old.test"))
    assert any("is now at owl@new.test" in b for b in outbox_bodies(tmp_path, to="owl@new.test"))
    for args, said in ((("observe", "g1", "nobody@x.test", "--email", "a@b.test"), "nobody@x.test does not observe game 'g1'"),
                       (("observe", "g1", "owl@new.test", "--email", "not an address"), "not an address"),
                       (("observe", "g1", "owl@new.test", "--email", "owl@new.test"), "observes game 'g1' already"),
                       (("observe", "g1", "owl@new.test", "--email", "a@b.test", "--remove"), "not both")):
        r = run(*args)
        assert r.returncode != 0 and said in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert observers(tmp_path) == ["owl@new.test"]


# --- 5. one confirmation per message; wrong codes count in the reply cap -----------------------------------

def test_one_message_tries_one_confirmation_code(run, tmp_path):
    assert run("new", "gods", "quick", "--open", "3").returncode == 0
    run("ingest", eml(tmp_path, "a", "ann@example.org", "JOIN quick"))
    code = code_in(outbox_bodies(tmp_path, to="ann@example.org")[-1], "JOIN quick CONFIRM")
    guesses = [f"JOIN quick CONFIRM {n:010d}" for n in range(4)] + [f"JOIN quick CONFIRM {code}"]
    r = run("ingest", eml(tmp_path, "b", "ann@example.org", "\n".join(guesses)))
    assert "rejected" in r.stdout, r.stdout
    assert "0 of 3 seats taken" in run("status").stdout  # the right code, fifth, was not even checked
    reply = outbox_bodies(tmp_path, to="ann@example.org")[-1]
    assert reply.count("is not the code sent to") == 1, reply
    assert reply.count("one confirmation per message") == 4, reply
    assert f"line 5: JOIN quick CONFIRM {code}\n  REFUSED: one confirmation per message" in reply, reply
    # OBSERVE's and JOIN's codes are one budget
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    r = run("ingest", eml(tmp_path, "c", "ann@example.org", f"OBSERVE g1 CONFIRM 0000000000\nJOIN quick CONFIRM {code}"))
    assert "0 of 3 seats taken" in run("status").stdout and observers(tmp_path) == []
    # alone in its message, the right code is taken
    r = run("ingest", eml(tmp_path, "d", "ann@example.org", f"JOIN quick CONFIRM {code}"))
    assert "1 accepted" in r.stdout and "1 of 3 seats taken (ann)" in run("status").stdout, r.stdout


def test_wrong_confirmation_codes_count_in_the_reply_cap(run, tmp_path):
    """A wrong code sent under a seat holder's From with a wrong password was left to the
    password-guessing throttle (5 an hour answered); a wrong code counts in the reply cap of
    the address it is answered to, whatever else the message carried."""
    run.env["PBEM_NOW"] = NOW
    new_game(run)
    assert run("new", "gods", "g2", "-p", "ares:ares@play.test", "-p", "nike:nike@play.test").returncode == 0
    answered = []
    for n in range(5):
        r = run("ingest", eml(tmp_path, f"w{n}", "zeus@play.test",
                              f"GAME g1\nPLAYER zeus\nPASSWORD guess-{n}\nWAIT\nOBSERVE g2 CONFIRM {n:010d}"))
        assert "rejected" in r.stdout and "Traceback" not in r.stdout + r.stderr, r.stdout
        answered.append("reply cap" not in r.stdout)
    assert answered == [True, True, True, False, False], answered
    rows = outbox_rows(tmp_path, to="zeus@play.test")
    assert [r["status"] for r in rows if "your commands" in r["subject"]] == ["queued"] * 3 + ["withheld"] * 2
    assert observers(tmp_path, "g2") == []


# --- 6. the observer's footer on the last mail of a game ----------------------------------------------------

def test_the_observers_last_mail_does_not_promise_more_reports(run, tmp_path):
    new_game(run)
    assert run("observe", "g1", "owl@example.org").returncode == 0
    assert run("end", "g1", "--draw").returncode == 0
    rows = outbox_rows(tmp_path, to="owl@example.org")
    over = [r for r in rows if "is over" in r["subject"]]
    assert over, [r["subject"] for r in rows]
    for r in over:
        assert "each turn's public report comes" not in r["body"], r["body"]
        assert "The game is over: no more of its reports will come to this address" in r["body"], r["body"]
        assert r["body"].rstrip().endswith("send a message with the line OBSERVE g1 STOP from it."), r["body"]
    # before the end, the footer says what comes
    assert "each turn's public report comes to this address" in rows[0]["body"], rows[0]["body"]
    # a new observer of the finished game gets its last report, worded the same
    assert run("observe", "g1", "late@example.org").returncode == 0
    [late] = outbox_bodies(tmp_path, to="late@example.org")
    assert "The game is over" in late and "each turn's public report comes" not in late, late
    assert re.search(r"OBSERVE g1 STOP from it\.\n$", late), late
