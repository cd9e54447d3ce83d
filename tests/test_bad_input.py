"""Bad input through the real CLI: every case gets a clear message and an exit code, never a
traceback, and nothing already stored is lost. A rejected submission is itself kept (raw
bytes and all) but changes nothing else."""

from __future__ import annotations

import io
import random
import re
import zipfile

import pytest

from gods_helpers import legal_lines, text
from gods_helpers import new_game as new
from pbem.host.store import loads, open_db

TABLES = ("games", "players", "phases", "events", "reports")


# --- helpers -------------------------------------------------------------------------------

def store(tmp_path):
    return open_db(str(tmp_path / "pbem.db"))


def snapshot(db):
    """Everything stored, table by table; submissions separately (they may only grow)."""
    tables = {t: [tuple(r.values()) for r in db[t].rows] for t in TABLES}
    subs = [tuple(r.values()) for r in db["submissions"].rows_where(order_by="id")]
    return tables, subs


def assert_only_logged(db, before, new_rows):
    """Nothing stored changed except `new_rows` submissions appended at the end."""
    tables, subs = snapshot(db)
    assert tables == before[0]
    assert subs[: len(before[1])] == before[1]
    assert len(subs) == len(before[1]) + new_rows
    return db["submissions"].rows_where(order_by="id desc", limit=1).__next__() if new_rows else None


def clean(r, code):
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output
    assert "internal error" not in r.output


@pytest.fixture
def game(cli, tmp_path):
    """A running game in which alice has already sent accepted orders for turn 1."""
    pw = new(cli)
    db = store(tmp_path)
    lines = legal_lines(db, "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines))
    clean(r, 0)
    return pw, db, lines


def submit_file(cli, tmp_path, player, raw: bytes, name="orders.txt", *extra):
    f = tmp_path / name
    f.write_bytes(raw)
    return cli("submit", "g1", player, str(f), *extra)


def resolve_and_check_alices_orders_counted(cli, db, lines):
    r = cli("resolve", "g1")
    clean(r, 0)
    assert "g1 turn 1: resolved" in r.stdout
    assert loads(db["phases"].get(("g1", 1))["nmr"]) == []
    events = [loads(e["data"]) for e in db["events"].rows_where("game_id = 'g1' and phase = 1", order_by="id")]
    assert [e["order"] for e in events if e["type"] == "order" and e["player"] == "alice"] == lines


# --- malformed order files -------------------------------------------------------------------

@pytest.mark.parametrize(
    "body, expect",
    [
        ("tribe\n", r"line +\d+: REJECTED  column \d+: "),  # the line is named once, not twice
        ("temple here\n", r"line +\d+: REJECTED .*'temple here'"),
        ("discard green green green green\n", r"line +\d+: REJECTED"),
        ("move 0,0 ->\n", r"line +\d+: REJECTED .*'move 0,0 ->'"),
        ("tribe green 1,1,1,1\n", r"line +\d+: REJECTED"),
        ("x" * 5000 + "\n", r"line +\d+: REJECTED"),
        ("\u263a\u2603 \U0001f600\n", r"line +\d+: REJECTED .*unknown order"),
        ("-> -> ->\n", r"line +\d+: REJECTED"),
        ("(((,,,)))\n", r"line +\d+: REJECTED"),
    ],
)
def test_malformed_lines_are_rejected_with_line_and_column(cli, tmp_path, game, body, expect):
    pw, db, lines = game
    before = snapshot(db)
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], []) + body)
    clean(r, 2)
    assert re.search(expect, r.stdout), r.stdout
    assert not re.search(r"REJECTED .*line \d+, column", r.stdout)  # each line is named once
    assert "0 accepted, 1 rejected." in r.stdout
    row = assert_only_logged(db, before, 1)
    assert row["status"] == "partial"
    # a partly rejected submission replaces the earlier one (the last submission wins), but
    # does not make its player ready: the turn waits for corrected orders until its deadline
    r = cli("resolve", "g1")
    assert r.exit_code == 0 and "waiting for alice (lines rejected" in r.stdout, r.stdout
    assert db["phases"].get(("g1", 1))["resolved"] is None
    assert cli("resolve", "g1", "--force").exit_code == 0
    assert loads(db["phases"].get(("g1", 1))["used"]) == {"alice": row["id"]}


