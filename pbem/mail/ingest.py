"""Mail in: `pbem ingest PATH...`.

Each PATH is recognised by what it is: a Maildir (a folder with cur/ and new/; tmp/ is never
read), an mbox file (it starts with a `From ` line), a single message (`.eml`, or a file that
starts with mail headers), or a folder of any of these and of plain order files (recursively;
hidden entries are skipped). The mailbox is only read, never changed.

Every message ends in exactly one outcome, recorded in the `inbox` table with its raw bytes:

- **accepted**: orders taken (some lines may be rejected: the acknowledgement lists them), or
  a REPORT or HELP request answered, or (a message may carry several) at least one mail
  command or press block carried out (pbem.mail.commands);
- **rejected**, with a reason: bad password, no password, unknown game, unknown player, sender
  mismatch, no From address, parse errors, no usable orders, wrong phase, late, game over, too large, no orders
  found, duplicate Message-ID, unreadable;
- **ignored**: not for any game -- auto-replies, bounces, bulk and list mail, spam, our own
  messages, and mail that names no game (but from an address that holds a seat in a running
  game: that game's; with seats in several, the one whose seat's password it carries, else
  rejected with the question which).

A message already ingested (same Message-ID and content; or, without a Message-ID, same
content) is skipped and counted as "already ingested": ingesting a mailbox twice changes
nothing.

Finding the orders in a real message: the text/plain body is read first, then `.txt`
attachments, then the HTML body (converted to text), then forwarded messages (message/rfc822,
three levels at most). In a text, quoted lines (`>`), attributions ("On ... wrote:"), the
headers of forwarded and Outlook "Original Message" sections, signatures (after `-- `) and
mobile footers are recognised; a format=flowed text (RFC 3676) is unwrapped first
(pbem.mail.mime.unflow). The orders are an *order block*: from a GAME/PLAYER/PASSWORD
header line to END -- which is exactly the order form every report ends with. Of the blocks in
a message, the ones the player wrote in count: blocks with orders, a request or a real
password, the least quoted ones, and of those the last for each game and player (blocks for
several games are each their own submission, answered in one reply: pbem.mail.commands; every
block set aside is named in the answer). So a reply that types orders above or below a quoted
report, or fills in the quoted (or pasted) form, is read as those orders, and the report text
around the form is never read as orders.

Security: the password is checked for every submission and REPORT request (a wrong password
changes nothing: the attempt is stored, logged and acknowledged to the sender, who is the
registered address if the From was forged). When a player has a registered email address,
their orders are taken only from that address (From, compared case-insensitively); a player
without one is authenticated by the password alone. Nothing is ever sent in reply to
automatic mail (Auto-Submitted, Precedence bulk/list/junk, List-Id, mailer-daemon/postmaster/
no-reply senders, a null Return-Path, delivery reports, spam flags, our own X-PBEM-Mail), so
mail loops cannot start.
"""


from __future__ import annotations

import email
import hashlib
import logging
import os
import re
import sqlite3
import time
from contextlib import contextmanager
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from pathlib import Path
from typing import Callable

from pbem.core.errors import PbemError
from pbem.host import schedule, store
from pbem.host.outbox import clean_address, header_safe
from pbem.mail import settings
from pbem.mail import guard
from pbem.mail.commands import rejection, dispatch
from pbem.mail.outcome import MAX_MESSAGE_BYTES, Context, Outcome, Tally
from pbem.mail.formats import Item, iter_items
from pbem.mail.headers import content_hash, automatic, header, known, msgid_ok, raw_header, sender_of

log = logging.getLogger("pbem.mail")

KEEP_OF_LARGE = 64 * 1024  # how much of a large message is read for its headers


# --- processing one message ------------------------------------------------------------------------

# a line of a header block the compat32 feed parser reads without a defect: a header (a name of
# the characters email.feedparser.headerRE allows, then ':') or the continuation of one
# (starting with a space or a tab), ending in a newline
_HEADER_LINE = re.compile(r"[\041-\071\073-\176]+:[^\r\n]*\n|[\t ][^\r\n]*\n")


