"""Deity's scenario suite (games/deity/scenarios/*.toml; tests/test_gods_scenarios.py runs
every scenario file): here, that the suite covers the rules the issue names, and that every
scenario's final position is one a real game could hold."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbem.core import scenario
from pbem.core.registry import games_dir, load_data

DATA = load_data("deity")
FILES = sorted((games_dir() / "deity" / "scenarios").glob("*.toml"))
TMAX = {t["id"]: t["max"] for t in DATA["terrain"]}


def _text() -> str:
    return "\n".join(p.read_text() for p in FILES)


def test_the_suite_covers_every_card_and_rule():
    names = {p.stem for p in FILES}
    text = _text()
    for card in DATA["cards"]:
        spelled = card["id"].replace("_", " ")
        assert f'"{card["id"]}"' in text or f"play {spelled}" in text or f"play {spelled.split()[0]}" in text, \
            f"no scenario plays {card['name']}"
    for result in ("defenders", "attackers", "retreat"):
        assert f'result = "{result}"' in text, f"no battle ends with result {result}"
    for needed in ("temple-build-limits", "raise-armies-up-to-half", "growth-terrain-maximums", "battle-mountain-defence",
                   "movement-one-hex", "setup-six-space-rule", "world-random-valid", "world-manual-placing",
                   "world-river-keeps-a-water-side", "reaction-abjure-on-my-hexes", "reaction-resurrection-standing-order",
                   "draw-one-plus-temples-hand-seven", "victory-last-one-standing", "victory-round-limit",
                   "victory-no-round-limit-by-default", "victory-monsters-keep-a-god-in",
                   "movement-into-a-blight-gone-this-turn", "movement-into-a-blight-that-stays",
                   "card-monsters-on-a-hex-cleared-by-the-blight-roll"):
        assert needed in names
    for terrain, top in TMAX.items():  # each terrain maximum is reached in the growth scenario
        growth = (games_dir() / "deity" / "scenarios" / "growth-terrain-maximums.toml").read_text()
        assert f'terrain = "{terrain}", owner = "red", pop = {top - 1}' in growth, terrain


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_positions_stay_possible(path: Path):
    data = tomllib.loads(path.read_text())
    assert data.get("rule"), f"{path.name}: say which rule it checks"
    for out in scenario.run(path):
        g = out.state["game"]
        land = g["land"]
        for k, c in land.items():
            n = c["pop"] + c["armies"] + c["monsters"] + (1 if c["temple"] else 0)
            assert n <= TMAX[c["terrain"]], f"{path.name}: {k} over its maximum"
            assert (n == 0) == (c["owner"] is None), f"{path.name}: owner of {k}"
            assert not (c["blight"] and n), f"{path.name}: counters in a blighted hex"
            if c["temple"]:
                assert c["terrain"] != "swamp"
                q, r = map(int, k.split(","))
                for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
                    nb = f"{q + dq},{r + dr}"
                    assert not (nb in land and land[nb]["temple"]), f"{path.name}: temples at {k} and {nb}"
        for p in g["players"]:
            if out.state["flow"]["phase"] == "turn" and g["turn"]["step"] != "discard" and not g["turn"]["pending"]:
                assert len(g["hands"][p]) <= DATA["rules"]["hand_max"], f"{path.name}: {p}'s hand"
