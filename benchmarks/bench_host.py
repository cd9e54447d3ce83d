"""Host benchmarks (issue 8): figures, not tests. Printed as a table and written to
build/bench/host.json, each figure beside its comparison.

    python benchmarks/bench_host.py [--quick]

1. Resolve latency for one phase of the same game after 10, 100 and 1,000 phases of
   history: the cost must not grow with history (the store keeps a snapshot per phase;
   nothing is replayed from the start).
2. A host of 10,000 games, 1% of them due: `pbem resolve --all` wall time, next to the same
   with 100 games (1 due): the cost must follow the due games, not the total. Each game is
   as `pbem new` leaves it: its turn-1 reports stored and written to turns/GAME/1/reports/
   (so the run's checks of the turn folders and of the report files see a real host), and
   has been run once before with nothing due. Min of --repeat runs of each size, the two
   sizes taken in turn; wall time, and the CPU seconds of the process (steadier than wall
   time on a shared machine). --many-only runs this part alone.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from pbem.core import engine, registry  # noqa: E402
from pbem import host, render  # noqa: E402
from pbem.host.store import open_db  # noqa: E402
from toy_sealed import SealedAuction  # noqa: E402

render.install()

# the installed console script, as a GM runs it (not `python -m pbem` from the source tree),
# with its modules compiled once and read from bytecode after, as an installed pbem is: a
# session that forbids writing bytecode would compile them again at every run (~0.1 s of CPU,
# which made the small host's run slower and flattered the ratio)
PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent)) or shutil.which("pbem") or "pbem"
GM_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


class Marathon(SealedAuction):
    """The toy sealed-bid auction of the engine tests, endless, keeping only the last few
    rounds of its own history in the state, so that the position does not grow with time
    and any growth in the latency comes from the store's history alone."""

    def advance(self, state, rng):
        events = super().advance(state, rng)
        state["game"]["history"] = state["game"]["history"][-3:]
        return events


def _submit_bots(db, game_id: str, rules) -> None:
    number = db["games"].get(game_id)["phase"]
    state = host.current_state(db, game_id)
    for p in engine.active_players(rules, state):
        lines = host.bot_script(rules, state, p, random.Random(f"{number}{p}"))
        host.submit(db, game_id, p, "\n".join([f"PLAYER {p}", *lines, "END"]).encode(), trusted=True)


