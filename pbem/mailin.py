"""Mail in: `pbem ingest PATH...`.

Each PATH is recognised by what it is: a Maildir (a folder with cur/ and new/; tmp/ is never
read), an mbox file (it starts with a `From ` line), a single message (`.eml`, or a file that
starts with mail headers), or a folder of any of these and of plain order files (recursively;
hidden entries are skipped). The mailbox is only read, never changed.

Every message ends in exactly one outcome, recorded in the `inbox` table with its raw bytes:

- **accepted**: orders taken (some lines may be rejected: the acknowledgement lists them), or
  a REPORT or HELP request answered;
- **rejected**, with a reason: bad password, no password, unknown game, unknown player, sender
  mismatch, no From address, parse errors, wrong phase, late, game over, too large, no orders
  found, duplicate Message-ID, unreadable;
- **ignored**: not for any game -- auto-replies, bounces, bulk and list mail, spam, our own
  messages, and mail that names no game.

A message already ingested (same Message-ID and content; or, without a Message-ID, same
content) is skipped and counted as "already ingested": ingesting a mailbox twice changes
nothing.

Finding the orders in a real message: the text/plain body is read first, then `.txt`
attachments, then the HTML body (converted to text), then forwarded messages (message/rfc822,
three levels at most). In a text, quoted lines (`>`), attributions ("On ... wrote:"), the
headers of forwarded and Outlook "Original Message" sections, signatures (after `-- `) and
mobile footers are recognised. The orders are an *order block*: from a GAME/PLAYER/PASSWORD
header line to END -- which is exactly the order form every report ends with. Of the blocks in
a message, the one the player wrote in counts: a block with orders or a real password, the
least quoted one, and of those the last. So a reply that types orders above or below a quoted
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
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable, Iterator

from pbem import host, mailout, schedule
from pbem.errors import NotFound, PbemError
from pbem.mailout import OWN_HEADER, clean_address, header_safe

log = logging.getLogger("pbem.mail")

MAX_MESSAGE_BYTES = 10 * 1024 * 1024  # larger messages are rejected unread, but kept whole
KEEP_OF_LARGE = 64 * 1024  # how much of a large message is read for its headers
MAX_TEXT_CHARS = 1_000_000  # of one body part
MAX_LINE_CHARS = 1000  # longer lines are cut (orders are short; read_script rejects > 500)
MAX_NEST = 3  # forwarded messages inside messages
MAX_PARTS = 500
PLACEHOLDER_PASSWORDS = {"your-password-here", "<password>", "your-password", "yourpassword", "password"}
GENERAL_HELP = """\
pbem -- help

This address takes orders for play-by-email games adjudicated by pbem. To send orders, reply
to your latest turn report (or write a new message) with:

GAME <game id>
PLAYER <your name>
PASSWORD <your password>
<one order a line>
END

