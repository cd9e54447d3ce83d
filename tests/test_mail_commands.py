"""The players' mail commands (issue 13): several requests in one message, each answered with
its own line number; WAIT/NOWAIT, ABSENT, SET ADDRESS, SEND PASSWORD, RESIGN, JOIN, OBSERVE,
LIST, HISTORY, DRAW, CONCEDE and PRESS; and bad input, which gets a clean reply quoting it
and changes nothing. Messages go through the real ingest (pbem.mail.ingest) as .eml files."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from pbem import host
from pbem.host import press as host_press
from pbem.host.store import open_db
from pbem.mail import extract
from pbem.mail import ingest as mail_ingest

NOW = "2026-11-21T12:00:00Z"
_n = itertools.count(1)


# --- extraction -------------------------------------------------------------------------------------

def test_a_message_carries_orders_commands_and_press_each_with_its_own_line_number():
    text = ("Hi GM,\nWAIT\nGAME g1\nPLAYER alice\nPASSWORD pw\ntribe green 1,0\nPRESS TO bob, carol\nLet us ally.\nEND\n"
            "ENDPRESS\ntemple 2,-1\ndraw\nEND\npress to all\nhello all\n> quoted in the press\nendpress\n")
    found = extract.find_orders(text)
    assert [t for _, t in found.block.orders] == ["tribe green 1,0", "temple 2,-1"]
    assert found.block.numbers == [6, 11]
    assert [(r.name, r.line) for r in found.requests] == [("wait", 2), ("press", 7), ("draw", 12), ("press", 14)]
    private, public = found.requests[1], found.requests[3]
    assert private.body == ["Let us ally.", "END"] and private.ended and private.arg == "TO bob, carol"
    assert public.body == ["hello all", "> quoted in the press"] and public.ended
    assert found.command is None  # a message with orders is not "a request"
    # the orders keep the player's own line numbers; the press and commands are not orders
    assert extract.order_text("g1", "alice", found).decode().split("\n")[5:11] == [
        "tribe green 1,0", "", "", "", "", "temple 2,-1"]


def test_what_is_not_a_request():
    # prose that starts like a command is no command, and "Press the button" opens no press block
    found = extract.find_orders("GAME g1\nPLAYER a\nPASSWORD p\nPress the button twice\nDraw me a map\ntribe green 1,0\nEND\n")
    assert found.requests == [] and len(found.block.orders) == 3
    # quoted requests (an old message) do not count; typed ones do
    found = extract.find_orders("PASSWORD p\nNOWAIT\n\nOn Sat, GM wrote:\n> WAIT\n> PRESS TO ALL\n> old\n> ENDPRESS\n")
    assert [r.name for r in found.requests] == ["nowait"]
    # a press block with no ENDPRESS is kept as unterminated: its handler refuses it
    found = extract.find_orders("PASSWORD p\nPRESS TO bob\nnever closed\nRESIGN\n")
    [p] = found.requests
    assert p.name == "press" and not p.ended and p.body == ["never closed", "RESIGN"]  # RESIGN is press text here


def test_report_lines_never_read_as_requests():
    """A report pasted back unquoted (the form filled in) must not turn press quoted in it
    into requests: press text is shown behind '| '."""
    shown = host_press.quoted("RESIGN\nPRESS TO ALL\nDRAW\nENDPRESS")
    text = ("Messages (press) in turn 1\n--------------------------\nbob to you:\n" + "\n".join("  " + x for x in shown.split("\n"))
            + "\nGAME g1\nPLAYER alice\nPASSWORD pw\ntribe green 1,0\nEND\n")
    found = extract.find_orders(text)
    assert found.requests == [] and [t for _, t in found.block.orders] == ["tribe green 1,0"]


# --- through ingest ------------------------------------------------------------------------------------

@pytest.fixture
def game(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_NOW", NOW)
    db = open_db(str(tmp_path / "pbem.db"))
    made = host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org", "carol:carol@example.org"],
                         seed="1", turns=None)
    db.execute("delete from outbox")
    db.conn.commit()
    return db, {p["name"]: p["password"] for p in made["players"]}


def send(db, tmp_path, sender: str, body: str, subject: str = "[g1] commands"):
    """Ingest one .eml from `sender`; returns (outcome, {address: [outbox rows]})."""
    n = next(_n)
    path = tmp_path / f"msg-{n}.eml"
    path.write_text(f"From: {sender}\nTo: gm@pbem.example\nSubject: {subject}\nMessage-ID: <cmd-{n}@example.org>\n\n{body}",
                    encoding="utf-8")
    [out] = mail_ingest.ingest(db, [path], turns=str(tmp_path / "turns")).results
    mail: dict[str, list[dict]] = {}
    for row in db["outbox"].rows_where("id > ?", [getattr(db, "seen_outbox", 0)], order_by="id"):
        mail.setdefault(row["to_addr"], []).append(row)
        db.seen_outbox = row["id"]
    return out, mail


def join_by_mail(db, tmp_path, sender: str, line: str, subject: str = "join"):
    """JOIN by mail as a player does it: the JOIN line, then the CONFIRM line with the code the
    reply mailed back. Returns what `send` returns for the confirmation."""
    _out, mail = send(db, tmp_path, sender, line + "\n", subject=subject)
    asked = reply_of(mail, sender)
    assert "Your password" not in asked, asked
    confirm = re.search(r"^ +(JOIN .* CONFIRM \w+)$", asked, re.MULTILINE).group(1)
    return send(db, tmp_path, sender, confirm + "\n", subject=subject)


def reply_of(mail: dict, addr: str) -> str:
    [row] = [r for r in mail.get(addr, []) if r["subject"].startswith(("[g1] your commands", "[pbem] your commands",
                                                                     "[g1] your message"))]
    return row["body"]


def snapshot(db) -> dict:
    """Everything a refused command must leave as it was."""
    tables = ("players", "waits", "absences", "press", "proposals", "observers", "games", "submissions", "gm_actions")
    return {t: [dict(r) for r in db[t].rows] for t in tables}


def test_orders_commands_and_press_in_one_message_are_each_answered(game, tmp_path):
    db, pw = game
    body = (f"GAME g1\nPLAYER alice\nPASSWORD {pw['alice']}\nWAIT\ntribe purple 2,-1\n"
            "PRESS TO bob\nShall we share the north?\nENDPRESS\nPRESS TO ALL\nGreetings, gods.\nENDPRESS\nLIST\nEND\n")
    out, mail = send(db, tmp_path, "Alice <alice@example.org>", body)
    assert out.outcome == "accepted" and out.player == "alice"
    assert db.execute("select player from waits where game_id = 'g1'").fetchall() == [("alice",)]
    [sub] = db["submissions"].rows
    assert sub["status"] in ("accepted", "partial") and b"Shall we" not in sub["raw"] and b"WAIT" not in sub["raw"]
    kinds = sorted(r["kind"] for r in mail["alice@example.org"])
    assert kinds == ["ack", "notice"]  # the acknowledgement, and one reply for everything else
    reply = reply_of(mail, "alice@example.org")
    assert "line 4: WAIT\n  done: WAIT" in reply
    assert "line 5: your orders (1 line)" in reply
    assert "line 6: PRESS TO bob (1 line)\n  done: press of 1 line sent to bob." in reply
    assert "line 9: PRESS TO ALL (1 line)\n  done: press of 1 line sent to everyone" in reply
    assert "line 12: LIST\n  done: LIST" in reply and re.search(r"g1 +gods +1 +running", reply)
    # bob gets both messages, carol only the public one
    assert sorted(r["subject"] for r in mail["bob@example.org"]) == ["[g1] press from alice", "[g1] press from alice to all"]
    assert [r["subject"] for r in mail["carol@example.org"]] == ["[g1] press from alice to all"]
    assert all("Shall we share" not in r["body"] for r in mail["carol@example.org"])
    # NOWAIT takes it back
    out, mail = send(db, tmp_path, "alice@example.org", f"PASSWORD {pw['alice']}\nNOWAIT\n")
    assert out.outcome == "accepted" and db["waits"].count == 0
    assert "line 2: NOWAIT\n  done: NOWAIT" in reply_of(mail, "alice@example.org")


BAD = [
    # (sender, body, what the reply must say)
    ("alice@example.org", "PLAYER zed\nPASSWORD x\nWAIT\n", "unknown player 'zed' in game g1"),
    ("alice@example.org", "PASSWORD wrong-one\nWAIT\nDRAW\n", "bad password: the PASSWORD given is wrong; WAIT needs your own PASSWORD"),
    ("alice@example.org", "WAIT\n", "no password: WAIT needs your PASSWORD line"),
    ("mallory@evil.example", "PLAYER alice\nPASSWORD {alice}\nRESIGN\n", "sender mismatch"),
    ("alice@example.org", "PASSWORD {alice}\nABSENT FROM 2026-11-01 TO 2026-11-05\n", "ABSENT FROM '2026-11-01' is in the past"),
    ("alice@example.org", "PASSWORD {alice}\nABSENT tomorrow\n", "not understood: 'ABSENT tomorrow'"),
    ("alice@example.org", "PASSWORD {alice}\nABSENT FROM 2026-12-05 TO 2026-12-01\n", "is not after FROM"),
    ("alice@example.org", "PASSWORD {alice}\nABSENT FROM someday TO never\n", "'someday' is not a date"),
    ("alice@example.org", "PASSWORD {alice}\nSET ADDRESS not-an-address\n", "'not-an-address' is not an email address"),
    ("alice@example.org", "PASSWORD {alice}\nSET ADDRESS a@b.org, c@d.org\n", "'a@b.org, c@d.org' is not an email address"),
    ("alice@example.org", "PASSWORD {alice}\nSET ADDRESS\n", "SET ADDRESS needs the new address"),
    ("alice@example.org", "PASSWORD {alice}\nPRESS TO zed\nhi\nENDPRESS\n", "no player 'zed' in this game"),
    ("alice@example.org", "PASSWORD {alice}\nPRESS TO bob\nno end\n", "'PRESS TO bob' has no ENDPRESS line"),
    ("alice@example.org", "PASSWORD {alice}\nPRESS TO\nhi\nENDPRESS\n", "say who the press is for"),
    ("alice@example.org", "PASSWORD {alice}\nPRESS TO all, bob\nhi\nENDPRESS\n", "not both"),
    ("alice@example.org", "PASSWORD {alice}\nPRESS TO bob\n\nENDPRESS\n", "the press is empty"),
    ("alice@example.org", "PASSWORD {alice}\nPRESS TO alice\nme\nENDPRESS\n", "addressed to yourself only"),
    ("alice@example.org", "PASSWORD {alice}\nPRESS TO bob\n" + "x" * 8001 + "\nENDPRESS\n", "the press is too long: 8001"),
    ("alice@example.org", "HISTORY nosuch\n", "unknown game 'nosuch'"),
    ("alice@example.org", "HISTORY g1 abc\n", "not a turn number: HISTORY g1 'abc'"),
    ("alice@example.org", "HISTORY g1 9\n", "no such report"),
    ("alice@example.org", "JOIN nosuch\n", "no game 'nosuch' is open for sign-up"),
    ("alice@example.org", "JOIN g1\n", "has already started"),
    ("alice@example.org", "OBSERVE nosuch\n", "no game 'nosuch'"),
    ("alice@example.org", "PASSWORD {alice}\nREPORT abc\n", "not a turn number: REPORT 'abc'"),
    ("alice@example.org", "PASSWORD {alice}\nREPORT abc\nLIST\n", "not a turn number: REPORT 'abc'"),
]


@pytest.mark.parametrize("sender,body,says", BAD, ids=[f"{i}-{b.splitlines()[-1][:20]}" for i, (_, b, _s) in enumerate(BAD)])
def test_bad_input_gets_a_clean_reply_quoting_it_and_changes_nothing(game, tmp_path, sender, body, says):
    db, pw = game
    before = snapshot(db)
    subject = "commands" if body.startswith(("HISTORY", "JOIN", "OBSERVE")) else "[g1] commands"
    _out, mail = send(db, tmp_path, sender, body.format(**pw), subject=subject)
    assert snapshot(db) == before
    reply = reply_of(mail, sender)
    assert says in reply, reply
    assert "Traceback" not in reply and pw["alice"] not in reply
    assert set(mail) == {sender}  # nobody else hears of it


def test_one_message_gets_each_mail_once_and_a_few_mails_at_most(game, tmp_path):
    """A forged From with HISTORY a thousand times queued a thousand mails to somebody who never
    asked; a player's REPORT five thousand times, five thousand reports. The same request is
    answered once, one message by at most MAX_MAILS mails in all (the reply, and the
    acknowledgement of orders, included), and no more than MAX_REQUESTS requests of one
    message are read; the reply says what became of the rest."""
    from pbem.mail import commands

    db, pw = game
    out, mail = send(db, tmp_path, "victim@example.com", "HISTORY g1\n" * 1000, subject="hello")
    assert out.outcome == "accepted"
    # (and a sender no seat's password vouches for gets no history, only the code that asks for it)
    assert [r["kind"] for r in mail["victim@example.com"]] == ["notice"]
    reply = reply_of(mail, "victim@example.com")
    assert reply.count("HISTORY g1 CONFIRM ") == 1, reply
    assert reply.count("REFUSED: the same request as an earlier line: answered once") == commands.MAX_REQUESTS - 1
    assert f"not read: this and the {1000 - commands.MAX_REQUESTS - 1} request(s) after it" in reply
    body = f"PASSWORD {pw['alice']}\n" + "REPORT\nreport\n" * 2000 + "HISTORY g1\nHISTORY g1 1\nHELP\nSEND PASSWORD\n"
    out, mail = send(db, tmp_path, "alice@example.org", body)
    kinds = [r["kind"] for r in mail["alice@example.org"]]
    assert kinds.count("report") == 1 and kinds.count("notice") == 1, kinds
    assert len(kinds) <= commands.MAX_MAILS, kinds  # the mails asked for, and the reply
    body = f"PASSWORD {pw['bob']}\nHISTORY g1\nHISTORY g1 1\nHELP\nREPORT\n"
    out, mail = send(db, tmp_path, "bob@example.org", body)
    assert [r["kind"] for r in mail["bob@example.org"]] == ["history", "history", "notice"]
    reply = reply_of(mail, "bob@example.org")
    assert reply.count("REFUSED: not sent: one message is answered by at most 3 mails") == 2, reply
    # LIST sixty times made one reply of sixty game lists; the same request is answered once
    out, mail = send(db, tmp_path, "lister@example.com", "LIST\n" * 60, subject="hello")
    reply = reply_of(mail, "lister@example.com")
    assert reply.count("done:") == 1 and reply.count("answered once") == commands.MAX_REQUESTS - 1
    # only a mail sent counts towards the few: refused HISTORY requests leave room for HELP
    body = "HISTORY g1 7\nHISTORY g1 8\nHISTORY g1 9\nHELP\n"
    out, mail = send(db, tmp_path, "asker@example.com", body, subject="[g1] hello")
    assert [r["kind"] for r in mail["asker@example.com"]].count("help") == 1, mail["asker@example.com"]


def test_a_refused_request_does_not_stop_the_others(game, tmp_path):
    db, pw = game
    out, mail = send(db, tmp_path, "alice@example.org",
                     f"PASSWORD {pw['alice']}\nSET ADDRESS nope\nWAIT\nPRESS TO zed\nx\nENDPRESS\nPRESS TO carol\nhi\nENDPRESS\n")
    assert out.outcome == "accepted"
    reply = reply_of(mail, "alice@example.org")
    assert "line 2: SET ADDRESS nope\n  REFUSED: 'nope' is not an email address" in reply
    assert "line 3: WAIT\n  done" in reply and "line 7: PRESS TO carol (1 line)\n  done" in reply
    assert "2 done, 2 refused" in mail["alice@example.org"][0]["subject"]
    assert db["waits"].count == 1 and [r["recipients"] for r in db["press"].rows] == ['["carol"]']
    assert db["players"].get(("g1", "alice"))["email"] == "alice@example.org"


def test_send_password_goes_to_the_registered_address_only(game, tmp_path):
    db, pw = game
    out, mail = send(db, tmp_path, "alice@example.org", "SEND PASSWORD\n")
    assert out.outcome == "accepted" and list(mail) == ["alice@example.org"]
    [row] = mail["alice@example.org"]
    assert pw["alice"] in row["body"] and row["kind"] == "password"
    # from anyone else: nothing is sent anywhere but a refusal that says nothing
    for sender, body in (("mallory@evil.example", "PLAYER alice\nSEND PASSWORD\n"),
                         ("mallory@evil.example", "SEND PASSWORD\n"),
                         ("mallory@evil.example", "PLAYER zed\nSEND PASSWORD\n")):
        out, mail = send(db, tmp_path, sender, body)
        assert out.outcome == "rejected" and list(mail) == ["mallory@evil.example"]
        [row] = mail["mallory@evil.example"]
        assert pw["alice"] not in row["body"] and "alice@example.org" not in row["body"]
        assert "Nothing was sent" in row["body"]


def test_set_address_tells_both_addresses_and_moves_the_seat(game, tmp_path):
    db, pw = game
    out, mail = send(db, tmp_path, "alice@example.org", f"PASSWORD {pw['alice']}\nSET ADDRESS alice@new.example\n")
    assert out.outcome == "accepted"
    assert db["players"].get(("g1", "alice"))["email"] == "alice@new.example"
    assert {"alice@example.org", "alice@new.example"} <= set(mail)
    assert any("now alice@new.example" in r["body"] for r in mail["alice@new.example"])
    # orders are now taken from the new address only
    out, _ = send(db, tmp_path, "alice@example.org", f"PASSWORD {pw['alice']}\nPLAYER alice\ntribe purple 2,-1\n")
    assert out.outcome == "rejected" and "sender mismatch" in out.reason
    out, _ = send(db, tmp_path, "alice@new.example", f"PASSWORD {pw['alice']}\ntribe purple 2,-1\n")
    assert out.outcome == "accepted" and out.player == "alice"


def test_a_command_takes_effect_for_the_next_message_of_the_same_run(game, tmp_path):
    """Issue 17: one ingest run keeps the games and players rows it read while only orders,
    REPORT and HELP come in; a mail command that changes a seat (here SET ADDRESS) is seen by
    the very next message of the run."""
    db, pw = game
    box = tmp_path / "box"
    box.mkdir()
    messages = [("alice@example.org", f"PASSWORD {pw['alice']}\ntribe purple 2,-1\n"),
                ("alice@example.org", f"PASSWORD {pw['alice']}\nSET ADDRESS alice@new.example\n"),
                ("alice@example.org", f"PASSWORD {pw['alice']}\nPLAYER alice\ntribe purple 2,-1\n"),
                ("alice@new.example", f"PASSWORD {pw['alice']}\ntribe purple 2,-1\n")]
    for n, (sender, body) in enumerate(messages):
        (box / f"{n}.eml").write_text(f"From: {sender}\nTo: gm@pbem.example\nSubject: [g1] orders\n"
                                      f"Message-ID: <run-{n}@example.org>\n\n{body}", encoding="utf-8")
    before, moved, old, new = mail_ingest.ingest(db, [box], turns=str(tmp_path / "turns")).results
    assert before.outcome == "accepted" and moved.outcome == "accepted", (before.reason, moved.reason)
    assert old.outcome == "rejected" and "sender mismatch" in old.reason
    assert new.outcome == "accepted" and new.player == "alice"


def test_resign_leaves_the_seat_and_the_gm_is_told(game, tmp_path):
    db, pw = game
    out, mail = send(db, tmp_path, "carol@example.org", f"PASSWORD {pw['carol']}\nRESIGN\n")
    assert out.outcome == "accepted"
    seat = db["players"].get(("g1", "carol"))
    assert seat["vacant"] == 1 and seat["email"] is None and seat["password"] != pw["carol"]
    assert [a["action"] for a in db["gm_actions"].rows] == ["resign"]
    assert "RESIGN: you have left game g1" in reply_of(mail, "carol@example.org")
    assert any("carol resigned" in r["subject"] for r in mail["alice@example.org"])
    # the old password no longer works
    out, _ = send(db, tmp_path, "carol@example.org", f"PLAYER carol\nPASSWORD {pw['carol']}\nWAIT\n")
    assert out.outcome == "rejected"



def test_a_resignation_reaches_the_hosts_gm_address_when_the_game_names_none(game, tmp_path, monkeypatch):
    """A walk-through: with the GM's address in pbem.toml's [mail] gm (as docs/hosting.md
    shows) and no gm_email option, a RESIGN by mail was not mailed to the GM."""
    monkeypatch.setenv("PBEM_CONFIG", str(tmp_path / "pbem.toml"))
    (tmp_path / "pbem.toml").write_text('[mail]\ngm = "gm@judge.example"\n')
    db, pw = game
    out, mail = send(db, tmp_path, "carol@example.org", f"PASSWORD {pw['carol']}\nRESIGN\n")
    assert out.outcome == "accepted"
    assert [r["subject"] for r in mail.get("gm@judge.example", [])] == ["[g1] carol resigned"]


def test_answers_go_to_the_registered_address_as_registered(game, tmp_path):
    """docs/mail.md: acknowledgements go only to the registered address. A walk-through's
    'From: Ares <ARES@Players.test>' was answered at 'ARES@Players.test'."""
    db, pw = game
    out, mail = send(db, tmp_path, "Alice <ALICE@Example.ORG>", f"PLAYER alice\nPASSWORD {pw['alice']}\nEND\n", "[g1] orders")
    assert out.outcome == "accepted", out.reason
    assert list(mail) == ["alice@example.org"], list(mail)

def test_absent_moves_a_deadline_inside_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_NOW", NOW)
    db = open_db(str(tmp_path / "pbem.db"))
    made = host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org"], seed="1", turns=None,
                         sched={"every": "72h", "at": None, "tz": "UTC"})
    password = made["players"][0]["password"]
    assert db["games"].get("g1")["deadline"] == "2026-11-24T12:00:00Z"
    out, mail = send(db, tmp_path, "alice@example.org", f"PASSWORD {password}\nABSENT FROM 2026-11-23 TO 2026-11-25\n")
    assert out.outcome == "accepted", out.reason
    assert db["games"].get("g1")["deadline"] > "2026-11-25T00:00:00Z"
    assert db["absences"].count == 1
    assert "ABSENT: recorded" in reply_of(mail, "alice@example.org")


def test_draw_by_mail_ends_the_game_when_every_player_votes(game, tmp_path):
    db, pw = game
    for name in ("alice", "bob"):
        out, mail = send(db, tmp_path, f"{name}@example.org", f"PASSWORD {pw[name]}\nDRAW\n")
        assert out.outcome == "accepted" and "still to vote" in reply_of(mail, f"{name}@example.org")
    assert db["games"].get("g1")["status"] == "running"
    out, mail = send(db, tmp_path, "carol@example.org", f"PASSWORD {pw['carol']}\nDRAW\n")
    assert out.outcome == "accepted"
    g = db["games"].get("g1")
    assert g["status"] == "finished" and json.loads(g["outcome"])["draw"] is True
    assert "game g1 is over, drawn" in reply_of(mail, "carol@example.org")
    # after the end: no more commands that need a running game
    out, mail = send(db, tmp_path, "alice@example.org", f"PASSWORD {pw['alice']}\nCONCEDE\n")
    assert out.outcome == "rejected" and "is over" in reply_of(mail, "alice@example.org")


def test_concede_by_mail(game, tmp_path):
    db, pw = game
    out, mail = send(db, tmp_path, "bob@example.org", f"PASSWORD {pw['bob']}\nCONCEDE\n")
    assert out.outcome == "accepted" and "CONCEDE" in reply_of(mail, "bob@example.org")
    assert db.execute("select player, kind from proposals").fetchall() == [("bob", "concede")]


def test_list_history_join_and_observe_need_no_seat(game, tmp_path):
    db, pw = game
    from pbem.host import seats as seats_mod

    seats_mod.open_game(db, "gods", "open-1", 2, seed="3")
    db.conn.commit()
    out, mail = send(db, tmp_path, "newbie@example.net", "LIST\n", subject="list please")
    reply = reply_of(mail, "newbie@example.net")
    assert re.search(r"open-1 +gods +- +open \(0/2\)", reply) and re.search(r"g1 +gods +1 +running", reply)
    assert pw["alice"] not in reply
    # HISTORY: the public reports only
    send(db, tmp_path, "alice@example.org", f"PASSWORD {pw['alice']}\nPRESS TO bob\nprivate-marker-41\nENDPRESS\n")
    host.resolve(db, ["g1"], force=True, turns=None)
    db.conn.commit()
    # (from an address no seat's password vouches for, once it confirms it reads its mail)
    out, mail = send(db, tmp_path, "newbie@example.net", "HISTORY g1\n", subject="history")
    code = re.search(r"HISTORY g1 CONFIRM (\w+)", reply_of(mail, "newbie@example.net")).group(1)
    out, mail = send(db, tmp_path, "newbie@example.net", f"HISTORY g1 CONFIRM {code}\n", subject="history")
    [hist] = [r for r in mail["newbie@example.net"] if r["kind"] == "history"]
    assert "Public report." in hist["body"] and "turn 2" in hist["body"] and "Report for" not in hist["body"]
    assert "private-marker-41" not in hist["body"]
    out, mail = send(db, tmp_path, "newbie@example.net", f"HISTORY g1 1 CONFIRM {code}\n", subject="history")
    [hist] = [r for r in mail["newbie@example.net"] if r["kind"] == "history"]
    assert hist["body"].startswith("GODS -- game g1 -- turn 1\n") and "Public report." in hist["body"]
    # JOIN: once the address confirms it, a seat and a password, mailed back; the second JOIN
    # fills the game and starts it
    out, mail = send(db, tmp_path, "newbie@example.net", "JOIN open-1 zoe\n", subject="join")
    assert out.outcome == "accepted" and db["signup_players"].count == 0
    asked = reply_of(mail, "newbie@example.net")
    assert "JOIN open-1 zoe CONFIRM " in asked and "Your password" not in asked
    out, mail = join_by_mail(db, tmp_path, "newbie@example.net", "JOIN open-1 zoe")
    reply = reply_of(mail, "newbie@example.net")
    password = re.search(r"Your password: (\S+)", reply).group(1)
    assert "you have a seat in game open-1 as zoe" in reply
    out, mail = join_by_mail(db, tmp_path, "other@example.net", "JOIN open-1")
    assert out.outcome == "accepted" and db["games"].get("open-1")["status"] == "running"
    # the game's first reports are written where the GM's --turns says (here the test's folder)
    assert (tmp_path / "turns" / "open-1" / "1" / "reports" / "public.txt").is_file()
    assert db["players"].get(("open-1", "zoe"))["password"] == password
    # OBSERVE: once the address confirms it (a forged From signs nobody up), the observer gets
    # the public report at once, and every mail says how to stop
    out, mail = send(db, tmp_path, "watcher@example.net", "OBSERVE g1\n", subject="observe")
    assert out.outcome == "accepted" and db["observers"].count == 0
    asked = reply_of(mail, "watcher@example.net")
    code = re.search(r"OBSERVE g1 CONFIRM (\w+)", asked).group(1)
    assert "If you did not ask for it, ignore this mail" in asked
    out, mail = send(db, tmp_path, "other@example.net", f"OBSERVE g1 CONFIRM {code}\n", subject="observe")
    assert db["observers"].count == 0 and "that is not the code sent to other@example.net" in reply_of(mail, "other@example.net")
    out, mail = send(db, tmp_path, "watcher@example.net", f"OBSERVE g1 confirm {code.upper()}\n", subject="observe")
    assert out.outcome == "accepted" and db["observers"].count == 1
    [report] = [r for r in mail["watcher@example.net"] if r["kind"] == "observer"]
    assert "send a message with the line OBSERVE g1 STOP" in report["body"]
    # observers read public press, never private press
    out, mail = send(db, tmp_path, "alice@example.org",
                     f"PASSWORD {pw['alice']}\nPRESS TO ALL\nhello watchers\nENDPRESS\nPRESS TO bob\nnot for watchers\nENDPRESS\n")
    assert out.outcome == "accepted"
    [seen] = mail["watcher@example.net"]
    assert "hello watchers" in seen["body"] and "not for watchers" not in seen["body"]
    out, mail = send(db, tmp_path, "watcher@example.net", "OBSERVE g1 STOP\n", subject="observe")
    assert out.outcome == "accepted" and db["observers"].count == 0
    assert "no longer observes game g1" in reply_of(mail, "watcher@example.net")


def test_help_lists_the_mail_commands(game, tmp_path):
    db, _ = game
    _out, mail = send(db, tmp_path, "someone@example.net", "HELP\n", subject="help?")
    [general] = mail["someone@example.net"]
    _out, mail = send(db, tmp_path, "someone@example.net", "HELP\n", subject="[g1] help?")
    [per_game] = mail["someone@example.net"]
    for text in (general["body"], per_game["body"]):
        for word in ("WAIT, NOWAIT", "ABSENT FROM date TO date", "SET ADDRESS", "SEND PASSWORD", "RESIGN",
                     "JOIN GAME [NAME]", "OBSERVE GAME", "LIST", "HISTORY GAME [TURN]", "DRAW, CONCEDE",
                     "PRESS TO name[,name]", "PRESS TO ALL", "ENDPRESS"):
            assert word in text, word
    assert "tribe" in per_game["body"]  # the game's own order documentation comes first
    # pasting the help back never runs a command
    found = extract.find_orders(per_game["body"])
    assert found.requests == []


def test_press_limits_and_the_press_option(game, tmp_path, monkeypatch):
    db, pw = game
    for i in range(host_press.MAX_PER_DAY):
        host_press.send(db, "g1", "bob", "alice", f"note {i}")
    db.conn.commit()
    db.seen_outbox = db.execute("select max(id) from outbox").fetchone()[0]
    out, mail = send(db, tmp_path, "bob@example.org", f"PASSWORD {pw['bob']}\nPRESS TO alice\none too many\nENDPRESS\n")
    assert out.outcome == "rejected" and "too much press" in reply_of(mail, "bob@example.org")
    assert "alice@example.org" not in mail
    monkeypatch.setenv("PBEM_NOW", "2026-11-22T12:00:01Z")  # a day later
    out, mail = send(db, tmp_path, "bob@example.org", f"PASSWORD {pw['bob']}\nPRESS TO alice\nnext day\nENDPRESS\n")
    assert out.outcome == "accepted" and "alice@example.org" in mail
    # press=none: players' press is refused; grey: anonymous to the players
    db.execute("update games set host_options = ? where id = 'g1'", ['{"press": "none"}'])
    db.conn.commit()
    out, mail = send(db, tmp_path, "carol@example.org", f"PASSWORD {pw['carol']}\nPRESS TO ALL\nhi\nENDPRESS\n")
    assert "press is off" in reply_of(mail, "carol@example.org") and set(mail) == {"carol@example.org"}
    db.execute("update games set host_options = ? where id = 'g1'", ['{"press": "grey"}'])
    db.conn.commit()
    out, mail = send(db, tmp_path, "carol@example.org", f"PASSWORD {pw['carol']}\nPRESS TO alice\ngrey note\nENDPRESS\n")
    [row] = mail["alice@example.org"]
    assert row["subject"] == "[g1] press from anonymous" and "carol" not in row["body"]
    assert "anonymously (grey press)" in reply_of(mail, "carol@example.org")


def test_no_game_has_an_order_that_reads_as_a_mail_command():
    """A line that is a mail command is never read as an order: so no game may have an order
    verb (or alias) that is a command word."""
    from pbem.core.registry import game_types, get_rules

    words = {"report", "help", "wait", "nowait", "absent", "set", "send", "resign", "join", "observe", "list",
             "history", "draw", "concede", "press", "endpress"}
    for name in game_types():
        grammar = get_rules(name).grammar
        assert not (set(grammar.verbs) | set(getattr(grammar, "aliases", {}) or {})) & words, name


@pytest.mark.parametrize("line,name,args", [
    ("WAIT", "wait", ()), ("wait.", "wait", ()), ("NOWAIT", "nowait", ()), ("No Wait", "nowait", ()),
    ("ABSENT FROM 2026-12-01 TO 2026-12-05", "absent", ("FROM 2026-12-01 TO 2026-12-05",)),
    ("set address a@b.org", "set_address", ("a@b.org",)), ("SEND PASSWORD", "send_password", ()),
    ("send my password", "send_password", ()), ("RESIGN", "resign", ()), ("JOIN g2 zoe", "join", ("g2", "zoe")),
    ("join g2", "join", ("g2", None)), ("OBSERVE g1", "observe", ("g1", None)),
    ("observe g1 confirm 0a1b2c", "observe", ("g1", "confirm 0a1b2c")), ("OBSERVE g1 STOP", "observe", ("g1", "STOP")), ("list", "list", ()),
    ("OBSERVE g1 STOP please", "observe", ("g1", "STOP please")), ("observe g1 confirm 0a1b thank you", "observe",
                                                                     ("g1", "confirm 0a1b thank you")),
    ("observe g1 stopping", None, None), ("observe the north", None, None),
    ("JOIN g2 zoe CONFIRM 0a1b", "join", ("g2", "zoe CONFIRM 0a1b")), ("join g2 confirm 0a1b", "join", ("g2", "confirm 0a1b")),
    ("JOIN g2 zoe confirm 0a1b thanks a lot", "join", ("g2", "zoe confirm 0a1b thanks a lot")),
    ("join me in the north for a drink tonight", None, None),
    ("HISTORY g1 3", "history", ("g1", "3", None)), ("history g1 confirm 0a1b", "history", ("g1", None, "confirm 0a1b")),
    ("HISTORY g1 3 CONFIRM 0a1b thanks", "history", ("g1", "3", "CONFIRM 0a1b thanks")), ("history of rome and greece", None, None), ("Draw", "draw", ()), ("CONCEDE", "concede", ()),
    ("REPORT 2", "report", ("2",)), ("help", "help", (None,)),
    ("waiting for bob", None, None), ("draw a card", None, None), ("list of my orders:", None, None),
    ("send it", None, None), ("set sail", None, None), ("no", None, None), ("", None, None),
])
def test_command_lines(line, name, args):
    got = extract.command_of(line)
    assert (got == (name, args)) if name else got is None


def test_history_of_a_turn_not_there_says_which_turns_are(game, tmp_path):
    """An attack found "turns 1 to 1 exist" in the answer to HISTORY of a game at turn 1."""
    db, pw = game
    out, mail = send(db, tmp_path, "newbie@example.net", "HISTORY g1 7\n", subject="history")
    assert "game 'g1' has no report for turn 7; only turn 1 exists" in reply_of(mail, "newbie@example.net")
    out, mail = send(db, tmp_path, "newbie@example.net", "HISTORY g1 seven\n", subject="history")
    assert "not a turn number: HISTORY g1 'seven'; only turn 1 exists" in reply_of(mail, "newbie@example.net")
