"""Reactions asked live (issue 18): Oh Gods!'s Block with the game option `reactions=ask`.

Through the host: the phase that asks the victim gets the game's `reaction_deadline`, the
victim alone is asked (the others' reports say whom the turn waits for, and nothing of the
victim's hand), an unanswered reaction falls back to the standing order at that deadline, and
the thief is asked again for the rest of the turn. The engine alone: the acknowledgement says
honestly that the lines after the steal depend on another player's answer, random play-outs
with the option end and keep every card in one place, and `reactions=standing` (the default)
changes nothing in the state."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from pbem import host
from pbem.core import engine
from pbem.core.errors import PbemError
from pbem.core.orders import read_script
from pbem.core.registry import get_rules
from pbem.host import controls, read, schedule
from pbem.host.store import dumps, loads

T0 = "2026-11-23T10:00:00Z"
RULES_OH = get_rules("ohgods")
PLAYERS = ["alice:alice@example.org", "bob:bob@example.org", "carol:carol@example.org"]
BOB_HAND = ["block-3", "anubis", "aengus", "helios", "isis", "ra"]


@pytest.fixture
def clock(monkeypatch):
    def set_to(when: str) -> None:
        monkeypatch.setenv("PBEM_NOW", when)
    set_to(T0)
    return set_to


def lay_position(db, game_id: str) -> None:
    """Alice's turn, two actions, Thor on bob's altar within her reach; bob holds a Block."""
    rules = get_rules("ohgods")
    row = read.phase(db, game_id, 1)
    state = loads(row["state"])
    g = state["game"]
    g["hands"] = {"alice": ["kama", "yama", "osiris", "nut", "nun", "eir"], "bob": list(BOB_HAND),
                  "carol": ["zeus", "hera", "odin", "indra", "sol", "hel"]}
    g["altars"] = {"alice": ["ares", "durga", "poseidon", "aphrodite"], "bob": ["thor", "tyr", "njord"],
                   "carol": ["sekhmet", "morrigan", "freyja", "hades"]}
    used = {c for part in (g["hands"], g["altars"]) for cards in part.values() for c in cards}
    g["deck"] = [c for c in rules.deck_ids if c not in used]
    g["discard"] = []
    g["turn"] = {"player": "alice", "actions_left": 2, "free_used": [], "number": 1}
    state["flow"].update(active=["alice"], phase="turn")
    db["phases"].update((game_id, 1), {"state": dumps(state), "state_hash": engine.state_hash(state),
                                       "active": dumps(["alice"])})


def new_game(db, turns, options: dict, game_id: str = "r1") -> None:
    host.new_game(db, "ohgods", game_id, PLAYERS, seed="7", options=options,
                  sched=schedule.make_schedule("72h", None, None), turns=turns)
    lay_position(db, game_id)


def gm_orders(db, game_id: str, player: str, *lines: str):
    return host.submit(db, game_id, player, "\n".join(lines).encode(), trusted=True)


def events_of(db, game_id: str, phase: int) -> list[dict]:
    return [loads(r["data"]) for r in db["events"].rows_where("game_id = ? and phase = ?", [game_id, phase],
                                                               order_by="seq")]


def test_the_reaction_phase_gets_the_short_deadline_and_asks_the_victim_alone(db, turns, clock):
    new_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    ack = gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "play kama")
    assert [r.status for r in ack.lines] == ["accepted", "accepted"]
    # honest about the line after the steal: it waits for bob's answer and will not run now
    assert "depends on another player's answer" in ack.lines[1].reason
    assert "bob" in ack.lines[1].reason and "not run" in ack.lines[1].reason
    assert "line   2: accepted, waiting for an answer  play kama (depends on another player's answer" in ack.text
    assert "if the dice allow" not in ack.text  # no dice: an answer

    host.resolve(db, ["r1"], turns=turns)
    game = read.game(db, "r1")
    assert game["phase"] == 2
    assert game["deadline"] == "2026-11-23T22:00:00Z"  # 12h, not the schedule's 72h
    assert loads(read.phase(db, "r1", 2)["active"]) == ["bob"]
    state = loads(read.phase(db, "r1", 2)["state"])
    assert state["flow"]["pace"] == "reaction"

    # bob alone is asked, with a clear prompt; the others see whom the turn waits for
    bob = host.report(db, "r1", "bob")
    assert "alice steals Thor from your altar" in bob and "`block`" in bob and "`allow`" in bob
    for other in ("alice", "carol", None):
        text = host.report(db, "r1", other)
        assert "bob" in text and "Thor" in text
        for card in ("Aengus", "Anubis", "Isis"):  # bob's hand stays hidden
            assert card not in text, (other, card)
    assert "Aengus" in bob
    # alice's line after the steal was not run, and her report says why
    assert any(e["type"] == "steal_asked" and "to" not in e for e in events_of(db, "r1", 1))

    # the victim answers: the thief's turn goes on in a new phase with the usual deadline
    clock("2026-11-23T11:00:00Z")
    gm_orders(db, "r1", "bob", "allow")
    host.resolve(db, ["r1"], turns=turns)
    game = read.game(db, "r1")
    assert game["phase"] == 3 and game["deadline"] == "2026-11-26T11:00:00Z"
    assert loads(read.phase(db, "r1", 3)["active"]) == ["alice"]
    evs = events_of(db, "r1", 2)
    assert any(e["type"] == "steal" and e["god"] == "Thor" for e in evs)
    answer = [e for e in evs if e["type"] == "order" and e["player"] == "bob"]
    assert answer and answer[0]["to"] == "bob"  # the answer itself is bob's own


def test_no_answer_by_the_reaction_deadline_falls_back_to_the_standing_order(db, turns, clock):
    new_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "pass")
    host.resolve(db, ["r1"], turns=turns)
    assert read.game(db, "r1")["deadline"] == "2026-11-23T22:00:00Z"

    clock("2026-11-23T21:59:00Z")  # before the short deadline: the turn waits for bob
    assert host.resolve(db, ["r1"], turns=turns)[0].outcome == "waiting"
    assert read.game(db, "r1")["phase"] == 2

    clock("2026-11-23T22:00:00Z")
    assert "r1" in host.due_games(db, turns)
    host.resolve(db, ["r1"], turns=turns)
    evs = events_of(db, "r1", 2)
    kinds = [e["type"] for e in evs]
    assert kinds[:2] == ["nmr", "default"] and evs[1]["order"] == "block"  # bob's standing order: block any steal
    assert "blocked" in kinds and "steal" not in kinds
    state = loads(read.phase(db, "r1", 3)["state"])
    assert "block-3" not in state["game"]["hands"]["bob"] and "thor" in state["game"]["altars"]["bob"]
    assert state["game"]["turn"] == {"player": "alice", "actions_left": 1, "free_used": [], "number": 1}
    assert read.game(db, "r1")["deadline"] == "2026-11-26T22:00:00Z"  # the thief's phase: the schedule's


def test_without_a_reaction_deadline_the_reaction_phase_keeps_the_usual_one(db, turns, clock):
    new_game(db, turns, {"reactions": "ask"})
    gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite")
    host.resolve(db, ["r1"], turns=turns)
    assert read.game(db, "r1")["deadline"] == "2026-11-26T10:00:00Z"
    # the GM sets one: the next reaction phase gets it
    assert controls.set_option(db, "r1", "reaction_deadline", "6h")["value"] == "6h"
    assert read.host_options(db, "r1")["reaction_deadline"] == "6h"
    with pytest.raises(PbemError, match="reaction_deadline 'soon' is not a duration"):
        controls.set_option(db, "r1", "reaction_deadline", "soon")


def test_standing_reactions_never_stop_the_turn(db, turns, clock):
    # reactions=standing: a reaction_deadline would never be used, so it is refused (tester4 finding 13)
    with pytest.raises(PbemError, match="never asks a player a reaction live"):
        new_game(db, turns, {"reaction_deadline": "12h"})
    new_game(db, turns, {})
    ack = gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "play kama")
    assert "depends on another player's answer" not in ack.text
    host.resolve(db, ["r1"], turns=turns)
    assert read.game(db, "r1")["deadline"] == "2026-11-26T10:00:00Z"
    assert loads(read.phase(db, "r1", 2)["active"]) == ["bob"]  # bob's own turn: the steal was blocked, alice played
    assert "pace" not in loads(read.phase(db, "r1", 2)["state"])["flow"]


def test_the_cli_takes_reactions_and_the_reaction_deadline(cli, clock):
    r = cli("new", "ohgods", "c1", "--player", "ann", "--player", "bea", "--every", "72h",
            "--option", "reactions=ask", "--reaction-deadline", "12h")
    assert r.exit_code == 0, r.output
    r = cli("set", "c1", "reaction_deadline", "6h")
    assert r.exit_code == 0, r.output
    r = cli("new", "ohgods", "c2", "--player", "ann", "--player", "bea", "--option", "reactions=sometimes")
    assert r.exit_code != 0 and "reactions must be 'standing' or 'ask'" in r.output
    assert "Traceback" not in r.output


# --- the engine alone ------------------------------------------------------------------------------

def test_the_default_is_todays_state():
    rules = get_rules("ohgods")
    players = ["a", "b", "c"]
    plain, _ = engine.start(rules, players, {}, "5")
    standing, _ = engine.start(rules, players, {"reactions": "standing"}, "5")
    asked, _ = engine.start(rules, players, {"reactions": "ask"}, "5")
    assert engine.state_hash(plain) == engine.state_hash(standing)
    assert "reactions" not in plain["game"] and asked["game"]["reactions"] == "ask"


@pytest.mark.parametrize("seed", range(4))
def test_random_play_with_reactions_asked_keeps_every_card_and_every_secret(seed):
    from pbem.core.citations import cite_event
    from pbem.render.html import event_texter

    sentence = event_texter("ohgods", True)
    rules = get_rules("ohgods")
    players = ["p1", "p2", "p3"]
    state, _ = engine.start(rules, players, {"reactions": "ask"}, str(seed))
    asked = 0
    for phase in range(400):
        if state["flow"].get("over"):
            break
        if state["flow"].get("pace") == "reaction":
            asked += 1
            pend = state["game"]["pending"]
            assert engine.active_players(rules, state) == [pend["victim"]]
            public = rules.view(state, None)
            assert "hand" not in public and public["reaction"]["victim"] == pend["victim"]
            assert "blocks_held" not in public and "block" not in public
            assert "hand" not in rules.view(state, pend["thief"])["reaction"]
        scripts = {p: read_script("\n".join(host.bot_script(rules, state, p, random.Random(f"{seed}/{phase}/{p}"))))
                   for p in engine.active_players(rules, state)}
        res = engine.resolve(rules, state, scripts, str(seed))
        for e in res.events:
            text = sentence(e)  # every event of the ask path reads as a sentence and names its rule
            assert text and not text.startswith(f"{e['type']}:") and text != e["type"], (e, text)
            assert cite_event(rules.data, e), f"no rule cited for {e}"
            if e["type"] in ("no_block", "not_blocked", "block_policy", "dealt", "formed"):
                assert e.get("to") in players, e
            if e["type"] == "order" and e["order"] in ("block", "allow"):
                assert e.get("to") == e["player"], e
        state = res.state
        g = state["game"]
        places = list(g["deck"]) + list(g["discard"])
        for p in players:
            places += g["hands"][p] + g["altars"][p] + [c for s in g["sets"][p] for c in s["cards"]]
            places += [g["sanctuary"][p]] if g["sanctuary"][p] else []
        assert not [c for c, n in Counter(places).items() if n > 1]
        assert sorted(places) == sorted(rules.deck_ids)
    assert state["flow"].get("over"), "the play-out did not end"
    assert asked, "no steal was asked in this play-out"


# --- Deity: Abjuration and Resurrection asked live ------------------------------------------------

DEITY_PLAYERS = ["red:red@example.org", "blue:blue@example.org", "green:green@example.org"]


BLANK_HEX = {"owner": None, "pop": 0, "armies": 0, "monsters": 0, "temple": False, "blight": None}


def arranged_deity_game(db, turns, options: dict, game_id: str, land: dict, hands: dict, blue_resurrects: int,
                        step: str) -> None:
    """A new Deity game of red, blue and green arranged by hand: `land` (hex -> fields over a
    blank hex), the hands (the deck holds the rest of the cards), blue's standing orders
    (abjure anything; resurrect at `blue_resurrects`+ losses), red on turn at `step`."""
    host.new_game(db, "deity", game_id, DEITY_PLAYERS, seed="7", options=options,
                  sched=schedule.make_schedule("72h", None, None), turns=turns)
    rules = get_rules("deity")
    state = loads(read.phase(db, game_id, 1)["state"])
    g = state["game"]
    g["land"] = {at: dict(BLANK_HEX, **fields) for at, fields in land.items()}
    g["hands"] = hands
    deck = [c for c in rules.tab.card_ids for _ in range(2)]
    for c in (c for h in hands.values() for c in h):
        deck.remove(c)
    g["deck"], g["discard"], g["round"] = deck, [], 1
    g["standing"]["blue"] = {"abjure": [{"card": "any", "mine": False}], "resurrect": blue_resurrects}
    g["turn"] = rules._fresh_turn("red")
    g["turn"]["step"] = step
    state["flow"].update(phase="turn", active=["red"], sealed=False, prompt="red: your turn")
    db["phases"].update((game_id, 1), {"state": dumps(state), "state_hash": engine.state_hash(state),
                                       "active": dumps(["red"])})


def deity_game(db, turns, options: dict, game_id: str = "d1") -> None:
    """Red's Miracle phase, a Fire in hand against blue's forest; blue holds an Abjuration."""
    arranged_deity_game(
        db, turns, options, game_id,
        land={"2,2": dict(terrain="plains", owner="red", pop=4), "3,2": dict(terrain="plains"),
              "4,2": dict(terrain="forest", owner="blue", pop=5), "4,5": dict(terrain="plains", owner="green", pop=5)},
        hands={"red": ["fire", "prophet"], "blue": ["abjuration", "plague", "chasm"], "green": ["earthquake"]},
        blue_resurrects=0, step="miracle")


def test_deity_a_card_asks_the_next_player_alone_with_the_short_deadline(db, turns, clock):
    deity_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    ack = gm_orders(db, "d1", "red", "play fire 4,2", "play prophet 2,2")
    assert [r.status for r in ack.lines] == ["accepted", "accepted"]
    assert "depends on another player's answer" in ack.lines[1].reason and "blue" in ack.lines[1].reason
    host.resolve(db, ["d1"], turns=turns)
    game = read.game(db, "d1")
    assert game["phase"] == 2 and game["deadline"] == "2026-11-23T22:00:00Z"
    assert loads(read.phase(db, "d1", 2)["active"]) == ["blue"]
    blue = host.report(db, "d1", "blue")
    assert "red plays Fire at 4,2" in blue and "`play abjuration`" in blue
    for other in ("red", "green", None):
        text = host.report(db, "d1", other)
        assert "blue" in text
        for card in ("Plague", "Chasm"):  # blue's hand stays hidden
            assert card not in text, (other, card)
        assert "abjure any" not in text  # and so do blue's standing orders
    assert "Plague" in blue

    # no answer by the short deadline: blue's standing order (abjure any) plays the Abjuration
    clock("2026-11-23T21:59:00Z")
    assert host.resolve(db, ["d1"], turns=turns)[0].outcome == "waiting"
    clock("2026-11-23T22:00:00Z")
    host.resolve(db, ["d1"], turns=turns)
    evs = events_of(db, "d1", 2)
    assert [e["type"] for e in evs][:2] == ["nmr", "default"] and evs[1]["order"] == "play abjuration"
    assert any(e["type"] == "abjure" and e["player"] == "blue" for e in evs)
    # green may hold the other Abjuration: asked in turn, alone
    assert loads(read.phase(db, "d1", 3)["active"]) == ["green"]
    gm_orders(db, "d1", "green", "pass")
    host.resolve(db, ["d1"], turns=turns)
    evs = events_of(db, "d1", 3)
    assert any(e["type"] == "negated" and e["card"] == "fire" for e in evs)
    assert loads(read.phase(db, "d1", 4)["active"]) == ["red"]
    state = loads(read.phase(db, "d1", 4)["state"])
    assert "pace" not in state["flow"] and "asking" not in state["game"]
    assert state["game"]["land"]["4,2"]["pop"] == 5


def test_deity_the_default_is_todays_state_and_a_battle_asks_no_one():
    rules = get_rules("deity")
    players = ["a", "b", "c"]
    plain, _ = engine.start(rules, players, {}, "5")
    standing, _ = engine.start(rules, players, {"reactions": "standing"}, "5")
    asked, _ = engine.start(rules, players, {"reactions": "ask"}, "5")
    assert engine.state_hash(plain) == engine.state_hash(standing)
    assert "reactions" not in plain["game"] and asked["game"]["reactions"] == "ask"
    with pytest.raises(PbemError, match="reactions must be 'standing' or 'ask'"):
        engine.start(rules, players, {"reactions": "sometimes"}, "5")


@pytest.mark.parametrize("seed", range(3))
def test_deity_random_play_with_reactions_asked_keeps_every_card_and_every_secret(seed):
    from pbem.core.citations import cite_event
    from pbem.render.html import event_texter

    sentence = event_texter("deity", True)
    rules = get_rules("deity")
    players = ["p1", "p2", "p3"]
    state, _ = engine.start(rules, players, {"reactions": "ask", "rounds": "6"}, str(seed))
    asked = Counter()
    for phase in range(2000):
        if state["flow"].get("over"):
            break
        pick = random.Random(f"{seed}/{phase}")
        if state["flow"].get("pace") == "reaction":
            a = state["game"]["asking"]
            asked[a["kind"]] += 1
            # the player on turn is asked only about his own battle (fight on or retreat)
            assert engine.active_players(rules, state) == [a["who"]]
            assert (a["who"] == state["game"]["turn"]["player"]) == (a["kind"] == "battle")
            public = rules.view(state, None)
            assert public["reaction"]["asked"] == a["who"] and "hand" not in public and "standing" not in public
            answers = ["fight on", "retreat", ""] if a["kind"] == "battle" else ["play " + a["kind"], "pass", ""]
            scripts = {a["who"]: read_script(pick.choice(answers))}
        else:
            scripts = {p: read_script("\n".join(host.bot_script(rules, state, p, random.Random(f"{seed}/{phase}/{p}"))))
                       for p in engine.active_players(rules, state)}
        res = engine.resolve(rules, state, scripts, str(seed))
        for e in res.events:
            text = sentence(e)  # every event of the ask path reads as a sentence in the reports
            assert text and not text.startswith(f"{e['type']}:") and text != e["type"], (e, text)
            assert cite_event(rules.data, e), f"no rule cited for {e}"  # ...and names its rule (issue 18)
            if e["type"] in ("no_card", "standing", "drew"):
                assert e.get("to") in players, e
            if e["type"] == "order" and e["order"].startswith(("play abjuration", "play resurrection", "pass")) \
                    and state["flow"].get("pace") == "reaction":
                assert e.get("to") == e["player"], e
        state = res.state
        g = state["game"]
        cards = Counter(list(g["deck"]) + list(g["discard"]) + [c for p in players for c in g["hands"][p]])
        assert cards == Counter({c: 2 for c in rules.tab.card_ids})
        assert all(c["pop"] >= 0 and c["armies"] >= 0 for c in g["land"].values())
    assert state["flow"].get("over"), "the play-out did not end"
    assert asked["abjuration"], "no card was asked about in this play-out"


# --- Deity: the attacker asked after a battle round whether to fight on or retreat -----------------

def deity_battle_game(db, turns, options: dict, game_id: str = "b1") -> None:
    """Red's Battle phase: ten armies next to blue's river valley of 25 population, which no
    first round can empty (20 attack dice) nor strip red of his armies; blue's hand is secret."""
    arranged_deity_game(
        db, turns, options, game_id,
        land={"2,2": dict(terrain="plains", owner="red", pop=2, armies=10),
              "3,2": dict(terrain="river", owner="blue", pop=25), "2,3": dict(terrain="plains"),
              "4,5": dict(terrain="plains", owner="green", pop=5)},
        hands={"red": ["prophet"], "blue": ["plague", "chasm"], "green": ["earthquake"]},
        blue_resurrects=2, step="battle")


