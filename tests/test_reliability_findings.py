"""Issue 17, the hostile tester's findings (11, 13, 14, 15, 16 and leftovers of 6): each met with
a clear message through the installed pbem, no traceback, no internal error; one bad message,
file or game is set aside with its reason while the others go on."""

from __future__ import annotations

import os
import sqlite3

from test_reliability_inputs import clean_failure, new_game, ok, pbem, phase


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


def test_a_file_name_with_a_terminal_escape_is_shown_as_it_is(tmp_path):
    """A second attack found the escape in turns/g1/1/ze<ESC>[31mus.txt dropped from the
    message: "turns/g1/1/zeus.txt: game 'g1' has no player 'zeus'; its players are zeus,
    hera". The name is shown as it is, its control characters escaped (so nothing reaches the
    GM's terminal), for order files and mail files alike."""
    new_game(tmp_path, "g1", "zeus", "hera")
    (tmp_path / "turns" / "g1" / "1" / "ze\x1b[31mus.txt").write_text("x\n")
    p = pbem(tmp_path, "resolve", "g1")
    no_internals(p)
    assert "\x1b" not in p.stdout + p.stderr, p.stderr
    assert ("turns/g1/1/ze\\x1b[31mus.txt: the file name is not valid UTF-8 or holds a control character"
            in p.stderr), p.stderr
    md = tmp_path / "md"
    for sub in ("new", "cur", "tmp"):
        (md / sub).mkdir(parents=True)
    (md / "new" / "1.\x1b[2J\u202eM1.host").write_bytes(b"From: a@example.org\nSubject: [g1]\nMessage-ID: <e1@x>\n\nHELP\n")
    p = ok(pbem(tmp_path, "ingest", "md"))
    assert "accepted md/new/1.\\x1b[2J\\u202eM1.host g1: help sent" in p.stdout, p.stdout


# --- finding 14: a Maildir message moved by a mail client while ingest runs ----------------------

def _maildir(tmp_path, n: int):
    md = tmp_path / "md"
    for sub in ("new", "cur", "tmp"):
        (md / sub).mkdir(parents=True)
    for i in range(1, n + 1):
        (md / "new" / f"{1000 + i}.M{i}.host").write_text(f"From: p{i}@example.org\nSubject: hi\nMessage-ID: <r{i}@x>\n\nHELP\n")
    return md


def test_a_maildir_message_moved_to_cur_between_listing_and_reading_is_read_there(tmp_path, monkeypatch):
    """Before: "No such file or directory" stopped the whole run, nothing of it stored."""
    from pbem.host.store import open_db
    from pbem.mail import ingest as mail_in

    new_game(tmp_path, "g1", "zeus", "hera")
    md = _maildir(tmp_path, 5)
    listed = mail_in.iter_items

    def listing_then_client_moves_them(paths):
        items = list(listed(paths))
        for f in sorted((md / "new").iterdir())[:3]:  # a mail client marks three as seen
            f.rename(md / "cur" / f"{f.name}:2,S")
        (md / "new" / "1005.M5.host").unlink()  # and deletes one
        return items

    monkeypatch.setattr(mail_in, "iter_items", listing_then_client_moves_them)
    db = open_db(str(tmp_path / "pbem.db"))
    tally = mail_in.ingest(db, [md])
    got = {r.origin.rsplit("/", 1)[1]: (r.outcome, r.reason) for r in tally.results}
    assert [got[f"100{i}.M{i}.host"][0] for i in (1, 2, 3, 4)] == ["accepted"] * 4, got  # (general help sent)
    assert got["1005.M5.host"][0] == "rejected" and "moved away or deleted while being read" in got["1005.M5.host"][1], got
    assert db.execute("select count(*) from inbox").fetchone()[0] == 4  # the one gone is not stored: the next run takes it
    db.conn.close()


def test_a_maildir_entry_gone_while_listing_is_skipped_and_the_rest_listed(tmp_path, monkeypatch):
    from pathlib import Path

    from pbem.mail.formats import iter_items

    md = _maildir(tmp_path, 3)
    real = Path.lstat

    def moved_first(self):
        if self.name == "1001.M1.host" and self.parent.name == "new" and self.exists():
            self.rename(md / "cur" / f"{self.name}:2,S")  # moved just after the folder was listed
        return real(self)

    monkeypatch.setattr(Path, "lstat", moved_first)
    items = list(iter_items([md]))
    assert sorted(Path(i.origin).name for i in items) == ["1001.M1.host:2,S", "1002.M2.host", "1003.M3.host"]
    assert all(i.read().startswith(b"From: p") for i in items)


