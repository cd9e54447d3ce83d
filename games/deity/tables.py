"""Deity's tables: data.toml checked (`validate`) and indexed (`Tables`), and the turn
sequence of the rules text (`STEPS`: the sub-phases of a player's turn, their names, the step
each kind of order belongs to)."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.core.errors import DataError

STEPS = ("discard", "temple", "raise", "miracle", "battle", "battle_end", "movement")
STEP_NAMES = {
    "discard": "Draw (discard down to the hand limit)",
    "temple": "Build Temple",
    "raise": "Raise Armies",
    "miracle": "Miracle",
    "battle": "Battle",
    "battle_end": "end of the Battle phase (Resurrection)",
    "movement": "Movement",
}
# The step an order belongs to (the verb, or the card for `play`).
KIND_STEP = {"temple": "temple", "raise": "raise", "disband": "raise", "play": "miracle",
             "resurrection": "battle_end", "attack": "battle", "move": "movement"}
TARGETS = {
    "occupied", "temple", "coastal_occupied", "mountains_occupied", "forest_occupied", "coastal",
    "land", "water", "empty_coastal", "own_population3", "none", "armies", "population", "empty",
    "desert", "swamp", "ocean", "own", "own_move", "destroyed", "reaction",
}


def validate(data: dict) -> dict:
    try:
        terrains = data["terrain"]
        ids = [t["id"] for t in terrains]
        if len(set(ids)) != len(ids):
            raise DataError("deity: terrain ids must be distinct")
        if "plains" not in ids:
            raise DataError("deity: the set-up needs a 'plains' terrain")
        for t in terrains:
            for need in ("name", "code", "count", "max", "temples", "defence"):
                if need not in t:
                    raise DataError(f"deity: terrain '{t['id']}' lacks '{need}'")
            if len(t["code"]) != 2 or t["max"] < 1 or t["count"] < 0:
                raise DataError(f"deity: terrain '{t['id']}' needs a 2-letter code, max >= 1 and count >= 0")
        total = sum(t["count"] for t in terrains)
        if total != 60:
            raise DataError(f"deity: the terrain counters must number 60, not {total}")
        rules = data["rules"]
        if not 0 <= rules["reserve"] < total:
            raise DataError("deity: the reserve must be smaller than the terrain pile")
        cards = data["cards"]
        cids = [c["id"] for c in cards]
        if len(cids) != 26 or len(set(cids)) != 26:
            raise DataError(f"deity: the card list must hold 26 distinct cards, not {len(set(cids))}")
        for c in cards:
            if c.get("target") not in TARGETS:
                raise DataError(f"deity: card '{c['id']}' has unknown target {c.get('target')!r}; known: {', '.join(sorted(TARGETS))}")
            if len(c["id"].split("_")) > 2:
                raise DataError(f"deity: card id '{c['id']}' must be one or two words")
        if data["deck"]["copies"] < 1:
            raise DataError("deity: the deck needs at least one copy of each card")
        opts = data["options"]
        if opts["size"] not in data["map"]["sizes"]:
            raise DataError("deity: the default size must be one of map.sizes")
        if opts["world"] not in ("random", "manual") or opts["start"] not in ("seat", "random"):
            raise DataError("deity: default world must be random|manual and start seat|random")
        for need in ("redraws", "start_dice", "start_spacing", "hand_max", "draw_base", "temple_population",
                     "godspeed_range", "monsters_die", "blight_die", "blight_gone_on", "attack_dice",
                     "defence_dice", "population_per_die", "temple_value", "battle_round_cap"):
            if not isinstance(rules[need], int) or rules[need] < 0:
                raise DataError(f"deity: rules.{need} must be a whole number >= 0")
    except KeyError as err:
        raise DataError(f"deity: data.toml lacks {err}") from err
    return data


@dataclass(frozen=True)
class Tables:
    """The validated data, indexed the way the mechanics read it."""

    r: dict             # the [rules] numbers
    terrain: dict       # terrain id -> its entry
    tmax: dict          # terrain id -> the most counters a hex of it holds
    cards: dict         # card id -> its entry
    card_ids: list      # the card ids in data order
    keep_water: set     # the terrains that keep a water side (river valleys)

    @classmethod
    def from_data(cls, data: dict) -> Tables:
        terrain = {t["id"]: t for t in data["terrain"]}
        return cls(
            r=data["rules"],
            terrain=terrain,
            tmax={t: v["max"] for t, v in terrain.items()},
            cards={c["id"]: c for c in data["cards"]},
            card_ids=[c["id"] for c in data["cards"]],
            keep_water={t for t, v in terrain.items() if v.get("keep_water")},
        )
