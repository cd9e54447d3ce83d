"""Oh Gods!: the cards. The deck as data.toml describes it, checked (`validate`), and the
catalogue built from it (`Catalogue`): every card by its id, its elements (pantheon, domains,
Ruler) and their points, the order words that name a card or an element, and how a card is
shown. No game state here: the other modules take a Catalogue (the Rules object is one) and
the state.
"""

from __future__ import annotations

from pbem.core.errors import DataError
from pbem.core.rng import Rng

EFFECTS = {"block", "immortalized", "move", "swap", "sanctuary"}
ABILITIES = {
    "extra_action", "free_play", "cycle", "lone_steal", "discard_swap", "charm_steal", "raise", "altar_swap",
}
PASSIVE = {"lone_steal", "charm_steal"}
HIDDEN = "hidden"  # a placeholder for a card the player checking orders may not know
RULER = "ruler"


def validate(data: dict) -> dict:
    def need(cond, msg):
        if not cond:
            raise DataError(f"ohgods: {msg}")

    try:
        r = data["rules"]
        for k in ("hand_size", "actions", "hands", "min_set", "max_sets", "big_set", "big_set_bonus", "ruler_points"):
            need(isinstance(r[k], int) and r[k] >= 0, f"rules.{k} must be a whole number")
        need(r["default_block"] in ("any", "never"), "rules.default_block must be 'any' or 'never'")
        pantheons, domains, specials = data["pantheons"], data["domains"], data["specials"]
        need(not set(pantheons) & set(domains), "a pantheon and a domain share a name")
        need(RULER not in pantheons and RULER not in domains, "'ruler' is not a pantheon or domain name")
        for key, p in pantheons.items():
            need(isinstance(p["points"], int) and p["points"] > 0, f"pantheon {key} needs positive points")
        for key, d in domains.items():
            need(d["ability"] in ABILITIES, f"domain {key}: unknown Mastery ability '{d['ability']}'")
            need(d.get("text"), f"domain {key}: its Mastery card needs a text")
        for key, s in specials.items():
            need(s["effect"] in EFFECTS, f"special {key}: unknown effect '{s['effect']}'")
            need(isinstance(s["count"], int) and s["count"] > 0, f"special {key}: count must be positive")
        need(any(s["effect"] == "block" for s in specials.values()), "the deck needs Block cards")
        ids: set[str] = set(specials)
        count = {k: 0 for k in list(pantheons) + list(domains)}
        rulers = 0
        for god in data["gods"]:
            gid = god["id"]
            need(gid.isascii() and gid.isalpha() and gid.islower(), f"god id '{gid}' must be one lower-case word")
            need(gid not in ids, f"card id '{gid}' is used twice")
            need(gid not in pantheons and gid not in domains and gid != RULER, f"god id '{gid}' is also an element")
            ids.add(gid)
            need(god["pantheon"] in pantheons, f"{gid}: unknown pantheon '{god['pantheon']}'")
            count[god["pantheon"]] += 1
            need(god["domains"], f"{gid}: a god needs at least one domain")
            for d, v in god["domains"].items():
                need(d in domains, f"{gid}: unknown domain '{d}'")
                need(isinstance(v, int) and v > 0, f"{gid}: domain {d} needs positive points")
                count[d] += 1
            rulers += bool(god.get("ruler"))
        for k, n in count.items():
            need(n >= r["min_set"], f"only {n} gods have {k}: a set of {r['min_set']} must be possible")
        need(rulers >= r["min_set"], f"only {rulers} Rulers: a Ruler set must be possible")
        deck = len(data["gods"]) + sum(s["count"] for s in specials.values())
        need(deck > data["max_players"] * r["hand_size"],
             f"{deck} cards cannot deal {r['hand_size']} to {data['max_players']} players and leave a draw deck")
        need(2 <= data["min_players"] <= data["max_players"], "min_players/max_players are wrong")
    except KeyError as err:
        raise DataError(f"ohgods: data.toml lacks {err}") from err
    return data


def uncertain(rng: Rng) -> None:
    """While orders are being checked (never in a real resolution): mark what follows as
    depending on cards the player cannot see (the engine treats it like an earlier die)."""
    rng.randbelow(1)