Put the game id in the subject as [GAME_ID] or on a GAME line. Send REPORT with your PASSWORD
for your latest report again, or HELP with the game's [GAME_ID] in the subject for its order
documentation. Game types: {types}.
"""


# --- outcomes ------------------------------------------------------------------------------

@dataclass
class Outcome:
    origin: str
    outcome: str  # accepted | rejected | ignored | seen
    reason: str
    game_id: str | None = None
    player: str | None = None
    inbox_id: int | None = None
    submission_id: int | None = None
    outbox_id: int | None = None

    def line(self) -> str:
        who = f" {self.game_id}" + (f"/{self.player}" if self.player else "") if self.game_id else ""
        return f"{self.outcome:8} {self.origin}{who}: {self.reason}"


@dataclass
class Tally:
    results: list[Outcome] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def new(self) -> list[Outcome]:
        return [r for r in self.results if r.outcome != "seen"]

    def summary(self) -> str:
        return (
            f"{len(self.new)} new messages: {self.count('accepted')} accepted, {self.count('rejected')} rejected, "
            f"{self.count('ignored')} ignored; {self.count('seen')} already ingested"
        )


# --- finding the messages in PATHs ------------------------------------------------------------

@dataclass
class Item:
    origin: str
    kind: str  # eml | mbox | maildir | file
    read: Callable[[], bytes]
    delivered: datetime | None = None
    name: str = ""


_MAILDIR_TIME = re.compile(r"^(\d{9,11})[.]")
_HEADER_LINE = re.compile(rb"^[!-9;-~]+:[ \t]?")
_MAIL_HEADERS = (b"from:", b"to:", b"subject:", b"message-id:", b"received:", b"return-path:", b"date:",
                 b"mime-version:", b"delivered-to:", b"content-type:")


def is_maildir(path: Path) -> bool:
    return path.is_dir() and (path / "cur").is_dir() and (path / "new").is_dir()


def sniff(path: Path) -> str:
    """What a file is: 'mbox', 'eml' or 'file' (an order file)."""
    suffix = path.suffix.lower()
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return "file"
    if suffix in (".mbox", ".mbx") or head.startswith(b"From "):
        return "mbox"
    if suffix in (".eml", ".msg", ".mail"):
        return "eml"
    lines = head.replace(b"\r\n", b"\n").split(b"\n", 12)[:12]
    known = sum(1 for ln in lines if ln.lower().startswith(_MAIL_HEADERS))
    if lines and _HEADER_LINE.match(lines[0]) and known >= 2:
        return "eml"
    return "file"


def _maildir_items(folder: Path) -> Iterator[Item]:
    entries = []
    for sub in ("new", "cur"):
        d = folder / sub
        for p in d.iterdir():
            if p.name.startswith(".") or not p.is_file():
                continue
            m = _MAILDIR_TIME.match(p.name)
            when = int(m.group(1)) if m else int(p.stat().st_mtime)
            entries.append((when, p.name, p))
    for when, _, p in sorted(entries):
        yield Item(str(p), "maildir", p.read_bytes, datetime.fromtimestamp(when, timezone.utc), p.name)


_FROM_LINE_DATE = re.compile(r"([A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d{1,2}:\d{2}:\d{2} \d{4})")


def _from_line_time(line: bytes) -> datetime | None:
    m = _FROM_LINE_DATE.search(line.decode("latin-1"))
    if not m:
        return None
    try:
        return datetime.strptime(" ".join(m.group(1).split()), "%a %b %d %H:%M:%S %Y").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def split_mbox(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """(From_ line, message bytes) for each message of an mbox (mboxo or mboxrd: one '>' is
    taken off '>From ' lines)."""
    data = data.replace(b"\r\n", b"\n")
    starts = [0] if data.startswith(b"From ") else []
    starts += [m.start() + 1 for m in re.finditer(rb"\n(?=From )", data)]
    if not starts:
        if data.strip():
            yield b"", data
        return
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        chunk = data[start:end]
        first, _, body = chunk.partition(b"\n")
        body = re.sub(rb"(?m)^>(>*From )", rb"\1", body)
        if body.endswith(b"\n\n"):
            body = body[:-1]
        yield first, body


def _mbox_items(path: Path) -> Iterator[Item]:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise PbemError(f"cannot read the mbox {path}: {err.strerror or err}") from None
    for n, (first, body) in enumerate(split_mbox(data), start=1):
        yield Item(f"{path}#{n}", "mbox", (lambda b=body: b), _from_line_time(first), path.name)


def iter_items(paths: list[str | Path]) -> Iterator[Item]:
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise PbemError(f"no such file or folder '{given}'")
        yield from _items(path)


def _items(path: Path) -> Iterator[Item]:
    if is_maildir(path):
        yield from _maildir_items(path)
        return
    if path.is_dir():
        try:
            children = sorted(path.iterdir())
        except OSError as err:
            raise PbemError(f"cannot read the folder {path}: {err.strerror or err}") from None
        for child in children:
            if child.name.startswith("."):
                continue
            yield from _items(child)
        return
    kind = sniff(path)
    if kind == "mbox":
        yield from _mbox_items(path)
    else:
        yield Item(str(path), kind, path.read_bytes, None, path.name)


# --- text from MIME parts --------------------------------------------------------------------

def decode_bytes(data: bytes, charset: str | None = None) -> str:
    """Bytes in any charset to text: BOMs first (UTF-8, UTF-16), then the declared charset,
    then UTF-8, then windows-1252 (which reads any byte)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data, charset = data[3:], "utf-8"
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        charset = "utf-16"
    tries = []
    if charset and charset.lower() not in ("us-ascii", "ascii", "unknown-8bit", "x-unknown", "unknown"):
        tries.append(charset)
    tries += ["utf-8", "cp1252"]
    for cs in tries:
        try:
            return data.decode(cs)
        except (LookupError, UnicodeDecodeError, ValueError):  # ValueError: a NUL in the charset name
            continue
    return data.decode("latin-1")


