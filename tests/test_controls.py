"""The GM's controls between deadlines (pbem.host.controls): deadlines, pause and resume, game
options, reminders and late notices, grace, early resolution, WAIT, absences, the list of
games, the end of a game and the players' votes, the rollback's correction notice.

Every bad input is checked twice: a clean message that quotes it, and a store that is
exactly as it was (every row of every table)."""

from __future__ import annotations

import json
import re

import pytest
from gods_helpers import legal_lines, text

from pbem import host
from pbem.core.errors import PbemError
from pbem.host import controls, read, schedule, seats

T0 = "2026-11-23T10:00:00Z"


def snapshot(db) -> dict:
    """Every row of every table: what 'nothing changed' is checked against."""
    out = {}
    for name in db.table_names():
        cols = [c.name for c in db[name].columns]
        out[name] = sorted(repr(tuple(r[c] for c in cols)) for r in db[name].rows)
    return out


def unchanged(db, call, says: str) -> str:
    """Run `call`, expect a PbemError whose message contains `says`, and no change to the store."""
    before = snapshot(db)
    with pytest.raises(PbemError) as err:
        call()
    assert says in str(err.value), str(err.value)
    assert snapshot(db) == before
    return str(err.value)


@pytest.fixture
def clock(monkeypatch):
    def set_to(when: str) -> None:
        monkeypatch.setenv("PBEM_NOW", when)
    set_to(T0)
    return set_to


@pytest.fixture
def game(db, turns, clock):
    """A 3-player GODS game with a 72h schedule (deadline 2026-11-26T10:00Z) and addresses."""
    created = host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org", "carl:carl@example.org"],
                            seed="1", sched=schedule.make_schedule("72h", None, None), turns=turns)
    return {p["name"]: p["password"] for p in created["players"]}


def outbox(db, kind=None) -> list[dict]:
    rows = read.rows(db, "select * from outbox order by id")
    return [r for r in rows if kind is None or r["kind"] == kind]


def play(db, game_id, player, password, turns, seed=0):
    return host.submit(db, game_id, player, text(player, password, legal_lines(db, player, game_id, seed), game_id).encode())


# --- deadlines ----------------------------------------------------------------------------------

def test_extend_and_set_a_deadline_record_it_and_tell_the_players(db, game):
    r = controls.set_deadline(db, "g1", extend="24h", reason="a holiday")
    assert r == {"game": "g1", "turn": 1, "deadline": "2026-11-27T10:00:00Z", "was": "2026-11-26T10:00:00Z", "warnings": []}
    assert read.game(db, "g1")["deadline"] == read.phase(db, "g1", 1)["deadline"] == "2026-11-27T10:00:00Z"
    (action,) = read.gm_actions(db, "g1")
    assert (action["by"], action["action"], action["reason"]) == ("gm", "deadline", "a holiday")
    notices = outbox(db, "notice")
    assert sorted(n["to_addr"] for n in notices) == ["alice@example.org", "bob@example.org", "carl@example.org"]
    assert all("Fri 27 Nov 2026 10:00" in n["body"] and "a holiday" in n["body"] for n in notices)
    (ann,) = read.announcements(db, "g1")
    assert ann["subject"] == "turn 1 deadline moved"
    r = controls.set_deadline(db, "g1", at="2026-12-01 20:00", tz="Europe/Paris")
    assert r["deadline"] == "2026-12-01T19:00:00Z"


def test_bad_deadlines_change_nothing(db, game):
    unchanged(db, lambda: controls.set_deadline(db, "g1", at="2020-01-01 10:00"), "'2020-01-01 10:00' is in the past")
    unchanged(db, lambda: controls.set_deadline(db, "g1", at="next tuesday"), "'next tuesday' is not a date and time")
    unchanged(db, lambda: controls.set_deadline(db, "g1", extend="a while"), "'a while' is not a duration")
    unchanged(db, lambda: controls.set_deadline(db, "g1", extend="0h"), "must be longer than zero")
    unchanged(db, lambda: controls.set_deadline(db, "g1", at="2026-12-01 20:00", tz="Mars/Olympus"), "'Mars/Olympus' is not a known time zone")
    unchanged(db, lambda: controls.set_deadline(db, "g1"), "give either --extend")
    unchanged(db, lambda: controls.set_deadline(db, "g1", extend="1h", at="2026-12-01 20:00"), "give either --extend")
    unchanged(db, lambda: controls.set_deadline(db, "nope", extend="1h"), "no game 'nope'")


