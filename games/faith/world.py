"""The world of Faith: the map read from data.toml and checked, and the board's bookkeeping
(population, units, hands, the Soul Bank ledger, caps, the special units' blessing).

A hex in the state: ``{"t": terrain now, "pop": {owner: [pacified, unrest]}}`` where the
terrain is fertile (green), standard, rough (brown) or seaway, and an owner is a belief id
or ``"infidel"``. A unit: ``{"k": kind, "o": owner, "h": hex, "b": broken, ...}`` keyed by
its id (``"u7"``). Hands: ``{player: {belief: chips}}``. The Soul Bank is a ledger per owner
(data.toml, CHOICE 1): every chip that enters or leaves the board or a hand passes through it.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from pbem.core.errors import DataError

INFIDEL = "infidel"
TERRAIN = {"fertile", "standard", "rough", "seaway", "sea"}
CODES = {".": "standard", "^": "rough", "w": "seaway", "~": "sea"}
# axial neighbour directions in the chart's order: east, south-east, south-west, west,
# north-west, north-east (pointy-top hexes)
DIRECTIONS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
ROWS = "abcdefghijklmnopqrstuvwxyz"


@dataclass
class Hex:
    id: str
    name: str
    q: int
    r: int
    col: int
    row: int
    printed: str   # fertile | standard | rough | seaway | sea
    ndp: bool


@dataclass
class World:
    hexes: dict[str, Hex]
    nbrs: dict[str, list[str]]          # in the chart's direction order (missing ones left out)
    dirs: dict[str, list[str | None]]   # the six directions, None off the map
    order: list[str] = field(default_factory=list)  # every hex, by row then column

    def land(self) -> list[str]:
        return [h for h in self.order if self.hexes[h].printed != "sea"]


def build_world(data: dict) -> World:
    """Read the drawn rows of [map] and check them (CHOICE 8)."""
    rows = data["map"]["rows"]
    names = data["map"].get("names", {})
    hexes: dict[str, Hex] = {}
    at: dict[tuple[int, int], str] = {}
    order = []
    width = None
    for row, text in enumerate(rows):
        cells = text.split()
        if width is None:
            width = len(cells)
        if len(cells) != width:
            raise DataError(f"faith map: row {row + 1} has {len(cells)} hexes, the first has {width}")
        for col, cell in enumerate(cells):
            ndp = cell.endswith("*")
            code = cell.rstrip("*")
            if code.isascii() and code.isdigit():
                if len(code) != 2 or not all(c in "123456" for c in code):
                    raise DataError(f"faith map: fertile hex number {code!r} is not two digits 1-6")
                hid, printed = code, "fertile"
            elif code in CODES:
                hid, printed = f"{ROWS[row]}{col}", CODES[code]
            else:
                raise DataError(f"faith map: unknown hex code {cell!r} in row {row + 1}")
            if printed == "sea" and ndp:
                raise DataError(f"faith map: sea hex {hid} cannot be a defensive position")
            if hid in hexes:
                raise DataError(f"faith map: hex id {hid} appears twice")
            q, r = col - (row - (row & 1)) // 2, row
            hexes[hid] = Hex(hid, names.get(hid, ""), q, r, col, row, printed, ndp)
            at[(q, r)] = hid
            order.append(hid)
    numbers = sorted(h for h, x in hexes.items() if x.printed == "fertile")
    wanted = sorted(f"{a}{b}" for a in range(1, 7) for b in range(1, 7))
    if numbers != wanted:
        raise DataError(f"faith map: the fertile hexes must be numbered 11..66 with digits 1-6 once each; "
                        f"missing {sorted(set(wanted) - set(numbers))}, extra {sorted(set(numbers) - set(wanted))}")
    if names.get("33") != "Spain":
        raise DataError("faith map: hex 33 must be Spain (\"if a 3-3 is rolled ... placed in Spain\")")
    for k in names:
        if k not in hexes:
            raise DataError(f"faith map: a name is given for hex {k}, which is not on the map")
    dirs: dict[str, list[str | None]] = {}
    nbrs: dict[str, list[str]] = {}
    for hid, h in hexes.items():
        dirs[hid] = [at.get((h.q + dq, h.r + dr)) for dq, dr in DIRECTIONS]
        nbrs[hid] = [n for n in dirs[hid] if n is not None]
    for a, ns in nbrs.items():
        for b in ns:
            if a not in nbrs[b]:
                raise DataError(f"faith map: {a} is next to {b} but not {b} to {a}")
    world = World(hexes, nbrs, dirs, order)
    land = world.land()
    seen = {land[0]}
    todo = [land[0]]
    while todo:
        x = todo.pop()
        for n in nbrs[x]:
            if n not in seen and hexes[n].printed != "sea":
                seen.add(n)
                todo.append(n)
    if len(seen) != len(land):
        raise DataError(f"faith map: not every hex is reachable by land or seaway: {sorted(set(land) - seen)}")
    return world


# --- population ----------------------------------------------------------------------------

def pop_of(g: dict, hid: str, owner: str) -> list[int]:
    return g["hexes"][hid]["pop"].get(owner, [0, 0])


def pacified(g: dict, hid: str, owner: str) -> int:
    return pop_of(g, hid, owner)[0]


def total_pop(g: dict, hid: str) -> int:
    return sum(p + u for p, u in g["hexes"][hid]["pop"].values())


def add_pop(g: dict, hid: str, owner: str, pac: int = 0, unr: int = 0) -> None:
    pop = g["hexes"][hid]["pop"]
    cur = pop.get(owner, [0, 0])
    new = [cur[0] + pac, cur[1] + unr]
    if new[0] < 0 or new[1] < 0:
        raise ValueError(f"negative population of {owner} at {hid}")
    if new == [0, 0]:
        pop.pop(owner, None)
    else:
        pop[owner] = new


def bank(g: dict, owner: str, n: int) -> None:
    """n chips of `owner` go into the Soul Bank (n < 0: come out of it)."""
    g["bank"][owner] = g["bank"].get(owner, 0) + n


def remove_pop(g: dict, hid: str, owner: str, n: int, unrest_first: bool = True) -> tuple[int, int]:
    """Take n chips of `owner` off hex `hid` (unrest first by default); returns (pacified, unrest)
    taken. The caller decides where they go."""
    p, u = pop_of(g, hid, owner)
    if n > p + u:
        raise ValueError(f"only {p + u} chips of {owner} at {hid}")
    if unrest_first:
        tu = min(u, n)
        tp = n - tu
    else:
        tp = min(p, n)
        tu = n - tp
    add_pop(g, hid, owner, -tp, -tu)
    return tp, tu


def unrest_all(g: dict, hid: str) -> None:
    pop = g["hexes"][hid]["pop"]
    for owner, (p, u) in list(pop.items()):
        pop[owner] = [0, p + u]


def pacify_all(g: dict, hid: str, owner: str | None = None) -> None:
    pop = g["hexes"][hid]["pop"]
    for o, (p, u) in list(pop.items()):
        if owner is None or o == owner:
            pop[o] = [p + u, 0]


# --- hands ---------------------------------------------------------------------------------

def hand_total(g: dict, player: str) -> int:
    return sum(g["hands"][player].values())


def to_hand(g: dict, player: str, belief: str, n: int) -> None:
    h = g["hands"][player]
    h[belief] = h.get(belief, 0) + n
    if h[belief] == 0:
        del h[belief]
    elif h[belief] < 0:
        raise ValueError(f"{player}'s hand would hold {h[belief]} {belief}")


# --- units ---------------------------------------------------------------------------------

# While a position is only read (FaithRules.legal_orders: the engine asks every god's legal
# orders after every step), its units are indexed by hex once instead of scanned per query.
# The index lives outside the state, keyed by the identity of the units dict, and only for
# the length of the read.
_BY_HEX: dict[int, dict[str, list[str]]] = {}


@contextmanager
def reading(g: dict):
    """Index `g`'s units by hex for a read-only stretch (nothing may change g meanwhile)."""
    key = id(g["units"])
    if key in _BY_HEX:
        yield
        return
    idx: dict[str, list[str]] = {}
    for u, x in g["units"].items():
        idx.setdefault(x["h"], []).append(u)
    for found in idx.values():
        if len(found) > 1:
            found.sort(key=lambda u: int(u[1:]))
    _BY_HEX[key] = idx
    try:
        yield
    finally:
        del _BY_HEX[key]


