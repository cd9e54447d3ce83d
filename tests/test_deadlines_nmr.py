"""Deadlines (set at `pbem new`, moved by PBEM_NOW in tests) and what NMR means.

NMR means *no submission at all*. A player who sent an empty order file, an all-default or
all-pass order set, or whose every order was forced, is not NMR.
"""

from __future__ import annotations

import json

import pytest

from pbem.core import engine
from pbem.host import schedule
from pbem.core.registry import get_rules
from gods_helpers import legal_lines, passwords, state, text
from pbem.host.store import dumps, loads, open_db

LONDON = ("--every", "72h", "--at", "20:00", "--tz", "Europe/London")


# --- helpers -------------------------------------------------------------------------------

def new(cli, game_id="g1", players=("alice", "bob"), *extra, seed="1"):
    args = ["new", "gods", game_id, "--seed", seed]
    for p in players:
        args += ["--player", p]
    r = cli(*args, *extra)
    assert r.exit_code == 0, r.output
    return passwords(r.stdout)


def store(tmp_path):
    return open_db(str(tmp_path / "pbem.db"))


def current(db, game_id="g1"):
    return db["phases"].get((game_id, db["games"].get(game_id)["phase"]))


def at(monkeypatch, when):
    monkeypatch.setenv("PBEM_NOW", when)


def status_json(cli, game_id="g1"):
    r = cli("status", game_id, "--json")
    assert r.exit_code == 0, r.output
    (g,) = json.loads(r.stdout)["games"]
    return g


def reports_of(cli, turn, players=("alice", "bob")):
    out = {"": cli("report", "g1", "--turn", str(turn)).stdout}
    for p in players:
        out[p] = cli("report", "g1", "--turn", str(turn), "--player", p).stdout
    return out


# --- the schedule: computed deadlines --------------------------------------------------------------

def test_pbem_now_moves_the_clock(monkeypatch):
    at(monkeypatch, "2026-03-01T10:00:00+01:00")
    assert schedule.iso(schedule.now()) == "2026-03-01T09:00:00Z"
    monkeypatch.delenv("PBEM_NOW")
    assert schedule.now().tzinfo is not None


@pytest.mark.parametrize(
    "opened, every, at_, tz, due",
    [
        # 72h later, at 20:00 London time: GMT in November
        ("2026-11-21T13:55:00Z", "72h", "20:00", "Europe/London", "2026-11-24T20:00:00Z"),
        # the week the clocks go back (Sun 25 Oct 2026): 20:00 BST on Saturday is 19:00 UTC ...
        ("2026-10-21T12:00:00Z", "72h", "20:00", "Europe/London", "2026-10-24T19:00:00Z"),
        # ... and 20:00 GMT on Monday is 20:00 UTC
        ("2026-10-23T12:00:00Z", "72h", "20:00", "Europe/London", "2026-10-26T20:00:00Z"),
        ("2026-10-22T12:00:00Z", "72h", "20:00", "Europe/London", "2026-10-25T20:00:00Z"),
        # the week they go forward (Sun 29 Mar 2026): 20:00 BST is 19:00 UTC
        ("2026-03-27T12:00:00Z", "72h", "20:00", "Europe/London", "2026-03-30T19:00:00Z"),
        ("2026-03-26T12:00:00Z", "72h", "20:00", "Europe/London", "2026-03-29T19:00:00Z"),
        # New York springs forward on 8 Mar 2026: 09:00 EDT is 13:00 UTC, 09:00 EST was 14:00
        ("2026-03-07T15:00:00Z", "1d", "09:00", "America/New_York", "2026-03-08T13:00:00Z"),
        ("2026-03-06T15:00:00Z", "1d", "09:00", "America/New_York", "2026-03-07T14:00:00Z"),
        # no --at: exactly `every` later
        ("2026-10-24T23:30:00Z", "2d12h", None, "Europe/London", "2026-10-27T11:30:00Z"),
        ("2026-01-01T00:00:00Z", "90m", None, None, "2026-01-01T01:30:00Z"),
        # the time of day already past on the day `every` lands on: the next day
        ("2026-06-01T20:30:00Z", "1h", "20:00", "UTC", "2026-06-02T20:00:00Z"),
    ],
)
def test_new_sets_the_deadline_from_the_schedule(cli, tmp_path, monkeypatch, opened, every, at_, tz, due):
    at(monkeypatch, opened)
    extra = ["--every", every] + (["--at", at_] if at_ else []) + (["--tz", tz] if tz else [])
    new(cli, "g1", ("alice", "bob"), *extra)
    db = store(tmp_path)
    assert db["games"].get("g1")["deadline"] == due
    assert db["phases"].get(("g1", 1))["deadline"] == due
    assert db["phases"].get(("g1", 1))["opened"] == schedule.iso(schedule.parse_time(opened))
    assert status_json(cli)["deadline"] == due
    sched = loads(db["games"].get("g1")["schedule"])
    assert sched == {"every": every, "at": at_, "tz": tz or "UTC"}