def test_pause_stops_the_clock_and_resume_gives_the_time_back(db, game, clock, turns):
    controls.pause(db, "g1", reason="server move")
    g = read.game(db, "g1")
    assert g["paused"] == T0 and g["deadline"] is None and g["paused_left"] == 72 * 3600
    unchanged(db, lambda: controls.pause(db, "g1"), "already paused")
    unchanged(db, lambda: controls.set_deadline(db, "g1", extend="1h"), "is paused")
    # nothing resolves, even long after the old deadline, even with every order in
    clock("2026-12-10T00:00:00Z")
    assert host.due_games(db, turns) == []
    (r,) = host.resolve(db, ["g1"], turns=turns)
    assert r.outcome == "waiting" and "paused" in r.detail
    assert controls.games_list(db)[0]["state"] == "paused"
    r = controls.resume(db, "g1")
    assert r["deadline"] == "2026-12-13T00:00:00Z"  # the 72 hours that were left
    unchanged(db, lambda: controls.resume(db, "g1"), "is not paused")
    assert [a["action"] for a in read.gm_actions(db, "g1")] == ["pause", "resume"]
    subjects = [n["subject"] for n in outbox(db, "notice") if n["to_addr"] == "bob@example.org"]
    assert subjects == ["[g1] game paused", "[g1] game resumed"]


def test_resume_at_a_time_and_not_in_the_past(db, game):
    controls.pause(db, "g1")
    unchanged(db, lambda: controls.resume(db, "g1", at="2026-11-01 10:00"), "is in the past")
    assert controls.resume(db, "g1", at="2026-11-30T12:00Z")["deadline"] == "2026-11-30T12:00:00Z"


def test_a_paused_game_still_takes_orders(db, game, turns):
    controls.pause(db, "g1")
    ack = play(db, "g1", "alice", game["alice"], turns)
    assert ack.ok


# --- options -------------------------------------------------------------------------------------

def test_options_at_new_go_to_the_host_and_the_rest_to_the_rules(db, turns, clock):
    created = host.new_game(db, "gods", "g2", ["a", "b"], seed="1", turns=turns,
                            options={"grace": "12h", "remind": "1d", "early": "off", "press": "grey"})
    g = created["game"]
    assert read.host_options(db, "g2") == {**read.HOST_DEFAULTS, "grace": "12h", "remind": "1d", "early": "off", "press": "grey"}
    assert g["grace"] == 12 * 3600 and g["early"] == 0
    assert read.game(db, "g2")["options"] == "{}"  # the rules got none of them
    assert host.replay(db, "g2")["ok"]


@pytest.mark.parametrize("key,value,says", [
    ("grace", "soon", "grace 'soon' is not a duration"),
    ("remind", "-3h", "remind '-3h' is not a duration"),
    ("early", "maybe", "early 'maybe' is not on or off"),
    ("absences", "lots", "absences 'lots' is not a number of days"),
    ("absences", "999", "absences '999' is not a number of days"),
    ("press", "loud", "press 'loud' is not one of none, white, grey"),
    ("seat_policy", "robot", "seat_policy 'robot' is not one of vacant, bot"),
    ("gm_email", "gm-at-example", "gm_email 'gm-at-example' is not an email address"),
    ("colour", "red", "unknown game option 'colour'"),
])
def test_bad_option_values_change_nothing(db, game, key, value, says):
    unchanged(db, lambda: controls.set_option(db, "g1", key, value), says)


def test_a_bad_option_at_new_makes_no_game(db, turns):
    with pytest.raises(PbemError, match="grace 'soon' is not a duration"):
        host.new_game(db, "gods", "g2", ["a", "b"], options={"grace": "soon"}, turns=turns)
    assert not read.games(db)


def test_set_option_is_recorded_and_announced_but_the_gm_address_is_not(db, game):
    assert controls.set_option(db, "g1", "grace", "12h") == {"game": "g1", "option": "grace", "value": "12h", "was": "off"}
    assert read.game(db, "g1")["grace"] == 43200
    controls.set_option(db, "g1", "gm_email", "gm@example.org")
    assert read.host_options(db, "g1")["gm_email"] == "gm@example.org"
    assert not any("gm@example.org" in n["body"] for n in outbox(db))
    assert [a["detail"] for a in read.gm_actions(db, "g1")] == ["grace=12h (was off)", "gm_email=gm@example.org (was )"]


# --- reminders, grace, early, WAIT ------------------------------------------------------------------