# --- finding 13: numbers and dates out of range -------------------------------------------------

def test_a_deadline_too_far_ahead_is_refused_in_the_users_terms(tmp_path):
    new_game(tmp_path, "g1", "zeus", "hera")
    clean_failure(pbem(tmp_path, "deadline", "g1", "--at", "9999-12-31 23:00", "--tz", "UTC"),
                  "--at '9999-12-31 23:00' is too far ahead: a deadline must be before 9000-01-01")
    clean_failure(pbem(tmp_path, "deadline", "g1", "--at", "9999-12-31 23:00", "--tz", "America/New_York"),
                  "too far ahead")
    clean_failure(pbem(tmp_path, "deadline", "g1", "--extend", "99999999999h"),
                  "--extend '99999999999h' is longer than a year: the largest allowed is 366d")
    clean_failure(pbem(tmp_path, "set", "g1", "remind", "99999999999999d"), "the largest allowed is 366d")
    clean_failure(pbem(tmp_path, "set", "g1", "grace", "99999999999999d"), "the largest allowed is 366d")
    ok(pbem(tmp_path, "pause", "g1"))
    clean_failure(pbem(tmp_path, "resume", "g1", "--at", "9500-01-01"), "a deadline must be before 9000-01-01")
    ok(pbem(tmp_path, "resume", "g1", "--at", "2999-01-01"))  # far, but allowed, as before
    p = pbem(tmp_path, "deadline", "g1")  # neither option: a usage error
    assert p.returncode == 2 and "Usage: pbem deadline" in p.stderr and "--extend DURATION or --at TIME" in p.stderr, p.stderr


def test_a_far_deadline_stored_before_the_bound_never_stops_resolve(tmp_path):
    for gid in ("g1", "g2"):
        new_game(tmp_path, gid, "zeus", "hera")
    ok(pbem(tmp_path, "set", "g2", "grace", "12h"))
    conn = sqlite3.connect(tmp_path / "pbem.db")
    conn.execute("update games set deadline = '9999-12-31T23:00:00Z', schedule = ? where id in ('g1', 'g2')",
                 ['{"every": "72h", "at": null, "tz": "Europe/Berlin"}'])
    conn.execute("update phases set deadline = '9999-12-31T23:00:00Z' where game_id in ('g1', 'g2')")
    conn.commit()
    conn.close()
    env = {"PBEM_NOW": "9999-12-31T23:30:00Z"}
    p = ok(pbem(tmp_path, "resolve", "--all", env=env))  # before: "internal error: OverflowError", exit 70
    no_internals(p)
    assert "g1 turn 1: resolved" in p.stdout, p.stdout
    assert (phase(tmp_path, "g1"), phase(tmp_path, "g2")) == (2, 1)  # g2: in its grace, to the end of dates
    g2 = pbem(tmp_path, "resolve", "g2", env=env)
    no_internals(g2)
    assert "g2 turn 1: waiting" in g2.stdout, g2.stdout + g2.stderr
    no_internals(pbem(tmp_path, "remind", env=env))  # the late notice: its deadline plus the grace
    s = ok(pbem(tmp_path, "status", "g1", env=env))
    assert "deadline" in s.stdout and "Traceback" not in s.stderr, s.stdout + s.stderr
    no_internals(ok(pbem(tmp_path, "status", "g2", env=env)))


def test_run_watch_every_too_long_is_refused_up_front(tmp_path):
    new_game(tmp_path, "g1", "zeus", "hera")
    p = pbem(tmp_path, "run", "--watch", "--every", "99999999999999999999s", timeout=30)
    assert p.returncode != 0 and "too long: the largest allowed is 8784h" in p.stderr, p.stdout + p.stderr
    assert "watching" not in p.stdout + p.stderr and "ingest" not in p.stdout, p.stdout  # no cycle ran


# --- finding 11: ingest into a read-only store --------------------------------------------------

def test_ingest_into_a_read_only_store_says_one_clean_line(tmp_path):
    """The tester's chattr +i store: a traceback (sqlite3.OperationalError, logged for the
    message that could not be stored) came before the clean line. Only the clean line."""
    new_game(tmp_path, "g1", "zeus:zeus@example.org", "hera")
    (tmp_path / "m.eml").write_text("From: zeus@example.org\nSubject: [g1] hi\n\nHELP\n")
    before = (tmp_path / "pbem.db").read_bytes()
    for folder_too in (False, True):  # the store alone (its folder writable), then a read-only file system
        (tmp_path / "pbem.db").chmod(0o444)
        if folder_too:
            tmp_path.chmod(0o555)
        try:
            p = pbem(tmp_path, "ingest", "m.eml", read_only=True)
        finally:
            tmp_path.chmod(0o755)
            (tmp_path / "pbem.db").chmod(0o644)
        assert p.returncode == 1 and p.stdout == "", (p.stdout, p.stderr)
        assert p.stderr.splitlines() == [f"pbem: cannot write the store {tmp_path / 'pbem.db'}: it is read-only (attempt to "
                                         "write a readonly database); nothing was changed"], p.stderr
    assert (tmp_path / "pbem.db").read_bytes() == before


