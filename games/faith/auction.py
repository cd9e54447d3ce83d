"""The text's poker-style all-pay auction (Phase 4 Initiative, L394-415; the Jihad, L617).

"Bidding begins with the last turns initiative winner. This God gambles a chosen value of
faith ... The next player, going around clockwise, does the same either matching, dropping
out(pass), or matching and raising. Think poker. If all match, the starting player must
either raise or drop out. Then the bidding continues. The last player in, then gains the
initiative ... All bid amounts ARE SPENT at the end of the bidding process and placed in the
soul bank." (L398-406)

Two ways to play it, one set of state and events:

* proxy (`bidding=proxy`, the default; CHOICE 33): each position sends one sealed maximum;
  `simulate` plays the text's procedure from the maxima, step by step (spec 2.4): the starter
  opens at 1 (a Jihad's declarer at 10), the others clockwise match while the amount is
  within their maximum or drop out (their stack stays), and when all have matched the
  starter raises by 1 or drops out; a starter who drops hands the role to the first
  remaining bidder clockwise after it (CHOICE 34). The last one in wins.
* live (`bidding=live`): `Live` asks one position at a time (`bid N` to match or raise,
  `pass` to drop out), in the same order, until one is left (CHOICE 121).

Either way every stack is spent to the Soul Bank (`spend`), the transcript is published as
public events (`transcript_events`: who opened, raised, matched, dropped, at what amount) and
the maxima that were never reached stay secret (CHOICE 36): the `bid` line itself is a
private order. Nothing here reads the board: pure functions of positions, maxima and hands.
"""

from __future__ import annotations

from pbem.core.errors import AmbiguousOrderError, IllegalOrderError, InvalidOrderError
from pbem.core.orders import Order

from . import positions
from .hands import pay
from .world import hand_total


def simulate(order: list[str], maxima: dict[str, int], opening: int = 1) -> dict:
    """The proxy auction. `order`: the bidders clockwise, the starter first; `maxima` each
    bidder's (already capped) maximum. Returns {"winner": position or None, "stacks": {...},
    "raw": [(act, position, amount), ...]}; winner None: "unresolvable" (nobody bid anything,
    or nobody could bid: L408, CHOICE 34)."""
    stacks = {p: 0 for p in order}
    raw: list[tuple[str, str, int]] = []
    if not order:
        return {"winner": None, "stacks": stacks, "raw": raw}
    if len(order) == 1:   # the only bidder from the start wins with a stack of 0
        return {"winner": order[0], "stacks": stacks, "raw": raw}
    if all(maxima.get(p, 0) < 1 for p in order):
        return {"winner": None, "stacks": stacks, "raw": raw}
    remaining = list(order)
    starter = order[0]
    current = 0

    def drop(p: str, at: int) -> str | None:
        """p drops out rather than pay `at`; returns the next remaining bidder clockwise."""
        raw.append(("drop", p, at))
        i = remaining.index(p)
        remaining.remove(p)
        return remaining[i % len(remaining)] if remaining else None

    # the opening: the starter opens, or drops out and hands the role on
    while current == 0 and len(remaining) > 1:
        if maxima.get(starter, 0) >= opening:
            current = stacks[starter] = opening
            raw.append(("open", starter, opening))
        else:
            starter = drop(starter, opening)
    actor = starter
    while len(remaining) > 1:
        i = remaining.index(actor)
        for p in remaining[i + 1:] + remaining[:i]:
            if stacks[p] == current:
                continue
            if maxima.get(p, 0) >= current:
                stacks[p] = current
                raw.append(("match", p, current))
            else:
                drop(p, current)
        if len(remaining) == 1:
            break
        # all matched: the starter must raise or drop out (L402)
        while len(remaining) > 1:
            if maxima.get(starter, 0) >= current + 1:
                current += 1
                stacks[starter] = current
                raw.append(("raise", starter, current))
                actor = starter
                break
            starter = drop(starter, current + 1)
            actor = starter
    return {"winner": remaining[0], "stacks": stacks, "raw": raw}


