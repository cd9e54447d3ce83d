"""Property tests: many random GODS games for 2, 3 and 4 players, played through the engine
(engine.resolve, no store, for speed), end without error; after every phase the position is
checked against invariants computed independently of the rules module:

* every one of the 72 hex cards is somewhere exactly once (draw pile, display, discard pile,
  board, each god's own temples, kept extra action cards), per card kind -- but for the
  temples of the colours nobody plays, which leave the game (6 per absent colour);
* god markers conserved (markers left + tribes marked = 15 per god);
* crystals conserved (stock + every god's = 50), each god's within 0..12;
* nation and victory point cards conserved per colour; a victory point card is never lost;
* nations consistent with the board (a god holds at most one nation per 3 tribes of a colour
  professing their religion, and fewer only when that colour's nation cards are gone);
* temples built per god match the board;
* the scores recomputed from the public view alone equal rules.scores;
* exactly one request (a sequential turn), for the god whose turn it is, clockwise;
* the game ends, and its outcome is the best (score, crystals).

Each phase's orders are chosen at random among: a random legal script from host.bot_script
(sometimes with a junk line, or cut short), no submission at all (NMR: the game's default
orders), or an empty submission whose open actions are random legal orders (a Rules subclass
whose default_order is Rules.bot_choice over legal_orders; its bot picks a verb first, then
one of that verb's orders, so that rare orders such as endgame and extra come up often;
the game's rules themselves are not changed).

A last test plays games through the store (host.autoplay) and replays them (host.replay),
checking every stored snapshot's hash and the same invariants.

Scale: PBEM_PROPERTY_SCALE=N multiplies the number of games (default 1, about a minute on a
shared 2-core machine).
"""

from __future__ import annotations

import copy
import functools
import os
import random
from collections import Counter

import pytest

from pbem.core import engine
from pbem import host
from pbem.core.orders import Script, read_script
from pbem.core.registry import get_rules, load_data
from pbem.host.store import loads

SCALE = max(1, int(os.environ.get("PBEM_PROPERTY_SCALE", "1")))
ENGINE_GAMES = {2: 70, 3: 70, 4: 70}  # games per player count (x SCALE)
STORE_GAMES = 6  # (x SCALE), spread over 2, 3 and 4 players
MAX_PHASES = 400

GODS = get_rules("gods")
DATA = load_data("gods")

# The component list of the rules text, checked against the data once, then used as the truth.
HEX_CARDS = 72
CRYSTALS = 50
MARKERS_PER_GOD = 15
TEMPLES_PER_GOD = 6  # 24 temples, 4 colours
CRYSTAL_CAP = 12
NATION_POINTS, VP_POINTS, TEMPLE_PENALTY = 3, 2, 4


def expected_cards() -> Counter:
    deck = DATA["deck"]
    want = Counter({f"tribe:{c}": deck["tribes_per_colour"] for c in DATA["rules"]["tribe_colours"]})
    want.update({"wasteland": deck["wasteland"], "extra": deck["extra"], "whirlwind": deck["whirlwind"],
                 "gameend": deck["gameend"], "temple": DATA["components"]["temples"]})
    return want


CARDS = expected_cards()


def test_the_data_matches_the_component_list():
    assert sum(CARDS.values()) == HEX_CARDS
    assert CARDS["temple"] == 24 and CARDS["wasteland"] == 11 and CARDS["gameend"] == 1
    assert sum(n for k, n in CARDS.items() if k.startswith("tribe:")) == 32
    assert DATA["components"]["crystals"] == CRYSTALS
    assert DATA["rules"]["markers_per_god"] == MARKERS_PER_GOD
    assert DATA["components"]["temples_per_god"] == TEMPLES_PER_GOD and 4 * TEMPLES_PER_GOD == CARDS["temple"]
    assert DATA["rules"]["crystal_cap"] == CRYSTAL_CAP


# --- invariants ------------------------------------------------------------------------------