def test_reminders_go_once_to_the_awaited_players_only(db, game, clock):
    controls.set_option(db, "g1", "remind", "24h")
    assert controls.remind(db) == []  # 72h before the deadline: too early
    clock("2026-11-25T11:00:00Z")
    sent = controls.remind(db)
    assert [(s["player"], s["kind"]) for s in sent] == [("alice", "remind")]  # GODS: one player asked at a time
    assert controls.remind(db) == [] and controls.remind(db, "g1") == []  # once per turn
    (mail,) = outbox(db, "remind")
    assert mail["to_addr"] == "alice@example.org" and "turn 1" in mail["body"]
    assert game["alice"] not in mail["body"]


def test_grace_sends_late_notices_and_waits_before_nmr(db, game, clock, turns):
    controls.set_option(db, "g1", "grace", "12h")
    clock("2026-11-26T11:00:00Z")  # an hour past the deadline
    assert [(s["player"], s["kind"]) for s in controls.remind(db)] == [("alice", "late")]
    assert "g1" not in host.due_games(db, turns)
    (r,) = host.resolve(db, ["g1"], turns=turns)
    assert r.outcome == "waiting"
    clock("2026-11-26T22:00:00Z")  # deadline + grace
    assert "g1" in host.due_games(db, turns)
    r = host.resolve(db, ["g1"], turns=turns)[0]
    assert r.outcome == "resolved" and r.nmr == ["alice"]


def test_early_off_waits_for_the_deadline(db, game, clock, turns):
    controls.set_option(db, "g1", "early", "off")
    assert play(db, "g1", "alice", game["alice"], turns).ready
    assert host.due_games(db, turns) == []
    (r,) = host.resolve(db, ["g1"], turns=turns)
    assert r.outcome == "waiting" and "early resolution is off" in r.detail
    clock("2026-11-26T10:00:00Z")
    assert host.due_games(db, turns) == ["g1"]
    assert host.resolve(db, ["g1"], turns=turns, max_phases=1)[0].outcome == "resolved"


def test_wait_blocks_early_resolution_until_nowait(db, game, turns):
    assert "will not resolve before its deadline" in controls.wait(db, "g1", "alice", True)
    assert play(db, "g1", "alice", game["alice"], turns).ready
    assert host.due_games(db, turns) == []
    (r,) = host.resolve(db, ["g1"], turns=turns)
    assert r.outcome == "waiting" and "alice (sent WAIT)" in r.detail
    assert "may resolve as soon as" in controls.wait(db, "g1", "alice", False)
    assert host.due_games(db, turns) == ["g1"]
    unchanged(db, lambda: controls.wait(db, "g1", "zed", True), "has no player 'zed'")


def test_wait_in_a_game_without_a_deadline_says_what_it_waits_for(db, turns):
    """An attack found "will not resolve before its deadline (none set (the GM resolves when
    all orders are in))": with no deadline, WAIT holds the turn until NOWAIT or the GM."""
    created = host.new_game(db, "gods", "g2", ["alice", "bob"], seed="1", turns=turns)
    assert read.game(db, "g2")["deadline"] is None and created
    said = controls.wait(db, "g2", "alice", True)
    assert said == "WAIT: turn 1 of g2 has no deadline: it will not resolve until you send NOWAIT or the GM resolves it."
    assert host.due_games(db, turns) == []


# --- absences ------------------------------------------------------------------------------------

def test_an_absence_moves_a_deadline_inside_it_to_its_end(db, game):
    said = controls.absent(db, "g1", "alice", "2026-11-25", "2026-11-27")
    assert "(3 of your 7 days used, 4 left)" in said and "moves to" in said
    assert read.game(db, "g1")["deadline"] == "2026-11-28T00:00:00Z"  # the end of the 27th (UTC game)
    assert read.gm_actions(db, "g1")[-1]["by"] == "player:alice"


def test_an_absence_beyond_the_allowance_is_cut_and_the_player_told(db, game):
    controls.set_option(db, "g1", "absences", "2")
    said = controls.absent(db, "g1", "alice", "2026-11-25", "2026-11-29")
    assert "That is all your allowance" in said and "default orders are used" in said
    assert read.game(db, "g1")["deadline"] == "2026-11-27T00:00:00Z"
    unchanged(db, lambda: controls.absent(db, "g1", "alice", "2026-12-01", "2026-12-02"),  # refused (tester4 05)
              "you have used all 2 days of absence this game allows; nothing was recorded")