def _parse_plain(raw: bytes) -> Message | None:
    """issue 17: what `email.message_from_bytes(raw)` (compat32) gives, without its feed
    parser, for a message that is one part (no multipart or message/* type) with a plain
    header block (each line a _HEADER_LINE), no carriage return and no "From " line; None for any other
    message, which the feed parser reads. The message is the same object the feed parser
    builds: the same headers (name, value) in the same order, the same payload (the text after
    the blank line), no defect (tests/test_mail_ingest.py compares the two on many messages)."""
    if b"\r" in raw:
        return None
    text = raw.decode("ascii", "surrogateescape")  # (as email.parser.BytesParser reads bytes)
    end = text.find("\n\n")
    if end <= 0:
        return None
    lines = _HEADER_LINE.findall(text, 0, end + 1)
    if not lines or sum(map(len, lines)) != end + 1 or lines[0][0] in " \t":  # (every line a header line)
        return None
    msg = Message(policy=compat32)
    headers = msg._headers
    value: list[str] = []
    for line in lines:  # email.feedparser's _parse_headers and compat32's header_source_parse
        if line[0] in " \t":
            value.append(line)
            continue
        if value:
            name, _, first = value[0].partition(":")
            headers.append((name, (first.lstrip(" \t") + "".join(value[1:])).rstrip("\r\n")))
        value = [line]
    name, _, first = value[0].partition(":")
    headers.append((name, (first.lstrip(" \t") + "".join(value[1:])).rstrip("\r\n")))
    if msg.get_content_maintype() in ("multipart", "message"):
        return None  # (the feed parser reads its parts)
    msg._payload = text[end + 2:]
    return msg


def _parse(raw: bytes) -> Message:
    msg = _parse_plain(raw) or email.message_from_bytes(raw)  # compat32: fast, lenient; headers decoded on demand
    msg._pbem_headers = {}  # issue 17: each header read once (pbem.mail.headers.raw_header)
    for part in msg.walk():  # and each part's content type, file name and payload (headers.once)
        part._pbem_memo = known(part)  # (what they depend on alone, worked out ahead)
    return msg


