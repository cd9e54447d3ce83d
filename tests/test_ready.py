"""Ready or not: a turn resolves before its deadline only when every player asked is ready.

A player is ready when their latest orders for the turn have no rejected line, or carry a
READY line that takes them as they are. Otherwise the turn waits for the deadline (a typo
must not become a default move days early), and status and the acknowledgement say so."""

from __future__ import annotations

import json

from gods_helpers import legal_lines, new_game, passwords, text

from pbem.host.store import loads, open_db


def db_of(tmp_path):
    return open_db(str(tmp_path / "pbem.db"))


def test_clean_orders_make_a_player_ready_and_the_turn_resolves(cli, tmp_path):
    pw = new_game(cli)
    db = db_of(tmp_path)
    lines = legal_lines(db, "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines))
    assert r.exit_code == 0 and "NOT READY" not in r.stdout
    assert cli("resolve", "g1").exit_code == 0
    assert db["phases"].get(("g1", 1))["resolved"] is not None


def test_a_rejected_line_keeps_a_player_not_ready_until_the_deadline(cli, tmp_path):
    pw = new_game(cli)
    db = db_of(tmp_path)
    lines = legal_lines(db, "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["tribe purple 9,9"] + lines))
    assert r.exit_code == 2  # partly rejected
    assert "You are NOT READY while lines are rejected" in r.stdout and "READY" in r.stdout
    r = cli("resolve", "g1")
    assert "waiting for alice (lines rejected" in r.stdout
    assert db["phases"].get(("g1", 1))["resolved"] is None
    status = json.loads(cli("status", "g1", "--json").stdout)["games"][0]
    assert status["not_ready"] == {"alice": "lines rejected; send corrected orders, or READY to keep them"}
    assert "not ready: alice (lines rejected" in cli("status", "g1").stdout
    # corrected orders make her ready
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines))
    assert r.exit_code == 0
    assert json.loads(cli("status", "g1", "--json").stdout)["games"][0]["not_ready"] == {}
    assert cli("resolve", "g1").exit_code == 0
    assert db["phases"].get(("g1", 1))["resolved"] is not None


def test_ready_takes_orders_as_they_are(cli, tmp_path):
    pw = new_game(cli)
    db = db_of(tmp_path)
    lines = legal_lines(db, "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["READY", "tribe purple 9,9"] + lines))
    assert r.exit_code == 2
    assert "READY: you take these orders as they are" in r.stdout
    assert not any("ready" in ln.lower() and "REJECTED" in ln for ln in r.stdout.splitlines())  # READY is no order
    assert f"{len(lines)} accepted, 1 rejected." in r.stdout
    assert cli("resolve", "g1").exit_code == 0
    ph = db["phases"].get(("g1", 1))
    assert ph["resolved"] is not None
    skipped = [e for e in (loads(r["data"]) for r in db["events"].rows_where("game_id = 'g1' and phase = 1"))
               if e["type"] == "skipped"]
    assert [e["text"] for e in skipped] == ["tribe purple 9,9"]


def test_the_deadline_resolves_whoever_is_not_ready(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_NOW", "2026-11-20T12:00:00Z")
    r = cli("new", "gods", "g1", "--seed", "1", "-p", "alice", "-p", "bob", "--every", "24h")
    pw = passwords(r.stdout)
    db = db_of(tmp_path)
    lines = legal_lines(db, "alice")
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["tribe purple 9,9"] + lines))
    assert "no game is due" in cli("resolve", "--all").stdout
    assert db["phases"].get(("g1", 1))["resolved"] is None
    monkeypatch.setenv("PBEM_NOW", "2026-11-21T12:00:01Z")
    assert "g1 turn 1: resolved" in cli("resolve", "--all").stdout


def test_resolve_all_finds_a_game_only_when_everyone_asked_is_ready(cli, tmp_path):
    from pbem import host

    pw = new_game(cli)
    db = db_of(tmp_path)
    lines = legal_lines(db, "alice")
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["tribe purple 9,9"] + lines))
    assert host.due_games(db, None) == []
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines))
    assert host.due_games(db, None) == ["g1"]
    # a later faulty submission replaces the clean one: not ready again
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["tribe purple 9,9"] + lines))
    assert host.due_games(db, None) == []


def test_the_current_report_says_who_is_ready_and_only_the_reader_why(cli, tmp_path):
    pw = new_game(cli)
    db = db_of(tmp_path)
    lines = legal_lines(db, "alice")
    before = cli("report", "g1", "--player", "alice").stdout
    assert "Orders so far (turn 1" in before and "  alice: no orders yet" in before
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["tribe purple 9,9"] + lines))
    own = cli("report", "g1", "--player", "alice").stdout
    assert "  alice: not ready (lines rejected; send corrected orders, or READY to keep them)" in own
    public = cli("report", "g1").stdout
    assert "  alice: not ready\n" in public and "lines rejected" not in public
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines))
    assert "  alice: ready" in cli("report", "g1", "--player", "alice").stdout
    assert cli("resolve", "g1").exit_code == 0
    # a past turn's report is as it was sent: no such section
    assert "Orders so far" not in cli("report", "g1", "--player", "alice", "--turn", "1").stdout
