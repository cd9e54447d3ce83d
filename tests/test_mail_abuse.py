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


# --- 1. a JOIN by mail is confirmed by the address it is for ---------------------------------------

def test_a_forged_join_takes_no_seat_and_mails_no_password(run, tmp_path):
    assert run("new", "gods", "quick", "--open", "3").returncode == 0
    r = run("ingest", eml(tmp_path, "forged", "victim@example.org", "JOIN quick zoe"))
    assert r.returncode == 0 and "1 accepted" in r.stdout, r.stdout
    # no seat is taken, and the address only gets a request to confirm: no password
    assert "0 of 3 seats taken" in run("status").stdout
    [asked] = outbox_bodies(tmp_path, to="victim@example.org")
    assert "Your password" not in asked and "If you did not ask for it, ignore this mail" in asked
    code = code_in(asked, "JOIN quick zoe CONFIRM")
    # the code is told to the address only: not in what the GM's commands print, nor in the JSON
    for args in (("status",), ("status", "--json"), ("list",), ("list", "--json")):
        assert code not in run(*args).stdout, args
    assert code not in r.stdout + r.stderr
    # the code confirms that game, that name and that address only
    for n, (sender, line) in enumerate([
            ("mallory@example.org", f"JOIN quick zoe CONFIRM {code}"),   # another address
            ("victim@example.org", f"JOIN quick eve CONFIRM {code}"),    # another name
            ("victim@example.org", f"JOIN quick CONFIRM {code}"),        # no name (a name from the address)
            ("victim@example.org", "JOIN quick zoe CONFIRM 0123456789"),  # a guess
    ]):
        r = run("ingest", eml(tmp_path, f"bad{n}", sender, line))
        assert "rejected" in r.stdout and "Traceback" not in r.stdout + r.stderr, r.stdout
        told = outbox_bodies(tmp_path, to=sender)[-1]
        assert f"line 1: {line}" in told and "is not the code sent to" in told and "Your password" not in told, told
        assert "0 of 3 seats taken" in run("status").stdout
    # the address itself confirms: the seat is taken and its password mailed there
    r = run("ingest", eml(tmp_path, "ok", "victim@example.org", f"join quick Zoe confirm {code.upper()}"))
    assert "1 accepted" in r.stdout and code not in r.stdout, r.stdout
    assert "1 of 3 seats taken (zoe)" in run("status").stdout
    done = outbox_bodies(tmp_path, to="victim@example.org")[-1]
    assert "you have a seat in game quick as zoe" in done and re.search(r"Your password: \S+", done), done
    # confirmed twice: refused, nothing changes
    r = run("ingest", eml(tmp_path, "again", "victim@example.org", f"JOIN quick zoe CONFIRM {code}"))
    assert "rejected" in r.stdout and "already joined game 'quick' as zoe" in outbox_bodies(tmp_path, to="victim@example.org")[-1]
    assert "1 of 3 seats taken (zoe)" in run("status").stdout


def test_a_join_without_a_name_and_its_bad_forms(run, tmp_path):
    assert run("new", "gods", "quick", "--open", "2").returncode == 0
    assert run("new", "gods", "other", "--open", "2").returncode == 0
    run("ingest", eml(tmp_path, "a", "ann@example.org", "JOIN quick"))
    code = code_in(outbox_bodies(tmp_path, to="ann@example.org")[-1], "JOIN quick CONFIRM")
    # a code for one game does not confirm another
    r = run("ingest", eml(tmp_path, "b", "ann@example.org", f"JOIN other CONFIRM {code}"))
    assert "rejected" in r.stdout and "0 of 2 seats taken" in run("status", "other").stdout
    # CONFIRM without its code
    run("ingest", eml(tmp_path, "c", "ann@example.org", "JOIN quick CONFIRM"))
    told = outbox_bodies(tmp_path, to="ann@example.org")[-1]
    assert "line 1: JOIN quick CONFIRM\n  REFUSED: JOIN quick CONFIRM needs the code" in told, told
    # a name checked before any code is sent
    run("ingest", eml(tmp_path, "d", "ann@example.org", "JOIN quick Dave The Great"))
    told = outbox_bodies(tmp_path, to="ann@example.org")[-1]
    assert "is not a name here" in told and "CONFIRM" not in told, told
    # confirmed, with words after the code (ignored, and the answer says so)
    r = run("ingest", eml(tmp_path, "e", "ann@example.org", f"JOIN quick CONFIRM {code} thanks!"))
    assert "1 accepted" in r.stdout, r.stdout
    done = outbox_bodies(tmp_path, to="ann@example.org")[-1]
    assert "you have a seat in game quick as ann" in done and "ignored: 'thanks!'" in done, done


