"""Ye Gods! (Scott Miller, 2009): rules text in shared/rules/ye-gods.md, data in data.toml.

Pure: state in, state and events out. The shape every game module has: game info, grammar,
the Rules class (set-up, flow, legal orders, apply, views, scores), registration.

A round: each player's god takes a turn (steps 1-6) in the rolled turn order, then the
Unknown God (2 and 3 players) under its rotating controller, then end-of-round housekeeping.
Every god's turn is one phase asking one player. A turn opens eagerly: its card is drawn
(and played at once if it must be) before the player is asked, so the report shows it; a
card that needs a choice (Saint, Heretic, Miracle, Martyr, Impiety) takes it from the turn's
first order. Later orders walk through the steps in the text's order: buying (2), movement
(3), Holy Wars (4), adding worshippers (5); `done` finishes the turn (6). Cards held in hand
(Act of God, Conversion, Temple) may be played at any point before `done`.
"""

from __future__ import annotations

from pbem.core.engine import Event, GameInfo, Request, Rules
from pbem.core.errors import DataError
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng

GAME_INFO = GameInfo(
    name="yegods",
    title="Ye Gods!",
    min_players=2,
    max_players=4,
    options={
        "gods": "the gods in seat order, e.g. gods=odin,jupiter (default: players named after gods play "
                "them; otherwise seat order jupiter, odin, lugus, jehovah)",
        "unknown": "the Unknown God of a 2- or 3-player game: an unused god's name, or 'none' "
                   "(3 players only; default: the first unused god)",
    },
)

HELD = ("act-of-god", "conversion", "temple")          # kept in hand, played as orders
CHOICE = ("saint", "heretic", "miracle", "martyr", "impiety")  # played at once, with a choice
AUTO = ("donative", "pillage", "schism")               # played at once, no choice
KINDS = HELD + CHOICE + AUTO
KIND_TITLE = {
    "act-of-god": "Act of God", "conversion": "Conversion", "temple": "Temple", "saint": "Saint",
    "martyr": "Martyr", "heretic": "Heretic", "donative": "Donative", "pillage": "Pillage",
    "miracle": "Miracle", "schism": "Schism", "impiety": "Impiety",
}
OPT_MOVE, OPT_ARROW, OPT_WAR, OPT_PLAY = frozenset({2, 4}), frozenset({3}), frozenset({2}), frozenset({2})
STEP_NAMES = {1: "draw", 2: "buy", 3: "movement", 4: "holy war", 5: "add worshippers", 6: "over"}

CHOICE_USAGE = {
    "saint": "saint PROVINCE (one you own)",
    "heretic": "heretic PROVINCE (any owned province)",
    "miracle": "miracle PROVINCE (one you own)",
    "martyr": "martyr GOD priest|saint PLACE",
    "impiety": "impiety priest PROVINCE [worshippers PROVINCE]",
}
VERBS = {
    "priest": ("word", "set-up: place your starting priest on one of your starting provinces"),
    "buy": ("word word?", "step 2, 5 donatives each: `buy priest [PROVINCE]` (in a province you own) or `buy card`"),
    "move": ("int? word word? ->? word",
             "step 3, one step: `move N [worshippers] FROM -> TO` (at most half of a province's start), "
             "`move priest FROM -> TO`, `move saint FROM -> TO`"),
    "holywar": ("word ->? word word? int? word? word?",
                "step 4: `holywar FROM -> TO [losses [N] from PROVINCE]` (if you lose: your losses come from PROVINCE "
                "first, or at most N from it, the rest from the other)"),
    "play": ("word int? word word? word?",
             "a card in your hand: `play act-of-god [worshippers] GOD PROVINCE`, `play act-of-god priest|saint GOD PLACE`, "
             "`play act-of-god heretic PROVINCE`, `play conversion [N] GOD PROVINCE`, `play temple [N] PROVINCE`"),
    "saint": ("word", "Saint card drawn: place the saint in a province you own"),
    "heretic": ("word", "Heretic card drawn: place the heretic in any owned province"),
    "miracle": ("word", "Miracle card drawn: the province you own that gets the worshippers"),
    "martyr": ("word word word", "Martyr card drawn: `martyr GOD priest|saint PLACE` (any god's, even your own)"),
    "impiety": ("word? word word? word?",
                "Impiety card drawn: `impiety priest PROVINCE` (which of your priests goes), "
                "`... worshippers PROVINCE` when your largest count is tied"),
    "vision": ("int word", "step 5, a saint's Vision: `vision N PROVINCE` places N of the 20 worshippers in a province you own"),
    "done": ("", "step 6: your turn is over (anything not yet done is done by default; so is stopping with END)"),
}
BASE_ALIASES = {
    "to": "->", "attack": "holywar", "war": "holywar", "pass": "done", "over": "done", "finish": "done",
    "worshipers": "worshippers", "worshiper": "worshippers", "worshipper": "worshippers",
    "actofgod": "act-of-god", "aog": "act-of-god", "priests": "priest", "saints": "saint",
    "heretics": "heretic", "cards": "card", "loss": "losses", "lose": "losses",
}


def _validate(data: dict) -> dict:
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


