"""Nothing lost when things break (issue 8): crashes mid-resolution, concurrent pbem
processes on one store, --preview, rollback, and upgrading an older store."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pbem.core import engine
from pbem import host
from pbem.core.registry import get_rules
from pbem.host.store import loads, migrations, open_db

PY = sys.executable


def run(tmp, *args, env=None, check=True):
    e = dict(os.environ, PBEM_DB=str(tmp / "pbem.db"), PBEM_TURNS=str(tmp / "turns"))
    e.pop("PBEM_FAILPOINT", None)
    e.update(env or {})
    p = subprocess.run([PY, "-m", "pbem", *args], capture_output=True, text=True, env=e)
    if check:
        assert p.returncode == 0, p.stderr + p.stdout
    return p


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A GODS game played by bots with its orders saved as turn files, and every turn's hash."""
    tmp = tmp_path_factory.mktemp("ref")
    db = open_db(str(tmp / "ref.db"))
    host.new_game(db, "gods", "g1", ["alice", "bob"], seed="11", turns=None)
    rules = get_rules("gods")
    files = {}
    while db["games"].get("g1")["status"] == "running" and db["games"].get("g1")["phase"] < 13:
        number = db["games"].get("g1")["phase"]
        state = host.current_state(db, "g1")
        for p in engine.active_players(rules, state):
            lines = host.bot_script(rules, state, p, random.Random(f"{number}{p}"))
            files[(number, p)] = "\n".join(["GAME g1", f"PLAYER {p}", *lines, "END", ""])
            host.submit(db, "g1", p, files[(number, p)].encode(), trusted=True)
        host.resolve(db, ["g1"], turns=None, max_phases=1)
    hashes = {r["number"]: r["state_hash"] for r in db["phases"].rows_where("game_id = 'g1'")}
    return files, hashes


def fresh_store(tmp: Path, files: dict) -> None:
    run(tmp, "new", "gods", "g1", "--player", "alice", "--player", "bob", "--seed", "11")
    for (number, player), text in files.items():
        folder = tmp / "turns" / "g1" / str(number)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{player}.txt").write_text(text)


def consistent(tmp: Path, hashes: dict) -> int:
    """The store holds whole phases only: every phase before the current one resolved with
    its events and the next report; the current one open; every hash the reference's."""
    db = open_db(str(tmp / "pbem.db"))
    current = db["games"].get("g1")["phase"]
    numbers = [r["number"] for r in db["phases"].rows_where("game_id = 'g1'", order_by="number")]
    assert numbers == list(range(1, current + 1))
    for r in db["phases"].rows_where("game_id = 'g1'"):
        assert r["state_hash"] == hashes[r["number"]]
        if r["number"] < current:
            assert r["resolved"] and db.execute("select count(*) from events where phase = ?", [r["number"]]).fetchone()[0] > 0
        else:
            assert r["resolved"] is None
            assert db.execute("select count(*) from events where phase >= ?", [current]).fetchone()[0] == 0
    assert db.execute("select max(phase) from reports").fetchone()[0] == current
    # every submission that counted is still there, byte for byte
    for r in db["phases"].rows_where("game_id = 'g1' and resolved is not null"):
        for sid in loads(r["used"]).values():
            assert db["submissions"].get(sid)["raw"]
    return current


@pytest.mark.parametrize("point", ["resolve-before-commit", "resolve-after-commit"])
@pytest.mark.parametrize("nth", [1, 3, 7])
def test_sigkill_at_a_failpoint_leaves_a_whole_phase_and_the_next_run_completes(tmp_path, reference, point, nth):
    files, hashes = reference
    fresh_store(tmp_path, files)
    p = run(tmp_path, "resolve", "g1", env={"PBEM_FAILPOINT": f"{point}@{nth}"}, check=False)
    assert p.returncode == -signal.SIGKILL
    current = consistent(tmp_path, hashes)
    # killed before the commit of phase nth: nth-1 phases stand; after it: nth stand
    assert current == (nth if point == "resolve-before-commit" else nth + 1)
    run(tmp_path, "resolve", "g1")
    assert consistent(tmp_path, hashes) == max(hashes)
    assert "every hash matches" in run(tmp_path, "replay", "g1").stdout


