"""The board: the hex map's geometry and the counters in its cells -- what every phase
shares: counting counters, the room under a terrain's maximum, destroying counters (in the
order of battle) and the record of what was destroyed this turn (for Resurrection)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pbem.core.engine import Event
from pbem.core.hexgrid import distance, key, neighbours, parse_key

FIELDS = ("armies", "monsters", "pop")


@dataclass(frozen=True)
class Geo:
    size: int
    cells: tuple          # every hex of the map, in reading order (r, then q)
    onmap: frozenset
    nbrs: dict            # hex -> its neighbours on the map
    rank: dict            # hex -> reading-order index
    pos: dict             # hex -> (q, r)
    dist: dict            # hex -> hex -> distance in hexes


@lru_cache(maxsize=None)
def geometry(size: int) -> Geo:
    cells = tuple(key(c - r // 2, r) for r in range(size) for c in range(size))
    onmap = frozenset(cells)
    nbrs = {k: tuple(key(*n) for n in neighbours(*parse_key(k)) if key(*n) in onmap) for k in cells}
    pos = {k: parse_key(k) for k in cells}
    dist = {a: {b: distance(pos[a], pos[b]) for b in cells} for a in cells}
    return Geo(size, cells, onmap, nbrs, {k: i for i, k in enumerate(cells)}, pos, dist)


def geo_of(g: dict) -> Geo:
    return geometry(g["size"])


def hex_dist(g: dict, a: str, b: str) -> int:
    return geometry(g["size"]).dist[a][b]


# --- cells -----------------------------------------------------------------------------
def blank_cell(terrain: str) -> dict:
    return {"terrain": terrain, "owner": None, "pop": 0, "armies": 0, "monsters": 0, "temple": False, "blight": None}


def total(c: dict) -> int:
    return c["pop"] + c["armies"] + c["monsters"] + (1 if c["temple"] else 0)


def none_lost() -> dict:
    return {"armies": 0, "monsters": 0, "pop": 0, "temple": 0}


def room_left(c: dict, tmax: dict) -> int:
    return tmax[c["terrain"]] - total(c)


def fix(c: dict) -> None:
    if total(c) == 0:
        c["owner"] = None


def land_keys(g: dict) -> list[str]:
    land = g["land"]
    return [k for k in geo_of(g).cells if k in land]


def own(g: dict, p: str) -> list[str]:
    land = g["land"]
    return [k for k in geo_of(g).cells if k in land and land[k]["owner"] == p]


def coastal(g: dict, k: str) -> bool:
    land = g["land"]
    return k in land and any(n not in land for n in geo_of(g).nbrs[k])


def effect_hexes(g: dict, card: str) -> set:
    return {h for e in g["effects"] if e["card"] == card for h in e["hexes"]}


def temples(g: dict, p: str) -> int:
    return sum(1 for c in g["land"].values() if c["owner"] == p and c["temple"])


# --- destruction and limits ------------------------------------------------------------
def record(g: dict, k: str, owner: str, lost: dict) -> None:
    if owner is None or not any(lost.values()):
        return
    rec = g["turn"]["destroyed"].setdefault(k, {}).setdefault(owner, none_lost())
    for f, v in lost.items():
        rec[f] += v


def destroy(g: dict, k: str, n: int, cause: str, fields=FIELDS, temple: bool = True) -> list[Event]:
    """Destroy up to n counters at k: armies, then monsters, then population, then the
    temple (the order of battle)."""
    c = g["land"][k]
    owner = c["owner"]
    lost = none_lost()
    for f in fields:
        x = min(n, c[f])
        c[f] -= x
        lost[f] += x
        n -= x
    if n > 0 and temple and c["temple"]:
        c["temple"] = False
        lost["temple"] = 1
    record(g, k, owner, lost)
    fix(c)
    return [{"type": "destroy", "at": k, "owner": owner, "cause": cause, **lost}]


def cap(g: dict, k: str, cause: str, tmax: dict) -> list[Event]:
    """Discard the counters over the terrain maximum at k: population, then armies, then monsters."""
    c = g["land"][k]
    excess = total(c) - tmax[c["terrain"]]
    if excess <= 0:
        return []
    out = {}
    for f in ("pop", "armies", "monsters"):
        x = min(excess, c[f])
        c[f] -= x
        out[f] = x
        excess -= x
    fix(c)
    return [{"type": "over_limit", "at": k, "cause": cause, "max": tmax[c["terrain"]], **out}]
