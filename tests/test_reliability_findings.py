"""Issue 17, the hostile tester's findings (11, 13, 14, 15, 16 and leftovers of 6): each met with
a clear message through the installed pbem, no traceback, no internal error; one bad message,
file or game is set aside with its reason while the others go on."""

from __future__ import annotations

import os
import sqlite3

from test_reliability_inputs import new_game, ok, pbem, phase


def no_internals(p) -> None:
    assert "Traceback" not in p.stderr + p.stdout and "internal error" not in p.stderr + p.stdout, p.stdout + p.stderr


# --- finding 15: a file name that is not valid UTF-8 ----------------------------------------------

def test_a_maildir_file_name_not_utf8_is_ingested_and_the_others_go_on(tmp_path):
    pw = new_game(tmp_path, "g1", "zeus:zeus@example.org", "hera")["zeus"]
    md = tmp_path / "md"
    for sub in ("new", "cur", "tmp"):
        (md / sub).mkdir(parents=True)
    bad = os.fsdecode(b"1000.M1\xff.host")
    (md / "new" / bad).write_bytes(b"From: hera@example.org\nSubject: [g1]\n\nHELP\n")
    (md / "new" / "2000.M2.host").write_text(f"From: zeus@example.org\nSubject: [g1]\nMessage-ID: <good@x>\n\n"
                                             f"GAME g1\nPLAYER zeus\nPASSWORD {pw}\nREPORT\n")
    runs = [ok(pbem(tmp_path, "ingest", "md")) for _ in (1, 2)]  # before: each "internal error: UnicodeEncodeError", exit 70
    for p in runs:
        no_internals(p)
    assert "accepted md/new/1000.M1\\xff.host g1: help sent" in runs[0].stdout, runs[0].stdout
    assert "2 already ingested" in runs[1].stdout, runs[1].stdout
    conn = sqlite3.connect(tmp_path / "pbem.db")
    origins = sorted(r[0] for r in conn.execute("select origin from inbox"))
    conn.close()
    assert origins == ["md/new/1000.M1\\xff.host", "md/new/2000.M2.host"], origins


def test_an_order_file_name_not_utf8_is_reported_for_its_game_alone(tmp_path):
    for gid in ("g1", "g2"):
        new_game(tmp_path, gid, "zeus", "hera")
    (tmp_path / "turns" / "g1" / "1" / os.fsdecode(b"ze\xffus.txt")).write_text("x\n")
    p = pbem(tmp_path, "resolve", "--all", "--force")
    assert p.returncode == 1, p.stdout + p.stderr
    no_internals(p)
    assert "turns/g1/1/ze\\xffus.txt: the file name is not valid UTF-8" in p.stderr, p.stderr
    assert "g2 turn 1: resolved" in p.stdout, p.stdout
    assert (phase(tmp_path, "g1"), phase(tmp_path, "g2")) == (1, 2)