BATTLE_ORDERS = ("attack 2,2 -> 3,2 10 retreat 1", "move 1 pop 2,2 -> 2,3", "pass")


def test_deity_a_battle_round_asks_the_attacker_alone_with_the_short_deadline(db, turns, clock):
    deity_battle_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    ack = gm_orders(db, "b1", "red", *BATTLE_ORDERS)
    assert [r.status for r in ack.lines] == ["accepted", "accepted", "accepted"]
    assert all("depends on another player's answer" in r.reason for r in ack.lines[1:])
    host.resolve(db, ["b1"], turns=turns)
    game = read.game(db, "b1")
    assert game["phase"] == 2 and game["deadline"] == "2026-11-23T22:00:00Z"
    assert loads(read.phase(db, "b1", 2)["active"]) == ["red"]
    evs = events_of(db, "b1", 1)
    asked = [e for e in evs if e["type"] == "reaction_asked"]
    assert len(asked) == 1 and asked[0]["player"] == "red" and asked[0]["question"] == "battle"
    assert [e["type"] for e in evs if e["type"].startswith("battle")] == ["battle", "battle_round"]
    unused = [e for e in evs if e["type"] == "unused"]
    assert [e["line"] for e in unused] == [2, 3] and all(e["to"] == "red" for e in unused)
    assert loads(read.phase(db, "b1", 2)["state"])["game"]["land"]["2,3"]["pop"] == 0  # the move waits

    red = host.report(db, "b1", "red")
    assert "`fight on`" in red and "`retreat`" in red and "your `retreat 1` decides" in red
    for other in ("blue", "green", None):
        text = host.report(db, "b1", other)
        assert "red, asked live whether to fight on or retreat in the battle at 3,2" in text, other
        for card in ("Plague", "Chasm"):  # blue's hand stays hidden
            assert card not in text or other == "blue", (other, card)
        assert "abjure any" not in text or other == "blue"
    for other in ("red", "green", None):
        assert "Plague" not in host.report(db, "b1", other) and "abjure any" not in host.report(db, "b1", other)

    # blue may not answer for red; red retreats, and his later line waits for the next phase
    ack = gm_orders(db, "b1", "blue", "retreat")
    assert [r.status for r in ack.lines] == ["rejected"] and "not your turn" in ack.lines[0].reason
    ack = gm_orders(db, "b1", "red", "retreat", "pass")
    assert ack.lines[0].status == "accepted" and "depends on another player's answer" in ack.lines[1].reason
    host.resolve(db, ["b1"], turns=turns)
    evs = events_of(db, "b1", 2)
    end = [e for e in evs if e["type"] == "battle_end"]
    assert len(end) == 1 and end[0]["result"] == "retreat" and end[0]["rounds"] == 1
    assert [e["line"] for e in evs if e["type"] == "unused"] == [2]
    assert not any(e["type"] == "turn_end" for e in evs)
    # asked for the rest of his turn, with the usual deadline
    game = read.game(db, "b1")
    assert game["phase"] == 3 and game["deadline"] == "2026-11-26T10:00:00Z"
    assert loads(read.phase(db, "b1", 3)["active"]) == ["red"]
    state = loads(read.phase(db, "b1", 3)["state"])
    assert "pace" not in state["flow"] and "asking" not in state["game"] and "held" not in state["game"]
    gm_orders(db, "b1", "red", "move 1 pop 2,2 -> 2,3", "pass")
    host.resolve(db, ["b1"], turns=turns)
    evs = events_of(db, "b1", 3)
    # the move leaves the Battle phase: blue lost counters at 3,2, so blue is asked about
    # Resurrection first (the move waits for his answer)
    assert [e["type"] for e in evs] == ["order", "reaction_asked", "unused"]
    asked = [e for e in evs if e["type"] == "reaction_asked"]
    assert [(e["player"], e["question"]) for e in asked] == [("blue", "resurrection")]
    assert loads(read.phase(db, "b1", 4)["active"]) == ["blue"]