def test_deadline_is_shown_in_every_report_and_in_status(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-10-21T12:00:00Z")
    pw = new(cli, "g1", ("alice", "bob"), *LONDON)
    shown = "Deadline: Sat 24 Oct 2026 20:00 BST (2026-10-24T19:00:00Z)"
    for who, report in reports_of(cli, 1).items():
        assert shown in report, who
    for f in (tmp_path / "turns" / "g1" / "1" / "reports").iterdir():
        assert shown in f.read_text()
    r = cli("status", "g1")
    assert "deadline 2026-10-24T19:00:00Z" in r.stdout
    assert status_json(cli)["deadline"] == "2026-10-24T19:00:00Z"
    # turn 2 opens when turn 1 is resolved (before the clocks go back); it is due 72h later,
    # at 20:00 -- now GMT
    at(monkeypatch, "2026-10-23T09:00:00Z")
    db = store(tmp_path)
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], legal_lines(db, "alice")))
    r = cli("resolve", "g1")
    assert "g1 turn 1: resolved" in r.stdout
    shown = "Deadline: Mon 26 Oct 2026 20:00 GMT (2026-10-26T20:00:00Z)"
    for who, report in reports_of(cli, 2).items():
        assert shown in report, who
    assert "deadline 2026-10-26T20:00:00Z" in cli("status", "g1").stdout
    assert db["phases"].get(("g1", 2))["deadline"] == "2026-10-26T20:00:00Z"
    assert db["phases"].get(("g1", 1))["deadline"] == "2026-10-24T19:00:00Z"  # kept as it was


def test_without_a_schedule_there_is_no_deadline(cli, tmp_path, monkeypatch):
    new(cli)
    assert "Deadline: none set" in cli("report", "g1").stdout
    assert status_json(cli)["deadline"] is None
    at(monkeypatch, "2099-01-01T00:00:00Z")  # however late it gets, resolve waits for orders
    r = cli("resolve", "g1")
    assert "g1 turn 1: waiting -- waiting for alice" in r.stdout


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--every", "5q"], "--every '5q' is not a duration like 72h, 3d or 2d12h"),
        (["--every", "72"], "--every '72' is not a duration"),
        (["--every", "-3h"], "--every '-3h' is not a duration"),
        (["--every", "0h"], "--every must be longer than zero"),
        (["--every", "72h", "--at", "25:00"], "--at '25:00' is not a time like 20:00"),
        (["--every", "72h", "--at", "8pm"], "--at '8pm' is not a time like 20:00"),
        (["--every", "72h", "--at", "20:60"], "--at '20:60' is not a time"),
        (["--every", "72h", "--tz", "Mars/Olympus"], "--tz 'Mars/Olympus' is not a known time zone"),
        (["--every", "72h", "--tz", "../../etc/passwd"], "is not a known time zone"),
        (["--at", "20:00"], "--at and --tz need --every"),
        (["--tz", "Europe/London"], "--at and --tz need --every"),
    ],
)
def test_bad_schedule_values_are_clean_errors(cli, tmp_path, extra, message):
    r = cli("new", "gods", "g1", "-p", "alice", "-p", "bob", *extra)
    assert r.exit_code == 1, r.output
    assert message in r.stderr
    assert "Traceback" not in r.output
    assert store(tmp_path)["games"].count == 0


