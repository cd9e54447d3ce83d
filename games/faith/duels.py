"""Hero duels at the end of Phase 6 (L235, L664; CHOICE 70).

"No two Heros can occupy the same hex at any time. If two Heros are in the same hex in the
Divine Power Phase of an Era one must die. If the Heros are two of one Belief, the controlling
God decides which is removed. If two heroes of different Beliefs are in the same hex at the
end of the Era, the controlling Gods can negotiate which dies. If they cannot agree they roll
a dice each. Any other God can wager, secretly under his/her palm from his or her hand to add
to the amount rolled (all wagered Faith go to the soul bank after). The highest die
roll+points placed by other players wins and survives the other is removed from the board."

* Heroes of one position (a covenant is one belief) in a hex: identical, the later ones are
  removed at once (CHOICE 70).
* Heroes of different positions: one sealed flow phase "duel" for all the hexes. The owners
  may `yield HEX` (their hero there dies: the agreement); every other god may `wager N for
  HEX BELIEF` from her hand (any chips, own first: CHOICE 35); the owners may not wager on
  their own duel. If exactly one owner yields, her hero dies (CHOICE 70). Otherwise each rolls
  a die plus the wagers for her hero; the highest survives, a tie at the top rolls again (the
  wagers stay) (CHOICE 70).
* CHOICE 163: three or more heroes of different positions in a hex: the yielded ones die
  (unless every one yields); the rest all roll at once, the highest survives.
* CHOICE 164: the wagers on a duel are banked after its roll; a duel the owners settle by a
  yield has no roll, and its wagers go back to their wagerers.
* CHOICE 165: an owner in limbo is not asked (she cannot yield; her hero rolls); wagers are
  sealed and revealed in the result.
"""

from __future__ import annotations

from . import contests, hands, positions
from .battle import kill_unit
from .tables import Tables
from .world import bank, to_hand


def same_position_check(tab: Tables, g: dict) -> list[dict]:
    """Heroes of one position sharing a hex: all but the first are removed."""
    events: list[dict] = []
    for hid in sorted({x["h"] for x in g["units"].values() if x["k"] == "hero"}):
        seen: set[str] = set()
        for u in sorted((u for u, x in g["units"].items() if x["h"] == hid and x["k"] == "hero"),
                        key=lambda u: int(u[1:])):
            pos = positions.lead(g, g["units"][u]["o"])
            if pos in seen:
                events += kill_unit(tab, g, u, "heroes")
            else:
                seen.add(pos)
    return events


def find(g: dict) -> list[dict]:
    """The duels: every hex with heroes of two or more positions."""
    by_hex: dict[str, list[str]] = {}
    for u, x in g["units"].items():
        if x["k"] == "hero":
            by_hex.setdefault(x["h"], []).append(u)
    out = []
    for hid in sorted(by_hex):
        heroes = sorted(by_hex[hid], key=lambda u: int(u[1:]))
        if len(heroes) > 1:
            beliefs = [positions.lead(g, g["units"][u]["o"]) for u in heroes]
            out.append({"at": hid, "heroes": heroes, "beliefs": beliefs,
                        "owners": [positions.controller(g, b) for b in beliefs]})
    return out


def open_duels(g: dict, duels: list[dict]) -> list[str]:
    """Start the sealed phase; returns who is asked."""
    g.setdefault("pending", {})["duel"] = {"duels": duels, "yields": [], "stakes": []}
    asked = []
    for p in positions.players_in_order(g):
        if p not in asked:
            asked.append(p)
    return asked


def held(g: dict) -> dict[str, int]:
    """The wagers held on the duels, by belief (contests.held)."""
    return contests.held(g, "duel")


def yields_for(g: dict, player: str) -> list[str]:
    """The hexes where `player` may still yield a hero (an owner not in limbo)."""
    d = g["pending"]["duel"]
    out = []
    for x in d["duels"]:
        for b, o in zip(x["beliefs"], x["owners"]):
            if o == player and not positions.in_limbo(g, b) and [x["at"], b] not in d["yields"]:
                out.append((x["at"], b))
    return out


def yield_check(g: dict, player: str, hid: str) -> str | None:
    """Why `player` cannot `yield HID` in the duels open now (None: she can): a duel of
    heroes there, a hero of hers in it, her belief not in limbo, not yielded already."""
    d = g["pending"]["duel"]
    duel = next((x for x in d["duels"] if x["at"] == hid), None)
    if duel is None:
        at = ", ".join(x["at"] for x in d["duels"])
        return f"there is no duel of heroes at {hid} (the duels are at {at})"
    mine = [b for b, o in zip(duel["beliefs"], duel["owners"]) if o == player]
    if not mine:
        return (f"you have no hero in the duel at {hid}: only the owners of the duelling heroes yield "
                f"(`wager N for {hid} BELIEF` backs one)")
    if all(positions.in_limbo(g, b) for b in mine):
        return "your belief is in limbo: it negotiates nothing this era, and its hero fights by the dice"
    if all([hid, b] in d["yields"] for b in mine):
        return f"you have yielded at {hid} already"
    return None


