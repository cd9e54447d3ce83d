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


@migrations()
def m005_controls(db: sqlite_utils.Database) -> None:
    """The GM's controls between deadlines (pbem.host.controls, pbem.host.seats): the host's
    game options (grace, remind, early, absences, press, seat_policy, gm_email) and their
    grace in seconds (so `due_games` finds due games by SQL), a pause; seat flags (vacant,
    the person playing a seat); the GM-action log, announcements, observers, absences, WAITs,
    draw/concede proposals, reminders sent, open sign-ups, and the seats' history."""
    db["games"].add_column("host_options", str)
    db["games"].add_column("grace", int, not_null_default=0)
    db["games"].add_column("early", int, not_null_default=1)
    db["games"].add_column("paused", str)  # when the GM paused it (NULL: not paused)
    db["games"].add_column("paused_left", int)  # seconds that were left before the deadline
    db["players"].add_column("vacant", int, not_null_default=0)
    db["players"].add_column("person", str)  # who plays the seat now, when not its first player
    db["gm_actions"].create(
        {"id": int, "game_id": str, "at": str, "by": str, "action": str, "detail": str, "reason": str}, pk="id")
    db["gm_actions"].create_index(["game_id"])
    db["announcements"].create(
        {"id": int, "game_id": str, "at": str, "phase": int, "subject": str, "text": str, "public": int}, pk="id")
    db["announcements"].create_index(["game_id"])
    db["observers"].create({"game_id": str, "email": str, "added": str}, pk=("game_id", "email"))
    db["absences"].create(
        {"id": int, "game_id": str, "player": str, "start": str, "end": str, "days": int, "declared": str}, pk="id")
    db["absences"].create_index(["game_id", "player"])
    db["waits"].create({"game_id": str, "phase": int, "player": str, "at": str}, pk=("game_id", "phase", "player"))
    db["proposals"].create(
        {"game_id": str, "phase": int, "player": str, "kind": str, "at": str}, pk=("game_id", "phase", "player"))
    db["notices"].create(
        {"game_id": str, "phase": int, "player": str, "kind": str, "at": str}, pk=("game_id", "phase", "player", "kind"))
    db["signups"].create(
        {"id": str, "type": str, "seats": int, "seed": str, "options": str, "host_options": str, "schedule": str,
         "created": str}, pk="id")
    db["signup_players"].create(
        {"game_id": str, "name": str, "email": str, "password": str, "joined": str}, pk=("game_id", "name"))
    db["seat_history"].create(
        {"id": int, "game_id": str, "player": str, "at": str, "change": str, "old": str, "new": str}, pk="id")


@migrations()
def m006_mailloop(db: sqlite_utils.Database) -> None:
    """The unattended mail loop (issue 14): messages fetched from IMAP, each stored raw with its
    UIDVALIDITY and UID in one transaction (and later the inbox row that processed it); each
    mailbox's last UIDVALIDITY; bounces recorded against an address; the guard's log (replies
    withheld: password guessing, the per-sender reply cap); and `pbem run`'s own small state."""
    db["imap_fetched"].create(
        {"id": int, "account": str, "uidvalidity": int, "uid": int, "fetched": str, "delivered": str, "size": int,
         "raw": bytes, "raw_sha256": str, "truncated": int, "inbox_id": int, "done": str},
        pk="id",
    )
    db["imap_fetched"].create_index(["account", "uidvalidity", "uid"], unique=True)
    db["imap_fetched"].create_index(["inbox_id"])
    db["imap_mailboxes"].create({"account": str, "uidvalidity": int, "seen": str, "changes": int}, pk="account")
    db["bounces"].create(
        {"id": int, "inbox_id": int, "at": str, "address": str, "game_id": str, "player": str, "outbox_id": int,
         "action": str, "status": str, "diagnostic": str},
        pk="id",
    )
    db["bounces"].create_index(["address"])
    db["bounces"].create_index(["game_id", "player"])
    db["guard_log"].create(
        {"id": int, "at": str, "kind": str, "game_id": str, "player": str, "address": str, "inbox_id": int,
         "outbox_id": int, "detail": str},
        pk="id",
    )
    db["guard_log"].create_index(["kind", "at"])
    db["run_state"].create({"key": str, "value": str, "at": str}, pk="key")
    db["inbox"].create_index(["game_id", "player", "ingested"])
    db["outbox"].create_index(["to_addr", "created"])


