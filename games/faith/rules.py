"""Faith - Wild Gods: rules text in shared/rules/faith-wild-gods.md, a close reading in
shared/faith-spec.md, data (the world map and every CHOICE) in data.toml beside this.

Pure: state in, state and events out. This module keeps the flow of the eras, the legal
orders (enumerated, or parsed for the verbs with free-form arguments), `apply` as a dispatch
to the mechanics, the views and the bots' choices. The board mechanics live beside it:

* positions.py  -- who plays what: positions (a belief or a covenant), the ring, turn order,
                   controllers and levels
* negotiation.py -- Phase 2: gifts, cessions, matched trades, proselytizing, covenants,
                   schisms, new beliefs, raptures
* world.py      -- the map (read and checked), population, hands, the Soul Bank ledger, the
                   special units' blessing (CHOICE 31)
* population.py -- Phase 1 (infidel growth, pacification, reproduction, overflow), Phase 3
                   flips, the Renaissance, Generation, Mobilization, `take`
* conversion.py -- Conversion and Slaughter, pogroms, martyrdom
* movement.py   -- allowances, paths, stops, pass-through effects
* battle.py     -- battles (strength, Armies of God, dice, results, retreats, advance, the
                   unrest around a battle), assassination, killing
* divine.py     -- Phase 6 interventions without a contest
* contests.py   -- Phase 6 contests: Direct Attack and Divine Judgement, their sealed wagers
* duels.py      -- the end of Phase 6: heroes of two positions in one hex duel
* limbo.py      -- sentences to limbo and their end; a position destroyed
* auction.py    -- the poker-style all-pay auction (Phase 4 Initiative, the Jihad)
* jihad.py      -- the Jihad: declaration, its contest, the holder's infidels

The flow of an era (flow phases in quotes). A god (a player) controls up to two beliefs, as
two positions or one covenant; she answers for all of them in one submission, each line
acting for one belief (`for BELIEF`, CHOICE 110; the covenant's pieces keep their belief,
CHOICE 111).

* set-up ("setup", sealed): each god names her belief (several `belief` lines: preferences)
  and her level; then 26 infidels by the dice, start faith by level, the first initiative
  to the highest level (ties: the youngest, CHOICE 16).
* era 1 starts at Phase 5. Era n >= 2: Phase 1 runs by itself (standing `overflow` orders
  say where newborns go); Phase 2 ("negotiation", sealed, negotiation.py): deals, covenants,
  schisms, new beliefs, raptures, executed when the phase ends (CHOICE 81); Phase 3
  ("powerup", sealed): `flip` orders, executed in initiative order, and each position's
  sealed maximum `bid N`; Phase 4 (auction.py) plays the text's auction from the maxima
  (bidding=live: the flow phase "bidding" asks one position at a time, `bid N` or `pass`),
  every stack spent; then the Renaissance (eras 25-30).
* Phase 5 ("action"). `pace=compact` (default): one submission per god for the whole phase,
  run by the engine in steps (Rules.step_of): every god's Generation lines in initiative
  order, then every god's Mobilization lines, then Conversion and Slaughter, then Movement
  and Battle god after god (a god's moves end with her first attack or assassination). A
  line is judged when its step comes; one no longer legal is skipped with the reason.
  `pace=live`: one god at a time, one turn at a time, as at the table.
* Phase 6 ("divine", sealed): one intervention per god, kept in g["pending"]["divine"] and
  executed once all are in, in initiative order (CHOICE 61, 62; one no longer legal lapses
  unpaid). A contest pauses the rest for one sealed flow phase "contest" keyed by
  g["pending"]["contest"]["kind"] (jihad.py: "jihad"; contests.py: "strike" for a Direct
  Attack, "judgement" for a Divine Judgement); then heroes of one position in a hex are
  thinned out, heroes of different positions duel (one sealed phase "duel" for all hexes,
  only when there is a duel: duels.py), sentences served end (limbo.release), the era
  advances. A Jihad's holder places the next era's new infidels (flow phase
  "jihad", Phase 1) and moves and attacks with the infidels first in Movement and Battle:
  compact pace, `infidel move|attack` lines of her Action submission run after every god's
  Conversion and before any god's Movement (step 2.5); live pace, the flow phase "infidels"
  asks her alone when Movement and Battle begins (CHOICE 124). After era
  30 the largest population on the board wins (CHOICE 84: a tie shares the win).
* At any time: `take` faith from the board into the hand, `give` faith to another hand,
  `claim` victory (decided once every order of its turn is in -- in the Negotiation after
  its deals --, CHOICE 181: when every other player with a position then holds the standing
  order `accept claims`, the claim wins without a count, CHOICE 166; else it is counted: 200
  or more of the own belief on the board and in the hand wins, else the belief dies,
  CHOICE 75, 76, 82); and the standing orders: `overflow`, `retreat`, `defend` (Armies of
  God for battles where one defends), `side`, `contest claims` (the default) / `accept
  claims`. A position in limbo gives no `take` or `give` but may still claim (CHOICE 73).

Procedure choices written here rather than in data.toml:

* CHOICE 100: an anytime order runs where it stands in a script (Rules.step_of: None).
* Battles: the other gods' sides, Armies of God and retreats come from one sealed round per
  attacker's turn (responses.py, CHOICE 140-144), else from their standing orders and the
  defaults of CHOICE 51/59 (battles=standing: the standing orders only).
* CHOICE 19/32/73: a position in limbo is skipped in Phases 1, 3, 5, 6 and gives no orders
  there (limbo.py: Direct Attacks and Divine Judgements send gods there).
* CHOICE 83: when every living position belongs to one player, she wins at once.
"""

from __future__ import annotations

from pbem.core.engine import Event, GameInfo, Rules
from pbem.core.errors import AmbiguousOrderError, DataError, IllegalOrderError, InvalidOrderError, OrderError, PbemError
from pbem.core.numbers import is_number, odd_digits
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng

from . import auction, bot, contests, duels, hands, jihad, limbo, negotiation, positions, responses
from .battle import assassinate, assassinate_check, assassinate_orders, resolve_battle
from .conversion import (
    CONVERTS,
    convert,
    convert_check,
    convert_orders,
    pogrom,
    pogrom_check,
    pogrom_orders,
    slaughter,
    slaughter_check,
    slaughter_orders,
)
from .divine import NAMES as POWER_NAMES
from .divine import apotheosis_check, divine_check, divine_orders, intervene
from .movement import KINDS as MOVE_KINDS
from .movement import allowance, check_path, find_path, movable, move
from .population import (
    flip,
    free_flips,
    natural_pacification,
    pacify_infidels,
    place,
    power_base,
    raise_check,
    raise_unit,
    renaissance,
    reproduce,
    roll_infidels,
    room,
    take,
)
from .tables import RAISABLE, UNIT_KINDS, Tables
from .world import (
    INFIDEL,
    bank,
    hand_total,
    owners_at,
    pop_of,
    reading,
    remove_units,
    to_hand,
    total_pop,
    units_at,
)

GAME_INFO = GameInfo(
    name="faith",
    title="Faith - Wild Gods",
    min_players=2,
    max_players=7,
    options={
        "pace": "compact (default: one submission per god per phase, run step by step in initiative order) or live (one god and one turn at a time)",
        "youngest": "the players, youngest first, comma-separated (for the initiative ties); default: an order drawn at set-up",
        "bidding": "proxy (default: one sealed maximum `bid N` with the Power-Up, the auction played from it) or live "
                   "(Phase 4 asked one position at a time: a deadline for every match, raise or pass)",
        "battles": "sealed (default: the gods with pieces in an attacked hex, and anyone for a hex of infidels alone, answer "
                   "in one sealed round per attacker's turn -- side, Armies of God, retreat) or standing ("
                   "their standing orders answer, no round)",
        "negotiation_rounds": "how many sealed Negotiation rounds (Phase 2) an era has: 1 (default), 2 or 3; 0 skips the phase (`give` stays possible any time)",
    },
)

PARSED = frozenset({"place", "move", "attack", "take", "give", "apotheosis", "claim", "overflow", "retreat", "defend", "side",
                    "bid", "jihad", "aog", "infidel", "strike", "judge", "wager", "contest", *negotiation.VERBS})
# What an anytime order sent in set-up is told: there is no belief to act for yet (data.toml
# [citations.reasons] cites a claim's by 7. Victory, the rest by 3. Set-Up).
NOT_IN_SETUP = {
    "claim": "not in set-up: victory is claimed for a belief in play, and the gods are not chosen yet "
             "(claim once set-up is finished)",
    "claims": "not in set-up: a standing `accept claims` / `contest claims` answers the other gods' victory claims, "
              "and the gods are not chosen yet (send it once set-up is finished)",
    "": "not in set-up: the gods are not chosen yet",
}
# `contest claims` / `accept claims` (CHOICE 166) are standing orders with the payload kind "claims"
ANYTIME = ("take", "give", "claim", "overflow", "retreat", "defend", "side", "contest", "claims")
PLAYER_VERBS = ("give", "overflow", "retreat", "defend", "side")   # a player's orders, not a belief's
SEALED_VERBS = ("strike", "wager", "yield")   # wagers are secret until the result (CHOICE 162); a drop is said openly

GRAMMAR = Grammar(
    verbs={
        "belief": ("word", "set-up: the belief you play (several lines: your preferences, best first)"),
        "level": ("int", "set-up: your start level, 1 (10 faith), 2 (5) or 3 (3)"),
        "flip": ("int|all|free HEX? for? word?", "Power-Up: flip N pacified chips at HEX to unrest for faith (`flip all`, `flip free`)"),
        "bid": ("int word?", "Phase 3-4: your sealed maximum for the initiative (`bid 7`; `bid 7 BELIEF` for each of two "
                "beliefs); bidding=live: `bid N` puts your stack to N (match or raise), `pass` drops out; "
                "in a Jihad's contest: your sealed maximum for the Jihad"),
        "place": ("int word? HEX", "Generation: place N faith from your hand at HEX (`place 3 23`, `place 2 odin 23`)"),
        "raise": ("word HEX for? word?", "Mobilization: apostle (1 faith), militia (2), knight (3), hero or fortification (4 + a militia) at HEX"),
        "convert": ("HEX word word word for? word?", "Conversion: `convert HEX BY TARGET OWNER`, e.g. `convert 23 apostle pop infidel`"),
        "slaughter": ("HEX word word for? word?", "Slaughter: `slaughter HEX UNIT OWNER`: your unit kills one chip of OWNER"),
        "pogrom": ("HEX word word for? word?", "Pogrom: `pogrom HEX TARGET OWNER`: 3 working chips kill a chip, prophet or apostle"),
        "move": ("int word word? HEX -> HEX", "Movement: `move N KIND [STATE] HEX -> HEX [-> HEX ...]` (a path, or a destination)"),
        "assassinate": ("HEX word word for? word?", "Battle: `assassinate HEX KIND OWNER` with your apostle there"),
        "attack": ("HEX word? with int word HEX", "Battle: `attack HEX [OWNER] with N KIND FROM [N KIND FROM ...] [aog N] [stay]`"),
        "levelup": ("for? word?", "Divine Power: Renaissance Level Up (20 faith)"),
        "smite": ("HEX word word for? word?", "Divine Power: Lightning Bolt (5): `smite HEX KIND OWNER` (KIND pop for a chip)"),
        "plague": ("HEX for? word?", "Divine Power: Plague (20): everything at HEX dies, the hex turns brown"),
        "miracle": ("HEX for? word?", "Divine Power: Miracle (20): a Prophet at HEX"),
        "calling": ("HEX for? word?", "Divine Power: Calling (10): a High Priest at HEX"),
        "pestilence": ("HEX for? word?", "Divine Power: Pestilence (10): HEX turns brown, its people unrest, its units broken"),
        "abundance": ("HEX for? word?", "Divine Power: Abundance (15): HEX turns green, its people pacified, its units ready"),
        "apotheosis": ("int word HEX", "Divine Power: Apotheosis (3 a chip): `apotheosis N OWNER HEX` removes another god's chips"),
        "jihad": ("max int", "Divine Power: declare a Jihad, `jihad max N` (N >= 10: your sealed maximum; the others bid, "
                  "the winner controls the infidels next era)"),
        "infidel": ("HEX|move|attack", "Jihad: Phase 1 `infidel HEX` places one of the 5 new infidels; Phase 5 "
                    "`infidel move ...` / `infidel attack ...` moves and attacks with the infidels, first in Movement and Battle"),
        "strike": ("word wager int", "Divine Power: Direct Attack on BELIEF with a secret wager of N of your own faith (`strike odin wager 12`); your level drops one at once"),
        "judge": ("word text", "Divine Power: Divine Judgement of BELIEF for the crime you name (`judge odin broke our trade of era 4`)"),
        "wager": ("int for word word?", "contest: `wager N for attacker|defender` (Direct Attack), `wager N for accuser|accused` (Judgement); duel: `wager N for HEX BELIEF`"),
        "drop": ("", "Divine Judgement: the accuser or the accused drops the case (both drop: it ends, the wagers go back)"),
        "yield": ("HEX", "hero duel: your hero at HEX gives way and dies (if the other owner does not yield too)"),
        "contest": ("claims", "standing: contest other gods' victory claims (the default): a claim is then counted"),
        "accept": ("claims", "standing: accept other gods' victory claims: if every other god accepts, a claim wins uncounted"),
        "none": ("", "Divine Power: no intervention this era"),
        "cede": ("word HEX? to word", "Negotiation: `cede KIND HEX to BELIEF` (a unit of yours becomes BELIEF's), `cede initiative to BELIEF`"),
        "trade": ("word for word with word", "Negotiation: `trade GIVE for GET with PLAYER` (GIVE/GET: `N [BELIEF]` faith, `KIND HEX` a unit, `initiative`); done only if PLAYER sends the mirror line"),
        "proselytize": ("word to word for int", "Negotiation: `proselytize BELIEF to PLAYER for N`: sell (N=0: give) your belief's whole position; PLAYER must `accept`"),
        "accept": ("word from word for int", "Negotiation: `accept BELIEF from PLAYER for N`: take over the belief, paying 50 to the Soul Bank + N to PLAYER"),
        "covenant": ("word word", "Negotiation: `covenant BELIEF BELIEF`: merge your two beliefs into one position (20 faith)"),
        "schism": ("word", "Negotiation: `schism BELIEF`: split your covenant (5 faith)"),
        "found": ("word level int", "Negotiation: `found BELIEF level N`: a second belief (40 faith), or a first one for a seat without a belief"),
        "rapture": ("word", "Negotiation: `rapture BELIEF`: abandon the position, its faith into your hand (200 or more of it wins)"),
        "done": ("", "end your part of this phase (what you leave open takes the defaults)"),
        "take": ("int HEX word?", "any time: take N of your chips at HEX into your hand (unrest ones first, or say pacified/unrest)"),
        "give": ("int word? to word", "any time: give N faith from your hand to PLAYER (`give 5 to hera`, `give 5 odin to hera`)"),
        "claim": ("", "any time: claim victory, decided after the turn's orders: 200 or more of your belief on the board and in your hand wins; less, your belief dies"),
        "overflow": ("HEX -> HEX", "standing: where newborns of HEX go when it is full, in order (`overflow 23 -> 24 -> 13`; `overflow 23 -> none` clears)"),
        "retreat": ("HEX -> HEX", "standing: where your pieces at HEX retreat to after a lost defence (`retreat 23 -> 24`); "
                    "asked about a battle at HEX (battles=sealed): your answer for it"),
        "defend": ("any|HEX aog int", "standing: Armies of God you add when your belief defends (`defend any aog 3`, `defend 23 aog 5`)"),
        "side": ("any|HEX attacker|defender|aside", "standing: your side in a battle in HEX that is not against you (default aside); "
                 "asked about a battle at HEX (battles=sealed): your answer for it"),
        "aog": ("HEX int", "asked about a battle at HEX (battles=sealed): the Armies of God you send to your side, from your hand"),
    },
    aliases={
        "population": "pop", "faith": "pop", "knights": "knight", "militias": "militia", "heroes": "hero",
        "prophets": "prophet", "priest": "high_priest", "high-priest": "high_priest", "hp": "high_priest",
        "apostles": "apostle", "fort": "fortification", "fortress": "fortification", "temple": "fortification",
        "infidels": "infidel", "lightning": "smite", "pass": "done", "=>": "->",
    },
    parsed=PARSED,
    usage_of={  # as ORDERS.md writes them (what a player is shown for a line that cannot be read)
        "belief": ("belief NAME",), "convert": ("convert HEX BY TARGET OWNER",), "level": ("level 1", "level 2", "level 3"),
        "flip": ("flip N HEX", "flip all", "flip free"), "raise": ("raise KIND HEX",),
        "levelup": ("levelup",), "plague": ("plague HEX",), "miracle": ("miracle HEX",), "calling": ("calling HEX",),
        "pestilence": ("pestilence HEX",), "abundance": ("abundance HEX",), "yield": ("yield HEX",),
    },
)