# --- finding 16: a backup into the store's own -wal/-shm/-journal -------------------------------

def test_backup_refuses_the_stores_own_journal_files_also_through_a_link(tmp_path):
    """Before: "backed up" into pbem.db-wal, and the next pbem command deleted the copy."""
    new_game(tmp_path, "g1", "zeus", "hera")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "link.db").symlink_to(tmp_path / "pbem.db-shm")
    for name in ("pbem.db-wal", "pbem.db-shm", "pbem.db-journal", str(tmp_path / "pbem.db-wal"), "elsewhere/link.db"):
        clean_failure(pbem(tmp_path, "backup", name), f"{name} is the store's own -", "give another name")
        assert not (tmp_path / "elsewhere" / "link.db").exists() and not (tmp_path / "pbem.db-journal").exists()
    ok(pbem(tmp_path, "backup", "pbem.db-wal.bak"))  # a name beside them is a backup as any other
    ok(pbem(tmp_path, "status"))
    assert sqlite3.connect(tmp_path / "pbem.db-wal.bak").execute("select count(*) from games").fetchone()[0] == 1


# --- findings 13 and 6: wrong types in pbem.toml ------------------------------------------------

def test_a_setting_of_the_wrong_type_in_pbem_toml_is_named_with_the_type_expected(tmp_path):
    new_game(tmp_path, "g1", "zeus", "hera")
    cases = {  # before: "internal error: TypeError" in the steps' lines
        "mail = 5\n": "pbem.toml: [mail] must be a table",
        "[mail]\nfrom = 5\n": "pbem.toml: [mail] from must be text in quotes, not the number 5",
        "[mail]\nsmtp_port = [1]\n": "pbem.toml: [mail] smtp_port must be a number, not a list",
        "[imap]\nhost = 1\n": "pbem.toml: [imap] host must be text in quotes, not the number 1",
        "[run]\npublish_dir = 5\n": "pbem.toml: [run] publish_dir must be text in quotes, not the number 5",
        "[run]\nmaildir = [1]\n": "pbem.toml: [run] maildir must be text in quotes or a list of them, not a list with the number 1",
    }
    for text, says in cases.items():
        (tmp_path / "pbem.toml").write_text(text)
        p = pbem(tmp_path, "run")
        no_internals(p)
        assert says in p.stdout + p.stderr, (text, p.stdout, p.stderr)
    (tmp_path / "pbem.toml").write_text('[mail]\nsmtp_port = "587"\nfrom = "gm@example.org"\n[run]\nmaildir = ["md"]\nevery = "5m"\n')
    (tmp_path / "md").mkdir()
    p = pbem(tmp_path, "run")  # the right types, as before (a number may be written as text)
    no_internals(p)
    assert "must be" not in p.stdout + p.stderr, p.stdout + p.stderr


# --- finding 6: pbem verify of a hand-edited record.json ----------------------------------------

