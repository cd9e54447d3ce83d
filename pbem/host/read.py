"""The host's public read API: everything above the host (render, mail, site, cli) reads the
store through these functions, never through its tables' layout.

Plain SQL through `db.execute`, so they work on the full store (`open_db`) and on the light
reader (`open_reader`) alike. Each raises NotFound, with the names that do exist, when asked
for something that doesn't.
"""

from __future__ import annotations

import json
from pathlib import Path

from pbem.core.errors import NotFound
from pbem.host.store import loads


def kept(rows: dict | None, key: tuple, compute):
    """`compute()`, worked out once while `rows` keeps it (issue 17: a caller's rows read in a
    transaction while nothing changes them, e.g. an ingest batch's Context.rows); without
    `rows`, each time."""
    if rows is None:
        return compute()
    if key not in rows:
        rows[key] = compute()
    return rows[key]


def rows(db, sql: str, params=()) -> list[dict]:
    """The rows of a query, as dicts."""
    cur = db.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def has_table(db, name: str) -> bool:
    """Whether the store has the table `name` (an older store may lack one). A table, once
    there, stays (migrations only add): issue 17, asked of SQLite once per open store."""
    seen = getattr(db, "_pbem_tables", None)
    if seen is not None and name in seen:
        return True
    if db.execute("select 1 from sqlite_master where type = 'table' and name = ?", [name]).fetchone() is None:
        return False
    try:
        if seen is None:
            seen = db._pbem_tables = set()
        seen.add(name)
    except AttributeError:  # pragma: no cover - a store object that takes no attributes: ask each time
        pass
    return True


def game(db, game_id: str) -> dict:
    """The games row of `game_id`."""
    found = rows(db, "select * from games where id = ?", [game_id])
    if found:
        return found[0]
    signup = open_game(db, game_id)
    if signup:
        raise NotFound(f"game '{signup['id']}' is open for sign-up ({signup['joined']} of {signup['seats']} seats taken): "
                       f"it has no turn yet; start it with `pbem start {signup['id']}` first (it also starts when full); "
                       f"`pbem seat {signup['id']} NAME --withdraw` takes a sign-up back, `pbem end {signup['id']}` "
                       "closes the sign-up")
    known = [r[0] for r in db.execute("select id from games order by id").fetchall()]
    hint = f"; games in this store: {', '.join(known)}" if known else "; this store has no games yet"
    raise NotFound(f"no game '{game_id}'{hint}")


def open_game(db, game_id: str | None) -> dict | None:
    """A game open for sign-up (its signups row, with `joined`: how many took a seat), or None."""
    if not game_id or not has_table(db, "signups"):
        return None
    found = rows(db, "select s.*, (select count(*) from signup_players p where p.game_id = s.id) as joined "
                     "from signups s where s.id = ?", [str(game_id).strip().lower()])
    return found[0] if found else None


def signed_up(db, game_id: str) -> list[dict]:
    """The players who took a seat in a game open for sign-up (signup_players rows: name,
    email, password, joined), in the order they joined (the same second: by name)."""
    return rows(db, "select * from signup_players where game_id = ? order by joined, name", [game_id])


def open_games(db) -> list[dict]:
    """Every game open for sign-up, by id (see `open_game`)."""
    if not has_table(db, "signups"):
        return []
    return rows(db, "select s.*, (select count(*) from signup_players p where p.game_id = s.id) as joined "
                    "from signups s order by s.id")


def games(db, order_by: str = "created, id") -> list[dict]:
    """Every games row, oldest first (or in the order given: "id")."""
    if order_by not in ("created, id", "id"):
        raise ValueError(order_by)
    return rows(db, f"select * from games order by {order_by}") if has_table(db, "games") else []


def players(db, game_id: str) -> list[dict]:
    """The players rows of a game, in seat order."""
    return rows(db, "select * from players where game_id = ? order by seat", [game_id])


