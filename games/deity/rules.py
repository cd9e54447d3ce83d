"""Deity (Warpspawn): rules text in shared/rules/deity.md, data in data.toml beside this.

Pure: state in, state and events out. The shape every game module has: game info, the
Rules class (set-up, legal orders, apply, views, scores), registration.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pbem.core.engine import Event, GameInfo, Rules
from pbem.core.errors import DataError
from pbem.core.hexgrid import distance, key, neighbours, parse_key
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng

GAME_INFO = GameInfo(
    name="deity",
    title="Deity",
    min_players=2,
    max_players=6,
    options={
        "size": "the map: 10 (10x10 hexes, default) or 12 (12x12)",
        "world": "'random' (default: the engine builds the world from the game seed) or 'manual' (the players build it, one counter a turn)",
        "start": "who starts: 'seat' (the first --player, default) or 'random'",
        "rounds": "round limit (default 60; the highest score wins then); 0 = no limit, as in the text",
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
)

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
AREA_CARDS = {"flood", "prophet", "famine", "draught", "pestilence"}
DESTROY_D6 = {"earthquake", "tidal_wave", "volcanic_eruption", "fire"}
LOSE_ONE = {"flood", "draught", "pestilence", "hurricane"}
FIELDS = ("armies", "monsters", "pop")
PASS = Order(("pass",), ("pass",))
LETTERS = "ABCDEF"


@dataclass(frozen=True)
class Geo:
    size: int
    cells: tuple          # every hex of the map, in reading order (r, then q)
    onmap: frozenset
    nbrs: dict            # hex -> its neighbours on the map
    rank: dict            # hex -> reading-order index
    pos: dict             # hex -> (q, r)
    dist: dict            # hex -> hex -> distance in hexes


@lru_cache(maxsize=None)
def geometry(size: int) -> Geo:
    cells = tuple(key(c - r // 2, r) for r in range(size) for c in range(size))
    onmap = frozenset(cells)
    nbrs = {k: tuple(key(*n) for n in neighbours(*parse_key(k)) if key(*n) in onmap) for k in cells}
    pos = {k: parse_key(k) for k in cells}
    dist = {a: {b: distance(pos[a], pos[b]) for b in cells} for a in cells}
    return Geo(size, cells, onmap, nbrs, {k: i for i, k in enumerate(cells)}, pos, dist)


def _validate(data: dict) -> dict:
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


def card_words(card: str) -> tuple[str, ...]:
    return tuple(card.split("_"))


def _ctok(verb: str, card: str, *rest: str) -> tuple[tuple[str, ...], frozenset]:
    """Tokens naming a card: `play tidal wave 3,4`; the second word may be left out."""
    words = card_words(card)
    return (verb, *words, *rest), (frozenset({2}) if len(words) == 2 else frozenset())


def _interleave(lists: list[list]) -> list:
    """One of each list in turn (so an order form's first examples show every card)."""
    out = []
    for i in range(max((len(x) for x in lists), default=0)):
        out += [x[i] for x in lists if i < len(x)]
    return out


def blank_cell(terrain: str) -> dict:
    return {"terrain": terrain, "owner": None, "pop": 0, "armies": 0, "monsters": 0, "temple": False, "blight": None}


def total(c: dict) -> int:
    return c["pop"] + c["armies"] + c["monsters"] + (1 if c["temple"] else 0)


def _none_lost() -> dict:
    return {"armies": 0, "monsters": 0, "pop": 0, "temple": 0}


class DeityRules(Rules):
    info = GAME_INFO
    grammar = GRAMMAR

    def __init__(self, data: dict):
        super().__init__(_validate(data))
        self.r = data["rules"]
        self.terrain = {t["id"]: t for t in data["terrain"]}
        self.tmax = {t: v["max"] for t, v in self.terrain.items()}
        self.cards = {c["id"]: c for c in data["cards"]}
        self.card_ids = [c["id"] for c in data["cards"]]
        self.keep_water = {t for t, v in self.terrain.items() if v.get("keep_water")}
        self._standing_list = self._make_standing()
        self._oc: dict = {}   # the Order objects already made (immutable, so shared)

    def _cached(self, payload: tuple, tokens=None, optional: frozenset = frozenset(), flag=None) -> Order:
        ck = (payload, flag)
        o = self._oc.get(ck)
        if o is None:
            o = self._oc[ck] = Order(tokens, payload, optional)
        return o

    def _series(self, ck: tuple, upto: int, make) -> list[Order]:
        """Orders numbered 1..upto (make(n) builds the n-th), kept in one growing list."""
        lst = self._oc.get(ck)
        if lst is None:
            lst = self._oc[ck] = []
        while len(lst) < upto:
            lst.append(make(len(lst) + 1))
        return lst[:upto]

    def _card_targets(self, verb: str, card: str, keys: list[str]) -> list[Order]:
        per = self._oc.get((verb, card, "by-hex"))
        if per is None:
            per = self._oc[(verb, card, "by-hex")] = {}
        out = []
        for k in keys:
            o = per.get(k)
            if o is None:
                tokens, opt = _ctok(verb, card, k)
                o = per[k] = Order(tokens, (verb, card, k), opt)
            out.append(o)
        return out

    def _card_order(self, verb: str, card: str, *rest: str) -> Order:
        ck = (verb, card, rest)
        o = self._oc.get(ck)
        if o is None:
            tokens, opt = _ctok(verb, card, *rest)
            o = self._oc[ck] = Order(tokens, (verb, card, *[r for r in rest if r != "->"]), opt)
        return o

    # --- small helpers ---------------------------------------------------------------------
    def _geo(self, g: dict) -> Geo:
        return geometry(g["size"])

    def _max(self, c: dict) -> int:
        return self.tmax[c["terrain"]]

    def _room(self, c: dict) -> int:
        return self.tmax[c["terrain"]] - total(c)

    @staticmethod
    def _fix(c: dict) -> None:
        if total(c) == 0:
            c["owner"] = None

    def _land_keys(self, g: dict) -> list[str]:
        land = g["land"]
        return [k for k in self._geo(g).cells if k in land]

    def _own(self, g: dict, p: str) -> list[str]:
        land = g["land"]
        return [k for k in self._geo(g).cells if k in land and land[k]["owner"] == p]

    def _coastal(self, g: dict, k: str) -> bool:
        land = g["land"]
        return k in land and any(n not in land for n in self._geo(g).nbrs[k])

    def _effect_hexes(self, g: dict, card: str) -> set:
        return {h for e in g["effects"] if e["card"] == card for h in e["hexes"]}

    def _temples(self, g: dict, p: str) -> int:
        return sum(1 for c in g["land"].values() if c["owner"] == p and c["temple"])

    def _alive(self, g: dict) -> list[str]:
        return [p for p in g["order"] if p not in g["out"]]

    def _after_in_order(self, g: dict, p: str) -> list[str]:
        """The other players still in, in turn order starting after p."""
        order = g["order"]
        i = order.index(p)
        return [q for q in order[i + 1:] + order[:i] if q not in g["out"]]

    def _dist(self, g: dict, a: str, b: str) -> int:
        return geometry(g["size"]).dist[a][b]

    # --- set-up ----------------------------------------------------------------------------
    def _options(self, options: dict) -> dict:
        unknown = set(options) - set(self.info.options)
        if unknown:
            raise DataError(f"deity: unknown option(s) {', '.join(sorted(unknown))}; known: {', '.join(self.info.options)}")
        d = self.data["options"]
        out = {"size": d["size"], "world": d["world"], "start": d["start"], "rounds": d["rounds"]}
        if "size" in options:
            try:
                out["size"] = int(options["size"])
            except ValueError:
                out["size"] = None
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
            try:
                out["rounds"] = int(options["rounds"])
            except ValueError:
                out["rounds"] = -1
            if out["rounds"] < 0:
                raise DataError(f"deity: option rounds must be a whole number >= 0, not {options['rounds']!r}")
        return out

    @staticmethod
    def _fresh_turn(player: str | None) -> dict:
        return {"player": player, "step": "temple", "pending": None, "raise_left": {}, "attacks": {},
                "holy_war": False, "arrived": {}, "destroyed": {}, "orders": 0}

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
        deck = [c for c in self.card_ids for _ in range(self.data["deck"]["copies"])]
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
        state = {"flow": {"phase": "world", "active": [], "sealed": False, "over": False, "prompt": ""}, "game": game}
        events.append({"type": "world_begin", "size": opts["size"], "mode": opts["world"], "pile": len(pile),
                       "reserve": len(reserve)})
        events.append({"type": "shuffle", "what": "deck", "cards": len(deck)})
        if opts["world"] == "random":
            events += self._random_world(state, rng)
        else:
            events += self._world_turn(state, order[0], rng)
        return state, events

    # --- world building --------------------------------------------------------------------
    def _spots(self, g: dict, terrain: str) -> list[str]:
        """The hexes where a drawn counter may go: next to a placed counter (the first
        anywhere), never covering the last water side of a river valley, and a river valley
        only with a water side of its own."""
        geo = self._geo(g)
        land = g["land"]
        if not land:
            cands = list(geo.cells)
        else:
            near = {n for k in land for n in geo.nbrs[k] if n not in land}
            cands = [k for k in geo.cells if k in near]
        out = []
        for k in cands:
            if terrain in self.keep_water and not any(n not in land for n in geo.nbrs[k]):
                continue
            if any(n in land and land[n]["terrain"] in self.keep_water
                   and not any(m not in land and m != k for m in geo.nbrs[n]) for n in geo.nbrs[k]):
                continue
            out.append(k)
        return out

    def _random_world(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        set_aside = []
        while g["pile"]:
            t = g["pile"].pop(0)
            spots = self._spots(g, t)
            if not spots:
                g["reserve"].append(t)
                set_aside.append(t)
                continue
            g["land"][spots[rng.randbelow(len(spots))]] = blank_cell(t)
            g["world"]["placed"] += 1
        events: list[Event] = [{"type": "world_built", "land": len(g["land"]), "set_aside": set_aside,
                                "counts": self._terrain_counts(g)}]
        return events + self._begin_setup(state, rng)

    def _terrain_counts(self, g: dict) -> dict:
        out = {t: 0 for t in self.terrain}
        for c in g["land"].values():
            out[c["terrain"]] += 1
        return out

    def _world_turn(self, state: dict, player: str, rng: Rng) -> list[Event]:
        """Draw the next counter for `player`; when the pile is out, the world is done."""
        g = state["game"]
        w = g["world"]
        events: list[Event] = []
        while g["pile"]:
            t = g["pile"].pop(0)
            if self._spots(g, t):
                w["drawn"], w["placer"] = t, player
                state["flow"].update(phase="world", active=[player], sealed=False,
                                     prompt=self._world_prompt(g, player))
                events.append({"type": "world_draw", "player": player, "terrain": t, "pile": len(g["pile"])})
                return events
            g["reserve"].append(t)
            events.append({"type": "world_set_aside", "player": player, "terrain": t})
        w["drawn"] = w["placer"] = None
        events.append({"type": "world_built", "land": len(g["land"]), "set_aside": [], "counts": self._terrain_counts(g)})
        return events + self._begin_setup(state, rng)

    def _world_prompt(self, g: dict, player: str) -> str:
        w = g["world"]
        name = self.terrain[w["drawn"]]["name"]
        left = w["redraws"][player]
        return (f"{player}: world building -- place your {name} counter (`put Q,R`)"
                + (f", or `redraw` ({left} redraw{'s' if left != 1 else ''} left)" if left else ""))

    # --- set-up of the starting population -------------------------------------------------
    def _begin_setup(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        for p in g["order"]:
            dice = rng.dice(self.r["start_dice"])
            g["start_pop"][p] = sum(dice)
            events.append({"type": "start_roll", "player": p, "dice": dice, "total": sum(dice)})
        state["flow"].update(phase="setup", active=list(g["order"]), sealed=True,
                             prompt="set-up: choose the plains hex of your starting population "
                                    "(`start Q,R`; list several, best first: in seat order each player gets the first "
                                    "that is not within 6 hexes of a population placed before)")
        return events

    def _start_orders(self, g: dict, player: str) -> list[Order]:
        """`start` orders: every free plains hex not yet on the player's list. The spacing is
        checked when the choices are served, in seat order, once everybody has chosen."""
        land = g["land"]
        chosen = set(g["start_choices"][player])
        return [self._cached(("start", k), ("start", k)) for k in self._land_keys(g)
                if land[k]["terrain"] == "plains" and total(land[k]) == 0 and not land[k]["blight"] and k not in chosen]

    def _serve_starts(self, state: dict, rng: Rng) -> list[Event]:
        """Everybody has chosen: place the starting populations in seat order, each in the
        first hex of the player's list that is legal then (else the farthest plains hex)."""
        g = state["game"]
        events: list[Event] = []
        for p in g["order"]:
            spots = self._start_spots(g, p)
            choices = g["start_choices"][p]
            passed = []
            k = None
            for i, want in enumerate(choices):
                if want in spots:
                    k = want
                    break
                passed.append(want)
            if k is None:
                k = self._farthest_start(g, p, spots)
            c = g["land"][k]
            want_pop = g["start_pop"][p]
            c["pop"] = min(want_pop, self._max(c))
            c["owner"] = p
            events.append({"type": "start_place", "player": p, "at": k, "pop": c["pop"], "discarded": want_pop - c["pop"],
                           "choice": (choices.index(k) + 1) if k in choices else 0, "passed_over": passed})
        g["round"] = 1
        return events + self._begin_turn(state, g["order"][0], rng)

    def _farthest_start(self, g: dict, player: str, spots: list[str]) -> str:
        opp = [k for k, c in g["land"].items() if c["owner"] and c["owner"] != player]
        if not opp:
            return spots[0]
        rank = self._geo(g).rank
        return max(spots, key=lambda s: (min(self._dist(g, s, o) for o in opp), -rank[s]))

    def _start_spots(self, g: dict, p: str) -> list[str]:
        land = g["land"]
        plains = [k for k in self._land_keys(g) if land[k]["terrain"] == "plains" and total(land[k]) == 0
                  and not land[k]["blight"]]
        opp = [k for k, c in land.items() if c["owner"] and c["owner"] != p]
        if not opp:
            return plains
        d = {k: min(self._dist(g, k, o) for o in opp) for k in plains}
        far = [k for k in plains if d[k] > self.r["start_spacing"]]
        if far:
            return far
        best = max(d.values(), default=None)
        return [k for k in plains if d[k] == best]

    # --- the turn --------------------------------------------------------------------------
    def _begin_turn(self, state: dict, player: str, rng: Rng) -> list[Event]:
        g = state["game"]
        g["turn"] = self._fresh_turn(player)
        expired = [e for e in g["effects"] if e["by"] == player]
        g["effects"] = [e for e in g["effects"] if e["by"] != player]
        events: list[Event] = [{"type": "turn_begin", "player": player, "round": g["round"]}]
        for e in expired:
            events.append({"type": "expire", "card": e["card"], "by": player, "hexes": e["hexes"]})
        n = self.r["draw_base"] + self._temples(g, player)
        events += self._draw(g, player, n, rng)
        if len(g["hands"][player]) > self.r["hand_max"]:
            g["turn"]["step"] = "discard"
        state["flow"].update(phase="turn", active=[player], sealed=False)
        self._prompt(state)
        return events

    def _draw(self, g: dict, player: str, n: int, rng: Rng) -> list[Event]:
        drawn = []
        events: list[Event] = []
        for _ in range(n):
            if not g["deck"]:
                if not g["discard"]:
                    break
                g["deck"], g["discard"] = g["discard"], []
                rng.shuffle(g["deck"])
                events.append({"type": "shuffle", "what": "discard pile into a new deck", "cards": len(g["deck"])})
            drawn.append(g["deck"].pop(0))
        g["hands"][player] += drawn
        events.append({"type": "draw", "player": player, "count": len(drawn), "wanted": n, "hand": len(g["hands"][player])})
        events.append({"type": "drew", "to": player, "player": player, "cards": drawn})
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
                t["raise_left"] = {k: g["land"][k]["pop"] // 2 for k in self._own(g, p) if g["land"][k]["pop"] >= 2}
                t["step"] = "raise"
            elif s == "raise":
                events += self._grow(g, p)
                t["step"] = "miracle"
                events += self._blight_rolls(g, p, rng)
            elif s == "miracle":
                t["step"] = "battle"
            elif s == "battle":
                t["step"] = "battle_end"
            elif s == "battle_end":
                t["step"] = "movement"
                events += self._standing_resurrections(state, rng)
        return events

    def _grow(self, g: dict, p: str) -> list[Event]:
        land = g["land"]
        famine = self._effect_hexes(g, "famine")
        grown, blocked, full = [], [], []
        for k in self._own(g, p):
            c = land[k]
            if c["armies"] or c["monsters"] or c["temple"] or not c["pop"]:
                continue
            if k in famine:
                blocked.append(k)
            elif self._room(c) <= 0:
                full.append(k)
            else:
                c["pop"] += 1
                grown.append(k)
        return [{"type": "growth", "player": p, "hexes": grown, "famine": blocked, "full": full}]

    def _preview(self, g: dict, p: str) -> dict:
        """The position as the Miracle phase would find it (growth done; blights assumed to
        stay): what later-phase orders are checked against before the turn gets there."""
        pg = dict(g)
        pg["land"] = {k: dict(c) for k, c in g["land"].items()}
        pg["turn"] = dict(g["turn"], step="miracle")
        self._grow(pg, p)
        return pg

    def _blight_rolls(self, g: dict, p: str, rng: Rng) -> list[Event]:
        events: list[Event] = []
        for k in self._land_keys(g):
            c = g["land"][k]
            if c["blight"] == p:
                roll = rng.die(self.r["blight_die"])
                gone = roll <= self.r["blight_gone_on"]
                if gone:
                    c["blight"] = None
                events.append({"type": "blight_roll", "player": p, "at": k, "roll": roll, "gone": gone})
        return events

    # --- destruction, limits, elimination ---------------------------------------------------
    def _record(self, g: dict, k: str, owner: str, lost: dict) -> None:
        if owner is None or not any(lost.values()):
            return
        rec = g["turn"]["destroyed"].setdefault(k, {}).setdefault(owner, _none_lost())
        for f, v in lost.items():
            rec[f] += v

    def _destroy(self, g: dict, k: str, n: int, cause: str, fields=FIELDS, temple: bool = True) -> list[Event]:
        """Destroy up to n counters at k: armies, then monsters, then population, then the
        temple (the order of battle)."""
        c = g["land"][k]
        owner = c["owner"]
        lost = _none_lost()
        for f in fields:
            x = min(n, c[f])
            c[f] -= x
            lost[f] += x
            n -= x
        if n > 0 and temple and c["temple"]:
            c["temple"] = False
            lost["temple"] = 1
        self._record(g, k, owner, lost)
        self._fix(c)
        return [{"type": "destroy", "at": k, "owner": owner, "cause": cause, **lost}]

    def _cap(self, g: dict, k: str, cause: str) -> list[Event]:
        c = g["land"][k]
        excess = total(c) - self._max(c)
        if excess <= 0:
            return []
        out = {}
        for f in ("pop", "armies", "monsters"):
            x = min(excess, c[f])
            c[f] -= x
            out[f] = x
            excess -= x
        self._fix(c)
        return [{"type": "over_limit", "at": k, "cause": cause, "max": self._max(c), **out}]

    def _check_out(self, state: dict) -> list[Event]:
        g = state["game"]
        if state["flow"].get("over") or state["flow"]["phase"] != "turn":
            return []
        alive = self._alive(g)
        keeps = set()
        for c in g["land"].values():
            if c["owner"] and (c["pop"] or c["armies"] or c["temple"]):
                keeps.add(c["owner"])
        newly = [p for p in alive if p not in keeps]
        events: list[Event] = []
        for p in newly:
            g["out"].append(p)
            for c in g["land"].values():
                if c["owner"] == p:
                    c["monsters"] = 0
                    self._fix(c)
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
        if flow["phase"] == "world":
            return [("put", lambda: self._o_place(g)), ("redraw", lambda: self._o_redraw(g, player))]
        if flow["phase"] == "setup":
            return [("start", lambda: self._start_orders(g, player))]
        t = g["turn"]
        pend = t["pending"]
        if pend:
            if pend["kind"] == "discard":
                return [("discard", lambda: self._o_discard(g, player))]
            return [("carry", lambda: self._o_carry(g, pend))]
        i = STEPS.index(t["step"])
        if i == 0:
            return [("discard", lambda: self._o_discard(g, player))]
        memo: dict = {}

        def later() -> dict:
            if "g" not in memo:
                memo["g"] = g if i >= STEPS.index("miracle") else self._preview(g, player)
            return memo["g"]

        gens: list[tuple[str, object]] = []
        if i <= STEPS.index("temple"):
            gens.append(("temple", lambda: self._o_temple(g, player)))
        if i <= STEPS.index("raise"):
            gens.append(("raise", lambda: self._o_raise(g, player)))
            gens.append(("disband", lambda: self._o_disband(g, player)))
        if i <= STEPS.index("miracle"):
            gens.append(("play", lambda: self._o_play(later(), player)))
        if i <= STEPS.index("battle"):
            gens.append(("attack", lambda: self._o_attack(later(), player)))
        if i <= STEPS.index("battle_end"):
            gens.append(("resurrection", lambda: self._o_resurrection(later(), player)))
        gens.append(("move", lambda: self._o_move(later(), player)))
        gens.append(("pass", lambda: [PASS]))
        return gens

    def legal_orders(self, state, player):
        return [o for _, gen in self._gens(state, player) for o in gen()]

    def _o_place(self, g: dict) -> list[Order]:
        t = g["world"]["drawn"]
        return [self._cached(("put", k), ("put", k)) for k in self._spots(g, t)] if t else []

    def _o_redraw(self, g: dict, player: str) -> list[Order]:
        if g["world"]["redraws"][player] > 0 and g["pile"]:
            return [Order(("redraw",), ("redraw",))]
        return []

    def _o_discard(self, g: dict, player: str) -> list[Order]:
        return [self._card_order("discard", card) for card in sorted(set(g["hands"][player]))]

    def _temple_ok(self, g: dict, k: str) -> bool:
        land = g["land"]
        c = land[k]
        return (not c["temple"] and self.terrain[c["terrain"]]["temples"]
                and not any(n in land and land[n]["temple"] for n in self._geo(g).nbrs[k]))

    def _o_temple(self, g: dict, player: str) -> list[Order]:
        land = g["land"]
        return [Order(("temple", k), ("temple", k)) for k in self._own(g, player)
                if land[k]["pop"] >= self.r["temple_population"] and self._temple_ok(g, k)]

    def _raise_limits(self, g: dict, player: str) -> dict:
        t = g["turn"]
        if t["step"] == "raise":
            return t["raise_left"]
        return {k: g["land"][k]["pop"] // 2 for k in self._own(g, player)}

    def _o_raise(self, g: dict, player: str) -> list[Order]:
        out = []
        limits = self._raise_limits(g, player)
        for k in self._own(g, player):
            top = min(limits.get(k, 0), g["land"][k]["pop"])
            out += self._series(("raise", k), top, lambda n, k=k: Order(("raise", str(n), k), ("raise", n, k)))
        return out

    def _o_disband(self, g: dict, player: str) -> list[Order]:
        out = []
        for k in self._own(g, player):
            out += self._series(("disband", k), g["land"][k]["armies"],
                                lambda n, k=k: Order(("disband", str(n), k), ("disband", n, k)))
        return out

    def _targets(self, g: dict, player: str, card: str, ctx: dict | None = None) -> list[str]:
        land = g["land"]
        geo = self._geo(g)
        kind = self.cards[card]["target"]
        ctx = {} if ctx is None else ctx
        if "keys" not in ctx:
            ctx["keys"] = self._land_keys(g)
            ctx["occ"] = [k for k in ctx["keys"] if total(land[k]) > 0]
        keys, occ = ctx["keys"], ctx["occ"]
        if kind == "occupied":
            return occ
        if kind == "temple":
            return [k for k in keys if land[k]["temple"]]
        if kind == "coastal_occupied":
            return [k for k in occ if self._coastal(g, k)]
        if kind == "mountains_occupied":
            return [k for k in occ if land[k]["terrain"] == "mountains"]
        if kind == "forest_occupied":
            return [k for k in occ if land[k]["terrain"] == "forest"]
        if kind == "coastal":
            return [k for k in keys if self._coastal(g, k)]
        if kind == "land":
            if card == "alter_land" and not g["reserve"]:
                return []
            return keys
        if kind == "water":
            if not g["reserve"]:
                return []
            return [k for k in geo.cells if k not in land]
        if kind == "empty_coastal":
            return [k for k in keys if total(land[k]) == 0 and not land[k]["blight"] and self._coastal(g, k)]
        if kind == "own_population3":
            return [k for k in self._own(g, player) if land[k]["pop"] >= 3]
        if kind == "armies":
            return [k for k in keys if land[k]["armies"] or land[k]["monsters"]]
        if kind == "population":
            return [k for k in keys if land[k]["pop"] > 0]
        if kind == "empty":
            return [k for k in keys if total(land[k]) == 0 and not land[k]["blight"]]
        if kind == "desert":
            return [k for k in keys if land[k]["terrain"] == "desert"]
        if kind == "swamp":
            return [k for k in keys if land[k]["terrain"] == "swamp"]
        if kind == "ocean":
            return [k for k in geo.cells if k not in land and any(n in land for n in geo.nbrs[k])]
        if kind == "own":
            return self._own(g, player)
        return []

    def _godspeed_dests(self, g: dict, player: str, src: str) -> list[str]:
        land = g["land"]
        rng_ = self.r["godspeed_range"]
        near = self._geo(g).dist[src]
        return [k for k in self._land_keys(g) if k != src and near[k] <= rng_
                and not land[k]["blight"] and land[k]["owner"] in (None, player) and self._room(land[k]) > 0]

    def _o_play(self, g: dict, player: str) -> list[Order]:
        per_card: list[list[Order]] = []
        ctx: dict = {}
        for card in sorted(set(g["hands"][player])):
            kind = self.cards[card]["target"]
            if kind in ("reaction", "destroyed"):
                continue
            if kind == "none":
                per_card.append([self._card_order("play", card)])
            elif kind == "own_move":
                land = g["land"]
                out = []
                for src in self._own(g, player):
                    if land[src]["pop"] + land[src]["armies"] == 0:
                        continue
                    for dst in self._godspeed_dests(g, player, src):
                        out.append(self._card_order("play", card, src, "->", dst))
                per_card.append(out)
            else:
                per_card.append(self._card_targets("play", card, self._targets(g, player, card, ctx)))
        return _interleave(per_card)

    def _restorable(self, g: dict, k: str) -> str | None:
        """Whose counters Resurrection at k would bring back (None: nothing)."""
        recs = g["turn"]["destroyed"].get(k)
        if not recs or k not in g["land"] or g["land"][k]["blight"]:
            return None  # nothing comes back to life where the land sank or a blight lies
        owner = g["land"][k]["owner"]
        live = {p: r for p, r in recs.items() if p not in g["out"] and any(r.values())}
        if owner is not None:
            return owner if owner in live else None
        if not live:
            return None
        return max(live, key=lambda p: (sum(live[p].values()), -g["order"].index(p)))

    def _o_resurrection(self, g: dict, player: str) -> list[Order]:
        if "resurrection" not in g["hands"][player]:
            return []
        return [self._cached(("play", "resurrection", k), ("play", "resurrection", k))
                for k in self._land_keys(g) if self._restorable(g, k)]

    def _attackers(self, g: dict, k: str) -> int:
        """How many of the army-like counters at k may still attack this phase."""
        c = g["land"][k]
        t = g["turn"]
        once, twice = t["attacks"].get(k, [0, 0])
        fresh = c["armies"] + c["monsters"] - once - twice
        return fresh + (once if t["holy_war"] else 0)

    def _o_attack(self, g: dict, player: str) -> list[Order]:
        land = g["land"]
        geo = self._geo(g)
        sanct = self._effect_hexes(g, "sanctuary")
        out: list[Order] = []
        first: list[Order] = []  # all armies, no retreat: the plain attack of each pair
        for src in self._own(g, player):
            avail = self._attackers(g, src)
            if avail <= 0:
                continue
            for dst in geo.nbrs[src]:
                c = land.get(dst)
                if not c or c["owner"] in (None, player) or dst in sanct:
                    continue
                ck = ("attack", src, dst, avail)
                lst = self._oc.get(ck)
                if lst is None:
                    lst = self._oc[ck] = []
                    for n in range(1, avail + 1):
                        for k in range(0, n + 1):
                            opt = set()
                            if n == avail:
                                opt.add(4)
                            if k == 0:
                                opt |= {5, 6}
                            lst.append(Order(("attack", src, "->", dst, str(n), "retreat", str(k)),
                                             ("attack", src, dst, n, k), frozenset(opt)))
                    lst.sort(key=lambda o: o.optional != frozenset({4, 5, 6}))
                first.append(lst[0])
                out += lst[1:]
        return first + out

    def _o_move(self, g: dict, player: str) -> list[Order]:
        land = g["land"]
        geo = self._geo(g)
        arrived = g["turn"]["arrived"]
        out: list[Order] = []
        first: list[Order] = []  # every counter free to go, for each pair of hexes
        for src in self._own(g, player):
            c = land[src]
            came = arrived.get(src, {})
            mp = c["pop"] - came.get("pop", 0)
            ma = c["armies"] - came.get("armies", 0)
            if mp <= 0 and ma <= 0:
                continue
            for dst in geo.nbrs[src]:
                d = land.get(dst)
                if not d or d["blight"] or d["owner"] not in (None, player):
                    continue
                room = self._room(d)
                for kind, most in (("pop", mp), ("armies", ma)):
                    if most > 0 and room > 0:
                        lst = self._series(("move", kind, src, dst), min(most, room),
                                           lambda n, kind=kind, src=src, dst=dst:
                                           Order(("move", str(n), kind, src, "->", dst), ("move", n, kind, src, dst)))
                        first.append(lst[-1])
                        out += lst[:-1]
        return first + out

    def _o_carry(self, g: dict, pend: dict) -> list[Order]:
        land = g["land"]
        s, d = land[pend["src"]], land[pend["dest"]]
        room = self._room(d)
        out = []
        for p in range(s["pop"] + 1):
            for a in range(s["armies"] + 1):
                if 0 < p + a <= room:
                    opt = set()
                    if p == 0:
                        opt |= {1, 2}
                    if a == 0:
                        opt |= {3, 4}
                    out.append(Order(("carry", str(p), "pop", str(a), "armies"), ("carry", p, a), frozenset(opt)))
        if 0 < s["pop"] + s["armies"] <= room:
            out.append(Order(("carry", "all"), ("carry", s["pop"], s["armies"])))
        return out

    # --- standing orders (reactions) -------------------------------------------------------
    def _make_standing(self) -> list[Order]:
        out = []
        for card in self.card_ids + ["any"]:
            tokens, opt = _ctok("abjure", card)
            out.append(Order(tokens, ("abjure", card, False), opt))
            out.append(Order(tokens + ("on", "my", "hexes"), ("abjure", card, True), opt))
            tokens, opt = _ctok("unabjure", card)
            out.append(Order(tokens, ("unabjure", card), opt))
        out.append(Order(("unabjure", "all"), ("unabjure", "all")))
        for n in range(1, 31):
            out.append(Order(("resurrect", str(n)), ("resurrect_at", n)))
        out.append(Order(("resurrect", "off"), ("resurrect_at", 0)))
        return out

    def standing_orders(self, state, player):
        g = state["game"]
        if state["flow"].get("over") or player not in g["players"] or player in g["out"]:
            return []
        if state["flow"]["phase"] == "setup":
            # more hexes for the list of a player who has already named one
            return self._standing_list + self._start_orders(g, player)
        return self._standing_list

    def private_order(self, state, player, order):
        return order.verb == "start"  # a sealed choice

    def _set_standing(self, g: dict, player: str, order: Order) -> list[Event]:
        st = g["standing"][player]
        kind = order.payload[0]
        if kind == "abjure":
            rule = {"card": order.payload[1], "mine": order.payload[2]}
            st["abjure"] = [r for r in st["abjure"] if r["card"] != rule["card"]] + [rule]
        elif kind == "unabjure":
            card = order.payload[1]
            st["abjure"] = [] if card == "all" else [r for r in st["abjure"] if r["card"] != card]
        else:
            st["resurrect"] = order.payload[1]
        return [{"type": "standing", "to": player, "player": player, "order": order.text,
                 "abjure": [dict(r) for r in st["abjure"]], "resurrect": st["resurrect"]}]

    # --- applying an order -----------------------------------------------------------------
    def apply(self, state, player, order, rng):
        g = state["game"]
        kind = order.payload[0]
        if kind in ("abjure", "unabjure", "resurrect_at"):
            return self._set_standing(g, player, order)
        phase = state["flow"]["phase"]
        if phase == "world":
            return self._apply_world(state, player, order, rng)
        if phase == "setup":
            return self._apply_start(state, player, order, rng)
        t = g["turn"]
        if kind != "discard":
            t["orders"] += 1  # orders given this turn (the bot's measure of a turn's length)
        events: list[Event] = []
        if kind == "pass":
            events.append({"type": "pass", "player": player, "step": t["step"]})
            return events + self._end_turn(state, rng)
        if kind == "discard":
            card = order.payload[1]
            g["hands"][player].remove(card)
            g["discard"].append(card)
            events.append({"type": "discard", "player": player, "card": card})
            if len(g["hands"][player]) <= self.r["hand_max"]:
                if t["pending"]:
                    t["pending"] = None
                elif t["step"] == "discard":
                    t["step"] = "temple"
            return events + self._after(state, rng)
        if kind == "carry":
            events += self._carry(g, player, order.payload[1], order.payload[2])
            return events + self._after(state, rng)
        gen = "resurrection" if kind == "play" and order.payload[1] == "resurrection" else kind
        step = KIND_STEP[gen]
        if STEPS.index(step) > STEPS.index(t["step"]):
            events += self._advance_to(state, step, rng)
            still = dict(self._gens(state, player)).get(gen)
            if still is None or not any(o is order or o == order for o in still()):
                events.append({"type": "void", "player": player, "order": order.text,
                               "reason": f"by the {STEP_NAMES[step]} phase it was no longer possible"})
                return events + self._after(state, rng)
        if kind == "temple":
            k = order.payload[1]
            c = g["land"][k]
            c["pop"] -= self.r["temple_population"]
            c["temple"] = True
            events.append({"type": "temple", "player": player, "at": k})
        elif kind == "raise":
            n, k = order.payload[1], order.payload[2]
            c = g["land"][k]
            c["pop"] -= n
            c["armies"] += n
            t["raise_left"][k] = t["raise_left"].get(k, 0) - n
            events.append({"type": "raise", "player": player, "at": k, "count": n})
        elif kind == "disband":
            n, k = order.payload[1], order.payload[2]
            c = g["land"][k]
            c["armies"] -= n
            c["pop"] += n
            events.append({"type": "disband", "player": player, "at": k, "count": n})
        elif kind == "play":
            events += self._play(state, player, order.payload[1], order.payload[2:], rng)
        elif kind == "attack":
            _, src, dst, n, k = order.payload
            events += self._battle(state, player, src, dst, n, k, rng)
        elif kind == "move":
            _, n, what, src, dst = order.payload
            land = g["land"]
            land[src][what] -= n
            land[dst][what] += n
            land[dst]["owner"] = player
            self._fix(land[src])
            came = t["arrived"].setdefault(dst, {"pop": 0, "armies": 0})
            came[what] += n
            events.append({"type": "move", "player": player, "count": n, "what": what, "from": src, "dest": dst})
        else:  # pragma: no cover
            raise ValueError(f"unknown order payload {order.payload!r}")
        return events + self._after(state, rng)

    def _apply_world(self, state: dict, player: str, order: Order, rng: Rng) -> list[Event]:
        g = state["game"]
        w = g["world"]
        if order.payload[0] == "redraw":
            old = w["drawn"]
            g["pile"].append(old)
            w["redraws"][player] -= 1
            events: list[Event] = [{"type": "world_redraw", "player": player, "terrain": old,
                                    "left": w["redraws"][player]}]
            return events + self._world_turn(state, player, rng)
        k = order.payload[1]
        t = w["drawn"]
        g["land"][k] = blank_cell(t)
        w["placed"] += 1
        w["drawn"] = None
        events = [{"type": "world_place", "player": player, "terrain": t, "at": k, "placed": w["placed"]}]
        order_ = g["order"]
        nxt = order_[(order_.index(player) + 1) % len(order_)]
        return events + self._world_turn(state, nxt, rng)

    def _apply_start(self, state: dict, player: str, order: Order, rng: Rng) -> list[Event]:
        """A sealed choice: the hex goes on the player's list (more may follow, as standing
        orders, until the phase is resolved); the places are served in advance()."""
        g = state["game"]
        g["start_choices"][player].append(order.payload[1])
        if player in state["flow"]["active"]:
            state["flow"]["active"].remove(player)
        return [{"type": "start_choice", "to": player, "player": player, "at": order.payload[1],
                 "rank": len(g["start_choices"][player])}]

    def _carry(self, g: dict, player: str, pop: int, armies: int) -> list[Event]:
        pend = g["turn"]["pending"]
        land = g["land"]
        s, d = land[pend["src"]], land[pend["dest"]]
        s["pop"] -= pop
        s["armies"] -= armies
        d["pop"] += pop
        d["armies"] += armies
        d["owner"] = player
        self._fix(s)
        g["turn"]["pending"] = None
        return [{"type": "godspeed", "player": player, "from": pend["src"], "dest": pend["dest"], "pop": pop, "armies": armies}]

    # --- cards -----------------------------------------------------------------------------
    def _area(self, g: dict, card: str, args: tuple) -> list[str]:
        if not args:
            return []
        k = args[0]
        land = g["land"]
        nb = [n for n in self._geo(g).nbrs[k] if n in land]
        if card in AREA_CARDS:
            return [k] + nb
        if card == "hurricane":
            return nb
        return [a for a in args if a in land] if card == "godspeed" else [k]

    def _play(self, state: dict, player: str, card: str, args: tuple, rng: Rng, reaction: bool = False) -> list[Event]:
        g = state["game"]
        g["hands"][player].remove(card)
        g["discard"].append(card)
        ev: Event = {"type": "play", "player": player, "card": card}
        if args:
            ev["at"] = args[0]
        if len(args) > 1:
            ev["dest"] = args[1]
        if reaction:
            ev["standing"] = True
        events: list[Event] = [ev]
        area = self._area(g, card, args)
        if self._negated(state, player, card, area, events):
            return events
        return events + self._effect(state, player, card, args, area, rng)

    def _abjure_matches(self, g: dict, q: str, card: str, area: list[str]) -> bool:
        land = g["land"]
        for rule in g["standing"][q]["abjure"]:
            if rule["card"] not in (card, "any"):
                continue
            if rule["mine"] and not any(land[h]["owner"] == q for h in area if h in land):
                continue
            return True
        return False

    def _negated(self, state: dict, caster: str, card: str, area: list[str], events: list[Event]) -> bool:
        """Ask the players after the caster, in turn order, whether a standing abjure order
        of theirs negates the card (an Abjuration may itself be negated)."""
        g = state["game"]
        for q in self._after_in_order(g, caster):
            if "abjuration" not in g["hands"][q] or not self._abjure_matches(g, q, card, area):
                continue
            g["hands"][q].remove("abjuration")
            g["discard"].append("abjuration")
            events.append({"type": "abjure", "player": q, "card": card, "against": caster})
            if self._negated(state, q, "abjuration", area, events):
                continue
            events.append({"type": "negated", "card": card, "player": caster, "by": q})
            return True
        return False

    def _gain(self, g: dict, k: str, n: int, famine: set) -> int:
        """Population gained at k by a card: none under Famine, never over the maximum."""
        c = g["land"][k]
        if k in famine:
            return 0
        n = max(0, min(n, self._room(c)))
        c["pop"] += n
        return n

    def _effect(self, state: dict, player: str, card: str, args: tuple, area: list[str], rng: Rng) -> list[Event]:
        g = state["game"]
        land = g["land"]
        t = g["turn"]
        k = args[0] if args else None
        famine = self._effect_hexes(g, "famine")
        events: list[Event] = []
        if card in DESTROY_D6:
            roll = rng.die(6)
            events.append({"type": "card_roll", "card": card, "roll": roll})
            events += self._destroy(g, k, roll, card)
        elif card == "crumble":
            events += self._destroy(g, k, 1, card, fields=())
        elif card == "plague":
            roll = rng.die(6)
            events.append({"type": "card_roll", "card": card, "roll": roll})
            events += self._destroy(g, k, max(0, total(land[k]) - roll), card)
        elif card == "chasm":
            c = land[k]
            events += self._destroy(g, k, c["armies"] + c["monsters"], card, fields=("armies", "monsters"), temple=False)
        elif card in LOSE_ONE:
            for h in area:
                if land[h]["pop"] > 0:
                    events += self._destroy(g, h, 1, card, fields=("pop",), temple=False)
            if not any(e["type"] == "destroy" for e in events):
                events.append({"type": "no_effect", "card": card, "why": "no population in the area"})
        elif card == "alter_land":
            new = g["reserve"].pop(rng.randbelow(len(g["reserve"])))
            c = land[k]
            old = c["terrain"]
            g["reserve"].append(old)
            c["terrain"] = new
            events.append({"type": "alter", "at": k, "old": old, "new": new})
            if c["temple"] and not self.terrain[new]["temples"]:
                events += self._destroy(g, k, 1, "alter_land", fields=(), temple=True)
            events += self._cap(g, k, "alter_land")
        elif card == "create_land":
            new = g["reserve"].pop(rng.randbelow(len(g["reserve"])))
            land[k] = blank_cell(new)
            events.append({"type": "create", "at": k, "new": new})
        elif card == "destroy_land":
            old = land.pop(k)["terrain"]
            g["removed"].append(old)
            for e in g["effects"]:
                if k in e["hexes"]:
                    e["hexes"].remove(k)
            events.append({"type": "sink", "at": k, "old": old})
        elif card == "sacrifice":
            c = land[k]
            c["pop"] -= 3
            self._fix(c)
            events.append({"type": "sacrifice", "player": player, "at": k, "pop": 3})
            events += self._draw(g, player, 2, rng)
            if len(g["hands"][player]) > self.r["hand_max"]:
                t["pending"] = {"kind": "discard"}
        elif card == "prophet":
            gained = {h: self._gain(g, h, 1, famine) for h in area if land[h]["pop"] > 0}
            events.append({"type": "gain", "card": card, "hexes": {h: n for h, n in gained.items() if n},
                           "famine": [h for h in gained if h in famine]})
        elif card == "holy_war":
            t["holy_war"] = True
            events.append({"type": "holy_war", "player": player})
        elif card in ("famine", "sanctuary"):
            g["effects"].append({"card": card, "hexes": list(area), "by": player})
            events.append({"type": "effect", "card": card, "hexes": list(area), "by": player})
        elif card == "fertility":
            n = self._gain(g, k, land[k]["pop"], famine)
            events.append({"type": "gain", "card": card, "hexes": {k: n} if n else {}, "famine": [k] if k in famine else []})
        elif card == "repopulate":
            if k in famine:
                events.append({"type": "gain", "card": card, "hexes": {}, "famine": [k]})
            else:
                roll = rng.die(6)
                events.append({"type": "card_roll", "card": card, "roll": roll})
                n = self._gain(g, k, roll, famine)
                events.append({"type": "gain", "card": card, "hexes": {k: n} if n else {}, "famine": []})
        elif card == "monsters":
            roll = rng.die(self.r["monsters_die"])
            c = land[k]
            c["owner"] = player
            c["monsters"] = min(roll, self._max(c))
            events.append({"type": "monsters", "player": player, "at": k, "roll": roll, "count": c["monsters"]})
        elif card == "blight":
            land[k]["blight"] = player
            events.append({"type": "blight", "player": player, "at": k})
        elif card == "godspeed":
            t["pending"] = {"kind": "carry", "src": args[0], "dest": args[1]}
        elif card == "resurrection":
            events += self._resurrect(g, k)
        else:  # pragma: no cover
            raise ValueError(f"no effect for card {card}")
        return events

    def _resurrect(self, g: dict, k: str) -> list[Event]:
        whose = self._restorable(g, k)
        if whose is None:
            return [{"type": "no_effect", "card": "resurrection", "why": f"nothing to bring back at {k}"}]
        rec = g["turn"]["destroyed"][k].pop(whose)
        c = g["land"][k]
        c["owner"] = whose
        back = {f: rec[f] for f in FIELDS}
        for f in FIELDS:
            c[f] += rec[f]
        temple_back = 0
        if rec["temple"] and not c["temple"] and self._temple_ok(g, k):
            c["temple"] = True
            temple_back = 1
        events: list[Event] = [{"type": "resurrect", "at": k, "owner": whose, **back, "temple": temple_back,
                                "temple_lost": rec["temple"] - temple_back}]
        return events + self._cap(g, k, "resurrection")

    def _standing_resurrections(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        cur = g["turn"]["player"]
        events: list[Event] = []
        for q in self._after_in_order(g, cur):
            least = g["standing"][q]["resurrect"]
            while least and "resurrection" in g["hands"][q] and q not in g["out"]:
                best, most = None, 0
                for k in self._land_keys(g):
                    rec = g["turn"]["destroyed"].get(k, {}).get(q)
                    if rec and self._restorable(g, k) == q and sum(rec.values()) >= max(least, most + 1):
                        best, most = k, sum(rec.values())
                if best is None:
                    break
                events += self._play(state, q, "resurrection", (best,), rng, reaction=True)
        return events

    # --- battle ----------------------------------------------------------------------------
    def _battle(self, state: dict, p: str, src: str, dst: str, n: int, k: int, rng: Rng) -> list[Event]:
        g = state["game"]
        t = g["turn"]
        land = g["land"]
        a, d = land[src], land[dst]
        defender = d["owner"]
        used = t["attacks"].setdefault(src, [0, 0])  # attacked once (and alive), attacked twice
        fresh = a["armies"] + a["monsters"] - used[0] - used[1]
        nf = min(n, fresh)
        no = n - nf
        fa = min(n, a["armies"])
        fm = n - fa
        saves = self.terrain[d["terrain"]]["defence"]
        events: list[Event] = [{"type": "battle", "player": p, "from": src, "at": dst, "defender": defender,
                                "attackers": n, "retreat": k, "terrain": d["terrain"], "second": no > 0}]
        rnd = 0
        while True:
            rnd += 1
            adice = rng.dice(self.r["attack_dice"] * (fa + fm))
            dn = self.r["defence_dice"] * (d["armies"] + d["monsters"]) + -(-d["pop"] // self.r["population_per_die"])
            ddice = rng.dice(dn) if dn else []
            hits = adice.count(1)
            saved = min(hits, saves)
            hits -= saved
            back = ddice.count(1)
            lost_d = self._destroy(g, dst, hits, "battle")[0] if hits else None
            la = min(back, fa)
            lm = min(back - la, fm)
            fa -= la
            fm -= lm
            a["armies"] -= la
            a["monsters"] -= lm
            self._record(g, src, p, {"armies": la, "monsters": lm, "pop": 0, "temple": 0})
            events.append({
                "type": "battle_round", "round": rnd, "attacker_dice": adice, "defender_dice": ddice,
                "attacker_hits": hits + saved, "mountain_saved": saved, "defender_hits": back,
                "defender_lost": {f: lost_d[f] for f in ("armies", "monsters", "pop", "temple")} if lost_d else _none_lost(),
                "attackers_lost": la + lm, "attackers_left": fa + fm, "defenders_left": total(d),
            })
            if total(d) == 0 or fa + fm == 0:
                result = "both" if total(d) == 0 and fa + fm == 0 else ("defenders" if total(d) == 0 else "attackers")
                break
            if k and fa + fm <= k:
                result = "retreat"
                break
            if rnd >= self.r["battle_round_cap"]:
                result = "cap"
                break
        self._fix(a)
        dead = n - (fa + fm)
        dead_o = min(dead, no)
        dead_f = dead - dead_o
        used[0] = used[0] - no + (nf - dead_f)
        used[1] += no - dead_o
        events.append({"type": "battle_end", "player": p, "from": src, "at": dst, "defender": defender,
                       "result": result, "rounds": rnd, "attackers_left": fa + fm, "defenders_left": total(d)})
        return events

    # --- defaults, reasons, bots -----------------------------------------------------------
    def default_order(self, state, player):
        g = state["game"]
        phase = state["flow"]["phase"]
        if phase == "world":
            spots = self._spots(g, g["world"]["drawn"])
            geo = self._geo(g)
            mid = geo.cells[(geo.size // 2) * geo.size + geo.size // 2]
            k = min(spots, key=lambda s: (self._dist(g, s, mid), geo.rank[s]))
            return self._cached(("put", k), ("put", k))
        if phase == "setup":
            k = self._start_orders(g, player)[0].payload[1]
            return self._cached(("start", k), ("start", k))
        t = g["turn"]
        if t["pending"] and t["pending"]["kind"] == "carry":
            return max(self._o_carry(g, t["pending"]), key=lambda o: (o.payload[1] + o.payload[2], o.payload[2]))
        if t["step"] == "discard" or t["pending"]:
            return self._card_order("discard", g["hands"][player][-1])
        return PASS

    def why_illegal(self, state, player, typed):
        g = state["game"]
        flow = state["flow"]
        verb = typed[0]
        if flow.get("over"):
            return "the game is over"
        if player in g["out"]:
            return "you are out of the game"
        phase = flow["phase"]
        if player not in flow["active"] and not (phase == "setup" and verb == "start"):
            return "it is not your turn"
        hexes = [tok for tok in typed[1:] if "," in tok]
        nums = [int(tok) for tok in typed[1:] if tok.isdigit()]
        land = g["land"]
        geo = self._geo(g)
        if phase == "world":
            if verb == "redraw":
                return "you have no redraws left" if g["world"]["redraws"][player] <= 0 else "the pile holds no other counter"
            if verb == "put" and hexes:
                k = hexes[0]
                if k not in geo.onmap:
                    return f"{k} is not on the map"
                if k in land:
                    return f"{k} already holds a {self.terrain[land[k]['terrain']]['name']} counter"
                if land and not any(n in land for n in geo.nbrs[k]):
                    return f"{k} is not next to a counter already placed"
                return "a river valley must keep one side on the water (and no counter may close a river valley in)"
            return "the world is being built: `put Q,R` or `redraw`"
        if phase == "setup":
            if verb == "start" and hexes:
                k = hexes[0]
                c = land.get(k)
                if c is None:
                    return f"{k} is not land" if k in geo.onmap else f"{k} is not on the map"
                if c["terrain"] != "plains":
                    return f"{k} is {self.terrain[c['terrain']]['name']}, not plains"
                if total(c):
                    return f"{k} is taken"
                return f"{k} is already on your list"
            return "set-up: `start Q,R` (a plains hex)"
        t = g["turn"]
        if t["pending"]:
            if t["pending"]["kind"] == "discard":
                return f"you hold {len(g['hands'][player])} cards: discard down to {self.r['hand_max']} first"
            if verb == "carry":
                pd = t["pending"]
                return (f"{pd['dest']} has room for {self._room(land[pd['dest']])} more counters; "
                        f"{pd['src']} holds {land[pd['src']]['pop']} population and {land[pd['src']]['armies']} armies")
            return "finish the Godspeed first: `carry N pop M armies` or `carry all`"
        if t["step"] == "discard" and verb != "discard":
            return f"you hold {len(g['hands'][player])} cards: discard down to {self.r['hand_max']} first"
        if verb == "discard":
            return "you may discard only when your hand holds more than 7 cards"
        if verb in ("put", "redraw", "start"):
            return "the world and the set-up are done"
        if verb == "carry":
            return "there is no Godspeed to carry out"
        step = KIND_STEP.get(verb)
        if verb == "play" and len(typed) > 1 and typed[1].startswith("res"):
            step = "battle_end"
        if step and STEPS.index(step) < STEPS.index(t["step"]):
            return (f"the {STEP_NAMES[step]} phase is over (now: {STEP_NAMES[t['step']]}); "
                    "orders must follow the turn sequence")
        k = hexes[0] if hexes else None
        c = land.get(k) if k else None
        if k and k not in geo.onmap:
            return f"{k} is not on the map"
        if verb in ("temple", "raise", "disband", "attack") and k:
            if c is None:
                return f"{k} is water"
            if c["owner"] != player:
                return f"{k} is not yours"
        if verb == "temple" and c:
            if c["temple"]:
                return f"{k} already has a temple"
            if not self.terrain[c["terrain"]]["temples"]:
                return f"temples cannot be built in {self.terrain[c['terrain']]['name']}"
            if any(n in land and land[n]["temple"] for n in geo.nbrs[k]):
                return f"{k} is next to a temple"
            if c["pop"] < self.r["temple_population"]:
                return f"a temple needs {self.r['temple_population']} population; {k} has {c['pop']}"
        if verb == "raise" and c and nums:
            left = self._raise_limits(g, player).get(k, 0)
            return f"at most half the population of {k} may be raised this phase: {left} more"
        if verb == "disband" and c and nums:
            return f"{k} has {c['armies']} armies"
        if verb == "attack" and len(hexes) >= 2:
            dst = hexes[1]
            d = land.get(dst)
            if dst not in geo.nbrs.get(k, ()):
                return f"{dst} is not next to {k}"
            if d is None or d["owner"] is None:
                return f"{dst} holds no enemy counters"
            if d["owner"] == player:
                return f"{dst} is your own"
            if dst in self._effect_hexes(g, "sanctuary"):
                return f"{dst} is a sanctuary this turn"
            return f"{k} has {self._attackers(g, k)} armies that may still attack"
        if verb == "move" and len(typed) > 2 and typed[2] not in ("pop", "armies") and (
                typed[2].startswith("temple") or typed[2].startswith("monster")):
            return "temples and monsters never move; move `pop` or `armies`"
        if verb == "move" and len(hexes) >= 2:
            src, dst = hexes[0], hexes[1]
            s, d = land.get(src), land.get(dst)
            if s is None or s["owner"] != player:
                return f"{src} is not yours"
            if dst not in geo.nbrs.get(src, ()):
                return f"{dst} is not next to {src}: counters move one hex"
            if d is None:
                return f"{dst} is water"
            if d["blight"]:
                return f"{dst} is blighted: no counters may enter"
            if d["owner"] not in (None, player):
                return f"{dst} belongs to {d['owner']}: take it in battle first"
            came = t["arrived"].get(src, {})
            return (f"{src} has {s['pop'] - came.get('pop', 0)} population and {s['armies'] - came.get('armies', 0)} armies "
                    f"free to move; {dst} has room for {self._room(d)}")
        if verb == "play" and len(typed) > 1:
            card = next((c_ for c_ in self.card_ids if c_.startswith(typed[1]) or c_.split("_")[0].startswith(typed[1])), None)
            if card is None:
                return f"there is no card '{typed[1]}'"
            if card not in g["hands"][player]:
                return f"you hold no {self.cards[card]['name']} card"
            if card == "abjuration":
                return "Abjuration is a reaction: set it as a standing order, e.g. `abjure earthquake on my hexes`"
            if card in ("alter_land", "create_land") and not g["reserve"]:
                return "the terrain reserve is empty"
            if card == "godspeed" and len(hexes) >= 2 and hexes[0] in land and hexes[1] in geo.onmap:
                src, dst = hexes[0], hexes[1]
                far = self._dist(g, src, dst)
                d = land.get(dst)
                if land[src]["owner"] != player:
                    return f"{src} is not yours"
                if far > self.r["godspeed_range"]:
                    return f"{dst} is {far} hexes from {src}; Godspeed reaches {self.r['godspeed_range']}"
                if d is None:
                    return f"{dst} is water"
                if d["blight"]:
                    return f"{dst} is blighted: no counters may enter"
                if d["owner"] not in (None, player):
                    return f"{dst} belongs to {d['owner']}"
                if self._room(d) <= 0:
                    return f"{dst} is full"
            if k:
                return f"{self.cards[card]['name']} cannot target {k}: {self.cards[card]['text'].lower()}"
        return None

    # The bot: a random player that goes through its turn in order, builds, grows and fights.
    TRY = {"temple": 0.9, "raise": 0.5, "disband": 0.02, "play": 0.7, "attack": 0.95, "resurrection": 0.9,
           "move": 0.8}
    HARM = {"earthquake", "crumble", "tidal_wave", "volcanic_eruption", "flood", "fire", "famine", "plague",
            "chasm", "draught", "pestilence", "hurricane"}
    BOON = {"prophet", "fertility", "repopulate", "sanctuary", "sacrifice"}

    def _bot_decide(self, state: dict, player: str, gens: list[tuple[str, object]], rng) -> Order | None:
        """Try the kinds in turn order, each with its own chance; pass when none is taken."""
        if state["flow"]["phase"] != "turn" or len(gens) == 1:
            orders = [o for _, gen in gens for o in gen()]
            redraw = [o for o in orders if o.verb == "redraw"]
            if redraw and rng.random() < 0.05:
                return redraw[0]
            rest = [o for o in orders if o.verb != "redraw"]
            return rng.choice(rest or orders) if orders else None
        g = state["game"]
        keep_going = 0.9 ** g["turn"]["orders"]
        for kind, gen in gens:
            if kind == "pass" or rng.random() > self.TRY.get(kind, 0.5) * keep_going:
                continue
            orders = gen()
            if orders:
                pick = self._bot_pick(state, player, kind, orders, rng)
                if pick is not None:
                    return pick
        return PASS

    def _enemy_dist(self, g: dict, player: str):
        """A hex's distance to the nearest enemy counter (99 if there is none)."""
        geo = self._geo(g)
        enemy = [k for k, c in g["land"].items() if c["owner"] not in (None, player)]
        memo: dict = {}

        def near(k: str) -> int:
            if k not in memo:
                row = geo.dist[k]
                memo[k] = min((row[e] for e in enemy), default=99)
            return memo[k]
        return near

    def _bot_pick(self, state: dict, player: str, kind: str, orders: list[Order], rng) -> Order | None:
        g = state["game"]
        land = g["land"]
        if kind == "raise":
            near = self._enemy_dist(g, player)
            front = [o for o in orders if near(o.payload[2]) <= 4]
            if not front:
                return None
            best = max(o.payload[1] for o in front)
            return rng.choice([o for o in front if o.payload[1] == best])
        if kind == "attack":
            def odds(o):
                d = land[o.payload[2]]
                dn = 2 * (d["armies"] + d["monsters"]) + (d["pop"] + 1) // 2
                return 2 * o.payload[3] - dn
            full = [o for o in orders if 4 in o.optional]
            good = [o for o in full if odds(o) >= -1]
            if good:
                return rng.choice(good)
            return rng.choice(full) if full and rng.random() < 0.2 else None
        if kind == "play":
            def fit(o):
                if len(o.payload) < 3 or o.payload[2] not in land:
                    return 0
                owner = land[o.payload[2]]["owner"]
                if o.payload[1] in self.HARM:
                    return 1 if owner not in (None, player) else -1
                if o.payload[1] in self.BOON:
                    return 1 if owner == player else -1
                return 0
            best = max(fit(o) for o in orders)
            return rng.choice([o for o in orders if fit(o) == best])
        if kind == "move":
            armies = [o for o in orders if o.payload[2] == "armies"]
            if armies and rng.random() < 0.7:
                near = self._enemy_dist(g, player)
                step = min(near(o.payload[4]) - near(o.payload[3]) for o in armies)
                if step < 0:
                    best = [o for o in armies if near(o.payload[4]) - near(o.payload[3]) == step]
                    most = max(o.payload[1] for o in best)
                    return rng.choice([o for o in best if o.payload[1] == most])
            spread = [o for o in orders if o.payload[2] == "pop" and land[o.payload[4]]["owner"] is None
                      and o.payload[1] * 2 >= land[o.payload[3]]["pop"] - 1]
            if spread:
                return rng.choice(spread)
            return rng.choice(orders) if rng.random() < 0.3 else None
        return rng.choice(orders)

    def bot_choice(self, state, player, legal, rng):
        by_kind: dict[str, list[Order]] = {}
        for o in legal:
            kd = "resurrection" if o.verb == "play" and o.payload[1] == "resurrection" else o.verb
            by_kind.setdefault(kd, []).append(o)
        gens = [(kd, (lambda v=v: v)) for kd, v in by_kind.items()]
        pick = self._bot_decide(state, player, gens, rng)
        return pick if pick is not None and pick in legal else rng.choice(legal)

    def bot_fast(self, state: dict, player: str, rng) -> Order | None:
        """bot_choice without listing every legal order first: the kinds are asked for
        their orders one by one (each a part of legal_orders)."""
        return self._bot_decide(state, player, self._gens(state, player), rng)

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
        onmap = self._geo(state["game"]).onmap
        for k, c in state["game"]["land"].items():
            if k not in onmap:
                raise DataError(f"deity: land hex {k} is not on the {state['game']['size']}x{state['game']['size']} map")
            if len(c) < 7:
                for f, v in blank_cell(c.get("terrain", "plains")).items():
                    c.setdefault(f, v)
        if state["flow"]["phase"] == "setup" and not state["flow"]["active"] and not state["flow"].get("over"):
            return self._serve_starts(state, rng)
        return []

    # --- views, scores ---------------------------------------------------------------------
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
        geo = self._geo(g)
        keys = self._land_keys(g)
        t = g["turn"]
        public = {
            "phase": flow["phase"],
            "size": g["size"],
            "world_mode": g["world_mode"],
            "round": g["round"],
            "round_limit": g["round_limit"],
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
                 "max": self._max(land[k]), "owner": land[k]["owner"], "pop": land[k]["pop"],
                 "armies": land[k]["armies"], "monsters": land[k]["monsters"], "temple": land[k]["temple"],
                 "blight": land[k]["blight"], "coastal": self._coastal(g, k)}
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
        if player is not None and player in g["players"]:
            public["you"] = player
            public["hand"] = [{"id": c, "name": self.cards[c]["name"], "text": self.cards[c]["text"]}
                              for c in g["hands"][player]]
            st = g["standing"][player]
            public["standing"] = {"abjure": [dict(r, name=("any card" if r["card"] == "any" else self.cards[r["card"]]["name"]))
                                             for r in st["abjure"]],
                                  "resurrect": st["resurrect"]}
        return public


RULES = DeityRules
