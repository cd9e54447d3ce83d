"""Population on the world: infidel growth, natural pacification, reproduction and overflow
(Phase 1), the Power-Up flips (Phase 3), the Renaissance, Generation (5.1), Mobilization
(5.2) and taking faith into the hand (at any time)."""

from __future__ import annotations

from . import positions
from .tables import RAISABLE, Tables, cap, level, seaway_open
from .world import (
    INFIDEL,
    add_pop,
    bank,
    bless,
    count_units,
    new_unit,
    pacified,
    pop_of,
    remove_pop,
    to_hand,
    total_pop,
    units_at,
)


def room(tab: Tables, g: dict, hid: str, owner: str) -> int:
    """How many chips `owner` may still add to `hid` (CHOICE 18: the hex total against the
    owner's own cap)."""
    if tab.world.hexes[hid].printed == "sea":
        return 0
    return max(0, cap(tab, g, owner) - total_pop(g, hid))


def can_enter(tab: Tables, g: dict, hid: str, owner: str, is_pop: bool) -> bool:
    """Whether a piece of `owner` may enter `hid` at all (sea never; seaway from Maritime for
    levels 2-3; population only below its cap)."""
    h = tab.world.hexes[hid]
    if h.printed == "sea":
        return False
    if h.printed == "seaway" and not seaway_open(tab, g, owner):
        return False
    return not is_pop or room(tab, g, hid, owner) > 0


# --- Phase 1 ---------------------------------------------------------------------------------

def place_infidel(tab: Tables, g: dict, hid: str) -> dict:
    """One infidel at `hid`: a chip below the cap, else an infidel militia (CHOICE 14, 20)."""
    if room(tab, g, hid, INFIDEL) > 0:
        add_pop(g, hid, INFIDEL, 1, 0)
        bank(g, INFIDEL, -1)
        return {"type": "infidel", "at": hid, "what": "population"}
    new_unit(g, "militia", INFIDEL, hid)
    return {"type": "infidel", "at": hid, "what": "militia"}


def roll_infidels(tab: Tables, g: dict, n: int, rng) -> list[dict]:
    """n infidels at hexes named by a red and a white die (red: the first digit)."""
    events = []
    for _ in range(n):
        red, white = rng.die(6), rng.die(6)
        hid = f"{red}{white}"
        ev = place_infidel(tab, g, hid)
        ev.update(red=red, white=white)
        events.append(ev)
    return events


def pacify_infidels(g: dict) -> None:
    for h in g["hexes"].values():
        if INFIDEL in h["pop"]:
            p, u = h["pop"][INFIDEL]
            h["pop"][INFIDEL] = [p + u, 0]


def natural_pacification(tab: Tables, g: dict, belief: str, faith: list[str] | None = None) -> int:
    """Unrest chips of `belief` turn pacified where an unbroken military unit of the belief
    stands or two or more pacified chips of it are. `faith`: the beliefs of its position (a
    covenant's two beliefs are the same faith, L360)."""
    faith = faith or [belief]
    flipped = 0
    for hid, h in g["hexes"].items():
        p, u = h["pop"].get(belief, [0, 0])
        if not u:
            continue
        guard = any(not x["b"] and tab.units[x["k"]]["military"]
                    for f in faith for x in (g["units"][k] for k in units_at(g, hid, f)))
        if guard or sum(h["pop"].get(f, [0, 0])[0] for f in faith) >= 2:
            h["pop"][belief] = [p + u, 0]
            flipped += u
    return flipped


def overflow_targets(tab: Tables, g: dict, hid: str, belief: str, wanted: list[str]) -> list[str]:
    """Where newborns that do not fit go (CHOICE 24): the god's standing list first, then the
    adjacent hex with the most room (ties: the lowest id)."""
    nbrs = tab.world.nbrs[hid]
    first = [t for t in wanted if t in nbrs]
    rest = sorted((t for t in nbrs if t not in first), key=lambda t: (-room(tab, g, t, belief), t))
    return [t for t in first + rest if can_enter(tab, g, t, belief, True)]


