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