def test_deity_no_battle_answer_by_the_reaction_deadline_leaves_it_to_retreat_k(db, turns, clock):
    deity_battle_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    gm_orders(db, "b1", "red", *BATTLE_ORDERS)
    host.resolve(db, ["b1"], turns=turns)
    clock("2026-11-23T21:59:00Z")
    assert host.resolve(db, ["b1"], turns=turns)[0].outcome == "waiting"
    clock("2026-11-23T22:00:00Z")
    host.resolve(db, ["b1"], turns=turns)
    evs = events_of(db, "b1", 2)
    kinds = [e["type"] for e in evs]
    assert kinds[:3] == ["nmr", "default", "battle_standing"] and evs[1]["order"] == "fight on"
    assert "reaction_asked" not in kinds  # the threshold decides every later round, unasked
    end = next(e for e in evs if e["type"] == "battle_end")
    rounds = [e for e in evs if e["type"] == "battle_round"]
    assert end["rounds"] == 1 + len(rounds)
    assert all(r["attackers_left"] > 1 and r["defenders_left"] for r in rounds[:-1])
    last = rounds[-1]
    assert end["result"] == "retreat" and last["attackers_left"] <= 1 and last["defenders_left"]
    assert "turn_end" not in kinds  # his turn is not defaulted: he is asked for the rest of it
    game = read.game(db, "b1")
    assert game["phase"] == 3 and game["deadline"] == "2026-11-26T22:00:00Z"
    assert loads(read.phase(db, "b1", 3)["active"]) == ["red"]


