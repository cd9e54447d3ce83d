"""The world before the first turn: world building (the terrain counters drawn and placed,
by the engine from the game seed or by the players, one a turn) and the set-up of the
starting populations (the 4D6 rolls, the `start` choices served in seat order under the
6-space rule)."""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .board import blank_cell, geo_of, hex_dist, land_keys, total
from .order_cache import OrderCache
from .tables import Tables


# --- world building --------------------------------------------------------------------
def spots(tab: Tables, g: dict, terrain: str) -> list[str]:
    """The hexes where a drawn counter may go: next to a placed counter (the first
    anywhere), never covering the last water side of a river valley, and a river valley
    only with a water side of its own."""
    geo = geo_of(g)
    land = g["land"]
    if not land:
        cands = list(geo.cells)
    else:
        near = {n for k in land for n in geo.nbrs[k] if n not in land}
        cands = [k for k in geo.cells if k in near]
    out = []
    for k in cands:
        if terrain in tab.keep_water and not any(n not in land for n in geo.nbrs[k]):
            continue
        if any(n in land and land[n]["terrain"] in tab.keep_water
               and not any(m not in land and m != k for m in geo.nbrs[n]) for n in geo.nbrs[k]):
            continue
        out.append(k)
    return out


def terrain_counts(tab: Tables, g: dict) -> dict:
    out = {t: 0 for t in tab.terrain}
    for c in g["land"].values():
        out[c["terrain"]] += 1
    return out


def build_random(tab: Tables, g: dict, rng: Rng) -> list[Event]:
    """The engine builds the whole world: each counter of the pile at a random legal spot
    (a counter with none is set aside into the reserve)."""
    set_aside = []
    while g["pile"]:
        t = g["pile"].pop(0)
        hexes = spots(tab, g, t)
        if not hexes:
            g["reserve"].append(t)
            set_aside.append(t)
            continue
        g["land"][hexes[rng.randbelow(len(hexes))]] = blank_cell(t)
        g["world"]["placed"] += 1
    return [{"type": "world_built", "land": len(g["land"]), "set_aside": set_aside,
             "counts": terrain_counts(tab, g)}]


def draw_counter(tab: Tables, g: dict, player: str) -> list[Event]:
    """Draw the next counter that can be placed for `player` (the world's `drawn`); when the
    pile is out, `drawn` is None and the world is built."""
    w = g["world"]
    events: list[Event] = []
    while g["pile"]:
        t = g["pile"].pop(0)
        if spots(tab, g, t):
            w["drawn"], w["placer"] = t, player
            events.append({"type": "world_draw", "player": player, "terrain": t, "pile": len(g["pile"])})
            return events
        g["reserve"].append(t)
        events.append({"type": "world_set_aside", "player": player, "terrain": t})
    w["drawn"] = w["placer"] = None
    events.append({"type": "world_built", "land": len(g["land"]), "set_aside": [], "counts": terrain_counts(tab, g)})
    return events


def redraw(g: dict, player: str) -> list[Event]:
    """The drawn counter goes back under the pile (a redraw used)."""
    w = g["world"]
    old = w["drawn"]
    g["pile"].append(old)
    w["redraws"][player] -= 1
    return [{"type": "world_redraw", "player": player, "terrain": old, "left": w["redraws"][player]}]


def put(g: dict, player: str, k: str) -> list[Event]:
    w = g["world"]
    t = w["drawn"]
    g["land"][k] = blank_cell(t)
    w["placed"] += 1
    w["drawn"] = None
    return [{"type": "world_place", "player": player, "terrain": t, "at": k, "placed": w["placed"]}]


def next_placer(g: dict, player: str) -> str:
    order_ = g["order"]
    return order_[(order_.index(player) + 1) % len(order_)]


def place_orders(tab: Tables, oc: OrderCache, g: dict) -> list[Order]:
    t = g["world"]["drawn"]
    return [oc.cached(("put", k), ("put", k)) for k in spots(tab, g, t)] if t else []


def redraw_orders(g: dict, player: str) -> list[Order]:
    if g["world"]["redraws"][player] > 0 and g["pile"]:
        return [Order(("redraw",), ("redraw",))]
    return []


def central_spot(tab: Tables, g: dict) -> str:
    """Where a player who gives no order puts the drawn counter: the spot nearest the middle."""
    hexes = spots(tab, g, g["world"]["drawn"])
    geo = geo_of(g)
    mid = geo.cells[(geo.size // 2) * geo.size + geo.size // 2]
    return min(hexes, key=lambda s: (hex_dist(g, s, mid), geo.rank[s]))


# --- set-up of the starting population -------------------------------------------------
def roll_starts(tab: Tables, g: dict, rng: Rng) -> list[Event]:
    events: list[Event] = []
    for p in g["order"]:
        dice = rng.dice(tab.r["start_dice"])
        g["start_pop"][p] = sum(dice)
        events.append({"type": "start_roll", "player": p, "dice": dice, "total": sum(dice)})
    return events


def start_orders(oc: OrderCache, g: dict, player: str) -> list[Order]:
    """`start` orders: every free plains hex not yet on the player's list. The spacing is
    checked when the choices are served, in seat order, once everybody has chosen."""
    land = g["land"]
    chosen = set(g["start_choices"][player])
    return [oc.cached(("start", k), ("start", k)) for k in land_keys(g)
            if land[k]["terrain"] == "plains" and total(land[k]) == 0 and not land[k]["blight"] and k not in chosen]


def choose_start(g: dict, player: str, k: str) -> list[Event]:
    """A sealed choice: the hex goes on the player's list."""
    g["start_choices"][player].append(k)
    return [{"type": "start_choice", "to": player, "player": player, "at": k,
             "rank": len(g["start_choices"][player])}]


def serve_starts(tab: Tables, g: dict) -> list[Event]:
    """Everybody has chosen: place the starting populations in seat order, each in the
    first hex of the player's list that is legal then (else the farthest plains hex)."""
    events: list[Event] = []
    for p in g["order"]:
        hexes = start_spots(tab, g, p)
        choices = g["start_choices"][p]
        passed = []
        k = None
        for i, want in enumerate(choices):
            if want in hexes:
                k = want
                break
            passed.append(want)
        if k is None:
            k = farthest_start(g, p, hexes)
        c = g["land"][k]
        want_pop = g["start_pop"][p]
        c["pop"] = min(want_pop, tab.tmax[c["terrain"]])
        c["owner"] = p
        events.append({"type": "start_place", "player": p, "at": k, "pop": c["pop"], "discarded": want_pop - c["pop"],
                       "choice": (choices.index(k) + 1) if k in choices else 0, "passed_over": passed})
    return events


def farthest_start(g: dict, player: str, hexes: list[str]) -> str:
    opp = [k for k, c in g["land"].items() if c["owner"] and c["owner"] != player]
    if not opp:
        return hexes[0]
    rank = geo_of(g).rank
    return max(hexes, key=lambda s: (min(hex_dist(g, s, o) for o in opp), -rank[s]))


def start_spots(tab: Tables, g: dict, p: str) -> list[str]:
    land = g["land"]
    plains = [k for k in land_keys(g) if land[k]["terrain"] == "plains" and total(land[k]) == 0
              and not land[k]["blight"]]
    opp = [k for k, c in land.items() if c["owner"] and c["owner"] != p]
    if not opp:
        return plains
    d = {k: min(hex_dist(g, k, o) for o in opp) for k in plains}
    far = [k for k in plains if d[k] > tab.r["start_spacing"]]
    if far:
        return far
    best = max(d.values(), default=None)
    return [k for k in plains if d[k] == best]
