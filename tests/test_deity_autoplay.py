"""Deity: random play-outs for 2-6 players over many seeds, with the game's invariants
checked after every order, and a few whole games through the store, replayed bit for bit.

The engine-only games use the rules directly (as engine.settle and engine.resolve do) with
the bot of the rules module (bot_fast: bot_choice without listing every legal order first);
every order the bot plays is checked against legal_orders, the source of truth, before it
is applied."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pbem.core import engine
from pbem import host
from pbem.core.registry import get_rules, load_data
from pbem.core.rng import phase_rng

NAMES = ["ann", "bel", "cas", "dor", "eli", "fen"]
RULES = get_rules("deity")
DATA = load_data("deity")
CARDS = Counter({c["id"]: DATA["deck"]["copies"] for c in DATA["cards"]})
TERRAIN = Counter({t["id"]: t["count"] for t in DATA["terrain"]})
TMAX = {t["id"]: t["max"] for t in DATA["terrain"]}
NO_TEMPLE = {t["id"] for t in DATA["terrain"] if not t["temples"]}


def check_invariants(state: dict, where: str) -> None:
    g = state["game"]
    geo = RULES._geo(g)
    land = g["land"]
    # every card in one place
    cards = Counter(g["deck"])
    cards.update(g["discard"])
    for hand in g["hands"].values():
        cards.update(hand)
    assert cards == CARDS, f"{where}: cards not conserved: {cards - CARDS} extra, {CARDS - cards} missing"
    # every terrain counter in one place
    counters = Counter(c["terrain"] for c in land.values())
    counters.update(g["reserve"])
    counters.update(g["pile"])
    counters.update(g["removed"])
    if g["world"]["drawn"]:
        counters[g["world"]["drawn"]] += 1
    assert counters == TERRAIN, f"{where}: terrain counters not conserved"
    for k, c in land.items():
        assert k in geo.onmap, f"{where}: land off the map at {k}"
        n = c["pop"] + c["armies"] + c["monsters"] + (1 if c["temple"] else 0)
        assert min(c["pop"], c["armies"], c["monsters"]) >= 0, f"{where}: negative counters at {k}"
        assert n <= TMAX[c["terrain"]], f"{where}: {k} holds {n} counters, over the {c['terrain']} maximum"
        assert (n == 0) == (c["owner"] is None), f"{where}: owner of {k} is {c['owner']} with {n} counters"
        if c["owner"] is not None:
            assert c["owner"] not in g["out"], f"{where}: {c['owner']} is out but holds {k}"
        if c["blight"]:
            assert n == 0, f"{where}: counters in the blighted hex {k}"
            assert c["blight"] not in g["out"], f"{where}: a blight of {c['blight']}, who is out"
        if c["temple"]:
            assert c["terrain"] not in NO_TEMPLE, f"{where}: a temple in a swamp at {k}"
            for nb in geo.nbrs[k]:
                assert not (nb in land and land[nb]["temple"]), f"{where}: temples next to each other at {k} and {nb}"
    t = g["turn"]
    if state["flow"]["phase"] == "turn" and t["step"] != "discard" and not (t["pending"] and t["pending"]["kind"] == "discard"):
        for p, hand in g["hands"].items():
            assert len(hand) <= DATA["rules"]["hand_max"], f"{where}: {p} holds {len(hand)} cards after the draw phase"
    for p in g["out"]:
        assert not g["hands"][p], f"{where}: {p} is out but holds cards"
    if state["flow"]["phase"] == "world":
        # river valleys keep a water side while the world is built
        for k, c in land.items():
            if c["terrain"] == "river":
                assert any(n not in land for n in geo.nbrs[k]), f"{where}: river valley {k} closed in"


def settle(state: dict, rng) -> list[dict]:
    """engine.settle, with the rules' cheap test for a forced (only legal) order."""
    events: list[dict] = []
    for _ in range(1000):
        events += RULES.advance(state, rng)
        if RULES.outcome(state):
            state["flow"]["over"] = True
            return events
        for p in engine.active_players(RULES, state):
            only = RULES.sole_order(state, p)
            if only is not None:
                events += RULES.apply(state, p, only, rng)
                break
        else:
            return events
    raise AssertionError("settle did not end")


