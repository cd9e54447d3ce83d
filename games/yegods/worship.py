"""Ye Gods!: step 5, adding worshippers -- each priest and saint that spent the whole turn in
place adds worshippers there -- and a saint's Vision after 5 full turns in the desert (20
worshippers placed in provinces the god owns, once per god per game).

Plain functions over the game state `g`, the turn `t` and the static `World` `w`.
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order

from .board import best_owned, create, owned, priests_at
from .world import World


def add_worshippers(w: World, g: dict) -> list[Event]:
    """Step 5: priests and saints that spent the whole turn in place add worshippers;
    a saint's fifth full turn in a desert brings its Vision."""
    t = g["turn"]
    god = t["god"]
    t["step"] = 5
    events: list[Event] = []
    adds: dict[str, dict] = {}
    moved = dict(t["moved_priests"])
    for p in w.places:
        n = priests_at(g, god, p) - moved.get(p, 0)
        if n > 0 and p in w.provinces:
            adds.setdefault(p, {"priests": 0, "saints": 0})["priests"] = n
    for s in g["saints"][god]:
        if not s["moved"] and s["at"] in w.provinces:
            adds.setdefault(s["at"], {"priests": 0, "saints": 0})["saints"] += 1
    for p in w.provinces:
        if p in adds:
            a = adds[p]
            want = a["priests"] * int(w.rules["priest_adds"]) + a["saints"] * int(w.rules["saint_adds"])
            made = create(g, p, god, want)
            events.append({"type": "add", "god": god, "at": p, "priests": a["priests"], "saints": a["saints"],
                           "added": made, "short": want - made})
    need = int(w.rules["vision_turns"])
    vision = False
    for s in g["saints"][god]:
        if s["at"] in w.deserts and not s["moved"]:
            s["turns"] += 1
            if s["turns"] >= need and not g["visions"][god] and not vision:
                vision = True
                events.append({"type": "vision", "god": god, "at": s["at"], "turns": s["turns"],
                               "worshippers": int(w.rules["vision_worshippers"])})
        elif not s["moved"]:
            s["turns"] += 1
    if vision:
        g["visions"][god] = True
        t["vision"] = int(w.rules["vision_worshippers"])
    return events


def vision_due(w: World, g: dict, god: str) -> bool:
    """Whether a saint of god gets a Vision at this turn's Add Worshippers step, if it stays."""
    if g["visions"].get(god):
        return False
    need = int(w.rules["vision_turns"])
    return any(s["at"] in w.deserts and not s["moved"] and s["turns"] + 1 >= need for s in g["saints"][god])


def vision_orders(w: World, g: dict, t: dict, god: str) -> list[Order]:
    if t["vision"] is not None:
        left = t["vision"]
    elif t["step"] < 5 and vision_due(w, g, god):
        left = int(w.rules["vision_worshippers"])
    else:
        return []
    return [Order(("vision", str(k), p), ("vision", k, p)) for p in owned(w, g, god) for k in range(left, 0, -1)]


def why_vision(w: World, g: dict, t: dict, god: str, args: list[str]) -> str:
    """Why a typed `vision ...` is illegal."""
    title = w.god_title[god]
    if t["vision"] is None and g["visions"].get(god):
        return f"{title} has had its Vision (only one per god per game)"
    if t["vision"] is None and not vision_due(w, g, god):
        return ("no Vision is due: a saint must spend 5 full turns in a desert after moving there "
                "(and not move this turn)")
    where = w.resolve_name(args[-1], ("province", "desert")) if args else None
    if where and g["owner"].get(where) != god:
        return f"Vision worshippers go to provinces {title} owns; it does not own {where}"
    left = t["vision"] if t["vision"] is not None else int(w.rules["vision_worshippers"])
    return f"{left} Vision worshippers are left to place"


def place_vision(w: World, g: dict, t: dict, god: str, n: int, prov: str) -> list[Event]:
    """Place n of the Vision's worshippers in `prov` (entering step 5 first if need be)."""
    events = add_worshippers(w, g) if t["step"] < 5 else []
    n = min(n, t["vision"] or 0)
    t["vision"] -= n
    made = create(g, prov, god, n)
    return events + [{"type": "vision_place", "god": god, "at": prov, "n": made, "short": n - made,
                      "left": t["vision"]}]


def place_rest_of_vision(w: World, g: dict, t: dict, god: str) -> list[Event]:
    """At the end of the turn, the Vision's worshippers not yet placed go to the province god
    owns with the most of its worshippers (or are lost if it owns none)."""
    events: list[Event] = []
    if t["vision"]:
        best = best_owned(w, g, god)
        left = t["vision"]
        t["vision"] = 0
        if best:
            made = create(g, best, god, left)
            events.append({"type": "vision_place", "god": god, "at": best, "n": made, "short": left - made,
                           "left": 0, "default": True})
        else:
            events.append({"type": "vision_lost", "god": god, "n": left})
    return events
