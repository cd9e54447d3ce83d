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


def battle(tab: Tables, g: dict, p: str, src: str, dst: str, n: int, k: int, rng: Rng) -> list[Event]:
    t = g["turn"]
    land = g["land"]
    a, d = land[src], land[dst]
    defender = d["owner"]
    used = t["attacks"].setdefault(src, [0, 0])  # attacked once (and alive), attacked twice
    fresh = a["armies"] + a["monsters"] - used[0] - used[1]
    nf = min(n, fresh)
    no = n - nf
    fa = min(n, a["armies"])
    fm = n - fa
    saves = tab.terrain[d["terrain"]]["defence"]
    events: list[Event] = [{"type": "battle", "player": p, "from": src, "at": dst, "defender": defender,
                            "attackers": n, "retreat": k, "terrain": d["terrain"], "second": no > 0}]
    rnd = 0
    while True:
        rnd += 1
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
        events.append({
            "type": "battle_round", "round": rnd, "attacker_dice": adice, "defender_dice": ddice,
            "attacker_hits": hits + saved, "mountain_saved": saved, "defender_hits": back,
            "defender_lost": {f: lost_d[f] for f in ("armies", "monsters", "pop", "temple")} if lost_d else none_lost(),
            "attackers_lost": la + lm, "attackers_left": fa + fm, "defenders_left": total(d),
        })
        if total(d) == 0 or fa + fm == 0:
            result = "both" if total(d) == 0 and fa + fm == 0 else ("defenders" if total(d) == 0 else "attackers")
            break
        if k and fa + fm <= k:
            result = "retreat"
            break
        if rnd >= tab.r["battle_round_cap"]:
            result = "cap"
            break
    fix(a)
    dead = n - (fa + fm)
    dead_o = min(dead, no)
    dead_f = dead - dead_o
    used[0] = used[0] - no + (nf - dead_f)
    used[1] += no - dead_o
    events.append({"type": "battle_end", "player": p, "from": src, "at": dst, "defender": defender,
                   "result": result, "rounds": rnd, "attackers_left": fa + fm, "defenders_left": total(d)})
    return events