@pytest.mark.parametrize(
    "raw, message",
    [
        ("GAME g1\nPLAYER\nPASSWORD {pw}\n", "PLAYER needs a value"),
        ("GAME g1\nPLAYER alice\nPASSWORD\n", "PASSWORD needs a value"),
        ("GAME other\nPLAYER alice\nPASSWORD {pw}\n", "these orders are for game 'other', not 'g1'"),
        ("GAME g1\nPLAYER alice\n", "no PASSWORD line"),
    ],
)
def test_bad_headers_reject_the_whole_submission(cli, tmp_path, game, raw, message):
    pw, db, lines = game
    before = snapshot(db)
    r = submit_file(cli, tmp_path, "alice", raw.format(pw=pw["alice"]).encode())
    clean(r, 2)
    assert "REJECTED: " in r.stdout and message in r.stdout
    assert "any earlier orders you sent for this turn still stand" in r.stdout
    assert assert_only_logged(db, before, 1)["status"] == "rejected"
    resolve_and_check_alices_orders_counted(cli, db, lines)


def test_crlf_bom_latin1_and_trailing_signature_are_fine(cli, tmp_path, game):
    pw, db, lines = game
    body = "\ufeff" + text("alice", pw["alice"], ["# Grüße aus Köln"] + lines).replace("\n", "\r\n") + "END\r\n-- \r\nsent from my phone\r\n"
    r = submit_file(cli, tmp_path, "alice", body.encode("utf-8"))
    clean(r, 0)
    latin = text("alice", pw["alice"], ["# Grüße aus Köln"] + lines).encode("latin-1")
    r = submit_file(cli, tmp_path, "alice", latin)
    clean(r, 0)
    resolve_and_check_alices_orders_counted(cli, db, lines)


# --- wrong password, wrong player, unknown player or game -----------------------------------------

def test_wrong_password_changes_nothing_but_is_logged(cli, tmp_path, game):
    pw, db, lines = game
    before = snapshot(db)
    other = legal_lines(db, "alice", seed=5)
    raw = text("alice", "not-the-password", other).encode()
    r = submit_file(cli, tmp_path, "alice", raw)
    clean(r, 2)
    assert "REJECTED: wrong password" in r.stdout
    assert pw["alice"] not in r.output
    row = assert_only_logged(db, before, 1)
    assert row["status"] == "rejected" and row["raw"] == raw and row["player"] == "alice"
    # bob's password is no good for alice either
    r = submit_file(cli, tmp_path, "alice", text("alice", pw["bob"], other).encode())
    clean(r, 2)
    assert "wrong password" in r.stdout
    # status still shows alice's earlier orders as in, and they are the ones used
    assert "awaiting nobody" in cli("status", "g1").stdout
    resolve_and_check_alices_orders_counted(cli, db, lines)


def test_orders_for_another_player_are_refused(cli, tmp_path, game):
    pw, db, lines = game
    before = snapshot(db)
    # bob sends orders that say PLAYER alice, with alice's password (say, forwarded by mistake)
    r = submit_file(cli, tmp_path, "bob", text("alice", pw["alice"], ["discard green"]).encode())
    clean(r, 2)
    assert "for player 'alice', not 'bob'" in r.stdout and "only send their own orders" in r.stdout
    # and alice cannot send orders as bob, even with bob's password
    r = submit_file(cli, tmp_path, "alice", text("bob", pw["bob"], lines).encode())
    clean(r, 2)
    assert "for player 'bob', not 'alice'" in r.stdout
    # the GM cannot be tricked into it with --gm either
    r = submit_file(cli, tmp_path, "alice", text("bob", None, lines).encode(), "o.txt", "--gm")
    clean(r, 2)
    assert "for player 'bob', not 'alice'" in r.stdout
    rows = list(db["submissions"].rows_where(order_by="id"))[-3:]
    assert [x["status"] for x in rows] == ["rejected"] * 3
    assert_only_logged(db, before, 3)
    resolve_and_check_alices_orders_counted(cli, db, lines)


def test_a_dropped_file_under_another_players_name_is_refused(cli, tmp_path, game):
    pw, db, lines = game
    (tmp_path / "turns" / "g1" / "1" / "bob.txt").write_text(text("alice", None, ["discard green"]))
    r = cli("resolve", "g1")
    clean(r, 0)
    rows = list(db["submissions"].rows_where("player = 'bob'"))
    assert len(rows) == 1 and rows[0]["status"] == "rejected" and "not 'bob'" in rows[0]["ack"]
    assert loads(db["phases"].get(("g1", 1))["used"]) == {"alice": 1}


