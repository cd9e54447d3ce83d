"""Oh Gods!: the Mastery cards. The first player to form a set of a domain in a hand gains
that domain's Mastery card (`claim`); each card gives its holder an ability (data.toml,
`domains.*.ability`): six are free actions, used at most once a turn (`mastery_orders`,
`use_mastery`, `why_not_mastery`), two change what a steal needs (`holds`, read by steals.py).
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .cards import PASSIVE, Catalogue
from .table import draw, hand_words


def holds(cat: Catalogue, g: dict, player: str, ability: str) -> str | None:
    """The domain whose Mastery card `player` holds with that ability, if any."""
    for d in cat.domains:
        if g["mastery"][d] == player and cat.domains[d]["ability"] == ability:
            return d
    return None


def claim(cat: Catalogue, g: dict, player: str, element: str) -> list[Event]:
    """A set of `element` was just formed: its Mastery card, if it is a domain nobody holds yet."""
    if element in cat.domains and g["mastery"][element] is None:
        g["mastery"][element] = player
        return [{"type": "mastery", "player": player, "domain": cat.element_names[element],
                 "text": cat.domains[element]["text"]}]
    return []


def mastery_orders(cat: Catalogue, g: dict, player: str) -> list[Order]:
    out = []
    used = g["turn"]["free_used"]
    hand = [c for c in g["hands"][player] if cat.cards[c]["kind"] != "hidden"]
    altar = g["altars"][player]
    for d in cat.domains:
        if g["mastery"][d] != player or d in used:
            continue
        ability = cat.domains[d]["ability"]
        if ability == "extra_action":
            out.append(Order(("mastery", d), ("mastery", d, ability)))
        elif ability == "free_play":
            out += [Order(("mastery", d, cat.tok(c)), ("mastery", d, ability, c)) for c in hand if cat.godlike(c)]
        elif ability == "cycle" and g["deck"]:
            out += [Order(("mastery", d, cat.tok(c)), ("mastery", d, ability, c)) for c in hand]
        elif ability == "discard_swap" and g["discard"]:
            out += [Order(("mastery", d, cat.tok(c)), ("mastery", d, ability, c)) for c in hand]
        elif ability == "raise" and g["discard"] and cat.godlike(g["discard"][-1]):
            out.append(Order(("mastery", d), ("mastery", d, ability)))
        elif ability == "altar_swap":
            for a in altar:
                if cat.movable(a):
                    out += [Order(("mastery", d, cat.tok(a), "for", cat.tok(h)), ("mastery", d, ability, a, h))
                            for h in hand if cat.godlike(h)]
    return out


def use_mastery(cat: Catalogue, g: dict, player: str, p: tuple, rng: Rng) -> list[Event]:
    """A Mastery card's free action (it does not count as one of the turn's actions)."""
    d, ability = p[1], p[2]
    g["turn"]["free_used"].append(d)
    hand, altar = g["hands"][player], g["altars"][player]
    ev: Event = {"type": "mastery_used", "player": player, "domain": cat.element_names[d], "ability": ability}
    events: list[Event] = [ev]
    if ability == "extra_action":
        g["turn"]["actions_left"] += 1
        ev["actions_left"] = g["turn"]["actions_left"]
    elif ability == "free_play":
        card = p[3]
        hand.remove(card)
        altar.append(card)
        ev["card"] = cat.name(card)
    elif ability == "cycle":
        card = p[3]
        hand.remove(card)
        g["discard"].append(card)
        ev["card"] = cat.name(card)
        events += draw(cat, g, player, 1, rng)
    elif ability == "discard_swap":
        card = p[3]
        top = g["discard"].pop()
        hand.remove(card)
        hand.append(top)
        g["discard"].append(card)
        ev.update(card=cat.name(card), took=cat.name(top))
    elif ability == "raise":
        top = g["discard"].pop()
        altar.append(top)
        ev["card"] = cat.name(top)
    elif ability == "altar_swap":
        a, h = p[3], p[4]
        altar[altar.index(a)] = h
        hand[hand.index(h)] = a
        ev.update(card=cat.name(a), played=cat.name(h))
    else:  # pragma: no cover
        raise ValueError(f"unknown ability {ability}")
    return events


def why_not_mastery(cat: Catalogue, g: dict, player: str, args: list[str]) -> str | None:
    hand, altar = g["hands"][player], g["altars"][player]
    hits = [d for d in cat.domains if d.startswith(args[0])]
    if len(hits) != 1:
        return f"'{args[0]}' is not a domain ({', '.join(cat.domains)})"
    d = hits[0]
    dname = cat.element_names[d]
    holder = g["mastery"][d]
    if holder != player:
        return f"you do not hold the Mastery of {dname} ({'held by ' + holder if holder else 'nobody holds it yet'})"
    ability = cat.domains[d]["ability"]
    if ability in PASSIVE:
        return f"the Mastery of {dname} is not an action: {cat.domains[d]['text']}"
    if d in g["turn"]["free_used"]:
        return f"you have used the Mastery of {dname} this turn (each free action at most once a turn)"
    if ability == "cycle" and not g["deck"]:
        return "the deck is empty"
    if ability in ("discard_swap", "raise") and not g["discard"]:
        return "the discard pile is empty"
    if ability == "raise" and not cat.godlike(g["discard"][-1]):
        return f"the top of the discard pile ({cat.name(g['discard'][-1])}) is not a god card"
    if ability in ("free_play", "cycle", "discard_swap") and len(args) > 1:
        if not cat.find(args[1], hand):
            return f"you hold no '{args[1]}' (your hand: {hand_words(cat, hand, g)})"
        if ability == "free_play":
            return "only a god card (or Immortalized) is played with the Mastery of Sun"
    if ability == "altar_swap" and len(args) > 1:
        a = cat.find(args[1], altar)
        if not a:
            return f"'{args[1]}' is not on your altar (name your altar god first, then the one in your hand)"
        if cat.is_ruler(a[0]):
            return "Rulers never leave an altar except by scoring"
        if len(args) > 3 and not any(cat.godlike(c) for c in cat.find(args[3], hand)):
            return f"you hold no god card '{args[3]}'"
    return None