class _HTMLText(HTMLParser):
    """HTML to plain text: block elements break lines, <blockquote> quotes with '>', <hr> is
    a separator line, <style>/<script>/<head> are dropped, entities are decoded."""

    BLOCK = {"p", "div", "br", "li", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "ul", "ol",
             "dl", "dt", "dd", "section", "article", "header", "footer", "blockquote", "hr", "center", "form"}
    SKIP = {"style", "script", "head", "title", "xml", "template"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.quote = 0
        self.line_quote = 0
        self.skip = 0
        self.pre = 0

    def _break(self) -> None:
        text = "".join(self.current).rstrip()
        if text or self.current:
            self.lines.append("> " * self.line_quote + text.strip() if not self.pre else "> " * self.line_quote + text)
        self.current = []
        self.line_quote = self.quote

    def handle_starttag(self, tag, attrs):
        tag = tag.lower()
        if tag in self.SKIP:
            self.skip += 1
        elif tag in self.BLOCK:
            if self.current or tag in ("br", "p", "hr"):
                self._break()
            if tag == "blockquote":
                self.quote += 1
                self.line_quote = self.quote
            elif tag == "hr":
                self.lines.append("> " * self.quote + "_" * 32)
            elif tag == "pre":
                self.pre += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag.lower() in self.SKIP:
            self.skip = max(0, self.skip - 1)

    def handle_endtag(self, tag):
        tag = tag.lower()
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.BLOCK:
            if self.current:
                self._break()
            if tag == "blockquote":
                self.quote = max(0, self.quote - 1)
                self.line_quote = self.quote
            elif tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data):
        if self.skip:
            return
        if self.pre:
            parts = data.split("\n")
            for i, part in enumerate(parts):
                if i:
                    self._break()
                self.current.append(part)
            return
        text = re.sub(r"\s+", " ", data)
        if not self.current:
            self.line_quote = self.quote
            text = text.lstrip()
        self.current.append(text)

    def text(self) -> str:
        self.close()
        if self.current:
            self._break()
        return "\n".join(self.lines)


def html_to_text(markup: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(markup)
        return parser.text()
    except Exception:  # html.parser is lenient; this is a last resort
        return re.sub(r"<[^>]*>", " ", markup)


@dataclass
class Texts:
    """The readable texts of a message, in the order they are searched for orders."""

    candidates: list[tuple[str, str]] = field(default_factory=list)  # (where, text)
    unread: list[str] = field(default_factory=list)  # attachments not opened, by name


def _part_text(part: Message) -> str | None:
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        return None
    if payload is None:
        return None
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "replace")
    payload = payload[: MAX_TEXT_CHARS * 4]
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    return decode_bytes(payload, charset)[:MAX_TEXT_CHARS]


_TXT_NAMES = (".txt", ".text", ".ord", ".orders", ".asc")


def message_texts(msg: Message) -> tuple[Texts, list[Message]]:
    plain: list[str] = []
    attached: list[tuple[str, str]] = []
    htmls: list[str] = []
    nested: list[Message] = []
    out = Texts()
    budget = [MAX_PARTS]

    def walk(part: Message, depth: int) -> None:
        budget[0] -= 1
        if budget[0] < 0 or depth > 30:
            return
        ctype = part.get_content_type()
        if ctype in ("message/rfc822", "message/global"):
            inner = part.get_payload()
            if isinstance(inner, list) and inner and isinstance(inner[0], Message):
                nested.append(inner[0])
            return
        if part.is_multipart():
            payload = part.get_payload()
            if isinstance(payload, list):
                for sub in payload:
                    if isinstance(sub, Message):
                        walk(sub, depth + 1)
            return
        try:
            filename = part.get_filename()
            if filename and "=?" in filename:
                filename = str(make_header(decode_header(filename)))
        except Exception:
            filename = None
        disposition = part.get_content_disposition()
        name = filename or ""
        if ctype == "text/plain" and not filename and disposition != "attachment":
            text = _part_text(part)
            if text is not None:
                plain.append(text)
        elif ctype == "text/html" and not filename and disposition != "attachment":
            text = _part_text(part)
            if text is not None:
                htmls.append(html_to_text(text))
        elif name.lower().endswith(_TXT_NAMES) or (ctype == "text/plain" and disposition == "attachment"):
            text = _part_text(part)
            if text is not None:
                attached.append((f"attachment {header_safe(name, 80)}", text))
        else:
            out.unread.append(header_safe(name or ctype, 80))

    walk(msg, 0)
    if plain:
        out.candidates.append(("text/plain body", "\n".join(plain)))
    out.candidates += attached
    if htmls:
        out.candidates.append(("text/html body", "\n".join(htmls)))
    return out, nested


def all_texts(msg: Message, level: int = 0) -> Texts:
    texts, nested = message_texts(msg)
    for inner in nested:
        if level + 1 > MAX_NEST:
            texts.unread.append("a forwarded message nested too deep")
            continue
        sub = all_texts(inner, level + 1)
        texts.candidates += [(f"forwarded message: {where}", text) for where, text in sub.candidates]
        texts.unread += sub.unread
    return texts