@pytest.mark.parametrize(
    "args, message",
    [
        (["submit", "nope", "alice", "-"], "no game 'nope'; games in this store: g1"),
        (["submit", "g1", "zeus", "-"], "game 'g1' has no player 'zeus'; its players are alice, bob"),
        (["submit", "g1", "alice", "/no/such/file.txt"], "no file '/no/such/file.txt'"),
    ],
)
def test_unknown_game_player_or_file(cli, tmp_path, game, args, message):
    pw, db, lines = game
    before = snapshot(db)
    r = cli(*args, input=text("alice", pw["alice"], lines))
    clean(r, 1)
    assert message in r.stderr
    assert_only_logged(db, before, 0)


def test_a_folder_or_a_device_is_not_an_order_file(cli, tmp_path, game):
    """Neither is read (a device such as /dev/zero would never end), and neither is called
    missing: the message says what the path is."""
    pw, db, lines = game
    before = snapshot(db)
    r = cli("submit", "g1", "alice", str(tmp_path))
    clean(r, 1)
    assert f"'{tmp_path}' is a folder, not an order file" in r.stderr
    r = cli("submit", "g1", "alice", "/dev/zero")
    clean(r, 1)
    assert "'/dev/zero' is not a regular file: not read" in r.stderr
    assert_only_logged(db, before, 0)


def test_unknown_game_in_an_empty_store(cli):
    r = cli("submit", "nope", "alice", "-", input="")
    clean(r, 1)
    assert "no game 'nope'; this store has no games yet" in r.stderr


# --- out of turn -----------------------------------------------------------------------------

def test_orders_out_of_turn_are_rejected_line_by_line(cli, tmp_path, game):
    pw, db, lines = game
    before = snapshot(db)
    r = cli("submit", "g1", "bob", "-", input=text("bob", pw["bob"], lines))
    clean(r, 2)
    for i in range(len(lines)):
        assert re.search(rf"line +{4 + i}: REJECTED .*it is not your turn", r.stdout), r.stdout
    assert f"0 accepted, {len(lines)} rejected." in r.stdout
    assert_only_logged(db, before, 1)
    # and the resolution skips them: bob's lines never touch alice's turn
    resolve_and_check_alices_orders_counted(cli, db, lines)
    events = [loads(e["data"]) for e in db["events"].rows_where("phase = 1")]
    assert not [e for e in events if e["type"] == "order" and e["player"] == "bob"]


def test_too_many_orders_for_the_turn(cli, tmp_path, game):
    pw, db, lines = game
    extra = ["discard green"] * 20
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines + extra))
    clean(r, 2)
    assert f"{len(lines)} accepted, 20 rejected." in r.stdout
    assert "waiting for alice (lines rejected" in cli("resolve", "g1").stdout  # not ready
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["READY"] + lines + extra))
    assert "READY: you take these orders as they are" in r.stdout
    resolve_and_check_alices_orders_counted(cli, db, lines)


# --- empty, huge and binary files -------------------------------------------------------------

def test_an_empty_file_counts_as_no_orders(cli, tmp_path):
    pw = new(cli)
    db = store(tmp_path)
    # a player's empty file cannot be authenticated: clear message, nothing counts
    r = submit_file(cli, tmp_path, "alice", b"")
    clean(r, 2)
    assert "no PASSWORD line" in r.stdout
    # the GM enters it (or drops it in turns/): an empty file is a submission of no orders
    r = submit_file(cli, tmp_path, "alice", b"", "empty.txt", "--gm")
    clean(r, 0)
    assert "(no orders: the game's default orders will be used for you)" in r.stdout
    assert "0 accepted, 0 rejected." in r.stdout
    assert "awaiting nobody" in cli("status", "g1").stdout
    r = cli("resolve", "g1")
    clean(r, 0)
    assert "g1 turn 1: resolved --" in r.stdout and "NMR" not in r.stdout
    # with headers and a password but no orders: the same, for a player
    r = cli("submit", "g1", "bob", "-", input=text("bob", pw["bob"], ["# nothing this turn"]))
    clean(r, 0)
    assert "(no orders" in r.stdout



