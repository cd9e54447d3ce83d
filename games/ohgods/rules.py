"""Oh Gods! (M. Craig Stockwell, version 3.1): rules text in shared/rules/oh-gods.md, the deck
in data.toml beside this.

Pure: state in, state and events out. The first game here with hidden hands, a face-down
scoring pile and a reaction by a player who is not on turn (Block, as a standing order).

State (`state["game"]`), every card by its id:
  deck (top first), discard (top last), hands/altars/sets per player, sanctuary (the Sanctuary
  card in play by a player's altar, or None), mastery (domain -> holder), block (each player's
  standing order about Block), scores (running totals), history (the scored hands), turn,
  final (None, or the final round: who started it and who still has a last turn).

This module holds the game: set-up, whose turn it is, the hands and the final round, which
orders are legal (gathered from the mechanics) and `apply` handing each order to its mechanic,
the views, the scores and the outcome. The mechanics stand beside it, as plain functions over
the state and the card catalogue (this Rules object is one), none importing this module:
  cards.py    the deck's data checked (`validate`) and the card catalogue (`Catalogue`)
  table.py    deck, hands and discard pile: dealing, drawing, discarding; the final round starting
  plays.py    playing a card: gods to the altar, Sanctuary, Pilgrimage, Exchange
  sets.py     forming sets, what a set scores, scoring a hand
  steals.py   stealing a god, and Block as a standing order
  mastery.py  the Mastery cards: who wins them, their free actions

Where each section of the rules text (shared/rules/oh-gods.md) is implemented:
  Goal                    sets.set_points (the points of a set); OhGodsRules._finish (most points)
  Set-up                  OhGodsRules.setup (first player of the first hand: option `first`),
                          table.deal; later hands: OhGodsRules.next_first
  Turn sequence           OhGodsRules._begin_turn, _after_action, _end_turn; `pass` in apply
  Act                     OhGodsRules.legal_orders, apply, why_illegal (one mechanic each action)
  Play a card             plays.play_orders, plays.play, plays.why_not_play; Sanctuary leaves
                          play: plays.end_sanctuary (from OhGodsRules._begin_turn)
  Form a set              sets.set_pools, sets.form_orders, sets.form, sets.why_not_form;
                          face-down: OhGodsRules.private_order, view, preview_state
  Mastery                 mastery.claim (from sets.form), mastery.mastery_orders,
                          mastery.use_mastery, mastery.why_not_mastery; War and Love:
                          mastery.holds in steals.steal_needs
  Steal a god             steals.steal_needs, steals.steal_orders, steals.steal,
                          steals.why_not_steal; Block: steals.wants_block, steals.block_orders
                          and steals.set_policy (OhGodsRules.standing_orders); asked live
                          (option reactions=ask): steals.asks_block, ask_block, answer_steal,
                          reaction_default (no answer), OhGodsRules._answered (the turn goes on)
  Discard                 table.discard_orders, table.discard, table.why_not_discard
  Draw                    table.draw (OhGodsRules._end_turn draws to six)
  Final Round             table.start_final (from table.draw and sets.form); last turns:
                          OhGodsRules._end_turn; no sixth set: OhGodsRules.legal_orders,
                          sets.why_not_form
  Scoring                 sets.set_points (examples 1 and 2, the five-card bonus);
                          sets.score_hand (from OhGodsRules._end_hand); a new hand:
                          OhGodsRules.advance, _new_hand, table.deal (Mastery cards return);
                          three hands, ties all win: OhGodsRules._finish
  Special Notes
    Ruler                 cards.Catalogue.movable (plays, steals, mastery), sets.set_pools
    Free Actions          mastery.use_mastery (apply counts no action), turn "free_used";
                          after the last action, free actions only: OhGodsRules._after_action,
                          legal_orders, why_illegal
    cards that move gods  plays.play (Pilgrimage, Exchange: not a steal, no Block)
    Immortalized          cards.Catalogue.is_imm, sets.set_pools, sets.set_points (never
                          Ruler), sets.why_not_form; it cannot be stolen: steals.steal_orders
"""

from __future__ import annotations

import dataclasses

from pbem.core.engine import Event, GameInfo, Rules
from pbem.core.errors import DataError
from pbem.core.flow import Clockwise
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng
from pbem.core.words import plural

