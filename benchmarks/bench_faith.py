"""Faith - Wild Gods: a whole 4-god game played by the bots through the engine (each god's
submission per phase, resolved as a GM resolves it); prints the phases resolved per second
and the deadlines per era (issue 16's goal for 4 gods in compact pace: a mean of at most 5 an era
over a whole bot game with contests), the contests and answer rounds the game met, and the first
8 eras as a GM would run them at 2 deadlines a week: how many weeks, and how often a player was
asked with nothing to decide (at most one legal order: the goal is never)."""

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


MET = {"strike": "Direct Attacks", "judgement": "Divine Judgements", "jihad_declared": "Jihads",
       "duel": "hero duels", "limbo": "sentences to limbo", "battle_declared": "battles waiting for answers",
       "trade": "trades", "covenant": "covenants", "found": "beliefs founded"}


def main(n: int = 4, seed: str = "bench") -> None:
    rules = get_rules("faith")
    players = ["ann", "bob", "cat", "dan", "eve", "fay", "gus"][:n]
    state, _ = engine.start(rules, players, {}, seed)
    deadlines: Counter = Counter()
    met: Counter = Counter()
    idle_asks = 0   # first 8 eras: a player asked whose only legal order is done/none/pass
    phases = 0
    bots = 0.0
    t0 = time.perf_counter()
    while not state["flow"]["over"]:
        era = state["game"]["era"]
        deadlines[era] += 1
        if era <= 8:
            idle_asks += sum(1 for p in engine.active_players(rules, state)
                             if len(rules.legal_orders(state, p)) <= 1)
        tb = time.perf_counter()
        scripts = {p: read_script("\n".join(bot_script(rules, state, p, random.Random(f"{seed}/{phases}/{p}"))))
                   for p in engine.active_players(rules, state)}
        bots += time.perf_counter() - tb
        result = engine.resolve(rules, state, scripts, seed)
        state = result.state
        met.update(e["type"] for e in result.events if e["type"] in MET)
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
    print("faith: met in the game: " + ", ".join(f"{MET[k]} {met[k]}" for k in MET))
    first8 = sum(deadlines[e] for e in eras if e <= 8)
    print(f"faith: eras 1-8: {first8} deadlines = {first8 / 2:.1f} weeks at 2 deadlines a week; "
          f"a player asked with nothing to decide: {idle_asks} times (goal: never)")
    print(f"faith: outcome: {state['flow']['outcome']['reason']}")


if __name__ == "__main__":
    main()
