"""The engine core (design: "The engine model"), on GODS (sequential turns) and on a toy
sealed-bid auction (tests/toy_sealed.py: a simultaneous sealed phase, a standing order, an
automatic income step): requests, eager automation, forced orders, default orders and NMR,
unused lines, private standing orders, sealed bids kept from other views, per-phase RNG,
check_script purity and deterministic resolution."""

from __future__ import annotations

import copy
import hashlib
import random

import pytest

from pbem.core import engine
from pbem import host
from pbem.core.engine import Request
from pbem.core.orders import Script, match_order, read_script
from pbem.render.reports import visible_events
from pbem.core.registry import get_rules
from pbem.core.rng import Rng, phase_rng, seed_hash
from toy_sealed import SealedAuction

GODS = get_rules("gods")
TOY = SealedAuction()


def script(text: str) -> Script:
    return read_script(text)


def types(events, kind):
    return [e for e in events if e["type"] == kind]


def display_word(card: str) -> str:
    return card[6:] if card.startswith("tribe:") else card


# --- requests --------------------------------------------------------------------------------

def test_gods_sequential_turn_asks_exactly_one_player():
    state, _ = engine.start(GODS, ["alice", "bob", "carol"], {}, "3")
    assert GODS.requests(state) == [Request("alice", "turn", "alice: take two actions", False)]
    res = engine.resolve(GODS, state, {"alice": script("")}, "3")
    assert [r.player for r in GODS.requests(res.state)] == ["bob"]
    assert all(not r.sealed for r in GODS.requests(res.state))
    res = engine.resolve(GODS, res.state, {"bob": script("")}, "3")
    assert engine.active_players(GODS, res.state) == ["carol"]
    assert res.state["flow"]["number"] == 3


def test_toy_simultaneous_phase_asks_everyone_sealed():
    state, _ = engine.start(TOY, ["a", "b", "c"], {}, "1")
    reqs = TOY.requests(state)
    assert [r.player for r in reqs] == ["a", "b", "c"]
    assert all(r.sealed and r.phase == "bid" for r in reqs)
    assert len({r.prompt for r in reqs}) == 1


def test_toy_the_sealed_set_empties_as_each_bids():
    state, _ = engine.start(TOY, ["a", "b", "c"], {}, "1")
    rng = phase_rng("1", 1)
    TOY.apply(state, "b", match_order(TOY.grammar, TOY.legal_orders(state, "b"), script("bid 1").lines[0]), rng)
    assert engine.active_players(TOY, state) == ["a", "c"]
    assert TOY.legal_orders(state, "b") == []
    assert TOY.requests(state)[0].sealed


# --- eager automation ---------------------------------------------------------------------------

def test_gods_gathers_and_lays_out_before_asking():
    state, events = engine.start(GODS, ["alice", "bob"], {}, "1")
    g = state["game"]
    assert types(events, "gather") == [{"type": "gather", "player": "alice", "took": 3, "forfeited": 0, "crystals": 5}]
    assert len(types(events, "reveal")) == 2 and len(g["display"]) == 2
    assert g["crystals"] == {"alice": 5, "bob": 2}
    res = engine.resolve(GODS, state, {"alice": script("")}, "1")
    assert res.state["game"]["crystals"]["bob"] == 5  # bob gathered as soon as his turn came
    assert len(res.state["game"]["display"]) == 2


def test_toy_income_and_reveal_are_done_at_once():
    state, events = engine.start(TOY, ["a", "b"], {"coins": "1", "income": "2"}, "1")
    assert types(events, "income")[0]["coins"] == {"a": 3, "b": 3}
    res = engine.resolve(TOY, state, {"a": script("bid 2"), "b": script("bid 1")}, "1")
    kinds = [e["type"] for e in res.events]
    # the reveal, the prize and the next round's income all happen in the same resolution
    assert kinds.index("reveal") < kinds.index("won") < kinds.index("income")
    assert types(res.events, "reveal")[0]["bids"] == {"a": 2, "b": 1}
    assert res.state["game"]["coins"] == {"a": 3, "b": 5}  # a paid 2; both took 2 income
    assert res.state["game"]["prizes"] == {"a": 1, "b": 0}
    assert res.state["game"]["round"] == 2 and engine.active_players(TOY, res.state) == ["a", "b"]


