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
from functools import lru_cache
from pathlib import Path

from pbem.core.errors import NotFound, PbemError

DEFAULT_DB = "pbem.db"
# The schema's migrations, in order (pbem.host.database defines them and checks this list).
MIGRATIONS = ("m001_initial", "m002_mail", "m003_rollback_and_indexes", "m004_ready", "m005_controls", "m006_mailloop", "m007_press",
              "m008_due_index", "m009_joined", "m010_guard_indexes",
              "m011_drop_unused_indexes", "m012_due_partial_indexes")

def db_path(path: str | None = None) -> str:
    return path or os.environ.get("PBEM_DB") or DEFAULT_DB


def open_db(path: str | None = None):
    """Open (creating and migrating as needed) the store: a sqlite-utils Database.

    Before anything is written: a store made by a newer pbem (a migration this code does not
    know) is refused, and so is a file that is not a store; a new store is only made in a
    folder that exists. A store that cannot be written (read-only file or file system) is
    opened for reading: the commands that only read work, the first write gets a clear
    message. After the migrations the schema is checked (see `check_schema`)."""
    from pbem.host.database import Store, migrations

    target = db_path(path)
    if target != ":memory:" and not Path(target).exists():
        folder = Path(target).parent
        if not folder.is_dir():
            raise PbemError(f"cannot open the store {target}: there is no folder {folder} "
                            "(create it first, or give another file with --db or PBEM_DB)")
        # a new store holds the players' passwords: readable by its owner only (its -wal and
        # -shm files take the same mode)
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
        except OSError as err:
            raise PbemError(f"cannot create the store {target}: {err.strerror or err}") from None
    try:
        db = Store(target)
    except (OSError, sqlite3.Error) as err:
        raise PbemError(f"cannot open the store {target}: {err}") from None
    db.read_only = False
    try:
        db.conn.execute("PRAGMA busy_timeout = 30000")
        try:
            applied = _applied(db.conn)
        except sqlite3.OperationalError as err:
            if not _cannot_write(err) or target == ":memory:":
                raise
            db.close()
            db = Store(_read_only_connection(target))
            db.read_only = True
            applied = _applied(db.conn)
        _refuse_newer(applied, target)
        if target != ":memory:" and not db.read_only and db.journal_mode != "wal":
            try:
                with _retrying():
                    db.enable_wal()
            except sqlite3.OperationalError as err:
                if not _cannot_write(err):
                    raise
                db.read_only = True
        if not db.read_only and db.journal_mode == "wal":
            # issue 17: in WAL mode NORMAL is safe (a commit survives a crash of pbem; only a
            # power loss may lose the last commits, never corrupt the store) and a commit no
            # longer waits for an fsync
            db.conn.execute("PRAGMA synchronous = NORMAL")
        if migrations.pending(db):
            if db.read_only:
                raise PbemError(f"the store {target} is read-only and needs an upgrade to this pbem first "
                                "(make it writable and run any pbem command once)")
            # Several pbem processes may open a new or old store at once: migrate under the
            # write lock, and only what is still pending once the lock is ours.
            with write_transaction(db):
                migrations.apply(db)
        check_schema(db.conn, target)
    except sqlite3.DatabaseError as err:
        db.close()
        if "not a database" not in str(err) and "malformed" not in str(err):
            raise
        raise PbemError(f"{target} is not a pbem store ({err}); give another file with --db or PBEM_DB") from None
    except PbemError:
        db.close()
        raise
    return db


def _cannot_write(err: sqlite3.Error) -> bool:
    """SQLite's word for a store it may read but not write (a read-only file or folder)."""
    text = str(err)
    return "readonly" in text or "read-only" in text or "unable to open database file" in text


def _read_only_connection(target: str) -> sqlite3.Connection:
    """The store opened for reading only, for when it cannot be written: SQLite cannot make
    the WAL's -shm file beside a read-only store, so the file is opened as immutable."""
    from urllib.parse import quote

    conn = sqlite3.connect(f"file:{quote(str(Path(target).resolve()))}?immutable=1", uri=True)
    conn.execute("select count(*) from sqlite_master").fetchone()
    return conn


def _applied(conn: sqlite3.Connection) -> set[str] | None:
    """The migrations applied to the store; None when it has no migrations table yet."""
    try:
        return {r[0] for r in conn.execute("select name from _sqlite_migrations where migration_set = 'pbem'")}
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        return None


def _refuse_newer(applied: set[str] | None, target: str) -> None:
    unknown = sorted((applied or set()) - set(MIGRATIONS))
    if unknown:
        raise PbemError(
            f"the store {target} was made by a newer pbem: it has the migration(s) {', '.join(unknown)}, which this "
            "pbem does not know; upgrade pbem to use it (nothing was changed)")


def _fingerprint(conn: sqlite3.Connection) -> int:
    """A number for the store's tables as they are (their CREATE statements), kept in
    PRAGMA user_version once the schema was checked: a store checked before is not checked
    again until its tables change."""
    import zlib

    text = "\n".join(f"{name}:{sql}" for name, sql in conn.execute(
        "select name, sql from sqlite_master where type = 'table' order by name"))
    return (zlib.crc32(text.encode("utf-8")) & 0x7FFFFFFF) or 1


_EXPECTED: dict[str, set[str]] = {}


def _expected_columns() -> dict[str, set[str]]:
    """Every table and column this pbem's migrations make (on an in-memory store, once)."""
    if not _EXPECTED:
        import sqlite_utils

        from pbem.host.database import migrations

        scratch = sqlite_utils.Database(memory=True)
        migrations.apply(scratch)
        _EXPECTED.update(_columns(scratch.conn))
        scratch.close()
    return _EXPECTED


