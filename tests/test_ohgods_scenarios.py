"""Oh Gods! scenarios (games/ohgods/scenarios/*.toml; tests/test_gods_scenarios.py runs every
game's scenario files): the suite covers what the issue asks, and every scenario's position
stays one a real game could reach, so each scenario tests the rules honestly."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pbem.core import scenario
from pbem.core.registry import get_rules, load_data

RULES = get_rules("ohgods")
DATA = load_data("ohgods")
FILES = [p for p in scenario.discover() if p.parent.parent.name == "ohgods"]


def test_the_suite_covers_the_game():
    names = {p.stem for p in FILES}
    for need in [
        "play-god-to-altar-then-draw-to-six", "discard-up-to-two-cards", "steal-a-god", "pass-ends-the-turn-and-is-the-default",
        "form-set-of-a-domain", "form-set-of-a-pantheon-naming-the-gods", "form-set-of-rulers", "form-set-with-immortalized",
        "scoring-example-1-sun", "scoring-example-2-norse", "scoring-every-common-element-and-five-card-bonus",
        "block-any-steal-by-default", "block-never-as-a-standing-order", "block-steals-of-a-god",
        "block-steals-by-a-player", "block-needs-a-block-card", "move-cards-are-not-steals",
        "sanctuary-stops-steals-until-next-turn", "mastery-first-domain-set-takes-the-card",
        "final-round-after-a-fifth-set", "final-round-after-the-last-card",
        "first-player-of-the-first-hand-by-agreement", "first-player-of-a-later-hand-is-the-lowest-scorer",
        "three-hands-and-the-game-total", "ties-share-the-win",
    ]:
        assert need in names, need
    for domain in DATA["domains"]:
        assert any(n.startswith(f"mastery-{domain}-") for n in names), f"no scenario for the Mastery of {domain}"


def _id(path: Path) -> str:
    return path.stem


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_scenario_position_is_consistent(path):
    for out in scenario.run(path):
        g = out.state["game"]
        where = path.name
        places = list(g["deck"]) + list(g["discard"])
        for p in g["players"]:
            places += g["hands"][p] + g["altars"][p] + [c for s in g["sets"][p] for c in s["cards"]]
            places += [g["sanctuary"][p]] if g["sanctuary"][p] else []
        twice = [c for c, n in Counter(places).items() if n > 1]
        assert not twice, f"{where}: in two places: {twice}"
        assert set(places) <= set(RULES.deck_ids), f"{where}: unknown cards"
        for p in g["players"]:
            assert len(g["hands"][p]) <= DATA["rules"]["hand_size"], f"{where}: {p}'s hand"
            assert len(g["sets"][p]) <= DATA["rules"]["max_sets"], f"{where}: {p}'s sets"
            for s in g["sets"][p]:
                pools = dict(RULES.set_pools(s["cards"]))
                assert s["element"] in pools and len(pools[s["element"]]) == len(s["cards"]), \
                    f"{where}: {p}'s set {s} is not a set of {s['element']}"
        for domain, holder in g["mastery"].items():
            if holder:
                assert any(s["element"] == domain for s in g["sets"][holder]), \
                    f"{where}: {holder} holds the Mastery of {domain} without a {domain} set"
        assert sum(len(h["scores"]) > 0 for h in g["history"]) == len(g["history"])
