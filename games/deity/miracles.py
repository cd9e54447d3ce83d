"""Miracles: what each card may target, playing it (an Abjuration may negate it), what it
does, Resurrection (played, or by a standing order at the end of another's Battle phase)
and the Blight rolls of the Miracle phase."""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .board import (
    FIELDS,
    blank_cell,
    cap,
    coastal,
    destroy,
    effect_hexes,
    fix,
    geo_of,
    land_keys,
    own,
    room_left,
    total,
)
from .cards import after_in_order, draw, negated
from .movement import godspeed_dests
from .order_cache import OrderCache
from .population import temple_ok
from .reactions import asks, begin_abjure
from .tables import Tables

AREA_CARDS = {"flood", "prophet", "famine", "draught", "pestilence"}
DESTROY_D6 = {"earthquake", "tidal_wave", "volcanic_eruption", "fire"}
LOSE_ONE = {"flood", "draught", "pestilence", "hurricane"}


# --- what a card may target ------------------------------------------------------------
def _interleave(lists: list[list]) -> list:
    """One of each list in turn (so an order form's first examples show every card)."""
    out = []
    for i in range(max((len(x) for x in lists), default=0)):
        out += [x[i] for x in lists if i < len(x)]
    return out


def targets(tab: Tables, g: dict, player: str, card: str, ctx: dict | None = None) -> list[str]:
    land = g["land"]
    geo = geo_of(g)
    kind = tab.cards[card]["target"]
    ctx = {} if ctx is None else ctx
    if "keys" not in ctx:
        ctx["keys"] = land_keys(g)
        ctx["occ"] = [k for k in ctx["keys"] if total(land[k]) > 0]
    keys, occ = ctx["keys"], ctx["occ"]
    if kind == "occupied":
        return occ
    if kind == "temple":
        return [k for k in keys if land[k]["temple"]]
    if kind == "coastal_occupied":
        return [k for k in occ if coastal(g, k)]
    if kind == "mountains_occupied":
        return [k for k in occ if land[k]["terrain"] == "mountains"]
    if kind == "forest_occupied":
        return [k for k in occ if land[k]["terrain"] == "forest"]
    if kind == "coastal":
        return [k for k in keys if coastal(g, k)]
    if kind == "land":
        if card == "alter_land" and not g["reserve"]:
            return []
        return keys
    if kind == "water":
        if not g["reserve"]:
            return []
        return [k for k in geo.cells if k not in land]
    if kind == "empty_coastal":
        return [k for k in keys if total(land[k]) == 0 and not land[k]["blight"] and coastal(g, k)]
    if kind == "own_population3":
        return [k for k in own(g, player) if land[k]["pop"] >= 3]
    if kind == "armies":
        return [k for k in keys if land[k]["armies"] or land[k]["monsters"]]
    if kind == "population":
        return [k for k in keys if land[k]["pop"] > 0]
    if kind == "empty":
        return [k for k in keys if total(land[k]) == 0 and not land[k]["blight"]]
    if kind == "desert":
        return [k for k in keys if land[k]["terrain"] == "desert"]
    if kind == "swamp":
        return [k for k in keys if land[k]["terrain"] == "swamp"]
    if kind == "ocean":
        return [k for k in geo.cells if k not in land and any(n in land for n in geo.nbrs[k])]
    if kind == "own":
        return own(g, player)
    return []


def play_orders(tab: Tables, oc: OrderCache, g: dict, player: str) -> list[Order]:
    per_card: list[list[Order]] = []
    ctx: dict = {}
    for card in sorted(set(g["hands"][player])):
        kind = tab.cards[card]["target"]
        if kind in ("reaction", "destroyed"):
            continue
        if kind == "none":
            per_card.append([oc.card_order("play", card)])
        elif kind == "own_move":
            land = g["land"]
            out = []
            for src in own(g, player):
                if land[src]["pop"] + land[src]["armies"] == 0:
                    continue
                for dst in godspeed_dests(tab, g, player, src):
                    out.append(oc.card_order("play", card, src, "->", dst))
            per_card.append(out)
        else:
            per_card.append(oc.card_targets("play", card, targets(tab, g, player, card, ctx)))
    return _interleave(per_card)


