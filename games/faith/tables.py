"""data.toml read once: the constants, the unit table, the beliefs and the world."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.core.errors import DataError

from . import positions
from .world import World, build_world

UNIT_KINDS = ("knight", "militia", "fortification", "hero", "prophet", "high_priest", "apostle")
RAISABLE = ("apostle", "militia", "knight", "hero", "fortification")


@dataclass
class Tables:
    data: dict
    world: World
    units: dict
    beliefs: dict          # id -> {"name", "colour"}
    belief_ids: list

    @classmethod
    def from_data(cls, data: dict) -> Tables:
        for need in ("game", "levels", "caps", "technology", "units", "population", "battle", "divine", "map", "beliefs", "display"):
            if need not in data:
                raise DataError(f"faith data.toml: no [{need}]")
        units = data["units"]
        if set(units) != set(UNIT_KINDS):
            raise DataError(f"faith data.toml: [units] must list {', '.join(UNIT_KINDS)}")
        beliefs = {b["id"]: {"name": b["name"], "colour": b["colour"]} for b in data["beliefs"]}
        if len(beliefs) != 14 or len(beliefs) != len(data["beliefs"]):
            raise DataError("faith data.toml: the text names 14 beliefs, each once")
        return cls(data, build_world(data), units, beliefs, [b["id"] for b in data["beliefs"]])

    # --- the technology track (CHOICE 26) --------------------------------------------------
    def tech(self, name: str) -> int:
        return self.data["technology"][name]


def level(g: dict, owner: str) -> int:
    """A belief's level: its position's (a covenant is "considered the level of the lowest
    merged", L360)."""
    if owner not in g["beliefs"]:
        return 1
    return positions.level(g, positions.lead(g, owner))


def cap(tab: Tables, g: dict, owner: str) -> int:
    """CHOICE 18/20: 3, or 5 from Agriculture (era 5) for levels 2-3 and the infidels."""
    if g["era"] >= tab.tech("agriculture") and (owner == "infidel" or level(g, owner) >= 2):
        return tab.data["caps"]["agriculture"]
    return tab.data["caps"]["base"]


def seaway_open(tab: Tables, g: dict, owner: str) -> bool:
    return owner != "infidel" and g["era"] >= tab.tech("maritime") and level(g, owner) >= 2


def move_factor(tab: Tables, g: dict, owner: str) -> int:
    return 2 if owner != "infidel" and g["era"] >= tab.tech("transport") and level(g, owner) >= 2 else 1


def modern_arms(tab: Tables, g: dict, owner: str) -> bool:
    return owner != "infidel" and g["era"] >= tab.tech("modern_arms") and level(g, owner) >= 2
