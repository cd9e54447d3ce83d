"""Engine extension G3: parsed orders with free-form arguments (Grammar.parsed, Rules.parse).
A toy game: a walker moves along any path of a number line (`walk 1 -> 5 -> 9`) and pays any
amount (`pay 250`); neither could be enumerated. The rules check such a line themselves; the
engine quotes the line in front of their reason; `legal_orders` lists representative orders."""

from __future__ import annotations

import itertools

import pytest

from pbem.core import engine
from pbem.core.engine import GameInfo, Rules
from pbem.core.errors import IllegalOrderError, InvalidOrderError
from pbem.core.orders import Grammar, Line, Order, match_order, read_script, tokenize


class Walk(Rules):
    info = GameInfo("walk", "Walk", 1, 2)
    grammar = Grammar(verbs={"walk": ("int -> int", "walk a path: each step at most 4"),
                             "pay": ("int", "pay any amount you hold"), "wait": ("", "do nothing"),
                             "done": ("", "end")},
                      parsed=frozenset({"walk", "pay"}))
    listed = 0

    def setup(self, players, options, rng):
        return {"flow": {"phase": "walk", "active": [players[0]], "sealed": False, "over": False},
                "game": {"at": 0, "purse": 1000}}, []

    def legal_orders(self, state, player):
        Walk.listed += 1
        g = state["game"]
        return [Order(("walk", str(g["at"]), "->", str(g["at"] + 4)), ("walk", (g["at"], g["at"] + 4))),
                Order(("pay", "1"), ("pay", 1)), Order(("wait",), ("wait",)), Order(("done",), ("done",))]

    def parse(self, state, player, tokens):
        g = state["game"]
        verb, args = tokens[0], tokens[1:]
        if verb == "pay":
            if len(args) != 1 or not args[0].isdigit():
                raise InvalidOrderError("expected `pay N`")
            if int(args[0]) > g["purse"]:
                raise IllegalOrderError(f"your purse holds {g['purse']}")
            return Order(("pay", args[0]), ("pay", int(args[0])))
        if args == ["home"]:
            return None   # not handled here: matched against the listed orders (none fits)
        stops = [int(a) for a in args[0::2] if a.lstrip("-").isdigit()]
        if len(stops) < 2 or stops[0] != g["at"]:
            raise IllegalOrderError(f"a walk starts where you are ({g['at']})")
        for a, b in itertools.pairwise(stops):
            if abs(b - a) > 4:
                raise IllegalOrderError(f"{a} -> {b} is a step longer than 4")
        return Order(("walk", *" -> ".join(map(str, stops)).split()), ("walk", tuple(stops)))

    def apply(self, state, player, order, rng):
        g = state["game"]
        if order.verb == "walk":
            g["at"] = order.payload[1][-1]
        elif order.verb == "pay":
            g["purse"] -= order.payload[1]
        elif order.verb == "done":
            state["flow"]["active"] = []
            state["flow"]["over"] = True
            state["flow"]["outcome"] = {"winners": [player]}
        return [{"type": order.verb, "player": player}]

    def default_order(self, state, player):
        return Order(("done",), ("done",))

    def view(self, state, player):
        return dict(state["game"])


RULES = Walk({})


def _line(text: str) -> Line:
    return Line(1, text, tokenize(text))


def test_a_path_and_a_large_amount_are_parsed_not_enumerated():
    state, _ = engine.start(RULES, ["ann"], {}, "s")
    Walk.listed = 0
    res = engine.resolve(RULES, state, {"ann": read_script("walk 0 -> 3 -> 7 -> 11\npay 250\ndone")}, "s")
    assert res.state["game"]["at"] == 11 and res.state["game"]["purse"] == 750
    assert [r.order for r in res.lines["ann"][:2]] == ["walk 0 -> 3 -> 7 -> 11", "pay 250"]
    assert Walk.listed <= 2   # only `done` (not a parsed verb) needed the listed orders


def test_the_rules_reason_comes_with_the_line_quoted():
    state, _ = engine.start(RULES, ["ann"], {}, "s")
    with pytest.raises(IllegalOrderError) as err:
        match_order(RULES.grammar, [], _line("walk 0 -> 9"), parse=lambda t: RULES.parse(state, "ann", t))
    assert err.value.message == "'walk 0 -> 9': 0 -> 9 is a step longer than 4"
    with pytest.raises(InvalidOrderError, match="'pay lots': expected `pay N`"):
        match_order(RULES.grammar, [], _line("pay lots"), parse=lambda t: RULES.parse(state, "ann", t))
    acks = engine.check_script(RULES, state, "ann", read_script("pay 5000\nwalk 0 -> 4"))
    assert acks[0].status == "rejected" and "your purse holds 1000" in acks[0].reason and acks[0].error == "illegal"
    assert acks[1].status == "accepted"


def test_parse_may_hand_a_line_back_to_the_listed_orders():
    state, _ = engine.start(RULES, ["ann"], {}, "s")
    with pytest.raises(InvalidOrderError, match="did not expect 'home' here; the order is written `walk N -> N`"):
        match_order(RULES.grammar, RULES.legal_orders(state, "ann"), _line("walk home"),
                    parse=lambda t: RULES.parse(state, "ann", t))


def test_the_representative_orders_parse_back_to_themselves():
    state, _ = engine.start(RULES, ["ann"], {}, "s")
    for order in RULES.legal_orders(state, "ann"):
        if order.verb in RULES.grammar.parsed:
            again = match_order(RULES.grammar, [], _line(order.text), parse=lambda t: RULES.parse(state, "ann", t))
            assert again.text == order.text


def test_without_parsed_verbs_matching_is_unchanged():
    plain = Grammar(verbs={"walk": ("int -> int", "")})
    legal = [Order(("walk", "0", "->", "4"), ("walk",))]
    assert match_order(plain, legal, _line("walk 0 -> 4"), parse=lambda t: 1 / 0) is legal[0]
