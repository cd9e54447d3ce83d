"""Ye Gods!: the god cards -- drawing (step 1, and a card bought in step 2), the cards played
at once (Donative, Pillage, Schism with no choice; Saint, Heretic, Miracle, Martyr, Impiety
with the drawing god's choice), and the cards held in hand and played as orders (Act of
God, Conversion, Temple): their orders, their effects, and why a typed one is illegal.

Plain functions over the game state `g` and the static `World` `w`.
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.numbers import is_number
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .board import best_owned, count, create, kill, owned, priests_at, put, remove_priest, remove_saint, saints_at
from .world import AUTO, CHOICE, HELD, KIND_TITLE, KINDS, World

OPT_PLAY = frozenset({2})


# --- drawing ------------------------------------------------------------------------------
def draw_card(w: World, g: dict, god: str, rng: Rng, bought: bool) -> list[Event]:
    """Draw a card: a held one goes to the hand; one that must be played is played at once,
    or left pending in the turn when it needs the god's choice."""
    t = g["turn"]
    events: list[Event] = []
    if not g["deck"]:
        if not g["discard"]:
            return [{"type": "no_card", "god": god}]
        g["deck"] = sorted(g["discard"])
        g["discard"] = []
        events.append({"type": "reshuffle", "cards": len(g["deck"])})
    i = rng.randbelow(len(g["deck"])) if len(g["deck"]) > 1 else 0
    card = g["deck"].pop(i)
    kind = w.cards[card]["kind"]
    if kind in HELD:
        g["hands"][god].append(card)
        g["hands"][god].sort()
        events.append({"type": "draw", "god": god, "bought": bought, "kept": True, "hand": len(g["hands"][god])})
        events.append({"type": "draw_private", "god": god, "card": card, "name": w.card_name(card),
                       "to": t["player"]})
        return events
    events.append({"type": "draw", "god": god, "bought": bought, "kept": False, "card": card,
                   "name": w.card_name(card), "hand": len(g["hands"][god])})
    if kind in AUTO:
        events += auto_card(w, g, god, card)
        g["discard"].append(card)
        return events
    if not choice_orders(w, g, god, card):
        g["discard"].append(card)
        events.append({"type": "no_effect", "god": god, "card": card, "name": w.card_name(card),
                       "reason": why_no_effect(w, g, god, kind)})
        return events
    if kind == "impiety" and not impiety_needs_choice(w, g, god):
        events += impiety(w, g, god, card, None, None)
        g["discard"].append(card)
        return events
    t["pending"] = card
    return events


# --- cards played at once -------------------------------------------------------------------
def auto_card(w: World, g: dict, god: str, card: int) -> list[Event]:
    c = w.cards[card]
    kind, value = c["kind"], c["value"]
    if kind == "donative":
        gain = min(value, g["supply"]["donatives"])
        g["supply"]["donatives"] -= gain
        g["donatives"][god] += gain
        return [{"type": "donative", "god": god, "value": value, "gained": gain, "to_all": True}]
    if kind == "pillage":
        lose = min(value, g["donatives"][god])
        g["donatives"][god] -= lose
        g["supply"]["donatives"] += lose
        return [{"type": "pillage", "god": god, "value": value, "lost": lose}]
    # schism: half (round down) of the god's worshippers in every province
    losses = {}
    for p in w.provinces:
        n = count(g, p, god) // 2
        if n:
            losses[p] = kill(g, p, god, n)
    return [{"type": "schism", "god": god, "losses": losses, "total": sum(losses.values())}]


def saint_room(w: World, g: dict, god: str) -> bool:
    return len(g["saints"][god]) < int(w.pieces["saints_on_board"]) and g["supply"]["saints"][god] > 0


def why_no_effect(w: World, g: dict, god: str, kind: str) -> str:
    if kind == "saint":
        if len(g["saints"][god]) >= int(w.pieces["saints_on_board"]):
            return f"{w.god_title[god]} already has {w.pieces['saints_on_board']} saints on the board"
        if g["supply"]["saints"][god] <= 0:
            return "no saint is left in the supply"
        return "the god owns no province"
    if kind == "heretic":
        return "no heretic is left" if g["supply"]["heretics"] <= 0 else "no province is owned"
    if kind == "miracle":
        return "the god owns no province"
    if kind == "martyr":
        return "no god has a priest or saint on the board"
    if kind == "impiety":
        return "the god has neither worshippers nor priests"
    return "it cannot be played"