STEP_OF = {"place": 0, "raise": 1, "convert": 2, "slaughter": 2, "pogrom": 2, "move": 3, "assassinate": 3,
           "attack": 3, "done": 9}
STEP_NAMES = ["Generation", "Mobilization", "Conversion and Slaughter", "Movement and Battle"]
INFIDEL_STEP = 2.5   # the Jihad's infidels: first in Movement and Battle (L475), before every god
DONE = Order(("done",), ("done",))
NONE = Order(("none",), ("none",))


class FaithRules(Rules):
    info = GAME_INFO
    grammar = GRAMMAR

    def __init__(self, data: dict):
        super().__init__(data)
        self.tab = Tables.from_data(data)
        self.world = self.tab.world

    # --- set-up ----------------------------------------------------------------------------
    def asks_live(self, options) -> bool:
        """battles=sealed (the default): each attacker's battles are answered in a sealed round
        asked live (see responses.py)."""
        return options.get("battles", self.data["options"]["battles"]) == "sealed"

    def setup(self, players, options, rng: Rng):
        unknown = set(options) - set(self.info.options)
        if unknown:
            raise DataError(f"faith: unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(self.info.options)}")
        pace = options.get("pace", self.data["options"]["pace"])
        if pace not in ("compact", "live"):
            raise DataError(f"faith: option pace must be 'compact' or 'live', not {pace!r}")
        bidding = options.get("bidding", self.data["options"]["bidding"])
        if bidding not in ("proxy", "live"):
            raise DataError(f"faith: option bidding must be 'proxy' or 'live', not {bidding!r}")
        events: list[Event] = []
        battles = options.get("battles", self.data["options"]["battles"])
        if battles not in ("sealed", "standing"):
            raise DataError(f"faith: option battles must be 'sealed' or 'standing', not {battles!r}")
        if options.get("youngest"):
            youngest = [p.strip().lower() for p in options["youngest"].split(",") if p.strip()]
            if sorted(youngest) != sorted(players):
                raise DataError("faith: option youngest must name every player once")
        else:
            youngest = list(players)
            rng.shuffle(youngest)   # CHOICE 16: a published seeded order
        events.append({"type": "youngest", "order": list(youngest)})
        hexes = {h: {"t": x.printed, "pop": {}} for h, x in self.world.hexes.items() if x.printed != "sea"}
        g = {
            "seats": list(players), "youngest": youngest, "pace": pace, "bidding": bidding, "bids": {}, "era": 1, "stage": "setup", "step": 0,
            "beliefs": {}, "hands": {p: {} for p in players}, "initiative": None,
            "hexes": hexes, "units": {}, "next_uid": 1, "bank": {INFIDEL: self.data["game"]["bank_start"]},
            "standing": {p: {"overflow": {}, "retreat": {}, "defend": {}, "side": {}, "claims": "contest"} for p in players},
            "choices": {p: {"beliefs": [], "level": None} for p in players},
            "arrived": {}, "fought_pop": {}, "pogroms": [], "battled": [], "finished": [], "live": 0,
            "jihad": None, "pending": {},
            "ring": [], "deals": {}, "rounds": self._rounds(options), "left": 0,
        }
        if battles == "sealed":   # only then: battles=standing keeps the standing-orders game's state exactly
            g["battles"] = "sealed"
        state = {"flow": {"phase": "setup", "active": list(players), "sealed": True, "over": False,
                          "prompt": "set-up: name your belief (`belief NAME`) and your start level (`level 1|2|3`)"},
                 "game": g}
        return state, events

    def add_player(self, state: dict, player: str) -> list[Event]:
        """L348 "A new player can join in ... This can happen in any Era in the Negotiation
        Phase" (the GM's `pbem join`). CHOICE 113: the seat may be added at any time after the
        set-up; it is last in seat order and oldest for the ties (`youngest`); it has no belief
        and is asked in the Negotiation phase (at once, if the game is in it) to `found` one."""
        g = state["game"]
        if state["flow"].get("over") or state["flow"]["phase"] == "setup":
            raise PbemError("a new god joins a game under way, after the set-up (in its Negotiation phase)")
        if player in g["seats"]:
            raise PbemError(f"{player} already has a seat")
        g["seats"].append(player)
        g["youngest"].append(player)
        g["hands"][player] = {}
        g["standing"][player] = {"overflow": {}, "retreat": {}, "defend": {}, "side": {}}
        if state["flow"]["phase"] == "negotiation":
            state["flow"]["active"].append(player)
        return [{"type": "joined", "player": player, "era": g["era"]}]

    def _finish_setup(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        taken: set[str] = set()
        events: list[Event] = []
        for p in g["seats"]:   # CHOICE 13: seat order serves the choices
            ch = g["choices"][p]
            b = next((x for x in ch["beliefs"] if x not in taken), None) or next(x for x in self.tab.belief_ids if x not in taken)
            taken.add(b)
            lvl = ch["level"] or 1   # CHOICE 15
            g["beliefs"][b] = {"player": p, "level": lvl, "alive": True, "limbo": False}
            g["bank"][b] = self.data["game"]["bank_start"]
            start = self.data["levels"]["start_faith"][str(lvl)]
            to_hand(g, p, b, start)
            g["bank"][b] -= start
            events.append({"type": "god", "player": p, "belief": b, "name": self.tab.beliefs[b]["name"], "level": lvl})
            events.append({"type": "start_faith", "player": p, "belief": b, "faith": start, "to": p})
        g["choices"] = {}
        events += roll_infidels(self.tab, g, self.data["game"]["initial_infidels"], rng)
        top = max(x["level"] for x in g["beliefs"].values())
        first = next(p for p in g["youngest"] if g["beliefs"][self._belief(g, p)]["level"] == top)
        g["initiative"] = self._belief(g, first)
        events.append({"type": "initiative", "belief": g["initiative"], "player": first, "why": "highest level, youngest"})
        return events + self._begin_action(state)

    def _rounds(self, options: dict) -> int:
        raw = options.get("negotiation_rounds", self.data["options"]["negotiation_rounds"])
        if str(raw) not in ("0", "1", "2", "3"):
            raise DataError(f"faith: option negotiation_rounds must be 0, 1, 2 or 3, not {raw!r}")
        return int(raw)

    # --- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _belief(g: dict, player: str) -> str | None:
        """The player's first living position (positions.primary)."""
        return positions.primary(g, player)

    @staticmethod
    def actors(g: dict, player: str) -> list[str]:
        """The beliefs a player's lines may act for now: every living belief of her positions
        not in limbo (both members of a covenant), clockwise (CHOICE 110)."""
        return [b for pos in positions.positions_of(g, player) if not positions.in_limbo(g, pos)
                for b in positions.members(g, pos)]

    def _actor(self, g: dict, player: str, order: Order) -> str | None:
        """The belief a line acts for: its trailing `for BELIEF`, else the player's only actor."""
        t = order.tokens
        if len(t) >= 3 and t[-2] == "for" and t[0] not in negotiation.VERBS and t[-1] in g["beliefs"]:
            return t[-1]
        own = self.actors(g, player)
        return own[0] if own else self._belief(g, player)

    @staticmethod
    def _acted(g: dict, player: str) -> set[str]:
        """The positions of `player` that chose their Phase 6 intervention already."""
        return {x["pos"] for x in g["pending"].get("divine", []) if x["player"] == player}

    @staticmethod
    def _tag(orders: list[Order], b: str, multi: bool) -> list[Order]:
        """A player with several beliefs: each order ends `for BELIEF` (optional when typing:
        a line that fits one belief only needs no `for`; one that fits two is ambiguous)."""
        if not multi:
            return orders
        out = []
        for o in orders:
            if o.tokens[-2:] == ("for", b):
                out.append(o)
            else:
                n = len(o.tokens)
                out.append(Order(o.tokens + ("for", b), o.payload, frozenset(o.optional) | {n, n + 1}))
        return out

    def order(self, g: dict) -> list[str]:
        """turn_order: the initiative holder's position, then clockwise; living, not in limbo."""
        return positions.turn_order(g)

    def _players(self, g: dict) -> list[str]:
        return positions.players_in_order(g)

    # --- the era ---------------------------------------------------------------------------
    def _begin_action(self, state: dict) -> list[Event]:
        g = state["game"]
        g.update(stage="action", step=0, arrived={}, fought_pop={}, pogroms=[], battled=[], finished=[], live=0)
        players = self._players(g)
        if g["pace"] == "live":
            state["flow"].update(phase="action", active=players[:1], sealed=False)
        else:
            state["flow"].update(phase="action", active=players, sealed=True)
        self._prompt(state)
        events: list[Event] = [{"type": "phase", "era": g["era"], "phase": 5, "name": "Action"}]
        holder = jihad.holder(g)
        if holder is not None:   # L475, L617: the infidels move and attack first in Movement and Battle
            events.append({"type": "infidel_turn", "belief": holder, "player": positions.controller(g, holder)})
        return events

    def _prompt(self, state: dict) -> None:
        g = state["game"]
        phase = state["flow"]["phase"]
        if phase == "action":
            if g["pace"] == "live":
                text = f"era {g['era']}, Phase 5, {STEP_NAMES[g['step']]} turn: your orders, then `done`"
            else:
                text = (f"era {g['era']}, Phase 5 (Action): your orders for the whole phase -- Generation (`place`), "
                        "Mobilization (`raise`), Conversion and Slaughter, Movement and Battle -- run step by step "
                        "in initiative order")
                holder = jihad.holder(g)
                if holder is not None:
                    text += (f"; the Jihad: the {holder}'s `infidel move ...` / `infidel attack ...` lines move the "
                             f"infidels first in Movement and Battle")
        elif phase == "powerup":
            text = f"era {g['era']}, Phase 3 (Power-Up): `flip` chips for faith, then `done` (no orders: `flip free`)"
            if g.get("bidding") != "live":
                text += "; Phase 4 (Initiative): `bid N`, your sealed maximum (no bid: 0)"
        elif phase == "bidding":
            a = g["auction"]
            match, least = auction.live_options(a)
            p = a["turn"]
            if a["current"] == 0:
                what = f"open the bidding with `bid N` (N at least {least}) or `pass`"
            elif match is None:
                what = f"all have matched {a['current']}: raise with `bid N` (N at least {least}) or `pass` (drop out)"
            else:
                what = f"match with `bid {a['current']}`, raise with `bid N` (N above it) or `pass` (drop out)"
            stacks = ", ".join(f"{q} {a['stacks'][q]}" for q in a["remaining"])
            text = f"era {g['era']}, Phase 4 (Initiative), the {p} to bid (stacks: {stacks}): {what}"
        elif phase == "divine":
            text = f"era {g['era']}, Phase 6 (Divine Power): one intervention, or `none`"
        elif phase == "contest" and g["pending"].get("contest", {}).get("kind") in contests.SIDES:
            c = g["pending"]["contest"]
            if c["kind"] == "strike":
                text = (f"era {g['era']}, Phase 6: the {c['attacker']} ({c['by']}) make a Direct Attack on the "
                        f"{c['defender']} ({c['against']}): `wager N for attacker|defender` in your own faith, then `done`")
            else:
                text = (f"era {g['era']}, Phase 6: Divine Judgement: the {c['accuser']} ({c['by']}) accuse the "
                        f"{c['accused']} ({c['against']}): \"{c['crime']}\": `wager N for accuser|accused`, "
                        "`drop` (accuser and accused), then `done`")
        elif phase == "duel":
            text = (f"era {g['era']}, end of Phase 6: heroes duel at "
                    f"{', '.join(x['at'] for x in g['pending']['duel']['duels'])}: owners may `yield HEX`, the others "
                    "`wager N for HEX BELIEF`; then `done`")
        elif phase == "response":
            text = responses.prompt(self.tab, g)
        elif phase == "negotiation":
            text = (f"era {g['era']}, Phase 2 (Negotiation): `give`, `cede`, `trade`, `proselytize`/`accept`, `covenant`, "
                    "`schism`, `found`, `rapture`, then `done`; talk and promises go by PRESS")
        else:
            text = state["flow"].get("prompt", "")
        state["flow"]["prompt"] = text

    def _end_action(self, state: dict) -> list[Event]:
        g = state["game"]
        g["stage"] = "divine"
        state["flow"].update(phase="divine", active=self._players(g), sealed=True)
        self._prompt(state)
        return [{"type": "phase", "era": g["era"], "phase": 6, "name": "Divine Power"}]

    def _end_divine(self, state: dict, rng: Rng) -> list[Event]:
        """And last in Phase 6: two heroes in one hex (L664; duels.py)."""
        g = state["game"]
        events = duels.same_position_check(self.tab, g)
        found = duels.find(g)
        if found:
            asked = duels.open_duels(g, found)
            state["flow"].update(phase="duel", active=asked, sealed=True)
            self._prompt(state)
            return events
        return events + self._end_era(state, rng)

    def _end_era(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        events = limbo.release(g)
        if g["era"] >= self.data["game"]["last_era"]:
            return events + self._finish_by_count(state)
        g["era"] += 1
        events.append({"type": "era", "era": g["era"]})
        tech = {self.tab.tech(k): k for k in ("agriculture", "maritime", "transport", "modern_arms", "renaissance")}
        if g["era"] in tech:
            events.append({"type": "technology", "era": g["era"], "name": tech[g["era"]]})
        events += self._phase1(state, rng)
        if state["flow"]["phase"] == "jihad":   # the Jihad holder places the new infidels first
            return events
        return events + self._after_phase1(state)

    def _after_phase1(self, state: dict) -> list[Event]:
        g = state["game"]
        if g.get("rounds", 1):
            return self._begin_negotiation(state, g.get("rounds", 1))
        return self._begin_powerup(state)

    def _begin_negotiation(self, state: dict, left: int) -> list[Event]:
        """Phase 2 (negotiation.py): one sealed round of every player with a living position
        not in limbo and every seat without a belief; `left` rounds remain with this one."""
        g = state["game"]
        g.update(stage="negotiation", deals={}, left=left)
        asked = negotiation.asked(g)
        state["flow"].update(phase="negotiation", active=asked, sealed=True)
        self._prompt(state)
        return [{"type": "phase", "era": g["era"], "phase": 2, "name": "Negotiation"}]

    def _end_negotiation(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        events = negotiation.resolve(self, state, rng)
        if g.get("claimed") and not state["flow"].get("over"):   # after the deals of the turn (CHOICE 181)
            events += self._decide_claims(state)
        left = g["left"] = max(g.get("left", 1), 1) - 1   # rounds still to come this era
        if state["flow"].get("over"):
            return events
        if left > 0:
            return events + self._begin_negotiation(state, left)
        return events + self._begin_powerup(state)

    def _begin_powerup(self, state: dict) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        g["stage"] = "powerup"
        g["finished"] = []
        state["flow"].update(phase="powerup", active=self._players(g), sealed=True)
        self._prompt(state)
        events.append({"type": "phase", "era": g["era"], "phase": 3, "name": "Power-Up"})
        return events

    def _phase1(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        events: list[Event] = [{"type": "phase", "era": g["era"], "phase": 1, "name": "Reproduction"}]
        holder = jihad.holder(g)
        if holder is not None:   # L312: the holder places the 5 new infidels (flow phase "jihad")
            return events + jihad.open_placement(state, holder, self.data["game"]["infidels_per_era"])
        events += roll_infidels(self.tab, g, self.data["game"]["infidels_per_era"], rng)
        return events + self._phase1_rest(state)

    def _phase1_rest(self, state: dict) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        pacify_infidels(g)
        for pos in self.order(g):
            p = positions.controller(g, pos)
            ms = positions.members(g, pos)
            for b in ms:   # a covenant's beliefs are "the same faith" (L360)
                n = natural_pacification(self.tab, g, b, ms)
                if n:
                    events.append({"type": "pacified", "belief": b, "chips": n})
            events += reproduce(self.tab, g, pos, g["standing"][p]["overflow"], ms)
        return events

    def _end_powerup(self, state: dict, rng: Rng) -> list[Event]:
        """Phase 4, Initiative (auction.py): every position not in limbo, clockwise from last
        era's holder. Proxy: the sealed maxima sent with the Power-Up are played out at once;
        live: the flow phase "bidding" asks one position at a time."""
        g = state["game"]
        events: list[Event] = [{"type": "phase", "era": g["era"], "phase": 4, "name": "Initiative"}]
        bidders = self.order(g)
        if g.get("bidding") == "live" and len(bidders) > 1:
            g["bids"] = {}
            g["auction"] = auction.live_start(bidders)
            self._ask_bidder(state)
            return events
        maxima = {p: g["bids"].get(p, 0) for p in bidders}
        g["bids"] = {}
        res = auction.run_proxy(g, "initiative", bidders, maxima)
        events += res["events"]
        events += self._initiative_to(g, bidders, res["winner"], res["stacks"])
        return events + self._after_initiative(state, rng)

    def _initiative_to(self, g: dict, bidders: list[str], winner: str | None, stacks: dict) -> list[Event]:
        if winner is None:
            winner = auction.tie_break(g, bidders)   # L408-411, CHOICE 34
            why = "nobody bid: the lowest level, then the youngest"
        elif len(bidders) == 1:
            why = "the only god who could bid"
        else:
            why = f"the last one in the bidding, for {stacks.get(winner, 0)} faith"
        if winner is None:   # nobody could bid: the holder keeps it
            return []
        g["initiative"] = winner
        return [{"type": "initiative", "belief": winner, "player": positions.controller(g, winner), "why": why}]

    def _after_initiative(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        if g["era"] >= self.tab.tech("renaissance"):
            events += renaissance(self.tab, g, self.order(g), rng)
        return events + self._begin_action(state)

    def _ask_bidder(self, state: dict) -> None:
        """bidding=live: the position on turn is asked alone (its controller)."""
        a = state["game"]["auction"]
        state["flow"].update(phase="bidding", active=[positions.controller(state["game"], a["turn"])], sealed=False)
        self._prompt(state)

    def _drop_dead_bidders(self, state: dict) -> list[Event]:
        """bidding=live, CHOICE 185: a position that died during the auction (a claim below
        200) drops out of it at once; its stack stays, to be spent as far as its controller's
        hand still holds it (its own chips were banked with it, CHOICE 82)."""
        g = state["game"]
        a = g["auction"]
        events: list[Event] = []
        for p in list(a["remaining"]):
            if not positions.alive(g, p):
                auction.live_act(a, p, None)
                events.append({"type": "bid_dead", "belief": p, "player": g["beliefs"][p]["player"]})
        return events

    def _end_live_bidding(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        a = g.pop("auction")
        winner = a["remaining"][0] if len(a["remaining"]) == 1 else None
        events: list[Event] = []   # each action was published as it was made (bid_live)
        if any(a["stacks"].values()):
            events += auction.spend(g, a["kind"], a["stacks"])
        events += self._initiative_to(g, a["order"], winner, a["stacks"])
        return events + self._after_initiative(state, rng)

    def _finish_by_count(self, state: dict) -> list[Event]:
        g = state["game"]
        living = {pos: self.population(g, pos) for pos in positions.positions(g)}   # per position (L686, CHOICE 84)
        best = max(living.values()) if living else 0
        winners = sorted({positions.controller(g, b) for b, v in living.items() if v == best})
        return self._finish(state, f"the 30th era is over: the largest population on the world ({best})", winners)

    def _finish(self, state: dict, reason: str, winners: list[str]) -> list[Event]:
        returned = contests.return_held(state["game"])   # CHOICE 182: nothing stays held
        state["game"]["pending"] = {}   # what was still to be decided never is (the game is over)
        scores = self.scores(state)
        state["game"]["stage"] = "over"
        state["flow"].update(over=True, active=[], prompt="")
        state["flow"]["outcome"] = {"winners": winners, "scores": scores, "reason": reason}
        return returned + [{"type": "game_over", "reason": reason, "winners": winners, "scores": scores}]

    def advance(self, state, rng):
        flow = state["flow"]
        g = state["game"]
        closing_negotiation = flow["phase"] == "negotiation" and not flow["active"] and not flow.get("over")
        if g.get("claimed") and not closing_negotiation:   # the turn's orders are all in (CHOICE 181);
            events = self._decide_claims(state)          # a Negotiation's, after its deals (_end_negotiation)
            return events + ([] if flow.get("over") else self.advance(state, rng))
        if flow.get("over") or flow["active"]:
            return []
        phase = flow["phase"]
        if phase == "setup":
            return self._finish_setup(state, rng)
        if phase == "powerup":
            return self._end_powerup(state, rng)
        if phase == "response":   # battles=sealed: the round is answered, the battles are fought
            events = responses.fight(self, state, rng)
            flow.pop("pace", None)
            flow.update(phase="action", active=[], sealed=g["pace"] != "live")
            return events + self._after_battles(state, rng)
        if phase == "negotiation":
            return self._end_negotiation(state, rng)
        if phase == "action":
            if responses.sealed(g) and (g.get("answering") or g.get("deferred")):
                return self._after_battles(state, rng)
            if g["pace"] == "live":
                return self._live_next(state)
            return self._end_action(state)
        if phase == "divine":
            return self._run_divine(state, rng)
        if phase == "contest":
            events = self._end_contest(state, rng)
            return events if flow.get("over") else events + self._run_divine(state, rng)
        if phase == "duel":
            events = duels.resolve(self.tab, g, rng) + self._check_alive(state)
            return events + ([] if flow.get("over") else self._end_era(state, rng))
        if phase == "jihad":
            events = jihad.end_placement(self.tab, state, rng) + self._phase1_rest(state)
            return events + self._after_phase1(state)
        if phase == "infidels":   # live pace: the gods' Movement and Battle turns follow
            g["infidel_turn"] = g["era"]
            players = self._players(g)
            g["live"] = 0
            state["flow"].update(phase="action", active=players[:1], sealed=False)
            self._prompt(state)
            return []
        if phase == "bidding":
            events = self._drop_dead_bidders(state)
            if g["auction"]["turn"] is not None:
                self._ask_bidder(state)
                return events
            return events + self._end_live_bidding(state, rng)
        return []

    # --- Phase 6: the interventions, executed in initiative order (CHOICE 61, 62) ---------------
    def _run_divine(self, state: dict, rng: Rng) -> list[Event]:
        """The sealed Phase 6 choices (g["pending"]["divine"]) are executed one by one in
        initiative order; one no longer legal lapses unpaid; a contest (Jihad; Direct Attack
        and Judgement elsewhere) opens the flow phase "contest" and pauses the rest until its
        answers are in. Then the end of the era."""
        g = state["game"]
        events: list[Event] = []
        q = g["pending"].get("divine", [])
        order = self.order(g)
        q.sort(key=lambda x: order.index(x["pos"]) if x["pos"] in order else len(order))
        while q:
            item = q.pop(0)
            events += self._execute_intervention(state, item, rng)
            if state["flow"].get("over"):
                return events
            if state["flow"]["phase"] == "contest":
                if state["flow"]["active"]:
                    return events   # a contest is asked: the rest waits for its answers
                events += self._end_contest(state, rng)   # nobody to ask: it is decided at once
                if state["flow"].get("over"):
                    return events
        g["pending"].pop("divine", None)
        return events + self._end_divine(state, rng)

    def _execute_intervention(self, state: dict, item: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        player, pos, payload = item["player"], item["pos"], tuple(item["order"])
        kind = payload[0]
        if not positions.alive(g, pos) or positions.in_limbo(g, pos):
            why = "the belief is in limbo" if positions.alive(g, pos) else "the belief is dead"
            return [{"type": "intervention_lapsed", "belief": pos, "player": player, "power": kind, "reason": why}]
        if kind == "jihad":
            return jihad.declare(self, state, player, pos, payload[1])
        if kind in ("strike", "judge"):
            if kind == "strike":
                why = contests.strike_check(g, player, pos, payload[1], payload[2])
            else:
                why = contests.judge_check(g, player, pos, payload[1])
            if why:   # the reason may tell a hand (the secret wager): only its god reads it
                return [{"type": "intervention_lapsed", "belief": pos, "player": player, "power": kind,
                         "reason": "it is no longer possible"},
                        {"type": "lapsed_why", "belief": pos, "player": player, "power": kind, "reason": why, "to": player}]
            if kind == "strike":
                events = contests.open_strike(g, player, pos, payload[1], payload[2])
            else:
                events = contests.open_judgement(g, player, pos, payload[1], payload[2])
            state["flow"].update(phase="contest", active=contests.wagerers(g), sealed=True)
            self._prompt(state)
            return events
        if kind == "apotheosis":
            why = apotheosis_check(self.tab, g, player, pos, *payload[1:])
        else:
            why = None if payload in divine_orders(self.tab, g, player, pos) else "it is no longer possible"
        if why:
            return [{"type": "intervention_lapsed", "belief": pos, "player": player, "power": kind, "reason": why}]
        return intervene(self.tab, g, player, pos, kind, payload[1:], rng) + self._check_alive(state)

    def _end_contest(self, state: dict, rng: Rng) -> list[Event]:
        """The contest's answers are in (or nobody is asked): it is decided and, unless that
        ended the game, Phase 6 goes back to executing the interventions."""
        events = self._decide_contest(state, rng)
        if not state["flow"].get("over"):
            state["flow"].update(phase="divine", active=[], sealed=True)
        return events

    def _decide_contest(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        c = g["pending"]["contest"]
        kind = c["kind"]
        if kind == "jihad":
            return jihad.end_contest(self, state)
        if kind == "strike":
            events, verdicts = contests.resolve_strike(g, rng)
        elif kind == "judgement":
            events, verdicts = contests.resolve_judgement(g)
        else:  # pragma: no cover
            raise ValueError(f"unknown contest {kind!r}")
        for pos, verdict in verdicts:
            if verdict == "destroyed":
                events += limbo.destroy(g, pos)
            else:
                events += limbo.sentence(g, pos, "a Direct Attack" if kind == "strike" else "a Divine Judgement")
        return events + self._check_alive(state)

    def _after_battles(self, state: dict, rng: Rng) -> list[Event]:
        """battles=sealed: the attacker's turn is over: ask the round about his battles, or
        fight them if nobody has anything to decide; then the later gods' waiting lines
        (compact pace), each judged now; then the phase goes on."""
        g = state["game"]
        flow = state["flow"]
        events: list[Event] = []
        for _ in range(1000):
            if flow.get("over"):
                return events
            events += self._run_deferred(state, rng)
            if flow.get("over"):
                return events
            if g.get("answering"):
                asked = responses.open_round(self.tab, g)
                if asked:
                    order = [p for p in self._players(g) if p in asked] + sorted(p for p in asked if p not in self._players(g))
                    flow.update(phase="response", active=order, sealed=True, pace="reaction")
                    self._prompt(state)
                    a = g["answering"]
                    events.append({"type": "round_asked", "attacker": a["pos"], "player": a["player"],
                                   "hexes": sorted({h for hs in asked.values() for h in hs}), "asked": order})
                    return events
                events += responses.fight(self, state, rng)
                continue
            if not g.get("deferred"):
                break
        g.pop("deferred", None)
        if flow.get("over") or flow["active"]:
            return events
        if g["pace"] == "live":
            return events + self._live_next(state)
        return events + self._end_action(state)

    def _run_deferred(self, state: dict, rng: Rng) -> list[Event]:
        """The later gods' lines that waited for an attacker's battles, in order, until one
        of them declares battles and another god's line follows (his turn is over)."""
        g = state["game"]
        events: list[Event] = []
        while g.get("deferred") and not state["flow"].get("over"):
            item = g["deferred"][0]
            p = item["player"]
            if g.get("answering") and item.get("pos") != g["answering"]["pos"]:
                break
            g["deferred"].pop(0)
            own = self.actors(g, p)
            b = own[0] if own else None
            text = " ".join(item["tokens"])
            try:
                if b is None:
                    raise IllegalOrderError("you have no living belief")
                order = self._reparse(state, p, b, item["tokens"])
            except OrderError as err:
                events.append({"type": "void", "player": p, "order": text,
                               "reason": f"after the battles before it: {err.message}", "to": p})
                continue
            events += self.apply(state, p, order, rng)
        if not g.get("deferred"):
            g.pop("deferred", None)
        return events

    def _reparse(self, state: dict, player: str, b: str, tokens: list[str]) -> Order:
        """A waiting line judged now (its god is no longer asked: the checks of the phase and
        the turn are done here). A trailing `for BELIEF` names the belief it acts for."""
        g = state["game"]
        verb, args = tokens[0], list(tokens[1:])
        tail: tuple = ()
        if len(args) >= 2 and args[-2] == "for":
            if args[-1] not in self.actors(g, player):
                raise IllegalOrderError(f"the {args[-1]} may not act now")
            b, tail, args = args[-1], ("for", args[-1]), args[:-2]
        with reading(g):
            if verb in ("move", "attack"):
                order = getattr(self, f"_parse_{verb}")(state, player, b, args)
                return Order(order.tokens + tail, order.payload)
            if verb == "assassinate" and tuple(args) in assassinate_orders(g, b):
                return Order(tuple(tokens), ("assassinate", *args))
        raise IllegalOrderError(f"'{' '.join(tokens)}' is not possible now")

    def _live_next(self, state: dict) -> list[Event]:
        g = state["game"]
        players = self._players(g)
        g["live"] += 1
        while g["live"] >= len(players):
            g["live"] = 0
            g["step"] += 1
            if g["step"] >= len(STEP_NAMES):
                return self._end_action(state)
            holder = jihad.holder(g)
            if g["step"] == 3 and holder is not None:   # the infidels' turn first (L475, CHOICE 124)
                return jihad.open_infidel_turn(state, holder)
        state["flow"]["active"] = [players[g["live"]]]
        self._prompt(state)
        return []

    # --- legal orders ----------------------------------------------------------------------
    def step_of(self, state, order):
        if order.verb in ANYTIME:
            return None
        if order.verb == "infidel" and len(order.tokens) > 1 and order.tokens[1] in ("move", "attack"):
            return INFIDEL_STEP
        return STEP_OF.get(order.verb, 0)

    def _can_step(self, g: dict, k: int) -> bool:
        if g["pace"] == "live":
            return g["step"] == k
        return g["step"] <= k

    def legal_orders(self, state, player):
        """The engine asks every god's legal orders after every step: the position's units
        are indexed by hex for the read (world.reading), never stored in the state."""
        with reading(state["game"]):
            return self._legal_orders(state, player)

    def _legal_orders(self, state, player):
        flow = state["flow"]
        if flow.get("over") or player not in flow["active"]:
            return []
        g = state["game"]
        phase = flow["phase"]
        if phase == "setup":
            ch = g["choices"][player]
            out = [Order(("belief", b), ("belief", b)) for b in self.tab.belief_ids if b not in ch["beliefs"]]
            out += [Order(("level", str(n)), ("level", n)) for n in (1, 2, 3)]
            return out + [DONE]
        if phase == "negotiation":
            return negotiation.examples(self, state, player) + [DONE]
        if phase == "bidding":
            return self._bid_examples(state, player) + [DONE]
        if phase == "response":
            return self._answer_orders(state, player) + [DONE]
        if phase == "contest":
            if g["pending"]["contest"]["kind"] == "jihad":
                return jihad.contest_orders(self, state, player) + [DONE]
            if g["pending"]["contest"]["kind"] in contests.SIDES:
                return bot.wager_examples(self, state, player) + [DONE]
            return [DONE]
        if phase == "duel":
            out = [Order(("yield", hid), ("yield", hid)) for hid, _b in duels.yields_for(g, player)]
            return out + bot.duel_wager_examples(self, state, player) + [DONE]
        if phase == "jihad":
            return jihad.placement_orders(self.tab, g) + [DONE]
        if phase == "infidels":
            return self._infidel_examples(state, player) + [DONE]
        own = self.actors(g, player)
        if phase == "divine":   # one intervention a position: its lead acts (CHOICE 110, 111)
            own = [b for b in own if positions.lead(g, b) == b]
        multi = len(own) > 1
        out: list[Order] = []
        for b in own:
            out += self._tag(self._legal_for(state, player, b), b, multi)
        if phase == "powerup":
            out += self._bid_examples(state, player)
        if phase == "divine" and not self._acted(g, player):
            out += jihad.declaration_examples(g, player)
        if phase == "action" and g["pace"] == "compact" and self._can_step(g, 3):
            out += self._infidel_examples(state, player)   # the Jihad's infidels, first in 5.4
        if phase == "action":
            claimed = [c[1] for c in g.get("claimed", [])]
            for pos in positions.positions_of(g, player):
                if pos not in claimed and self.count(g, pos) >= self.data["game"]["victory"]:
                    out.append(Order(("claim", pos) if multi else ("claim",), ("claim", pos)))
        return out + [NONE if phase == "divine" else DONE]

    def why_illegal(self, state, player, typed):
        """Why a typed line matches no legal order, where "not legal now" would not say."""
        g = state["game"]
        odd = next((tok for tok in typed[1:] if odd_digits(tok)), None)
        if odd is not None:  # ² or ①: str.isdigit() is True for them, but they are no digits (finding 15)
            return (f"expected a number or a hex, found '{odd}' (written with the digits 0-9; fertile hexes are "
                    "11..66, others are named like c4)")
        phase, asked = state["flow"]["phase"], player in state["flow"]["active"]
        if typed[0] == "level" and phase == "setup" and asked and len(typed) == 2 and typed[1] not in ("1", "2", "3"):
            return "the level is 1, 2 or 3 (`level 1`: 10 faith, `level 2`: 5, `level 3`: 3)"   # finding 06
        if typed[0] == "raise" and phase == "action" and asked and self._can_step(g, 1):
            why = self._why_raise(g, player, typed[1:])
            if why:
                return why
        if typed[0] in ("convert", "pogrom", "slaughter") and asked:
            why = self._why_step_3(state, player, typed[0], typed[1:])
            if why:
                return why
        if typed[0] == "assassinate" and asked:
            why = self._why_assassinate(state, player, typed[1:])
            if why:
                return why
        if typed[0] in POWER_NAMES and asked:
            why = self._why_divine(state, player, typed[0], typed[1:])
            if why:
                return why
        if typed[0] == "yield" and asked and len(typed) == 2:
            if phase != "duel":
                return "`yield HEX` answers a duel of heroes (the end of the Divine Power phase); no duel is open now"
            try:
                return duels.yield_check(g, player, self._hex(typed[1]))
            except OrderError as err:
                return err.message
        if typed[0] == "belief" and phase == "setup" and asked and len(typed) == 2:
            hits = positions.named(typed[1], self.tab.belief_ids)
            if len(hits) == 1 and hits[0] in g["choices"][player]["beliefs"]:
                return (f"you have named the {self.tab.beliefs[hits[0]]['name']} already among your preferences "
                        f"({', '.join(g['choices'][player]['beliefs'])}): name each belief once")
        if typed[0] == "flip" and phase == "powerup" and asked and len(typed) >= 2 and typed[1] != "all":
            why = self._why_flip(g, player, typed[1:])
            if why:
                return why
        if typed[0] == "flip" and phase == "powerup" and asked:
            own, args, why = self._own_for(g, player, "flip", typed[1:], 1 if typed[1] in ("all", "free") else 2)
            if why:
                return why
            if not any(pop_of(g, h, b)[0] for b in own for h in g["hexes"]):
                return ("you have no pacified chips to flip (they are all in unrest: they pacify again in Phase 1); "
                        "`done` takes your level's base income")
        own = self.actors(g, player)
        if (asked and typed[0] not in PARSED and len(typed) >= 3 and typed[-2] == "for" and len(own) == 1
                and positions.named(typed[-1], own)):
            # the orders of a god with one belief to act for carry no `for` (CHOICE 110)
            return f"you act for one belief, the {own[0]}: write the line without `for {typed[-1]}`"
        return None

    def idle_reason(self, state, player, reason):
        """CHOICE 73: a god whose every belief is in limbo gives no order but a victory claim and
        `accept claims`/`contest claims`: a line of hers is refused for that, not because it is
        not her turn (the engine's reason). Her own limbo reason, where one was given, stands."""
        g = state["game"]
        if not g["beliefs"] or not positions.positions_of(g, player) or self.actors(g, player):
            return None
        return reason if "in limbo" in reason else "your belief is in limbo: it can do nothing this era"

    def _why_step_3(self, state, player, verb: str, args: list[str]) -> str | None:
        """Why `convert HEX BY TARGET OWNER`, `pogrom HEX TARGET OWNER` or `slaughter HEX UNIT
        OWNER` [for BELIEF] is not legal: its turn (3) Conversion and Slaughter, L442-469), then
        the first condition the text sets that fails for every belief of the player's."""
        g = state["game"]
        if state["flow"]["phase"] != "action":
            return f"'{verb}' is an order of the Action phase (its 3) Conversion and Slaughter turn)"
        if not self._can_step(g, 2):
            return ("it is not yet the Conversion and Slaughter turn" if g["step"] < 2
                    else "the Conversion and Slaughter turn is over")
        own, args, why = self._own_for(g, player, verb, args, 4 if verb == "convert" else 3)
        if why or not own:
            return why
        try:
            hid = self._hex(args[0])
            if verb == "convert":
                if args[1] not in CONVERTS and positions.named(args[1], UNIT_KINDS) and not positions.named(args[1], CONVERTS):
                    return (f"{'an' if args[1][0] in 'aeiou' else 'a'} {args[1].replace('_', ' ')} does not convert "
                            f"(only a Prophet, a High Priest, a Hero or an Apostle converts)")
                by = self._kind(args[1], tuple(CONVERTS))
                target = self._kind(args[2], ("pop", *UNIT_KINDS))
            elif verb == "pogrom":
                target = self._kind(args[1], ("pop", *UNIT_KINDS))
            else:
                kind = self._kind(args[1], UNIT_KINDS)
            owner = self._owner(g, args[-1])
        except OrderError as err:
            return err.message
        if hid not in g["hexes"]:
            return f"{hid} is dark sea: nothing lives there"
        if verb == "convert":
            reasons = [convert_check(self.tab, g, b, hid, by, target, owner) for b in own]
        elif verb == "pogrom":
            reasons = [pogrom_check(self.tab, g, b, hid, target, owner) for b in own]
        else:
            reasons = [slaughter_check(self.tab, g, b, hid, kind, owner) for b in own]
        return next((r for r in reasons if r), None) if all(reasons) else None

    def _own_for(self, g: dict, player: str, verb: str, args: list[str],
                 arity: int) -> tuple[list[str], list[str], str | None]:
        """The beliefs a line may act for (its trailing `for BELIEF`, else every actor), its
        arguments without that tail, and why it is refused before any rule is looked at: a
        `for` naming no belief of the player's that may act, or not `arity` arguments (the
        order's form as ORDERS.md writes it; None: neither)."""
        own = self.actors(g, player)
        if len(args) >= 2 and args[-2] == "for":
            hits = positions.named(args[-1], own)
            if len(hits) != 1:
                return [], args, f"no belief of yours called '{args[-1]}' may act now ({', '.join(own) or 'none'})"
            own, args = hits, args[:-2]
        if len(args) != arity:
            return own, args, f"the order is written {self.grammar.usage(verb)} (and `for BELIEF` to name the belief)"
        return own, args, None

    def _why_flip(self, g: dict, player: str, args: list[str]) -> str | None:
        """Why `flip N HEX` or `flip free` [for BELIEF] is not legal (L380-390): the pacified
        chips of yours at HEX (what is in unrest cannot flip), the free flips once."""
        if args[0] == "free":
            own, _args, why = self._own_for(g, player, "flip", args, 1)
            if why or not own:
                return why
            if not any(free_flips(self.tab, g, b) for b in own):
                return ("you have no free flip: it flips your pacified chips in a hex where a Prophet, High Priest "
                        "or Hero of yours keeps them calm")
            if all(b in g["finished"] for b in own):
                return "you have taken your free flips this Power-Up already"
            return None
        own, args, why = self._own_for(g, player, "flip", args, 2)
        if why or not own:
            return why
        if not is_number(args[0]) or not any(pop_of(g, h, b)[0] for b in own for h in g["hexes"]):
            return None   # no pacified chip anywhere: why_illegal says so, and what to send instead
        n = int(args[0])
        try:
            hid = self._hex(args[1])
        except OrderError as err:
            return err.message
        if n < 1:
            return "flip at least 1 chip"
        if hid not in g["hexes"]:
            return f"{hid} is dark sea: nothing lives there"
        pac = max(pop_of(g, hid, b)[0] for b in own)
        unrest = max(pop_of(g, hid, b)[1] for b in own)
        if pac == 0:
            return (f"you have no pacified chips at {hid} to flip"
                    + (f" ({unrest} in unrest there, which cannot flip)" if unrest else ""))
        if n > pac:
            return f"you have {pac} pacified {'chip' if pac == 1 else 'chips'} at {hid} to flip: `flip {pac} {hid}` flips them all"
        return None

    def _why_assassinate(self, state, player, args: list[str]) -> str | None:
        """Why `assassinate HEX KIND OWNER` [for BELIEF] is not legal: its turn (4. Movement and
        battle), then battle.assassinate_check for every belief of the player's."""
        g = state["game"]
        if state["flow"]["phase"] != "action":
            return "'assassinate' is an order of the Action phase (its Movement and Battle turn)"
        if not self._can_step(g, 3):
            return ("it is not yet the Movement and Battle turn" if g["step"] < 3
                    else "the Movement and Battle turn is over")
        own, args, why = self._own_for(g, player, "assassinate", args, 3)
        if why or not own:
            return why
        try:
            hid = self._hex(args[0])
            kind = self._kind(args[1], UNIT_KINDS)
            owner = self._owner(g, args[2])
        except OrderError as err:
            return err.message
        reasons = [assassinate_check(g, b, hid, kind, owner) for b in own]
        return next((r for r in reasons if r), None) if all(reasons) else None

    def _why_divine(self, state, player, verb: str, args: list[str]) -> str | None:
        """Why an enumerated intervention (`levelup`, `smite HEX KIND OWNER`, `plague HEX`, ...)
        [for BELIEF] is not legal: its phase, one intervention an era, the hex, then
        divine.divine_check for every belief of the player's."""
        g = state["game"]
        if state["flow"]["phase"] != "divine":
            return f"'{verb}' is an order of the Divine Power phase"
        own, args, why = self._own_for(g, player, verb, args, 0 if verb == "levelup" else 3 if verb == "smite" else 1)
        acted = self._acted(g, player)
        if own and all(positions.lead(g, b) in acted for b in own):
            return "you have chosen your intervention of this era already: ONE intervention per Era"
        own = [b for b in own if positions.lead(g, b) not in acted]
        if why or not own:
            return why
        try:
            typed = [self._hex(args[0])] if args else []
            if verb == "smite":
                typed += [self._kind(args[1], ("pop", *UNIT_KINDS)), self._owner(g, args[2])]
        except OrderError as err:
            return err.message
        if typed and self.world.hexes[typed[0]].printed == "sea":
            return f"{typed[0]} is dark sea: no intervention reaches it"
        reasons = [divine_check(self.tab, g, player, b, verb, tuple(typed)) for b in own]
        return next((r for r in reasons if r), None) if all(reasons) else None

    def _why_raise(self, g: dict, player: str, args: list[str]) -> str | None:
        """Why `raise KIND HEX [for BELIEF]` is not legal (tester3 finding 06: "not legal now"
        was all a player was told): the first thing raise_check finds for a belief of his."""
        own, args, why = self._own_for(g, player, "raise", args, 2)
        if why or not own:
            return why
        try:
            kind = self._kind(args[0], RAISABLE)
            hid = self._hex(args[1])
        except OrderError as err:
            return err.message
        if hid not in g["hexes"]:
            return f"{hid} is not a green fertile hex"
        reasons = [raise_check(self.tab, g, b, kind, hid) for b in own]
        return next((r for r in reasons if r), None) if all(reasons) else None

    def _legal_for(self, state, player, b) -> list[Order]:
        """The legal orders of one acting belief (see actors)."""
        g = state["game"]
        phase = state["flow"]["phase"]
        if phase == "powerup":
            out = []
            for hid in self.world.order:
                p = pop_of(g, hid, b)[0] if hid in g["hexes"] else 0
                for n in range(1, p + 1):
                    out.append(Order(("flip", str(n), hid), ("flip", n, hid)))
            if out:
                out.append(Order(("flip", "all"), ("flip", "all")))
            if free_flips(self.tab, g, b) and b not in g["finished"]:
                out.append(Order(("flip", "free"), ("flip", "free")))
            return out
        if phase == "divine":
            if positions.lead(g, b) in self._acted(g, player):
                return []
            out = [Order((t[0], *t[1:]), t) for t in divine_orders(self.tab, g, player, b)]
            return out + bot.apotheosis_examples(self, state, player, b) + bot.contest_examples(self, state, player, b)
        if phase == "action":
            out: list[Order] = []
            if self._can_step(g, 0):
                out += bot.place_examples(self, state, player, b)
            if self._can_step(g, 1):
                for hid in self.world.order:
                    if hid in g["hexes"] and g["hexes"][hid]["t"] == "fertile" and pop_of(g, hid, b)[0]:
                        for k in RAISABLE:
                            if raise_check(self.tab, g, b, k, hid) is None:
                                out.append(Order(("raise", k, hid), ("raise", k, hid)))
            if self._can_step(g, 2):
                out += [Order(("convert", *t), ("convert", *t)) for t in convert_orders(self.tab, g, b)]
                out += [Order(("slaughter", *t), ("slaughter", *t)) for t in slaughter_orders(self.tab, g, b)]
                out += [Order(("pogrom", *t), ("pogrom", *t)) for t in pogrom_orders(self.tab, g, b)]
            if self._can_step(g, 3):   # the Jihad's infidels are listed once, by _legal_orders
                if b not in g["battled"]:
                    out += bot.move_examples(self, state, player, b)
                out += [Order(("assassinate", *t), ("assassinate", *t)) for t in assassinate_orders(g, b)]
                out += bot.attack_examples(self, state, player, b)
            return out
        return []

    def _infidel_examples(self, state: dict, player: str) -> list[Order]:
        """The Jihad holder's `infidel move|attack` lines (only hers, only in her era)."""
        g = state["game"]
        holder = jihad.holder(g)
        if holder is None or positions.controller(g, holder) != player or g.get("infidel_turn") == g["era"]:
            return []
        out = bot.move_examples(self, state, player, INFIDEL, prefix=("infidel",)) if INFIDEL not in g["battled"] else []
        return out + bot.attack_examples(self, state, player, INFIDEL, prefix=("infidel",))

    def _bid_examples(self, state: dict, player: str) -> list[Order]:
        """Representative `bid` lines (the verb is parsed): a few amounts the hand can pay."""
        g = state["game"]
        phase = state["flow"]["phase"]
        hand = hand_total(g, player)
        if phase == "powerup":
            mine = [p for p in positions.positions_of(g, player) if not positions.in_limbo(g, p)]
            if g.get("bidding") == "live" or len(self.order(g)) < 2 or not mine:
                return []
            # CHOICE 201: the auction runs after the Power-Up, so what the hand holds then --
            # the level's base income paid with `done`, L380-384 -- decides, not the hand now;
            # faith on the board may be taken in (CHOICE 35). Only a god who could bid nothing
            # at all is not asked (her maximum is 0: she drops out at once, paying nothing).
            hand += sum(self.tab.data["levels"]["power_base"][str(positions.level(g, p))] for p in mine)
            own = [b for p in mine for b in positions.members(g, p)]
            board = sum(sum(h["pop"].get(b, (0, 0))) for h in g["hexes"].values() for b in own)
            if not hand + board:
                return []
            amounts = sorted({0, 1, max(1, hand // 4), max(1, hand // 2)})
            toks = [(str(n),) if len(mine) < 2 else (str(n), p) for p in mine for n in amounts]
        elif phase == "bidding":
            a = g["auction"]
            match, least = auction.live_options(a)
            toks = [(str(n),) for n in sorted({least, least + 4} | ({match} if match is not None else set()))]
        else:
            return []
        out = []
        for t in toks:
            o = bot._try(self, state, player, ("bid", *t))
            if o is not None:
                out.append(o)
        return out

    def _answer_orders(self, state, player) -> list[Order]:
        """battles=sealed: the answers `player` may give this round (representative Armies of
        God amounts; `aog HEX N` takes any N up to the hand)."""
        g = state["game"]
        a = g["answering"]
        hand = hand_total(g, player)
        out: list[Order] = []
        for x in a["actions"]:
            if x["kind"] != "attack" or x["spec"]["hex"] not in a["asked"].get(player, []):
                continue
            spec = x["spec"]
            hid = spec["hex"]
            need: set[str] = set()
            for o in positions.positions_of(g, player):
                for m in positions.members(g, o):
                    need |= set(responses.decisions(self.tab, g, spec, m))
                    if m in owners_at(g, hid) and m != spec["named"]:
                        need.add("side")
            if "side" in need and not any(o.tokens[:2] == ("side", hid) for o in out):
                out += [Order(("side", hid, s), ("answer", "side", hid, s)) for s in responses.SIDES]
            if "aog" in need and hand and not any(o.tokens[:2] == ("aog", hid) for o in out):
                amounts = sorted({n for n in (1, 2, 3, 5, 10, hand) if n <= hand})
                out += [Order(("aog", hid, str(n)), ("answer", "aog", hid, n)) for n in amounts]
            if "retreat" in need and not any(o.tokens[:2] == ("retreat", hid) for o in out):
                for o in positions.positions_of(g, player):
                    for t in responses.retreat_hexes(self.tab, g, hid, o):
                        order = Order(("retreat", hid, "->", t), ("answer", "retreat", hid, t))
                        if order not in out:
                            out.append(order)
        return out

    def standing_orders(self, state, player):
        """Representative standing orders (the verbs are parsed: see `parse`)."""
        g = state["game"]
        b = self._belief(g, player) if g["beliefs"] else None
        if state["flow"].get("over") or b is None:
            return []
        claims = [Order((v, "claims"), ("claims", v)) for v in ("contest", "accept")]
        if not self.actors(g, player):   # in limbo: a claim and its standing orders only (CHOICE 73)
            return claims
        out = [Order(("defend", "any", "aog", str(n)), ("defend", "any", n)) for n in (0, 1, 2)]
        out += [Order(("side", "any", s), ("side", "any", s)) for s in ("aside", "defender")]
        out += claims
        for hid, x in g["hexes"].items():
            if b in x["pop"] and x["t"] == "fertile":
                nb = self.world.nbrs[hid][0]
                out.append(Order(("overflow", hid, "->", nb), ("overflow", hid, (nb,))))
                break
        return out

    # --- parsing the verbs with free-form arguments (engine hook G3) -----------------------
    @staticmethod
    def _int(tok: str, what: str) -> int:
        if not is_number(tok):
            raise InvalidOrderError(f"expected {what} (a number), found '{tok}'")
        return int(tok)

    def _hex(self, tok: str) -> str:
        if tok not in self.world.hexes:
            raise InvalidOrderError(f"there is no hex '{tok}' (fertile hexes are 11..66; others are named like c4)")
        return tok

    def _owner(self, g: dict, tok: str) -> str:
        if tok in ("infidel", "infidels"):
            return INFIDEL
        hits = positions.named(tok, g["beliefs"])
        if len(hits) != 1:
            raise InvalidOrderError(f"'{tok}' is not a belief in this game ({', '.join(sorted(g['beliefs']))}, infidel)")
        return hits[0]

    @staticmethod
    def _kind(tok: str, allowed) -> str:
        hits = positions.named(tok, allowed)
        if len(hits) != 1:
            raise InvalidOrderError(f"'{tok}' is not one of: {', '.join(allowed)}")
        return hits[0]

    def parse(self, state, player, tokens):
        g = state["game"]
        verb, args = tokens[0], tokens[1:]
        flow = state["flow"]
        if flow.get("over"):
            raise IllegalOrderError("the game is over")
        if verb in ("contest", "accept") and len(args) == 1 and len(args[0]) >= 5 and "claims".startswith(args[0].lower()):
            args = ["claims"]   # `accept claim`: a prefix, as names are (a Negotiation `accept` has 5 words)
        if verb in ("contest", "accept") and args == ["claims"]:   # standing (CHOICE 166), in limbo too
            if not g["beliefs"]:
                raise IllegalOrderError(NOT_IN_SETUP["claims"])
            if not positions.positions_of(g, player):
                raise IllegalOrderError("you have no living belief")
            return getattr(self, f"_parse_{verb}")(state, player, None, args)
        if verb in negotiation.VERBS:
            return negotiation.parse(self, state, player, verb, args)
        b = self._belief(g, player) if g["beliefs"] else None
        if verb in ("wager", "yield", "drop"):   # a player's answers in a contest or a duel, not a belief's
            if player not in flow["active"]:
                raise IllegalOrderError(f"no '{verb}' order is legal now")   # the engine adds 'it is not your turn; awaiting ...'
            if verb == "wager":
                return self._parse_one(state, player, b, verb, args)
            return None   # `yield HEX`, `drop`: matched against the legal orders
        if verb == "judge" and len(args) == 2:
            # the crime is the rest of the line: a trailing `for BELIEF` of the player's own is the accuser
            words = args[1].split()
            own = self.actors(g, player)
            if len(words) > 2 and words[-2].lower() == "for" and any(x.startswith(words[-1].lower()) for x in own):
                args = [args[0], " ".join(words[:-2]), "for", words[-1].lower()]
        if verb in ANYTIME:
            if b is None:
                raise IllegalOrderError(NOT_IN_SETUP.get(verb, NOT_IN_SETUP[""]) if not g["beliefs"] else "you have no living belief")
            if not self.actors(g, player) and verb in ("take", *PLAYER_VERBS):
                # CHOICE 73: a claim is allowed; no take, gift or standing order (those given before stay)
                raise IllegalOrderError("your belief is in limbo: it can do nothing this era")
        if verb in PLAYER_VERBS:   # a player's, not a belief's: standing orders and gifts
            return getattr(self, f"_parse_{verb}")(state, player, self.actors(g, player)[0], args)
        if verb in ("bid", "jihad", "aog", "infidel") or (flow["phase"] == "infidels" and verb in ("move", "attack")):
            # a player's orders, not one belief's: bids name their position (`bid N BELIEF`)
            if player not in flow["active"]:
                ps = positions.positions_of(g, player)
                if verb == "bid" and flow["phase"] in ("powerup", "bidding") and ps and all(positions.in_limbo(g, p) for p in ps):
                    # the one god who can bid nothing (CHOICE 201): told why, not "not your turn"
                    raise IllegalOrderError("your belief is in limbo: no initiative bidding this era")
                raise IllegalOrderError(f"no '{verb}' order is legal now")
            if verb == "bid":
                if flow["phase"] == "contest" and g["pending"]["contest"]["kind"] == "jihad":
                    return jihad.parse_bid(self, state, player, args)
                return self._parse_bid(state, player, b, args)
            if verb == "jihad":
                if flow["phase"] != "divine":
                    raise IllegalOrderError("'jihad' is an order of the Divine Power phase")
                return jihad.parse_declaration(g, player, b, args)
            if verb == "aog":
                return self._parse_one(state, player, b, verb, args)
            if verb == "infidel":
                return self._parse_infidel(state, player, args)
            return self._parse_infidel(state, player, [verb, *args])   # live pace: the infidels' turn
        return self._parse_for(state, player, verb, args)

    def _parse_for(self, state, player, verb, args) -> Order:
        """CHOICE 110: a line acts for one of the player's beliefs: the one its trailing
        `for BELIEF` names, else the only one for which it is legal; legal for several, the
        line is ambiguous and must say `for BELIEF`."""
        g = state["game"]
        own = self.actors(g, player)
        if verb == "claim":   # a position in limbo may still claim (CHOICE 73)
            own = positions.beliefs_of(g, player)
        if verb == "claim" and len(args) == 1:
            args = ["for", args[0]]
        if len(args) >= 2 and args[-2] == "for":
            hits = positions.named(args[-1], own)
            if len(hits) != 1:
                raise IllegalOrderError(f"no belief of yours called '{args[-1]}' may act now ({', '.join(own) or 'none'})")
            cands, args = hits, args[:-2]
        else:
            cands = own
        if verb == "claim":   # a claim names a position
            cands = list(dict.fromkeys(positions.lead(g, b) for b in cands))
        found: list[tuple[str, Order]] = []
        first: OrderError | None = None
        for b in cands:
            try:
                found.append((b, self._parse_one(state, player, b, verb, args)))
            except OrderError as err:
                first = first or err
        if found and all(o.payload == ("defer",) for _, o in found):   # judged when it runs (CHOICE 141)
            return Order((verb, *args) + ((("for", found[0][0])) if len(cands) == 1 and len(own) > 1 else ()), ("defer",))
        found = [(b, o) for b, o in found if o.payload != ("defer",)] or found
        if not found:
            if first is None:
                if positions.positions_of(g, player):   # alive, but every position in limbo (CHOICE 73)
                    raise IllegalOrderError("your belief is in limbo: it can do nothing this era")
                raise IllegalOrderError("you have no living belief")
            raise first
        if len(found) > 1:
            raise AmbiguousOrderError(f"which of your positions does it act for? It could be for {' or '.join(b for b, _ in found)}: "
                                      f"end the line with `for {found[0][0]}`")
        b, o = found[0]
        if len(own) > 1 and verb != "claim":
            o = Order(o.tokens + ("for", b), o.payload)
        return o

    def _parse_one(self, state, player, b, verb, args) -> Order:
        g = state["game"]
        flow = state["flow"]
        if verb in ANYTIME:
            return getattr(self, f"_parse_{verb}")(state, player, b, args)
        active = player in flow["active"]
        if not active:
            raise IllegalOrderError(f"no '{verb}' order is legal now")
        if verb == "wager" and flow["phase"] == "contest" and g["pending"]["contest"]["kind"] not in contests.SIDES:
            raise IllegalOrderError("this contest is an auction: `bid N`")
        phases = {"place": "action", "move": "action", "attack": "action", "apotheosis": "divine", "aog": "response",
                  "strike": "divine", "judge": "divine", "wager": "contest"}
        if flow["phase"] != phases[verb] and not (verb == "wager" and flow["phase"] == "duel"):
            names = {"action": "Action", "divine": "Divine Power", "response": "battle answers' round",
                     "contest": "contest (a Direct Attack or a Divine Judgement) or of a heroes' duel"}
            raise IllegalOrderError(f"'{verb}' is an order of the {names[phases[verb]]} phase")
        if verb in ("move", "attack") and responses.waits(g, b):
            # battles=sealed, compact: this line waits for an earlier god's battles and is
            # judged when it runs (responses.py, CHOICE 141)
            try:
                return getattr(self, f"_parse_{verb}")(state, player, b, args)
            except OrderError:
                return Order((verb, *args), ("defer",))
        return getattr(self, f"_parse_{verb}")(state, player, b, args)

    def _parse_infidel(self, state, player, args):
        """`infidel HEX` (the Jihad's Phase 1 placement) or `infidel move ...` / `infidel attack
        ...` (the holder moves and attacks with the infidels, first in Movement and Battle)."""
        g = state["game"]
        phase = state["flow"]["phase"]
        if not args:
            raise InvalidOrderError("expected `infidel HEX`, `infidel move ...` or `infidel attack ...`")
        if args[0] not in ("move", "attack"):
            if phase != "jihad":
                raise IllegalOrderError("`infidel HEX` places the new infidels of a Jihad, in its Phase 1")
            if len(args) != 1:
                raise InvalidOrderError("expected `infidel HEX`")
            hid = self._hex(args[0])
            if hid not in g["hexes"]:
                raise IllegalOrderError(f"{hid} is dark sea (CHOICE 22)")
            return Order(("infidel", hid), ("infidel", hid))
        holder = jihad.holder(g)
        if holder is None or positions.controller(g, holder) != player:
            raise IllegalOrderError("only the holder of this era's Jihad moves the infidels")
        if phase not in ("action", "infidels") or (phase == "action" and g["pace"] == "live"):
            raise IllegalOrderError("the infidels move and attack first in Movement and Battle"
                                    + (" (their own turn: wait for it)" if phase == "action" else ""))
        if phase == "action" and not self._can_step(g, 3) or g.get("infidel_turn") == g["era"]:
            raise IllegalOrderError("the infidels' turn is over")
        order = getattr(self, f"_parse_{args[0]}")(state, player, INFIDEL, args[1:])
        if args[0] == "attack" and dict(order.payload[1])["aog"]:
            raise IllegalOrderError("the infidels have no Armies of God")
        return Order(("infidel", *order.tokens), ("infidel", *order.payload))

    def _parse_strike(self, state, player, b, args):
        g = state["game"]
        if len(args) != 3 or args[1] != "wager":
            raise InvalidOrderError("expected `strike BELIEF wager N`")
        target = self._owner(g, args[0])
        n = self._int(args[2], "the wager")
        why = contests.strike_check(g, player, b, target, n) if target != INFIDEL else "a Direct Attack is made on a god, not on the infidels"
        if why:
            raise IllegalOrderError(why)
        return Order(("strike", target, "wager", str(n)), ("strike", target, n))

    def _parse_judge(self, state, player, b, args):
        g = state["game"]
        if len(args) != 2 or not args[1].strip():
            raise InvalidOrderError("expected `judge BELIEF CRIME...` (name the crime)")
        target = self._owner(g, args[0])
        why = contests.judge_check(g, player, b, target) if target != INFIDEL else "a Divine Judgement is called on a god, not on the infidels"
        if why:
            raise IllegalOrderError(why)
        crime = " ".join(args[1].split())
        return Order(("judge", target, crime), ("judge", target, crime))

    def _parse_wager(self, state, player, b, args):
        g = state["game"]
        if len(args) < 3 or args[1] != "for":
            raise InvalidOrderError("expected `wager N for SIDE` (a contest) or `wager N for HEX BELIEF` (a duel)")
        n = self._int(args[0], "the wager")
        if state["flow"]["phase"] == "duel":
            if len(args) != 4:
                raise InvalidOrderError("expected `wager N for HEX BELIEF`")
            hid, belief = self._hex(args[2]), self._owner(g, args[3])
            why = duels.wager_check(g, player, n, hid, belief)
            if why:
                raise IllegalOrderError(why)
            belief = positions.lead(g, belief)
            return Order(("wager", str(n), "for", hid, belief), ("wager", n, hid, belief))
        if len(args) != 3:
            raise InvalidOrderError("expected `wager N for SIDE`")
        c = g["pending"]["contest"]
        side = self._kind(args[2], contests.SIDES[c["kind"]] + tuple(x for k, v in contests.SIDES.items() if k != c["kind"] for x in v))
        why = contests.wager_check(g, player, n, side)
        if why:
            raise IllegalOrderError(why)
        return Order(("wager", str(n), "for", side), ("wager", n, side))

    def _parse_contest(self, state, player, b, args):
        if args != ["claims"]:
            raise InvalidOrderError("expected `contest claims`")
        return Order(("contest", "claims"), ("claims", "contest"))

    def _parse_accept(self, state, player, b, args):
        if args != ["claims"]:
            raise InvalidOrderError("expected `accept claims`")
        return Order(("accept", "claims"), ("claims", "accept"))

    def _parse_bid(self, state, player, b, args):
        """`bid N [BELIEF]`: Phase 3-4 a sealed maximum (any N: what the hand cannot pay when
        the auction runs is cut to the hand, CHOICE 35); bidding=live: the position on turn
        puts its stack to N."""
        g = state["game"]
        phase = state["flow"]["phase"]
        mine = [p for p in positions.positions_of(g, player) if not positions.in_limbo(g, p)]
        if phase == "powerup":
            if g.get("bidding") == "live":
                raise IllegalOrderError("with bidding=live the Initiative is bid in Phase 4, one god at a time")
            return auction.parse_sealed_bid(self, g, args, mine)
        if len(args) not in (1, 2):
            raise InvalidOrderError("expected `bid N` or `bid N BELIEF`")
        n = self._int(args[0], "how much")
        if phase == "bidding":
            a = g["auction"]
            pos = a["turn"]
            if len(args) == 2 and self._owner(g, args[1]) != pos:
                raise IllegalOrderError(f"it is the {pos}'s turn to bid")
            match, least = auction.live_options(a)
            if n < least and n != match:
                raise IllegalOrderError(f"the bid stands at {a['current']}: bid at least {least}" +
                                        (f" (or {match} to match)" if match is not None else "") + ", or `pass`")
            own = sum(a["stacks"].get(q, 0) for q in a["order"] if q != pos and positions.controller(g, q) == player)
            if n + own > hand_total(g, player):
                raise IllegalOrderError(f"your hand holds {hand_total(g, player)} faith" + (f" ({own} of it already bid)" if own else ""))
            return Order(("bid", str(n)), ("bid", n, pos))
        raise IllegalOrderError("'bid' is an order of the Power-Up (Phase 3-4) or of an auction")
    def _round_hex(self, state, player, tok: str) -> str | None:
        """battles=sealed: the hex `tok` names when it is one of this round's for `player`."""
        if state["flow"]["phase"] != "response" or player not in state["flow"]["active"]:
            return None
        return tok if tok in responses.round_hexes(state["game"], player) else None

    def _parse_aog(self, state, player, b, args):
        g = state["game"]
        if len(args) != 2:
            raise InvalidOrderError("expected `aog HEX N`")
        hid = self._hex(args[0])
        n = self._int(args[1], "the Armies of God")
        if self._round_hex(state, player, hid) is None:
            raise IllegalOrderError(f"you are not asked about a battle at {hid}")
        if n > hand_total(g, player):
            raise IllegalOrderError(f"your hand holds {hand_total(g, player)} faith for the Armies of God")
        return Order(("aog", hid, str(n)), ("answer", "aog", hid, n))

    def _parse_take(self, state, player, b, args):
        g = state["game"]
        if len(args) not in (2, 3):
            raise InvalidOrderError("expected `take N HEX [pacified|unrest]`")
        n, hid = self._int(args[0], "how many"), self._hex(args[1])
        st = self._kind(args[2], ("pacified", "unrest")) if len(args) == 3 else None
        p, u = pop_of(g, hid, b) if hid in g["hexes"] else (0, 0)
        have = {"pacified": p, "unrest": u, None: p + u}[st]
        if n < 1 or n > have:
            raise IllegalOrderError(f"{hid} holds {have} {st + ' ' if st else ''}chips of yours")
        return Order(("take", str(n), hid) + ((st,) if st else ()), ("take", n, hid, st))

    def _parse_give(self, state, player, b, args):
        g = state["game"]
        if "to" not in args or args.index("to") not in (1, 2) or len(args) != args.index("to") + 2:
            raise InvalidOrderError("expected `give N [BELIEF] to PLAYER`")
        n = self._int(args[0], "how many")
        belief = self._owner(g, args[1]) if args.index("to") == 2 else None
        who = args[-1]
        hits = positions.named(who, g["seats"])
        if len(hits) != 1 or hits[0] == player:
            raise IllegalOrderError(f"'{who}' is not another player of this game")
        have = g["hands"][player].get(belief, 0) if belief else hand_total(g, player)
        if n < 1 or n > have:
            raise IllegalOrderError(f"your hand holds {have}{' ' + belief if belief else ''} faith")
        a = g.get("auction")
        bid = sum(k for q, k in a["stacks"].items() if positions.alive(g, q) and positions.controller(g, q) == player) if a else 0
        if bid and hand_total(g, player) - n < bid:   # CHOICE 185: the stacks bid live are on the table
            raise IllegalOrderError(f"{bid} faith of your hand is bid in the open auction (your stack, CHOICE 185): "
                                    f"you may give {max(0, hand_total(g, player) - bid)}")
        return Order(("give", str(n)) + ((belief,) if belief else ()) + ("to", hits[0]), ("give", n, belief, hits[0]))

    def _parse_claim(self, state, player, b, args):
        if args:
            raise InvalidOrderError("expected `claim` or `claim BELIEF`")
        if positions.lead(state["game"], b) in [c[1] for c in state["game"].get("claimed", [])]:
            raise IllegalOrderError(f"the {positions.lead(state['game'], b)} already claim victory this turn "
                                    "(decided when the turn's orders are all in)")
        return Order(("claim", b) if len(positions.positions_of(state["game"], player)) > 1 else ("claim",), ("claim", b))

    def _parse_overflow(self, state, player, b, args):
        hexes = [a for a in args if a != "->"]
        if len(hexes) < 2 or args[1::2] != ["->"] * (len(args) // 2):
            raise InvalidOrderError("expected `overflow HEX -> HEX [-> HEX ...]` or `overflow HEX -> none`")
        src = self._hex(hexes[0])
        if hexes[1:] == ["none"]:
            return Order(("overflow", src, "->", "none"), ("overflow", src, ()))
        dst = [self._hex(h) for h in hexes[1:]]
        for d in dst:
            if d not in self.world.nbrs[src]:
                raise IllegalOrderError(f"{d} is not next to {src}")
        return Order(("overflow", src, *[x for d in dst for x in ("->", d)]), ("overflow", src, tuple(dst)))

    def _parse_retreat(self, state, player, b, args):
        if len(args) != 3 or args[1] != "->":
            raise InvalidOrderError("expected `retreat HEX -> HEX` or `retreat HEX -> none`")
        src = self._hex(args[0])
        if self._round_hex(state, player, src) and args[2] != "none":   # battles=sealed: an answer
            dst = self._hex(args[2])
            if dst not in self.world.nbrs[src]:
                raise IllegalOrderError(f"{dst} is not next to {src}")
            return Order(("retreat", src, "->", dst), ("answer", "retreat", src, dst))
        if args[2] == "none":
            return Order(("retreat", src, "->", "none"), ("retreat", src, None))
        dst = self._hex(args[2])
        if dst not in self.world.nbrs[src]:
            raise IllegalOrderError(f"{dst} is not next to {src}")
        return Order(("retreat", src, "->", dst), ("retreat", src, dst))

    def _parse_defend(self, state, player, b, args):
        if len(args) != 3 or args[1] != "aog":
            raise InvalidOrderError("expected `defend any|HEX aog N`")
        where = "any" if args[0] == "any" else self._hex(args[0])
        n = self._int(args[2], "how much")
        return Order(("defend", where, "aog", str(n)), ("defend", where, n))

    def _parse_side(self, state, player, b, args):
        if len(args) != 2:
            raise InvalidOrderError("expected `side any|HEX attacker|defender|aside`")
        where = "any" if args[0] == "any" else self._hex(args[0])
        s = self._kind(args[1], ("attacker", "defender", "aside"))
        if where != "any" and self._round_hex(state, player, where):   # battles=sealed: an answer
            g = state["game"]
            named = {x["spec"]["named"] for x in g["answering"]["actions"]
                     if x["kind"] == "attack" and x["spec"]["hex"] == where}
            mine = {o for o in owners_at(g, where)
                    if o in g["beliefs"] and g["beliefs"][o]["player"] == player}
            if named and mine and mine <= named:   # CHOICE 51: the named belief defends, it has no side to choose
                who = " and ".join(f"the {self.tab.beliefs[o]['name']}" for o in sorted(mine))
                raise IllegalOrderError(f"{who} are attacked at {where} and defend there: "
                                        f"you choose no side in that battle (`aog {where} N`, `retreat {where} -> HEX`)")
            return Order(("side", where, s), ("answer", "side", where, s))
        return Order(("side", where, s), ("side", where, s))

    def _parse_place(self, state, player, b, args):
        g = state["game"]
        if not self._can_step(g, 0):
            raise IllegalOrderError("the Generation turn is over")
        if len(args) not in (2, 3):
            raise InvalidOrderError("expected `place N [BELIEF] HEX`")
        n = self._int(args[0], "how many")
        belief = self._owner(g, args[1]) if len(args) == 3 else b
        hid = self._hex(args[-1])
        if belief == INFIDEL:
            raise IllegalOrderError("infidels are never in a hand")
        have = g["hands"][player].get(belief, 0)
        if n < 1:  # tester3 finding 06: was "your hand holds 10 faith", which is no reason
            raise IllegalOrderError("place at least 1 faith (`place N [BELIEF] HEX`, N from 1)")
        if n > have:
            raise IllegalOrderError(f"your hand holds {have} {belief} faith")
        if self.world.hexes[hid].printed == "sea":
            raise IllegalOrderError(f"{hid} is dark sea (CHOICE 38)")
        r = room(self.tab, g, hid, belief)
        if n > r:
            raise IllegalOrderError(f"{hid} has room for {r} more {belief} chips")
        toks = ("place", str(n)) + ((belief,) if belief != b else ()) + (hid,)
        return Order(toks, ("place", n, belief, hid))

    def _parse_move(self, state, player, b, args):
        g = state["game"]
        if not self._can_step(g, 3):
            raise IllegalOrderError("it is not yet the Movement turn")
        if b in g["battled"]:
            raise IllegalOrderError("your movement is over: your battles have begun")
        args = ["->" if a == "to" else a for a in args]
        if len(args) < 4 or "->" not in args:
            raise InvalidOrderError("expected `move N KIND [STATE] HEX -> HEX [-> HEX ...]`")
        n = self._int(args[0], "how many")
        kind = self._kind(args[1], MOVE_KINDS)
        i = 2
        st = None
        if args[2] not in self.world.hexes:
            st = self._kind(args[2], ("pacified", "unrest") if kind == "pop" else ("ready", "broken"))
            i = 3
        rest = args[i:]
        if len(rest) < 3 or rest[1::2] != ["->"] * (len(rest) // 2) or len(rest) % 2 == 0:
            raise InvalidOrderError("expected a path `HEX -> HEX [-> HEX ...]`")
        path = [self._hex(h) for h in rest[0::2]]
        src = path[0]
        if src not in g["hexes"]:
            raise IllegalOrderError(f"nothing can be at {src}")
        can = movable(g, b, src, kind, st)
        have = sum(can) if kind == "pop" else len(can)
        if n < 1 or n > have:
            raise IllegalOrderError(f"{src} has {have} {kind.replace('_', ' ')} of yours that may still move")
        if kind == "pop":
            worse = n > can[0]
        else:
            worse = any(g["units"][u]["b"] for u in can[:n])
        reach = allowance(self.tab, g, b, kind, worse)
        if reach == 0:
            raise IllegalOrderError(f"a {kind} cannot move")
        if len(path) == 2 and path[1] not in self.world.nbrs[src]:
            found = find_path(self.tab, g, b, kind, src, path[1], n, reach)
            if found is None:
                raise IllegalOrderError(f"no legal path from {src} to {path[1]} within {reach} hexes")
            path = found
        why = check_path(self.tab, g, b, kind, path, n, reach)
        if why:
            raise IllegalOrderError(why)
        toks = ("move", str(n), kind) + ((st,) if st else ()) + tuple(x for h in path for x in (h, "->"))[:-1]
        return Order(toks, ("move", n, kind, st, tuple(path)))

    def _parse_attack(self, state, player, b, args):
        g = state["game"]
        if not self._can_step(g, 3):
            raise IllegalOrderError("it is not yet the Battle turn")
        if not args:
            raise InvalidOrderError("expected `attack HEX [OWNER] with N KIND FROM ...`")
        hid = self._hex(args[0])
        if hid not in g["hexes"]:
            raise IllegalOrderError(f"{hid} is sea")
        rest = list(args[1:])
        named = None
        if rest and rest[0] != "with":
            named = self._owner(g, rest.pop(0))
        own = set(positions.members(g, positions.lead(g, b)))   # a covenant never attacks itself
        others = sorted({o for o in g["hexes"][hid]["pop"] if o not in own} | {g["units"][u]["o"] for u in units_at(g, hid) if g["units"][u]["o"] not in own})
        if not others:
            raise IllegalOrderError(f"there is nobody at {hid} to attack")
        if named is None:
            if len(others) > 1:
                raise IllegalOrderError(f"name the belief you attack at {hid}: {', '.join(others)}")
            named = others[0]
        if named not in others:
            raise IllegalOrderError(f"{named} has nothing at {hid}")
        if not rest or rest.pop(0) != "with":
            raise InvalidOrderError("expected `with N KIND FROM` after the attacked hex")
        aog, advance = 0, self.data["battle"]["advance_default"]
        groups = []
        while rest:
            t = rest.pop(0)
            if t in ("and", "+"):
                continue
            if t == "aog":
                if not rest:
                    raise InvalidOrderError("expected a number after aog")
                aog = self._int(rest.pop(0), "the Armies of God")
                continue
            if t in ("stay", "advance"):
                advance = t == "advance"
                continue
            n = self._int(t, "how many")
            if len(rest) < 2:
                raise InvalidOrderError("each attacking group is `N KIND FROM`")
            kind = self._kind(rest.pop(0), MOVE_KINDS)
            if rest[0] == "from":
                rest.pop(0)
            src = self._hex(rest.pop(0))
            groups.append((n, kind, src))
        if not groups:
            raise InvalidOrderError("declare the attacking units: `with N KIND FROM`")
        used: dict = {}
        units: list[str] = []
        pops: dict[str, int] = {}
        era = g["era"]
        for n, kind, src in groups:
            if src != hid and src not in self.world.nbrs[hid]:
                raise IllegalOrderError(f"{src} is not {hid} or next to it")
            if n < 1:
                raise IllegalOrderError("declare at least one piece in each group")
            if kind == "pop":
                p = pop_of(g, src, b)[0] if src in g["hexes"] else 0
                free = p - g["fought_pop"].get(src, {}).get(b, 0) - pops.get(src, 0)
                if n > free:
                    raise IllegalOrderError(f"{src} has {max(free, 0)} working chips of yours that may still attack")
                pops[src] = pops.get(src, 0) + n
                continue
            # a covenant's units attack together, whichever of its beliefs they are (L360, CHOICE 111)
            ms = positions.members(g, positions.lead(g, b)) if b in g["beliefs"] else [b]
            cand = [u for m in [b] + [m for m in ms if m != b] for u in units_at(g, src, m, kind)
                    if not g["units"][u]["b"] and g["units"][u]["fought"] != era and u not in used]
            if len(cand) < n:
                raise IllegalOrderError(f"{src} has {len(cand)} ready {kind.replace('_', ' ')} of yours that may still attack")
            for u in cand[:n]:
                used[u] = True
                units.append(u)
        if aog > hand_total(g, player):
            raise IllegalOrderError(f"your hand holds {hand_total(g, player)} faith for the Armies of God")
        toks = ["attack", hid, named, "with"]
        for n, kind, src in groups:
            toks += [str(n), kind, src]
        if aog:
            toks += ["aog", str(aog)]
        if not advance:
            toks.append("stay")
        spec = (("hex", hid), ("named", named), ("groups", tuple(groups)), ("units", tuple(units)),
                ("pop", tuple(sorted(pops.items()))), ("aog", aog), ("advance", advance))
        return Order(tuple(toks), ("attack", spec))

    def _parse_apotheosis(self, state, player, b, args):
        g = state["game"]
        if len(args) != 3:
            raise InvalidOrderError("expected `apotheosis N OWNER HEX`")
        n, owner, hid = self._int(args[0], "how many"), self._owner(g, args[1]), self._hex(args[2])
        if hid not in g["hexes"]:
            raise IllegalOrderError(f"{hid} is sea")
        why = apotheosis_check(self.tab, g, player, b, n, owner, hid)
        if why:
            raise IllegalOrderError(why)
        return Order(("apotheosis", str(n), owner, hid), ("apotheosis", n, owner, hid))

    # --- applying ---------------------------------------------------------------------------
    def private_order(self, state, player, order):
        """Hands and standing orders are secret: take, give and the standing verbs are private;
        with battles=sealed the answers of a round (`aog` too) and the attack lines (their
        Armies of God) are sealed until the battle reveals them; so are the Negotiation lines
        and the Phase 6 interventions until they are executed (their results are the events)."""
        if order.verb in ("aog", "attack") and responses.sealed(state["game"]):
            return True
        if order.verb == "bid":   # sealed maxima (CHOICE 36); a live bid is made openly
            return state["flow"]["phase"] != "bidding"
        if order.verb == "jihad":   # the declaration is public when executed, its maximum never
            return True
        if order.verb in SEALED_VERBS:   # wagers (the attacker's in her `strike`) and yields (CHOICE 162)
            return True
        if state["flow"]["phase"] == "divine" and order.verb != "claim":   # sealed interventions (CHOICE 61/62):
            return True   # each is told when its turn executes it, not before; a claim is public (CHOICE 181)
        return (order.verb in ANYTIME and order.verb != "claim") or order.verb in negotiation.VERBS

    def condition(self, state, player, order):
        """A two-sided Negotiation line is accepted "if the other side matches" (engine G10)."""
        if order.payload[:1] == ("claims",):
            return None
        if order.payload[:1] == ("claim",):   # CHOICE 181: no dice, the count once the turn's orders are in
            return self._claim_condition(state["game"], order.payload[1])
        return negotiation.condition(order) if order.verb in negotiation.TWO_SIDED else None

    def _claim_condition(self, g: dict, b: str) -> str:
        """How a claim is decided (CHOICE 166, 181), with the claimant's count now and, below
        the victory count, the text's warning (L676): no dice decide it, the acknowledgement
        says so plainly."""
        pos, need = positions.lead(g, b), self.data["game"]["victory"]
        n = self.count(g, pos)
        said = (f"decided by the count at the end of this turn, once every order of it is in: if every other god "
                f"has `accept claims` the claim wins uncounted, else the {pos} are counted then (board and hand) "
                f"and {need} or more wins; your {pos} count {n} now")
        if n >= need:
            return said
        return (f"{said} -- WARNING, below {need}: \"If the player that announced victory does not have 200 or more, "
                "all her Faith (population) chips from the Game Board and hand are banked, the God and the belief are "
                "dead, and play continues without them\" (7. Victory)")

    def apply(self, state, player, order, rng):
        g = state["game"]
        kind = order.payload[0]
        if kind == "answer":   # battles=sealed: an answer of the round
            return responses.answer(g, player, *order.payload[1:])
        if kind in ANYTIME:
            return self._apply_anytime(state, player, order, rng)
        phase = state["flow"]["phase"]
        if phase == "setup":
            ch = g["choices"][player]
            if kind == "belief":
                ch["beliefs"].append(order.payload[1])
            elif kind == "level":
                ch["level"] = order.payload[1]
            else:
                state["flow"]["active"].remove(player)
            return []
        b = self._actor(g, player, order)
        if phase == "negotiation":
            if kind in negotiation.VERBS:
                return negotiation.queue(g, player, order)
            return self._done(state, player, b)
        if phase == "bidding":
            return self._apply_live_bid(state, player, order)
        if phase == "contest":
            if g["pending"]["contest"]["kind"] == "jihad":
                return jihad.apply_contest(state, player, order)
            if kind == "wager":
                return contests.wager(g, player, order.payload[1], order.payload[2])
            if kind == "drop":
                return contests.drop(g, player)
            if kind == "done":
                return self._done(state, player, b)
            raise ValueError(f"unknown contest {g['pending']['contest']['kind']!r}")  # pragma: no cover
        if phase == "duel":
            if kind == "wager":
                return duels.wager(g, player, *order.payload[1:])
            if kind == "yield":
                return duels.yield_hero(g, player, order.payload[1])
            return self._done(state, player, b)
        if phase == "jihad":
            if kind == "infidel":
                return jihad.place(self.tab, state, player, order.payload[1])
            return self._done(state, player, b)
        if kind == "infidel":   # the Jihad's infidels move or attack (compact step 2.5, or their live turn)
            sub = order.payload[1]
            if sub == "move":
                _, _, n, what, st, path = order.payload
                return move(self.tab, g, INFIDEL, what, st, n, list(path))
            if INFIDEL not in g["battled"]:
                g["battled"].append(INFIDEL)
            return self._battle(state, player, INFIDEL, dict(order.payload[2]), rng)
        if kind == "bid" and phase == "powerup":
            g["bids"][order.payload[2]] = order.payload[1]
            return []
        if kind == "done" or kind == "none":
            return self._done(state, player, b)
        if phase == "powerup":
            return self._apply_flip(state, player, b, order)
        if phase == "divine":   # executed in initiative order once all are in (_run_divine)
            pos = positions.lead(g, b)   # one intervention a position (CHOICE 110)
            g["pending"].setdefault("divine", []).append({"player": player, "pos": pos, "order": list(order.payload)})
            if all(positions.lead(g, x) in self._acted(g, player) for x in self.actors(g, player)):
                return self._done(state, player, b)
            return []
        if phase == "response":   # pragma: no cover - only answers and done are legal then
            raise ValueError(f"unknown answer {order.text!r}")
        ans = g.get("answering")
        if kind == "defer" or (kind in ("move", "attack", "assassinate") and responses.waits(g, b)):
            # battles=sealed, compact: an earlier god's battles wait for their round; this
            # god's Movement and Battle line waits for them (responses.py, CHOICE 141)
            return responses.defer(g, player, b, order.tokens, order.text)
        step = STEP_OF[kind]
        if g["pace"] == "compact" and step > g["step"]:
            g["step"] = step
        if kind == "place":
            _, n, belief, hid = order.payload
            return place(self.tab, g, player, belief, hid, n)
        if kind == "raise":
            return raise_unit(self.tab, g, b, order.payload[1], order.payload[2])
        if kind == "convert":
            return convert(self.tab, g, b, *order.payload[1:])
        if kind == "slaughter":
            return slaughter(self.tab, g, b, *order.payload[1:])
        if kind == "pogrom":
            return pogrom(self.tab, g, b, *order.payload[1:])
        if kind == "move":
            _, n, what, st, path = order.payload
            return move(self.tab, g, b, what, st, n, list(path))
        if b not in g["battled"]:
            g["battled"].append(b)
        if kind == "assassinate":
            if ans:   # battles=sealed: after a battle waiting for its round, in order
                return responses.declare_assassination(g, b, order.payload[1:])
            return assassinate(self.tab, g, b, *order.payload[1:], rng)
        if kind == "attack":
            if responses.sealed(g):
                return self._sealed_battle(state, player, b, dict(order.payload[1]), rng)
            return self._battle(state, player, b, dict(order.payload[1]), rng)
        raise ValueError(f"unknown order {order.text!r}")  # pragma: no cover

    def _done(self, state: dict, player: str, b: str) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        if state["flow"]["phase"] == "powerup":
            for pos in positions.positions_of(g, player):   # each position its level's base
                if not positions.in_limbo(g, pos):
                    events += power_base(self.tab, g, player, pos)
        if state["flow"]["phase"] == "response":
            events.append({"type": "answered", "player": player})
        if player in state["flow"]["active"]:
            state["flow"]["active"].remove(player)
        return events

    def _apply_live_bid(self, state, player, order) -> list[Event]:
        g = state["game"]
        a = g["auction"]
        p = a["turn"]
        n = order.payload[1] if order.verb == "bid" else None
        auction.live_act(a, p, n)
        # every action is its own deadline: the next bidder (even the same player) is asked
        # afresh by advance, never defaulted within this one
        state["flow"]["active"] = []
        act = a["raw"][-1]
        return [{"type": "bid_live", "belief": p, "player": player, "act": act[0], "amount": act[2]}]

    def _apply_flip(self, state, player, b, order):
        g = state["game"]
        what = order.payload[1]
        if what == "all":
            where = {h: x["pop"][b][0] for h, x in g["hexes"].items() if b in x["pop"] and x["pop"][b][0]}
        elif what == "free":
            where = free_flips(self.tab, g, b)
            g["finished"].append(b)   # the free flips are taken once
        else:
            where = {order.payload[2]: what}
        return flip(self.tab, g, player, b, where)

    def _full_spec(self, player, b, spec) -> dict:
        return {"attacker": b, "player": player, "hex": spec["hex"], "named": spec["named"],
                "groups": list(spec["groups"]), "units": list(spec["units"]), "pop": dict(spec["pop"]),
                "aog": spec["aog"], "advance": spec["advance"]}

    def _sealed_battle(self, state, player, b, spec, rng) -> list[Event]:
        """battles=sealed: a battle nobody has to answer is fought at once (unless one of the
        turn waits already: then it waits too); else it waits for the turn's round."""
        g = state["game"]
        full = self._full_spec(player, b, spec)
        # CHOICE 144: the Jihad's infidel turn is answered by the standing orders (no round)
        if state["flow"]["phase"] != "infidels" and (g.get("answering") or responses.needs_round(self.tab, g, full)):
            return responses.declare(g, player, b, full)
        events = resolve_battle(self.tab, g, full, responses.responses_for(self.tab, g, full, {}), rng)
        return events + self._check_alive(state)

    def _battle(self, state, player, b, spec, rng) -> list[Event]:
        g = state["game"]
        hid = spec["hex"]
        responses = {}
        for o, x in g["beliefs"].items():
            st = g["standing"][x["player"]]
            r = {"player": x["player"]}
            side = st["side"].get(hid, st["side"].get("any"))
            if side and o != spec["named"] and o != b:
                r["side"] = side
            aog = st["defend"].get(hid, st["defend"].get("any"))
            if aog:
                r["aog"] = aog
            if hid in st["retreat"]:
                r["retreat"] = st["retreat"][hid]
            responses[o] = r
        events = resolve_battle(self.tab, g, self._full_spec(player, b, spec), responses, rng)
        return events + self._check_alive(state)

    def _apply_anytime(self, state, player, order, rng) -> list[Event]:
        g = state["game"]
        b = self._actor(g, player, order)
        kind = order.payload[0]
        st = g["standing"][player]
        if kind == "take":
            _, n, hid, s = order.payload
            return take(self.tab, g, player, b, hid, n, s)
        if kind == "give":
            _, n, belief, who = order.payload
            moved = hands.take(g, player, n, b, belief)   # own chips first (CHOICE 183)
            for x, k in moved.items():
                to_hand(g, who, x, k)
            # engine G5: one event seen by the giver and the receiver (CHOICE 72)
            return [{"type": "give", "from": player, "player": who, "faith": moved, "to": [player, who]}]
        if kind == "claim":   # decided once every order of the turn is in (CHOICE 181)
            g.setdefault("claimed", []).append([player, order.payload[1] if len(order.payload) > 1 else positions.lead(g, b)])
            return []
        if kind == "claims":
            st["claims"] = order.payload[1]
        if kind == "overflow":
            _, src, dst = order.payload
            if dst:
                st["overflow"][src] = list(dst)
            else:
                st["overflow"].pop(src, None)
        elif kind == "retreat":
            _, src, dst = order.payload
            if dst:
                st["retreat"][src] = dst
            else:
                st["retreat"].pop(src, None)
        elif kind == "defend":
            st["defend"][order.payload[1]] = order.payload[2]
        elif kind == "side":
            st["side"][order.payload[1]] = order.payload[2]
        return [{"type": "standing", "player": player, "order": order.text, "to": player}]

    def count(self, g: dict, belief: str) -> int:
        """CHOICE 75: a position's population on the board + chips of its belief(s) in its
        controller's hand; a covenant counts both its beliefs together, two separate beliefs
        of one player each alone (L672-680)."""
        pos = positions.lead(g, belief)
        hand = g["hands"][positions.controller(g, pos)]
        return self.population(g, pos) + sum(hand.get(m, 0) for m in positions.members(g, pos))

    def _decide_claims(self, state) -> list[Event]:
        """CHOICE 181: the claims of a turn are decided after all its orders, in the order they
        were made, so that the other gods' `accept claims` / `contest claims` and every other
        order of the same turn are known (orders of one turn are simultaneous)."""
        g = state["game"]
        events: list[Event] = []
        for player, b in g.pop("claimed", []):
            if state["flow"].get("over"):
                break
            alive = b in g["beliefs"] and g["beliefs"][b]["alive"]
            if not alive or positions.controller(g, positions.lead(g, b)) != player:
                why = ("the belief was raptured" if g["beliefs"].get(b, {}).get("raptured") else "the belief died"
                       ) if not alive else "the belief is no longer yours"
                events.append({"type": "claim_lapsed", "player": player, "belief": b, "why": why})
                continue
            events += self._claim(state, player, positions.lead(g, b))
        return events

    def _claim(self, state, player, b) -> list[Event]:
        g = state["game"]
        others = sorted({positions.controller(g, pos) for pos in positions.positions(g)} - {player})
        if others and all(g["standing"][p].get("claims", "contest") == "accept" for p in others):
            # L674: "if all Gods accept defeat and the game is over with a clear winner": no count (CHOICE 166)
            return ([{"type": "claim_accepted", "player": player, "belief": b, "accepted_by": others}]
                    + self._finish(state, f"{player} claimed victory and every other god accepted it", [player]))
        n = self.count(g, b)
        events: list[Event] = [{"type": "claim", "player": player, "belief": b, "count": n,
                                "needed": self.data["game"]["victory"]}]
        if n >= self.data["game"]["victory"]:
            return events + self._finish(state, f"{player} claimed victory with {n} faith of the {b}", [player])
        return events + self._kill_belief(state, b, "a failed claim")

    def _kill_belief(self, state, b, why) -> list[Event]:
        """CHOICE 82: population and own-belief chips in hand banked, units and special units
        removed; fortifications stay (their owner plays no more). A covenant dies whole."""
        g = state["game"]
        ms = positions.members(g, positions.lead(g, b))
        p = g["beliefs"][b]["player"]
        for m in ms:
            g["beliefs"][m].update(alive=False, limbo=False, limbo_until=None)   # a dead god serves no sentence
            for h in g["hexes"].values():
                if m in h["pop"]:
                    bank(g, m, sum(h["pop"].pop(m)))
            bank(g, m, g["hands"][p].pop(m, 0))
        remove_units(g, ms)
        if p in state["flow"]["active"] and not positions.positions_of(g, p):
            state["flow"]["active"].remove(p)
        events: list[Event] = [{"type": "belief_dies", "belief": b, "player": p, "why": why}]
        return events + self._check_alive(state)

    def _check_alive(self, state) -> list[Event]:
        g = state["game"]
        if state["flow"].get("over"):
            return []
        living = {positions.controller(g, pos) for pos in positions.positions(g)}
        if len(living) == 1:   # CHOICE 83
            return self._finish(state, "the last living God", sorted(living))
        if not living:
            return self._finish(state, "no god is left", [])
        return []

    # --- defaults, bots ----------------------------------------------------------------------
    def default_order(self, state, player):
        g = state["game"]
        if state["flow"]["phase"] == "powerup":
            own = self.actors(g, player)
            for b in own:
                if free_flips(self.tab, g, b) and b not in g["finished"]:   # CHOICE 29
                    return self._tag([Order(("flip", "free"), ("flip", "free"))], b, len(own) > 1)[0]
        if state["flow"]["phase"] == "divine":
            return NONE
        return DONE   # also: contest (no bid), jihad (the rest rolled), infidels (no moves)

    def bot_choice(self, state, player, legal, rng):
        return bot.choose(self, state, player, legal, rng)

    # --- views, scores ------------------------------------------------------------------------
    def scores(self, state):
        """Population on the board per player's living belief (public; hands are secret)."""
        g = state["game"]
        out = {p: 0 for p in g["seats"]}
        for pos in positions.positions(g):   # a player's largest position (L672: each counted alone)
            p = positions.controller(g, pos)
            out[p] = max(out[p], self.population(g, pos))
        return out

    @staticmethod
    def population(g: dict, pos: str) -> int:
        """A position's population on the board (a covenant's two beliefs together)."""
        ms = positions.members(g, pos)
        return sum(sum(h["pop"].get(m, [0, 0])) for h in g["hexes"].values() for m in ms)

    def belief_colours(self, g: dict) -> dict[str, str]:
        """Each belief in play drawn in a colour of its own (L35: "its' unique colour", CHOICE
        180): its colour word, unless a belief founded earlier in this game has that word; then
        the first spare colour no belief in play has. A colour never changes once given: the
        beliefs of the set-up take theirs in seat order (the ring), a belief founded later keeps
        the one it was given when founded (negotiation._do_found stores it). Nothing here
        follows the order of the `beliefs` dict, which a store's sorted JSON does not keep."""
        out: dict[str, str] = {}
        given = {b: x["colour"] for b, x in g["beliefs"].items() if x.get("colour")}
        ring = [b for b in positions.ring(g) if b in g["beliefs"]]
        for b in ring + sorted(set(g["beliefs"]) - set(ring)):
            if b not in given:
                out[b] = self.colour_for(out.values(), b)
        return {**out, **given}

    def colour_for(self, taken, b: str) -> str:
        """CHOICE 180: belief `b`'s colour word, or the first spare colour not `taken`."""
        word = self.tab.beliefs[b]["colour"]
        if word in taken:
            word = next((w for w in self.data["display"]["spare_colours"] if w not in taken), word)
        return word

    def view(self, state, player):
        g = state["game"]
        flow = state["flow"]
        colours = self.belief_colours(g)
        # Every dict of the view in an order of its own, never the state's: the store keeps its
        # JSON with sorted keys, a resolution the dicts as it built them, and a report must read
        # the same from either. Beliefs in the ring's order (seats clockwise), the rest sorted.
        ring = [b for b in positions.ring(g) if b in g["beliefs"]]
        order = ring + sorted(set(g["beliefs"]) - set(ring))
        hexes = []
        for hid in self.world.order:
            h = self.world.hexes[hid]
            x = g["hexes"].get(hid)
            units: dict[str, dict[str, list[int]]] = {}
            if x is not None:
                for u in units_at(g, hid):
                    y = g["units"][u]
                    units.setdefault(y["o"], {}).setdefault(y["k"], [0, 0])[1 if y["b"] else 0] += 1
                units = {o: dict(sorted(units[o].items())) for o in sorted(units)}   # never the dicts' order
            hexes.append({"id": hid, "name": h.name, "q": h.q, "r": h.r, "printed": h.printed, "ndp": h.ndp,
                          "terrain": x["t"] if x else "sea", "pop": dict(sorted(x["pop"].items())) if x else {},
                          "units": units,
                          "total": total_pop(g, hid) if x else 0})
        out = {
            "era": g["era"], "stage": g["stage"], "phase": flow["phase"], "pace": g["pace"],
            "step": STEP_NAMES[g["step"]] if flow["phase"] == "action" else None,
            "initiative": g["initiative"], "turn_order": self.order(g) if g["beliefs"] else [],
            "youngest": list(g["youngest"]),
            "players": [{"name": p, "belief": self._belief(g, p) or next((b for b in order if g["beliefs"][b]["player"] == p), None),
                         "colour": colours.get(self._belief(g, p) or "", ""),
                         "level": g["beliefs"][self._belief(g, p)]["level"] if self._belief(g, p) else None,
                         "alive": self._belief(g, p) is not None, "population": self.scores(state).get(p, 0)}
                        for p in g["seats"]],
            "beliefs": {b: {"player": x["player"], "name": self.tab.beliefs[b]["name"], "level": x["level"],
                            "alive": x["alive"], "limbo": x["limbo"], "colour": colours[b],
                            "covenant": x.get("covenant"), "raptured": bool(x.get("raptured"))}
                        for b, x in ((b, g["beliefs"][b]) for b in order)},
            # every living position with its controller and its beliefs (a covenant's two), in the ring's order
            "positions": [{"id": pos, "player": positions.controller(g, pos), "members": positions.members(g, pos),
                           "names": [self.tab.beliefs[m]["name"] for m in positions.members(g, pos)],
                           "level": positions.level(g, pos), "limbo": positions.in_limbo(g, pos),
                           "population": self.population(g, pos), "initiative": pos == positions.lead(g, g["initiative"] or "")}
                          for pos in positions.positions(g)],
            "hexes": hexes,
            "fortifications_left": self.tab.units["fortification"]["limit"] - sum(1 for y in g["units"].values() if y["k"] == "fortification"),
            "scores": self.scores(state),
            "technology": [{"era": self.tab.tech(k), "name": k, "in_effect": g["era"] >= self.tab.tech(k)}
                           for k in ("agriculture", "maritime", "transport", "modern_arms", "renaissance")],
        }
        if flow["phase"] == "setup":
            out["waiting"] = list(flow["active"])
        pending = g.get("pending") or {}
        c = pending.get("contest")
        if c and c.get("kind") in contests.SIDES:   # public: who and what; the wagers stay sealed
            out["contest"] = {k: c[k] for k in ("kind", "by", "against", "attacker", "defender", "accuser", "accused", "crime")
                              if k in c}
            if player is not None:
                out["contest"]["your_wagers"] = [{"side": x["side"], "faith": sum(x["chips"].values())}
                                                 for x in c["stakes"] if x["player"] == player]
        if pending.get("duel"):
            out["duels"] = [{"at": x["at"], "beliefs": list(x["beliefs"])} for x in pending["duel"]["duels"]]
        if g.get("jihad"):
            out["jihad"] = dict(g["jihad"])
        if g.get("auction"):   # a live auction: stacks sit openly on the Power discs
            a = g["auction"]
            out["auction"] = {"kind": a["kind"], "current": a["current"], "turn": a["turn"],
                              "in": list(a["remaining"]), "stacks": dict(sorted(a["stacks"].items()))}
        ans = g.get("answering")
        if ans and ans["open"]:   # battles=sealed: the round's public facts (the answers are sealed)
            out["battles_asked"] = {"attacker": ans["pos"], "player": ans["player"], "asked": sorted(ans["asked"]),
                                    "battles": [{"at": x["spec"]["hex"], "named": x["spec"]["named"],
                                                 "groups": responses.public_groups(x["spec"])}
                                                for x in ans["actions"] if x["kind"] == "attack"]}
        if player is not None and player in g["seats"]:
            out["you"] = player
            out["hand"] = dict(sorted(g["hands"][player].items()))
            out["hand_total"] = hand_total(g, player)
            out["standing"] = {k: (dict(sorted(v.items())) if isinstance(v, dict) else v)
                               for k, v in sorted(g["standing"][player].items())}
            mine = {p: n for p, n in sorted(g.get("bids", {}).items()) if positions.controller(g, p) == player}
            if mine:
                out["your_bids"] = mine
            if flow["phase"] == "setup":
                out["your_choices"] = dict(sorted(g["choices"].get(player, {}).items()))
            if ans and ans["open"] and player in ans["asked"]:
                out["your_answers"] = {h: dict(sorted(v.items())) for h, v in sorted(ans["answers"].get(player, {}).items())}
                out["asked_about"] = list(ans["asked"][player])
        return out

    def summary(self, view):
        phase = {"setup": "set-up", "negotiation": "Phase 2, Negotiation", "powerup": "Phase 3, Power-Up", "bidding": "Phase 4, Initiative", "action": "Phase 5, Action",
                 "contest": "Phase 6, Divine Power: a contest", "jihad": "Phase 1: the Jihad's infidels",
                 "infidels": "Phase 5: the infidels' turn (Jihad)",
                 "response": "Phase 5, battles answered",
                 "divine": "Phase 6, Divine Power", "duel": "Phase 6, heroes duel"}.get(view["phase"], "the game is over")
        out = [("Era", f"{view['era']} of 30; {phase}" + (f" ({view['step']} turn)" if view.get("step") else "")),
               ("Turn order", ", ".join(view["turn_order"]) or "not yet"),
               ("Technology", ", ".join(t["name"].replace("_", " ") for t in view["technology"] if t["in_effect"]) or "none yet")]
        if view.get("jihad") and view["jihad"]["era"] >= view["era"]:   # won for the next era, or this one's
            j = view["jihad"]
            x = view["beliefs"].get(j["holder"], {})
            out.append(("Jihad", f"{x.get('name', j['holder'])} control the infidels in era {j['era']}"))
        shown = set()
        for pos in view.get("positions", []):   # each position with its controller
            what = " + ".join(pos["names"]) + (" (covenant)" if len(pos["names"]) > 1 else "")
            state = f"level {pos['level']}{', in limbo' if pos['limbo'] else ''}, population {pos['population']}"
            out.append((f"{pos['player']} ({what})", state))
            shown.add(pos["player"])
        for pl in view["players"]:
            b = pl["belief"]
            if pl["name"] not in shown and b and b in view["beliefs"]:
                x = view["beliefs"][b]
                out.append((f"{pl['name']} ({x['name']})", "raptured" if x.get("raptured") else "dead"))
        if view.get("your_bids"):
            out.append(("Your sealed bid", ", ".join(f"{n} for the {view['beliefs'][b]['name'] if b in view['beliefs'] else b}"
                                                     for b, n in sorted(view["your_bids"].items()))))
        if view.get("auction"):
            a = view["auction"]
            out.append(("Bidding (live)", (f"{a['current']} to match" if a["current"] else "nobody has opened yet") + "; stacks " +
                        ", ".join(f"{view['beliefs'][b]['name'] if b in view['beliefs'] else b} {n}" for b, n in a["stacks"].items() if b in a["in"])))
        if "hand" in view:
            out.append(("Your hand", ", ".join(f"{n} {view['beliefs'][b]['name'] if b in view['beliefs'] else b}"
                                               for b, n in sorted(view["hand"].items())) or "empty"))
        return out


RULES = FaithRules