def ingest_item(db, item: Item, ctx: Context) -> Outcome:
    """One message to its one outcome, in one savepoint (see `ingest` for the transaction)."""
    out = Outcome(item.origin, "rejected", "")
    try:
        limit = store_limit(db)
        if item.size is not None and item.size > limit:  # issue 17: never read whole, never stored whole
            ctx.next_inbox = None  # (its row takes the next id)
            return _set_aside(db, item, out, limit)
        raw = item.read()
    except OSError as err:
        out.reason = f"unreadable: {err}"
        return out
    if len(raw) > limit:
        ctx.next_inbox = None
        return _set_aside(db, Item(item.origin, item.kind, lambda: raw, item.delivered, item.name, size=len(raw)), out, limit)
    raw_sha = hashlib.sha256(raw).hexdigest()
    if db.execute("select 1 from inbox where raw_sha256 = ? limit 1", [raw_sha]).fetchone():
        out.outcome, out.reason = "seen", "already ingested"
        return out
    msg: Message | None = None
    parse_error = ""
    if item.kind != "file":
        try:
            if len(raw) > ctx.max_bytes:
                msg = BytesHeaderParser().parsebytes(raw[:KEEP_OF_LARGE])
            else:
                msg = _parse(raw)
        except Exception as err:  # pragma: no cover - the parser is lenient
            parse_error = f"{type(err).__name__}: {err}"
    content = content_hash(raw, msg)
    mid = msgid_ok(raw_header(msg, "Message-ID")) if msg is not None else None
    key = mid or f"sha256:{content}"
    same_key = db.execute("select content_sha256 from inbox where key = ?", [key]).fetchall()
    if any(r[0] == content for r in same_key):
        out.outcome, out.reason = "seen", "already ingested (same Message-ID and content)"
        return out
    row = {
        "key": key, "content_sha256": content, "raw_sha256": raw_sha, "message_id": mid, "origin": item.origin,
        "kind": item.kind, "delivered": schedule.iso(item.delivered) if item.delivered else None,
        "ingested": schedule.iso(schedule.now()),
        "sender": header_safe(header(msg, "From"), 300) if msg is not None else None,
        "subject": header_safe(header(msg, "Subject"), 300) if msg is not None else None,
        "size": len(raw), "raw": raw, "truncated": 0,
        "outcome": "pending", "reason": "", "game_id": None, "player": None, "submission_id": None, "outbox_id": None,
    }
    try:
        with db.atomic():
            # the message's row is written once, with its outcome, at the end of its savepoint
            # (issue 17: an UPDATE rewrote the whole row, raw bytes and all); its id is known
            # before, for what its handling writes (the outbox's inbox_id, a submission's
            # source): the next rowid, under the write lock (only ingest writes inbox rows)
            out.inbox_id = ctx.next_inbox or db.execute("select coalesce(max(id), 0) + 1 from inbox").fetchone()[0]
            if same_key:
                out.reason = f"duplicate Message-ID {header_safe(mid, 100)}: a different message with this Message-ID was ingested before"
                sender = sender_of(msg)
                if msg is not None and not automatic(msg, sender, ctx.own):
                    rejection(db, out, sender, None, out.reason)
            elif parse_error or (msg is None and item.kind != "file"):
                out.reason = f"unreadable: {parse_error}"
            elif not raw.strip():
                out.outcome, out.reason = "ignored", "not for any game: an empty message"
            else:
                guard.guarded(dispatch, db, item, raw, msg, out, ctx)  # issue 14: bounces, auto-replies, throttles
            _record(db, row, out)
        if ctx.rows is not None:
            ctx.next_inbox = out.inbox_id + 1
    except Exception as err:
        # anything unforeseen: the message is kept and rejected as unreadable, never a traceback
        log.debug("%s: cannot process", item.origin, exc_info=True)  # PBEM_DEBUG shows it; the outcome names it
        if ctx.rows is not None:
            ctx.rows.clear()
        ctx.next_inbox = None
        out = Outcome(item.origin, "rejected", f"unreadable: {type(err).__name__}: {header_safe(err, 200)}")
        with db.atomic():
            out.inbox_id = store.insert(db, "inbox", dict(row, outcome="rejected", reason=out.reason))
    return out


