"""The cards as cards: drawing (the discard pile reshuffled when the deck is out), discarding
down to the hand limit, and the standing orders by which a player reacts in another's turn
(`abjure` for Abjuration, `resurrect` for Resurrection); an Abjuration negating a card.
What a card does when played is in miracles.py."""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .order_cache import OrderCache, card_tokens


def after_in_order(g: dict, p: str) -> list[str]:
    """The other players still in, in turn order starting after p."""
    order = g["order"]
    i = order.index(p)
    return [q for q in order[i + 1:] + order[:i] if q not in g["out"]]


def draw(g: dict, player: str, n: int, rng: Rng) -> list[Event]:
    drawn = []
    events: list[Event] = []
    for _ in range(n):
        if not g["deck"]:
            if not g["discard"]:
                break
            g["deck"], g["discard"] = g["discard"], []
            rng.shuffle(g["deck"])
            events.append({"type": "shuffle", "what": "discard pile into a new deck", "cards": len(g["deck"])})
        drawn.append(g["deck"].pop(0))
    g["hands"][player] += drawn
    events.append({"type": "draw", "player": player, "count": len(drawn), "wanted": n, "hand": len(g["hands"][player])})
    events.append({"type": "drew", "to": player, "player": player, "cards": drawn})
    return events


def discard_orders(oc: OrderCache, g: dict, player: str) -> list[Order]:
    return [oc.card_order("discard", card) for card in sorted(set(g["hands"][player]))]


def discard(g: dict, player: str, card: str) -> list[Event]:
    g["hands"][player].remove(card)
    g["discard"].append(card)
    return [{"type": "discard", "player": player, "card": card}]


# --- standing orders (reactions) -------------------------------------------------------
def standing_list(card_ids: list[str]) -> list[Order]:
    """Every standing order: abjure (a card, any card; on my hexes only), unabjure, resurrect N|off."""
    out = []
    for card in card_ids + ["any"]:
        tokens, opt = card_tokens("abjure", card)
        out.append(Order(tokens, ("abjure", card, False), opt))
        out.append(Order(tokens + ("on", "my", "hexes"), ("abjure", card, True), opt))
        tokens, opt = card_tokens("unabjure", card)
        out.append(Order(tokens, ("unabjure", card), opt))
    out.append(Order(("unabjure", "all"), ("unabjure", "all")))
    for n in range(1, 31):
        out.append(Order(("resurrect", str(n)), ("resurrect_at", n)))
    out.append(Order(("resurrect", "off"), ("resurrect_at", 0)))
    return out


def set_standing(g: dict, player: str, order: Order) -> list[Event]:
    st = g["standing"][player]
    kind = order.payload[0]
    if kind == "abjure":
        rule = {"card": order.payload[1], "mine": order.payload[2]}
        st["abjure"] = [r for r in st["abjure"] if r["card"] != rule["card"]] + [rule]
    elif kind == "unabjure":
        card = order.payload[1]
        st["abjure"] = [] if card == "all" else [r for r in st["abjure"] if r["card"] != card]
    else:
        st["resurrect"] = order.payload[1]
    return [{"type": "standing", "to": player, "player": player, "order": order.text,
             "abjure": [dict(r) for r in st["abjure"]], "resurrect": st["resurrect"]}]


def abjure_matches(g: dict, q: str, card: str, area: list[str]) -> bool:
    land = g["land"]
    for rule in g["standing"][q]["abjure"]:
        if rule["card"] not in (card, "any"):
            continue
        if rule["mine"] and not any(land[h]["owner"] == q for h in area if h in land):
            continue
        return True
    return False


def negated(g: dict, caster: str, card: str, area: list[str], events: list[Event]) -> bool:
    """Ask the players after the caster, in turn order, whether a standing abjure order
    of theirs negates the card (an Abjuration may itself be negated)."""
    for q in after_in_order(g, caster):
        if "abjuration" not in g["hands"][q] or not abjure_matches(g, q, card, area):
            continue
        g["hands"][q].remove("abjuration")
        g["discard"].append("abjuration")
        events.append({"type": "abjure", "player": q, "card": card, "against": caster})
        if negated(g, q, "abjuration", area, events):
            continue
        events.append({"type": "negated", "card": card, "player": caster, "by": q})
        return True
    return False
