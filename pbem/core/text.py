"""Text fit to show: player-supplied text (press, an order line quoted back, a game id from
a GAME line) may carry terminal control sequences (an escape that retitles a window, clears
a screen or colours it), a bell, NUL. Issue 17: no report file, mail body or page pbem
writes carries one. `printable` keeps every ordinary character (accents, emoji, other
scripts), newline, tab and CR LF; it drops an escape sequence whole (CSI `ESC [ ... m`, OSC
`ESC ] ... BEL`) and every other C0 control, DEL and C1 control (U+0080-U+009F), and the
bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069: a
right-to-left override makes text read other than it is, "Trojan Source"); the marks
U+200E/U+200F, which reorder nothing beyond themselves, are kept."""

from __future__ import annotations

import re

# an escape sequence whole: CSI (ESC [ params final), OSC/DCS/APC/PM (up to BEL or ESC \, not
# past a line's end), or
# ESC and one more character; else one control character: C0 but tab and newline, DEL, C1
_UNSAFE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x00-\x1f\x7f-\x9f]{0,256}(?:\x07|\x1b\\)?|[ -~]?)"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)
_LONE_CR = re.compile(r"\r(?!\n)")
_ANY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# issue 17: a text of these characters alone (no CR) is returned as it is, found by deleting
# them from its UTF-8 bytes (ten times faster than the search of _ANY, which finds nothing
# there); every byte from 0x80 is a part of a character beyond ASCII, and a C1 control
# (U+0080-U+009F) is C2 80-9F, so a text with a C2 byte is searched as before
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n"
_PLAIN_UTF8 = _PLAIN_ASCII + bytes(range(0x80, 0x100))
# the bidirectional controls printable drops, in UTF-8 (U+202A-U+202E, U+2066-U+2069): a text
# with one is searched
_BIDI_UTF8 = re.compile(rb"\xe2(?:\x80[\xaa-\xae]|\x81[\xa6-\xa9])")


def printable(text: str) -> str:
    """`text` without control characters (a CR LF line end is kept, as a calendar file
    needs it; a lone CR becomes a newline)."""
    if text.isascii():
        if not text.encode("ascii").translate(None, _PLAIN_ASCII):
            return text
    else:
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: searched
            encoded = b"\xc2"
        if b"\xc2" not in encoded and not encoded.translate(None, _PLAIN_UTF8) and not _BIDI_UTF8.search(encoded):
            return text
        if not _ANY.search(text):
            return text
    return _UNSAFE.sub("", _LONE_CR.sub("\n", text))
