"""Faith's Negotiation phase (issue 16) beyond its scenarios: how a two-sided line is
acknowledged, and that an event seen by several players (engine G5: a gift, a trade) reaches
exactly those players' reports through the store, and no one else's."""

from __future__ import annotations

from pbem import host
from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.registry import get_rules
from pbem.host.store import loads

RULES = get_rules("faith")


def _to_negotiation(db, gid: str, players: list[str]) -> dict:
    host.new_game(db, "faith", gid, players, seed="neg-1", turns=None)
    for _ in range(20):
        state = host.current_state(db, gid)
        if state["flow"]["phase"] == "negotiation":
            return state
        host.autoplay(db, gid, max_phases=1, turns=None)
    raise AssertionError("no Negotiation phase in 20 turns")


def test_a_two_sided_line_is_accepted_if_the_other_side_matches(db):
    state = _to_negotiation(db, "n1", ["ann", "bob", "cat"])
    ann = [p for p in ("ann", "bob", "cat") if RULES.actors(state["game"], p)][0]
    other = next(p for p in ("ann", "bob", "cat") if p != ann)
    script = read_script(f"trade 1 for initiative with {other}\ncovenant x y\ndone")
    lines = engine.check_script(RULES, state, ann, script)
    assert lines[0].status == "accepted" and lines[0].reason.startswith("if the other side matches")
    assert f"{other} sends `trade initiative for 1 with YOU`" in lines[0].reason
    assert lines[1].status == "rejected"
    assert lines[2].status == "accepted" and not lines[2].reason
    ack = host.submit(db, "n1", ann, f"trade 1 for initiative with {other}\ndone".encode(), trusted=True)
    assert "accepted, if the other side matches" in ack.text, ack.text


def test_a_gift_is_one_event_seen_by_giver_and_receiver_only(db):
    state = _to_negotiation(db, "n2", ["ann", "bob", "cat"])
    g = state["game"]
    giver = next(p for p in g["seats"] if sum(g["hands"][p].values()) >= 1)
    receiver = next(p for p in g["seats"] if p != giver)
    third = next(p for p in g["seats"] if p not in (giver, receiver))
    turn = db["games"].get("n2")["phase"]
    host.submit(db, "n2", giver, f"give 1 to {receiver}\ndone".encode(), trusted=True)
    for p in engine.active_players(RULES, state):
        if p != giver:
            host.submit(db, "n2", p, b"done", trusted=True)
    host.resolve(db, ["n2"], force=True, turns=None)
    gifts = [loads(r["data"]) for r in db["events"].rows_where("game_id = ? and phase = ?", ["n2", turn])
             if loads(r["data"])["type"] == "give"]
    assert len(gifts) == 1 and gifts[0]["to"] == [giver, receiver]
    line = f"{giver} gives 1 "
    assert line in host.report(db, "n2", giver, turn + 1)
    assert line in host.report(db, "n2", receiver, turn + 1)
    assert line not in host.report(db, "n2", third, turn + 1)
    assert line not in host.report(db, "n2", None, turn + 1)