def compress(raw: list[tuple[str, str, int]]) -> list[dict]:
    """The transcript in readable steps: an opening, or a run of raises by one bidder each
    matched by the same others, is one step (with who matched it); every drop is a step."""
    out: list[dict] = []
    for act, p, n in raw:
        if act == "drop":
            out.append({"act": "drop", "pos": p, "at": n})
            continue
        if act == "match":
            last = next((s for s in reversed(out) if s["act"] in ("open", "raise")), None)
            if last is not None and last["to"] == n:
                last["matched"].append(p)
                continue
            out.append({"act": "match", "pos": p, "from": n, "to": n, "matched": []})
            continue
        prev = next((s["to"] for s in reversed(out) if s["act"] in ("open", "raise", "match")), 0)
        out.append({"act": act, "pos": p, "from": prev, "to": n, "matched": []})
    merged: list[dict] = []
    for s in out:
        m = merged[-1] if merged else None
        if (m and s["act"] == "raise" and m["act"] == "raise" and m["pos"] == s["pos"]
                and m["matched"] == s["matched"] and s["from"] == m["to"]):
            m["to"] = s["to"]
            continue
        merged.append(s)
    return merged


def transcript_events(g: dict, kind: str, steps: list[dict], stacks: dict[str, int]) -> list[dict]:
    """Public events, one per step of the transcript (the stack of a dropped bidder with it)."""
    who = positions.controller
    events: list[dict] = []
    for s in steps:
        p = s["pos"]
        e = {"type": f"bid_{s['act']}", "auction": kind, "belief": p, "player": who(g, p)}
        if s["act"] == "drop":
            e.update(at=s["at"], stack=stacks.get(p, 0))
        else:
            e.update(amount=s["to"], matched=list(s["matched"]))
            if s["act"] == "raise":
                e["from"] = s["from"]
        events.append(e)
    return events


def parse_sealed_bid(rules, g: dict, args: list[str], mine: list[str], each: str = "bids",
                     scope: str = "") -> Order:
    """`bid N [BELIEF]`, a sealed maximum of one of `mine` (the player's positions that may
    bid: the Initiative's, CHOICE 33, or a Jihad's, L617 "as in the rules for Initiative")."""
    if len(args) not in (1, 2):
        raise InvalidOrderError("expected `bid N` or `bid N BELIEF`")
    n = rules._int(args[0], "how much")
    if len(args) == 1 and len(mine) > 1:   # CHOICE 110: each position bids; say which
        raise AmbiguousOrderError(f"which of your positions does it bid for? Each {each}: "
                                  + " or ".join(f"`bid {n} {p}`" for p in mine))
    pos = rules._owner(g, args[1]) if len(args) == 2 else (mine[0] if mine else None)
    if pos not in mine:
        raise IllegalOrderError(f"you bid{scope} only for your own beliefs not in limbo ({', '.join(mine) or 'none'})")
    return Order(("bid", str(n)) + ((pos,) if len(mine) > 1 else ()), ("bid", n, pos))


def spend(g: dict, kind: str, stacks: dict[str, int]) -> list[dict]:
    """"All bid amounts ARE SPENT ... and placed in the soul bank" (L406): each stack is paid
    from its controller's hand (own-belief chips first, CHOICE 35, 183). A live auction's stack
    of a position that died in it is paid as far as the hand still holds it (CHOICE 185: its
    own chips went to the Soul Bank with it); a living position's hand always holds its stack.
    The event shows the stacks as bid (public): what a dead position's hand could still pay
    would tell its hand."""
    for p, n in stacks.items():
        n = min(n, hand_total(g, positions.controller(g, p))) if not positions.alive(g, p) else n
        if n:
            pay(g, positions.controller(g, p), n, p)
    paid = {p: n for p, n in stacks.items() if n}
    return [{"type": "bid_spent", "auction": kind, "stacks": paid, "total": sum(paid.values())}]


