"""Deity: the order form and the did-you-mean offer only what the player may send.

legal_orders is the one source of truth for what a report's order form lists, and orders
of a later phase are offered as they will be judged when their phase comes (after the
population growth: population.preview). So every order the form offers is accepted by
engine.check_script as a script of its own line, in the same position; the form says that
its numbers count the growth to come; and a mistyped attack is not pointed at an attack
that always withdraws after its first round."""

from __future__ import annotations

import random
import re

from test_deity_autoplay import NAMES, RULES, settle

from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.rng import phase_rng
from pbem.render import reports


def _cell(**kw) -> dict:
    return {"terrain": "plains", "owner": None, "pop": 0, "armies": 0, "monsters": 0, "temple": False,
            "blight": None, **kw}


def _game(seed: str = "form") -> tuple[dict, str, str]:
    state, _ = engine.start(RULES, ["a", "b", "c"], {}, seed)
    state = engine.resolve(RULES, state, {p: None for p in "abc"}, seed).state
    me = state["flow"]["active"][0]
    other = next(p for p in "abc" if p != me)
    return state, me, other


def _accepted(state: dict, player: str, text: str) -> tuple[bool, str]:
    ack = engine.check_script(RULES, state, player, read_script(text))[0]
    return ack.status == "accepted", f"{ack.status}: {ack.reason}"


# --- every offered order is accepted ----------------------------------------------------

def test_every_order_offered_is_accepted_as_a_one_line_script():
    """Bots play a few short games; at every third decision, the player asked has each of his
    legal orders (a sample, with every order of a later phase that counts the growth) checked
    as a one-line script: accepted, plainly or "if the dice allow" -- never rejected."""
    checked = 0
    for seed, n in ((11, 2), (12, 3), (13, 4), (14, 5)):
        players = NAMES[:n]
        state, _ = engine.start(RULES, players, {"rounds": "6"}, f"form{seed}")
        bot, pick = random.Random(seed), random.Random(seed * 7)
        for p in players:  # standing reactions, so the check meets hidden cards too
            for text in ("abjure any on my hexes", "resurrect 1"):
                order = next(o for o in RULES.standing_orders(state, p) if o.text == text)
                RULES.apply(state, p, order, phase_rng(str(seed), 0))
        number = 0
        while not state["flow"]["over"]:
            number += 1
            p = engine.active_players(RULES, state)[0]
            if number % 3 == 0:
                legal = RULES.legal_orders(state, p)
                g = state["game"]
                # the orders most at risk: moves of more population than the hex holds now
                grown = [o for o in legal if o.verb == "move" and o.payload[2] == "pop"
                         and o.payload[1] > g["land"][o.payload[3]]["pop"]]
                for o in grown + pick.sample(legal, min(12, len(legal))):
                    ok, why = _accepted(state, p, o.text)
                    assert ok, (f"seed {seed}, decision {number}: the form offers {o.text!r} to {p} "
                                f"(step {g['turn']['step']}), but check_script says {why}")
                    checked += 1
            order = RULES.bot_fast(state, p, bot)
            rng = phase_rng(str(seed), number)
            RULES.apply(state, p, order, rng)
            settle(state, rng)
    assert checked > 300


# --- the form says its numbers count the growth -----------------------------------------

def _form(state: dict, player: str) -> str:
    return reports.render("deity/orders.txt.j2", order_groups=reports._order_groups(RULES, state, player, per_verb=400),
                          view=RULES.view(state, player))


def test_the_order_form_says_its_later_numbers_count_the_growth():
    """A god holding 13 population at 2,2 is offered `move 14 pop` at the Build Temple phase:
    growth comes before Movement. The form says so, with the numbers after growth."""
    state, me, other = _game()
    g = state["game"]
    g["land"] = {"2,2": _cell(owner=me, pop=13), "3,2": _cell(), "5,5": _cell(owner=me, pop=3, armies=1),
                 "8,8": _cell(owner=other, pop=4)}
    g["turn"]["step"] = "temple"
    form = _form(state, me)
    assert "#   move 14 pop 2,2 -> 3,2" in form
    ok, why = _accepted(state, me, "move 14 pop 2,2 -> 3,2")
    assert ok, why
    assert "after growth" in form and "2,2 13 -> 14" in form, form
    assert "5,5 3 ->" not in form  # armies there: no growth
    # once the growth is done (Miracle phase on) the numbers are the position's own
    g["turn"]["step"] = "miracle"
    g["land"]["2,2"]["pop"] = 14
    form = _form(state, me)
    assert "#   move 14 pop 2,2 -> 3,2" in form and "after growth" not in form