def test_the_last_confirmed_join_starts_the_game(run, tmp_path):
    assert run("new", "gods", "quick", "--open", "2").returncode == 0
    for who in ("ann", "ben"):
        run("ingest", eml(tmp_path, f"{who}-1", f"{who}@example.org", "JOIN quick"))
        code = code_in(outbox_bodies(tmp_path, to=f"{who}@example.org")[-1], "JOIN quick CONFIRM")
        r = run("ingest", eml(tmp_path, f"{who}-2", f"{who}@example.org", f"JOIN quick CONFIRM {code}"))
        assert "1 accepted" in r.stdout, r.stdout
    assert "running" in run("list").stdout
    reports = tmp_path / "turns" / "quick" / "1" / "reports"
    assert sorted(p.name for p in reports.iterdir()) == ["ann.txt", "ben.txt", "public.txt"]
    # the site and the public report never show a code
    assert run("publish", "--out", tmp_path / "site").returncode == 0
    codes = {code_in(b, "JOIN quick CONFIRM") for b in outbox_bodies(tmp_path) if "JOIN quick CONFIRM " in b}
    assert len(codes) == 2
    for path in [*(tmp_path / "site").rglob("*"), reports / "public.txt"]:
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert not any(c in text for c in codes), path


def test_a_confirmed_join_is_answered_even_past_the_reply_cap(run, tmp_path):
    """The reply cap holds back answers to senders nobody vouches for; a JOIN confirmed by its
    code comes from an address that reads its mail, and its answer carries the password of the
    seat it took: it is never held back (else the seat is taken and the password lost)."""
    assert run("new", "gods", "quick", "--open", "3").returncode == 0
    run("ingest", eml(tmp_path, "a1", "ann@example.org", "JOIN quick"))
    code = code_in(outbox_bodies(tmp_path, to="ann@example.org")[-1], "JOIN quick CONFIRM")
    run("ingest", eml(tmp_path, "a2", "ann@example.org", "JOIN quick CONFIRM 0000000000"))   # a typo
    run("ingest", eml(tmp_path, "a3", "ann@example.org", "LIST"))
    r = run("ingest", eml(tmp_path, "a4", "ann@example.org", f"JOIN quick CONFIRM {code}"))
    assert "1 accepted" in r.stdout and "reply cap" not in r.stdout, r.stdout
    assert "1 of 3 seats taken (ann)" in run("status").stdout
    [last] = [m for m in outbox_rows(tmp_path, to="ann@example.org")][-1:]
    assert last["status"] == "queued" and "Your password: " in last["body"], last
    # a forged From is still held back at the cap: a wrong code from a capped address is not answered
    r = run("ingest", eml(tmp_path, "a5", "ann@example.org", "JOIN quick CONFIRM 1111111111"))
    assert "reply cap" in r.stdout, r.stdout


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
        # a forged From gets no history at all (tester4 finding 11): only the code that asks for it
        assert [m for m in mails if m["kind"] == "history"] == [], [m["subject"] for m in mails]
        [reply] = [m["body"] for m in mails if "your commands" in m["subject"]]
        assert "If you did not ask for it, ignore this mail" in reply and "the same code as above" in reply, reply
        # the address that reads its mail sends the code back: its histories come, at most 3 mails
        # (the reply counted); the reply says what became of the requests that got no mail
        code = code_in(reply, "HISTORY g1 CONFIRM" if n != 2 else "HISTORY g1 1 CONFIRM")
        r = run("ingest", eml(tmp_path, f"confirmed{n}", victim, body.replace("\n", f" CONFIRM {code}\n", 1),
                              subject="[g1] hi"))
        mails = outbox_rows(tmp_path, to=victim)[len(mails):]
        assert len(mails) <= 3 and any(m["kind"] == "history" for m in mails), [m["subject"] for m in mails]
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