def test_bad_absences_change_nothing(db, game):
    unchanged(db, lambda: controls.absent(db, "g1", "alice", "2026-11-01", "2026-11-05"), "'2026-11-01' is in the past")
    unchanged(db, lambda: controls.absent(db, "g1", "alice", "2026-12-05", "2026-12-01"), "is not after FROM")
    unchanged(db, lambda: controls.absent(db, "g1", "alice", "soon", "2026-12-01"), "'soon' is not a date")
    unchanged(db, lambda: controls.absent(db, "g1", "mallory", "2026-12-01", "2026-12-02"), "has no player 'mallory'")


def test_a_new_turns_deadline_inside_an_absence_moves(db, game, turns):
    bob_away = controls.absent(db, "g1", "bob", "2026-11-25", "2026-12-01")
    assert "7 of your 7" in bob_away and "The deadline" not in bob_away  # bob is not asked in turn 1: its deadline (11-26) stays
    assert read.game(db, "g1")["deadline"] == "2026-11-26T10:00:00Z"
    play(db, "g1", "alice", game["alice"], turns)
    host.resolve(db, ["g1"], turns=turns, max_phases=1)
    g = read.game(db, "g1")
    assert g["phase"] == 2 and g["deadline"] == "2026-12-02T00:00:00Z"  # 72h: 11-26T10:00, inside bob's absence
    assert read.phase(db, "g1", 2)["deadline"] == g["deadline"]
    assert "Wed 02 Dec 2026" in read.report_text(db, "g1", 2, "bob")


# --- the list, the end, votes ----------------------------------------------------------------------

def test_games_list_shows_every_state(db, game, turns):
    host.new_game(db, "gods", "g2", ["a", "b"], seed="2", turns=turns)
    controls.pause(db, "g2")
    seats.open_game(db, "gods", "g3", 3)
    host.new_game(db, "gods", "g4", ["a", "b"], seed="2", turns=turns)
    controls.end_game(db, "g4", winners=["a"])
    listed = {g["id"]: g for g in controls.games_list(db)}
    assert {k: g["state"] for k, g in listed.items()} == {"g1": "running", "g2": "paused", "g3": "open", "g4": "over"}
    assert listed["g1"]["awaited"] == ["alice"] and listed["g1"]["deadline"] == "2026-11-26T10:00:00Z"
    assert listed["g3"]["seats"] == 3 and listed["g3"]["joined"] == 0


def test_the_gm_ends_a_game_with_winners_or_a_draw(db, game):
    unchanged(db, lambda: controls.end_game(db, "g1"), "give the winners")
    unchanged(db, lambda: controls.end_game(db, "g1", winners=["zed"]), "has no player 'zed'")
    unchanged(db, lambda: controls.end_game(db, "g1", winners=["bob"], draw=True), "not both")
    r = controls.end_game(db, "g1", winners=["bob"], reason="the others left")
    g = read.game(db, "g1")
    assert g["status"] == "finished" and r["outcome"]["winners"] == ["bob"] and not r["outcome"]["draw"]
    assert host.status(db, "g1")["games"][0]["seed"] == "1"  # revealed at the end
    unchanged(db, lambda: controls.end_game(db, "g1", draw=True), "is over")
    assert all("won by bob" in n["body"] and "the others left" in n["body"] for n in outbox(db, "notice"))


def test_a_draw_needs_every_voting_players_vote_standing(db, game, turns):
    seats.set_bot(db, "g1", "carl", True)  # bots do not vote
    assert "still to vote: bob" in controls.propose(db, "g1", "alice", "draw")
    assert any("alice votes to end game g1 drawn" in n["body"] for n in outbox(db, "notice") if n["player"] == "bob")
    unchanged(db, lambda: controls.propose(db, "g1", "carl", "draw"), "does not vote")
    unchanged(db, lambda: controls.propose(db, "g1", "bob", "surrender"), "'surrender' is not a proposal")
    # alice's turn resolves: her vote stands until bob has had a turn after it (tester4 finding 06)
    play(db, "g1", "alice", game["alice"], turns)
    host.resolve(db, ["g1"], turns=turns, max_phases=1)
    play(db, "g1", "bob", game["bob"], turns)
    host.resolve(db, ["g1"], turns=turns, max_phases=1)  # bob's turn, without a vote: alice's lapses, she is told
    assert any("Your vote for a draw in game g1, sent in turn 1, has lapsed" in n["body"]
               for n in outbox(db, "notice") if n["player"] == "alice")
    assert "still to vote: alice" in controls.propose(db, "g1", "bob", "draw")
    assert read.game(db, "g1")["status"] == "running"
    said = controls.propose(db, "g1", "alice", "draw")
    assert "is over, drawn" in said
    g = read.game(db, "g1")
    assert g["status"] == "finished" and '"draw":true' in g["outcome"]