def restorable(g: dict, k: str) -> str | None:
    """Whose counters Resurrection at k would bring back (None: nothing)."""
    recs = g["turn"]["destroyed"].get(k)
    if not recs or k not in g["land"] or g["land"][k]["blight"]:
        return None  # nothing comes back to life where the land sank or a blight lies
    owner = g["land"][k]["owner"]
    live = {p: r for p, r in recs.items() if p not in g["out"] and any(r.values())}
    if owner is not None:
        return owner if owner in live else None
    if not live:
        return None
    return max(live, key=lambda p: (sum(live[p].values()), -g["order"].index(p)))


def resurrection_orders(oc: OrderCache, g: dict, player: str) -> list[Order]:
    if "resurrection" not in g["hands"][player]:
        return []
    return [oc.cached(("play", "resurrection", k), ("play", "resurrection", k))
            for k in land_keys(g) if restorable(g, k)]


# --- playing a card --------------------------------------------------------------------
def area_of(g: dict, card: str, args: tuple) -> list[str]:
    if not args:
        return []
    k = args[0]
    land = g["land"]
    nb = [n for n in geo_of(g).nbrs[k] if n in land]
    if card in AREA_CARDS:
        return [k] + nb
    if card == "hurricane":
        return nb
    return [a for a in args if a in land] if card == "godspeed" else [k]


def play(tab: Tables, g: dict, player: str, card: str, args: tuple, rng: Rng, reaction: bool = False) -> list[Event]:
    g["hands"][player].remove(card)
    g["discard"].append(card)
    ev: Event = {"type": "play", "player": player, "card": card}
    if args:
        ev["at"] = args[0]
    if len(args) > 1:
        ev["dest"] = args[1]
    if reaction:
        ev["standing"] = True
    events: list[Event] = [ev]
    hexes = area_of(g, card, args)
    if asks(g):  # reactions=ask: the players after him are asked live (reactions.py)
        begin_abjure(g, player, card, args, hexes)
        return events
    if negated(g, player, card, hexes, events):
        return events
    return events + effect(tab, g, player, card, args, hexes, rng)


def gain(tab: Tables, g: dict, k: str, n: int, famine: set) -> int:
    """Population gained at k by a card: none under Famine, never over the maximum."""
    c = g["land"][k]
    if k in famine:
        return 0
    n = max(0, min(n, room_left(c, tab.tmax)))
    c["pop"] += n
    return n


