"""Ye Gods!: end-of-round housekeeping -- (a) heretics take worshippers from the leaders in
their province, (b) provinces change hands by the worshippers there and donatives are paid
for the provinces owned; then gods left with no worshippers pass into myth. (Whether a god
has won is the Rules class's outcome: rules.py.)

Plain functions over the game state `g` and the static `World` `w`.
"""

from __future__ import annotations

from pbem.core.engine import Event

from .board import in_play, kill, owned, recount, total
from .world import World


def end_of_round(w: World, g: dict) -> list[Event]:
    """The housekeeping at the end of a round, before anyone may have won."""
    events: list[Event] = [{"type": "housekeeping", "round": g["round"]}]
    # a) heretics take 2 worshippers from the leader(s) in their province
    take = int(w.rules["heretic_takes"])
    for p in w.provinces:
        for _ in range(g["heretics"].get(p, 0)):
            cell = g["board"].get(p, {})
            best = max(cell.values(), default=0)
            leaders = sorted((god for god, n in cell.items() if n == best and n > 0), key=w.gods.index)
            losses = {god: kill(g, p, god, take) for god in leaders}
            events.append({"type": "heretic_takes", "at": p, "losses": losses})
    # b) ownership recount, then donatives for provinces owned
    before = dict(g["owner"])
    g["owner"] = recount(w, g)
    changes = [{"at": p, "was": before.get(p), "now": g["owner"][p]} for p in w.provinces
               if before.get(p) != g["owner"][p]]
    events.append({"type": "ownership", "changes": changes,
                   "owned": {god: len(owned(w, g, god)) for god in in_play(g)}})
    income = {}
    for god in [*g["order"], *([g["unknown"]] if g["unknown"] else [])]:
        if god in g["out"]:
            continue
        want = len(owned(w, g, god))
        gain = min(want, g["supply"]["donatives"])
        g["supply"]["donatives"] -= gain
        g["donatives"][god] += gain
        income[god] = gain
    events.append({"type": "income", "gains": income})
    # gods with no worshippers pass into myth
    for god in in_play(g):
        if total(g, god) == 0:
            events += pass_into_myth(g, god)
    return events


def pass_into_myth(g: dict, god: str) -> list[Event]:
    """A god with no worshippers is out: its pieces, cards and donatives go back."""
    g["out"].append(god)
    for p, n in g["priests"][god].items():
        g["supply"]["priests"][god] += n
    g["priests"][god] = {}
    g["supply"]["saints"][god] += len(g["saints"][god])
    g["saints"][god] = []
    g["discard"] += g["hands"][god]
    g["hands"][god] = []
    g["supply"]["donatives"] += g["donatives"][god]
    g["donatives"][god] = 0
    return [{"type": "myth", "god": god, "player": g["player_of"].get(god)}]
