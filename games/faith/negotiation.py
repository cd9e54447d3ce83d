"""Phase 2, Negotiation (L324-374): the deals the engine binds.

The phase is one sealed submission (flow phase "negotiation") of every player with a living
position not in limbo, and of every seat without a living belief (it may `found` one, L348).
A line is checked when it is sent (parse) and queued (`g["deals"]`); when every answer is in,
`resolve` executes the queue in the order of CHOICE 81:

1. every `rapture` (a Rapture ends a position before anybody deals with it);
2. each player's one-sided lines -- `cede`, `covenant`, `schism`, `found` -- player after
   player in initiative order (seats without a position last), each player's in the order
   she wrote them;
3. the two-sided lines, matched: a `trade` executes only when the other player sent the
   mirror line (CHOICE 87), a `proselytize` only with the buyer's matching `accept`; the
   pairs run in initiative order of their first party. A leg the payer can no longer afford
   when its turn comes cancels the pair (nothing moves, both are told why).

`give` is not queued: it runs at once, any time (L173), also in this phase.

What binds and what is press (ORDERS.md says the same to the players): the engine moves
faith, units, the initiative and whole positions, and merges and splits beliefs -- exactly
the transfers and changes the text lists for this phase. Talk, promises, loans and their
interest, favours, alliances, "rules or laws", red lines and ultimatums (L326-328, L173,
L621) are press (the mail PRESS command): delivered, recorded, never enforced; the in-game
remedy for a broken promise is Divine Judgement.
"""

from __future__ import annotations

from pbem.core.errors import IllegalOrderError, InvalidOrderError
from pbem.core.numbers import is_number, odd_digits
from pbem.core.orders import Order

from . import hands, positions
from .hands import pay
from .positions import beliefs_of
from .world import INFIDEL, bank, hand_total, remove_units, to_hand, units_at

VERBS = ("cede", "trade", "proselytize", "accept", "covenant", "schism", "found", "rapture")
TWO_SIDED = ("trade", "proselytize", "accept")
UNIT_KINDS = ("knight", "militia", "fortification", "hero", "prophet", "high_priest", "apostle")


# --- who may negotiate ---------------------------------------------------------------------

def asked(g: dict) -> list[str]:
    """The players asked in Phase 2: those with a living position not in limbo, in initiative
    order, then every seat without a living belief (it may found one, L348)."""
    out = [p for p in positions.players_in_order(g)]
    out += [p for p in g["seats"] if not positions.positions_of(g, p)]
    return out


def _free(g: dict, player: str, pos: str) -> None:
    if positions.in_limbo(g, pos):
        raise IllegalOrderError(f"the {pos} are in limbo: they can do nothing this era (no Negotiation orders)")


# --- parsing ---------------------------------------------------------------------------------

def _belief(rules, g: dict, tok: str, *, known: bool = True) -> str:
    hits = positions.named(tok, g["beliefs"] if known else rules.tab.belief_ids)
    if len(hits) != 1:
        names = sorted(g["beliefs"]) if known else rules.tab.belief_ids
        raise InvalidOrderError(f"'{tok}' is not a belief {'in this game' if known else 'of the game'} ({', '.join(names)})")
    return hits[0]


def _own(rules, g: dict, player: str, tok: str) -> str:
    b = _belief(rules, g, tok)
    if b not in beliefs_of(g, player):
        raise IllegalOrderError(f"the {b} are not a living belief of yours")
    return b


def _player(g: dict, player: str, tok: str) -> str:
    hits = positions.named(tok, g["seats"])
    if len(hits) != 1 or hits[0] == player:
        raise IllegalOrderError(f"'{tok}' is not another player of this game")
    return hits[0]


