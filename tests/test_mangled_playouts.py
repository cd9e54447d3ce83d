"""Random play-outs with mangled submissions, every game type: the bots (host.bot_script, seeded
apart from the benchmarks' and the autoplay tests') play whole games, or a game's first
phases where a whole one is slow, at every table size the cases below name, and a share of
the scripts is spoilt the way players spoil them: an empty script, a script cut short or
shuffled, a line of another player's script or of another player's order form, junk words,
a line twice with a word changed, no script at all (NMR), a script from a player not asked
(standing orders, anybody's lines, a claim).

The engine must take all of it: `engine.check_script` answers every line and raises nothing,
`engine.resolve` raises nothing, the turn moves on by one, and the game's invariants (each
game's autoplay checks, independent of the rules modules; test_fuzz._invariants) hold after
every phase. A crash found so is a position where a hosted game could never resolve again
(Faith's CHOICE 184 was such a crash: a random play-out, seed 2, 3 gods, era 22)."""

from __future__ import annotations

import random

import pytest

from pbem import host
from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.registry import game_types, get_rules
from test_fuzz import _invariants

# game -> [(gods, seed, options, phase cap or 0 for the whole game)]: a few seconds a game type
CASES = {
    "gods": [(2, 11, {}, 0), (3, 12, {"start": "random"}, 0), (4, 13, {}, 0)],
    "ohgods": [(2, 11, {}, 0), (4, 12, {"reactions": "ask"}, 0), (6, 13, {"first": "random"}, 0)],
    "deity": [(2, 11, {"rounds": "10"}, 0), (4, 12, {"rounds": "4", "reactions": "ask"}, 0), (6, 13, {"rounds": "3"}, 0)],
    "yegods": [(2, 11, {}, 60), (3, 12, {"unknown": "none"}, 60), (4, 13, {}, 60)],
    "faith": [(2, 11, {}, 90), (5, 12, {"battles": "standing", "bidding": "live"}, 40), (3, 13, {"pace": "live"}, 80)],
}
JUNK = ["", "#", "done", "pass", "END", "->", "0,0", "-1,2", "99", "0", "-3", "all", "for", "with", "x" * 40,
        "\u00e9t\u00e9", "1,1,1", "none"]
STATUSES = {"accepted", "rejected", "ignored"}


def test_every_game_type_has_cases():
    assert set(CASES) == set(game_types())
    for game_type, cases in CASES.items():
        rules = get_rules(game_type)
        assert all(rules.info.min_players <= n <= rules.info.max_players for n, *_ in cases)
        assert {n for n, *_ in cases} >= {rules.info.min_players}


def _mangled(rnd: random.Random, lines: list[str], others: list[str], form: list[str], words: list[str]) -> list[str]:
    """The bot's lines, or (about half the time) the same spoilt one of seven ways."""
    out = list(lines)
    x = rnd.randrange(14)
    if x < 7:
        return out
    if x == 7:
        return []
    if x == 8:
        return out[: rnd.randrange(len(out) + 1)]
    if x == 9:
        rnd.shuffle(out)
        return out
    if x == 10 and others:
        out.insert(rnd.randrange(len(out) + 1), rnd.choice(others))
        return out
    if x == 11 and form:
        out.insert(rnd.randrange(len(out) + 1), rnd.choice(form))
        return out
    if x == 12 or not out:
        for _ in range(rnd.randint(1, 3)):
            out.insert(rnd.randrange(len(out) + 1), " ".join(rnd.choice(words + JUNK) for _ in range(rnd.randint(1, 6))))
        return out
    i = rnd.randrange(len(out))
    tokens = out[i].split() or ["done"]
    tokens[rnd.randrange(len(tokens))] = rnd.choice(words + JUNK)
    out.insert(i, " ".join(tokens))   # the line twice, a word of it changed
    return out


@pytest.mark.parametrize("game_type", sorted(CASES))
def test_mangled_submissions_never_break_a_game(game_type):
    rules = get_rules(game_type)
    invariants = _invariants(game_type)
    for n, seed, options, cap in CASES[game_type]:
        players = [f"g{i}" for i in range(1, n + 1)]
        state, _ = engine.start(rules, players, options, f"mangled{seed}")
        rnd = random.Random(f"mangled/{game_type}/{seed}")
        phases = 0
        spoilt = 0
        while not state["flow"].get("over") and (not cap or phases < cap):
            where = f"{game_type}, {n} players, seed {seed}, phase {phases}"
            asked = engine.active_players(rules, state)
            bots = {p: host.bot_script(rules, state, p, random.Random(f"mangled/{seed}/{phases}/{p}")) for p in asked}
            words = sorted({t for lines in bots.values() for line in lines for t in line.split()}) or ["done"]
            texts: dict[str, str | None] = {}
            for p in asked:
                others = [line for q, lines in bots.items() if q != p for line in lines]
                q = rnd.choice(players)
                form = [t for _verb, ts, _n in rules.order_groups(state, q, 3) for t in ts] if q in asked else []
                lines = _mangled(rnd, bots[p], others, form, words)
                spoilt += lines != bots[p]
                texts[p] = None if rnd.random() < 0.04 else "\n".join(lines)
            idle = [p for p in players if p not in asked]
            if idle and rnd.random() < 0.2:   # a player not asked sends something too: standing orders,
                pool = [o.text for o in rules.standing_orders(state, rnd.choice(players))]   # anyone's
                pool += [line for lines in bots.values() for line in lines] + ["claim", "done"]
                texts[rnd.choice(idle)] = "\n".join(rnd.choice(pool) for _ in range(rnd.randint(1, 4)))
            scripts = {p: None if t is None else read_script(t) for p, t in texts.items()}
            for p, script in scripts.items():
                if script is not None and rnd.random() < 0.25:
                    results = engine.check_script(rules, state, p, script, worlds_n=2)
                    assert len(results) == len(script.lines), where
                    assert {r.status for r in results} <= STATUSES, where
            res = engine.resolve(rules, state, scripts, f"mangled{seed}")
            assert res.state["flow"]["number"] == state["flow"]["number"] + 1, where
            assert set(res.nmr) == {p for p in asked if scripts.get(p) is None}, where
            state = res.state
            phases += 1
            if invariants is not None:
                invariants(state)
        assert phases >= min(cap or 10, 10) and spoilt > 0, (game_type, n, seed, phases, spoilt)
