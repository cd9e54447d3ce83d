"""The contests of the gods in Phase 6 (L600-662): Direct Attack and Divine Judgement.

Both are interventions named in the sealed Phase 6 submission and executed in initiative
order (CHOICE 61/62). When its turn comes a contest opens one sealed flow phase "contest"
(g["pending"]["contest"], kind "strike" or "judgement"; the Jihad's auction is kind "jihad",
in jihad.py) in which the gods who may wager answer at once; then it is resolved and the
execution of the interventions goes on.

* Direct Attack, `strike BELIEF wager N`: the attacker's level drops one at once, kept at 1
  (L627); her wager, secret, is taken then. In the contest the defender (even in limbo,
  CHOICE 73) and every other god but the attacker's player send `wager N for
  attacker|defender` (the defender for herself only). CHOICE 68: every wager is paid in the
  wagerer's own-belief chips from her hand (so the attacker never uses the defender's faith
  and the defender's never goes to the attacker). A = one die + the attacker's side, D = two
  dice + the defender's side: A >= 2D destroys the defender (limbo.destroy), D < A < 2D sends
  the defender to limbo, A < D the attacker; A = D: nothing, every wager goes back; otherwise
  every wager is banked.
* Divine Judgement, `judge BELIEF CRIME...`: the crime is free text, read out to all; the
  accused answers by press. In the contest everyone may `wager N for accuser|accused` (the
  accuser for the accuser, the accused for the accused; any chips of the hand, CHOICE 35),
  and the accuser and the accused may `drop`: both drop, the judgement ends and every wager
  goes back (CHOICE 69). Accuser's side > accused's: the accused goes to limbo, every wager is
  banked; less: the accuser's side is banked, the accused's side goes back to its wagerers;
  equal: the accuser's player receives every wager.
* CHOICE 161: the accused in limbo may still wager and drop in her own defence (she "defends
  herself passively"); other positions in limbo take no part in a Judgement.
* CHOICE 167: the challenger puts faith down first ("wagers a chosen secret amount", L629;
  "starting with the one who calls the Divine Judgement wagers", L653): a Direct Attack
  wagers at least 1, and a god with an empty hand calls no Judgement (so a god with nothing
  to spend is not asked in Phase 6 for a contest she could not pursue).
* CHOICE 162: wagers are sealed (L629 "secret") and revealed, each with its wagerer and side,
  in the result; several wager lines of one god add up, all on one side.

Wagered chips are held in the contest (`stakes`) until the result: the Soul Bank ledger
counts them with `held()`.
"""

from __future__ import annotations

from . import hands, positions
from .world import bank, to_hand

SIDES = {"strike": ("attacker", "defender"), "judgement": ("accuser", "accused")}


# --- chips ---------------------------------------------------------------------------------

def can_wager(g: dict, player: str, own_only: bool, pos: str | None = None) -> int:
    """own_only (a Direct Attack, CHOICE 68): the position's own chips (a supporter: all hers)."""
    return hands.available(g, player, pos, own_only)


def _take(g: dict, player: str, n: int, own_only: bool, pos: str | None = None) -> dict[str, int]:
    """n chips out of a hand into a contest's stake, by the one rule (CHOICE 35, 183)."""
    return hands.take(g, player, n, pos, own_only=own_only)


def held(g: dict, kind: str = "contest") -> dict[str, int]:
    """Chips held in a pending contest (kind "duel": a hero duel's wagers), by belief (for the
    ledger: board + hands + held + bank)."""
    out: dict[str, int] = {}
    for s in ((g.get("pending") or {}).get(kind) or {}).get("stakes", []):   # a Jihad holds none
        for b, n in s["chips"].items():
            out[b] = out.get(b, 0) + n
    return out


def return_held(g: dict) -> list[dict]:
    """CHOICE 182: the game is over with wagers still held (a contest or a hero duel the end cut
    short, never decided): each goes back to its wagerer's hand, as when a contest has no
    result (a tie, both drop) or a duel no roll (CHOICE 164). One private event a wagerer."""
    pending = g.get("pending") or {}
    back: dict[str, int] = {}
    for kind in ("contest", "duel"):
        for s in (pending.get(kind) or {}).get("stakes", []):
            for b, n in s["chips"].items():
                to_hand(g, s["player"], b, n)
                back[s["player"]] = back.get(s["player"], 0) + n
            s["chips"] = {}
    return [{"type": "wager_returned", "player": p, "faith": n, "to": p} for p, n in back.items() if n]


