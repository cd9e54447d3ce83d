"""Battles answered (issue 16, spec 5.4 and R6): with the game option `battles=sealed` (the
default) the gods with something to decide in an attacked hex answer in ONE sealed round per
attacker's turn -- their side, their Armies of God, their retreat -- before its battles are
fought. `battles=standing` fights every battle at once from the standing
orders (`side`, `defend`, `retreat`) and the defaults; no key of this module enters the state.

Who is asked (CHOICE 140), on the position before the turn's battles, for every battle the
attacker declared:

* every other living position, not in limbo, with pieces in the attacked hex, about what it
  still has to decide there: its side (not the named belief, which defends: CHOICE 51); its
  Armies of God (a hand that is not empty, and a side that could use them); its retreat (pieces
  that would have to retreat and two or more hexes to retreat to);
* for a hex held by infidels alone, every other living position not in limbo with faith in
  hand ("Armies of God of any other player can be added to the defence strength", L588);
* a decision its standing orders cover is not asked: `side HEX|any ...` answers the side,
  `defend HEX|any aog N` the Armies of God when it defends, `retreat HEX -> HEX` the retreat.
  A position with nothing left to decide is never asked; a player with no such position is
  not asked, and when nobody is, the battles are fought at once.

The round (flow phase "response", sealed; its flow pace is "reaction", so the host gives it
the game's reaction deadline): `side HEX attacker|defender|aside`, `aog HEX N`,
`retreat HEX -> HEX` for a hex of this round, `done`. No answer: the standing orders, then
the defaults (CHOICE 51: the named belief and the infidels defend, every other belief stands
aside; Armies of God 0; CHOICE 59: the retreat with the most room). Positions in limbo answer
nothing: their pieces defend with their dice, without Armies of God (spec 2.8).

How the turn stops (CHOICE 141): the attacker's first battle that needs an answer, and every
battle or assassination he declares after it, is put in `game.answering` (the battles in the
order declared), and fought once the round is answered. In compact pace the lines of the
gods after him in the turn order (their Movement and Battle lines) wait in `game.deferred`
and run, each judged again then, after his battles (a line no longer legal then is void, with
the reason): so the round costs one deadline and nobody is asked twice. In live pace his
`done` ends his turn and opens the round.

The Jihad's infidel turn is answered by the standing orders, without a round (CHOICE 144).

The answers are sealed: each answer is told to its player only (events with "to"), the
attacker's declared Armies of God too; the battle's event shows every side and every god's
Armies of God when it is fought.

State (present only with `battles=sealed`, and `answering`/`deferred` only while needed):
  game.battles    "sealed"
  game.answering  {pos (the attacking position), player, actions: [{kind: "attack", spec} |
                   {kind: "assassinate", belief, args}],
                   open: bool, asked: {player: [hex]}, answers: {player: {hex: {side, aog, retreat}}}}
  game.deferred   [{player, pos, tokens}]: later positions' lines waiting for the battles
"""

from __future__ import annotations

from pbem.core.engine import Event

from . import positions
from .battle import assassinate, assassinate_orders, resolve_battle
from .population import can_enter
from .world import INFIDEL, hand_total, owners_at, pop_of, units_at

SIDES = ("attacker", "defender", "aside")


def sealed(g: dict) -> bool:
    return g.get("battles") == "sealed"


def infidel_hex(g: dict, hid: str, attacker: str, named: str) -> bool:
    """A hex held by infidels alone (L588): the named defender is the infidels and nobody but
    the attacker and the infidels has pieces there."""
    return named == INFIDEL and owners_at(g, hid) <= {INFIDEL, attacker}


def _movable_here(g: dict, hid: str, o: str) -> bool:
    p, u = pop_of(g, hid, o)
    return bool(p + u) or any(g["units"][x]["k"] != "fortification" for x in units_at(g, hid, o))