@migrations()
def m007_press(db: sqlite_utils.Database) -> None:
    """Press (pbem.host.press): every message players and the GM send each other through the
    judge, with its turn, sender, recipients (JSON list; NULL: to all, public) and whether it
    was grey (anonymous to players)."""
    db["press"].create(
        {"id": int, "game_id": str, "phase": int, "sent": str, "sender": str, "recipients": str, "public": int,
         "grey": int, "body": str, "source": str, "inbox_id": int},
        pk="id",
    )
    db["press"].create_index(["game_id", "phase"])
    db["press"].create_index(["game_id", "sender", "sent"])


@migrations()
def m008_due_index(db: sqlite_utils.Database) -> None:
    """Issue 17: `resolve --all` finds the due games by SQL (service.due_games), which reads
    each running game's players asked (phases.active). That column comes after the state
    snapshot in a phases row, so reading it walks the snapshot's pages; this index holds it
    beside the key, so a store of many games is searched without touching the snapshots."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_phases_game_id_number_active ON phases (game_id, number, active)")

class Store(sqlite_utils.Database):
    """sqlite-utils' Database whose outermost atomic() block is a write transaction that takes
    the write lock first (BEGIN IMMEDIATE), so concurrent pbem processes wait their turn
    instead of failing with "database is locked" when a read turns into a write."""

    @contextmanager
    def atomic(self):
        if self.conn.in_transaction:
            # a savepoint, as sqlite-utils makes one, named by its depth (issue 17: ingest opens
            # two a message; sqlite-utils names each by a random token, so no statement is
            # prepared twice). One savepoint is open at each depth: a name is never ambiguous
            depth = self.__dict__.get("_pbem_depth", 0) + 1
            name = f"pbem_{depth}"
            self.conn.execute(f"SAVEPOINT {name}")
            self._pbem_depth = depth
            try:
                yield self
            except BaseException:
                if self.conn.in_transaction:  # a RAISE(ROLLBACK) may have ended the transaction
                    self.conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    self.conn.execute(f"RELEASE SAVEPOINT {name}")
                raise
            else:
                self.conn.execute(f"RELEASE SAVEPOINT {name}")
            finally:
                self._pbem_depth = depth - 1
        else:
            with write_transaction(self):
                yield self


@migrations()
def m009_joined(db: sqlite_utils.Database) -> None:
    """A seat added to a running game (`pbem join`, pbem.host.seats.add_seat) records the turn
    it joined in; NULL: a seat from the game's start. Replays add it at that turn."""
    db["players"].add_column("joined", int)


@migrations()
def m010_guard_indexes(db: sqlite_utils.Database) -> None:
    """Issue 17: the mail guard's two counts per rejected message (pbem.mail.guard) read an
    index instead of the whole table. The reply cap counts the answers to one address,
    whatever its case (`lower(to_addr)`: the index of m006 on to_addr could not serve it, so
    every rejected message read the whole outbox); the guessing throttle counts a seat's
    rejected messages (m006's index on game_id, player, ingested visited each of the seat's
    messages of the hour, accepted ones too)."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_outbox_lower_to_addr_created ON outbox (lower(to_addr), created)")
    db.execute("CREATE INDEX IF NOT EXISTS idx_inbox_game_id_player_outcome_ingested ON inbox (game_id, player, outcome, ingested)")


@migrations()
def m011_drop_unused_indexes(db: sqlite_utils.Database) -> None:
    """Issue 17: two indexes of m006 that no query reads since m010, each kept up to date
    by every message ingested: outbox (to_addr, created) (the reply cap compares addresses
    whatever their case: m010's lower(to_addr) index) and inbox (game_id, player, ingested)
    (m010's (game_id, player, outcome, ingested) serves a seat's messages as well)."""
    db.execute("DROP INDEX IF EXISTS idx_outbox_to_addr_created")
    db.execute("DROP INDEX IF EXISTS idx_inbox_game_id_player_ingested")


@migrations()
def m012_due_partial_indexes(db: sqlite_utils.Database) -> None:
    """Issue 17: `resolve --all` (service.due_games) passes over an idle game (no orders in
    for its turn, no bot or vacant seat, somebody asked) without reading its turn's row: the
    few rows that can make a game due early besides orders are each in a partial index, the
    turns where nobody is asked and the bot and vacant seats (the seats were read in full at
    every run). A turn's `active` that is not JSON (a store changed by hand) is left out of
    the index rather than refused."""
    db.execute("CREATE INDEX IF NOT EXISTS idx_phases_nobody_asked ON phases (game_id, number) "
               "WHERE json_valid(active) AND json_array_length(active) = 0")
    db.execute("CREATE INDEX IF NOT EXISTS idx_players_bot_or_vacant ON players (game_id) WHERE bot = 1 OR vacant = 1")


assert [m.name for m in migrations._migrations] == list(MIGRATIONS), "pbem.host.store.MIGRATIONS is out of date"