def test_toy_game_with_no_decisions_is_played_out_at_start():
    state, events = engine.start(TOY, ["a", "b", "c"], {"coins": "0", "income": "0", "rounds": "4"}, "9")
    assert state["flow"]["over"] and TOY.requests(state) == []
    assert len(types(events, "forced")) == 12  # every bid of every round was forced
    won = types(events, "won")
    assert [w["round"] for w in won] == [1, 2, 3, 4]
    rolls = types(events, "roll")
    assert rolls, "four three-way ties need dice"
    prizes = {p: sum(1 for w in won if w["player"] == p) for p in "abc"}
    assert state["flow"]["outcome"]["winners"] == [p for p in "abc" if prizes[p] == max(prizes.values())]
    # the tie-break dice are the setup stream's: phase 0, drawn in order
    rng = phase_rng("9", 0)
    for roll in rolls:
        assert roll["rolls"] == {p: rng.die() for p in roll["rolls"]}


# --- forced orders, defaults and NMR -------------------------------------------------------------

def _gods_forced_position():
    """alice to act with an empty display and no crystals: 'pass' is her only legal order."""
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    g = state["game"]
    g["deck"][:0] = g["display"]  # put the display back on the pile, conserving cards
    g["display"] = []
    g["stock"] += g["crystals"]["alice"]
    g["crystals"]["alice"] = 0
    return state


def test_gods_forced_orders_are_played_without_asking():
    state = _gods_forced_position()
    assert [o.text for o in GODS.legal_orders(state, "alice")] == ["pass"]
    events = engine.settle(GODS, state, phase_rng("1", 1))
    assert [e for e in events if e["type"] == "forced"] == [
        {"type": "forced", "player": "alice", "order": "pass"},
        {"type": "forced", "player": "alice", "order": "pass"},
    ]
    assert engine.active_players(GODS, state) == ["bob"]
    res = engine.resolve(GODS, state, {"bob": None}, "1")
    assert res.nmr == ["bob"]  # alice was never asked, so she is not NMR


def test_toy_forced_bid_is_not_asked_and_not_nmr():
    state, _ = engine.start(TOY, ["a", "b", "c"], {"coins": "1", "income": "0"}, "7")
    res = engine.resolve(TOY, state, {"a": script("bid 1"), "b": script("bid 0"), "c": script("bid 0")}, "7")
    # a paid her only coin: in round 2 her only order is 'bid 0', played for her
    state2 = res.state
    assert state2["game"]["coins"]["a"] == 0
    assert engine.active_players(TOY, state2) == ["b", "c"]
    assert types(res.events, "forced") == [{"type": "forced", "player": "a", "order": "bid 0", "to": "a"}]
    res2 = engine.resolve(TOY, state2, {"b": script("bid 1"), "c": None}, "7")
    assert res2.nmr == ["c"]
    assert types(res2.events, "reveal")[0]["bids"] == {"a": 0, "b": 1, "c": 0}


def test_gods_nmr_gets_default_orders():
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    first = state["game"]["display"][0]
    res = engine.resolve(GODS, state, {"alice": None}, "1")
    assert res.nmr == ["alice"]
    assert types(res.events, "nmr") == [{"type": "nmr", "player": "alice"}]
    assert len(res.defaulted["alice"]) == 2
    assert res.defaulted["alice"][0] == GODS.default_order(state, "alice").text
    assert res.defaulted["alice"][0].startswith(f"discard {display_word(first)}")
    assert [e["order"] for e in types(res.events, "default")] == res.defaulted["alice"]


@pytest.mark.parametrize("text", ["", "# nothing this turn\n", "GAME g1\nPLAYER alice\nEND\n"])
def test_gods_an_empty_script_is_not_nmr(text):
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    res = engine.resolve(GODS, state, {"alice": script(text)}, "1")
    assert res.nmr == [] and types(res.events, "nmr") == []
    assert len(res.defaulted["alice"]) == 2


def test_gods_all_pass_is_not_nmr():
    state = _gods_forced_position()
    g = state["game"]
    g["crystals"]["alice"], g["stock"] = 3, g["stock"] - 3  # two orders now: pass, or a move
    assert len(GODS.legal_orders(state, "alice")) > 1
    res = engine.resolve(GODS, state, {"alice": script("pass\npass")}, "1")
    assert res.nmr == [] and "alice" not in res.defaulted
    assert [r.status for r in res.lines["alice"]] == ["executed", "executed"]