# --- a mistyped attack ------------------------------------------------------------------

def _battle(armies: int = 3) -> tuple[dict, str]:
    state, me, other = _game("attack-dym")
    g = state["game"]
    g["land"] = {"2,2": _cell(owner=me, pop=1, armies=armies), "3,2": _cell(owner=other, pop=1),
                 "2,3": _cell(owner=other, pop=2)}
    g["turn"]["step"] = "battle"
    return state, me


def test_a_mistyped_attack_is_not_pointed_at_an_attack_that_always_withdraws():
    """The did-you-mean of a mistyped attack used to name `attack 2,2 -> 3,2 3 retreat 3`: with
    3 attacking and `retreat 3` they withdraw after the first round whatever happens. A line
    that asked for no retreat is pointed at the attack that fights to the end."""
    state, me = _battle()
    for typo in ("attack 2,2 -> 3,3", "attack 2,2 -> 4,2", "attack 2,3 -> 3,2", "attack 1,2 -> 3,2 3",
                 "attack 2,2 -> 3,2 4", "attack 3,2 -> 2,2"):
        ack = engine.check_script(RULES, state, me, read_script(typo))[0]
        assert ack.status == "rejected"
        m = re.search(r"did you mean '([^']*)'", ack.reason)
        assert m, ack.reason
        meant = m.group(1).split()
        assert "retreat" not in meant, f"{typo!r}: did you mean {m.group(1)!r}?"
        assert meant[:1] == ["attack"] and len(meant) == 5  # attack Q,R -> Q,R N


def test_a_retreat_above_the_attackers_says_what_is_wrong():
    state, me = _battle()
    ack = engine.check_script(RULES, state, me, read_script("attack 2,2 -> 3,2 2 retreat 3"))[0]
    assert ack.status == "rejected"
    assert "retreat 3 is more than the 2 attacking" in ack.reason, ack.reason
    ack = engine.check_script(RULES, state, me, read_script("attack 2,2 -> 3,2 4"))[0]
    assert "2,2 has 3 armies that may still attack" in ack.reason, ack.reason


def test_every_documented_attack_spelling_is_accepted():
    """ORDERS.md: `attack Q,R -> Q,R [N] [retreat K]` -- N left out: all that may; `retreat` left
    out: to the end. `retreat 0` (never withdraw) and `retreat N` (one round, then withdraw)
    stay accepted when typed."""
    state, me = _battle()
    for typed, meant in (
        ("attack 2,2 -> 3,2", "attack 2,2 -> 3,2 3"),
        ("attack 2,2 -> 3,2 3", "attack 2,2 -> 3,2 3"),
        ("attack 2,2 -> 3,2 2", "attack 2,2 -> 3,2 2"),
        ("attack 2,2 to 3,2 retreat 1", "attack 2,2 -> 3,2 3 retreat 1"),
        ("attack 2,2 -> 3,2 3 retreat 0", "attack 2,2 -> 3,2 3"),
        ("attack 2,2 -> 3,2 retreat 0", "attack 2,2 -> 3,2 3"),
        ("attack 2,2 -> 3,2 2 retreat 1", "attack 2,2 -> 3,2 2 retreat 1"),
        ("attack 2,2 -> 3,2 3 retreat 3", "attack 2,2 -> 3,2 3 retreat 3"),
        ("attack 2,2 -> 3,2 2 retreat 2", "attack 2,2 -> 3,2 2 retreat 2"),
    ):
        ack = engine.check_script(RULES, state, me, read_script(typed))[0]
        assert ack.status == "accepted" and ack.order == meant, (typed, ack.order, ack.reason)
    # the form lists every attack once, the plain ones (to the end) first
    attacks = [o.text for o in RULES.legal_orders(state, me) if o.verb == "attack"]
    assert len(attacks) == len(set(attacks))
    assert attacks[:2] == ["attack 2,2 -> 3,2 3", "attack 2,2 -> 2,3 3"]
