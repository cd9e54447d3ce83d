"""Abuse of the mail loop an independent tester found (issue 17: no single input can stop a
judge, and nobody is mailed or signed up by somebody else's forged From), each met where the
user meets it: real .eml files through the installed `pbem ingest`."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from test_new_gm import eml, outbox_bodies


def outbox_rows(where: Path, to: str | None = None) -> list[dict]:
    con = sqlite3.connect(where / "pbem.db")
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("select * from outbox order by id") if to is None or r["to_addr"] == to]
    finally:
        con.close()


def code_in(body: str, line: str) -> str:
    """The confirmation code of `line` (e.g. 'JOIN quick zoe CONFIRM') in a mail's body."""
    found = re.search(re.escape(line) + r" (\w+)", body)
    assert found, body
    return found.group(1)


# --- 2. at most 3 mails answer one message, the reply counted from the first -------------------------

def test_a_forged_message_of_many_requests_gets_three_mails_at_most(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    for _ in range(3):
        assert run("resolve", "g1", "--force").returncode == 0
    for n, body in enumerate(["HISTORY g1\nHISTORY g1 1\nHISTORY g1 2\n",
                              "HISTORY g1\nHISTORY g1 1\nHISTORY g1 2\nHISTORY g1 3\n",
                              "HISTORY g1 1\nHISTORY g1 2\nHELP\nLIST\n"]):
        victim = f"victim{n}@example.org"
        r = run("ingest", eml(tmp_path, f"forged{n}", victim, body, subject="[g1] hi"))
        assert r.returncode == 0 and "1 accepted" in r.stdout, r.stdout
        mails = outbox_rows(tmp_path, to=victim)
        assert len(mails) <= 3, [m["subject"] for m in mails]
        # the reply says what became of the requests that got no mail
        [reply] = [m["body"] for m in mails if "your commands" in m["subject"]]
        assert "REFUSED: not sent: one message is answered by at most 3 mails" in reply, reply
    # a player's orders: their acknowledgement counts too (the orders are taken all the same)
    pw = re.search(r"Your password: (\S+)", outbox_bodies(tmp_path, to="zeus@example.org")[0]).group(1)
    before = len(outbox_rows(tmp_path, to="zeus@example.org"))
    r = run("ingest", eml(tmp_path, "zeus", "zeus@example.org",
                          f"GAME g1\nPLAYER zeus\nPASSWORD {pw}\nREPORT\nHISTORY g1 1\ntribe purple 2,-1\nHISTORY g1 2\nEND\n"))
    assert "1 accepted" in r.stdout, r.stdout
    mails = outbox_rows(tmp_path, to="zeus@example.org")[before:]
    assert sorted(m["kind"] for m in mails) == ["ack", "notice", "report"], [m["subject"] for m in mails]
    con = sqlite3.connect(tmp_path / "pbem.db")
    assert con.execute("select count(*) from submissions where player = 'zeus' and source like 'mail:%'").fetchone() == (1,)
    con.close()
    reply = next(m["body"] for m in mails if m["kind"] == "notice")
    assert "line 5: HISTORY g1 1\n  REFUSED: not sent: one message is answered by at most 3 mails" in reply, reply


# --- 4. every mail an observer gets says how to stop -----------------------------------------------

def test_every_mail_to_an_observer_says_how_to_stop(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    assert run("observe", "g1", "owl@example.org").returncode == 0
    assert run("resolve", "g1", "--force").returncode == 0           # a turn report
    assert run("pause", "g1").returncode == 0                        # a notice
    assert run("resume", "g1").returncode == 0
    assert run("press", "g1", "--to", "all", "-", input="Hello, all.\n").returncode == 0   # public press (the GM's)
    pw = re.search(r"Your password: (\S+)", outbox_bodies(tmp_path, to="zeus@example.org")[0]).group(1)
    run("ingest", eml(tmp_path, "p", "zeus@example.org",
                      f"GAME g1\nPLAYER zeus\nPASSWORD {pw}\nPRESS TO ALL\nHi from zeus.\nENDPRESS\n"))
    assert run("rollback", "g1", "--to", "1").returncode == 0                # a correction
    assert run("end", "g1", "--draw").returncode == 0                # the game is over
    rows = outbox_rows(tmp_path, to="owl@example.org")
    kinds = {r["kind"] for r in rows}
    assert {"observer", "notice", "press"} <= kinds, kinds
    subjects = " | ".join(r["subject"] for r in rows)
    for needle in ("paused", "correction", "is over", "press from"):
        assert needle in subjects, subjects
    for r in rows:
        assert r["body"].rstrip().endswith("send a message with the line OBSERVE g1 STOP from it."), (r["subject"], r["body"])
        assert "Reply to it with your\norders" not in r["body"], r["subject"]  # not the players' footer
        assert json.dumps(r)  # (a plain row)