class Catalogue:
    """Every card of the deck by its id (plus the unseen-card placeholder), the elements and
    the rule numbers of data.toml (`r`)."""

    def __init__(self, data: dict):
        self.r = data["rules"]
        self.pantheons = data["pantheons"]
        self.domains = data["domains"]
        self.element_order = list(self.pantheons) + list(self.domains) + [RULER]
        self.element_names = {k: v["name"] for k, v in self.pantheons.items()}
        self.element_names.update({k: v["name"] for k, v in self.domains.items()})
        self.element_names[RULER] = "Ruler"
        self.cards: dict[str, dict] = {}
        for god in data["gods"]:
            elements = {god["pantheon"]: self.pantheons[god["pantheon"]]["points"]}
            elements.update(god["domains"])
            if god.get("ruler"):
                elements[RULER] = self.r["ruler_points"]
            self.cards[god["id"]] = {
                "id": god["id"], "name": god["name"], "token": god["id"], "kind": "god", "effect": None,
                "pantheon": god["pantheon"], "domains": dict(god["domains"]), "ruler": bool(god.get("ruler")),
                "elements": elements,
            }
        for key, spec in data["specials"].items():
            for i in range(1, spec["count"] + 1):
                cid = f"{key}-{i}"
                self.cards[cid] = {
                    "id": cid, "name": spec["name"], "token": key, "kind": "special", "effect": spec["effect"],
                    "text": spec["text"], "ruler": False, "elements": {},
                }
        self.cards[HIDDEN] = {"id": HIDDEN, "name": "(unseen card)", "token": "unseen-card", "kind": "hidden",
                              "effect": None, "ruler": False, "elements": {}}
        self.deck_ids = [c for c in self.cards if c != HIDDEN]
        self.gods = [g["id"] for g in data["gods"]]
        self.token_cards: dict[str, list[str]] = {}
        for cid in self.deck_ids:
            self.token_cards.setdefault(self.cards[cid]["token"], []).append(cid)

    def tok(self, cid: str) -> str:
        return self.cards[cid]["token"]

    def name(self, cid: str) -> str:
        return self.cards[cid]["name"]

    def names(self, cids) -> list[str]:
        return [self.name(c) for c in cids]

    def is_god(self, cid: str) -> bool:
        return self.cards[cid]["kind"] == "god"

    def is_imm(self, cid: str) -> bool:
        return self.cards[cid]["effect"] == "immortalized"

    def godlike(self, cid: str) -> bool:
        """A god card, or Immortalized (which stands in a set for a god)."""
        return self.is_god(cid) or self.is_imm(cid)

    def is_ruler(self, cid: str) -> bool:
        return self.cards[cid]["ruler"]

    def movable(self, cid: str) -> bool:
        """May leave an altar other than by scoring: any god-like card but a Ruler."""
        return self.godlike(cid) and not self.is_ruler(cid)

    def effect(self, cid: str) -> str | None:
        return self.cards[cid]["effect"]

    def has(self, cid: str, element: str) -> bool:
        return element in self.cards[cid]["elements"]

    def label(self, cid: str) -> str:
        """'Zeus: Greek 2, Sky 5, Ruler' / 'Block (special)'; each card's worked out once
        (issue 17: every view of every report lists the cards)."""
        labels = self.__dict__.setdefault("_labels", {})
        if cid not in labels:
            labels[cid] = self._label(cid)
        return labels[cid]

    def _label(self, cid: str) -> str:
        c = self.cards[cid]
        if c["kind"] == "god":
            parts = [f"{self.element_names[c['pantheon']]} {c['elements'][c['pantheon']]}"]
            parts += [f"{self.element_names[d]} {v}" for d, v in c["domains"].items()]
            if c["ruler"]:
                parts.append("Ruler")
            return f"{c['name']}: {', '.join(parts)}"
        if c["kind"] == "special":
            return f"{c['name']} (special)"
        return c["name"]

    def card_info(self, cid: str) -> dict:
        c = self.cards[cid]
        return {"name": c["name"], "token": c["token"], "kind": c["kind"], "label": self.label(cid),
                "text": c.get("text", ""), "ruler": c["ruler"]}

    def element(self, token: str) -> str | None:
        """An element named by a (prefix of a) word, if exactly one fits."""
        if token in self.element_names:
            return token
        hits = [e for e in self.element_order if e.startswith(token)]
        return hits[0] if len(hits) == 1 else None

    def find(self, token: str, cards: list[str]) -> list[str]:
        """The cards among `cards` that an order word names: its exact token, else a prefix."""
        exact = [c for c in cards if self.tok(c) == token]
        return exact or [c for c in cards if self.tok(c).startswith(token)]

    def known(self, token: str) -> bool:
        """Whether an order word names (a prefix of) any card of this game."""
        return any(t.startswith(token) for t in self.token_cards)