def impiety_targets(w: World, g: dict, god: str) -> tuple[list[str], list[str]]:
    """(provinces holding the god's largest count, provinces with the god's priests)."""
    counts = {p: count(g, p, god) for p in w.provinces}
    best = max(counts.values(), default=0)
    most = [p for p, n in counts.items() if n == best and n > 0]
    priests = [p for p in w.places if priests_at(g, god, p) > 0]
    return most, priests


def impiety_needs_choice(w: World, g: dict, god: str) -> bool:
    most, priests = impiety_targets(w, g, god)
    return len(most) > 1 or len(priests) > 0


def choice_orders(w: World, g: dict, god: str, card: int) -> list[Order]:
    """The orders that play a must-play card needing a choice (empty: no effect)."""
    kind = w.cards[card]["kind"]
    out: list[Order] = []
    if kind == "saint":
        if saint_room(w, g, god):
            out = [Order(("saint", p), ("saint", p)) for p in owned(w, g, god)]
    elif kind == "heretic":
        if g["supply"]["heretics"] > 0:
            out = [Order(("heretic", p), ("heretic", p)) for p in w.provinces if g["owner"].get(p)]
    elif kind == "miracle":
        out = [Order(("miracle", p), ("miracle", p)) for p in owned(w, g, god)]
    elif kind == "martyr":
        for other in g["gods"]:
            for p in w.places:
                if priests_at(g, other, p):
                    out.append(Order(("martyr", other, "priest", p), ("martyr", other, "priest", p)))
                if saints_at(g, other, p):
                    out.append(Order(("martyr", other, "saint", p), ("martyr", other, "saint", p)))
    elif kind == "impiety":
        most, priests = impiety_targets(w, g, god)
        if len(most) > 1 and priests:
            out = [Order(("impiety", "priest", pr, "worshippers", wp), ("impiety", pr, wp), frozenset({1, 3}))
                   for pr in priests for wp in most]
        elif priests:
            out = [Order(("impiety", "priest", pr), ("impiety", pr, most[0] if most else None), frozenset({1}))
                   for pr in priests]
        elif len(most) > 1:
            out = [Order(("impiety", "worshippers", wp), ("impiety", None, wp), frozenset({1})) for wp in most]
        elif most:
            out = [Order(("impiety",), ("impiety", None, most[0]))]
    return out


def default_choice(w: World, g: dict, god: str, card: int) -> Order:
    """A sensible answer for a god who gave none: help yourself, hurt the strongest rival."""
    options = choice_orders(w, g, god, card)
    kind = w.cards[card]["kind"]
    if kind in ("saint", "miracle"):
        best = best_owned(w, g, god)
        return next(o for o in options if o.payload[1] == best)
    if kind == "heretic":
        # on a province owned by the rival with the most worshippers there
        def score(o: Order) -> tuple:
            p = o.payload[1]
            owner = g["owner"].get(p)
            return (owner != god, count(g, p, owner) if owner else 0)
        return max(options, key=score)
    if kind == "martyr":
        def mscore(o: Order) -> tuple:
            other, what = o.payload[1], o.payload[2]
            return (other != god, what == "saint")
        return max(options, key=mscore)
    if kind == "impiety":
        # give up the priest in the province where the god has the fewest worshippers
        return min(options, key=lambda o: (count(g, o.payload[1], god) if o.payload[1] else 0))
    return options[0]


def impiety(w: World, g: dict, god: str, card: int, priest_at: str | None, from_at: str | None) -> list[Event]:
    value = w.cards[card]["value"]
    if from_at is None:
        most, _ = impiety_targets(w, g, god)
        from_at = most[0] if most else None
    removed = kill(g, from_at, god, value) if from_at else 0
    if priest_at:
        remove_priest(g, god, priest_at)
    return [{"type": "impiety", "god": god, "value": value, "from": from_at, "removed": removed,
             "priest": priest_at}]