def yield_hero(g: dict, player: str, hid: str) -> list[dict]:
    d = g["pending"]["duel"]
    for at, b in yields_for(g, player):
        if at == hid:
            d["yields"].append([hid, b])
            break
    return [{"type": "yielded", "player": player, "at": hid, "to": player}]


def wager_targets(g: dict, player: str) -> list[tuple[str, str]]:
    """(hex, belief) pairs `player` may wager on: duels she has no hero in."""
    d = g["pending"]["duel"]
    return [(x["at"], b) for x in d["duels"] if player not in x["owners"] for b in x["beliefs"]]


def wager_check(g: dict, player: str, n: int, hid: str, belief: str) -> str | None:
    d = g["pending"]["duel"]
    duel = next((x for x in d["duels"] if x["at"] == hid), None)
    if duel is None:
        return f"there is no duel of heroes at {hid}"
    if player in duel["owners"]:
        return "the owners of the duelling heroes do not wager on their duel"
    if positions.lead(g, belief) not in duel["beliefs"]:
        return f"the heroes at {hid} are of the {' and the '.join(duel['beliefs'])}"
    if n < 1:
        return "wager at least 1 faith"
    have = sum(g["hands"][player].values())
    if n > have:
        return f"your hand holds {have} faith"
    return None


def wager(g: dict, player: str, n: int, hid: str, belief: str) -> list[dict]:
    d = g["pending"]["duel"]
    belief = positions.lead(g, belief)
    chips = hands.take(g, player, n)   # any chips of the hand, own first (CHOICE 35, 183)
    for s in d["stakes"]:
        if s["player"] == player and s["at"] == hid and s["belief"] == belief:
            for b, k in chips.items():
                s["chips"][b] = s["chips"].get(b, 0) + k
            break
    else:
        d["stakes"].append({"player": player, "at": hid, "belief": belief, "chips": chips})
    return [{"type": "duel_wagered", "player": player, "at": hid, "belief": belief, "faith": n, "to": player}]


def resolve(tab: Tables, g: dict, rng) -> list[dict]:
    d = g["pending"].pop("duel")
    events: list[dict] = []
    for x in d["duels"]:
        hid = x["at"]
        alive = [(u, b) for u, b in zip(x["heroes"], x["beliefs"]) if u in g["units"]]
        stakes = [s for s in d["stakes"] if s["at"] == hid]
        yielded = [(u, b) for u, b in alive if [hid, b] in d["yields"]]
        ev = {"type": "duel", "at": hid, "beliefs": [b for _, b in alive],
              "yielded": [b for _, b in yielded],
              "wagers": [{"player": s["player"], "belief": s["belief"], "faith": sum(s["chips"].values())}
                         for s in stakes], "rolls": []}
        if len(alive) < 2:
            for s in stakes:
                for b, k in s["chips"].items():
                    to_hand(g, s["player"], b, k)
            continue
        if yielded and len(yielded) < len(alive):
            # the owners agreed: the yielded heroes die (CHOICE 70, 163)
            rest = [(u, b) for u, b in alive if (u, b) not in yielded]
            kills: list[dict] = []
            for u, _b in yielded:
                kills += kill_unit(tab, g, u, "heroes")
            if len(rest) == 1:   # no roll: the wagers go back (CHOICE 164)
                for s in stakes:
                    for b, k in s["chips"].items():
                        to_hand(g, s["player"], b, k)
                ev["survivor"] = rest[0][1]
                events += [ev] + kills
                continue
            events += kills
            alive = rest
        plus = {b: sum(sum(s["chips"].values()) for s in stakes if s["belief"] == b) for _, b in alive}
        for s in stakes:
            for b, k in s["chips"].items():
                bank(g, b, k)
        field = list(alive)
        while len(field) > 1:
            roll = {b: rng.die(6) for _, b in field}
            ev["rolls"].append({b: [roll[b], roll[b] + plus[b]] for _, b in field})
            top = max(roll[b] + plus[b] for _, b in field)
            field = [(u, b) for u, b in field if roll[b] + plus[b] == top]
        ev["survivor"] = field[0][1]
        events.append(ev)
        for u, b in alive:
            if (u, b) != field[0]:
                events += kill_unit(tab, g, u, "heroes")
    return events