def store_limit(db) -> int:
    """The largest message the store can keep whole: SQLite refuses a string or blob (and a
    row) over SQLITE_LIMIT_LENGTH (1 GB unless compiled otherwise), less room for the rest
    of the row."""
    length = db.conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
    return max(length // 2, length - 64 * 1024)


def _set_aside(db, item: Item, out: Outcome, limit: int) -> Outcome:
    """A message too large for the store: recorded as rejected, with its size, its hash and
    only its first bytes (truncated = 1), so that no rerun stops on it again; its bytes are
    read in chunks, never whole. No reply: the sender of a gigabyte is not answered."""
    raw_sha = item.sha256()
    if db.execute("select 1 from inbox where raw_sha256 = ? limit 1", [raw_sha]).fetchone():
        out.outcome, out.reason = "seen", "already ingested"
        return out
    head = item.head(KEEP_OF_LARGE)
    try:
        msg = BytesHeaderParser().parsebytes(head) if item.kind != "file" else None
    except Exception:  # pragma: no cover - the parser is lenient
        msg = None
    out.reason = (f"too large to keep: the message is {item.size / 2**20:.1f} MB ({item.size} bytes), over the store's "
                  f"limit of {limit / 2**20:.1f} MB; set aside with its first {len(head)} bytes")
    row = {
        "key": f"sha256:{raw_sha}", "content_sha256": raw_sha, "raw_sha256": raw_sha, "message_id": None,
        "origin": item.origin, "kind": item.kind, "delivered": schedule.iso(item.delivered) if item.delivered else None,
        "ingested": schedule.iso(schedule.now()),
        "sender": header_safe(header(msg, "From"), 300) if msg is not None else None,
        "subject": header_safe(header(msg, "Subject"), 300) if msg is not None else None,
        "size": item.size, "raw": head, "truncated": 1, "outcome": "rejected", "reason": out.reason,
        "game_id": None, "player": None, "submission_id": None, "outbox_id": None,
    }
    with db.atomic():
        out.inbox_id = store.insert(db, "inbox", row)
    return out


def _record(db, row: dict, out: Outcome) -> None:
    """The message's inbox row, with its outcome, under the id it was given (`ingest_item`)."""
    store.insert(db, "inbox", {"id": out.inbox_id, **row, "outcome": out.outcome, "reason": out.reason, "game_id": out.game_id,
                          "player": out.player, "submission_id": out.submission_id, "outbox_id": out.outbox_id})


def ingest(db, paths: list[str | Path], own_address: str | None = None, on_result: Callable[[Outcome], None] | None = None,
           batch: int = 1000, max_bytes: int = MAX_MESSAGE_BYTES, turns: str | None = None,
           batch_seconds: float = 0.25) -> Tally:
    """Ingest every message under `paths` (see the module docstring). Messages are committed
    in batches (one transaction, each message in its own savepoint) of `batch` messages or
    about `batch_seconds` (issue 17: the write lock is held no longer, as resolve --all
    does), so a crash loses at most a batch that re-ingesting redoes -- and none that was
    reported: `on_result` sees each outcome once its batch is committed (nothing is told
    accepted that a crash could still take back). Returns the tally."""
    ctx = Context(own=clean_address(own_address), max_bytes=max_bytes, turns=turns, rows={})
    tally = Tally()
    items = list(iter_items(paths))
    conn = db.conn
    done: list[Outcome] = []  # the outcomes of the batch not yet committed

    def commit() -> None:
        conn.execute("COMMIT")
        if on_result:
            for result in done:
                on_result(result)
        done.clear()

    with _statement_journal_in_memory(conn):
        try:
            for item in items:
                if not conn.in_transaction:
                    conn.execute("BEGIN IMMEDIATE")
                    ctx.rows.clear()  # another process may have changed a game since the last commit
                    ctx.next_inbox = None
                    started = time.monotonic()
                result = ingest_item(db, item, ctx)
                tally.results.append(result)
                done.append(result)
                if len(done) >= batch or time.monotonic() - started >= batch_seconds:
                    commit()
            if conn.in_transaction:
                commit()
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return tally


@contextmanager
def _statement_journal_in_memory(conn):
    """temp_store = MEMORY while ingest runs (issue 17). Each message's savepoint keeps the
    first image of every page it changes, to roll back to; past 64 KB in a transaction
    SQLite keeps them in a temporary file, so each page a message changed cost two writes
    to a file nobody reads (some 76,000 for 4,000 messages). Only temporary data is kept in
    memory instead: nothing stored is written differently, and a crash loses nothing more
    (the journal serves rolling back inside the transaction only). The setting is put back
    after; where SQLite refuses to change it, it stays as it is."""
    try:
        before = conn.execute("PRAGMA temp_store").fetchone()[0]
        conn.execute("PRAGMA temp_store = MEMORY")
    except sqlite3.Error:
        yield
        return
    try:
        yield
    finally:
        try:
            conn.execute(f"PRAGMA temp_store = {int(before)}")
        except sqlite3.Error:  # pragma: no cover - (a caller's transaction left open)
            pass


def own_address_from_env(config: str | None = None) -> str | None:
    """Our sending address (from pbem.toml/env), so that our own mail is recognised."""
    try:
        return settings.load_settings(config).sender
    except PbemError:
        return os.environ.get("PBEM_FROM")
