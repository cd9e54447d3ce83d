"""Scenario tests: every games/*/scenarios/*.toml is run through the real engine by
pbem.core.scenario (format: docs/scenarios.md); plus tests that the runner itself catches wrong
expectations and says clearly what went wrong."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path

import pytest

from pbem.core import scenario
from pbem.core.registry import get_rules, load_data
from pbem.core.scenario import ScenarioError, ScenarioFailure, ScriptedRng

FILES = scenario.discover()
GODS = [p for p in FILES if p.parent.parent.name == "gods"]


def _id(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.stem}"


def test_the_gods_suite_is_there():
    assert len(GODS) >= 35


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_scenario(path):
    outcomes = scenario.run(path)
    assert outcomes and all(o.state for o in outcomes)


# --- GODS: every scenario's position stays a possible one ----------------------------------

@pytest.mark.parametrize("path", GODS, ids=_id)
def test_gods_scenario_position_is_consistent(path):
    """A scenario's position is written by hand; these checks keep it one a real game could
    reach (nothing created from nothing), so each scenario tests the rules honestly."""
    data = load_data("gods")
    comp = data["components"]
    for out in scenario.run(path):
        g = out.state["game"]
        where = f"{path.name} [seed {out.seed}]"
        assert sum(g["crystals"].values()) + g["stock"] == comp["crystals"], f"{where}: crystals not conserved"
        assert all(0 <= c <= data["rules"]["crystal_cap"] for c in g["crystals"].values()), where
        assert set(g["temples_left"]) == set(g["players"]), f"{where}: temples of gods not in the game"
        for p in g["players"]:  # each god's own set of 6; the absent colours' sets are out of the game
            assert g["temples_left"][p] >= 0, f"{where}: {p}'s temples"
            assert g["temples_left"][p] + g["temples_built"][p] == comp["temples_per_god"], f"{where}: {p}'s temples"
        claimed = Counter(c["god"] for c in g["board"].values() if c["kind"] == "tribe" and c["god"])
        on_board = Counter(c["god"] for c in g["board"].values() if c["kind"] == "temple")
        for p in g["players"]:
            assert g["markers"][p] >= 0 and g["markers"][p] + claimed[p] <= data["rules"]["markers_per_god"], f"{where}: {p}'s markers"
            assert on_board[p] <= g["temples_built"][p], f"{where}: {p}'s temples"
        for colour in data["rules"]["tribe_colours"]:
            nations = sum(g["nations"][p].get(colour, 0) for p in g["players"])
            vps = sum(g["vp_cards"][p].get(colour, 0) for p in g["players"])
            assert nations + g["nation_stock"][colour] == comp["nation_cards_per_colour"], f"{where}: {colour} nations"
            assert vps + g["vp_stock"][colour] == comp["vp_cards_per_colour"], f"{where}: {colour} VP cards"
            for p in g["players"]:
                tribes = sum(1 for c in g["board"].values()
                             if c["kind"] == "tribe" and c["god"] == p and c["colour"] == colour)
                assert g["nations"][p].get(colour, 0) <= tribes // data["rules"]["tribes_per_nation"], \
                    f"{where}: {p}'s {colour} nations are not backed by tribes"


def test_game_end_card_is_not_always_in_the_same_place():
    """'...so that no-one knows where it is': over the set-up scenario's seeds the game end
    card takes each of the bottom 3 places."""
    path = next(p for p in GODS if p.stem == "setup-gameend-in-bottom-three-2p")
    places = {out.state["game"]["deck"][::-1].index("gameend") for out in scenario.run(path)}
    assert places == {0, 1, 2}


# --- the runner catches what is wrong -------------------------------------------------------

BASE = """
title = "a test scenario"
game = "gods"
players = ["red", "blue"]

[position]
crystals = { red = 5, blue = 2 }
stock = 43
display = ["tribe:green", "wasteland"]
deck = ["tribe:orange", "extra", "wasteland", "gameend"]
turn = { player = "red", actions_left = 2 }