def reproduce(tab: Tables, g: dict, belief: str, overflow: dict, pool: list[str] | None = None) -> list[dict]:
    """Each 2 working chips in a green hex make one new chip in unrest, counted before any is
    placed; the hex is filled first, the rest go to adjacent hexes; no room: not created.
    `pool`: a covenant's beliefs, whose working chips count together; the newborns are of the
    belief with more working chips in the hex (ties: the first, the covenant's lead) --
    L318 "Covenants can use the population of both the beliefs to create new populations of
    either" (CHOICE 25)."""
    per = tab.data["population"]["reproduce_per"]
    pool = pool or [belief]
    births = []
    for hid in tab.world.order:
        h = g["hexes"].get(hid)
        if h and h["t"] == "fertile":
            working = sum(pacified(g, hid, b) for b in pool)
            if working >= per:
                births.append((hid, working // per, max(pool, key=lambda b: pacified(g, hid, b))))
    events = []
    for hid, n, belief in births:
        here = min(n, room(tab, g, hid, belief))
        placed = {}
        if here:
            add_pop(g, hid, belief, 0, here)
            placed[hid] = here
        left = n - here
        if left:
            for t in overflow_targets(tab, g, hid, belief, overflow.get(hid, [])):
                k = min(left, room(tab, g, t, belief))
                if k:
                    add_pop(g, t, belief, 0, k)
                    placed[t] = placed.get(t, 0) + k
                    left -= k
                if not left:
                    break
        made = n - left
        bank(g, belief, -made)
        for t in placed:
            bless(g, tab, t)
        events.append({"type": "reproduce", "belief": belief, "at": hid, "born": n, "placed": placed, "lost": left})
    return events


# --- Phase 3 ---------------------------------------------------------------------------------

def special_in(tab: Tables, g: dict, hid: str, belief: str) -> bool:
    return any(tab.units[g["units"][u]["k"]].get("blesses") for u in units_at(g, hid, belief))


def free_flips(tab: Tables, g: dict, belief: str) -> dict[str, int]:
    """The pacified chips that an own special unit re-pacifies at once (the text's TIP)."""
    out = {}
    for hid, h in g["hexes"].items():
        p = h["pop"].get(belief, [0, 0])[0]
        if p and special_in(tab, g, hid, belief):
            out[hid] = p
    return out


def flip(tab: Tables, g: dict, player: str, belief: str, where: dict[str, int]) -> list[dict]:
    """Flip pacified chips to unrest and collect the level's rate for each (L380-390); then
    special units re-pacify their hexes."""
    lvl = level(g, belief)
    rate = tab.data["levels"]["power_per_flip"][str(lvl)]
    n = 0
    for hid, k in where.items():
        p, _u = pop_of(g, hid, belief)
        k = min(k, p)
        add_pop(g, hid, belief, -k, k)
        n += k
    gain = rate * n
    if gain:
        to_hand(g, player, belief, gain)
        bank(g, belief, -gain)
    for hid in where:
        bless(g, tab, hid)
    return [{"type": "flip", "belief": belief, "chips": n, "where": {h: k for h, k in where.items() if k}},
            {"type": "income", "player": player, "belief": belief, "gain": gain, "to": player}]


def power_base(tab: Tables, g: dict, player: str, belief: str) -> list[dict]:
    lvl = level(g, belief)
    gain = tab.data["levels"]["power_base"][str(lvl)]
    to_hand(g, player, belief, gain)
    bank(g, belief, -gain)
    return [{"type": "power_up", "player": player, "belief": belief, "base": gain, "to": player}]


# --- the Renaissance --------------------------------------------------------------------------

def to_infidels(g: dict, belief: str) -> int:
    """All population of `belief` becomes pacified infidel population in place."""
    n = 0
    for hid, h in g["hexes"].items():
        if belief in h["pop"]:
            p, u = h["pop"].pop(belief)
            add_pop(g, hid, INFIDEL, p + u, 0)
            bank(g, belief, p + u)
            bank(g, INFIDEL, -(p + u))
            n += p + u
    return n


def renaissance(tab: Tables, g: dict, order: list[str], rng) -> list[dict]:
    events = []
    loses = tab.data["technology"]["renaissance_loses"]
    for b in order:   # positions: a covenant rolls once, at its level, and loses both beliefs
        lvl = level(g, b)
        if lvl == 1:
            die = None
            lost = True
        else:
            die = rng.die(6)
            lost = die <= loses[str(lvl)]
        n = sum(to_infidels(g, m) for m in positions.members(g, b)) if lost else 0
        events.append({"type": "renaissance", "belief": b, "level": lvl, "die": die, "lost": lost, "chips": n})
    return events


# --- Generation, Mobilization, take ------------------------------------------------------------

def place(tab: Tables, g: dict, player: str, belief: str, hid: str, n: int) -> list[dict]:
    to_hand(g, player, belief, -n)
    add_pop(g, hid, belief, n, 0)  # CHOICE 39: placed chips are pacified
    bless(g, tab, hid)
    return [{"type": "place", "player": player, "belief": belief, "at": hid, "n": n}]


def raise_check(tab: Tables, g: dict, belief: str, kind: str, hid: str) -> str | None:
    """Why `belief` cannot raise `kind` at `hid` now (None: it can)."""
    spec = tab.units[kind]
    a = "an" if kind[0] in "aeiou" else "a"
    if kind not in RAISABLE:
        return f"{a} {kind.replace('_', ' ')} is not raised in Mobilization"
    if g["hexes"][hid]["t"] != "fertile":
        return f"{hid} is not a green fertile hex"
    cost = spec["cost"]
    if pacified(g, hid, belief) < cost:
        have, unrest = pop_of(g, hid, belief)
        return (f"{a} {kind} needs {cost} working {'chip' if cost == 1 else 'chips'} of yours at {hid}; "
                f"there {'is' if have == 1 else 'are'} {have}" + (f" ({unrest} in unrest, which cannot be mobilized)" if unrest else ""))
    if spec.get("militia") and not units_at(g, hid, belief, "militia"):
        return f"{a} {kind} needs one of your militia at {hid}"
    if spec.get("shared"):
        if sum(1 for x in g["units"].values() if x["k"] == kind) >= spec["limit"]:
            return f"all {spec['limit']} fortifications are on the board"
    elif count_units(g, belief, kind) >= spec["limit"]:
        return f"all your {spec['limit']} {kind}s are in play"
    return None


def raise_unit(tab: Tables, g: dict, belief: str, kind: str, hid: str) -> list[dict]:
    spec = tab.units[kind]
    remove_pop(g, hid, belief, spec["cost"], unrest_first=False)
    bank(g, belief, spec["cost"])
    spent = None
    if spec.get("militia"):
        spent = units_at(g, hid, belief, "militia")[0]
        del g["units"][spent]
    uid = new_unit(g, kind, belief, hid)
    bless(g, tab, hid)
    return [{"type": "raise", "belief": belief, "kind": kind, "at": hid, "unit": uid, "faith": spec["cost"],
             "militia": spent}]


def take(tab: Tables, g: dict, player: str, belief: str, hid: str, n: int, state: str | None) -> list[dict]:
    """CHOICE 71: own chips, unrest first unless the order names the state."""
    _p, _u = pop_of(g, hid, belief)
    if state == "pacified":
        add_pop(g, hid, belief, -n, 0)
    elif state == "unrest":
        add_pop(g, hid, belief, 0, -n)
    else:
        remove_pop(g, hid, belief, n)
    to_hand(g, player, belief, n)
    return [{"type": "take", "player": player, "belief": belief, "at": hid, "n": n}]
