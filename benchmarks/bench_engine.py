"""Benchmarks of the engine and the host (issue 8). Not tests: figures, printed as a table
and written to build/bench/engine.json, each beside the comparison that makes it meaningful.

    python benchmarks/bench_engine.py [--quick]

1. Autoplay throughput for every game module: phases/s and games/s, engine alone and
   through the store.
2. Resolve latency for one phase as history grows (10, 100, 1000 phases).
3. A host of many games, 1% due: `resolve --all` with 10,000 games next to 100 games.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem.core import engine  # noqa: E402
from pbem import host, render  # noqa: E402
from pbem.core.orders import read_script  # noqa: E402
from pbem.core.registry import game_types, get_rules  # noqa: E402
from pbem.host.store import open_db  # noqa: E402

render.install()

PLAYERS = ["p1", "p2", "p3", "p4", "p5", "p6"]


def _players_for(rules) -> list[str]:
    return PLAYERS[: min(3, rules.info.max_players) if rules.info.min_players <= 3 else rules.info.min_players]


def engine_playout(game_type: str, seed: str) -> tuple[int, str]:
    """One random game through the engine alone: the same game `host.autoplay` plays through
    the store for this seed (the same players, bots seeded alike, turn by turn). Returns the
    phases resolved and the final state's hash (so the two paths can be shown to agree)."""
    rules = get_rules(game_type)
    players = _players_for(rules)
    state, _ = engine.start(rules, players, {}, seed)
    phases = 0
    while not state["flow"].get("over") and phases < 5000:
        scripts = {}
        # The bots see the position as host.autoplay's bots do: read back from its stored JSON
        # (keys sorted). A bot picks by its place in the legal list, and some games list orders
        # in the state's key order, so without this the two paths' bots could play differently.
        stored = json.loads(json.dumps(state, sort_keys=True))
        for p in engine.active_players(rules, stored):
            rng = random.Random(f"{seed}/bot/{phases + 1}/{p}")  # as host.autoplay seeds turn N's bots
            scripts[p] = read_script("\n".join(host.bot_script(rules, stored, p, rng)))
        state = engine.resolve(rules, state, scripts, seed).state
        phases += 1
    return phases, engine.state_hash(state)


def bench_phase_cost(quick: bool, game_type: str = "gods") -> dict:
    """The engine's cost of one phase (the bots' scripts and its resolution) late in a game
    next to early in it: the median phase of each game's last quarter over the median of its
    first quarter (the first phase left out: it warms caches), over many random games."""
    rules = get_rules(game_type)
    players = _players_for(rules)
    early: list[float] = []
    late: list[float] = []
    games = 5 if quick else 20
    for seed in range(games):
        state, _ = engine.start(rules, players, {}, str(seed))
        times = []
        while not state["flow"].get("over") and len(times) < 5000:
            t0 = time.perf_counter()
            scripts = {}
            for p in engine.active_players(rules, state):
                rng = random.Random(f"{seed}/bot/{len(times) + 1}/{p}")
                scripts[p] = read_script("\n".join(host.bot_script(rules, state, p, rng)))
            state = engine.resolve(rules, state, scripts, str(seed)).state
            times.append(time.perf_counter() - t0)
        q = max(1, len(times) // 4)
        early += times[1:q + 1]
        late += times[-q:]
    return {"game": game_type, "games": games, "early_ms": statistics.median(early) * 1000,
            "late_ms": statistics.median(late) * 1000, "late_over_early": statistics.median(late) / statistics.median(early)}


def bench_autoplay(quick: bool) -> list[dict]:
    rows = []
    games = 3 if quick else 10
    for game_type in game_types():
        t0 = time.perf_counter()
        plays = [engine_playout(game_type, str(s)) for s in range(games)]
        t_engine = time.perf_counter() - t0
        phases = sum(n for n, _ in plays)
        with tempfile.TemporaryDirectory() as tmp:
            db = open_db(str(Path(tmp) / "b.db"))
            rules = get_rules(game_type)
            t0 = time.perf_counter()
            store_phases = 0
            for s in range(games):
                gid = f"g{s}"
                host.new_game(db, game_type, gid, _players_for(rules), seed=str(s), turns=None)
                store_phases += len([r for r in host.autoplay(db, gid, turns=None) if r.outcome != "waiting"])
            t_store = time.perf_counter() - t0
            same = all(host.current_state(db, f"g{s}") is not None
                       and engine.state_hash(host.current_state(db, f"g{s}")) == plays[s][1] for s in range(games))
        rows.append({
            "game": game_type, "games": games,
            "engine_phases_per_s": phases / t_engine, "engine_games_per_s": games / t_engine,
            "store_phases_per_s": store_phases / t_store, "store_games_per_s": games / t_store,
            "phases_per_game": phases / games,
            "same_games": same,  # both paths ended in the same final state, game for game
            "store_over_engine": t_store / t_engine * (phases / max(store_phases, 1)),  # time per phase, store / engine
        })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--out", default=str(ROOT / "build" / "bench" / "engine.json"))
    args = parser.parse_args()
    results = {"phase_cost": bench_phase_cost(args.quick), "autoplay": bench_autoplay(args.quick)}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    print("Autoplay throughput (random legal play; the same games, engine alone vs through the SQLite store)")
    print(f"  {'game':10} {'phases/game':>11} {'engine ph/s':>12} {'store ph/s':>11} {'engine g/s':>11} {'store g/s':>10}"
          f" {'store/engine':>12} {'same games':>10}")
    for r in results["autoplay"]:
        print(f"  {r['game']:10} {r['phases_per_game']:11.1f} {r['engine_phases_per_s']:12.1f} {r['store_phases_per_s']:11.1f} "
              f"{r['engine_games_per_s']:11.2f} {r['store_games_per_s']:10.2f} {r['store_over_engine']:11.2f}x"
              f" {'yes' if r['same_games'] else 'NO':>10}")
    print("  goal (issue 17): store/engine <= 3x for every game")
    pc = results["phase_cost"]
    print(f"Engine phase cost, {pc['game']} ({pc['games']} games): early {pc['early_ms']:.2f} ms, late {pc['late_ms']:.2f} ms;"
          f" late/early {pc['late_over_early']:.2f}x   (goal, issue 17: <= 1.5x)")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