def _stake(c: dict, player: str, side: str, chips: dict[str, int]) -> None:
    for s in c["stakes"]:
        if s["player"] == player and s["side"] == side:
            for b, n in chips.items():
                s["chips"][b] = s["chips"].get(b, 0) + n
            return
    c["stakes"].append({"player": player, "side": side, "chips": dict(chips)})


def side_total(c: dict, side: str) -> int:
    return sum(sum(s["chips"].values()) for s in c["stakes"] if s["side"] == side)


def _bank_all(g: dict, stakes: list[dict]) -> None:
    for s in stakes:
        for b, n in s["chips"].items():
            bank(g, b, n)


def _return_all(g: dict, stakes: list[dict]) -> None:
    for s in stakes:
        for b, n in s["chips"].items():
            to_hand(g, s["player"], b, n)


def _revealed(c: dict) -> list[dict]:
    return [{"player": s["player"], "side": s["side"], "faith": sum(s["chips"].values())} for s in c["stakes"]]


# --- opening -------------------------------------------------------------------------------

def target_check(g: dict, player: str, pos: str, target: str, what: str) -> str | None:
    if target not in g["beliefs"] or not positions.alive(g, target):
        return f"{target} is not a living belief"
    target = positions.lead(g, target)
    if positions.controller(g, target) == player or target == pos:
        return f"{what} is made on another god's belief, not your own"
    return None


def strike_check(g: dict, player: str, pos: str, target: str, n: int) -> str | None:
    why = target_check(g, player, pos, target, "a Direct Attack")
    if why:
        return why
    have = can_wager(g, player, True, pos)
    if n < 1:
        return "the challenger wagers at least 1 faith of her own belief (CHOICE 167)"
    if n > have:
        return (f"your hand holds {have} faith of your own belief for the wager (CHOICE 68: the faith of "
                "other beliefs cannot attack or defend)")
    return None


def open_strike(g: dict, player: str, pos: str, target: str, n: int) -> list[dict]:
    """The challenge: the level drops at once (kept at 1), the secret wager is taken."""
    target = positions.lead(g, target)
    for b in positions.members(g, pos):
        g["beliefs"][b]["level"] = max(1, g["beliefs"][b]["level"] - 1)
    c = {"kind": "strike", "attacker": pos, "defender": target, "by": player,
         "against": positions.controller(g, target), "stakes": [], "drops": []}
    _stake(c, player, "attacker", _take(g, player, n, True, pos))
    g.setdefault("pending", {})["contest"] = c
    return [{"type": "strike", "attacker": pos, "player": player, "defender": target,
             "against": c["against"], "level": positions.level(g, pos)},
            {"type": "wagered", "player": player, "side": "attacker", "faith": n, "to": player}]


def judge_check(g: dict, player: str, pos: str, target: str) -> str | None:
    if not sum(g["hands"].get(player, {}).values()):
        return "the god who calls a Divine Judgement wagers first: your hand is empty (CHOICE 167)"
    return target_check(g, player, pos, target, "a Divine Judgement")


def open_judgement(g: dict, player: str, pos: str, target: str, crime: str) -> list[dict]:
    target = positions.lead(g, target)
    c = {"kind": "judgement", "accuser": pos, "accused": target, "by": player,
         "against": positions.controller(g, target), "crime": crime, "stakes": [], "drops": []}
    g.setdefault("pending", {})["contest"] = c
    return [{"type": "judgement", "accuser": pos, "player": player, "accused": target,
             "against": c["against"], "crime": crime}]


def wagerers(g: dict) -> list[str]:
    """Who is asked in the contest, in turn order (players with nothing to decide are settled
    by the engine: their only legal order is `done`)."""
    c = g["pending"]["contest"]
    out = []
    for p in positions.players_in_order(g):   # players with a position not in limbo
        if p != c["by"] and p not in out:
            out.append(p)
    if c["kind"] == "strike":
        first = c["against"]                     # the defender, even in limbo (CHOICE 73)
        return [first] + [p for p in out if p != first]
    first = c["by"]
    rest = [p for p in out if p != c["against"]]
    return [first, c["against"]] + [p for p in rest if p != first]   # CHOICE 161


