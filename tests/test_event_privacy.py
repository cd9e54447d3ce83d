"""The key "to" of an event means "only this player may see it" (pbem.render.reports.visible_events).
A game that used "to" for anything else (a destination cell, a converted tribe's new god)
would silently hide that event from everyone else's report and from the published site."""

import random

import pytest

from pbem.core import engine
from pbem import host
from pbem.core.orders import read_script
from pbem.core.registry import game_types, get_rules


@pytest.mark.parametrize("game_type", game_types())
def test_every_event_addressed_with_to_names_a_player(game_type):
    rules = get_rules(game_type)
    for seed in range(3):
        players = ["p1", "p2", "p3", "p4"][: max(rules.info.min_players, min(3, rules.info.max_players))]
        state, events = engine.start(rules, players, {}, str(seed))
        seen = list(events)
        for phase in range(40):
            if state["flow"].get("over"):
                break
            scripts = {p: read_script("\n".join(host.bot_script(rules, state, p, random.Random(f"{seed}/{phase}/{p}"))))
                       for p in engine.active_players(rules, state)}
            res = engine.resolve(rules, state, scripts, str(seed))
            state = res.state
            seen += res.events
        bad = [e for e in seen if "to" in e and (not engine.recipients(e) or set(engine.recipients(e)) - set(players))]
        assert not bad, f"{game_type}: events use 'to' for something other than a player: {bad[:3]}"
        assert any("to" not in e for e in seen)


def test_an_event_addressed_to_a_list_is_seen_by_exactly_those_players():
    """Engine G5: "to" may list several players (a gift seen by giver and receiver); every one
    listed sees the event, nobody else -- not another player, not the public."""
    from pbem.render.reports import visible_events
    gift = {"type": "given", "faith": 5, "to": ["ann", "bob"]}
    alone = {"type": "hand", "to": "ann"}
    public = {"type": "era", "era": 2}
    events = [gift, alone, public]
    assert visible_events(events, "ann") == [gift, alone, public]
    assert visible_events(events, "bob") == [gift, public]
    assert visible_events(events, "cat") == [public]
    assert visible_events(events, None) == [public]
    assert engine.recipients(gift) == ["ann", "bob"] and engine.recipients(alone) == ["ann"]
    assert engine.recipients(public) is None
    assert not engine.visible_to({"type": "x", "to": []}, None)


def test_a_wasteland_move_is_in_everyones_report(gods_game, db):
    from pbem.core.registry import get_rules as rules_of
    from pbem.host.store import loads

    game_id, _ = gods_game(seed="3")
    rules = rules_of("gods")
    for _ in range(60):
        events = [loads(r["data"]) for r in db["events"].rows_where("game_id = ?", [game_id])]
        if any(e["type"] in ("move", "whirlwind") for e in events):
            break
        host.autoplay(db, game_id, max_phases=1, turns=None)
    moved = [loads(r["data"]) | {"phase": r["phase"]} for r in db["events"].rows_where("game_id = ?", [game_id])
             if loads(r["data"])["type"] in ("move", "whirlwind")]
    assert moved, "no wasteland was moved in 60 turns of this seed"
    e = moved[0]
    public = host.report(db, game_id, None, e["phase"] + 1)
    assert f"the wasteland at {e['src']}" in public and e["dst"] in public


def _strings(x):
    """Every text in an event, however deep."""
    if isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)
    elif isinstance(x, str):
        yield x


@pytest.mark.parametrize("game_type", game_types())
def test_no_public_event_repeats_a_private_order_or_standing_order(game_type):
    """Every field of every public event, for every game, played by the bots while the players
    not on turn send standing orders: no text a player gave privately (a standing order, a
    sealed choice, a face-down set) and, in Oh Gods!, no player's Block policy is in it.
    (tests/test_published_privacy.py checks every published file for every kind of secret.)"""
    rules = get_rules(game_type)
    players = ["p1", "p2", "p3"][: max(rules.info.min_players, min(3, rules.info.max_players))]
    options = {"rounds": "8"} if game_type == "deity" else {}
    state, events = engine.start(rules, players, options, "privacy")
    pick = random.Random(game_type)
    private: set[str] = set()  # what was said privately, so far
    offered = False  # GODS and Ye Gods! have no standing orders
    public: list[tuple[int, dict]] = [(0, e) for e in events if "to" not in e]
    for phase in range(1, 80):
        if state["flow"].get("over"):
            break
        asked = engine.active_players(rules, state)
        scripts = {p: read_script("\n".join(host.bot_script(rules, state, p, random.Random(f"{phase}/{p}"))))
                   for p in asked}
        for p in players:
            standing = [] if p in asked else rules.standing_orders(state, p)
            offered = offered or bool(standing)
            if standing:
                scripts[p] = read_script("\n".join(pick.choice(standing).text for _ in range(2)))
        res = engine.resolve(rules, state, scripts, "privacy")
        state = res.state
        if game_type == "ohgods":
            private |= {rules.policy_text(pol) for pol in state["game"]["block"].values()}
        # a bare verb (Faith's sealed `levelup` intervention) is no secret once its phase runs:
        # the action taken is public then, as at the table; what a line says beyond it stays hidden
        private |= {e["order"].lower() for e in res.events
                    if "to" in e and e["type"] in ("order", "standing") and " " in e["order"].strip()}
        public += [(phase, e) for e in res.events if "to" not in e]
    assert private or not offered, f"{game_type}: standing orders were offered, but nobody gave one"
    for phase, e in public:
        for text in _strings(e):
            low = text.lower()
            shown = [s for s in private if s.lower() in low]
            assert not shown, f"{game_type}, turn {phase}: the public event {e} shows {shown[0]!r}"
