"""Finding the orders in a text: quotes, attributions, forwarded headers, signatures and
mobile footers recognised; the order block the player wrote in chosen. Pure text in, order
lines out."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field


from pbem.mail.mime import Texts

log = logging.getLogger("pbem.mail")

MAX_LINE_CHARS = 1000  # longer lines are cut (orders are short; read_script rejects > 500)
PLACEHOLDER_PASSWORDS = {"your-password-here", "<password>", "your-password", "yourpassword", "password"}


# --- the orders in a text ---------------------------------------------------------------------

_QUOTE = re.compile(r"^((?:[ \t]{0,3}>)+)[ \t]?")
_HEADER = re.compile(r"^(game|player|password)(?:[ \t]*[:=][ \t]*|[ \t]+)(\S+)$", re.I)
_END = re.compile(r"^end\.?$", re.I)
_COMMAND = re.compile(r"^(report|help)(?:[ \t]+(\S{1,20}))?$", re.I)  # the argument is checked by its handler
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
    return [(depth, line) for _, depth, line in numbered_lines(text)]


def numbered_lines(text: str) -> list[tuple[int, int, str]]:
    """`clean_lines` with each line's number in the text as the player wrote it (1-based,
    blank lines counted): (number, quote depth, text)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").replace("\u200b", "").replace("\xa0", " ")
    raw = text.split("\n")
    out: list[tuple[int, int, str]] = []
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
        out.append((i + 1, depth, stripped[:MAX_LINE_CHARS]))
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
    numbers: list[int] = field(default_factory=list)  # each order's line number in the text
    password_line: int = 0

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
    command_word: str | None = None  # the argument as typed (REPORT -1: "-1", no turn number)
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
    for number, depth, line in numbered_lines(text):
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
                    cur.password, cur.password_depth, cur.password_line = value, depth, number
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
            cur.numbers.append(number)
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
        word = commands[0].group(2)
        found.command_word = word
        found.command_arg = int(word) if word and word.isdigit() and len(word) <= 6 else None
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
    """The orders of a message as an order text in which every line keeps its number in the
    message (other lines left blank), so that an acknowledgement's "line 7" is the player's
    line 7. No GAME or PLAYER line is invented: the message's game and player are known."""
    block = found.block
    if block is None:
        return b""
    placed: dict[int, str] = {}
    if block.password:
        placed[block.password_line or 1] = f"PASSWORD {block.password}"
    for number, (_, line) in zip(block.numbers, block.orders):
        placed[number] = line
    last = max(placed, default=0)
    return ("\n".join(placed.get(n, "") for n in range(1, last + 1)) + "\n").encode("utf-8")


