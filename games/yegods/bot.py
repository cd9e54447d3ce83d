"""Ye Gods!: the bot seat's choice among the legal orders (play-outs, tests, autoplay) -- any
god's turn, the Unknown God's included.

A plain function over the state and the static `World` `w`.
"""

from __future__ import annotations

from pbem.core.orders import Order

from .board import count
from .cards import default_choice
from .holywar import war_eligible
from .world import World


def choose_order(w: World, state: dict, legal: list[Order], rng) -> Order:
    """Random, but pushed to make progress so that random play-outs end: answer cards
    sensibly, ordain priests, send priests among rivals for a foothold, spread into free
    provinces, fight Holy Wars with the odds, play cards against rivals."""
    g = state["game"]
    t = g.get("turn") or {}
    god = t.get("god")
    if len(legal) == 1 or state["flow"]["phase"] == "setup":
        return rng.choice(legal)
    if t.get("pending") is not None:
        return default_choice(w, g, god, t["pending"]) if rng.random() < 0.7 else rng.choice(legal)
    by: dict[str, list[Order]] = {}
    for o in legal:
        by.setdefault(o.payload[0], []).append(o)
    owner = g["owner"]
    if "vision" in by:
        return by["vision"][0]
    if "buy_priest" in by and rng.random() < 0.9:
        frontier = [o for o in by["buy_priest"] if o.payload[1] and any(
            owner.get(n) not in (None, god) for n in w.adj[o.payload[1]])]
        return rng.choice(frontier or by["buy_priest"])
    if "buy_card" in by and rng.random() < (0.8 if g["donatives"][god] >= 10 or "buy_priest" not in by else 0.3):
        return by["buy_card"][0]
    plays = by.get("temple", []) + by.get("conversion", [])
    plays += [o for o in by.get("act", []) if o.payload[3] not in (god, None) or o.payload[2] == "heretic"]
    if plays and rng.random() < 0.8:
        return rng.choice(plays)
    if t.get("step", 1) <= 3:
        # priests walk into rivals' provinces to make worshippers there (a foothold for Holy Wars)
        priests = [o for o in by.get("move_p", []) if owner.get(o.payload[2]) not in (None, god)
                   and count(g, o.payload[2], god) == 0]
        if priests and rng.random() < 0.6:
            return rng.choice(priests)
        moves = by.get("move_w", [])
        most: dict[str, int] = {}
        for o in moves:
            most[o.payload[2]] = max(most.get(o.payload[2], 0), o.payload[1])
        free = [o for o in moves if owner.get(o.payload[3]) is None and o.payload[1] == most[o.payload[2]]]
        if free and rng.random() < 0.8:
            return rng.choice(free)

        def front(p: str) -> bool:  # a province from which god can attack a rival's
            return any(owner.get(n) not in (None, god) and count(g, n, god) > 0 for n in w.padj[p])
        massing = [o for o in moves if o.payload[1] == most[o.payload[2]] and front(o.payload[3])
                   and not front(o.payload[2])]
        if massing and rng.random() < 0.7:
            return rng.choice(massing)
        saints = [o for o in by.get("move_s", []) if o.payload[2] in w.deserts]
        if saints and rng.random() < 0.5:
            return rng.choice(saints)
    wars = []
    for o in by.get("holywar", []):
        if o.payload[3] != o.payload[1] or (o.payload[4] is not None and rng.random() < 0.95):
            continue
        src, dst = o.payload[1], o.payload[2]
        mine = war_eligible(g, t, god, src) + count(g, dst, god)
        if mine + 1 >= count(g, dst, owner[dst]):
            wars.append(o)
    if wars and rng.random() < 0.95:
        return rng.choice(wars)
    return by["done"][0]