def test_deity_with_standing_reactions_a_battle_never_stops_and_the_state_is_todays(db, turns, clock):
    hashes = []
    for gid, options in (("s1", {}), ("s2", {"reactions": "standing"})):
        deity_battle_game(db, turns, options, game_id=gid)
        gm_orders(db, gid, "red", *BATTLE_ORDERS)
        host.resolve(db, [gid], turns=turns)
        kinds = [e["type"] for e in events_of(db, gid, 1)]
        assert "reaction_asked" not in kinds and "unused" not in kinds
        assert kinds.count("battle_end") == 1 and "move" in kinds and "turn_end" in kinds
        state = loads(read.phase(db, gid, 2)["state"])
        assert "pace" not in state["flow"] and "held" not in state["game"] and "reactions" not in state["game"]
        assert loads(read.phase(db, gid, 2)["active"]) == ["blue"]
        hashes.append(read.phase(db, gid, 2)["state_hash"])
    assert hashes[0] == hashes[1]


def _order_form(report: str) -> str:
    return report[report.index("Order form"):report.index("END\n")]


def test_the_order_form_says_free_actions_come_before_between_or_after_the_two_actions(db, turns, clock):
    """ORDERS.md: free actions use neither of the two actions and may come before, between or
    after them (also with a Mastery the second action has just won); the form said they came
    before the second action."""
    new_game(db, turns, {})
    form = _order_form(host.report(db, "r1", "alice"))
    assert "come before your second action" not in form
    assert "before, between or after your two actions" in form and "each at\n# most once a turn" in form
    orders_md = " ".join((Path(__file__).parents[1] / "games/ohgods/ORDERS.md").read_text().split())
    assert "each at most once a turn. Take them before, between or after your two actions" in orders_md