def test_verify_of_a_record_json_of_the_wrong_shape_says_which_part(tmp_path):
    import json

    game = {"id": "v1", "type": "gods", "seed": "1", "seed_hash": "x", "players": ["a", "b"], "options": {}}
    cases = {  # before: internal error (RecursionError, TypeError) or "record.json lacks list indices must be ..."
        "deep": ("[" * 100000 + "]" * 100000, "record.json is not a pbem file: its JSON is nested too deeply to read"),
        "phases_none": ({"phases": None}, "record.json: phases is not a list (it is null)"),
        "game_list": ({"game": []}, "record.json: game is not an object (it is a list)"),
        "phase_str": ({"phases": ["x"]}, "record.json: phases[0] is not an object (it is text)"),
        "no_seed": ({"game": {k: v for k, v in game.items() if k != "seed"}}, "record.json: game lacks 'seed'"),
        "bigint": ('{"format": "pbem-game-record", "version": 1' + "0" * 5000 + "}",
                   "record.json is not a pbem file: it holds a number of more than 4300 digits"),
        # a second attack: Python's words ("TypeError: 'int' object is not iterable", "KeyError: '5000'")
        "players_int": ({"game": {**game, "players": 5}}, "record.json: game.players is not a list (it is a number)"),
        "players_obj": ({"game": {**game, "players": ["a", {}]}}, "record.json: game.players[1] is not a name (it is an object)"),
        "players_many": ({"game": {**game, "players": [f"p{i}" for i in range(5000)]}},
                         "record.json: game.players lists 5000 players; GODS is for 2 to 4"),
        "options_str": ({"game": {**game, "options": "x"}}, "record.json: game.options is not an object (it is text)"),
        "joined_list": ({"game": {**game, "joined": [1]}}, "record.json: game.joined is not an object (it is a list)"),
        "turn_huge": ({"phases": [{"turn": 10**400, "scripts": {}}]},
                      "record.json: phases[0].turn is not a turn number (it is a number of 401 digits)"),
        "turn_str": ({"phases": [{"turn": "1", "scripts": {}}]}, "record.json: phases[0].turn is not a turn number (it is text)"),
        "scripts_int": ({"phases": [{"turn": 1, "scripts": {"a": 5}}]},
                        'record.json: phases[0].scripts\'s "a" is not text (it is a number)'),
    }
    for name, (change, says) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        text = change if isinstance(change, str) else json.dumps({"format": "pbem-game-record", "game": game, "phases": [], **change})
        (folder / "record.json").write_text(text)
        p = pbem(tmp_path, "verify", folder)
        clean_failure(p, says)
        assert len(p.stderr.splitlines()) == 1, p.stderr


# --- finding 13: a binary order file in turns/ ---------------------------------------------------

def test_a_refused_order_file_is_named_by_resolve_and_status(tmp_path):
    new_game(tmp_path, "g1", "zeus", "hera")
    (tmp_path / "turns" / "g1" / "1" / "zeus.txt").write_bytes(bytes(range(256)) * 10)
    why = f"{tmp_path}/turns/g1/1/zeus.txt refused: this is not a text file (it contains NUL bytes)"
    p = ok(pbem(tmp_path, "resolve", "g1"))  # before: only "waiting for zeus"
    assert f"g1 turn 1: waiting -- waiting for zeus ({why}" in p.stdout, p.stdout
    s = ok(pbem(tmp_path, "status", "g1")).stdout
    assert "awaiting zeus; zeus's order file " + why in s, s
    import json
    assert json.loads(ok(pbem(tmp_path, "status", "--json")).stdout)["games"][0]["refused_files"]["zeus"].startswith(why)
    # the GM replaces it with orders: no longer named, and the turn resolves as before
    (tmp_path / "turns" / "g1" / "1" / "zeus.txt").write_text("\n")
    p = ok(pbem(tmp_path, "resolve", "g1", "--force"))
    assert "refused" not in p.stdout and "g1 turn 1: resolved" in p.stdout, p.stdout
    assert "refused" not in ok(pbem(tmp_path, "status", "g1")).stdout


def test_a_utf16_order_file_is_read_like_its_utf8_twin(tmp_path):
    """An attack found an order file saved as UTF-16 (Windows Notepad's "Unicode", with its
    byte order mark) refused from turns/ as "not a text file" while the same orders by mail
    were read. Both byte orders are read as their UTF-8 twin is: the same acknowledgement."""
    new_game(tmp_path, "g1", "zeus", "hera")
    orders = "temple 1,-2\ndiscard green tribe\n"
    (tmp_path / "utf8.txt").write_text(orders, encoding="utf-8")
    want = ok(pbem(tmp_path, "submit", "g1", "zeus", tmp_path / "utf8.txt", "--gm")).stdout
    assert "temple 1,-2" in want and "REJECTED" not in want, want
    for codec in ("utf-16", "utf-16-be"):
        raw = orders.encode(codec)
        raw = raw if codec == "utf-16" else b"\xfe\xff" + raw
        (tmp_path / f"{codec}.txt").write_bytes(raw)
        got = ok(pbem(tmp_path, "submit", "g1", "zeus", tmp_path / f"{codec}.txt", "--gm")).stdout
        assert got.splitlines()[2:] == want.splitlines()[2:], (codec, got)
    new_game(tmp_path, "g3", "zeus", "hera")  # dropped in turns/: taken, and the turn resolves on it
    (tmp_path / "turns" / "g3" / "1" / "zeus.txt").write_bytes(orders.encode("utf-16"))
    p = ok(pbem(tmp_path, "resolve", "g3"))
    assert "g3 turn 1: resolved" in p.stdout and "refused" not in p.stdout, p.stdout
    new_game(tmp_path, "g2", "zeus", "hera")
    (tmp_path / "turns" / "g2" / "1" / "zeus.txt").write_bytes(b"\xff\xfe" + b"\x00\xd8")  # a lone surrogate
    assert "zeus.txt refused: this is not a text file (broken UTF-16)" in ok(pbem(tmp_path, "resolve", "g2")).stdout


