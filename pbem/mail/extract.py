"""Finding the orders in a text: quotes, attributions, forwarded headers, signatures and
mobile footers recognised; the order block the player wrote in chosen. Pure text in, order
lines out -- and the requests the player typed around them: mail commands (REPORT, HELP, WAIT,
NOWAIT, ABSENT, SET ADDRESS, SEND PASSWORD, RESIGN, JOIN, OBSERVE, LIST, HISTORY, DRAW,
CONCEDE, NODRAW, NOCONCEDE), each on a line of its own, and press blocks (PRESS TO ... ENDPRESS), each with its
line number in the text as the player wrote it. A command line is never an order, and a
press block's lines are neither orders nor commands."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from itertools import repeat

from pbem.core.numbers import whole
from pbem.mail.mime import Texts

log = logging.getLogger("pbem.mail")

MAX_LINE_CHARS = 1000  # longer lines are cut (orders are short; read_script rejects > 500)
MAX_PRESS_LINE_CHARS = 10_000  # a press line is cut only beyond this (the press limit refuses such a message whole)
PLACEHOLDER_PASSWORDS = {"your-password-here", "<password>", "your-password", "yourpassword", "password"}


# --- the orders in a text ---------------------------------------------------------------------

_QUOTE = re.compile(r"^((?:[ \t]{0,3}>)+)[ \t]?")
_HEADER = re.compile(r"^(game|player|password)(?:[ \t]*[:=][ \t]*|[ \t]+)(\S+)$", re.IGNORECASE)
_END = re.compile(r"^end\.?$", re.IGNORECASE)
_COMMAND = re.compile(r"^(report|help)(?:[ \t]+(\S{1,20}))?$", re.IGNORECASE)  # the argument is checked by its handler
# The other mail commands: a line is one when it has its command's shape, whatever its case; its
# arguments are checked by its handler (so that bad ones get a clear reply). A line's first
# word alone never makes it a command: "Draw me a map" is not DRAW.
_COMMANDS = (
    ("wait", re.compile(r"^wait\.?$", re.IGNORECASE)),
    ("nowait", re.compile(r"^no[ \t]?wait\.?$", re.IGNORECASE)),
    ("absent", re.compile(r"^absent(?:[ \t]+(from[ \t].*|.*))?$", re.IGNORECASE)),
    ("set_address", re.compile(r"^set[ \t]+address(?:[ \t]+(.*))?$", re.IGNORECASE)),
    ("send_password", re.compile(r"^send[ \t]+(?:my[ \t]+)?password\.?$", re.IGNORECASE)),
    ("resign", re.compile(r"^resign\.?$", re.IGNORECASE)),
    # JOIN GAME [NAME], JOIN GAME [NAME] CONFIRM CODE (the code the first one mailed back); a
    # name of a few words ("Dave The Great") is a JOIN too, refused with the name rules; words
    # after CONFIRM CODE are the handler's to ignore (and say so)
    ("join", re.compile(r"^join(?:[ \t]+(\S+)(?:[ \t]+(\S+(?:[ \t]+\S+){0,3}(?:[ \t]+confirm(?:[ \t].*)?)?"
                        r"|confirm(?:[ \t].*)?))?)?$", re.IGNORECASE)),
    # OBSERVE GAME, OBSERVE GAME CONFIRM CODE (the code the first one mailed back), OBSERVE GAME
    # STOP, OBSERVE GAME ADDRESS NEW [CONFIRM CODE] (a new address; SET ADDRESS too); words
    # after STOP or CONFIRM CODE are the handler's to ignore (and say so)
    ("observe", re.compile(r"^observe(?:[ \t]+(\S+)(?:[ \t]+((?:stop|confirm|address|set[ \t]+address)(?:[ \t].*)?))?)?$",
                           re.IGNORECASE)),
    ("list", re.compile(r"^list\.?$", re.IGNORECASE)),
    # HISTORY GAME [TURN], HISTORY GAME [TURN] CONFIRM CODE (the code the first one mailed back to
    # a sender no password vouches for); words after CONFIRM CODE are the handler's to ignore
    ("history", re.compile(r"^history(?:[ \t]+(\S+)(?:[ \t]+(\S+))?(?:[ \t]+(confirm(?:[ \t].*)?))?)?$",
                           re.IGNORECASE)),
    ("draw", re.compile(r"^draw\.?$", re.IGNORECASE)),
    ("concede", re.compile(r"^concede\.?$", re.IGNORECASE)),
    ("nodraw", re.compile(r"^no[ \t]?draw\.?$", re.IGNORECASE)),
    ("noconcede", re.compile(r"^no[ \t]?concede\.?$", re.IGNORECASE)),
)
# PRESS TO name[,name] | PRESS TO ALL, the message's lines, ENDPRESS: only a line that starts
# "PRESS TO" opens a press block (prose like "Press the button" must not swallow the orders below)
_PRESS = re.compile(r"^press[ \t]+(to(?:[ \t,].*)?)$", re.IGNORECASE)
_ENDPRESS = re.compile(r"^end[ \t]?press\.?$", re.IGNORECASE)
MAX_PRESS_LINES = 2000  # a press block longer than this is cut (the press limit refuses it anyway)
_ATTRIBUTION_WORDS = ("wrote", "writes", "schrieb", "a écrit", "escribió", "ha scritto", "schreef", "skrev", "kirjoitti",
                      "napisał", "написал(а)", "написал", "написала")
_ATTRIBUTION = re.compile("(" + "|".join(map(re.escape, _ATTRIBUTION_WORDS)) + r")\s*:\s*$", re.IGNORECASE)
# issue 17: the same, for a stripped line that ends with ':' -- looked for only at the end of
# what comes before the ':' (IGNORECASE matches one character to one: a word is as long as it
# is found), not tried at every character of the line
_ATTRIBUTION_END = re.compile("(?:" + "|".join(map(re.escape, _ATTRIBUTION_WORDS)) + r")\Z", re.IGNORECASE)
_ATTRIBUTION_LONGEST = max(map(len, _ATTRIBUTION_WORDS))
_SEPARATOR = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|message d'origine|weitergeleitete nachricht|mensaje original)\s*-{2,}"
    r"|begin forwarded message:)$",
    re.IGNORECASE,
)
_SECTION_HEADER = re.compile(
    r"^\*?(from|sent|date|to|cc|subject|reply-to|von|gesendet|an|betreff|datum|de|envoyé|à|objet|enviado|para|asunto)\*?\s*:",
    re.IGNORECASE,
)
_RULE = re.compile(r"_{10,}")
_FROM_LINE = re.compile(r"^\*?(from|von|de)\*?\s*:\s*\S", re.IGNORECASE)
_ON = re.compile(r"^(on|am|le|el|il|op)\s", re.IGNORECASE)


def _attribution(line: str) -> bool:
    """Whether a line (stripped) is an attribution ("On ... wrote:"): it ends with ':' (as
    _ATTRIBUTION finds one: a word of _ATTRIBUTION_WORDS, white space, the ':')."""
    return line.endswith(":") and _ATTRIBUTION_END.search(line[:-1].rstrip()[-_ATTRIBUTION_LONGEST:]) is not None


_MOBILE = re.compile(
    r"^(sent from my \S.*|sent from (mail|outlook|yahoo mail|proton ?mail|gmail)\b.*|get outlook for (ios|android).*"
    r"|sent via \S.*|sent with proton ?mail.*|von meinem \S.* gesendet|envoyé de mon \S.*|enviado desde mi \S.*)$",
    re.IGNORECASE,
)


# Every line that could be a rule, a separator, a section header (its From line), the first
# line of a two-line attribution or a signature or mobile footer starts like this (a line
# ending in ':' is looked at too): a wider net than those patterns, tried once per line (issue
# 17: a line that starts with one '-' -- a list item, a hex's coordinates -- is none of them)
_MAYBE_SPECIAL = re.compile(r"_{10}|--|begin forwarded message:|\*?(?:from|von|de)\*?\s*:|(?:on|am|le|el|il|op)\s"
                            r"|sent |get outlook|von meinem|envoy|enviado desde", re.IGNORECASE)


# issue 17: the characters a match of _MAYBE_SPECIAL can start with (its first characters,
# whatever their case, as IGNORECASE folds them: the Turkish i's and the long s too); a line
# that starts with none of them is not tried (tests/test_mail_extract.py checks the set)
SPECIAL_FIRST = frozenset("*-ABDEFGILOSV_abdefgilosv\u0130\u0131\u017f")
# issue 17: the first two characters, in lower case, of every ASCII text _MAYBE_SPECIAL can
# match (a text starting with other ASCII characters is not tried; one starting with others,
# which IGNORECASE may fold, is, as before; tests/test_mail_extract.py checks the set)
SPECIAL_PAIRS = frozenset(("__", "--", "be", "*f", "*v", "*d", "fr", "vo", "de", "on", "am", "le", "el", "il", "op", "se",
                           "ge", "en"))


_LINE = re.compile(r"^(?:((?:[ \t]{0,3}>)+)[ \t]?)?(.*)$", re.MULTILINE)  # _QUOTE's marks (or none), the rest


def clean_lines(text: str) -> list[tuple[int, str]]:
    """The lines of a text as (quote depth, text), without attributions, section headers of
    forwarded/original messages, signatures and mobile footers. Lines after a forwarded or
    "Original Message" section start count one level deeper, as if quoted."""
    return [(depth, line) for _, depth, line in numbered_lines(text)]


def numbered_lines(text: str, limit: int = MAX_LINE_CHARS) -> list[tuple[int, int, str]]:
    """`clean_lines` with each line's number in the text as the player wrote it (1-based,
    blank lines counted): (number, quote depth, text), each line cut to `limit` characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").replace("\u200b", "").replace("\xa0", " ")
    raw = text.split("\n")
    out: list[tuple[int, int, str]] = []
    extra = 0
    sig_depth: int | None = None
    i, n = 0, len(raw)

    # issue 17: each line split (quote depth, text) and stripped once, up front
    cut = limit * 4
    if ">" not in text:  # no quoted line: each line as it is (cut), at depth 0
        bodies = raw if len(text) <= cut else [line[:cut] for line in raw]
        depths = [0] * n
    else:
        pairs = _LINE.findall(text) if len(text) <= cut else []  # each line's quote marks and the rest, at once
        if len(pairs) != n:  # (a long text: each line cut first)
            quote = _QUOTE.match
            found = [quote(line[:cut]) for line in raw]
            pairs = [(m.group(1), line[m.end():cut]) if m else ("", line[:cut]) for line, m in zip(raw, found)]
        marks, bodies = zip(*pairs) if pairs else ((), ())
        depths = list(map(str.count, marks, repeat(">")))
    texts = list(map(str.strip, bodies))
    short = len(text) <= limit  # (issue 17: then no line is longer than `limit`, and none is cut)
    maybe = _MAYBE_SPECIAL.match
    first = SPECIAL_FIRST
    pairs = SPECIAL_PAIRS
    specials = [j for j, t in enumerate(texts) if t.endswith(":") or (
        ((p := t[:2].lower()) in pairs or not p.isascii()) and t[:1] in first and maybe(t) is not None)]
    special = set(specials)
    specials.append(n)  # (the end)
    next_special = 0  # index into specials of the first special line at or after i

    def section_header_at(j: int) -> bool:
        """An Outlook/forward header block starts at line j: From:, then Sent/Date and Subject."""
        if not _FROM_LINE.match(texts[j]):
            return False
        names = set()
        for k in range(j + 1, min(j + 8, n)):
            m = _SECTION_HEADER.match(texts[k])
            if not m:
                break
            names.add(m.group(1).lower())
        return bool(names & {"sent", "date", "gesendet", "datum", "envoyé", "enviado"}) and bool(
            names & {"subject", "betreff", "objet", "asunto", "to", "an", "à", "para"})

    while i < n:
        stripped = texts[i]
        if sig_depth is None and i not in special:
            # most lines are none of the shapes below (a rule, a separator, a section header,
            # an attribution, a signature or a mobile footer): kept as they are, up to the next
            # line that may be one
            while specials[next_special] < i:
                next_special += 1
            stop = specials[next_special]
            out.extend(zip(range(i + 1, stop + 1), depths[i:stop] if not extra else [d + extra for d in depths[i:stop]],
                           texts[i:stop] if short else [t[:limit] for t in texts[i:stop]]))
            i = stop
            continue
        if i not in special:
            depth = depths[i] + extra
            if sig_depth is not None:
                if depth == sig_depth:
                    i += 1
                    continue
                sig_depth = None
            out.append((i + 1, depth, stripped[:limit]))
            i += 1
            continue
        if _RULE.fullmatch(stripped) and i + 1 < n and section_header_at(i + 1):
            i += 1  # Outlook's rule above the header block of the original
            continue
        if _SEPARATOR.match(stripped) or section_header_at(i):
            extra += 1
            sig_depth = None
            if _SEPARATOR.match(stripped):
                i += 1
            while i < n and (not texts[i] and i + 1 < n and section_header_at(i + 1)):
                i += 1
            if i < n and section_header_at(i):
                while i < n and _SECTION_HEADER.match(texts[i]):
                    i += 1
            continue
        depth = depths[i] + extra
        if _attribution(stripped):
            i += 1
            continue
        if _ON.match(stripped) and i + 1 < n and _attribution(texts[i + 1]):
            i += 2
            continue
        if sig_depth is not None:
            if depth == sig_depth:
                i += 1
                continue
            sig_depth = None
        if bodies[i].rstrip("\n") in ("-- ", "--") or stripped == "--" or _MOBILE.match(stripped):
            sig_depth = depth
            i += 1
            continue
        out.append((i + 1, depth, stripped[:limit]))
        i += 1
    return out