def test_gods_default_order_is_discard_then_pass():
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    card = state["game"]["display"][0]
    assert GODS.default_order(state, "alice").payload == ("discard", card)
    assert GODS.default_order(_gods_forced_position(), "alice").text == "pass"


def test_toy_no_bid_uses_the_default_bid_zero():
    state, _ = engine.start(TOY, ["a", "b"], {}, "1")
    res = engine.resolve(TOY, state, {"a": script("bid 2"), "b": script("")}, "1")
    assert res.nmr == [] and res.defaulted == {"b": ["bid 0"]}
    # a standing order alone, sent while asked: not NMR, and it makes the bid
    res = engine.resolve(TOY, state, {"a": script("bid 2"), "b": script("autobid 3")}, "1")
    assert res.nmr == [] and res.defaulted == {"b": ["bid 3"]}
    assert types(res.events, "reveal")[0]["bids"] == {"a": 2, "b": 3}


# --- lines: executed, skipped, unused -----------------------------------------------------------

def test_gods_lines_after_the_turn_are_unused_and_illegal_ones_skipped():
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    d0, d1 = (display_word(c) for c in state["game"]["display"])
    text = f"PLAYER alice\ntribe green 40,40\ndiscard {d0}\ndiscard {d1}\ntemple 1,0\npass\n"
    res = engine.resolve(GODS, state, {"alice": script(text)}, "1")
    lines = res.lines["alice"]
    assert [(r.number, r.status) for r in lines] == [
        (2, "skipped"), (3, "executed"), (4, "executed"), (5, "unused"), (6, "unused"),
    ]
    assert "does not adjoin any card" in lines[0].reason and lines[0].reason.startswith("line 2, column 1")
    assert lines[3].reason == "your part of this phase was over"
    skipped = types(res.events, "skipped")
    assert len(skipped) == 1 and skipped[0]["to"] == "alice"  # only alice reads why
    assert "alice" not in res.defaulted
    assert engine.active_players(GODS, res.state) == ["bob"]


def test_toy_a_second_bid_is_skipped_but_a_standing_order_still_counts():
    state, _ = engine.start(TOY, ["a", "b"], {}, "1")
    res = engine.resolve(TOY, state, {"a": script("bid 1\nbid 2\nautobid 3"), "b": script("bid 0")}, "1")
    assert [r.status for r in res.lines["a"]] == ["executed", "skipped", "executed"]
    assert "only standing orders can be given now" in res.lines["a"][1].reason
    assert res.state["game"]["autobid"]["a"] == 3
    assert types(res.events, "reveal")[0]["bids"]["a"] == 1


# --- standing orders ----------------------------------------------------------------------------

def test_toy_standing_order_is_kept_and_used_when_no_bid_is_sent():
    state, _ = engine.start(TOY, ["a", "b", "c"], {"coins": "5", "income": "0"}, "4")
    res = engine.resolve(TOY, state, {"a": script("bid 2"), "b": script("autobid 5\nbid 1"), "c": script("bid 0")}, "4")
    assert res.state["game"]["autobid"] == {"a": None, "b": 5, "c": None}
    # round 2: b sends nothing at all: NMR, and the standing order bids for b
    res2 = engine.resolve(TOY, res.state, {"a": script("bid 1"), "b": None, "c": script("bid 2")}, "4")
    assert res2.nmr == ["b"] and res2.defaulted == {"b": ["bid 5"]}
    assert types(res2.events, "won")[0] == {"type": "won", "round": 2, "player": "b", "paid": 5}
    # round 3: b has 0 coins left and is forced to bid 0, the standing order notwithstanding
    assert res2.state["game"]["coins"]["b"] == 0
    assert "b" not in engine.active_players(TOY, res2.state)
    # and 'autobid off' cancels it
    res3 = engine.resolve(TOY, res2.state, {"a": script("bid 0"), "b": script("autobid off"), "c": script("bid 0")}, "4")
    assert res3.state["game"]["autobid"]["b"] is None


