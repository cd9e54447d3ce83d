"""Oh Gods! (M. Craig Stockwell, version 3.1): rules text in shared/rules/oh-gods.md, the deck
in data.toml beside this.

Pure: state in, state and events out. The first game here with hidden hands, a face-down
scoring pile and a reaction by a player who is not on turn (Block, as a standing order).

State (`state["game"]`), every card by its id:
  deck (top first), discard (top last), hands/altars/sets per player, sanctuary (the Sanctuary
  card in play by a player's altar, or None), mastery (domain -> holder), block (each player's
  standing order about Block), scores (running totals), history (the scored hands), turn,
  final (None, or the final round: who started it and who still has a last turn).
"""

from __future__ import annotations

from itertools import combinations

from pbem.core.engine import Event, GameInfo, Rules
from pbem.core.errors import DataError
from pbem.core.flow import Clockwise
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng

EFFECTS = {"block", "immortalized", "move", "swap", "sanctuary"}
ABILITIES = {
    "extra_action", "free_play", "cycle", "lone_steal", "discard_swap", "charm_steal", "raise", "altar_swap",
}
PASSIVE = {"lone_steal", "charm_steal"}
HIDDEN = "hidden"  # a placeholder for a card the player checking orders may not know
RULER = "ruler"

OPTIONS = {
    "first": "who plays first in the first hand, by the players' agreement: a player's name, "
    "'seat' (the first --player, default) or 'random'",
}

_SETS_PATTERN = "word" + " word?" * 16
GRAMMAR = Grammar(
    verbs={
        "play": ("word word? for? word? from? word?",
                 "play a card from your hand: a god or Immortalized to your altar (`play GOD`), "
                 "`play sanctuary`, `play pilgrimage GOD [from PLAYER]`, `play exchange YOURGOD for GOD [from PLAYER]`"),
        "form": (_SETS_PATTERN,
                 "form a set: `form ELEMENT` takes every god on your altar with that domain, pantheon or Ruler; "
                 "`form ELEMENT GOD GOD GOD...` takes just those (in altar order)"),
        "steal": ("word from? word? give word word?",
                  "steal a god: `steal GOD [from PLAYER] give GOD GOD` (two gods of yours sharing its pantheon "
                  "or a domain stay; you give two other gods)"),
        "discard": ("word word?", "discard one or two cards from your hand: `discard CARD [CARD]`"),
        "mastery": ("word word? for? word?", "use a Mastery card you hold (a free action, once a turn): "
                    "`mastery sky`, `mastery sun GOD`, `mastery sea CARD`, `mastery wisdom CARD`, "
                    "`mastery death`, `mastery healing ALTARGOD for HANDGOD`"),
        "pass": ("", "end your turn now, forfeiting the actions you have left (you still draw to six)"),
        "block": ("word? word? word?", "standing order, any time: `block any steal`, `block steals of GOD`, "
                  "`block steals by PLAYER` (these two add up)"),
        "never": ("block", "standing order, any time: never use Block"),
    },
    aliases={"giving": "give", "gives": "give", "with": "for", "steals": "steal", "all": "any"},
)


def _validate(data: dict) -> dict:
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


