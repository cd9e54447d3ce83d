"""The `pbem` command end to end, run in-process through the `cli` fixture.

Every test drives the real Typer app against a store and a turns folder in tmp_path, then
checks what was printed, the exit code, and what the store holds.
"""

from __future__ import annotations

import json
import random
import re

import pytest
import typer

from pbem.core import engine
from pbem import host
from pbem.cli import app
from pbem.core.registry import get_rules
from pbem.host.store import loads, open_db


# --- helpers -------------------------------------------------------------------------------

def new(cli, game_id="g1", players=("alice", "bob"), *extra, seed="1"):
    """`pbem new gods GAME_ID --player ...`; returns {player: password} parsed from the output."""
    args = ["new", "gods", game_id]
    for p in players:
        args += ["--player", p]
    r = cli(*args, "--seed", seed, *extra)
    assert r.exit_code == 0, r.output
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))


def store(tmp_path):
    return open_db(str(tmp_path / "pbem.db"))


def awaited(db, game_id):
    game = db["games"].get(game_id)
    return engine.active_players(get_rules(game["type"]), host.current_state(db, game_id))


def legal_lines(db, game_id, player, seed=0):
    """A legal order script for `player` in the current position (the bot's choice)."""
    game = db["games"].get(game_id)
    return host.bot_script(get_rules(game["type"]), host.current_state(db, game_id), player, random.Random(seed))


def order_text(game_id, player, password, lines, header=True):
    head = [f"GAME {game_id}", f"PLAYER {player}"] + ([f"PASSWORD {password}"] if password else [])
    return "\n".join((head if header else []) + list(lines) + ["END", "-- signature after END is ignored"]) + "\n"


def turn_of(db, game_id):
    return db["games"].get(game_id)["phase"]


def count(db, table, where="1=1", params=()):
    return db.execute(f"select count(*) from {table} where {where}", list(params)).fetchone()[0]


# --- rules ---------------------------------------------------------------------------------

def test_rules_lists_game_types_and_prints_gods_orders(cli):
    r = cli("rules")
    assert r.exit_code == 0, r.output
    assert re.search(r"^gods\s+GODS \(2-4 players\)$", r.stdout, re.M)
    r = cli("rules", "gods")
    assert r.exit_code == 0, r.output
    for verb in ("tribe", "temple", "wasteland", "whirlwind", "discard", "pass", "PASSWORD"):
        assert verb in r.stdout
    r = cli("rules", "chess")
    assert r.exit_code == 1
    assert "unknown game type 'chess'" in r.stderr and "gods" in r.stderr
    assert "Traceback" not in r.output


# --- new -----------------------------------------------------------------------------------

def test_new_prints_each_players_password_and_stores_them(cli, tmp_path):
    r = cli("new", "gods", "g1", "--player", "alice:a@example.org", "--player", "bob", "--player", "carol", "--seed", "7")
    assert r.exit_code == 0, r.output
    printed = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))
    assert list(printed) == ["alice", "bob", "carol"]
    assert len(set(printed.values())) == 3
    assert "<a@example.org>" in r.stdout
    db = store(tmp_path)
    rows = {p["name"]: p for p in db["players"].rows_where("game_id = 'g1'")}
    assert {n: p["password"] for n, p in rows.items()} == printed
    assert rows["alice"]["email"] == "a@example.org" and rows["bob"]["email"] is None
    assert [rows[n]["seat"] for n in ("alice", "bob", "carol")] == [1, 2, 3]
    game = db["games"].get("g1")
    assert game["status"] == "running" and game["phase"] == 1
    assert f"seed hash {game['seed_hash']}" in r.stdout  # published at the start
    # turn 1 reports are on disk and in the store
    folder = tmp_path / "turns" / "g1" / "1" / "reports"
    assert sorted(p.name for p in folder.iterdir()) == ["alice.txt", "bob.txt", "carol.txt", "public.txt"]
    assert count(db, "reports", "game_id = 'g1' and phase = 1") == 4


@pytest.mark.parametrize("n", [2, 3, 4])
def test_new_accepts_two_to_four_players(cli, n):
    names = [f"p{i}" for i in range(n)]
    assert len(new(cli, "g1", names)) == n


