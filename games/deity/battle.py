"""The Battle phase: which armies (and monsters) may still attack, the attack orders, and a
battle fought round by round until the attackers are destroyed, they retreat, or the
defenders are destroyed (mountains save one counter a round; Holy War: a second attack)."""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .board import destroy, effect_hexes, fix, geo_of, none_lost, own, record, total
from .order_cache import OrderCache
from .tables import Tables


def attackers(g: dict, k: str) -> int:
    """How many of the army-like counters at k may still attack this phase."""
    c = g["land"][k]
    t = g["turn"]
    once, twice = t["attacks"].get(k, [0, 0])
    fresh = c["armies"] + c["monsters"] - once - twice
    return fresh + (once if t["holy_war"] else 0)


class ToTheEnd(Order):
    """An attack without a retreat (they fight to the end). `retreat 0` stays in its tokens,
    both optional, so `attack 2,2 -> 3,2` and `attack 2,2 -> 3,2 retreat 0` are both this
    order; its text leaves them out, as ORDERS.md spells it: the form, the acknowledgement
    and the did-you-mean show `attack 2,2 -> 3,2 3`, not a `retreat` the player never asked
    for (a close match among equally close texts is the last in alphabetical order, which
    with every attack spelt `retreat K` was the one with the highest K)."""

    @property
    def text(self) -> str:
        return " ".join(self.tokens[:-2])


def _attack_series(src: str, dst: str, avail: int) -> list[Order]:
    """Every attack of src on dst: N of the avail armies, retreating at K or fewer. The plain
    attack (all armies, to the end) first; then the other retreats of all the armies, the
    attacks of fewer, and last the attacks that withdraw after their first round whatever
    happens (`retreat K` with K the number attacking: legal -- the attacker may decide to
    retreat after any round -- but never what a form or a did-you-mean leads with)."""
    lst = []
    for n in range(1, avail + 1):
        for k in range(n + 1):
            opt = set()
            if n == avail:
                opt.add(4)
            if k == 0:
                opt |= {5, 6}
            make = ToTheEnd if k == 0 else Order
            lst.append(make(("attack", src, "->", dst, str(n), "retreat", str(k)),
                            ("attack", src, dst, n, k), frozenset(opt)))

    def rank(o: Order) -> tuple:
        n, k = o.payload[3], o.payload[4]
        return (k == n, n != avail, k != 0, -n, k)
    lst.sort(key=rank)
    return lst


def attack_orders(oc: OrderCache, g: dict, player: str) -> list[Order]:
    land = g["land"]
    geo = geo_of(g)
    sanct = effect_hexes(g, "sanctuary")
    out: list[Order] = []
    first: list[Order] = []  # all armies, no retreat: the plain attack of each pair
    for src in own(g, player):
        avail = attackers(g, src)
        if avail <= 0:
            continue
        for dst in geo.nbrs[src]:
            c = land.get(dst)
            if not c or c["owner"] in (None, player) or dst in sanct:
                continue
            lst = oc.made(("attack", src, dst, avail), _attack_series, src, dst, avail)
            first.append(lst[0])
            out += lst[1:]
    return first + out


def battle(tab: Tables, g: dict, p: str, src: str, dst: str, n: int, k: int, rng: Rng,
           ask: bool = False) -> list[Event]:
    """The attack of n counters of src on dst, retreating at k or fewer left. `ask`
    (reactions=ask): after a round that leaves the battle undecided, the attacker is asked
    live whether to fight on or retreat (`game.asking`, kind "battle"; see ``fight``)."""
    t = g["turn"]
    a, d = g["land"][src], g["land"][dst]
    used = t["attacks"].setdefault(src, [0, 0])  # attacked once (and alive), attacked twice
    fresh = a["armies"] + a["monsters"] - used[0] - used[1]
    nf = min(n, fresh)
    no = n - nf
    fa = min(n, a["armies"])
    events: list[Event] = [{"type": "battle", "player": p, "from": src, "at": dst, "defender": d["owner"],
                            "attackers": n, "retreat": k, "terrain": d["terrain"], "second": no > 0}]
    b = {"player": p, "from": src, "at": dst, "defender": d["owner"], "n": n, "k": k, "nf": nf, "no": no,
         "fa": fa, "fm": n - fa, "round": 0, "ask": ask}
    return events + fight(tab, g, b, rng)


