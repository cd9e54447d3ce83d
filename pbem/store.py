"""The SQLite store, through sqlite-utils. Schema changes are `Migrations`; the store's
schema version is the list of migrations applied (table `_sqlite_migrations`).

Tables: games, players, phases (one state snapshot with its hash per phase opened),
submissions (every raw input, kept forever), events, reports; inbox (every message ingested)
and outbox (mail to send) since m002.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import sqlite_utils
from sqlite_utils.migrations import Migrations

DEFAULT_DB = "pbem.db"

migrations = Migrations("pbem")


@migrations()
def m001_initial(db: sqlite_utils.Database) -> None:
    db["games"].create(
        {
            "id": str, "type": str, "seed": str, "seed_hash": str, "options": str,
            "schedule": str, "status": str, "phase": int, "deadline": str,
            "created": str, "finished": str, "outcome": str,
        },
        pk="id",
    )
    db["players"].create(
        {"game_id": str, "name": str, "email": str, "password": str, "seat": int, "bot": int},
        pk=("game_id", "name"),
        foreign_keys=[("game_id", "games", "id")],
    )
    db["phases"].create(
        {
            "game_id": str, "number": int, "state": str, "state_hash": str, "active": str,
            "opened": str, "deadline": str, "resolved": str, "nmr": str, "used": str,
        },
        pk=("game_id", "number"),
        foreign_keys=[("game_id", "games", "id")],
    )
    db["submissions"].create(
        {
            "id": int, "game_id": str, "phase": int, "player": str, "received": str,
            "source": str, "raw": bytes, "sha256": str, "status": str, "ack": str,
        },
        pk="id",
    )
    db["submissions"].create_index(["game_id", "phase", "player"])
    db["events"].create(
        {"id": int, "game_id": str, "phase": int, "seq": int, "data": str}, pk="id"
    )
    db["events"].create_index(["game_id", "phase"])
    db["reports"].create(
        {"game_id": str, "phase": int, "player": str, "text": str},
        pk=("game_id", "phase", "player"),
    )


@migrations()
def m002_mail(db: sqlite_utils.Database) -> None:
    """Mail in and out (pbem.mailin, pbem.mailout): every message ingested, raw bytes kept
    forever with its one outcome; and the outbox of acknowledgements and reports to send."""
    db["inbox"].create(
        {
            "id": int, "key": str, "content_sha256": str, "raw_sha256": str, "message_id": str,
            "origin": str, "kind": str, "delivered": str, "ingested": str, "sender": str,
            "subject": str, "size": int, "raw": bytes, "truncated": int, "outcome": str,
            "reason": str, "game_id": str, "player": str, "submission_id": int, "outbox_id": int,
        },
        pk="id",
    )
    db["inbox"].create_index(["raw_sha256"])
    db["inbox"].create_index(["key"])
    db["outbox"].create(
        {
            "id": int, "created": str, "kind": str, "game_id": str, "phase": int, "player": str,
            "to_addr": str, "subject": str, "body": str, "in_reply_to": str, "message_id": str,
            "status": str, "attempts": int, "next_attempt": str, "claimed": str, "sent_at": str,
            "last_error": str, "inbox_id": int,
        },
        pk="id",
    )
    db["outbox"].create_index(["status"])
    db["outbox"].create_index(["game_id", "player"])


def db_path(path: str | None = None) -> str:
    return path or os.environ.get("PBEM_DB") or DEFAULT_DB


def open_db(path: str | None = None) -> sqlite_utils.Database:
    """Open (creating and migrating as needed) the store."""
    target = db_path(path)
    if target != ":memory:":
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite_utils.Database(target)
    db.conn.execute("PRAGMA busy_timeout = 30000")
    if target != ":memory:":
        db.enable_wal()
    migrations.apply(db)
    return db


def dumps(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str | None):
    return None if text is None else json.loads(text)