def play(seed: int, n: int, options: dict, standing: bool = True) -> tuple[dict, int, Counter]:
    players = NAMES[:n]
    state, _ = engine.start(RULES, players, options, str(seed))
    bot = random.Random(seed)
    check_invariants(state, f"seed {seed} set-up")
    if standing:  # some gods set reactions, so Abjuration and Resurrection come into play
        for p in players:
            for text in bot.sample(["abjure any on my hexes", "abjure earthquake", "abjure abjuration", "resurrect 1", "resurrect 3"], 2):
                order = next(o for o in RULES.standing_orders(state, p) if o.text == text)
                RULES.apply(state, p, order, phase_rng(str(seed), 0))
    orders = 0
    kinds: Counter = Counter()
    while not state["flow"]["over"]:
        orders += 1
        assert orders < 20_000, f"seed {seed}: the game does not end"
        p = engine.active_players(RULES, state)[0]
        order = RULES.bot_fast(state, p, bot)
        legal = RULES.legal_orders(state, p)  # every order, every game: bot_fast must play only legal ones
        assert order in legal, f"seed {seed}: the bot's {order.text!r} is not in legal_orders"
        assert (RULES.sole_order(state, p) is not None) == (len(legal) == 1)
        kinds["checked"] += 1
        kinds[order.verb] += 1
        rng = phase_rng(str(seed), orders)
        events = RULES.apply(state, p, order, rng)
        events += settle(state, rng)
        for e in events:
            kinds[e["type"]] += 1
            if e["type"] == "play":
                kinds["card:" + e["card"]] += 1
        check_invariants(state, f"seed {seed}, {n} players, order {orders} ({p}: {order.text})")
    return state, orders, kinds


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_keep_the_invariants(players):
    """40 seeds a player count (200 games): short games on both map sizes."""
    seen: Counter = Counter()
    for seed in range(40):
        options = {"rounds": str(4 + seed % 5), "size": "12" if seed % 3 == 0 else "10"}
        state, orders, kinds = play(seed * 7 + players, players, options)
        assert kinds["checked"] == orders  # each order the bot played was in legal_orders
        seen += kinds
        out = state["flow"]["outcome"]
        assert out["winners"] and set(out["winners"]) <= set(NAMES[:players])
    # the games went through every part of a turn
    for kind in ("temple", "raise", "play", "battle_round", "move", "growth", "draw", "pass"):
        assert seen[kind] > 0, f"no {kind} in 40 games of {players}"


def test_long_games_end_and_use_every_card():
    """Longer games (45 rounds): players go out, the reactions fire, and over these games and
    a few more every one of the 26 cards is played."""
    seen: Counter = Counter()
    for seed, n in ((1, 2), (2, 3), (3, 4), (4, 6), (5, 5), (6, 2), (7, 4)):
        state, _, kinds = play(seed, n, {"rounds": "45"})
        seen += kinds
        assert state["flow"]["outcome"]["winners"]
    assert seen["player_out"] > 0
    assert seen["abjure"] > 0 and seen["negated"] > 0
    assert seen["resurrect"] > 0
    assert seen["battle_end"] > 10
    seed = 100
    while any(not seen["card:" + c] for c in CARDS if c != "abjuration") and seed < 140:
        seen += play(seed, 2 + seed % 5, {"rounds": "15"})[2]
        seed += 1
    missing = sorted(c for c in CARDS if c != "abjuration" and not seen["card:" + c])
    assert not missing, f"never played: {missing}"


def test_games_without_a_round_limit_end_by_elimination():
    """The default game has no round limit (as the text): random play-outs of 2, 3 and 4 gods
    still end, by elimination, with one god left."""
    for seed, n in ((1, 2), (2, 3), (5, 3), (6, 4)):
        state, _, kinds = play(seed, n, {})
        out = state["flow"]["outcome"]
        assert state["game"]["round_limit"] == 0
        assert len(out["winners"]) == 1 and out["reason"].endswith("is the last immortal standing")
        assert len(state["game"]["out"]) == n - 1 and kinds["player_out"] == n - 1


def test_games_through_the_store_replay_bit_for_bit(db, turns):
    """Whole games through the store (submit, resolve, reports) by host.autoplay, with
    bot_choice over the full legal_orders; replay re-runs them and every hash matches."""
    for i, (n, opts) in enumerate(((2, {"rounds": "3"}), (3, {"rounds": "2", "size": "12", "start": "random"}), (6, {"rounds": "1"}))):
        gid = f"d{i}"
        host.new_game(db, "deity", gid, NAMES[:n], seed=str(40 + i), options=opts, turns=turns)
        host.autoplay(db, gid, turns=turns)
        game = db["games"].get(gid)
        assert game["status"] == "finished"
        result = host.replay(db, gid)
        assert result["ok"], result
        # at least one phase a god a round (the world-building phases come on top)
        assert result["phases"] > n * int(opts["rounds"]), (result, n, opts)
        last = game["phase"]
        public = (turns / gid / str(last) / "reports" / "public.txt").read_text()
        assert "Game over" in public and "Round " in public
