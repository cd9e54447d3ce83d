"""Faith: the acknowledgement a player reads gives each refusal its true reason and the rule's
section (leftovers of the last stop): `convert`, `pogrom`, `slaughter`, `yield`, `assassinate`
and the Phase 6 interventions said only "not legal now"; a god in limbo was told "(it is not
your turn; ...)" after the limbo reason."""

from __future__ import annotations

import pytest

from pbem import host
from pbem.core import engine, scenario
from pbem.core.registry import get_rules
from pbem.core.rng import phase_rng
from pbem.host import read, schedule
from pbem.host.store import dumps, loads

RULES = get_rules("faith")
PLAYERS = ["ann:ann@example.org", "bob:bob@example.org", "cat:cat@example.org"]


def scenario_state(name: str) -> dict:
    """The position of a scenario file, settled (as the scenario runner lays it)."""
    sc = scenario.load(scenario.games_dir() / "faith" / "scenarios" / f"{name}.toml")
    runner = scenario._Runner(sc, sc.seeds[0])
    state, _ = engine.start(RULES, sc.players, {}, runner.seed)
    runner.position(state)
    engine.settle(RULES, state, phase_rng(runner.seed, state["flow"]["number"]))
    return state


def game_at(db, turns, name: str, players: int = 2, change=None) -> None:
    """A game f1 whose open turn holds the position of scenario `name` (`change`d, if given)."""
    host.new_game(db, "faith", "f1", PLAYERS[:players], seed="7", sched=schedule.make_schedule("72h", None, None),
                  turns=turns)
    state = scenario_state(name)
    if change:
        change(state["game"])
    number = read.game(db, "f1")["phase"]
    state["flow"]["number"] = number
    db["phases"].update(("f1", number), {"state": dumps(state), "state_hash": engine.state_hash(state),
                                         "active": dumps(state["flow"]["active"])})


def ack_lines(db, player: str, *lines: str) -> list[str]:
    ack = host.submit(db, "f1", player, "\n".join(lines).encode(), trusted=True)
    return [ln for ln in ack.text.splitlines() if ln.startswith("line ")]


@pytest.mark.parametrize("order, reason, rule", [
    ("convert 23 apostle hero egyptian", "an apostle converts only population (pop), a knight or a militia",
     "6. Phase 5 Action Phase, 3) Conversions: A High Priest or a Hero"),
    ("convert 34 prophet prophet egyptian", "a Prophet never converts another Prophet", "(EXCEPT another Prophet)"),
    ("convert 24 apostle pop egyptian", "you have no apostle at 24 to convert with", "must be in the same hex"),
    ("convert 23 knight pop egyptian", "a knight does not convert", "3) Conversions"),
    ("convert 23 high_priest pop israelites", "the israelites are of your own position", "from another belief"),
    ("convert 23 hp militia egyptian", "there is no egyptian militia at 23 to convert", "must be in the same hex"),
])
def test_a_conversion_refused_says_which_condition_of_the_text_fails(db, turns, order, reason, rule):
    game_at(db, turns, "independent-conversion-who-converts-what")
    [line] = ack_lines(db, "ann", order)
    assert "REJECTED" in line and f"'{order}': {reason}" in line and rule in line.rsplit("[", 1)[1], line
    assert "not legal now" not in line


def test_each_converter_once_an_era_and_each_pogrom_once_are_said_so(db, turns):
    game_at(db, turns, "independent-conversion-who-converts-what")
    lines = ack_lines(db, "ann", "convert 23 apostle knight egyptian", "convert 23 apostle pop egyptian")
    assert "your apostle at 23 has converted this era: each special unit converts once per Era" in lines[1]
    assert lines[1].endswith("[6. Phase 5 Action Phase, 3) Conversions: Each special unit can do this once per Era]")


def test_a_pogrom_refused_says_why(db, turns):
    game_at(db, turns, "independent-pogrom-needs-three-pacified")
    lines = ack_lines(db, "ann", "pogrom 23 apostle egyptian", "pogrom 24 knight egyptian", "pogrom 24 apostle egyptian",
                      "pogrom 24 pop israelites")
    assert "a pogrom needs 3 pacified (working) population chips of one belief in the hex; at 23 yours are 2 " \
           "pacified and 1 in unrest" in lines[0] and "3 stacked pacified/working faith" in lines[0]
    assert "a pogrom kills population (pop), a prophet or an apostle" in lines[1]
    assert "there is no egyptian apostle at 24 for a pogrom" in lines[2]
    assert "the israelites are of your own position: a pogrom strikes another belief" in lines[3]
    assert not any("not legal now" in ln for ln in lines)


def test_a_yield_refused_says_why(db, turns):
    game_at(db, turns, "duel-one-owner-yields-and-her-hero-dies", players=3)
    for p in ("ann", "bob", "cat"):
        host.submit(db, "f1", p, b"none", trusted=True)
    host.resolve(db, ["f1"], turns=turns)
    assert loads(read.phase(db, "f1", read.game(db, "f1")["phase"])["state"])["flow"]["phase"] == "duel"
    lines = ack_lines(db, "ann", "yield 25", "yield 23", "yield 23")
    assert "'yield 25': there is no duel of heroes at 25 (the duels are at 23)" in lines[0]
    assert "[4. e. 2. Special Units: Hero/Generals]" in lines[0]
    assert "'yield 23': you have yielded at 23 already" in lines[2] and "negotiate which dies" in lines[2]
    [cat] = ack_lines(db, "cat", "yield 23")
    assert "you have no hero in the duel at 23: only the owners of the duelling heroes yield" in cat


