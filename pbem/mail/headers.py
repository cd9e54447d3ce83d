"""Reading a message's headers: decoded values, the sender, the game a reply belongs to, and
whether a message is automatic mail that must never be answered."""

from __future__ import annotations

import hashlib
import logging
import re
from datetime import datetime, timezone
from email.header import decode_header, make_header
from email.message import Message
from email.utils import parsedate_to_datetime
from functools import lru_cache

from pbem.host.outbox import clean_address, header_safe

log = logging.getLogger("pbem.mail")


OWN_HEADER = "X-PBEM-Mail"  # on every message we send: we never answer our own mail


def once(part: Message, what: str, compute):
    """`compute()` (a question about a part of a message: its content type, file name, decoded
    payload), asked once a part of a message `ingest` read (issue 17: the guard and the text
    finder ask the same), else each time. What raises is not kept: it raises again."""
    memo = getattr(part, "_pbem_memo", None)
    if memo is None:
        return compute()
    if what not in memo:
        memo[what] = compute()
    return memo[what]


def filename(part: Message) -> str | None:
    """A part's file name (encoded words decoded), or None: also when its parameters are
    malformed beyond what the email package can read (RFC 2231 continuations it cannot sort
    raise TypeError), as if it had none -- the part is read as text, not refused."""
    try:
        name = once(part, "filename", part.get_filename)
        if name and "=?" in name:
            name = str(make_header(decode_header(name)))
    except Exception:  # noqa: BLE001 - a malformed parameter: no file name
        return None
    return name


def known(part: Message) -> dict:
    """What `once` would work out for a part of a message `ingest` read, worked out ahead
    (issue 17): its content type ("ctype"), file name ("filename"), charset ("charset") and
    disposition ("disposition") -- which depend on its first Content-Type and
    Content-Disposition headers and its default type alone, so they are worked out once for
    each such trio (most messages share a few) on a message that has only those headers. A
    question that raises is left out (it raises again when asked)."""
    ctype = disposition = None
    for name, value in part._headers:
        if not isinstance(value, str):
            return {}
        low = name.lower()
        if low == "content-type":
            ctype = ctype or (name, value)
        elif low == "content-disposition":
            disposition = disposition or (name, value)
    key = (ctype, disposition, part.get_default_type())
    if sum(len(h[1]) for h in key[:2] if h) > 2000:
        return dict(_facts(*key))
    return dict(_known(*key))


def _facts(ctype: tuple[str, str] | None, disposition: tuple[str, str] | None, default: str) -> tuple:
    probe = Message()
    probe._headers = [h for h in (ctype, disposition) if h]
    probe.set_default_type(default)
    out = []
    for what, ask in (("ctype", probe.get_content_type), ("filename", probe.get_filename),
                      ("charset", probe.get_content_charset), ("disposition", probe.get_content_disposition)):
        try:
            out.append((what, ask()))
        except Exception:  # noqa: BLE001 - asked again (and raising again) when it is needed
            continue
    return tuple(out)


_known = lru_cache(maxsize=512)(_facts)  # (long header values are worked out each time, not kept)


def msgid_ok(value: str | None) -> str | None:
    """A Message-ID as it may be stored and echoed (one <...> token), or None."""
    value = header_safe(value, 500)
    return value if _MSGID.fullmatch(value or "") else None


_MSGID = re.compile(r"<[^<>\s]+>")


# --- headers ------------------------------------------------------------------------------------

def raw_header(msg: Message | None, name: str) -> str:
    """A header as it stands (encoded words not decoded): addresses are parsed from this,
    so that an encoded display name can never smuggle in another address."""
    if msg is None:
        return ""
    seen = getattr(msg, "_pbem_headers", None)  # issue 17: an incoming message (ingest._parse) is read, never changed
    if seen is None:
        return _raw_header(msg, name)
    key = name.lower()
    value = seen.get(key)
    if value is None:
        value = seen[key] = _indexed_header(msg, key)
    return value


def _indexed_header(msg: Message, key: str) -> str:
    """`_raw_header` of a message read once: its headers are indexed by name on the first
    look-up (Message.get compares each header's name with the one asked for, and a message
    is asked for some 30 names, most of which it does not have). The first header of a
    name counts, as with Message.get."""
    index = _index_of(msg)
    if index is None:  # pragma: no cover - not the stdlib's Message: ask it by name
        return _raw_header(msg, key)
    found = index.get(key)
    if found is None:
        return ""
    try:
        value = msg.policy.header_fetch_parse(*found)
    except Exception:
        return ""
    return _as_text(value)


def _index_of(msg: Message) -> dict | None:
    """The first header of each name, by its name in lower case, of a message read once
    (ingest._parse); None for any other message."""
    index = getattr(msg, "_pbem_index", None)
    if index is None and getattr(msg, "_pbem_headers", None) is not None:
        try:
            index = {}
            for k, v in msg._headers:
                index.setdefault(k.lower(), (k, v))
        except Exception:  # pragma: no cover - not the stdlib's Message
            return None
        msg._pbem_index = index
    return index


