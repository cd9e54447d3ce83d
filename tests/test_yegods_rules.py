"""Ye Gods!: the rules the scenario files (games/yegods/scenarios/) do not show well: the
board and deck data, set-up (starting pieces, the sealed priest placement, the turn-order
roll-off with re-rolls), options, the Unknown God's rotation and separate requests, god
aliases in orders, acknowledgements that depend on dice, and what a submission check may see.
The rule-by-rule scenarios are run by tests/test_gods_scenarios.py (every game's) and checked
for coverage here."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from pbem.core import engine
from pbem.core.errors import DataError
from pbem.core.orders import read_script
from pbem.core.registry import games_dir, get_rules, load_data
from pbem.core.scenario import ScriptedRng

RULES = get_rules("yegods")
SCENARIOS = games_dir() / "yegods" / "scenarios"


def script(*lines: str):
    return read_script("\n".join(lines))


def resolve(state: dict, orders: dict[str, list[str] | None], seed: str = "t") -> engine.Resolution:
    return engine.resolve(RULES, state, {p: (script(*o) if o is not None else None) for p, o in orders.items()}, seed)


def started(players=("jupiter", "odin"), options=None, seed="t") -> dict:
    """A game past set-up: every starting priest placed on the first starting province."""
    state, _ = engine.start(RULES, list(players), options or {}, seed)
    orders = {}
    for p in engine.active_players(RULES, state):
        orders[p] = [f"priest {RULES.start[god][0]}" for god in state["game"]["place"][p]]
    return resolve(state, orders, seed).state


# --- the data ------------------------------------------------------------------------------

def test_the_board_has_15_provinces_4_water_crossings_and_deserts_for_saints_only():
    assert len(RULES.provinces) == 15
    assert len(RULES.water) == 4
    for place, near in RULES.adj.items():
        for other in near:
            assert place in RULES.adj[other], f"{place}-{other} is not symmetric"
    for desert in RULES.deserts:
        assert all(n in RULES.provinces for n in RULES.adj[desert])
    # Sicily is part of Italia: its names are Italia's, and it crosses to Africa
    assert RULES.names["sicily"] == RULES.names["sicilia"] == "italia"
    assert frozenset(("italia", "africa")) in RULES.water
    # every province can be reached from every other
    seen, todo = {"judaea"}, ["judaea"]
    while todo:
        for n in RULES.padj[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(RULES.provinces)


def test_the_starting_provinces_are_the_texts():
    assert RULES.start == {
        "jupiter": ["italia", "graecia"], "odin": ["germania", "scandinavia"],
        "lugus": ["gallia", "aquitania"], "jehovah": ["judaea"],
    }


def test_the_deck_has_90_cards_of_every_kind_and_one_schism():
    kinds = [c["kind"] for c in RULES.cards.values()]
    assert len(kinds) == 90
    assert kinds.count("schism") == 1
    assert set(kinds) == {"act-of-god", "conversion", "temple", "saint", "martyr", "heretic", "donative",
                          "pillage", "miracle", "schism", "impiety"}
    for kind in ("conversion", "temple", "donative", "pillage", "miracle", "impiety"):
        assert all(c["value"] for c in RULES.cards.values() if c["kind"] == kind)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["deck"].__setitem__("act-of-god", 9), "the deck has 90 god cards, not 89"),
    (lambda d: d["deck"].__setitem__("schism", 2), "the deck has 90 god cards"),
    (lambda d: d["borders"]["water"].pop(), "4 water crossings, not 3"),
    (lambda d: d["provinces"].pop(), "15 distinct provinces"),
    (lambda d: d["gods"][0]["start"].append("judaea"), "two gods start in the same province"),
    (lambda d: d["borders"]["land"].append(["italia", "atlantis"]), "unknown province"),
    (lambda d: d["pieces"].pop("heretics"), "lacks 'heretics'"),
])
def test_bad_data_is_refused_with_a_clear_message(change, message):
    data = copy.deepcopy(load_data("yegods"))
    change(data)
    with pytest.raises(DataError, match=message):
        type(RULES)(data)


# --- set-up ----------------------------------------------------------------------------------

def test_setup_one_worshipper_in_each_starting_province_and_priests_placed_sealed():
    state, events = engine.start(RULES, ["alice", "bob", "carol", "dave"], {}, "s1")
    g = state["game"]
    assert g["god_of"] == {"alice": "jupiter", "bob": "odin", "carol": "lugus", "dave": "jehovah"}
    assert g["unknown"] is None
    for god, provinces in RULES.start.items():
        for p in provinces:
            assert g["board"][p] == {god: 1}
            assert g["owner"][p] == god
    assert g["supply"]["worshippers"] == 400 - 7
    # Jehovah has one starting province: its priest is placed; the others choose, all at once
    assert g["priests"]["jehovah"] == {"judaea": 1}
    assert state["flow"]["phase"] == "setup" and state["flow"]["sealed"]
    assert sorted(engine.active_players(RULES, state)) == ["alice", "bob", "carol"]
    assert [o.text for o in RULES.legal_orders(state, "alice")] == ["priest italia", "priest graecia"]
    res = resolve(state, {"alice": ["priest graecia"], "bob": ["priest scand"], "carol": ["priest aquit"]})
    assert res.state["game"]["priests"]["jupiter"] == {"graecia": 1}
    assert res.state["game"]["priests"]["odin"] == {"scandinavia": 1}
    assert res.state["flow"]["phase"] == "turn" and res.state["game"]["round"] == 1
    first = res.state["game"]["order"][0]
    assert engine.active_players(RULES, res.state) == [res.state["game"]["player_of"][first]]


def test_the_unknown_gods_priest_is_placed_by_its_first_controller():
    state, _ = engine.start(RULES, ["jupiter", "odin"], {}, "s2")
    g = state["game"]
    assert g["unknown"] == "lugus"
    last = g["player_of"][g["order"][-1]]
    assert g["place"][last] == [g["god_of"][last], "lugus"]
    prompt = next(r.prompt for r in RULES.requests(state) if r.player == last)
    assert "Lugus (the Unknown God)" in prompt
    other = next(p for p in g["players"] if p != last)
    assert "Unknown" not in next(r.prompt for r in RULES.requests(state) if r.player == other)


def test_turn_order_rolloff_rerolls_ties_among_the_tied_only():
    rng = ScriptedRng(dice=[5, 3, 5, 1, 2, 6, 6, 4], randoms=[])
    state, events = RULES.setup(["alice", "bob", "carol", "dave"], {}, rng)
    rolls = [e for e in events if e["type"] == "rolloff"]
    assert rolls[0]["rolls"] == {"jupiter": 5, "odin": 3, "lugus": 5, "jehovah": 1}
    assert rolls[1] == {"type": "rolloff", "attempt": 2, "rolls": {"jupiter": 2, "lugus": 6}}
    assert state["game"]["order"] == ["lugus", "jupiter", "odin", "jehovah"]
    assert rng.script_dice == [6, 4]   # nobody else rolled again
    # a tie in the re-roll is rolled once more
    rng = ScriptedRng(dice=[4, 4, 3, 3, 6, 2], randoms=[])
    state, events = RULES.setup(["a", "b"], {}, rng)
    assert [e["attempt"] for e in events if e["type"] == "rolloff"] == [1, 2, 3]
    assert state["game"]["order"] == ["jupiter", "odin"]


def test_options_choose_gods_and_the_unknown_god_by_any_of_their_names():
    state, _ = engine.start(RULES, ["ann", "ben"], {"gods": "lugh,yahweh", "unknown": "odin"}, "o")
    g = state["game"]
    assert g["god_of"] == {"ann": "lugus", "ben": "jehovah"} and g["unknown"] == "odin"
    state, _ = engine.start(RULES, ["yahweh", "odin", "lughus"], {}, "o")   # players named after gods
    assert state["game"]["god_of"] == {"yahweh": "jehovah", "odin": "odin", "lughus": "lugus"}
    assert state["game"]["unknown"] == "jupiter"
    state, _ = engine.start(RULES, ["a", "b", "c"], {"unknown": "none"}, "o")
    assert state["game"]["unknown"] is None and state["game"]["gods"] == ["jupiter", "odin", "lugus"]
    for players, options, message in [
        (["a", "b"], {"unknown": "none"}, "always has the Unknown God"),
        (["a", "b"], {"gods": "odin,odin"}, "2 different gods"),
        (["a", "b"], {"gods": "odin,zeus"}, "2 different gods"),
        (["a", "b"], {"unknown": "odin"}, "an unused god"),
        (["a", "b", "c", "d"], {"unknown": "odin"}, "no Unknown God"),
        (["a", "b"], {"colour": "red"}, "unknown option"),
    ]:
        with pytest.raises(DataError, match=message):
            engine.start(RULES, players, options, "o")


# --- the Unknown God -------------------------------------------------------------------------

def unknown_controllers(players, rounds: int, seed: str) -> tuple[list[str], dict]:
    """Play `rounds` rounds with every player sending nothing (defaults); return who was asked
    for each Unknown God phase, checking each is a separate request of its own."""
    state = started(players, seed=seed)
    controllers = []
    while state["game"]["round"] <= rounds and not state["flow"]["over"]:
        reqs = RULES.requests(state)
        assert len(reqs) == 1
        req = reqs[0]
        g = state["game"]
        if req.phase == "unknown":
            assert g["turn"]["god"] == g["unknown"]
            assert "you order for the Unknown God" in req.prompt and RULES.god_title[g["unknown"]] in req.prompt
            controllers.append(req.player)
        else:
            assert g["turn"]["god"] == g["god_of"][req.player]
            assert "your turn as" in req.prompt
        state = resolve(state, {req.player: []}, seed).state  # an empty order set: defaults
    return controllers, state


def test_two_players_take_turns_at_the_unknown_god_last_mover_first():
    controllers, state = unknown_controllers(("jupiter", "odin"), 4, "u2")
    first, second = [state["game"]["player_of"][god] for god in state["game"]["order"]]
    assert controllers[:4] == [second, first, second, first]


def test_three_players_play_the_unknown_god_in_reverse_order_of_play():
    controllers, state = unknown_controllers(("alice", "bob", "carol"), 4, "u3")
    a, b, c = [state["game"]["player_of"][god] for god in state["game"]["order"]]
    assert controllers[:4] == [c, b, a, c]


def test_the_unknown_gods_turn_is_its_own_phase_even_after_its_controllers_turn():
    state = started(("jupiter", "odin"), seed="sep")
    g = state["game"]
    last = g["player_of"][g["order"][-1]]   # plays its own god, then (round 1) the Unknown God
    for _ in range(2):
        req = RULES.requests(state)[0]
        state = resolve(state, {req.player: ["done", "done", "done"]}, "sep").state
    req = RULES.requests(state)[0]
    assert (req.player, req.phase) == (last, "unknown")   # the extra `end` lines did not play it
    assert state["game"]["turn"]["god"] == "lugus"


# --- orders ------------------------------------------------------------------------------------

def a_turn(god_player: str = "jupiter", options: dict | None = None, **game) -> dict:
    """Jupiter's (or another's) turn in a 2-player game, the position given."""
    state = started(("jupiter", "odin"), options=options, seed="pos")
    g = state["game"]
    g.update(game)
    god = g["god_of"][god_player]
    g["turn"] = {**RULES._fresh_turn(god, god_player), "opened": True}
    g["queue"] = []
    state["flow"].update(phase="turn", active=[god_player])
    return state


def test_god_aliases_work_in_orders():
    state = a_turn(board={"gallia": {"lugus": 5}, "judaea": {"jupiter": 2}, "italia": {"jupiter": 3}},
                   owner={**started()["game"]["owner"], "italia": "jupiter"},
                   priests={"jupiter": {"gallia": 1}, "odin": {}, "lugus": {}},
                   hands={"jupiter": [15, 1], "odin": [], "lugus": []})
    acks = engine.check_script(RULES, state, "jupiter", script(
        "play conversion 3 lugh gallia", "play act-of-god lughus gallia", "play act lugus gallia"))
    assert [a.status for a in acks] == ["accepted", "accepted", "rejected"]
    assert acks[0].order == "play conversion 3 lugus gallia"
    assert "holds no Act of God card" in acks[2].reason
    # Yahweh is Jehovah: a Martyr card naming him by either name
    state = a_turn(options={"unknown": "yahweh"}, board={"italia": {"jupiter": 3}},
                   owner={**started()["game"]["owner"], "italia": "jupiter"},
                   priests={"jupiter": {}, "odin": {"germania": 1}, "jehovah": {}})
    state["game"]["turn"]["pending"] = 43
    for typed in ("martyr yahweh priest germania", "martyr jehovah priest germania"):
        acks = engine.check_script(RULES, state, "jupiter", script(typed))
        assert acks[0].status == "rejected" and "Jehovah has no priest in Germania" in acks[0].reason
    state["game"]["priests"]["jehovah"] = {"judaea": 1}
    acks = engine.check_script(RULES, state, "jupiter", script("martyr yahweh priest judaea"))
    assert acks[0].status == "accepted" and acks[0].order == "martyr jehovah priest judaea"


def test_bad_orders_get_clear_messages_quoting_the_input():
    state = a_turn(board={"italia": {"jupiter": 4}}, owner={**started()["game"]["owner"], "italia": "jupiter"})
    acks = engine.check_script(RULES, state, "jupiter", script(
        "mvoe 2 italia -> illyricum", "move 2 italia -> atlantis", "move 9 italia -> illyricum", "buy priest"))
    assert "unknown order 'mvoe'" in acks[0].reason and "did you mean 'move'" in acks[0].reason
    assert "'atlantis' is not a province" in acks[1].reason
    assert "at most half of the 4 worshippers in Italia" in acks[2].reason
    assert "a priest costs 5 donatives; Jupiter has 0" in acks[3].reason
    assert all("line" in a.reason and a.status == "rejected" for a in acks)


def test_a_line_after_a_holy_war_is_rejected_when_no_dice_could_make_it_legal():
    owner = {**started()["game"]["owner"], "italia": "jupiter", "illyricum": "odin", "dacia": "odin"}
    state = a_turn(board={"italia": {"jupiter": 4}, "illyricum": {"odin": 3, "jupiter": 1}, "dacia": {"odin": 1}},
                   owner=owner)
    # Jupiter holds no Temple card whatever the dice; and Illyricum keeps its one worshipper of
    # Jupiter whoever wins in it (condition 1 wants 2): the dice cannot save either line
    acks = engine.check_script(RULES, state, "jupiter", script(
        "holywar italia -> illyricum", "play temple 3 italia", "holywar illyricum -> dacia", "buy priest",
        "move 1 italia -> illyricum"))
    assert acks[0].status == "accepted" and not acks[0].reason
    assert acks[1].status == "rejected" and "holds no Temple" in acks[1].reason
    assert acks[2].status == "rejected" and "condition 1" in acks[2].reason
    assert acks[3].status == "rejected" and acks[4].status == "rejected"  # buying and moving come before Holy Wars
    # without a die rolled first, the same illegal line is rejected for the same reason
    acks = engine.check_script(RULES, state, "jupiter", script("play temple 3 italia"))
    assert acks[0].status == "rejected" and "holds no Temple" in acks[0].reason


def test_a_submission_check_cannot_see_other_hands_or_the_deck():
    def position(deck, odin):
        return a_turn(hands={"jupiter": [1], "odin": odin, "lugus": [33]}, deck=deck, discard=[],
                      donatives={"jupiter": 5, "odin": 0, "lugus": 0},
                      board={"italia": {"jupiter": 3}}, owner={**started()["game"]["owner"], "italia": "jupiter"})

    state = position([35], [15, 27])         # the next card is really a Saint
    preview = RULES.preview_state(copy.deepcopy(state), "jupiter")
    pg = preview["game"]
    assert pg["hands"]["jupiter"] == [1]
    assert pg["hands"]["odin"] == [] and pg["hands"]["lugus"] == []
    assert pg["deck"] == [15, 27, 33, 35]
    # the check draws from every card Jupiter cannot locate: its answer is the same whichever
    # card is really next, so the acknowledgement reveals nothing
    lines = script("buy card", "saint italia", "play conversion 3 odin italia")
    acks = [engine.check_script(RULES, position(deck, odin), "jupiter", lines)
            for deck, odin in [([35], [15, 27]), ([27], [15, 35]), ([15], [35, 27])]]
    assert acks[0] == acks[1] == acks[2]
    assert acks[0][0].status == "accepted"
    assert "depends on earlier dice or hidden cards" in acks[0][1].reason   # a Saint only if the card drawn is one
    assert acks[0][2].status == "rejected"  # Odin has no worshippers in Italia to convert, whatever is drawn
    res = resolve(state, {"jupiter": ["buy card", "saint italia"]})
    assert any(e["type"] == "saint" and e["at"] == "italia" for e in res.events)


def test_a_pending_card_choice_is_made_by_default_for_a_silent_player():
    state = a_turn(deck=[81], discard=[], board={"italia": {"jupiter": 2}, "graecia": {"jupiter": 5}},
                   owner={**started()["game"]["owner"]})
    state["game"]["turn"]["opened"] = False
    events = engine.settle(RULES, state, ScriptedRng([], []))
    assert state["game"]["turn"]["pending"] == 81
    assert any(e["type"] == "draw" and e["card"] == 81 and "to" not in e for e in events)
    res = resolve(state, {"jupiter": None})   # NMR
    assert res.nmr == ["jupiter"]
    assert res.defaulted["jupiter"][0] == "miracle graecia"   # where Jupiter has most
    assert res.state["game"]["board"]["graecia"]["jupiter"] == 10


def test_every_verb_is_documented_and_in_the_grammar():
    doc = (games_dir() / "yegods" / "ORDERS.md").read_text()
    for verb, (pattern, help_text) in RULES.grammar.verbs.items():
        assert f"`{verb}" in doc, f"ORDERS.md does not document `{verb}`"
        assert help_text


def test_a_card_to_answer_says_how():
    state = a_turn(board={"italia": {"jupiter": 3}}, owner={**started()["game"]["owner"], "italia": "jupiter"})
    state["game"]["turn"]["pending"] = 89   # Impiety 3
    state["game"]["priests"]["jupiter"] = {"italia": 1}
    acks = engine.check_script(RULES, state, "jupiter", script("done"))
    assert "you drew Impiety 3, which must be played at once" in acks[0].reason
    assert "`impiety priest PROVINCE [worshippers PROVINCE]`" in acks[0].reason


# --- the scenario suite covers the rules -----------------------------------------------------

REQUIRED = {
    # every Holy War clause, the conditions and both exceptions
    "holywar-1-", "holywar-2-", "holywar-3-", "holywar-4-high", "holywar-4-natural-2", "holywar-4-natural-12",
    "holywar-4-both-natural-12", "holywar-4-both-natural-2", "holywar-5-tie", "holywar-5-losses-in-any",
    "holywar-6-loser",
    "holywar-6-attacker-chooses", "holywar-6-losses-capped", "holywar-8-", "holywar-9-", "holywar-10-",
    "holywar-a1-", "holywar-a2-", "holywar-b-one-attack", "holywar-b-attack-only-adjacent", "holywar-c-",
    "holywar-d-", "holywar-source-need-not-be-owned",
    # every card kind
    "card-act-of-god", "card-conversion", "card-temple", "card-saint", "card-martyr", "card-heretic",
    "card-donative", "card-pillage", "card-miracle", "card-schism", "card-impiety", "card-buy",
    # every housekeeping step, the wins and passing into myth
    "round-end-heretics", "round-end-ownership-and-donatives", "round-end-donatives-run-out",
    "win-ten-provinces", "win-only-god-owning", "win-not-for-the-unknown-god", "myth-zero", "myth-last",
    # every movement restriction, and the steps
    "move-half", "move-last-worshipper", "move-not-into-another", "move-once-per-turn",
    "move-starting-total", "move-priests-and-saints", "move-water", "step-order",
    # adding worshippers, priests and the Vision
    "add-priests-and-saints", "add-pool-runs-out", "buy-priest", "buy-priest-limits", "vision-after-five",
    "vision-counts", "vision-once",
}


def test_the_scenario_suite_walks_every_rule():
    names = [p.name for p in Path(SCENARIOS).glob("*.toml")]
    missing = [r for r in sorted(REQUIRED) if not any(n.startswith(r) for n in names)]
    assert not missing, f"no scenario for: {missing}"