def retreat_hexes(tab, g: dict, hid: str, o: str) -> list[str]:
    """Where `o`'s pieces at `hid` could retreat (some piece of it may enter)."""
    has_pop = sum(pop_of(g, hid, o)) > 0
    has_units = any(g["units"][x]["k"] != "fortification" for x in units_at(g, hid, o))
    return [t for t in tab.world.nbrs[hid]
            if (has_units and can_enter(tab, g, t, o, False)) or (has_pop and can_enter(tab, g, t, o, True))]


def _standing(g: dict, player: str, kind: str, hid: str):
    st = g["standing"][player][kind]
    return st[hid] if hid in st else st.get("any")


def decisions(tab, g: dict, spec: dict, o: str) -> list[str]:
    """What position `o` still has to decide about the battle `spec` (its standing orders
    answer the rest): a subset of side, aog, retreat."""
    hid, a, named = spec["hex"], spec["attacker"], spec["named"]
    x = g["beliefs"].get(o)
    if o in (a, INFIDEL) or not x or not x["alive"] or x["limbo"] or positions.lead(g, o) == positions.lead(g, a):
        return []   # the attacker's covenant partner attacks with it (one position, L360)
    player = x["player"]
    present = o in owners_at(g, hid)
    hand = hand_total(g, player) > 0
    st_side = _standing(g, player, "side", hid)
    st_aog = _standing(g, player, "defend", hid)
    out = []
    if not present:
        if infidel_hex(g, hid, a, named) and hand and st_side is None:
            out.append("aog")
        return out
    side = "defender" if o == named else st_side
    if side is None:
        out.append("side")
    if hand and (side is None or (side == "defender" and st_aog is None)):
        out.append("aog")
    if (side != "attacker" and _movable_here(g, hid, o) and len(retreat_hexes(tab, g, hid, o)) > 1
            and hid not in g["standing"][player]["retreat"]):
        out.append("retreat")
    return out


def asked_about(tab, g: dict, specs: list[dict]) -> dict[str, list[str]]:
    """player -> the hexes of these battles he is asked about (turn order of his positions)."""
    out: dict[str, list[str]] = {}
    for pos in positions.positions(g):
        for o in positions.members(g, pos):
            for spec in specs:
                if decisions(tab, g, spec, o):
                    hexes = out.setdefault(g["beliefs"][o]["player"], [])
                    if spec["hex"] not in hexes:
                        hexes.append(spec["hex"])
    return out


def needs_round(tab, g: dict, spec: dict) -> bool:
    return bool(asked_about(tab, g, [spec]))


# --- declaring ---------------------------------------------------------------------------------

def public_groups(spec: dict) -> list:
    return [list(x) for x in spec["groups"]]


def declare(g: dict, player: str, b: str, spec: dict) -> list[Event]:
    """The attacker declares a battle that waits for the round: his declared pieces are spent
    for this turn (CHOICE 49) and the declaration is public, his Armies of God are not."""
    a = g.setdefault("answering", {"pos": positions.lead(g, b), "player": player, "actions": [], "open": False,
                                   "asked": {}, "answers": {}})
    a["actions"].append({"kind": "attack", "spec": spec})
    era = g["era"]
    for u in spec["units"]:
        if u in g["units"]:
            g["units"][u]["fought"] = era
    for src, n in spec["pop"].items():
        f = g["fought_pop"].setdefault(src, {})
        f[b] = f.get(b, 0) + n
    events: list[Event] = [{"type": "battle_declared", "attacker": b, "player": player, "at": spec["hex"],
                            "named": spec["named"], "groups": public_groups(spec)}]
    if spec["aog"]:
        events.append({"type": "aog_sealed", "player": player, "at": spec["hex"], "aog": spec["aog"], "to": player})
    return events


def declare_assassination(g: dict, b: str, args: tuple) -> list[Event]:
    g["answering"]["actions"].append({"kind": "assassinate", "belief": b, "args": list(args)})
    return [{"type": "assassination_declared", "belief": b, "at": args[0], "target": args[1], "owner": args[2]}]