def test_no_orders_from_a_player_not_asked_this_turn_promises_no_default_orders(cli, tmp_path):
    """A walk-through: a password-only message from a god who was not on turn was answered
    'no orders: the game's default orders will be used for you' -- none are, none are needed."""
    pw = new(cli)
    clean(cli("resolve", "g1", "--force"), 0)  # GODS: turn 2 asks bob alone
    assert "awaiting bob" in cli("status", "g1").stdout
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], []))
    clean(r, 0)
    assert "default orders" not in r.stdout
    assert "none are asked of you this turn" in r.stdout
    r = cli("submit", "g1", "bob", "-", input=text("bob", pw["bob"], []))
    assert "(no orders: the game's default orders will be used for you)" in r.stdout


def test_orders_for_a_finished_game_promise_nothing_about_earlier_orders(cli, tmp_path):
    """A walk-through: the refusal for a game that is over said 'any earlier orders you sent
    for this turn still stand' -- no turn will be resolved again."""
    pw = new(cli)
    clean(cli("end", "g1", "--draw", "--reason", "agreed"), 0)
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], []))
    assert "REJECTED: game 'g1' is over; no more orders are taken" in r.stdout, r.stdout
    assert "Nothing was changed." in r.stdout and "still stand" not in r.stdout

@pytest.mark.parametrize("size_mb", [5])
def test_a_5mb_file_is_refused_and_kept(cli, tmp_path, game, size_mb):
    pw, db, lines = game
    before = snapshot(db)
    raw = (text("alice", pw["alice"], []) + "discard green\n" * (size_mb * 1024 * 1024 // 14)).encode()
    assert len(raw) > size_mb * 1000 * 1000
    r = submit_file(cli, tmp_path, "alice", raw)
    clean(r, 2)
    assert re.search(r"REJECTED: the order text is \d+\.\d MB; orders are limited to \d+ KB", r.stdout)
    row = assert_only_logged(db, before, 1)
    assert row["status"] == "rejected" and row["raw"] == raw
    resolve_and_check_alices_orders_counted(cli, db, lines)


def _png() -> bytes:
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("orders.txt", "GAME g1\nPLAYER alice\ndiscard green\n")
    return buf.getvalue()


JUNK = {
    "random": random.Random(42).randbytes(4096),
    "random-no-nul": bytes(random.Random(7).randrange(1, 256) for _ in range(4096)),
    "png": _png(),
    "png-header-only": b"\x89PNG\r\n\x1a\n",
    "zip": _zip(),
    "controls": bytes(range(1, 32)) * 50,
}


@pytest.mark.parametrize("kind", sorted(JUNK))
def test_binary_junk_is_refused_clearly(cli, tmp_path, game, kind):
    pw, db, lines = game
    raw = JUNK[kind]
    before = snapshot(db)
    r = submit_file(cli, tmp_path, "alice", raw, f"junk.{kind}")
    clean(r, 2)
    assert re.search(r"REJECTED: (this is not a text file|no PASSWORD line|.*needs a value)", r.stdout), r.stdout
    row = assert_only_logged(db, before, 1)
    assert row["raw"] == raw and row["status"] == "rejected"
    # the same junk from standard input
    r = cli("submit", "g1", "alice", "-", input=raw)
    clean(r, 2)
    resolve_and_check_alices_orders_counted(cli, db, lines)


@pytest.mark.parametrize("kind", ["random", "png", "zip"])
def test_binary_junk_dropped_in_the_turn_folder(cli, tmp_path, kind):
    new(cli)
    db = store(tmp_path)
    (tmp_path / "turns" / "g1" / "1" / "alice.txt").write_bytes(JUNK[kind])
    r = cli("resolve", "g1")
    clean(r, 0)
    assert "g1 turn 1: waiting -- waiting for alice" in r.stdout
    (row,) = db["submissions"].rows
    assert row["status"] == "rejected" and "not a text file" in row["ack"]
    r = cli("resolve", "g1", "--force")
    clean(r, 0)
    assert "NMR: alice" in r.stdout  # a refused file is no submission


def test_orders_after_the_game_is_over(cli, tmp_path):
    pw = new(cli)
    clean(cli("autoplay", "g1"), 0)
    db = store(tmp_path)
    before = snapshot(db)
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["pass"]))
    clean(r, 2)
    assert "game 'g1' is over" in r.stdout
    assert_only_logged(db, before, 1)
    r = cli("resolve", "g1")
    clean(r, 0)
    assert "the game is over" in r.stdout
    assert_only_logged(db, before, 1)