_FIRST_WORDS = frozenset(("report", "help", "wait", "wait.", "nowait", "nowait.", "no", "absent", "set", "send", "resign",
                          "resign.", "join", "observe", "list", "list.", "history", "draw", "draw.", "concede", "concede.",
                          "nodraw", "nodraw.", "noconcede", "noconcede."))


def command_of(line: str) -> tuple[str, tuple[str | None, ...]] | None:
    """The mail command a line is (its name and its arguments as typed), or None."""
    first = line.split(None, 1)[0].lower() if line else ""
    if first not in _FIRST_WORDS:
        return None  # most lines: no regular expression tried
    m = _COMMAND.match(line)
    if m:
        return m.group(1).lower(), (m.group(2),)
    for name, pattern in _COMMANDS:
        m = pattern.match(line)
        if m:
            return name, tuple(g.strip() if g else None for g in m.groups())
    return None


@dataclass
class Request:
    """One mail command of a message: its name, its arguments as typed, and where it stands
    (its line number is the player's own). A press block also carries its lines."""

    name: str  # report, help, wait, nowait, absent, set_address, send_password, resign, join, ...
    args: tuple[str | None, ...]
    line: int
    text: str  # the line as typed, for quoting in the reply
    depth: int
    body: list[str] = field(default_factory=list)  # press: the message, line by line
    ended: bool = True  # press: closed by its ENDPRESS line
    in_block: bool = False  # typed inside an order block (between its header and END)

    @property
    def arg(self) -> str | None:
        return self.args[0] if self.args else None


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
    requests: list[Request] = field(default_factory=list)  # the commands and press typed inside it
    line: int = 0  # the number of its first line (a GAME, PLAYER or PASSWORD line)

    def described(self) -> str:
        """How a reply names the block: where it starts, and the game and player it names."""
        names = ", ".join(f"{k.upper()} {v}" for k, v in (("game", self.game), ("player", self.player)) if v)
        return f"the block at line {self.line}" + (f" ({names})" if names else "")

    @property
    def content_depth(self) -> int | None:
        depths = [d for d, _ in self.orders] + [r.depth for r in self.requests]
        if self.password:
            depths.append(self.password_depth)
        return min(depths) if depths else None


