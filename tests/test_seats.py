"""Seats (pbem.host.seats): addresses, passwords, replacement, resignation, bot seats, open
sign-up and observers. Bad input changes nothing; a password only ever goes to its seat's
own address."""

from __future__ import annotations

import pytest
from gods_helpers import legal_lines, text
from test_controls import T0, outbox, snapshot, unchanged

from pbem import host
from pbem.core.errors import PbemError
from pbem.host import controls, read, schedule, seats


@pytest.fixture
def clock(monkeypatch):
    monkeypatch.setenv("PBEM_NOW", T0)


@pytest.fixture
def game(db, turns, clock):
    created = host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org", "carl:carl@example.org"],
                            seed="1", sched=schedule.make_schedule("72h", None, None), turns=turns)
    return {p["name"]: p["password"] for p in created["players"]}


def orders(db, player, password, game_id="g1", name=None):
    return text(name or player, password, legal_lines(db, player, game_id), game_id).encode()


def passwords_only_to_their_seat(db) -> None:
    """No queued message carries a password but to the address of the seat it opens."""
    seats_now = {p["password"]: p for p in read.players(db, "g1")}
    for mail in outbox(db):
        for password, seat in seats_now.items():
            if password in mail["body"] or password in mail["subject"]:
                assert mail["to_addr"] == seat["email"], (mail["kind"], mail["to_addr"])


# --- address and password ----------------------------------------------------------------------

def test_a_new_address_tells_both_addresses(db, game):
    r = seats.set_address(db, "g1", "bob", "bob@new.example.org")
    assert r == {"game": "g1", "player": "bob", "email": "bob@new.example.org", "was": "bob@example.org",
                 "moved": {"queued": 1, "failed": 0}}  # bob's turn-1 report, not sent yet, follows him
    assert [m["to_addr"] for m in outbox(db, "report") if m["player"] == "bob"] == ["bob@new.example.org"]
    assert [m["to_addr"] for m in outbox(db, "report") if m["player"] == "alice"] == ["alice@example.org"]
    told = [m["to_addr"] for m in outbox(db, "notice")]
    assert told == ["bob@example.org", "bob@new.example.org"]
    assert read.player(db, "g1", "bob")["email"] == "bob@new.example.org"
    assert game["bob"] not in "".join(m["body"] for m in outbox(db, "notice"))
    assert read.gm_actions(db, "g1")[-1]["action"] == "address"


@pytest.mark.parametrize("addr,says", [
    ("not-an-address", "'not-an-address' is not an email address"),
    ("a@b@c.org", "'a@b@c.org' is not an email address"),
    ("bob@example.org\nBcc: x@evil.org", "is not an email address"),
    ("", "no email address given"),
])
def test_bad_addresses_change_nothing(db, game, addr, says):
    unchanged(db, lambda: seats.set_address(db, "g1", "bob", addr), says)


def test_unknown_games_and_players_change_nothing(db, game):
    unchanged(db, lambda: seats.set_address(db, "g1", "zed", "z@example.org"), "game 'g1' has no player 'zed'")
    unchanged(db, lambda: seats.set_address(db, "nope", "bob", "z@example.org"), "no game 'nope'")
    unchanged(db, lambda: seats.reset_password(db, "g1", "zed"), "has no player 'zed'")
    unchanged(db, lambda: seats.replace(db, "g1", "zed", "dora"), "has no player 'zed'")
    unchanged(db, lambda: seats.set_bot(db, "g1", "zed", True), "has no player 'zed'")
    unchanged(db, lambda: seats.resign(db, "g1", "zed"), "has no player 'zed'")
    unchanged(db, lambda: seats.set_address(db, "g1", "bob", "bob@example.org"), "already at bob@example.org")


def test_reset_password_retires_the_old_one_and_mails_the_new_one_only_to_the_seat(db, game):
    new = seats.reset_password(db, "g1", "alice")
    assert new != game["alice"] and read.player(db, "g1", "alice")["password"] == new
    (mail,) = outbox(db, "password")
    assert mail["to_addr"] == "alice@example.org" and new in mail["body"]
    assert new not in str(read.gm_actions(db, "g1"))
    assert host.submit(db, "g1", "alice", orders(db, "alice", game["alice"])).reason == "wrong password"
    assert host.submit(db, "g1", "alice", orders(db, "alice", new)).ok
    passwords_only_to_their_seat(db)


def test_send_password_goes_to_the_registered_address_only(db, game, turns):
    seats.send_password(db, "g1", "carl")
    (mail,) = outbox(db, "password")
    assert mail["to_addr"] == "carl@example.org" and game["carl"] in mail["body"]
    host.new_game(db, "gods", "g2", ["x", "y"], seed="2", turns=turns)
    unchanged(db, lambda: seats.send_password(db, "g2", "x"), "has no registered address")


# --- replacement ---------------------------------------------------------------------------------

