"""The store: atomic resolution, raw inputs kept, choosing the file, migrations."""

from __future__ import annotations

import hashlib
import json

import pytest

from pbem import host
from gods_helpers import legal_lines, passwords, text
from pbem.host.store import loads, migrations, open_db
from pbem.render import reports as report_renderer

CONTENT = ("games", "players", "phases", "events", "reports")


def new(cli, game_id="g1", players=("alice", "bob"), seed="1", *pre):
    args = [*pre, "new", "gods", game_id, "--seed", seed]
    for p in players:
        args += ["--player", p]
    r = cli(*args)
    assert r.exit_code == 0, r.output
    return passwords(r.stdout)


def store(tmp_path, name="pbem.db"):
    return open_db(str(tmp_path / name))


def snapshot(db):
    return {t: [tuple(r.values()) for r in db[t].rows] for t in CONTENT}


class Boom(RuntimeError):
    pass


# --- atomic resolution ------------------------------------------------------------------------

def test_a_resolution_that_fails_while_rendering_leaves_the_previous_phase(cli, tmp_path, monkeypatch):
    pw = new(cli)
    new(cli, "control")
    db = store(tmp_path)
    lines = legal_lines(db, "alice")
    for gid in ("g1", "control"):
        assert cli("submit", gid, "alice", "-", "--gm", input=text("alice", None, lines, gid)).exit_code == 0
    before = snapshot(db)
    subs = db["submissions"].count

    real = report_renderer.text_reports

    def broken(*args, **kw):
        raise Boom("the disk is full")

    monkeypatch.setattr(report_renderer, "text_reports", broken)
    r = cli("resolve", "g1")
    assert r.exit_code == 70, r.output
    assert "internal error: Boom: the disk is full" in r.stderr
    assert "Traceback" not in r.output
    # nothing of the resolution is stored: not the events, not the new phase, not the game's turn
    assert snapshot(db) == before
    assert db["games"].get("g1")["phase"] == 1
    assert db["phases"].get(("g1", 1))["resolved"] is None
    assert db.execute("select count(*) from events where game_id = 'g1' and phase = 1").fetchone()[0] == 0
    assert not (tmp_path / "turns" / "g1" / "2").exists()
    assert db["submissions"].count == subs  # the orders are kept
    assert "awaiting nobody" in cli("status", "g1").stdout

    monkeypatch.setattr(report_renderer, "text_reports", real)
    r = cli("resolve", "g1", "control")
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: resolved" in r.stdout and "control turn 1: resolved" in r.stdout
    assert db["games"].get("g1")["phase"] == 2
    assert db["phases"].get(("g1", 2))["state_hash"] == db["phases"].get(("control", 2))["state_hash"]
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == []
    assert (tmp_path / "turns" / "g1" / "2" / "reports" / "public.txt").is_file()
    assert db["submissions"].count == subs
    assert cli("replay", "g1", "--verify").exit_code == 0
    assert pw


