"""Numbers as players and GMs type them (tester3 finding 15).

`str.isdigit()` is True for characters `int()` cannot read: superscripts and subscripts
(² ³ ₂: AltGr+2/3 on many European keyboards), circled digits (①), and `str.isnumeric()`
adds fractions and Roman numerals. Every number typed by a player or a GM is therefore read
here, or tested with `is_number`: plain digits 0-9 only, after `plain` has turned the decimal
digits of other scripts (Arabic-Indic, fullwidth, mathematical: the ones `int()` reads) into
0-9 and the dashes people type or paste (U+2212 minus, en and em dash, the Unicode hyphens,
fullwidth hyphen-minus) into a plain minus sign. Anything else is "expected a number, found
'²'", a clean rejection.
"""

from __future__ import annotations

import re
import unicodedata

from pbem.core.errors import InputError

_NUMBER = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"-?[0-9]+")
# the dashes a minus sign is typed or pasted as (a word processor's en dash, a web page's
# U+2212, a PDF's hyphen): each is one character, so columns stay those of the line as typed
DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2796\ufe58\ufe63\uff0d"
_DASH_TABLE = {ord(c): "-" for c in DASHES}


def plain(text: str) -> str:
    """`text` with every decimal digit as 0-9 and every dash as `-` (one character for one,
    so columns are kept); everything else as it is."""
    if text.isascii():
        return text
    out = text.translate(_DASH_TABLE)
    if any(ch.isdecimal() and not ch.isascii() for ch in out):
        out = "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() and not ch.isascii() else ch for ch in out)
    return out


def is_number(word: str | None) -> bool:
    """Whether `word` is a whole number of plain digits 0-9 (no sign, no ², no ①)."""
    return bool(word) and _NUMBER.fullmatch(word) is not None


def is_signed(word: str | None) -> bool:
    """Whether `word` is a whole number of plain digits, a minus sign allowed in front."""
    return bool(word) and _SIGNED.fullmatch(word) is not None


def looks_numeric(word: str) -> bool:
    """Whether `word` holds a digit or a character that passes for one (², ₂, ①, ½, Ⅳ): a
    word meant as a number, for the message "expected a number, found '²'"."""
    return any(ch.isnumeric() for ch in word)


def odd_digits(word: str) -> bool:
    """Whether `word` holds a character that passes for a digit but is none (², ₂, ①, ½, Ⅳ):
    never part of a name, so a word with one was meant as a number."""
    return not word.isascii() and any(ch.isnumeric() and not ch.isdecimal() for ch in word)


def whole(word: str | None, digits: int = 6) -> int | None:
    """`word` as a whole number of at most `digits` digits (decimal digits of any script read
    as 0-9, no sign), or None when it is anything else (², ①, -1, 1.5, a word)."""
    text = plain((word or "").strip())
    return int(text) if is_number(text) and len(text) <= digits else None


def number(word: str | None, what: str = "a number") -> int:
    """`word` read as a whole number of plain digits (decimal digits of any script and a
    dash in front allowed, see `plain`); an InputError "expected a number, found '²'"
    otherwise."""
    text = plain((word or "").strip())
    if not is_signed(text):
        raise InputError(f"expected {what}, found '{word}'")
    return int(text)