@pytest.mark.parametrize("n", [1, 5])
def test_new_refuses_other_player_counts(cli, tmp_path, n):
    args = ["new", "gods", "g1"]
    for i in range(n):
        args += ["--player", f"p{i}"]
    r = cli(*args)
    assert r.exit_code == 1
    assert f"GODS is for 2 to 4 players, not {n}" in r.stderr
    assert "Traceback" not in r.output
    assert count(store(tmp_path), "games") == 0


def test_new_refuses_a_duplicate_game_id_and_keeps_the_first(cli, tmp_path):
    first = new(cli, "g1")
    r = cli("new", "gods", "g1", "--player", "x", "--player", "y")
    assert r.exit_code == 1
    assert "a game 'g1' already exists" in r.stderr
    db = store(tmp_path)
    assert {p["name"]: p["password"] for p in db["players"].rows_where("game_id = 'g1'")} == first
    assert count(db, "games") == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["new", "gods", "../x", "-p", "a", "-p", "b"], "game id '../x' is not allowed"),
        (["new", "gods", "a b", "-p", "a", "-p", "b"], "game id 'a b' is not allowed"),
        (["new", "gods", "public", "-p", "a", "-p", "b"], "game id 'public' is not allowed"),
        (["new", "gods", "g1", "-p", "a/../b", "-p", "b"], "player name 'a/../b' is not allowed"),
        (["new", "gods", "g1", "-p", "a", "-p", "a"], "player 'a' is named twice"),
        (["new", "gods", "g1", "-p", "a:not-an-email", "-p", "b"], "'not-an-email' is not an email address"),
        (["new", "chess", "g1", "-p", "a", "-p", "b"], "unknown game type 'chess'"),
        (["new", "gods", "g1", "-p", "a", "-p", "b", "--option", "start=sometimes"], "option start must be 'seat' or 'random'"),
        (["new", "gods", "g1", "-p", "a", "-p", "b", "--option", "colour=red"], "unknown option(s) colour"),
        (["new", "gods", "g1", "-p", "a", "-p", "b", "--option", "start"], "--option 'start' is not K=V"),
    ],
)
def test_new_refuses_bad_input_cleanly(cli, tmp_path, args, message):
    r = cli(*args)
    assert r.exit_code == 1, r.output
    assert message in r.stderr
    assert "Traceback" not in r.output
    assert not (tmp_path / "turns" / "x").exists()
    db = store(tmp_path)
    assert count(db, "games") == 0 and count(db, "players") == 0 and count(db, "phases") == 0


def test_new_with_random_start_player(cli, tmp_path):
    starters = set()
    for i in range(12):
        r = cli("new", "gods", f"r{i}", "-p", "alice", "-p", "bob", "-p", "carol", "--seed", str(i), "--option", "start=random")
        assert r.exit_code == 0, r.output
        db = store(tmp_path)
        (first,) = awaited(db, f"r{i}")
        starters.add(first)
        # the draw is an event shown in the public report
        events = [loads(e["data"]) for e in db["events"].rows_where("game_id = ? and phase = 0", [f"r{i}"])]
        assert {"type": "roll", "what": "start player", "result": first} in [
            {k: e.get(k) for k in ("type", "what", "result")} for e in events
        ]
    assert len(starters) > 1  # not always the first seat
    # and without the option the first seat starts
    new(cli, "s1", ("carol", "alice"))
    assert awaited(store(tmp_path), "s1") == ["carol"]


# --- submit --------------------------------------------------------------------------------

def test_submit_a_file_all_accepted_exits_0(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)
    lines = legal_lines(db, "g1", "alice")
    f = tmp_path / "alice.txt"
    f.write_text(order_text("g1", "alice", pw["alice"], lines))
    r = cli("submit", "g1", "alice", str(f))
    assert r.exit_code == 0, r.output
    assert "pbem acknowledgement: game g1, player alice, turn 1" in r.stdout
    for i, line in enumerate(lines):
        assert re.search(rf"line +{4 + i}: accepted", r.stdout), r.stdout
    assert f"{len(lines)} accepted, 0 rejected." in r.stdout
    row = list(db["submissions"].rows)[-1]
    assert row["status"] == "accepted" and row["raw"] == f.read_bytes()
    assert row["ack"] == r.stdout