def test_a_replacement_keeps_the_seat_and_gets_a_new_password_and_the_latest_report(db, game, turns):
    password = seats.replace(db, "g1", "alice", "dora", "dora@example.org", reason="alice moved away")
    seat = read.player(db, "g1", "alice")
    assert (seat["name"], seat["person"], seat["email"], seat["password"]) == ("alice", "dora", "dora@example.org", password)
    assert read.player(db, "g1", "dora")["name"] == "alice"  # the newcomer's name finds the seat too
    # the old password stops working; the newcomer plays with PLAYER dora or PLAYER alice
    assert host.submit(db, "g1", "alice", orders(db, "alice", game["alice"])).reason == "wrong password"
    assert host.submit(db, "g1", "dora", orders(db, "alice", password, name="dora")).ok
    welcome = [m for m in outbox(db, "report") if m["to_addr"] == "dora@example.org"]
    assert len(welcome) == 1 and password in welcome[0]["body"] and "HISTORY g1" in welcome[0]["body"]
    assert read.report_text(db, "g1", 1, "alice") in welcome[0]["body"]
    told = sorted(m["to_addr"] for m in outbox(db, "notice") if m["subject"] == "[g1] alice has a new player")
    assert told == ["bob@example.org", "carl@example.org", "dora@example.org"]  # not the old address
    passwords_only_to_their_seat(db)
    # later turns and replay agree: the seat's name never changed
    host.resolve(db, ["g1"], turns=turns, max_phases=1)
    assert host.replay(db, "g1")["ok"]
    assert read.rows(db, "select change, new from seat_history")[-1]["change"] == "replaced"


def test_a_replacement_name_must_be_free_and_valid(db, game):
    unchanged(db, lambda: seats.replace(db, "g1", "alice", "bob"), "the name 'bob' is taken")
    unchanged(db, lambda: seats.replace(db, "g1", "alice", "Not A Name!"), "is not allowed")
    unchanged(db, lambda: seats.replace(db, "g1", "alice", "dora", "dora-at-example"), "is not an email address")


# --- resignation and bots -------------------------------------------------------------------------

def test_resign_leaves_a_vacant_seat_that_is_never_awaited_and_tells_the_gm(db, game, turns):
    controls.set_option(db, "g1", "gm_email", "gm@example.org")
    said = seats.resign(db, "g1", "bob")
    assert "seat bob is now vacant" in said
    seat = read.player(db, "g1", "bob")
    assert seat["vacant"] == 1 and seat["email"] is None and seat["password"] != game["bob"]
    (gm,) = outbox(db, "gm")
    assert gm["to_addr"] == "gm@example.org" and "pbem replace g1 bob" in gm["body"]
    status = host.status(db, "g1")["games"][0]
    assert status["vacant"] == ["bob"] and status["resigned"][0]["player"] == "bob"
    unchanged(db, lambda: seats.resign(db, "g1", "bob"), "already vacant")
    # bob's turn comes: nobody waits for him, and he gets the defaults
    host.submit(db, "g1", "alice", orders(db, "alice", game["alice"]))
    results = host.resolve(db, ["g1"], turns=turns, max_phases=2)
    assert [r.outcome for r in results] == ["resolved", "resolved"] and results[1].nmr == ["bob"]
    assert read.game(db, "g1")["phase"] == 3
    public = read.report_text(db, "g1", 3, None)  # the report says the seat is vacant, not NMR
    assert "bob's seat is vacant; default orders were used" in public and "bob sent no orders" not in public


def test_resign_to_a_bot_when_the_policy_says_so(db, game):
    controls.set_option(db, "g1", "seat_policy", "bot")
    assert "now a bot" in seats.resign(db, "g1", "carl")
    assert read.player(db, "g1", "carl")["bot"] == 1
    unchanged(db, lambda: seats.set_bot(db, "g1", "carl", False), "has no player (they resigned)")
    assert not outbox(db, "gm")  # no gm_email: the log and status carry it
    assert read.gm_actions(db, "g1")[-1]["action"] == "resign"


def test_a_bot_seat_plays_at_every_resolution(db, game, turns):
    seats.set_bot(db, "g1", "bob", True)
    unchanged(db, lambda: seats.set_bot(db, "g1", "bob", True), "already a bot")
    host.submit(db, "g1", "alice", orders(db, "alice", game["alice"]))
    host.resolve(db, ["g1"], turns=turns, max_phases=3)  # alice, then bob's bot, then carl is asked
    g = read.game(db, "g1")
    assert g["phase"] == 3
    used = read.rows(db, "select player, source from submissions where game_id = 'g1' and phase = 2")
    assert used == [{"player": "bob", "source": "bot"}]
    assert host.status(db, "g1")["games"][0]["awaiting"] == ["carl"]
    assert host.replay(db, "g1")["ok"]
    seats.set_bot(db, "g1", "bob", False)
    assert read.player(db, "g1", "bob")["bot"] == 0


