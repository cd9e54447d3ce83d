"""The `pbem` command as users run it: the console script installed by `pip install`, in a
subprocess, with the typer that pyproject.toml admits (not click's test runner).

A usage error prints click's usage message and exits 2; a domain error prints one clean line
and exits 1; only a real bug is an "internal error" (exit 70). No traceback in any of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PBEM  # noqa: I001 (the installed console script; the `run` fixture is in conftest)

USAGE_ERRORS = [
    (("resolve", "--bogus"), "No such option: --bogus"),
    (("report",), "Missing argument"),
    (("report", "g1", "--turn", "abc"), "Invalid value for '--turn'"),
    (("no-such-command",), "No such command 'no-such-command'"),
    (("new", "gods"), "Missing argument"),
    (("new", "gods", "g1"), "Missing option '--player'"),
    (("status", "--json", "extra", "more"), "Got unexpected extra argument"),
    (("send", "--smtp-port", "many"), "Invalid value for '--smtp-port'"),
    (("--db",), "requires an argument"),
]


@pytest.mark.parametrize("args,says", USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS])
def test_a_usage_error_prints_the_usage_and_exits_2(run, args, says):
    r = run(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert says in r.stderr
    assert r.stderr.startswith(("Usage: pbem", "Error: "))  # click's usage message (a global option's error has no usage line)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr


def test_a_domain_error_is_one_clean_line_and_exit_1(run):
    assert run("new", "gods", "g1", "-p", "alice", "-p", "bob").returncode == 0
    r = run("status", "nope")
    assert r.returncode == 1
    assert r.stderr.startswith("pbem: no game 'nope'") and r.stderr.count("\n") == 1
    assert "Traceback" not in r.stderr


def test_help_and_a_game_through_the_installed_command(run, tmp_path):
    r = run("--help")
    assert r.returncode == 0 and "Usage: pbem" in r.stdout and "resolve" in r.stdout
    r = run("new", "gods", "g1", "-p", "alice", "-p", "bob", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "turns" / "g1" / "1" / "reports" / "public.txt").is_file()
    r = run("autoplay", "g1", "--max-phases", "4")
    assert r.returncode == 0, r.stderr
    r = run("status", "g1", "--json")
    assert r.returncode == 0 and '"version": 1' in r.stdout
    r = run("replay", "g1", "--verify")
    assert r.returncode == 0 and "every hash matches" in r.stdout


def test_a_store_that_is_not_a_database_is_a_clean_message(run, tmp_path):
    (tmp_path / "pbem.db").write_bytes(b"this is not a SQLite file" * 100)
    r = run("status")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr.startswith("pbem: ") and "is not a pbem store" in r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_a_reader_that_goes_away_stops_the_command_quietly(run, tmp_path):
    """`pbem report g1 | head -1`: the pipe closes early; no internal error, no traceback."""
    assert run("new", "gods", "g1", "-p", "alice", "-p", "bob", "--seed", "3").returncode == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"))
    proc = subprocess.Popen([PBEM, "report", "g1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    proc.stdout.close()  # the reader is gone before the first line is written
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert proc.returncode in (0, 1, 141), (proc.returncode, err)  # click's quiet exit 1 on EPIPE, or SIGPIPE's 141
    assert "internal error" not in err and "Traceback" not in err


def test_status_and_report_read_without_sqlite_utils(run, tmp_path):
    """The read-only commands open the store through sqlite3 alone (they start faster)."""
    assert run("new", "gods", "g1", "-p", "alice", "-p", "bob", "--seed", "3").returncode == 0
    probe = ("import sys; sys.argv = ['pbem', 'status']; from pbem.cli import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('LOADED', sorted(m for m in ('sqlite_utils', 'jinja2', 'pydantic', 'email.utils') if m in sys.modules))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"))
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert "g1 (GODS): turn 1" in r.stdout, r.stderr
    assert "LOADED []" in r.stdout, r.stdout


def test_global_options_may_follow_the_command(run, tmp_path):
    assert run("new", "gods", "g1", "-p", "alice", "-p", "bob", "--seed", "3").returncode == 0
    other = tmp_path / "other"
    other.mkdir()
    store = str(tmp_path / "pbem.db")
    for args in (("status", "--db", store), ("status", f"--db={store}", "g1"), ("--db", store, "status")):
        r = subprocess.run([PBEM, *args], capture_output=True, text=True, cwd=other, timeout=60,
                           env={k: v for k, v in os.environ.items() if not k.startswith("PBEM_")})
        assert r.returncode == 0 and "g1 (GODS): turn 1" in r.stdout, (args, r.stderr)


def test_version_and_short_help(run):
    r = run("--version")
    assert r.returncode == 0 and r.stdout.startswith("pbem ")
    r = run("-h")
    assert r.returncode == 0 and "Usage: pbem" in r.stdout
    assert "..." not in "".join(ln for ln in r.stdout.splitlines() if ln.startswith("  ") and "  " in ln.strip())


def test_reading_never_creates_a_store_and_a_bad_path_is_a_clean_message(run, tmp_path):
    missing = tmp_path / "typo" / "pbem.db"
    r = run("--db", missing, "status")
    assert r.returncode == 1 and "no pbem store at" in r.stderr and "pbem new" in r.stderr
    assert not missing.parent.exists()
    r = run("--db", "/proc/no-such-folder/pbem.db", "new", "gods", "g1", "-p", "a", "-p", "b")
    assert r.returncode == 1 and r.stderr.startswith("pbem: cannot open the store")
    assert "internal error" not in r.stderr


def test_a_full_disk_is_a_clean_message(run):
    assert Path("/dev/full").exists(), "this test writes to /dev/full (Linux)"
    assert run("new", "gods", "g1", "-p", "alice", "-p", "bob", "--seed", "3").returncode == 0
    with open("/dev/full", "w") as full:
        r = subprocess.run([PBEM, "report", "g1"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
                           env=run.env, cwd=run.cwd)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr.startswith("pbem: No space left on device") and "internal error" not in r.stderr


def test_autoplay_refuses_a_game_with_real_players_unless_forced(run, tmp_path):
    """Tester3 finding 16: a GM who mistypes his test game's id must not have bots play a
    live game's turns and mail its players the reports. Refused, with the reason and the way
    to insist; nothing changes. A seat with an address, or an observer, makes a game live."""
    assert run("new", "ohgods", "live-1", "--player", "ann:ann@play.test", "--player", "bob:bob@play.test",
               "--player", "cy", "--every", "72h").returncode == 0
    db = tmp_path / "pbem.db"
    before = db.read_bytes()
    r = run("autoplay", "live-1", "--max-phases", "4")
    assert r.returncode == 1 and "Traceback" not in r.stderr, (r.stdout, r.stderr)
    assert r.stderr.startswith("pbem: game 'live-1' has real players (ann, bob have addresses or mailed orders)")
    assert "`pbem autoplay live-1 --force`" in r.stderr and r.stdout == ""
    assert db.read_bytes() == before
    assert "turn 1," in run("status", "live-1").stdout
    # a test game (no address, no observer) plays as before; an observer makes it live
    assert run("new", "ohgods", "test-1", "--player", "ann", "--player", "bob", "--player", "cy").returncode == 0
    r = run("autoplay", "test-1", "--max-phases", "1")
    assert r.returncode == 0 and r.stdout.startswith("test-1: 1 turn resolved"), r.stdout + r.stderr
    assert run("observe", "test-1", "fan@watch.test").returncode == 0
    r = run("autoplay", "test-1", "--max-phases", "1")
    assert r.returncode == 1 and "has real players (1 observer)" in r.stderr
    # the GM insists: it plays
    r = run("autoplay", "live-1", "--max-phases", "2", "--force")
    assert r.returncode == 0 and r.stdout.startswith("live-1: 2 turns resolved"), r.stdout + r.stderr
    assert "turn 3," in run("status", "live-1").stdout
