"""Ye Gods!: the pieces on the board and who owns what by them -- worshippers (taken from and
returned to the pool), priests and saints, province ownership by the most worshippers, and
the gods still in play.

Plain functions over the game state `g` (and the static `World` `w` where they need it).
"""

from __future__ import annotations

from .world import World


# --- worshippers ------------------------------------------------------------------------
def count(g: dict, place: str, god: str) -> int:
    return g["board"].get(place, {}).get(god, 0)


def put(g: dict, place: str, god: str, n: int) -> None:
    cell = g["board"].setdefault(place, {})
    cell[god] = cell.get(god, 0) + n
    if cell[god] <= 0:
        del cell[god]


def create(g: dict, place: str, god: str, n: int) -> int:
    """Take up to n worshippers from the pool into `place` for `god`; returns how many."""
    n = max(0, min(n, g["supply"]["worshippers"]))
    if n:
        g["supply"]["worshippers"] -= n
        put(g, place, god, n)
    return n


def kill(g: dict, place: str, god: str, n: int) -> int:
    """Remove up to n of god's worshippers in place back to the pool; returns how many."""
    n = max(0, min(n, count(g, place, god)))
    if n:
        put(g, place, god, -n)
        g["supply"]["worshippers"] += n
    return n


def total(g: dict, god: str) -> int:
    return sum(cell.get(god, 0) for cell in g["board"].values())


# --- ownership ----------------------------------------------------------------------------
def owned(w: World, g: dict, god: str) -> list[str]:
    return [p for p in w.provinces if g["owner"].get(p) == god]


def best_owned(w: World, g: dict, god: str) -> str | None:
    """The province god owns with the most of its worshippers (the first such, by the map)."""
    mine = owned(w, g, god)
    return max(mine, key=lambda p: (count(g, p, god), -w.provinces.index(p))) if mine else None


def recount(w: World, g: dict) -> dict[str, str | None]:
    """Who owns each province by the worshippers there now (ties and empty: nobody)."""
    out = {}
    for p in w.provinces:
        cell = g["board"].get(p, {})
        best = max(cell.values(), default=0)
        leaders = [god for god, n in cell.items() if n == best and n > 0]
        out[p] = leaders[0] if len(leaders) == 1 else None
    return out


# --- priests and saints -------------------------------------------------------------------
def priests_at(g: dict, god: str, place: str) -> int:
    return g["priests"].get(god, {}).get(place, 0)


def priests_on_board(g: dict, god: str) -> int:
    return sum(g["priests"].get(god, {}).values())


def saints_at(g: dict, god: str, place: str) -> int:
    return sum(1 for s in g["saints"].get(god, []) if s["at"] == place)


def place_priest(g: dict, god: str, prov: str) -> None:
    g["supply"]["priests"][god] -= 1
    g["priests"][god][prov] = g["priests"][god].get(prov, 0) + 1


def remove_priest(g: dict, god: str, place: str) -> None:
    here = g["priests"][god]
    here[place] -= 1
    if here[place] <= 0:
        del here[place]
    g["supply"]["priests"][god] += 1
    moved = g["turn"].get("moved_priests", {}) if g["turn"].get("god") == god else {}
    if moved.get(place, 0) > here.get(place, 0):
        moved[place] = here.get(place, 0)


def remove_saint(g: dict, god: str, place: str) -> None:
    # CHOICE: of several saints in one place, the one that has stayed the shortest goes.
    here = [s for s in g["saints"][god] if s["at"] == place]
    victim = min(here, key=lambda s: (s["turns"], not s["moved"]))
    g["saints"][god].remove(victim)
    g["supply"]["saints"][god] += 1


# --- the gods -----------------------------------------------------------------------------
def in_play(g: dict) -> list[str]:
    return [god for god in g["gods"] if god not in g["out"]]


def who(w: World, g: dict, god: str) -> str:
    player = g["player_of"].get(god)
    return f"{w.god_title[god]} ({player})" if player else f"{w.god_title[god]} (the Unknown God)"