def _committed_turn(tmp: Path) -> int | None:
    """The store's current turn, read while the resolver is frozen (None: not readable now)."""
    try:
        conn = sqlite3.connect(f"file:{tmp / 'pbem.db'}?mode=ro", uri=True, timeout=0.5)
        try:
            return conn.execute("select phase from games where id = 'g1'").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def _kill_mid_run(tmp: Path, target: int, last: int, rnd: random.Random, slice_s: float) -> int | None:
    """Start `pbem resolve g1`, let it run in random slices of at most `slice_s` seconds,
    freezing it (SIGSTOP) after each; once the store is at `target` or later but below the
    last turn, SIGKILL the frozen process. Returns the turn it was killed at, or None when
    the run ended first (or the kill caught the last commit). The kill is proven mid-run: the
    process had not exited (it was stopped, not reaped), its return code is -SIGKILL, and the
    store is below the last turn."""
    env = dict(os.environ, PBEM_DB=str(tmp / "pbem.db"), PBEM_TURNS=str(tmp / "turns"))
    env.pop("PBEM_FAILPOINT", None)
    proc = subprocess.Popen([PY, "-m", "pbem", "resolve", "g1"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        time.sleep(rnd.uniform(0, slice_s))
        # os.kill and os.waitpid, not Popen's send_signal: that polls first and may reap the
        # child itself, and our waitpid then finds no child at all
        os.kill(proc.pid, signal.SIGSTOP)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)  # returns once it is stopped (or has exited)
        if not os.WIFSTOPPED(status):
            proc.returncode = os.waitstatus_to_exitcode(status)
            assert proc.returncode == 0
            return None
        turn = _committed_turn(tmp)
        if turn is not None and target <= turn < last:
            os.kill(proc.pid, signal.SIGKILL)
            _, status = os.waitpid(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            assert proc.returncode == -signal.SIGKILL
            # frozen in the middle of a COMMIT, the next phase may already be in the WAL (the
            # next reader finds it): then the kill came one phase later than seen
            after = _committed_turn(tmp)
            assert after in (turn, turn + 1), (turn, after)
            return after if after < last else None
        os.kill(proc.pid, signal.SIGCONT)


def test_sigkill_at_random_moments_never_leaves_a_mix(tmp_path, reference):
    """Six runs of `pbem resolve`, each killed at a random moment that is proven to be in the
    middle of the run (see _kill_mid_run), on any machine speed: a run that ends before its
    kill is started again with shorter slices. Each leaves whole phases only, and the next
    run completes the game with the reference's hashes."""
    files, hashes = reference
    last = max(hashes)
    rnd = random.Random(5)
    killed_at = []
    for i in range(6):
        target = rnd.randint(1, last - 1)  # 1: maybe before the first commit; else after target-1 commits
        slice_s = 0.05
        for attempt in range(8):
            tmp = tmp_path / f"run{i}-{attempt}"
            tmp.mkdir()
            fresh_store(tmp, files)
            turn = _kill_mid_run(tmp, target, last, rnd, slice_s)
            if turn is not None:
                break
            slice_s /= 2
        assert turn is not None, f"run {i}: no kill landed before the run ended, even in slices of {slice_s * 2:.4f} s"
        killed_at.append(turn)
        assert consistent(tmp, hashes) == turn
        run(tmp, "resolve", "g1")
        assert consistent(tmp, hashes) == max(hashes)
    assert all(t < last for t in killed_at)
    assert sum(t > 1 for t in killed_at) >= 3, killed_at  # most kills came after some phases were committed


def test_concurrent_processes_lose_no_submission_and_never_see_a_locked_database(tmp_path):
    """Resolvers, submitters and status readers at once on one store, repeatedly."""
    for g in ("c1", "c2", "c3"):
        run(tmp_path, "new", "gods", g, "--player", "alice", "--player", "bob", "--seed", g[-1])
    env = dict(os.environ, PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"))
    procs = []
    sent = 0
    for round_ in range(3):
        for g in ("c1", "c2", "c3"):
            for who in ("alice", "bob"):
                order_file = tmp_path / f"{g}-{who}-{round_}.txt"
                order_file.write_text(f"GAME {g}\nPLAYER {who}\n# round {round_}\nEND\n")
                procs.append(("submit", subprocess.Popen([PY, "-m", "pbem", "submit", g, who, str(order_file), "--gm"], env=env,
                                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
                sent += 1
        procs.append(("resolve", subprocess.Popen([PY, "-m", "pbem", "resolve", "--all"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
        procs.append(("status", subprocess.Popen([PY, "-m", "pbem", "status", "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    codes = {"submit": set(), "resolve": set(), "status": set()}
    for kind, p in procs:
        out, err = p.communicate(timeout=120)
        assert b"locked" not in err and b"Traceback" not in err and not err.startswith(b"pbem:"), (kind, err)
        codes[kind].add(p.returncode)
        if kind == "submit" and p.returncode == 2:  # 2 only for orders taken but with a rejected line
            assert b"acknowledgement" in out and b"REJECTED" in out, out
        elif kind == "status":
            assert p.returncode == 0 and len(json.loads(out)["games"]) == 3, (out, err)
        else:
            assert p.returncode == 0, (kind, p.returncode, out, err)
    assert codes["resolve"] == {0} and codes["status"] == {0} and codes["submit"] <= {0, 2}
    db = open_db(str(tmp_path / "pbem.db"))
    assert db["submissions"].count == sent  # every one stored, whatever its fate
    run(tmp_path, "resolve", "--all")
    for g in ("c1", "c2", "c3"):
        assert "every hash matches" in run(tmp_path, "replay", g).stdout


def test_preview_shows_the_result_and_commits_nothing_then_the_real_run_matches(tmp_path, reference, monkeypatch):
    files, hashes = reference
    fresh_store(tmp_path, files)
    now = "2026-11-21T12:00:00Z"  # the preview and the real run open turn 2 at the same moment
    monkeypatch.setenv("PBEM_NOW", now)

    def snapshot() -> dict:
        """Every byte of the store and of turns/ (no -wal file: each pbem process closed it)."""
        assert not (tmp_path / "pbem.db-wal").exists()
        return {str(f.relative_to(tmp_path)): f.read_bytes() for f in sorted(tmp_path.rglob("*")) if f.is_file()}

    before = snapshot()
    assert "pbem.db" in before and any(k.startswith("turns/g1/2/") for k in before)  # turn 2's order files
    p = run(tmp_path, "resolve", "g1", "--preview", env={"PBEM_NOW": now})
    assert "PREVIEW of g1 turn 1: resolved" in p.stdout and "nothing was stored" in p.stdout
    assert snapshot() == before  # not a byte of the store or of the turn folders changed
    db = open_db(str(tmp_path / "pbem.db"))
    dump = list(db.conn.iterdump())
    preview = host.resolve(db, ["g1"], turns=tmp_path / "turns", preview=True)[0]
    assert list(db.conn.iterdump()) == dump
    assert preview.state_hash == hashes[2]
    assert set(preview.reports) == {"", "alice", "bob"}  # the public report and each player's
    real = host.resolve(db, ["g1"], turns=tmp_path / "turns", max_phases=1)[0]
    assert real.state_hash == preview.state_hash
    stored = dict(db.execute("select player, text from reports where game_id = 'g1' and phase = 2").fetchall())
    assert stored == preview.reports  # every report, the public one too, every line
    for who, text in stored.items():
        assert f"== report for {who or 'the public'}\n{text}" in p.stdout  # the command showed the same
        assert (tmp_path / "turns" / "g1" / "2" / "reports" / f"{who or 'public'}.txt").read_text() == text


def test_rollback_sets_turns_aside_keeps_submissions_and_replays(tmp_path, reference):
    files, hashes = reference
    fresh_store(tmp_path, files)
    run(tmp_path, "resolve", "g1")
    db = open_db(str(tmp_path / "pbem.db"))
    subs = db["submissions"].count
    last = db["games"].get("g1")["phase"]
    out = run(tmp_path, "rollback", "g1", "--to", "4").stdout
    assert f"back at turn 4 (was {last})" in out
    assert db["games"].get("g1")["phase"] == 4 and db["submissions"].count == subs
    assert db["phases_archive"].count == last - 4 + 1 and db["rollbacks"].count == 1
    assert db.execute("select max(number) from phases").fetchone()[0] == 4
    assert run(tmp_path, "rollback", "g1", "--to", "9", check=False).returncode == 1
    run(tmp_path, "resolve", "g1")
    assert consistent(tmp_path, hashes) == last
    assert "every hash matches" in run(tmp_path, "replay", "g1").stdout


def test_an_older_store_is_upgraded_in_place(tmp_path):
    """A store made by the first layout (m001 only) with a game in it is migrated on open."""
    import sqlite_utils

    path = tmp_path / "old.db"
    old = sqlite_utils.Database(str(path))
    migrations.apply(old, stop_before="m002_mail")
    assert not old["outbox"].exists() and not old["phases_archive"].exists()
    # a game as the first layout stored it, made with today's code but only m001's tables
    new_db = open_db(str(tmp_path / "scratch.db"))
    host.new_game(new_db, "gods", "g1", ["alice", "bob"], seed="2", turns=None)
    for table in ("games", "players", "phases", "events", "reports"):
        first = {c.name for c in old[table].columns}  # later migrations add columns: keep m001's
        old[table].insert_all({k: v for k, v in row.items() if k in first} for row in new_db[table].rows)
    old.conn.commit()
    old.close()
    db = open_db(str(path))
    names = [m.name for m in migrations.applied(db)]
    assert names[:3] == ["m001_initial", "m002_mail", "m003_rollback_and_indexes"]
    assert db["outbox"].exists() and db["phases_archive"].exists()
    host.autoplay(db, "g1", max_phases=3, turns=None)
    assert host.replay(db, "g1")["ok"]
    assert json.loads(json.dumps(host.status(db, "g1")))["games"][0]["turn"] == 4


def test_two_writers_of_one_report_file_at_once_both_succeed(tmp_path):
    """Two `resolve --all` runs may both restore or write the same report file (CI found one
    failing with FileNotFoundError when the other had renamed their shared temporary file):
    each writer has a temporary file of its own, so every write succeeds and the file is whole."""
    import threading

    from pbem.host.service import _write_report_files

    texts = [{"bob": f"report {i}\n" * 2000} for i in range(8)]
    errors = []

    def write(t):
        try:
            for _ in range(60):
                _write_report_files(tmp_path, "g", 2, t)
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    folder = tmp_path / "g" / "2" / "reports"
    assert (folder / "bob.txt").read_text() in [t["bob"] for t in texts]
    assert [p.name for p in folder.iterdir()] == ["bob.txt"]
