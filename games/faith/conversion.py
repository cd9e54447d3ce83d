"""Conversion and Slaughter (5.3): military slaughter, civilian pogrom, conversion by a
Prophet, High Priest, Hero or Apostle; and martyrdom, which converts wholesale."""

from __future__ import annotations

from . import positions
from .tables import Tables
from .world import INFIDEL, add_pop, bank, bless, pop_of, units_at, unrest_all

# what each converter may convert (L462-467): "pop" = one population chip
CONVERTS = {
    "prophet": ("pop", "knight", "militia", "fortification", "hero", "high_priest", "apostle"),
    "high_priest": ("pop", "knight", "militia"),
    "hero": ("pop", "knight", "militia"),
    "apostle": ("pop", "knight", "militia"),
}
SLAYERS = ("knight", "militia", "hero", "fortification")   # CHOICE 42: the four military units
POGROM_TARGETS = ("pop", "prophet", "apostle")


def change_pop(g: dict, hid: str, src: str, dst: str, pac: int, unr: int) -> None:
    """Chips change belief in place, keeping their state (CHOICE 44); the bank ledgers follow."""
    add_pop(g, hid, src, -pac, -unr)
    add_pop(g, hid, dst, pac, unr)
    bank(g, src, pac + unr)
    bank(g, dst, -(pac + unr))


def _own(g: dict, belief: str) -> set[str]:
    """`belief` and its covenant partner: one position (L360)."""
    return set(positions.members(g, positions.lead(g, belief))) if belief in g["beliefs"] else {belief}


def others_here(g: dict, hid: str, belief: str) -> list[str]:
    """The other owners at `hid`: not `belief`, nor its covenant partner (one belief, L360)."""
    own = _own(g, belief)
    return sorted({o for o in g["hexes"][hid]["pop"] if o not in own}
                  | {x["o"] for x in g["units"].values() if x["h"] == hid and x["o"] not in own})


def convert_orders(tab: Tables, g: dict, belief: str) -> list[tuple]:
    """(hex, converter kind, target kind, target owner) legal now."""
    out = []
    era = g["era"]
    for hid in sorted({x["h"] for x in g["units"].values() if x["o"] == belief and x["k"] in CONVERTS and x["conv"] != era}):
        kinds = sorted({x["k"] for x in (g["units"][u] for u in units_at(g, hid, belief)) if x["k"] in CONVERTS and x["conv"] != era})
        for owner in others_here(g, hid, belief):
            present = {x["k"] for x in (g["units"][u] for u in units_at(g, hid, owner))}
            if sum(pop_of(g, hid, owner)):
                present.add("pop")
            for by in kinds:
                for t in CONVERTS[by]:
                    if t in present:
                        out.append((hid, by, t, owner))
    return out


def _a(kind: str) -> str:
    """A unit kind as a player reads it, with its article: 'an apostle', 'a high priest'."""
    word = kind.replace("_", " ")
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _targets(kinds) -> str:
    words = ["population (pop)" if k == "pop" else _a(k) for k in kinds]
    return ", ".join(words[:-1]) + f" or {words[-1]}"


def _present(g: dict, hid: str, owner: str, target: str) -> bool:
    return bool(sum(pop_of(g, hid, owner))) if target == "pop" else bool(units_at(g, hid, owner, target))


def convert_check(tab: Tables, g: dict, belief: str, hid: str, by: str, target: str, owner: str) -> str | None:
    """Why `belief` cannot `convert HID BY TARGET OWNER` now (None: it can), in the order the
    text sets the conditions (L462-469): a converter of its own in the hex, unused this era,
    a target it may convert, of another belief, there."""
    mine = units_at(g, hid, belief, by)
    if not mine:
        return f"you have no {by.replace('_', ' ')} at {hid} to convert with (the converter must be in the same hex)"
    if all(g["units"][u]["conv"] == g["era"] for u in mine):
        return (f"your {by.replace('_', ' ')} at {hid} has converted this era: each special unit converts once per Era")
    if target not in CONVERTS[by]:
        if by == "prophet" and target == "prophet":
            return "a Prophet never converts another Prophet"
        return f"{_a(by)} converts only {_targets(CONVERTS[by])}"
    if owner in _own(g, belief):
        return f"the {owner} are of your own position: a conversion takes from another belief"
    if not _present(g, hid, owner, target):
        what = "population" if target == "pop" else target.replace("_", " ")
        return f"there is no {owner} {what} at {hid} to convert"
    return None


def convert(tab: Tables, g: dict, belief: str, hid: str, by: str, target: str, owner: str) -> list[dict]:
    era = g["era"]
    conv = next(u for u in units_at(g, hid, belief, by) if g["units"][u]["conv"] != era)
    g["units"][conv]["conv"] = era
    if target == "pop":
        p, _u = pop_of(g, hid, owner)
        if p:
            change_pop(g, hid, owner, belief, 1, 0)
        else:
            change_pop(g, hid, owner, belief, 0, 1)
        what = None
    else:
        what = units_at(g, hid, owner, target)[0]
        g["units"][what]["o"] = belief
    bless(g, tab, hid)
    return [{"type": "convert", "belief": belief, "at": hid, "by": by, "target": target, "from": owner, "unit": what}]


def slaughter_orders(tab: Tables, g: dict, belief: str) -> list[tuple]:
    out = []
    era = g["era"]
    for hid in sorted({x["h"] for x in g["units"].values() if x["o"] == belief and x["k"] in SLAYERS and x["slew"] != era}):
        kinds = sorted({g["units"][u]["k"] for u in units_at(g, hid, belief)
                        if g["units"][u]["k"] in SLAYERS and g["units"][u]["slew"] != era})
        others = set(others_here(g, hid, belief))
        victims = [o for o in sorted(g["hexes"][hid]["pop"]) if o in others]
        for k in kinds:
            for o in victims:
                out.append((hid, k, o))
    return out


