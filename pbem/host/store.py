"""Opening the SQLite store: `open_db` for everything that writes (through sqlite-utils, with
the schema's migrations applied under the write lock: pbem.host.database), and `open_reader`
for the commands that only read (`pbem status`, `pbem report`), through sqlite3 alone so
they start fast. The read API (pbem.host.read) works on either.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path

from pbem.core.errors import NotFound, PbemError

DEFAULT_DB = "pbem.db"
# The schema's migrations, in order (pbem.host.database defines them and checks this list).
MIGRATIONS = ("m001_initial", "m002_mail", "m003_rollback_and_indexes", "m004_ready")

def db_path(path: str | None = None) -> str:
    return path or os.environ.get("PBEM_DB") or DEFAULT_DB


def open_db(path: str | None = None):
    """Open (creating and migrating as needed) the store: a sqlite-utils Database."""
    from pbem.host.database import Store, migrations

    target = db_path(path)
    try:
        if target != ":memory:":
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        db = Store(target)
    except (OSError, sqlite3.OperationalError) as err:
        raise PbemError(f"cannot open the store {target}: {err}") from None
    try:
        db.conn.execute("PRAGMA busy_timeout = 30000")
        if target != ":memory:" and db.journal_mode != "wal":
            with _retrying():
                db.enable_wal()
        if migrations.pending(db):
            # Several pbem processes may open a new or old store at once: migrate under the
            # write lock, and only what is still pending once the lock is ours.
            with write_transaction(db):
                migrations.apply(db)
    except sqlite3.DatabaseError as err:
        if "not a database" not in str(err) and "malformed" not in str(err):
            raise
        db.close()
        raise PbemError(f"{target} is not a pbem store ({err}); give another file with --db or PBEM_DB") from None
    return db


@contextmanager
def _retrying(tries: int = 50):
    """Retry a statement that met a lock the busy timeout does not cover."""
    for attempt in range(tries):
        try:
            yield
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) and "busy" not in str(err) or attempt == tries - 1:
                raise
            time.sleep(0.02 * (attempt + 1))


class Reader:
    """A store opened for reading through sqlite3 alone: `execute` and `conn`, as the read API
    needs them (and nothing that writes: the commands that write use open_db)."""

    def __init__(self, conn: sqlite3.Connection, path: str):
        self.conn, self.path = conn, path

    def execute(self, sql: str, parameters=None) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters or [])

    def close(self) -> None:
        self.conn.close()


def open_reader(path: str | None = None):
    """The store for reading only, without sqlite-utils; falls back to `open_db` when the
    store still needs a migration (which writes). A store that does not exist is an error:
    reading never creates one (a mistyped --db must not look like an empty store)."""
    target = db_path(path)
    if target == ":memory:":
        return open_db(path)
    if not Path(target).is_file():
        raise NotFound(f"no pbem store at {target} yet: `pbem new` makes one (or point --db FILE or PBEM_DB at yours)")
    try:
        conn = sqlite3.connect(target)  # only read through: see Reader
        conn.execute("PRAGMA busy_timeout = 30000")
        applied = {r[0] for r in conn.execute("select name from _sqlite_migrations where migration_set = 'pbem'")}
    except sqlite3.OperationalError as err:  # no migrations table yet: open_db makes it
        if "no such table" not in str(err):
            raise
        return open_db(path)
    except sqlite3.DatabaseError as err:
        raise PbemError(f"{target} is not a pbem store ({err}); give another file with --db or PBEM_DB") from None
    if not set(MIGRATIONS) <= applied:
        conn.close()
        return open_db(path)
    return Reader(conn, target)


@contextmanager
def write_transaction(db):
    """A write transaction that takes the write lock first (BEGIN IMMEDIATE), so that
    concurrent pbem processes queue for it (busy timeout, then retries) instead of failing
    with "database is locked" halfway. Nested db.atomic() blocks become savepoints."""
    if db.conn.in_transaction:
        import sqlite_utils

        with sqlite_utils.Database.atomic(db):
            yield db
        return
    for attempt in range(100):
        try:
            db.conn.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) and "busy" not in str(err) or attempt == 99:
                raise
            time.sleep(0.05)
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    else:
        db.conn.execute("COMMIT")


def dumps(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str | None):
    return None if text is None else json.loads(text)


def __getattr__(name: str):
    """`migrations` and `Store` live in pbem.host.database (they need sqlite-utils)."""
    if name in ("migrations", "Store"):
        from pbem.host import database

        return getattr(database, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