from .cards import HIDDEN, Catalogue, uncertain, validate
from .mastery import mastery_orders, use_mastery, why_not_mastery
from .plays import end_sanctuary, play, play_orders, why_not_play
from .sets import form, form_orders, score_hand, set_points, set_pools, why_not_form
from .steals import (
    answer_steal,
    ask_block,
    asks_block,
    block_orders,
    block_policy,
    policy_text,
    reaction_default,
    reaction_orders,
    set_policy,
    steal,
    steal_needs,
    steal_orders,
    why_not_block,
    why_not_steal,
)
from .table import deal, discard, discard_orders, draw, why_not_discard

OPTIONS = {
    "first": "who plays first in the first hand, by the players' agreement: a player's name, "
    "'seat' (the first --player, default) or 'random'",
    "reactions": "'standing' (default: whether you play a Block is your standing order) or 'ask' (a steal "
    "stops the turn and asks its victim live, `block` or `allow`, with the host's reaction_deadline; "
    "no answer: the standing order decides)",
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
        "allow": ("", "with the option reactions=ask, when you are asked about a steal from your altar: let it "
                  "through (`block` alone plays a Block card you hold against it)"),
    },
    aliases={"giving": "give", "gives": "give", "with": "for", "steals": "steal", "all": "any"},
    usage_of={"form": ("form ELEMENT", "form ELEMENT GOD GOD GOD ...")},  # as ORDERS.md writes it
)