def _item(rules, g: dict, player: str, toks: list[str], payer: bool) -> list:
    """One leg of a trade: `N [BELIEF]` faith, `KIND HEX` a unit, or `initiative`."""
    if toks == ["initiative"]:
        if payer and not _holds_initiative(g, player):
            raise IllegalOrderError("you do not hold the initiative")
        return ["initiative"]
    if toks and is_number(toks[0]):
        n = int(toks[0])
        if len(toks) > 2:
            raise InvalidOrderError("a faith leg is `N [BELIEF]`")
        b = _belief(rules, g, toks[1]) if len(toks) == 2 else None
        if n < 1:
            raise IllegalOrderError("trade at least 1 faith")
        if payer:
            have = g["hands"][player].get(b, 0) if b else hand_total(g, player)
            if n > have:
                raise IllegalOrderError(f"your hand holds {have}{' ' + b if b else ''} faith")
        return ["faith", n, b]
    if toks and odd_digits(toks[0]):  # ² or ①: meant as an amount of faith
        raise InvalidOrderError(f"expected how much faith (a number), found '{toks[0]}'")
    if len(toks) == 2:
        kind = rules._kind(toks[0], UNIT_KINDS)
        hid = rules._hex(toks[1])
        if payer and not _unit_of(g, player, kind, hid):
            raise IllegalOrderError(f"you have no {kind.replace('_', ' ')} at {hid}")
        return ["unit", kind, hid]
    raise InvalidOrderError("a trade leg is `N [BELIEF]` (faith), `KIND HEX` (a unit) or `initiative`")


def item_text(item: list) -> list[str]:
    if item[0] == "initiative":
        return ["initiative"]
    if item[0] == "faith":
        return [str(item[1])] + ([item[2]] if item[2] else [])
    return [item[1], item[2]]


def _holds_initiative(g: dict, player: str) -> bool:
    ini = g.get("initiative")
    return bool(ini) and positions.alive(g, positions.lead(g, ini)) and \
        positions.controller(g, positions.lead(g, ini)) == player


def _unit_of(g: dict, player: str, kind: str, hid: str) -> str | None:
    if hid not in g["hexes"]:
        return None
    for b in beliefs_of(g, player):
        if not positions.in_limbo(g, positions.lead(g, b)):
            found = units_at(g, hid, b, kind)
            if found:
                return found[0]
    return None


def parse(rules, state: dict, player: str, verb: str, args: list[str]) -> Order:
    g = state["game"]
    flow = state["flow"]
    if flow["phase"] != "negotiation":
        raise IllegalOrderError(f"'{verb}' is an order of the Negotiation phase (Phase 2)")
    if player not in flow["active"]:
        raise IllegalOrderError(f"no '{verb}' order is legal now (your part of the Negotiation is over)")
    mine = positions.positions_of(g, player)
    if verb != "found" and verb != "accept" and not mine:
        raise IllegalOrderError("you have no living belief: you may only `found` one (or `accept` one)")
    return globals()[f"_parse_{verb}"](rules, g, player, args)


def _parse_cede(rules, g, player, args):
    if len(args) == 3 and args[0] == "initiative" and args[1] == "to":
        to = positions.lead(g, _belief(rules, g, args[2]))
        if not positions.alive(g, to):
            raise IllegalOrderError(f"the {to} are not a living belief")
        if not _holds_initiative(g, player):
            raise IllegalOrderError("you do not hold the initiative")
        return Order(("cede", "initiative", "to", to), ("cede", "initiative", to))
    if len(args) != 4 or args[2] != "to":
        raise InvalidOrderError("expected `cede KIND HEX to BELIEF` or `cede initiative to BELIEF`")
    kind = rules._kind(args[0], UNIT_KINDS)
    hid = rules._hex(args[1])
    to = _belief(rules, g, args[3])
    if not g["beliefs"][to]["alive"]:
        raise IllegalOrderError(f"the {to} are not a living belief")
    u = _unit_of(g, player, kind, hid)
    if u is None:
        raise IllegalOrderError(f"you have no {kind.replace('_', ' ')} at {hid}")
    if g["units"][u]["o"] == to:
        raise IllegalOrderError(f"that {kind.replace('_', ' ')} is already of the {to}")
    return Order(("cede", kind, hid, "to", to), ("cede", kind, hid, to))


def _parse_trade(rules, g, player, args):
    if "for" not in args or "with" not in args or args.index("for") > args.index("with") or len(args) != args.index("with") + 2:
        raise InvalidOrderError("expected `trade GIVE for GET with PLAYER`")
    i, j = args.index("for"), args.index("with")
    give = _item(rules, g, player, args[:i], True)
    get = _item(rules, g, player, args[i + 1:j], False)
    who = _player(g, player, args[-1])
    if give[0] == "faith" and get[0] == "faith" and give[2] == get[2]:   # CHOICE 109
        raise IllegalOrderError("a trade of faith for faith of the same belief is only a gift of the difference: use `give`")
    toks = ("trade", *item_text(give), "for", *item_text(get), "with", who)
    return Order(toks, ("trade", give, get, who))


