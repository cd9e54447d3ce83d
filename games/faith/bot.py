"""Representative orders of the parsed verbs (for the order form and the bots) and the bots'
choices. Every example is made by the rules' own parser, so it parses back to itself."""

from __future__ import annotations

import random

from pbem.core.errors import OrderError

from .movement import allowance, movable, reachable
from .tables import cap
from .world import hand_total, pop_of


def _try(rules, state, player, tokens, b=None):
    """`tokens` parsed as `player`'s order (acting for belief `b` when she has several)."""
    tokens = list(tokens)
    if b is not None and len(rules.actors(state["game"], player)) > 1:
        tokens += ["for", b]
    try:
        return rules.parse(state, player, tokens)
    except OrderError:
        return None


def place_examples(rules, state, player, b, limit: int = 8) -> list:
    g = state["game"]
    have = g["hands"][player].get(b, 0)
    if not have:
        return []
    tab = rules.tab
    top = cap(tab, g, b)   # room(): the hex total against the belief's cap (sea is not in g)
    cands = []
    for hid in tab.world.order:
        x = g["hexes"].get(hid)
        if x is None:
            continue
        mine = sum(x["pop"].get(b, (0, 0)))
        others = sum(p + u for o, (p, u) in x["pop"].items() if o != b)
        r = top - mine - others
        if r <= 0:
            continue
        score = (x["t"] == "fertile") * 4 + (mine > 0) * 2 - (others > 0) * 3
        cands.append((-score, hid, r))
    cands.sort()
    out = []
    for _, hid, r in cands[:limit]:
        o = _try(rules, state, player, ("place", str(min(have, r)), hid), b)
        if o is not None:
            out.append(o)
    return out