def test_bad_pbem_now_is_a_clean_error(cli, monkeypatch):
    new(cli)
    at(monkeypatch, "next tuesday")
    r = cli("status", "--json")
    assert r.exit_code == 1
    assert "'next tuesday' is not a date and time" in r.stderr
    assert "Traceback" not in r.output


# --- resolving at the deadline ---------------------------------------------------------------------

def test_resolve_waits_before_the_deadline_and_resolves_after_it(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-11-21T13:55:00Z")
    new(cli, "g1", ("alice", "bob"), *LONDON)
    db = store(tmp_path)
    before = current(db)
    at(monkeypatch, "2026-11-24T19:59:59Z")
    r = cli("resolve", "g1")
    assert r.exit_code == 0
    assert "g1 turn 1: waiting -- waiting for alice" in r.stdout
    assert current(db) == before
    at(monkeypatch, "2026-11-24T20:00:00Z")  # the deadline itself
    r = cli("resolve", "g1")
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: resolved (NMR: alice)" in r.stdout
    assert "g1 turn 2: waiting -- waiting for bob" in r.stdout  # bob's turn has its own deadline
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == ["alice"]
    assert db["phases"].get(("g1", 1))["resolved"] == "2026-11-24T20:00:00Z"
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1", order_by="id")]
    assert {"type": "nmr", "player": "alice"} in events
    assert len([e for e in events if e["type"] == "default" and e["player"] == "alice"]) == 2
    assert "alice sent no orders (NMR); default orders were used" in cli("report", "g1").stdout
    assert "alice sent no orders (NMR)" in cli("report", "g1", "--player", "bob").stdout
    g = status_json(cli)
    assert g["turn"] == 2 and g["awaiting"] == ["bob"] and g["deadline"] == "2026-11-27T20:00:00Z"


def test_resolve_all_resolves_only_the_games_that_are_due(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-11-21T12:00:00Z")
    new(cli, "early", ("alice", "bob"), "--every", "24h")
    new(cli, "late", ("carol", "dave"), "--every", "72h")
    new(cli, "nodeadline", ("erin", "frank"))
    at(monkeypatch, "2026-11-23T12:00:00Z")
    r = cli("resolve", "--all")
    assert r.exit_code == 0, r.output
    assert "early turn 1: resolved (NMR: alice)" in r.stdout
    # games that are not due are not even looked at (the cost follows the due games)
    assert "late" not in r.stdout and "nodeadline" not in r.stdout
    assert "early turn 2: waiting" in r.stdout
    assert status_json(cli, "late")["turn"] == 1 and status_json(cli, "nodeadline")["turn"] == 1


def test_a_submission_after_the_deadline_is_late(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-11-21T13:55:00Z")
    pw = new(cli, "g1", ("alice", "bob"), *LONDON)
    db = store(tmp_path)
    lines = legal_lines(db, "alice")
    at(monkeypatch, "2026-11-24T20:00:01Z")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines))
    assert r.exit_code == 2
    assert "REJECTED: too late: the deadline of turn 1 was 2026-11-24T20:00:00Z" in r.stdout
    (row,) = db["submissions"].rows
    assert row["status"] == "rejected" and row["received"] == "2026-11-24T20:00:01Z"
    r = cli("resolve", "g1")
    assert "g1 turn 1: resolved (NMR: alice)" in r.stdout  # the late orders are not used


def test_orders_in_time_are_used_when_the_gm_resolves_after_the_deadline(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-11-21T13:55:00Z")
    pw = new(cli, "g1", ("alice", "bob", "carol"), *LONDON)
    db = store(tmp_path)
    lines = legal_lines(db, "alice")
    at(monkeypatch, "2026-11-24T19:00:00Z")
    assert cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines)).exit_code == 0
    at(monkeypatch, "2026-11-25T08:00:00Z")
    r = cli("resolve", "g1")
    assert "g1 turn 1: resolved --" in r.stdout and "NMR" not in r.stdout
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == []


