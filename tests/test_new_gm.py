"""What a new GM (and their players) found wrong between deadlines (issue 13): each defect,
met where the user meets it -- the installed `pbem`, real mail, `pbem ingest`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_mail_commands import game, reply_of, send, snapshot  # noqa: F401  (the fixture `game` and helpers)


def eml(where: Path, name: str, sender: str, body: str, subject: str = "hello") -> Path:
    path = where / f"{name}.eml"
    path.write_text(f"From: {sender}\nTo: judge@pbem.example.org\nSubject: {subject}\n"
                    f"Message-ID: <{name}@example.org>\n\n{body}\n", encoding="utf-8")
    return path


def outbox_bodies(where: Path, kind: str | None = None, to: str | None = None) -> list[str]:
    import sqlite3

    con = sqlite3.connect(where / "pbem.db")
    try:
        return [b for b, k, t in con.execute("select body, kind, to_addr from outbox order by id")
                if (kind is None or k == kind) and (to is None or t == to)]
    finally:
        con.close()


def password_of(where: Path, addr: str) -> str:
    import re

    for body in outbox_bodies(where, to=addr):
        found = re.search(r"Your password: (\S+)", body)
        if found:
            return found.group(1)
    raise AssertionError(f"no password mailed to {addr}")


def joined(run, where: Path, name: str, sender: str, line: str):
    """JOIN by mail as a player does it: `line` (JOIN GAME [NAME]), then the CONFIRM line with
    the code the reply mailed back; returns the second `pbem ingest`'s CompletedProcess."""
    import re

    r = run("ingest", eml(where, name, sender, line))
    assert r.returncode == 0 and "1 accepted" in r.stdout, r.stdout
    confirm = re.search(r"^ +(JOIN .* CONFIRM \w+)$", outbox_bodies(where, to=sender)[-1], re.MULTILINE).group(1)
    return run("ingest", eml(where, name + "-confirm", sender, confirm))


# --- 1. a JOIN that fills an open game starts it ---------------------------------------------------

def test_a_join_by_mail_that_fills_an_open_game_starts_it(run):
    assert run("new", "gods", "quick", "--open", "2").returncode == 0
    r = joined(run, run.cwd, "a", "ann@example.org", "JOIN quick")
    assert r.returncode == 0 and "1 accepted" in r.stdout, r.stdout
    r = joined(run, run.cwd, "b", "ben@example.org", "JOIN quick")
    assert r.returncode == 0, r.stderr
    assert "renderer" not in r.stdout and r.stdout.count("accepted") == 2, r.stdout  # its line and the summary
    listed = run("list").stdout
    assert "running" in listed and "open" not in listed, listed
    reports = run.cwd / "turns" / "quick" / "1" / "reports"
    assert sorted(p.name for p in reports.iterdir()) == ["ann.txt", "ben.txt", "public.txt"]


# --- 2. an address registered to another seat is refused -------------------------------------------

def test_set_address_to_another_seats_address_is_refused_and_changes_nothing(game, tmp_path):
    db, pw = game
    before = snapshot(db)
    out, mail = send(db, tmp_path, "alice@example.org", f"PASSWORD {pw['alice']}\nSET ADDRESS BOB@example.org\n")
    assert out.outcome == "rejected"
    reply = reply_of(mail, "alice@example.org")
    assert "REFUSED: the address BOB@example.org is already registered to another seat of game 'g1'" in reply
    assert snapshot(db) == before
    assert "bob@example.org" not in mail  # bob is not told anything
    # bob's own mail still counts as bob's
    out, _ = send(db, tmp_path, "bob@example.org", f"GAME g1\nPLAYER bob\nPASSWORD {pw['bob']}\nREPORT\n")
    assert out.outcome == "accepted" and out.player == "bob"


def test_the_gm_cannot_give_a_seat_another_seats_address(run):
    assert run("new", "gods", "g1", "-p", "alice:alice@example.org", "-p", "bob:bob@example.org").returncode == 0
    r = run("seat", "g1", "alice", "--email", "Bob@Example.org")
    assert r.returncode == 1 and "already registered to another seat of game 'g1'" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    r = run("replace", "g1", "alice", "dora:bob@example.org")
    assert r.returncode == 1 and "already registered to another seat" in r.stderr, r.stderr


# --- 3. a report asked for again shows the deadline as it is now --------------------------------