# --- the orders in a text ---------------------------------------------------------------------

_QUOTE = re.compile(r"^((?:[ \t]{0,3}>)+)[ \t]?")
_HEADER = re.compile(r"^(game|player|password)(?:[ \t]*[:=][ \t]*|[ \t]+)(\S+)$", re.I)
_END = re.compile(r"^end\.?$", re.I)
_COMMAND = re.compile(r"^(report|help)(?:[ \t]+(\d{1,6}))?$", re.I)
_ATTRIBUTION = re.compile(
    r"(wrote|writes|schrieb|a écrit|escribió|ha scritto|schreef|skrev|kirjoitti|napisał|написал\(а\)|написал|написала)\s*:\s*$",
    re.I,
)
_SEPARATOR = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|message d'origine|weitergeleitete nachricht|mensaje original)\s*-{2,}"
    r"|begin forwarded message:)$",
    re.I,
)
_SECTION_HEADER = re.compile(
    r"^\*?(from|sent|date|to|cc|subject|reply-to|von|gesendet|an|betreff|datum|de|envoyé|à|objet|enviado|para|asunto)\*?\s*:",
    re.I,
)
_MOBILE = re.compile(
    r"^(sent from my \S.*|sent from (mail|outlook|yahoo mail|proton ?mail|gmail)\b.*|get outlook for (ios|android).*"
    r"|sent via \S.*|sent with proton ?mail.*|von meinem \S.* gesendet|envoyé de mon \S.*|enviado desde mi \S.*)$",
    re.I,
)


