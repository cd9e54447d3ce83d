"""The host's public read API: everything above the host (render, mail, site, cli) reads the
store through these functions, never through its tables' layout.

Each raises NotFound, with the names that do exist, when asked for something that doesn't.
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from pbem.core.errors import NotFound
from pbem.host.store import loads


def game(db, game_id: str) -> dict:
    """The games row of `game_id`."""
    try:
        return db["games"].get(game_id)
    except sqlite_utils.db.NotFoundError:
        known = [r["id"] for r in db["games"].rows_where(select="id", order_by="id")] if db["games"].exists() else []
        hint = f"; games in this store: {', '.join(known)}" if known else "; this store has no games yet"
        raise NotFound(f"no game '{game_id}'{hint}") from None


def games(db) -> list[dict]:
    """Every games row, oldest first."""
    return list(db["games"].rows_where(order_by="created, id")) if db["games"].exists() else []


def players(db, game_id: str) -> list[dict]:
    """The players rows of a game, in seat order."""
    return list(db["players"].rows_where("game_id = ?", [game_id], order_by="seat"))


def player(db, game_id: str, name: str) -> dict:
    """One players row, by name (case-insensitive)."""
    name = (name or "").strip().lower()
    seats = players(db, game_id)
    for row in seats:
        if row["name"] == name:
            return row
    names = ", ".join(r["name"] for r in seats)
    raise NotFound(f"game '{game_id}' has no player '{name}'; its players are {names}")


def phase(db, game_id: str, number: int) -> dict:
    """The phases row of turn `number` (its state snapshot, deadline, NMR...)."""
    try:
        return db["phases"].get((game_id, number))
    except sqlite_utils.db.NotFoundError:
        raise NotFound(f"game '{game_id}' has no turn {number}") from None


def phases(db, game_id: str, select: str = "*") -> list[dict]:
    """Every phases row of a game, in order."""
    return list(db["phases"].rows_where("game_id = ?", [game_id], select=select, order_by="number"))


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


def report_text(db, game_id: str, number: int, player_name: str | None) -> str | None:
    """The stored text report of turn `number` for a player ('' or None: the public one)."""
    row = db.execute("select text from reports where game_id = ? and phase = ? and player = ?",
                     [game_id, number, player_name or ""]).fetchone()
    return row[0] if row else None


def turn_dir(turns: str | Path, game_id: str, number: int) -> Path:
    """The GM's folder of one turn: order files dropped in, reports written out."""
    return Path(turns) / game_id / str(number)


def events_by_phase(db, game_id: str) -> dict[int, list[dict]]:
    """Every event of a game, by the phase whose resolution produced it (private ones too)."""
    out: dict[int, list[dict]] = {}
    for ph, data in db.execute("select phase, data from events where game_id = ? order by phase, seq", [game_id]).fetchall():
        out.setdefault(ph, []).append(json.loads(data))
    return out


def submitted_players(db, game_id: str, number: int) -> set[str]:
    """The players with a submission for turn `number` that was not rejected outright."""
    if not db["submissions"].exists():
        return set()
    return {r[0] for r in db.execute(
        "select distinct player from submissions where game_id = ? and phase = ? and status != 'rejected'",
        [game_id, number]).fetchall()}