def test_submit_from_stdin_with_a_rejected_line_exits_2(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)
    good = legal_lines(db, "g1", "alice")[0]
    text = "\n".join([
        "GAME g1", "PLAYER alice", f"PASSWORD {pw['alice']}",
        "# a comment",
        good,                 # line 5
        "frobnicate 1,1",     # line 6: no such verb
        "tribe 99,99",        # line 7: not next to any card (or no tribe in the display)
        "END",
    ]) + "\n"
    r = cli("submit", "g1", "alice", "-", input=text)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    assert re.search(r"line +5: accepted", r.stdout)
    assert re.search(r"line +6: REJECTED .*unknown order 'frobnicate'", r.stdout)
    assert re.search(r"line +7: REJECTED .*'tribe 99,99'", r.stdout)
    assert "1 accepted, 2 rejected." in r.stdout
    # the line is quoted, with a caret under the column
    assert "    frobnicate 1,1\n    ^" in r.stdout
    row = list(db["submissions"].rows)[-1]
    assert row["source"] == "cli" and row["raw"] == text.encode() and row["status"] == "partial"


def test_submit_suggests_a_close_name(cli, tmp_path):
    pw = new(cli)
    r = cli("submit", "g1", "alice", "-", input=order_text("g1", "alice", pw["alice"], ["dicsard green"]))
    assert r.exit_code == 2
    assert "did you mean" in r.stdout


def test_submit_gm_needs_no_password(cli, tmp_path):
    new(cli)
    lines = legal_lines(store(tmp_path), "g1", "alice")
    r = cli("submit", "g1", "alice", "-", "--gm", input=order_text("g1", "alice", None, lines))
    assert r.exit_code == 0, r.output
    r = cli("submit", "g1", "alice", "-", input=order_text("g1", "alice", None, lines))
    assert r.exit_code == 2 and "no PASSWORD line" in r.stdout


def test_last_submission_wins(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)
    first = legal_lines(db, "g1", "alice", seed=1)
    second = legal_lines(db, "g1", "alice", seed=2)
    assert first != second
    assert cli("submit", "g1", "alice", "-", input=order_text("g1", "alice", pw["alice"], first)).exit_code == 0
    assert cli("submit", "g1", "alice", "-", input=order_text("g1", "alice", pw["alice"], second)).exit_code == 0
    assert cli("resolve", "g1").exit_code == 0
    used = loads(db["phases"].get(("g1", 1))["used"])
    assert db["submissions"].get(used["alice"])["raw"] == order_text("g1", "alice", pw["alice"], second).encode()
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1", order_by="id")]
    assert [e["order"] for e in events if e["type"] == "order" and e["player"] == "alice"] == second


# --- resolve -------------------------------------------------------------------------------

def test_resolve_waits_until_all_orders_are_in(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)
    before = db["phases"].get(("g1", 1))
    r = cli("resolve", "g1")
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: waiting -- waiting for alice" in r.stdout
    assert turn_of(db, "g1") == 1 and count(db, "phases") == 1
    assert db["phases"].get(("g1", 1)) == before
    cli("submit", "g1", "alice", "-", input=order_text("g1", "alice", pw["alice"], legal_lines(db, "g1", "alice")))
    r = cli("resolve", "g1")
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: resolved -- turn 2 opened; awaiting bob" in r.stdout
    assert "g1 turn 2: waiting -- waiting for bob" in r.stdout
    assert turn_of(db, "g1") == 2
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == []
    assert (tmp_path / "turns" / "g1" / "2" / "reports" / "public.txt").is_file()


def test_resolve_force_gives_defaults_and_marks_nmr(cli, tmp_path):
    new(cli)
    db = store(tmp_path)
    display = host.current_state(db, "g1")["game"]["display"]
    r = cli("resolve", "g1", "--force")
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: resolved (NMR: alice)" in r.stdout
    # --force resolves the turn due now, not the next one
    assert "g1 turn 2: waiting" in r.stdout
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == ["alice"]
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1", order_by="id")]
    assert {"type": "nmr", "player": "alice"} in events
    defaults = [e["order"] for e in events if e["type"] == "default" and e["player"] == "alice"]
    assert len(defaults) == 2 and defaults[0].startswith("discard") and display  # the game's default: discard
    public = cli("report", "g1", "--turn", "2").stdout
    assert "alice sent no orders (NMR)" in public


