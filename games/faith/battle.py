"""Battle (5.4, stage 2): strength, Armies of God, the dice, the four results, retreats,
advance, the unrest around a battle, assassination, and killing (with martyrdom).

`resolve_battle(tab, g, spec, responses, rng)` takes the other gods' answers per belief:
responses.py fills them from the sealed round (battles=sealed) or from the standing orders
and the defaults (battles=standing)."""

from __future__ import annotations

from . import positions
from .conversion import martyrdom
from .population import can_enter, room
from .tables import Tables, modern_arms
from .hands import pay
from .world import INFIDEL, add_pop, bank, bless, pop_of, units_at

MARTYR_CAUSES = ("battle", "assassination", "lightning", "plague")


def kill_unit(tab: Tables, g: dict, uid: str, cause: str) -> list[dict]:
    x = g["units"].pop(uid)
    events = [{"type": "killed", "unit": uid, "kind": x["k"], "owner": x["o"], "at": x["h"], "cause": cause}]
    if x["k"] == "prophet" and cause in MARTYR_CAUSES:
        events += martyrdom(tab, g, x["h"], x["o"])
    return events


def kill_pop(g: dict, hid: str, owner: str) -> int:
    p, u = g["hexes"][hid]["pop"].pop(owner, [0, 0])
    bank(g, owner, p + u)
    return p + u


def sides(g: dict, hid: str, attacker: str, named: str, standing: dict) -> dict[str, str]:
    """Every owner with pieces in the hex -> attacker | defender | aside (CHOICE 51)."""
    owners = set(g["hexes"][hid]["pop"]) | {g["units"][u]["o"] for u in units_at(g, hid)}
    out = {}
    for o in sorted(owners):
        if o == attacker or (o in g["beliefs"] and positions.lead(g, o) == positions.lead(g, attacker)):
            out[o] = "attacker"   # a covenant's beliefs act as one (L360)
        elif o == named or o == INFIDEL:
            out[o] = "defender"
        else:
            out[o] = standing.get(o, "aside")
    return out


