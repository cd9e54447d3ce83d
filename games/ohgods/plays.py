"""Oh Gods!: playing a card from the hand, and what the special cards do when played. A god (or
Immortalized) goes to the player's altar; Sanctuary stays in play by the altar until its
owner's next turn (`end_sanctuary`); Pilgrimage moves a god from another altar to yours and
Exchange swaps one of yours for one of theirs, neither being a steal (so Block does not stop
them). Block is not played: it answers a steal (steals.py).
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order

from .cards import Catalogue
from .table import hand_words, others


def play_orders(cat: Catalogue, g: dict, player: str) -> list[Order]:
    out = []
    mine = [c for c in g["altars"][player] if cat.movable(c)]
    seen = set()
    for c in g["hands"][player]:
        t = cat.tok(c)
        if t in seen or cat.cards[c]["kind"] == "hidden":
            continue
        seen.add(t)
        eff = cat.effect(c)
        if cat.godlike(c):
            out.append(Order(("play", t), ("play", c)))
        elif eff == "sanctuary":
            if not g["sanctuary"][player]:
                out.append(Order(("play", t), ("play", c)))
        elif eff == "move":
            for v in others(g, player):
                for target in g["altars"][v]:
                    if cat.movable(target):
                        out.append(Order(("play", t, cat.tok(target), "from", v), ("play", c, v, target),
                                         frozenset({3, 4})))
        elif eff == "swap":
            for m in mine:
                for v in others(g, player):
                    for target in g["altars"][v]:
                        if cat.movable(target):
                            out.append(Order(("play", t, cat.tok(m), "for", cat.tok(target), "from", v),
                                             ("play", c, m, v, target), frozenset({5, 6})))
    return out


def play(cat: Catalogue, g: dict, player: str, p: tuple) -> list[Event]:
    events: list[Event] = []
    hand, altar = g["hands"][player], g["altars"][player]
    card = p[1]
    hand.remove(card)
    eff = cat.effect(card)
    if cat.godlike(card):
        altar.append(card)
        events.append({"type": "play", "player": player, "card": cat.name(card), "label": cat.label(card)})
    elif eff == "sanctuary":
        g["sanctuary"][player] = card
        events.append({"type": "sanctuary", "player": player})
    elif eff == "move":
        _, _, victim, target = p
        g["altars"][victim].remove(target)
        altar.append(target)
        g["discard"].append(card)
        events.append({"type": "pilgrimage", "player": player, "victim": victim, "god": cat.name(target)})
    elif eff == "swap":
        _, _, mine, victim, target = p
        vic = g["altars"][victim]
        altar[altar.index(mine)] = target
        vic[vic.index(target)] = mine
        g["discard"].append(card)
        events.append({"type": "exchange", "player": player, "victim": victim, "gave": cat.name(mine),
                       "took": cat.name(target)})
    else:  # pragma: no cover - legal_orders offers no other play
        raise ValueError(f"cannot play {card}")
    return events


def end_sanctuary(g: dict, player: str) -> list[Event]:
    """At the start of its owner's turn a Sanctuary in play goes to the discard pile."""
    if g["sanctuary"][player]:
        g["discard"].append(g["sanctuary"][player])
        g["sanctuary"][player] = None
        return [{"type": "sanctuary_ends", "player": player}]
    return []


def why_not_play(cat: Catalogue, g: dict, player: str, args: list[str]) -> str | None:
    hand, altar = g["hands"][player], g["altars"][player]
    found = cat.find(args[0], hand)
    if not found:
        if cat.known(args[0]):
            return f"you hold no '{args[0]}' (your hand: {hand_words(cat, hand, g)})"
        return f"'{args[0]}' is not a card of this game"
    eff = cat.effect(found[0])
    if eff == "block":
        return ("Block is not played as an action: it stops a steal from your altar, as your standing "
                "order says (`block any steal`, `block steals of GOD`, `never block`)")
    if eff == "sanctuary" and g["sanctuary"][player]:
        return "your Sanctuary is already in play"
    if eff in ("move", "swap"):
        rest = [a for a in args[1:] if a not in ("for", "from") and a not in g["players"]]
        if eff == "swap" and rest:
            mine = cat.find(rest[0], altar)
            if not mine:
                return f"'{rest[0]}' is not on your altar (name your god first: play exchange YOURGOD for GOD)"
            if cat.is_ruler(mine[0]):
                return "Rulers never leave an altar except by scoring"
            rest = rest[1:]
        if rest:
            where = [(v, c) for v in others(g, player) for c in cat.find(rest[0], g["altars"][v])]
            if not where:
                return f"no other player's altar holds '{rest[0]}'"
            if all(cat.is_ruler(c) for _, c in where):
                return "Rulers never leave an altar except by scoring"
        elif eff == "move" and not any(cat.movable(c) for v in others(g, player) for c in g["altars"][v]):
            return "no other altar holds a god that can be moved (Rulers never leave an altar)"
    return None
