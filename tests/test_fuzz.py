"""Fuzzing (issue 8): no order text, however mangled, makes any game's parser or checker
raise anything but the documented errors, and no byte string makes `submit` raise at all.

Hypothesis runs in CI with a bounded number of examples (settings below); the inputs mix
random text with fragments of each game's real vocabulary (verbs, names, coordinates), so the
checker gets past the verb and into the argument matching and the rules' why_illegal."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core import engine
from pbem import host
from pbem.core.errors import OrderError
from pbem.core.orders import decode, match_order, read_script
from pbem.core.registry import game_types, get_rules
from pbem.host.store import open_db

GAMES = game_types()
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _started(game_type: str):
    rules = get_rules(game_type)
    players = ["p1", "p2", "p3", "p4", "p5", "p6"][: max(rules.info.min_players, min(3, rules.info.max_players))]
    state, _ = engine.start(rules, players, {}, "fuzz")
    return rules, state


def _vocabulary(rules, state) -> list[str]:
    words = set(rules.grammar.verbs) | set(rules.grammar.aliases)
    for p in engine.active_players(rules, state):
        for order in rules.legal_orders(state, p)[:300]:
            words.update(order.tokens)
    return sorted(words) + ["->", "0,0", "-1,2", "99,-99", "3", "0", "-", "all", "END", "#"]


@pytest.mark.parametrize("game_type", GAMES)
def test_order_lines_never_raise_anything_but_order_errors(game_type):
    rules, state = _started(game_type)
    player = engine.active_players(rules, state)[0]
    vocab = _vocabulary(rules, state)
    before = engine.state_hash(state)
    token = st.one_of(st.sampled_from(vocab), st.text(min_size=1, max_size=8))
    line = st.lists(token, min_size=1, max_size=7).map(" ".join)

    @FUZZ
    @given(st.lists(line, min_size=1, max_size=6))
    def check(lines):
        script = read_script("\n".join(lines))
        results = engine.check_script(rules, state, player, script)
        assert len(results) == len(script.lines)
        legal = rules.legal_orders(state, player)
        for parsed in script.lines:
            try:
                match_order(rules.grammar, legal, parsed, lambda typed: rules.why_illegal(state, player, typed))
            except OrderError as err:
                assert isinstance(err, ValueError) and err.message

    check()
    assert engine.state_hash(state) == before  # checking never changes the position


@pytest.mark.parametrize("game_type", GAMES)
def test_resolving_mangled_scripts_never_raises(game_type):
    rules, state = _started(game_type)
    vocab = _vocabulary(rules, state)
    token = st.one_of(st.sampled_from(vocab), st.text(max_size=6))
    line = st.lists(token, min_size=1, max_size=6).map(" ".join)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(line, max_size=5))
    def check(lines):
        scripts = {p: read_script("\n".join(lines)) for p in engine.active_players(rules, state)}
        res = engine.resolve(rules, copy.deepcopy(state), scripts, "fuzz")
        assert res.state["flow"]["number"] == state["flow"]["number"] + 1

    check()


@FUZZ
@given(st.binary(max_size=2000))
def test_decode_raises_only_input_errors(raw):
    try:
        text = decode(raw)
    except ValueError:
        return
    read_script(text)


def test_submit_takes_any_bytes_without_raising(tmp_path):
    db = open_db(str(tmp_path / "f.db"))
    host.new_game(db, "gods", "g1", ["alice", "bob"], seed="1", turns=None)
    stored = [0]

    @FUZZ
    @given(st.one_of(st.binary(max_size=3000), st.text(max_size=500).map(lambda t: ("PLAYER alice\n" + t).encode("utf-8", "surrogatepass"))))
    def check(raw):
        ack = host.submit(db, "g1", "alice", raw, trusted=True)
        stored[0] += 1
        assert ack.status in ("accepted", "partial", "rejected")
        assert db["submissions"].count == stored[0]

    check()
