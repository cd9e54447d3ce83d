"""GODS wording found in play: the articles in report lines, one documented form of `discard`
for a tribe, and the reason given for an `extra` line after both actions are used."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from pbem import host
from pbem.core import engine
from pbem.core.errors import IllegalOrderError
from pbem.core.orders import match_order, read_script
from pbem.core.registry import get_rules
from pbem.render import html

GODS = get_rules("gods")
ORDERS_MD = (Path(__file__).resolve().parent.parent / "games" / "gods" / "ORDERS.md").read_text(encoding="utf-8")
LINE = html.event_texter("gods", True)


def _start(players=("red", "blue"), seed="wording") -> dict:
    state, _ = engine.start(GODS, list(players), {}, seed)
    return state


# --- "an orange tribe" ---------------------------------------------------------------------

def test_report_lines_use_an_before_orange():
    tribe = {"type": "tribe", "player": "red", "at": "1,0", "colour": "orange", "cost": 1, "religion": None,
             "unclaimed_reason": "no single religion adjoins it"}
    assert LINE(tribe) == "red places an orange tribe at 1,0 for 1 crystal: it gets no religion (no single religion adjoins it)."
    assert LINE(dict(tribe, colour="green")).startswith("red places a green tribe at 1,0")
    founded = {"type": "nation_founded", "player": "red", "colour": "orange", "vp_card": True}
    assert LINE(founded) == "red founds an orange nation and takes an orange victory point card."
    assert LINE(dict(founded, vp_card=False)) == "red founds an orange nation (no orange victory point card is left)."
    assert LINE(dict(founded, colour="grey")) == "red founds a grey nation and takes a grey victory point card."


def test_the_occupied_reason_uses_an_before_orange():
    state = _start()
    g = state["game"]
    g["board"]["1,0"] = {"kind": "tribe", "colour": "orange", "god": None}
    assert GODS.why_illegal(state, "red", ["temple", "1,0"]) == "1,0 is already occupied by an orange tribe"


def test_no_report_line_of_bot_games_says_a_before_a_vowel():
    """Every event of a few played-out games, as report lines: never 'a orange' (nor 'a extra')."""
    bad = re.compile(r"\ba [aeiou]", re.IGNORECASE)
    for players, seed in ((["red", "blue"], "1"), (["red", "blue", "yellow"], "2"), (["red", "blue", "yellow", "white"], "3")):
        state, events = engine.start(GODS, players, {}, seed)
        seen = list(events)
        rng = random.Random(seed)
        while not state["flow"]["over"]:
            (p,) = engine.active_players(GODS, state)
            res = engine.resolve(GODS, state, {p: read_script("\n".join(host.bot_script(GODS, state, p, rng)))}, seed)
            state, seen = res.state, seen + res.events
        lines = [LINE(e) for e in seen]
        assert any("orange" in line for line in lines)
        assert not [line for line in lines if bad.search(line)]


# --- one form of `discard` for a tribe ----------------------------------------------------

def _reject(state, text: str, player: str = "red") -> str:
    (line,) = read_script(text).lines
    with pytest.raises(IllegalOrderError) as info:
        match_order(GODS.grammar, GODS.legal_orders(state, player), line, lambda typed: GODS.why_illegal(state, player, typed))
    return info.value.message


def test_the_discard_suggestion_is_the_documented_form():
    state = _start()
    state["game"]["display"] = ["tribe:green", "tribe:green"]
    assert "did you mean 'discard green tribe'?" in _reject(state, "discard grey")
    assert "`discard green tribe`" in ORDERS_MD  # the form the suggestion names is the documented one
    assert "`discard green`" not in ORDERS_MD
    assert "`discard green tribe`" in GODS.grammar.verbs["discard"][1]


def test_every_discard_order_is_spelt_as_documented():
    """Legal orders (the did-you-mean, the report's list) and the default order (what an NMR
    god discards) name a display card the same way, and ORDERS.md shows that way."""
    state = _start()
    state["game"]["display"] = ["tribe:orange", "wasteland"]
    texts = {o.text for o in GODS.legal_orders(state, "red") if o.verb == "discard"}
    assert texts == {"discard orange tribe", "discard wasteland"}
    assert GODS.default_order(state, "red").text == "discard orange tribe"
    for card in ("wasteland", "whirlwind", "extra"):
        assert f"`discard {card}`" in ORDERS_MD
    # the short form stays accepted: `tribe` may be left out, and the colour shortened
    (line,) = read_script("dis ora").lines
    assert match_order(GODS.grammar, GODS.legal_orders(state, "red"), line).text == "discard orange tribe"


# --- `extra` after both actions -------------------------------------------------------------

def test_extra_after_both_actions_says_the_actions_are_used_up():
    state = _start()
    state["game"]["extra_cards"]["red"] = 1
    clear = [f"discard {c[6:]} tribe" if c.startswith("tribe:") else f"discard {c}" for c in state["game"]["display"]]
    acks = engine.check_script(GODS, state, "red", read_script("\n".join(clear + ["extra"])))
    assert [a.status for a in acks] == ["accepted", "accepted", "rejected"]
    assert "not your turn" not in acks[2].reason
    assert "used up your actions" in acks[2].reason