def play_choice(w: World, g: dict, god: str, order: Order) -> list[Event]:
    """Play the turn's pending must-play card as `order` (one of `choice_orders`) says."""
    t = g["turn"]
    card = t["pending"]
    kind = order.payload[0]
    t["pending"] = None
    g["discard"].append(card)
    value = w.cards[card]["value"]
    if kind == "saint":
        p = order.payload[1]
        g["supply"]["saints"][god] -= 1
        g["saints"][god].append({"at": p, "turns": 0, "moved": False})
        return [{"type": "saint", "god": god, "at": p}]
    if kind == "heretic":
        p = order.payload[1]
        g["supply"]["heretics"] -= 1
        g["heretics"][p] = g["heretics"].get(p, 0) + 1
        return [{"type": "heretic", "god": god, "at": p, "owner": g["owner"].get(p)}]
    if kind == "miracle":
        p = order.payload[1]
        made = create(g, p, god, value)
        return [{"type": "miracle", "god": god, "value": value, "at": p, "added": made}]
    if kind == "martyr":
        _, other, what, p = order.payload
        if what == "priest":
            remove_priest(g, other, p)
            adds = int(w.rules["martyr_priest_adds"])
        else:
            remove_saint(g, other, p)
            adds = int(w.rules["martyr_saint_adds"])
        made = create(g, p, other, adds) if p in w.provinces else 0
        return [{"type": "martyr", "god": god, "victim": other, "piece": what, "at": p, "added": made,
                 "desert": p in w.deserts}]
    if kind == "impiety":
        _, priest_at, from_at = order.payload
        return impiety(w, g, god, card, priest_at, from_at)
    raise ValueError(f"unknown choice {order.payload!r}")  # pragma: no cover


def why_choice(w: World, g: dict, god: str, kind: str, args: list[str]) -> str | None:
    places = [w.resolve_name(a, ("province", "desert")) for a in args]
    places = [p for p in places if p]
    title = w.god_title[god]
    if kind in ("saint", "miracle") and places:
        return f"the {KIND_TITLE[kind]} goes to a province {title} owns ({', '.join(owned(w, g, god))}), not {places[0]}"
    if kind == "heretic" and places:
        return f"a heretic is placed on an owned province; nobody owns {places[0]}"
    if kind == "martyr":
        other = next((x for a in args if (x := w.resolve_name(a, ("god",)))), None)
        what = next((a for a in args if a in ("priest", "saint")), None)
        if other and what and places:
            return (f"{w.god_title[other]} has no {what} in {places[0].capitalize()} to martyr"
                    + ("" if other in g["gods"] else f" ({w.god_title[other]} is not in this game)"))
        return "name a god, `priest` or `saint`, and the place where one of that god's is"
    if kind == "impiety":
        most, priests = impiety_targets(w, g, god)
        return (f"the priest must be one of {title}'s (in {', '.join(priests) or 'nowhere'}); the worshippers "
                f"go from {' or '.join(most) or 'nowhere'}")
    return None


# --- cards held in hand ---------------------------------------------------------------------
def play_orders(w: World, g: dict, god: str) -> list[Order]:
    out: list[Order] = []
    if not g["hands"][god]:
        return out
    board, priests = g["board"], g["priests"]
    seen = set()
    for card in g["hands"][god]:
        c = w.cards[card]
        key_ = (c["kind"], c["value"])
        if key_ in seen:
            continue
        seen.add(key_)
        kind, v = key_
        if kind == "temple":
            for p in owned(w, g, god):
                if p not in g["temples"][god]:
                    out.append(Order(("play", "temple", str(v), p), ("temple", card, p), OPT_PLAY))
        elif kind == "conversion":
            holy = set(priests[god]) | {s_["at"] for s_ in g["saints"][god]}
            for p in w.provinces:
                if p not in holy:
                    continue
                cell = board.get(p, {})
                for other in g["gods"]:
                    if other != god and cell.get(other, 0) > 0:
                        out.append(Order(("play", "conversion", str(v), other, p), ("conversion", card, other, p),
                                         OPT_PLAY))
        elif kind == "act-of-god":
            for p in w.places:
                cell = board.get(p, {})
                for other in g["gods"]:
                    if cell.get(other):
                        out.append(Order(("play", "act-of-god", "worshippers", other, p),
                                         ("act", card, "worshippers", other, p), OPT_PLAY))
                    if priests[other].get(p):
                        out.append(Order(("play", "act-of-god", "priest", other, p), ("act", card, "priest", other, p)))
                    if any(s_["at"] == p for s_ in g["saints"][other]):
                        out.append(Order(("play", "act-of-god", "saint", other, p), ("act", card, "saint", other, p)))
                if g["heretics"].get(p):
                    out.append(Order(("play", "act-of-god", "heretic", p), ("act", card, "heretic", None, p)))
    return out