def test_a_report_asked_for_again_shows_the_moved_deadline(run, tmp_path):
    run.env["PBEM_NOW"] = "2026-11-21T12:00:00Z"
    made = run("new", "gods", "g1", "-p", "alice:alice@example.org", "-p", "bob:bob@example.org", "--every", "72h",
               "--tz", "Europe/London")
    assert made.returncode == 0, made.stderr
    before = run("report", "g1", "--player", "alice").stdout
    assert "Deadline now: Tue 24 Nov 2026 12:00 GMT (2026-11-24T12:00:00Z)\n" in before  # not moved: no remark
    assert run("deadline", "g1", "--at", "2026-12-01 20:00").returncode == 0
    after = run("report", "g1", "--player", "alice").stdout
    assert ("Deadline now: Tue 01 Dec 2026 20:00 GMT (2026-12-01T20:00:00Z) (moved by the GM since this report "
            "was written)") in after
    # the same by mail: REPORT
    pw = password_of(tmp_path, "alice@example.org")
    r = run("ingest", eml(tmp_path, "rep", "alice@example.org", f"GAME g1\nPLAYER alice\nPASSWORD {pw}\nREPORT\n"))
    assert "1 accepted" in r.stdout, r.stdout
    body = outbox_bodies(tmp_path, "report", "alice@example.org")[-1]
    assert "Deadline now: Tue 01 Dec 2026 20:00 GMT" in body and "moved by the GM" in body


# --- 4. a body line "From ..." arrives as written over SMTP ---------------------------------------

def test_a_body_line_starting_from_arrives_unchanged_over_smtp(tmp_path):
    from mail.smtpd import SmtpServer

    from pbem.host import outbox
    from pbem.host.store import open_db
    from pbem.mail import send as mail_send
    from pbem.mail import settings as mail_settings

    db = open_db(str(tmp_path / "pbem.db"))
    outbox.queue(db, kind="notice", to_addr="alice@example.org", subject="[g1] hera has a new player",
                 body="From turn 4, dora plays the seat hera.\n\nFrom your registered address: SEND PASSWORD.\n",
                 game_id="g1", player="alice")
    server = SmtpServer().start()
    try:
        result = mail_send.send(db, mail_settings.MailSettings(host="127.0.0.1", port=server.port, security="none",
                                                               sender="gm@pbem.example", retries=0, backoff=0))
        assert result.complete
        [got] = server.messages
    finally:
        server.stop()
    assert b"\n>From" not in got.data
    text = got.text
    assert text.startswith("From turn 4, dora plays the seat hera.\n\nFrom your registered address")


# --- 5. a subject naming no game here ---------------------------------------------------------

@pytest.mark.parametrize("body", ["PLAYER zed\nPASSWORD foo\nWAIT\n", "PASSWORD foo\ntribe green 1,0\n",
                                  "PLAYER zed\nPASSWORD foo\n"])
def test_a_subject_naming_an_unknown_game_is_answered(game, tmp_path, body):
    db, _ = game
    out, mail = send(db, tmp_path, "zed@example.org", body, subject="[atlantis] my orders")
    assert out.outcome == "rejected" and out.reason == "unknown game 'atlantis'; running games: g1", out.reason
    [reply] = mail["zed@example.org"]
    assert "unknown game 'atlantis'; running games: g1" in reply["body"]


def test_a_subject_naming_an_unknown_game_without_a_request_is_ignored_truly(game, tmp_path):
    db, _ = game
    out, mail = send(db, tmp_path, "zed@example.org", "hello there\n", subject="Re: [atlantis] news")
    assert out.outcome == "ignored" and out.reason == "not for any game: 'atlantis' is no game here"
    assert not mail


# --- 6. a JOIN with a name of several words gets the name rules -------------------------------------

def test_join_with_a_name_of_several_words_is_answered_with_the_name_rules(run, tmp_path):
    assert run("new", "gods", "delphi", "--open", "3").returncode == 0
    r = run("ingest", eml(tmp_path, "j", "dave@example.org", "JOIN delphi Dave The Great"))
    assert "rejected" in r.stdout, r.stdout
    [body] = outbox_bodies(tmp_path, to="dave@example.org")
    assert ("REFUSED: JOIN: 'Dave The Great' is not a name here: a name is one word of letters, digits, '-' or '_' "
            "(at most 40), e.g. JOIN delphi Dave-The-Great") in body
    assert "0 of 3" in run("list").stdout or "open for sign-up: 0 of 3" in run("list").stdout
    # the name as one word joins
    r = joined(run, tmp_path, "j2", "dave@example.org", "JOIN delphi Dave-The-Great")
    assert "JOIN delphi as dave-the-great" in r.stdout, r.stdout