def _parse_proselytize(rules, g, player, args):
    if len(args) != 5 or args[1] != "to" or args[3] != "for":
        raise InvalidOrderError("expected `proselytize BELIEF to PLAYER for N`")
    b = positions.lead(g, _own(rules, g, player, args[0]))
    _free(g, player, b)
    who = _player(g, player, args[2])
    n = rules._int(args[4], "the price")
    return Order(("proselytize", b, "to", who, "for", str(n)), ("proselytize", b, who, n))


def _parse_accept(rules, g, player, args):
    if len(args) != 5 or args[1] != "from" or args[3] != "for":
        raise InvalidOrderError("expected `accept BELIEF from PLAYER for N`")
    b = positions.lead(g, _belief(rules, g, args[0]))
    who = _player(g, player, args[2])
    if not positions.alive(g, b) or positions.controller(g, b) != who:
        raise IllegalOrderError(f"the {b} are not {who}'s")
    n = rules._int(args[4], "the price")
    need = rules.data["negotiation"]["proselytize_bank"] + n
    if hand_total(g, player) < need:
        raise IllegalOrderError(f"it costs {need} faith ({rules.data['negotiation']['proselytize_bank']} to the Soul Bank "
                                f"+ {n} to {who}); your hand holds {hand_total(g, player)}")
    if len(beliefs_of(g, player)) + len(positions.members(g, b)) > rules.data["negotiation"]["max_beliefs"]:
        raise IllegalOrderError(f"a god controls at most {rules.data['negotiation']['max_beliefs']} beliefs (CHOICE 95)")
    return Order(("accept", b, "from", who, "for", str(n)), ("accept", b, who, n))


def _parse_covenant(rules, g, player, args):
    if len(args) != 2:
        raise InvalidOrderError("expected `covenant BELIEF BELIEF`")
    a, b = (_own(rules, g, player, t) for t in args)
    if a == b:
        raise IllegalOrderError("a covenant merges two different beliefs")
    for x in (a, b):
        if g["beliefs"][x].get("covenant"):
            raise IllegalOrderError(f"the {x} are already in a covenant")
        _free(g, player, x)
    cost = rules.data["negotiation"]["covenant_cost"]
    if hand_total(g, player) < cost:
        raise IllegalOrderError(f"a covenant costs {cost} faith; your hand holds {hand_total(g, player)} (take faith from the board first)")
    r = positions.ring(g)
    a, b = sorted((a, b), key=r.index)
    return Order(("covenant", a, b), ("covenant", a, b))


def _parse_schism(rules, g, player, args):
    if len(args) != 1:
        raise InvalidOrderError("expected `schism BELIEF`")
    b = _own(rules, g, player, args[0])
    if not g["beliefs"][b].get("covenant"):
        raise IllegalOrderError(f"the {b} are not in a covenant")
    pos = positions.lead(g, b)
    _free(g, player, pos)
    cost = rules.data["negotiation"]["schism_cost"]
    if hand_total(g, player) < cost:
        raise IllegalOrderError(f"a schism costs {cost} faith; your hand holds {hand_total(g, player)}")
    return Order(("schism", pos), ("schism", pos))


def _parse_found(rules, g, player, args):
    if len(args) != 3 or args[1] != "level":
        raise InvalidOrderError("expected `found BELIEF level N`")
    b = _belief(rules, g, args[0], known=False)
    if b in g["beliefs"]:
        raise IllegalOrderError(f"the {b} are already in this game (a belief is founded once, CHOICE 103)")
    lvl = rules._int(args[2], "the level")
    if lvl not in (1, 2, 3):
        raise IllegalOrderError("the level is 1, 2 or 3")
    own = beliefs_of(g, player)
    neg = rules.data["negotiation"]
    if len(own) >= neg["max_beliefs"]:
        raise IllegalOrderError(f"a god controls at most {neg['max_beliefs']} beliefs (CHOICE 95)")
    if own:
        _free(g, player, positions.lead(g, own[0]))
        if hand_total(g, player) < neg["second_belief_cost"]:
            raise IllegalOrderError(f"a second belief costs {neg['second_belief_cost']} faith; your hand holds {hand_total(g, player)}")
    return Order(("found", b, "level", str(lvl)), ("found", b, lvl))