def play_card(w: World, g: dict, god: str, payload: tuple) -> list[Event]:
    """Play a held card (a `play_orders` payload): Temple, Conversion or Act of God."""
    kind, card = payload[0], payload[1]
    g["hands"][god].remove(card)
    g["discard"].append(card)
    value = w.cards[card]["value"]
    if kind == "temple":
        p = payload[2]
        g["temples"][god].append(p)
        made = create(g, p, god, value)
        return [{"type": "temple", "god": god, "card": card, "value": value, "at": p, "added": made}]
    if kind == "conversion":
        _, _, other, p = payload
        n = min(value, count(g, p, other))
        put(g, p, other, -n)
        put(g, p, god, n)
        return [{"type": "conversion", "god": god, "card": card, "value": value, "victim": other, "at": p,
                 "converted": n}]
    # Act of God
    _, _, what, other, p = payload
    event = {"type": "act_of_god", "god": god, "card": card, "what": what, "victim": other, "at": p}
    if what == "worshippers":
        event["killed"] = kill(g, p, other, int(w.rules["act_of_god_worshippers"]))
    elif what == "priest":
        remove_priest(g, other, p)
    elif what == "saint":
        remove_saint(g, other, p)
    else:
        g["heretics"][p] -= 1
        if not g["heretics"][p]:
            del g["heretics"][p]
        g["supply"]["heretics"] += 1
    return [event]


def why_play(w: World, g: dict, god: str, args: list[str]) -> str | None:
    if not args:
        return None
    title = w.god_title[god]
    kind = next((k for k in KINDS if k.startswith(args[0])), args[0])
    if kind in CHOICE + AUTO:
        return f"{KIND_TITLE[kind]} cards are played at once when drawn, never from the hand"
    held = [c for c in g["hands"][god] if w.cards[c]["kind"] == kind]
    if kind not in HELD:
        return f"'{args[0]}' is not a card that can be played from the hand (act-of-god, conversion, temple)"
    if not held:
        return f"{title} holds no {KIND_TITLE[kind]} card"
    rest = args[1:]
    if rest and is_number(rest[0]):
        v = int(rest.pop(0))
        if not any(w.cards[c]["value"] == v for c in held):
            values = ", ".join(str(w.cards[c]["value"]) for c in held)
            return f"{title} holds no {KIND_TITLE[kind]} {v} (its {KIND_TITLE[kind]} cards: {values})"
    places = [w.resolve_name(a, ("province", "desert")) for a in rest]
    where = next((p for p in places if p), None)
    if kind == "temple" and where:
        if g["owner"].get(where) != god:
            return f"a temple is built in a province {title} owns; it does not own {where.capitalize()}"
        if where in g["temples"][god]:
            return f"{title} has already used a Temple in {where.capitalize()} this round (one per province per round)"
    if kind == "conversion" and where:
        if not (priests_at(g, god, where) or saints_at(g, god, where)):
            return f"conversions occur only where {title} has a priest or saint; it has none in {where.capitalize()}"
        others = [w.resolve_name(a, ("god",)) for a in rest]
        other = next((o for o in others if o), None)
        if other == god:
            return "a conversion converts worshippers of another god"
        if other and count(g, where, other) == 0:
            return f"{w.god_title[other]} has no worshippers in {where.capitalize()}"
    if kind == "act-of-god" and where:
        return f"there is no such target in {where.capitalize()}"
    return None
