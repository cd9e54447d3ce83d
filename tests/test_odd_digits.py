"""Digits that are not decimal digits (tester3 finding 15): superscripts, subscripts, circled
digits, fractions, Roman numerals -- `str.isdigit()` is True for most of them but `int()`
fails on them. A European keyboard gives ² and ³ under AltGr. Such a character in any
number slot of any game's orders is a clean rejection ("expected a number, found '²'"), never
an exception from the checker or the resolution.

The lines fuzzed come from `legal_orders` and `standing_orders` (every verb that is legal now,
with its real arguments) in each game's opening and in positions from the middle of games the
bots play (the positions of test_fuzz): every run of digits in them is replaced by an odd
"digit", and an odd digit is put after each token; every verb of the grammar is also tried
with odd digits alone (`abjure ²`, `discard ①`), by the player asked and by one who is not."""

from __future__ import annotations

import json
import re

import pytest

from pbem.core import engine
from pbem.core.orders import read_script, tokenize
from pbem.core.registry import game_types, get_rules
from test_fuzz import _players, _positions

GAMES = game_types()
ODD = ["²", "³", "¹", "⁹", "₂", "①", "½", "Ⅳ", "²³"]
PER_VERB = 4  # legal orders of a verb fuzzed in each position (the first, the last, two between)


def _sample(orders):
    by_verb: dict[str, list] = {}
    for o in orders:
        by_verb.setdefault(o.verb, []).append(o)
    out = []
    for found in by_verb.values():
        if len(found) <= PER_VERB:
            out += found
        else:
            step = (len(found) - 1) / (PER_VERB - 1)
            out += [found[round(i * step)] for i in range(PER_VERB)]
    return out


def _lines(rules, state, player) -> tuple[list[str], set[str]]:
    """The fuzzed lines, and those of them in which an odd digit replaced a real number (these
    must be rejected: no other order can be meant)."""
    replaced: list[str] = []
    inserted: list[str] = []
    orders = _sample(rules.legal_orders(state, player) + rules.standing_orders(state, player))
    for k, order in enumerate(orders):
        text = order.text
        for j, m in enumerate(re.finditer(r"[0-9]+", text)):
            odd = ODD[(k + j) % len(ODD)]
            replaced.append(text[: m.start()] + odd + text[m.end():])
        odd = ODD[k % len(ODD)]
        for i in range(1, len(order.tokens) + 1):
            inserted.append(" ".join(order.tokens[:i] + (odd,) + order.tokens[i:]))
    for n, verb in enumerate(sorted(rules.grammar.verbs)):
        odd = ODD[n % len(ODD)]
        inserted += [f"{verb} {odd}", f"{verb} {odd},9", f"{verb} 1,{odd}", f"{verb} {odd} {odd}"]
    return replaced + inserted, set(replaced)


def _check(rules, state, player, lines, must_reject):
    script = read_script("\n".join(lines))
    try:
        results = engine.check_script(rules, state, player, script, worlds_n=1)
    except Exception:  # find the line, for a readable failure
        for line in lines:
            try:
                engine.check_script(rules, state, player, read_script(line), worlds_n=1)
            except Exception as err:
                raise AssertionError(f"{rules.info.name}: checking {line!r} for {player} raised {err!r}") from err
        raise
    assert len(results) == len(script.lines)
    for r in results:
        if r.text in must_reject:
            assert r.status == "rejected", f"{rules.info.name}: {r.text!r} was {r.status} as {r.order!r}"
            assert "Error" not in r.reason, r.reason


