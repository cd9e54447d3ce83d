"""Phase 6, the Divine Power Phase: the interventions that involve no contest between gods
(Level Up, Lightning Bolt/Smite, Plague, Miracle, Calling, Pestilence, Abundance,
Apotheosis). The contests are elsewhere: Direct Attack and Divine Judgement in contests.py,
the Jihad in jihad.py; the end-of-era heroes in duels.py."""

from __future__ import annotations

from . import positions
from .battle import kill_pop, kill_unit
from .hands import pay
from .tables import Tables, level
from .world import (
    INFIDEL,
    bless,
    count_units,
    hand_total,
    pacify_all,
    pop_of,
    total_pop,
    units_at,
    unrest_all,
)

POWERS = ("levelup", "smite", "plague", "miracle", "calling", "pestilence", "abundance", "apotheosis")


def costs(tab: Tables) -> dict[str, int]:
    d = tab.data["divine"]
    return {"levelup": tab.data["levels"]["level_up_cost"], "smite": d["smite"], "plague": d["plague"],
            "miracle": d["miracle"], "calling": d["calling"], "pestilence": d["pestilence"], "abundance": d["abundance"]}


def divine_orders(tab: Tables, g: dict, player: str, belief: str) -> list[tuple]:
    """Every enumerable intervention `belief` can pay for now, as (verb, args...)."""
    cost = costs(tab)
    hand = hand_total(g, player)
    out: list[tuple] = []
    land = [h for h in tab.world.order if tab.world.hexes[h].printed != "sea"]
    if hand >= cost["levelup"] and level(g, belief) < 3:   # CHOICE 63
        out.append(("levelup",))
    if hand >= cost["smite"]:
        for hid in land:
            for o, (p, u) in sorted(g["hexes"][hid]["pop"].items()):
                out.append(("smite", hid, "pop", o))
            seen = set()
            for uid in units_at(g, hid):
                x = g["units"][uid]
                if (x["k"], x["o"]) not in seen:
                    seen.add((x["k"], x["o"]))
                    out.append(("smite", hid, x["k"], x["o"]))
    if hand >= cost["plague"]:
        out += [("plague", h) for h in land if total_pop(g, h) or units_at(g, h)]
    if hand >= cost["miracle"] and count_units(g, belief, "prophet") < tab.units["prophet"]["limit"]:
        out += [("miracle", h) for h in land]
    if hand >= cost["calling"] and count_units(g, belief, "high_priest") < tab.units["high_priest"]["limit"]:
        out += [("calling", h) for h in land]
    if hand >= cost["pestilence"]:
        out += [("pestilence", h) for h in land]    # CHOICE 65
    if hand >= cost["abundance"]:
        out += [("abundance", h) for h in land if g["hexes"][h]["t"] != "fertile"]
    return out


NAMES = {"levelup": "Renaissance Level Up", "smite": "a Lightning Bolt", "plague": "Plague", "miracle": "a Miracle",
         "calling": "a Calling", "pestilence": "Pestilence", "abundance": "Abundance"}


def divine_check(tab: Tables, g: dict, player: str, belief: str, verb: str, args: tuple) -> str | None:
    """Why `belief` cannot call down the enumerated intervention `verb` (args: HEX, or HEX KIND
    OWNER for a Lightning Bolt) now, as divine_orders lists them (None: it can). The hex is a
    land or seaway hex (checked by the caller)."""
    cost = costs(tab)[verb]
    hand = hand_total(g, player)
    if hand < cost:
        return f"{NAMES[verb]} costs {cost} faith from your hand; it holds {hand}"
    if verb == "levelup" and level(g, belief) >= 3:
        return "your belief is at level 3, the highest level (CHOICE 63)"
    if verb in ("miracle", "calling"):
        kind = "prophet" if verb == "miracle" else "high_priest"
        if count_units(g, belief, kind) >= tab.units[kind]["limit"]:
            many = "Prophets" if verb == "miracle" else "High Priests"
            return f"all your {tab.units[kind]['limit']} {many} are in play"
    hid = args[0] if args else None
    if verb == "abundance" and g["hexes"][hid]["t"] == "fertile":
        return f"{hid} is green already: Abundance turns a brown or standard hex green"
    if verb == "plague" and not (total_pop(g, hid) or units_at(g, hid)):
        return f"there is nothing at {hid} for the Plague to destroy"
    if verb == "smite":
        _, kind, owner = args
        here = sum(pop_of(g, hid, owner)) if kind == "pop" else units_at(g, hid, owner, kind)
        if not here:
            what = "population" if kind == "pop" else kind.replace("_", " ")
            return f"there is no {owner} {what} at {hid} for the Lightning Bolt to strike"
    return None


