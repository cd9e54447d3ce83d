"""Ye Gods!: step 4, Holy Wars -- when one may be fought (conditions a and b, one attack from
each province, each worshipper fights once), the battle itself (steps 1-10 of the text:
counts, numerical superiority bonus, 2d6 with natural 2 and 12, casualties, the attacker's
choice of losses, the winner's advance), and why a typed attack is illegal.

Plain functions over the game state `g`, the turn `t` and the static `World` `w`.
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.numbers import is_number
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .board import count, kill, put
from .world import World

OPT_WAR = frozenset({2})


def war_eligible(g: dict, t: dict, god: str, place: str) -> int:
    """god's worshippers in `place` that have not fought this turn."""
    return max(0, g["board"].get(place, {}).get(god, 0) - t["fought"].get(place, 0))


def war_orders(w: World, g: dict, t: dict, god: str, cache: dict[tuple, Order]) -> list[Order]:
    """Every Holy War open to god now, with every choice of losses; `cache` keeps the orders
    that name a number (orders are immutable: each is built once)."""
    out = []
    owner, board, fought, sources = g["owner"], g["board"], t["fought"], t["sources"]
    for src in w.provinces:
        if src in sources or board.get(src, {}).get(god, 0) - fought.get(src, 0) < 2:
            continue
        for dst in w.padj[src]:
            defender = owner.get(dst)
            if defender is None or defender == god or board.get(dst, {}).get(god, 0) < 1:
                continue
            out.append(Order(("holywar", src, "->", dst), ("holywar", src, dst, src, None), OPT_WAR))
            caps = {src: board[src][god] - fought.get(src, 0), dst: board[dst][god]}
            for first in (src, dst):
                out.append(Order(("holywar", src, "->", dst, "losses", "from", first),
                                 ("holywar", src, dst, first, None), OPT_WAR))
                # any combination: at most N from one province, the rest from the other
                for n in range(caps[first], -1, -1):
                    key_ = (src, dst, first, n)
                    order = cache.get(key_)
                    if order is None:
                        order = cache[key_] = Order(("holywar", src, "->", dst, "losses", str(n), "from", first),
                                                    ("holywar", src, dst, first, n), OPT_WAR)
                    out.append(order)
    return out


def why_war(w: World, g: dict, t: dict, god: str, args: list[str]) -> str | None:
    if len(args) < 2:
        return None
    src = w.resolve_name(args[0], ("province", "desert"))
    dst = w.resolve_name(args[1], ("province", "desert"))
    if not src or not dst:
        bad = args[0] if not src else args[1]
        return f"'{bad}' is not a province (or not a unique prefix of one)"
    title = w.god_title[god]
    if src in w.deserts or dst in w.deserts:
        return "nobody lives in a desert: no Holy War is fought there"
    if dst not in w.adj[src]:
        return f"attacks are made on an adjacent province; {dst.capitalize()} is not next to {src.capitalize()}"
    if src in t["sources"]:
        return f"{title} has already attacked from {src.capitalize()} this turn (one attack from each province per turn)"
    owner = g["owner"].get(dst)
    if owner is None:
        return f"nobody owns {dst.capitalize()}, so there is no defender; move worshippers in instead"
    if owner == god:
        return f"{title} owns {dst.capitalize()} already"
    eligible = war_eligible(g, t, god, src)
    if eligible < 2:
        fought = t["fought"].get(src, 0)
        extra = f" ({fought} there have fought this turn, and each worshipper fights once)" if fought else ""
        return (f"condition 1: the province an attack comes from must hold at least 2 of {title}'s worshippers; "
                f"{src.capitalize()} holds {eligible} able to fight{extra}")
    if count(g, dst, god) < 1:
        return (f"condition 2: {title} must already have at least one worshipper in {dst.capitalize()}")
    if len(args) > 2:
        where = w.resolve_name(args[-1], ("province", "desert"))
        if where not in (src, dst):
            return f"losses are taken from the attacking or the attacked province ({src} or {dst})"
        numbers = [int(a) for a in args if is_number(a)]
        able = war_eligible(g, t, god, src) if where == src else count(g, dst, god)
        if numbers and numbers[0] > able:
            return (f"{title} has {able} worshippers in {where.capitalize()} in this battle: "
                    f"at most {able} can be lost there")
    return None