def units_at(g: dict, hid: str, owner: str | None = None, kind: str | None = None) -> list[str]:
    units = g["units"]
    idx = _BY_HEX.get(id(units)) if _BY_HEX else None
    if idx is not None:
        return [u for u in idx.get(hid, ())
                if (owner is None or units[u]["o"] == owner) and (kind is None or units[u]["k"] == kind)]
    found = [u for u, x in units.items()
             if x["h"] == hid and (owner is None or x["o"] == owner) and (kind is None or x["k"] == kind)]
    if len(found) > 1:
        found.sort(key=lambda u: int(u[1:]))
    return found


def new_unit(g: dict, kind: str, owner: str, hid: str) -> str:
    uid = f"u{g['next_uid']}"
    g["next_uid"] += 1
    g["units"][uid] = {"k": kind, "o": owner, "h": hid, "b": False, "moved": 0, "fought": 0, "slew": 0, "conv": 0}
    return uid


def count_units(g: dict, owner: str, kind: str) -> int:
    return sum(1 for x in g["units"].values() if x["o"] == owner and x["k"] == kind)


def owners_at(g: dict, hid: str) -> set[str]:
    """Every owner with population or a unit (a fortification too) at `hid`."""
    return set(g["hexes"][hid]["pop"]) | {g["units"][u]["o"] for u in units_at(g, hid)}


def remove_units(g: dict, beliefs: list[str]) -> int:
    """A belief leaves the game (destroyed, dead by a failed claim, raptured): its units and
    special units are removed, its fortifications stay (L346, L635; CHOICE 82). Returns how
    many were removed."""
    gone = [u for u, y in g["units"].items() if y["o"] in beliefs and y["k"] != "fortification"]
    for u in gone:
        del g["units"][u]
    return len(gone)


def has_fort(g: dict, hid: str) -> bool:
    if _BY_HEX and id(g["units"]) in _BY_HEX:
        return bool(units_at(g, hid, kind="fortification"))
    return any(x["h"] == hid and x["k"] == "fortification" for x in g["units"].values())


def bless(g: dict, tab, hid: str) -> list[str]:
    """CHOICE 31: a Prophet, High Priest or Hero keeps its own belief's population in its hex
    pacified and its military units ready. Returns the owners blessed."""
    blessed = sorted({x["o"] for x in g["units"].values() if x["h"] == hid and tab.units[x["k"]].get("blesses")})
    for o in blessed:
        bless_for(g, hid, o)
    return blessed


def bless_for(g: dict, hid: str, owner: str) -> None:
    """`owner`'s population at `hid` pacified, its units there ready (a Prophet, High Priest
    or Hero of `owner` is there, or passes through)."""
    pacify_all(g, hid, owner)
    for x in g["units"].values():
        if x["h"] == hid and x["o"] == owner and x["b"]:
            x["b"] = False


def bless_everywhere(g: dict, tab) -> None:
    for hid in sorted({x["h"] for x in g["units"].values() if tab.units[x["k"]].get("blesses")}):
        bless(g, tab, hid)