def test_a_failure_in_a_later_turn_keeps_the_turns_resolved_before_it(cli, tmp_path, monkeypatch):
    new(cli, "g1", seed="4")
    db = store(tmp_path)
    # orders for turns 1..3 are already in the turn folders (played by bots in a copy)
    other = tmp_path / "copy.db"
    new(cli, "g1", ("alice", "bob"), "4", "--db", str(other), "--turns", str(tmp_path / "copy-turns"))
    assert cli("--db", str(other), "--turns", str(tmp_path / "copy-turns"), "autoplay", "g1", "--max-phases", "3").exit_code == 0
    odb = open_db(str(other))
    for ph in odb["phases"].rows_where("resolved is not null"):
        for player, sid in loads(ph["used"]).items():
            (tmp_path / "turns" / "g1" / str(ph["number"])).mkdir(parents=True, exist_ok=True)
            (tmp_path / "turns" / "g1" / str(ph["number"]) / f"{player}.txt").write_bytes(odb["submissions"].get(sid)["raw"])

    real = report_renderer.text_reports
    calls = []

    def fails_on_the_second(*args, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise Boom("out of memory")
        return real(*args, **kw)

    monkeypatch.setattr(report_renderer, "text_reports", fails_on_the_second)
    r = cli("resolve", "g1")
    assert r.exit_code == 70
    assert db["games"].get("g1")["phase"] == 2  # turn 1 committed, turn 2 rolled back
    assert db["phases"].get(("g1", 2))["resolved"] is None
    assert db.execute("select max(number) from phases where game_id = 'g1'").fetchone()[0] == 2
    assert db.execute("select count(*) from events where phase = 2").fetchone()[0] == 0
    assert db.execute("select count(*) from reports where phase = 3").fetchone()[0] == 0
    submitted = db["submissions"].count

    monkeypatch.setattr(report_renderer, "text_reports", real)
    r = cli("resolve", "g1")
    assert r.exit_code == 0, r.output
    assert "g1 turn 2: resolved" in r.stdout and "g1 turn 3: resolved" in r.stdout and "g1 turn 4: waiting" in r.stdout
    # turn 2's file was collected inside the resolution that rolled back, so it is collected
    # again now (the file stayed on disk); turn 3's is new
    assert db["submissions"].count == submitted + 2
    assert db.execute("select count(*) from submissions where phase = 2 and source like 'file:%'").fetchone()[0] == 1
    assert db["phases"].get(("g1", 4))["state_hash"] == odb["phases"].get(("g1", 4))["state_hash"]


def test_new_is_atomic_too(cli, tmp_path, monkeypatch):
    real = report_renderer.text_reports

    def broken(*args, **kw):
        raise Boom("template missing")

    monkeypatch.setattr(report_renderer, "text_reports", broken)
    r = cli("new", "gods", "g1", "-p", "alice", "-p", "bob")
    assert r.exit_code == 70 and "Traceback" not in r.output
    db = store(tmp_path)
    assert all(db[t].count == 0 for t in CONTENT)
    monkeypatch.setattr(report_renderer, "text_reports", real)
    new(cli)  # the id is free: nothing half-made is in the way


# --- raw inputs kept -----------------------------------------------------------------------------

def test_every_submissions_raw_bytes_are_kept(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)
    lines = legal_lines(db, "alice")
    sent = [
        text("alice", pw["alice"], lines).encode(),                       # accepted
        text("alice", pw["alice"], lines + ["tribe purple 99,99"]).encode(),  # partial
        text("alice", "wrong", lines).encode(),                           # rejected: password
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",                          # rejected: binary
        "GAME g1\r\nPLAYER alice\r\nPASSWORD {}\r\n# Grüße\r\n".format(pw["alice"]).encode("cp1252"),
        b"",                                                              # rejected: no password
    ]
    for raw in sent:
        (tmp_path / "o.txt").write_bytes(raw)
        cli("submit", "g1", "alice", str(tmp_path / "o.txt"))
    cli("submit", "g1", "bob", "-", input=text("bob", pw["bob"], ["pass"]).encode())
    (tmp_path / "turns" / "g1" / "1" / "alice.txt").write_bytes(b"GAME g1\nPLAYER alice\n\xff\xfe odd bytes\n")
    cli("resolve", "g1")
    rows = list(db["submissions"].rows_where(order_by="id"))
    got = [r["raw"] for r in rows]
    assert got == sent + [text("bob", pw["bob"], ["pass"]).encode(), b"GAME g1\nPLAYER alice\n\xff\xfe odd bytes\n"]
    for row in rows:
        assert isinstance(row["raw"], bytes)
        assert row["sha256"] == hashlib.sha256(row["raw"]).hexdigest()
        assert row["ack"].startswith("pbem acknowledgement: game g1")
        assert row["received"] and row["source"]
    assert [r["status"] for r in rows[:6]] == ["accepted", "partial", "rejected", "rejected", "accepted", "rejected"]
    assert rows[-1]["source"].startswith("file:") and rows[-1]["source"].endswith("alice.txt")


# --- which store ---------------------------------------------------------------------------------

def test_db_option_and_pbem_db_select_the_store(cli, tmp_path, monkeypatch):
    # PBEM_DB (set by the fixture) is the default ...
    new(cli, "in-env")
    # ... --db wins over it; its folder must exist (issue 17: a typo makes no folders)
    other = tmp_path / "deep" / "er" / "other.db"
    r = cli("--db", str(other), "new", "gods", "in-option", "-p", "alice", "-p", "bob")
    assert r.exit_code == 1 and "no folder" in r.stderr and not (tmp_path / "deep").exists()
    other.parent.mkdir(parents=True)
    new(cli, "in-option", ("alice", "bob"), "1", "--db", str(other))
    assert [g["id"] for g in store(tmp_path)["games"].rows] == ["in-env"]
    assert [g["id"] for g in open_db(str(other))["games"].rows] == ["in-option"]
    r = cli("--db", str(other), "status", "--json")
    assert [g["id"] for g in json.loads(r.stdout)["games"]] == ["in-option"]
    r = cli("status", "in-option")
    assert r.exit_code == 1 and "no game 'in-option'; games in this store: in-env" in r.stderr
    # changing PBEM_DB switches store
    monkeypatch.setenv("PBEM_DB", str(other))
    r = cli("status", "--json")
    assert [g["id"] for g in json.loads(r.stdout)["games"]] == ["in-option"]


def test_the_default_store_is_pbem_db_in_the_working_folder(cli, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.delenv("PBEM_DB")
    monkeypatch.delenv("PBEM_TURNS")
    new(cli)
    assert (work / "pbem.db").is_file()
    assert [g["id"] for g in open_db(str(work / "pbem.db"))["games"].rows] == ["g1"]
    assert (work / "turns" / "g1" / "1" / "reports" / "public.txt").is_file()
    assert not (tmp_path / "pbem.db").exists()


# --- migrations -----------------------------------------------------------------------------------

def _applied(db):
    return [(r["migration_set"], r["name"], r["applied_at"]) for r in db["_sqlite_migrations"].rows_where(order_by="id")]


def test_migrations_are_applied_once_and_recorded(tmp_path, cli):
    names = [m.name for m in migrations._migrations]
    assert names and names[0] == "m001_initial"
    db = store(tmp_path)
    first = _applied(db)
    assert [(s, n) for s, n, _ in first] == [("pbem", n) for n in names]
    for t in ("games", "players", "phases", "submissions", "events", "reports"):
        assert db[t].exists()
    # opening the store again (from the library and through the CLI) applies nothing twice
    store(tmp_path)
    new(cli)
    cli("status")
    assert _applied(store(tmp_path)) == first
    assert migrations.pending(store(tmp_path)) == []


def test_an_older_store_is_brought_up_to_date(tmp_path):
    names = [m.name for m in migrations._migrations]
    path = str(tmp_path / "old.db")
    import sqlite_utils

    old = sqlite_utils.Database(path)
    migrations.apply(old, stop_before=names[1] if len(names) > 1 else None)
    old["games"].insert({"id": "kept", "type": "gods", "status": "running", "phase": 1})
    old.close()
    db = open_db(path)
    assert [n for _, n, _ in _applied(db)] == names
    assert db["games"].get("kept")["type"] == "gods"
    assert migrations.pending(db) == []


@pytest.mark.parametrize("path", [":memory:"])
def test_an_in_memory_store_works(path):
    db = open_db(path)
    created = host.new_game(db, "gods", "m1", ["alice", "bob"], seed="1", turns=None)
    assert created["game"]["id"] == "m1"
    assert db["phases"].count == 1


# --- the light reader ---------------------------------------------------------------------------

def test_the_reader_reads_what_the_store_holds_and_migrates_nothing(tmp_path, gods_game, db):
    from pbem.host import queries, read
    from pbem.host.store import MIGRATIONS, Reader, open_reader

    gods_game()
    path = db.conn.execute("pragma database_list").fetchone()[2]
    reader = open_reader(path)
    assert isinstance(reader, Reader)
    assert queries.status(reader) == queries.status(db)
    assert read.players(reader, "g1") == read.players(db, "g1")
    assert queries.report(reader, "g1") == queries.report(db, "g1")
    assert set(MIGRATIONS) == {m.name for m in migrations._migrations}


def test_the_reader_falls_back_to_the_full_store_when_it_must_write(tmp_path):
    from pbem.core.errors import NotFound
    from pbem.host.store import Reader, open_reader

    with pytest.raises(NotFound, match="no pbem store at"):  # reading never creates a store
        open_reader(str(tmp_path / "new.db"))
    assert not (tmp_path / "new.db").exists()
    import sqlite_utils

    old = sqlite_utils.Database(str(tmp_path / "old.db"))  # the first layout: m001 only
    migrations.apply(old, stop_before="m002_mail")
    old.close()
    upgraded = open_reader(str(tmp_path / "old.db"))  # migrations are pending: they run
    assert not isinstance(upgraded, Reader)
    assert "m003_rollback_and_indexes" in {r["name"] for r in upgraded["_sqlite_migrations"].rows}


def test_a_new_store_is_readable_by_its_owner_only(tmp_path):
    """The store holds every player's password: a new one is made with mode 0600."""
    import stat

    from pbem.host.store import open_db

    db = open_db(str(tmp_path / "new.db"))
    db.close()
    assert stat.S_IMODE((tmp_path / "new.db").stat().st_mode) == 0o600


def test_latest_submissions_is_each_players_last_one_not_rejected_in_the_order_they_first_sent(tmp_path):
    """read.latest_submissions (issue 17: it reads only those rows): the last submission not
    rejected of each player, the players in the order of their first one not rejected."""
    from pbem.host import read

    db = open_db(str(tmp_path / "s.db"))
    rows = [("b", "accepted"), ("a", "rejected"), ("a", "partial"), ("b", "rejected"), ("c", "accepted"),
            ("a", "accepted"), ("b", "partial"), ("c", "rejected"), ("d", "rejected")]
    for i, (player, status) in enumerate(rows):
        db.execute("insert into submissions (game_id, phase, player, received, source, raw, sha256, status, ack, ready) "
                   "values ('g', 1, ?, '', 'cli', ?, '', ?, '', 0)", [player, f"#{i}".encode(), status])
    db.execute("insert into submissions (game_id, phase, player, received, source, raw, sha256, status, ack, ready) "
               "values ('g', 2, 'a', '', 'cli', x'00', '', 'accepted', '', 0)")
    latest = read.latest_submissions(db, "g", 1)
    assert list(latest) == ["b", "a", "c"]
    assert {p: r["raw"] for p, r in latest.items()} == {"b": b"#6", "a": b"#5", "c": b"#4"}
    assert latest["a"]["status"] == "accepted" and set(latest["a"]) >= {"id", "game_id", "phase", "ack", "ready"}
    assert read.latest_submissions(db, "g", 3) == {}


def test_a_submission_knows_the_row_it_stored(tmp_path):
    """Issue 17: autoplay goes on with the rows its bots' submissions stored (Ack.stored)
    instead of reading them back: each is the row read.latest_submissions reads."""
    from pbem.host import read

    db = open_db(str(tmp_path / "s.db"))
    host.new_game(db, "gods", "g1", ["a", "b", "c"], seed="7", turns=None, passwords={"a": "pa", "b": "pb", "c": "pc"})
    game = read.game(db, "g1")
    asked = host.current_state(db, "g1")["flow"]["active"][0]
    for player, lines in ((asked, "pass\n"), ("b" if asked != "b" else "c", "")):
        ack = host.submit(db, "g1", player, f"PASSWORD p{player}\n{lines}".encode(), source="cli")
        assert ack.stored == read.latest_submissions(db, "g1", game["phase"])[player]
        assert list(ack.stored) == list(read.rows(db, "select * from submissions where id = ?", [ack.submission_id])[0])


def test_autoplay_commits_its_turns_together_and_a_failing_turn_alone(tmp_path, monkeypatch):
    """Issue 17: autoplay stores the turns of about _BATCH_SECONDS in one write transaction
    (one COMMIT for 3 turns here), each turn whole in a savepoint: a turn that fails is rolled
    back alone, the turns before it are committed and their report files written, then the
    error is raised; the next run goes on from there and the game replays."""
    from pbem.host import service

    db = open_db(str(tmp_path / "s.db"))
    turns = tmp_path / "turns"
    host.new_game(db, "gods", "g1", ["a", "b", "c"], seed="7", turns=str(turns))
    statements = []
    db.conn.set_trace_callback(statements.append)
    assert [r.turn for r in host.autoplay(db, "g1", max_phases=3, turns=str(turns))] == [1, 2, 3]
    db.conn.set_trace_callback(None)
    assert statements.count("COMMIT") == 1 and statements.count("BEGIN IMMEDIATE") == 1
    assert all((turns / "g1" / str(n) / "reports" / "a.txt").is_file() for n in (2, 3, 4))

    real, calls = service._resolve_locked, []

    def failing(db, game_id, *args, **kwargs):
        calls.append(game_id)
        if len(calls) == 3:
            db.execute("insert into events (game_id, phase, seq, data) values ('g1', 99, 0, '{}')")  # rolled back
            raise RuntimeError("boom")
        return real(db, game_id, *args, **kwargs)

    monkeypatch.setattr(service, "_resolve_locked", failing)
    with pytest.raises(RuntimeError, match="boom"):
        host.autoplay(db, "g1", max_phases=5, turns=str(turns))
    assert read_game(db)["phase"] == 6  # turns 4 and 5 stored, the 3rd (turn 6) rolled back alone
    assert db.execute("select count(*) from events where phase = 99").fetchone()[0] == 0
    assert db.execute("select count(*) from phases where game_id = 'g1' and number = 6 and resolved is null").fetchone()[0] == 1
    assert db.execute("select count(*) from submissions where phase = 6").fetchone()[0] == 0
    assert (turns / "g1" / "6" / "reports" / "a.txt").is_file() and not (turns / "g1" / "7").exists()
    monkeypatch.setattr(service, "_resolve_locked", real)
    assert host.autoplay(db, "g1", max_phases=2, turns=str(turns))[0].turn == 6
    assert host.replay(db, "g1")["ok"]


def read_game(db):
    from pbem.host import read

    return read.game(db, "g1")
