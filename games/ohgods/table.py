"""Oh Gods!: the table. The deck, the hands and the discard pile: dealing a hand, drawing to
six (and the final round the last card of the deck starts), discarding; and the seat order of
the other players.
"""

from __future__ import annotations

from itertools import combinations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .cards import HIDDEN, Catalogue, uncertain


def others(g: dict, player: str) -> list[str]:
    """The other players, in seat order from `player`'s left."""
    players = g["players"]
    i = players.index(player)
    return [players[(i + k) % len(players)] for k in range(1, len(players))]


def hand_words(cat: Catalogue, hand: list[str], g: dict | None = None) -> str:
    """A hand as the words that name its cards, for error messages. A card that checking the
    orders drew for one outcome (`draw`) is shown as unseen: it is no more than a guess."""
    guessed = (g or {}).get("guessed", [])
    return ", ".join(cat.tok(HIDDEN) if c in guessed else cat.tok(c) for c in hand) or "nothing"


def deal(cat: Catalogue, g: dict, rng: Rng, first: str) -> list[Event]:
    """Shuffle every card, clear the altars, sets, Sanctuaries and Mastery cards, and deal each
    player a hand, starting with `first`."""
    players = g["players"]
    deck = list(cat.deck_ids)
    rng.shuffle(deck)
    g.update(deck=deck, discard=[], final=None)
    for p in players:
        g["hands"][p], g["altars"][p], g["sets"][p], g["sanctuary"][p] = [], [], [], None
    g["mastery"] = {d: None for d in cat.domains}
    start = players.index(first)
    order = players[start:] + players[:start]
    for _ in range(cat.r["hand_size"]):
        for p in order:
            g["hands"][p].append(g["deck"].pop(0))
    events: list[Event] = [{"type": "new_hand", "hand": g["hand"], "of": cat.r["hands"], "first": first,
                            "cards": len(cat.deck_ids), "deck": len(g["deck"]), "each": cat.r["hand_size"]}]
    for p in order:
        events.append({"type": "dealt", "player": p, "cards": cat.names(g["hands"][p]), "to": p})
    return events


def draw(cat: Catalogue, g: dict, player: str, n: int, rng: Rng, during_turn: bool = True) -> list[Event]:
    drawn = []
    while len(drawn) < n and g["deck"]:
        drawn.append(g["deck"].pop(0))
    if not drawn:
        return []
    if HIDDEN in drawn and during_turn:  # checking orders: later lines may name the card drawn
        uncertain(rng)
        pool = g.get("unseen") or []
        # one outcome of the draw: an unseen card, picked by the check's dice -- the first one
        # in turn over the outcomes (outcome k draws the k-th unseen card), so every card the
        # draw may bring is met in some outcome while there are no more than the outcomes
        picked = []
        for c in drawn:
            if c != HIDDEN or not pool:
                picked.append(c)
            elif rng.world is not None and not g.get("spread"):
                g["spread"] = True
                picked.append(pool.pop(rng.world % len(pool)))
            else:
                picked.append(pool.pop(rng.randbelow(len(pool))))
        drawn = picked
        g.setdefault("guessed", []).extend(c for c in drawn if c != HIDDEN)
    g["hands"][player].extend(drawn)
    events: list[Event] = [
        {"type": "draw", "player": player, "cards": cat.names(drawn), "to": player},
        {"type": "draws", "player": player, "count": len(drawn), "deck": len(g["deck"])},
    ]
    if not g["deck"] and not g["final"]:
        events += start_final(g, player, "drew the last card of the deck")
    return events


def start_final(g: dict, player: str, reason: str) -> list[Event]:
    """The final round: every other player has one last turn, in seat order."""
    remaining = others(g, player)
    g["final"] = {"trigger": player, "reason": reason, "remaining": remaining}
    return [{"type": "final_round", "player": player, "reason": reason, "remaining": list(remaining)}]


# --- discarding ---------------------------------------------------------------------------------
def discard_orders(cat: Catalogue, hand: list[str]) -> list[Order]:
    cards = [c for c in hand if cat.cards[c]["kind"] != "hidden"]
    out = [Order(("discard", cat.tok(c)), ("discard", (c,))) for c in cards]
    for a, b in combinations(cards, 2):
        out.append(Order(("discard", cat.tok(a), cat.tok(b)), ("discard", (a, b))))
    return out


def discard(cat: Catalogue, g: dict, player: str, cards: tuple) -> list[Event]:
    hand = g["hands"][player]
    for c in cards:
        hand.remove(c)
        g["discard"].append(c)
    return [{"type": "discard", "player": player, "cards": cat.names(cards)}]


def why_not_discard(cat: Catalogue, g: dict, player: str, args: list[str]) -> str | None:
    hand = g["hands"][player]
    left = list(hand)
    for t in args:
        found = cat.find(t, left)
        if not found:
            return f"you hold no '{t}' (your hand: {hand_words(cat, hand, g)})"
        left.remove(found[0])
    return None
