"""Counters on the move: the Movement phase (population and armies one hex; what arrived
this turn stays) and Godspeed (counters carried up to three hexes)."""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order

from .board import fix, geo_of, land_keys, own, room_left
from .order_cache import OrderCache
from .tables import Tables


# --- Movement phase --------------------------------------------------------------------
def move_orders(tab: Tables, oc: OrderCache, g: dict, player: str) -> list[Order]:
    land = g["land"]
    geo = geo_of(g)
    arrived = g["turn"]["arrived"]
    out: list[Order] = []
    first: list[Order] = []  # every counter free to go, for each pair of hexes
    for src in own(g, player):
        c = land[src]
        came = arrived.get(src, {})
        mp = c["pop"] - came.get("pop", 0)
        ma = c["armies"] - came.get("armies", 0)
        if mp <= 0 and ma <= 0:
            continue
        for dst in geo.nbrs[src]:
            d = land.get(dst)
            if not d or d["blight"] or d["owner"] not in (None, player):
                continue
            room = room_left(d, tab.tmax)
            for kind, most in (("pop", mp), ("armies", ma)):
                if most > 0 and room > 0:
                    lst = oc.series(("move", kind, src, dst), min(most, room),
                                    lambda n, kind=kind, src=src, dst=dst:
                                    Order(("move", str(n), kind, src, "->", dst), ("move", n, kind, src, dst)))
                    first.append(lst[-1])
                    out += lst[:-1]
    return first + out


def move(g: dict, player: str, n: int, what: str, src: str, dst: str) -> list[Event]:
    land = g["land"]
    land[src][what] -= n
    land[dst][what] += n
    land[dst]["owner"] = player
    fix(land[src])
    came = g["turn"]["arrived"].setdefault(dst, {"pop": 0, "armies": 0})
    came[what] += n
    return [{"type": "move", "player": player, "count": n, "what": what, "from": src, "dest": dst}]


# --- Godspeed --------------------------------------------------------------------------
def godspeed_dests(tab: Tables, g: dict, player: str, src: str) -> list[str]:
    land = g["land"]
    rng_ = tab.r["godspeed_range"]
    near = geo_of(g).dist[src]
    return [k for k in land_keys(g) if k != src and near[k] <= rng_
            and not land[k]["blight"] and land[k]["owner"] in (None, player) and room_left(land[k], tab.tmax) > 0]


def carry_orders(tab: Tables, g: dict, pend: dict) -> list[Order]:
    land = g["land"]
    s, d = land[pend["src"]], land[pend["dest"]]
    room = room_left(d, tab.tmax)
    out = []
    for p in range(s["pop"] + 1):
        for a in range(s["armies"] + 1):
            if 0 < p + a <= room:
                opt = set()
                if p == 0:
                    opt |= {1, 2}
                if a == 0:
                    opt |= {3, 4}
                out.append(Order(("carry", str(p), "pop", str(a), "armies"), ("carry", p, a), frozenset(opt)))
    if 0 < s["pop"] + s["armies"] <= room:
        out.append(Order(("carry", "all"), ("carry", s["pop"], s["armies"])))
    return out


def carry(g: dict, player: str, pop: int, armies: int) -> list[Event]:
    pend = g["turn"]["pending"]
    land = g["land"]
    s, d = land[pend["src"]], land[pend["dest"]]
    s["pop"] -= pop
    s["armies"] -= armies
    d["pop"] += pop
    d["armies"] += armies
    d["owner"] = player
    fix(s)
    g["turn"]["pending"] = None
    return [{"type": "godspeed", "player": player, "from": pend["src"], "dest": pend["dest"], "pop": pop, "armies": armies}]
