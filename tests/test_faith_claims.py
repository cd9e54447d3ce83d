"""Faith's victory claims beyond the scenarios (orders of players not asked in the phase,
which scenarios cannot send), and the Jihad holder's legal list in compact pace."""

from __future__ import annotations

from pbem import host
from pbem.core import engine, scenario
from pbem.core.orders import read_script
from pbem.core.registry import get_rules

RULES = get_rules("faith")

BELIEFS = {"israelites": {"player": "ann", "level": 2, "alive": True, "limbo": False},
           "egyptian": {"player": "bob", "level": 2, "alive": True, "limbo": False},
           "odin": {"player": "cat", "level": 2, "alive": True, "limbo": False}}


def _cats_turn(ann_hand: int = 150) -> dict:
    """Phase 3 of era 6, cat (odin) asked; ann and bob are not asked."""
    data = {"title": "position", "game": "faith", "players": ["ann", "bob", "cat"],
            "flow": {"phase": "action", "active": ["cat"], "sealed": True},
            "position": {"era": 6, "stage": "action", "initiative": "odin", "beliefs": BELIEFS,
                         "hands": {"ann": {"israelites": ann_hand}, "bob": {"egyptian": 10}, "cat": {"odin": 10}},
                         "hexes": {"23": {"pop": {"odin": [2, 0]}}}}}
    [out] = scenario.run(scenario.from_data(data))
    assert engine.active_players(RULES, out.state) == ["cat"]
    return out.state


def test_a_claim_out_of_turn_waits_for_the_accepts_of_the_same_turn():
    # ann's claim runs first (players not asked run by name), bob's and cat's accepts after it
    state = _cats_turn()
    scripts = {"ann": read_script("claim"), "bob": read_script("accept claims"),
               "cat": read_script("accept claims\ndone")}
    res = engine.resolve(RULES, state, scripts, "claims-1")
    assert res.state["flow"].get("over")
    assert res.state["flow"]["outcome"]["winners"] == ["ann"]
    assert [e for e in res.events if e["type"] == "claim_accepted"]


def test_a_claim_out_of_turn_is_counted_when_one_god_contests():
    state = _cats_turn()
    scripts = {"ann": read_script("claim"), "bob": read_script("accept claims"), "cat": read_script("done")}
    res = engine.resolve(RULES, state, scripts, "claims-2")
    assert not res.state["flow"].get("over")
    assert res.state["game"]["beliefs"]["israelites"]["alive"] is False
    [claim] = [e for e in res.events if e["type"] == "claim"]
    assert claim["count"] == 150


def test_a_claim_is_acknowledged_as_decided_after_the_turn_and_later_lines_run():
    state = _cats_turn(ann_hand=250)
    acks = engine.check_script(RULES, state, "ann", read_script("claim\naccept claims"))
    assert [a.status for a in acks] == ["accepted", "accepted"]
    assert acks[0].reason.startswith("decided by the count at the end of this turn, once every order of it is in")
    again = engine.check_script(RULES, state, "ann", read_script("claim\nclaim"))
    assert again[1].status == "rejected" and "already claim victory this turn" in again[1].reason


def _after_setup(db, gid: str) -> dict:
    """A new three-god game (as `pbem new faith` makes it) played by the bots through set-up."""
    host.new_game(db, "faith", gid, ["moses", "isis", "odin"], seed="claim-ack", turns=None)
    for _ in range(10):
        state = host.current_state(db, gid)
        if state["flow"]["phase"] != "setup":
            return state
        host.autoplay(db, gid, max_phases=1, turns=None)
    raise AssertionError("set-up did not finish in 10 turns")


def test_a_claims_acknowledgement_names_no_dice_and_warns_of_a_count_below_200(db):
    state = _after_setup(db, "c1")
    player = state["flow"]["active"][0]
    [pos] = RULES.actors(state["game"], player)
    n = RULES.count(state["game"], pos)
    assert n < 200
    ack = host.submit(db, "c1", player, b"claim\ndone", trusted=True)
    line = next(t for t in ack.text.splitlines() if t.startswith("line   1:"))
    assert ack.lines[0].status == "accepted" and "dice" not in line, line   # no dice decide a claim
    assert "the count at the end of this turn" in line and "accept claims" in line, line
    # the rule as the text says it, with the claimant's count now
    assert (f"your {pos} count {n} now" in line and "If the player that announced victory does not have 200 or more, "
            "all her Faith (population) chips from the Game Board and hand are banked, the God and the belief are dead"
            in line), line


def test_a_claim_at_200_or_more_is_acknowledged_without_the_warning():
    state = _cats_turn(ann_hand=250)
    [ack] = engine.check_script(RULES, state, "ann", read_script("claim"))
    assert ack.status == "accepted" and "the count at the end of this turn" in ack.reason
    assert "banked" not in ack.reason and "250 now" in ack.reason


def test_a_claim_in_set_up_is_refused_as_not_in_set_up_citing_victory(db):
    host.new_game(db, "faith", "c2", ["moses", "isis", "odin"], seed="claim-ack", turns=None)
    assert host.current_state(db, "c2")["flow"]["phase"] == "setup"
    for text in ("claim", "accept claims", "contest claims"):
        ack = host.submit(db, "c2", "moses", text.encode(), trusted=True)
        [line] = [t for t in ack.text.splitlines() if t.startswith("line   1:")]
        assert ack.lines[0].status == "rejected" and "not in set-up" in line, line
        assert "Proselytizing" not in line and "[7. Victory" in line, line


def test_the_jihad_holders_infidel_orders_are_listed_once_in_compact_pace():
    import tomllib
    from pathlib import Path
    data = tomllib.loads(Path("games/faith/scenarios/text-jihad-infidels-move-and-attack-first.toml").read_text())
    data.pop("step"), data.pop("expect", None), data.pop("dice", None)
    [out] = scenario.run(scenario.from_data(data))
    legal = [o.text for o in RULES.legal_orders(out.state, "ann")]
    infidel = [t for t in legal if t.startswith("infidel ")]
    assert infidel and "infidel attack 21 egyptian with 1 militia 12" in infidel
    assert len(infidel) == len(set(infidel)), sorted(t for t in infidel if infidel.count(t) > 1)


def test_a_god_in_limbo_not_asked_sends_standing_orders_they_are_skipped_and_her_claims_order_runs():
    """CHOICE 73 (scenario limbo-no-standing-orders-but-claims checks the acknowledgement): the
    lines of bob, in limbo and not asked, run before ann's; his standing orders are skipped
    with the reason, `accept claims` runs, the standing retreat he gave before stays. (A
    mangled play-out found this: the turn raised IndexError and could never be resolved.)"""
    path = scenario.games_dir() / "faith" / "scenarios" / "limbo-no-standing-orders-but-claims.toml"
    [out] = scenario.run(path)
    state = out.state
    assert engine.active_players(RULES, state) == ["ann"]
    lines = ["retreat 23 -> 13", "defend any aog 2", "side any defender", "overflow 23 -> 24", "accept claims"]
    res = engine.resolve(RULES, state, {"ann": read_script("done"), "bob": read_script("\n".join(lines))}, "limbo-1")
    got = {r.text: r for r in res.lines["bob"]}
    for text in lines[:4]:
        assert got[text].status == "skipped" and "in limbo" in got[text].reason, got[text]
    assert got["accept claims"].status == "executed"
    st = res.state["game"]["standing"]["bob"]
    assert st["retreat"] == {"23": "24"} and st["defend"] == {} and st["side"] == {} and st["overflow"] == {}
    assert st["claims"] == "accept"