def names_present(msg: Message | None) -> set | None:
    """The names (in lower case) of the headers a message read once has, or None when not
    known: then every header must be asked for. Issue 17: the screening asks for some 25
    headers a message almost never has."""
    index = _index_of(msg) if msg is not None else None
    return None if index is None else index.keys()


def _raw_header(msg: Message, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:
        return ""
    return _as_text(value)


def _as_text(value) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        value = str(value)
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def header(msg: Message | None, name: str) -> str:
    """A header as text, RFC 2047 encoded words decoded; never raises."""
    value = raw_header(msg, name)
    if "=?" not in value:
        return value
    try:
        return str(make_header(decode_header(value)))
    except Exception:
        return value


def sender_of(msg: Message | None) -> str | None:
    return clean_address(raw_header(msg, "From"))


GAME_TAG = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_-]{0,39})\]")
THREAD_REF = re.compile(r"<thread\.([a-z0-9][a-z0-9_-]{0,39})\.([a-z0-9][a-z0-9_-]{0,39})@", re.I)
_AUTO_SENDERS = re.compile(
    r"^(mailer-daemon|postmaster|mail-daemon|maildaemon|no-?reply|do-?not-?reply|bounces?|listserv|majordomo)([+-].*)?$"
    r"|^owner-|-request$|-bounces?$",
    re.I,
)
_AUTO_SUBJECT = re.compile(
    r"^(auto(matic)?[ :-]*(reply|response|antwort)|auto:|out of (the )?office|abwesenheit|absence|undeliver(ed|able)"
    r"|delivery (status notification|failure|has failed)|mail delivery (failed|system|subsystem)|returned mail|failure notice"
    r"|non[- ]?delivery|read:|lu :|gelesen:|vacation)",
    re.I,
)


def automatic(msg: Message, sender: str | None, own: str | None) -> str | None:
    """Why this message must never be answered (and is ignored), or None."""
    seen = getattr(msg, "_pbem_headers", None)
    if seen is None:
        return _automatic(msg, sender, own)
    key = ("\0automatic", sender, own)  # issue 17: asked by the guard and by dispatch; worked out once
    if key not in seen:
        seen[key] = _automatic(msg, sender, own)
    return seen[key]


_SCREENED = frozenset(("x-pbem-mail", "auto-submitted", "x-autoreply", "x-autorespond", "x-autoresponder", "x-auto-reply",
                       "precedence", "list-id", "list-unsubscribe", "return-path", "x-spam-flag", "x-spam-status"))


def _automatic(msg: Message, sender: str | None, own: str | None) -> str | None:
    names = names_present(msg)
    flagged = names is None or not _SCREENED.isdisjoint(names)  # else each header below is absent
    if flagged and header(msg, OWN_HEADER):
        return "our own message (it carries X-PBEM-Mail)"
    if own and sender and sender.lower() == own.lower():
        return f"our own message (from {own})"
    if flagged:
        auto = header(msg, "Auto-Submitted").strip().lower()
        if auto and not auto.startswith("no"):
            return f"auto-reply (Auto-Submitted: {header_safe(auto, 40)})"
        for name in ("X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Auto-Reply"):
            if header(msg, name):
                return f"auto-reply ({name})"
        precedence = header(msg, "Precedence").strip().lower()
        if precedence in ("bulk", "list", "junk", "auto_reply"):
            return f"bulk mail (Precedence: {precedence})"
        if header(msg, "List-Id") or header(msg, "List-Unsubscribe"):
            return "mailing-list mail (List-Id)"
        if header(msg, "Return-Path").strip() in ("<>", "<<>>"):
            return "bounce (null Return-Path)"
    if sender and _AUTO_SENDERS.search(sender.partition("@")[0]):
        return f"bounce or automatic sender ({sender})"
    try:
        ctype = once(msg, "ctype", msg.get_content_type)
    except Exception:
        ctype = ""
    if ctype == "multipart/report":
        return "bounce (a delivery or read report)"
    if flagged and (header(msg, "X-Spam-Flag").strip().lower().startswith("yes")
                    or header(msg, "X-Spam-Status").strip().lower().startswith("yes")):
        return "spam (X-Spam-Flag)"
    if _AUTO_SUBJECT.match(header_safe(header(msg, "Subject"))):
        return "auto-reply (its subject)"
    return None


def received_time(msg: Message) -> datetime | None:
    """When the topmost Received header (added by the GM's own mail server) says the message
    arrived."""
    try:
        values = msg.get_all("Received") or []
    except Exception:
        return None
    if not values:
        return None
    _, _, when = str(values[0]).rpartition(";")
    try:
        value = parsedate_to_datetime(when.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


def content_hash(raw: bytes, msg: Message | None) -> str:
    head, sep, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    h = hashlib.sha256(body if sep else head)
    if msg is not None:
        for name in ("From", "Subject", "Date"):
            h.update(b"\0" + header_safe(header(msg, name), 1000).encode("utf-8", "replace"))
    return h.hexdigest()


