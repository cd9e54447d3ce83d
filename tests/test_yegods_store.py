"""Ye Gods! through the store and the CLI, as a GM runs it: whole games played by the bots
(submit -> acknowledgement -> resolve), every snapshot hash replayed, and every report of
every turn checked: a god's hand (and donatives) appear only in its owner's report (and the
Unknown God's only in the report of the player ordering for it that round)."""

from __future__ import annotations

import json
import re

import pytest

from pbem import host
from pbem.core.registry import get_rules
from pbem.host.store import loads

RULES = get_rules("yegods")
CARD = re.compile(r"\(#(\d+)\)|card #(\d+)")


def play_through_store(db, turns, players, seed, game_id):
    host.new_game(db, "yegods", game_id, players, seed=seed, turns=turns)
    host.autoplay(db, game_id, turns=turns)
    return db["games"].get(game_id)


def card_ids(text: str) -> set[int]:
    return {int(a or b) for a, b in CARD.findall(text)}


def check_reports_hide_hands(db, game_id: str) -> int:
    """For every stored report: the hands it may show are the viewer's own god's (and the
    Unknown God's while the viewer orders for it: now, or in the phase whose events the report
    tells); no card of any other hand appears."""
    checked = 0
    players = [p["name"] for p in db["players"].rows_where("game_id = ?", [game_id])]
    before = None
    for phase in db["phases"].rows_where("game_id = ?", [game_id], order_by="number"):
        g = loads(phase["state"])["game"]
        previous, before = before, g
        for viewer in [None, *players]:
            row = db.execute("select text from reports where game_id = ? and phase = ? and player = ?",
                             [game_id, phase["number"], viewer or ""]).fetchone()
            text = row[0]
            mine = set(RULES.visible_hands(g, viewer))
            seen = mine | set(RULES.visible_hands(previous, viewer) if previous else [])
            for god, hand in g["hands"].items():
                if god in seen:
                    continue
                leaked = card_ids(text) & set(hand)
                assert not leaked, (f"turn {phase['number']}: {viewer or 'public'}'s report shows card(s) "
                                    f"{sorted(leaked)} of {god}'s hand")
            private = text.split("Private to ", 1)
            if viewer is None:
                assert len(private) == 1, "the public report has a private section"
            else:
                section = private[1].split("\n\n", 1)[0]
                shown = set(re.findall(r"^  (\w+)(?: \(the Unknown God.*)?: \d+ donatives?", section, re.M))
                assert shown == {RULES.god_title[x] for x in mine}, (viewer, shown, mine)
            checked += 1
    return checked


@pytest.mark.parametrize("players, seed", [
    (["alice", "bob"], "store-2"),
    (["alice", "bob", "carol"], "store-3"),
    (["alice", "bob", "carol", "dave"], "store-4"),
])
def test_games_through_the_store_replay_and_keep_hands_hidden(db, turns, players, seed):
    game = play_through_store(db, turns, players, seed, "yg")
    assert game["status"] == "finished"
    outcome = loads(game["outcome"])
    assert outcome["reason"]
    replay = host.replay(db, "yg")
    assert replay["ok"], replay
    assert replay["phases"] == game["phase"]
    assert check_reports_hide_hands(db, "yg") == game["phase"] * (len(players) + 1)
    public = "".join(r["text"] for r in db["reports"].rows_where("game_id = ? and player = ''", ["yg"]))
    for line in ("HOLY WAR:", "rolls 2d6", "moves ", "Provinces counted", "Donatives, 1 per province owned"):
        assert line in public, f"no '{line}' in any public report"
    status = host.status(db, "yg")["games"][0]
    assert status["status"] == "finished" and status["seed"] == seed
    assert set(status["scores"]) == set(players)


def test_a_report_shows_the_drawn_card_before_orders_are_due(db, turns):
    host.new_game(db, "yegods", "yd", ["alice", "bob", "carol"], seed="draw", turns=turns)
    host.autoplay(db, "yd", max_phases=1, turns=turns)   # the priests are placed; round 1 opens
    game = db["games"].get("yd")
    state = loads(db["phases"].get(("yd", game["phase"]))["state"])
    g = state["game"]
    player = state["flow"]["active"][0]
    god = g["god_of"][player]
    report = host.report(db, "yd", player=player)
    assert f"{RULES.god_title[god]}'s turn ---" in report
    drawn = [c for c in g["hands"][god]] or ([g["turn"]["pending"]] if g["turn"]["pending"] else [])
    if drawn:
        assert RULES.card_name(drawn[-1]) in report and f"#{drawn[-1]}" in report
    else:   # a card played at once by itself: its effect is in the report
        assert "must be played at once" in report
    assert "Your orders" in report
    assert ("# done:" in report) != bool(g["turn"]["pending"])   # a card to answer first, or the whole turn
    # per province: each god's worshippers/priests/saints, the heretics and the owner
    assert re.search(r"^  italia\s+jupiter\s+1/[01]/0", report, re.M)
    assert "Worshipper pool: 39" in report


def test_the_cli_runs_a_game_to_the_end(cli):
    r = cli("new", "yegods", "cli-yg", "--player", "jupiter", "--player", "odin", "--seed", "9")
    assert r.exit_code == 0, r.output
    r = cli("rules", "yegods")
    assert r.exit_code == 0 and "holywar FROM -> TO" in r.output and "`lugh`" in r.output and "`yahweh`" in r.output
    r = cli("autoplay", "cli-yg")
    assert r.exit_code == 0, r.output
    game = json.loads(cli("status", "cli-yg", "--json").stdout)["games"][0]
    assert game["status"] == "finished"
    r = cli("replay", "cli-yg", "--verify")
    assert r.exit_code == 0 and "every hash matches" in r.output


def test_orders_by_file_get_acknowledged_line_by_line(db, turns):
    created = host.new_game(db, "yegods", "ack", ["jupiter", "odin"], seed="ack", turns=turns)
    password = {p["name"]: p["password"] for p in created["players"]}
    state = loads(db["phases"].get(("ack", 1))["state"])
    assert state["flow"]["phase"] == "setup"
    text = f"GAME ack\nPLAYER jupiter\nPASSWORD {password['jupiter']}\npriest graec\npriest atlantis\nEND\n"
    ack = host.submit(db, "ack", "jupiter", text.encode())
    assert ack.lines[0].status == "accepted" and ack.lines[0].order == "priest graecia"
    assert ack.lines[1].status == "rejected"
    assert "priest atlantis" in ack.text
