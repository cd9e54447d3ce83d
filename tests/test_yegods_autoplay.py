"""Ye Gods!: random play-outs for 2, 3 and 4 players over many seeds, engine only (no store,
for speed). Every seat plays random legal orders (the rules' bot), and after every phase the
conservation invariants are checked: worshippers (pool + board = 400), priests (10 a god),
saints (5 a god, at most 4 on the board), heretics (5), donatives (60) and the 90 god cards.
Every game must end with a winner or a stated reason."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pbem.core import engine
from pbem.core.orders import Line, match_order, tokenize
from pbem.core.registry import get_rules
from pbem.core.rng import phase_rng

RULES = get_rules("yegods")
PLAYERS = ["alice", "bob", "carol", "dave"]
SEEDS = 36          # per player count: 108 games
MAX_ROUNDS = 400


def check_invariants(state: dict) -> None:
    g = state["game"]
    s = g["supply"]
    on_board = 0
    for place, cell in g["board"].items():
        assert place in RULES.provinces, f"worshippers in {place}, which is not a province"
        for god, n in cell.items():
            assert n > 0, f"{god} has {n} worshippers in {place}"
            on_board += n
    assert s["worshippers"] >= 0
    assert s["worshippers"] + on_board == 400, f"pool {s['worshippers']} + board {on_board} != 400"
    for god in g["gods"]:
        priests = g["priests"][god]
        assert all(place in RULES.provinces and n > 0 for place, n in priests.items()), priests
        assert s["priests"][god] >= 0 and s["priests"][god] + sum(priests.values()) == 10, (god, priests)
        saints = g["saints"][god]
        assert len(saints) <= 4, f"{god} has {len(saints)} saints on the board"
        assert all(x["at"] in RULES.places for x in saints)
        assert s["saints"][god] >= 0 and s["saints"][god] + len(saints) == 5, (god, saints)
        assert g["donatives"][god] >= 0
        if god in g["out"]:
            assert not priests and not saints and not g["hands"][god] and g["donatives"][god] == 0
            assert RULES.total(g, god) == 0
    assert all(p in RULES.provinces and n > 0 for p, n in g["heretics"].items())
    assert s["heretics"] >= 0 and s["heretics"] + sum(g["heretics"].values()) == 5
    assert s["donatives"] >= 0 and s["donatives"] + sum(g["donatives"].values()) == 60
    pending = g["turn"].get("pending")
    cards = g["deck"] + g["discard"] + [c for hand in g["hands"].values() for c in hand] + ([pending] if pending else [])
    assert sorted(cards) == list(range(1, 91)), f"{len(cards)} cards, duplicates or strays: {sorted(cards)}"


WIN_PROVINCES = 10  # data.toml [rules] win_provinces (the rules text: ten provinces)


def check_outcome(state: dict) -> None:
    """The declared result meets a win condition of the rules, judged from the board alone:
    who owns each province is recounted here (the sole god with the most worshippers in it),
    and the winning god owns ten provinces, or is the only god owning any, or is the last
    player's god not passed into myth; no winner only when every player's god passed into
    myth or the Unknown God won. The winners are the winning god's player, nobody else."""
    g = state["game"]
    out = state["flow"]["outcome"]
    owner = {}
    for place in RULES.provinces:
        cell = {god: n for god, n in g["board"].get(place, {}).items() if n > 0}
        best = max(cell.values(), default=0)
        leaders = [god for god, n in cell.items() if n == best]
        owner[place] = leaders[0] if len(leaders) == 1 else None
    assert owner == {p: g["owner"].get(p) for p in RULES.provinces}, "ownership differs from a recount of the board"
    provinces = Counter(o for o in owner.values() if o)
    left = [god for god in g["order"] if god not in g["out"]]  # players' gods not passed into myth
    assert WIN_PROVINCES == int(RULES.r["win_provinces"])

    def meets(god: str) -> bool:
        return provinces[god] >= WIN_PROVINCES or set(provinces) == {god} or left == [god]

    god = out["god"]
    if god is None:
        assert left == [] and out["winners"] == [], out
        return
    assert meets(god), f"{god} is declared the winner with {provinces[god]} provinces ({dict(provinces)}), {left} left"
    assert god not in g["out"]
    player = g["player_of"].get(god)
    assert out["winners"] == ([player] if player else []), out
    if player is None:
        assert god == g["unknown"]


