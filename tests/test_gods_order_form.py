"""GODS: the order form's summary of the legal orders (GodsRules.order_groups, counted from the
frontier, issue 17) and the frontier worked out from the last board (GodsRules._frontier_list)
say exactly what listing every legal order says, in every position of many random games."""

from __future__ import annotations

import random

from pbem import host
from pbem.core import engine
from pbem.core.engine import Rules
from pbem.core.hexgrid import key
from pbem.core.orders import read_script
from pbem.core.registry import get_rules

RULES = get_rules("gods")


def _positions(seeds, players=("zeus", "hera", "ares")):
    for seed in seeds:
        state, _ = engine.start(RULES, list(players), {}, str(seed))
        turn = 0
        while not state["flow"].get("over"):
            yield state
            scripts = {p: read_script("\n".join(host.bot_script(RULES, state, p, random.Random(f"{seed}/{turn}/{p}"))))
                       for p in engine.active_players(RULES, state)}
            state = engine.resolve(RULES, state, scripts, str(seed)).state
            turn += 1


def test_order_groups_match_the_full_legal_list():
    checked = 0
    moves_counted = 0
    for state in _positions(range(12)):
        for player in state["game"]["players"]:
            for per_verb in (1, 12, 10**6):
                counted = RULES.order_groups(state, player, per_verb)
                listed = Rules.order_groups(RULES, state, player, per_verb)
                assert counted == listed
                checked += 1
                moves_counted += any(verb == "move" and n > per_verb for verb, _, n in counted)
    assert checked > 1000 and moves_counted > 50  # long lists (more moves than shown) were met


def test_frontier_from_the_last_board_equals_the_frontier_from_scratch():
    boards = 0
    for state in _positions(range(6)):
        board = state["game"]["board"]
        adjoining = RULES._frontier_cards(board)
        want = [(key(*c), len(adjoining[c]), frozenset(adjoining[c])) for c in sorted(adjoining, key=lambda c: (c[1], c[0]))]
        assert RULES._frontier_list(board) == want
        frontier, by_adjoined, single = RULES._frontier_counts(board)
        assert frontier == want
        assert by_adjoined == [sum(1 for _, n, _ in want if n == a) for a in range(7)]
        assert single == {k: n for k in board if (n := sum(1 for _, a, cards in want if a == 1 and k in cards))}
        boards += 1
    assert boards > 200