def player(db, game_id: str, name: str, seats: list[dict] | None = None) -> dict:
    """One players row, by name (case-insensitive), or by the name of the person who took the
    seat over (pbem.host.seats.replace: the seat keeps its name). `seats`: the game's players
    rows, when the caller has just read them (`players`) in the same transaction."""
    name = (name or "").strip().lower()
    seats = players(db, game_id) if seats is None else seats
    for row in seats:
        if row["name"] == name:
            return row
    for row in seats:
        if name and row.get("person") == name:
            return row
    names = ", ".join(r["name"] for r in seats)
    raise NotFound(f"game '{game_id}' has no player '{name}'; its players are {names}")


def resigned(db, game_id: str, seat: dict) -> str | None:
    """Why a seat's old password no longer works, when its player resigned (tester3 finding
    03: a resigned player writing again was told only "wrong password"); None otherwise. The
    seat's state is public (announced at the resignation); nothing about the password is told."""
    if not (seat.get("vacant") or seat.get("bot")) or seat.get("person") or seat.get("email"):
        return None
    if not db.execute("select 1 from seat_history where game_id = ? and player = ? and change = 'resigned'",
                      [game_id, seat["name"]]).fetchone():
        return None
    now = "a bot plays it" if seat.get("bot") else "it is vacant"
    return (f"the player of seat {seat['name']} resigned from game {game_id}: the seat's old password no longer "
            f"works, and {now} (the GM gives it to a new player with `pbem replace`)")


def phase(db, game_id: str, number: int) -> dict:
    """The phases row of turn `number` (its state snapshot, deadline, NMR...)."""
    found = rows(db, "select * from phases where game_id = ? and number = ?", [game_id, number])
    if not found:
        raise NotFound(f"game '{game_id}' has no turn {number}")
    return found[0]


def phases(db, game_id: str, select: str = "*") -> list[dict]:
    """Every phases row of a game, in order (`select`: the columns, from this module's callers)."""
    return rows(db, f"select {select} from phases where game_id = ? order by number", [game_id])


def current_state(db, game_or_id: str | dict) -> dict:
    """The state snapshot of a game's open turn (what its players are ordering against);
    `game_or_id` is a game id, or a games row already read."""
    row = game(db, game_or_id) if isinstance(game_or_id, str) else game_or_id
    return loads(phase(db, row["id"], row["phase"])["state"])


def events(db, game_id: str, phase_number: int) -> list[dict]:
    """The events of one resolution (phase `phase_number` resolved into the next), in order.
    They include private ones: pass them through the render layer's visibility filter."""
    return [json.loads(r[0]) for r in db.execute(
        "select data from events where game_id = ? and phase = ? order by seq", [game_id, phase_number]).fetchall()]


def events_by_phase(db, game_id: str) -> dict[int, list[dict]]:
    """Every event of a game, by the phase whose resolution produced it (private ones too)."""
    out: dict[int, list[dict]] = {}
    for ph, data in db.execute("select phase, data from events where game_id = ? order by phase, seq", [game_id]).fetchall():
        out.setdefault(ph, []).append(json.loads(data))
    return out


def latest_submissions(db, game_id: str, number: int) -> dict[str, dict]:
    """The submission that counts for each player in turn `number`: the last one not rejected."""
    # issue 17: only those rows are read (a REPORT asked for again and again read every one of
    # the turn's submissions), each player's in the order of their first one, as before
    return {row["player"]: row for row in rows(
        db, "select s.* from submissions s join (select min(id) as first, max(id) as last from submissions "
            "where game_id = ? and phase = ? and status != 'rejected' group by player) t on s.id = t.last order by t.first",
        [game_id, number])}


def not_ready(db, game_id: str, number: int, asked: list[str], latest: dict[str, dict] | None = None) -> dict[str, str]:
    """The players asked in turn `number` who are not ready, each with why: no orders yet, or
    lines rejected in their latest orders (and no READY to take them as they are)."""
    latest = latest_submissions(db, game_id, number) if latest is None else latest
    out = {}
    for p in asked:
        row = latest.get(p)
        if row is None:
            out[p] = "no orders"
        elif not row.get("ready"):
            out[p] = "lines rejected; send corrected orders, or READY to keep them"
    return out


