"""Defects of the mail loop an independent tester found (tester 3), each met where the user
meets it: real .eml files through the installed `pbem ingest` (and `pbem submit`, order files
in turns/ where the same rule holds for them)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from test_new_gm import eml, outbox_bodies

NOW = "2026-11-27T12:00:00Z"


def new_game(run, game_id: str = "g1", players=("zeus:zeus@play.test", "hera:hera@play.test"), *more) -> dict[str, str]:
    """A GODS game (seed 42, a deadline every 24h); returns {player: password}."""
    args = ["new", "gods", game_id, "--seed", "42", "--every", "24h", *more]
    for p in players:
        args += ["--player", p]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))


def submissions(where: Path, player: str) -> list[dict]:
    con = sqlite3.connect(where / "pbem.db")
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("select * from submissions where player = ? order by id", [player])]
    finally:
        con.close()


def what_happened(run, player: str, turn: int) -> str:
    text = run("report", "g1", "--player", player, "--turn", str(turn)).stdout
    return text[text.index("What happened"):]


# --- 1. READY alone makes the orders on file ready, never replaces them with nothing ------------------

def test_ready_alone_by_mail_makes_the_orders_on_file_ready(run, tmp_path):
    pw = new_game(run)
    r = run("ingest", eml(tmp_path, "m1", "zeus@play.test",
                          f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\ntirbe purple 0,1\ntribe green 1,-2"))
    assert "1 of 2 lines rejected" in r.stdout, r.stdout
    first = outbox_bodies(tmp_path, kind="ack", to="zeus@play.test")[-1]
    assert "You are NOT READY" in first and "READY" in first, first
    # what the acknowledgement invites: a reply with the password and READY, no order line
    r = run("ingest", eml(tmp_path, "m2", "zeus@play.test", f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\nREADY",
                          subject="Re: [g1] turn 1: orders accepted, some lines rejected (zeus)"))
    assert "1 accepted" in r.stdout and "default orders" not in r.stdout, r.stdout
    assert "made ready" in r.stdout, r.stdout
    ack = outbox_bodies(tmp_path, kind="ack", to="zeus@play.test")[-1]
    # the acknowledgement says which orders it made ready, line by line, and that nothing was replaced
    assert "made ready" in ack and "replaces nothing" in ack, ack
    assert "accepted  tribe green 1,-2" in ack and "REJECTED" in ack and "tirbe purple 0,1" in ack, ack
    assert "default orders will be used" not in ack, ack
    assert "READY: you take these orders as they are" in ack, ack
    # the turn resolves on the orders the player sent, not on the defaults
    r = run("resolve", "--all")
    assert "g1 turn 1: resolved" in r.stdout, r.stdout
    happened = what_happened(run, "zeus", 2)
    assert "zeus places a green tribe at 1,-2" in happened, happened
    # every submission is kept: the READY one is stored as well, and it is the one that counted
    subs = submissions(tmp_path, "zeus")
    assert len(subs) == 2 and subs[-1]["ready"] == 1 and b"tribe green 1,-2" in subs[-1]["raw"]


def test_ready_alone_by_pbem_submit_and_by_an_order_file(run, tmp_path):
    pw = new_game(run)
    r = run("submit", "g1", "zeus", "-", input=f"PASSWORD {pw['zeus']}\ntirbe purple 0,1\ntribe green 1,-2\n")
    assert r.returncode == 2 and "You are NOT READY" in r.stdout, r.stdout
    r = run("submit", "g1", "zeus", "-", input=f"PASSWORD {pw['zeus']}\nREADY\n")
    assert "made ready" in r.stdout and "accepted  tribe green 1,-2" in r.stdout, r.stdout
    assert "default orders" not in r.stdout, r.stdout
    assert json.loads(run("status", "g1", "--json").stdout)["games"][0]["not_ready"] == {}
    # the GM's file in turns/ with READY alone does the same for orders mailed in
    pw2 = new_game(run, "g2")
    run("ingest", eml(tmp_path, "f1", "zeus@play.test",
                      f"GAME g2\nPLAYER zeus\nPASSWORD {pw2['zeus']}\ntirbe purple 0,1\ntribe green 1,-2"))
    folder = tmp_path / "turns" / "g2" / "1"
    (folder / "zeus.txt").write_text("READY\n", encoding="utf-8")
    r = run("resolve", "g2")
    assert "g2 turn 1: resolved" in r.stdout, r.stdout + r.stderr
    text = run("report", "g2", "--player", "zeus", "--turn", "2").stdout
    happened = text[text.index("What happened"):]
    assert "zeus places a green tribe at 1,-2" in happened, happened
    # collected once: another run does not submit the file again
    assert len(submissions(tmp_path, "zeus")) == 2 + 2


def test_ready_alone_with_no_orders_on_file_is_refused_and_changes_nothing(run, tmp_path):
    pw = new_game(run)
    r = run("ingest", eml(tmp_path, "m1", "zeus@play.test", f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\nREADY"))
    assert "rejected" in r.stdout and "no orders on file" in r.stdout, r.stdout
    ack = outbox_bodies(tmp_path, to="zeus@play.test")[-1]
    assert "no orders on file for turn 1" in ack and "Nothing was changed" in ack, ack
    assert "without READY" in ack, ack  # how to send no orders at all, deliberately
    assert "waiting for zeus" in run("resolve", "g1").stdout
    assert submissions(tmp_path, "zeus")[-1]["status"] == "rejected"
    r = run("submit", "g1", "zeus", "-", input=f"PASSWORD {pw['zeus']}\nREADY\n")
    assert r.returncode == 2 and "no orders on file" in r.stdout and "Traceback" not in r.stdout + r.stderr, r.stdout


def test_no_orders_deliberately_still_possible_and_its_acknowledgement_says_what_it_replaced(run, tmp_path):
    pw = new_game(run)
    run("ingest", eml(tmp_path, "m1", "zeus@play.test", f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\ntribe green 1,-2"))
    # the password alone, without READY: no orders at all (the game's defaults), as documented
    r = run("ingest", eml(tmp_path, "m2", "zeus@play.test", f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}"))
    assert "default orders will be used" in r.stdout, r.stdout
    ack = outbox_bodies(tmp_path, kind="ack", to="zeus@play.test")[-1]
    assert "default orders will be used" in ack, ack
    # ...and the acknowledgement warns that earlier orders are dropped, and how to keep them
    assert "replace your orders received" in ack and "READY" in ack, ack


# --- 2. a registered player's mail without a GAME line -------------------------------------------------

def test_a_seat_holders_mail_without_a_game_goes_to_their_one_game(run, tmp_path):
    pw = new_game(run)
    body = f"Hello GM,\n\nPLAYER zeus\nPASSWORD {pw['zeus']}\ntribe green 1,-2\nEND\n"
    r = run("ingest", eml(tmp_path, "n1", "Zeus <zeus@play.test>", body, subject="my orders for this turn"))
    assert "accepted" in r.stdout and "g1/zeus" in r.stdout and "ignored" not in r.stdout.split("\n")[0], r.stdout
    ack = outbox_bodies(tmp_path, kind="ack", to="zeus@play.test")[-1]
    assert "accepted  tribe green 1,-2" in ack, ack
    # without a PLAYER line too: the address holds one seat
    r = run("ingest", eml(tmp_path, "n2", "zeus@play.test", f"PASSWORD {pw['zeus']}\ntribe green 1,-2\n", subject="orders"))
    assert "accepted" in r.stdout and "g1/zeus" in r.stdout, r.stdout
    # a stranger's mail naming no game is still ignored, and never answered
    before = len(outbox_bodies(tmp_path))
    r = run("ingest", eml(tmp_path, "n3", "spam@else.test", "PLAYER zeus\nPASSWORD guess\ntribe green 1,-2\n"))
    assert "ignored" in r.stdout and "not for any game" in r.stdout, r.stdout
    assert len(outbox_bodies(tmp_path)) == before


def test_a_seat_holder_in_several_games_is_asked_which(run, tmp_path):
    new_game(run)
    new_game(run, "g2")
    before = len(outbox_bodies(tmp_path))
    # (a PASSWORD that is neither seat's: the game cannot be told by it. One that is: see
    # test_mail_leftovers.py)
    r = run("ingest", eml(tmp_path, "n1", "zeus@play.test", "PLAYER zeus\nPASSWORD not-mine\ntribe green 1,-2\n",
                          subject="my orders"))
    assert "rejected" in r.stdout and "g1, g2" in r.stdout, r.stdout
    told = outbox_bodies(tmp_path, to="zeus@play.test")
    assert len(outbox_bodies(tmp_path)) == before + 1, told
    reply = told[-1]
    assert "g1, g2" in reply and "GAME" in reply and "Nothing was changed" in reply, reply
    assert submissions(tmp_path, "zeus") == []
    # with mail commands too (the several-requests path)
    r = run("ingest", eml(tmp_path, "n2", "zeus@play.test", "PASSWORD not-mine\nWAIT\nLIST\n", subject="hi"))
    reply = outbox_bodies(tmp_path, to="zeus@play.test")[-1]
    assert "line 2: WAIT\n  REFUSED:" in reply and "g1, g2" in reply and "LIST: the games here" in reply, reply


# --- 3. format=flowed (RFC 3676) -----------------------------------------------------------------------

def _flowed(where: Path, name: str, body: str, delsp: bool = False) -> Path:
    path = where / f"{name}.eml"
    params = "; delsp=yes" if delsp else ""
    path.write_bytes((
        "From: zeus@play.test\r\nTo: orders@judge.test\r\nSubject: orders\r\n"
        f"Message-ID: <{name}@play.test>\r\nDate: Fri, 27 Nov 2026 22:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/plain; charset=UTF-8; format=flowed{params}\r\nContent-Transfer-Encoding: 7bit\r\n\r\n"
        + body.replace("\n", "\r\n")).encode())
    return path


def test_format_flowed_soft_line_breaks_are_joined(run, tmp_path):
    pw = new_game(run)
    body = (f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\n"
            "tribe green 1,-2 # my first tribe goes north of the grey one, next to \nthe wasteland\n"
            "discard \npurple tribe\n")
    r = run("ingest", _flowed(tmp_path, "f1", body))
    assert "orders accepted" in r.stdout and "rejected)" not in r.stdout, r.stdout
    ack = outbox_bodies(tmp_path, kind="ack", to="zeus@play.test")[-1]
    assert "REJECTED" not in ack and "accepted  tribe green 1,-2" in ack and "accepted  discard purple tribe" in ack, ack
    # the line numbers are the player's own lines (as typed, before the client wrapped them)
    assert "line   4: accepted  tribe green 1,-2" in ack and "line   5: accepted  discard purple tribe" in ack, ack


def test_format_flowed_delsp_stuffing_and_quotes(run, tmp_path):
    pw = new_game(run)
    # DelSp=yes: the space before a soft break is the writer's, not the text's; a space-stuffed
    # line loses its stuffing; a quoted flowed paragraph stays quoted (and is not read as orders)
    body = (f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\n"
            " tribe gre \nen 1,-2\n"
            "discard purple  \ntribe\n"
            "\n> tribe purple  \n> 0,1\n")
    r = run("ingest", _flowed(tmp_path, "f2", body, delsp=True))
    assert "orders accepted" in r.stdout and "rejected)" not in r.stdout, r.stdout
    ack = outbox_bodies(tmp_path, kind="ack", to="zeus@play.test")[-1]
    assert "accepted  tribe green 1,-2" in ack and "accepted  discard purple tribe" in ack, ack
    assert "purple 0,1" not in ack, ack  # the quoted line stays quoted: an old message's, not an order
    # a message without format=flowed keeps its trailing spaces' lines apart, as it always did
    plain = tmp_path / "p.eml"
    plain.write_text(f"From: zeus@play.test\nSubject: o\nMessage-ID: <p@x>\n\nGAME g1\nPLAYER zeus\n"
                     f"PASSWORD {pw['zeus']}\ndiscard \npurple tribe\n", encoding="utf-8")
    r = run("ingest", plain)
    assert "rejected" in r.stdout, r.stdout


def test_unflow_keeps_signatures_quotes_and_hard_breaks():
    from pbem.mail.mime import unflow

    text = ("Hello \nGM,\n >From the start \nto the end\n> quoted \n> on\n>> deeper \n> back\nlast \n-- \nsig")
    assert unflow(text).split("\n") == [
        "Hello GM,", ">From the start to the end", "> quoted on", ">> deeper ", "> back", "last ", "-- ", "sig"]
    assert unflow("a \nb\nc  \nd", delsp=True).split("\n") == ["ab", "c d"]


# --- 4. the reply cap never silences a message sent with the seat's right password ---------------------

def test_refused_commands_with_the_right_password_are_answered_past_the_reply_cap(run, tmp_path):
    run.env["PBEM_NOW"] = NOW
    pw = new_game(run)
    for i in range(1, 5):  # a forged (or mistyped) From fills zeus's reply cap
        r = run("ingest", eml(tmp_path, f"w{i}", "zeus@play.test", f"GAME g1\nPLAYER zeus\nPASSWORD guess-{i}\npass"))
        assert "wrong password" in r.stdout, r.stdout
    before = len(outbox_bodies(tmp_path, to="zeus@play.test"))
    r = run("ingest", eml(tmp_path, "real", "zeus@play.test",
                          f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\nSET ADDRESS zeus-at-home.example.org\n"
                          "ABSENT FROM 2026-11-01 TO 2026-11-02"))
    assert "rejected" in r.stdout and "reply cap" not in r.stdout, r.stdout
    told = outbox_bodies(tmp_path, to="zeus@play.test")
    assert len(told) == before + 1, told
    assert "'zeus-at-home.example.org' is not an email address" in told[-1] and "in the past" in told[-1], told[-1]
    # a press block over the limit, with the right password: its refusal is answered as well
    r = run("ingest", eml(tmp_path, "press", "zeus@play.test",
                          f"GAME g1\nPLAYER zeus\nPASSWORD {pw['zeus']}\nPRESS TO hera\n{'x' * 9000}\nENDPRESS"))
    assert "reply cap" not in r.stdout, r.stdout
    assert "too long" in outbox_bodies(tmp_path, to="zeus@play.test")[-1]
    # a message without the right password still meets the cap (no password at all: REPORT)
    r = run("ingest", eml(tmp_path, "nopw", "zeus@play.test", "GAME g1\nPLAYER zeus\nWAIT\nRESIGN"))
    assert "reply cap" in r.stdout, r.stdout