def test_toy_standing_order_from_a_player_not_asked_is_applied_and_private():
    state, _ = engine.start(TOY, ["a", "b", "c"], {"coins": "1", "income": "0"}, "7")
    state = engine.resolve(TOY, state, {"a": script("bid 1"), "b": script("bid 0"), "c": script("bid 0")}, "7").state
    assert "a" not in engine.active_players(TOY, state)  # forced, not asked
    # at submission: the standing order is accepted, a bid is not
    acks = engine.check_script(TOY, state, "a", script("autobid 2\nbid 0"))
    assert [r.status for r in acks] == ["accepted", "rejected"]
    assert "it is not your turn; awaiting b, c" in acks[1].reason
    res = engine.resolve(TOY, state, {"a": script("autobid 2"), "b": script("bid 1"), "c": script("bid 0")}, "7")
    assert res.nmr == []
    assert res.state["game"]["autobid"]["a"] == 2
    assert [r.status for r in res.lines["a"]] == ["executed"]
    mine = [e for e in res.events if e.get("player") == "a" and e["type"] in ("order", "autobid")]
    assert mine and all(e.get("to") == "a" for e in mine)
    for other in ("b", "c", None):
        seen = visible_events(res.events, other)
        assert not any(e["type"] in ("autobid",) or e.get("order", "").startswith("autobid") for e in seen)


def test_gods_has_no_standing_orders_so_out_of_turn_lines_are_refused():
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    acks = engine.check_script(GODS, state, "bob", script("discard green"))
    assert acks[0].status == "rejected" and "it is not your turn" in acks[0].reason
    res = engine.resolve(GODS, state, {"alice": script(""), "bob": script("pass")}, "1")
    assert [r.status for r in res.lines["bob"]] == ["skipped"]
    assert res.nmr == []


# --- views: sealed bids and standing orders never leak ------------------------------------------

def _views(rules, state, viewers):
    return {v: rules.view(state, v) for v in viewers}


def test_a_sealed_bid_is_in_no_other_view_before_the_reveal():
    state, _ = engine.start(TOY, ["a", "b", "c"], {"coins": "6", "income": "0"}, "1")
    rng = phase_rng("1", 1)
    seen = []
    for amount in range(7):
        s = copy.deepcopy(state)
        order = [o for o in TOY.legal_orders(s, "a") if o.payload == ("bid", amount)][0]
        events = TOY.apply(s, "a", order, rng)
        seen.append((_views(TOY, s, ["b", "c", None]), [visible_events(events, v) for v in ("b", "c", None)]))
        assert TOY.view(s, "a")["your_bid"] == amount  # the bidder sees it
        assert TOY.view(s, None)["bid_in"] == ["a"]  # the others see only that it is in
    assert all(x == seen[0] for x in seen), "another player's view depends on a's sealed bid"


def test_a_standing_order_is_in_no_other_view():
    state, _ = engine.start(TOY, ["a", "b"], {}, "1")
    views = []
    for text in ("autobid 0", "autobid 5", "autobid off"):
        res = engine.resolve(TOY, state, {"a": script(text + "\nbid 0"), "b": script("bid 0")}, "1")
        views.append((TOY.view(res.state, "b"), TOY.view(res.state, None), visible_events(res.events, "b")))
        assert TOY.view(res.state, "a")["your_autobid"] == {"autobid 0": 0, "autobid 5": 5, "autobid off": None}[text]
    assert views[0] == views[1] == views[2]


def test_a_forced_sealed_bid_is_private_until_the_reveal():
    state, _ = engine.start(TOY, ["a", "b", "c"], {"coins": "1", "income": "0"}, "7")
    res = engine.resolve(TOY, state, {"a": script("bid 1"), "b": script("bid 0"), "c": script("bid 0")}, "7")
    # a's forced round-2 bid is in the state, and in the events of this report ...
    assert res.state["game"]["bids"] == {"a": 0}
    for other in ("b", "c", None):
        assert not any(e["type"] == "forced" for e in visible_events(res.events, other))
        assert "your_bid" not in TOY.view(res.state, other) or TOY.view(res.state, other)["your_bid"] is None
    assert any(e["type"] == "forced" for e in visible_events(res.events, "a"))


# --- the per-phase RNG --------------------------------------------------------------------------

def test_rng_known_values_are_pinned():
    """If the algorithm changes, every stored game stops replaying: this must not move."""
    rng = Rng("x", "phase-1")
    assert [rng.die() for _ in range(8)] == [3, 5, 2, 6, 3, 2, 1, 1]
    rng = Rng("x", "phase-1")
    items = list(range(10))
    rng.shuffle(items)
    assert items == [4, 5, 3, 0, 1, 9, 2, 8, 7, 6]
    assert rng.randbelow(1000) == 695
    assert phase_rng("42", 3).dice(5, 20) == [13, 20, 7, 9, 8]
    assert seed_hash("1") == "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b"