def allowed_sides(g: dict, player: str) -> tuple[str, ...]:
    c = g["pending"]["contest"]
    if c["kind"] == "strike":
        if player == c["by"]:
            return ()
        if player == c["against"]:
            return ("defender",)
    else:
        if player == c["by"]:
            return ("accuser",)
        if player == c["against"]:
            return ("accused",)
    chosen = [s["side"] for s in c["stakes"] if s["player"] == player]
    return tuple(chosen[:1]) or SIDES[c["kind"]]


def wager_check(g: dict, player: str, n: int, side: str) -> str | None:
    c = g["pending"]["contest"]
    if side not in SIDES[c["kind"]]:
        return f"in this contest the sides are {' and '.join(SIDES[c['kind']])}"
    if side not in allowed_sides(g, player):
        sides = allowed_sides(g, player)
        return f"you may wager only for the {sides[0]}" if sides else "you may not wager in this contest"
    if n < 1:
        return "wager at least 1 faith"
    own_only = c["kind"] == "strike"
    have = can_wager(g, player, own_only, _pos_of(c, player))
    if n > have:
        return (f"your hand holds {have} faith{' of your own belief (CHOICE 68)' if own_only else ''}")
    return None


def _pos_of(c: dict, player: str) -> str | None:
    """The defender wagers her own position's chips; a supporter any of hers."""
    return c["defender"] if c["kind"] == "strike" and player == c["against"] else None


def wager(g: dict, player: str, n: int, side: str) -> list[dict]:
    c = g["pending"]["contest"]
    _stake(c, player, side, _take(g, player, n, c["kind"] == "strike", _pos_of(c, player)))
    return [{"type": "wagered", "player": player, "side": side, "faith": n, "to": player}]


def drop(g: dict, player: str) -> list[dict]:
    c = g["pending"]["contest"]
    if player not in c["drops"]:
        c["drops"].append(player)
    return [{"type": "dropped", "player": player, "belief": positions.primary(g, player)}]


# --- results -------------------------------------------------------------------------------

def resolve_strike(g: dict, rng) -> tuple[list[dict], list[tuple[str, str]]]:
    """The dice and the result; returns the events and the verdicts [(position, "limbo" |
    "destroyed")] for the rules to carry out."""
    c = g["pending"].pop("contest")
    att, dfn = side_total(c, "attacker"), side_total(c, "defender")
    a_die = rng.die(6)
    d_dice = [rng.die(6), rng.die(6)]
    a, d = a_die + att, sum(d_dice) + dfn
    verdicts: list[tuple[str, str]] = []
    if a == d:
        result = "tie"
        _return_all(g, c["stakes"])
    else:
        _bank_all(g, c["stakes"])
        if a >= 2 * d:
            result = "destroyed"
            verdicts.append((c["defender"], "destroyed"))
        elif a > d:
            result = "defender_limbo"
            verdicts.append((c["defender"], "limbo"))
        else:
            result = "attacker_limbo"
            verdicts.append((c["attacker"], "limbo"))
    ev = {"type": "strike_result", "attacker": c["attacker"], "defender": c["defender"], "player": c["by"],
          "against": c["against"], "die": a_die, "dice": d_dice, "attacker_faith": att, "defender_faith": dfn,
          "attack": a, "defence": d, "result": result, "wagers": _revealed(c)}
    return [ev], verdicts


def resolve_judgement(g: dict) -> tuple[list[dict], list[tuple[str, str]]]:
    c = g["pending"].pop("contest")
    acc, dfn = side_total(c, "accuser"), side_total(c, "accused")
    verdicts: list[tuple[str, str]] = []
    if c["by"] in c["drops"] and c["against"] in c["drops"]:
        result = "dropped"
        _return_all(g, c["stakes"])
    elif acc > dfn:
        result = "accused_limbo"
        _bank_all(g, c["stakes"])
        verdicts.append((c["accused"], "limbo"))
    elif acc < dfn:
        result = "acquitted"
        _bank_all(g, [s for s in c["stakes"] if s["side"] == "accuser"])
        _return_all(g, [s for s in c["stakes"] if s["side"] == "accused"])
    else:
        result = "equal"
        for s in c["stakes"]:
            for b, n in s["chips"].items():
                to_hand(g, c["by"], b, n)
    ev = {"type": "judgement_result", "accuser": c["accuser"], "accused": c["accused"], "player": c["by"],
          "against": c["against"], "accuser_faith": acc, "accused_faith": dfn, "result": result,
          "wagers": _revealed(c), "gain": acc + dfn if result == "equal" else 0}
    return [ev], verdicts
