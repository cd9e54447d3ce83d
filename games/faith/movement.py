"""Movement (5.4, stage 1): allowances, paths, what stops a move, what a moving Prophet,
High Priest or Hero does on its way (L479-520)."""

from __future__ import annotations

from collections import deque

from .population import can_enter, room
from .tables import Tables, move_factor
from .world import add_pop, bless, bless_for, has_fort, pop_of, units_at

KINDS = ("pop", "knight", "militia", "hero", "prophet", "high_priest", "apostle")   # fortifications never move


def stops(tab: Tables, g: dict, hid: str) -> bool:
    """Entering a brown (rough), Natural Defensive Position or fortress hex ends a move (CHOICE 48)."""
    return g["hexes"][hid]["t"] == "rough" or tab.world.hexes[hid].ndp or has_fort(g, hid)


def allowance(tab: Tables, g: dict, owner: str, kind: str, worse: bool) -> int:
    if kind == "pop":
        base = tab.data["population"]["move_unrest" if worse else "move"]
    else:
        base = tab.units[kind]["move_broken" if worse else "move"]
    return base * move_factor(tab, g, owner)


def movable(g: dict, belief: str, hid: str, kind: str, state: str | None) -> list:
    """What may move: unit ids, or for population (pacified, unrest) chips that have not moved."""
    era = g["era"]
    if kind == "pop":
        p, u = pop_of(g, hid, belief)
        arrived = g["arrived"].get(hid, {}).get(belief, [0, 0])
        return [max(0, p - arrived[0]) if state != "unrest" else 0, max(0, u - arrived[1]) if state != "pacified" else 0]
    out = []
    for uid in units_at(g, hid, belief, kind):
        x = g["units"][uid]
        if x["moved"] == era:
            continue
        if state == "ready" and x["b"] or state == "broken" and not x["b"]:
            continue
        out.append(uid)
    return sorted(out, key=lambda u: (g["units"][u]["b"], int(u[1:])))   # ready ones first


def step_ok(tab: Tables, g: dict, belief: str, kind: str, hid: str, n: int, last: bool) -> str | None:
    is_pop = kind == "pop"
    if not can_enter(tab, g, hid, belief, False):
        h = tab.world.hexes[hid]
        return f"{hid} is {'dark sea' if h.printed == 'sea' else 'a seaway, closed to you'}"
    if is_pop:
        need = n if last else 1
        if room(tab, g, hid, belief) < need:
            return f"{hid} holds its maximum population (no room for {need})"
    return None


def check_path(tab: Tables, g: dict, belief: str, kind: str, path: list[str], n: int, reach: int) -> str | None:
    if len(path) - 1 > reach:
        return f"the path is {len(path) - 1} hexes long; they may move {reach}"
    for i, hid in enumerate(path[1:], 1):
        if hid not in tab.world.nbrs[path[i - 1]]:
            return f"{hid} is not next to {path[i - 1]}"
        why = step_ok(tab, g, belief, kind, hid, n, i == len(path) - 1)
        if why:
            return why
        if i < len(path) - 1 and stops(tab, g, hid):
            return f"entering {hid} ends the move (brown, defensive position or fortress)"
    return None


def find_path(tab: Tables, g: dict, belief: str, kind: str, src: str, dst: str, n: int, reach: int) -> list[str] | None:
    """CHOICE 47: the first shortest legal path (neighbours in the chart's fixed order)."""
    prev = {src: None}
    dist = {src: 0}
    todo = deque([src])
    while todo:
        x = todo.popleft()
        if x == dst:
            break
        if dist[x] >= reach or (x != src and stops(tab, g, x)):
            continue
        for y in tab.world.nbrs[x]:
            if y in prev:
                continue
            if step_ok(tab, g, belief, kind, y, n, y == dst):
                continue
            prev[y] = x
            dist[y] = dist[x] + 1
            todo.append(y)
    if dst not in prev:
        return None
    path = [dst]
    while prev[path[-1]] is not None:
        path.append(prev[path[-1]])
    return path[::-1]


def reachable(tab: Tables, g: dict, belief: str, kind: str, src: str, reach: int) -> list[str]:
    seen = {src: 0}
    todo = deque([src])
    while todo:
        x = todo.popleft()
        if seen[x] >= reach or (x != src and stops(tab, g, x)):
            continue
        for y in tab.world.nbrs[x]:
            if y not in seen and not step_ok(tab, g, belief, kind, y, 1, True):
                seen[y] = seen[x] + 1
                todo.append(y)
    return [h for h in seen if h != src]


def move(tab: Tables, g: dict, belief: str, kind: str, state: str | None, n: int, path: list[str]) -> list[dict]:
    src, dst = path[0], path[-1]
    era = g["era"]
    if kind == "pop":
        can_p, _can_u = movable(g, belief, src, "pop", state)
        tp = min(can_p, n) if state != "unrest" else 0
        tu = n - tp
        add_pop(g, src, belief, -tp, -tu)
        add_pop(g, dst, belief, tp, tu)
        arr = g["arrived"].setdefault(dst, {}).setdefault(belief, [0, 0])
        arr[0] += tp
        arr[1] += tu
    else:
        ids = movable(g, belief, src, kind, state)[:n]
        for uid in ids:
            g["units"][uid]["h"] = dst
            g["units"][uid]["moved"] = era
        if tab.units[kind].get("blesses"):
            for hid in path:   # "in any hex she passes through or is in", in real time
                bless_for(g, hid, belief)
    bless(g, tab, dst)
    return [{"type": "move", "belief": belief, "n": n, "kind": kind, "path": list(path)}]
