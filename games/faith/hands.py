"""Faith leaving a hand: the one rule for which chips pay (CHOICE 183).

The text lets a god pay with any chips in her hand, her own belief's or another's she holds
("A Player holding Faith of another Belief CAN use these Faith chips to pay for any of these
Action EXCEPT for attacking or defending a direct attack", L619; "Faith in player's hand can
be traded freely", L171), and says nothing of which chips go first: in the board game the
payer picks them. An email order names an amount, so the engine picks, always in one order:
the paying position's own chips (both beliefs of a covenant), then the player's other
beliefs' chips (her other position), then the other beliefs' chips she holds, by name. A line
that names a belief (`give 5 odin to bob`) pays with that belief's chips only; a Direct Attack
wager only with the position's own chips (CHOICE 68).

Every payment uses `take` (chips out of the hand: gifts, trade legs, wagers) or `pay` (into
the Soul Bank: costs, bids, Armies of God): negotiation, auction, battle, divine, contests,
duels and the rules' `give`.
"""

from __future__ import annotations

from . import positions
from .world import bank, to_hand


def own_chips(g: dict, player: str, pos: str | None = None) -> list[str]:
    """The beliefs whose chips are "one's own" for a payment, in the order they pay: the paying
    position's (a covenant's two), then the player's other beliefs."""
    first = positions.members(g, positions.lead(g, pos)) if pos in g["beliefs"] else []
    return first + [b for b in positions.beliefs_of(g, player) if b not in first]


def order(g: dict, player: str, pos: str | None = None, own_only: bool = False) -> list[str]:
    """The beliefs of the chips in the hand, in the order they pay (CHOICE 183). own_only: the
    position's own chips only (the player's own if no position is named)."""
    hand = g["hands"].get(player, {})
    if own_only:
        mine = positions.members(g, positions.lead(g, pos)) if pos in g["beliefs"] else positions.beliefs_of(g, player)
        return [b for b in mine if b in hand]
    mine = own_chips(g, player, pos)
    return [b for b in mine if b in hand] + sorted(b for b in hand if b not in mine)


def available(g: dict, player: str, pos: str | None = None, own_only: bool = False) -> int:
    """How much the hand can pay under `take`'s rule."""
    hand = g["hands"].get(player, {})
    return sum(hand[b] for b in order(g, player, pos, own_only))


def take(g: dict, player: str, n: int, pos: str | None = None, belief: str | None = None,
         own_only: bool = False) -> dict[str, int]:
    """Take n chips out of `player`'s hand (CHOICE 183): of `belief` only when one is named,
    else in `order`. Returns them by belief; the caller puts them where they go. The amount
    is checked before (a ValueError here is a rules bug)."""
    if belief:
        to_hand(g, player, belief, -n)
        return {belief: n} if n else {}
    hand = g["hands"][player]
    chips: dict[str, int] = {}
    left = n
    for b in order(g, player, pos, own_only):
        if not left:
            break
        k = min(hand[b], left)
        if k:
            to_hand(g, player, b, -k)
            chips[b] = k
            left -= k
    if left:
        for b, k in chips.items():   # leave the hand as it was
            to_hand(g, player, b, k)
        raise ValueError(f"{player} cannot pay {n}")
    return chips


def pay(g: dict, player: str, n: int, pos: str | None = None, belief: str | None = None) -> dict[str, int]:
    """Pay n from a hand into the Soul Bank (costs, bids, Armies of God): `take`, banked."""
    chips = take(g, player, n, pos, belief)
    for b, k in chips.items():
        bank(g, b, k)
    return chips
