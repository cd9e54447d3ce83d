"""Ye Gods!: the world data.toml describes, checked and built once: the gods, the board (15
provinces, the deserts, the land borders and the 4 water crossings), the deck of 90 god
cards, the piece counts and rule numbers, and every name players may type for them.

Nothing here reads or changes a game's state: `World` is the static part the mechanics
modules take as their first argument (`w`).
"""

from __future__ import annotations

from pbem.core.errors import DataError

# --- the deck's card kinds --------------------------------------------------------------
HELD = ("act-of-god", "conversion", "temple")          # kept in hand, played as orders
CHOICE = ("saint", "heretic", "miracle", "martyr", "impiety")  # played at once, with a choice
AUTO = ("donative", "pillage", "schism")               # played at once, no choice
KINDS = HELD + CHOICE + AUTO
KIND_TITLE = {
    "act-of-god": "Act of God", "conversion": "Conversion", "temple": "Temple", "saint": "Saint",
    "martyr": "Martyr", "heretic": "Heretic", "donative": "Donative", "pillage": "Pillage",
    "miracle": "Miracle", "schism": "Schism", "impiety": "Impiety",
}


def validate(data: dict) -> dict:
    """The data file, checked against what the rules text says (4 gods, 15 provinces, 4 water
    crossings, 90 cards with one Schism, ...); raises DataError."""
    def bad(msg: str) -> DataError:
        return DataError(f"yegods: {msg}")

    try:
        gods = data["gods"]
        provinces = [p["name"] for p in data["provinces"]]
        deserts = [d["name"] for d in data["deserts"]]
        pieces, rules, deck = data["pieces"], data["rules"], data["deck"]
        if len(gods) != 4:
            raise bad(f"there are 4 gods, not {len(gods)}")
        if len(provinces) != 15 or len(set(provinces)) != 15:
            raise bad("the board has 15 distinct provinces")
        names = provinces + deserts
        if len(set(names)) != len(names):
            raise bad("a desert has a province's name")
        tokens: dict[str, str] = {}
        for entry in [*data["provinces"], *data["deserts"], *gods]:
            for word in [entry["name"], *entry.get("aliases", [])]:
                if word in tokens:
                    raise bad(f"the name '{word}' is used twice ({tokens[word]} and {entry['name']})")
                tokens[word] = entry["name"]
        for a, b in data["borders"]["land"]:
            if a not in provinces or b not in provinces or a == b:
                raise bad(f"land border {a}-{b} names an unknown province")
        water = data["borders"]["water"]
        if len(water) != 4:
            raise bad(f"the text has 4 water crossings, not {len(water)}")
        for w in water:
            a, b = w["between"]
            if a not in provinces or b not in provinces:
                raise bad(f"water crossing {a}-{b} names an unknown province")
        for d in data["deserts"]:
            for b in d["borders"]:
                if b not in provinces:
                    raise bad(f"desert {d['name']} borders unknown province {b}")
        starts: list[str] = []
        for god in gods:
            for p in god["start"]:
                if p not in provinces:
                    raise bad(f"{god['name']} starts in unknown province {p}")
            starts += god["start"]
        if len(set(starts)) != len(starts):
            raise bad("two gods start in the same province")
        count = 0
        for kind in KINDS:
            spec = deck[kind]
            count += len(spec) if isinstance(spec, list) else int(spec)
        if set(deck) - set(KINDS):
            raise bad(f"unknown card kind(s) {sorted(set(deck) - set(KINDS))}")
        if count != 90:
            raise bad(f"the deck has 90 god cards, not {count}")
        if deck["schism"] != 1:
            raise bad("there is exactly one Schism card")
        for key in ("worshippers", "priests_per_god", "saints_per_god", "saints_on_board", "heretics", "donatives"):
            if int(pieces[key]) <= 0:
                raise bad(f"pieces.{key} must be positive")
        for key in ("priest_cost", "card_cost", "vision_turns", "vision_worshippers", "win_provinces"):
            int(rules[key])
    except KeyError as err:
        raise bad(f"data.toml lacks {err}") from err
    return data


class World:
    """The static game: built from validated data, never changed afterwards."""

    def __init__(self, data: dict):
        self.pieces = data["pieces"]   # [pieces]: how many of each there are
        self.rules = data["rules"]     # [rules]: costs, adds, the Vision, winning
        self.gods = [g["name"] for g in data["gods"]]
        self.god_title = {g["name"]: g["title"] for g in data["gods"]}
        self.god_colour = {g["name"]: g["colour"] for g in data["gods"]}
        self.start = {g["name"]: list(g["start"]) for g in data["gods"]}
        self.provinces = [p["name"] for p in data["provinces"]]
        self.deserts = [d["name"] for d in data["deserts"]]
        self.places = self.provinces + self.deserts
        self.title = {p["name"]: p["title"] for p in [*data["provinces"], *data["deserts"]]}
        adj: dict[str, set[str]] = {p: set() for p in self.places}
        for a, b in data["borders"]["land"]:
            adj[a].add(b)
            adj[b].add(a)
        self.water = {}
        for w in data["borders"]["water"]:
            a, b = w["between"]
            adj[a].add(b)
            adj[b].add(a)
            self.water[frozenset((a, b))] = w["name"]
        for d in data["deserts"]:
            for b in d["borders"]:
                adj[d["name"]].add(b)
                adj[b].add(d["name"])
        order = {p: i for i, p in enumerate(self.places)}
        self.adj = {p: sorted(n, key=order.get) for p, n in adj.items()}
        self.padj = {p: [n for n in self.adj[p] if n not in self.deserts] for p in self.places}
        self.cards: dict[int, dict] = {}  # numbered 1-90 in the data file's order
        n = 0
        for kind in data["deck"]:
            spec = data["deck"][kind]
            values = spec if isinstance(spec, list) else [None] * int(spec)
            for v in values:
                n += 1
                self.cards[n] = {"kind": kind, "value": v}
        self.aliases: dict[str, str] = {}  # every alias -> canonical (for the order grammar)
        self.names: dict[str, str] = {}  # every name or alias -> canonical (gods and places)
        for entry in [*data["provinces"], *data["deserts"], *data["gods"]]:
            for word in [entry["name"], *entry.get("aliases", [])]:
                self.names[word] = entry["name"]
                if word != entry["name"]:
                    self.aliases[word] = entry["name"]

    def card_name(self, card: int) -> str:
        c = self.cards[card]
        return KIND_TITLE[c["kind"]] + (f" {c['value']}" if c["value"] is not None else "")

    def resolve_name(self, word: str, kinds: tuple[str, ...]) -> str | None:
        """The place or god a typed word names (a name, an alias or a unique prefix), if any."""
        pool = []
        if "province" in kinds:
            pool += self.provinces
        if "desert" in kinds:
            pool += self.deserts
        if "god" in kinds:
            pool += self.gods
        word = self.names.get(word, word)
        if word in pool:
            return word
        hits = [p for p in pool if p.startswith(word)]
        return hits[0] if len(hits) == 1 else None
