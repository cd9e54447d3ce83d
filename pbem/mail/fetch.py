"""Mail in from a real mailbox: `pbem fetch` reads new messages from an IMAP folder.

Exactly once, whatever happens in between:

1. each new message is stored raw in the table `imap_fetched`, in one transaction with the
   UIDVALIDITY and UID that name it on the server (a unique key);
2. only after that commit is it moved to the processed folder (`after = "move"`, the default;
   IMAP MOVE, or COPY + \\Deleted + UID EXPUNGE on a server without MOVE) or given the
   keyword `$PbemProcessed` (`after = "flag"`);
3. `ingest_fetched` then processes each stored message through pbem.mail.ingest, and records
   the inbox row that took it in the same transaction as that row.

A kill before (1) commits leaves the message on the server, to be fetched next time; a kill
between (1) and (2) leaves it stored and still in the folder: the next run finds its UID
already recorded and only moves it; a kill inside (3) rolls that message back, to be
ingested next time. Nothing is lost, nothing is taken twice. (A server without MOVE may,
killed between its COPY and its EXPUNGE, keep a second copy in the processed folder: the
message is still taken once.)

UIDVALIDITY: a server that renumbers a folder (a restore, a migration) announces it with a
new UIDVALIDITY, after which every UID recorded under the old one means nothing. The change is
recorded and reported; messages still in the folder are fetched again under their new UIDs,
and ingest recognises any it already took (by content and Message-ID), so none is answered
twice.

The password comes from a file or the environment (pbem.mail.settings.ImapSettings), never
from pbem.toml or the store.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pbem.core.errors import PbemError
from pbem.core.words import plural
from pbem.host import deadline, schedule
from pbem.host.outbox import clean_address
from pbem.host.service import failpoint as host_failpoint
from pbem.mail.formats import Item
from pbem.mail.ingest import ingest_item
from pbem.mail.outcome import Context, Outcome, Tally
from pbem.mail.settings import ImapSettings

log = logging.getLogger("pbem.mail")

KEYWORD = "$PbemProcessed"
CHUNK = 25  # messages fetched (and committed, then moved) per round trip


@dataclass
class FetchResult:
    stored: int = 0  # new messages stored
    moved: int = 0  # messages moved or flagged on the server
    already: int = 0  # found in the folder though stored before (a run stopped before moving them)
    uidvalidity_changed: bool = False
    uidvalidity: int | None = None
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"{plural(self.stored, 'new message')} stored"]
        if self.already:
            parts.append(f"{self.already} stored before and now set aside on the server")
        return ", ".join(parts) + "".join(f"; {n}" for n in self.notes)


class FetchError(PbemError):
    """The mailbox could not be read: a message for the GM (what is wrong, what to change)."""


# --- connecting --------------------------------------------------------------------------------

CONNECT_TIMEOUTS = 3  # connecting and logging in may take this many times [imap] timeout in all
CALL_TIMEOUTS = 4  # each exchange after it (a search, a batch of messages fetched) this many


def connect(s: ImapSettings):
    """A logged-in IMAPClient, or FetchError saying clearly what went wrong."""
    from imapclient import IMAPClient
    from imapclient.exceptions import CapabilityError, IMAPClientError, LoginError

    if not s.host:
        raise FetchError("no IMAP server: set host in the [imap] table of pbem.toml (or PBEM_IMAP_HOST)")
    if not s.username:
        raise FetchError("no IMAP user: set username in the [imap] table of pbem.toml (or PBEM_IMAP_USER)")
    if not s.password:
        raise FetchError("no IMAP password: put it in a file named by password_file in [imap] (or PBEM_IMAP_PASSWORD_FILE), "
                         "or in PBEM_IMAP_PASSWORD")
    where = s.describe()
    client = None
    try:
        # the socket timeout bounds each wait for a byte; these bound each exchange as a whole
        with deadline.within(CONNECT_TIMEOUTS * s.timeout, "connecting and logging in", stoppable=True):
            client = IMAPClient(s.host, port=s.effective_port, ssl=s.security == "ssl", ssl_context=s.ssl_context(),
                                timeout=s.timeout)
            if s.security == "starttls":
                try:
                    client.starttls(s.ssl_context())
                except CapabilityError:
                    raise FetchError(f"{where}: the server offers no STARTTLS; refusing to send the password in clear "
                                     "(use security = \"ssl\" on port 993, or \"none\" only for a server on this machine)") from None
            client.login(s.username, s.password)
        # stoppable: a message is taken off the server only once it is stored (issue 17)
        return deadline.Bounded(client, CALL_TIMEOUTS * s.timeout, where, stoppable=True)
    except FetchError:
        _close(client)
        raise
    except LoginError:
        _close(client)
        raise FetchError(f"{where}: login refused: check username and the password (file or PBEM_IMAP_PASSWORD)") from None
    except ssl.SSLCertVerificationError as err:
        _close(client)
        raise FetchError(f"{where}: the server's TLS certificate is not trusted ({err.verify_message}); "
                         "for a private CA set ca_file in [imap]") from None
    except ssl.SSLError as err:
        _close(client)
        hint = (" -- does the server speak TLS on this port? IMAPS is port 993; on 143 use security = \"starttls\""
                if s.security == "ssl" else "")
        raise FetchError(f"{where}: TLS failed: {err.reason or err}{hint}") from None
    except socket.gaierror as err:
        _close(client)
        raise FetchError(f"{where}: cannot find the server '{s.host}': {err.strerror or err}") from None
    except deadline.Overdue as err:
        _close(client)
        raise FetchError(f"{where}: {err}") from None
    except TimeoutError:
        _close(client)
        raise FetchError(f"{where}: no answer within {s.timeout:g} seconds") from None
    except ConnectionRefusedError:
        _close(client)
        raise FetchError(f"{where}: connection refused: no IMAP server listens on port {s.effective_port}") from None
    except OSError as err:
        _close(client)
        raise FetchError(f"{where}: cannot connect: {err.strerror or err}") from None
    except IMAPClientError as err:
        _close(client)
        raise FetchError(f"{where}: the server said no: {_text(err)}") from None


def _close(client) -> None:
    """Log out; a connection already gone is simply dropped."""
    from imapclient.exceptions import IMAPClientError

    if client is None:
        return
    try:
        client.logout()
    except (IMAPClientError, OSError) as err:
        log.debug("IMAP logout failed (%s); closing the socket", err)
        with contextlib.suppress(OSError):
            client.shutdown()


def _text(value) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return " ".join(str(value).split())[:300]


# --- fetching ------------------------------------------------------------------------------------

def _known(db, account: str, uidvalidity: int, uids: list[int]) -> set[int]:
    known: set[int] = set()
    for i in range(0, len(uids), 500):
        part = uids[i:i + 500]
        rows = db.execute(
            f"select uid from imap_fetched where account = ? and uidvalidity = ? and uid in ({', '.join('?' * len(part))})",
            [account, uidvalidity, *part]).fetchall()
        known.update(r[0] for r in rows)
    return known


def _check_uidvalidity(db, s: ImapSettings, uidvalidity: int, result: FetchResult) -> None:
    account = s.account
    now = schedule.iso(schedule.now())
    with db.atomic():
        row = db.execute("select uidvalidity, changes from imap_mailboxes where account = ?", [account]).fetchone()
        if row is None:
            db.execute("insert into imap_mailboxes (account, uidvalidity, seen, changes) values (?, ?, ?, 0)",
                       [account, uidvalidity, now])
        elif row[0] != uidvalidity:
            result.uidvalidity_changed = True
            result.notes.append(f"UIDVALIDITY of {s.folder} changed from {row[0]} to {uidvalidity}: the server renumbered "
                                "the folder; its messages are read again and any already taken is recognised and skipped")
            log.info("%s: UIDVALIDITY changed from %s to %s", s.describe(), row[0], uidvalidity)  # the summary says it
            db.execute("update imap_mailboxes set uidvalidity = ?, seen = ?, changes = ? where account = ?",
                       [uidvalidity, now, (row[1] or 0) + 1, account])
        else:
            db.execute("update imap_mailboxes set seen = ? where account = ?", [now, account])


def _internaldate(value) -> str | None:
    if not isinstance(value, datetime):
        return None
    if value.tzinfo is None:  # imapclient gives local time without a zone by default
        value = value.astimezone()
    return schedule.iso(value.astimezone(UTC))


def _set_aside(client, s: ImapSettings, uids: list[int], moves: bool) -> None:
    if not uids:
        return
    if not moves:
        client.add_flags(uids, [KEYWORD], silent=True)
    elif client.has_capability("MOVE"):
        client.move(uids, s.processed)
    else:
        client.copy(uids, s.processed)
        client.delete_messages(uids, silent=True)
        if client.has_capability("UIDPLUS"):
            client.expunge(uids)
        else:
            client.expunge()


def fetch(db, s: ImapSettings, *, on_stored: Callable[[int, int], None] | None = None,
          failpoint: Callable[[str], None] | None = None) -> FetchResult:
    """Read the folder's new messages into the store (see the module docstring). `on_stored`
    sees (uid, size) of each message stored; `failpoint` is called at the named points (the
    crash tests kill the process there)."""
    from imapclient.exceptions import IMAPClientError

    result = FetchResult()
    point = failpoint or host_failpoint  # PBEM_FAILPOINT=fetch-after-store@N: the crash tests
    client = connect(s)
    account = s.account
    try:
        try:
            info = client.select_folder(s.folder)
        except IMAPClientError as err:
            raise FetchError(f"{s.describe()}: cannot open the folder {s.folder}: {_text(err)}") from None
        uidvalidity = int(info.get(b"UIDVALIDITY", 0))
        result.uidvalidity = uidvalidity
        _check_uidvalidity(db, s, uidvalidity, result)
        moves = s.after == "move"
        if moves:
            if s.processed == s.folder:
                raise FetchError(f"[imap] processed = \"{s.processed}\" is the folder read from; name another folder")
            if not client.folder_exists(s.processed):
                client.create_folder(s.processed)
                log.info("%s: created the folder %s", s.describe(), s.processed)
            uids = sorted(client.search("ALL"))
        else:
            flags = [f.decode() if isinstance(f, bytes) else str(f) for f in info.get(b"PERMANENTFLAGS", ())]
            if "\\*" not in flags and KEYWORD not in flags:
                raise FetchError(f"{s.describe()}: this folder keeps no flags of our own; use after = \"move\" in [imap]")
            uids = sorted(client.search(["NOT", "KEYWORD", KEYWORD]))
        if not uids:
            return result
        known = _known(db, account, uidvalidity, uids)
        stale = [u for u in uids if u in known]
        if stale:  # stored by a run that stopped before setting them aside
            _set_aside(client, s, stale, moves)
            result.already += len(stale)
            result.moved += len(stale)
        fresh = [u for u in uids if u not in known][: s.batch]
        if len(uids) - len(stale) > len(fresh):
            result.notes.append(f"{len(uids) - len(stale) - len(fresh)} more wait for the next run (batch = {s.batch})")
        for i in range(0, len(fresh), CHUNK):
            chunk = fresh[i:i + CHUNK]
            sizes = client.fetch(chunk, ["RFC822.SIZE", "INTERNALDATE"])
            small = [u for u in chunk if u in sizes and int(sizes[u].get(b"RFC822.SIZE", 0)) <= s.max_bytes]
            large = [u for u in chunk if u in sizes and u not in small]
            bodies = client.fetch(small, ["BODY.PEEK[]"]) if small else {}
            heads = client.fetch(large, ["BODY.PEEK[HEADER]"]) if large else {}
            done = []
            for uid in chunk:
                if uid in bodies:
                    raw, truncated = bodies[uid].get(b"BODY[]"), 0
                elif uid in heads:
                    raw, truncated = heads[uid].get(b"BODY[HEADER]"), 1
                else:
                    continue  # expunged meanwhile by someone else
                if raw is None:
                    continue
                raw = bytes(raw)
                size = int(sizes[uid].get(b"RFC822.SIZE", len(raw)))
                if truncated:  # the headers only, and a body that says so
                    raw = (raw.rstrip(b"\r\n") + b"\r\n\r\n"
                           + f"[pbem: this message was {size} bytes, larger than the {s.max_bytes} bytes pbem reads; "
                             "only its headers were fetched]\r\n".encode())
                with db.atomic():  # the raw message and its UID: one transaction
                    db.execute(
                        "insert into imap_fetched (account, uidvalidity, uid, fetched, delivered, size, raw, raw_sha256, "
                        "truncated, inbox_id, done) values (?, ?, ?, ?, ?, ?, ?, ?, ?, null, null)",
                        [account, uidvalidity, uid, schedule.iso(schedule.now()),
                         _internaldate(sizes[uid].get(b"INTERNALDATE")), size, raw, hashlib.sha256(raw).hexdigest(),
                         truncated])
                point("fetch-after-store")
                result.stored += 1
                done.append(uid)
                if on_stored:
                    on_stored(uid, size)
            point("fetch-before-move")
            _set_aside(client, s, done, moves)
            result.moved += len(done)
            if done:
                with db.atomic():
                    db.execute(f"update imap_fetched set done = ? where account = ? and uidvalidity = ? and uid in "
                               f"({', '.join('?' * len(done))})", [schedule.iso(schedule.now()), account, uidvalidity, *done])
        return result
    except (IMAPClientError, OSError) as err:
        if isinstance(err, FetchError):
            raise
        raise FetchError(f"{s.describe()}: the connection failed while fetching ({_text(deadline.described(err))}); "
                         "what was stored is kept, the rest comes next time") from None
    finally:
        _close(client)


# --- ingesting what was fetched ------------------------------------------------------------------

def pending(db) -> int:
    return db.execute("select count(*) from imap_fetched where inbox_id is null").fetchone()[0]


def ingest_fetched(db, own_address: str | None = None, on_result: Callable[[Outcome], None] | None = None,
                   limit: int | None = None, turns: str | None = None) -> Tally:
    """Process every fetched message not yet processed, each in one transaction with the
    record that it was processed (so each is taken exactly once)."""
    ctx = Context(own=clean_address(own_address), turns=turns)
    tally = Tally()
    ids = [r[0] for r in db.execute("select id from imap_fetched where inbox_id is null order by id").fetchall()]
    for fid in ids[:limit] if limit else ids:
        with db.atomic():
            row = db.execute("select account, uidvalidity, uid, delivered, raw, raw_sha256, inbox_id from imap_fetched "
                             "where id = ?", [fid]).fetchone()
            if row is None or row[6] is not None:
                continue  # another run took it meanwhile
            account, uidvalidity, uid, delivered, raw, raw_sha, _ = row
            item = Item(origin=f"imap:{account};UIDVALIDITY={uidvalidity};UID={uid}", kind="eml",
                        read=lambda raw=raw: bytes(raw or b""), name=f"{uid}.eml",
                        delivered=schedule.parse_time(delivered) if delivered else None)
            out = ingest_item(db, item, ctx)
            inbox_id, kept_there = out.inbox_id, out.inbox_id is not None
            if inbox_id is None:  # already ingested (the same message by another way): link to it
                found = db.execute("select id from inbox where raw_sha256 = ? order by id limit 1", [raw_sha]).fetchone()
                inbox_id, kept_there = (found[0], True) if found else (0, False)
            # the raw message lives on in the inbox (kept forever there): not twice
            db.execute(f"update imap_fetched set inbox_id = ?{', raw = null' if kept_there else ''} where id = ?",
                       [inbox_id, fid])
            host_failpoint("ingest-before-commit")
        tally.results.append(out)
        if on_result:
            on_result(out)
    return tally