class YeGodsRules(Rules):
    info = GAME_INFO

    def __init__(self, data: dict):
        super().__init__(_validate(data))
        self.p = data["pieces"]
        self.r = data["rules"]
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
        self._move_cache: dict[tuple, Order] = {}  # orders are immutable: build each once
        self._war_cache: dict[tuple, Order] = {}
        self.cards: dict[int, dict] = {}  # numbered 1-90 in the data file's order
        n = 0
        for kind in data["deck"]:
            spec = data["deck"][kind]
            values = spec if isinstance(spec, list) else [None] * int(spec)
            for v in values:
                n += 1
                self.cards[n] = {"kind": kind, "value": v}
        aliases = dict(BASE_ALIASES)
        self.names: dict[str, str] = {}  # every name or alias -> canonical (gods and places)
        for entry in [*data["provinces"], *data["deserts"], *data["gods"]]:
            for word in [entry["name"], *entry.get("aliases", [])]:
                self.names[word] = entry["name"]
                if word != entry["name"]:
                    aliases[word] = entry["name"]
        self.grammar = Grammar(verbs=dict(VERBS), aliases=aliases)

    # --- small helpers -------------------------------------------------------------------
    def card_name(self, card: int) -> str:
        c = self.cards[card]
        return KIND_TITLE[c["kind"]] + (f" {c['value']}" if c["value"] is not None else "")

    @staticmethod
    def count(g: dict, place: str, god: str) -> int:
        return g["board"].get(place, {}).get(god, 0)

    @staticmethod
    def _put(g: dict, place: str, god: str, n: int) -> None:
        cell = g["board"].setdefault(place, {})
        cell[god] = cell.get(god, 0) + n
        if cell[god] <= 0:
            del cell[god]

    def create(self, g: dict, place: str, god: str, n: int) -> int:
        """Take up to n worshippers from the pool into `place` for `god`; returns how many."""
        n = max(0, min(n, g["supply"]["worshippers"]))
        if n:
            g["supply"]["worshippers"] -= n
            self._put(g, place, god, n)
        return n

    def kill(self, g: dict, place: str, god: str, n: int) -> int:
        """Remove up to n of god's worshippers in place back to the pool; returns how many."""
        n = max(0, min(n, self.count(g, place, god)))
        if n:
            self._put(g, place, god, -n)
            g["supply"]["worshippers"] += n
        return n

    def owned(self, g: dict, god: str) -> list[str]:
        return [p for p in self.provinces if g["owner"].get(p) == god]

    @staticmethod
    def priests_at(g: dict, god: str, place: str) -> int:
        return g["priests"].get(god, {}).get(place, 0)

    @staticmethod
    def priests_on_board(g: dict, god: str) -> int:
        return sum(g["priests"].get(god, {}).values())

    @staticmethod
    def saints_at(g: dict, god: str, place: str) -> int:
        return sum(1 for s in g["saints"].get(god, []) if s["at"] == place)

    def total(self, g: dict, god: str) -> int:
        return sum(cell.get(god, 0) for cell in g["board"].values())

    def who(self, g: dict, god: str) -> str:
        player = g["player_of"].get(god)
        return f"{self.god_title[god]} ({player})" if player else f"{self.god_title[god]} (the Unknown God)"

    def in_play(self, g: dict) -> list[str]:
        return [god for god in g["gods"] if god not in g["out"]]

    def recount(self, g: dict) -> dict[str, str | None]:
        """Who owns each province by the worshippers there now (ties and empty: nobody)."""
        out = {}
        for p in self.provinces:
            cell = g["board"].get(p, {})
            best = max(cell.values(), default=0)
            leaders = [god for god, n in cell.items() if n == best and n > 0]
            out[p] = leaders[0] if len(leaders) == 1 else None
        return out

    def controller(self, g: dict) -> str | None:
        """The player ordering for the Unknown God this round (None: no Unknown God)."""
        if not g["unknown"] or g["unknown"] in g["out"]:
            return None
        return g["controller"] or self._next_controller(g, None)

    def _next_controller(self, g: dict, previous: str | None) -> str | None:
        """The God that moves last in regular play moves the shared faction first; then the
        gods in reverse order of play (skipping gods passed into myth)."""
        order = g["order"]
        alive = [god for god in order if god not in g["out"]]
        if not alive:
            return None
        if previous is None or g["god_of"].get(previous) not in order:
            return g["player_of"][alive[-1]]
        i = order.index(g["god_of"][previous])
        for step in range(1, len(order) + 1):
            god = order[(i - step) % len(order)]
            if god not in g["out"]:
                return g["player_of"][god]
        return None  # pragma: no cover

    # --- set-up --------------------------------------------------------------------------
    def _assign(self, players: list[str], options: dict[str, str]) -> tuple[dict[str, str], str | None]:
        unknown = set(options) - set(self.info.options)
        if unknown:
            raise DataError(f"yegods: unknown option(s) {', '.join(sorted(unknown))}; known: gods, unknown")
        n = len(players)
        if "gods" in options:
            words = [w.strip().lower() for w in options["gods"].split(",") if w.strip()]
            chosen = [self.names.get(w) for w in words]
            if len(words) != n or any(c not in self.gods for c in chosen) or len(set(chosen)) != n:
                raise DataError(f"yegods: option gods must name {n} different gods ({', '.join(self.gods)}), "
                                f"one per player in seat order; got '{options['gods']}'")
        elif all(self.names.get(p) in self.gods for p in players) and len({self.names[p] for p in players}) == n:
            chosen = [self.names[p] for p in players]
        else:
            chosen = self.gods[:n]
        god_of = dict(zip(players, chosen))
        unused = [god for god in self.gods if god not in chosen]
        want = options.get("unknown", "").strip().lower()
        if n == 4:
            if want and want != "none":
                raise DataError("yegods: a 4-player game has no Unknown God")
            return god_of, None
        if want == "none":
            if n == 2:
                raise DataError("yegods: a 2-player game always has the Unknown God as its third faction")
            return god_of, None
        if want:
            god = self.names.get(want)
            if god not in unused:
                raise DataError(f"yegods: option unknown must be an unused god ({', '.join(unused)}) or none; got '{want}'")
            return god_of, god
        return god_of, unused[0]

    def _rolloff(self, gods: list[str], rng: Rng, events: list[Event], attempt: int = 1) -> list[str]:
        """Each god rolls 1d6, high first; tied gods re-roll among themselves."""
        rolls = {god: rng.die(6) for god in gods}
        events.append({"type": "rolloff", "attempt": attempt, "rolls": rolls})
        out: list[str] = []
        for value in sorted(set(rolls.values()), reverse=True):
            tied = [god for god in gods if rolls[god] == value]
            out += tied if len(tied) == 1 else self._rolloff(tied, rng, events, attempt + 1)
        return out

    def setup(self, players, options, rng: Rng):
        god_of, unknown = self._assign(list(players), options)
        gods = [god_of[p] for p in players] + ([unknown] if unknown else [])
        board: dict[str, dict[str, int]] = {p: {} for p in self.provinces}
        pool = int(self.p["worshippers"])
        for god in gods:
            for prov in self.start[god]:
                board[prov][god] = int(self.p["start_worshippers"])
                pool -= int(self.p["start_worshippers"])
        events: list[Event] = [{"type": "setup", "gods": {p: god_of[p] for p in players}, "unknown": unknown}]
        order = self._rolloff([god_of[p] for p in players], rng, events)
        events.append({"type": "turn_order", "order": order})
        player_of: dict[str, str | None] = {god_of[p]: p for p in players}
        if unknown:
            player_of[unknown] = None
        game = {
            "players": list(players),
            "gods": gods,
            "player_of": player_of,
            "god_of": god_of,
            "unknown": unknown,
            "order": order,
            "round": 0,
            "board": board,
            "owner": {},
            "priests": {god: {} for god in gods},
            "saints": {god: [] for god in gods},
            "heretics": {},
            "supply": {
                "worshippers": pool,
                "priests": {god: int(self.p["priests_per_god"]) for god in gods},
                "saints": {god: int(self.p["saints_per_god"]) for god in gods},
                "heretics": int(self.p["heretics"]),
                "donatives": int(self.p["donatives"]),
            },
            "donatives": {god: 0 for god in gods},
            "hands": {god: [] for god in gods},
            "deck": sorted(self.cards),
            "discard": [],
            "visions": {god: False for god in gods},
            "temples": {god: [] for god in gods},
            "out": [],
            "queue": [],
            "controller": None,
            "place": {},
            "turn": {**self._fresh_turn(None, None), "opened": True},
        }
        game["owner"] = self.recount(game)
        # Set-up step 3: every god places its starting priest (a sealed, simultaneous phase);
        # the Unknown God's is placed by its first controller, the last in turn order.
        # A god with a single starting province (Jehovah) has no choice: its priest goes there.
        place: dict[str, list[str]] = {p: [] for p in players}
        for god in gods:
            placer = player_of[god] if god != unknown else player_of[order[-1]]
            if len(self.start[god]) == 1:
                self._place_priest(game, god, self.start[god][0])
                events.append({"type": "start_priest", "god": god, "at": self.start[god][0], "only": True})
            else:
                place[placer].append(god)
        game["place"] = place
        active = [p for p in players if place[p]]
        state = {"flow": {"phase": "setup", "active": active, "sealed": True, "over": False,
                          "prompt": "Set-up: place your starting priest on one of your starting provinces (`priest PROVINCE`)"},
                 "game": game}
        return state, events

    def requests(self, state):
        """As the engine's, with each player's own prompt at set-up (who places which priests)."""
        flow, g = state["flow"], state["game"]
        if flow.get("over"):
            return []
        out = []
        for p in flow["active"]:
            prompt = flow.get("prompt", "")
            if flow["phase"] == "setup":
                gods = g["place"].get(p, [])
                prompt = ("Set-up: place the starting priest of " + " and of ".join(
                    f"{self.god_title[x]}{' (the Unknown God)' if x == g['unknown'] else ''} on one of its starting "
                    f"provinces ({', '.join(self.start[x])})" for x in gods)
                    + ": one `priest PROVINCE` line for each")
            out.append(Request(p, flow["phase"], prompt, flow.get("sealed", False)))
        return out

    # --- flow ----------------------------------------------------------------------------
    def advance(self, state: dict, rng: Rng) -> list[Event]:
        flow, g = state["flow"], state["game"]
        if flow.get("over"):
            return []
        if flow["phase"] == "setup" and not flow["active"]:
            flow["phase"] = "between"
            flow["sealed"] = False
            return [{"type": "priests_placed"}] + self._next_turn(state, rng)
        if flow["phase"] == "between":
            return self._next_turn(state, rng)
        t = g["turn"]
        if flow["phase"] in ("turn", "unknown") and t and not t.get("opened"):
            return self._open_turn(state, rng)
        return []

    def _next_turn(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        if not g["queue"]:
            if g["round"] > 0:
                events += self._end_round(state)
                if state["flow"].get("over"):
                    return events
            g["round"] += 1
            g["temples"] = {god: [] for god in g["gods"]}
            if g["unknown"] and g["unknown"] not in g["out"]:
                g["controller"] = self._next_controller(g, g["controller"] if g["round"] > 1 else None)
            g["queue"] = [god for god in g["order"] if god not in g["out"]]
            if g["unknown"] and g["unknown"] not in g["out"]:
                g["queue"].append(g["unknown"])
            events.append({"type": "round", "round": g["round"], "order": list(g["queue"]),
                           "controller": self.controller(g),
                           "unknown": g["unknown"]})
        god = g["queue"].pop(0)
        unknown = god == g["unknown"]
        player = self.controller(g) if unknown else g["player_of"][god]
        g["turn"] = self._fresh_turn(god, player)
        rnd = g["round"]
        if unknown:
            prompt = (f"{player}: this round you order for the Unknown God, {self.god_title[god]}: "
                      f"your orders now are {self.god_title[god]}'s turn (round {rnd})")
        else:
            prompt = f"{player}: your turn as {self.god_title[god]} (round {rnd})"
        state["flow"].update(phase="unknown" if unknown else "turn", active=[player], sealed=False, prompt=prompt)
        return events + self._open_turn(state, rng)

    @staticmethod
    def _fresh_turn(god: str, player: str) -> dict:
        return {"god": god, "player": player, "opened": False, "step": 1, "pending": None,
                "start": {}, "moved_out": {}, "moved_in": {}, "moved_priests": {},
                "sources": [], "fought": {}, "vision": None}

    def _open_turn(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        t = g["turn"]
        t["opened"] = True
        events: list[Event] = [{"type": "turn", "god": t["god"], "player": t["player"], "round": g["round"],
                                "unknown": t["god"] == g["unknown"]}]
        # Step 1: draw a card; play it at once if it must be.
        events += self._draw(state, t["god"], rng, bought=False)
        return events

    def _draw(self, state: dict, god: str, rng: Rng, bought: bool) -> list[Event]:
        g = state["game"]
        t = g["turn"]
        events: list[Event] = []
        if not g["deck"]:
            if not g["discard"]:
                return [{"type": "no_card", "god": god}]
            g["deck"] = sorted(g["discard"])
            g["discard"] = []
            events.append({"type": "reshuffle", "cards": len(g["deck"])})
        i = rng.randbelow(len(g["deck"])) if len(g["deck"]) > 1 else 0
        card = g["deck"].pop(i)
        kind = self.cards[card]["kind"]
        if kind in HELD:
            g["hands"][god].append(card)
            g["hands"][god].sort()
            events.append({"type": "draw", "god": god, "bought": bought, "kept": True, "hand": len(g["hands"][god])})
            events.append({"type": "draw_private", "god": god, "card": card, "name": self.card_name(card),
                           "to": t["player"]})
            return events
        events.append({"type": "draw", "god": god, "bought": bought, "kept": False, "card": card,
                       "name": self.card_name(card), "hand": len(g["hands"][god])})
        if kind in AUTO:
            events += self._auto_card(state, god, card)
            g["discard"].append(card)
            return events
        if not self._choices(g, god, card):
            g["discard"].append(card)
            events.append({"type": "no_effect", "god": god, "card": card, "name": self.card_name(card),
                           "reason": self._why_no_effect(g, god, kind)})
            return events
        if kind == "impiety" and not self._impiety_needs_choice(g, god):
            events += self._impiety(g, god, card, None, None)
            g["discard"].append(card)
            return events
        t["pending"] = card
        return events

    # --- cards played at once -------------------------------------------------------------
    def _auto_card(self, state: dict, god: str, card: int) -> list[Event]:
        g = state["game"]
        c = self.cards[card]
        kind, value = c["kind"], c["value"]
        if kind == "donative":
            gain = min(value, g["supply"]["donatives"])
            g["supply"]["donatives"] -= gain
            g["donatives"][god] += gain
            return [{"type": "donative", "god": god, "value": value, "gained": gain, "to_all": True}]
        if kind == "pillage":
            lose = min(value, g["donatives"][god])
            g["donatives"][god] -= lose
            g["supply"]["donatives"] += lose
            return [{"type": "pillage", "god": god, "value": value, "lost": lose}]
        # schism: half (round down) of the god's worshippers in every province
        losses = {}
        for p in self.provinces:
            n = self.count(g, p, god) // 2
            if n:
                losses[p] = self.kill(g, p, god, n)
        return [{"type": "schism", "god": god, "losses": losses, "total": sum(losses.values())}]

    def _saint_room(self, g: dict, god: str) -> bool:
        return len(g["saints"][god]) < int(self.p["saints_on_board"]) and g["supply"]["saints"][god] > 0

    def _why_no_effect(self, g: dict, god: str, kind: str) -> str:
        if kind == "saint":
            if len(g["saints"][god]) >= int(self.p["saints_on_board"]):
                return f"{self.god_title[god]} already has {self.p['saints_on_board']} saints on the board"
            if g["supply"]["saints"][god] <= 0:
                return "no saint is left in the supply"
            return "the god owns no province"
        if kind == "heretic":
            return "no heretic is left" if g["supply"]["heretics"] <= 0 else "no province is owned"
        if kind == "miracle":
            return "the god owns no province"
        if kind == "martyr":
            return "no god has a priest or saint on the board"
        if kind == "impiety":
            return "the god has neither worshippers nor priests"
        return "it cannot be played"

    def _impiety_targets(self, g: dict, god: str) -> tuple[list[str], list[str]]:
        """(provinces holding the god's largest count, provinces with the god's priests)."""
        counts = {p: self.count(g, p, god) for p in self.provinces}
        best = max(counts.values(), default=0)
        most = [p for p, n in counts.items() if n == best and n > 0]
        priests = [p for p in self.places if self.priests_at(g, god, p) > 0]
        return most, priests

    def _impiety_needs_choice(self, g: dict, god: str) -> bool:
        most, priests = self._impiety_targets(g, god)
        return len(most) > 1 or len(priests) > 0

    def _choices(self, g: dict, god: str, card: int) -> list[Order]:
        """The orders that play a must-play card needing a choice (empty: no effect)."""
        kind = self.cards[card]["kind"]
        out: list[Order] = []
        if kind == "saint":
            if self._saint_room(g, god):
                out = [Order(("saint", p), ("saint", p)) for p in self.owned(g, god)]
        elif kind == "heretic":
            if g["supply"]["heretics"] > 0:
                out = [Order(("heretic", p), ("heretic", p)) for p in self.provinces if g["owner"].get(p)]
        elif kind == "miracle":
            out = [Order(("miracle", p), ("miracle", p)) for p in self.owned(g, god)]
        elif kind == "martyr":
            for other in g["gods"]:
                for p in self.places:
                    if self.priests_at(g, other, p):
                        out.append(Order(("martyr", other, "priest", p), ("martyr", other, "priest", p)))
                    if self.saints_at(g, other, p):
                        out.append(Order(("martyr", other, "saint", p), ("martyr", other, "saint", p)))
        elif kind == "impiety":
            most, priests = self._impiety_targets(g, god)
            if len(most) > 1 and priests:
                out = [Order(("impiety", "priest", pr, "worshippers", w), ("impiety", pr, w), frozenset({1, 3}))
                       for pr in priests for w in most]
            elif priests:
                out = [Order(("impiety", "priest", pr), ("impiety", pr, most[0] if most else None), frozenset({1}))
                       for pr in priests]
            elif len(most) > 1:
                out = [Order(("impiety", "worshippers", w), ("impiety", None, w), frozenset({1})) for w in most]
            elif most:
                out = [Order(("impiety",), ("impiety", None, most[0]))]
        return out

    def _impiety(self, g: dict, god: str, card: int, priest_at: str | None, from_at: str | None) -> list[Event]:
        value = self.cards[card]["value"]
        if from_at is None:
            most, _ = self._impiety_targets(g, god)
            from_at = most[0] if most else None
        removed = self.kill(g, from_at, god, value) if from_at else 0
        if priest_at:
            self._remove_priest(g, god, priest_at)
        return [{"type": "impiety", "god": god, "value": value, "from": from_at, "removed": removed,
                 "priest": priest_at}]

    def _remove_priest(self, g: dict, god: str, place: str) -> None:
        here = g["priests"][god]
        here[place] -= 1
        if here[place] <= 0:
            del here[place]
        g["supply"]["priests"][god] += 1
        moved = g["turn"].get("moved_priests", {}) if g["turn"].get("god") == god else {}
        if moved.get(place, 0) > here.get(place, 0):
            moved[place] = here.get(place, 0)

    def _remove_saint(self, g: dict, god: str, place: str) -> None:
        # CHOICE: of several saints in one place, the one that has stayed the shortest goes.
        here = [s for s in g["saints"][god] if s["at"] == place]
        victim = min(here, key=lambda s: (s["turns"], not s["moved"]))
        g["saints"][god].remove(victim)
        g["supply"]["saints"][god] += 1

    # --- legal orders --------------------------------------------------------------------
    def _acting(self, state: dict, player: str) -> tuple[dict, str] | None:
        """(turn, god) if `player` is asked to order for a god's turn now."""
        flow, g = state["flow"], state["game"]
        if flow.get("over") or player not in flow.get("active", []) or flow["phase"] not in ("turn", "unknown"):
            return None
        t = g["turn"]
        if not t or t.get("player") != player:
            return None
        return t, t["god"]

    def legal_orders(self, state, player):
        flow, g = state["flow"], state["game"]
        if flow.get("over") or player not in flow.get("active", []):
            return []
        if flow["phase"] == "setup":
            return [Order(("priest", p), ("priest", god, p))
                    for god in g["place"].get(player, []) for p in self.start[god]]
        acting = self._acting(state, player)
        if not acting:
            return []
        t, god = acting
        if t["pending"] is not None:
            return self._choices(g, god, t["pending"])
        orders: list[Order] = []
        step = t["step"]
        if step <= 2:
            orders += self._buy_orders(g, god)
        if step <= 3:
            orders += self._move_orders(g, t, god)
        if step <= 4:
            orders += self._war_orders(g, t, god)
        if step <= 5:
            orders += self._vision_orders(g, t, god)
        orders += self._play_orders(g, god)
        orders.append(Order(("done",), ("done",)))
        return orders

    def _can_buy_priest(self, g: dict, god: str) -> bool:
        return (g["donatives"][god] >= int(self.r["priest_cost"]) and g["supply"]["priests"][god] > 0
                and self.priests_on_board(g, god) < len(self.owned(g, god)))

    def _best_owned(self, g: dict, god: str) -> str | None:
        owned = self.owned(g, god)
        return max(owned, key=lambda p: (self.count(g, p, god), -self.provinces.index(p))) if owned else None

    def _buy_orders(self, g: dict, god: str) -> list[Order]:
        out = []
        if self._can_buy_priest(g, god):
            out.append(Order(("buy", "priest"), ("buy_priest", self._best_owned(g, god))))
            out += [Order(("buy", "priest", p), ("buy_priest", p)) for p in self.owned(g, god)]
        if g["donatives"][god] >= int(self.r["card_cost"]) and (g["deck"] or g["discard"]):
            out.append(Order(("buy", "card"), ("buy_card",)))
        return out

    def movable(self, g: dict, t: dict, god: str, place: str) -> int:
        """How many of god's worshippers may still move out of `place` this turn: up to half
        the starting total (noted when movement begins), never the last one, never one that
        moved in."""
        here = g["board"].get(place, {}).get(god, 0)
        start = t["start"].get(place, 0) if t["step"] == 3 else here
        left = start // 2 - t["moved_out"].get(place, 0)
        return max(0, min(left, here - t["moved_in"].get(place, 0), here - 1))

    def _may_enter(self, g: dict, god: str, place: str) -> bool:
        return place in self.provinces and g["owner"].get(place) in (None, god)

    def _move_orders(self, g: dict, t: dict, god: str) -> list[Order]:
        out = []
        owner, board = g["owner"], g["board"]
        started = t["step"] == 3
        start, moved_out, moved_in = t["start"], t["moved_out"], t["moved_in"]
        cache = self._move_cache
        for src in self.provinces:
            here = board.get(src, {}).get(god, 0)
            if here < 2:
                continue
            first = start.get(src, 0) if started else here
            n = min(first // 2 - moved_out.get(src, 0), here - moved_in.get(src, 0), here - 1)
            if n <= 0:
                continue
            targets = [dst for dst in self.padj[src] if owner.get(dst) in (None, god)]
            for k in range(n, 0, -1):
                for dst in targets:
                    order = cache.get((k, src, dst))
                    if order is None:
                        order = cache[(k, src, dst)] = Order(("move", str(k), "worshippers", src, "->", dst),
                                                             ("move_w", k, src, dst), OPT_MOVE)
                    out.append(order)
        moved = t["moved_priests"]
        mine = g["priests"][god]
        for src in self.provinces:
            if mine.get(src, 0) - moved.get(src, 0) > 0:
                for dst in self.padj[src]:
                    out.append(Order(("move", "priest", src, "->", dst), ("move_p", src, dst), OPT_ARROW))
        seen = set()
        for s in g["saints"][god]:
            if s["moved"] or s["at"] in seen:
                continue
            seen.add(s["at"])
            for dst in self.adj[s["at"]]:
                out.append(Order(("move", "saint", s["at"], "->", dst), ("move_s", s["at"], dst), OPT_ARROW))
        return out

    def war_eligible(self, g: dict, t: dict, god: str, place: str) -> int:
        """god's worshippers in `place` that have not fought this turn."""
        return max(0, g["board"].get(place, {}).get(god, 0) - t["fought"].get(place, 0))

    def _war_orders(self, g: dict, t: dict, god: str) -> list[Order]:
        out = []
        owner, board, fought, sources = g["owner"], g["board"], t["fought"], t["sources"]
        for src in self.provinces:
            if src in sources or board.get(src, {}).get(god, 0) - fought.get(src, 0) < 2:
                continue
            for dst in self.padj[src]:
                defender = owner.get(dst)
                if defender is None or defender == god or board.get(dst, {}).get(god, 0) < 1:
                    continue
                out.append(Order(("holywar", src, "->", dst), ("holywar", src, dst, src, None), OPT_WAR))
                caps = {src: board[src][god] - fought.get(src, 0), dst: board[dst][god]}
                cache = self._war_cache
                for first in (src, dst):
                    out.append(Order(("holywar", src, "->", dst, "losses", "from", first),
                                     ("holywar", src, dst, first, None), OPT_WAR))
                    # any combination: at most N from one province, the rest from the other
                    for n in range(caps[first], -1, -1):
                        key_ = (src, dst, first, n)
                        order = cache.get(key_)
                        if order is None:
                            order = cache[key_] = Order(("holywar", src, "->", dst, "losses", str(n), "from", first),
                                                        ("holywar", src, dst, first, n), OPT_WAR)
                        out.append(order)
        return out

    def vision_due(self, g: dict, god: str) -> bool:
        """Whether a saint of god gets a Vision at this turn's Add Worshippers step, if it stays."""
        if g["visions"].get(god):
            return False
        need = int(self.r["vision_turns"])
        return any(s["at"] in self.deserts and not s["moved"] and s["turns"] + 1 >= need for s in g["saints"][god])

    def _vision_orders(self, g: dict, t: dict, god: str) -> list[Order]:
        if t["vision"] is not None:
            left = t["vision"]
        elif t["step"] < 5 and self.vision_due(g, god):
            left = int(self.r["vision_worshippers"])
        else:
            return []
        return [Order(("vision", str(k), p), ("vision", k, p)) for p in self.owned(g, god) for k in range(left, 0, -1)]

    def _play_orders(self, g: dict, god: str) -> list[Order]:
        out: list[Order] = []
        if not g["hands"][god]:
            return out
        board, priests = g["board"], g["priests"]
        seen = set()
        for card in g["hands"][god]:
            c = self.cards[card]
            key_ = (c["kind"], c["value"])
            if key_ in seen:
                continue
            seen.add(key_)
            kind, v = key_
            if kind == "temple":
                for p in self.owned(g, god):
                    if p not in g["temples"][god]:
                        out.append(Order(("play", "temple", str(v), p), ("temple", card, p), OPT_PLAY))
            elif kind == "conversion":
                holy = set(priests[god]) | {s_["at"] for s_ in g["saints"][god]}
                for p in self.provinces:
                    if p not in holy:
                        continue
                    cell = board.get(p, {})
                    for other in g["gods"]:
                        if other != god and cell.get(other, 0) > 0:
                            out.append(Order(("play", "conversion", str(v), other, p), ("conversion", card, other, p),
                                             OPT_PLAY))
            elif kind == "act-of-god":
                for p in self.places:
                    cell = board.get(p, {})
                    for other in g["gods"]:
                        if cell.get(other):
                            out.append(Order(("play", "act-of-god", "worshippers", other, p),
                                             ("act", card, "worshippers", other, p), OPT_PLAY))
                        if priests[other].get(p):
                            out.append(Order(("play", "act-of-god", "priest", other, p), ("act", card, "priest", other, p)))
                        if any(s_["at"] == p for s_ in g["saints"][other]):
                            out.append(Order(("play", "act-of-god", "saint", other, p), ("act", card, "saint", other, p)))
                    if g["heretics"].get(p):
                        out.append(Order(("play", "act-of-god", "heretic", p), ("act", card, "heretic", None, p)))
        return out

    def default_order(self, state, player):
        flow, g = state["flow"], state["game"]
        if flow["phase"] == "setup":
            return self.legal_orders(state, player)[0]
        t = g["turn"]
        if t.get("pending") is not None:
            return self._default_choice(g, t["god"], t["pending"])
        return Order(("done",), ("done",))

    def _default_choice(self, g: dict, god: str, card: int) -> Order:
        """A sensible answer for a god who gave none: help yourself, hurt the strongest rival."""
        choices = self._choices(g, god, card)
        kind = self.cards[card]["kind"]
        if kind in ("saint", "miracle"):
            best = self._best_owned(g, god)
            return next(o for o in choices if o.payload[1] == best)
        if kind == "heretic":
            # on a province owned by the rival with the most worshippers there
            def score(o: Order) -> tuple:
                p = o.payload[1]
                owner = g["owner"].get(p)
                return (owner != god, self.count(g, p, owner) if owner else 0)
            return max(choices, key=score)
        if kind == "martyr":
            def mscore(o: Order) -> tuple:
                other, what = o.payload[1], o.payload[2]
                return (other != god, what == "saint")
            return max(choices, key=mscore)
        if kind == "impiety":
            # give up the priest in the province where the god has the fewest worshippers
            return min(choices, key=lambda o: (self.count(g, o.payload[1], god) if o.payload[1] else 0))
        return choices[0]

    # --- names in typed orders ------------------------------------------------------------
    def _resolve_name(self, word: str, kinds: tuple[str, ...]) -> str | None:
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

    def why_illegal(self, state, player, typed):
        flow, g = state["flow"], state["game"]
        verb = typed[0]
        args = [a for a in typed[1:] if a != "->"]
        if flow.get("over"):
            return "the game is over"
        if flow["phase"] == "setup":
            if verb != "priest":
                return "the game is being set up: the only order now is `priest PROVINCE` (your starting priest)"
            where = self._resolve_name(args[0], ("province", "desert")) if args else None
            gods = g["place"].get(player, [])
            starts = [p for god in gods for p in self.start[god]]
            if where and where not in starts:
                return (f"{where.capitalize()} is not a starting province of "
                        f"{' or '.join(self.god_title[x] for x in gods) or 'a god you place'} "
                        f"(choose {', '.join(starts) or 'nothing: your priests are placed'})")
            return None
        acting = self._acting(state, player)
        if not acting:
            return "it is not your turn"
        t, god = acting
        title = self.god_title[god]
        if t["pending"] is not None:
            card = self.card_name(t["pending"])
            kind = self.cards[t["pending"]]["kind"]
            if verb != kind:
                return (f"you drew {card}, which must be played at once: your next order must say how, "
                        f"`{CHOICE_USAGE[kind]}`")
            return self._why_choice(g, god, kind, args) or f"that is not a way to play {card}"
        if verb in CHOICE:
            return f"`{verb}` answers a {KIND_TITLE[verb]} card when it is drawn; you have no such card to play now"
        if verb == "priest":
            return "starting priests were placed at set-up; to ordain one, `buy priest PROVINCE`"
        step = t["step"]
        if verb == "buy":
            if step > 2:
                return f"purchasing (step 2) is over: you are in step {step} ({STEP_NAMES[step]})"
            what = args[0] if args else ""
            cost = int(self.r["priest_cost"])
            if "card".startswith(what) and what:
                if g["donatives"][god] < int(self.r["card_cost"]):
                    return f"a god card costs {self.r['card_cost']} donatives; {title} has {g['donatives'][god]}"
                return "no god card is left to draw"
            if g["donatives"][god] < cost:
                return f"a priest costs {cost} donatives; {title} has {g['donatives'][god]}"
            if g["supply"]["priests"][god] <= 0:
                return f"all {self.p['priests_per_god']} of {title}'s priests are in play"
            owned = self.owned(g, god)
            if self.priests_on_board(g, god) >= len(owned):
                return (f"a god may have 1 priest for every province owned: {title} owns {len(owned)} and has "
                        f"{self.priests_on_board(g, god)} priests")
            if len(args) > 1:
                where = self._resolve_name(args[1], ("province", "desert"))
                if where and where not in owned:
                    return f"a new priest is placed in a province {title} owns ({', '.join(owned)}), not in {where}"
            return None
        if verb == "move":
            if step > 3:
                return f"movement (step 3) is over: you are in step {step} ({STEP_NAMES[step]})"
            return self._why_move(g, t, god, args)
        if verb == "holywar":
            if step > 4:
                return "the Holy War step (4) is over: worshippers are being added"
            return self._why_war(g, t, god, args)
        if verb == "vision":
            if t["vision"] is None and g["visions"].get(god):
                return f"{title} has had its Vision (only one per god per game)"
            if t["vision"] is None and not self.vision_due(g, god):
                return ("no Vision is due: a saint must spend 5 full turns in a desert after moving there "
                        "(and not move this turn)")
            where = self._resolve_name(args[-1], ("province", "desert")) if args else None
            if where and g["owner"].get(where) != god:
                return f"Vision worshippers go to provinces {title} owns; it does not own {where}"
            left = t["vision"] if t["vision"] is not None else int(self.r["vision_worshippers"])
            return f"{left} Vision worshippers are left to place"
        if verb == "play":
            return self._why_play(g, t, god, args)
        return None

    def _why_choice(self, g: dict, god: str, kind: str, args: list[str]) -> str | None:
        places = [self._resolve_name(a, ("province", "desert")) for a in args]
        places = [p for p in places if p]
        title = self.god_title[god]
        if kind in ("saint", "miracle") and places:
            return f"the {KIND_TITLE[kind]} goes to a province {title} owns ({', '.join(self.owned(g, god))}), not {places[0]}"
        if kind == "heretic" and places:
            return f"a heretic is placed on an owned province; nobody owns {places[0]}"
        if kind == "martyr":
            other = next((x for a in args if (x := self._resolve_name(a, ("god",)))), None)
            what = next((a for a in args if a in ("priest", "saint")), None)
            if other and what and places:
                return (f"{self.god_title[other]} has no {what} in {places[0].capitalize()} to martyr"
                        + ("" if other in g["gods"] else f" ({self.god_title[other]} is not in this game)"))
            return "name a god, `priest` or `saint`, and the place where one of that god's is"
        if kind == "impiety":
            most, priests = self._impiety_targets(g, god)
            return (f"the priest must be one of {title}'s (in {', '.join(priests) or 'nowhere'}); the worshippers "
                    f"go from {' or '.join(most) or 'nowhere'}")
        return None

    def _why_move(self, g: dict, t: dict, god: str, args: list[str]) -> str | None:
        title = self.god_title[god]
        piece = "worshippers"
        n = None
        rest = list(args)
        if rest and rest[0].isdigit():
            n = int(rest.pop(0))
        if rest and rest[0] in ("priest", "saint", "worshippers"):
            piece = rest.pop(0)
        if len(rest) < 2:
            return None
        src = self._resolve_name(rest[0], ("province", "desert"))
        dst = self._resolve_name(rest[1], ("province", "desert"))
        if not src or not dst:
            bad = rest[0] if not src else rest[1]
            return f"'{bad}' is not a province or desert (or not a unique prefix of one)"
        if dst not in self.adj[src]:
            return f"{dst.capitalize()} is not next to {src.capitalize()} (next to it: {', '.join(self.adj[src])})"
        if piece == "priest":
            have = self.priests_at(g, god, src)
            if have == 0:
                return f"{title} has no priest in {src.capitalize()}"
            if have - t["moved_priests"].get(src, 0) <= 0:
                return f"{title}'s priests in {src.capitalize()} have already moved this turn (once per turn)"
            if dst in self.deserts:
                return f"only saints may enter the desert ({dst.capitalize()})"
            return None
        if piece == "saint":
            here = [s for s in g["saints"][god] if s["at"] == src]
            if not here:
                return f"{title} has no saint in {src.capitalize()}"
            return f"{title}'s saints in {src.capitalize()} have already moved this turn (once per turn)"
        if dst in self.deserts:
            return f"only saints may enter the desert ({dst.capitalize()})"
        owner = g["owner"].get(dst)
        if owner not in (None, god):
            return (f"{dst.capitalize()} is owned by {self.god_title[owner]}: worshippers enter another god's "
                    "province only by winning a Holy War")
        have = self.count(g, src, god)
        if have == 0:
            return f"{title} has no worshippers in {src.capitalize()}"
        if have == 1:
            return f"{title} has only 1 worshipper in {src.capitalize()}, and it cannot move"
        can = self.movable(g, t, god, src)
        start = t["start"].get(src, 0) if t["step"] == 3 else have
        if n is not None and n > can:
            return (f"at most half of the {start} worshippers in {src.capitalize()} at the start of movement may move "
                    f"({start // 2}); {t['moved_out'].get(src, 0)} have moved out and "
                    f"{t['moved_in'].get(src, 0)} moved in, so {can} more may move")
        return None

    def _why_war(self, g: dict, t: dict, god: str, args: list[str]) -> str | None:
        if len(args) < 2:
            return None
        src = self._resolve_name(args[0], ("province", "desert"))
        dst = self._resolve_name(args[1], ("province", "desert"))
        if not src or not dst:
            bad = args[0] if not src else args[1]
            return f"'{bad}' is not a province (or not a unique prefix of one)"
        title = self.god_title[god]
        if src in self.deserts or dst in self.deserts:
            return "nobody lives in a desert: no Holy War is fought there"
        if dst not in self.adj[src]:
            return f"attacks are made on an adjacent province; {dst.capitalize()} is not next to {src.capitalize()}"
        if src in t["sources"]:
            return f"{title} has already attacked from {src.capitalize()} this turn (one attack from each province per turn)"
        owner = g["owner"].get(dst)
        if owner is None:
            return f"nobody owns {dst.capitalize()}, so there is no defender; move worshippers in instead"
        if owner == god:
            return f"{title} owns {dst.capitalize()} already"
        eligible = self.war_eligible(g, t, god, src)
        if eligible < 2:
            fought = t["fought"].get(src, 0)
            extra = f" ({fought} there have fought this turn, and each worshipper fights once)" if fought else ""
            return (f"condition 1: the province an attack comes from must hold at least 2 of {title}'s worshippers; "
                    f"{src.capitalize()} holds {eligible} able to fight{extra}")
        if self.count(g, dst, god) < 1:
            return (f"condition 2: {title} must already have at least one worshipper in {dst.capitalize()}")
        if len(args) > 2:
            where = self._resolve_name(args[-1], ("province", "desert"))
            if where not in (src, dst):
                return f"losses are taken from the attacking or the attacked province ({src} or {dst})"
            numbers = [int(a) for a in args if a.isdigit()]
            able = self.war_eligible(g, t, god, src) if where == src else self.count(g, dst, god)
            if numbers and numbers[0] > able:
                return (f"{title} has {able} worshippers in {where.capitalize()} in this battle: "
                        f"at most {able} can be lost there")
        return None

    def _why_play(self, g: dict, t: dict, god: str, args: list[str]) -> str | None:
        if not args:
            return None
        title = self.god_title[god]
        kind = next((k for k in KINDS if k.startswith(args[0])), args[0])
        if kind in CHOICE + AUTO:
            return f"{KIND_TITLE[kind]} cards are played at once when drawn, never from the hand"
        held = [c for c in g["hands"][god] if self.cards[c]["kind"] == kind]
        if kind not in HELD:
            return f"'{args[0]}' is not a card that can be played from the hand (act-of-god, conversion, temple)"
        if not held:
            return f"{title} holds no {KIND_TITLE[kind]} card"
        rest = args[1:]
        if rest and rest[0].isdigit():
            v = int(rest.pop(0))
            if not any(self.cards[c]["value"] == v for c in held):
                values = ", ".join(str(self.cards[c]["value"]) for c in held)
                return f"{title} holds no {KIND_TITLE[kind]} {v} (its {KIND_TITLE[kind]} cards: {values})"
        places = [self._resolve_name(a, ("province", "desert")) for a in rest]
        where = next((p for p in places if p), None)
        if kind == "temple" and where:
            if g["owner"].get(where) != god:
                return f"a temple is built in a province {title} owns; it does not own {where.capitalize()}"
            if where in g["temples"][god]:
                return f"{title} has already used a Temple in {where.capitalize()} this round (one per province per round)"
        if kind == "conversion" and where:
            if not (self.priests_at(g, god, where) or self.saints_at(g, god, where)):
                return f"conversions occur only where {title} has a priest or saint; it has none in {where.capitalize()}"
            others = [self._resolve_name(a, ("god",)) for a in rest]
            other = next((o for o in others if o), None)
            if other == god:
                return "a conversion converts worshippers of another god"
            if other and self.count(g, where, other) == 0:
                return f"{self.god_title[other]} has no worshippers in {where.capitalize()}"
        if kind == "act-of-god" and where:
            return f"there is no such target in {where.capitalize()}"
        return None

    # --- applying an order ---------------------------------------------------------------
    def apply(self, state, player, order, rng):
        g = state["game"]
        kind = order.payload[0]
        if kind == "priest":
            _, god, prov = order.payload
            return self._place_start_priest(state, player, god, prov)
        t = g["turn"]
        god = t["god"]
        if t["pending"] is not None:
            return self._apply_choice(state, god, order, rng)
        if kind == "buy_priest":
            self._enter(t, 2)
            self._pay(g, god, int(self.r["priest_cost"]))
            prov = order.payload[1]
            g["supply"]["priests"][god] -= 1
            g["priests"][god][prov] = g["priests"][god].get(prov, 0) + 1
            return [{"type": "buy_priest", "god": god, "at": prov, "cost": int(self.r["priest_cost"]),
                     "on_board": self.priests_on_board(g, god), "cap": len(self.owned(g, god))}]
        if kind == "buy_card":
            self._enter(t, 2)
            self._pay(g, god, int(self.r["card_cost"]))
            return [{"type": "buy_card", "god": god, "cost": int(self.r["card_cost"])}] + self._draw(state, god, rng, bought=True)
        if kind == "move_w":
            self._enter_movement(g, t, god)
            _, n, src, dst = order.payload
            self._put(g, src, god, -n)
            self._put(g, dst, god, n)
            t["moved_out"][src] = t["moved_out"].get(src, 0) + n
            t["moved_in"][dst] = t["moved_in"].get(dst, 0) + n
            return [{"type": "move", "god": god, "piece": "worshippers", "n": n, "src": src, "dst": dst,
                     "water": self.water.get(frozenset((src, dst)))}]
        if kind == "move_p":
            self._enter_movement(g, t, god)
            _, src, dst = order.payload
            here = g["priests"][god]
            here[src] -= 1
            if here[src] == 0:
                del here[src]
            here[dst] = here.get(dst, 0) + 1
            mp = t["moved_priests"]
            mp[dst] = mp.get(dst, 0) + 1
            if mp.get(src, 0) > here.get(src, 0):
                mp[src] = here.get(src, 0)
            if src in mp and mp[src] == 0:
                del mp[src]
            return [{"type": "move", "god": god, "piece": "priest", "n": 1, "src": src, "dst": dst,
                     "water": self.water.get(frozenset((src, dst)))}]
        if kind == "move_s":
            self._enter_movement(g, t, god)
            _, src, dst = order.payload
            # CHOICE: of several saints in one place, the one that arrived last moves
            saint = min((s for s in g["saints"][god] if s["at"] == src and not s["moved"]), key=lambda s: s["turns"])
            saint.update(at=dst, moved=True, turns=0)
            return [{"type": "move", "god": god, "piece": "saint", "n": 1, "src": src, "dst": dst,
                     "water": self.water.get(frozenset((src, dst))), "desert": dst in self.deserts}]
        if kind == "holywar":
            self._enter(t, 4)
            _, src, dst, first, most = order.payload
            return self._holy_war(g, t, god, src, dst, first, most, rng)
        if kind == "vision":
            events = self._enter_add(state) if t["step"] < 5 else []
            _, n, prov = order.payload
            n = min(n, t["vision"] or 0)
            t["vision"] -= n
            made = self.create(g, prov, god, n)
            return events + [{"type": "vision_place", "god": god, "at": prov, "n": made, "short": n - made,
                              "left": t["vision"]}]
        if kind in ("temple", "conversion", "act"):
            return self._play(g, t, god, order.payload)
        if kind == "done":
            return self._end_turn(state)
        raise ValueError(f"unknown order payload {order.payload!r}")  # pragma: no cover

    @staticmethod
    def _enter(t: dict, step: int) -> None:
        t["step"] = max(t["step"], step)

    def _enter_movement(self, g: dict, t: dict, god: str) -> None:
        if t["step"] < 3:
            t["step"] = 3
            t["start"] = {p: n for p in self.provinces if (n := self.count(g, p, god))}

    def _pay(self, g: dict, god: str, cost: int) -> None:
        if g["donatives"][god] < cost:  # legal_orders prevents this; guard the invariant
            raise ValueError("cannot pay")
        g["donatives"][god] -= cost
        g["supply"]["donatives"] += cost

    @staticmethod
    def _place_priest(g: dict, god: str, prov: str) -> None:
        g["supply"]["priests"][god] -= 1
        g["priests"][god][prov] = g["priests"][god].get(prov, 0) + 1

    def _place_start_priest(self, state: dict, player: str, god: str, prov: str) -> list[Event]:
        g = state["game"]
        self._place_priest(g, god, prov)
        g["place"][player].remove(god)
        if not g["place"][player]:
            state["flow"]["active"] = [p for p in state["flow"]["active"] if p != player]
        return [{"type": "start_priest", "god": god, "at": prov}]

    def _apply_choice(self, state: dict, god: str, order: Order, rng: Rng) -> list[Event]:
        g = state["game"]
        t = g["turn"]
        card = t["pending"]
        kind = order.payload[0]
        t["pending"] = None
        g["discard"].append(card)
        value = self.cards[card]["value"]
        if kind == "saint":
            p = order.payload[1]
            g["supply"]["saints"][god] -= 1
            g["saints"][god].append({"at": p, "turns": 0, "moved": False})
            return [{"type": "saint", "god": god, "at": p}]
        if kind == "heretic":
            p = order.payload[1]
            g["supply"]["heretics"] -= 1
            g["heretics"][p] = g["heretics"].get(p, 0) + 1
            return [{"type": "heretic", "god": god, "at": p, "owner": g["owner"].get(p)}]
        if kind == "miracle":
            p = order.payload[1]
            made = self.create(g, p, god, value)
            return [{"type": "miracle", "god": god, "value": value, "at": p, "added": made}]
        if kind == "martyr":
            _, other, what, p = order.payload
            if what == "priest":
                self._remove_priest(g, other, p)
                adds = int(self.r["martyr_priest_adds"])
            else:
                self._remove_saint(g, other, p)
                adds = int(self.r["martyr_saint_adds"])
            made = self.create(g, p, other, adds) if p in self.provinces else 0
            return [{"type": "martyr", "god": god, "victim": other, "piece": what, "at": p, "added": made,
                     "desert": p in self.deserts}]
        if kind == "impiety":
            _, priest_at, from_at = order.payload
            return self._impiety(g, god, card, priest_at, from_at)
        raise ValueError(f"unknown choice {order.payload!r}")  # pragma: no cover

    def _play(self, g: dict, t: dict, god: str, payload: tuple) -> list[Event]:
        kind, card = payload[0], payload[1]
        g["hands"][god].remove(card)
        g["discard"].append(card)
        value = self.cards[card]["value"]
        if kind == "temple":
            p = payload[2]
            g["temples"][god].append(p)
            made = self.create(g, p, god, value)
            return [{"type": "temple", "god": god, "card": card, "value": value, "at": p, "added": made}]
        if kind == "conversion":
            _, _, other, p = payload
            n = min(value, self.count(g, p, other))
            self._put(g, p, other, -n)
            self._put(g, p, god, n)
            return [{"type": "conversion", "god": god, "card": card, "value": value, "victim": other, "at": p,
                     "converted": n}]
        # Act of God
        _, _, what, other, p = payload
        event = {"type": "act_of_god", "god": god, "card": card, "what": what, "victim": other, "at": p}
        if what == "worshippers":
            event["killed"] = self.kill(g, p, other, int(self.r["act_of_god_worshippers"]))
        elif what == "priest":
            self._remove_priest(g, other, p)
        elif what == "saint":
            self._remove_saint(g, other, p)
        else:
            g["heretics"][p] -= 1
            if not g["heretics"][p]:
                del g["heretics"][p]
            g["supply"]["heretics"] += 1
        return [event]

    # --- Holy War ------------------------------------------------------------------------
    def _holy_war(self, g: dict, t: dict, god: str, src: str, dst: str, first: str, most: int | None,
                  rng: Rng) -> list[Event]:
        defender = g["owner"][dst]
        a_src = self.war_eligible(g, t, god, src)     # 1) all of the attacker's (able) worshippers there...
        a_dst = self.count(g, dst, god)               # ...plus all of his in the defending province (c)
        a_count = a_src + a_dst
        d_count = self.count(g, dst, defender)        # 2) the defender counts only the attacked province
        nsb = abs(a_count - d_count)                  # 3) numerical superiority bonus
        nsb_to = "attacker" if a_count > d_count else "defender" if d_count > a_count else None
        a_dice = [rng.die(6), rng.die(6)]             # 4) each rolls 2d6, NSB added
        d_dice = [rng.die(6), rng.die(6)]
        a_nat, d_nat = sum(a_dice), sum(d_dice)
        a_total = a_nat + (nsb if nsb_to == "attacker" else 0)
        d_total = d_nat + (nsb if nsb_to == "defender" else 0)
        if (a_nat == 2 and d_nat == 2) or (a_nat == 12 and d_nat == 12):
            result, why = "tie", f"both rolled a natural {a_nat}"
        elif a_nat == 12 or d_nat == 2:
            result = "attacker"
            why = "the attacker rolled a natural 12" if a_nat == 12 else "the defender rolled a natural 2"
        elif d_nat == 12 or a_nat == 2:
            result = "defender"
            why = "the defender rolled a natural 12" if d_nat == 12 else "the attacker rolled a natural 2"
        elif a_total == d_total:
            result, why = "tie", "the totals are equal"
        else:
            result = "attacker" if a_total > d_total else "defender"
            why = "higher total"
        event: Event = {
            "type": "holywar", "god": god, "defender": defender, "src": src, "dst": dst,
            "a_from": a_src, "a_in": a_dst, "a_count": a_count, "d_count": d_count, "nsb": nsb, "nsb_to": nsb_to,
            "a_dice": a_dice, "d_dice": d_dice, "a_total": a_total, "d_total": d_total, "result": result, "why": why,
        }
        events: list[Event] = [event]
        t["sources"].append(src)
        if result == "tie":
            # 5) the attacker loses 1d6 + NSB of the worshippers involved; the defender none
            extra = rng.die(6)
            event["tie_die"] = extra
            casualties = extra + nsb
        else:
            # 6) the difference between the totals, plus the NSB
            casualties = abs(a_total - d_total) + nsb
        event["casualties"] = casualties
        if result == "attacker":
            lost = self.kill(g, dst, defender, casualties)  # capped at those involved
            event["losses"] = {dst: lost} if lost else {}
            event["lost"] = lost
        else:
            # the attacker loses, in the order's choice of provinces, up to those involved
            # the attacker's choice: from `first` (at most `most` there, if the order says so),
            # then from the other province, and only then more from `first`
            cap = {src: a_src, dst: a_dst}
            other = dst if first == src else src
            want = min(casualties, a_src + a_dst)
            taken = {src: 0, dst: 0}
            for place, limit in ((first, cap[first] if most is None else min(most, cap[first])),
                                 (other, cap[other]), (first, cap[first])):
                take = max(0, min(want, limit - taken[place]))
                taken[place] += take
                want -= take
            losses = {}
            for place in (first, other):
                if taken[place]:
                    losses[place] = self.kill(g, place, god, taken[place])
            event["losses"] = losses
            event["lost"] = sum(losses.values())
        event["loser"] = {"attacker": defender, "defender": god, "tie": god}[result]
        # every worshipper that fought is marked: none fights again this turn (d)
        if result == "attacker":
            # 8) the attacker moves half (round down) of his worshippers from the attacking province in
            move = self.count(g, src, god) // 2
            if move:
                self._put(g, src, god, -move)
                self._put(g, dst, god, move)
            event["advance"] = move
        t["fought"][src] = self.count(g, src, god)
        t["fought"][dst] = self.count(g, dst, god)
        return events

    # --- steps 5 and 6 -------------------------------------------------------------------
    def _enter_add(self, state: dict) -> list[Event]:
        """Step 5: priests and saints that spent the whole turn in place add worshippers;
        a saint's fifth full turn in a desert brings its Vision."""
        g = state["game"]
        t = g["turn"]
        god = t["god"]
        t["step"] = 5
        events: list[Event] = []
        adds: dict[str, dict] = {}
        moved = dict(t["moved_priests"])
        for p in self.places:
            n = self.priests_at(g, god, p) - moved.get(p, 0)
            if n > 0 and p in self.provinces:
                adds.setdefault(p, {"priests": 0, "saints": 0})["priests"] = n
        for s in g["saints"][god]:
            if not s["moved"] and s["at"] in self.provinces:
                adds.setdefault(s["at"], {"priests": 0, "saints": 0})["saints"] += 1
        for p in self.provinces:
            if p in adds:
                a = adds[p]
                want = a["priests"] * int(self.r["priest_adds"]) + a["saints"] * int(self.r["saint_adds"])
                made = self.create(g, p, god, want)
                events.append({"type": "add", "god": god, "at": p, "priests": a["priests"], "saints": a["saints"],
                               "added": made, "short": want - made})
        need = int(self.r["vision_turns"])
        vision = False
        for s in g["saints"][god]:
            if s["at"] in self.deserts and not s["moved"]:
                s["turns"] += 1
                if s["turns"] >= need and not g["visions"][god] and not vision:
                    vision = True
                    events.append({"type": "vision", "god": god, "at": s["at"], "turns": s["turns"],
                                   "worshippers": int(self.r["vision_worshippers"])})
            elif not s["moved"]:
                s["turns"] += 1
        if vision:
            g["visions"][god] = True
            t["vision"] = int(self.r["vision_worshippers"])
        return events

    def _end_turn(self, state: dict) -> list[Event]:
        g = state["game"]
        t = g["turn"]
        god = t["god"]
        events: list[Event] = []
        if t["step"] < 5:
            events += self._enter_add(state)
        if t["vision"]:
            best = self._best_owned(g, god)
            left = t["vision"]
            t["vision"] = 0
            if best:
                made = self.create(g, best, god, left)
                events.append({"type": "vision_place", "god": god, "at": best, "n": made, "short": left - made,
                               "left": 0, "default": True})
            else:
                events.append({"type": "vision_lost", "god": god, "n": left})
        for s in g["saints"][god]:
            s["moved"] = False
        t["step"] = 6
        events.append({"type": "turn_over", "god": god, "player": t["player"]})
        state["flow"].update(phase="between", active=[], prompt="")
        return events

    # --- end of round ----------------------------------------------------------------------
    def _end_round(self, state: dict) -> list[Event]:
        g = state["game"]
        events: list[Event] = [{"type": "housekeeping", "round": g["round"]}]
        # a) heretics take 2 worshippers from the leader(s) in their province
        take = int(self.r["heretic_takes"])
        for p in self.provinces:
            for _ in range(g["heretics"].get(p, 0)):
                cell = g["board"].get(p, {})
                best = max(cell.values(), default=0)
                leaders = sorted((god for god, n in cell.items() if n == best and n > 0), key=self.gods.index)
                losses = {god: self.kill(g, p, god, take) for god in leaders}
                events.append({"type": "heretic_takes", "at": p, "losses": losses})
        # b) ownership recount, then donatives for provinces owned
        before = dict(g["owner"])
        g["owner"] = self.recount(g)
        changes = [{"at": p, "was": before.get(p), "now": g["owner"][p]} for p in self.provinces
                   if before.get(p) != g["owner"][p]]
        events.append({"type": "ownership", "changes": changes,
                       "owned": {god: len(self.owned(g, god)) for god in self.in_play(g)}})
        income = {}
        for god in [*g["order"], *([g["unknown"]] if g["unknown"] else [])]:
            if god in g["out"]:
                continue
            want = len(self.owned(g, god))
            gain = min(want, g["supply"]["donatives"])
            g["supply"]["donatives"] -= gain
            g["donatives"][god] += gain
            income[god] = gain
        events.append({"type": "income", "gains": income})
        # gods with no worshippers pass into myth
        for god in self.in_play(g):
            if self.total(g, god) == 0:
                events += self._pass_into_myth(g, god)
        # winning
        winner, reason = None, None
        owners = {o for o in g["owner"].values() if o}
        for god in self.in_play(g):
            if len(self.owned(g, god)) >= int(self.r["win_provinces"]):
                winner, reason = god, f"{self.who(g, god)} owns {len(self.owned(g, god))} provinces"
                break
        if winner is None and len(owners) == 1:
            (god,) = owners
            winner, reason = god, f"{self.who(g, god)} is the only god in possession of a province"
        players_left = [god for god in g["order"] if god not in g["out"]]
        if winner is None and len(players_left) <= 1:
            if players_left:
                winner = players_left[0]
                reason = f"{self.who(g, winner)} is the last player's god not passed into myth"
            else:
                reason = "every player's god has passed into myth"
        if winner is not None or reason is not None:
            events += self._finish(state, winner, reason)
        return events

    def _pass_into_myth(self, g: dict, god: str) -> list[Event]:
        g["out"].append(god)
        for p, n in g["priests"][god].items():
            g["supply"]["priests"][god] += n
        g["priests"][god] = {}
        g["supply"]["saints"][god] += len(g["saints"][god])
        g["saints"][god] = []
        g["discard"] += g["hands"][god]
        g["hands"][god] = []
        g["supply"]["donatives"] += g["donatives"][god]
        g["donatives"][god] = 0
        return [{"type": "myth", "god": god, "player": g["player_of"].get(god)}]

    def _finish(self, state: dict, winner: str | None, reason: str) -> list[Event]:
        g = state["game"]
        scores = self.scores(state)
        player = g["player_of"].get(winner) if winner else None
        winners = [player] if player else []
        if winner and not player:
            reason += "; the Unknown God reigns, and no player wins"
        state["flow"].update(over=True, active=[], prompt="")
        state["flow"]["outcome"] = {"winners": winners, "scores": scores, "reason": reason, "god": winner,
                                    "round": g["round"]}
        return [{"type": "game_over", "reason": reason, "winners": winners, "god": winner, "scores": scores}]

    # --- views, scores -------------------------------------------------------------------
    def scores(self, state):
        g = state["game"]
        return {p: len(self.owned(g, g["god_of"][p])) for p in g["players"]}

    def private(self, g: dict, god: str) -> dict:
        return {
            "god": god,
            "title": self.god_title[god],
            "donatives": g["donatives"][god],
            "hand": [{"card": c, "name": self.card_name(c)} for c in g["hands"][god]],
        }

    def view(self, state, player):
        g = state["game"]
        flow = state["flow"]
        gods = g["gods"]
        t = g["turn"] or {}
        provinces = []
        for p in self.places:
            cell = g["board"].get(p, {})
            provinces.append({
                "name": p, "title": self.title[p], "desert": p in self.deserts, "owner": g["owner"].get(p),
                "worshippers": {god: cell.get(god, 0) for god in gods},
                "priests": {god: self.priests_at(g, god, p) for god in gods},
                "saints": {god: self.saints_at(g, god, p) for god in gods},
                "heretics": g["heretics"].get(p, 0),
                "next_to": [n + ("~" if frozenset((p, n)) in self.water else "") for n in self.adj[p]],
            })
        unknown_ctl = self.controller(g)
        public = {
            "players": [{"name": p, "colour": self.god_colour[g["god_of"][p]], "god": g["god_of"][p]} for p in g["players"]],
            "gods": [{
                "god": god, "title": self.god_title[god], "colour": self.god_colour[god],
                "player": g["player_of"].get(god), "unknown": god == g["unknown"], "out": god in g["out"],
                "owned": len(self.owned(g, god)), "worshippers": self.total(g, god),
                "priests": self.priests_on_board(g, god), "priests_left": g["supply"]["priests"][god],
                "saints": len(g["saints"][god]), "saints_left": g["supply"]["saints"][god],
                "hand": len(g["hands"][god]), "vision": g["visions"][god],
                "desert_saints": [{"at": s["at"], "turns": s["turns"]} for s in g["saints"][god] if s["at"] in self.deserts],
            } for god in gods],
            "who": {god: self.who(g, god) for god in gods},
            "titles": dict(self.title),
            "provinces": provinces,
            "round": g["round"],
            "order": [god for god in g["order"] if god not in g["out"]],
            "unknown": g["unknown"],
            "unknown_controller": unknown_ctl,
            "turn": {"god": t.get("god"), "player": t.get("player"), "step": t.get("step"),
                     "step_name": STEP_NAMES.get(t.get("step"), ""), "temples": list(g["temples"].get(t.get("god"), []))
                     if t.get("god") else [],
                     "pending": None} if t else None,
            "phase": flow.get("phase"),
            "pool": g["supply"]["worshippers"],
            "heretics_left": g["supply"]["heretics"],
            "donatives_left": g["supply"]["donatives"],
            "deck": len(g["deck"]),
            "discard": len(g["discard"]),
            "placing": {p: list(v) for p, v in g["place"].items() if v} if flow.get("phase") == "setup" else {},
            "scores": self.scores(state),
            "costs": {"priest": int(self.r["priest_cost"]), "card": int(self.r["card_cost"])},
        }
        if player is not None and player in g["god_of"]:
            public["you"] = player
            public["mine"] = [self.private(g, god) for god in self.visible_hands(g, player)]
            if t and t.get("player") == player and t.get("pending") is not None:
                public["turn"]["pending"] = self.card_name(t["pending"])
            if t and t.get("player") == player and flow.get("phase") in ("turn", "unknown"):
                public["turn"]["vision"] = t.get("vision")
                public["turn"]["vision_due"] = self.vision_due(g, t["god"]) and (t.get("step") or 1) < 5
                public["turn"]["movable"] = {p: n for p in self.provinces
                                             if (t.get("step") or 1) <= 3 and (n := self.movable(g, t, t["god"], p)) > 0}
        return public

    def preview_state(self, state, player):
        """For checking a submission: every card `player` cannot see (the draw pile and the
        other gods' hands) goes into one draw pile, so a card bought in the check is drawn at
        random from what the player cannot locate, and the acknowledgement reveals nothing."""
        g = state["game"]
        visible = set(self.visible_hands(g, player))
        hidden = [c for god, hand in g["hands"].items() if god not in visible for c in hand]
        g["deck"] = sorted(g["deck"] + hidden)
        for god in g["hands"]:
            if god not in visible:
                g["hands"][god] = []
        return state

    def visible_hands(self, g: dict, player: str | None) -> list[str]:
        """The gods whose hand (and donatives) `player` sees: their own, and the Unknown God's
        while they order for it this round."""
        if player is None or player not in g["god_of"]:
            return []
        out = [g["god_of"][player]]
        unknown = g["unknown"]
        if unknown and unknown not in g["out"] and self.controller(g) == player:
            out.append(unknown)
        return out

    # --- bots ------------------------------------------------------------------------------
    def bot_choice(self, state, player, legal, rng):
        """Random, but pushed to make progress so that random play-outs end: answer cards
        sensibly, ordain priests, send priests among rivals for a foothold, spread into free
        provinces, fight Holy Wars with the odds, play cards against rivals."""
        g = state["game"]
        t = g.get("turn") or {}
        god = t.get("god")
        if len(legal) == 1 or state["flow"]["phase"] == "setup":
            return rng.choice(legal)
        if t.get("pending") is not None:
            return self._default_choice(g, god, t["pending"]) if rng.random() < 0.7 else rng.choice(legal)
        by: dict[str, list[Order]] = {}
        for o in legal:
            by.setdefault(o.payload[0], []).append(o)
        owner = g["owner"]
        if "vision" in by:
            return by["vision"][0]
        if "buy_priest" in by and rng.random() < 0.9:
            frontier = [o for o in by["buy_priest"] if o.payload[1] and any(
                owner.get(n) not in (None, god) for n in self.adj[o.payload[1]])]
            return rng.choice(frontier or by["buy_priest"])
        if "buy_card" in by and rng.random() < (0.8 if g["donatives"][god] >= 10 or "buy_priest" not in by else 0.3):
            return by["buy_card"][0]
        plays = by.get("temple", []) + by.get("conversion", [])
        plays += [o for o in by.get("act", []) if o.payload[3] not in (god, None) or o.payload[2] == "heretic"]
        if plays and rng.random() < 0.8:
            return rng.choice(plays)
        if t.get("step", 1) <= 3:
            # priests walk into rivals' provinces to make worshippers there (a foothold for Holy Wars)
            priests = [o for o in by.get("move_p", []) if owner.get(o.payload[2]) not in (None, god)
                       and self.count(g, o.payload[2], god) == 0]
            if priests and rng.random() < 0.6:
                return rng.choice(priests)
            moves = by.get("move_w", [])
            most: dict[str, int] = {}
            for o in moves:
                most[o.payload[2]] = max(most.get(o.payload[2], 0), o.payload[1])
            free = [o for o in moves if owner.get(o.payload[3]) is None and o.payload[1] == most[o.payload[2]]]
            if free and rng.random() < 0.8:
                return rng.choice(free)

            def front(p: str) -> bool:  # a province from which god can attack a rival's
                return any(owner.get(n) not in (None, god) and self.count(g, n, god) > 0 for n in self.padj[p])
            massing = [o for o in moves if o.payload[1] == most[o.payload[2]] and front(o.payload[3])
                       and not front(o.payload[2])]
            if massing and rng.random() < 0.7:
                return rng.choice(massing)
            saints = [o for o in by.get("move_s", []) if o.payload[2] in self.deserts]
            if saints and rng.random() < 0.5:
                return rng.choice(saints)
        wars = []
        for o in by.get("holywar", []):
            if o.payload[3] != o.payload[1] or (o.payload[4] is not None and rng.random() < 0.95):
                continue
            src, dst = o.payload[1], o.payload[2]
            mine = self.war_eligible(g, t, god, src) + self.count(g, dst, god)
            if mine + 1 >= self.count(g, dst, owner[dst]):
                wars.append(o)
        if wars and rng.random() < 0.95:
            return rng.choice(wars)
        return by["done"][0]


RULES = YeGodsRules
