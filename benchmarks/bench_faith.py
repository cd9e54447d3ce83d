"""Faith - Wild Gods: a whole 4-god game played by the bots through the engine (each god's
submission per phase, resolved as a GM resolves it); prints the phases resolved per second
and the deadlines per era (issue 16's goal for 4 gods in compact pace: a mean of at most 5 an era with contests)."""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.registry import get_rules
from pbem.host.service import bot_script


def main(n: int = 4, seed: str = "bench") -> None:
    rules = get_rules("faith")
    players = ["ann", "bob", "cat", "dan", "eve", "fay", "gus"][:n]
    state, _ = engine.start(rules, players, {}, seed)
    deadlines: Counter = Counter()
    phases = 0
    bots = 0.0
    t0 = time.perf_counter()
    while not state["flow"]["over"]:
        era = state["game"]["era"]
        deadlines[era] += 1
        tb = time.perf_counter()
        scripts = {p: read_script("\n".join(bot_script(rules, state, p, random.Random(f"{seed}/{phases}/{p}"))))
                   for p in engine.active_players(rules, state)}
        bots += time.perf_counter() - tb
        state = engine.resolve(rules, state, scripts, seed).state
        phases += 1
    total = time.perf_counter() - t0
    resolving = total - bots
    eras = sorted(deadlines)
    per_era = [deadlines[e] for e in eras if e > 1]
    print(f"faith: {n} gods, {len(eras)} eras, {phases} phases (deadlines) in {total:.1f}s "
          f"({resolving:.1f}s resolving, {bots:.1f}s the bots' scripts)")
    print(f"faith: {phases / resolving:.1f} phases resolved per second")
    print(f"faith: deadlines per era: era 1 {deadlines[1]} (with the set-up), eras 2-30 "
          f"mean {sum(per_era) / len(per_era):.2f}, max {max(per_era)} (goal: a mean of at most 5; a Jihad adds 1 in its era and 1 in the next)")
    print(f"faith: outcome: {state['flow']['outcome']['reason']}")


if __name__ == "__main__":
    main()