class OhGodsRules(Rules):
    grammar = GRAMMAR

    def __init__(self, data: dict):
        super().__init__(_validate(data))
        self.r = data["rules"]
        self.info = GameInfo(name="ohgods", title=data["title"], min_players=data["min_players"],
                             max_players=data["max_players"], options=OPTIONS)
        self.turn_order = Clockwise()
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
        self._standing_cache: dict[tuple, list[Order]] = {}

    # --- cards ----------------------------------------------------------------------------
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
        """'Zeus: Greek 2, Sky 5, Ruler' / 'Block (special)'."""
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

    # --- set-up and hands ------------------------------------------------------------------
    def setup(self, players, options, rng: Rng):
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise DataError(f"ohgods: unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(OPTIONS)}")
        first_opt = str(options.get("first", "seat")).lower()
        if first_opt not in ("seat", "random") and first_opt not in players:
            raise DataError(f"ohgods: option first must be 'seat', 'random' or a player ({', '.join(players)}), "
                            f"not '{first_opt}'")
        game = {
            "players": list(players),
            "hand": 0,
            "first": None,
            "deck": [],
            "discard": [],
            "hands": {p: [] for p in players},
            "altars": {p: [] for p in players},
            "sets": {p: [] for p in players},
            "sanctuary": {p: None for p in players},
            "mastery": {d: None for d in self.domains},
            "block": {p: self._policy(self.r["default_block"]) for p in players},
            "scores": {p: 0 for p in players},
            "history": [],
            "turn": {"player": None, "actions_left": 0, "free_used": [], "number": 0},
            "final": None,
            "next_hand": None,
        }
        state = {"flow": {"phase": "turn", "active": [], "sealed": False, "over": False, "prompt": ""}, "game": game}
        events: list[Event] = []
        if first_opt == "random":
            first = players[rng.randbelow(len(players))]
            events.append({"type": "first_player", "player": first, "reason": "chosen at random"})
        elif first_opt == "seat":
            first = players[0]
            events.append({"type": "first_player", "player": first, "reason": "first in seat order"})
        else:
            first = first_opt
            events.append({"type": "first_player", "player": first, "reason": "by agreement"})
        events += self._new_hand(state, rng, first)
        return state, events

    @staticmethod
    def _policy(mode: str) -> dict:
        return {"mode": mode, "gods": [], "by": []}

    def _new_hand(self, state: dict, rng: Rng, first: str) -> list[Event]:
        g = state["game"]
        players = g["players"]
        g["hand"] += 1
        g["first"] = first
        deck = list(self.deck_ids)
        rng.shuffle(deck)
        g.update(deck=deck, discard=[], final=None)
        for p in players:
            g["hands"][p], g["altars"][p], g["sets"][p], g["sanctuary"][p] = [], [], [], None
        g["mastery"] = {d: None for d in self.domains}
        start = players.index(first)
        order = players[start:] + players[:start]
        for _ in range(self.r["hand_size"]):
            for p in order:
                g["hands"][p].append(g["deck"].pop(0))
        events: list[Event] = [{"type": "new_hand", "hand": g["hand"], "of": self.r["hands"], "first": first,
                                "cards": len(self.deck_ids), "deck": len(g["deck"]), "each": self.r["hand_size"]}]
        for p in order:
            events.append({"type": "dealt", "player": p, "cards": self.names(g["hands"][p]), "to": p})
        g["turn"]["number"] = 0
        return events + self._begin_turn(state, first)

    # --- turn flow -------------------------------------------------------------------------
    def _begin_turn(self, state: dict, player: str) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        if g["sanctuary"][player]:
            g["discard"].append(g["sanctuary"][player])
            g["sanctuary"][player] = None
            events.append({"type": "sanctuary_ends", "player": player})
        g["turn"] = {"player": player, "actions_left": self.r["actions"], "free_used": [],
                     "number": g["turn"]["number"] + 1}
        last = " -- your last turn of this hand (final round)" if g["final"] else ""
        state["flow"].update(active=[player], prompt=f"{player}: take two actions, then you draw to six{last}.")
        events.append({"type": "turn", "player": player, "hand": g["hand"], "final": bool(g["final"])})
        return events

    def _after_action(self, state: dict, player: str, rng: Rng, counts: bool = True) -> list[Event]:
        t = state["game"]["turn"]
        if counts:
            t["actions_left"] -= 1
        if t["actions_left"] <= 0 and not state["flow"].get("over"):
            return self._end_turn(state, player, rng)
        return []

    def _end_turn(self, state: dict, player: str, rng: Rng) -> list[Event]:
        g = state["game"]
        g["turn"]["actions_left"] = 0
        events = self._draw(state, player, self.r["hand_size"] - len(g["hands"][player]), rng, during_turn=False)
        events.append({"type": "turn_over", "player": player})
        final = g["final"]
        if final:
            if player in final["remaining"]:
                final["remaining"].remove(player)
            if not final["remaining"]:
                return events + self._end_hand(state, rng)
            nxt = final["remaining"][0]
        else:
            nxt = self.turn_order.next(g["players"], player)
        return events + self._begin_turn(state, nxt)

    def _draw(self, state: dict, player: str, n: int, rng: Rng, during_turn: bool = True) -> list[Event]:
        g = state["game"]
        drawn = []
        while len(drawn) < n and g["deck"]:
            drawn.append(g["deck"].pop(0))
        if not drawn:
            return []
        g["hands"][player].extend(drawn)
        if HIDDEN in drawn and during_turn:  # checking orders: later lines may name the card drawn
            self._uncertain(rng)
        events: list[Event] = [
            {"type": "draw", "player": player, "cards": self.names(drawn), "to": player},
            {"type": "draws", "player": player, "count": len(drawn), "deck": len(g["deck"])},
        ]
        if not g["deck"] and not g["final"]:
            events += self._start_final(state, player, "drew the last card of the deck")
        return events

    def _start_final(self, state: dict, player: str, reason: str) -> list[Event]:
        g = state["game"]
        players = g["players"]
        i = players.index(player)
        remaining = [players[(i + k) % len(players)] for k in range(1, len(players))]
        g["final"] = {"trigger": player, "reason": reason, "remaining": remaining}
        return [{"type": "final_round", "player": player, "reason": reason, "remaining": list(remaining)}]

    def _end_hand(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        if g.get("preview"):  # checking orders: the hand's scoring depends on cards not shown
            state["flow"].update(active=[], prompt="")
            return []
        events: list[Event] = [{"type": "hand_over", "hand": g["hand"]}]
        hand_scores = {}
        revealed = {}
        for p in g["players"]:
            total = 0
            revealed[p] = []
            for s in g["sets"][p]:
                pts, parts, bonus = self.set_points(s)
                total += pts
                revealed[p].append({"element": self.element_names[s["element"]], "cards": self.names(s["cards"]),
                                    "points": pts, "parts": parts, "bonus": bonus})
                events.append({"type": "reveal", "player": p, "element": self.element_names[s["element"]],
                               "cards": self.names(s["cards"]), "points": pts, "parts": parts, "bonus": bonus})
            hand_scores[p] = total
            g["scores"][p] += total
        g["history"].append({"hand": g["hand"], "first": g["first"], "scores": hand_scores,
                             "sets": {p: [dict(element=s["element"], cards=list(s["cards"])) for s in g["sets"][p]]
                                      for p in g["players"]},
                             "revealed": revealed})
        events.append({"type": "hand_scored", "hand": g["hand"], "scores": hand_scores, "totals": dict(g["scores"])})
        if g["hand"] >= self.r["hands"]:
            return events + self._finish(state)
        first, why = self.next_first(g)
        events.append({"type": "first_player", "player": first, "reason": why})
        # The next hand is dealt by `advance`, once this phase's orders are done: the first
        # player of the new hand may be the one whose turn just ended, and that new turn is
        # a new decision, not the rest of this one.
        g["next_hand"] = first
        state["flow"].update(active=[], prompt="")
        return events

    def advance(self, state, rng):
        g = state["game"]
        if g.get("next_hand") and not state["flow"].get("over"):
            first = g["next_hand"]
            g["next_hand"] = None
            return self._new_hand(state, rng, first)
        return []

    def next_first(self, g: dict) -> tuple[str, str]:
        """The lowest scorer of the prior hand goes first; ties: the lower running total; then
        seat order (a CHOICE)."""
        last = g["history"][-1]["scores"]
        low = min(last.values())
        tied = [p for p in g["players"] if last[p] == low]
        if len(tied) == 1:
            return tied[0], f"lowest score of hand {g['hand']} ({low})"
        least = min(g["scores"][p] for p in tied)
        tied2 = [p for p in tied if g["scores"][p] == least]
        if len(tied2) == 1:
            return tied2[0], f"lowest score of hand {g['hand']} ({low}, tied), lower running total ({least})"
        return tied2[0], f"lowest score of hand {g['hand']} ({low}) and running total ({least}) tied; first in seat order"

    def _finish(self, state: dict) -> list[Event]:
        g = state["game"]
        scores = dict(g["scores"])
        best = max(scores.values())
        winners = [p for p in g["players"] if scores[p] == best]
        reason = f"{self.r['hands']} hands have been played"
        state["flow"].update(over=True, active=[], prompt="")
        state["flow"]["outcome"] = {"winners": winners, "scores": scores, "reason": reason,
                                    "hands": [h["scores"] for h in g["history"]]}
        return [{"type": "game_over", "reason": reason, "winners": winners, "scores": scores}]

    # --- scoring -----------------------------------------------------------------------------
    def set_points(self, s: dict) -> tuple[int, list[list], int]:
        """A set scores every element common to all its cards, +5 for five or more cards.
        Immortalized stands only for the announced element, at the lowest value that element
        has among the set's other gods. Returns (points, [[element name, points]...], bonus)."""
        cards = s["cards"]
        real = [c for c in cards if self.is_god(c)]
        imms = sum(1 for c in cards if self.is_imm(c))
        if not real:
            return 0, [], 0
        common = set(self.cards[real[0]]["elements"])
        for c in real[1:]:
            common &= set(self.cards[c]["elements"])
        if imms:
            common &= {s["element"]} - {RULER}
        parts = []
        total = 0
        for e in self.element_order:
            if e in common:
                values = [self.cards[c]["elements"][e] for c in real]
                pts = sum(values) + imms * min(values)
                parts.append([self.element_names[e], pts])
                total += pts
        bonus = self.r["big_set_bonus"] if len(cards) >= self.r["big_set"] else 0
        return total + bonus, parts, bonus

    # --- legal orders --------------------------------------------------------------------------
    def _others(self, g: dict, player: str) -> list[str]:
        players = g["players"]
        i = players.index(player)
        return [players[(i + k) % len(players)] for k in range(1, len(players))]

    def _holds(self, g: dict, player: str, ability: str) -> str | None:
        """The domain whose Mastery card `player` holds with that ability, if any."""
        for d in self.domains:
            if g["mastery"][d] == player and self.domains[d]["ability"] == ability:
                return d
        return None

    def legal_orders(self, state, player):
        g = state["game"]
        if state["flow"].get("over") or player not in state["flow"]["active"] or g["turn"]["actions_left"] <= 0:
            return []
        orders: dict[str, Order] = {}

        def add(o: Order) -> None:
            orders.setdefault(o.text, o)

        for o in self._play_orders(g, player):
            add(o)
        if len(g["sets"][player]) < self.r["max_sets"]:
            for o in self._form_orders(g["altars"][player]):
                add(o)
        for o in self._steal_orders(g, player):
            add(o)
        for o in self._discard_orders(g["hands"][player]):
            add(o)
        for o in self._mastery_orders(g, player):
            add(o)
        add(Order(("pass",), ("pass",)))
        return list(orders.values())

    def _play_orders(self, g: dict, player: str) -> list[Order]:
        out = []
        mine = [c for c in g["altars"][player] if self.movable(c)]
        seen = set()
        for c in g["hands"][player]:
            t = self.tok(c)
            if t in seen or self.cards[c]["kind"] == "hidden":
                continue
            seen.add(t)
            eff = self.effect(c)
            if self.godlike(c):
                out.append(Order(("play", t), ("play", c)))
            elif eff == "sanctuary":
                if not g["sanctuary"][player]:
                    out.append(Order(("play", t), ("play", c)))
            elif eff == "move":
                for v in self._others(g, player):
                    for target in g["altars"][v]:
                        if self.movable(target):
                            out.append(Order(("play", t, self.tok(target), "from", v), ("play", c, v, target),
                                             frozenset({3, 4})))
            elif eff == "swap":
                for m in mine:
                    for v in self._others(g, player):
                        for target in g["altars"][v]:
                            if self.movable(target):
                                out.append(Order(("play", t, self.tok(m), "for", self.tok(target), "from", v),
                                                 ("play", c, m, v, target), frozenset({5, 6})))
        return out

    def set_pools(self, altar: list[str]) -> list[tuple[str, list[str]]]:
        """For each element: the cards on this altar that can stand for it (gods having it,
        and Immortalized for a domain or pantheon), when they make a set with a god among them."""
        out = []
        by_element: dict[str, list[str]] = {}
        for c in altar:
            card = self.cards[c]
            if card["kind"] == "god":
                for e in card["elements"]:
                    by_element.setdefault(e, []).append(c)
        imms = [c for c in altar if self.is_imm(c)]
        for e in self.element_order:
            real = by_element.get(e)
            if not real or len(real) + (len(imms) if e != RULER else 0) < self.r["min_set"]:
                continue
            pool = [c for c in altar if c in real or (e != RULER and c in imms)] if imms else real
            out.append((e, pool))
        return out

    def _form_orders(self, altar: list[str]) -> list[Order]:
        pools = self.set_pools(altar)
        out = [Order(("form", e), ("form", e, tuple(pool))) for e, pool in pools]
        for e, pool in pools:
            for r in range(self.r["min_set"], len(pool) + 1):
                for combo in combinations(pool, r):
                    if any(self.is_god(c) for c in combo):
                        out.append(Order(("form", e, *(self.tok(c) for c in combo)), ("form", e, combo)))
        return out

    def steal_needs(self, g: dict, player: str) -> tuple[int, int]:
        """(matching gods needed on your altar, gods you give): 2 and 2, less with War or Love."""
        need = 1 if self._holds(g, player, "lone_steal") else 2
        give = 1 if self._holds(g, player, "charm_steal") else 2
        return need, give

    def _steal_orders(self, g: dict, player: str) -> list[Order]:
        out = []
        altar = g["altars"][player]
        need, give = self.steal_needs(g, player)
        if len(altar) < need + give:
            return out
        matching: dict[str, int] = {}
        for c in altar:
            if self.is_god(c):
                for e in self.cards[c]["elements"]:
                    matching[e] = matching.get(e, 0) + 1
        givable = [c for c in altar if self.movable(c)]
        gift_combos: dict[str, list[tuple]] = {}
        for v in self._others(g, player):
            if g["sanctuary"][v]:
                continue
            for target in g["altars"][v]:
                if not self.is_god(target) or self.is_ruler(target):
                    continue
                combos: dict[tuple, None] = {}
                for e in self.cards[target]["elements"]:
                    if matching.get(e, 0) < need:
                        continue
                    if e not in gift_combos:
                        givers = [c for c in givable if not self.has(c, e)]
                        gift_combos[e] = list(combinations(givers, give))  # in altar order
                    for combo in gift_combos[e]:
                        combos[combo] = None
                for combo in combos:
                    out.append(Order(("steal", self.tok(target), "from", v, "give", *(self.tok(c) for c in combo)),
                                     ("steal", v, target, combo), frozenset({2, 3})))
        return out

    def _discard_orders(self, hand: list[str]) -> list[Order]:
        cards = [c for c in hand if self.cards[c]["kind"] != "hidden"]
        out = [Order(("discard", self.tok(c)), ("discard", (c,))) for c in cards]
        for a, b in combinations(cards, 2):
            out.append(Order(("discard", self.tok(a), self.tok(b)), ("discard", (a, b))))
        return out

    def _mastery_orders(self, g: dict, player: str) -> list[Order]:
        out = []
        used = g["turn"]["free_used"]
        hand = [c for c in g["hands"][player] if self.cards[c]["kind"] != "hidden"]
        altar = g["altars"][player]
        for d in self.domains:
            if g["mastery"][d] != player or d in used:
                continue
            ability = self.domains[d]["ability"]
            if ability == "extra_action":
                out.append(Order(("mastery", d), ("mastery", d, ability)))
            elif ability == "free_play":
                out += [Order(("mastery", d, self.tok(c)), ("mastery", d, ability, c)) for c in hand if self.godlike(c)]
            elif ability == "cycle" and g["deck"]:
                out += [Order(("mastery", d, self.tok(c)), ("mastery", d, ability, c)) for c in hand]
            elif ability == "discard_swap" and g["discard"]:
                out += [Order(("mastery", d, self.tok(c)), ("mastery", d, ability, c)) for c in hand]
            elif ability == "raise" and g["discard"] and self.godlike(g["discard"][-1]):
                out.append(Order(("mastery", d), ("mastery", d, ability)))
            elif ability == "altar_swap":
                for a in altar:
                    if self.movable(a):
                        out += [Order(("mastery", d, self.tok(a), "for", self.tok(h)), ("mastery", d, ability, a, h))
                                for h in hand if self.godlike(h)]
        return out

    def standing_orders(self, state, player):
        if state["flow"].get("over"):
            return []
        players = tuple(state["game"]["players"])
        key = (players, player)
        if key not in self._standing_cache:
            orders = [Order(("block", "any", "steal"), ("block", "any"), frozenset({2})),
                      Order(("never", "block"), ("block", "never"))]
            orders += [Order(("block", "steals", "of", gid), ("block", "god", gid), frozenset({1, 2}))
                       for gid in self.gods]
            orders += [Order(("block", "steals", "by", p), ("block", "by", p), frozenset({1, 2}))
                       for p in players if p != player]
            self._standing_cache[key] = orders
        return self._standing_cache[key]

    def default_order(self, state, player):
        return Order(("pass",), ("pass",))

    def private_order(self, state, player, order):
        # The cards of a set go face-down: which gods went in is the former's secret.
        return order.verb == "form"

    # --- why an order is not legal -------------------------------------------------------------
    def _find(self, token: str, cards: list[str]) -> list[str]:
        exact = [c for c in cards if self.tok(c) == token]
        return exact or [c for c in cards if self.tok(c).startswith(token)]

    def _known(self, token: str) -> bool:
        return any(t.startswith(token) for t in self.token_cards)

    def why_illegal(self, state, player, typed):
        g = state["game"]
        verb, args = typed[0], typed[1:]
        if state["flow"].get("over"):
            return "the game is over"
        if verb in ("block", "never"):
            if args and args[-1] not in ("any", "steal", "of", "by", "block"):
                return f"'{args[-1]}' is neither a god of this deck nor another player of this game"
            return None
        if player not in state["flow"]["active"]:
            return None  # the engine says whose turn it is, and that standing orders may be given
        hand, altar = g["hands"][player], g["altars"][player]
        hand_names = ", ".join(self.tok(c) for c in hand) or "nothing"
        if verb == "play" and args:
            found = self._find(args[0], hand)
            if not found:
                if self._known(args[0]):
                    return f"you hold no '{args[0]}' (your hand: {hand_names})"
                return f"'{args[0]}' is not a card of this game"
            eff = self.effect(found[0])
            if eff == "block":
                return ("Block is not played as an action: it stops a steal from your altar, as your standing "
                        "order says (`block any steal`, `block steals of GOD`, `never block`)")
            if eff == "sanctuary" and g["sanctuary"][player]:
                return "your Sanctuary is already in play"
            if eff in ("move", "swap"):
                rest = [a for a in args[1:] if a not in ("for", "from") and a not in g["players"]]
                if eff == "swap" and rest:
                    mine = self._find(rest[0], altar)
                    if not mine:
                        return f"'{rest[0]}' is not on your altar (name your god first: play exchange YOURGOD for GOD)"
                    if self.is_ruler(mine[0]):
                        return "Rulers never leave an altar except by scoring"
                    rest = rest[1:]
                if rest:
                    where = [(v, c) for v in self._others(g, player) for c in self._find(rest[0], g["altars"][v])]
                    if not where:
                        return f"no other player's altar holds '{rest[0]}'"
                    if all(self.is_ruler(c) for _, c in where):
                        return "Rulers never leave an altar except by scoring"
                elif eff == "move" and not any(self.movable(c) for v in self._others(g, player) for c in g["altars"][v]):
                    return "no other altar holds a god that can be moved (Rulers never leave an altar)"
            return None
        if verb == "form":
            if len(g["sets"][player]) >= self.r["max_sets"]:
                return f"you have {self.r['max_sets']} sets already; no player may score a sixth set"
            if not args:
                return None
            e = self.element(args[0])
            if e is None:
                return (f"'{args[0]}' is not one domain, pantheon or Ruler "
                        f"({', '.join(self.element_order)})")
            ename = self.element_names[e]
            have = [c for c in altar if (self.is_god(c) and self.has(c, e)) or (self.is_imm(c) and e != RULER)]
            picked = []
            left = list(altar)
            for t in args[1:]:
                found = self._find(t, left)
                if not found:
                    return f"'{t}' is not on your altar" + (" (or is named twice)" if self._find(t, altar) else "")
                c = found[0]
                left.remove(c)
                if self.is_imm(c) and e == RULER:
                    return "Immortalized never stands for Ruler"
                if c not in have:
                    return f"{self.name(c)} is not {ename}"
                picked.append(c)
            if dict(self.set_pools(altar)).get(e) is None:
                return (f"a set needs {self.r['min_set']} or more gods sharing {ename}; your altar has "
                        f"{len(have)} ({', '.join(self.names(have)) or 'none'})")
            if args[1:] and len(picked) < self.r["min_set"]:
                return f"a set needs {self.r['min_set']} or more gods"
            if picked and not any(self.is_god(c) for c in picked):
                return "a set needs a god card besides Immortalized"
            if picked:
                canon = " ".join(["form", e] + [self.tok(c) for c in sorted(picked, key=altar.index)])
                return f"name the gods in the order of your altar: `{canon}`"
            return None
        if verb == "steal" and args:
            where = [(v, c) for v in self._others(g, player) for c in self._find(args[0], g["altars"][v])]
            if not where:
                return f"no other player's altar holds '{args[0]}'"
            v, target = where[0]
            if self.is_ruler(target):
                return "Rulers never leave an altar except by scoring"
            if self.is_imm(target):
                return "Immortalized has no domain or pantheon until it is in a set, so it cannot be stolen"
            if g["sanctuary"][v]:
                return f"{v}'s altar is in Sanctuary until {v}'s next turn: no god can be stolen from it"
            need, give = self.steal_needs(g, player)
            best = max((sum(1 for c in altar if self.is_god(c) and self.has(c, e)), e)
                       for e in self.cards[target]["elements"])
            if best[0] < need:
                return (f"to steal {self.name(target)} your altar needs {need} god{'s' if need > 1 else ''} sharing its pantheon or a "
                        f"domain ({', '.join(self.element_names[e] for e in self.cards[target]['elements'] if e != RULER)}); "
                        f"it has at most {best[0]}")
            if "give" not in args and [a for a in args[1:] if a != "from" and a not in g["players"]]:
                return "name the gods you give after the word `give`: steal GOD [from PLAYER] give GOD GOD"
            gifts = args[args.index("give") + 1:] if "give" in args else []
            left = list(altar)
            for t in gifts:
                found = self._find(t, left)
                if not found:
                    return f"'{t}' is not on your altar"
                left.remove(found[0])
                if self.is_ruler(found[0]):
                    return "Rulers never leave an altar except by scoring"
            if gifts and len(gifts) != give:
                return f"you give {give} god{'s' if give > 1 else ''} for a steal"
            if gifts:
                given = [self._find(t, altar)[0] for t in gifts]
                usable = [e for e in self.cards[target]["elements"]
                          if sum(1 for c in altar if self.is_god(c) and self.has(c, e)) >= need]
                for c in given:
                    shared = [e for e in usable if self.has(c, e)]
                    if len(shared) == len(usable):
                        names = ", ".join(self.element_names[e] for e in shared)
                        return (f"{self.name(c)} is one of your gods matching {self.name(target)} ({names}): "
                                f"the gods you give must be other gods")
                if any(all(not self.has(c, e) for c in given) for e in usable):
                    canon = sorted(given, key=altar.index)
                    return (f"name them in the order of your altar: `steal {self.tok(target)} from {v} give "
                            f"{' '.join(self.tok(c) for c in canon)}`")
                return (f"the gods you give must be other gods: no element of {self.name(target)} that your "
                        f"altar matches may be shared by one of them")
            return None
        if verb == "discard":
            left = list(hand)
            for t in args:
                found = self._find(t, left)
                if not found:
                    return f"you hold no '{t}' (your hand: {hand_names})"
                left.remove(found[0])
            return None
        if verb == "mastery" and args:
            hits = [d for d in self.domains if d.startswith(args[0])]
            if len(hits) != 1:
                return f"'{args[0]}' is not a domain ({', '.join(self.domains)})"
            d = hits[0]
            dname = self.element_names[d]
            holder = g["mastery"][d]
            if holder != player:
                return f"you do not hold the Mastery of {dname} ({'held by ' + holder if holder else 'nobody holds it yet'})"
            ability = self.domains[d]["ability"]
            if ability in PASSIVE:
                return f"the Mastery of {dname} is not an action: {self.domains[d]['text']}"
            if d in g["turn"]["free_used"]:
                return f"you have used the Mastery of {dname} this turn (each free action at most once a turn)"
            if ability == "cycle" and not g["deck"]:
                return "the deck is empty"
            if ability in ("discard_swap", "raise") and not g["discard"]:
                return "the discard pile is empty"
            if ability == "raise" and not self.godlike(g["discard"][-1]):
                return f"the top of the discard pile ({self.name(g['discard'][-1])}) is not a god card"
            if ability in ("free_play", "cycle", "discard_swap") and len(args) > 1:
                if not self._find(args[1], hand):
                    return f"you hold no '{args[1]}' (your hand: {hand_names})"
                if ability == "free_play":
                    return "only a god card (or Immortalized) is played with the Mastery of Sun"
            if ability == "altar_swap" and len(args) > 1:
                a = self._find(args[1], altar)
                if not a:
                    return f"'{args[1]}' is not on your altar (name your altar god first, then the one in your hand)"
                if self.is_ruler(a[0]):
                    return "Rulers never leave an altar except by scoring"
                if len(args) > 3 and not any(self.godlike(c) for c in self._find(args[3], hand)):
                    return f"you hold no god card '{args[3]}'"
            return None
        return None

    # --- applying an order -----------------------------------------------------------------------
    @staticmethod
    def _uncertain(rng: Rng) -> None:
        """While orders are being checked (never in a real resolution): mark what follows as
        depending on cards the player cannot see (the engine treats it like an earlier die)."""
        rng.randbelow(1)

    def apply(self, state, player, order, rng):
        p = order.payload
        kind = p[0]
        g = state["game"]
        if kind == "block":
            return self._set_policy(g, player, p)
        events: list[Event] = []
        counts = True
        hand, altar = g["hands"][player], g["altars"][player]
        if kind == "play":
            card = p[1]
            hand.remove(card)
            eff = self.effect(card)
            if self.godlike(card):
                altar.append(card)
                events.append({"type": "play", "player": player, "card": self.name(card), "label": self.label(card)})
            elif eff == "sanctuary":
                g["sanctuary"][player] = card
                events.append({"type": "sanctuary", "player": player})
            elif eff == "move":
                _, _, victim, target = p
                g["altars"][victim].remove(target)
                altar.append(target)
                g["discard"].append(card)
                events.append({"type": "pilgrimage", "player": player, "victim": victim, "god": self.name(target)})
            elif eff == "swap":
                _, _, mine, victim, target = p
                vic = g["altars"][victim]
                altar[altar.index(mine)] = target
                vic[vic.index(target)] = mine
                g["discard"].append(card)
                events.append({"type": "exchange", "player": player, "victim": victim, "gave": self.name(mine),
                               "took": self.name(target)})
            else:  # pragma: no cover - legal_orders offers no other play
                raise ValueError(f"cannot play {card}")
        elif kind == "form":
            _, e, cards = p
            for c in cards:
                altar.remove(c)
            g["sets"][player].append({"element": e, "cards": list(cards)})
            n = len(g["sets"][player])
            events.append({"type": "form", "player": player, "element": self.element_names[e], "size": len(cards),
                           "sets": n})
            events.append({"type": "formed", "player": player, "element": self.element_names[e],
                           "cards": self.names(cards), "points": self.set_points(g["sets"][player][-1])[0],
                           "to": player})
            if e in self.domains and g["mastery"][e] is None:
                g["mastery"][e] = player
                events.append({"type": "mastery", "player": player, "domain": self.element_names[e],
                               "text": self.domains[e]["text"]})
            if n >= self.r["max_sets"] and not g["final"]:
                events += self._start_final(state, player, f"formed a {self._ordinal(n)} set")
        elif kind == "steal":
            events += self._steal(g, player, p, rng)
        elif kind == "discard":
            for c in p[1]:
                hand.remove(c)
                g["discard"].append(c)
            events.append({"type": "discard", "player": player, "cards": self.names(p[1])})
        elif kind == "mastery":
            counts = False
            events += self._mastery(state, player, p, rng)
        elif kind == "pass":
            left = g["turn"]["actions_left"]
            g["turn"]["actions_left"] = 0
            events.append({"type": "pass", "player": player, "forfeited": left})
            return events + self._end_turn(state, player, rng)
        else:  # pragma: no cover
            raise ValueError(f"unknown order payload {p!r}")
        return events + self._after_action(state, player, rng, counts)

    @staticmethod
    def _ordinal(n: int) -> str:
        return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}.get(n, f"{n}th")

    def _set_policy(self, g: dict, player: str, p: tuple) -> list[Event]:
        policy = g["block"][player]
        if p[1] in ("any", "never"):
            policy = self._policy(p[1])
        else:
            if policy["mode"] != "some":
                policy = self._policy("some")
            field = "gods" if p[1] == "god" else "by"
            if p[2] not in policy[field]:
                policy[field].append(p[2])
        g["block"][player] = policy
        return [{"type": "block_policy", "player": player, "policy": self.policy_text(policy), "to": player}]

    def policy_text(self, policy: dict) -> str:
        if policy["mode"] == "any":
            return "block any steal"
        if policy["mode"] == "never":
            return "never block"
        parts = []
        if policy["gods"]:
            parts.append("block steals of " + ", ".join(self.names(policy["gods"])))
        if policy["by"]:
            parts.append("block steals by " + ", ".join(policy["by"]))
        return "; ".join(parts)

    def wants_block(self, g: dict, victim: str, thief: str, target: str) -> bool:
        policy = g["block"][victim]
        if policy["mode"] == "any":
            return True
        if policy["mode"] == "never":
            return False
        return target in policy["gods"] or thief in policy["by"]

    def _steal(self, g: dict, player: str, p: tuple, rng: Rng) -> list[Event]:
        _, victim, target, give = p
        if g.get("preview"):
            self._uncertain(rng)  # the victim may hold a Block: what follows depends on it
        blocks = [c for c in g["hands"][victim] if self.effect(c) == "block"]
        events: list[Event] = []
        if blocks and self.wants_block(g, victim, player, target):
            card = blocks[0]
            g["hands"][victim].remove(card)
            g["discard"].append(card)
            return [{"type": "blocked", "player": player, "victim": victim, "god": self.name(target),
                     "policy": self.policy_text(g["block"][victim])}]
        if blocks:
            events.append({"type": "not_blocked", "player": victim, "thief": player, "god": self.name(target),
                           "policy": self.policy_text(g["block"][victim]), "to": victim})
        mine, theirs = g["altars"][player], g["altars"][victim]
        theirs.remove(target)
        mine.append(target)
        for c in give:
            mine.remove(c)
            theirs.append(c)
        events.append({"type": "steal", "player": player, "victim": victim, "god": self.name(target),
                       "gave": self.names(give)})
        return events

    def _mastery(self, state: dict, player: str, p: tuple, rng: Rng) -> list[Event]:
        g = state["game"]
        d, ability = p[1], p[2]
        g["turn"]["free_used"].append(d)
        hand, altar = g["hands"][player], g["altars"][player]
        ev: Event = {"type": "mastery_used", "player": player, "domain": self.element_names[d], "ability": ability}
        events: list[Event] = [ev]
        if ability == "extra_action":
            g["turn"]["actions_left"] += 1
            ev["actions_left"] = g["turn"]["actions_left"]
        elif ability == "free_play":
            card = p[3]
            hand.remove(card)
            altar.append(card)
            ev["card"] = self.name(card)
        elif ability == "cycle":
            card = p[3]
            hand.remove(card)
            g["discard"].append(card)
            ev["card"] = self.name(card)
            events += self._draw(state, player, 1, rng)
        elif ability == "discard_swap":
            card = p[3]
            top = g["discard"].pop()
            hand.remove(card)
            hand.append(top)
            g["discard"].append(card)
            ev.update(card=self.name(card), took=self.name(top))
        elif ability == "raise":
            top = g["discard"].pop()
            altar.append(top)
            ev["card"] = self.name(top)
        elif ability == "altar_swap":
            a, h = p[3], p[4]
            altar[altar.index(a)] = h
            hand[hand.index(h)] = a
            ev.update(card=self.name(a), played=self.name(h))
        else:  # pragma: no cover
            raise ValueError(f"unknown ability {ability}")
        return events

    # --- checking orders without hidden information ----------------------------------------------
    def preview_state(self, state, player):
        """Orders are checked against a position in which everything `player` may not see is
        an unseen card: other hands, the deck, other players' face-down sets, their standing
        orders. So an acknowledgement cannot reveal a hidden card or whether a steal will be
        blocked; what depends on them is accepted 'if the cards allow'."""
        g = state["game"]
        g["preview"] = True
        g["deck"] = [HIDDEN] * len(g["deck"])
        for p in g["players"]:
            if p == player:
                continue
            g["hands"][p] = [HIDDEN] * len(g["hands"][p])
            g["sets"][p] = [{"element": s["element"], "cards": [HIDDEN] * len(s["cards"])} for s in g["sets"][p]]
            g["block"][p] = self._policy("never")
        return state

    # --- bots ------------------------------------------------------------------------------------
    def bot_choice(self, state, player, legal, rng):
        """Random, but biased so that play-outs move on: form whole sets, steal now and then,
        play gods, and pass only when nothing else is legal."""
        by: dict[str, list[Order]] = {}
        for o in legal:
            by.setdefault(o.verb, []).append(o)
        whole = [o for o in by.get("form", []) if len(o.tokens) == 2]
        if whole and rng.random() < 0.85:
            return rng.choice(whole)
        if by.get("steal") and rng.random() < 0.4:
            return rng.choice(by["steal"])
        if by.get("mastery") and rng.random() < 0.3:
            return rng.choice(by["mastery"])
        if by.get("play") and rng.random() < 0.85:
            return rng.choice(by["play"])
        if by.get("discard"):
            return rng.choice(by["discard"])
        rest = [o for o in legal if o.verb != "pass"]
        return rng.choice(rest) if rest else legal[0]

    # --- views and scores --------------------------------------------------------------------------
    def scores(self, state):
        """The running totals: sets are face-down until the hand is scored."""
        return dict(state["game"]["scores"])

    def view(self, state, player):
        g = state["game"]
        t = g["turn"]
        top = g["discard"][-1] if g["discard"] else None
        view = {
            "hand_number": g["hand"],
            "hands": self.r["hands"],
            "first": g["first"],
            "turn": {"player": t["player"], "actions_left": t["actions_left"],
                     "free_used": [self.element_names[d] for d in t["free_used"]]},
            "final": dict(g["final"], remaining=list(g["final"]["remaining"])) if g["final"] else None,
            "deck_count": len(g["deck"]),
            "discard_count": len(g["discard"]),
            "discard_top": self.card_info(top) if top else None,
            "players": [
                {
                    "name": p,
                    "hand_count": len(g["hands"][p]),
                    "altar": [self.card_info(c) for c in g["altars"][p]],
                    "sets": [{"element": self.element_names[s["element"]], "size": len(s["cards"])}
                             for s in g["sets"][p]],
                    "sanctuary": bool(g["sanctuary"][p]),
                    "mastery": [self.element_names[d] for d in self.domains if g["mastery"][d] == p],
                    "score": g["scores"][p],
                }
                for p in g["players"]
            ],
            "mastery": [{"domain": self.element_names[d], "holder": g["mastery"][d], "text": self.domains[d]["text"]}
                        for d in self.domains],
            "scores": dict(g["scores"]),
            "history": [{"hand": h["hand"], "first": h["first"], "scores": dict(h["scores"])} for h in g["history"]],
            "last_hand": [{"player": p, "sets": g["history"][-1].get("revealed", {}).get(p, [])} for p in g["players"]]
            if g["history"] else None,
            "ruler_points": self.r["ruler_points"],
        }
        if player is not None and player in g["players"]:
            view["you"] = player
            view["hand"] = [self.card_info(c) for c in g["hands"][player]]
            view["my_sets"] = []
            for s in g["sets"][player]:
                pts, parts, bonus = self.set_points(s)
                view["my_sets"].append({"element": self.element_names[s["element"]],
                                        "cards": self.names(s["cards"]), "points": pts})
            view["block"] = self.policy_text(g["block"][player])
            view["blocks_held"] = sum(1 for c in g["hands"][player] if self.effect(c) == "block")
            view["options"] = self._options(state, player) if player in state["flow"]["active"] else None
        return view

    def _options(self, state: dict, player: str) -> dict:
        """What the order form lists: the sets you could form now and the steals open to you."""
        g = state["game"]
        sets = []
        if len(g["sets"][player]) < self.r["max_sets"]:
            for e, pool in self.set_pools(g["altars"][player]):
                pts = self.set_points({"element": e, "cards": pool})[0]
                sets.append({"order": f"form {e}", "element": self.element_names[e], "cards": self.names(pool),
                             "points": pts})
        steals: dict[tuple, dict] = {}
        for o in self._steal_orders(g, player):
            _, v, target, give = o.payload
            entry = steals.setdefault((v, target), {"god": self.name(target), "token": self.tok(target), "from": v,
                                                     "give": []})
            for c in give:
                if self.name(c) not in entry["give"]:
                    entry["give"].append(self.name(c))
        need, give = self.steal_needs(g, player)
        return {"sets": sets, "steals": list(steals.values()), "give": give}

    def outcome(self, state):
        return state["flow"].get("outcome")


RULES = OhGodsRules
