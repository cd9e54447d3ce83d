"""Faith's victory claims beyond the scenarios (orders of players not asked in the phase,
which scenarios cannot send), and the Jihad holder's legal list in compact pace."""

from __future__ import annotations

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
    assert acks[0].reason.startswith("decided once every order of this turn is in")
    again = engine.check_script(RULES, state, "ann", read_script("claim\nclaim"))
    assert again[1].status == "rejected" and "already claim victory this turn" in again[1].reason


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