def _parse_rapture(rules, g, player, args):
    if len(args) != 1:
        raise InvalidOrderError("expected `rapture BELIEF`")
    b = positions.lead(g, _own(rules, g, player, args[0]))
    _free(g, player, b)
    return Order(("rapture", b), ("rapture", b))


def condition(order: Order) -> str | None:
    """The acknowledgement of a two-sided line (engine Rules.condition): it cannot see the other
    side's sealed lines."""
    p = order.payload
    if p[0] == "trade":
        return (f"if the other side matches: {p[3]} sends `trade {' '.join(item_text(p[2]))} for "
                f"{' '.join(item_text(p[1]))} with YOU` this phase, and each can still pay")
    if p[0] == "proselytize":
        return f"if the other side matches: {p[2]} sends `accept {p[1]} from YOU for {p[3]}` this phase and can pay"
    if p[0] == "accept":
        return f"if the other side matches: {p[2]} sends `proselytize {p[1]} to YOU for {p[3]}` this phase"
    return None


# --- queueing and executing ----------------------------------------------------------------

def queue(g: dict, player: str, order: Order) -> list[dict]:
    g.setdefault("deals", {}).setdefault(player, []).append([list(x) if isinstance(x, tuple) else x for x in order.payload])
    return []


def resolve(rules, state: dict, rng) -> list[dict]:
    """Execute the queued lines (CHOICE 81), then clear the queue."""
    g = state["game"]
    deals: dict[str, list] = g.pop("deals", {}) or {}
    g["ring"] = positions.ring(g)   # from now on the ring is explicit (beliefs come and go)
    events: list[dict] = []
    order = [p for p in asked(g) if p in deals] + sorted(p for p in deals if p not in asked(g))
    # 1. raptures
    for p in order:
        for d in deals[p]:
            if d[0] == "rapture":
                events += _rapture(rules, state, p, d[1])
                if state["flow"].get("over"):
                    return events
    # 2. one-sided lines, player after player
    for p in order:
        for d in deals[p]:
            if d[0] in ("cede", "covenant", "schism", "found"):
                events += globals()[f"_do_{d[0]}"](rules, state, p, d)
    # 3. matched pairs
    done: set = set()
    for p in order:
        for i, d in enumerate(deals[p]):
            if (p, i) in done or d[0] not in TWO_SIDED:
                continue
            mate = _mate(deals, p, d, done)
            if mate is None:
                events.append({"type": "unmatched", "player": p, "line": _text(d), "to": p})
                continue
            q, j = mate
            done |= {(p, i), (q, j)}
            if d[0] == "trade":
                events += _do_trade(rules, g, p, d, q, deals[q][j])
            else:
                seller, buyer, pro = (p, q, d) if d[0] == "proselytize" else (q, p, deals[q][j])
                events += _do_proselytize(rules, state, seller, buyer, pro)
    return events + rules._check_alive(state)


def _text(d: list) -> str:
    if d[0] == "trade":
        return " ".join(["trade", *item_text(d[1]), "for", *item_text(d[2]), "with", d[3]])
    if d[0] == "proselytize":
        return f"proselytize {d[1]} to {d[2]} for {d[3]}"
    return f"accept {d[1]} from {d[2]} for {d[3]}"


def _same(a: list, b: list) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "faith":
        return a[1] == b[1] and (a[2] is None or b[2] is None or a[2] == b[2])
    return a == b


def _mate(deals: dict, p: str, d: list, done: set):
    for q, lines in deals.items():
        for j, e in enumerate(lines):
            if (q, j) in done or q == p:
                continue
            if d[0] == "trade" and e[0] == "trade" and d[3] == q and e[3] == p and _same(d[1], e[2]) and _same(d[2], e[1]):
                return q, j
            if d[0] == "proselytize" and e[0] == "accept" and e[1:] == [d[1], p, d[3]] and d[2] == q:
                return q, j
            if d[0] == "accept" and e[0] == "proselytize" and e[1:] == [d[1], p, d[3]] and d[2] == q:
                return q, j
    return None


def _fail(a: str, b: str | None, what: str, why: str) -> dict:
    return {"type": "deal_failed", "player": a, "other": b or "", "deal": what, "why": why,
            "to": [a, b] if b else a}


def _merge_belief(a: list, b: list) -> str | None:
    return a[2] or b[2] if a[0] == "faith" else None