def test_the_victim_asked_about_a_steal_sees_only_block_and_allow_on_the_order_form(db, turns, clock):
    new_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite")
    host.resolve(db, ["r1"], turns=turns)
    form = _order_form(host.report(db, "r1", "bob"))
    assert "alice steals Thor from your altar (giving Poseidon, Aphrodite)" in form
    assert "#   block    play a Block card" in form and "#   allow    let the steal through" in form
    for other in ("Two actions", "Free actions", "draw to six", "standing order, any time", "block any steal",
                  "Your legal orders now"):
        assert other not in form, other
    # the thief's own form is the turn's, once the steal is settled
    gm_orders(db, "r1", "bob", "allow")
    host.resolve(db, ["r1"], turns=turns)
    alice = _order_form(host.report(db, "r1", "alice"))
    assert "Two actions, then you draw to six" in alice and "Answer with one line" not in alice


def test_lines_after_a_steal_asked_live_are_judged_for_each_answer_the_victim_may_give(db, turns, clock):
    """A line after the steal is not run this turn, but the acknowledgement checks it after
    each answer bob could give: one that no answer makes legal (a card alice does not hold, a
    third action) is rejected with its reason; one that only a Block allows says so."""
    new_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    ack = gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "play isis")
    line = ack.lines[1]
    assert line.status == "rejected" and "you hold no 'isis'" in line.reason and "whatever bob answers" in line.reason
    assert "line   2: REJECTED" in ack.text and "'play isis'" in ack.text and "if the dice allow" not in ack.text

    ack = gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "form greek", "play kama")
    greek, third = ack.lines[1], ack.lines[2]
    assert greek.status == "accepted" and "legal only if bob blocks the steal" in greek.reason
    assert "line   2: accepted, waiting for an answer  form greek (depends on another player's answer: legal only if " \
           "bob blocks the steal; not run" in ack.text
    # after a Block the steal and the set are alice's two actions; without one the set fails
    assert third.status == "accepted" and "legal only if bob lets the steal through" in third.reason
    ack = gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "play kama", "play yama")
    assert ack.lines[2].status == "rejected" and "your part of this turn is over" in ack.lines[2].reason
    assert "whatever bob answers" in ack.lines[2].reason

    ack = gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "play kama")
    assert ack.lines[1].status == "accepted" and "legal only" not in ack.lines[1].reason  # whatever bob answers

    # the check knows no more than alice: bob's Block in the deck instead of his hand reads the same
    def texts():
        return [gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", *more).text
                for more in (["play isis"], ["form greek", "play kama"], ["play kama"])]
    before = texts()
    state = loads(read.phase(db, "r1", 1)["state"])
    g = state["game"]
    g["hands"]["bob"][0], g["deck"][0] = g["deck"][0], g["hands"]["bob"][0]
    assert "block-3" not in g["hands"]["bob"] and not any(RULES_OH.effect(c) == "block" for c in g["hands"]["bob"])
    db["phases"].update(("r1", 1), {"state": dumps(state), "state_hash": engine.state_hash(state)})
    assert texts() == before

    # at resolution the lines after the steal are still not run: alice is asked again
    gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "form greek")
    host.resolve(db, ["r1"], turns=turns)
    unused = [e for e in events_of(db, "r1", 1) if e["type"] == "unused"]
    assert [e["text"] for e in unused] == ["form greek"]