def check_invariants(state: dict, context: str, vp_before: dict | None = None) -> None:
    g = state["game"]
    players = g["players"]
    colours = DATA["rules"]["tribe_colours"]
    board = g["board"]

    # cards: each of the 72 somewhere exactly once
    where = Counter()
    where.update(g["deck"])
    where.update(g["display"])
    where.update(g["discard"])
    for cell in board.values():
        where["tribe:" + cell["colour"] if cell["kind"] == "tribe" else cell["kind"]] += 1
    where["temple"] += sum(g["temples_left"].values())
    where["extra"] += sum(g["extra_cards"].values())
    in_play = CARDS - Counter({"temple": TEMPLES_PER_GOD * (4 - len(players))})  # absent colours' sets are out
    assert where == in_play, f"{context}: cards not conserved: {dict(where - in_play)} extra, {dict(in_play - where)} missing"
    assert len(g["display"]) <= 2, context
    assert set(g["temples_left"]) == set(players) and all(n >= 0 for n in g["temples_left"].values()), context
    assert all(n >= 0 for n in g["extra_cards"].values()), context
    assert ("gameend" in g["discard"]) == g["gameend_revealed"], context

    # markers
    marked = Counter(c["god"] for c in board.values() if c["kind"] == "tribe" and c["god"])
    assert set(marked) <= set(players), context
    for p in players:
        assert g["markers"][p] >= 0, context
        assert g["markers"][p] + marked[p] == MARKERS_PER_GOD, f"{context}: markers of {p} not conserved"

    # crystals
    assert g["stock"] >= 0, context
    assert g["stock"] + sum(g["crystals"].values()) == CRYSTALS, f"{context}: crystals not conserved"
    for p in players:
        assert 0 <= g["crystals"][p] <= CRYSTAL_CAP, f"{context}: {p} holds {g['crystals'][p]} crystals"

    # temples
    built = Counter(c["god"] for c in board.values() if c["kind"] == "temple")
    assert all(built[p] == g["temples_built"][p] for p in players), f"{context}: temples_built {g['temples_built']} vs board {dict(built)}"
    assert all(g["temples_left"][p] + built[p] == TEMPLES_PER_GOD for p in players), f"{context}: each god's 6 temples: left {g['temples_left']}, on the board {dict(built)}"
    assert sum(built.values()) == sum(g["temples_built"].values()), context

    # nation and victory point cards
    for c in colours:
        held = sum(g["nations"][p].get(c, 0) for p in players)
        assert g["nation_stock"][c] >= 0 and held + g["nation_stock"][c] == DATA["components"]["nation_cards_per_colour"], context
        vps = sum(g["vp_cards"][p].get(c, 0) for p in players)
        assert g["vp_stock"][c] >= 0 and vps + g["vp_stock"][c] == DATA["components"]["vp_cards_per_colour"], context
    tribes = Counter((c["god"], c["colour"]) for c in board.values() if c["kind"] == "tribe" and c["god"])
    for p in players:
        for c in colours:
            held = g["nations"][p].get(c, 0)
            can = tribes[(p, c)] // 3
            assert held <= can, f"{context}: {p} holds {held} {c} nations with {tribes[(p, c)]} tribes"
            if held < can:
                assert g["nation_stock"][c] == 0, f"{context}: {p} could found a {c} nation but did not"
            if vp_before is not None:  # a victory point card is kept, even when its nation falls
                assert g["vp_cards"][p].get(c, 0) >= vp_before[p].get(c, 0), f"{context}: {p} lost a vp card"
        assert all(v > 0 for v in g["nations"][p].values()), context

    # scores, recomputed from the public view alone
    view = GODS.view(state, None)
    rows = {row["name"]: row for row in view["players"]}
    most = max(row["temples_built"] for row in rows.values())
    scores = {
        p: NATION_POINTS * sum(rows[p]["nations"].values()) + VP_POINTS * sum(rows[p]["vp_cards"].values())
        - (TEMPLE_PENALTY if most > 0 and rows[p]["temples_built"] == most else 0)
        for p in players
    }
    assert scores == GODS.scores(state) == view["scores"], f"{context}: scores {scores} vs {GODS.scores(state)}"
    public_temples = Counter(cell["god"] for cell in view["board"] if cell["kind"] == "temple")
    assert all(public_temples[p] == rows[p]["temples_built"] for p in players), context


