"""Limbo (L35, L637-641, L657, L666; spec 2.8): sentences in and out, and the destruction of
a position (a Direct Attack won by twice the defence).

A position in limbo (beliefs[b]["limbo"] on every member, `limbo_until` the era whose Phase 6
ends the sentence) gives no orders of Phases 1-6 (positions.turn_order skips it), takes no
part in negotiation, gives and takes no faith, does not bid; its pieces still defend with
their dice; it may wager to defend a Direct Attack made on it, may receive faith and its
player may claim victory (CHOICE 73).

* CHOICE 74: the sentence runs from at once to the end of the next era's Phase 6; a new
  sentence while in limbo adds one era.
"""

from __future__ import annotations

from . import positions
from .population import to_infidels
from .world import bank, remove_units


def sentence(g: dict, pos: str, why: str) -> list[dict]:
    """Send a position to limbo (or lengthen its sentence by an era, CHOICE 74)."""
    x = g["beliefs"][pos]
    if x["limbo"] and x.get("limbo_until") is not None:
        until = x["limbo_until"] + 1
        longer = True
    else:
        until = g["era"] + 1
        longer = False
    for b in positions.members(g, pos):
        g["beliefs"][b]["limbo"] = True
        g["beliefs"][b]["limbo_until"] = until
    return [{"type": "limbo", "belief": pos, "player": positions.controller(g, pos), "until": until,
             "why": why, "longer": longer}]


def release(g: dict) -> list[dict]:
    """End of Phase 6 (L666): every position whose sentence ends with this era comes back."""
    events = []
    for pos in positions.positions(g):
        x = g["beliefs"][pos]
        if x["limbo"] and (x.get("limbo_until") is None or x["limbo_until"] <= g["era"]):
            for b in positions.members(g, pos):
                g["beliefs"][b]["limbo"] = False
                g["beliefs"][b]["limbo_until"] = None
            events.append({"type": "limbo_over", "belief": pos, "player": positions.controller(g, pos)})
    return events


def destroy(g: dict, pos: str) -> list[dict]:
    """"All faith (population) on the board are turned to infidels and all units and special
    units except for fortifications are removed form the board. All Power discs and faith in
    the God's Hand are returned to the bank. The Belief is no more." (L635). CHOICE 160: the
    hand banked is the whole hand when the player has no other living position, else the
    chips of the destroyed belief(s) only (the other position keeps its hand)."""
    player = positions.controller(g, pos)
    beliefs = positions.members(g, pos)
    infidels = sum(to_infidels(g, b) for b in beliefs)
    removed = remove_units(g, beliefs)
    for b in beliefs:
        g["beliefs"][b]["alive"] = False
        g["beliefs"][b]["limbo"] = False
        g["beliefs"][b]["limbo_until"] = None
    others = positions.positions_of(g, player)
    hand = g["hands"][player]
    banked = 0
    for b in sorted(hand):
        if not others or b in beliefs:
            banked += hand[b]
            bank(g, b, hand.pop(b))
    return [{"type": "destroyed", "belief": pos, "player": player, "infidels": infidels, "units": removed,
             "hand": banked}]
