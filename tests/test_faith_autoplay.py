"""Faith - Wild Gods: bots play 2, 4 and 7 gods through all 30 eras, through the engine
(engine.resolve with each god's whole submission, as a GM resolves it) with the game's
invariants checked after every phase, and through the store, replayed hash for hash."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pbem import host
from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.registry import get_rules, load_data
from pbem.host.service import bot_script
from games.faith import contests, duels
from games.faith import positions as fpos

RULES = get_rules("faith")
DATA = load_data("faith")
NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus"]
START = DATA["game"]["bank_start"]


def check_invariants(state: dict, where: str) -> None:
    g = state["game"]
    world = RULES.world
    # chips conserved between the board, the hands and the Soul Bank, owner by owner
    held: Counter = Counter()
    for h in g["hexes"].values():
        for o, (p, u) in h["pop"].items():
            assert p >= 0 and u >= 0, f"{where}: negative population"
            held[o] += p + u
    for hand in g["hands"].values():
        for o, n in hand.items():
            assert n > 0, f"{where}: an empty or negative hand entry"
            held[o] += n
    # wagers held in a pending contest or duel until its result (returned or banked)
    for o, n in list(contests.held(g).items()) + list(duels.held(g).items()):
        assert n > 0, f"{where}: an empty stake"
        held[o] += n
    for o, n in g["bank"].items():
        assert held[o] + n == START, f"{where}: {o}: board+hands+wagers {held[o]} + bank {n} != {START}"
    phase = state["flow"]["phase"]
    pending = g.get("pending") or {}
    if not state["flow"]["over"]:
        assert bool(pending.get("contest")) == (phase == "contest"), f"{where}: a contest pending outside its phase"
        assert bool(pending.get("duel")) == (phase == "duel"), f"{where}: duels pending outside their phase"
    # limbo: a sentence always ends; nobody in limbo is asked outside a contest
    for b, x in g["beliefs"].items():
        if x["limbo"]:
            assert x["alive"] and x.get("limbo_until") and x["limbo_until"] >= g["era"], f"{where}: {b} limbo {x}"
            if phase in ("powerup", "action", "divine"):
                assert x["player"] not in state["flow"]["active"] or any(
                    not g["beliefs"][q]["limbo"] for q in fpos.positions_of(g, x["player"])), f"{where}: {b} asked in limbo"
    # no two heroes share a hex once the era's duels are over
    if phase == "powerup":
        heroes = Counter(x["h"] for x in g["units"].values() if x["k"] == "hero")
        assert all(n == 1 for n in heroes.values()), f"{where}: two heroes in a hex after Phase 6"
    # caps: the hex total never above the cap of the era (3, 5 from Agriculture)
    top = DATA["caps"]["agriculture"] if g["era"] >= DATA["technology"]["agriculture"] else DATA["caps"]["base"]
    for hid, h in g["hexes"].items():
        assert sum(p + u for p, u in h["pop"].values()) <= top, f"{where}: {hid} over the cap {top}"
        assert world.hexes[hid].printed != "sea"
    forts = 0
    limits = Counter()
    for u, x in g["units"].items():
        assert world.hexes[x["h"]].printed != "sea", f"{where}: {u} on dark sea at {x['h']}"
        forts += x["k"] == "fortification"
        limits[(x["o"], x["k"])] += 1
        if DATA["units"][x["k"]].get("unbreakable"):
            assert not x["b"], f"{where}: an unbreakable {x['k']} is broken"
    assert forts <= DATA["units"]["fortification"]["limit"], f"{where}: {forts} fortifications"
    # living beliefs only hold hands of their own player; dead beliefs have nothing on the board
    for b, x in g["beliefs"].items():
        if not x["alive"]:
            assert not any(b in h["pop"] for h in g["hexes"].values()), f"{where}: dead {b} on the board"
    # the sealed bids live only in their phase; a Jihad is held by a belief for the next era
    if state["flow"]["phase"] != "powerup":
        assert not g.get("bids"), f"{where}: sealed bids outlive the Power-Up"
    if state["flow"]["phase"] != "contest":
        assert "contest" not in g.get("pending", {}), f"{where}: a contest outside its phase"
    if g.get("jihad"):
        assert g["jihad"]["holder"] in g["beliefs"] and g["jihad"]["era"] <= g["era"] + 1
    # positions (issue 16): at most two living beliefs a player; a covenant is two living
    # beliefs of one player led by the earlier in the ring; the ring lists each belief once
    from games.faith import positions
    ring = positions.ring(g)
    assert len(ring) == len(set(ring)) and set(ring) == set(g["beliefs"]), f"{where}: ring {ring}"
    for p in g["seats"]:
        assert len([b for b, x in g["beliefs"].items() if x["alive"] and x["player"] == p]) <= 2, f"{where}: {p}"
    for b, x in g["beliefs"].items():
        lead = x.get("covenant")
        if lead and x["alive"]:
            ms = positions.members(g, lead)
            assert len(ms) == 2 and b in ms, f"{where}: covenant {lead} members {ms}"
            assert all(g["beliefs"][m]["alive"] and g["beliefs"][m]["player"] == x["player"] for m in ms)
            assert ring.index(lead) < ring.index([m for m in ms if m != lead][0]), f"{where}: covenant lead {lead}"
    assert not g.get("deals"), f"{where}: Negotiation lines left queued"
    # battles answered (battles=sealed): a round is open exactly in the flow phase "response",
    # asking players who each have a hex of it; nothing waits outside Phase 5
    ans = g.get("answering")
    if state["flow"]["phase"] == "response":
        assert ans and ans["open"] and set(state["flow"]["active"]) <= set(ans["asked"]), f"{where}: a round without its battles"
        assert all(ans["asked"][p] for p in ans["asked"]), f"{where}: a player asked about no hex"
    elif not state["flow"]["over"]:
        assert not (ans and ans["open"]), f"{where}: an open round outside the response phase"
        if state["flow"]["phase"] != "action":
            assert not ans and not g.get("deferred"), f"{where}: battles or lines still waiting after Phase 5"
    if state["flow"]["over"]:
        assert state["flow"]["outcome"]["winners"] is not None


def play(n: int, seed: int, options: dict | None = None, check: bool = True):
    players = NAMES[:n]
    state, events = engine.start(RULES, players, options or {}, str(seed))
    kinds: Counter = Counter(e["type"] for e in events)
    phases = 0
    deadlines: Counter = Counter()
    while not state["flow"]["over"]:
        asked = engine.active_players(RULES, state)
        deadlines[state["game"]["era"]] += 1
        scripts = {}
        for p in asked:
            lines = bot_script(RULES, state, p, random.Random(f"{seed}/{phases}/{p}"))
            scripts[p] = read_script("\n".join(lines))
        res = engine.resolve(RULES, state, scripts, str(seed))
        state = res.state
        phases += 1
        kinds.update(e["type"] for e in res.events)
        kinds.update("line_" + r.status for rs in res.lines.values() for r in rs)
        if check:
            check_invariants(state, f"seed {seed}, {n} gods, phase {phases}")
        assert phases < 800, "the game does not end"
    return state, phases, kinds, deadlines


_PLAYED: dict = {}
_EXTRA: dict = {}


def seen_in_games(kinds, counts=(2, 4, 7)) -> Counter:
    """The events of the games of `counts` gods, and -- for rare kinds none of them met (a
    proselytize, a Jihad, a Direct Attack depend on the bots' luck) -- of up to four more games
    of 4 gods (played once per test run, with the invariants checked; seed 2005 has the
    proselytize the others lack since a god with an empty hand is asked for her initiative
    bid, CHOICE 201 -- 2004 had it before)."""
    seen: Counter = Counter()
    for n in counts:
        seen += played(n)[2]
    for seed in (204, 304, 404, 2005):
        if all(seen[k] for k in kinds):
            break
        if seed not in _EXTRA:
            _EXTRA[seed] = play(4, seed)[2]
        seen += _EXTRA[seed]
    return seen


def played(n: int):
    """Each player count's game is played once per test run (with the invariants checked)."""
    if n not in _PLAYED:
        _PLAYED[n] = play(n, 100 + n)
    return _PLAYED[n]


@pytest.mark.parametrize("n", [2, 4, 7])
def test_bots_play_thirty_eras_and_keep_the_invariants(n):
    state, _phases, kinds, deadlines = played(n)
    out = state["flow"]["outcome"]
    assert out["winners"] and set(out["winners"]) <= set(NAMES[:n])
    assert state["game"]["era"] == 30 or "claimed" in out["reason"] or "last living" in out["reason"]
    for kind in ("place", "raise", "reproduce", "flip", "move", "infidel", "intervention"):
        assert kinds[kind] > 0, f"no {kind} in a game of {n}"
    assert kinds["line_executed"] > 100
    # compact pace: at most 4 deadlines an era (Negotiation, Power-Up with the sealed bid,
    # Action, Divine Power), + 1 for a Jihad's contest in the era it is declared, + 1 (the
    # placement) in the era it is held (the infidels' turn is part of the holder's Action
    # submission), + the battles' answer rounds, + 1 for each Direct Attack, Judgement or
    # duel; issue 16's goal: a mean of at most 5
    per_era = [v for e, v in deadlines.items() if e > 1]
    assert max(per_era) <= 7 + kinds["strike"] + kinds["judgement"] + kinds["duel"]
    assert sum(per_era) / len(per_era) <= 5


def test_the_gods_contest_and_faith_is_kept_through_the_wagers():
    """The bots strike, judge and wager; every contest ends with its wagers returned or banked
    (the ledger is checked after every phase), and limbo is entered and left."""
    needed = ("strike", "strike_result", "judgement", "judgement_result", "wagered", "limbo", "limbo_over")
    seen = seen_in_games(needed)
    for kind in needed:
        assert seen[kind] > 0, f"no {kind} in the games of 2, 4 and 7"
    assert seen["strike"] == seen["strike_result"] and seen["judgement"] == seen["judgement_result"]


def test_battles_conversions_and_the_renaissance_happen():
    # (martyrdom needs a Prophet, a 20-faith Miracle, killed: rare in these bots' games and not
    # asked of them here; the martyrdom-* scenarios check it)
    seen: Counter = played(4)[2] + played(7)[2]
    # (martyrdom -- a Prophet killed -- is too rare in random play to expect in two games, about
    # one game in four since the bots also deal and bid; four scenarios check it: *martyrdom*)
    for kind in ("battle", "convert", "renaissance", "retreat", "technology", "killed", "slaughter",
                 "bid_open", "bid_raise", "bid_drop", "bid_spent"):
        assert seen[kind] > 0, f"no {kind} in the games of 4 and 7"


def test_the_bots_deal_in_the_negotiation_phase():
    """Bots give, cede, trade in mirrored pairs (matched, and sometimes unmatched), found second
    beliefs, make covenants and sell positions; the invariants (faith conserved between the
    board, the hands and the Soul Bank through every deal; positions consistent) held after
    every phase of these games."""
    needed = ("give", "trade", "unmatched", "cede", "cede_initiative", "found", "covenant", "proselytize")
    seen = seen_in_games(needed)
    for kind in needed:
        assert seen[kind] > 0, f"no {kind} in the games of 2, 4 and 7"
    assert seen["phase"] > 0 and seen["line_executed"] > 300


def test_the_bots_answer_battles_in_sealed_rounds_and_mostly_by_standing_orders():
    """battles=sealed (the default): rounds are asked and answered (sides, Armies of God,
    retreats), later gods' lines wait for them and run, and most battles need no round (the
    bots' standing orders answer): fewer rounds than battles by far."""
    seen: Counter = played(4)[2] + played(7)[2]
    for kind in ("battle_declared", "round_asked", "answer", "answered", "deferred"):
        assert seen[kind] > 0, f"no {kind} in the games of 4 and 7"
    assert seen["standing"] > 0
    assert seen["round_asked"] * 3 < seen["battle"]


def test_the_bots_bid_for_the_initiative_and_it_changes_hands():
    """Bots bid a share of their hand (not always 0, never the whole hand every era): the
    stacks are spent (faith conserved: the invariants) and the initiative moves."""
    for n in (4, 7):
        kinds = played(n)[2]
        assert kinds["bid_spent"] >= 10, f"only {kinds['bid_spent']} paid auctions in 30 eras of {n} gods"
        assert kinds["initiative"] >= played(n)[0]["game"]["era"] - 1   # every era (a game may end early by a claim)


def test_the_bots_declare_and_win_jihads_and_the_infidels_attack():
    needed = ("jihad_declared", "jihad_won", "jihad_placement", "infidel_turn")
    seen = seen_in_games(needed, (4, 7))
    for kind in needed:
        assert seen[kind] > 0, f"no {kind} in the games of 4 and 7"
    assert seen["jihad_won"] == seen["jihad_declared"]


def test_live_bidding_asks_one_god_at_a_time_to_the_end():
    state, _phases, kinds, deadlines = play(3, 5, {"bidding": "live"})
    assert state["flow"]["over"]
    assert kinds["bid_live"] > 30 and kinds["bid_spent"] > 5
    assert "bid_open" not in kinds   # live actions are published as they are made
    assert max(deadlines.values()) > 4   # every action its own deadline


def test_live_pace_plays_one_god_and_one_turn_at_a_time():
    state, _phases, _kinds, deadlines = play(2, 7, {"pace": "live"})
    assert state["flow"]["over"]
    assert max(deadlines.values()) > 4   # the table's pace costs deadlines


def test_games_through_the_store_replay_hash_for_hash(db, turns):
    for i, n in enumerate((2, 4)):
        gid = f"f{i}"
        host.new_game(db, "faith", gid, NAMES[:n], seed=str(70 + i), turns=turns)
        host.autoplay(db, gid, turns=turns)
        game = db["games"].get(gid)
        assert game["status"] == "finished"
        result = host.replay(db, gid)
        assert result["ok"], result
        assert result["phases"] == game["phase"]