def _columns(conn: sqlite3.Connection) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for table, column in conn.execute(
            "select m.name, p.name from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table'"):
        out.setdefault(table, set()).add(column)
    return out


def check_schema(conn: sqlite3.Connection, target: str) -> None:
    """Refuse a store whose tables are not the ones this pbem's migrations make (a column
    renamed or dropped by hand, a table gone): a clear message now instead of a KeyError in
    the middle of a command. Extra tables and columns are allowed. Cheap when the store was
    checked before and has not changed since (see `_fingerprint`)."""
    mark = _fingerprint(conn)
    if conn.execute("PRAGMA user_version").fetchone()[0] == mark:
        return
    have = _columns(conn)
    missing = [f"table {t}" if t not in have else f"column {t}.{c}"
               for t, cols in sorted(_expected_columns().items()) if not t.startswith("_")
               for c in (sorted(cols) if t in have else [None]) if t not in have or c not in have[t]]
    missing = list(dict.fromkeys(missing))
    if missing:
        more = f" and {len(missing) - 6} more" if len(missing) > 6 else ""
        raise PbemError(f"the store {target} does not have the tables this pbem expects: missing {', '.join(missing[:6])}"
                        f"{more} (was it changed by hand or by another program?); restore a backup, or give another "
                        "file with --db or PBEM_DB")
    try:
        conn.execute(f"PRAGMA user_version = {mark}")
    except sqlite3.OperationalError:  # read-only, or busy: checked again next time
        pass


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
    reading never creates one (a mistyped --db must not look like an empty store). A store
    made by a newer pbem, or whose schema was changed, is refused (see `open_db`)."""
    target = db_path(path)
    if target == ":memory:":
        return open_db(path)
    if not Path(target).is_file():
        raise NotFound(f"no pbem store at {target} yet: `pbem new` makes one (or point --db FILE or PBEM_DB at yours)")
    conn = None
    try:
        conn = sqlite3.connect(target)  # only read through: see Reader
        conn.execute("PRAGMA busy_timeout = 30000")
        try:
            applied = _applied(conn)
        except sqlite3.OperationalError as err:
            if not _cannot_write(err):
                raise
            conn.close()
            conn = _read_only_connection(target)
            applied = _applied(conn)
        if applied is None:  # no migrations table yet: open_db makes it
            conn.close()
            return open_db(path)
        _refuse_newer(applied, target)
        if not set(MIGRATIONS) <= applied:
            conn.close()
            return open_db(path)
        check_schema(conn, target)
    except sqlite3.DatabaseError as err:
        if conn is not None:
            conn.close()
        raise PbemError(f"{target} is not a pbem store ({err}); give another file with --db or PBEM_DB") from None
    except PbemError:
        if conn is not None:
            conn.close()
        raise
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


def insert(db, table: str, row: dict) -> int:
    """INSERT of one row by plain SQL (issue 17: no schema look-up by sqlite-utils, and the
    statement built once for each table and set of columns); returns its rowid."""
    return db.execute(_insert_sql(table, tuple(row)), list(row.values())).lastrowid


@lru_cache(maxsize=64)
def _insert_sql(table: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO [{table}] ({', '.join(f'[{c}]' for c in columns)}) VALUES ({', '.join('?' * len(columns))})"


def kept_secret(db, key: str) -> str | None:
    """A random value made once for this store and kept in it (run_state `key`): the store's
    identity, whatever its file is named or wherever it is moved, or a key that only this
    store knows. None when it cannot be made (a read-only store that has none yet)."""
    row = db.execute("select value from run_state where key = ?", [key]).fetchone()
    if row:
        return row[0]
    import secrets

    from pbem.host import schedule

    try:
        with write_transaction(db):
            db.execute("insert or ignore into run_state (key, value, at) values (?, ?, ?)",
                       [key, secrets.token_hex(16), schedule.iso(schedule.now())])
    except sqlite3.Error:
        return None
    row = db.execute("select value from run_state where key = ?", [key]).fetchone()
    return row[0] if row else None


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))  # json.dumps makes one each call


def dumps(value) -> str:
    """JSON with sorted keys and no spaces: json.dumps(value, sort_keys=True, separators=(",", ":"))."""
    return _ENCODER.encode(value)


def loads(text: str | None):
    return None if text is None else json.loads(text)


def __getattr__(name: str):
    """`migrations` and `Store` live in pbem.host.database (they need sqlite-utils)."""
    if name in ("migrations", "Store"):
        from pbem.host import database

        return getattr(database, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def explain_error(err: BaseException, target: str) -> str | None:
    """A clear message for an error the machine raised, not pbem's code: the store on a full
    disk, a read-only store, a store that broke under us, a number too large for SQLite or
    for a date. None for anything else (a bug, reported as one)."""
    if isinstance(err, OverflowError):
        return f"a number is out of range ({err})"
    if not isinstance(err, sqlite3.Error):
        return None
    text = str(err)
    if "full" in text:
        return f"cannot write the store {target}: the disk is full ({text}); nothing of this command was kept"
    if _cannot_write(err):
        return f"cannot write the store {target}: it is read-only ({text}); nothing was changed"
    if "disk I/O error" in text or "no space" in text.lower():
        return (f"cannot write the store {target}: {text} (is the disk full, or the file system read-only?); "
                "nothing of this command was kept")
    if "not a database" in text or "malformed" in text:
        return f"the store {target} is damaged ({text}); restore a backup, or give another file with --db or PBEM_DB"
    if "locked" in text or "busy" in text:
        return f"the store {target} is busy ({text}): another program holds it; try again"
    return None