def apotheosis_check(tab: Tables, g: dict, player: str, belief: str, n: int, owner: str, hid: str) -> str | None:
    if positions.lead(g, owner) == positions.lead(g, belief) or owner == INFIDEL or owner not in g["beliefs"]:
        return "Apotheosis takes another god's population (not your own, not infidels)"
    if n < 1:
        return "take at least one chip"
    have = sum(pop_of(g, hid, owner))
    if have < n:
        return f"{hid} holds {have} {owner} chips"
    price = tab.data["divine"]["apotheosis_per_chip"] * n
    if hand_total(g, player) < price:
        return f"it costs {price} faith; your hand holds {hand_total(g, player)}"
    return None


def intervene(tab: Tables, g: dict, player: str, belief: str, verb: str, args: tuple, rng) -> list[dict]:
    cost = costs(tab).get(verb)
    if verb == "apotheosis":
        n, owner, hid = args
        cost = tab.data["divine"]["apotheosis_per_chip"] * n
    pay(g, player, cost, belief)
    ev = {"type": "intervention", "belief": belief, "power": verb, "cost": cost}
    events: list[dict] = [ev]
    if verb == "levelup":
        new = level(g, belief) + 1   # a covenant's stacked discs move together (L360)
        for m in positions.members(g, positions.lead(g, belief)):
            g["beliefs"][m]["level"] = new
        ev["level"] = new
    elif verb == "smite":
        hid, kind, owner = args
        die = rng.die(6)
        ev.update(at=hid, target=kind, owner=owner, die=die, success=die > tab.data["divine"]["smite_fails_on"])
        if ev["success"]:
            if kind == "pop":
                _p, u = pop_of(g, hid, owner)
                from .battle import kill_pop_one
                kill_pop_one(g, hid, owner)
            else:
                events += kill_unit(tab, g, units_at(g, hid, owner, kind)[0], "lightning")
    elif verb == "plague":
        hid = args[0]
        ev["at"] = hid
        prophets = [u for u in units_at(g, hid) if g["units"][u]["k"] == "prophet"]
        for u in units_at(g, hid):
            if u not in prophets:
                events += kill_unit(tab, g, u, "plague")
        for o in list(g["hexes"][hid]["pop"]):
            kill_pop(g, hid, o)
        for u in prophets:   # martyrdom reaches only the neighbours: the hex is empty
            events += kill_unit(tab, g, u, "plague")
        for u in units_at(g, hid):   # what a martyr converted in the hex itself dies too
            events += kill_unit(tab, g, u, "plague")
        for o in list(g["hexes"][hid]["pop"]):
            kill_pop(g, hid, o)
        g["hexes"][hid]["t"] = "rough"
    elif verb == "miracle" or verb == "calling":
        hid = args[0]
        from .world import new_unit
        kind = "prophet" if verb == "miracle" else "high_priest"
        uid = new_unit(g, kind, belief, hid)
        bless(g, tab, hid)
        ev.update(at=hid, unit=uid)
    elif verb == "pestilence":
        hid = args[0]
        g["hexes"][hid]["t"] = "rough"
        unrest_all(g, hid)
        for u in units_at(g, hid):
            x = g["units"][u]
            if not tab.units[x["k"]].get("unbreakable"):
                x["b"] = True
        bless(g, tab, hid)
        ev["at"] = hid
    elif verb == "abundance":
        hid = args[0]
        g["hexes"][hid]["t"] = "fertile"
        pacify_all(g, hid)
        for u in units_at(g, hid):
            g["units"][u]["b"] = False
        ev["at"] = hid
    elif verb == "apotheosis":
        n, owner, hid = args
        from .battle import kill_pop_one
        for _ in range(n):
            kill_pop_one(g, hid, owner)
        ev.update(at=hid, owner=owner, n=n)
    return events
