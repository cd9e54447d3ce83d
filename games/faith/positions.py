"""Who plays what: beliefs, positions and the players who control them.

A *position* is what takes a turn, bids, wagers and is sent to limbo: a lone belief, or a
covenant of two beliefs acting as one (L360). Its id is a belief id: a covenant's id is its
lead belief, the earlier of the two in the ring (CHOICE 78). A player (a seat) controls 0, 1
or 2 positions and answers for all of them in one submission.

State read here (state["game"]):

* beliefs[b] = {player, level, alive, limbo, limbo_until?, covenant?, colour?} -- `colour`: a
  belief founded in play keeps the one it was given then (CHOICE 180); `covenant` is the
  lead belief's id on both members of a covenant, absent (or None) otherwise;
* ring -- belief ids clockwise; when absent or empty it is derived from `seats`, each
  player's beliefs in the order `beliefs` lists them (a second belief sits just after its
  owner's first, "as if it was sitting to his/her right", L350);
* initiative -- the position holding the initiative.

Every "whose turn", "own", "same faith" and "which level" question of the rules goes
through these functions, so covenants and second beliefs change them in one place.
"""

from __future__ import annotations


def ring(g: dict) -> list[str]:
    """Every belief ever in play, clockwise."""
    r = g.get("ring")
    if r:
        return list(r)
    out: list[str] = []
    for p in g["seats"]:
        out += [b for b, x in g["beliefs"].items() if x["player"] == p]
    return out


def named(tok: str, names) -> list[str]:
    """The names a typed word stands for: the exact name, else every name it begins (names are
    taken by any unique prefix: `odi` for odin, `bo` for bob). One hit is a match."""
    names = list(names)
    return [n for n in names if n == tok] or [n for n in names if n.startswith(tok)]


def lead(g: dict, b: str) -> str:
    """The position a belief belongs to (the spec's `faction`): itself, or its covenant's lead."""
    x = g["beliefs"].get(b)
    return (x.get("covenant") or b) if x else b


def members(g: dict, pos: str) -> list[str]:
    """The beliefs of a position, the lead first."""
    return [pos] + [b for b in ring(g) if b != pos and g["beliefs"][b].get("covenant") == pos]


def beliefs_of(g: dict, player: str) -> list[str]:
    """The living beliefs a player controls (both members of a covenant), her positions clockwise."""
    return [b for pos in positions_of(g, player) for b in members(g, pos)]


def alive(g: dict, pos: str) -> bool:
    x = g["beliefs"].get(pos)
    return bool(x and x["alive"])


def positions(g: dict) -> list[str]:
    """The living positions, clockwise (in limbo or not)."""
    return [b for b in ring(g) if g["beliefs"][b]["alive"] and lead(g, b) == b]


def controller(g: dict, pos: str) -> str:
    return g["beliefs"][pos]["player"]


def positions_of(g: dict, player: str) -> list[str]:
    """The living positions a player controls, clockwise."""
    return [b for b in positions(g) if g["beliefs"][b]["player"] == player]


def primary(g: dict, player: str) -> str | None:
    """A player's first living position, or None."""
    own = positions_of(g, player)
    return own[0] if own else None


def level(g: dict, pos: str) -> int:
    """A covenant is "considered the level of the lowest merged" (L360)."""
    return min(g["beliefs"][b]["level"] for b in members(g, pos))


def in_limbo(g: dict, pos: str) -> bool:
    return bool(g["beliefs"][pos]["limbo"])


def turn_order(g: dict) -> list[str]:
    """The initiative holder's position, then clockwise; living and not in limbo (L322)."""
    every = positions(g)
    if not every:
        return []
    holder = lead(g, g["initiative"]) if g.get("initiative") else every[0]
    r = ring(g)
    if holder not in every:
        # the holder died or left: the next living position clockwise after its place
        i = r.index(holder) if holder in r else -1
        nxt = [b for b in r[i + 1:] + r[:i + 1] if b in every]
        holder = nxt[0] if nxt else every[0]
    i = every.index(holder)
    return [b for b in every[i:] + every[:i] if not in_limbo(g, b)]


def players_in_order(g: dict) -> list[str]:
    """The players to ask, each once, in the turn order of their first position."""
    out: list[str] = []
    for b in turn_order(g):
        p = controller(g, b)
        if p not in out:
            out.append(p)
    return out