def bench_history(quick: bool) -> list[dict]:
    rules = Marathon({"rounds": 10**9})
    registry.register("marathon", rules)
    marks = [10, 100] if quick else [10, 100, 1000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(str(Path(tmp) / "h.db"))
        host.new_game(db, "marathon", "m1", ["a", "b", "c"], seed="1", options={"rounds": str(10**9)}, turns=None)
        phase = 1
        for mark in marks:
            while phase < mark:
                _submit_bots(db, "m1", rules)
                host.resolve(db, ["m1"], turns=None, max_phases=1)
                phase += 1
            samples = []
            for _ in range(10):
                _submit_bots(db, "m1", rules)
                t0 = time.perf_counter()
                host.resolve(db, ["m1"], turns=None, max_phases=1)
                samples.append(time.perf_counter() - t0)
                phase += 1
            size = sum(db.execute(f"select count(*) from {t} where game_id = 'm1'").fetchone()[0] for t in ("phases", "events", "submissions"))
            rows.append({"history_phases": mark, "resolve_ms_median": statistics.median(samples) * 1000, "rows_in_store": size})
    return rows


TEMPLATE_ID = "t00000"  # as long as the clones' ids, so that each clone's report texts keep their layout


def _clone_games(db, template_id: str, count: int, due: int, turns: Path) -> None:
    """Copy one open game `count` times by SQL (ids h00000...), with its events and turn-1
    reports (the game id in them changed), and write each clone's report files under
    `turns`, as `pbem new` does; the first `due` of them get a deadline in the past, the rest
    one far ahead."""
    game = db["games"].get(template_id)
    players = list(db["players"].rows_where("game_id = ?", [template_id]))
    phase = db["phases"].get((template_id, 1))
    events = list(db["events"].rows_where("game_id = ?", [template_id]))
    reports = list(db["reports"].rows_where("game_id = ?", [template_id]))
    with db.atomic():
        for i in range(count):
            gid = f"h{i:05d}"
            deadline = "2000-01-01T00:00:00Z" if i < due else "2999-01-01T00:00:00Z"
            db["games"].insert({**game, "id": gid, "deadline": deadline})
            db["players"].insert_all({**p, "game_id": gid} for p in players)
            db["phases"].insert({**phase, "game_id": gid, "deadline": deadline})
            db["events"].insert_all({**{k: v for k, v in e.items() if k != "id"}, "game_id": gid} for e in events)
            texts = {r["player"]: r["text"].replace(template_id, gid) for r in reports}
            db["reports"].insert_all({"game_id": gid, "phase": 1, "player": who, "text": text} for who, text in texts.items())
            folder = turns / gid / "1" / "reports"
            folder.mkdir(parents=True)
            for who, text in texts.items():
                (folder / f"{who or 'public'}.txt").write_text(text)
        for table, column in (("games", "id"), ("players", "game_id"), ("phases", "game_id"), ("events", "game_id"),
                              ("reports", "game_id")):
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", [template_id])


def _children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bench_many(quick: bool, repeat: int, where: str | None) -> list[dict]:
    """`where`: the folder for the stores and turns/ (default: the system's temporary folder).
    Each host is made once; before each run its store is copied afresh and the turn folders
    the previous run wrote are removed (the turn-1 report files stay as made)."""
    sizes = [(100, 1), (1000, 10)] if quick else [(100, 1), (10_000, 100)]
    runs: dict[tuple[int, int], list[dict]] = {size: [] for size in sizes}
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        for total, due in sizes:
            made = Path(tmp) / f"host-{total}"
            made.mkdir()
            db = open_db(str(made / "made.db"))
            host.new_game(db, "gods", TEMPLATE_ID, ["alice", "bob"], seed="1", turns=None)
            _clone_games(db, TEMPLATE_ID, total, due, made / "turns")
            db.close()
            # the host has been run before, as a GM's regular run does (at a time before the due
            # games' deadline, so that nothing resolves): what one run leaves for the next is there
            time.sleep(2.1)  # pbem.host.folders trusts only folders older than 2 s
            subprocess.run([PBEM, "resolve", "--all"], capture_output=True, check=True,
                           env=dict(GM_ENV, PBEM_DB=str(made / "made.db"), PBEM_TURNS=str(made / "turns"),
                                    PBEM_NOW="1999-01-01T00:00:00Z"))
            sqlite3.connect(made / "made.db").execute("PRAGMA wal_checkpoint(TRUNCATE)").connection.close()
        for _ in range(repeat):
            for total, due in sizes:
                made = Path(tmp) / f"host-{total}"
                for gid in (f"h{i:05d}" for i in range(due)):  # what the previous run wrote
                    for folder in (made / "turns" / gid).iterdir():
                        if folder.name != "1":
                            shutil.rmtree(folder)
                for suffix in ("", "-wal", "-shm"):
                    Path(made / f"many.db{suffix}").unlink(missing_ok=True)
                shutil.copyfile(made / "made.db", made / "many.db")
                env = dict(GM_ENV, PBEM_DB=str(made / "many.db"), PBEM_TURNS=str(made / "turns"))
                t0, cpu0 = time.perf_counter(), _children_cpu()
                out = subprocess.run([PBEM, "resolve", "--all"], env=env, capture_output=True, text=True, check=True)
                elapsed, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
                t0 = time.perf_counter()
                subprocess.run([PBEM, "resolve", "--all"], env=env, capture_output=True, check=True)
                idle = time.perf_counter() - t0
                runs[total, due].append({"resolved": out.stdout.count(": resolved"), "resolve_all_s": elapsed, "cpu_s": cpu,
                                         "nothing_due_s": idle})
    rows = []
    for (total, due), samples in runs.items():
        best = min(s["resolve_all_s"] for s in samples)
        rows.append({"games": total, "due": due, "resolved": min(s["resolved"] for s in samples), "resolve_all_s": best,
                     "per_due_game_ms": best / max(due, 1) * 1000, "resolve_all_cpu_s": min(s["cpu_s"] for s in samples),
                     "nothing_due_s": min(s["nothing_due_s"] for s in samples),
                     "runs": len(samples), "folder": str(Path(where or tempfile.gettempdir()))})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "build" / "bench" / "host.json"))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each host size (the minimum is shown)")
    parser.add_argument("--many-only", action="store_true", help="only the host of many games (2.)")
    parser.add_argument("--dir", default=None, help="folder for the hosts' stores and turns/ (default: the temporary folder)")
    args = parser.parse_args()
    results = {"history": [] if args.many_only else bench_history(args.quick),
               "many_games": bench_many(args.quick, args.repeat, args.dir)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    if results["history"]:
        print("Resolve latency of one phase as the same game's history grows (median of 10)")
    for r in results["history"]:
        base = results["history"][0]["resolve_ms_median"]
        print(f"  after {r['history_phases']:5d} phases ({r['rows_in_store']:6d} rows): {r['resolve_ms_median']:7.2f} ms"
              f"  ({r['resolve_ms_median'] / base:4.2f}x the 10-phase figure)")
    print(f"`pbem resolve --all` on a host of many games (wall time, whole process, min of {results['many_games'][0]['runs']}, "
          f"in {results['many_games'][0]['folder']})")
    for r in results["many_games"]:
        print(f"  {r['games']:6d} games, {r['due']:4d} due: {r['resolve_all_s']:6.2f} s ({r['per_due_game_ms']:6.1f} ms per due game, "
              f"{r['resolved']} resolved); CPU {r['resolve_all_cpu_s']:5.2f} s; nothing due: {r['nothing_due_s']:5.2f} s")
    many = results["many_games"]
    print(f"  {many[-1]['games']} games ({many[-1]['due']} due) / {many[0]['games']} games ({many[0]['due']} due), wall time: "
          f"{many[-1]['resolve_all_s'] / many[0]['resolve_all_s']:.2f}x   (goal, issue 17: <= 1.5x); CPU seconds: "
          f"{many[-1]['resolve_all_cpu_s'] / many[0]['resolve_all_cpu_s']:.2f}x")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