[position.board]
"0,0" = { kind = "wasteland" }
"""


def write(tmp_path, body: str, base: str = BASE) -> Path:
    path = tmp_path / "scenario.toml"
    path.write_text(textwrap.dedent(base) + textwrap.dedent(body), encoding="utf-8")
    return path


def fails(path, *needles) -> str:
    with pytest.raises(ScenarioFailure) as info:
        scenario.run(path)
    message = str(info.value)
    assert str(path) in message
    for needle in needles:
        assert needle in message, message
    return message


def test_a_correct_scenario_passes(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        orders = ["tribe green 1,0", "discard wasteland"]
        [[step.expect_event]]
        type = "tribe"
        cost = 1
        [expect]
        "game.crystals.red" = 4
        "game.board.1,0" = { kind = "tribe", colour = "green", god = "~" }
    """)
    (out,) = scenario.run(path)
    assert out.state["game"]["board"]["1,0"]["colour"] == "green"


def test_wrong_position_expectation_names_file_step_expected_and_found(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        orders = ["tribe green 1,0", "discard wasteland"]
        [step.expect]
        "game.crystals.red" = 5
    """)
    message = fails(path, "a test scenario", "after step 1 (red)", "game.crystals.red", "expected 5, found 4")
    assert "Traceback" not in message


def test_wrong_final_expectation(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        orders = ["tribe green 1,0", "discard wasteland"]
        [expect]
        "game.board.1,0.god" = "red"
    """)
    fails(path, "after the last step", "game.board.1,0.god", "expected \"red\", found ~ (none)")


def test_missing_event_lists_the_events_that_happened(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        orders = ["tribe green 1,0", "discard wasteland"]
        [[step.expect_event]]
        type = "tribe"
        cost = 2
    """)
    fails(path, "step 1 (red)", 'expected event #1 {"cost": 2, "type": "tribe"} was not found',
          '"cost": 1', '"type": "turn_over"')


def test_unexpected_event_is_reported(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        orders = ["tribe green 1,0", "discard wasteland"]
        [[step.expect_no_event]]
        type = "discard"
    """)
    fails(path, "expected no event like", '"card": "wasteland"')


def test_events_are_matched_in_order(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        orders = ["tribe green 1,0", "discard wasteland"]
        [[step.expect_event]]
        type = "discard"
        [[step.expect_event]]
        type = "tribe"
    """)
    fails(path, "before the previous expected event")


def test_a_rejected_order_must_be_declared(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        orders = ["tribe green 5,5", "discard wasteland"]
    """)
    fails(path, "red's line 1 was rejected at submission", "5,5 does not adjoin any card")


def test_wrong_rejection_reason(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        expect_rejected = [{ order = "tribe green 5,5", reason = "costs too much" }]
    """)
    fails(path, "not for the expected reason", "'costs too much'", "5,5 does not adjoin any card")


def test_a_legal_order_expected_to_be_rejected(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "red"
        expect_rejected = [{ order = "tribe green 1,0", reason = "costs" }]
    """)
    fails(path, "expected 'tribe green 1,0' to be rejected", "accepted")


def test_orders_from_a_player_not_awaited(tmp_path):
    path = write(tmp_path, """
        [[step]]
        player = "blue"
        orders = ["discard green"]
    """)
    fails(path, "blue gives orders, but the engine awaits red")


def test_unknown_keys_and_position_typos_are_scenario_errors(tmp_path):
    with pytest.raises(ScenarioError, match="unknown key"):
        scenario.run(write(tmp_path, "\n[[step]]\nplayer = \"red\"\nordres = [\"pass\"]\n"))
    with pytest.raises(ScenarioError, match=r"position.crystal is not in the game's state"):
        scenario.run(write(tmp_path, "", base=BASE.replace("crystals = {", "crystal = {")))
    with pytest.raises(ScenarioError, match=r"position.crystals.green is not in the game's state"):
        scenario.run(write(tmp_path, "", base=BASE.replace("blue = 2 }", "blue = 2, green = 1 }")))


def test_position_sets_the_active_player(tmp_path):
    path = write(tmp_path, """
        [expect]
        active = ["blue"]
        "flow.active" = ["blue"]
    """, base=BASE.replace('player = "red"', 'player = "blue"'))
    scenario.run(path)