def check_requests(state: dict, previous: str | None, context: str) -> None:
    reqs = GODS.requests(state)
    if state["flow"]["over"]:
        assert reqs == [], context
        return
    assert len(reqs) == 1 and not reqs[0].sealed and reqs[0].phase == "turn", f"{context}: {reqs}"
    g = state["game"]
    assert reqs[0].player == g["turn"]["player"], context
    if previous is not None:
        players = g["players"]
        assert reqs[0].player == players[(players.index(previous) + 1) % len(players)], f"{context}: not clockwise"


def check_outcome(state: dict, context: str) -> None:
    out = GODS.outcome(state)
    assert out and state["flow"]["over"], f"{context}: no outcome"
    g = state["game"]
    scores = GODS.scores(state)
    best = max((scores[p], g["crystals"][p]) for p in g["players"])
    assert out["winners"] == [p for p in g["players"] if (scores[p], g["crystals"][p]) == best], context
    assert out["scores"] == scores, context
    if "game end card" in out["reason"]:
        assert g["gameend_revealed"], context
    else:
        ender = out["reason"].split(" chose", 1)[0]
        held = g["nations"][ender]
        assert len(held) >= 3 or sum(held.values()) >= 4, f"{context}: {ender} ended the game without the right"


def _midgame_state() -> dict:
    return copy.deepcopy(_midgame())


@functools.lru_cache(maxsize=1)
def _midgame() -> dict:
    rng = random.Random(3)
    state, _ = engine.start(GODS, ["ra", "isis", "thor"], {}, "corrupt")
    while state["flow"]["number"] < 25 and not state["flow"]["over"]:
        (p,) = engine.active_players(GODS, state)
        state = engine.resolve(GODS, state, {p: read_script("\n".join(host.bot_script(GODS, state, p, rng)))}, "corrupt").state
    assert not state["flow"]["over"]
    return state


def _tribe(g, marked=True):
    return next(k for k, c in g["board"].items() if c["kind"] == "tribe" and bool(c["god"]) == marked)


CORRUPTIONS = {
    "a card lost": lambda g: g["deck"].pop(),
    "a card doubled": lambda g: g["discard"].append(g["deck"][0]),
    "a temple from nowhere": lambda g: g["board"].__setitem__("50,50", {"kind": "temple", "god": "ra"}),
    "a marker lost": lambda g: g["markers"].__setitem__("ra", g["markers"]["ra"] - 1),
    "a tribe unmarked": lambda g: g["board"][_tribe(g)].__setitem__("god", None),
    "crystals from nowhere": lambda g: g["crystals"].__setitem__("ra", g["crystals"]["ra"] + 1),
    "crystals over the cap": lambda g: (g["crystals"].__setitem__("ra", 13), g.__setitem__("stock", 50 - 13 - g["crystals"]["isis"] - g["crystals"]["thor"])),
    "a nation card from nowhere": lambda g: g["nations"]["isis"].__setitem__("green", g["nations"]["isis"].get("green", 0) + 1),
    "a nation without its tribes": lambda g: (
        g["nation_stock"].__setitem__("purple", g["nation_stock"]["purple"] - 1),
        g["nations"]["thor"].__setitem__("purple", g["nations"]["thor"].get("purple", 0) + 1),
    ),
    "a vp card from nowhere": lambda g: g["vp_cards"]["thor"].__setitem__("grey", g["vp_cards"]["thor"].get("grey", 0) + 1),
    "temples miscounted": lambda g: g["temples_built"].__setitem__("thor", g["temples_built"]["thor"] + 1),
}


@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_the_invariants_catch_a_corrupted_position(how):
    state = _midgame_state()
    check_invariants(state, "intact")
    CORRUPTIONS[how](state["game"])
    with pytest.raises(AssertionError):
        check_invariants(state, how)