def test_concessions_end_the_game_for_the_leaders(db, game, turns):
    host.autoplay(db, "g1", max_phases=6, turns=turns)  # a few turns, so the scores may differ
    from pbem.core.registry import get_rules

    scores = get_rules("gods").scores(host.current_state(db, "g1"))
    top = max(scores.values())
    leaders = [p for p, s in scores.items() if s == top]
    others = [p for p in scores if p not in leaders]
    assert leaders == ["alice"] and others == ["bob", "carl"]  # seed 1 after 6 turns: alice leads
    assert "still to concede: carl" in controls.propose(db, "g1", "bob", "concede")
    assert "still to vote: bob, carl" in controls.propose(db, "g1", "alice", "draw")  # a DRAW is another proposal
    said = controls.propose(db, "g1", "carl", "concede")
    g = read.game(db, "g1")
    assert g["status"] == "finished" and "is over, won by" in said
    assert json.loads(g["outcome"])["winners"] == leaders


# --- rollback --------------------------------------------------------------------------------------

def test_rollback_queues_a_correction_notice(db, game, turns):
    host.autoplay(db, "g1", max_phases=2, turns=turns)
    r = host.rollback(db, "g1", 1, turns=turns)
    assert r["mail_cancelled"] >= 1
    notices = [n for n in outbox(db, "notice") if n["subject"] == "[g1] correction: back to turn 1"]
    assert sorted(n["to_addr"] for n in notices) == ["alice@example.org", "bob@example.org", "carl@example.org"]
    assert all(n["status"] == "queued" for n in notices)
    assert read.gm_actions(db, "g1")[-1]["action"] == "rollback"



def test_after_a_rollback_past_its_deadline_players_may_send_new_orders_before_a_fresh_one(db, game, turns, clock):
    """A walk-through: the correction notice promised 'you may send new ones', but the turn
    kept its passed deadline, so new orders would be refused as too late, and the notice did
    not say that the turn resolves again at once when everyone's orders are in."""
    clock("2026-11-27T10:00:00Z")  # the 72h deadline of turn 1 has passed
    host.resolve(db, ["g1"], turns=turns)
    assert db["games"].get("g1")["phase"] == 2
    clock("2026-11-28T09:00:00Z")
    host.rollback(db, "g1", 1, turns=turns)
    g = db["games"].get("g1")
    assert g["phase"] == 1 and g["deadline"] == "2026-12-01T09:00:00Z"  # 72h from the rollback
    assert read.phase(db, "g1", 1)["deadline"] == g["deadline"]
    asked = host.current_state(db, "g1")  # whoever is on turn may send new orders
    from pbem.core import engine
    from pbem.core.registry import get_rules

    who = engine.active_players(get_rules("gods"), asked)[0]
    ack = play(db, "g1", who, game[who], turns)
    assert ack.status != "rejected", ack.reason
    [notice] = [n for n in outbox(db, "notice") if n["subject"] == "[g1] correction: back to turn 1" and n["to_addr"] == "alice@example.org"]
    assert "resolved again at its deadline, Tue 01 Dec 2026 09:00 UTC" in notice["body"], notice["body"]
    assert "may be resolved again at once" in notice["body"]

# --- the site and the reports mark what the GM did ------------------------------------------------

def test_the_site_shows_bot_seats_a_pause_and_the_announcements(db, game, turns, tmp_path):
    from test_site_lib import parse_html

    from pbem.site.publish import publish

    seats.set_bot(db, "g1", "carl", True)
    seats.resign(db, "g1", "bob")
    controls.pause(db, "g1", reason="the GM is away")
    out = tmp_path / "site"
    publish(db, out)
    parse_html(out / "games" / "g1" / "index.html")  # strict HTML5
    parse_html(out / "index.html")
    page = (out / "games" / "g1" / "index.html").read_text()
    assert re.search(r"carl(?:(?!</span>).)*?</span> <span class=\"badge\">bot</span>|carl <span class=\"badge\">bot</span>", page)
    assert '<span class="badge">vacant</span>' in page and "paused by the GM" in page
    assert "From the GM" in page and "the GM is away" in page and "bob resigned" in page
    index = (out / "index.html").read_text()
    assert '<span class="badge">paused</span>' in index
    for password in game.values():
        assert password not in page and password not in index
    assert "Seats" not in read.report_text(db, "g1", 1, "")  # turn 1 was written before the changes