def test_files_the_gm_dropped_count_when_resolving_after_the_deadline(cli, tmp_path, monkeypatch):
    """The GM saves mailed orders into turns/ as they arrive and runs `pbem resolve` after the
    deadline: those files are the players' orders, not late ones."""
    at(monkeypatch, "2026-11-21T13:55:00Z")
    new(cli, "g1", ("alice", "bob"), *LONDON)
    db = store(tmp_path)
    lines = legal_lines(db, "alice")
    (tmp_path / "turns" / "g1" / "1" / "alice.txt").write_text(text("alice", None, lines))
    at(monkeypatch, "2026-11-24T21:00:00Z")
    r = cli("resolve", "g1")
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: resolved --" in r.stdout and "NMR" not in r.stdout
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1", order_by="id")]
    assert [e["order"] for e in events if e["type"] == "order"] == lines


def test_autoplay_after_a_deadline_plays_every_seat(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-11-21T13:55:00Z")
    new(cli, "g1", ("alice", "bob"), *LONDON)
    at(monkeypatch, "2026-12-24T00:00:00Z")
    r = cli("autoplay", "g1", "--max-phases", "4")
    assert r.exit_code == 0, r.output
    db = store(tmp_path)
    assert all(loads(p["nmr"]) == [] for p in db["phases"].rows_where("resolved is not null"))
    assert all(s["status"] != "rejected" for s in db["submissions"].rows)


# --- NMR means no submission at all ------------------------------------------------------------------

def test_an_empty_order_file_is_not_nmr(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-11-21T13:55:00Z")
    new(cli, "g1", ("alice", "bob"), *LONDON)
    db = store(tmp_path)
    (tmp_path / "turns" / "g1" / "1" / "alice.txt").write_bytes(b"")
    r = cli("resolve", "g1")  # long before the deadline: the empty file is alice's orders
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: resolved --" in r.stdout and "NMR" not in r.stdout
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == []
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1")]
    assert not [e for e in events if e["type"] == "nmr"]
    assert len([e for e in events if e["type"] == "default" and e["player"] == "alice"]) == 2
    assert "NMR" not in cli("report", "g1").stdout


def test_a_submission_of_no_orders_with_a_password_is_not_nmr(cli, tmp_path, monkeypatch):
    at(monkeypatch, "2026-11-21T13:55:00Z")
    pw = new(cli, "g1", ("alice", "bob"), *LONDON)
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["# away this week"]))
    assert r.exit_code == 0
    at(monkeypatch, "2026-11-25T00:00:00Z")  # resolved at the deadline or before: the same
    r = cli("resolve", "g1")
    assert "g1 turn 1: resolved --" in r.stdout and "NMR" not in r.stdout


def test_the_default_order_set_is_not_nmr_and_plays_like_nmr(cli, tmp_path):
    """Two games from one seed: in one alice sends exactly the default orders, in the other
    nothing. The positions reached are the same; only the second is NMR."""
    pw = new(cli, "sent", seed="9")
    new(cli, "silent", seed="9")
    db = store(tmp_path)
    rules = get_rules("gods")
    s = state(db, "sent")
    defaults = []
    sim = json.loads(json.dumps(s))
    from pbem.core.rng import Rng

    while "alice" in engine.active_players(rules, sim):
        order = rules.default_order(sim, "alice")
        defaults.append(order.text)
        rules.apply(sim, "alice", order, Rng("x", "y"))
    assert len(defaults) == 2
    r = cli("submit", "sent", "alice", "-", input=text("alice", pw["alice"], defaults, "sent"))
    assert r.exit_code == 0, r.output
    r = cli("resolve", "sent", "silent", "--force")
    assert "sent turn 1: resolved --" in r.stdout
    assert "silent turn 1: resolved (NMR: alice)" in r.stdout
    assert loads(db["phases"].get(("sent", 1))["nmr"]) == []
    assert loads(db["phases"].get(("silent", 1))["nmr"]) == ["alice"]
    assert db["phases"].get(("sent", 2))["state_hash"] == db["phases"].get(("silent", 2))["state_hash"]


def test_an_all_rejected_submission_is_not_nmr(cli, tmp_path):
    pw = new(cli)
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["tribe 99,99", "temple 99,99"]))
    assert r.exit_code == 2 and "0 accepted, 2 rejected." in r.stdout
    assert "waiting for alice (lines rejected" in cli("resolve", "g1").stdout  # not ready: no early resolution
    r = cli("resolve", "g1", "--force")  # at the deadline it counts: alice sent orders, so she is not NMR
    assert "g1 turn 1: resolved --" in r.stdout and "NMR" not in r.stdout


