"""Oh Gods!: sets. Which cards on an altar can form a set of which element (`set_pools`),
forming one face-down (`form`: the set may win a Mastery card and a fifth set starts the final
round), what a set scores (`set_points`), and revealing and scoring every set at the end of a
hand (`score_hand`).
"""

from __future__ import annotations

from itertools import combinations

from pbem.core.engine import Event
from pbem.core.orders import Order

from .cards import RULER, Catalogue
from .mastery import claim
from .table import start_final


def set_points(cat: Catalogue, s: dict) -> tuple[int, list[list], int]:
    """A set scores every element common to all its cards, +5 for five or more cards.
    Immortalized stands only for the announced element, at the lowest value that element
    has among the set's other gods. Returns (points, [[element name, points]...], bonus)."""
    cards = s["cards"]
    real = [c for c in cards if cat.is_god(c)]
    imms = sum(1 for c in cards if cat.is_imm(c))
    if not real:
        return 0, [], 0
    common = set(cat.cards[real[0]]["elements"])
    for c in real[1:]:
        common &= set(cat.cards[c]["elements"])
    if imms:
        common &= {s["element"]} - {RULER}
    parts = []
    total = 0
    for e in cat.element_order:
        if e in common:
            values = [cat.cards[c]["elements"][e] for c in real]
            pts = sum(values) + imms * min(values)
            parts.append([cat.element_names[e], pts])
            total += pts
    bonus = cat.r["big_set_bonus"] if len(cards) >= cat.r["big_set"] else 0
    return total + bonus, parts, bonus


def set_pools(cat: Catalogue, altar: list[str]) -> list[tuple[str, list[str]]]:
    """For each element: the cards on this altar that can stand for it (gods having it,
    and Immortalized for a domain or pantheon), when they make a set with a god among them."""
    out = []
    by_element: dict[str, list[str]] = {}
    for c in altar:
        card = cat.cards[c]
        if card["kind"] == "god":
            for e in card["elements"]:
                by_element.setdefault(e, []).append(c)
    imms = [c for c in altar if cat.is_imm(c)]
    for e in cat.element_order:
        real = by_element.get(e)
        if not real or len(real) + (len(imms) if e != RULER else 0) < cat.r["min_set"]:
            continue
        pool = [c for c in altar if c in real or (e != RULER and c in imms)] if imms else real
        out.append((e, pool))
    return out


def form_orders(cat: Catalogue, altar: list[str]) -> list[Order]:
    pools = set_pools(cat, altar)
    out = [Order(("form", e), ("form", e, tuple(pool))) for e, pool in pools]
    for e, pool in pools:
        for r in range(cat.r["min_set"], len(pool) + 1):
            for combo in combinations(pool, r):
                if any(cat.is_god(c) for c in combo):
                    out.append(Order(("form", e, *(cat.tok(c) for c in combo)), ("form", e, combo)))
    return out


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}.get(n, f"{n}th")


def form(cat: Catalogue, g: dict, player: str, p: tuple) -> list[Event]:
    _, e, cards = p
    altar = g["altars"][player]
    for c in cards:
        altar.remove(c)
    g["sets"][player].append({"element": e, "cards": list(cards)})
    n = len(g["sets"][player])
    events: list[Event] = [
        {"type": "form", "player": player, "element": cat.element_names[e], "size": len(cards), "sets": n},
        {"type": "formed", "player": player, "element": cat.element_names[e], "cards": cat.names(cards),
         "points": set_points(cat, g["sets"][player][-1])[0], "to": player},
    ]
    events += claim(cat, g, player, e)
    if n >= cat.r["max_sets"] and not g["final"]:
        events += start_final(g, player, f"formed a {_ordinal(n)} set")
    return events


def why_not_form(cat: Catalogue, g: dict, player: str, args: list[str]) -> str | None:
    altar = g["altars"][player]
    if len(g["sets"][player]) >= cat.r["max_sets"]:
        return f"you have {cat.r['max_sets']} sets already; no player may score a sixth set"
    if not args:
        return None
    e = cat.element(args[0])
    if e is None:
        return (f"'{args[0]}' is not one domain, pantheon or Ruler "
                f"({', '.join(cat.element_order)})")
    ename = cat.element_names[e]
    have = [c for c in altar if (cat.is_god(c) and cat.has(c, e)) or (cat.is_imm(c) and e != RULER)]
    picked = []
    left = list(altar)
    for t in args[1:]:
        found = cat.find(t, left)
        if not found:
            return f"'{t}' is not on your altar" + (" (or is named twice)" if cat.find(t, altar) else "")
        c = found[0]
        left.remove(c)
        if cat.is_imm(c) and e == RULER:
            return "Immortalized never stands for Ruler"
        if c not in have:
            return f"{cat.name(c)} is not {ename}"
        picked.append(c)
    if dict(set_pools(cat, altar)).get(e) is None:
        return (f"a set needs {cat.r['min_set']} or more gods sharing {ename}; your altar has "
                f"{len(have)} ({', '.join(cat.names(have)) or 'none'})")
    if args[1:] and len(picked) < cat.r["min_set"]:
        return f"a set needs {cat.r['min_set']} or more gods"
    if picked and not any(cat.is_god(c) for c in picked):
        return "a set needs a god card besides Immortalized"
    if picked:
        canon = " ".join(["form", e] + [cat.tok(c) for c in sorted(picked, key=altar.index)])
        return f"name the gods in the order of your altar: `{canon}`"
    return None


def score_hand(cat: Catalogue, g: dict) -> list[Event]:
    """The hand is over: reveal every set, add its points to the running totals, and keep the
    hand in the history."""
    events: list[Event] = [{"type": "hand_over", "hand": g["hand"]}]
    hand_scores = {}
    revealed = {}
    for p in g["players"]:
        total = 0
        revealed[p] = []
        for s in g["sets"][p]:
            pts, parts, bonus = set_points(cat, s)
            total += pts
            revealed[p].append({"element": cat.element_names[s["element"]], "cards": cat.names(s["cards"]),
                                "points": pts, "parts": parts, "bonus": bonus})
            events.append({"type": "reveal", "player": p, "element": cat.element_names[s["element"]],
                           "cards": cat.names(s["cards"]), "points": pts, "parts": parts, "bonus": bonus})
        hand_scores[p] = total
        g["scores"][p] += total
    g["history"].append({"hand": g["hand"], "first": g["first"], "scores": hand_scores,
                         "sets": {p: [dict(element=s["element"], cards=list(s["cards"])) for s in g["sets"][p]]
                                  for p in g["players"]},
                         "revealed": revealed})
    events.append({"type": "hand_scored", "hand": g["hand"], "scores": hand_scores, "totals": dict(g["scores"])})
    return events
