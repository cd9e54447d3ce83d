"""Oh Gods!: random play-outs for 2 to 6 players over many seeds, engine only (no store, for
speed), with the game's invariants checked after every order:

- every card is in exactly one place (deck, discard pile, a hand, an altar, a set, a Sanctuary);
- no hand holds more than six cards, and a player whose turn ended holds six (or the deck is empty);
- Rulers leave an altar only by scoring (into a set of the same player);
- sets are real sets (three or more cards sharing the announced element), at most five a player;
- Mastery holders formed a set of that domain this hand;
- the running scores are recomputed here, independently of the rules module, from the sets.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pbem.core import engine
from pbem.core.registry import get_rules, load_data
from pbem.core.rng import phase_rng

RULES = get_rules("ohgods")
DATA = load_data("ohgods")
SEEDS_PER_SIZE = 30  # x 5 table sizes = 150 games


def _cards() -> dict[str, dict]:
    """Each card's elements and points, read from data.toml (not from the rules module)."""
    r = DATA["rules"]
    out = {}
    for god in DATA["gods"]:
        el = {god["pantheon"]: DATA["pantheons"][god["pantheon"]]["points"], **god["domains"]}
        if god.get("ruler"):
            el["ruler"] = r["ruler_points"]
        out[god["id"]] = {"elements": el, "ruler": bool(god.get("ruler")), "imm": False}
    for key, spec in DATA["specials"].items():
        for i in range(1, spec["count"] + 1):
            out[f"{key}-{i}"] = {"elements": {}, "ruler": False, "imm": spec["effect"] == "immortalized"}
    return out


CARDS = _cards()
ALL_CARDS = sorted(CARDS)


def score_set(s: dict) -> int:
    """The text: every element common to all cards; +5 for five or more. Immortalized stands
    for the announced element only, at the lowest value among the other gods (data CHOICE)."""
    real = [CARDS[c]["elements"] for c in s["cards"] if not CARDS[c]["imm"]]
    imms = len(s["cards"]) - len(real)
    common = set.intersection(*(set(e) for e in real))
    if imms:
        common &= {s["element"]}
    total = sum(sum(e[k] for e in real) + imms * min(e[k] for e in real) for k in common)
    return total + (DATA["rules"]["big_set_bonus"] if len(s["cards"]) >= DATA["rules"]["big_set"] else 0)


def check(state: dict, scored: list | None = None) -> None:
    """`scored`: a one-item list holding how many hands were checked already, so the hands'
    scores are recomputed once each (and at the end)."""
    g = state["game"]
    players = g["players"]
    places = list(g["deck"]) + list(g["discard"])
    for p in players:
        places += g["hands"][p] + g["altars"][p]
        places += [c for s in g["sets"][p] for c in s["cards"]]
        if g["sanctuary"][p]:
            places.append(g["sanctuary"][p])
    assert sorted(places) == ALL_CARDS, "a card is missing or in two places"
    for p in players:
        assert len(g["hands"][p]) <= DATA["rules"]["hand_size"], f"{p} holds {len(g['hands'][p])} cards"
        assert len(g["sets"][p]) <= DATA["rules"]["max_sets"], f"{p} has a sixth set"
        for s in g["sets"][p]:
            assert len(s["cards"]) >= DATA["rules"]["min_set"]
            for c in s["cards"]:
                info = CARDS[c]
                assert info["imm"] and s["element"] != "ruler" or s["element"] in info["elements"], (p, s)
            assert not all(CARDS[c]["imm"] for c in s["cards"])
    for domain, holder in g["mastery"].items():
        if holder:
            assert any(s["element"] == domain for s in g["sets"][holder]), f"{holder} holds {domain} Mastery without a set"
    if scored is not None and scored[0] == len(g["history"]) and not state["flow"]["over"]:
        return
    if scored is not None:
        scored[0] = len(g["history"])
    totals = {p: 0 for p in players}
    for h in g["history"]:
        for p in players:
            pts = sum(score_set(s) for s in h["sets"][p])
            assert h["scores"][p] == pts, f"hand {h['hand']}: {p} scored {h['scores'][p]}, the sets are worth {pts}"
            totals[p] += pts
    assert g["scores"] == totals
    if state["flow"]["over"]:
        best = max(totals.values())
        assert state["flow"]["outcome"]["winners"] == [p for p in players if totals[p] == best]
        assert len(g["history"]) == DATA["rules"]["hands"]


def rulers_on_altars(g: dict) -> dict[str, str]:
    return {c: p for p in g["players"] for c in g["altars"][p] if CARDS[c]["ruler"]}


def play_out(n: int, seed: int, seen: Counter) -> dict:
    players = [f"p{i}" for i in range(n)]
    game_seed = f"auto-{n}-{seed}"
    state, _ = engine.start(RULES, players, {}, game_seed)
    scored = [-1]
    check(state, scored)
    bot = random.Random(game_seed)
    steps = 0
    while not state["flow"]["over"]:
        steps += 1
        assert steps < 3000, "the play-out does not end"
        g = state["game"]
        player = state["flow"]["active"][0]
        if bot.random() < 0.08:  # someone changes their standing order on Block
            other = bot.choice(players)
            order = bot.choice(RULES.standing_orders(state, other))
            RULES.apply(state, other, order, phase_rng(game_seed, steps))
        legal = RULES.legal_orders(state, player)
        assert legal, f"{player} is asked but has no legal order"
        order = RULES.bot_choice(state, player, legal, bot)
        seen[order.verb] += 1
        if order.verb == "mastery":
            seen["mastery:" + order.payload[2]] += 1
        hand, rulers = g["hand"], rulers_on_altars(g)
        rng = phase_rng(game_seed, steps)
        events = RULES.apply(state, player, order, rng)
        events += engine.settle(RULES, state, rng)
        for e in events:
            seen["event:" + e["type"]] += 1
            if e["type"] == "final_round":
                seen["final:" + e["reason"].split()[0]] += 1
        check(state, scored)
        g = state["game"]
        if g["hand"] == hand:
            for c, owner in rulers.items():
                assert c in g["altars"][owner] or any(c in s["cards"] for s in g["sets"][owner]), \
                    f"Ruler {c} left {owner}'s altar other than by scoring"
            turn_over = [e["player"] for e in events if e["type"] == "turn_over"]
            for p in turn_over:
                assert len(g["hands"][p]) == DATA["rules"]["hand_size"] or not g["deck"], f"{p} did not draw to six"
    return state


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_play_outs_keep_the_invariants_and_end(n):
    seen: Counter = Counter()
    for seed in range(SEEDS_PER_SIZE):
        state = play_out(n, seed, seen)
        assert state["flow"]["outcome"]["winners"]
    # the play-outs exercise the whole game, not a corner of it
    for verb in ("play", "form", "steal", "discard", "mastery"):
        assert seen[verb], f"no '{verb}' order was played"
    for what in ("event:blocked", "event:steal", "event:pilgrimage", "event:exchange", "event:sanctuary",
                 "event:mastery", "final:drew"):
        assert seen[what], f"never happened: {what}"
    if n <= 3:  # at larger tables the deck runs out before anyone has five sets
        assert seen["final:formed"], "no hand ended by a fifth set"


def test_every_mastery_card_is_used_in_play_outs():
    seen: Counter = Counter()
    for seed in range(12):
        play_out(3, 100 + seed, seen)
    for domain in DATA["domains"].values():
        if domain["ability"] in ("lone_steal", "charm_steal"):
            continue  # not actions: they change what steals are legal
        assert seen["mastery:" + domain["ability"]], f"the Mastery of {domain['name']} was never used"