@pytest.mark.parametrize("game_type", GAMES)
def test_odd_digits_in_every_number_slot_are_rejected_not_raised(game_type):
    rules = get_rules(game_type)
    for which, position in enumerate(_positions(game_type)):
        state = json.loads(position)
        before = engine.state_hash(state)
        asked = engine.active_players(rules, state)
        others = [p for p in _players(rules) if p not in asked]
        for player in asked + others[:1]:
            lines, must_reject = _lines(rules, state, player)
            _check(rules, state, player, lines, must_reject)
        assert engine.state_hash(state) == before
        # resolved, too: every player asked sends the odd lines; nothing raises, the turn moves on
        scripts = {p: read_script("\n".join(_lines(rules, state, p)[0])) for p in asked}
        try:
            res = engine.resolve(rules, state, scripts, "odd")
        except Exception as err:
            for p in asked:
                for line in _lines(rules, state, p)[0]:
                    try:
                        engine.resolve(rules, json.loads(position), {p: read_script(line)}, "odd")
                    except Exception as one:
                        raise AssertionError(f"{game_type} position {which}: resolving {line!r} of {p} raised {one!r}") from one
            raise AssertionError(f"{game_type} position {which}: resolving raised {err!r}") from err
        assert res.state["flow"]["number"] == state["flow"]["number"] + 1


@pytest.mark.parametrize("game_type", GAMES)
def test_an_odd_digit_for_a_number_is_rejected_with_a_reason_naming_it(game_type):
    """Not a fuzz: a legal order with ² (or ①...) for its number is rejected for that
    character, quoted ("expected a number, found '²'"), not for something else."""
    rules = get_rules(game_type)
    seen = 0
    for position in _positions(game_type):
        state = json.loads(position)
        for player in engine.active_players(rules, state):
            for k, order in enumerate(_sample(rules.legal_orders(state, player))):
                for i, tok in enumerate(order.tokens):
                    if not re.fullmatch(r"-?[0-9]+(,-?[0-9]+)?", tok):
                        continue
                    odd = ODD[(k + i) % len(ODD)]
                    typed = " ".join(order.tokens[:i] + (tok.replace(tok.lstrip("-")[0], odd, 1),) + order.tokens[i + 1:])
                    r = engine.check_script(rules, state, player, read_script(typed), worlds_n=1)[0]
                    assert r.status == "rejected", (typed, r.order)
                    first = r.reason.split("\n")[0]
                    assert re.search(r"(expected [^']*(a number|coordinate)[^']*, found|there is no hex) '[^']*"
                                     + re.escape(odd.lower()), first, re.IGNORECASE), (typed, r.reason)
                    seen += 1
    slots = {k.rstrip("?") for pattern, _ in rules.grammar.verbs.values() for k in pattern.split()}
    assert bool(seen) == bool(slots & {"int", "hex"})  # Oh Gods! has no number in any order


def test_the_tokenizer_reads_decimal_digits_of_any_script_and_dashes_as_minus():
    """Digits that int() reads (Arabic-Indic, fullwidth, mathematical) are digits, in numbers
    as in coordinates; the dashes players type or paste (U+2212 minus, en and em dash, the
    Unicode hyphens, fullwidth hyphen-minus) are a minus sign, and `–>` an arrow, as `→` is."""
    assert [t.text for t in tokenize("raise ٣ (１, −２)")] == ["raise", "3", "1,-2"]
    assert [t.text for t in tokenize("tribe green 1,\u22122")] == ["tribe", "green", "1,-2"]
    assert [t.text for t in tokenize("tribe green \u20131,\u20142")] == ["tribe", "green", "-1,-2"]
    assert [t.text for t in tokenize("move 𝟑 italia \u2013> graecia")] == ["move", "3", "italia", "->", "graecia"]
    assert [t.text for t in tokenize("move 3 italia \u2014> graecia")] == ["move", "3", "italia", "->", "graecia"]
    assert [t.text for t in tokenize("move \uff0d1,2 \u2010> 0,\u20112")] == ["move", "-1,2", "->", "0,-2"]
    # what is not a decimal digit stays what it is (and is then rejected where a number is due)
    assert [t.text for t in tokenize("move ² a -> b")] == ["move", "²", "a", "->", "b"]
    assert [t.text for t in tokenize("temple ²,9")] == ["temple", "²,9"]
    # the columns are those of the line as typed
    assert [t.column for t in tokenize("a \u2212\u20121,2")] == [1, 3]