def test_the_same_report_asked_three_ways_is_mailed_once(run, tmp_path):
    """A second attack found REPORT, REPORT 1 and REPORT 01 (turn 1 the current turn) mailing
    the same report three times: they are one request, answered once."""
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    pw = re.search(r"Your password: (\S+)", outbox_bodies(tmp_path, to="zeus@example.org")[0]).group(1)
    before = len(outbox_rows(tmp_path, to="zeus@example.org"))
    r = run("ingest", eml(tmp_path, "r", "zeus@example.org", f"GAME g1\nPLAYER zeus\nPASSWORD {pw}\nREPORT\nREPORT 1\nREPORT 01\n"))
    assert "1 accepted" in r.stdout and "answered once (2 times)" in r.stdout, r.stdout
    mails = outbox_rows(tmp_path, to="zeus@example.org")[before:]
    assert [m["kind"] for m in mails].count("report") == 1, [m["subject"] for m in mails]


def test_a_message_of_a_thousand_requests_is_told_as_it_was_read(run, tmp_path):
    """A second attack found 1,000 requests told "1 done, 50 refused" (950 were never read) and
    the GM's line repeating "the same request as an earlier line" 49 times."""
    assert run("new", "gods", "g1", "-p", "zeus", "-p", "hera").returncode == 0
    r = run("ingest", eml(tmp_path, "many", "v@example.com", "HISTORY g1\n" * 1000, subject="x"))
    assert r.stdout.count("the same request as an earlier line") == 1, r.stdout
    assert "answered once (49 times)" in r.stdout, r.stdout
    [reply] = [m for m in outbox_rows(tmp_path, to="v@example.com") if m["kind"] == "notice"]
    assert reply["subject"] == "[pbem] your commands: 1 done, 49 refused, 950 not read", reply["subject"]


# --- 3. words after STOP or CONFIRM CODE --------------------------------------------------------

def test_observe_stop_and_confirm_with_words_after_them(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org").returncode == 0
    run("ingest", eml(tmp_path, "o1", "owl@example.org", "OBSERVE g1"))
    code = code_in(outbox_bodies(tmp_path, to="owl@example.org")[-1], "OBSERVE g1 CONFIRM")
    r = run("ingest", eml(tmp_path, "o2", "owl@example.org", f"OBSERVE g1 CONFIRM {code} thank you"))
    assert "1 accepted" in r.stdout, r.stdout
    assert run("status", "g1", "--json").returncode == 0
    con = sqlite3.connect(tmp_path / "pbem.db")
    assert con.execute("select email from observers").fetchall() == [("owl@example.org",)]
    told = outbox_bodies(tmp_path, to="owl@example.org")[-1]
    assert "owl@example.org now observes game g1" in told and "ignored: 'thank you'" in told, told
    r = run("ingest", eml(tmp_path, "o3", "owl@example.org", "OBSERVE g1 STOP please"))
    assert "1 accepted" in r.stdout, r.stdout
    assert con.execute("select email from observers").fetchall() == []
    told = outbox_bodies(tmp_path, to="owl@example.org")[-1]
    assert "line 1: OBSERVE g1 STOP please\n  done: OBSERVE: owl@example.org no longer observes game g1" in told, told
    assert "ignored: 'please'" in told
    con.close()


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