@dataclass
class Found:
    """What a text asks for: the order block that counts (`block`), every block, and the
    requests -- the mail commands and press blocks the player typed (`requests`, in the
    order of their lines). `command` is the first request of a message without orders (a
    message that is only a request); `command_word`/`command_arg` its argument."""

    block: Block | None = None
    blocks: list[Block] = field(default_factory=list)
    command: str | None = None  # the first request of a message that holds no orders
    command_arg: int | None = None
    command_word: str | None = None  # the argument as typed (REPORT -1: "-1", no turn number)
    where: str = ""
    requests: list[Request] = field(default_factory=list)
    # finding 01: the blocks the player wrote in, one for each game and player (`block` among
    # them), in the order of their lines: more than one, each is its own submission (`split`)
    seats: list[Block] = field(default_factory=list)
    # the blocks with content that are not read, each with why: an earlier copy of the same
    # game's block (the last one counts), or a quoted one (the one written in counts)
    aside: list[tuple[Block, str]] = field(default_factory=list)
    loose: list[Request] = field(default_factory=list)  # the requests typed outside every block
    copies: dict = field(default_factory=dict, repr=False)  # id(earlier copy) -> the block of `seats` that counts

    def split(self) -> list[Found]:
        """Finding 01: one Found for each block of `seats` (its requests, and those typed in
        its earlier copies), and, last, one for the requests typed outside every block (whose
        game is the subject's, or the sender's one game): each answered on its own."""
        parts = []
        for b in self.seats:
            copies = [c for c, _ in self.aside if self.copies.get(id(c)) is b]
            requests = list(b.requests) + [r for c in copies for r in c.requests if r.depth == 0]
            part = Found(block=b, blocks=[b] + copies, where=self.where,
                         requests=sorted(requests, key=lambda r: r.line))
            _set_command(part)
            parts.append(part)
        if self.loose:
            part = Found(where=self.where, requests=list(self.loose))
            _set_command(part)
            parts.append(part)
        return parts

    def inherited(self, attr: str) -> str | None:
        if self.block and getattr(self.block, attr):
            return getattr(self.block, attr)
        for b in self.blocks:
            if getattr(b, attr):
                return getattr(b, attr)
        return None

    @property
    def has_orders(self) -> bool:
        """Whether the message carries orders to submit: order lines, or an order block with
        nothing else in it (a password alone: "no orders, use the defaults")."""
        if self.block is None or self.block.content_depth is None:
            return False
        return bool(self.block.orders) or not self.requests

    @property
    def has_content(self) -> bool:
        return bool(self.block and self.block.content_depth is not None) or bool(self.requests)