def test_a_line_after_a_question_asked_in_some_outcomes_only_is_judged_without_a_crash():
    """engine._after_answer: outcomes in which no question was asked (dice before it) count for
    the line as any other; the answers are named only where every allowing outcome had one."""
    from pbem.core.errors import IllegalOrderError
    from pbem.core.orders import Line, Order

    line = Line(3, "play kama", [])
    kama = Order(("play", "kama"), ("play", "kama"))
    err = IllegalOrderError("'play kama': not now", "play kama", 3, 1)
    why = ("not run: ...", "if bob blocks the steal", "bob")
    other = ("not run: ...", "if bob lets the steal through", "bob")
    mixed = [(kama, None, True, None), (None, err, True, why), (kama, None, True, other)]
    r = engine._after_answer(line, mixed, [why, other], lambda: (None, err, True, why))
    assert r.status == "accepted" and "legal only" not in r.reason
    only = [(None, err, True, why), (kama, None, True, other)]
    r = engine._after_answer(line, only, [why, other], lambda: (None, err, True, why))
    assert r.status == "accepted" and "legal only if bob lets the steal through; not run" in r.reason
    none = [(None, err, True, why), (None, err, True, other)]
    r = engine._after_answer(line, none, [why, other], lambda: (None, err, True, why))
    assert r.status == "rejected" and "'play kama': not now -- whatever bob answers" in r.reason


def test_a_rollback_to_a_reaction_phase_gives_it_the_short_deadline_again(db, turns, clock):
    """The fresh deadline a rollback gives is the one the turn got when it opened: a
    reaction asked live gets the game's reaction_deadline from now, not the schedule's 72h."""
    new_game(db, turns, {"reactions": "ask", "reaction_deadline": "12h"})
    gm_orders(db, "r1", "alice", "steal thor give poseidon aphrodite", "pass")
    host.resolve(db, ["r1"], turns=turns)
    clock("2026-11-23T11:00:00Z")
    gm_orders(db, "r1", "bob", "allow")
    host.resolve(db, ["r1"], turns=turns)
    assert read.game(db, "r1")["phase"] == 3
    clock("2026-11-24T09:00:00Z")
    host.rollback(db, "r1", 2, turns=turns)
    assert read.game(db, "r1")["deadline"] == read.phase(db, "r1", 2)["deadline"] == "2026-11-24T21:00:00Z"
    host.rollback(db, "r1", 1, turns=turns)  # the thief's turn: the schedule's
    assert read.game(db, "r1")["deadline"] == "2026-11-27T09:00:00Z"