# --- finding 13: a folded From header carrying another header ------------------------------------

def test_a_from_header_folded_over_another_header_is_no_address_and_is_not_answered(tmp_path):
    pw = new_game(tmp_path, "g1", "zeus:zeus@example.org", "hera")["zeus"]
    for n, bcc in enumerate(("evil@x", "evil@example.net")):
        (tmp_path / f"m{n}.eml").write_text(f"From: zeus@example.org\n Bcc: {bcc}\nSubject: [g1]\nMessage-ID: <f{n}@x>\n\n"
                                            f"GAME g1\nPLAYER zeus\nPASSWORD {pw}\nREPORT\n")
        p = ok(pbem(tmp_path, "ingest", f"m{n}.eml"))
        no_internals(p)
        assert "rejected" in p.stdout and "no From address" in p.stdout, p.stdout
    conn = sqlite3.connect(tmp_path / "pbem.db")
    sent_to = [r[0] for r in conn.execute("select to_addr from outbox")]
    conn.close()
    assert sent_to == ["zeus@example.org"], sent_to  # turn 1's report; before: a notice to zeus@example.orgBcc


# --- finding 13: bidirectional controls in press ------------------------------------------------

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_bidi_override_controls_reach_no_report_mail_or_page(tmp_path):
    """A right-to-left override (U+202E) in press made the text read other than it is in every
    report, mail and page; printable drops it with the other controls, on every channel it cleans."""
    import re

    from test_control_chars_output import ORDINARY, mail, sent_mails
    from test_site_lib import parse_html

    bad = re.compile(f"[{BIDI}]")
    bad_bytes = re.compile(b"|".join(re.escape(c.encode()) for c in BIDI))
    pw = new_game(tmp_path, "g1", "hera:hera@example.org", "zeus:zeus@example.org")
    box = tmp_path / "in"
    box.mkdir()
    (box / "1.eml").write_bytes(mail("Hera <hera@example.org>", "bidi", f"GAME g1\nPLAYER hera\nPASSWORD {pw['hera']}\n"
                                     "PRESS TO ALL\npay \u202e0001\u202c gold, \u2067isolated\u2069 \u200fmark\n"
                                     f"{ORDINARY}\nENDPRESS\nPRESS TO zeus\nsecret \u202dLTR\u202c\nENDPRESS\n"))
    p = ok(pbem(tmp_path, "ingest", box))
    assert not bad.search(p.stdout + p.stderr)
    for raw, msg, text, html in sent_mails(tmp_path, "sent1"):
        assert not bad_bytes.search(raw) and not bad.search(text + html + str(msg["Subject"])), text
    ok(pbem(tmp_path, "resolve", "g1", "--force"))
    folder = tmp_path / "turns" / "g1" / "2" / "reports"
    for f in folder.glob("*.txt"):
        assert not bad_bytes.search(f.read_bytes()), f
    public = (folder / "public.txt").read_text()
    assert "pay 0001 gold, isolated \u200fmark" in public and ORDINARY in public, public  # the text itself kept, marks too
    assert "secret LTR" in (folder / "zeus.txt").read_text()
    for raw, _, text, html in sent_mails(tmp_path, "sent2"):
        assert not bad_bytes.search(raw) and not bad.search(text + html), text
    site = tmp_path / "site"
    ok(pbem(tmp_path, "publish", "--out", site))
    parse_html(site / "games" / "g1" / "index.html")
    assert "pay 0001 gold" in (site / "games" / "g1" / "index.html").read_text()
    for f in site.rglob("*"):
        if f.is_file() and f.suffix in (".html", ".xml", ".json", ".ics", ".txt", ".atom"):
            assert not bad_bytes.search(f.read_bytes()), f


def test_printable_drops_bidi_controls_and_keeps_the_rest():
    from pbem.core.text import _ANY, _LONE_CR, _UNSAFE, printable

    assert printable("a\u202eevil\u202c b \u2066x\u2069 \u200f ok — é") == "aevil b x \u200f ok — é"
    assert printable("— …\u2026 \u2028 \u2070") == "— …\u2026 \u2028 \u2070"  # the bytes beside them: kept
    for c in BIDI:
        for s in (c, f"x{c}y", f"é{c}", f"—{c}—"):
            assert printable(s) == _UNSAFE.sub("", _LONE_CR.sub("\n", s)) == s.replace(c, "") and _ANY.search(s)
