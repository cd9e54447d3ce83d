"""What population counters become: temples (Build Temple phase), armies and back (Raise
Armies phase), and one more population a hex (Population Growth phase)."""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order

from .board import effect_hexes, geo_of, own, room_left
from .order_cache import OrderCache
from .tables import Tables


# --- Build Temple ----------------------------------------------------------------------
def temple_ok(tab: Tables, g: dict, k: str) -> bool:
    land = g["land"]
    c = land[k]
    return (not c["temple"] and tab.terrain[c["terrain"]]["temples"]
            and not any(n in land and land[n]["temple"] for n in geo_of(g).nbrs[k]))


def temple_orders(tab: Tables, g: dict, player: str) -> list[Order]:
    land = g["land"]
    return [Order(("temple", k), ("temple", k)) for k in own(g, player)
            if land[k]["pop"] >= tab.r["temple_population"] and temple_ok(tab, g, k)]


def build_temple(tab: Tables, g: dict, player: str, k: str) -> list[Event]:
    c = g["land"][k]
    c["pop"] -= tab.r["temple_population"]
    c["temple"] = True
    return [{"type": "temple", "player": player, "at": k}]


# --- Raise Armies ----------------------------------------------------------------------
def raise_allowance(g: dict, p: str) -> dict:
    """At the start of the Raise Armies phase: half the population of each hex may be raised."""
    return {k: g["land"][k]["pop"] // 2 for k in own(g, p) if g["land"][k]["pop"] >= 2}


def raise_limits(g: dict, player: str) -> dict:
    t = g["turn"]
    if t["step"] == "raise":
        return t["raise_left"]
    return {k: g["land"][k]["pop"] // 2 for k in own(g, player)}


def raise_orders(oc: OrderCache, g: dict, player: str) -> list[Order]:
    out = []
    limits = raise_limits(g, player)
    for k in own(g, player):
        top = min(limits.get(k, 0), g["land"][k]["pop"])
        out += oc.series(("raise", k), top, lambda n, k=k: Order(("raise", str(n), k), ("raise", n, k)))
    return out


def disband_orders(oc: OrderCache, g: dict, player: str) -> list[Order]:
    out = []
    for k in own(g, player):
        out += oc.series(("disband", k), g["land"][k]["armies"],
                         lambda n, k=k: Order(("disband", str(n), k), ("disband", n, k)))
    return out


def raise_armies(g: dict, player: str, n: int, k: str) -> list[Event]:
    t = g["turn"]
    c = g["land"][k]
    c["pop"] -= n
    c["armies"] += n
    t["raise_left"][k] = t["raise_left"].get(k, 0) - n
    return [{"type": "raise", "player": player, "at": k, "count": n}]


def disband(g: dict, player: str, n: int, k: str) -> list[Event]:
    c = g["land"][k]
    c["armies"] -= n
    c["pop"] += n
    return [{"type": "disband", "player": player, "at": k, "count": n}]


# --- Population Growth -----------------------------------------------------------------
def grow(tab: Tables, g: dict, p: str) -> list[Event]:
    land = g["land"]
    famine = effect_hexes(g, "famine")
    grown, blocked, full = [], [], []
    for k in own(g, p):
        c = land[k]
        if c["armies"] or c["monsters"] or c["temple"] or not c["pop"]:
            continue
        if k in famine:
            blocked.append(k)
        elif room_left(c, tab.tmax) <= 0:
            full.append(k)
        else:
            c["pop"] += 1
            grown.append(k)
    return [{"type": "growth", "player": p, "hexes": grown, "famine": blocked, "full": full}]


def preview(tab: Tables, g: dict, p: str) -> dict:
    """The position as the Miracle phase may find it: what later-phase orders are offered
    against before the turn gets there. The growth is done; p's own blights, which he rolls
    for at the beginning of the Miracle phase, are taken as gone (each may go on its roll), so
    an order the dice may allow is offered, and judged again when its step comes."""
    pg = dict(g)
    pg["land"] = {k: dict(c) for k, c in g["land"].items()}
    pg["turn"] = dict(g["turn"], step="miracle")
    grow(tab, pg, p)
    for c in pg["land"].values():
        if c["blight"] == p:
            c["blight"] = None
    return pg
