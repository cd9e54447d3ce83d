"""Ye Gods!: step 2, purchasing with donatives -- ordaining a priest (in a province the god
owns, at most one priest on the board per province owned) or buying a god card, 5 donatives
each: the orders, their effects, and why a typed one is illegal.

Plain functions over the game state `g` and the static `World` `w`.
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .board import best_owned, owned, place_priest, priests_on_board
from .cards import draw_card
from .world import World


def can_buy_priest(w: World, g: dict, god: str) -> bool:
    return (g["donatives"][god] >= int(w.rules["priest_cost"]) and g["supply"]["priests"][god] > 0
            and priests_on_board(g, god) < len(owned(w, g, god)))


def buy_orders(w: World, g: dict, god: str) -> list[Order]:
    out = []
    if can_buy_priest(w, g, god):
        out.append(Order(("buy", "priest"), ("buy_priest", best_owned(w, g, god))))
        out += [Order(("buy", "priest", p), ("buy_priest", p)) for p in owned(w, g, god)]
    if g["donatives"][god] >= int(w.rules["card_cost"]) and (g["deck"] or g["discard"]):
        out.append(Order(("buy", "card"), ("buy_card",)))
    return out


def pay(g: dict, god: str, cost: int) -> None:
    if g["donatives"][god] < cost:  # legal_orders prevents this; guard the invariant
        raise ValueError("cannot pay")
    g["donatives"][god] -= cost
    g["supply"]["donatives"] += cost


def buy_priest(w: World, g: dict, god: str, prov: str) -> list[Event]:
    pay(g, god, int(w.rules["priest_cost"]))
    place_priest(g, god, prov)
    return [{"type": "buy_priest", "god": god, "at": prov, "cost": int(w.rules["priest_cost"]),
             "on_board": priests_on_board(g, god), "cap": len(owned(w, g, god))}]


def buy_card(w: World, g: dict, god: str, rng: Rng) -> list[Event]:
    pay(g, god, int(w.rules["card_cost"]))
    return [{"type": "buy_card", "god": god, "cost": int(w.rules["card_cost"])}] + draw_card(w, g, god, rng, bought=True)


def why_buy(w: World, g: dict, god: str, args: list[str]) -> str | None:
    """Why a typed `buy ...` is illegal in step 2 (None: it is not the reason)."""
    title = w.god_title[god]
    what = args[0] if args else ""
    cost = int(w.rules["priest_cost"])
    if "card".startswith(what) and what:
        if g["donatives"][god] < int(w.rules["card_cost"]):
            return f"a god card costs {w.rules['card_cost']} donatives; {title} has {g['donatives'][god]}"
        return "no god card is left to draw"
    if g["donatives"][god] < cost:
        return f"a priest costs {cost} donatives; {title} has {g['donatives'][god]}"
    if g["supply"]["priests"][god] <= 0:
        return f"all {w.pieces['priests_per_god']} of {title}'s priests are in play"
    mine = owned(w, g, god)
    if priests_on_board(g, god) >= len(mine):
        return (f"a god may have 1 priest for every province owned: {title} owns {len(mine)} and has "
                f"{priests_on_board(g, god)} priests")
    if len(args) > 1:
        where = w.resolve_name(args[1], ("province", "desert"))
        if where and where not in mine:
            return f"a new priest is placed in a province {title} owns ({', '.join(mine)}), not in {where}"
    return None
