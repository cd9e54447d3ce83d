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


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_scenario_quotes_its_rule_and_runs(path: Path):
    data = tomllib.loads(path.read_text())
    assert data.get("rule"), f"{path.name}: say which rule it checks"
    outs = scenario.run(path)
    g = outs[0].state["game"]
    for hid, h in g["hexes"].items():
        assert sum(p + u for p, u in h["pop"].values()) <= 5, f"{path.name}: {hid} over any cap"