def _can_pay(g: dict, player: str, item: list, belief: str | None) -> str | None:
    if item[0] == "initiative":
        return None if _holds_initiative(g, player) else f"{player} no longer holds the initiative"
    if item[0] == "faith":
        have = g["hands"][player].get(belief, 0) if belief else hand_total(g, player)
        return None if have >= item[1] else f"{player}'s hand holds {have}{' ' + belief if belief else ''} faith, not {item[1]}"
    return None if _unit_of(g, player, item[1], item[2]) else f"{player} has no {item[1].replace('_', ' ')} at {item[2]} any more"


def _transfer(g: dict, payer: str, receiver: str, item: list, belief: str | None) -> dict:
    """Move one leg; returns what moved (for the event)."""
    if item[0] == "initiative":
        g["initiative"] = positions.primary(g, receiver)
        return {"initiative": g["initiative"]}
    if item[0] == "faith":
        moved = hands.take(g, payer, item[1], belief=belief)
        for x, k in moved.items():
            to_hand(g, receiver, x, k)
        return {"faith": moved}
    u = _unit_of(g, payer, item[1], item[2])
    to = positions.primary(g, receiver)   # CHOICE 106: a unit got by trade joins the receiver's first position
    g["units"][u]["o"] = to
    return {"unit": item[1], "at": item[2], "belief": to}


def _do_trade(rules, g, a, da, b, db) -> list[dict]:
    give_a, get_a = da[1], da[2]          # a gives give_a to b, b gives get_a (= db's give) to a
    bel_ab = _merge_belief(give_a, db[2])
    bel_ba = _merge_belief(get_a, db[1])
    why = _can_pay(g, a, give_a, bel_ab) or _can_pay(g, b, db[1], bel_ba)
    if give_a[0] == "initiative" and db[1][0] == "initiative":
        why = why or "both legs are the initiative"
    if why:
        return [_fail(a, b, _text(da), why + " (CHOICE 87: a leg that cannot be paid cancels the pair)")]
    first = _transfer(g, a, b, give_a, bel_ab)
    second = _transfer(g, b, a, db[1], bel_ba)
    return [{"type": "trade", "player": a, "other": b, "gave": first, "got": second, "to": [a, b]}]


def _do_proselytize(rules, state, seller, buyer, d) -> list[dict]:
    g = state["game"]
    pos, n = d[1], d[3]
    neg = rules.data["negotiation"]
    what = f"proselytize {pos} to {buyer} for {n}"
    if not positions.alive(g, pos) or positions.controller(g, pos) != seller:
        return [_fail(seller, buyer, what, f"the {pos} are no longer {seller}'s")]
    if positions.lead(g, pos) != pos:   # merged into a covenant earlier in the phase
        return [_fail(seller, buyer, what, f"the {pos} are now in a covenant led by the {positions.lead(g, pos)}: "
                                           "a covenant is sold whole, by its lead")]
    if hand_total(g, buyer) < neg["proselytize_bank"] + n:
        return [_fail(seller, buyer, what, f"{buyer} cannot pay {neg['proselytize_bank']} + {n}: nothing happens")]
    if len(beliefs_of(g, buyer)) + len(positions.members(g, pos)) > neg["max_beliefs"]:
        return [_fail(seller, buyer, what, f"{buyer} would control more than {neg['max_beliefs']} beliefs (CHOICE 95)")]
    paid = pay(g, buyer, neg["proselytize_bank"], None)
    price = hands.take(g, buyer, n) if n else {}
    for x, k in price.items():
        to_hand(g, seller, x, k)
    for b in positions.members(g, pos):
        g["beliefs"][b]["player"] = buyer   # CHOICE 102: the position keeps its place in the ring
    return [{"type": "proselytize", "belief": pos, "player": seller, "buyer": buyer, "bank": sum(paid.values())},
            {"type": "price", "belief": pos, "player": buyer, "seller": seller, "faith": price, "to": [seller, buyer]}]