def test_resolve_all_and_the_default_resolve_every_running_game(cli, tmp_path):
    new(cli, "g1")
    new(cli, "g2", ("carol", "dave"))
    db = store(tmp_path)
    for gid, who in (("g1", "alice"), ("g2", "carol")):
        assert cli("submit", gid, who, "-", "--gm", input=order_text(gid, who, None, legal_lines(db, gid, who))).exit_code == 0
    r = cli("resolve", "--all")
    assert r.exit_code == 0, r.output
    assert "g1 turn 1: resolved" in r.stdout and "g2 turn 1: resolved" in r.stdout
    assert turn_of(db, "g1") == 2 and turn_of(db, "g2") == 2
    r = cli("resolve", "g1", "--all")
    assert r.exit_code == 1 and "not both" in r.stderr
    r = cli("resolve", "--force")  # no ids: every running game
    assert "g1 turn 2: resolved (NMR: bob)" in r.stdout and "g2 turn 2: resolved (NMR: dave)" in r.stdout
    r = cli("resolve", "nope")
    assert r.exit_code == 1 and "no game 'nope'" in r.stderr


def _bot_history(tmp_path, cli, turns_count, seed="3"):
    """Play `turns_count` turns of a game with autoplay in a separate store; return the raw
    order text each player used in each turn, and the state hash reached."""
    other = tmp_path / "other.db"
    r = cli("--db", str(other), "--turns", str(tmp_path / "other-turns"), "new", "gods", "g1",
            "-p", "alice", "-p", "bob", "--seed", seed)
    assert r.exit_code == 0, r.output
    r = cli("--db", str(other), "--turns", str(tmp_path / "other-turns"), "autoplay", "g1", "--max-phases", str(turns_count))
    assert r.exit_code == 0, r.output
    odb = open_db(str(other))
    history = {}
    for ph in odb["phases"].rows_where("game_id = 'g1' and resolved is not null", order_by="number"):
        for player, sid in loads(ph["used"]).items():
            history[(ph["number"], player)] = odb["submissions"].get(sid)["raw"]
    return history, odb["phases"].get(("g1", turns_count + 1))["state_hash"]


def test_resolve_picks_up_dropped_order_files_for_several_turns_at_once(cli, tmp_path):
    history, expected_hash = _bot_history(tmp_path, cli, 4)
    assert len(history) == 4
    new(cli, "g1", seed="3")
    for (number, player), raw in history.items():
        folder = tmp_path / "turns" / "g1" / str(number)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{player}.txt").write_bytes(raw)
    r = cli("resolve", "g1")
    assert r.exit_code == 0, r.output
    for n in range(1, 5):
        assert f"g1 turn {n}: resolved" in r.stdout
    assert "g1 turn 5: waiting" in r.stdout
    db = store(tmp_path)
    assert db["phases"].get(("g1", 5))["state_hash"] == expected_hash
    assert all(loads(p["nmr"]) == [] for p in db["phases"].rows_where("resolved is not null"))
    sources = sorted(s["source"] for s in db["submissions"].rows)
    assert len(sources) == 4 and all(s.startswith("file:") for s in sources)
    for n in range(2, 6):
        assert (tmp_path / "turns" / "g1" / str(n) / "reports" / "public.txt").is_file()


def test_a_dropped_file_is_submitted_once(cli, tmp_path):
    new(cli)
    db = store(tmp_path)
    folder = tmp_path / "turns" / "g1" / "1"
    (folder / "bob.txt").write_text("GAME g1\nPLAYER bob\n# nothing to do: not my turn\n")
    r = cli("resolve", "g1")
    assert "waiting for alice" in r.stdout
    assert count(db, "submissions") == 1
    r = cli("resolve", "g1")
    assert "waiting for alice" in r.stdout
    assert count(db, "submissions") == 1  # not submitted twice
    # a changed file is a new submission (the last one counts)
    (folder / "bob.txt").write_text("GAME g1\nPLAYER bob\n# changed my mind\n")
    cli("resolve", "g1")
    assert count(db, "submissions", "player = 'bob'") == 2
    (folder / "alice.txt").write_text(order_text("g1", "alice", None, legal_lines(db, "g1", "alice")))
    r = cli("resolve", "g1")
    assert "g1 turn 1: resolved" in r.stdout and turn_of(db, "g1") == 2
    assert count(db, "submissions") == 3
    r = cli("resolve", "g1")
    assert "g1 turn 2: waiting -- waiting for bob" in r.stdout
    assert count(db, "submissions") == 3