def clean_lines(text: str) -> list[tuple[int, str]]:
    """The lines of a text as (quote depth, text), without attributions, section headers of
    forwarded/original messages, signatures and mobile footers. Lines after a forwarded or
    "Original Message" section start count one level deeper, as if quoted."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").replace("\u200b", "").replace("\xa0", " ")
    raw = text.split("\n")
    out: list[tuple[int, str]] = []
    extra = 0
    sig_depth: int | None = None
    i, n = 0, len(raw)

    def split(line: str) -> tuple[int, str]:
        line = line[: MAX_LINE_CHARS * 4] if len(line) > MAX_LINE_CHARS * 4 else line
        m = _QUOTE.match(line)
        if m:
            return m.group(1).count(">"), line[m.end():]
        return 0, line

    def section_header_at(j: int) -> bool:
        """An Outlook/forward header block starts at line j: From:, then Sent/Date and Subject."""
        d, first = split(raw[j])
        if not re.match(r"^\*?(from|von|de)\*?\s*:\s*\S", first.strip(), re.I):
            return False
        names = set()
        for k in range(j + 1, min(j + 8, n)):
            _, t = split(raw[k])
            m = _SECTION_HEADER.match(t.strip())
            if not m:
                break
            names.add(m.group(1).lower())
        return bool(names & {"sent", "date", "gesendet", "datum", "envoyé", "enviado"}) and bool(
            names & {"subject", "betreff", "objet", "asunto", "to", "an", "à", "para"})

    while i < n:
        qd, body = split(raw[i])
        stripped = body.strip()
        if re.fullmatch(r"_{10,}", stripped) and i + 1 < n and section_header_at(i + 1):
            i += 1  # Outlook's rule above the header block of the original
            continue
        if _SEPARATOR.match(stripped) or section_header_at(i):
            extra += 1
            sig_depth = None
            if _SEPARATOR.match(stripped):
                i += 1
            while i < n and (not split(raw[i])[1].strip() and i + 1 < n and section_header_at(i + 1)):
                i += 1
            if i < n and section_header_at(i):
                while i < n and _SECTION_HEADER.match(split(raw[i])[1].strip()):
                    i += 1
            continue
        depth = qd + extra
        if _ATTRIBUTION.search(stripped):
            i += 1
            continue
        if re.match(r"^(on|am|le|el|il|op)\s", stripped, re.I) and i + 1 < n and _ATTRIBUTION.search(split(raw[i + 1])[1].strip()):
            i += 2
            continue
        if sig_depth is not None:
            if depth == sig_depth:
                i += 1
                continue
            sig_depth = None
        if body.rstrip("\n") in ("-- ", "--") or stripped == "--" or _MOBILE.match(stripped):
            sig_depth = depth
            i += 1
            continue
        out.append((depth, stripped[:MAX_LINE_CHARS]))
        i += 1
    return out


@dataclass
class Block:
    base: int
    game: str | None = None
    player: str | None = None
    password: str | None = None
    password_depth: int = 99
    placeholder: bool = False
    orders: list[tuple[int, str]] = field(default_factory=list)
    ended: bool = False

    @property
    def content_depth(self) -> int | None:
        depths = [d for d, _ in self.orders]
        if self.password:
            depths.append(self.password_depth)
        return min(depths) if depths else None

    @property
    def commands(self) -> list[re.Match]:
        return [m for m in (_COMMAND.match(t) for _, t in self.orders) if m]


@dataclass
class Found:
    block: Block | None = None
    blocks: list[Block] = field(default_factory=list)
    command: str | None = None  # report | help
    command_arg: int | None = None
    where: str = ""

    def inherited(self, attr: str) -> str | None:
        if self.block and getattr(self.block, attr):
            return getattr(self.block, attr)
        for b in self.blocks:
            if getattr(b, attr):
                return getattr(b, attr)
        return None

    @property
    def has_content(self) -> bool:
        return bool(self.block and self.block.content_depth is not None) or bool(self.command)


def find_orders(text: str) -> Found:
    """The order blocks of a text and the one that counts (see the module docstring)."""
    blocks: list[Block] = []
    loose: list[tuple[int, str]] = []
    cur: Block | None = None
    for depth, line in clean_lines(text):
        if cur is not None and depth > cur.base:
            cur = None  # a deeper quote begins: the block typed above it is over
        if not line or line.startswith("#"):
            continue
        hm = _HEADER.match(line)
        if hm:
            kw, value = hm.group(1).lower(), hm.group(2)
            if cur is None or (kw != "password" and cur.orders):
                cur = Block(base=depth)
                blocks.append(cur)
            if kw == "password":
                if value.lower() in PLACEHOLDER_PASSWORDS:
                    cur.placeholder = True
                elif cur.password is None or depth <= cur.password_depth:
                    cur.password, cur.password_depth = value, depth
            else:
                setattr(cur, kw, value.lower())
            continue
        if _END.match(line):
            if cur is not None:
                cur.ended = True
                cur = None
            continue
        if cur is not None:
            cur.orders.append((depth, line))
        else:
            loose.append((depth, line))
    found = Found(blocks=blocks)
    with_content = [b for b in blocks if b.content_depth is not None]
    if with_content:
        best = min(b.content_depth for b in with_content)
        found.block = [b for b in with_content if b.content_depth == best][-1]
    elif blocks:
        found.block = blocks[-1]
    commands = found.block.commands if found.block and found.block.orders and len(found.block.commands) == len(found.block.orders) else []
    if not commands and not (found.block and found.block.orders):
        commands = [m for m in (_COMMAND.match(t) for d, t in loose if d == 0) if m]
    if commands:
        found.command = commands[0].group(1).lower()
        found.command_arg = int(commands[0].group(2)) if commands[0].group(2) else None
    return found


def choose(texts: Texts) -> Found:
    """The first text (in search order) that holds orders or a request; else the first that
    holds any order block; else nothing."""
    first_any: Found | None = None
    for where, text in texts.candidates:
        found = find_orders(text)
        found.where = where
        if found.has_content:
            return found
        if first_any is None and found.blocks:
            first_any = found
    return first_any or Found()


def order_text(game_id: str, player: str, found: Found) -> bytes:
    lines = [f"GAME {game_id}", f"PLAYER {player}"]
    if found.block and found.block.password:
        lines.append(f"PASSWORD {found.block.password}")
    if found.block:
        lines += [t for _, t in found.block.orders]
    lines.append("END")
    return ("\n".join(lines) + "\n").encode("utf-8")


# --- headers ------------------------------------------------------------------------------------

def raw_header(msg: Message | None, name: str) -> str:
    """A header as it stands (encoded words not decoded): addresses are parsed from this,
    so that an encoded display name can never smuggle in another address."""
    if msg is None:
        return ""
    try:
        value = msg.get(name)
    except Exception:
        return ""
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


_TAG = re.compile(r"\[([A-Za-z0-9][A-Za-z0-9_-]{0,39})\]")
_THREAD = re.compile(r"<thread\.([a-z0-9][a-z0-9_-]{0,39})\.([a-z0-9][a-z0-9_-]{0,39})@", re.I)
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
    if header(msg, OWN_HEADER):
        return "our own message (it carries X-PBEM-Mail)"
    if own and sender and sender.lower() == own.lower():
        return f"our own message (from {own})"
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
        ctype = msg.get_content_type()
    except Exception:
        ctype = ""
    if ctype == "multipart/report":
        return "bounce (a delivery or read report)"
    if header(msg, "X-Spam-Flag").strip().lower().startswith("yes") or header(msg, "X-Spam-Status").strip().lower().startswith("yes"):
        return "spam (X-Spam-Flag)"
    if _AUTO_SUBJECT.match(header_safe(header(msg, "Subject"))):
        return "auto-reply (its subject)"
    return None


def _received_time(msg: Message) -> datetime | None:
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


def _content_hash(raw: bytes, msg: Message | None) -> str:
    head, sep, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    h = hashlib.sha256(body if sep else head)
    if msg is not None:
        for name in ("From", "Subject", "Date"):
            h.update(b"\0" + header_safe(header(msg, name), 1000).encode("utf-8", "replace"))
    return h.hexdigest()


# --- processing one message ------------------------------------------------------------------------

@dataclass
class Context:
    own: str | None
    max_bytes: int = MAX_MESSAGE_BYTES


_HOST_REASONS = (
    ("wrong password", "bad password"),
    ("no PASSWORD line", "no password"),
    ("too late", "late"),
    ("is over", "game over"),
    ("wrong phase", None),
    ("parse errors", None),
)


def _reason(ack) -> str:
    if ack.status == "accepted":
        return "orders accepted" if ack.lines else "orders accepted (no orders: default orders will be used)"
    if ack.status == "partial":
        bad = sum(1 for r in ack.lines if r.status != "accepted")
        return f"orders accepted ({bad} of {len(ack.lines)} lines rejected)"
    for needle, code in _HOST_REASONS:
        if needle in ack.reason:
            return f"{code}: {ack.reason}" if code else ack.reason
    return f"parse errors: {ack.reason}"


def _notice(db, *, to: str | None, game_id: str | None, player: str | None, subject: str, text: str,
            kind: str = "notice", in_reply_to: str | None = None, inbox_id: int | None = None) -> int | None:
    return mailout.queue(db, kind=kind, to_addr=to, subject=subject, body=text + mailout._footer(game_id),
                         game_id=game_id, player=player, in_reply_to=in_reply_to, inbox_id=inbox_id)


def _rejection(db, out: Outcome, to: str | None, mid: str | None, why: str) -> Outcome:
    """Reject with a reason, and tell the sender (when there is one)."""
    out.outcome, out.reason = "rejected", why
    if to:
        tag = f"[{out.game_id}] " if out.game_id else "[pbem] "
        text = (f"pbem: your message was rejected\n\nReason: {why}\n\n"
                "Nothing was changed; any orders you sent earlier still stand.\n")
        out.outbox_id = _notice(db, to=to, game_id=out.game_id, player=out.player, subject=f"{tag}your message was rejected",
                                text=text, in_reply_to=mid, inbox_id=out.inbox_id)
    return out


def _known_game(db, name: str | None) -> dict | None:
    if not name:
        return None
    cur = db.execute("select * from games where id = ?", [name.lower()])
    row = cur.fetchone()
    return dict(zip([d[0] for d in cur.description], row)) if row else None


def _dispatch(db, item: Item, raw: bytes, msg: Message | None, out: Outcome, ctx: Context) -> Outcome:
    is_mail = item.kind != "file"
    sender = sender_of(msg)
    mid = mailout._msgid_ok(raw_header(msg, "Message-ID")) if msg is not None else None
    subject = header_safe(header(msg, "Subject")) if msg is not None else ""

    if msg is not None:
        why = automatic(msg, sender, ctx.own)
        if why:
            out.outcome, out.reason = "ignored", why
            return out

    # the game named in the subject, or in References (a reply to our own mail)
    tag_game = None
    for tag in _TAG.findall(subject):
        if _known_game(db, tag):
            tag_game = tag.lower()
            break
    thread = _THREAD.search(header(msg, "References") + " " + header(msg, "In-Reply-To")) if msg is not None else None
    if not tag_game and thread and _known_game(db, thread.group(1)):
        tag_game = thread.group(1).lower()

    if len(raw) > ctx.max_bytes:
        out.game_id = tag_game
        if not tag_game:
            out.outcome, out.reason = "ignored", f"not for any game (too large to read: {len(raw) / 2**20:.1f} MB, and no [GAME_ID] in the subject)"
            return out
        return _rejection(db, out, sender, mid, f"too large: the message is {len(raw) / 2**20:.1f} MB; the limit is {ctx.max_bytes / 2**20:.0f} MB. Send your orders as plain text.")

    if is_mail:
        texts = all_texts(msg)
    else:
        texts = Texts([("order file", decode_bytes(raw))])
    found = choose(texts)
    named = found.inherited("game")
    game_id = named or tag_game
    if not game_id:
        if found.command == "help" and sender:
            from pbem.registry import game_types

            out.outcome, out.reason = "accepted", "help sent (general help: no game named)"
            out.outbox_id = _notice(db, to=sender, game_id=None, player=None, subject="[pbem] help", kind="help",
                                    text=GENERAL_HELP.format(types=", ".join(game_types())), in_reply_to=mid, inbox_id=out.inbox_id)
            return out
        out.outcome, out.reason = "ignored", "not for any game: no GAME line and no [GAME_ID] in the subject"
        return out
    game = _known_game(db, game_id)
    out.game_id = game_id
    if not game:
        looks_like_orders = found.block is not None and (found.block.player or found.block.password or found.block.placeholder)
        if not looks_like_orders:
            out.game_id = None
            out.outcome, out.reason = "ignored", f"not for any game: '{header_safe(game_id, 40)}' is no game here"
            return out
        if is_mail and not sender:
            out.outcome, out.reason = "rejected", f"unknown game '{header_safe(game_id, 40)}' (and no From address to tell)"
            return out
        known = [r["id"] for r in db["games"].rows_where("status = 'running'", select="id", order_by="id")]
        return _rejection(db, out, sender if is_mail else None, mid,
                          f"unknown game '{header_safe(game_id, 40)}'" + (f"; running games: {', '.join(known)}" if known else ""))
    players = host._players(db, game_id)
    player_name = found.inherited("player")
    if not player_name and sender:
        mine = [p["name"] for p in players if p.get("email") and p["email"].lower() == sender.lower()]
        if len(mine) == 1:
            player_name = mine[0]
    if not player_name and not is_mail:
        stem = Path(item.name).stem.lower()
        if any(p["name"] == stem for p in players):
            player_name = stem
    reply_to = sender
    if found.command == "help":
        from pbem.registry import order_doc

        out.player = player_name
        out.outcome, out.reason = "accepted", "help sent"
        out.outbox_id = _notice(db, to=sender, game_id=game_id, player=player_name, kind="help",
                                subject=f"[{game_id}] order documentation ({game['type']})",
                                text=order_doc(game["type"]), in_reply_to=mid, inbox_id=out.inbox_id)
        return out
    if is_mail and not sender:
        out.player = player_name
        out.outcome, out.reason = "rejected", "no From address: orders are taken only from a sender who can be answered"
        return out
    if not player_name:
        return _rejection(db, out, reply_to, mid, f"no PLAYER line: say who you are (PLAYER <name>); the players of {game_id} are {', '.join(p['name'] for p in players)}")
    row = next((p for p in players if p["name"] == player_name.lower()), None)
    if row is None:
        return _rejection(db, out, reply_to, mid, f"unknown player '{header_safe(player_name, 40)}' in game {game_id}")
    out.player = row["name"]
    if not is_mail:
        reply_to = row.get("email")  # an order file's acknowledgement goes to the player's address
    elif row.get("email") and row["email"].lower() != sender.lower():
        log.warning("%s: orders for %s/%s from %s, not the registered address", item.origin, game_id, row["name"], sender)
        return _rejection(db, out, sender, mid, f"sender mismatch: orders for {row['name']} in {game_id} are taken only from the player's registered address")
    if not found.has_content and not (found.block and found.block.placeholder):
        unread = f" (not opened: {', '.join(texts.unread)})" if texts.unread else ""
        return _rejection(db, out, reply_to, mid, "no orders found: put your orders in the message text (or a .txt attachment), "
                          "starting with the GAME, PLAYER and PASSWORD lines of the order form" + unread)
    if found.block and found.block.placeholder and not found.block.password:
        return _rejection(db, out, reply_to, mid, "no password: the PASSWORD line still reads 'your-password-here'; "
                          "put your password there (it was in your first report)")
    if found.command == "report":
        password = found.block.password if found.block else None
        if password != row["password"]:
            log.warning("%s: REPORT for %s/%s with a wrong password", item.origin, game_id, row["name"])
            return _rejection(db, out, reply_to, mid, "bad password: REPORT needs your PASSWORD" if password else "no password: REPORT needs your PASSWORD line")
        try:
            text = host.report(db, game_id, row["name"], found.command_arg)
            number = found.command_arg or game["phase"]
        except NotFound as err:
            return _rejection(db, out, reply_to, mid, f"no such report: {err}")
        out.outcome, out.reason = "accepted", f"report sent (turn {number})"
        out.outbox_id = mailout.queue(db, kind="report", to_addr=reply_to, subject=f"[{game_id}] turn {number} report",
                                      body=text + mailout._footer(game_id), game_id=game_id, phase=number, player=row["name"],
                                      in_reply_to=mid, inbox_id=out.inbox_id)
        return out
    ack = host.submit(
        db, game_id, row["name"], order_text(game_id, row["name"], found), source=f"mail:{out.inbox_id}",
        delivered=item.delivered or (_received_time(msg) if msg is not None else None),
        mail={"to": reply_to, "in_reply_to": mid, "inbox_id": out.inbox_id},
    )
    out.submission_id = ack.submission_id
    out.outcome = "rejected" if ack.status == "rejected" else "accepted"
    out.reason = _reason(ack)
    if "wrong password" in ack.reason:
        log.warning("%s: wrong password for %s/%s from %s", item.origin, game_id, row["name"], sender)
    return out


def _parse(raw: bytes) -> Message:
    return email.message_from_bytes(raw)  # compat32: fast, lenient; headers decoded on demand


def ingest_item(db, item: Item, ctx: Context) -> Outcome:
    """One message to its one outcome, in one savepoint (see `ingest` for the transaction)."""
    out = Outcome(item.origin, "rejected", "")
    try:
        raw = item.read()
    except OSError as err:
        out.reason = f"unreadable: {err}"
        return out
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
    content = _content_hash(raw, msg)
    mid = mailout._msgid_ok(raw_header(msg, "Message-ID")) if msg is not None else None
    key = mid or f"sha256:{content}"
    same_key = db.execute("select content_sha256 from inbox where key = ?", [key]).fetchall()
    if any(r[0] == content for r in same_key):
        out.outcome, out.reason = "seen", "already ingested (same Message-ID and content)"
        return out
    large = len(raw) > ctx.max_bytes
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
            out.inbox_id = _insert(db, "inbox", row)
            if same_key:
                out.reason = f"duplicate Message-ID {header_safe(mid, 100)}: a different message with this Message-ID was ingested before"
                sender = sender_of(msg)
                if msg is not None and not automatic(msg, sender, ctx.own):
                    _rejection(db, out, sender, None, out.reason)
            elif parse_error or (msg is None and item.kind != "file"):
                out.reason = f"unreadable: {parse_error}"
            elif not raw.strip():
                out.outcome, out.reason = "ignored", "not for any game: an empty message"
            else:
                _dispatch(db, item, raw, msg, out, ctx)
            _record(db, out)
    except Exception as err:
        # anything unforeseen: the message is kept and rejected as unreadable, never a traceback
        log.exception("%s: cannot process", item.origin)
        out = Outcome(item.origin, "rejected", f"unreadable: {type(err).__name__}: {header_safe(err, 200)}")
        with db.atomic():
            out.inbox_id = _insert(db, "inbox", dict(row, outcome="rejected", reason=out.reason))
    return out


def _insert(db, table: str, row: dict) -> int:
    cols = ", ".join(f"[{c}]" for c in row)
    return db.execute(f"insert into [{table}] ({cols}) values ({', '.join('?' * len(row))})", list(row.values())).lastrowid


def _record(db, out: Outcome) -> None:
    db.execute(
        "update inbox set outcome = ?, reason = ?, game_id = ?, player = ?, submission_id = ?, outbox_id = ? where id = ?",
        [out.outcome, out.reason, out.game_id, out.player, out.submission_id, out.outbox_id, out.inbox_id],
    )


def ingest(db, paths: list[str | Path], own_address: str | None = None, on_result: Callable[[Outcome], None] | None = None,
           batch: int = 100, max_bytes: int = MAX_MESSAGE_BYTES) -> Tally:
    """Ingest every message under `paths` (see the module docstring). Messages are committed
    in batches (one transaction, each message in its own savepoint), so a crash loses at
    most a batch that re-ingesting redoes. Returns the tally; `on_result` sees each outcome."""
    ctx = Context(own=clean_address(own_address), max_bytes=max_bytes)
    tally = Tally()
    items = list(iter_items(paths))
    conn = db.conn
    pending = 0
    try:
        for item in items:
            if not conn.in_transaction:
                conn.execute("BEGIN IMMEDIATE")
            result = ingest_item(db, item, ctx)
            tally.results.append(result)
            if on_result:
                on_result(result)
            pending += 1
            if pending >= batch:
                conn.execute("COMMIT")
                pending = 0
        if conn.in_transaction:
            conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return tally


def own_address_from_env(config: str | None = None) -> str | None:
    """Our sending address (from pbem.toml/env), so that our own mail is recognised."""
    try:
        return mailout.load_settings(config).sender
    except PbemError:
        return os.environ.get("PBEM_FROM")