class OhGodsRules(Rules, Catalogue):
    """The game; its card catalogue (cards.Catalogue: `cards`, `tok`, `name`, `label`...) is
    mixed in, so this object is the catalogue the mechanics take."""

    grammar = GRAMMAR

    def __init__(self, data: dict):
        Rules.__init__(self, validate(data))
        Catalogue.__init__(self, data)
        # 'play hel' is Hel, never an abbreviation of Helios
        self.grammar = dataclasses.replace(GRAMMAR, names=frozenset(self.tok(c) for c in self.deck_ids))
        self.info = GameInfo(name="ohgods", title=data["title"], min_players=data["min_players"],
                             max_players=data["max_players"], options=OPTIONS)
        self.turn_order = Clockwise()
        self._standing_cache: dict[tuple, list[Order]] = {}

    # --- set-up and hands ------------------------------------------------------------------
    def asks_live(self, options) -> bool:
        """reactions=ask: the victim of a steal is asked live whether to Block."""
        return str(options.get("reactions", "standing")).strip().lower() == "ask"

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
            "block": {p: block_policy(self.r["default_block"]) for p in players},
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
        reactions = str(options.get("reactions", "standing")).strip().lower()
        if reactions not in ("standing", "ask"):
            raise DataError(f"ohgods: option reactions must be 'standing' or 'ask', not '{reactions}'")
        if reactions == "ask":  # only then: a game with the default keeps today's state exactly
            game["reactions"] = "ask"
        events += self._new_hand(state, rng, first)
        return state, events

    def _new_hand(self, state: dict, rng: Rng, first: str) -> list[Event]:
        g = state["game"]
        g["hand"] += 1
        g["first"] = first
        events = deal(self, g, rng, first)
        g["turn"]["number"] = 0
        return events + self._begin_turn(state, first)

    # --- turn flow -------------------------------------------------------------------------
    def _begin_turn(self, state: dict, player: str) -> list[Event]:
        g = state["game"]
        events = end_sanctuary(g, player)
        g["turn"] = {"player": player, "actions_left": self.r["actions"], "free_used": [],
                     "number": g["turn"]["number"] + 1}
        last = " -- your last turn of this hand (final round)" if g["final"] else ""
        state["flow"].update(active=[player], prompt=f"{player}: take two actions, then you draw to six{last}.")
        events.append({"type": "turn", "player": player, "hand": g["hand"], "final": bool(g["final"])})
        return events

    def _after_action(self, state: dict, player: str, rng: Rng, counts: bool = True) -> list[Event]:
        """After an action or a free action: once the actions are used up the turn goes on
        for free actions only (the text sets them no time), and ends by itself when the
        player has none left to take; `pass` (the default) ends it before."""
        g = state["game"]
        t = g["turn"]
        if counts:
            t["actions_left"] -= 1
        if t["actions_left"] > 0 or state["flow"].get("over"):
            return []
        if not mastery_orders(self, g, player):
            return self._end_turn(state, player, rng)
        state["flow"]["prompt"] = (f"{player}: your actions are taken; free actions (Mastery) only, "
                                   f"then you draw to six.")
        return []

    def _end_turn(self, state: dict, player: str, rng: Rng) -> list[Event]:
        g = state["game"]
        g["turn"]["actions_left"] = 0
        events = draw(self, g, player, self.r["hand_size"] - len(g["hands"][player]), rng, during_turn=False)
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

    def _end_hand(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        if g.get("preview"):  # checking orders: the hand's scoring depends on cards not shown
            state["flow"].update(active=[], prompt="")
            return []
        events = score_hand(self, g)
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

    # --- legal orders --------------------------------------------------------------------------
    def legal_orders(self, state, player):
        g = state["game"]
        if state["flow"].get("over") or player not in state["flow"]["active"]:
            return []
        if g.get("pending"):  # a steal asked live: its victim answers, nothing else
            return reaction_orders() if player == g["pending"]["victim"] else []
        orders: dict[str, Order] = {}

        def add(o: Order) -> None:
            orders.setdefault(o.text, o)

        if g["turn"]["actions_left"] <= 0:  # after the last action: free actions only
            for o in mastery_orders(self, g, player):
                add(o)
            add(Order(("pass",), ("pass",)))
            return list(orders.values())

        for o in play_orders(self, g, player):
            add(o)
        if len(g["sets"][player]) < self.r["max_sets"]:
            for o in form_orders(self, g["altars"][player]):
                add(o)
        for o in steal_orders(self, g, player):
            add(o)
        for o in discard_orders(self, g["hands"][player]):
            add(o)
        for o in mastery_orders(self, g, player):
            add(o)
        add(Order(("pass",), ("pass",)))
        return list(orders.values())

    def standing_orders(self, state, player):
        if state["flow"].get("over"):
            return []
        players = tuple(state["game"]["players"])
        key = (players, player)
        if key not in self._standing_cache:
            self._standing_cache[key] = block_orders(self.gods, players, player)
        return self._standing_cache[key]

    def default_order(self, state, player):
        g = state["game"]
        if g.get("pending") and player == g["pending"]["victim"]:
            return reaction_default(self, g, player)  # no answer: the standing order decides
        return Order(("pass",), ("pass",))

    history_events = ("form",)  # the element is announced; the order (which cards) is face-down

    def private_order(self, state, player, order):
        # The cards of a set go face-down: which gods went in is the former's secret. An answer
        # to a steal asked live is the victim's too (`block` without a Block card, `allow` with
        # one): everyone sees only what happens.
        return order.verb == "form" or order.payload[0] == "react"

    def why_illegal(self, state, player, typed):
        g = state["game"]
        verb, args = typed[0], typed[1:]
        if state["flow"].get("over"):
            return "the game is over"
        pend = g.get("pending")
        if verb == "allow" and not (pend and pend["victim"] == player):
            return ("`allow` answers a steal from your altar that you are asked about (game option reactions=ask); "
                    "no steal is waiting for your answer")
        if verb in ("block", "never"):
            return why_not_block(args)
        if player not in state["flow"]["active"]:
            return None  # the engine says whose turn it is, and that standing orders may be given
        if pend:
            return (f"you are asked only about {pend['thief']}'s steal of {self.name(pend['target'])} from your altar: "
                    f"answer `block` or `allow`")
        if g["turn"]["actions_left"] <= 0 and verb not in ("mastery", "pass"):
            return ("you have taken your actions this turn: only free actions (`mastery ...`) are left, "
                    "and your turn ends when your orders have no more of them (or on `pass`)")
        if verb == "play" and args:
            return why_not_play(self, g, player, args)
        if verb == "form":
            return why_not_form(self, g, player, args)
        if verb == "steal" and args:
            return why_not_steal(self, g, player, args)
        if verb == "discard":
            return why_not_discard(self, g, player, args)
        if verb == "mastery" and args:
            return why_not_mastery(self, g, player, args)
        return None

    # --- applying an order -----------------------------------------------------------------------
    def apply(self, state, player, order, rng):
        p = order.payload
        kind = p[0]
        g = state["game"]
        if kind == "block":
            return set_policy(self, g, player, p)
        if kind == "react":
            return self._answered(state, player, p[1], rng)
        counts = True
        if kind == "play":
            events = play(self, g, player, p)
        elif kind == "form":
            events = form(self, g, player, p)
        elif kind == "steal":
            if asks_block(self, g, p[1]):  # reactions=ask: the turn stops until the victim answers
                return ask_block(self, state, player, p)
            events = steal(self, g, player, p, rng)
        elif kind == "discard":
            events = discard(self, g, player, p[1])
        elif kind == "mastery":
            counts = False
            events = use_mastery(self, g, player, p, rng)
        elif kind == "pass":
            left = g["turn"]["actions_left"]
            g["turn"]["actions_left"] = 0
            events = [{"type": "pass", "player": player, "forfeited": left}]
            return events + self._end_turn(state, player, rng)
        else:  # pragma: no cover
            raise ValueError(f"unknown order payload {p!r}")
        return events + self._after_action(state, player, rng, counts)

    def _answered(self, state: dict, victim: str, choice: str, rng: Rng) -> list[Event]:
        """The victim's answer settles the pending steal; then the thief's turn goes on where it
        stopped (the steal counts as their action), asked afresh in the next phase."""
        g = state["game"]
        thief = g["pending"]["thief"]
        events = answer_steal(self, g, victim, choice)
        state["flow"].pop("pace", None)
        state["flow"].update(phase="turn", active=[thief])
        events += self._after_action(state, thief, rng)
        t = g["turn"]
        if state["flow"]["active"] == [thief] and t["player"] == thief and not state["flow"].get("over"):
            if t["actions_left"] > 0:
                state["flow"]["prompt"] = (f"{thief}: your steal is settled; take your {plural(t['actions_left'], 'action')} "
                                           f"left, then you draw to six.")
            events.append({"type": "turn_resumed", "player": thief, "actions_left": t["actions_left"]})
        return events

    # --- mechanics that callers outside the game (tests, tools) reach on this object: each takes
    # the catalogue first, which as a method is this object
    set_points = set_points
    set_pools = set_pools
    policy_text = policy_text

    def summary(self, view):
        """The position as a score sheet: the hand and whose turn, the piles, the Masteries,
        and each player's altar, sets and score (what is face down stays a count)."""
        t = view.get("turn") or {}
        out = [("Hand", f"{view.get('hand_number')} of {view.get('hands')}; {view.get('first')} played first")]
        if t.get("player"):
            free = f"; free actions used: {', '.join(t['free_used'])}" if t.get("free_used") else ""
            out.append(("Turn", f"{t['player']}, {plural(t.get('actions_left', 0), 'action')} left{free}"))
        final = view.get("final")
        if final:
            out.append(("Final round", f"{final.get('trigger')} {final.get('reason')}; still to play: "
                                       f"{', '.join(final.get('remaining', [])) or 'nobody'}"))
        top = view.get("discard_top")
        out += [
            ("Deck", plural(view.get("deck_count", 0), "card")),
            ("Discard pile", plural(view.get("discard_count", 0), "card") + (f", {top['name']} on top" if top else "")),
            ("Masteries", "; ".join(f"{m['domain']}: {m['holder'] or 'nobody yet'}" for m in view.get("mastery", [])) or "none"),
        ]
        for pl in view.get("players", []):
            altar = ", ".join(c["name"] for c in pl.get("altar", [])) or "empty altar"
            sets = ", ".join(f"{s['element']} ({s['size']})" for s in pl.get("sets", [])) or "no sets"
            extra = "; Sanctuary" if pl.get("sanctuary") else ""
            out.append((pl["name"], f"{pl['score']} points; {plural(pl['hand_count'], 'card')} in hand; "
                                    f"altar: {altar}; sets: {sets}{extra}"))
        return out

    # --- checking orders without hidden information ----------------------------------------------
    def preview_state(self, state, player):
        """Orders are checked against a position in which everything `player` may not see is
        an unseen card: other hands, the deck, other players' face-down sets, their standing
        orders. So an acknowledgement cannot reveal a hidden card or whether a steal will be
        blocked; what depends on them is accepted 'if the cards allow'.

        A card drawn during the turn is filled in from `unseen`: the cards of the deck and the
        other hands together, in no telling order (the player can work this set out from what
        has been shown), one picked by the check's dice. The engine checks a script in many
        such outcomes, so a line naming a card the draw may bring is accepted if the cards
        allow, and one naming a card no draw can bring is rejected."""
        g = state["game"]
        g["preview"] = True
        g["unseen"] = sorted(g["deck"] + [c for p in g["players"] if p != player for c in g["hands"][p]])
        g["deck"] = [HIDDEN] * len(g["deck"])
        for p in g["players"]:
            if p == player:
                continue
            g["hands"][p] = [HIDDEN] * len(g["hands"][p])
            g["sets"][p] = [{"element": s["element"], "cards": [HIDDEN] * len(s["cards"])} for s in g["sets"][p]]
            g["block"][p] = block_policy("never")
        return state

    def answer_in_check(self, state, rng):
        """Checking the thief's orders after a steal asked live (reactions=ask): play one answer
        the victim could give, as the thief can tell -- `block` only while some Block card is
        unseen (the victim's hand is, in the check's position), then a Block from the unseen
        cards stops the steal; else the steal goes through. The check's outcomes take the
        answers in turn (outcome k: the k-th, as a draw takes the unseen cards), so a later
        line is judged after each."""
        g = state["game"]
        pend = g.get("pending")
        if not pend or not g.get("preview"):
            return None
        uncertain(rng)  # what follows depends on the answer
        victim = pend["victim"]
        unseen_blocks = [c for c in g.get("unseen", []) if self.effect(c) == "block"]
        answers = ["block", "allow"] if unseen_blocks and HIDDEN in g["hands"][victim] else ["allow"]
        pick = answers[rng.world % len(answers) if rng.world is not None else rng.randbelow(len(answers))]
        if pick == "block":  # the victim holds one of the unseen Blocks in this outcome
            g["unseen"].remove(unseen_blocks[0])
            g["hands"][victim][g["hands"][victim].index(HIDDEN)] = unseen_blocks[0]
        self.apply(state, victim, reaction_orders()[0 if pick == "block" else 1], rng)
        return f"if {victim} blocks the steal" if pick == "block" else f"if {victim} lets the steal through"

    # --- bots ------------------------------------------------------------------------------------
    def bot_choice(self, state, player, legal, rng):
        """Random, but biased so that play-outs move on: form whole sets, steal now and then,
        play gods, and pass only when nothing else is legal."""
        g = state["game"]
        if g.get("pending") and player == g["pending"]["victim"]:
            return reaction_default(self, g, player)  # a bot answers as its standing order says
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
        return self._view(state, self._public(state), player, self._reaction(state))

    def views(self, state, viewers):
        """The table everyone sees is worked out once and shared by every viewer's view (issue
        17); each player's view adds their own hand, sets and standing order, as view does."""
        public = self._public(state)
        reaction = self._reaction(state)
        return [self._view(state, public, v, reaction) for v in viewers]

    def _public(self, state):
        """What every viewer sees (the view's first keys, in its order)."""
        g = state["game"]
        t = g["turn"]
        top = g["discard"][-1] if g["discard"] else None
        return {
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

    def _reaction(self, state):
        """A steal asked live: public, as the steal order itself is (None when none is asked)."""
        pend = state["game"].get("pending")
        if not pend:
            return None
        return {"thief": pend["thief"], "victim": pend["victim"], "god": self.name(pend["target"]),
                "gave": self.names(pend["give"])}

    def _view(self, state, public, player, reaction):
        """`player`'s view: a new dict holding the `public` table's parts and `reaction`
        (shared, read only), and what only they see."""
        g = state["game"]
        view = dict(public)
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
            view["options"] = (self._options(state, player)
                               if player in state["flow"]["active"] and not g.get("pending") else None)
        if reaction is not None:
            view["reaction"] = reaction
        return view

    def _options(self, state: dict, player: str) -> dict:
        """What the order form lists: the sets you could form now and the steals open to you."""
        g = state["game"]
        formable = []
        if len(g["sets"][player]) < self.r["max_sets"]:
            for e, pool in self.set_pools(g["altars"][player]):
                pts = self.set_points({"element": e, "cards": pool})[0]
                formable.append({"order": f"form {e}", "element": self.element_names[e], "cards": self.names(pool),
                                 "points": pts})
        open_steals: dict[tuple, dict] = {}
        for o in steal_orders(self, g, player):
            _, v, target, give = o.payload
            entry = open_steals.setdefault((v, target), {"god": self.name(target), "token": self.tok(target),
                                                         "from": v, "give": []})
            for c in give:
                if self.name(c) not in entry["give"]:
                    entry["give"].append(self.name(c))
        need, give = steal_needs(self, g, player)
        return {"sets": formable, "steals": list(open_steals.values()), "give": give}

    def outcome(self, state):
        return state["flow"].get("outcome")


RULES = OhGodsRules
