"""The Jihad (L617, L312; spec 2.6 "Jihad auction", CHOICE 22, 67).

"A player can take control of the Infidels for the entire next Era. The God declares a Jihad
and places 10 Faith in front of him/her on her Power Disc. Every other God then can bid and
wager to try to win the attempt (as in the rules for Initiative). The winner places one
Infidel Militia chip from the Soul Bank on his/her Power Disc in front of her. Over the
entire next Era, he she controls the Infidels and moves the infidel population and militia
as wanted. Movement and attacks are performed first, before the first player in the Action
Phase." (L617) "If a player has Jihad from the previous Divine Power Phase, the player who
has the Jihad can place the 5 new infidels where he/she wants." (L312)

Here, with rules.py dispatching to it:

* `jihad max N` (N >= 10) is a Phase 6 intervention, sealed like the others (its maximum is
  a private order). Executed in initiative order (CHOICE 61/62): the first Jihad of an era
  opens the contest; a later one lapses unpaid (CHOICE 67); the declarer needs 10 in hand.
* The contest: flow phase "contest", g["pending"]["contest"] = {"kind": "jihad", ...} (the
  Direct Attack and Judgement contests share the phase and key on "kind"). Every other
  position not in limbo whose hand can match the opening 10 is asked for a sealed `bid N`;
  the auction of auction.py is played with the declarer as starter opening at 10; all
  stacks are spent; the winner holds the Jihad: g["jihad"] = {"holder": position, "era":
  next era}.
* In that era, while the holder lives and is not in limbo (CHOICE 67): Phase 1 opens with
  the flow phase "jihad" (the holder alone places the 5 new infidels, `infidel HEX` a line,
  any hex but dark sea, a hex at the infidel cap taking a militia, CHOICE 22; what is not
  placed is rolled as usual, CHOICE 123). In Phase 5 the infidels move and attack first in
  Movement and Battle (L475, CHOICE 124), through movement.py and battle.py with the
  infidels as the mover: pace=compact, the holder's `infidel move ...` / `infidel attack
  ...` lines of her Action submission run after every god's Conversion and before any god's
  Movement (rules.py's step 2.5); pace=live, the flow phase "infidels" asks her alone.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrderError, InvalidOrderError
from pbem.core.numbers import is_number
from pbem.core.orders import Order

from . import auction, positions
from .population import place_infidel, roll_infidels
from .world import hand_total

OPENING = 10


def holder(g: dict) -> str | None:
    """The position controlling the infidels this era, or None (no Jihad, or the holder is
    dead or in limbo: control lapses, CHOICE 67)."""
    j = g.get("jihad")
    if not j or j.get("era") != g["era"]:
        return None
    pos = j["holder"]
    if not positions.alive(g, pos) or positions.in_limbo(g, pos):
        return None
    return pos


def declared_this_era(g: dict) -> bool:
    j = g.get("jihad")
    return bool(j and j.get("era") == g["era"] + 1) or bool(g.get("pending", {}).get("contest", {}).get("kind") == "jihad")


# --- the declaration (a Phase 6 intervention) ----------------------------------------------

def parse_declaration(g: dict, player: str, pos: str, args: list[str]) -> Order:
    if len(args) != 2 or args[0] != "max":
        raise InvalidOrderError("expected `jihad max N` (N: your maximum bid, at least 10)")
    if not is_number(args[1]):
        raise InvalidOrderError(f"expected your maximum (a number), found '{args[1]}'")
    n = int(args[1])
    if n < OPENING:
        raise IllegalOrderError(f"a Jihad opens with {OPENING} faith: your maximum must be at least {OPENING}")
    if hand_total(g, player) < OPENING:
        raise IllegalOrderError(f"a Jihad opens with {OPENING} faith; your hand holds {hand_total(g, player)}")
    return Order(("jihad", "max", str(n)), ("jihad", n))


def declaration_examples(g: dict, player: str) -> list[Order]:
    hand = hand_total(g, player)
    if hand < OPENING:
        return []
    return [Order(("jihad", "max", str(n)), ("jihad", n)) for n in sorted({OPENING, max(OPENING, hand // 2)})]


def declare(rules, state: dict, player: str, pos: str, n: int) -> list[dict]:
    """Execute a declaration in its turn of Phase 6: open the contest (or lapse, unpaid)."""
    g = state["game"]
    if declared_this_era(g):
        return [{"type": "intervention_lapsed", "belief": pos, "player": player, "power": "jihad",
                 "reason": "only one Jihad may be declared an era"}]
    if hand_total(g, player) < OPENING:
        return [{"type": "intervention_lapsed", "belief": pos, "player": player, "power": "jihad",
                 "reason": f"a Jihad opens with {OPENING} faith"}]
    order = rules.order(g)
    i = order.index(pos) if pos in order else 0
    ring = [pos] + [p for p in order[i + 1:] + order[:i] if p != pos]
    g.setdefault("pending", {})["contest"] = {"kind": "jihad", "declarer": pos, "player": player, "max": n,
                                              "bidders": ring, "bids": {}}
    # asked: the other positions' players whose hand can match the opening (a real decision)
    asked: list[str] = []
    for p in ring[1:]:
        pl = positions.controller(g, p)
        if hand_total(g, pl) >= OPENING and pl not in asked:
            asked.append(pl)
    state["flow"].update(phase="contest", active=asked, sealed=True,
                         prompt=(f"era {g['era']}, Phase 6: the {rules.tab.beliefs[pos]['name']} declare a Jihad (opening {OPENING}): your sealed "
                                 f"maximum `bid N` to win control of the infidels next era (N at least {OPENING}; "
                                 f"every stack is spent), or `done`"))
    return [{"type": "jihad_declared", "belief": pos, "player": player, "opening": OPENING,
             "era": g["era"] + 1}]


# --- the contest phase ("contest", kind "jihad") --------------------------------------------

def _mine(g: dict, player: str) -> list[str]:
    c = g["pending"]["contest"]
    return [p for p in c["bidders"][1:] if positions.controller(g, p) == player]


def contest_orders(rules, state: dict, player: str) -> list[Order]:
    g = state["game"]
    hand = hand_total(g, player)
    mine = [p for p in _mine(g, player) if p not in g["pending"]["contest"]["bids"]]
    if hand < OPENING or not mine:
        return []
    amounts = sorted({OPENING, max(OPENING, hand // 3), max(OPENING, hand // 2)})
    out = []
    for p in mine:
        for n in amounts:
            out.append(Order(("bid", str(n)) + ((p,) if len(_mine(g, player)) > 1 else ()), ("bid", n, p)))
    return out


def parse_bid(rules, state: dict, player: str, args: list[str]) -> Order:
    g = state["game"]
    return auction.parse_sealed_bid(rules, g, args, _mine(g, player), each="may bid", scope=" in this Jihad")


def apply_contest(state: dict, player: str, order: Order) -> list[dict]:
    g = state["game"]
    if order.verb == "bid":
        g["pending"]["contest"]["bids"][order.payload[2]] = order.payload[1]
        return []
    if player in state["flow"]["active"]:
        state["flow"]["active"].remove(player)
    return []


def end_contest(rules, state: dict) -> list[dict]:
    """All answers in: the auction (declarer first, opening 10), stacks spent, the holder named."""
    g = state["game"]
    c = g["pending"].pop("contest")
    maxima = dict(c["bids"])
    maxima[c["declarer"]] = c["max"]
    ring = [p for p in c["bidders"] if positions.alive(g, p) and not positions.in_limbo(g, p)]
    res = auction.run_proxy(g, "jihad", ring, maxima, OPENING)
    events = res["events"]
    win = res["winner"] or c["declarer"]
    g["jihad"] = {"holder": win, "era": g["era"] + 1}
    events.append({"type": "jihad_won", "belief": win, "player": positions.controller(g, win),
                   "stack": res["stacks"].get(win, 0), "era": g["era"] + 1})
    return events


# --- Phase 1: the holder places the 5 new infidels ("jihad") ---------------------------------

def open_placement(state: dict, pos: str, n: int) -> list[dict]:
    g = state["game"]
    g.setdefault("pending", {})["placement"] = {"holder": pos, "left": n}
    state["flow"].update(phase="jihad", active=[positions.controller(g, pos)], sealed=False,
                         prompt=(f"era {g['era']}, Phase 1: your Jihad: place the {n} new infidels, `infidel HEX` "
                                 f"a line (any hex but dark sea; a hex at the cap takes a militia), then `done` "
                                 f"(what you leave is rolled as usual)"))
    return [{"type": "jihad_placement", "belief": pos, "player": positions.controller(g, pos), "n": n}]


def placement_orders(tab, g: dict) -> list[Order]:
    if not g.get("pending", {}).get("placement", {}).get("left"):
        return []
    return [Order(("infidel", h), ("infidel", h)) for h in tab.world.order if h in g["hexes"]]


def place(tab, state: dict, player: str, hid: str) -> list[dict]:
    g = state["game"]
    pl = g["pending"]["placement"]
    pl["left"] -= 1
    ev = place_infidel(tab, g, hid)
    ev.update(by=pl["holder"], jihad=True)
    # the holder stays asked after her last infidel: her `done` (the prompt asks for it) ends
    # her part, or the engine's default `done` does when she leaves it out
    return [ev]


def end_placement(tab, state: dict, rng) -> list[dict]:
    """What the holder did not place is rolled as usual (CHOICE 123)."""
    g = state["game"]
    pl = g["pending"].pop("placement")
    return roll_infidels(tab, g, pl["left"], rng) if pl["left"] > 0 else []


# --- Phase 5: the infidels' turn ("infidels") ------------------------------------------------

def open_infidel_turn(state: dict, pos: str) -> list[dict]:
    """pace=live: when Movement and Battle begins, the holder alone moves and attacks with the
    infidels (flow phase "infidels"), before the initiative holder (L475, CHOICE 124)."""
    g = state["game"]
    state["flow"].update(phase="infidels", active=[positions.controller(g, pos)], sealed=False,
                         prompt=(f"era {g['era']}, Phase 5, Movement and Battle: your Jihad: the infidels move and "
                                 f"attack first -- `move N KIND HEX -> HEX`, `attack HEX OWNER with N KIND FROM` "
                                 f"(or the same after `infidel`) with infidel pieces, then `done`"))
    return []