def _edit_state(db, game_id, change):
    """Change the stored position of the open turn (a test-only shortcut to a position)."""
    ph = current(db, game_id)
    st = loads(ph["state"])
    change(st["game"])
    db["phases"].update((game_id, ph["number"]), {"state": dumps(st), "state_hash": engine.state_hash(st)})
    return st


def test_an_all_pass_order_set_is_not_nmr(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)

    def empty_display(g):
        g["deck"] = g["display"] + g["deck"]
        g["display"] = []

    st = _edit_state(db, "g1", empty_display)
    legal = [o.text for o in get_rules("gods").legal_orders(st, "alice")]
    assert "pass" in legal and len(legal) > 1  # alice has a real choice, and passes
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["pass", "pass"]))
    assert r.exit_code == 0, r.output
    r = cli("resolve", "g1")
    assert "g1 turn 1: resolved --" in r.stdout and "NMR" not in r.stdout
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1", order_by="id")]
    assert [e["order"] for e in events if e["type"] == "order" and e["player"] == "alice"] == ["pass", "pass"]
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == []


def test_a_player_whose_every_order_is_forced_is_never_awaited_nor_nmr(cli, tmp_path, monkeypatch):
    """bob has no crystals, the stock is empty, no temples are left and the draw pile is
    empty: once alice clears the display, `pass` is bob's only legal order, so the engine plays
    it for him at once. He is never asked, never awaited, and never NMR -- even when the turns
    are resolved at their deadlines."""
    at(monkeypatch, "2026-11-21T13:55:00Z")
    pw = new(cli, "g1", ("alice", "bob"), *LONDON)
    db = store(tmp_path)

    def starve_bob(g):
        g["deck"] = []
        g["temples_left"]["bob"] = 0  # none of bob's own 6 left
        g["stock"] = 0
        g["crystals"]["bob"] = 0
        g["extra_cards"]["bob"] = 0

    st = _edit_state(db, "g1", starve_bob)
    clear = [f"discard {c[6:] if c.startswith('tribe:') else c}" for c in st["game"]["display"]]
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], clear))
    assert r.exit_code == 0, r.output
    r = cli("resolve", "g1")
    assert "g1 turn 1: resolved -- turn 2 opened; awaiting alice" in r.stdout
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1", order_by="id")]
    assert [e["order"] for e in events if e["type"] == "forced" and e["player"] == "bob"] == ["pass", "pass"]
    assert "bob had one legal order and it was played: pass" in cli("report", "g1").stdout
    assert status_json(cli)["awaiting"] == ["alice"]
    # alice misses the next deadlines; bob is still never asked nor NMR
    for day in ("2026-12-01", "2026-12-08", "2026-12-15"):
        at(monkeypatch, f"{day}T00:00:00Z")
        r = cli("resolve", "g1")
        assert "(NMR: alice)" in r.stdout and "bob" not in r.stdout
    for ph in db["phases"].rows_where("game_id = 'g1'"):
        assert "bob" not in loads(ph["active"])
        assert "bob" not in (loads(ph["nmr"]) or [])
    forced = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1'")]
    assert len([e for e in forced if e["type"] == "forced" and e["player"] == "bob"]) == 8
    assert not [e for e in forced if e["type"] in ("nmr", "default") and e["player"] == "bob"]


def test_days_are_counted_on_the_local_calendar_across_a_clock_change():
    """Opened at 00:30 BST on Saturday 24 October 2026; the clocks go back early on Sunday.
    "72h at 20:00" is Tuesday 27 October at 20:00 local (GMT), not a day earlier."""
    from datetime import datetime, timezone

    from pbem.host import schedule

    sched = schedule.make_schedule("72h", "20:00", "Europe/London")
    opened = datetime(2026, 10, 23, 23, 30, tzinfo=timezone.utc)  # 00:30 BST on the 24th
    assert schedule.iso(schedule.deadline(sched, opened)) == "2026-10-27T20:00:00Z"