# the first letter of a word in _FIRST_WORDS, in either case (no other character lowers to one)
_COMMAND_FIRST = frozenset(w[0] for w in _FIRST_WORDS) | frozenset(w[0].upper() for w in _FIRST_WORDS)
_BLOCK_FIRST = frozenset("gGpPeE")  # the first letter of a line _HEADER, _END, _PRESS or _ENDPRESS can match


def find_orders(text: str) -> Found:
    """The order blocks of a text, the one that counts, and the requests typed around it (see
    the module docstring).

    A request (a command line, or a press block from PRESS TO to ENDPRESS) counts when the
    player typed it: unquoted (inside an order block or not), or inside the order block that
    counts (a form filled in within the quote). A
    press block's lines are its message, never orders or commands; one without ENDPRESS is
    kept as unterminated (its handler refuses it: nothing of a message is sent by guess)."""
    blocks: list[Block] = []
    loose: list[Request] = []
    cur: Block | None = None
    press: Request | None = None
    for number, depth, full in numbered_lines(text, MAX_PRESS_LINE_CHARS):
        line = full[:MAX_LINE_CHARS]  # a press line is kept whole (up to its own limit); any other is cut
        if press is not None:
            if depth < press.depth:
                press = None  # a shallower line: the block was never closed (press.ended stays False)
            elif depth == press.depth and _ENDPRESS.match(line):
                press.ended = True
                press = None
                continue
            else:
                if len(press.body) < MAX_PRESS_LINES:
                    press.body.append("> " * (depth - press.depth) + full if depth > press.depth else full)
                continue
        if cur is not None and depth > cur.base:
            cur = None  # a deeper quote begins: the block typed above it is over
        if not line or line.startswith("#"):
            continue
        if line[0] not in _BLOCK_FIRST:  # issue 17: no header, END or press line starts so
            # (no command word is longer than 8 characters: the first 9 show whether it is one)
            command = (command_of(line) if line[0] in _COMMAND_FIRST and line[:9].split(None, 1)[0].lower() in _FIRST_WORDS
                       else None)
        else:
            hm = _HEADER.match(line)
            if hm:
                kw, value = hm.group(1).lower(), hm.group(2)
                if cur is None or (kw != "password" and cur.orders):
                    cur = Block(base=depth, line=number)
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
            pm = _PRESS.match(line)
            if pm:
                press = Request("press", ((pm.group(1) or "").strip() or None,), number, line, depth, ended=False,
                                in_block=cur is not None)
                (cur.requests if cur is not None else loose).append(press)
                continue
            if _ENDPRESS.match(line):
                continue  # a stray ENDPRESS closes nothing
            command = command_of(line)
        if command:
            request = Request(command[0], command[1], number, line, depth, in_block=cur is not None)
            (cur.requests if cur is not None else loose).append(request)
        elif cur is not None:
            cur.orders.append((depth, line))
            cur.numbers.append(number)
    for r in loose + [r for b in blocks for r in b.requests]:
        while r.body and not r.body[-1].strip():
            r.body.pop()  # the blank lines before ENDPRESS (or the end) are no part of the message
    found = Found(blocks=blocks)
    with_content = [(b, d) for b in blocks if (d := b.content_depth) is not None]  # (each block's worked out once)
    if with_content:
        best = min(d for _, d in with_content)
        found.block = [b for b, d in with_content if d == best][-1]
        _seats(found, with_content, best)
    elif blocks:
        found.block = blocks[-1]
    typed = {id(r): r for r in loose + [r for b in blocks for r in b.requests] if r.depth == 0}
    if found.block is not None:
        typed.update((id(r), r) for r in found.block.requests)
    found.requests = sorted(typed.values(), key=lambda r: r.line)
    found.loose = [r for r in loose if r.depth == 0]
    _set_command(found)
    return found


