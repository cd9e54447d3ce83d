"""Positions and events a player can read (issue 12): every event a game makes has a sentence,
and every game gives a labelled summary of the position -- what a player would note on a score
sheet -- in place of raw state keys on the site and in the HTML report."""

from __future__ import annotations

import random
import re

import pytest

from pbem import host
from pbem.core import engine
from pbem.core.orders import read_script
from pbem.core.registry import game_types, get_rules
from pbem.render.html import details, event_texter

OPTIONS = {"deity": {"rounds": "10"}}


def positions(game_type: str, games: int = 2, steps: int = 150):
    """Views of random play-outs (bots on every seat) and every event they made."""
    rules = get_rules(game_type)
    views, events = [], []
    for seed in range(games):
        players = ["ann", "bob", "cyd"]
        state, evs = engine.start(rules, players, OPTIONS.get(game_type, {}), f"readable-{seed}")
        events += evs
        rnd = random.Random(seed)
        for _ in range(steps):
            views.append(rules.view(state, None))
            if state["flow"].get("over"):
                break
            scripts = {p: read_script("\n".join(host.bot_script(rules, state, p, rnd)))
                       for p in engine.active_players(rules, state)}
            res = engine.resolve(rules, state, scripts, f"readable-{seed}")
            state = res.state
            events += res.events
    return rules, views, events


@pytest.mark.parametrize("game_type", game_types())
def test_every_event_has_a_sentence(game_type):
    _, _, events = positions(game_type)
    line = event_texter(game_type, True)
    raw = {}
    for e in events:
        text = line(e)
        if text == str(e.get("type")) or text.startswith(f"{e.get('type')}:"):  # the fallback: its fields
            raw[e.get("type")] = text
    assert not raw, f"{game_type}: events with no sentence: {raw}"


@pytest.mark.parametrize("game_type", game_types())
def test_the_position_summary_is_labelled_in_words(game_type):
    rules, views, _ = positions(game_type)
    view_keys = {k for v in views for k in v}
    for view in views[:: max(1, len(views) // 25)]:
        items = details(rules, view)
        assert items, f"{game_type} gives no summary of its position"
        for item in items:
            label, value = item["name"], item["value"]
            assert label not in view_keys and "_" not in label, f"{game_type}: a raw key as a label: {label!r}"
            assert value and value.strip() not in ("-", "None", "none"), (game_type, label, value)
            assert not re.search(r"[{}\[\]]|\bNone\b|\w_\w", value), f"{game_type}: raw data shown: {label}: {value}"


@pytest.mark.parametrize("game_type", game_types())
def test_the_text_report_carries_the_summary_too(db, game_type):
    rules = get_rules(game_type)
    host.new_game(db, game_type, "g1", ["ann", "bob", "cyd"], seed="4", options=OPTIONS.get(game_type, {}), turns=None)
    for who in ("", "ann"):
        text = host.report_text(db, "g1", 1, who)
        view = rules.view(host.current_state(db, "g1"), who or None)
        label, value = rules.summary(view)[0]
        assert "At a glance" in text and f"  {label}: {value}" in text, (game_type, who)


@pytest.mark.parametrize("game_type", game_types())
def test_the_history_line_names_what_was_announced(game_type):
    """The site's one-line history of a turn names every public order and every announced
    action whose order is hidden (Oh Gods!: 'ann: forms a set of War', its cards face-down)."""
    from pbem.render.html import Game, summary
    from pbem.render.reports import visible_events

    rules, _, events = positions(game_type)
    texter = event_texter(game_type, True)
    game = Game({}, "g", rules, game_type, [], [], [], None, None, texter)
    announced = [e for e in visible_events(events, None) if e.get("type") in rules.history_events]
    if game_type == "ohgods":
        assert announced, "the play-outs formed no set: the test proves nothing"
    for e in announced:
        line = summary(game, [e], limit=10_000)
        assert texter(e) in line and e["player"] in line, (e, line)