def _do_cede(rules, state, player, d) -> list[dict]:
    g = state["game"]
    if d[1] == "initiative":
        if not _holds_initiative(g, player):
            return [_fail(player, None, f"cede initiative to {d[2]}", "you no longer hold the initiative")]
        if not positions.alive(g, d[2]):
            return [_fail(player, None, f"cede initiative to {d[2]}", f"the {d[2]} are not a living belief")]
        g["initiative"] = d[2]
        return [{"type": "cede_initiative", "player": player, "belief": d[2], "receiver": positions.controller(g, d[2])}]
    _, kind, hid, to = d
    u = _unit_of(g, player, kind, hid)
    if u is None or not g["beliefs"][to]["alive"]:
        return [_fail(player, None, f"cede {kind} {hid} to {to}",
                      f"no {kind.replace('_', ' ')} of yours at {hid} any more" if u is None else f"the {to} are not a living belief")]
    old = g["units"][u]["o"]
    g["units"][u]["o"] = to     # CHOICE 85: its state kept; the piece limits do not bind
    return [{"type": "cede", "player": player, "kind": kind, "at": hid, "belief": old, "receiver": to,
             "to_player": positions.controller(g, positions.lead(g, to))}]


def _do_covenant(rules, state, player, d) -> list[dict]:
    g = state["game"]
    _, a, b = d
    cost = rules.data["negotiation"]["covenant_cost"]
    x, y = g["beliefs"][a], g["beliefs"][b]
    if not (x["alive"] and y["alive"] and x["player"] == player == y["player"]) or x.get("covenant") or y.get("covenant"):
        return [_fail(player, None, f"covenant {a} {b}", "the two beliefs are no longer yours and apart")]
    if hand_total(g, player) < cost:
        return [_fail(player, None, f"covenant {a} {b}", f"a covenant costs {cost} faith; your hand holds {hand_total(g, player)}")]
    pay(g, player, cost, a)
    r = positions.ring(g)
    lead, other = sorted((a, b), key=r.index)    # CHOICE 78: the ring slot of the earlier
    x["covenant"] = y["covenant"] = lead
    if g.get("initiative") == other:
        g["initiative"] = lead
    return [{"type": "covenant", "player": player, "belief": lead, "with": other, "level": positions.level(g, lead),
             "cost": cost}]


def _do_schism(rules, state, player, d) -> list[dict]:
    g = state["game"]
    pos = d[1]
    cost = rules.data["negotiation"]["schism_cost"]
    if not positions.alive(g, pos) or positions.controller(g, pos) != player or len(positions.members(g, pos)) < 2:
        return [_fail(player, None, f"schism {pos}", f"the {pos} are no longer a covenant of yours")]
    if hand_total(g, player) < cost:
        return [_fail(player, None, f"schism {pos}", f"a schism costs {cost} faith; your hand holds {hand_total(g, player)}")]
    pay(g, player, cost, pos)
    lvl = positions.level(g, pos)
    ms = positions.members(g, pos)
    for b in ms:
        g["beliefs"][b]["covenant"] = None
        g["beliefs"][b]["level"] = lvl      # CHOICE 79: both keep the covenant's level
    return [{"type": "schism", "player": player, "belief": ms[0], "with": ms[1], "level": lvl, "cost": cost}]


def _do_found(rules, state, player, d) -> list[dict]:
    g = state["game"]
    _, b, lvl = d
    neg = rules.data["negotiation"]
    own = beliefs_of(g, player)
    if b in g["beliefs"]:
        return [_fail(player, None, f"found {b}", f"the {b} are already in this game")]
    if len(own) >= neg["max_beliefs"]:
        return [_fail(player, None, f"found {b}", f"a god controls at most {neg['max_beliefs']} beliefs (CHOICE 95)")]
    cost = neg["second_belief_cost"] if own else 0
    if hand_total(g, player) < cost:
        return [_fail(player, None, f"found {b}", f"a second belief costs {cost} faith; your hand holds {hand_total(g, player)}")]
    if cost:
        pay(g, player, cost, own[0])
    colour = rules.colour_for(set(rules.belief_colours(g).values()), b)   # CHOICE 180: kept from now on
    g["beliefs"][b] = {"player": player, "level": lvl, "alive": True, "limbo": False, "colour": colour}
    g["bank"].setdefault(b, rules.data["game"]["bank_start"])
    start = rules.data["levels"]["start_faith"][str(lvl)]   # CHOICE 80: start faith by level
    bank(g, b, -start)
    to_hand(g, player, b, start)
    r = g["ring"]
    if own:   # L350 "as if it was sitting to his/her right": just after her first belief (CHOICE 77)
        last = max(r.index(x) for x in own)
        r.insert(last + 1, b)
    else:     # a new player: last in seat order (spec 2.6, CHOICE 105)
        r.append(b)
    g.setdefault("standing", {}).setdefault(player, {"overflow": {}, "retreat": {}, "defend": {}, "side": {}})
    return [{"type": "found", "player": player, "belief": b, "name": rules.tab.beliefs[b]["name"], "level": lvl,
             "cost": cost, "faith": start}]