def _same_seat(a: Block, b: Block) -> bool:
    """Whether two blocks may be for the same game and player: none names a game or a player
    the other names otherwise (a block that names none is taken for the same)."""
    return all(x is None or y is None or x == y for x, y in ((a.game, b.game), (a.player, b.player)))


def _seats(found: Found, with_content: list[tuple[Block, int]], best: int) -> None:
    """Finding 01: of the blocks with content, those written in (the least quoted) are one
    submission for each game and player -- the last of each, its earlier copies set aside;
    the more quoted ones are set aside (quoted, as in a reply to a mail that held them)."""
    kept: list[Block] = []
    for b, d in reversed(with_content):
        if d != best:
            continue
        same = next((k for k in kept if _same_seat(k, b)), None)
        if same is None:
            kept.append(b)
        else:
            found.copies[id(b)] = same
    found.seats = kept[::-1]
    for b, d in with_content:
        if d != best:
            found.aside.append((b, "quoted: quoted text is never read as orders; the block you wrote counts"
                                if best == 0 else "quoted more deeply than the block you filled in, which counts"))
        elif id(b) in found.copies:
            found.aside.append((b, "an earlier block for the same game and player: of several, the last one counts"))


def _set_command(found: Found) -> None:
    """`command`: the first request of a message (or part) that holds no orders."""
    if found.requests and not (found.block and found.block.orders):
        first = found.requests[0]
        found.command = first.name
        if first.name in ("report", "help"):
            word = first.arg
            found.command_word = word
            found.command_arg = whole(word)


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
    lines = [""] * max(placed, default=0)
    for number, line in placed.items():
        lines[number - 1] = line
    return ("\n".join(lines) + "\n").encode("utf-8")


