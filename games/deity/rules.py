"""Deity (Warpspawn): rules text in shared/rules/deity.md, data in data.toml beside this.

Pure: state in, state and events out. The shape every game module has: game info, the
Rules class (set-up, legal orders, apply, views, scores), registration. The mechanics live
beside this file (plain functions over the game state and the data tables); this module
keeps the flow, the legal orders, `apply` as a dispatch to the mechanics, and the views.

The flow of a game:

* ``world``   -- (``world=manual`` only) the players build the world, one counter a turn;
* ``setup``   -- one sealed phase: every player lists the plains hexes he would start in, in
  order of preference; they are served in seat order (the 6-space rule decides what is left);
* ``turn``    -- each player in turn plays a whole turn with one order script. The rules keep
  the sub-phase (``game.turn.step``): an order of a later phase moves the turn on to that
  phase, doing what needs no decision on the way (population growth, blight rolls, the other
  players' standing Resurrections), so a script reads like the turn sequence of the text:
  discard (only when over 7 cards), Build Temple, Raise Armies, [growth], Miracle, Battle,
  [end of battle: Resurrection], Movement; ``pass`` ends the turn.

  A line is judged when its step comes. An order of a later step is offered (``legal_orders``)
  if it may be legal once the turn gets there: it is checked against the position after the
  growth, with the player's own blights, which he rolls for at the beginning of the Miracle
  phase, taken as gone (``population.preview``). ``apply`` moves the turn on (rolling those
  dice, playing the other players' standing Resurrections) and judges the order again in the
  position of its step: if it is no longer possible it is void (an event says why).

Where the rules text is implemented (its section headings -> module.function):

* OBJECTIVE -> rules: ``_check_out`` (a god with no population, army -- monsters count as
  armies -- or temple is out), ``_finish``; the round limit (an option the GM may set, not in
  the text; none by default): ``_next_turn``, ``_finish_by_score``, ``scores``, ``_game_end``
* WORLD BUILDING PREGAME SETUP PHASE -> world: ``spots``, ``build_random`` (world=random),
  ``draw_counter``, ``put``, ``redraw`` (world=manual); rules: ``_world_turn``
* SETUP -> world: ``roll_starts``, ``start_orders``, ``choose_start``, ``serve_starts``
  (``start_spots``: the 6-space rule); rules: ``setup``, ``_begin_setup``, ``advance``
* TURN SEQUENCE -> tables: ``STEPS``; rules: ``_begin_turn``, ``_advance_to``, ``_next_turn``
* DRAW PHASE -> cards: ``draw``, ``discard``; rules: ``_begin_turn`` (the hand limit)
* BUILD TEMPLE PHASE -> population: ``temple_orders``, ``temple_ok``, ``build_temple``
* RAISE ARMIES PHASE -> population: ``raise_orders``, ``disband_orders``, ``raise_armies``,
  ``disband``
* POPULATION GROWTH PHASE -> population: ``grow`` (``preview``: the position after it)
* MIRACLE PHASE -> miracles: ``play_orders``, ``play``, ``effect``, ``blight_rolls``
* BATTLE PHASE -> battle: ``attack_orders``, ``attackers``, ``battle``, ``fight`` (rounds; with
  reactions=ask the attacker is asked after each: reactions.battle_answer); board: ``destroy``
  (the order of destruction)
* MOVEMENT PHASE -> movement: ``move_orders``, ``move``
* CARD LIST -> miracles: ``targets``, ``effect``, ``resurrect`` and
  ``standing_resurrections`` (Resurrection); cards: ``negated`` (Abjuration),
  ``standing_list``, ``set_standing``; movement: ``godspeed_dests``, ``carry`` (Godspeed);
  the deck of two of each: rules: ``setup``
* TERRAIN COUNTERS LIST -> data.toml, tables: ``Tables``; board: ``cap`` (the maximums);
  battle: ``battle`` (mountain defence); world: ``spots`` (river valleys); rules: ``setup``
  (the reserve); population: ``temple_ok`` (no temples in swamps)
* OTHER COUNTERS LIST -> board: ``blank_cell``

Beside these: tables.py (data.toml checked, the turn steps), order_cache.py (the Order
objects, made once), reasons.py (``why_illegal``), bot.py (the bot's choices), reactions.py
(the option ``reactions=ask``: Abjuration and Resurrection asked live, rules: ``_go_on``; the
attacker asked after a battle round whether to fight on or retreat, rules: ``_battle_on``,
``requests``).
"""

from __future__ import annotations

from pbem.core.engine import Event, GameInfo, Request, Rules
from pbem.core.errors import DataError, IllegalOrderError
from pbem.core.numbers import whole
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng

from .battle import attack_orders, battle
from .board import blank_cell, coastal, geo_of, land_keys, temples, total
from .bot import decide as bot_decide
from .cards import discard, discard_orders, draw, set_standing, standing_list
from .miracles import (
    blight_rolls,
    effect,
    play,
    play_orders,
    resurrection_orders,
    standing_resurrections,
)
from .movement import carry, carry_orders, move, move_orders
from .order_cache import PASS, OrderCache
from .population import (
    build_temple,
    disband,
    disband_orders,
    grow,
    preview,
    raise_allowance,
    raise_armies,
    raise_orders,
    temple_orders,
)
from .reactions import (
    answer,
    answer_orders,
    asks,
    battle_answer,
    begin_resurrections,
    default_answer,
    proceed,
    question,
    then_of,
)
from .reasons import why_illegal
from .tables import KIND_STEP, STEP_NAMES, STEPS, Tables, validate
from .world import (
    build_random,
    central_spot,
    choose_start,
    draw_counter,
    next_placer,
    place_orders,
    put,
    redraw,
    redraw_orders,
    roll_starts,
    serve_starts,
    start_orders,
)