def _rapture(rules, state, player, pos) -> list[dict]:
    """L346: all the belief's faith into the hand, units and special units off the board
    (fortifications stay), the disc out of play; more than 200 in hand wins (CHOICE 76, 107)."""
    g = state["game"]
    if not positions.alive(g, pos) or positions.controller(g, pos) != player:
        return [_fail(player, None, f"rapture {pos}", f"the {pos} are no longer yours")]
    ms = positions.members(g, pos)
    chips = 0
    for h in g["hexes"].values():
        for b in ms:
            if b in h["pop"]:
                n = sum(h["pop"].pop(b))
                to_hand(g, player, b, n)
                chips += n
    removed = remove_units(g, ms)
    for b in ms:
        g["beliefs"][b].update(alive=False, raptured=True, covenant=None)
    count = sum(g["hands"][player].get(b, 0) for b in ms)
    need = rules.data["game"]["victory"]
    events = [{"type": "rapture", "player": player, "belief": pos, "chips": chips, "units": removed,
               "count": count, "needed": need}]
    if count >= need:
        return events + rules._finish(state, f"{player} raptured the {pos} with {count} of its faith in hand", [player])
    return events


# --- representative orders (the order form and the bots) -----------------------------------

def examples(rules, state: dict, player: str) -> list[Order]:
    """Some legal orders of the phase, each parsed by `parse` (so it parses back to itself)."""
    g = state["game"]
    out: list[Order] = []

    def t(*toks):
        try:
            out.append(parse(rules, state, player, toks[0], list(toks[1:])))
        except (IllegalOrderError, InvalidOrderError):
            pass

    mine = positions.positions_of(g, player)
    free_ids = [b for b in rules.tab.belief_ids if b not in g["beliefs"]]
    if not mine:
        for b in free_ids[:2]:
            for lvl in (1, 2, 3):
                t("found", b, "level", str(lvl))
        return out
    others = [p for p in g["seats"] if p != player and positions.positions_of(g, p)]
    other_pos = [b for p in others for b in positions.positions_of(g, p)]
    own = beliefs_of(g, player)
    if len(own) == 1 and free_ids:
        t("found", free_ids[0], "level", "2")
    lone = [b for b in own if not g["beliefs"][b].get("covenant")]
    if len(lone) == 2:
        t("covenant", lone[0], lone[1])
    for pos in mine:
        if len(positions.members(g, pos)) == 2:
            t("schism", pos)
        t("rapture", pos)
    if _holds_initiative(g, player):
        for b in other_pos[:2]:
            t("cede", "initiative", "to", b)
    units = sorted({(y["k"], y["h"]) for y in g["units"].values() if y["o"] in own and y["k"] != "fortification"})
    for kind, hid in units[:2]:
        for b in other_pos[:1]:
            t("cede", kind, hid, "to", b)
    hand = hand_total(g, player)
    for q in others[:2]:
        if hand:
            try:   # `give` is an order of any time (the rules parse it), offered here too
                out.append(rules.parse(state, player, ["give", str(min(hand, 5)), "to", q]))
            except (IllegalOrderError, InvalidOrderError):
                pass
            if _holds_initiative(g, q):
                t("trade", str(min(hand, 5)), "for", "initiative", "with", q)
        if _holds_initiative(g, player):
            t("trade", "initiative", "for", "5", "with", q)
        for kind, hid in units[:1]:
            t("trade", kind, hid, "for", "3", "with", q)
        for pos in mine:
            t("proselytize", pos, "to", q, "for", "10")
        for pos in positions.positions_of(g, q)[:1]:
            t("accept", pos, "from", q, "for", "10")
    return out


