"""Faith: every belief in a game is drawn in a colour of its own (L35, "its' unique colour";
CHOICE 180), although the data's 14 beliefs share 7 colour words in pairs."""

from __future__ import annotations

import json

from games.faith import negotiation, positions
from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.registry import get_rules
from pbem.render import svg


def _started(choices: dict[str, str]):
    rules = get_rules("faith")
    state, _ = engine.start(rules, list(choices), {}, "colours")
    scripts = {p: read_script(f"belief {b}\nlevel 2\ndone") for p, b in choices.items()}
    return rules, engine.resolve(rules, state, scripts, "colours").state


def test_two_beliefs_of_one_colour_word_are_drawn_apart():
    # israelites and odin are both "red" in data.toml, philistines and zeus both "blue"
    rules, state = _started({"ann": "israelites", "bob": "odin", "cat": "philistines", "dan": "zeus"})
    view = rules.view(state, None)
    words = {b: x["colour"] for b, x in view["beliefs"].items()}
    assert words["israelites"] == "red" and words["philistines"] == "blue"   # the first keeps its word
    assert words["odin"] not in ("red", "blue") and words["zeus"] not in ("red", "blue")
    assert len(set(words.values())) == 4
    fills = {svg.fill(w) for w in words.values()}
    assert len(fills) == 4 and svg.NEUTRAL not in fills          # four different colours drawn
    players = {p["name"]: p["colour"] for p in view["players"]}
    assert players["bob"] == words["odin"] and players["ann"] == "red"


def test_beliefs_of_different_words_keep_their_own():
    rules, state = _started({"ann": "israelites", "bob": "egyptian"})
    words = {b: x["colour"] for b, x in rules.view(state, None)["beliefs"].items()}
    assert words == {"israelites": "red", "egyptian": "yellow"}


def test_every_spare_colour_is_drawn_and_none_repeats_a_belief_word():
    rules = get_rules("faith")
    spares = rules.data["display"]["spare_colours"]
    words = {b["colour"] for b in rules.data["beliefs"]}
    assert len(spares) >= 7 and not set(spares) & words and len(set(spares)) == len(spares)
    assert all(w in svg.COLOURS for w in spares)
    assert len({svg.fill(w) for w in spares} | {svg.fill(w) for w in words}) == len(spares) + len(words)


def _colours_after_a_store_round_trip(rules, state) -> dict[str, str]:
    """The view's colours once the state went through the store (JSON with sorted keys, so the
    `beliefs` dict comes back in alphabetical order)."""
    stored = json.loads(json.dumps(state, sort_keys=True))
    return {b: x["colour"] for b, x in rules.view(stored, None)["beliefs"].items()}


def test_set_up_beliefs_of_one_word_take_their_colours_in_seat_order_whatever_the_dict_order():
    # zeus and philistines are both "blue"; ann (zeus) sits first, and "philistines" sorts first
    rules, state = _started({"ann": "zeus", "bob": "philistines"})
    spare = rules.data["display"]["spare_colours"][0]
    words = {b: x["colour"] for b, x in rules.view(state, None)["beliefs"].items()}
    assert words == {"zeus": "blue", "philistines": spare}
    assert _colours_after_a_store_round_trip(rules, state) == words


def test_a_founded_belief_keeps_the_colour_it_was_given_when_founded():
    """Seen in a published game: a belief founded in play with a taken word was drawn in a
    spare colour in its founding turn, and swapped colours with the older belief once the
    state came back from the store (`pbem verify` then found the public position differing)."""
    rules, state = _started({"ann": "zeus", "bob": "egyptian"})
    g = state["game"]
    g["hands"]["bob"] = {"egyptian": 40}
    g["ring"] = positions.ring(g)   # as the Negotiation's resolution makes it explicit
    events = negotiation._do_found(rules, state, "bob", ("found", "philistines", 2))
    assert "philistines" in g["beliefs"], events
    spare = rules.data["display"]["spare_colours"][0]
    words = {b: x["colour"] for b, x in rules.view(state, None)["beliefs"].items()}
    assert words == {"zeus": "blue", "egyptian": "yellow", "philistines": spare}
    assert _colours_after_a_store_round_trip(rules, state) == words