def waits(g: dict, b: str | None) -> bool:
    """Whether a Movement and Battle line acting for belief `b` waits for another position's
    battles (compact pace: the turn of that position is over, its round not yet fought)."""
    a = g.get("answering")
    return bool(a) and (b is None or positions.lead(g, b) != a["pos"])


def defer(g: dict, player: str, b: str | None, tokens: tuple, text: str) -> list[Event]:
    g.setdefault("deferred", []).append({"player": player, "pos": positions.lead(g, b) if b else None,
                                         "tokens": list(tokens)})
    who = g["answering"]["player"] if g.get("answering") else ""
    return [{"type": "deferred", "player": player, "order": text, "until": who, "to": player}]


# --- the round ---------------------------------------------------------------------------------

def open_round(tab, g: dict) -> dict[str, list[str]]:
    """The players to ask about the pending turn's battles (empty: fight them at once)."""
    a = g["answering"]
    specs = [x["spec"] for x in a["actions"] if x["kind"] == "attack"]
    asked = asked_about(tab, g, specs)
    a["asked"] = asked
    a["open"] = bool(asked)
    return asked


def _name(tab, o: str) -> str:
    """A belief's name as the reports give it ("Ancient Egyptian"), the infidels' as "infidels"."""
    return "infidels" if o == INFIDEL else tab.beliefs[o]["name"] if o in tab.beliefs else o


def prompt(tab, g: dict) -> str:
    a = g["answering"]
    parts = []
    for x in a["actions"]:
        if x["kind"] != "attack":
            continue
        s = x["spec"]
        groups = ", ".join(f"{n} {k} from {src}" for n, k, src in s["groups"])
        parts.append(f"{s['hex']} (against the {_name(tab, s['named'])}, with {groups})")
    return (f"era {g['era']}, the battles of the {_name(tab, a['pos'])} ({a['player']}): " + "; ".join(parts)
            + " -- answer for the hexes you are asked about, in one sealed round: `side HEX attacker|defender|aside`, "
            "`aog HEX N` (Armies of God from your hand), `retreat HEX -> HEX`, then `done`. No answer: your standing "
            "orders, then the defaults (the named belief defends, others stand aside, no Armies of God, the retreat "
            "with the most room)")


def round_hexes(g: dict, player: str) -> list[str]:
    a = g.get("answering")
    if not a or not a["open"]:
        return []
    return list(a["asked"].get(player, []))


def answer(g: dict, player: str, kind: str, hid: str, value) -> list[Event]:
    ans = g["answering"]["answers"].setdefault(player, {}).setdefault(hid, {})
    ans[kind] = value
    return [{"type": "answer", "player": player, "at": hid, "what": kind, "value": value, "to": player}]


def _response(tab, g: dict, spec: dict, o: str, answers: dict) -> dict:
    """Position `o`'s answer for one battle: its answer this round, else its standing orders,
    else the defaults (CHOICE 51, 59)."""
    hid, a, named = spec["hex"], spec["attacker"], spec["named"]
    x = g["beliefs"][o]
    player = x["player"]
    r: dict = {"player": player, "sealed": True}
    present = o in owners_at(g, hid)
    if positions.lead(g, o) == positions.lead(g, a):   # the attacker's covenant partner: its side
        if present:
            r["side"] = "attacker"
        return r
    ans = answers.get(player, {}).get(hid, {}) if not x["limbo"] else {}
    if x["limbo"]:   # spec 2.8: passive, its dice only
        if hid in g["standing"][player]["retreat"]:
            r["retreat"] = g["standing"][player]["retreat"][hid]
        return r
    side = ans.get("side") or _standing(g, player, "side", hid)
    if present and side and o != named:
        r["side"] = side
    if "retreat" in ans:
        r["retreat"] = ans["retreat"]
    elif hid in g["standing"][player]["retreat"]:
        r["retreat"] = g["standing"][player]["retreat"][hid]
    eff = "defender" if o == named else (side or "aside")
    if "aog" in ans:
        aog = ans["aog"]
    elif eff == "defender":
        aog = _standing(g, player, "defend", hid) or 0
    else:
        aog = 0
    if not present:
        if infidel_hex(g, hid, a, named) and (eff == "defender" or "aog" in ans) and aog:
            r["helps"] = aog   # Armies of God for the infidels' defence (L588)
        return r
    if eff == "defender" and aog:
        r["aog"] = aog
    elif eff == "attacker" and aog:
        r["aog_attack"] = aog   # CHOICE 142: an ally of the attacker may send Armies of God too
    return r


