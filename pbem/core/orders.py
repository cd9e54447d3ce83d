"""The order language shared by every game.

```
GAME athens-1
PLAYER jupiter
PASSWORD lamp-tiger-42
# comments start with #
tribe green 2,-1
END
```

One order per line, verb first, case-insensitive; names by any unique prefix or alias;
`#` comments; blank lines ignored; `END` stops reading. Header lines `GAME`, `PLAYER`,
`PASSWORD` are common to every game.

Syntax is separate from legality (as in python-chess): `match_order` matches a line against
the *legal* orders a game offers (`legal_orders(state, player)` is the single source of
truth) and fails with InvalidOrderError (not an order of this game), IllegalOrderError
(well formed, not legal now) or AmbiguousOrderError (matches more than one legal order).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from functools import lru_cache

from pbem.core.errors import (
    AmbiguousOrderError,
    IllegalOrderError,
    InputError,
    InvalidOrderError,
    OrderError,
)
from pbem.core.numbers import is_number, looks_numeric, odd_digits, plain

MAX_ORDER_BYTES = 256 * 1024
MAX_LINE_CHARS = 500
HEADERS = ("game", "player", "password")


@dataclass(frozen=True)
class Order:
    """One legal order. `tokens` is its canonical spelling (verb first); `optional` holds the
    indexes of tokens a player may leave out; `payload` is what the rules execute."""

    tokens: tuple[str, ...]
    payload: tuple = ()
    optional: frozenset = frozenset()

    @property
    def verb(self) -> str:
        return self.tokens[0]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def __str__(self) -> str:
        return self.text


@dataclass
class Token:
    text: str
    column: int  # 1-based


@dataclass
class Line:
    number: int
    text: str
    tokens: list[Token]


@dataclass
class Script:
    """A parsed order text: headers and the order lines, in order."""

    game: str | None = None
    player: str | None = None
    password: str | None = None
    ready: bool = False  # a READY line: "take these orders as they are", rejected lines and all
    lines: list[Line] = field(default_factory=list)
    header_errors: list[str] = field(default_factory=list)


_COORD = re.compile(r"\(?\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*\)?")
_ARROW = re.compile(r"->|=>|→|-->")


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")  # control characters but for \t \n \f \r


def decode(raw: bytes) -> str:
    """Bytes of an order file or mail part to text; refuse what is not text."""
    if len(raw) > MAX_ORDER_BYTES:
        raise InputError(
            f"the order text is {len(raw) / 1024 / 1024:.1f} MB; orders are limited to "
            f"{MAX_ORDER_BYTES // 1024} KB"
        )
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte order mark (Windows "Unicode" text)
        try:
            raw = raw.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            raise InputError("this is not a text file (broken UTF-16); send orders as plain text") from None
    if b"\x00" in raw:
        raise InputError("this is not a text file (it contains NUL bytes); send orders as plain text")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")
    controls = len(_CONTROLS.findall(text))
    if text and controls / len(text) > 0.05:
        raise InputError("this is not a text file (it is mostly control characters); send orders as plain text")
    return text


def tokenize(text: str) -> list[Token]:
    """Split one line into lower-cased tokens; `2, -1` and `(2,-1)` become one token `2,-1`;
    arrows (`->`, `=>`, `→`) become `->`. The decimal digits of every script are read as 0-9
    and the dashes people type or paste (U+2212, en dash...) as a minus sign (numbers.plain:
    `1,−2` is `1,-2`, `–>` is `->`); a character that only looks like a digit (², ①) stays
    what it is, and is refused where a number is due."""
    return [Token(word, column) for word, column in _tokens(text)]


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[tuple[str, int], ...]:
    """`tokenize` as (text, column) pairs, worked out once for a line (issue 17: the same
    orders come in again and again; the line is read character by character)."""
    tokens: list[tuple[str, int]] = []
    text = plain(text)  # one character for one: the columns are those of the line as typed
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        m = _COORD.match(text, i)
        if m and (m.group(0).startswith("(") or ch in "0123456789-"):
            tokens.append((f"{int(m.group(1))},{int(m.group(2))}", i + 1))
            i = m.end()
            continue
        m = _ARROW.match(text, i)
        if m:
            tokens.append(("->", i + 1))
            i = m.end()
            continue
        j = i
        while j < n and not text[j].isspace() and not _ARROW.match(text, j):
            j += 1
            if j < n and text[j] == "(":
                break
        tokens.append((text[i:j].lower(), i + 1))
        i = j
    return tuple(tokens)


def read_script(text: str) -> Script:
    """Split an order text into headers and order lines. Never raises on content."""
    script = Script()
    for number, raw_line in enumerate(text.splitlines(), start=1):
        if not raw_line:
            continue
        line = raw_line.split("#", 1)[0].strip()
        if not line:
            continue
        if len(line) > MAX_LINE_CHARS:
            script.lines.append(Line(number, line[:MAX_LINE_CHARS], [Token("<too-long>", 1)]))
            continue
        head, *tail = line.split(None, 1)  # any whitespace: `PASSWORD<tab>x` is a header too
        rest = tail[0] if tail else ""
        keyword = head.lower()
        if keyword == "end" and not rest.strip():
            break
        if keyword == "ready" and not rest.strip():
            script.ready = True
            continue
        if keyword in HEADERS:
            value = rest.strip()
            if not value:
                script.header_errors.append(f"line {number}: {head.upper()} needs a value")
                continue
            if keyword == "password":
                script.password = value
            else:
                setattr(script, keyword, value.lower())
            continue
        script.lines.append(Line(number, line, tokenize(line)))
    return script


_HEX = re.compile(r"-?[0-9]+,-?[0-9]+")
_EXACT = re.compile(r"-?[0-9]+(,-?[0-9]+)?")


@lru_cache(maxsize=4096)
def _is_exact_kind(token: str) -> bool:
    """Numbers and coordinates never match by prefix."""
    return bool(_EXACT.fullmatch(token))


def _token_match(typed: str, canon: str) -> int:
    """2 for an exact match, 1 for a prefix match, 0 for no match."""
    if typed == canon:
        return 2
    if _is_exact_kind(typed) or _is_exact_kind(canon):
        return 0
    if canon.startswith(typed):
        return 1
    return 0


def _align(typed: list[str], order: Order, names: frozenset = frozenset()) -> int | None:
    """Match typed tokens against an order's tokens, skipping optional ones. A typed word
    that is itself one of the game's `names` abbreviates no other.
    Returns the number of exact token matches, or None if they do not match."""
    canon = order.tokens

    def go(i: int, j: int) -> int | None:
        if i == len(typed) and j == len(canon):
            return 0
        best = None
        if j < len(canon):
            if i < len(typed):
                m = _token_match(typed[i], canon[j])
                if m == 1 and typed[i] in names:
                    m = 0
                if m:
                    rest = go(i + 1, j + 1)
                    if rest is not None:
                        best = rest + (1 if m == 2 else 0)
            if j in order.optional:
                rest = go(i, j + 1)
                if rest is not None and (best is None or rest > best):
                    best = rest
        return best

    return go(0, 0)


@dataclass
class Grammar:
    """A game's order syntax: every verb with its argument pattern and a one-line help.

    Pattern tokens: `hex` (q,r), `int`, `word`, `->`, a literal word, or any of these
    followed by `?` (may be left out); and `text`, last in the pattern of a parsed verb: the
    rest of the line as written (its case kept), handed to `parse` as one argument (a
    Judgement's crime, free prose; `#` still starts a comment)."""

    verbs: dict[str, tuple[str, str]]  # verb -> (pattern, help)
    aliases: dict[str, str] = field(default_factory=dict)
    # Verbs with free-form arguments (paths, unit lists, large amounts): a line with one of
    # these verbs is not matched against the enumerated legal orders but handed to the
    # `parse` callable of `match_order` (the engine passes `Rules.parse`), which checks it.
    parsed: frozenset = field(default_factory=frozenset)
    # Every name the game knows (cards, places...): a typed word that is one of them means
    # that name and is never taken as the prefix of a longer one ('hel' is Hel, not Helios).
    names: frozenset = field(default_factory=frozenset)
    # How a verb is written, for players (see `usage`): its forms as ORDERS.md writes them.
    usage_of: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def usage(self, verb: str) -> str:
        """How the order is written, in the words of the game's ORDERS.md, each form in
        backquotes (tester3 finding 06: the pattern `tribe word? hex` reached players): the
        `usage_of` the verb, else the forms of it its help quotes (`move priest FROM -> TO`),
        else its pattern in player words (Q,R a coordinate, N a number, [...] may be left out)."""
        forms = self.usage_of.get(verb)
        if forms is None:
            forms = tuple(f for f in re.findall(r"`([^`]+)`", self.verbs[verb][1]) if f == verb or f.startswith(verb + " "))
        if not forms:
            words = {"hex": "Q,R", "int": "N", "word": "NAME", "text": "TEXT"}
            out = [verb]
            for kind in self.verbs[verb][0].split():
                shown = words.get(kind.rstrip("?"), kind.rstrip("?"))
                out.append(f"[{shown}]" if kind.endswith("?") else shown)
            forms = (" ".join(out),)
        forms = [f"`{f}`" for f in dict.fromkeys(forms)]
        return forms[0] if len(forms) == 1 else f"{', '.join(forms[:-1])} or {forms[-1]}"

    def check_syntax(self, verb: str, tokens: list[Token], line: Line) -> None:
        pattern = self.verbs[verb][0].split()

        def fits(tok: str, kind: str) -> bool:
            kind = kind.rstrip("?")
            if kind == "hex":
                return bool(_HEX.fullmatch(tok))
            if kind == "int":
                return is_number(tok)
            if kind == "word":
                return not _is_exact_kind(tok) and tok != "->"
            if kind == "->":
                return tok == "->"
            return True  # alternatives are checked for legality, not syntax

        wanted: dict[int, set[str]] = {}  # typed token -> the kinds it was tried as and failed

        def go(i: int, j: int) -> int:
            """Return -1 on success, else index of the first typed token that failed."""
            if i == len(tokens) and j == len(pattern):
                return -1
            if j == len(pattern):
                return i
            kind = pattern[j]
            if kind.rstrip("?") == "text":  # the rest of the line, whatever it holds
                return -1 if i < len(tokens) or kind.endswith("?") else i
            failures = []
            if i < len(tokens) and fits(tokens[i].text, kind):
                r = go(i + 1, j + 1)
                if r == -1:
                    return -1
                failures.append(r)
            elif i < len(tokens):
                wanted.setdefault(i, set()).add(kind.rstrip("?"))
            if kind.endswith("?"):
                r = go(i, j + 1)
                if r == -1:
                    return -1
                failures.append(r)
            return max(failures) if failures else i

        usage = self.usage(verb)
        failed = go(1, 0)
        # a character that passes for a digit but is none (², ①: str.isdigit() is True for
        # them, int() fails) is never part of a name: in an order that takes a number or a
        # coordinate, a word with one was meant as one (even where an optional slot takes a word)
        slots = {k.rstrip("?") for k in pattern} & {"int", "hex"}
        odd = next((i for i in range(1, len(tokens)) if odd_digits(tokens[i].text)), None) if slots else None
        if odd is not None:
            failed = odd
            wanted[odd] = {"hex"} if "hex" in slots and ("," in tokens[odd].text or "int" not in slots) else {"int"}
        if failed == -1:
            return
        # a token meant as a number or a coordinate (it holds a digit, or what passes for one:
        # ², ①) where one was due is the fault, even when an optional slot took it as a word
        meant = [i for i in sorted(wanted) if wanted[i] & {"int", "hex"} and looks_numeric(tokens[i].text)]
        if meant and meant[0] < failed:
            failed = meant[0]
        if failed >= len(tokens):
            column = len(line.text) + 1
            raise InvalidOrderError(
                f"'{line.text}' is incomplete: the order is written {usage}", line.text, line.number, column
            )
        tok = tokens[failed]
        kinds = wanted.get(failed, set())
        typed = (line.text[tok.column - 1:].split() or [tok.text])[0]  # as written, not lower-cased
        if tok.text.startswith("(") or _COORD.match(tok.text):
            typed = tok.text
        if "int" in kinds and looks_numeric(typed) and "," not in typed:
            reason = f"expected a number, found '{typed}' (a number is written with the digits 0-9)"
        elif "hex" in kinds and ("," in typed or looks_numeric(typed)):
            reason = (f"expected a coordinate, found '{typed}': a coordinate is written q,r with the digits "
                      "0-9 and a minus sign, e.g. 1,-2")
        else:
            reason = f"did not expect '{typed}' here"
        raise InvalidOrderError(
            f"'{line.text}': {reason}; the order is written {usage}",
            line.text,
            line.number,
            tok.column,
        )


def looks_like_an_order(grammar: Grammar, line: Line) -> bool:
    """Whether a line starts with a verb even loosely: the verb, a prefix of one, or a word
    close enough that the error would offer it as "did you mean"."""
    if not line.tokens or line.tokens[0].text == "<too-long>":
        return True  # an error of its own, not prose
    word = grammar.aliases.get(line.tokens[0].text, line.tokens[0].text)
    verbs = list(grammar.verbs)
    # a lone word (a signature: "Hera", "Thanks") must be closer to a verb than a line with
    # arguments ("tempel 0,1") to be taken for a mistyped order
    cutoff = 0.8 if len(line.tokens) == 1 else 0.6
    return any(v.startswith(word) for v in verbs) or bool(difflib.get_close_matches(word, verbs, n=1, cutoff=cutoff))


def trailing_prose(grammar: Grammar, script: Script) -> set[int]:
    """The line numbers of the prose after the last order of a script with no END ("Cheers,"
    "Carol"): the run of lines at its end that are not orders even loosely, after at least one
    line that is. Such lines are ignored, not errors; a line close to a verb is no prose (it
    stays a rejection with its did-you-mean)."""
    prose: set[int] = set()
    for line in reversed(script.lines):
        if looks_like_an_order(grammar, line):
            return prose
        prose.add(line.number)
    return set()  # nothing but prose: not orders at all, each line says why


def match_order(grammar: Grammar, legal, line: Line, why_illegal=None, parse=None) -> Order:
    """Match a typed line against the legal orders (python-chess's parse_san, for orders).

    `legal` is the list of legal orders, or a callable returning it (called only when
    needed). A verb in `grammar.parsed` is handed to `parse(typed)` instead (typed: the
    canonical verb, then the argument tokens as typed): it returns the Order, raises an
    OrderError whose message says why the line is invalid or illegal (the line is quoted
    in front of it here), or returns None to fall back to matching the legal orders."""
    tokens = [Token(grammar.aliases.get(t.text, t.text), t.column) for t in line.tokens]
    if not tokens:
        raise InvalidOrderError("empty order", line.text, line.number, 1)
    if tokens[0].text == "<too-long>":
        raise InvalidOrderError(
            f"line is longer than {MAX_LINE_CHARS} characters", line.text, line.number, 1
        )
    verbs = sorted(grammar.verbs)
    typed_verb = tokens[0].text
    verb_hits = [v for v in verbs if v == typed_verb] or [v for v in verbs if v.startswith(typed_verb)]
    if not verb_hits:
        close = difflib.get_close_matches(typed_verb, verbs, n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else f"; orders are: {', '.join(verbs)}"
        raise InvalidOrderError(
            f"'{line.text}': unknown order '{line.tokens[0].text}'{hint}", line.text, line.number, 1
        )
    if len(verb_hits) > 1:
        raise AmbiguousOrderError(
            f"'{line.text}': '{typed_verb}' could be {' or '.join(verb_hits)}",
            line.text,
            line.number,
            1,
        )
    verb = verb_hits[0]
    typed = [verb] + [t.text for t in tokens[1:]]
    if parse is not None and verb in grammar.parsed:
        typed = _with_text(grammar, verb, typed, line)
        try:
            parsed = parse(typed)
        except OrderError as err:
            quoted = err.message if err.message.startswith(f"'{line.text}'") else f"'{line.text}': {err.message}"
            raise type(err)(quoted, line.text, line.number, err.column or 1) from err
        if parsed is not None:
            return parsed
    if callable(legal):
        legal = legal()
    scored: dict[Order, int] = {}
    n = len(typed)
    for order in legal:
        if order.verb != verb or not len(order.tokens) - len(order.optional) <= n <= len(order.tokens):
            continue
        score = _align(typed, order, grammar.names)
        if score is not None:
            scored[order] = max(score, scored.get(order, -1))
    if not scored:
        grammar.check_syntax(verb, tokens, line)
        reason = why_illegal(typed) if why_illegal else None
        same_verb = [o.text for o in legal if o.verb == verb]
        if reason is None:
            if not same_verb:
                reason = f"no '{verb}' order is legal now"
            else:
                reason = "not legal now"
        hint = ""
        if same_verb:
            close = difflib.get_close_matches(" ".join(typed), same_verb, n=1, cutoff=0.5)
            if close:
                hint = f"; did you mean '{close[0]}'?"
            elif len(same_verb) <= 6:
                hint = f"; legal now: {', '.join(same_verb)}"
        raise IllegalOrderError(f"'{line.text}': {reason}{hint}", line.text, line.number, 1)
    best = max(scored.values())
    winners = sorted({o for o, s in scored.items() if s == best}, key=lambda o: o.text)
    if len(winners) > 1:
        shown = ", ".join(f"'{o.text}'" for o in winners[:6])
        raise AmbiguousOrderError(
            f"'{line.text}' is ambiguous: it could be {shown}", line.text, line.number, 1
        )
    return winners[0]


def _with_text(grammar: Grammar, verb: str, typed: list[str], line: Line) -> list[str]:
    """A pattern ending in `text`: the typed arguments from there on become one argument, the
    rest of the line as written (original case and spacing inside it kept)."""
    pattern = grammar.verbs[verb][0].split()
    if not pattern or pattern[-1].rstrip("?") != "text":
        return typed
    at = len(pattern)  # the index in `typed` (verb first) where the text starts
    if len(typed) <= at:
        return typed
    column = line.tokens[at].column
    return typed[:at] + [line.text[column - 1:].strip()]


def line_order(grammar: Grammar, line: Line) -> Order | None:
    """A line as written, as an Order: its verb made canonical (alias, unique prefix), its
    arguments as typed; None when the verb is unknown or ambiguous. Not checked for legality:
    what `Rules.step_of` is asked about (in which step of a phase a line runs)."""
    if not line.tokens or line.tokens[0].text == "<too-long>":
        return None
    typed_verb = grammar.aliases.get(line.tokens[0].text, line.tokens[0].text)
    hits = [v for v in grammar.verbs if v == typed_verb] or [v for v in grammar.verbs if v.startswith(typed_verb)]
    if len(hits) != 1:
        return None
    return Order((hits[0], *(grammar.aliases.get(t.text, t.text) for t in line.tokens[1:])))