def fight(tab: Tables, g: dict, b: dict, rng: Rng) -> list[Event]:
    """Rounds of the battle `b` until it ends (the attackers or the defenders destroyed, the
    attacker's `retreat K`, the round cap). With b["ask"], a round that ends none of these
    stops the battle instead: it waits in `game.asking` for the attacker's answer."""
    events: list[Event] = []
    while True:
        events.append(_round(tab, g, b, rng))
        result = _decided(tab, g, b)
        if result:
            return events + end(g, b, result)
        if b["ask"]:
            g["asking"] = {"who": b["player"], "kind": "battle", "battle": b, "stack": [], "area": [],
                           "play": None, "res": [], "then": None}
            return events


def _round(tab: Tables, g: dict, b: dict, rng: Rng) -> Event:
    src, dst, p = b["from"], b["at"], b["player"]
    a, d = g["land"][src], g["land"][dst]
    fa, fm = b["fa"], b["fm"]
    saves = tab.terrain[d["terrain"]]["defence"]
    b["round"] += 1
    adice = rng.dice(tab.r["attack_dice"] * (fa + fm))
    dn = tab.r["defence_dice"] * (d["armies"] + d["monsters"]) + -(-d["pop"] // tab.r["population_per_die"])
    ddice = rng.dice(dn) if dn else []
    hits = adice.count(1)
    saved = min(hits, saves)
    hits -= saved
    back = ddice.count(1)
    lost_d = destroy(g, dst, hits, "battle")[0] if hits else None
    la = min(back, fa)
    lm = min(back - la, fm)
    fa -= la
    fm -= lm
    a["armies"] -= la
    a["monsters"] -= lm
    record(g, src, p, {"armies": la, "monsters": lm, "pop": 0, "temple": 0})
    b["fa"], b["fm"] = fa, fm
    return {
        "type": "battle_round", "round": b["round"], "attacker_dice": adice, "defender_dice": ddice,
        "attacker_hits": hits + saved, "mountain_saved": saved, "defender_hits": back,
        "defender_lost": {f: lost_d[f] for f in ("armies", "monsters", "pop", "temple")} if lost_d else none_lost(),
        "attackers_lost": la + lm, "attackers_left": fa + fm, "defenders_left": total(d),
    }


def _decided(tab: Tables, g: dict, b: dict) -> str | None:
    """How the battle ends after this round, or None if it goes on."""
    left = b["fa"] + b["fm"]
    theirs = total(g["land"][b["at"]])
    if theirs == 0 or left == 0:
        return "both" if theirs == 0 and left == 0 else ("defenders" if theirs == 0 else "attackers")
    if b["k"] and left <= b["k"]:
        return "retreat"
    if b["round"] >= tab.r["battle_round_cap"]:
        return "cap"
    return None


def end(g: dict, b: dict, result: str) -> list[Event]:
    """The battle is over: the attackers left stay home; who has attacked this phase."""
    src, dst = b["from"], b["at"]
    fix(g["land"][src])
    used = g["turn"]["attacks"][src]
    left = b["fa"] + b["fm"]
    n, no, nf = b["n"], b["no"], b["nf"]
    dead = n - left
    dead_o = min(dead, no)
    dead_f = dead - dead_o
    used[0] = used[0] - no + (nf - dead_f)
    used[1] += no - dead_o
    return [{"type": "battle_end", "player": b["player"], "from": src, "at": dst, "defender": b["defender"],
             "result": result, "rounds": b["round"], "attackers_left": left, "defenders_left": total(g["land"][dst])}]