def move_examples(rules, state, player, b, limit: int = 10, prefix: tuple = ()) -> list:
    g = state["game"]
    tab = rules.tab
    era = g["era"]
    groups: dict[tuple[str, str], int] = {}
    for x in g["units"].values():
        if x["o"] == b and x["moved"] != era and not x["b"] and x["k"] != "fortification":
            groups[(x["h"], x["k"])] = groups.get((x["h"], x["k"]), 0) + 1
    for hid, x in g["hexes"].items():
        if b in x["pop"]:
            free = movable(g, b, hid, "pop", "pacified")[0]
            if free:
                groups[(hid, "pop")] = max(1, free // 2)
    out = []
    for (hid, kind), n in sorted(groups.items()):
        reach = allowance(tab, g, b, kind, False)
        dests = reachable(tab, g, b, kind, hid, min(reach, 2))
        for dst in dests[:2]:
            o = _try(rules, state, player, (*prefix, "move", str(n), kind, "pacified" if kind == "pop" else "ready", hid, "->", dst),
                     None if prefix else b)
            if o is not None:
                out.append(o)
        if len(out) >= limit:
            break
    return out


def attack_examples(rules, state, player, b, limit: int = 6, prefix: tuple = ()) -> list:
    g = state["game"]
    tab = rules.tab
    out = []
    era = g["era"]
    ready: dict[str, dict[str, int]] = {}   # hex -> kind -> own ready units that may still attack
    owners: dict[str, set] = {}             # hex -> the other owners of units there
    for y in g["units"].values():
        if y["o"] != b:
            owners.setdefault(y["h"], set()).add(y["o"])
        elif not y["b"] and y["fought"] != era and y["k"] != "fortification":
            kinds = ready.setdefault(y["h"], {})
            kinds[y["k"]] = kinds.get(y["k"], 0) + 1
    near = {x["h"] for x in g["units"].values() if x["o"] == b and not x["b"] and x["fought"] != era}
    near |= {n for h in near for n in tab.world.nbrs[h]}
    for hid in tab.world.order:
        x = g["hexes"].get(hid)
        if x is None or hid not in near:
            continue
        others = sorted({o for o in x["pop"] if o != b} | owners.get(hid, set()))
        if not others:
            continue
        groups = []
        for src in [hid] + tab.world.nbrs[hid]:
            if src not in g["hexes"]:
                continue
            for k, n in sorted(ready.get(src, {}).items()):
                groups += [str(n), k, src]
        if not groups:
            continue
        o = _try(rules, state, player, (*prefix, "attack", hid, others[0], "with", *groups), None if prefix else b)
        if o is not None:
            out.append(o)
        if len(out) >= limit:
            break
    return out


def apotheosis_examples(rules, state, player, b, limit: int = 3) -> list:
    g = state["game"]
    per = rules.data["divine"]["apotheosis_per_chip"]
    can = hand_total(g, player) // per
    if not can:
        return []
    out = []
    for hid in rules.tab.world.order:
        x = g["hexes"].get(hid)
        if not x:
            continue
        for o, (p, u) in sorted(x["pop"].items()):
            if o not in (b, "infidel") and o in g["beliefs"]:
                k = min(can, p + u)
                order = _try(rules, state, player, ("apotheosis", str(k), o, hid), b)
                if order is not None:
                    out.append(order)
        if len(out) >= limit:
            break
    return out


CRIMES = ("broke the peace of the gods", "did not pay what was promised", "slaughtered the faithful")


def _amounts(have: int) -> list[int]:
    return sorted({k for k in (1, 5, 10, have // 2, have) if 1 <= k <= have})


def contest_examples(rules, state, player, b) -> list:
    """A Direct Attack and a Divine Judgement on each other god's position, for the order form."""
    from . import contests, positions
    g = state["game"]
    out = []
    own = contests.can_wager(g, player, True, positions.lead(g, b))
    for pos in positions.positions(g):
        if positions.controller(g, pos) == player:
            continue
        for n in sorted({own // 2, own}):
            o = _try_for(rules, state, player, b, ("strike", pos, "wager", str(n)))
            if o is not None:
                out.append(o)
        o = _try_for(rules, state, player, b, ("judge", pos, CRIMES[len(out) % len(CRIMES)]))
        if o is not None:
            out.append(o)
    return out


def _try_for(rules, state, player, b, tokens):
    """An order of one of the player's beliefs (the rules tag it `for BELIEF` when she has two)."""
    try:
        return rules._parse_one(state, player, b, tokens[0], list(tokens[1:]))
    except OrderError:
        return None


def wager_examples(rules, state, player) -> list:
    from . import contests
    g = state["game"]
    c = g["pending"]["contest"]
    out = []
    have = contests.can_wager(g, player, c["kind"] == "strike", contests._pos_of(c, player))
    for side in contests.allowed_sides(g, player):
        for n in _amounts(have):
            o = _try(rules, state, player, ("wager", str(n), "for", side))
            if o is not None:
                out.append(o)
    if c["kind"] == "judgement" and player in (c["by"], c["against"]) and player not in c["drops"]:
        from pbem.core.orders import Order
        out.append(Order(("drop",), ("drop",)))
    return out


def duel_wager_examples(rules, state, player) -> list:
    from . import duels
    g = state["game"]
    have = sum(g["hands"][player].values())
    out = []
    for hid, belief in duels.wager_targets(g, player):
        for n in _amounts(have)[:3]:
            o = _try(rules, state, player, ("wager", str(n), "for", hid, belief))
            if o is not None:
                out.append(o)
    return out


def _contest_choice(state, player, by, done, rng):
    """Wagers: the defender and the accused defend themselves, the accuser presses her case,
    the others now and then back a side; the parties sometimes drop a Judgement."""
    g = state["game"]
    c = g["pending"]["contest"]
    if any(s["player"] == player for s in c["stakes"]) or player in c["drops"]:
        return done
    wagers = by.get("wager", [])
    if "drop" in by and rng.random() < (0.3 if player == c["against"] else 0.15):
        return by["drop"][0]
    if not wagers:
        return done
    party = player in (c["against"], c["by"])
    if party and rng.random() < 0.85:   # up to a third of the hand: the rest is kept for later
        part = max(1, hand_total(g, player) // 3)
        pick = [o for o in wagers if o.payload[1] <= part] or wagers[:1]
        return rng.choice(pick)
    if not party and rng.random() < 0.15:
        small = [o for o in wagers if o.payload[1] <= 3] or wagers[:1]
        return rng.choice(small)
    return done


def _duel_choice(state, player, by, done, rng):
    g = state["game"]
    d = g["pending"]["duel"]
    if "yield" in by and rng.random() < 0.3:
        return rng.choice(by["yield"])
    if "wager" in by and not any(s["player"] == player for s in d["stakes"]) and rng.random() < 0.2:
        return rng.choice(by["wager"])
    return done


def _crowd(rules, g, hid, b) -> int:
    """Other owners' pieces (chips and units) at a hex and next to it."""
    near = [hid] + list(rules.world.nbrs[hid])
    n = sum(k for h in near if h in g["hexes"] for o, pu in g["hexes"][h]["pop"].items() if o != b for k in pu)
    return n + sum(1 for x in g["units"].values() if x["h"] in near and x["o"] != b)


def _estimate(rules, state, order) -> float:
    """A rough odds measure for an attack: declared strength against the hex's defence."""
    from .battle import attack_strength, defence_strength, sides
    g = state["game"]
    spec = dict(order.payload[-1])
    hid = spec["hex"]
    b = next(o for o in [g["units"][u]["o"] for u in spec["units"]] or [None] if o) if spec["units"] else None
    if b is None:
        return 0
    side = sides(g, hid, b, spec["named"], {})
    a = attack_strength(rules.tab, g, b, list(spec["groups"]), hid, side)
    d = defence_strength(rules.tab, g, hid, side)
    return (a + 3.5) / (d + 3.5)


def bid_choice(g: dict, player: str, bids: list, rng):
    """A sealed maximum: mostly a modest share of the hand (a quarter or half of it, or 1),
    sometimes nothing; never the whole hand (the examples stop at half)."""
    pos = bids[0].payload[2]
    mine = [o for o in bids if o.payload[2] == pos]
    weights = {0: 1, 1: 2}
    pool = [o for o in mine for _ in range(weights.get(o.payload[1], 3))]
    return rng.choice(pool)


def live_bid_choice(g: dict, player: str, by: dict, done, rng):
    """bidding=live: stay in while the amount is within a third of the hand (a random
    appetite), raise now and then, else pass."""
    a = g["auction"]
    limit = max(1, hand_total(g, player) // rng.choice((2, 3, 4)))
    opts = sorted(by.get("bid", []), key=lambda o: o.payload[1])
    ok = [o for o in opts if o.payload[1] <= limit]
    if not ok or rng.random() < 0.15:
        return done
    if a["current"] and ok[0].payload[1] == a["current"] and rng.random() < 0.6:
        return ok[0]
    return rng.choice(ok)


def choose(rules, state, player, legal, rng):
    """A bot that plays the game forward: it places and raises on green land, converts when it
    can, attacks when the odds look good, spreads its people, and uses its interventions."""
    g = state["game"]
    phase = state["flow"]["phase"]
    by: dict[str, list] = {}
    for o in legal:
        by.setdefault(o.verb, []).append(o)
    done = by.get("done", by.get("none", [legal[-1]]))[0]
    if "claim" in by:
        return by["claim"][0]
    if phase == "setup":
        ch = g["choices"][player]
        if not ch["beliefs"]:
            return rng.choice(by["belief"])
        if ch["level"] is None:
            return rng.choice(by["level"])
        return done
    if phase == "negotiation":
        return _deal(rules, state, player, done, rng)
    if phase == "powerup":
        if "flip" in by:
            free = [o for o in by["flip"] if o.payload[1] == "free"]   # offered until taken
            if free:
                return free[0]
            if rng.random() < 0.4:
                return rng.choice(by["flip"])
        bids = [o for o in by.get("bid", []) if o.payload[2] not in g["bids"]]
        if bids and rng.random() < 0.75:
            return bid_choice(g, player, bids, rng)
        return done
    if phase == "bidding":
        return live_bid_choice(g, player, by, done, rng)
    if phase == "contest" and (g.get("pending") or {}).get("contest", {}).get("kind") in ("strike", "judgement"):
        return _contest_choice(state, player, by, done, rng)
    if phase == "duel":
        return _duel_choice(state, player, by, done, rng)
    if phase == "contest":
        if "bid" in by and rng.random() < 0.5:
            return rng.choice(by["bid"])
        return done
    if phase == "jihad":   # the Jihad's infidels: next to other gods' people, else anywhere
        if "infidel" not in by:
            return done
        mine = {b for b in g["beliefs"] if g["beliefs"][b]["player"] == player}
        near = [o for o in by["infidel"]
                if any(x not in mine and x != "infidel" for x in g["hexes"][o.payload[1]]["pop"])]
        return rng.choice(near or by["infidel"])
    if "infidel" in by and phase in ("infidels", "action"):   # the Jihad: infidels attack other gods
        mine = {b for b in g["beliefs"] if g["beliefs"][b]["player"] == player}
        good = [o for o in by["infidel"] if o.payload[1] == "attack" and dict(o.payload[-1])["named"] not in mine
                and _estimate(rules, state, o) >= 1.3]
        if good and rng.random() < 0.8:
            return rng.choice(good)
        moves = [o for o in by["infidel"] if o.payload[1] == "move"]
        if moves and rng.random() < 0.2:
            return rng.choice(moves)
        if phase == "infidels":
            return done
    if phase == "infidels":
        return done
    if phase == "response":
        return answer(rules, state, player, by, rng, done)
    if phase == "divine":
        hand = hand_total(g, player)
        if "jihad" in by and hand >= 12 and rng.random() < 0.12:
            return rng.choice(by["jihad"])
        # the contests draw from a stream of their own (the position's), so that the other
        # interventions' choices stay as they were
        own = random.Random(f"{g['era']}/{player}/{hand}/{len(g['units'])}/{g['next_uid']}")
        if "strike" in by and g["era"] >= 8 and own.random() < 0.05:
            # a Direct Attack on the god with the largest population, with a real wager
            scores = rules.scores(state)
            strong = [o for o in by["strike"] if o.payload[2] >= 8]
            if strong:
                top = max(scores.get(g["beliefs"][o.payload[1]]["player"], 0) for o in strong)
                return own.choice([o for o in strong if scores.get(g["beliefs"][o.payload[1]]["player"], 0) == top])
        if "judge" in by and own.random() < 0.03:
            return own.choice(by["judge"])
        if "smite" in by:   # the TIP again: a Prophet of one's own struck down amid the others
            b = rules._belief(g, player)
            for o in by["smite"]:
                if o.payload[2] == "prophet" and o.payload[3] == b and _crowd(rules, g, o.payload[1], b) >= 6:
                    return o
        picks = []
        for v in ("levelup", "miracle", "calling", "abundance", "smite", "apotheosis", "pestilence", "plague"):
            if v in by and rng.random() < 0.35:
                opts = by[v]
                own = rules.actors(g, player)
                mine = lambda hid: sum(sum(pop_of(g, hid, b)) for b in own)
                if v == "smite":
                    opts = [o for o in opts if o.payload[3] not in own]
                    # another god's special unit first (a Prophet: martyrdom), else anything not ours
                    opts = [o for o in opts if o.payload[2] in ("prophet", "hero", "high_priest")] or opts
                if v in ("miracle", "calling"):
                    opts = [o for o in opts if mine(o.payload[1])] or opts
                if v in ("plague", "pestilence", "apotheosis"):
                    opts = [o for o in opts if not mine(o.payload[-1] if v != "apotheosis" else o.payload[3])]
                if opts:
                    picks.append(rng.choice(opts))
        if picks and hand >= 5:
            return picks[0]
        return done
    # the action phase
    standing = standing_choice(rules, state, player, rng)
    if standing is not None:
        return standing
    if "place" in by and rng.random() < 0.9:
        return by["place"][0] if rng.random() < 0.7 else rng.choice(by["place"])
    if "raise" in by and rng.random() < 0.5:
        opts = by["raise"]
        weights = {"militia": 4, "knight": 3, "apostle": 2, "hero": 1, "fortification": 1}
        pool = [o for o in opts for _ in range(weights.get(o.payload[1], 1))]
        return rng.choice(pool)
    for v in ("convert", "pogrom", "slaughter"):
        if v in by and rng.random() < (0.7 if v == "convert" else 0.3):
            return rng.choice(by[v])
    if "attack" in by:
        good = [o for o in by["attack"] if _estimate(rules, state, o) >= 1.6]
        if good and rng.random() < 0.8:
            return rng.choice(good)
    if "assassinate" in by:
        # the TIP of 4e: an own Prophet killed where the others crowd converts them all
        b = rules._belief(g, player)
        for o in by["assassinate"]:
            if o.payload[2] == "prophet" and o.payload[3] == b and _crowd(rules, g, o.payload[1], b) >= 6:
                return o
    if "assassinate" in by and rng.random() < 0.15:
        return rng.choice(by["assassinate"])
    if "move" in by and rng.random() < 0.35:
        return rng.choice(by["move"])
    return done



def _leader(rules, g: dict) -> str | None:
    """The belief with the most population on the board (the one to gang up on)."""
    best = None
    top = -1
    for b, x in g["beliefs"].items():
        if x["alive"]:
            n = sum(sum(h["pop"].get(b, (0, 0))) for h in g["hexes"].values())
            if n > top:
                best, top = b, n
    return best


def answer(rules, state, player, by, rng, done):
    """battles=sealed: a bot asked about battles answers each hex once: it defends against the
    leader or sides with the weaker, stands aside otherwise; sends some Armies of God when it
    defends; retreats toward its own people."""
    g = state["game"]
    a = g["answering"]
    mine = a["answers"].get(player, {})
    b = rules._belief(g, player)
    lead = _leader(rules, g)
    named = {x["spec"]["hex"]: x["spec"]["named"] for x in a["actions"] if x["kind"] == "attack"}
    for hid in a["asked"].get(player, []):
        got = mine.get(hid, {})
        sides = [o for o in by.get("side", []) if o.payload[2] == hid]
        if sides and "side" not in got:
            want = "defender" if a["pos"] == lead or rng.random() < 0.3 else "attacker" if rng.random() < 0.15 else "aside"
            return next(o for o in sides if o.payload[3] == want)
        side = got.get("side") or ("defender" if named.get(hid) == b else None)
        aogs = [o for o in by.get("aog", []) if o.payload[2] == hid]
        helps = side is None and not sides   # a hex of infidels alone: help them only against the leader
        keen = 0.5 if helps and a["pos"] == lead else 0.1 if helps else 0.6
        if aogs and "aog" not in got and side in ("defender", "attacker", None) and rng.random() < keen:
            small = [o for o in aogs if o.payload[3] <= max(3, hand_total(g, player) // 4)]
            return rng.choice(small or aogs[:1])
        backs = [o for o in by.get("retreat", []) if o.payload[2] == hid]
        if backs and "retreat" not in got and rng.random() < 0.8:
            return max(backs, key=lambda o: (sum(pop_of(g, o.payload[3], b)), o.payload[3]))
    return done


def standing_choice(rules, state, player, rng):
    """battles=sealed: now and then a bot sets the standing orders that answer for it, so that
    it is asked only where they do not (the pace: a round only for a real decision)."""
    g = state["game"]
    if g.get("battles") != "sealed" or rng.random() < 0.8:
        return None
    st = g["standing"][player]
    b = rules._belief(g, player)
    if "any" not in st["side"]:
        return _try(rules, state, player, ("side", "any", "aside" if rng.random() < 0.8 else "defender"))
    if "any" not in st["defend"]:
        return _try(rules, state, player, ("defend", "any", "aog", str(rng.choice((0, 0, 1, 2)))))
    for hid in rules.tab.world.order:
        x = g["hexes"].get(hid)
        if x is None or hid in st["retreat"] or not (b in x["pop"] or any(
                g["units"][u]["o"] == b for u in _units_here(g, hid))):
            continue
        nbrs = [n for n in rules.tab.world.nbrs[hid] if n in g["hexes"]]
        if nbrs:
            best = max(nbrs, key=lambda n: (sum(pop_of(g, n, b)), -sum(sum(v) for v in g["hexes"][n]["pop"].values()), n))
            return _try(rules, state, player, ("retreat", hid, "->", best))
    return None


def _units_here(g: dict, hid: str) -> list:
    return [u for u, x in g["units"].items() if x["h"] == hid]


def _deal(rules, state, player, done, rng):
    """Phase 2: the bot's deals of this round (negotiation.bot_lines), one line a call. The
    plan is kept in the copy of the state the bot plays forward (host.bot_script)."""
    from . import negotiation
    g = state["game"]
    plans = g.setdefault("bot_plan", {})
    if player not in plans:
        plans[player] = negotiation.bot_lines(rules, state, player, rng)
    while plans[player]:
        order = _try(rules, state, player, plans[player].pop(0).split())
        if order is not None:
            return order
    return done