def test_a_bot_seat_does_not_hold_up_due_games(db, game, turns):
    seats.set_bot(db, "g1", "alice", True)
    assert host.due_games(db, turns) == ["g1"]  # alice is asked, a bot: resolvable now
    host.resolve(db, turns=turns, max_phases=1)
    assert read.game(db, "g1")["phase"] == 2


# --- open sign-up --------------------------------------------------------------------------------

def test_open_sign_up_starts_when_full_with_the_passwords_given_at_join(db, turns, clock):
    created = host.new_game(db, "gods", "open1", [], open_seats=3, turns=turns, options={"grace": "6h"},
                            sched=schedule.make_schedule("72h", None, None))
    assert created["signup"]["seats"] == 3
    a = seats.join(db, "open1", "ann@example.org", "ann", turns=turns)
    unchanged(db, lambda: seats.join(db, "open1", "ann@example.org", "other", turns=turns), "has already joined game 'open1' as ann")
    unchanged(db, lambda: seats.join(db, "open1", "ben@example.org", "ann", turns=turns), "the name 'ann' is taken")
    unchanged(db, lambda: seats.join(db, "open1", "not an address", turns=turns), "is not an email address")
    unchanged(db, lambda: seats.join(db, "nope", "ben@example.org", turns=turns), "no game 'nope' is open for sign-up")
    b = seats.join(db, "open1", "Ben.Smith@example.org", turns=turns)
    assert b[0] == "ben-smith"  # a name from the address
    assert read.games(db) == []  # not started yet
    c = seats.join(db, "open1", "cy@example.org", "cy", turns=turns)
    g = read.game(db, "open1")
    assert g["status"] == "running" and g["grace"] == 6 * 3600 and g["deadline"] == "2026-11-26T10:00:00Z"
    assert {p["name"]: p["password"] for p in read.players(db, "open1")} == dict([a, b, c])
    reports = {m["to_addr"]: m["body"] for m in outbox(db, "report")}
    assert a[1] in reports["ann@example.org"] and c[1] in reports["cy@example.org"]
    unchanged(db, lambda: seats.join(db, "open1", "dan@example.org", turns=turns), "has already started")
    assert [g["state"] for g in controls.games_list(db)] == ["running"]


def test_start_an_open_game_early_with_the_minimum(db, turns, clock):
    seats.open_game(db, "gods", "open2", 4)
    seats.join(db, "open2", "ann@example.org", turns=turns)
    unchanged(db, lambda: seats.start(db, "open2", turns=turns), "needs at least 2 players to start; 1 joined")
    seats.join(db, "open2", "ben@example.org", turns=turns)
    created = seats.start(db, "open2", turns=turns)
    assert [p["name"] for p in created["players"]] == ["ann", "ben"]
    assert (turns / "open2" / "1" / "reports" / "public.txt").is_file()


def test_open_games_are_checked_like_new_ones(db, game):
    unchanged(db, lambda: seats.open_game(db, "gods", "g1", 3), "a game 'g1' already exists")
    unchanged(db, lambda: seats.open_game(db, "gods", "big", 9), "GODS is for 2 to 4 players, not 9")
    unchanged(db, lambda: seats.open_game(db, "chess", "x", 2), "chess")
    seats.open_game(db, "gods", "o1", 2)
    before = snapshot(db)
    with pytest.raises(PbemError, match="already exists"):
        host.new_game(db, "gods", "o1", ["a", "b"], turns=None)
    assert snapshot(db) == before


# --- observers -----------------------------------------------------------------------------------

def test_observers_get_each_public_report_and_nothing_private(db, game, turns):
    said = seats.observe(db, "g1", "fan@example.org")
    assert "now observes game g1" in said
    assert seats.observers(db, "g1") == ["fan@example.org"]
    unchanged(db, lambda: seats.observe(db, "g1", "fan@example.org"), "already observes")
    unchanged(db, lambda: seats.observe(db, "g1", "fan-at-example"), "is not an email address")
    unchanged(db, lambda: seats.observe(db, "nope", "fan@example.org"), "no game 'nope'")
    unchanged(db, lambda: seats.observe(db, "g1", "other@example.org", remove=True), "does not observe")
    host.submit(db, "g1", "alice", orders(db, "alice", game["alice"]))
    host.resolve(db, ["g1"], turns=turns, max_phases=1)
    fan = [m for m in outbox(db) if m["to_addr"] == "fan@example.org"]
    assert [m["subject"] for m in fan] == ["[g1] turn 1 public report", "[g1] turn 2 public report"]
    assert fan[1]["body"].startswith(read.report_text(db, "g1", 2, ""))
    for m in fan:
        assert "Report for" not in m["body"] and not any(pw in m["body"] for pw in game.values())
    controls.pause(db, "g1")  # public announcements reach observers too
    assert [m for m in outbox(db) if m["to_addr"] == "fan@example.org"][-1]["subject"] == "[g1] game paused"
    assert "no longer observes" in seats.observe(db, "g1", "fan@example.org", remove=True)
    assert seats.observers(db, "g1") == []
