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

This file keeps the Rules class: game info and grammar, set-up, flow (rounds, turns, the
Unknown God's controller), legal orders, `apply` as a dispatch to the mechanics, why an
order is illegal, views, scores and the outcome. The mechanics are plain functions beside it:
world.py (the data: map, gods, deck, names), board.py (pieces, ownership), cards.py,
purchase.py, movement.py, holywar.py, worship.py, housekeeping.py, bot.py.

Where each section of the rules text (by its headings) is implemented:
  Game Components ............ data.toml; world.validate, world.World
  Number of Players (the Unknown God, shared faction) .. rules: _assign, controller,
                               _next_controller, _next_turn
  Setup 1-4 .................. rules: _assign (1), setup (2, 3), _place_start_priest (3),
                               _rolloff (4)
  Sequence of play 1 Draw .... rules._open_turn -> cards.draw_card
                   2 Purchase  purchase.py (buy_orders, buy_priest, buy_card, why_buy)
                   3 Movement  movement.py (move_orders, begin_movement, move_*, why_move)
                   4 Holy War  holywar.py
                   5 Add Worshipers .. worship.add_worshippers
                   6 Turn Over rules._end_turn (worship.place_rest_of_vision)
  End of Round Housekeeping a, b; passing into myth .. housekeeping.end_of_round,
                               housekeeping.pass_into_myth (called from rules._end_round)
  Winning 1, 2 ............... rules: _winner, _finish, scores
  Gods; Turns and rounds ..... rules: _assign, _next_turn, _fresh_turn
  Movement (water crossings, Sicily) .. world.World (adj, water), movement.py
  Provinces a-d .............. board.recount (at the round's end), board.owned
  Desert (the Vision) ........ worship: vision_due, add_worshippers, vision_orders,
                               place_vision, why_vision; movement (saints only)
  Donatives .................. housekeeping.end_of_round (income); purchase.py (costs)
  Worshipers a-f ............. movement: movable, move_orders, why_move; board: create, kill
  Priests a-e ................ purchase (a, b); worship.add_worshippers (c); movement (d);
                               board.remove_priest
  Saints ..................... cards (Saint card), worship.add_worshippers, movement.move_saint
  Holy War a-f ............... holywar: war_orders, why_war, war_eligible
  Holy Wars are resolved as follows 1-10 .. holywar.fight
  God Cards: Act of God, Conversion, Temple .. cards: play_orders, play_card, why_play
             Saint, Martyr, Heretic, Miracle, Impiety .. cards: choice_orders, play_choice,
                               default_choice, why_choice (Heretics' toll: housekeeping)
             Donative, Pillage, Schism .. cards.auto_card
  (bots, not in the text) .... bot.choose_order
"""

from __future__ import annotations

from pbem.core.engine import Event, GameInfo, Request, Rules
from pbem.core.errors import DataError
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng
from pbem.core.words import plural

from .board import in_play, owned, place_priest, priests_at, priests_on_board, recount, saints_at, total, who
from .bot import choose_order
from .cards import choice_orders, default_choice, draw_card, play_card, play_choice, play_orders, why_choice, why_play
from .holywar import fight, war_orders, why_war
from .housekeeping import end_of_round
from .movement import begin_movement, movable, move_orders, move_priest, move_saint, move_worshippers, why_move
from .purchase import buy_card, buy_orders, buy_priest, why_buy
from .world import CHOICE, KIND_TITLE, World, validate
from .worship import add_worshippers, place_rest_of_vision, place_vision, vision_due, vision_orders, why_vision

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
# how each order is written, as ORDERS.md writes it (what a player is shown for a line that
# cannot be read; the verbs not named here: the forms their help quotes)
USAGE = {
    "priest": ("priest PROVINCE",), "buy": ("buy priest [PROVINCE]", "buy card"), "saint": ("saint PROVINCE",),
    "heretic": ("heretic PROVINCE",), "miracle": ("miracle PROVINCE",),
    "martyr": ("martyr GOD priest PLACE", "martyr GOD saint PLACE"),
    "impiety": ("impiety priest PROVINCE [worshippers PROVINCE]",),
    "play": ("play act-of-god [worshippers] GOD PROVINCE", "play act-of-god priest GOD PROVINCE",
             "play act-of-god saint GOD PLACE", "play act-of-god heretic PROVINCE", "play conversion [N] GOD PROVINCE",
             "play temple [N] PROVINCE"),
}
BASE_ALIASES = {
    "to": "->", "attack": "holywar", "war": "holywar", "pass": "done", "over": "done", "finish": "done",
    "worshipers": "worshippers", "worshiper": "worshippers", "worshipper": "worshippers",
    "actofgod": "act-of-god", "aog": "act-of-god", "priests": "priest", "saints": "saint",
    "heretics": "heretic", "cards": "card", "loss": "losses", "lose": "losses",
}


class YeGodsRules(Rules):
    info = GAME_INFO

    def __init__(self, data: dict):
        super().__init__(validate(data))
        w = self.world = World(data)
        # the static world under the names the rules, their tests and reports use
        self.p, self.r = w.pieces, w.rules
        self.gods, self.god_title, self.god_colour, self.start = w.gods, w.god_title, w.god_colour, w.start
        self.provinces, self.deserts, self.places, self.title = w.provinces, w.deserts, w.places, w.title
        self.adj, self.padj, self.water = w.adj, w.padj, w.water
        self.cards, self.names = w.cards, w.names
        self._move_cache: dict[tuple, Order] = {}  # orders are immutable: build each once
        self._war_cache: dict[tuple, Order] = {}
        aliases = dict(BASE_ALIASES)
        aliases.update(w.aliases)
        self.grammar = Grammar(verbs=dict(VERBS), aliases=aliases, usage_of=USAGE)

    # --- helpers callers use on the Rules object (tests) ------------------------------------
    def card_name(self, card: int) -> str:
        return self.world.card_name(card)

    @staticmethod
    def total(g: dict, god: str) -> int:
        return total(g, god)

    # --- the Unknown God's controller ----------------------------------------------------
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
        game["owner"] = recount(self.world, game)
        # Set-up step 3: every god places its starting priest (a sealed, simultaneous phase);
        # the Unknown God's is placed by its first controller, the last in turn order.
        # A god with a single starting province (Jehovah) has no choice: its priest goes there.
        place: dict[str, list[str]] = {p: [] for p in players}
        for god in gods:
            placer = player_of[god] if god != unknown else player_of[order[-1]]
            if len(self.start[god]) == 1:
                place_priest(game, god, self.start[god][0])
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
        events += draw_card(self.world, g, t["god"], rng, bought=False)
        return events

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
        w = self.world
        if t["pending"] is not None:
            return choice_orders(w, g, god, t["pending"])
        orders: list[Order] = []
        step = t["step"]
        if step <= 2:
            orders += buy_orders(w, g, god)
        if step <= 3:
            orders += move_orders(w, g, t, god, self._move_cache)
        if step <= 4:
            orders += war_orders(w, g, t, god, self._war_cache)
        if step <= 5:
            orders += vision_orders(w, g, t, god)
        orders += play_orders(w, g, god)
        orders.append(Order(("done",), ("done",)))
        return orders

    def default_order(self, state, player):
        flow, g = state["flow"], state["game"]
        if flow["phase"] == "setup":
            return self.legal_orders(state, player)[0]
        t = g["turn"]
        if t.get("pending") is not None:
            return default_choice(self.world, g, t["god"], t["pending"])
        return Order(("done",), ("done",))

    # --- why a typed order is illegal ------------------------------------------------------
    def why_illegal(self, state, player, typed):
        flow, g = state["flow"], state["game"]
        w = self.world
        verb = typed[0]
        args = [a for a in typed[1:] if a != "->"]
        if flow.get("over"):
            return "the game is over"
        if flow["phase"] == "setup":
            if verb != "priest":
                return "the game is being set up: the only order now is `priest PROVINCE` (your starting priest)"
            where = w.resolve_name(args[0], ("province", "desert")) if args else None
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
        if t["pending"] is not None:
            card = w.card_name(t["pending"])
            kind = self.cards[t["pending"]]["kind"]
            if verb != kind:
                return (f"you drew {card}, which must be played at once: your next order must say how, "
                        f"`{CHOICE_USAGE[kind]}`")
            return why_choice(w, g, god, kind, args) or f"that is not a way to play {card}"
        if verb in CHOICE:
            return f"`{verb}` answers a {KIND_TITLE[verb]} card when it is drawn; you have no such card to play now"
        if verb == "priest":
            return "starting priests were placed at set-up; to ordain one, `buy priest PROVINCE`"
        step = t["step"]
        if verb == "buy":
            if step > 2:
                return f"purchasing (step 2) is over: you are in step {step} ({STEP_NAMES[step]})"
            return why_buy(w, g, god, args)
        if verb == "move":
            if step > 3:
                return f"movement (step 3) is over: you are in step {step} ({STEP_NAMES[step]})"
            return why_move(w, g, t, god, args)
        if verb == "holywar":
            if step > 4:
                return "the Holy War step (4) is over: worshippers are being added"
            return why_war(w, g, t, god, args)
        if verb == "vision":
            return why_vision(w, g, t, god, args)
        if verb == "play":
            return why_play(w, g, god, args)
        return None

    # --- applying an order ---------------------------------------------------------------
    def apply(self, state, player, order, rng):
        g = state["game"]
        w = self.world
        kind = order.payload[0]
        if kind == "priest":
            _, god, prov = order.payload
            return self._place_start_priest(state, player, god, prov)
        t = g["turn"]
        god = t["god"]
        if t["pending"] is not None:
            return play_choice(w, g, god, order)
        if kind == "buy_priest":
            self._enter(t, 2)
            return buy_priest(w, g, god, order.payload[1])
        if kind == "buy_card":
            self._enter(t, 2)
            return buy_card(w, g, god, rng)
        if kind == "move_w":
            begin_movement(w, g, t, god)
            _, n, src, dst = order.payload
            return move_worshippers(w, g, t, god, n, src, dst)
        if kind == "move_p":
            begin_movement(w, g, t, god)
            _, src, dst = order.payload
            return move_priest(w, g, t, god, src, dst)
        if kind == "move_s":
            begin_movement(w, g, t, god)
            _, src, dst = order.payload
            return move_saint(w, g, god, src, dst)
        if kind == "holywar":
            self._enter(t, 4)
            _, src, dst, first, most = order.payload
            return fight(g, t, god, src, dst, first, most, rng)
        if kind == "vision":
            _, n, prov = order.payload
            return place_vision(w, g, t, god, n, prov)
        if kind in ("temple", "conversion", "act"):
            return play_card(w, g, god, order.payload)
        if kind == "done":
            return self._end_turn(state)
        raise ValueError(f"unknown order payload {order.payload!r}")  # pragma: no cover

    @staticmethod
    def _enter(t: dict, step: int) -> None:
        t["step"] = max(t["step"], step)

    def _place_start_priest(self, state: dict, player: str, god: str, prov: str) -> list[Event]:
        g = state["game"]
        place_priest(g, god, prov)
        g["place"][player].remove(god)
        if not g["place"][player]:
            state["flow"]["active"] = [p for p in state["flow"]["active"] if p != player]
        return [{"type": "start_priest", "god": god, "at": prov}]

    # --- step 6, and the end of the round --------------------------------------------------
    def _end_turn(self, state: dict) -> list[Event]:
        g = state["game"]
        t = g["turn"]
        god = t["god"]
        events: list[Event] = []
        if t["step"] < 5:
            events += add_worshippers(self.world, g)
        events += place_rest_of_vision(self.world, g, t, god)
        for s in g["saints"][god]:
            s["moved"] = False
        t["step"] = 6
        events.append({"type": "turn_over", "god": god, "player": t["player"]})
        state["flow"].update(phase="between", active=[], prompt="")
        return events

    def _end_round(self, state: dict) -> list[Event]:
        g = state["game"]
        events = end_of_round(self.world, g)
        winner, reason = self._winner(g)
        if winner is not None or reason is not None:
            events += self._finish(state, winner, reason)
        return events

    # --- winning -------------------------------------------------------------------------
    def _winner(self, g: dict) -> tuple[str | None, str | None]:
        """(winning god, reason) at the end of a round: a reason without a winner ends the
        game with nobody winning; (None, None): play goes on."""
        w = self.world
        winner, reason = None, None
        owners = {o for o in g["owner"].values() if o}
        for god in in_play(g):
            if len(owned(w, g, god)) >= int(self.r["win_provinces"]):
                winner, reason = god, f"{who(w, g, god)} owns {len(owned(w, g, god))} provinces"
                break
        if winner is None and len(owners) == 1:
            (god,) = owners
            winner, reason = god, f"{who(w, g, god)} is the only god in possession of a province"
        players_left = [god for god in g["order"] if god not in g["out"]]
        if winner is None and len(players_left) <= 1:
            if players_left:
                winner = players_left[0]
                reason = f"{who(w, g, winner)} is the last player's god not passed into myth"
            else:
                reason = "every player's god has passed into myth"
        return winner, reason

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
        return {p: len(owned(self.world, g, g["god_of"][p])) for p in g["players"]}

    def private(self, g: dict, god: str) -> dict:
        return {
            "god": god,
            "title": self.god_title[god],
            "donatives": g["donatives"][god],
            "hand": [{"card": c, "name": self.world.card_name(c)} for c in g["hands"][god]],
        }

    def view(self, state, player):
        g = state["game"]
        w = self.world
        flow = state["flow"]
        gods = g["gods"]
        t = g["turn"] or {}
        provinces = []
        for p in self.places:
            cell = g["board"].get(p, {})
            provinces.append({
                "name": p, "title": self.title[p], "desert": p in self.deserts, "owner": g["owner"].get(p),
                "worshippers": {god: cell.get(god, 0) for god in gods},
                "priests": {god: priests_at(g, god, p) for god in gods},
                "saints": {god: saints_at(g, god, p) for god in gods},
                "heretics": g["heretics"].get(p, 0),
                "next_to": [n + ("~" if frozenset((p, n)) in self.water else "") for n in self.adj[p]],
            })
        unknown_ctl = self.controller(g)
        public = {
            "players": [{"name": p, "colour": self.god_colour[g["god_of"][p]], "god": g["god_of"][p]} for p in g["players"]],
            "gods": [{
                "god": god, "title": self.god_title[god], "colour": self.god_colour[god],
                "player": g["player_of"].get(god), "unknown": god == g["unknown"], "out": god in g["out"],
                "owned": len(owned(w, g, god)), "worshippers": total(g, god),
                "priests": priests_on_board(g, god), "priests_left": g["supply"]["priests"][god],
                "saints": len(g["saints"][god]), "saints_left": g["supply"]["saints"][god],
                "hand": len(g["hands"][god]), "vision": g["visions"][god],
                "desert_saints": [{"at": s["at"], "turns": s["turns"]} for s in g["saints"][god] if s["at"] in self.deserts],
            } for god in gods],
            "who": {god: who(w, g, god) for god in gods},
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
                public["turn"]["pending"] = w.card_name(t["pending"])
            if t and t.get("player") == player and flow.get("phase") in ("turn", "unknown"):
                public["turn"]["vision"] = t.get("vision")
                public["turn"]["vision_due"] = vision_due(w, g, t["god"]) and (t.get("step") or 1) < 5
                public["turn"]["movable"] = {p: n for p in self.provinces
                                             if (t.get("step") or 1) <= 3 and (n := movable(g, t, t["god"], p)) > 0}
        return public

    def summary(self, view):
        """The position as a score sheet: the round and whose turn, the supplies, each god."""
        title = {gd["god"]: gd["title"] for gd in view.get("gods", [])}
        out = [("Round", f"{view.get('round')}; turn order {', '.join(title.get(g, g) for g in view.get('order', []))}")]
        t = view.get("turn") or {}
        if t.get("god"):
            step = f"step {t['step']} ({t['step_name']})" if t.get("step") else "starting"
            out.append(("Turn", f"{title.get(t['god'], t['god'])}, played by {t.get('player')}: {step}"))
        if view.get("unknown"):
            out.append(("The Unknown God", f"{title.get(view['unknown'], view['unknown'])}, played this round by "
                                           f"{view.get('unknown_controller') or 'nobody'}"))
        costs = view.get("costs") or {}
        out += [
            ("Worshippers in the pool", str(view.get("pool", 0))),
            ("Heretics left", str(view.get("heretics_left", 0))),
            ("Donatives left in the bank", str(view.get("donatives_left", 0))),
            ("God cards", f"{view.get('deck', 0)} in the draw pile, {view.get('discard', 0)} discarded"),
            ("Costs", f"a priest {costs.get('priest')} donatives, a card {costs.get('card')}"),
        ]
        for gd in view.get("gods", []):
            state = "out of the game" if gd.get("out") else (
                f"{plural(gd['worshippers'], 'worshipper')}, {plural(gd['owned'], 'province')}, "
                f"{plural(gd['priests'], 'priest')} ({gd['priests_left']} in reserve), {plural(gd['saints'], 'saint')}, "
                f"{plural(gd['hand'], 'card')} in hand")
            who = f"{gd['title']} ({gd['player']})" if gd.get("player") else gd["title"]
            out.append((who, state))
        return out

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
        """Random, but pushed to make progress so that random play-outs end (bot.py)."""
        return choose_order(self.world, state, legal, rng)


RULES = YeGodsRules
