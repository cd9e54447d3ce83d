"""Fuzzing (issue 8): no order text, however mangled, makes any game's parser or checker
raise anything but the documented errors, and no byte string makes `submit` raise at all.

Hypothesis runs in CI with a bounded number of examples (settings below); the inputs mix
random text with fragments of each game's real vocabulary (verbs, names, coordinates), so the
checker gets past the verb and into the argument matching and the rules' why_illegal.

The positions fuzzed are each game's opening and positions from the middle of games played
by the bots (host.bot_script) for 3, 8 and 15 turns. After resolving mangled scripts, the new
position must keep the game's invariants (the conservation checks of each game's autoplay
tests, computed independently of the rules module), be plain JSON, follow on from the
position resolved (turn number + 1), and be the same when resolved again; the position
resolved is left untouched."""

from __future__ import annotations

import functools
import json
import random

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


def _players(rules) -> list[str]:
    return ["p1", "p2", "p3", "p4", "p5", "p6"][: max(rules.info.min_players, min(3, rules.info.max_players))]


def _started(game_type: str):
    rules = get_rules(game_type)
    state, _ = engine.start(rules, _players(rules), {}, "fuzz")
    return rules, state


MID_GAME = (3, 8, 15)  # turns the bots play before a position is fuzzed


@functools.cache
def _positions(game_type: str) -> tuple[str, ...]:
    """The opening and positions from the middle of a game the bots play (as JSON, so each
    example gets its own copy): the checker and the resolution meet hands dealt, pieces on
    the board and phases other than the first."""
    rules, state = _started(game_type)
    positions = [json.dumps(state)]
    for turn in range(1, max(MID_GAME) + 1):
        if state["flow"].get("over"):
            break
        scripts = {}
        for p in engine.active_players(rules, state):
            lines = host.bot_script(rules, state, p, random.Random(f"fuzz/{game_type}/{turn}/{p}"))
            scripts[p] = read_script("\n".join(lines))
        state = engine.resolve(rules, state, scripts, "fuzz").state
        if turn in MID_GAME and not state["flow"].get("over"):
            positions.append(json.dumps(state))
    assert len(positions) == 1 + len(MID_GAME), f"{game_type}: the bots' game ended before turn {max(MID_GAME)}"
    return tuple(positions)


def _invariants(game_type: str):
    """The game's own invariant checks from its autoplay tests (independent of the rules
    module), or None for a game that has none yet: the generic checks still apply."""
    if game_type == "gods":
        from test_properties import check_invariants as gods_check

        return lambda state: gods_check(state, "fuzz")
    if game_type == "ohgods":
        from test_ohgods_autoplay import check as ohgods_check

        return ohgods_check
    if game_type == "yegods":
        from test_yegods_autoplay import check_invariants as yegods_check

        return yegods_check
    if game_type == "deity":
        from test_deity_autoplay import check_invariants as deity_check

        return lambda state: deity_check(state, "fuzz")
    if game_type == "faith":
        from test_faith_autoplay import check_invariants as faith_check

        return lambda state: faith_check(state, "fuzz")
    return None


def test_the_five_published_games_have_invariant_checks():
    assert {"gods", "ohgods", "yegods", "deity", "faith"} <= set(GAMES)
    assert all(_invariants(g) is not None for g in GAMES)


def _vocabulary(rules, state) -> list[str]:
    words = set(rules.grammar.verbs) | set(rules.grammar.aliases)
    for p in engine.active_players(rules, state):
        for order in rules.legal_orders(state, p)[:300]:
            words.update(order.tokens)
    return sorted(words) + ["->", "0,0", "-1,2", "99,-99", "3", "0", "-", "all", "END", "#"]


@pytest.mark.parametrize("game_type", GAMES)
def test_order_lines_never_raise_anything_but_order_errors(game_type):
    rules = get_rules(game_type)
    states = [json.loads(p) for p in _positions(game_type)]
    vocab = sorted(set().union(*(_vocabulary(rules, s) for s in states)))
    before = [engine.state_hash(s) for s in states]
    token = st.one_of(st.sampled_from(vocab), st.text(min_size=1, max_size=8))
    line = st.lists(token, min_size=1, max_size=7).map(" ".join)

    @FUZZ
    @given(st.sampled_from(range(len(states))), st.lists(line, min_size=1, max_size=6))
    def check(which, lines):
        state = states[which]
        player = engine.active_players(rules, state)[0]
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
    assert [engine.state_hash(s) for s in states] == before  # checking never changes the position


@pytest.mark.parametrize("game_type", GAMES)
def test_resolving_mangled_scripts_keeps_the_games_invariants(game_type):
    rules = get_rules(game_type)
    positions = _positions(game_type)
    states = [json.loads(p) for p in positions]
    vocab = sorted(set().union(*(_vocabulary(rules, s) for s in states)))
    invariants = _invariants(game_type)
    players = _players(rules)
    checked: list[int] = []
    token = st.one_of(st.sampled_from(vocab), st.text(max_size=6))
    line = st.lists(token, min_size=1, max_size=6).map(" ".join)

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(range(len(states))), st.lists(line, max_size=5), st.booleans())
    def check(which, lines, some_silent):
        state = json.loads(positions[which])
        asked = engine.active_players(rules, state)
        scripts = {p: read_script("\n".join(lines)) for p in asked}
        if some_silent and len(asked) > 1:
            scripts[asked[-1]] = None  # one player sent nothing: NMR beside the mangled ones
        res = engine.resolve(rules, state, scripts, "fuzz")
        assert json.dumps(state) == positions[which], "resolving changed the position it started from"
        assert res.state["flow"]["number"] == state["flow"]["number"] + 1
        assert json.loads(json.dumps(res.state)) == res.state  # plain JSON, as the store keeps it
        assert set(res.nmr) <= set(asked)
        assert set(engine.active_players(rules, res.state)) <= set(players)
        if invariants is not None:
            invariants(res.state)
            checked.append(which)
        again = engine.resolve(rules, json.loads(positions[which]), scripts, "fuzz")
        assert engine.state_hash(again.state) == engine.state_hash(res.state)  # replayable bit for bit

    check()
    if invariants is not None:  # the invariants were checked, in the middle of games too
        assert checked and max(checked) > 0, checked


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