GAME_INFO = GameInfo(
    name="deity",
    title="Deity",
    min_players=2,
    max_players=6,
    options={
        "size": "the map: 10 (10x10 hexes, default) or 12 (12x12)",
        "world": "'random' (default: the engine builds the world from the game seed) or 'manual' (the players build it, one counter a turn)",
        "start": "who starts: 'seat' (the first --player, default) or 'random'",
        "rounds": "round limit: the game ends after round N and the highest score wins; 0 (default) = no limit, as in the text",
        "reactions": "'standing' (default: Abjuration and another player's Resurrection are standing orders) or 'ask' "
                     "(the turn stops and asks the reacting player live, `play CARD` or `pass`, and the attacker after "
                     "each battle round, `fight on` or `retreat`, with the host's reaction_deadline; no answer: the "
                     "standing order decides, his `retreat K` for the attacker)",
    },
)

GRAMMAR = Grammar(
    verbs={
        "put": ("hex", "world building: put the terrain counter you drew at q,r (next to the land already placed)"),
        "redraw": ("", "world building: discard the counter you drew and draw another (twice a game)"),
        "start": ("hex", "set-up: place your starting population in this plains hex (list several, best first)"),
        "discard": ("CARD word?", "discard a card from your hand (when it holds more than 7)"),
        "temple": ("hex", "Build Temple: six population at q,r become a temple"),
        "raise": ("int hex", "Raise Armies: N population at q,r become armies (at most half)"),
        "disband": ("int hex", "Raise Armies: N armies at q,r turn back into population"),
        "play": ("CARD word? hex? ->? hex?", "Miracle: play a card, e.g. `play earthquake 3,4`, `play holy war`, `play godspeed 1,2 -> 3,2`"),
        "carry": ("N? pop? M? armies|all?", "Godspeed: how many counters go, e.g. `carry 5 pop 2 armies`, `carry all`"),
        "attack": ("hex -> hex int? retreat? int?", "Battle: armies at q,r attack the adjacent hex; N of them; retreat when K or fewer are left"),
        "fight": ("on?", "Battle (reactions=ask): asked live after a round, fight another round"),
        "retreat": ("", "Battle (reactions=ask): asked live after a round, withdraw the attackers left"),
        "move": ("int pop|armies hex -> hex", "Movement: move N population or armies one hex"),
        "pass": ("", "end your turn (what needs no decision still happens: growth, blight rolls)"),
        "abjure": ("CARD|any word? on? my? hexes?", "standing order: negate that card when another player plays it (on your hexes only, if you say so)"),
        "unabjure": ("CARD|any|all word?", "standing order: drop an abjure order"),
        "resurrect": ("N|off", "standing order: play Resurrection at the end of another's battle phase where you lost N or more counters"),
    },
    aliases={
        "to": "->", "population": "pop", "army": "armies", "ressurrection": "resurrection",
        "drought": "draught", "resurection": "resurrection",
    },
    usage_of={  # as ORDERS.md writes them (what a player is shown for a line that cannot be read)
        "discard": ("discard CARD",), "raise": ("raise N Q,R",), "disband": ("disband N Q,R",),
        "play": ("play CARD [Q,R]", "play godspeed Q,R -> Q,R", "play holy war"),
        "carry": ("carry N pop M armies", "carry all"), "attack": ("attack Q,R -> Q,R [N] [retreat K]",),
        "fight": ("fight on",), "move": ("move N pop Q,R -> Q,R", "move N armies Q,R -> Q,R"),
        "abjure": ("abjure CARD", "abjure CARD on my hexes", "abjure any [on my hexes]"),
        "unabjure": ("unabjure CARD", "unabjure all"), "resurrect": ("resurrect N", "resurrect off"),
    },
)

LETTERS = "ABCDEF"