def refused_files(db, game_id: str, number: int, players: list[str] | None = None) -> dict[str, str]:
    """issue 17: the players (of `players`, else all) whose last submission of turn `number`
    is an order file from turns/ refused whole (not text, no order of this game...): what the
    GM is told, '<file> refused: <why>', by resolve and status (the player is still awaited)."""
    if not has_table(db, "submissions"):
        return {}
    out = {}
    for player, source, ack in db.execute(
            "select s.player, s.source, s.ack from submissions s join (select player, max(id) as last from submissions "
            "where game_id = ? and phase = ? group by player) t on s.id = t.last "
            "where s.status = 'rejected' and s.source like 'file:%' order by s.id", [game_id, number]).fetchall():
        if players is None or player in players:
            why = next((line.removeprefix("REJECTED:").strip() for line in (ack or "").splitlines()
                        if line.startswith("REJECTED:")), "refused")
            out[player] = f"{source.removeprefix('file:')} refused: {why}"
    return out


def submitted_players(db, game_id: str, number: int) -> set[str]:
    """The players with a submission for turn `number` that was not rejected outright."""
    if not has_table(db, "submissions"):
        return set()
    return {r[0] for r in db.execute(
        "select distinct player from submissions where game_id = ? and phase = ? and status != 'rejected'",
        [game_id, number]).fetchall()}


def report_text(db, game_id: str, number: int, player_name: str | None) -> str | None:
    """The stored text report of turn `number` for a player ('' or None: the public one)."""
    row = db.execute("select text from reports where game_id = ? and phase = ? and player = ?",
                     [game_id, number, player_name or ""]).fetchone()
    return row[0] if row else None


def outbox_counts(db, game_id: str | None = None) -> dict[str, int]:
    """Outbox rows by status, for `pbem status`: queued, sending, sent, failed, cancelled (the
    reports of turns a rollback set aside)."""
    out = {"queued": 0, "sending": 0, "sent": 0, "failed": 0, "cancelled": 0}
    if not has_table(db, "outbox"):
        return out
    where, args = ("where game_id = ?", [game_id]) if game_id else ("", [])
    for status, n in db.execute(f"select status, count(*) from outbox {where} group by status", args).fetchall():
        out[status] = n
    return out


def turn_dir(turns: str | Path, game_id: str, number: int) -> Path:
    """The GM's folder of one turn: order files dropped in, reports written out."""
    return Path(turns) / game_id / str(number)


# --- the GM's controls (pbem.host.controls, pbem.host.seats) ----------------------------------

# The host's game options and their defaults (pbem.host.controls.OPTIONS checks them).
HOST_DEFAULTS = {"grace": "off", "remind": "off", "early": "on", "absences": "7", "press": "white",
                 "seat_policy": "vacant", "gm_email": "", "reaction_deadline": "off"}


def host_options(db, game_or_id: str | dict) -> dict[str, str]:
    """A game's host options (grace, remind, early, absences, press, seat_policy, gm_email),
    the defaults filled in; `game_or_id` is a game id or a games row already read."""
    row = game(db, game_or_id) if isinstance(game_or_id, str) else game_or_id
    return {**HOST_DEFAULTS, **(loads(row.get("host_options")) or {})}


def announcements(db, game_id: str, public_only: bool = True) -> list[dict]:
    """A game's announcements (GM actions told to the players), oldest first: id, at, phase,
    subject, text, public. Only the public ones (told to everyone) unless asked."""
    if not has_table(db, "announcements"):
        return []
    where = " and public = 1" if public_only else ""
    return rows(db, f"select id, at, phase, subject, text, public from announcements where game_id = ?{where} order by id",
                [game_id])


def gm_actions(db, game_id: str | None = None) -> list[dict]:
    """The GM-action log (who, what, when, why), oldest first."""
    if not has_table(db, "gm_actions"):
        return []
    if game_id:
        return rows(db, "select * from gm_actions where game_id = ? order by id", [game_id])
    return rows(db, "select * from gm_actions order by id")


def observers(db, game_id: str) -> list[str]:
    """The addresses observing a game (each gets every turn's public report)."""
    if not has_table(db, "observers"):
        return []
    return [r[0] for r in db.execute("select email from observers where game_id = ? order by email", [game_id]).fetchall()]