def test_matchers(tmp_path):
    m = scenario.mismatch
    assert m({"contains": "end"}, ["endgame"]) is not None  # arrays: an element, not a substring
    assert m({"contains": "endgame"}, ["endgame"]) is None
    assert m({"contains": "game"}, "endgame") is None
    assert m({"lacks": {"contains": "temple"}}, ["tribe 1,0", "temple 2,0"]) is not None
    assert m({"len": 2}, [1, 2]) is None
    assert m({"min": 3, "max": 5}, 6) is not None
    assert m({"a": 1}, {"a": 1, "b": 2}) is None  # tables: a subset
    assert m({"equals": {"a": 1}}, {"a": 1, "b": 2}) is not None
    assert m({"b": {"absent": True}}, {"a": 1}) is None
    assert m("~", None) is None and m("~", 0) is not None
    assert m(1, True) is not None and m(True, 1) is not None


# --- scripted dice ---------------------------------------------------------------------------

def test_scripted_rng_returns_the_script_and_fails_loudly():
    rng = ScriptedRng(dice=[3, 6], randoms=[1])
    assert rng.dice(2) == [3, 6]
    assert rng.randbelow(4) == 1
    with pytest.raises(ScenarioFailure, match="dice` script is used up"):
        rng.die()
    with pytest.raises(ScenarioFailure, match="randoms` script is used up"):
        rng.choice(["a", "b"])
    with pytest.raises(ScenarioError, match="cannot be rolled on a d6"):
        ScriptedRng(dice=[7]).die(6)
    shuffled = ["a", "b", "c"]
    ScriptedRng(randoms=[0, 0]).shuffle(shuffled)  # Fisher-Yates: swap 2<->0, then 1<->0
    assert shuffled == ["b", "c", "a"]


@pytest.fixture
def dice_on_discard(monkeypatch):
    """GODS has no dice after set-up; make every discard roll a d6 so that the runner's
    scripted dice can be seen going through engine.resolve into the rules."""
    rules = get_rules("gods")
    original = rules.apply

    def apply(state, player, order, rng):
        events = original(state, player, order, rng)
        if order.verb == "discard":
            events.append({"type": "roll", "die": rng.die(6)})
        return events

    monkeypatch.setattr(rules, "apply", apply)


def test_scripted_dice_reach_the_rules(tmp_path, dice_on_discard):
    path = write(tmp_path, base=BASE.replace('game = "gods"', 'game = "gods"\ndice = [4, 2]'), body="""
        [[step]]
        player = "red"
        orders = ["discard green", "discard wasteland"]
        [[step.expect_event]]
        type = "roll"
        die = 4
        [[step.expect_event]]
        type = "roll"
        die = 2
    """)
    scenario.run(path)


def test_dice_script_running_out_fails_loudly(tmp_path, dice_on_discard):
    path = write(tmp_path, base=BASE.replace('game = "gods"', 'game = "gods"\ndice = [4]'), body="""
        [[step]]
        player = "red"
        orders = ["discard green", "discard wasteland"]
    """)
    fails(path, "step 1 (red)", "rolled a d6, but the scenario's `dice` script is used up")


def test_unused_scripted_dice_fail(tmp_path):
    path = write(tmp_path, base=BASE.replace('game = "gods"', 'game = "gods"\ndice = [5]'), body="""
        [[step]]
        player = "red"
        orders = ["discard green", "discard wasteland"]
    """)
    fails(path, "scripted draws were never used: dice [5]")


def test_main_reports_pass_and_fail(tmp_path, capsys):
    good = write(tmp_path, "")
    bad = tmp_path / "bad.toml"
    bad.write_text(textwrap.dedent(BASE) + '\n[expect]\n"game.stock" = 1\n', encoding="utf-8")
    assert scenario.main([str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert "ok    " in out and "FAIL  " in out and "1 passed, 1 failed" in out


def test_the_documented_example_runs(tmp_path):
    doc = (Path(__file__).resolve().parent.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "example.toml"
    path.write_text(example, encoding="utf-8")
    (out,) = scenario.run(path)
    assert out.state["game"]["nations"]["blue"] == {"green": 1}


def test_an_unknown_expectation_root_is_a_scenario_error(tmp_path):
    path = write(tmp_path, '\n[expect]\n"crystals.red" = 5\n')
    with pytest.raises(ScenarioError, match=r"(?s)scenario.toml.*after the last step.*must start with one of: game, flow"):
        scenario.run(path)