def test_the_invariants_catch_a_lost_vp_card_and_a_wrong_score(monkeypatch):
    state = _midgame_state()
    before = {p: dict(v) for p, v in state["game"]["vp_cards"].items()}
    before["ra"]["purple"] = before["ra"].get("purple", 0) + 1
    with pytest.raises(AssertionError, match="lost a vp card"):
        check_invariants(state, "vp", before)
    right = GODS.scores(state)
    monkeypatch.setattr(GODS, "scores", lambda s: {p: v + 1 for p, v in right.items()})
    with pytest.raises(AssertionError, match="scores"):
        check_invariants(state, "score")


# --- the random driver -----------------------------------------------------------------------

class RandomDefaults(type(GODS)):
    """GODS with two test hooks: for seats in `random_seats` the default order is a random
    legal one (Rules.bot_choice), so an empty script plays random legal orders through
    engine.resolve; and legal_orders, a pure function of the state, is memoised by state hash
    (the bots ask for the same positions several times)."""

    def __init__(self, data):
        super().__init__(data)
        self.random_seats: set[str] = set()
        self.rng = random.Random(0)
        self._memo: dict = {}

    def legal_orders(self, state, player):
        key = (engine.state_hash(state), player)
        orders = self._memo.get(key)
        if orders is None:
            if len(self._memo) > 256:
                self._memo.clear()
            orders = self._memo[key] = super().legal_orders(state, player)
        return list(orders)

    def bot_choice(self, state, player, legal, rng):
        """A verb first, then one of its orders: rare orders (endgame, extra, keep, temple)
        come up far more often than among the hundreds of wasteland moves."""
        verbs = sorted({o.verb for o in legal})
        verb = rng.choice(verbs)
        return rng.choice([o for o in legal if o.verb == verb])

    def default_order(self, state, player):
        if player in self.random_seats:
            return self.bot_choice(state, player, self.legal_orders(state, player), self.rng)
        return super().default_order(state, player)


RULES = RandomDefaults(DATA)