def test_rng_is_sha256_counter_mode_as_documented():
    def reference(seed, stream, count, sides):
        out, counter = [], 0
        limit = (1 << 64) - ((1 << 64) % sides)
        while len(out) < count:
            x = int.from_bytes(hashlib.sha256(f"{seed}/{stream}/{counter}".encode()).digest()[:8], "big")
            counter += 1
            if x < limit:
                out.append(x % sides + 1)
        return out

    for seed, phase, sides in [("x", 1, 6), ("123456", 17, 20), ("g", 0, 2), ("s", 5, 1000)]:
        assert phase_rng(seed, phase).dice(50, sides) == reference(seed, f"phase-{phase}", 50, sides)


def test_rng_same_seed_and_phase_same_draws_else_different():
    a = phase_rng("game-seed", 4).dice(30)
    assert phase_rng("game-seed", 4).dice(30) == a
    assert phase_rng("game-seed", 5).dice(30) != a
    assert phase_rng("other-seed", 4).dice(30) != a
    assert phase_rng("game-seed", 4).stream == "phase-4"


def test_rng_resumes_from_a_counter_and_logs_draws():
    full = Rng("s", "phase-2")
    values = full.dice(6)
    resumed = Rng("s", "phase-2", counter=3)
    assert resumed.dice(3) == values[3:]
    assert resumed.state() == {"stream": "phase-2", "counter": 6}
    log = Rng("s", "t")
    log.die(8)
    log.shuffle([1, 2, 3])
    assert [d[0] for d in log.draws] == ["d8", "shuffle"]
    with pytest.raises(ValueError):
        log.randbelow(0)
    with pytest.raises(ValueError):
        log.choice([])


def test_toy_tie_break_rolls_are_the_phases_stream():
    state, _ = engine.start(TOY, ["a", "b", "c"], {"coins": "3", "income": "0"}, "s1")
    scripts = {"a": script("bid 2"), "b": script("bid 2"), "c": script("bid 2")}

    def rolls_at(number):
        s = copy.deepcopy(state)
        s["flow"]["number"] = number
        res = engine.resolve(TOY, s, scripts, "s1")
        rolls = types(res.events, "roll")
        rng = phase_rng("s1", number)
        for roll in rolls:  # every die shown, in the order drawn from the phase's stream
            assert roll["rolls"] == {p: rng.die() for p in roll["rolls"]}
        return rolls, res

    first, res_a = rolls_at(1)
    again, res_b = rolls_at(1)
    assert first == again and res_a.events == res_b.events
    assert engine.state_hash(res_a.state) == engine.state_hash(res_b.state)
    other, _ = rolls_at(2)
    assert other != first  # a different phase draws a different stream
    winner = types(res_a.events, "won")[0]["player"]
    assert max(first[-1]["rolls"].items(), key=lambda kv: kv[1])[0] == winner


def test_gods_setup_shuffle_is_replayable_from_the_seed():
    s1, e1 = engine.start(GODS, ["alice", "bob"], {"start": "random"}, "77")
    s2, e2 = engine.start(GODS, ["alice", "bob"], {"start": "random"}, "77")
    s3, _ = engine.start(GODS, ["alice", "bob"], {"start": "random"}, "78")
    assert engine.state_hash(s1) == engine.state_hash(s2) and e1 == e2
    assert s1["game"]["deck"] != s3["game"]["deck"]
    assert s1["game"]["deck"][-3:].count("gameend") == 1


# --- purity and determinism ---------------------------------------------------------------------

@pytest.mark.parametrize("who", ["alice", "bob"])
def test_check_script_never_changes_the_state(who):
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    before = copy.deepcopy(state)
    d0, d1 = (display_word(c) for c in state["game"]["display"])
    text = f"tribe green 2,-1\ndiscard {d0}\ndiscard {d1}\nwasteland 0,1\nnonsense\nt 1,0\n"
    results = engine.check_script(GODS, state, who, script(text))
    assert len(results) == 6
    assert state == before
    assert engine.state_hash(state) == engine.state_hash(before)


def test_check_script_never_changes_the_toy_state():
    state, _ = engine.start(TOY, ["a", "b"], {}, "1")
    before = copy.deepcopy(state)
    results = engine.check_script(TOY, state, "a", script("autobid 3\nbid 1\nbid 2\nautobid off\nbid 99"))
    assert [r.status for r in results] == ["accepted", "accepted", "rejected", "accepted", "rejected"]
    assert state == before