def capped(g: dict, order: list[str], maxima: dict[str, int], floor: dict[str, int] | None = None) -> tuple[dict[str, int], list[dict]]:
    """Each maximum capped at what its controller's hand can pay when the auction runs
    (CHOICE 35: bids are paid from the hand; faith on the board is taken in first with
    `take`). A player with two positions bids from one hand: the earlier position in the
    order is served first, the later one gets what is left. Returns the capped maxima and a
    private event for each bid the hand could not cover."""
    used: dict[str, int] = {}
    out: dict[str, int] = {}
    events: list[dict] = []
    for p in order:
        pl = positions.controller(g, p)
        can = max(0, hand_total(g, pl) - used.get(pl, 0))
        want = max(maxima.get(p, 0), (floor or {}).get(p, 0))
        out[p] = min(want, can)
        used[pl] = used.get(pl, 0) + out[p]
        if want > can:
            events.append({"type": "bid_capped", "belief": p, "player": pl, "wanted": want, "hand": can, "to": pl})
    return out, events


def tie_break(g: dict, candidates: list[str]) -> str | None:
    """"If there is somehow an unresolvable bidding process ... A: The lowest level religion
    gets initiative B: The youngest player gets initiative" (L408-411); a player with two
    positions: the earlier in the order given (CHOICE 34)."""
    if not candidates:
        return None
    young = g.get("youngest") or []

    def key(p: str) -> tuple:
        pl = positions.controller(g, p)
        return (positions.level(g, p), young.index(pl) if pl in young else len(young), candidates.index(p))
    return min(candidates, key=key)


def run_proxy(g: dict, kind: str, order: list[str], maxima: dict[str, int], opening: int = 1) -> dict:
    """Cap, simulate, publish and spend. Returns {"winner", "stacks", "events"}; winner None
    when unresolvable (the caller applies its tie-break)."""
    caps, events = capped(g, order, maxima, {order[0]: opening} if opening > 1 and order else None)
    res = simulate(order, caps, opening)
    steps = compress(res["raw"])
    events += transcript_events(g, kind, steps, res["stacks"])
    if any(res["stacks"].values()):
        events += spend(g, kind, res["stacks"])
    return {"winner": res["winner"], "stacks": res["stacks"], "events": events}


# --- live bidding (bidding=live): one position asked at a time ----------------------------

def live_start(order: list[str], opening: int = 1, kind: str = "initiative") -> dict:
    """The state of a live auction (g["auction"]): bidders clockwise from the starter."""
    return {"kind": kind, "order": list(order), "remaining": list(order), "stacks": {p: 0 for p in order},
            "current": 0, "opening": opening, "starter": order[0] if order else None,
            "turn": order[0] if order else None, "owed": [], "raw": []}


def live_options(a: dict) -> tuple[int | None, int]:
    """(the amount that matches, or None when the position on turn may not just match; the
    least raise). The opening is a raise from 0; the starter facing all matched must raise."""
    if a["current"] == 0:
        return None, a["opening"]
    if a["turn"] == a["starter"] and not a["owed"]:
        return None, a["current"] + 1
    return a["current"], a["current"] + 1


def live_act(a: dict, p: str, n: int | None) -> str | None:
    """Position p on turn bids n (its stack to n: a match when n is the current amount, a
    raise when more) or drops out (n None; its stack stays). Moves the turn on; returns the
    winner once one bidder is left ("The last player in", L404), else None."""
    rem = a["remaining"]
    if n is None:
        if a["current"] == 0:
            at = a["opening"]
        else:
            at = a["current"] if p in a["owed"] else a["current"] + 1
        a["raw"].append(("drop", p, at))
        i = rem.index(p)
        rem.remove(p)
        if p in a["owed"]:
            a["owed"].remove(p)
        if p == a["starter"]:
            a["starter"] = rem[i % len(rem)] if rem else None
        if len(rem) <= 1:
            a["turn"] = None
            return rem[0] if rem else None
        a["turn"] = a["owed"][0] if a["owed"] else a["starter"]
        return None
    if a["current"] == 0:
        a["raw"].append(("open", p, n))
    elif n > a["current"]:
        a["raw"].append(("raise", p, n))
    else:
        a["raw"].append(("match", p, n))
    a["stacks"][p] = n
    if p in a["owed"]:
        a["owed"].remove(p)
    if n > a["current"]:
        a["current"] = n
        i = rem.index(p)
        a["owed"] = rem[i + 1:] + rem[:i]
    a["turn"] = a["owed"][0] if a["owed"] else a["starter"]
    return None
