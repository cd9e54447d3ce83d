"""The sqlite-utils side of the store: the `Store` class (sqlite-utils' Database with write
transactions that take the lock first) and the schema, as `Migrations`; the store's schema
version is the list of migrations applied (table `_sqlite_migrations`).

Tables: games, players, phases (one state snapshot with its hash per phase opened),
submissions (every raw input, kept forever), events, reports; inbox (every message ingested)
and outbox (mail to send) since m002; *_archive tables (rollback) since m003.

Imported only by the commands that write (sqlite-utils takes longer to import than the rest
of a read-only command): `pbem.host.store.open_reader` reads without it.
"""

from __future__ import annotations

from contextlib import contextmanager

import sqlite_utils
from sqlite_utils.migrations import Migrations

from pbem.host.store import MIGRATIONS, write_transaction

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


@migrations()
def m003_rollback_and_indexes(db: sqlite_utils.Database) -> None:
    """`pbem rollback`: phases, events and reports set aside are kept in archive tables (with
    the rollback they belong to); an index so `resolve --all` finds due games by SQL."""
    db["rollbacks"].create({"id": int, "game_id": str, "to_phase": int, "from_phase": int, "at": str}, pk="id")
    for name in ("phases", "events", "reports"):
        columns = {col.name: col.type for col in db[name].columns}
        db.execute(f"CREATE TABLE [{name}_archive] AS SELECT * FROM [{name}] WHERE 0")
        db[f"{name}_archive"].add_column("rollback_id", int)
        assert set(columns) <= {c.name for c in db[f"{name}_archive"].columns}
    db["games"].create_index(["status", "deadline"])


@migrations()
def m004_ready(db: sqlite_utils.Database) -> None:
    """A submission is *ready* when none of its lines was rejected, or its READY line takes it
    as it is; a turn resolves before its deadline only when every player asked is ready."""
    db["submissions"].add_column("ready", int, not_null_default=0)
    db.execute("update submissions set ready = 1 where status = 'accepted'")


class Store(sqlite_utils.Database):
    """sqlite-utils' Database whose outermost atomic() block is a write transaction that takes
    the write lock first (BEGIN IMMEDIATE), so concurrent pbem processes wait their turn
    instead of failing with "database is locked" when a read turns into a write."""

    @contextmanager
    def atomic(self):
        if self.conn.in_transaction:
            with super().atomic():
                yield self
        else:
            with write_transaction(self):
                yield self


assert [m.name for m in migrations._migrations] == list(MIGRATIONS), "pbem.host.store.MIGRATIONS is out of date"