def play_engine_game(n: int, number: int) -> dict:
    seed = f"prop-{n}-{number}"
    players = ["ra", "isis", "thor", "zeus"][:n]
    options = {"start": "random"} if number % 4 == 0 else {}
    rng = random.Random(seed)
    RULES.rng = rng
    state, _ = engine.start(RULES, players, options, seed)
    context = f"{n} players, seed {seed!r}, phase 1"
    check_invariants(state, context)
    check_requests(state, None, context)
    stats = Counter()
    for _ in range(MAX_PHASES):
        if state["flow"]["over"]:
            break
        number_now = state["flow"]["number"]
        context = f"{n} players, seed {seed!r}, phase {number_now}"
        (player,) = engine.active_players(RULES, state)
        mode = rng.choices(["random", "nmr", "script"], weights=[70, 10, 20])[0]
        stats[mode] += 1
        RULES.random_seats = {player} if mode == "random" else set()
        scripts: dict[str, Script | None] = {player: None if mode == "nmr" else Script()}
        bot_lines: list[str] = []
        junk = cut = False
        if mode == "script":
            bot_lines = host.bot_script(RULES, state, player, rng)
            lines = list(bot_lines)
            if rng.random() < 0.3 and len(lines) > 1:
                lines, cut = lines[:1], True  # the rest is left to the default orders
            if rng.random() < 0.3:
                lines.insert(rng.randrange(len(lines) + 1), rng.choice(["frobnicate", "tribe green 99,99", "pass extra words"]))
                junk = True
            if rng.random() < 0.3:
                lines.append("discard green")  # after the turn: unused (or skipped)
            text = f"GAME g\nPLAYER {player}\n# turn {number_now}\n" + "\n".join(lines) + "\nEND\n-- sig\n"
            scripts[player] = read_script(text)
            if not junk:  # the acknowledgement accepts every line of a legal bot script
                acks = engine.check_script(RULES, state, player, read_script("\n".join(bot_lines)))
                assert all(a.status == "accepted" for a in acks), f"{context}: {acks}"
        vp_before = {p: dict(v) for p, v in state["game"]["vp_cards"].items()}
        res = engine.resolve(RULES, state, scripts, seed)
        stats.update("event:" + e["type"] for e in res.events)
        assert res.nmr == ([player] if mode == "nmr" else []), context
        if mode == "script" and not cut:
            executed = [r.text for r in res.lines[player] if r.status == "executed"]
            assert executed[: len(bot_lines)] == bot_lines and len(executed) <= len(bot_lines) + 1, f"{context}: bot lines not all executed: {res.lines[player]}"
        if mode == "nmr":
            assert res.defaulted[player], context
        new = res.state
        assert new["flow"]["number"] == number_now + 1, context
        check_invariants(new, context, vp_before)
        check_requests(new, player, context)
        state = new
    assert state["flow"]["over"], f"{n} players, seed {seed!r}: no end after {MAX_PHASES} phases"
    check_outcome(state, f"{n} players, seed {seed!r}")
    stats["phases"] = state["flow"]["number"] - 1
    stats["reason"] = state["flow"]["outcome"]["reason"]
    return stats


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_engine_games_end_with_invariants_kept(n):
    reasons = Counter()
    seen = Counter()
    for number in range(ENGINE_GAMES[n] * SCALE):
        stats = play_engine_game(n, number)
        reasons["card" if "card" in stats["reason"] else "chosen"] += 1
        seen.update({k: v for k, v in stats.items() if k != "reason"})
    assert reasons["card"] > 0  # the game end card was turned over in some games
    assert all(seen[m] > 0 for m in ("random", "nmr", "script"))
    # the invariants were tested on positions where the rules that move cards, crystals,
    # markers and nations actually fired
    kinds = ["tribe", "temple", "convert", "wasteland", "whirlwind", "move", "keep", "extra", "discard",
             "nation_founded", "nmr", "default", "skipped", "game_over"]
    if n < 4:  # nations fall rarely with four gods sharing the markers
        kinds.append("nation_lost")
    for kind in kinds:
        assert seen["event:" + kind] > 0, f"no '{kind}' event in {ENGINE_GAMES[n] * SCALE} games"


# --- through the store: autoplay, then replay ------------------------------------------------

def test_autoplay_games_through_the_store_replay_hash_for_hash(db):
    for i in range(STORE_GAMES * SCALE):
        n = 2 + i % 3
        game_id = f"prop{i}"
        players = ["ra", "isis", "thor", "zeus"][:n]
        host.new_game(db, "gods", game_id, players, seed=f"store-{i}", turns=None)
        results = host.autoplay(db, game_id, turns=None)
        assert results and results[-1].outcome == "finished", game_id
        game = db["games"].get(game_id)
        assert game["status"] == "finished" and loads(game["outcome"])["winners"]
        phases = list(db["phases"].rows_where("game_id = ?", [game_id], order_by="number"))
        assert [p["number"] for p in phases] == list(range(1, len(phases) + 1))
        for ph in phases:
            state = loads(ph["state"])
            assert engine.state_hash(state) == ph["state_hash"], f"{game_id} phase {ph['number']}"
            check_invariants(state, f"{game_id} phase {ph['number']}")
        check_outcome(loads(phases[-1]["state"]), game_id)
        # every bot submission was accepted in full, and nobody was NMR
        subs = list(db["submissions"].rows_where("game_id = ?", [game_id]))
        assert subs and all(s["status"] == "accepted" for s in subs), game_id
        assert all(loads(p["nmr"]) == [] for p in phases if p["resolved"])
        replayed = host.replay(db, game_id)
        assert replayed == {"game": game_id, "phases": len(phases), "mismatches": [], "ok": True}
    # and a tampered snapshot is caught
    db["phases"].update(("prop0", 3), {"state_hash": "0" * 64})
    assert host.replay(db, "prop0")["mismatches"] == [3]
