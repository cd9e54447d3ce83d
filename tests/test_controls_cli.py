"""The GM's commands between deadlines through the installed `pbem` (a subprocess, as a GM
runs it): deadline, pause, resume, set, remind, seat, replace, start, observe, list, end,
and `new --open` / `new --option`. A bad input is one clean line (exit 1; a usage error
exits 2) and leaves the store exactly as it was."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_controls import snapshot

from pbem.host.store import open_db

PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent))
NOW = "2026-11-23T10:00:00Z"


@pytest.fixture
def run(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"), PBEM_NOW=NOW)

    def pbem(*args, now=None):
        return subprocess.run([PBEM, *map(str, args)], check=False, capture_output=True, text=True, cwd=tmp_path, timeout=60,
                              env={**env, **({"PBEM_NOW": now} if now else {})})

    pbem.db = str(tmp_path / "pbem.db")
    return pbem


def store_rows(path: str) -> dict:
    db = open_db(path)
    try:
        return snapshot(db)
    finally:
        db.close()


def clean_failure(run, args, says, code=1):
    """The command fails with one clean line quoting the input, and changes nothing."""
    before = store_rows(run.db)
    r = run(*args)
    assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
    assert says in r.stderr, (args, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    if code == 1:
        assert r.stderr.startswith("pbem: ") and r.stderr.count("\n") == 1
    assert store_rows(run.db) == before, args


@pytest.fixture
def game(run):
    r = run("new", "gods", "g1", "--seed", "1", "-p", "alice:alice@example.org", "-p", "bob:bob@example.org",
            "-p", "carl", "--every", "72h", "--option", "grace=12h", "-o", "remind=24h")
    assert r.returncode == 0, r.stderr
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))


def test_every_command_is_in_the_help(run):
    r = run("--help")
    for command in ("deadline", "pause", "resume", "set", "remind", "seat", "replace", "start", "observe", "list", "end"):
        assert re.search(rf"^  {command}\s+\S", r.stdout, re.MULTILINE), command
        h = run(command, "--help")
        assert h.returncode == 0 and "Example: pbem " + command in h.stdout.replace("\n  ", " "), command


def test_deadline_pause_resume_and_list(run, game):
    r = run("deadline", "g1", "--extend", "24h", "--reason", "holiday")
    assert r.returncode == 0 and "deadline 2026-11-27T10:00:00Z (was 2026-11-26T10:00:00Z)" in r.stdout
    r = run("deadline", "g1", "--at", "2026-12-01 20:00", "--tz", "Europe/London")
    assert r.returncode == 0 and "deadline 2026-12-01T20:00:00Z" in r.stdout
    assert run("pause", "g1", "--reason", "server move").returncode == 0
    listed = json.loads(run("list", "--json").stdout)["games"]
    assert [(g["id"], g["state"], g["deadline"]) for g in listed] == [("g1", "paused", None)]
    r = run("resolve", "--all", now="2027-01-01T00:00:00Z")
    assert "no game is due" in r.stdout
    status = run("status", "g1")
    assert "PAUSED since 2026-11-23T10:00:00Z" in status.stdout
    r = run("resume", "g1", "--at", "2026-12-05T10:00Z")
    assert r.returncode == 0 and "deadline 2026-12-05T10:00:00Z" in r.stdout
    r = run("list")
    assert re.search(r"^g1\s+gods\s+turn 1\s+running\s+deadline 2026-12-05T10:00:00Z\s+grace until 2026-12-05T22:00:00Z awaiting alice", r.stdout, re.MULTILINE)


def test_bad_deadlines_and_pauses(run, game):
    clean_failure(run, ("deadline", "g1", "--at", "2020-01-01 10:00"), "--at '2020-01-01 10:00' is in the past")
    clean_failure(run, ("deadline", "g1", "--extend", "forever"), "--extend 'forever' is not a duration")
    clean_failure(run, ("deadline", "g1", "--at", "2026-12-01 20:00", "--tz", "Nowhere/Land"), "'Nowhere/Land' is not a known time zone")
    clean_failure(run, ("deadline", "g1"), "give either --extend DURATION or --at TIME", code=2)  # a usage error
    clean_failure(run, ("deadline", "nope", "--extend", "1h"), "no game 'nope'")
    clean_failure(run, ("resume", "g1"), "game 'g1' is not paused")
    assert run("pause", "g1").returncode == 0
    clean_failure(run, ("pause", "g1"), "game 'g1' is already paused")
    clean_failure(run, ("deadline", "g1", "--extend", "1h"), "is paused")
    clean_failure(run, ("deadline", "g1", "--bogus"), "No such option: --bogus", code=2)


def test_set_and_remind(run, game):
    r = run("set", "g1", "early", "off")
    assert r.returncode == 0 and "g1: early = off (was on)" in r.stdout
    clean_failure(run, ("set", "g1", "early", "perhaps"), "early 'perhaps' is not on or off")
    clean_failure(run, ("set", "g1", "press", "loud"), "press 'loud' is not one of none, white, grey")
    clean_failure(run, ("set", "g1", "colour", "red"), "unknown game option 'colour'")
    clean_failure(run, ("set", "nope", "grace", "1h"), "no game 'nope'")
    assert "no reminder is due" in run("remind").stdout
    r = run("remind", now="2026-11-25T12:00:00Z")
    assert r.returncode == 0 and "g1 turn 1: remind for alice" in r.stdout and "1 notice(s) queued" in r.stdout
    assert "no reminder is due" in run("remind", "g1", now="2026-11-25T12:00:00Z").stdout  # once per turn
    r = run("remind", now="2026-11-26T11:00:00Z")
    assert "g1 turn 1: late for alice" in r.stdout
    r = run("resolve", "--all", now="2026-11-26T11:00:00Z")
    assert "no game is due" in r.stdout  # grace: 12h more
    r = run("resolve", "--all", now="2026-11-26T22:00:00Z")
    assert "g1 turn 1: resolved (NMR: alice)" in r.stdout


def test_seat_commands(run, game):
    r = run("seat", "g1", "bob", "--email", "bob@new.example.org")
    assert r.returncode == 0 and "bob is now at bob@new.example.org (was bob@example.org)" in r.stdout
    clean_failure(run, ("seat", "g1", "bob", "--email", "bob-at-example"), "'bob-at-example' is not an email address")
    clean_failure(run, ("seat", "g1", "zed", "--email", "z@example.org"), "game 'g1' has no player 'zed'")
    clean_failure(run, ("seat", "g1", "bob"), "give exactly one of", code=2)
    clean_failure(run, ("seat", "g1", "bob", "--bot", "--human"), "give exactly one of", code=2)
    r = run("seat", "g1", "carl", "--reset-password")
    new = r.stdout.split("new password: ")[1].split()[0]
    assert r.returncode == 0 and new != game["carl"]
    assert run("seat", "g1", "carl", "--bot").returncode == 0
    clean_failure(run, ("seat", "g1", "carl", "--bot"), "is already a bot")
    assert "bot seats: carl" in run("list").stdout and "bots: carl" in run("status").stdout
    assert run("seat", "g1", "carl", "--human").returncode == 0


def test_replace_end_and_observe(run, game, tmp_path):
    r = run("replace", "g1", "alice", "dora:dora@example.org", "--reason", "alice left")
    assert r.returncode == 0 and "dora now plays alice; password " in r.stdout
    password = r.stdout.split("password ")[1].split()[0]
    clean_failure(run, ("replace", "g1", "bob", "dora"), "the name 'dora' is taken")
    clean_failure(run, ("replace", "g1", "bob", "eve:eve-at-example"), "'eve-at-example' is not an email address")
    (tmp_path / "o.txt").write_text("GAME g1\nPLAYER dora\nPASSWORD " + password + "\nEND\n")
    r = run("submit", "g1", "dora", tmp_path / "o.txt")
    assert r.returncode == 0 and "player alice" in r.stdout  # PLAYER dora: the seat alice, by its new player's name
    assert run("observe", "g1", "fan@example.org").returncode == 0
    clean_failure(run, ("observe", "g1", "fan@example.org"), "already observes game 'g1'")
    clean_failure(run, ("observe", "g1", "not an address"), "is not an email address")
    clean_failure(run, ("end", "g1"), "give --winner NAME", code=2)
    clean_failure(run, ("end", "g1", "--winner", "zed"), "game 'g1' has no player 'zed'")
    r = run("end", "g1", "--winner", "bob", "--reason", "agreed")
    assert r.returncode == 0 and "g1: over, won by bob" in r.stdout
    assert "ended at turn 1 (by the GM); winner(s) bob" in run("status").stdout
    clean_failure(run, ("end", "g1", "--draw"), "game 'g1' is over")
    clean_failure(run, ("pause", "g1"), "game 'g1' is over")


def test_open_sign_up_and_start(run):
    r = run("new", "gods", "o1", "--open", "3", "--option", "grace=6h")
    assert r.returncode == 0 and "opened gods game o1 for sign-up: 3 seats" in r.stdout
    clean_failure(run, ("new", "gods", "o1", "--open", "2"), "a game 'o1' already exists")
    clean_failure(run, ("new", "gods", "o2", "--open", "9"), "GODS is for 2 to 4 players, not 9")
    clean_failure(run, ("new", "gods", "o3", "--open", "2", "-p", "x"), "not both", code=2)
    clean_failure(run, ("new", "gods", "o4", "-p", "a", "-p", "b", "-o", "grace=soon"), "grace 'soon' is not a duration")
    assert "open for sign-up: 0 of 3 seats taken" in run("list").stdout
    clean_failure(run, ("start", "o1"), "needs at least 2 players to start; 0 joined")
    clean_failure(run, ("start", "nope"), "no game 'nope' is open for sign-up")
    from pbem.host import seats

    db = open_db(run.db)
    seats.join(db, "o1", "ann@example.org", turns=str(Path(run.db).parent / "turns"))
    seats.join(db, "o1", "ben@example.org", turns=str(Path(run.db).parent / "turns"))
    db.close()
    r = run("start", "o1")
    assert r.returncode == 0 and "started gods game o1 with ann, ben" in r.stdout
    clean_failure(run, ("start", "o1"), "game 'o1' has already started")
    assert json.loads(run("list", "--json").stdout)["games"][0]["state"] == "running"