def responses_for(tab, g: dict, spec: dict, answers: dict) -> dict:
    out = {}
    for o, x in g["beliefs"].items():
        if o == spec["attacker"] or not x["alive"]:
            continue
        out[o] = _response(tab, g, spec, o, answers)
    return out


def refresh(tab, g: dict, spec: dict) -> tuple[dict | None, str]:
    """The declared battle as it can still be fought: the declared pieces still there and fit
    (a piece killed or broken since is left out; population no longer pacified is left out),
    or None and why not."""
    hid, a = spec["hex"], spec["attacker"]
    if not g["beliefs"][a]["alive"]:
        return None, "the attacking belief is dead"
    others = owners_at(g, hid) - {a}
    if spec["named"] not in others:
        return None, f"the {spec['named']} have nothing at {hid} any more"
    side = positions.lead(g, a)   # a covenant's units attack together (CHOICE 111)
    units = [u for u in spec["units"] if u in g["units"] and positions.lead(g, g["units"][u]["o"]) == side
             and not g["units"][u]["b"] and (g["units"][u]["h"] == hid or g["units"][u]["h"] in tab.world.nbrs[hid])]
    groups = []
    pops = {}
    for n, kind, src in spec["groups"]:
        if kind == "pop":
            k = min(n, pop_of(g, src, a)[0]) if src in g["hexes"] else 0
            if k:
                pops[src] = pops.get(src, 0) + k
                groups.append((k, kind, src))
        else:
            k = sum(1 for u in units if g["units"][u]["k"] == kind and g["units"][u]["h"] == src)
            if k:
                groups.append((min(n, k), kind, src))
    if not groups:
        return None, "none of the declared pieces can attack any more"
    out = dict(spec)
    out.update(groups=groups, units=units, pop=pops)
    return out, ""


def fight(rules, state: dict, rng) -> list[Event]:
    """The round is answered (or nobody had to be): fight the turn's battles and
    assassinations in the order declared, with the answers."""
    tab = rules.tab
    g = state["game"]
    a = g.pop("answering")
    answers = a["answers"]
    events: list[Event] = []
    for x in a["actions"]:
        if state["flow"].get("over"):
            break
        if x["kind"] == "assassinate":
            hid, kind, owner = x["args"]
            b = x.get("belief", a["pos"])
            # CHOICE 184: judged again when its turn comes, as when it was declared (an earlier
            # battle or assassination may have taken its apostle or its target); no longer
            # possible, it is void: no die, its apostle (if any) not spent
            if (hid, kind, owner) not in assassinate_orders(g, b):
                era = g["era"]
                gone = ("its apostle" if not any(g["units"][u]["conv"] != era for u in units_at(g, hid, b, "apostle"))
                        else f"its target ({owner} {kind}{' other than the assassin' if (owner, kind) == (b, 'apostle') else ''})")
                events.append({"type": "void", "player": a["player"], "order": f"assassinate {hid} {kind} {owner}",
                               "reason": f"{gone} is no longer at {hid} when its turn comes (CHOICE 184)"})
                continue
            events += assassinate(tab, g, b, hid, kind, owner, rng)
            continue
        spec, why = refresh(tab, g, x["spec"])
        if spec is None:
            events.append({"type": "battle_void", "attacker": a["pos"], "at": x["spec"]["hex"], "reason": why})
            continue
        if spec["aog"] > hand_total(g, a["player"]):
            spec["aog"] = hand_total(g, a["player"])
        resp = responses_for(tab, g, spec, answers)
        events += resolve_battle(tab, g, spec, resp, rng)
        events += rules._check_alive(state)
    return events
