"""Faith: what a report shows never follows the order of a dict's keys in the state or the
events (leftover of the last stop, after CHOICE 180's colours). The store keeps states and
events as JSON with sorted keys, while a resolution renders its reports from the dicts as it
built them: a line or section that iterated such a dict read one way in the mail and another
in a report re-rendered from the store (`pbem verify`, the site). Each turn of a played game
is rendered from its stored state and events, and again with every dict's keys reversed: the
texts must be the same."""

from __future__ import annotations

import pytest

from pbem import host
from pbem.render.html import render_map
from pbem.core.registry import get_rules
from pbem.host import read, reporting, schedule
from pbem.host.store import loads

RULES = get_rules("faith")


def reversed_keys(value):
    """`value` with the keys of every dict in it in reverse order (as another JSON might hold them)."""
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


def rendered(game, players, state, events, number) -> dict[str, str]:
    texts = reporting.render(RULES, game, players, state, events, number)
    views = RULES.views(state, [None, *[p["name"] for p in players]])
    for view in views:  # the map (HTML report, site) and the score sheet read the same views
        texts[f"map {view.get('you')}"] = str(render_map("faith", view, uid="m", title="map"))
        texts[f"summary {view.get('you')}"] = repr(RULES.summary(view))
    return texts


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    from pbem.host.store import open_db
    path = tmp_path_factory.mktemp("faith-order")
    db = open_db(str(path / "pbem.db"))
    host.new_game(db, "faith", "o1", ["ann:a@example.org", "bob:b@example.org", "cat:c@example.org"], seed="order-1",
                  sched=schedule.make_schedule("72h", None, None), turns=None)
    host.autoplay(db, "o1", max_phases=40, turns=None)
    return db


def test_every_report_reads_the_same_whatever_the_order_of_the_dicts_keys(played):
    db = played
    game = read.game(db, "o1")
    players = read.players(db, "o1")
    kinds = set()
    for number in range(2, game["phase"] + 1):
        state = loads(read.phase(db, "o1", number)["state"])
        events = read.events(db, "o1", number - 1)
        kinds |= {e["type"] for e in events}
        stored = rendered(game, players, state, events, number)
        other = rendered(game, players, reversed_keys(state), reversed_keys(events), number)
        for who, text in stored.items():
            assert other[who] == text, f"turn {number}, {who or 'public'}: the text follows the order of a dict's keys"
    assert {"battle", "reproduce", "flip"} <= kinds, sorted(kinds)


def test_a_duels_rolls_and_a_battles_sides_read_the_same_in_either_order(played):
    """The two event lines that read a dict of the event (met in play above only by luck):
    a duel's rolls by belief, a battle's sides."""
    db = played
    game = read.game(db, "o1")
    players = read.players(db, "o1")
    number = game["phase"]
    state = loads(read.phase(db, "o1", number)["state"])
    duel = {"type": "duel", "at": "23", "beliefs": ["odin", "christian"], "yielded": [], "wagers": [],
            "rolls": [{"odin": [3, 3], "christian": [3, 5]}], "survivor": "christian"}
    battle = {"type": "battle", "attacker": "islam", "named": "christian", "at": "23", "attack": 4, "red": 3,
              "aog_attacker": 0, "total_attack": 7, "defence": 2, "white": 1, "aog_defence": 0, "total_defence": 3,
              "result": "the attackers win", "aog": {"islam": 0}, "sides": {"islam": "attacker", "infidel": "aside",
                                                                         "christian": "defender"}}
    stored = reporting.render(RULES, game, players, state, [duel, battle], number)[""]
    other = reporting.render(RULES, game, players, state, reversed_keys([duel, battle]), number)[""]
    assert stored == other
    assert "roll Odin (Nordic/Celtic/Germanic) 3, Christian 3 + 2 = 5" in stored  # in the duel's own order
    assert "Sides: the Christian defender, the infidels aside, the Islam attacker." in stored  # sorted by belief