def fight(g: dict, t: dict, god: str, src: str, dst: str, first: str, most: int | None, rng: Rng) -> list[Event]:
    """god attacks `dst` from `src`; if god loses, its losses come from `first` (at most
    `most` there, if given), then from the other province."""
    defender = g["owner"][dst]
    a_src = war_eligible(g, t, god, src)          # 1) all of the attacker's (able) worshippers there...
    a_dst = count(g, dst, god)                    # ...plus all of his in the defending province (c)
    a_count = a_src + a_dst
    d_count = count(g, dst, defender)             # 2) the defender counts only the attacked province
    nsb = abs(a_count - d_count)                  # 3) numerical superiority bonus
    nsb_to = "attacker" if a_count > d_count else "defender" if d_count > a_count else None
    a_dice = [rng.die(6), rng.die(6)]             # 4) each rolls 2d6, NSB added
    d_dice = [rng.die(6), rng.die(6)]
    a_nat, d_nat = sum(a_dice), sum(d_dice)
    a_total = a_nat + (nsb if nsb_to == "attacker" else 0)
    d_total = d_nat + (nsb if nsb_to == "defender" else 0)
    if (a_nat == 2 and d_nat == 2) or (a_nat == 12 and d_nat == 12):
        result, why = "tie", f"both rolled a natural {a_nat}"
    elif a_nat == 12 or d_nat == 2:
        result = "attacker"
        why = "the attacker rolled a natural 12" if a_nat == 12 else "the defender rolled a natural 2"
    elif d_nat == 12 or a_nat == 2:
        result = "defender"
        why = "the defender rolled a natural 12" if d_nat == 12 else "the attacker rolled a natural 2"
    elif a_total == d_total:
        result, why = "tie", "the totals are equal"
    else:
        result = "attacker" if a_total > d_total else "defender"
        why = "higher total"
    event: Event = {
        "type": "holywar", "god": god, "defender": defender, "src": src, "dst": dst,
        "a_from": a_src, "a_in": a_dst, "a_count": a_count, "d_count": d_count, "nsb": nsb, "nsb_to": nsb_to,
        "a_dice": a_dice, "d_dice": d_dice, "a_total": a_total, "d_total": d_total, "result": result, "why": why,
    }
    events: list[Event] = [event]
    t["sources"].append(src)
    if result == "tie":
        # 5) the attacker loses 1d6 + NSB of the worshippers involved; the defender none
        extra = rng.die(6)
        event["tie_die"] = extra
        casualties = extra + nsb
    else:
        # 6) the difference between the totals, plus the NSB
        casualties = abs(a_total - d_total) + nsb
    event["casualties"] = casualties
    if result == "attacker":
        lost = kill(g, dst, defender, casualties)  # capped at those involved
        event["losses"] = {dst: lost} if lost else {}
        event["lost"] = lost
    else:
        # the attacker loses, in the order's choice of provinces, up to those involved
        # the attacker's choice: from `first` (at most `most` there, if the order says so),
        # then from the other province, and only then more from `first`
        cap = {src: a_src, dst: a_dst}
        other = dst if first == src else src
        want = min(casualties, a_src + a_dst)
        taken = {src: 0, dst: 0}
        for place, limit in ((first, cap[first] if most is None else min(most, cap[first])),
                             (other, cap[other]), (first, cap[first])):
            take = max(0, min(want, limit - taken[place]))
            taken[place] += take
            want -= take
        losses = {}
        for place in (first, other):
            if taken[place]:
                losses[place] = kill(g, place, god, taken[place])
        event["losses"] = losses
        event["lost"] = sum(losses.values())
    event["loser"] = {"attacker": defender, "defender": god, "tie": god}[result]
    # every worshipper that fought is marked: none fights again this turn (d)
    if result == "attacker":
        # 8) the attacker moves half (round down) of his worshippers from the attacking province in
        move = count(g, src, god) // 2
        if move:
            put(g, src, god, -move)
            put(g, dst, god, move)
        event["advance"] = move
    t["fought"][src] = count(g, src, god)
    t["fought"][dst] = count(g, dst, god)
    return events
