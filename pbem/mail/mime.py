"""The text of a message: decoding its parts (charsets, HTML turned to text, .txt
attachments, forwarded messages), within size limits."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from email.message import Message
from html.parser import HTMLParser

from pbem.host.outbox import header_safe
from pbem.mail.headers import filename as part_filename
from pbem.mail.headers import once, raw_header

log = logging.getLogger("pbem.mail")

MAX_TEXT_CHARS = 1_000_000  # of one body part
MAX_NEST = 3  # forwarded messages inside messages
MAX_PARTS = 500


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
        payload = once(part, "payload", lambda: part.get_payload(decode=True))
    except Exception:
        return None
    if payload is None:
        return None
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "replace")
    payload = payload[: MAX_TEXT_CHARS * 4]
    try:
        charset = once(part, "charset", part.get_content_charset)
    except Exception:
        charset = None
    return decode_bytes(payload, charset)[:MAX_TEXT_CHARS]


def unflow(text: str, delsp: bool = False) -> str:
    """A text/plain; format=flowed text (RFC 3676) as its writer typed it: a line that ends in a
    space (a soft line break, made by the mail client) is joined with the next line of the same
    quote depth; with DelSp=yes that space goes too (the client added it). Each line's
    space-stuffing (one space before a line that starts with a space, '>' or 'From ') is removed;
    quoted lines keep their depth ('>' marks, then a space). The signature separator '-- ' is
    never a soft break, nor joined to the line above. A soft break before a line of another
    depth (or the end) is none."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    held: tuple[int, str] | None = None  # the paragraph being joined: (depth, text so far)
    for line in lines:
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:]
        if body.startswith(" "):
            body = body[1:]  # space-stuffing (and the space after quote marks)
        if held is not None and (held[0] != depth or body == "-- "):  # another depth, or a signature: it ends
            out.append(_quoted(*held))
            held = None
        flowed = body.endswith(" ") and body != "-- "
        if flowed and delsp:
            body = body[:-1]
        text_so_far = (held[1] if held else "") + body
        if flowed:
            held = (depth, text_so_far)
        else:
            out.append(_quoted(depth, text_so_far))
            held = None
    if held is not None:
        out.append(_quoted(*held))
    return "\n".join(out)


def _quoted(depth: int, text: str) -> str:
    return (">" * depth + " " + text) if depth else text


def _flowed(part: Message) -> tuple[bool, bool]:
    """Whether a text part is format=flowed (RFC 3676), and whether DelSp=yes: asked once a
    part (the guard and the text finder both ask), and the parameters parsed only when the
    Content-Type names "flowed" at all (get_param parses every parameter: 30 us a part)."""
    return once(part, "flowed", lambda: _flowed_params(part))


def _flowed_params(part: Message) -> tuple[bool, bool]:
    if "flowed" not in raw_header(part, "Content-Type").lower():
        return False, False
    try:
        flowed = (part.get_param("format") or "")
        delsp = (part.get_param("delsp") or "")
    except Exception:  # noqa: BLE001 - a malformed Content-Type: read as it is
        return False, False
    if not isinstance(flowed, str) or flowed.strip().lower() != "flowed":
        return False, False
    return True, isinstance(delsp, str) and delsp.strip().lower() == "yes"


def as_typed(part: Message, text: str) -> str:
    """The text of a text/plain part as its writer typed it: unwrapped (`unflow`) when the part
    is format=flowed, else as it is. Whatever reads a plain text (the orders, the out-of-office
    check of pbem.mail.guard) reads it so."""
    flowed, delsp = _flowed(part)
    return unflow(text, delsp) if flowed else text


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
        ctype = once(part, "ctype", part.get_content_type)
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
        filename = part_filename(part)
        disposition = once(part, "disposition", part.get_content_disposition)
        name = filename or ""
        if ctype == "text/plain" and not filename and disposition != "attachment":
            text = _part_text(part)
            if text is not None:
                plain.append(as_typed(part, text))
        elif ctype == "text/html" and not filename and disposition != "attachment":
            text = _part_text(part)
            if text is not None:
                htmls.append(html_to_text(text))
        elif name.lower().endswith(_TXT_NAMES) or (ctype == "text/plain" and disposition == "attachment"):
            text = _part_text(part)
            if text is not None:
                if ctype == "text/plain":
                    text = as_typed(part, text)
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