def slaughter_check(tab: Tables, g: dict, belief: str, hid: str, kind: str, owner: str) -> str | None:
    """Why `belief` cannot order `slaughter HID KIND OWNER` now (None: it can), as L450 sets it:
    a military unit of its own there (CHOICE 42), once per Era, a population chip of another
    belief in the hex."""
    if kind not in SLAYERS:
        return f"{_a(kind)} does not slaughter: a military unit does ({_targets(SLAYERS)}; CHOICE 42)"
    mine = units_at(g, hid, belief, kind)
    if not mine:
        return f"you have no {kind} at {hid} to slaughter with (the unit must be in the same hex)"
    if all(g["units"][u]["slew"] == g["era"] for u in mine):
        return f"your {kind} at {hid} has slaughtered this era: each military unit slaughters once per Era"
    if owner in _own(g, belief):
        return f"the {owner} are of your own position: a slaughter strikes another belief"
    if not _present(g, hid, owner, "pop"):
        return f"there is no {owner} population at {hid} to slaughter (a slaughter kills a population chip)"
    return None


def _kill_one_chip(g: dict, hid: str, owner: str) -> None:
    _p, u = pop_of(g, hid, owner)
    if u:
        add_pop(g, hid, owner, 0, -1)
    else:
        add_pop(g, hid, owner, -1, 0)
    bank(g, owner, 1)


def slaughter(tab: Tables, g: dict, belief: str, hid: str, kind: str, owner: str) -> list[dict]:
    era = g["era"]
    slayer = next(u for u in units_at(g, hid, belief, kind) if g["units"][u]["slew"] != era)
    g["units"][slayer]["slew"] = era
    _kill_one_chip(g, hid, owner)
    unrest_all(g, hid)   # "even those of the belief that ordered the slaughter"
    blessed = bless(g, tab, hid)
    return [{"type": "slaughter", "belief": belief, "at": hid, "by": kind, "victim": owner, "blessed": blessed}]


def pogrom_orders(tab: Tables, g: dict, belief: str) -> list[tuple]:
    out = []
    need = tab.data["population"]["pogrom_needs"]
    done = {tuple(x) for x in g["pogroms"]}
    for hid in tab.world.order:
        h = g["hexes"].get(hid)
        if not h or h["pop"].get(belief, [0, 0])[0] < need or (belief, hid) in done:
            continue
        others = set(others_here(g, hid, belief))
        for o in sorted(h["pop"]):
            if o in others:
                out.append((hid, "pop", o))
        for o in sorted({g["units"][u]["o"] for u in units_at(g, hid) if g["units"][u]["o"] in others}):
            kinds = {g["units"][u]["k"] for u in units_at(g, hid, o)}
            for t in ("prophet", "apostle"):
                if t in kinds:
                    out.append((hid, t, o))
    return out


def pogrom_check(tab: Tables, g: dict, belief: str, hid: str, target: str, owner: str) -> str | None:
    """Why `belief` cannot order `pogrom HID TARGET OWNER` now (None: it can), as L454 sets it:
    3 pacified chips of its own there, once per Era (CHOICE 43), a chip, Prophet or Apostle of
    another belief in the hex."""
    if target not in POGROM_TARGETS:
        return f"a pogrom kills {_targets(POGROM_TARGETS)}"
    need = tab.data["population"]["pogrom_needs"]
    pac, unr = pop_of(g, hid, belief)
    if pac < need:
        return (f"a pogrom needs {need} pacified (working) population chips of one belief in the hex; at {hid} "
                f"yours are {pac} pacified" + (f" and {unr} in unrest" if unr else ""))
    if [belief, hid] in [list(x) for x in g["pogroms"]]:
        return f"your population at {hid} has made its pogrom this era (once per Era)"
    if owner in _own(g, belief):
        return f"the {owner} are of your own position: a pogrom strikes another belief"
    if not _present(g, hid, owner, target):
        what = "population" if target == "pop" else target
        return f"there is no {owner} {what} at {hid} for a pogrom"
    return None


def pogrom(tab: Tables, g: dict, belief: str, hid: str, target: str, owner: str) -> list[dict]:
    g["pogroms"].append([belief, hid])
    if target == "pop":
        _kill_one_chip(g, hid, owner)
    else:  # CHOICE 55: a Prophet killed by civilians is no martyr
        del g["units"][units_at(g, hid, owner, target)[0]]
    unrest_all(g, hid)
    blessed = bless(g, tab, hid)
    return [{"type": "pogrom", "belief": belief, "at": hid, "target": target, "victim": owner, "blessed": blessed}]


def martyrdom(tab: Tables, g: dict, hid: str, belief: str) -> list[dict]:
    """L225: every piece but Prophets in the hex and its neighbours becomes the dead
    prophet's belief (CHOICE 88: infidels and High Priests too)."""
    if belief == INFIDEL:
        return []
    converted = {"units": 0, "pop": 0}
    for h in [hid] + tab.world.nbrs[hid]:
        if h not in g["hexes"]:
            continue
        for o, (p, u) in list(g["hexes"][h]["pop"].items()):
            if o != belief:
                change_pop(g, h, o, belief, p, u)
                converted["pop"] += p + u
        for uid in units_at(g, h):
            x = g["units"][uid]
            if x["o"] != belief and x["k"] != "prophet":
                x["o"] = belief
                converted["units"] += 1
        bless(g, tab, h)
    return [{"type": "martyrdom", "belief": belief, "at": hid, **converted}]