class DeityRules(Rules):
    info = GAME_INFO
    grammar = GRAMMAR

    def __init__(self, data: dict):
        super().__init__(validate(data))
        self.tab = Tables.from_data(data)
        self.r = self.tab.r
        self.terrain = self.tab.terrain
        self.cards = self.tab.cards
        self.oc = OrderCache()
        self._standing_list = standing_list(self.tab.card_ids)

    # the map's helpers, as the tests call them
    _geo = staticmethod(geo_of)
    _land_keys = staticmethod(land_keys)
    _coastal = staticmethod(coastal)

    # --- set-up ----------------------------------------------------------------------------
    def _options(self, options: dict) -> dict:
        unknown = set(options) - set(self.info.options)
        if unknown:
            raise DataError(f"deity: unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(self.info.options)}")
        d = self.data["options"]
        out = {"size": d["size"], "world": d["world"], "start": d["start"], "rounds": d["rounds"]}
        if "size" in options:
            out["size"] = whole(str(options["size"]))  # 0-9 only (numbers.whole): ² is no size
            if out["size"] not in self.data["map"]["sizes"]:
                raise DataError(f"deity: option size must be one of {', '.join(map(str, self.data['map']['sizes']))}, not {options['size']!r}")
        if "world" in options:
            if options["world"] not in ("random", "manual"):
                raise DataError(f"deity: option world must be 'random' or 'manual', not {options['world']!r}")
            out["world"] = options["world"]
        if "start" in options:
            if options["start"] not in ("seat", "random"):
                raise DataError(f"deity: option start must be 'seat' or 'random', not {options['start']!r}")
            out["start"] = options["start"]
        if "rounds" in options:
            out["rounds"] = whole(str(options["rounds"]))
            if out["rounds"] is None:
                raise DataError(f"deity: option rounds must be a whole number >= 0, not {options['rounds']!r}")
        out["reactions"] = str(options.get("reactions", "standing")).strip().lower()
        if out["reactions"] not in ("standing", "ask"):
            raise DataError(f"deity: option reactions must be 'standing' or 'ask', not {options['reactions']!r}")
        return out

    @staticmethod
    def _fresh_turn(player: str | None) -> dict:
        return {"player": player, "step": "temple", "pending": None, "raise_left": {}, "attacks": {},
                "holy_war": False, "arrived": {}, "destroyed": {}, "orders": 0}

    def asks_live(self, options) -> bool:
        """reactions=ask: Abjuration and Resurrection (and a battle's answer) are asked live."""
        return str(options.get("reactions", "standing")).strip().lower() == "ask"

    def setup(self, players, options, rng: Rng):
        opts = self._options(options)
        n = len(players)
        events: list[Event] = []
        first = 0
        if opts["start"] == "random":
            first = rng.randbelow(n)
            events.append({"type": "first_player", "player": players[first]})
        order = players[first:] + players[:first]
        counters = [t for t, v in self.terrain.items() for _ in range(v["count"])]
        rng.shuffle(counters)
        reserve = counters[: self.r["reserve"]]
        pile = counters[self.r["reserve"]:]
        deck = [c for c in self.tab.card_ids for _ in range(self.data["deck"]["copies"])]
        rng.shuffle(deck)
        game = {
            "players": list(players),
            "order": order,
            "letter": {p: LETTERS[i] for i, p in enumerate(players)},
            "size": opts["size"],
            "world_mode": opts["world"],
            "round_limit": opts["rounds"],
            "land": {},
            "reserve": reserve,
            "pile": pile,
            "removed": [],
            "world": {"drawn": None, "placer": None, "redraws": {p: self.r["redraws"] for p in players}, "placed": 0},
            "start_pop": {},
            "start_choices": {p: [] for p in players},
            "deck": deck,
            "discard": [],
            "hands": {p: [] for p in players},
            "standing": {p: {"abjure": [], "resurrect": 0} for p in players},
            "effects": [],
            "out": [],
            "round": 0,
            "turn": self._fresh_turn(None),
        }
        if opts["reactions"] == "ask":  # only then: a game with the default keeps today's state exactly
            game["reactions"] = "ask"
        state = {"flow": {"phase": "world", "active": [], "sealed": False, "over": False, "prompt": ""}, "game": game}
        events.append({"type": "world_begin", "size": opts["size"], "mode": opts["world"], "pile": len(pile),
                       "reserve": len(reserve)})
        events.append({"type": "shuffle", "what": "deck", "cards": len(deck)})
        if opts["world"] == "random":
            events += build_random(self.tab, game, rng)
            events += self._begin_setup(state, rng)
        else:
            events += self._world_turn(state, order[0], rng)
        return state, events

    def _world_turn(self, state: dict, player: str, rng: Rng) -> list[Event]:
        """Draw the next counter for `player`; when the pile is out, the world is done."""
        g = state["game"]
        events = draw_counter(self.tab, g, player)
        if g["world"]["drawn"] is not None:
            state["flow"].update(phase="world", active=[player], sealed=False,
                                 prompt=self._world_prompt(g, player))
            return events
        return events + self._begin_setup(state, rng)

    def _world_prompt(self, g: dict, player: str) -> str:
        w = g["world"]
        name = self.terrain[w["drawn"]]["name"]
        left = w["redraws"][player]
        return (f"{player}: world building -- place your {name} counter (`put Q,R`)"
                + (f", or `redraw` ({left} redraw{'s' if left != 1 else ''} left)" if left else ""))

    def _begin_setup(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        events = roll_starts(self.tab, g, rng)
        state["flow"].update(phase="setup", active=list(g["order"]), sealed=True,
                             prompt="set-up: choose the plains hex of your starting population "
                                    "(`start Q,R`; list several, best first: in seat order each player gets the first "
                                    "that is not within 6 hexes of a population placed before)")
        return events

    # --- the turn --------------------------------------------------------------------------
    def _begin_turn(self, state: dict, player: str, rng: Rng) -> list[Event]:
        g = state["game"]
        g["turn"] = self._fresh_turn(player)
        expired = [e for e in g["effects"] if e["by"] == player]
        g["effects"] = [e for e in g["effects"] if e["by"] != player]
        events: list[Event] = [{"type": "turn_begin", "player": player, "round": g["round"]}]
        for e in expired:
            events.append({"type": "expire", "card": e["card"], "by": player, "hexes": e["hexes"]})
        n = self.r["draw_base"] + temples(g, player)
        events += draw(g, player, n, rng)
        if len(g["hands"][player]) > self.r["hand_max"]:
            g["turn"]["step"] = "discard"
        state["flow"].update(phase="turn", active=[player], sealed=False)
        self._prompt(state)
        return events

    def _prompt(self, state: dict) -> None:
        g = state["game"]
        t = g["turn"]
        p = t["player"]
        if t["pending"] and t["pending"]["kind"] == "discard" or t["step"] == "discard":
            what = f"discard down to {self.r['hand_max']} cards (`discard CARD`), then go on with your turn"
        elif t["pending"]:
            pd = t["pending"]
            what = f"Godspeed from {pd['src']} to {pd['dest']}: say what goes (`carry N pop M armies` or `carry all`)"
        else:
            what = f"now in the {STEP_NAMES[t['step']]} phase; give your orders in turn order, `pass` ends the turn"
        state["flow"]["prompt"] = f"{p}: your turn (round {g['round']}) -- {what}"

    def _next_turn(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        order = g["order"]
        cur = g["turn"]["player"]
        i = order.index(cur)
        nxt = None
        for step in range(1, len(order) + 1):
            q = order[(i + step) % len(order)]
            if q not in g["out"]:
                nxt = q
                break
        events: list[Event] = [{"type": "turn_end", "player": cur, "next": nxt}]
        if nxt is None:  # pragma: no cover - the game is over before this
            return events
        if order.index(nxt) <= i:
            limit = g["round_limit"]
            if limit and g["round"] >= limit:
                return events + self._finish_by_score(state, f"the round limit ({limit} rounds) was reached")
            g["round"] += 1
        return events + self._begin_turn(state, nxt, rng)

    def _end_turn(self, state: dict, rng: Rng) -> list[Event]:
        events = self._advance_to(state, "movement", rng)
        if "asking" in state["game"]:  # reactions=ask: Resurrections asked live first
            state["game"]["asking"]["then"] = {"do": "end"}
            return events + self._go_on(state, rng)
        if state["flow"]["over"]:
            return events
        return events + self._next_turn(state, rng)

    def _advance_to(self, state: dict, target: str, rng: Rng) -> list[Event]:
        """Move the turn on to `target`, doing on the way what needs no decision."""
        g = state["game"]
        t = g["turn"]
        p = t["player"]
        events: list[Event] = []
        while STEPS.index(t["step"]) < STEPS.index(target):
            s = t["step"]
            if s == "discard":
                t["step"] = "temple"
            elif s == "temple":
                t["raise_left"] = raise_allowance(g, p)
                t["step"] = "raise"
            elif s == "raise":
                events += grow(self.tab, g, p)
                t["step"] = "miracle"
                events += blight_rolls(self.tab, g, p, rng)
            elif s == "miracle":
                t["step"] = "battle"
            elif s == "battle":
                t["step"] = "battle_end"
            elif s == "battle_end":
                t["step"] = "movement"
                if asks(g):  # reactions=ask: the other players are asked live (see _go_on)
                    begin_resurrections(g)
                    break
                events += standing_resurrections(self.tab, g, rng)
        return events

    # --- reactions asked live (option reactions=ask; reactions.py) ---------------------------
    def _go_on(self, state: dict, rng: Rng) -> list[Event]:
        """Go on with the moment of reactions in progress: ask the next player live, or, once
        it is over, give the turn back to its player and do what he was doing."""
        g = state["game"]
        flow = state["flow"]

        def effect_of(player, card, args, area):
            return effect(self.tab, g, player, card, args, area, rng)
        events, q = proceed(self.tab, g, rng, self.data["deck"]["copies"], effect_of)
        if q is not None:
            event, prompt = question(self.tab, g)
            flow.update(phase="reaction", active=[q], pace="reaction", prompt=prompt)
            return events + [event]
        then = g.pop("asking")["then"]
        flow.pop("pace", None)
        flow.update(phase="turn", active=[g["turn"]["player"]])
        if then is None:
            return events + self._after(state, rng)
        if then["do"] == "end":
            return events + self._end_turn(state, rng)
        order = Order(tuple(then["tokens"]), tuple(then["payload"]))
        return events + self._do(state, g["turn"]["player"], order, rng, resumed=True)

    def _battle_on(self, state: dict, rng: Rng) -> list[Event]:
        """After the attacker's battle order or answer: ask him again if the battle waits for
        him, else give him his turn back. Either way his submission ends here (`game.held`:
        its later lines are not run, see ``requests``); he is asked for the rest in the next
        phase, which has the usual deadline once the battle is over (see ``advance``)."""
        g = state["game"]
        flow = state["flow"]
        g["held"] = flow.get("number")
        flow["pace"] = "reaction"
        if "asking" in g:
            event, prompt = question(self.tab, g)
            flow.update(phase="reaction", active=[g["asking"]["who"]], prompt=prompt)
            return [event]
        flow.update(phase="turn", active=[g["turn"]["player"]])
        return self._after(state, rng)

    def requests(self, state: dict) -> list[Request]:
        # reactions=ask: the phase in which the attacker's battle stopped (for his question or
        # after his answer) asks nothing more of him; the next phase does
        if state["game"].get("held") is not None and state["game"]["held"] == state["flow"].get("number"):
            return []
        return super().requests(state)

    # --- elimination and the end -----------------------------------------------------------
    def _alive(self, g: dict) -> list[str]:
        return [p for p in g["order"] if p not in g["out"]]

    def _check_out(self, state: dict) -> list[Event]:
        g = state["game"]
        if state["flow"].get("over") or state["flow"]["phase"] != "turn":
            return []
        alive = self._alive(g)
        # "Destroy all of your opponent armies, populations, and temples": monsters are armies
        # (that never move), so they keep their god in; any counter of his does.
        keeps = {c["owner"] for c in g["land"].values() if c["owner"] and total(c)}
        newly = [p for p in alive if p not in keeps]
        events: list[Event] = []
        for p in newly:
            g["out"].append(p)
            for c in g["land"].values():
                if c["blight"] == p:
                    c["blight"] = None
            g["discard"] += g["hands"][p]
            g["hands"][p] = []
            g["standing"][p] = {"abjure": [], "resurrect": 0}
            g["effects"] = [e for e in g["effects"] if e["by"] != p]
            events.append({"type": "player_out", "player": p})
        remaining = [p for p in alive if p not in newly]
        if newly and len(remaining) <= 1:
            if remaining:
                events += self._finish(state, f"{remaining[0]} is the last immortal standing", remaining)
            else:
                events += self._finish(state, "the last gods fell together", newly)
        return events

    def _finish(self, state: dict, reason: str, winners: list[str]) -> list[Event]:
        scores = self.scores(state)
        state["flow"].update(over=True, active=[], prompt="")
        state["flow"]["outcome"] = {"winners": list(winners), "scores": scores, "reason": reason,
                                    "out": list(state["game"]["out"])}
        return [{"type": "game_over", "reason": reason, "winners": list(winners), "scores": scores}]

    def _finish_by_score(self, state: dict, reason: str) -> list[Event]:
        g = state["game"]
        scores = self.scores(state)
        alive = self._alive(g)
        best = max(scores[p] for p in alive)
        return self._finish(state, reason, [p for p in alive if scores[p] == best])

    def _after(self, state: dict, rng: Rng) -> list[Event]:
        """After each order of a turn: who is out, whether the game is over, whose turn."""
        events = self._check_out(state)
        if state["flow"]["over"] or state["flow"]["phase"] != "turn":
            return events
        g = state["game"]
        if g["turn"]["player"] in g["out"]:
            return events + self._next_turn(state, rng)
        self._prompt(state)
        return events

    # --- orders: what is legal -------------------------------------------------------------
    def _gens(self, state: dict, player: str) -> list[tuple[str, object]]:
        """The legal orders as (kind, thunk) pairs, in turn order: legal_orders joins them
        all; the bot asks only for the kinds it wants."""
        flow = state["flow"]
        if flow.get("over") or player not in flow["active"]:
            return []
        g = state["game"]
        tab, oc = self.tab, self.oc
        if flow["phase"] == "world":
            return [("put", lambda: place_orders(tab, oc, g)), ("redraw", lambda: redraw_orders(g, player))]
        if flow["phase"] == "setup":
            return [("start", lambda: start_orders(oc, g, player))]
        if "asking" in g:  # reactions=ask: the player asked live answers, nothing else
            return [("react", lambda: answer_orders(g, player))]
        t = g["turn"]
        pend = t["pending"]
        if pend:
            if pend["kind"] == "discard":
                return [("discard", lambda: discard_orders(oc, g, player))]
            return [("carry", lambda: carry_orders(tab, g, pend))]
        i = STEPS.index(t["step"])
        if i == 0:
            return [("discard", lambda: discard_orders(oc, g, player))]
        memo: dict = {}

        def later() -> dict:
            if "g" not in memo:
                memo["g"] = g if i >= STEPS.index("miracle") else preview(tab, g, player)
            return memo["g"]

        gens: list[tuple[str, object]] = []
        if i <= STEPS.index("temple"):
            gens.append(("temple", lambda: temple_orders(tab, g, player)))
        if i <= STEPS.index("raise"):
            gens.append(("raise", lambda: raise_orders(oc, g, player)))
            gens.append(("disband", lambda: disband_orders(oc, g, player)))
        if i <= STEPS.index("miracle"):
            gens.append(("play", lambda: play_orders(tab, oc, later(), player)))
        if i <= STEPS.index("battle"):
            gens.append(("attack", lambda: attack_orders(oc, later(), player)))
        if i <= STEPS.index("battle_end"):
            gens.append(("resurrection", lambda: resurrection_orders(oc, later(), player)))
        gens.append(("move", lambda: move_orders(tab, oc, later(), player)))
        gens.append(("pass", lambda: [PASS]))
        return gens

    def legal_orders(self, state, player):
        return [o for _, gen in self._gens(state, player) for o in gen()]

    def standing_orders(self, state, player):
        g = state["game"]
        if state["flow"].get("over") or player not in g["players"] or player in g["out"]:
            return []
        if state["flow"]["phase"] == "setup":
            # more hexes for the list of a player who has already named one
            return self._standing_list + start_orders(self.oc, g, player)
        return self._standing_list

    def private_order(self, state, player, order):
        # a sealed choice; an answer asked live is the player's own (`play` without the card,
        # `pass` with it): everyone sees only what happens
        return order.verb == "start" or order.payload[0] == "react"

    def preview_state(self, state, player):
        """The copy of the position `player`'s submission is checked in: the other players'
        standing orders (Abjuration, Resurrection), which no one else may see, are left out,
        so whether a line is accepted never tells what they are. Their reactions come at
        resolution: an order they make impossible is skipped, or void (see ``apply``)."""
        g = state["game"]
        for q in g["standing"]:
            if q != player:
                g["standing"][q] = {"abjure": [], "resurrect": 0}
        g["checking"] = player  # this copy checks a submission: see `apply`
        return state

    # --- applying an order -----------------------------------------------------------------
    def apply(self, state, player, order, rng):
        g = state["game"]
        kind = order.payload[0]
        if kind in ("abjure", "unabjure", "resurrect_at"):
            return set_standing(g, player, order)
        if kind == "react" and g["asking"]["kind"] == "battle":  # reactions=ask: fight on or retreat
            return battle_answer(self.tab, g, player, order.payload, rng) + self._battle_on(state, rng)
        if kind == "react":  # reactions=ask: the answer of the player asked live
            return answer(self.tab, g, player, order.payload, rng) + self._go_on(state, rng)
        phase = state["flow"]["phase"]
        if phase == "world":
            return self._apply_world(state, player, order, rng)
        if phase == "setup":
            return self._apply_start(state, player, order)
        t = g["turn"]
        if kind != "discard":
            t["orders"] += 1  # orders given this turn (the bot's measure of a turn's length)
        events: list[Event] = []
        if kind == "pass":
            events.append({"type": "pass", "player": player, "step": t["step"]})
            return events + self._end_turn(state, rng)
        if kind == "discard":
            events += discard(g, player, order.payload[1])
            if len(g["hands"][player]) <= self.r["hand_max"]:
                if t["pending"]:
                    t["pending"] = None
                elif t["step"] == "discard":
                    t["step"] = "temple"
            return events + self._after(state, rng)
        if kind == "carry":
            events += carry(g, player, order.payload[1], order.payload[2])
            return events + self._after(state, rng)
        return events + self._do(state, player, order, rng)

    def _do(self, state: dict, player: str, order: Order, rng: Rng, resumed: bool = False) -> list[Event]:
        """An order of the turn's steps, judged when its step comes. `resumed`: the turn stopped
        on the way to its step for reactions asked live, and goes on now: judge it again."""
        g = state["game"]
        t = g["turn"]
        kind = order.payload[0]
        events: list[Event] = []
        gen = "resurrection" if kind == "play" and order.payload[1] == "resurrection" else kind
        step = KIND_STEP[gen]
        if resumed or STEPS.index(step) > STEPS.index(t["step"]):
            # A line is judged when its step comes: move the turn on (growth, the blight rolls,
            # the standing Resurrections), then judge the order in that position.
            events += self._advance_to(state, step, rng)
            if "asking" in g:  # reactions=ask: the turn stops for the Resurrections asked live
                g["asking"]["then"] = then_of(order)
                return events + self._go_on(state, rng)
            still = dict(self._gens(state, player)).get(gen)
            if still is None or not any(o is order or (o.tokens, o.payload) == (order.tokens, order.payload)
                                        for o in still()):
                why = why_illegal(self.tab, state, player, list(order.tokens)) or "it is not legal then"
                if g.get("checking"):  # a submission check: the line fails here, in this outcome of the dice
                    raise IllegalOrderError(f"'{order.text}': by the {STEP_NAMES[step]} phase: {why}")
                events.append({"type": "void", "player": player, "order": order.text,
                               "reason": f"by the {STEP_NAMES[step]} phase it was no longer possible: {why}"})
                return events + self._after(state, rng)
        if kind == "temple":
            events += build_temple(self.tab, g, player, order.payload[1])
        elif kind == "raise":
            events += raise_armies(g, player, order.payload[1], order.payload[2])
        elif kind == "disband":
            events += disband(g, player, order.payload[1], order.payload[2])
        elif kind == "play":
            events += play(self.tab, g, player, order.payload[1], order.payload[2:], rng)
            if "asking" in g:  # reactions=ask: the other players are asked live about the card
                return events + self._go_on(state, rng)
        elif kind == "attack":
            _, src, dst, n, k = order.payload
            events += battle(self.tab, g, player, src, dst, n, k, rng, ask=asks(g))
            if "asking" in g:  # reactions=ask: the attacker is asked whether to fight on or retreat
                return events + self._battle_on(state, rng)
        elif kind == "move":
            _, n, what, src, dst = order.payload
            events += move(g, player, n, what, src, dst)
        else:  # pragma: no cover
            raise ValueError(f"unknown order payload {order.payload!r}")
        return events + self._after(state, rng)

    def _apply_world(self, state: dict, player: str, order: Order, rng: Rng) -> list[Event]:
        g = state["game"]
        if order.payload[0] == "redraw":
            return redraw(g, player) + self._world_turn(state, player, rng)
        events = put(g, player, order.payload[1])
        return events + self._world_turn(state, next_placer(g, player), rng)

    def _apply_start(self, state: dict, player: str, order: Order) -> list[Event]:
        """A sealed choice: the hex goes on the player's list (more may follow, as standing
        orders, until the phase is resolved); the places are served in advance()."""
        events = choose_start(state["game"], player, order.payload[1])
        if player in state["flow"]["active"]:
            state["flow"]["active"].remove(player)
        return events

    # --- defaults, reasons, bots -----------------------------------------------------------
    def default_order(self, state, player):
        g = state["game"]
        phase = state["flow"]["phase"]
        if phase == "world":
            k = central_spot(self.tab, g)
            return self.oc.cached(("put", k), ("put", k))
        if phase == "setup":
            k = start_orders(self.oc, g, player)[0].payload[1]
            return self.oc.cached(("start", k), ("start", k))
        if "asking" in g:  # no answer by the reaction deadline: the standing order decides
            return default_answer(g, player)
        t = g["turn"]
        if t["pending"] and t["pending"]["kind"] == "carry":
            return max(carry_orders(self.tab, g, t["pending"]), key=lambda o: (o.payload[1] + o.payload[2], o.payload[2]))
        if t["step"] == "discard" or t["pending"]:
            return self.oc.card_order("discard", g["hands"][player][-1])
        return PASS

    def why_illegal(self, state, player, typed):
        return why_illegal(self.tab, state, player, typed)

    def bot_choice(self, state, player, legal, rng):
        if "asking" in state["game"]:
            return default_answer(state["game"], player)  # a bot answers as its standing orders say
        by_kind: dict[str, list[Order]] = {}
        for o in legal:
            kd = "resurrection" if o.verb == "play" and o.payload[1] == "resurrection" else o.verb
            by_kind.setdefault(kd, []).append(o)
        gens = [(kd, (lambda v=v: v)) for kd, v in by_kind.items()]
        pick = bot_decide(state, player, gens, rng)
        return pick if pick is not None and pick in legal else rng.choice(legal)

    def bot_fast(self, state: dict, player: str, rng) -> Order | None:
        """bot_choice without listing every legal order first: the kinds are asked for
        their orders one by one (each a part of legal_orders)."""
        if "asking" in state["game"]:
            return default_answer(state["game"], player) if player in state["flow"]["active"] else None
        return bot_decide(state, player, self._gens(state, player), rng)

    def sole_order(self, state: dict, player: str) -> Order | None:
        """The only legal order of `player` if there is exactly one (what engine.settle
        plays by force), found without listing them all."""
        found: list[Order] = []
        cheap_first = {"pass": 0, "temple": 1, "disband": 2, "raise": 3, "attack": 4, "move": 5}
        for _, gen in sorted(self._gens(state, player), key=lambda kg: cheap_first.get(kg[0], 9)):
            found += gen()
            if len(found) > 1:
                return None
        return found[0] if found else None

    # --- eager automation: a scenario position may leave cell fields out -------------------
    def advance(self, state, rng):
        g = state["game"]
        if "held" in g and g["held"] != state["flow"].get("number"):  # the attacker's next phase: see _battle_on
            del g["held"]
            if "asking" not in g:
                state["flow"].pop("pace", None)
        onmap = geo_of(state["game"]).onmap
        for k, c in state["game"]["land"].items():
            if k not in onmap:
                raise DataError(f"deity: land hex {k} is not on the {state['game']['size']}x{state['game']['size']} map")
            if len(c) < 7:
                for f, v in blank_cell(c.get("terrain", "plains")).items():
                    c.setdefault(f, v)
        if state["flow"]["phase"] == "setup" and not state["flow"]["active"] and not state["flow"].get("over"):
            g = state["game"]
            events = serve_starts(self.tab, g)
            g["round"] = 1
            return events + self._begin_turn(state, g["order"][0], rng)
        return []

    # --- views, scores ---------------------------------------------------------------------
    @staticmethod
    def _game_end(g: dict) -> str:
        """How the game ends, as every report states it."""
        limit = g["round_limit"]
        if limit:
            return (f"The game ends after round {limit} if more than one god is still in; then the highest "
                    f"score (population + armies + monsters + 6 per temple) wins, a tie sharing the win. "
                    f"Before that, the last god standing wins.")
        return "There is no round limit: the game goes on until one god is left; the last god standing wins."

    def scores(self, state):
        g = state["game"]
        out = {p: 0 for p in g["players"]}
        for c in g["land"].values():
            if c["owner"]:
                out[c["owner"]] += c["pop"] + c["armies"] + c["monsters"] + (self.r["temple_value"] if c["temple"] else 0)
        return out

    def _label(self, g: dict, c: dict) -> str:
        top = self.terrain[c["terrain"]]["code"]
        if c["owner"]:
            top += " " + g["letter"][c["owner"]] + ("T" if c["temple"] else "")
        if c["blight"]:
            return top + "\nblght"
        low = ""
        if c["pop"] or c["armies"] or c["monsters"]:
            low = str(c["pop"]) + (f"/{c['armies']}" if c["armies"] else "") + (f"m{c['monsters']}" if c["monsters"] else "")
            if len(low) > 5:
                low = f"{total(c) - (1 if c['temple'] else 0)}*"
        return top + "\n" + low

    def summary(self, view):
        """The position as a score sheet (the site and the HTML report show it): the round and
        whose turn, how the game ends, the deck and the reserve, each god, the lasting cards."""
        many = {"hex": "hexes", "army": "armies"}

        def n(k: int, word: str) -> str:
            return f"{k} {word if k == 1 else many.get(word, word + 's')}"
        limit = view.get("round_limit")
        out = [("Round", f"{view.get('round')}" + (f" of {limit}" if limit else "")
                + f"; turn order {', '.join(view.get('order', []))}")]
        t = view.get("turn") or {}
        if view.get("phase") == "turn" and t.get("player"):
            out.append(("Turn", f"{t['player']}: {t.get('step_name')} phase"))
        out.append(("How the game ends", view.get("game_end", "")))
        out.append(("Cards", f"{view.get('deck_count', 0)} in the deck, {len(view.get('discard', []))} in the discard pile"))
        out.append(("Terrain reserve", n(view.get("reserve_count", 0), "counter")))
        for pl in view.get("players", []):
            state = "out of the game" if pl.get("out") else (
                f"{n(pl['hexes'], 'hex')}, {pl['pop']} population, {n(pl['armies'], 'army')}, "
                f"{n(pl['monsters'], 'monster')}, {n(pl['temples'], 'temple')}, {n(pl['hand'], 'card')} in hand; "
                f"score {pl['score']}")
            out.append((f"{pl['letter']} {pl['name']}", state))
        r = view.get("reaction")
        if r:
            about = (f"whether to negate {r['by']}'s {r['card'].replace('_', ' ').title()}" if r["question"] == "abjuration"
                     else f"whether to fight on or retreat in the battle at {r['at']}" if r["question"] == "battle"
                     else f"whether to play a Resurrection at {', '.join(r['hexes'])}")
            out.append(("Waiting for", f"{r['asked']}, asked live {about}"))
        for e in view.get("effects", []):
            out.append((e["name"], f"{', '.join(e['hexes'])} (played by {e['by']}, until {e['by']}'s next turn)"))
        return out

    def view(self, state, player):
        g = state["game"]
        flow = state["flow"]
        scores = self.scores(state)
        land = g["land"]
        stats = {p: {"hexes": 0, "pop": 0, "armies": 0, "monsters": 0, "temples": 0} for p in g["players"]}
        for c in land.values():
            if c["owner"]:
                s = stats[c["owner"]]
                s["hexes"] += 1
                s["pop"] += c["pop"]
                s["armies"] += c["armies"]
                s["monsters"] += c["monsters"]
                s["temples"] += 1 if c["temple"] else 0
        geo = geo_of(g)
        keys = land_keys(g)
        t = g["turn"]
        public = {
            "phase": flow["phase"],
            "size": g["size"],
            "world_mode": g["world_mode"],
            "round": g["round"],
            "round_limit": g["round_limit"],
            "game_end": self._game_end(g),
            "players": [
                {"name": p, "letter": g["letter"][p], "hand": len(g["hands"][p]), "out": p in g["out"],
                 "score": scores[p], "start_pop": g["start_pop"].get(p), "redraws": g["world"]["redraws"][p],
                 **stats[p]}
                for p in g["players"]
            ],
            "order": list(g["order"]),
            "map_cells": {k: self._label(g, land[k]) for k in keys},
            "map_water": {k: "~~~" for k in geo.cells if k not in land},
            "cells": [
                {"at": k, "terrain": land[k]["terrain"], "terrain_name": self.terrain[land[k]["terrain"]]["name"],
                 "max": self.tab.tmax[land[k]["terrain"]], "owner": land[k]["owner"], "pop": land[k]["pop"],
                 "armies": land[k]["armies"], "monsters": land[k]["monsters"], "temple": land[k]["temple"],
                 "blight": land[k]["blight"], "coastal": coastal(g, k)}
                for k in keys if total(land[k]) or land[k]["blight"]
            ],
            "terrain": [{"id": tid, "name": v["name"], "code": v["code"], "max": v["max"], "temples": v["temples"],
                         "defence": v["defence"], "on_map": sum(1 for c in land.values() if c["terrain"] == tid)}
                        for tid, v in self.terrain.items()],
            "effects": [dict(e, name=self.cards[e["card"]]["name"]) for e in g["effects"]],
            "reserve_count": len(g["reserve"]),
            "pile_count": len(g["pile"]),
            "removed": list(g["removed"]),
            "deck_count": len(g["deck"]),
            "discard": [self.cards[c]["name"] for c in g["discard"]],
            "world": {"drawn": g["world"]["drawn"], "drawn_name": self.terrain[g["world"]["drawn"]]["name"] if g["world"]["drawn"] else None,
                      "placer": g["world"]["placer"], "placed": g["world"]["placed"]},
            "turn": {"player": t["player"], "step": t["step"], "step_name": STEP_NAMES[t["step"]],
                     "holy_war": t["holy_war"], "pending": dict(t["pending"]) if t["pending"] else None},
            "scores": scores,
        }
        if flow["phase"] == "setup":
            # who has placed is public; the choices of those still to answer are sealed
            public["start_waiting"] = list(flow["active"])
        if g.get("asking") and g["asking"]["who"]:  # a reaction asked live: public, as its causes are
            event, _ = question(self.tab, g)
            public["reaction"] = {k: v for k, v in event.items() if k != "type"}
            public["reaction"]["asked"] = public["reaction"].pop("player")
        if player is not None and player in g["players"]:
            public["you"] = player
            public["hand"] = [{"id": c, "name": self.cards[c]["name"], "text": self.cards[c]["text"]}
                              for c in g["hands"][player]]
            st = g["standing"][player]
            public["standing"] = {"abjure": [dict(r, name=("any card" if r["card"] == "any" else self.cards[r["card"]]["name"]))
                                             for r in st["abjure"]],
                                  "resurrect": st["resurrect"]}
            if (flow["phase"] == "turn" and not flow.get("over") and t["player"] == player and not t["pending"]
                    and STEPS.index(t["step"]) < STEPS.index("miracle")):
                # The orders of the Miracle phase on are offered as they will be judged: after
                # the growth, own blights maybe rolled away (population.preview). The order form
                # says so, with the numbers.
                after = preview(self.tab, g, player)["land"]
                public["growth_ahead"] = [{"at": k, "now": land[k]["pop"], "after": after[k]["pop"]}
                                          for k in keys if land[k]["owner"] == player and after[k]["pop"] != land[k]["pop"]]
                public["blights_ahead"] = [k for k in keys if land[k]["blight"] == player]
        return public


RULES = DeityRules