def effect(tab: Tables, g: dict, player: str, card: str, args: tuple, area: list[str], rng: Rng) -> list[Event]:
    land = g["land"]
    t = g["turn"]
    k = args[0] if args else None
    famine = effect_hexes(g, "famine")
    events: list[Event] = []
    if card in DESTROY_D6:
        roll = rng.die(6)
        events.append({"type": "card_roll", "card": card, "roll": roll})
        events += destroy(g, k, roll, card)
    elif card == "crumble":
        events += destroy(g, k, 1, card, fields=())
    elif card == "plague":
        roll = rng.die(6)
        events.append({"type": "card_roll", "card": card, "roll": roll})
        events += destroy(g, k, max(0, total(land[k]) - roll), card)
    elif card == "chasm":
        c = land[k]
        events += destroy(g, k, c["armies"] + c["monsters"], card, fields=("armies", "monsters"), temple=False)
    elif card in LOSE_ONE:
        for h in area:
            if land[h]["pop"] > 0:
                events += destroy(g, h, 1, card, fields=("pop",), temple=False)
        if not any(e["type"] == "destroy" for e in events):
            events.append({"type": "no_effect", "card": card, "why": "no population in the area"})
    elif card == "alter_land":
        new = g["reserve"].pop(rng.randbelow(len(g["reserve"])))
        c = land[k]
        old = c["terrain"]
        g["reserve"].append(old)
        c["terrain"] = new
        events.append({"type": "alter", "at": k, "old": old, "new": new})
        if c["temple"] and not tab.terrain[new]["temples"]:
            events += destroy(g, k, 1, "alter_land", fields=(), temple=True)
        events += cap(g, k, "alter_land", tab.tmax)
    elif card == "create_land":
        new = g["reserve"].pop(rng.randbelow(len(g["reserve"])))
        land[k] = blank_cell(new)
        events.append({"type": "create", "at": k, "new": new})
    elif card == "destroy_land":
        old = land.pop(k)["terrain"]
        g["removed"].append(old)
        for e in g["effects"]:
            if k in e["hexes"]:
                e["hexes"].remove(k)
        events.append({"type": "sink", "at": k, "old": old})
    elif card == "sacrifice":
        c = land[k]
        c["pop"] -= 3
        fix(c)
        events.append({"type": "sacrifice", "player": player, "at": k, "pop": 3})
        events += draw(g, player, 2, rng)
        if len(g["hands"][player]) > tab.r["hand_max"]:
            t["pending"] = {"kind": "discard"}
    elif card == "prophet":
        gained = {h: gain(tab, g, h, 1, famine) for h in area if land[h]["pop"] > 0}
        events.append({"type": "gain", "card": card, "hexes": {h: n for h, n in gained.items() if n},
                       "famine": [h for h in gained if h in famine]})
    elif card == "holy_war":
        t["holy_war"] = True
        events.append({"type": "holy_war", "player": player})
    elif card in ("famine", "sanctuary"):
        g["effects"].append({"card": card, "hexes": list(area), "by": player})
        events.append({"type": "effect", "card": card, "hexes": list(area), "by": player})
    elif card == "fertility":
        n = gain(tab, g, k, land[k]["pop"], famine)
        events.append({"type": "gain", "card": card, "hexes": {k: n} if n else {}, "famine": [k] if k in famine else []})
    elif card == "repopulate":
        if k in famine:
            events.append({"type": "gain", "card": card, "hexes": {}, "famine": [k]})
        else:
            roll = rng.die(6)
            events.append({"type": "card_roll", "card": card, "roll": roll})
            n = gain(tab, g, k, roll, famine)
            events.append({"type": "gain", "card": card, "hexes": {k: n} if n else {}, "famine": []})
    elif card == "monsters":
        roll = rng.die(tab.r["monsters_die"])
        c = land[k]
        c["owner"] = player
        c["monsters"] = min(roll, tab.tmax[c["terrain"]])
        events.append({"type": "monsters", "player": player, "at": k, "roll": roll, "count": c["monsters"]})
    elif card == "blight":
        land[k]["blight"] = player
        events.append({"type": "blight", "player": player, "at": k})
    elif card == "godspeed":
        t["pending"] = {"kind": "carry", "src": args[0], "dest": args[1]}
    elif card == "resurrection":
        events += resurrect(tab, g, k)
    else:  # pragma: no cover
        raise ValueError(f"no effect for card {card}")
    return events


# --- Resurrection and Blight -----------------------------------------------------------
def resurrect(tab: Tables, g: dict, k: str) -> list[Event]:
    whose = restorable(g, k)
    if whose is None:
        return [{"type": "no_effect", "card": "resurrection", "why": f"nothing to bring back at {k}"}]
    rec = g["turn"]["destroyed"][k].pop(whose)
    c = g["land"][k]
    c["owner"] = whose
    back = {f: rec[f] for f in FIELDS}
    for f in FIELDS:
        c[f] += rec[f]
    temple_back = 0
    if rec["temple"] and not c["temple"] and temple_ok(tab, g, k):
        c["temple"] = True
        temple_back = 1
    events: list[Event] = [{"type": "resurrect", "at": k, "owner": whose, **back, "temple": temple_back,
                            "temple_lost": rec["temple"] - temple_back}]
    return events + cap(g, k, "resurrection", tab.tmax)


def standing_resurrections(tab: Tables, g: dict, rng: Rng) -> list[Event]:
    """The other players' standing `resurrect N` orders, at the end of the Battle phase."""
    cur = g["turn"]["player"]
    events: list[Event] = []
    for q in after_in_order(g, cur):
        least = g["standing"][q]["resurrect"]
        while least and "resurrection" in g["hands"][q] and q not in g["out"]:
            best, most = None, 0
            for k in land_keys(g):
                rec = g["turn"]["destroyed"].get(k, {}).get(q)
                if rec and restorable(g, k) == q and sum(rec.values()) >= max(least, most + 1):
                    best, most = k, sum(rec.values())
            if best is None:
                break
            events += play(tab, g, q, "resurrection", (best,), rng, reaction=True)
    return events


def blight_rolls(tab: Tables, g: dict, p: str, rng: Rng) -> list[Event]:
    events: list[Event] = []
    for k in land_keys(g):
        c = g["land"][k]
        if c["blight"] == p:
            roll = rng.die(tab.r["blight_die"])
            gone = roll <= tab.r["blight_gone_on"]
            if gone:
                c["blight"] = None
            events.append({"type": "blight_roll", "player": p, "at": k, "roll": roll, "gone": gone})
    return events
