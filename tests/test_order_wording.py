"""Tester3 finding 06: a line the order language cannot read is answered with the order's form
as the game's ORDERS.md writes it (`tribe [COLOUR] Q,R`), never with the parser's pattern
(`tribe word? hex`, `move int? word word? ->? word`)."""

from __future__ import annotations

import json
import re

import pytest

from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.registry import game_types, games_dir, get_rules
from test_fuzz import _positions

GAMES = game_types()
PATTERN_WORDS = re.compile(r"`[^`]*\b(word|int|hex)\?|`[^`]*\b(int|hex)\b[^`]*`|\bword\?|->\?")


@pytest.mark.parametrize("game_type", GAMES)
def test_every_form_shown_for_a_verb_is_written_so_in_the_games_orders(game_type):
    rules = get_rules(game_type)
    doc = (games_dir() / game_type / "ORDERS.md").read_text(encoding="utf-8")
    shown = 0
    for verb in set(rules.grammar.verbs) - rules.grammar.parsed:  # a parsed verb's game says its own form
        forms = re.findall(r"`([^`]+)`", rules.grammar.usage(verb))
        assert forms, verb
        for form in forms:
            assert f"`{form}`" in doc or f"`{form} " in doc or f"{form}`" in doc, (game_type, verb, form)
            shown += 1
    assert shown >= len(set(rules.grammar.verbs) - rules.grammar.parsed)


@pytest.mark.parametrize("game_type", GAMES)
def test_a_line_that_cannot_be_read_never_shows_the_parsers_pattern(game_type):
    rules = get_rules(game_type)
    state = json.loads(_positions(game_type)[1])
    player = engine.active_players(rules, state)[0]
    checked = 0
    for verb, (pattern, _help) in rules.grammar.verbs.items():
        for line in (f"{verb} 1,x 2 zz -> ->", f"{verb} -> 9 9 9 9 9 9 9", f"{verb} zz,zz"):
            [r] = engine.check_script(rules, state, player, read_script(line), worlds_n=1)
            assert r.status == "rejected", (line, r.order)
            first = r.reason.split("\n")[0]
            assert not PATTERN_WORDS.search(first), (line, first)
            if "the order is written" in first:
                assert re.search(r"the order is written `[^`]+`", first), first
                checked += 1
    assert checked  # the grammar's own rejections were met in every game