def attack_strength(tab: Tables, g: dict, attacker: str, groups: list, hid: str, side: dict) -> int:
    per = tab.data["population"]["per_battle_point"]
    total = 0
    pops: dict[str, int] = {}
    for n, kind, src in groups:
        if kind == "pop":
            pops[src] = pops.get(src, 0) + n
            continue
        k = tab.units[kind]["attack"] * n
        if modern_arms(tab, g, attacker) and kind in ("knight", "militia", "hero"):
            k *= 2
        total += k
    total += sum(v // per for v in pops.values())
    for o, s in side.items():   # allies in the attacked hex lend their ready strength
        if s != "attacker" or o == attacker:
            continue
        for u in units_at(g, hid, o):
            x = g["units"][u]
            if not x["b"] and x["k"] != "fortification":
                k = tab.units[x["k"]]["attack"]
                total += k * (2 if modern_arms(tab, g, o) and x["k"] in ("knight", "militia", "hero") else 1)
        total += pop_of(g, hid, o)[0] // per
    return total


def defence_strength(tab: Tables, g: dict, hid: str, side: dict) -> int:
    per = tab.data["population"]["per_battle_point"]
    total = tab.data["battle"]["ndp_bonus"] if tab.world.hexes[hid].ndp else 0
    for u in units_at(g, hid):
        x = g["units"][u]
        s = side.get(x["o"])
        if s == "defender" or (x["k"] == "fortification" and s != "attacker"):   # CHOICE 54
            spec = tab.units[x["k"]]
            total += spec["defence_broken"] if x["b"] else spec["defence"]
    for o, s in side.items():
        if s == "defender":
            total += pop_of(g, hid, o)[0] // per
    return total


def retreat_target(tab: Tables, g: dict, hid: str, owner: str, is_pop: bool, wanted: str | None, die: int | None) -> str | None:
    nbrs = tab.world.nbrs[hid]
    if die is not None:   # CHOICE 9: the Random Movement Chart
        dirs = tab.world.dirs[hid]
        for i in range(6):
            t = dirs[(die - 1 + i) % 6]
            if t is not None and can_enter(tab, g, t, owner, is_pop):
                return t
        return None
    if wanted in nbrs and can_enter(tab, g, wanted, owner, is_pop):
        return wanted
    ok = [t for t in nbrs if can_enter(tab, g, t, owner, is_pop)]
    if not ok:
        return None
    return min(ok, key=lambda t: (-room(tab, g, t, owner), t))   # CHOICE 59


def retreat_all(tab: Tables, g: dict, hid: str, losers: list[str], retreats: dict, rng) -> list[dict]:
    events = []
    for o in losers:
        die = rng.die(6) if o == INFIDEL else None
        wanted = retreats.get(o)
        moved: dict[str, int] = {}
        lost = 0
        for u in units_at(g, hid, o):
            x = g["units"][u]
            if x["k"] == "fortification":
                continue
            t = retreat_target(tab, g, hid, o, False, wanted, die)
            if t is None:
                events += kill_unit(tab, g, u, "battle")
                lost += 1
            else:
                x["h"] = t
                moved[t] = moved.get(t, 0) + 1
        p, un = pop_of(g, hid, o)
        for _ in range(p + un):
            t = retreat_target(tab, g, hid, o, True, wanted, die)
            if t is None:
                kill_pop_one(g, hid, o)
                lost += 1
            else:
                add_pop(g, hid, o, 0, -1) if pop_of(g, hid, o)[1] else add_pop(g, hid, o, -1, 0)
                add_pop(g, t, o, 0, 1)
                moved[t] = moved.get(t, 0) + 1
        events.append({"type": "retreat", "owner": o, "from": hid, "into": moved, "eliminated": lost, "die": die})
    return events


def kill_pop_one(g: dict, hid: str, owner: str) -> None:
    _p, u = pop_of(g, hid, owner)
    add_pop(g, hid, owner, 0, -1) if u else add_pop(g, hid, owner, -1, 0)
    bank(g, owner, 1)


def resolve_battle(tab: Tables, g: dict, spec: dict, responses: dict, rng) -> list[dict]:
    """spec: {attacker, player, hex, named, groups: [(n, kind, from)], units: [ids],
    pop: {from: n}, aog, advance}; responses: {owner: {side, aog, retreat, player}}."""
    hid, a = spec["hex"], spec["attacker"]
    side = sides(g, hid, a, spec["named"], {o: r["side"] for o, r in responses.items() if "side" in r})
    atk = attack_strength(tab, g, a, spec["groups"], hid, side)
    dfn = defence_strength(tab, g, hid, side)
    aog_a = spec["aog"]
    if aog_a:
        pay(g, spec["player"], aog_a, a)
    aog_d = 0
    shown: dict[str, int] = {}
    for o, s in side.items():   # defenders' Armies of God: their standing orders (CHOICE 56: spent)
        r = responses.get(o, {})
        if s == "defender" and r.get("aog") and r.get("player"):
            k = min(r["aog"], sum(g["hands"][r["player"]].values()))
            if k:
                pay(g, r["player"], k, o)
                aog_d += k
                shown[o] = k
    sealed = any(r.get("sealed") for r in responses.values())
    if sealed:   # battles=sealed (responses.py): allies of the attacker and the infidels' helpers
        for o, r in sorted(responses.items()):
            key = "aog_attack" if side.get(o) == "attacker" and o != a else "helps" if o not in side else None
            if key and r.get(key) and r.get("player"):
                k = min(r[key], sum(g["hands"][r["player"]].values()))
                if k:
                    pay(g, r["player"], k, o)
                    shown[o] = k
                    if key == "aog_attack":
                        aog_a += k
                    else:
                        aog_d += k
        if spec["aog"]:   # the attacker's first
            shown = {a: spec["aog"], **shown}
    red, white = rng.die(6), rng.die(6)
    A, D = atk + red + aog_a, dfn + white + aog_d
    if A >= 2 * D:
        result = "defenders eliminated"
    elif A > D:
        result = "defenders retreat"
    elif 2 * A < D:
        result = "attackers eliminated"
    else:
        result = "attackers broken"
    events: list[dict] = [{"type": "battle", "attacker": a, "at": hid, "named": spec["named"], "sides": side,
                           "attack": atk, "defence": dfn, "red": red, "white": white, "aog_attacker": aog_a,
                           "aog_defence": aog_d, "total_attack": A, "total_defence": D, "result": result}]
    if sealed:
        events[0]["aog"] = shown   # the sealed Armies of God, revealed by the battle
    losers = [o for o, s in side.items() if s != "attacker"]
    allies = [o for o, s in side.items() if s == "attacker" and o != a]
    attackers = [u for u in spec["units"] if u in g["units"]]
    era = g["era"]
    for u in attackers:
        g["units"][u]["fought"] = era
    for src, n in spec["pop"].items():
        f = g["fought_pop"].setdefault(src, {})
        f[a] = f.get(a, 0) + n
    if result == "defenders eliminated":
        for o in losers:
            for u in units_at(g, hid, o):
                if u in g["units"]:
                    events += kill_unit(tab, g, u, "battle")
            if o in g["hexes"][hid]["pop"]:
                kill_pop(g, hid, o)
        if g["hexes"][hid]["t"] == "fertile":   # CHOICE 58
            g["hexes"][hid]["t"] = "rough"
            events.append({"type": "terrain", "at": hid, "becomes": "rough", "cause": "battle"})
    elif result == "defenders retreat":
        for o in losers:
            for u in units_at(g, hid, o):
                x = g["units"][u]
                if not tab.units[x["k"]].get("unbreakable"):
                    x["b"] = True
            p, un = pop_of(g, hid, o)
            if p:
                g["hexes"][hid]["pop"][o] = [0, p + un]
        events += retreat_all(tab, g, hid, losers, {o: r.get("retreat") for o, r in responses.items()}, rng)
    elif result == "attackers eliminated":
        for u in attackers:
            if u in g["units"]:
                events += kill_unit(tab, g, u, "battle")
        for src, n in spec["pop"].items():
            for _ in range(min(n, sum(pop_of(g, src, a)))):
                kill_pop_one(g, src, a)
        for o in allies:
            for u in units_at(g, hid, o):
                events += kill_unit(tab, g, u, "battle")
            kill_pop(g, hid, o)
    else:
        for u in attackers:
            x = g["units"][u]
            if not tab.units[x["k"]].get("unbreakable"):
                x["b"] = True
        for src, n in spec["pop"].items():
            p, un = pop_of(g, src, a)
            k = min(n, p)
            add_pop(g, src, a, -k, k)
        for o in allies:
            for u in units_at(g, hid, o):
                x = g["units"][u]
                if not tab.units[x["k"]].get("unbreakable"):
                    x["b"] = True
    if result in ("defenders eliminated", "defenders retreat") and spec["advance"]:
        moved = []
        for u in attackers:
            x = g["units"].get(u)
            if x and positions.lead(g, x["o"]) == positions.lead(g, a) and x["h"] != hid:   # a covenant's too
                x["h"] = hid
                moved.append(u)
        if moved:
            events.append({"type": "advance", "belief": a, "into": hid, "units": len(moved)})
    # "ALL civilian units in a hex or an adjacent hex where a battle is taking place are
    # flipped to state of Unrest, unless a special unit affects them" (CHOICE 31)
    for h in [hid] + tab.world.nbrs[hid]:
        if h in g["hexes"]:
            pop = g["hexes"][h]["pop"]
            for o, (p, un) in list(pop.items()):
                pop[o] = [0, p + un]
            bless(g, tab, h)
    return events


def assassinate_orders(g: dict, belief: str) -> list[tuple]:
    """(hex, target kind, target owner): an own Apostle not used for a conversion this era,
    any unit or special unit in its hex (CHOICE 53: any belief, own included; another own
    apostle too, also one that converted this era: `assassinate` takes the first that did not
    as the assassin and another as the target)."""
    era = g["era"]
    out = []
    for hid in sorted({x["h"] for x in g["units"].values() if x["o"] == belief and x["k"] == "apostle" and x["conv"] != era}):
        mine = units_at(g, hid, belief, "apostle")
        for u in units_at(g, hid):
            x = g["units"][u]
            if x["k"] == "apostle" and x["o"] == belief and len(mine) < 2:
                continue   # the apostle itself is not its own target
            t = (hid, x["k"], x["o"])
            if t not in out:
                out.append(t)
    return out


def assassinate_check(g: dict, belief: str, hid: str, kind: str, owner: str) -> str | None:
    """Why `belief` cannot `assassinate HID KIND OWNER` now (None: it can), as
    assassinate_orders lists them: an apostle of its own there, not used for a Conversion this
    era (L592), a target there other than the assassin."""
    mine = units_at(g, hid, belief, "apostle")
    if not mine:
        return f"you have no apostle at {hid} to assassinate with"
    free = [u for u in mine if g["units"][u]["conv"] != g["era"]]
    if not free:
        return (f"your apostle at {hid} converted this era: an apostle used for a Conversion cannot assassinate "
                f"in the same Era")
    targets = [u for u in units_at(g, hid, owner, kind) if u != free[0]]
    if not targets:
        if kind == "apostle" and owner == belief and units_at(g, hid, owner, kind):
            return f"your apostle at {hid} cannot assassinate itself"
        return f"there is no {owner} {kind.replace('_', ' ')} at {hid} to assassinate"
    return None


def assassinate(tab: Tables, g: dict, belief: str, hid: str, kind: str, owner: str, rng) -> list[dict]:
    era = g["era"]
    apostle = next(u for u in units_at(g, hid, belief, "apostle") if g["units"][u]["conv"] != era)
    victim = next(u for u in units_at(g, hid, owner, kind) if u != apostle)
    die = rng.die(6)
    ok = die > tab.data["battle"]["assassinate_fails_on"]
    events = [{"type": "assassination", "belief": belief, "at": hid, "target": kind, "owner": owner, "die": die,
               "success": ok}]
    g["units"].pop(apostle)
    if ok:
        events += kill_unit(tab, g, victim, "assassination")
    return events
