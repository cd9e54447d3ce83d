"""Ye Gods!: step 3, movement -- worshippers (at most half of a province's starting total,
noted when movement begins; never the last one; never into another god's province), priests
and saints (saints alone may enter the desert), each one step over a border or water
crossing, once per turn: the orders, their effects, and why a typed one is illegal.

Plain functions over the game state `g`, the turn `t` and the static `World` `w`.
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.numbers import is_number
from pbem.core.orders import Order

from .board import count, priests_at, put
from .world import World

OPT_MOVE, OPT_ARROW = frozenset({2, 4}), frozenset({3})


def movable(g: dict, t: dict, god: str, place: str) -> int:
    """How many of god's worshippers may still move out of `place` this turn: up to half
    the starting total (noted when movement begins), never the last one, never one that
    moved in."""
    here = g["board"].get(place, {}).get(god, 0)
    start = t["start"].get(place, 0) if t["step"] == 3 else here
    left = start // 2 - t["moved_out"].get(place, 0)
    return max(0, min(left, here - t["moved_in"].get(place, 0), here - 1))


def move_orders(w: World, g: dict, t: dict, god: str, cache: dict[tuple, Order]) -> list[Order]:
    """Every move open to god now; `cache` keeps the worshipper moves (orders are immutable:
    each is built once)."""
    out = []
    owner, board = g["owner"], g["board"]
    started = t["step"] == 3
    start, moved_out, moved_in = t["start"], t["moved_out"], t["moved_in"]
    for src in w.provinces:
        here = board.get(src, {}).get(god, 0)
        if here < 2:
            continue
        first = start.get(src, 0) if started else here
        n = min(first // 2 - moved_out.get(src, 0), here - moved_in.get(src, 0), here - 1)
        if n <= 0:
            continue
        targets = [dst for dst in w.padj[src] if owner.get(dst) in (None, god)]
        for k in range(n, 0, -1):
            for dst in targets:
                order = cache.get((k, src, dst))
                if order is None:
                    order = cache[(k, src, dst)] = Order(("move", str(k), "worshippers", src, "->", dst),
                                                         ("move_w", k, src, dst), OPT_MOVE)
                out.append(order)
    moved = t["moved_priests"]
    mine = g["priests"][god]
    for src in w.provinces:
        if mine.get(src, 0) - moved.get(src, 0) > 0:
            for dst in w.padj[src]:
                out.append(Order(("move", "priest", src, "->", dst), ("move_p", src, dst), OPT_ARROW))
    seen = set()
    for s in g["saints"][god]:
        if s["moved"] or s["at"] in seen:
            continue
        seen.add(s["at"])
        for dst in w.adj[s["at"]]:
            out.append(Order(("move", "saint", s["at"], "->", dst), ("move_s", s["at"], dst), OPT_ARROW))
    return out


def begin_movement(w: World, g: dict, t: dict, god: str) -> None:
    """Enter step 3 if not yet there, noting the starting total in every province."""
    if t["step"] < 3:
        t["step"] = 3
        t["start"] = {p: n for p in w.provinces if (n := count(g, p, god))}


def move_worshippers(w: World, g: dict, t: dict, god: str, n: int, src: str, dst: str) -> list[Event]:
    put(g, src, god, -n)
    put(g, dst, god, n)
    t["moved_out"][src] = t["moved_out"].get(src, 0) + n
    t["moved_in"][dst] = t["moved_in"].get(dst, 0) + n
    return [{"type": "move", "god": god, "piece": "worshippers", "n": n, "src": src, "dst": dst,
             "water": w.water.get(frozenset((src, dst)))}]


def move_priest(w: World, g: dict, t: dict, god: str, src: str, dst: str) -> list[Event]:
    here = g["priests"][god]
    here[src] -= 1
    if here[src] == 0:
        del here[src]
    here[dst] = here.get(dst, 0) + 1
    mp = t["moved_priests"]
    mp[dst] = mp.get(dst, 0) + 1
    if mp.get(src, 0) > here.get(src, 0):
        mp[src] = here.get(src, 0)
    if src in mp and mp[src] == 0:
        del mp[src]
    return [{"type": "move", "god": god, "piece": "priest", "n": 1, "src": src, "dst": dst,
             "water": w.water.get(frozenset((src, dst)))}]


def move_saint(w: World, g: dict, god: str, src: str, dst: str) -> list[Event]:
    # CHOICE: of several saints in one place, the one that arrived last moves
    saint = min((s for s in g["saints"][god] if s["at"] == src and not s["moved"]), key=lambda s: s["turns"])
    saint.update(at=dst, moved=True, turns=0)
    return [{"type": "move", "god": god, "piece": "saint", "n": 1, "src": src, "dst": dst,
             "water": w.water.get(frozenset((src, dst))), "desert": dst in w.deserts}]


def why_move(w: World, g: dict, t: dict, god: str, args: list[str]) -> str | None:
    title = w.god_title[god]
    piece = "worshippers"
    n = None
    rest = list(args)
    if rest and is_number(rest[0]):
        n = int(rest.pop(0))
    if rest and rest[0] in ("priest", "saint", "worshippers"):
        piece = rest.pop(0)
    if len(rest) < 2:
        return None
    src = w.resolve_name(rest[0], ("province", "desert"))
    dst = w.resolve_name(rest[1], ("province", "desert"))
    if not src or not dst:
        bad = rest[0] if not src else rest[1]
        return f"'{bad}' is not a province or desert (or not a unique prefix of one)"
    if dst not in w.adj[src]:
        return f"{dst.capitalize()} is not next to {src.capitalize()} (next to it: {', '.join(w.adj[src])})"
    if piece == "priest":
        have = priests_at(g, god, src)
        if have == 0:
            return f"{title} has no priest in {src.capitalize()}"
        if have - t["moved_priests"].get(src, 0) <= 0:
            return f"{title}'s priests in {src.capitalize()} have already moved this turn (once per turn)"
        if dst in w.deserts:
            return f"only saints may enter the desert ({dst.capitalize()})"
        return None
    if piece == "saint":
        here = [s for s in g["saints"][god] if s["at"] == src]
        if not here:
            return f"{title} has no saint in {src.capitalize()}"
        return f"{title}'s saints in {src.capitalize()} have already moved this turn (once per turn)"
    if dst in w.deserts:
        return f"only saints may enter the desert ({dst.capitalize()})"
    owner = g["owner"].get(dst)
    if owner not in (None, god):
        return (f"{dst.capitalize()} is owned by {w.god_title[owner]}: worshippers enter another god's "
                "province only by winning a Holy War")
    have = count(g, src, god)
    if have == 0:
        return f"{title} has no worshippers in {src.capitalize()}"
    if have == 1:
        return f"{title} has only 1 worshipper in {src.capitalize()}, and it cannot move"
    can = movable(g, t, god, src)
    start = t["start"].get(src, 0) if t["step"] == 3 else have
    if n is not None and n > can:
        return (f"at most half of the {start} worshippers in {src.capitalize()} at the start of movement may move "
                f"({start // 2}); {t['moved_out'].get(src, 0)} have moved out and "
                f"{t['moved_in'].get(src, 0)} moved in, so {can} more may move")
    return None