def test_resolve_is_deterministic_and_leaves_its_input_alone():
    rng = random.Random(5)
    state, _ = engine.start(GODS, ["alice", "bob", "carol"], {}, "5")
    for _ in range(12):
        before = copy.deepcopy(state)
        p = engine.active_players(GODS, state)[0]
        text = "\n".join(host.bot_script(GODS, state, p, rng))
        r1 = engine.resolve(GODS, state, {p: script(text)}, "5")
        r2 = engine.resolve(GODS, copy.deepcopy(state), {p: script(text)}, "5")
        assert state == before
        assert engine.state_hash(r1.state) == engine.state_hash(r2.state)
        assert r1.events == r2.events and r1.lines == r2.lines
        assert r1.state["flow"]["number"] == before["flow"]["number"] + 1
        state = r1.state


def test_state_hash_is_canonical():
    a = {"flow": {"x": 1, "y": [1, 2]}, "game": {"b": 2, "a": 1}}
    b = {"game": {"a": 1, "b": 2}, "flow": {"y": [1, 2], "x": 1}}
    assert engine.state_hash(a) == engine.state_hash(b)
    assert engine.state_hash(a) != engine.state_hash({**a, "game": {"a": 1, "b": 3}})


# --- a whole toy game: random bids, NMRs and standing orders -------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_toy_games_end_and_conserve_coins(n):
    for game in range(15):
        seed = f"toy-{n}-{game}"
        players = [f"p{i}" for i in range(n)]
        conf = {"rounds": 3 + game % 3, "coins": game % 3, "income": (game + 1) % 3}
        state, _ = engine.start(TOY, players, {k: str(v) for k, v in conf.items()}, seed)
        rng = random.Random(seed)
        paid = 0
        for _ in range(50):
            if state["flow"]["over"]:
                break
            asked = engine.active_players(TOY, state)
            assert asked and all(r.sealed for r in TOY.requests(state))
            scripts = {}
            for p in players:
                roll = rng.random()
                if p in asked and roll < 0.2:
                    scripts[p] = None  # NMR
                elif roll < 0.4:
                    scripts[p] = script(f"autobid {rng.randint(0, 6)}")
                elif p in asked:
                    scripts[p] = script("\n".join(host.bot_script(TOY, state, p, rng)))
            res = engine.resolve(TOY, state, scripts, seed)
            assert sorted(res.nmr) == sorted(p for p in asked if scripts.get(p) is None)
            paid += sum(w["paid"] for w in types(res.events, "won"))
            state = res.state
            g = state["game"]
            assert all(c >= 0 for c in g["coins"].values())
            assert sum(g["coins"].values()) == n * (conf["coins"] + conf["income"] * g["round"]) - paid
            assert sum(g["prizes"].values()) == len(g["history"])
        assert state["flow"]["over"], "the toy game did not end"
        assert sum(state["game"]["prizes"].values()) == conf["rounds"]
        assert TOY.outcome(state)["winners"]


class _GodsEndingAtOnce(type(GODS)):
    """GODS where the first order a player gives ends the game (as a winning claim or the
    destruction of the last rival does in Faith)."""

    def apply(self, state, player, order, rng):
        events = super().apply(state, player, order, rng)
        state["flow"].update(over=True, active=[])
        state["flow"]["outcome"] = {"winners": [player], "reason": "a test"}
        return events + [{"type": "game_over", "winners": [player]}]


def test_lines_after_an_order_that_ends_the_game_are_told_the_game_is_over():
    rules = _GodsEndingAtOnce(GODS.data)
    state, _ = engine.start(rules, ["alice", "bob"], {}, "1")
    first = rules.legal_orders(state, "alice")[0].text
    acks = engine.check_script(rules, state, "alice", script(f"{first}\n{first}"))
    assert acks[0].status == "accepted"
    assert acks[1].status == "rejected" and "the game is over" in acks[1].reason, acks[1].reason
    assert "not your turn" not in acks[1].reason and "used up" not in acks[1].reason
    res = engine.resolve(rules, state, {"alice": script(f"{first}\n{first}"), "bob": script("pass")}, "1")
    assert res.state["flow"]["over"]
    assert [r.status for r in res.lines["alice"]] == ["executed", "unused"]
    assert "the game is over" in res.lines["alice"][1].reason