def bot_lines(rules, state: dict, player: str, rng) -> list[str]:
    """A bot's deals (bot.py asks for them): sometimes a gift, a covenant or a second belief
    when rich, and a trade of faith for the initiative that the holder's bot mirrors on the
    same seed-independent rule, so matched pairs happen."""
    g = state["game"]
    mine = positions.positions_of(g, player)
    hand = hand_total(g, player)
    neg = rules.data["negotiation"]
    lines: list[str] = []
    if not mine:
        free_ids = [b for b in rules.tab.belief_ids if b not in g["beliefs"]]
        if free_ids:
            lines.append(f"found {rng.choice(free_ids)} level {rng.choice((1, 2))}")
        return lines
    own = beliefs_of(g, player)
    lone = [b for b in own if not g["beliefs"][b].get("covenant")]
    board = [(hid, b, sum(h["pop"][b])) for hid, h in g["hexes"].items() for b in own if b in h["pop"]]

    def funds(need: int) -> bool:
        """Take chips from the board into the hand until it holds `need` (L360 "from the board
        and/or hand"), when the board can give them without emptying itself."""
        nonlocal hand
        spare = sum(n for _, _, n in board)
        if hand >= need:
            return True
        if hand + spare < need + 20:
            return False
        for hid, b, n in sorted(board, key=lambda x: -x[2]):
            k = min(n, need - hand)
            if k > 0:
                lines.append(f"take {k} {hid}" + (f" for {b}" if len(own) > 1 else ""))
                hand += k
        return hand >= need

    if len(lone) == 2 and rng.random() < 0.3 and funds(neg["covenant_cost"]):
        lines.append(f"covenant {lone[0]} {lone[1]}")
        hand -= neg["covenant_cost"]
    elif len(own) == 1 and rng.random() < 0.12 and funds(neg["second_belief_cost"]):
        free_ids = [b for b in rules.tab.belief_ids if b not in g["beliefs"]]
        if free_ids:
            lines.append(f"found {rng.choice(free_ids)} level {rng.choice((2, 3))}")
            hand -= neg["second_belief_cost"]
    for pos in mine:
        if len(positions.members(g, pos)) == 2 and hand >= neg["schism_cost"] and rng.random() < 0.05:
            lines.append(f"schism {pos}")
            hand -= neg["schism_cost"]
    # the initiative for faith: the holder asks 3 of the next player clockwise, who pays if she can
    holder = positions.lead(g, g["initiative"]) if g.get("initiative") else None
    ring_players = [p for p in positions.players_in_order(g)]
    if holder and positions.alive(g, holder) and len(ring_players) > 1 and (g["era"] % 3 == 0):
        h = positions.controller(g, holder)
        nxt = ring_players[(ring_players.index(h) + 1) % len(ring_players)] if h in ring_players else None
        if player == h and nxt:
            lines.append(f"trade initiative for 3 with {nxt}")
        elif player == nxt and hand >= 3 and rng.random() < 0.8:
            lines.append(f"trade 3 for initiative with {h}")
            hand -= 3
    # a second position sold for nothing to the next player, who accepts when she can pay the
    # Soul Bank (both sides follow the same rule, so the pair matches)
    if len(ring_players) > 1 and g["era"] % 4 == 0:
        nxt = ring_players[(ring_players.index(player) + 1) % len(ring_players)] if player in ring_players else None
        prev = ring_players[ring_players.index(player) - 1] if player in ring_players else None
        if nxt and nxt != player and len(mine) == 2:
            lines.append(f"proselytize {mine[1]} to {nxt} for 0")
        if prev and prev != player and len(positions.positions_of(g, prev)) == 2 and len(own) == 1 \
                and funds(neg["proselytize_bank"]):
            lines.append(f"accept {positions.positions_of(g, prev)[1]} from {prev} for 0")
            hand -= neg["proselytize_bank"]
    # units handed between a player's own two positions, or the initiative to a neighbour
    if len(mine) == 2 and rng.random() < 0.3:
        units = sorted((y["k"], y["h"]) for y in g["units"].values() if y["o"] == mine[0] and y["k"] == "militia")
        if units:
            lines.append(f"cede militia {units[0][1]} to {mine[1]}")
    if holder and positions.alive(g, holder) and positions.controller(g, holder) == player and rng.random() < 0.05:
        nxt_pos = [b for b in positions.positions(g) if positions.controller(g, b) != player]
        if nxt_pos:
            lines.append(f"cede initiative to {nxt_pos[0]}")
    others = [p for p in g["seats"] if p != player and positions.positions_of(g, p)]
    if others and hand >= 8 and rng.random() < 0.15:
        lines.append(f"give {rng.randint(1, 3)} to {rng.choice(others)}")
    return lines