# --- 7. WAIT from a player who is not asked this turn --------------------------------------------

def test_wait_from_a_player_not_asked_this_turn_says_it_has_no_effect(game, tmp_path):
    db, pw = game
    asked = json.loads(db.execute("select active from phases where game_id = 'g1' and number = 1").fetchone()[0])
    idle = next(p for p in ("alice", "bob", "carol") if p not in asked)
    _, mail = send(db, tmp_path, f"{idle}@example.org", f"PASSWORD {pw[idle]}\nWAIT\n")
    reply = reply_of(mail, f"{idle}@example.org")
    assert "REFUSED: WAIT has no effect: you are not asked for orders in turn 1 of g1" in reply, reply
    assert "will not resolve" not in reply
    assert db["waits"].count == 0
    # a player asked: WAIT holds the turn, as before
    _, mail = send(db, tmp_path, f"{asked[0]}@example.org", f"PASSWORD {pw[asked[0]]}\nWAIT\n")
    # (the game has no deadline: the turn waits for NOWAIT or the GM)
    assert "will not resolve until you send NOWAIT or the GM resolves it" in reply_of(mail, f"{asked[0]}@example.org")
    assert db["waits"].count == 1


# --- 8. the player replaced is told; replacing a player by themselves is refused ---------------------

def test_replace_tells_the_old_address_without_a_password(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    r = run("replace", "g1", "hera", "dora:dora@example.org")
    assert r.returncode == 0, r.stderr
    new_password = password_of(tmp_path, "dora@example.org")
    [told] = [b for b in outbox_bodies(tmp_path, "notice", "hera@example.org")]
    assert "given the seat hera in game g1 to dora" in told and "no longer works" in told
    assert new_password not in told and password_of(tmp_path, "hera@example.org") not in told


def test_replacing_a_player_by_themselves_is_refused(run):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    r = run("replace", "g1", "zeus", "zeus:new@example.org")
    assert r.returncode == 1 and "zeus already plays zeus in game 'g1'" in r.stderr, r.stderr
    assert "pbem seat g1 zeus --email ADDR" in r.stderr
    assert "new@example.org" not in run("status", "g1", "--json").stdout


# --- 9. the newcomer's name names their seat in press -------------------------------------------------

def test_press_to_the_newcomers_name_reaches_the_seat(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    assert run("replace", "g1", "hera", "dora:dora@example.org").returncode == 0
    r = run("press", "g1", "--to", "Dora", "-", input="Welcome, Dora.\n")
    assert r.returncode == 0, r.stderr
    assert any("Welcome, Dora." in b for b in outbox_bodies(tmp_path, to="dora@example.org"))
    # by mail, from another player
    pw = password_of(tmp_path, "zeus@example.org")
    r = run("ingest", eml(tmp_path, "p", "zeus@example.org",
                          f"GAME g1\nPLAYER zeus\nPASSWORD {pw}\nPRESS TO dora\nHello from zeus.\nENDPRESS\n"))
    assert "1 accepted" in r.stdout, r.stdout
    assert any("Hello from zeus." in b for b in outbox_bodies(tmp_path, to="dora@example.org"))
    assert not any("Hello from zeus." in b for b in outbox_bodies(tmp_path, to="hera@example.org"))


# --- 10. open games are seen by the GM's commands --------------------------------------------------

def test_open_games_are_listed_explained_and_keep_options(run, tmp_path):
    import sqlite3

    assert run("new", "gods", "quick", "--open", "2").returncode == 0
    assert "1 accepted" in joined(run, tmp_path, "a", "ann@example.org", "JOIN quick").stdout
    r = run("status")
    assert r.returncode == 0 and "quick (GODS): open for sign-up, 1 of 2 seats taken (ann)" in r.stdout, r.stdout
    data = json.loads(run("status", "quick", "--json").stdout)
    assert data["games"] == [] and data["open"][0]["status"] == "open" and data["open"][0]["joined"] == 1
    for args in (("pause", "quick"), ("seat", "quick", "ann", "--email", "a@example.org"), ("report", "quick")):
        r = run(*args)
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert ("game 'quick' is open for sign-up (1 of 2 seats taken): it has no turn yet; start it with "
                "`pbem start quick` first") in r.stderr, (args, r.stderr)
    r = run("set", "quick", "grace", "12h")
    assert r.returncode == 0 and "quick: grace = 12h" in r.stdout, r.stderr
    assert "1 accepted" in joined(run, tmp_path, "b", "ben@example.org", "JOIN quick").stdout
    con = sqlite3.connect(tmp_path / "pbem.db")
    assert con.execute("select grace from games where id = 'quick'").fetchone() == (12 * 3600,)
    con.close()


# --- 11. smaller texts --------------------------------------------------------------------------

def test_status_and_list_show_who_holds_a_turn_with_wait_and_a_paused_games_awaited(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    asked = json.loads(run("status", "g1", "--json").stdout)["games"][0]["awaiting"]
    who = asked[0]
    pw = password_of(tmp_path, f"{who}@example.org")
    assert "1 accepted" in run("ingest", eml(tmp_path, "w", f"{who}@example.org", f"PASSWORD {pw}\nWAIT\n",
                                             subject="[g1] wait")).stdout
    assert f"waiting: {who} asked to WAIT" in run("status").stdout
    assert json.loads(run("status", "--json").stdout)["games"][0]["waiting"] == [who]
    assert f"waiting: {who} asked to WAIT" in run("list").stdout
    assert run("pause", "g1").returncode == 0
    assert f"awaiting {who}" in run("list").stdout and f"awaiting {who}" in run("status").stdout


def test_replies_without_a_game_or_a_seat_say_only_what_is_true(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    run("ingest", eml(tmp_path, "o", "stranger@example.org", "OBSERVE nosuch"),
        eml(tmp_path, "j", "stranger2@example.org", "JOIN g1"))
    [observe] = outbox_bodies(tmp_path, to="stranger@example.org")
    assert "no game 'nosuch'; its games: g1" in observe and "open for sign-up" not in observe
    assert "adjudicator of game (none)" not in observe and "still stand" not in observe
    [join] = outbox_bodies(tmp_path, to="stranger2@example.org")
    assert "has already started" in join and "still stand" not in join
    # a seated player's wrong password on PRESS: the password is wrong, their orders stand
    r = run("ingest", eml(tmp_path, "p", "zeus@example.org", "GAME g1\nPLAYER zeus\nPASSWORD nope\nPRESS TO ALL\nhi\nENDPRESS"))
    assert "rejected" in r.stdout
    told = outbox_bodies(tmp_path, to="zeus@example.org")[-1]
    assert "bad password: the PASSWORD given is wrong; PRESS needs your own PASSWORD" in told
    assert "Any orders you sent earlier still stand." in told


def test_start_of_a_started_game_and_observers_of_an_open_game(run, tmp_path):
    assert run("new", "gods", "quick", "--open", "2").returncode == 0
    assert run("observe", "quick", "owl@example.org").returncode == 0
    joined(run, tmp_path, "a", "ann@example.org", "JOIN quick")
    joined(run, tmp_path, "b", "ben@example.org", "JOIN quick")
    [public] = outbox_bodies(tmp_path, "observer", "owl@example.org")
    assert "turn 1" in public.lower()
    r = run("start", "quick")
    assert r.returncode == 1 and "game 'quick' has already started: there is nothing to start" in r.stderr, r.stderr
    assert "take new players" not in r.stderr


def test_a_resumed_deadline_is_to_the_minute(run):
    run.env["PBEM_NOW"] = "2026-11-21T12:00:00Z"
    assert run("new", "gods", "g1", "-p", "zeus", "-p", "hera", "--every", "72h").returncode == 0
    run.env["PBEM_NOW"] = "2026-11-21T12:00:47Z"
    assert run("pause", "g1").returncode == 0
    run.env["PBEM_NOW"] = "2026-11-22T09:30:00Z"
    assert run("resume", "g1").returncode == 0
    deadline = json.loads(run("status", "g1", "--json").stdout)["games"][0]["deadline"]
    assert deadline.endswith(":00Z") and deadline == "2026-11-25T09:30:00Z", deadline