def test_a_god_in_limbo_is_told_the_limbo_reason_alone(db, turns):
    game_at(db, turns, "limbo-no-standing-orders-but-claims")
    lines = ack_lines(db, "bob", "retreat 23 -> 13", "convert 23 apostle pop israelites", "pogrom 23 pop israelites",
                      "yield 23", "accept claims")
    for line in lines[:4]:
        assert "your belief is in limbo: it can do nothing this era [6. Phase 6 Divine Power Phase: Direct attack, " \
               "limbo]" in line, line
        assert "not your turn" not in line and "awaiting" not in line and "not legal now" not in line
    assert "accepted" in lines[4]


def test_an_assassination_refused_says_why(db, turns):
    game_at(db, turns, "independent-assassination-not-after-conversion")
    lines = ack_lines(db, "ann", "convert 23 apostle pop egyptian", "assassinate 23 hero egyptian",
                      "assassinate 24 hero egyptian")
    assert "your apostle at 23 converted this era: an apostle used for a Conversion cannot assassinate in the same " \
           "Era [6. Phase 5 Action Phase, 4. Battle: An apostle that already was used for a Conversion" in lines[1]
    assert "you have no apostle at 24 to assassinate with [6. Phase 5 Action Phase, 4. Battle: Assassination" in lines[2]


def test_an_intervention_refused_says_why(db, turns):
    def poorer(g):
        g["hands"]["ann"] = {"israelites": 12}
    game_at(db, turns, "independent-levelup-costs-20-not-above-3", change=poorer)
    [bob] = ack_lines(db, "bob", "levelup")
    assert "'levelup': your belief is at level 3, the highest level (CHOICE 63) [4. c. The Map/Gameboard: Level " \
           "indicator, from 1-3; CHOICE 63]" in bob
    for order, reason, rule in [
        ("levelup", "Renaissance Level Up costs 20 faith from your hand; it holds 12", "the cost of each Intervention"),
        ("plague 23", "Plague costs 20 faith from your hand; it holds 12", "the cost of each Intervention"),
        ("smite 23 pop egyptian", "there is no egyptian population at 23 for the Lightning Bolt to strike",
         "Lightning Bolt/Smite"),
    ]:
        [line] = ack_lines(db, "ann", order)
        assert f"'{order}': {reason}" in line and rule in line.rsplit("[", 1)[1], line
        assert "not legal now" not in line
    for order, reason, rule in [   # bob can pay for them
        ("plague 66", "there is nothing at 66 for the Plague to destroy", "Plague (destroys all counters"),
        ("abundance 23", "23 is green already: Abundance turns a brown or standard hex green", "Abundance (turns it"),
    ]:
        [line] = ack_lines(db, "bob", order)
        assert f"'{order}': {reason}" in line and rule in line.rsplit("[", 1)[1], line
        assert "not legal now" not in line


def test_a_flip_refused_says_why(db, turns):
    game_at(db, turns, "powerup-level-one-three-a-flip-and-free-flips")
    lines = ack_lines(db, "ann", "flip 4 24", "flip free", "flip free", "flip 3 24", "flip 1 24", "flip 1 25", "flip 0 24")
    assert "'flip 4 24': you have 3 pacified chips at 24 to flip: `flip 3 24` flips them all" in lines[0]
    assert lines[0].endswith("[6. Phase 3 Power-Up (Power Generation) Phase: pacified chips are flipped]")
    assert "accepted" in lines[1]
    assert "'flip free': you have taken your free flips this Power-Up already" in lines[2]
    assert "accepted" in lines[3]
    assert "'flip 1 24': you have no pacified chips at 24 to flip (3 in unrest there, which cannot flip)" in lines[4]
    assert lines[4].endswith("[6. Phase 3 Power-Up (Power Generation) Phase: pacified chips are flipped]")
    assert "'flip 1 25': you have no pacified chips at 25 to flip;" in lines[5] and "[6. Phase 3 Power-Up" in lines[5]
    assert "'flip 0 24': flip at least 1 chip" in lines[6]
    assert not any("not legal now" in ln for ln in lines)


def test_a_line_for_a_belief_the_god_does_not_act_for_or_badly_written_says_why(db, turns):
    game_at(db, turns, "independent-conversion-who-converts-what")
    lines = ack_lines(db, "ann", "convert 23 apostle knight egyptian for israelites",
                      "convert 23 high_priest pop egyptian for egyptian", "convert 23 high_priest pop egyptian c4 x")
    assert "you act for one belief, the israelites: write the line without `for israelites`" in lines[0]
    assert lines[0].endswith("[6. Phase 2 Negotiation Phase: two separate beliefs; CHOICE 110]")
    assert "no belief of yours called 'egyptian' may act now (israelites)" in lines[1]
    assert "the order is written `convert HEX BY TARGET OWNER` (and `for BELIEF` to name the belief)" in lines[2]
    assert lines[2].endswith("[pbem orders]")
    assert not any("not legal now" in ln for ln in lines)


def test_flip_all_is_refused_only_for_its_reason():
    """`flip all [for BELIEF]`: accepted while a chip is pacified; written wrong, told how it is written."""
    state = scenario_state("powerup-level-one-three-a-flip-and-free-flips")
    from pbem.core.orders import read_script
    got = engine.check_script(RULES, state, "ann", read_script("flip all\nflip all all\nflip all for bob"))
    assert got[0].status == "accepted"
    assert "the order is written `flip N HEX`, `flip all` or `flip free`" in got[1].reason
    assert "no belief of yours called 'bob' may act now (israelites)" in got[2].reason
