"""Faith's scenario suite (games/faith/scenarios/*.toml; tests/test_gods_scenarios.py runs every
scenario file through the engine): here, that the suite covers the clauses of part 1 the
spec's section 8 names, and that each says which rule it checks."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbem.core import scenario
from pbem.core.registry import games_dir

FILES = sorted((games_dir() / "faith" / "scenarios").glob("*.toml"))


def test_the_suite_covers_the_risky_clauses():
    names = {p.stem for p in FILES}
    for needed in ("battle-double-or-more-eliminates-the-defenders", "battle-less-than-half-eliminates-the-attackers",
                   "battle-defenders-retreat-bystanders-too", "reproduction-five-working-make-two",
                   "cap-mixed-hex-level-one-stays-at-three", "powerup-level-one-three-a-flip-and-free-flips",
                   "move-stops-seaway-and-full-hexes", "martyrdom-prophet-struck-by-lightning",
                   "assassination-a-one-fails", "slaughter-and-pogrom-put-the-hex-in-unrest",
                   "renaissance-level-one-loses-everything", "claim-below-200-kills-the-belief", "claim-of-200-wins",
                   "end-after-era-30-largest-population-wins", "modern-arms-doubles-attack-from-era-20"):
        assert needed in names, needed


def test_the_suite_covers_the_contests_of_the_gods():
    """Issue 16: each contest's win, loss and tie; both parties dropping a Judgement; limbo in
    and out; a duel settled by a yield and one by dice and wagers; a contested claim at 199 and
    200; every god accepting a claim."""
    names = {p.stem for p in FILES}
    for needed in ("contest-direct-attack-twice-the-defence-destroys", "contest-direct-attack-more-sends-the-defender-to-limbo",
                   "contest-direct-attack-defender-higher-sends-the-attacker-to-limbo",
                   "contest-direct-attack-a-tie-returns-every-wager", "judgement-accuser-more-sends-the-accused-to-limbo",
                   "judgement-accused-more-keeps-her-wagers", "judgement-equal-the-accuser-takes-every-wager",
                   "judgement-both-drop-ends-it", "limbo-a-sentence-runs-one-era-then-ends",
                   "limbo-a-new-sentence-adds-an-era-and-limbo-defends", "duel-one-owner-yields-and-her-hero-dies",
                   "duel-dice-plus-wagers-and-a-tie-rolls-again", "victory-a-contested-claim-of-199-dies",
                   "victory-a-contested-claim-of-200-wins", "victory-every-other-god-accepts-the-claim",
                   "victory-a-god-in-limbo-may-claim"):
        assert needed in names, needed


def test_the_suite_covers_who_is_asked_for_the_initiative_bid():
    """Tester finding 08, CHOICE 201: a god with an empty hand and nothing to flip is asked
    (her base income pays her bid, or faith she takes from the board); a god in limbo is not,
    and is told why her bid is refused."""
    names = {p.stem for p in FILES}
    for needed in ("bid-an-empty-hand-is-asked-its-base-income-bids", "bid-an-empty-hand-takes-faith-from-the-board-to-bid",
                   "bid-a-god-in-limbo-is-told-why-she-may-not-bid"):
        assert needed in names, needed


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_scenario_quotes_its_rule_and_runs(path: Path):
    data = tomllib.loads(path.read_text())
    assert data.get("rule"), f"{path.name}: say which rule it checks"
    outs = scenario.run(path)
    g = outs[0].state["game"]
    for hid, h in g["hexes"].items():
        assert sum(p + u for p, u in h["pop"].values()) <= 5, f"{path.name}: {hid} over any cap"