def test_a_dropped_file_for_an_unknown_player_is_a_clean_error(cli, tmp_path):
    new(cli)
    (tmp_path / "turns" / "g1" / "1" / "zeus.txt").write_text("tribe 1,1\n")
    r = cli("resolve", "g1")
    assert r.exit_code == 1
    assert "zeus.txt" in r.stderr and "no player 'zeus'" in r.stderr
    assert "Traceback" not in r.output
    assert turn_of(store(tmp_path), "g1") == 1


# --- status --------------------------------------------------------------------------------

STATUS_KEYS = {"version", "now", "games"}
GAME_KEYS = {
    "id", "type", "title", "status", "turn", "phase", "players", "awaiting", "submitted",
    "deadline", "scores", "seed_hash", "seed", "winners",
}


def test_status_json_is_stable(cli, tmp_path):
    """`pbem status [GAME_ID] --json` prints one object; keys are sorted, and this is the shape
    (version 1) that scripts may rely on:

        {"version": 1,                       # bumped on any incompatible change
         "now": "2026-11-21T20:00:00Z",      # the host's clock (UTC, ISO 8601)
         "games": [{
            "id": "g1", "type": "gods", "title": "GODS",
            "status": "running" | "finished",
            "turn": 3,                       # the open turn (after the end: last turn + 1)
            "phase": "turn",                 # the rules' phase name
            "players": [{"name": "alice", "seat": 1}, ...],   # in seat order
            "awaiting": ["bob"],             # asked and not yet submitted
            "submitted": [],                 # asked and already submitted
            "deadline": "2026-11-24T20:00:00Z" | null,        # UTC
            "scores": {"alice": 0, "bob": 3},
            "seed_hash": "<sha256 hex>",
            "seed": null | "<seed>",         # revealed when the game is finished
            "winners": [] | ["bob"]}]}

    Within version 1 keys may be added (e.g. the outbox counts under "mail") but none of
    these is removed, renamed or changes its type.
    """
    pw = new(cli, "g1")
    new(cli, "g2", ("carol", "dave"), "--every", "72h")
    r = cli("status", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert STATUS_KEYS <= set(data) and data["version"] == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["now"])
    assert [g["id"] for g in data["games"]] == ["g1", "g2"]
    g1, g2 = data["games"]
    for g in (g1, g2):
        assert GAME_KEYS <= set(g)
        assert re.fullmatch(r"[0-9a-f]{64}", g["seed_hash"])
    assert {k: g1[k] for k in GAME_KEYS} == {
        "id": "g1", "type": "gods", "title": "GODS", "status": "running", "turn": 1, "phase": "turn",
        "players": [{"name": "alice", "seat": 1}, {"name": "bob", "seat": 2}],
        "awaiting": ["alice"], "submitted": [], "deadline": None, "scores": {"alice": 0, "bob": 0},
        "seed_hash": g1["seed_hash"], "seed": None, "winners": [],
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT20:00:00Z|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", g2["deadline"])
    # the JSON is sorted and indented the same way every time
    assert r.stdout == json.dumps(data, indent=2, sort_keys=True) + "\n"
    # after a submission the player moves from awaiting to submitted
    db = store(tmp_path)
    cli("submit", "g1", "alice", "-", input=order_text("g1", "alice", pw["alice"], legal_lines(db, "g1", "alice")))
    (g1,) = json.loads(cli("status", "g1", "--json").stdout)["games"]
    assert g1["awaiting"] == [] and g1["submitted"] == ["alice"]
    # finished: the seed is revealed and the winners named
    assert cli("autoplay", "g2").exit_code == 0
    (g2,) = json.loads(cli("status", "g2", "--json").stdout)["games"]
    assert g2["status"] == "finished" and g2["seed"] == "1" and g2["winners"]
    assert g2["awaiting"] == [] and g2["deadline"] is None
    assert set(g2["winners"]) <= {"carol", "dave"}


def test_status_text(cli, tmp_path):
    r = cli("status")  # no store yet: reading never creates one
    assert r.exit_code == 1 and "no pbem store at" in r.stderr and "`pbem new` makes one" in r.stderr
    new(cli)
    r = cli("status")
    assert r.exit_code == 0
    assert "g1 (GODS): turn 1, awaiting alice; deadline none; scores alice 0, bob 0" in r.stdout
    cli("autoplay", "g1")
    r = cli("status", "g1")
    assert "g1 (GODS): finished after turn" in r.stdout and "winner(s)" in r.stdout
    r = cli("status", "nope")
    assert r.exit_code == 1 and "no game 'nope'" in r.stderr


# --- report --------------------------------------------------------------------------------

def test_report_public_private_and_by_turn(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)
    r = cli("report", "g1")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("GODS -- game g1 -- turn 1\n")
    assert "Public report." in r.stdout
    assert "Order form" not in r.stdout
    assert all(p not in r.stdout for p in pw.values())
    r = cli("report", "g1", "--player", "alice")
    assert r.exit_code == 0
    assert "Report for alice" in r.stdout and "Order form" in r.stdout and "PLAYER alice" in r.stdout
    # the order form lists alice's legal orders
    assert legal_lines(db, "g1", "alice")[0].split()[0] in r.stdout
    sent = (tmp_path / "turns" / "g1" / "1" / "reports" / "alice.txt").read_text()
    # the report as sent, and (the turn still open) who is ready so far
    assert r.stdout.startswith(sent) and r.stdout[len(sent):].startswith("\nOrders so far (turn 1, as of ")
    assert "It is not your turn: waiting for alice" in cli("report", "g1", "--player", "bob").stdout
    cli("resolve", "g1", "--force")
    assert cli("report", "g1").stdout.startswith("GODS -- game g1 -- turn 2\n")
    r = cli("report", "g1", "--turn", "1", "--player", "bob")
    assert r.exit_code == 0 and r.stdout.startswith("GODS -- game g1 -- turn 1\n") and "Report for bob" in r.stdout
    r = cli("report", "g1", "--turn", "9")
    assert r.exit_code == 1 and "has no report for turn 9; turns 1 to 2 exist" in r.stderr and "Traceback" not in r.output
    r = cli("report", "g1", "--player", "zeus")
    assert r.exit_code == 1 and "no player 'zeus'" in r.stderr
    r = cli("report", "nope")
    assert r.exit_code == 1 and "no game 'nope'" in r.stderr


# --- autoplay and replay ---------------------------------------------------------------------

def test_autoplay_max_phases_then_replay_verifies(cli, tmp_path):
    new(cli, "g1", ("alice", "bob", "carol"))
    r = cli("autoplay", "g1", "--max-phases", "3")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("g1: 3 turns resolved")
    db = store(tmp_path)
    assert turn_of(db, "g1") == 4
    assert count(db, "phases", "game_id = 'g1' and resolved is not null") == 3
    assert all(s["source"] == "bot" for s in db["submissions"].rows)
    r = cli("replay", "g1", "--verify")
    assert r.exit_code == 0, r.output
    assert "g1: 4 phases replayed, every hash matches" in r.stdout
    r = cli("autoplay", "g1")
    assert r.exit_code == 0
    assert db["games"].get("g1")["status"] == "finished"
    r = cli("replay", "--verify")  # every game in the store
    assert r.exit_code == 0 and "every hash matches" in r.stdout


def test_replay_detects_a_tampered_snapshot(cli, tmp_path):
    new(cli, "g1")
    cli("autoplay", "g1", "--max-phases", "4")
    db = store(tmp_path)
    assert cli("replay", "g1", "--verify").exit_code == 0
    original = db["phases"].get(("g1", 3))["state_hash"]
    db["phases"].update(("g1", 3), {"state_hash": "0" * 64})
    r = cli("replay", "g1", "--verify")
    assert r.exit_code != 0
    assert "g1: MISMATCH at turn 3" in r.stdout
    assert "Traceback" not in r.output
    db["phases"].update(("g1", 3), {"state_hash": original})
    assert cli("replay", "g1", "--verify").exit_code == 0


# --- help ------------------------------------------------------------------------------------

def _command_names():
    return sorted(typer.main.get_command(app).commands)


def test_every_command_is_covered_here():
    assert {"rules", "new", "submit", "resolve", "status", "report", "autoplay", "replay"} <= set(_command_names())


@pytest.mark.parametrize("name", _command_names())
def test_every_command_has_help_with_an_example(cli, name):
    r = cli(name, "--help")
    assert r.exit_code == 0, r.output
    assert f"Usage: pbem {name}" in r.stdout
    assert re.search(rf"Example: pbem {name}\b", r.stdout), r.stdout


def test_top_level_help(cli):
    r = cli("--help")
    assert r.exit_code == 0
    for name in _command_names():
        assert name in r.stdout
    assert "PBEM_DB" in r.stdout
