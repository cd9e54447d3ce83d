"""GODS (Michael Schacht): rules text in shared/rules/gods.md, data in data.toml beside this.

Pure: state in, state and events out. The shape every game module has:
game info constant, the Rules class (set-up, legal orders, apply, views, scores), registration.

Where each section of the rules text (shared/rules/gods.md) is implemented (methods of GodsRules
unless named otherwise; `apply "x"` is the branch of apply for the order x):
  Components                  data.toml; _validate (72 hex cards, 4 god colours x 6 temples, set-ups);
                              setup builds the pile and gives each god the 6 temples of their
                              colour (the sets of absent colours leave the game)
  Game concept                (the whole module)
  Preparation                 setup (start player: option `start`; 2 crystals each; the set-up
                              cards by number of players; the game end card among the bottom 3),
                              _card_on_board
  Course of the game          clockwise: turn_order in _end_action
    1) Gather strength        _begin_turn
    2) Lay out cards          _begin_turn (turning up the game end card: _finish)
    3) Two actions            legal_orders, why_illegal, apply, _end_action; paying: _pay
    4) Next player            _end_action
  The actions in detail
    a) Place a tribe          legal_orders, apply "tribe", _tribe_religion (the four cases),
                              _adjacent_cards, _frontier_cards
    b) Place a temple         legal_orders, apply "temple", _convert
    c) Play other hex cards   Wasteland: apply "wasteland", _gain; Whirlwind: apply "whirlwind";
                              Extra action: apply "keep"
    d) Take an extra action   apply "extra" (no action counted: _end_action(counts=False))
    e) Reposition wasteland   legal_orders (where it may go), apply "move"
    f) Discard a card         apply "discard"; default_order (discards for a silent player)
    (not in the text)         `pass`, only with an empty display: legal_orders, apply "pass"
  Found a nation              _check_nations (after every action, from _end_action)
  Game end                    the game end card: _begin_turn; nations of 3 colours or 4 nation
                              cards: _may_end, apply "endgame"; the count and the temple
                              penalty: scores; the winner, ties by crystals: _finish
  Note                        no card on another: legal_orders, why_illegal; out of markers:
                              apply "tribe", _convert; out of temples (a god's own 6):
                              legal_orders, why_illegal; out of
                              victory point cards: _check_nations
  Tactics                     (advice: nothing to implement)
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence

from pbem.core.engine import Event, GameInfo, Rules
from pbem.core.errors import DataError
from pbem.core.flow import Clockwise
from pbem.core.hexgrid import NEIGHBOURS, key, neighbours, parse_key
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng
from pbem.core.words import plural

GAME_INFO = GameInfo(
    name="gods",
    title="GODS",
    min_players=2,
    max_players=4,
    options={"start": "who starts: 'seat' (the first --player, default) or 'random'"},
)

GRAMMAR = Grammar(
    verbs={
        "tribe": ("word? hex", "place a tribe from the display at q,r (name its colour if the display holds two colours); costs 1 crystal per adjacent card"),
        "temple": ("hex", "place one of your temples at q,r (each god has 6); costs 3 crystals per adjacent card; converts every adjacent tribe"),
        "wasteland": ("hex", "place a wasteland from the display at q,r; gains 1 crystal"),
        "whirlwind": ("hex -> hex", "take the whirlwind from the display and move a wasteland from q,r to q,r; free"),
        "move": ("hex -> hex", "reposition a wasteland from q,r to q,r; costs 2 crystals"),
        "keep": ("word?", "take the extra action card from the display and keep it for later; free"),
        "extra": ("", "play a kept extra action card: one more action this turn (not an action itself)"),
        "discard": ("word word?", "discard a card from the display, e.g. `discard green tribe` (`tribe` may be left out) or `discard wasteland`"),
        "endgame": ("", "end the game now (needs nations of 3 colours, or 4 nation cards)"),
        "pass": ("", "forfeit an action (only when the display is empty)"),
    },
    aliases={"->": "->", "to": "->", "waste": "wasteland", "gray": "grey", "violet": "purple"},
    usage_of={  # as ORDERS.md writes them (what a player is shown for a line that cannot be read)
        "tribe": ("tribe [COLOUR] Q,R",), "temple": ("temple Q,R",), "wasteland": ("wasteland Q,R",),
        "whirlwind": ("whirlwind Q,R -> Q,R",), "move": ("move Q,R -> Q,R",), "keep": ("keep [extra]",),
        "discard": ("discard CARD", "discard green tribe", "discard wasteland"),
    },
)


def _validate(data: dict) -> dict:
    try:
        comp, rules, deck = data["components"], data["rules"], data["deck"]
        colours = rules["tribe_colours"]
        if len(set(colours)) != len(colours) or not colours:
            raise DataError("gods: tribe_colours must be distinct")
        if len(rules["god_colours"]) < data["max_players"]:
            raise DataError("gods: too few god colours for max_players")
        draw = deck["tribes_per_colour"] * len(colours) + deck["wasteland"] + deck["extra"] + deck["whirlwind"] + deck["gameend"]
        temples = comp["temples_per_god"] * len(rules["god_colours"])
        if temples != comp["temples"]:
            raise DataError(f"gods: {len(rules['god_colours'])} god colours x {comp['temples_per_god']} temples make {temples}, not {comp['temples']}")
        if draw + temples != 72:
            raise DataError(f"gods: the hex cards must number 72, not {draw + temples}")
        for n in range(data["min_players"], data["max_players"] + 1):
            cells = [parse_key(c["at"]) for c in data["setup"][str(n)]]
            if len(set(cells)) != len(cells):
                raise DataError(f"gods: set-up for {n} places two cards on one cell")
    except KeyError as err:
        raise DataError(f"gods: data.toml lacks {err}") from err
    return data


def card_name(card: str) -> str:
    """'tribe:green' -> 'green tribe'; others as they are."""
    if card.startswith("tribe:"):
        return f"{card[6:]} tribe"
    return {"extra": "extra action", "gameend": "game end"}.get(card, card)


def article(word: str) -> str:
    """'a' or 'an' before a word (the card and colour names: 'an orange tribe', 'a wasteland')."""
    return "an" if word and word[0].lower() in "aeiou" else "a"



_FRONTIERS: dict[frozenset, list] = {}  # occupied cells -> [GodsRules._frontier_list, adjoining, counts]
_ORDER: dict[str, tuple[int, int]] = {}  # a cell's key -> (r, q): the legal list's order of frontier cells


def _rq(k: str) -> tuple[int, int]:
    found = _ORDER.get(k)
    if found is None:
        if len(_ORDER) >= 1 << 16:
            _ORDER.clear()
        q, r = parse_key(k)
        found = _ORDER[k] = (r, q)
    return found


@functools.lru_cache(maxsize=1 << 16)
def _around(k: str) -> tuple[tuple[tuple[int, int], str], ...]:
    """The six neighbours of the cell `k`, each as (q, r) and as its key."""
    q, r = parse_key(k)
    return tuple(((q + dq, r + dr), key(q + dq, r + dr)) for dq, dr in NEIGHBOURS)


@functools.lru_cache(maxsize=1 << 16)
def _relocation(verb: str, src: str, dst: str) -> Order:
    """`move`/`whirlwind SRC -> DST`; Orders are immutable, so each is built once (issue 17)."""
    return Order((verb, src, "->", dst), (verb, src, dst))


@functools.lru_cache(maxsize=1 << 16)
def _placement(verb: str, cell: str, colour: str | None = None) -> Order:
    """`tribe COLOUR CELL` (the colour may be left out), `temple CELL`, `wasteland CELL`."""
    if colour is not None:
        return Order((verb, colour, cell), (verb, colour, cell), frozenset({1}))
    return Order((verb, cell), (verb, cell))

@functools.lru_cache(maxsize=1 << 16)
def _placement_text(verb: str, cell: str, colour: str | None = None) -> str:
    """The text of _placement(verb, cell, colour), kept (the order form lists some thirty a turn)."""
    return _placement(verb, cell, colour).text


@functools.lru_cache(maxsize=1 << 16)
def _relocation_text(verb: str, src: str, dst: str) -> str:
    return _relocation(verb, src, dst).text


class _LegalList(Sequence):
    """GodsRules.legal_orders as a sequence (same length, same order at every index) whose
    wasteland moves (wastelands x frontier cells) are counted, not built."""

    def __init__(self, rules: "GodsRules", state: dict, player: str):
        g = state["game"]
        display = g["display"]
        money = g["crystals"][player]
        board = g["board"]
        self.frontier, by_adjoined, single = rules._frontier_counts(board)
        # the placements come first: per frontier cell, its tribes, temple and wasteland;
        # counted from how many frontier cells adjoin each number of cards (issue 17)
        self.colours = sorted({c[6:] for c in display if c.startswith("tribe:")})
        self.tribe_cost, self.temple_cost = rules.r["tribe_cost_per_neighbour"], rules.r["temple_cost_per_neighbour"]
        self.money = money
        self.temples, self.waste = g["temples_left"][player] > 0, "wasteland" in display
        self.head = sum(n * (len(self.colours) * (adj * self.tribe_cost <= money)
                             + (self.temples and adj * self.temple_cost <= money) + self.waste)
                        for adj, n in enumerate(by_adjoined))
        self.tail = list(rules._legal(state, player, "pass"))
        wastes = sorted((k for k, c in board.items() if c["kind"] == "wasteland"), key=_rq)
        self.verbs = [v for v, ok in (("whirlwind", "whirlwind" in display), ("move", money >= rules.r["reposition_cost"])) if ok]
        self.moves = [(src, (len(self.frontier) - single.get(src, 0)) * len(self.verbs)) for src in wastes] if self.verbs else []
        self.size = self.head + sum(n for _, n in self.moves) + len(self.tail)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.size))]
        if i < 0:
            i += self.size
        if not 0 <= i < self.size:
            raise IndexError(i)
        if i < self.head:
            for k, adj, _ in self.frontier:
                here = [("tribe", c) for c in self.colours] if adj * self.tribe_cost <= self.money else []
                if self.temples and adj * self.temple_cost <= self.money:
                    here.append(("temple", None))
                if self.waste:
                    here.append(("wasteland", None))
                if i < len(here):
                    return _placement(here[i][0], k, here[i][1])
                i -= len(here)
        i -= self.head
        for src, n in self.moves:
            if i < n:
                pos, which = divmod(i, len(self.verbs))
                for dst, adj, cards in self.frontier:
                    if adj == 1 and src in cards:
                        continue
                    if pos == 0:
                        return _relocation(self.verbs[which], src, dst)
                    pos -= 1
            i -= n
        return self.tail[i]


class GodsRules(Rules):
    info = GAME_INFO
    grammar = GRAMMAR

    def __init__(self, data: dict):
        super().__init__(_validate(data))
        self.r = data["rules"]
        self.c = data["components"]
        self.colours = self.r["tribe_colours"]
        self.turn_order = Clockwise()

    # --- set-up ------------------------------------------------------------------------
    def setup(self, players, options, rng: Rng):
        n = len(players)
        unknown = set(options) - set(self.info.options)
        if unknown:
            raise DataError(f"gods: unknown option(s) {', '.join(sorted(unknown))}; known: start")
        if options.get("start", "seat") not in ("seat", "random"):
            raise DataError("gods: option start must be 'seat' or 'random'")
        deck_spec = self.data["deck"]
        pile = [f"tribe:{c}" for c in self.colours for _ in range(deck_spec["tribes_per_colour"])]
        pile += ["wasteland"] * deck_spec["wasteland"] + ["extra"] * deck_spec["extra"] + ["whirlwind"] * deck_spec["whirlwind"]
        board: dict[str, dict] = {}
        for entry in self.data["setup"][str(n)]:
            card = entry["card"]
            pile.remove(card)
            board[key(*parse_key(entry["at"]))] = self._card_on_board(card, None)
        per_god = self.c["temples_per_god"]
        events: list[Event] = [{"type": "setup", "cards": len(board), "temples_each": per_god,
                                "temples_out": self.c["temples"] - per_god * n}]
        rng.shuffle(pile)
        bottom = self.r["game_end_in_bottom"]
        tail = pile[len(pile) - (bottom - 1):]
        pile = pile[: len(pile) - (bottom - 1)]
        tail.append("gameend")
        rng.shuffle(tail)
        pile += tail
        events.append({"type": "shuffle", "what": "draw pile", "cards": len(pile), "note": f"the game end card is among the bottom {bottom}"})
        start_crystals = self.r["start_crystals"]
        first = 0
        if options.get("start") == "random":
            first = rng.randbelow(n)
            events.append({"type": "roll", "what": "start player", "result": players[first]})
        game = {
            "players": list(players),
            "colour": {p: self.r["god_colours"][i] for i, p in enumerate(players)},
            "board": board,
            "deck": pile,
            "display": [],
            "discard": [],
            "temples_left": {p: self.c["temples_per_god"] for p in players},  # each god's own set
            "stock": self.c["crystals"] - start_crystals * n,
            "crystals": {p: start_crystals for p in players},
            "markers": {p: self.r["markers_per_god"] for p in players},
            "extra_cards": {p: 0 for p in players},
            "temples_built": {p: 0 for p in players},
            "nations": {p: {} for p in players},
            "vp_cards": {p: {} for p in players},
            "nation_stock": {c: self.c["nation_cards_per_colour"] for c in self.colours},
            "vp_stock": {c: self.c["vp_cards_per_colour"] for c in self.colours},
            "turn": {"player": players[first], "actions_left": 0, "number": 0},
            "gameend_revealed": False,
        }
        state = {"flow": {"phase": "turn", "active": [], "sealed": False, "over": False}, "game": game}
        events += self._begin_turn(state, players[first])
        return state, events

    @staticmethod
    def _card_on_board(card: str, god: str | None) -> dict:
        if card.startswith("tribe:"):
            return {"kind": "tribe", "colour": card[6:], "god": god}
        if card == "temple":
            return {"kind": "temple", "god": god}
        return {"kind": card}

    # --- turn flow -----------------------------------------------------------------------
    def _begin_turn(self, state: dict, player: str) -> list[Event]:
        g = state["game"]
        events: list[Event] = []
        g["turn"] = {"player": player, "actions_left": self.r["actions"], "number": g["turn"]["number"] + 1}
        state["flow"].update(active=[player], prompt=f"{player}: take two actions")
        # 1) Gather strength: take 3 crystals; no more than 12, excess forfeited.
        take = min(self.r["gather"], g["stock"])
        g["stock"] -= take
        have = g["crystals"][player] + take
        excess = max(0, have - self.r["crystal_cap"])
        g["crystals"][player] = have - excess
        g["stock"] += excess
        events.append({"type": "gather", "player": player, "took": take - excess, "forfeited": excess, "crystals": g["crystals"][player]})
        # 2) Lay out cards: make the display up to 2. The game end card ends the game at once.
        while len(g["display"]) < self.r["display_size"] and g["deck"]:
            card = g["deck"].pop(0)
            if card == "gameend":
                g["gameend_revealed"] = True
                g["discard"].append(card)
                events.append({"type": "reveal", "card": "gameend"})
                events += self._finish(state, reason="the game end card was turned over")
                return events
            g["display"].append(card)
            events.append({"type": "reveal", "card": card})
        return events

    def _end_action(self, state: dict, player: str, counts: bool = True) -> list[Event]:
        g = state["game"]
        events = self._check_nations(state)
        if counts:
            g["turn"]["actions_left"] -= 1
        if g["turn"]["actions_left"] <= 0 and not state["flow"]["over"]:
            nxt = self.turn_order.next(g["players"], player)
            events.append({"type": "turn_over", "player": player, "next": nxt})
            events += self._begin_turn(state, nxt)
        return events

    def _finish(self, state: dict, reason: str) -> list[Event]:
        g = state["game"]
        scores = self.scores(state)
        best = max((scores[p], g["crystals"][p]) for p in g["players"])
        winners = [p for p in g["players"] if (scores[p], g["crystals"][p]) == best]
        most = max(g["temples_built"].values())
        penalised = [p for p in g["players"] if most > 0 and g["temples_built"][p] == most]
        state["flow"].update(over=True, active=[], prompt="")
        state["flow"]["outcome"] = {"winners": winners, "scores": scores, "reason": reason, "temple_penalty": penalised, "crystals": dict(g["crystals"])}
        return [{"type": "game_over", "reason": reason, "winners": winners, "scores": scores, "temple_penalty": penalised}]

    # --- geometry and costs --------------------------------------------------------------
    @staticmethod
    def _adjacent_cards(board: dict, cell: tuple[int, int]) -> list[str]:
        return [key(*n) for n in neighbours(*cell) if key(*n) in board]

    def _frontier(self, board: dict) -> list[tuple[int, int]]:
        return sorted(self._frontier_cards(board), key=lambda c: (c[1], c[0]))

    def _frontier_list(self, board: dict) -> list[tuple[str, int, frozenset[str]]]:
        """The frontier cells in the legal list's order, each as (key, cards adjoined, their keys);
        it depends on the occupied cells alone, so the last few are remembered (read only).
        Issue 17: a board one or two cards away from the last one found (an action places,
        lifts or moves a card) is worked out from it, so the cost does not grow with the board."""
        cells = frozenset(board)
        found = _FRONTIERS.get(cells)
        if found is not None:
            return found[0]
        return self._frontier_found(board, cells)[0]

    def _frontier_counts(self, board: dict) -> tuple[list[tuple[str, int, frozenset[str]]], list[int], dict[str, int]]:
        """The frontier (as _frontier_list), how many of its cells adjoin 0..6 cards, and for
        each card how many cells adjoin it alone (remembered with the frontier)."""
        cells = frozenset(board)
        found = _FRONTIERS.get(cells) or self._frontier_found(board, cells)
        if found[2] is None:
            by_adjoined = [0] * 7
            single: dict[str, int] = {}
            for _, adj, cards in found[0]:
                by_adjoined[adj] += 1
                if adj == 1:
                    (only,) = cards
                    single[only] = single.get(only, 0) + 1
            found[2] = (by_adjoined, single)
        return found[0], *found[2]

    def _frontier_found(self, board: dict, cells: frozenset) -> list:
        """The frontier of the occupied `cells` as remembered in _FRONTIERS: [the list, the
        cards each cell adjoins, the counts of _frontier_counts or None]. From the last one
        found when the two boards differ by a few cards, else from scratch."""
        found = None
        if _FRONTIERS:
            last_cells = next(reversed(_FRONTIERS))
            added, removed = cells - last_cells, last_cells - cells
            if len(added) + len(removed) <= 4:
                found = self._frontier_moved(_FRONTIERS[last_cells], cells, added, removed)
        if found is None:
            adjoining = {key(*cell): frozenset(ks) for cell, ks in self._frontier_cards(board).items()}
            found = [[(k, len(adjoining[k]), adjoining[k]) for k in sorted(adjoining, key=_rq)], adjoining, None]
        if len(_FRONTIERS) >= 64:
            _FRONTIERS.pop(next(iter(_FRONTIERS)))
        _FRONTIERS[cells] = found
        return found

    @staticmethod
    def _frontier_moved(last: list, cells: frozenset[str], added: set[str], removed: set[str]) -> list:
        """The frontier of the occupied `cells` (as _frontier_found) from `last`, that of a
        board which had the cards `removed` and not those `added`: only the cells around the
        cards that changed are looked at (issue 17), so the cost does not grow with the board."""
        before = last[1]
        adjoining = dict(before)
        kept = cells - added  # the cards on both boards
        for k in removed:  # each lifted card: its empty neighbours adjoin it no more; its cell is empty now
            for _, nk in _around(k):
                ks = adjoining.get(nk)
                if ks is not None and k in ks:
                    if len(ks) == 1:
                        del adjoining[nk]
                    else:
                        adjoining[nk] = ks - {k}
            near = frozenset(nk for _, nk in _around(k) if nk in kept)
            if near:
                adjoining[k] = near
        for k in added:  # each new card: its cell is no longer empty; its empty neighbours adjoin it
            adjoining.pop(k, None)
            for _, nk in _around(k):
                if nk not in cells:
                    adjoining[nk] = adjoining.get(nk, frozenset()) | {k}
        touched = {nk for k in added | removed for _, nk in _around(k)} | added | removed
        # the list: the last one's cells in their order, changed where touched, new cells put in place
        entries = [e if e[0] not in touched else (e[0], len(adjoining[e[0]]), adjoining[e[0]])
                   for e in last[0] if e[0] not in touched or e[0] in adjoining]
        for k in [k for k in touched if k in adjoining and k not in before]:
            bisect.insort(entries, (k, len(adjoining[k]), adjoining[k]), key=lambda e: _rq(e[0]))
        counts = None
        if last[2] is not None:  # the counts, changed by the touched cells alone
            by_adjoined, single = list(last[2][0]), dict(last[2][1])
            for table, sign in ((before, -1), (adjoining, 1)):
                for k in touched:
                    ks = table.get(k)
                    if ks is None:
                        continue
                    by_adjoined[len(ks)] += sign
                    if len(ks) == 1:
                        (only,) = ks
                        single[only] = single.get(only, 0) + sign
            counts = (by_adjoined, {k: n for k, n in single.items() if n})
        return [entries, adjoining, counts]

    @staticmethod
    def _frontier_cards(board: dict) -> dict[tuple[int, int], set[str]]:
        """Every empty cell next to a card, with the keys of the cards it adjoins."""
        cells: dict[tuple[int, int], set[str]] = {}
        for k in board:
            for n, nk in _around(k):
                if nk not in board:
                    cells.setdefault(n, set()).add(k)
        return cells

    # --- legal orders ------------------------------------------------------------------
    def legal_orders(self, state, player):
        return list(self._legal(state, player))

    def forced_order(self, state, player):
        """Stops at the second legal order: `settle` asks after every order, and the list
        grows with wastelands x frontier cells (issue 17)."""
        g = state["game"]
        if state["flow"]["over"] or player not in state["flow"]["active"]:
            return None
        display = g["display"]
        cheap = (len(set(display)) + ("extra" in display) + (g["extra_cards"][player] > 0)
                 + (not display) + self._may_end(g, player))  # the orders listed last, counted without the board
        if cheap >= 2:
            return None
        first = None
        for n, order in enumerate(self._legal(state, player)):
            if n:
                return None
            first = order
        return first

    def bot_orders(self, state, player):
        """The legal list, its wasteland moves built only when picked (issue 17)."""
        if state["flow"]["over"] or player not in state["flow"]["active"]:
            return []
        return _LegalList(self, state, player)

    def order_groups(self, state, player, per_verb):
        """As Rules.order_groups, counted rather than listed (issue 17): the list grows with
        the frontier (and its wasteland moves with wastelands x frontier cells), but the
        order form shows only the first `per_verb` orders of each verb and how many more."""
        if state["flow"]["over"] or player not in state["flow"]["active"]:
            return []
        legal = _LegalList(self, state, player)
        frontier, by_adjoined, single = self._frontier_counts(state["game"]["board"])
        reachable = lambda cost: sum(n for adj, n in enumerate(by_adjoined) if adj * cost <= legal.money)  # noqa: E731
        totals = {"tribe": len(legal.colours) * reachable(legal.tribe_cost),
                  "temple": reachable(legal.temple_cost) if legal.temples else 0,
                  "wasteland": len(frontier) if legal.waste else 0}
        groups: dict[str, list[str]] = {}  # each verb's examples, the verbs in the order first met
        missing = sum(min(per_verb, n) for n in totals.values())  # examples still wanted, all verbs
        tribe_at = legal.money // legal.tribe_cost if legal.tribe_cost else 7  # most cards adjoined affordable
        temple_at = legal.money // legal.temple_cost if legal.temple_cost else 7
        if not legal.colours:
            tribe_at = -1  # no tribe in the display: none to place
        if not legal.temples:
            temple_at = -1
        tribes = temples = wastes = None
        for k, adj, _ in frontier:  # the placements, cell by cell, until each verb has its examples
            if missing <= 0:
                break
            if adj <= tribe_at:
                if tribes is None:
                    tribes = groups["tribe"] = []
                for colour in legal.colours:
                    if len(tribes) < per_verb:
                        tribes.append(_placement_text("tribe", k, colour))
                        missing -= 1
            if adj <= temple_at:
                if temples is None:
                    temples = groups["temple"] = []
                if len(temples) < per_verb:
                    temples.append(_placement_text("temple", k))
                    missing -= 1
            if legal.waste:
                if wastes is None:
                    wastes = groups["wasteland"] = []
                if len(wastes) < per_verb:
                    wastes.append(_placement_text("wasteland", k))
                    missing -= 1
        out = [(verb, texts, totals[verb]) for verb, texts in groups.items()]
        moves = sum(n for _, n in legal.moves) // len(legal.verbs) if legal.verbs else 0
        if moves:  # the wasteland moves: per wasteland, per frontier cell, each verb
            pairs = []
            for src, _ in legal.moves:
                for dst, adj, cards in frontier:
                    if len(pairs) >= per_verb:
                        break
                    if not (adj == 1 and src in cards):
                        pairs.append((src, dst))
            out += [(verb, [_relocation_text(verb, src, dst) for src, dst in pairs], moves) for verb in legal.verbs]
        tail: dict[str, list[str]] = {}
        for order in legal.tail:
            tail.setdefault(order.verb, []).append(order.text)
        return out + [(verb, texts[:per_verb], len(texts)) for verb, texts in tail.items()]

    def legal_orders_matching(self, state, player, verb, exact):
        """Only the orders of `verb` holding every coordinate typed (see Rules): a `move` line
        names its two cells, so it is not matched against wastelands x frontier orders."""
        return [o for o in self._legal(state, player, verb, exact) if exact <= set(o.tokens)]

    def _legal(self, state, player, verb=None, exact=frozenset(), frontier=None):
        """The legal orders, in the order of the list, one at a time; with `verb`, only its
        orders, and of those at least every one whose tokens hold all of `exact`."""
        g = state["game"]
        if state["flow"]["over"] or player not in state["flow"]["active"]:
            return
        board, money = g["board"], g["crystals"][player]
        display = g["display"]
        place = verb is None or verb in ("tribe", "temple", "wasteland")
        relocate = verb is None or verb in ("move", "whirlwind")
        if (place or relocate) and frontier is None:
            frontier = self._frontier_list(board)
        if place:
            tribe_colours = sorted({c[6:] for c in display if c.startswith("tribe:")})
            if verb not in (None, "tribe"):
                tribe_colours = []
            temple = g["temples_left"][player] > 0 and verb in (None, "temple")
            waste = "wasteland" in display and verb in (None, "wasteland")
            cells = frontier if not exact else [f for f in frontier if f[0] in exact]
            for k, adj, _ in cells:
                for colour in tribe_colours:
                    if adj * self.r["tribe_cost_per_neighbour"] <= money:
                        yield _placement("tribe", k, colour)
                if temple and adj * self.r["temple_cost_per_neighbour"] <= money:
                    yield _placement("temple", k)
                if waste:
                    yield _placement("wasteland", k)
        if relocate:
            wastes = sorted((k for k, c in board.items() if c["kind"] == "wasteland"), key=_rq)
            can_whirl = "whirlwind" in display and verb in (None, "whirlwind")
            can_move = money >= self.r["reposition_cost"] and verb in (None, "move")
            if wastes and (can_whirl or can_move):
                targets = frontier
                if len(exact) >= 2:  # both cells typed: the source and the target are among them
                    wastes = [w for w in wastes if w in exact]
                    targets = [f for f in frontier if f[0] in exact]
                for src in wastes:
                    # After lifting the wasteland at src, a cell may take it if it still adjoins
                    # some other card (src itself is excluded: that would be no move at all).
                    for dst, adj, cards in targets:
                        if adj == 1 and src in cards:
                            continue
                        if can_whirl:
                            yield _relocation("whirlwind", src, dst)
                        if can_move:
                            yield _relocation("move", src, dst)
        if verb is not None and verb not in ("keep", "extra", "discard", "endgame", "pass"):
            return
        if "extra" in display:
            yield Order(("keep", "extra"), ("keep",), frozenset({1}))
        if g["extra_cards"][player] > 0:
            yield Order(("extra",), ("extra",))
        for card in sorted(set(display)):
            yield self._discard_order(card)
        if self._may_end(g, player):
            yield Order(("endgame",), ("endgame",))
        if not display:
            yield Order(("pass",), ("pass",))

    def _may_end(self, g: dict, player: str) -> bool:
        held = g["nations"][player]
        colours = sum(1 for v in held.values() if v > 0)
        return colours >= self.r["end_nation_colours"] or sum(held.values()) >= self.r["end_nations"]

    def default_order(self, state, player):
        display = state["game"]["display"]
        if display:
            return self._discard_order(display[0])
        return Order(("pass",), ("pass",))

    @staticmethod
    def _discard_order(card: str) -> Order:
        """`discard green tribe` (`tribe` may be left out), `discard wasteland`, ...: one
        spelling for the legal orders, the did-you-mean, the default order and ORDERS.md."""
        if card.startswith("tribe:"):
            return Order(("discard", card[6:], "tribe"), ("discard", card), frozenset({2}))
        return Order(("discard", card), ("discard", card))

    def why_illegal(self, state, player, typed):
        g = state["game"]
        verb = typed[0]
        cells = [t for t in typed[1:] if "," in t]
        money = g["crystals"][player]
        if player not in state["flow"]["active"]:
            return "it is not your turn"
        if verb in ("tribe", "wasteland") and not any(
            (c.startswith("tribe:") if verb == "tribe" else c == "wasteland") for c in g["display"]
        ):
            return f"there is no {verb} in the display (display: {', '.join(card_name(c) for c in g['display']) or 'empty'})"
        if verb == "tribe" and len(typed) == 3 and not any(c[6:].startswith(typed[1]) for c in g["display"] if c.startswith("tribe:")):
            return f"there is no {typed[1]} tribe in the display"
        if verb == "temple" and g["temples_left"][player] <= 0:
            return f"you have no temples left (you have built all {self.c['temples_per_god']} of your colour)"
        if verb in ("whirlwind",) and "whirlwind" not in g["display"]:
            return "there is no whirlwind in the display"
        if verb in ("keep",) and "extra" not in g["display"]:
            return "there is no extra action card in the display"
        if verb == "extra" and g["extra_cards"][player] == 0:
            return "you hold no extra action card"
        if verb == "discard" and len(typed) > 1:
            word = typed[1]
            colour = next((c for c in self.colours if c.startswith(word)), None)
            card = next((c for c in ("wasteland", "whirlwind", "extra", "gameend") if c.startswith(word)), word)
            what = f"{colour} tribe" if colour else card_name(card)
            if what == "extra action":
                what = "extra action card"
            return f"there is no {what} in the display (display: {', '.join(card_name(c) for c in g['display']) or 'empty'})"
        if verb == "endgame":
            return "you may end the game only with nations of 3 colours or 4 nation cards"
        if verb == "pass":
            return "you may pass only when the display is empty; discard a card instead"
        if verb == "move" and money < self.r["reposition_cost"]:
            return f"repositioning a wasteland costs {self.r['reposition_cost']} crystals; you have {money}"
        if verb in ("whirlwind", "move") and len(cells) == 2:
            src, dst = cells
            if g["board"].get(src, {}).get("kind") != "wasteland":
                return f"there is no wasteland at {src}"
            if src == dst:
                return f"the wasteland is already at {dst}; name another cell"
            rest = {k: v for k, v in g["board"].items() if k != src}
            if dst in rest:
                return f"{dst} is already occupied"
            if not self._adjacent_cards(rest, parse_key(dst)):
                return f"{dst} does not adjoin any card"
        if verb in ("tribe", "temple", "wasteland") and cells:
            cell = cells[-1]
            if cell in g["board"]:
                what = self._describe(g["board"][cell])
                return f"{cell} is already occupied by {article(what)} {what}"
            adj = len(self._adjacent_cards(g["board"], parse_key(cell)))
            if adj == 0:
                return f"{cell} does not adjoin any card"
            per = {"tribe": self.r["tribe_cost_per_neighbour"], "temple": self.r["temple_cost_per_neighbour"]}.get(verb, 0)
            if adj * per > money:
                return f"it costs {adj * per} crystals ({adj} adjacent card{'s' if adj > 1 else ''}); you have {money}"
        return None

    @staticmethod
    def _describe(cell: dict) -> str:
        if cell["kind"] == "tribe":
            return f"{cell['colour']} tribe"
        if cell["kind"] == "temple":
            return f"temple of {cell['god']}"
        return cell["kind"]

    # --- applying an order -------------------------------------------------------------
    def apply(self, state, player, order, rng):
        g = state["game"]
        kind = order.payload[0]
        board = g["board"]
        events: list[Event] = []
        if kind == "tribe":
            _, colour, k = order.payload
            cell = parse_key(k)
            cost = len(self._adjacent_cards(board, cell)) * self.r["tribe_cost_per_neighbour"]
            self._pay(g, player, cost)
            g["display"].remove(f"tribe:{colour}")
            religion = self._tribe_religion(board, cell)
            god = religion if religion and g["markers"][religion] > 0 else None
            if god:
                g["markers"][god] -= 1
            board[k] = {"kind": "tribe", "colour": colour, "god": god}
            events.append({"type": "tribe", "player": player, "at": k, "colour": colour, "cost": cost, "religion": god,
                           "unclaimed_reason": None if god else ("no markers left" if religion else "no single religion adjoins it")})
        elif kind == "temple":
            _, k = order.payload
            cell = parse_key(k)
            cost = len(self._adjacent_cards(board, cell)) * self.r["temple_cost_per_neighbour"]
            self._pay(g, player, cost)
            g["temples_left"][player] -= 1
            g["temples_built"][player] += 1
            board[k] = {"kind": "temple", "god": player}
            events.append({"type": "temple", "player": player, "at": k, "cost": cost})
            events += self._convert(g, player, cell)
        elif kind == "wasteland":
            _, k = order.payload
            g["display"].remove("wasteland")
            board[k] = {"kind": "wasteland"}
            gained = self._gain(g, player, self.r["wasteland_gain"])
            events.append({"type": "wasteland", "player": player, "at": k, "gained": gained})
        elif kind in ("whirlwind", "move"):
            _, src, dst = order.payload
            if kind == "whirlwind":
                g["display"].remove("whirlwind")
                g["discard"].append("whirlwind")
                cost = 0
            else:
                cost = self.r["reposition_cost"]
                self._pay(g, player, cost)
            board[dst] = board.pop(src)
            events.append({"type": kind, "player": player, "src": src, "dst": dst, "cost": cost})
        elif kind == "keep":
            g["display"].remove("extra")
            g["extra_cards"][player] += 1
            events.append({"type": "keep", "player": player})
        elif kind == "extra":
            g["extra_cards"][player] -= 1
            g["discard"].append("extra")
            g["turn"]["actions_left"] += 1
            events.append({"type": "extra", "player": player, "actions_left": g["turn"]["actions_left"]})
            return events + self._end_action(state, player, counts=False)
        elif kind == "discard":
            card = order.payload[1]
            g["display"].remove(card)
            g["discard"].append(card)
            events.append({"type": "discard", "player": player, "card": card})
        elif kind == "endgame":
            events.append({"type": "endgame", "player": player})
            return events + self._finish(state, reason=f"{player} chose to end the game")
        elif kind == "pass":
            events.append({"type": "pass", "player": player})
        else:  # pragma: no cover
            raise ValueError(f"unknown order payload {order.payload!r}")
        return events + self._end_action(state, player)

    def _pay(self, g: dict, player: str, cost: int) -> None:
        if cost > g["crystals"][player]:  # legal_orders prevents this; guard the invariant
            raise ValueError("cannot pay")
        g["crystals"][player] -= cost
        g["stock"] += cost

    def _gain(self, g: dict, player: str, amount: int) -> int:
        gained = max(0, min(amount, g["stock"], self.r["crystal_cap"] - g["crystals"][player]))
        g["stock"] -= gained
        g["crystals"][player] += gained
        return gained

    def _tribe_religion(self, board: dict, cell: tuple[int, int]) -> str | None:
        """The religion a newly placed tribe adopts, by the text's four cases."""
        adjacent = [board[k] for k in self._adjacent_cards(board, cell)]
        temples = {c["god"] for c in adjacent if c["kind"] == "temple"}
        if temples:
            return temples.pop() if len(temples) == 1 else None
        tribes = [c["god"] for c in adjacent if c["kind"] == "tribe"]
        if not tribes:
            return None
        religions = set(tribes) if self.r["unmarked_neighbour_blocks"] else {t for t in tribes if t}
        if len(religions) == 1:
            (only,) = religions
            return only
        return None

    def _convert(self, g: dict, player: str, cell: tuple[int, int]) -> list[Event]:
        """A temple converts every adjacent tribe to its builder's religion."""
        board = g["board"]
        targets = sorted(
            (k for k in self._adjacent_cards(board, cell) if board[k]["kind"] == "tribe" and board[k]["god"] != player),
            key=lambda k: parse_key(k)[::-1],
        )
        events: list[Event] = []
        for k in targets:
            old = board[k]["god"]
            if old:
                g["markers"][old] += 1
            board[k]["god"] = None
        for k in targets:
            old_events = {"type": "convert", "at": k, "colour": board[k]["colour"], "god": None}
            if g["markers"][player] > 0:
                g["markers"][player] -= 1
                board[k]["god"] = player
                old_events["god"] = player
            events.append(old_events)
        return events

    def _check_nations(self, state: dict) -> list[Event]:
        """Found nations (with a victory point card while any are left) and dissolve them."""
        g = state["game"]
        count: dict[str, dict[str, int]] = {p: {} for p in g["players"]}
        for cell in g["board"].values():
            if cell["kind"] == "tribe" and cell["god"]:
                count[cell["god"]][cell["colour"]] = count[cell["god"]].get(cell["colour"], 0) + 1
        per = self.r["tribes_per_nation"]
        events: list[Event] = []
        for p in g["players"]:  # losses first, so the cards are back in the stock
            for colour, held in list(g["nations"][p].items()):
                while held > count[p].get(colour, 0) // per:
                    held -= 1
                    g["nation_stock"][colour] += 1
                    events.append({"type": "nation_lost", "player": p, "colour": colour})
                g["nations"][p][colour] = held
                if held == 0:
                    del g["nations"][p][colour]
        for p in g["players"]:
            for colour, n in sorted(count[p].items()):
                held = g["nations"][p].get(colour, 0)
                while held < n // per and g["nation_stock"][colour] > 0:
                    held += 1
                    g["nation_stock"][colour] -= 1
                    got_vp = g["vp_stock"][colour] > 0
                    if got_vp:
                        g["vp_stock"][colour] -= 1
                        g["vp_cards"][p][colour] = g["vp_cards"][p].get(colour, 0) + 1
                    events.append({"type": "nation_founded", "player": p, "colour": colour, "vp_card": got_vp})
                if held:
                    g["nations"][p][colour] = held
        return events

    # --- views, scores -----------------------------------------------------------------
    def scores(self, state):
        g = state["game"]
        most = max(g["temples_built"].values())
        out = {}
        for p in g["players"]:
            pts = self.r["nation_card_points"] * sum(g["nations"][p].values()) + self.r["vp_card_points"] * sum(g["vp_cards"][p].values())
            if most > 0 and g["temples_built"][p] == most:
                pts -= self.r["temple_penalty"]
            out[p] = pts
        return out

    def view(self, state, player):
        g = state["game"]
        board = g["board"]
        public = {
            "players": [
                {
                    "name": p,
                    "colour": g["colour"][p],
                    "crystals": g["crystals"][p],
                    "markers_left": g["markers"][p],
                    "extra_cards": g["extra_cards"][p],
                    "temples_built": g["temples_built"][p],
                    "temples_left": g["temples_left"][p],
                    "nations": dict(sorted(g["nations"][p].items())),
                    "vp_cards": dict(sorted(g["vp_cards"][p].items())),
                    "can_end": self._may_end(g, p),
                }
                for p in g["players"]
            ],
            "board": [{"at": k, **board[k]} for k in sorted(board, key=_rq)],
            "display": [card_name(c) for c in g["display"]],
            "deck_count": len(g["deck"]),
            "discard": [card_name(c) for c in g["discard"]],
            "stock": g["stock"],
            "nation_stock": dict(g["nation_stock"]),
            "vp_stock": dict(g["vp_stock"]),
            "turn": dict(g["turn"]),
            "scores": self.scores(state),
        }
        if player is not None:
            public["you"] = player
        return public

    def views(self, state, viewers):
        """Every god sees the whole table (view adds only `you`): the public view is worked
        out once and shared (issue 17)."""
        public = self.view(state, None)
        return [public if v is None else {**public, "you": v} for v in viewers]

    def summaries(self, views):
        """summary reads nothing of `you`: the views that share every other part (views: the
        public view and each god's) share one summary, worked out once (issue 17)."""
        out, made = [], {}
        for v in views:
            key = tuple((k, id(x)) for k, x in v.items() if k != "you")  # the views are alive: no id reused
            if key not in made:
                made[key] = self.summary(v)
            out.append(made[key])
        return out

    def summary(self, view):
        """The position as a score sheet: whose turn, the display, the piles and the stocks."""
        def listed(names):
            return ", ".join(names) if names else "empty"

        def per_colour(counts):
            left = [f"{n} {c}" for c, n in counts.items() if n]
            return ", ".join(left) if left else "none left"

        turn = view.get("turn") or {}
        out = []
        if turn.get("player"):
            left = turn.get("actions_left", 0)
            out.append(("Turn", f"{turn.get('number', '')}: {turn['player']} to play, {plural(left, 'action')} left"))
        out += [
            ("Display", listed(view.get("display", []))),
            ("Draw pile", plural(view.get("deck_count", 0), "card")),
            ("Discard pile", listed(view.get("discard", []))),
            ("Crystals in the stock", str(view.get("stock", 0))),
            ("Nation cards left", per_colour(view.get("nation_stock", {}))),
            ("Victory point cards left", per_colour(view.get("vp_stock", {}))),
        ]
        for p in view.get("players", []):
            out.append((f"{p['name']} ({p['colour']})",
                        f"{plural(p['crystals'], 'crystal')}; left: {plural(p['markers_left'], 'marker')}, "
                        f"{plural(p['temples_left'], 'temple')}; {p['temples_built']} built"
                        + (f"; {plural(p['extra_cards'], 'extra action card')} kept" if p.get("extra_cards") else "")))
        return out


RULES = GodsRules