def play(n: int, seed: str, options: dict | None = None, reparse: bool = False) -> dict:
    """One game, engine only: the asked player's bot plays legal orders until its part of the
    phase is over; then the engine settles. Invariants after every phase."""
    state, _ = engine.start(RULES, PLAYERS[:n], options or {}, seed)
    check_invariants(state)
    bots = random.Random(seed)
    phases = 0
    while not state["flow"]["over"]:
        rng = phase_rng(seed, state["flow"]["number"])
        for player in engine.active_players(RULES, state):
            for _ in range(200):
                if player not in engine.active_players(RULES, state):
                    break
                legal = RULES.legal_orders(state, player)
                order = RULES.bot_choice(state, player, legal, bots)
                assert order in legal
                if reparse:  # the canonical text of every order reads back as that order
                    line = Line(1, order.text, tokenize(order.text))
                    assert match_order(RULES.grammar, legal, line) == order, order.text
                RULES.apply(state, player, order, rng)
            else:  # pragma: no cover
                pytest.fail(f"{player} never finished its turn")
        state["flow"]["number"] += 1
        engine.settle(RULES, state, rng)
        check_invariants(state)
        phases += 1
        assert state["game"]["round"] <= MAX_ROUNDS, "the game does not end"
    return state


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_end_and_conserve_every_piece(n):
    winners = 0
    for i in range(SEEDS):
        state = play(n, f"auto-{n}-{i}", reparse=(i % 9 == 0))
        check_outcome(state)
        outcome = state["flow"]["outcome"]
        assert outcome["reason"]
        assert set(outcome["winners"]) <= set(PLAYERS[:n])
        assert len(outcome["winners"]) <= 1
        if outcome["winners"]:
            winners += 1
            god = state["game"]["god_of"][outcome["winners"][0]]
            assert god not in state["game"]["out"]
    assert winners >= SEEDS // 2, f"only {winners} of {SEEDS} games had a winner"


def test_three_players_without_the_unknown_god_and_chosen_gods():
    for i in range(4):
        state = play(3, f"none-{i}", {"unknown": "none", "gods": "jehovah,odin,lugus"})
        g = state["game"]
        assert g["unknown"] is None and g["gods"] == ["jehovah", "odin", "lugus"]
        assert state["flow"]["over"]
        check_outcome(state)


def test_every_event_of_random_games_renders_as_a_report_line():
    """Every event type the rules emit has a line in templates/yegods/events.j2 (the template
    is strict: a missing key fails), none falls through to the raw type name."""
    from pbem.render.reports import environment

    macros = environment().get_template("yegods/events.j2").module
    common = environment().get_template("events.j2").module
    seen: dict[str, str] = {}
    for n, seed in [(2, "ev-a"), (3, "ev-b"), (4, "ev-c"), (3, "ev-d")]:
        state, events = engine.start(RULES, PLAYERS[:n], {}, seed)
        bots = random.Random(seed)
        while not state["flow"]["over"]:
            rng = phase_rng(seed, state["flow"]["number"])
            for player in engine.active_players(RULES, state):
                while player in engine.active_players(RULES, state):
                    order = RULES.bot_choice(state, player, RULES.legal_orders(state, player), bots)
                    events += RULES.apply(state, player, order, rng)
            state["flow"]["number"] += 1
            events += engine.settle(RULES, state, rng)
        for e in events:
            # "to" marks an event private to one player: never anything else
            assert "to" not in e or e["to"] in PLAYERS[:n], f"event {e} would be hidden from every report"
            text = (common.line(e) if e["type"] in common.TYPES else macros.line(e)).strip()
            assert text and text != e["type"], f"no report line for {e}"
            seen.setdefault(e["type"], text)
    for kind in ("holywar", "draw", "draw_private", "move", "add", "ownership", "income", "round", "turn",
                 "game_over", "buy_priest", "rolloff", "start_priest", "housekeeping"):
        assert kind in seen, f"no {kind} event in four games"
    assert "rolls 2d6" in seen["holywar"] and "NSB" in seen["holywar"]


@pytest.mark.parametrize("event", [
    {"type": "reshuffle", "cards": 17},
    {"type": "no_card", "god": "odin"},
    {"type": "vision_lost", "god": "odin", "n": 20},
    {"type": "vision", "god": "odin", "at": "sahara", "turns": 5, "worshippers": 20},
    {"type": "vision_place", "god": "odin", "at": "italia", "n": 3, "short": 2, "left": 0},
    {"type": "myth", "god": "lugus", "player": None},
    {"type": "schism", "god": "odin", "losses": {}, "total": 0},
])
def test_rare_events_render(event):
    from pbem.render.reports import environment

    text = environment().get_template("yegods/events.j2").module.line(event).strip()
    assert text and text != event["type"]
