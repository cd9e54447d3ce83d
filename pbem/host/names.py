"""The names a GM or a player may give a game or a seat: their form, and the words they may
not be. One place for both lists: `pbem new`, `pbem join`, `pbem replace`, JOIN by mail and
open sign-up all check names here.

A game id or a seat's name is a folder name and a word of the orders: 1-40 lower-case
letters, digits, '-' or '_', starting with a letter or digit, and none of RESERVED. A seat's
name (and the name of the person who takes a seat over) is also printed in the reports and
the press as who did or sent something, so it may not be one of the words those texts use
for someone else (SEAT_WORDS): a seat named "you" made its press read "you to everyone:" in
the other players' reports (tester3 finding 10), one named "gm" was taken for the GM, one
named "anonymous" for grey press."""

from __future__ import annotations

import re

from pbem.core.errors import PbemError

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")

# the words no game id and no seat may be: folders of the turns tree and words of the orders
RESERVED = {"public", "reports", "all"}

# the words the reports and the press use for someone, and what they stand for there:
# no seat (nor the person playing one) may be named so
SEAT_WORDS = {
    "you": "a report calls its reader 'you'",
    "your": "a report calls its reader 'you'",
    "me": "a report calls its reader 'you'",
    "gm": "the GM's own press is sent as 'gm' and signed 'the GM'",
    "the-gm": "the GM's press is signed 'the GM'",
    "the_gm": "the GM's press is signed 'the GM'",
    "thegm": "the GM's press is signed 'the GM'",
    "anonymous": "grey press is signed 'anonymous'",
    "everyone": "public press is sent 'to everyone'",
    "everybody": "public press is sent 'to everyone'",
    "nobody": "a report says 'waiting for nobody' when no seat is asked for orders",
}


def check_name(kind: str, value: str | None) -> str:
    """`value` as a game id (`kind` says what it is, for the message): lower-cased and
    stripped; PbemError quoting it when it is not allowed."""
    value = (value or "").strip().lower()
    if not NAME.match(value) or value in RESERVED:
        raise PbemError(
            f"{kind} '{value}' is not allowed: use 1-40 lower-case letters, digits, '-' or '_', "
            f"starting with a letter or digit (and not {', '.join(sorted(RESERVED))})"
        )
    return value


def check_seat_name(value: str | None, kind: str = "player name") -> str:
    """`value` as the name of a seat or of the person playing one: `check_name`, and none of
    SEAT_WORDS."""
    value = check_name(kind, value)
    if value in SEAT_WORDS:
        raise PbemError(f"{kind} '{value}' is not allowed: {SEAT_WORDS[value]}, so the other players would misread "
                        f"this seat's doings and press; choose another name (not {', '.join(sorted(SEAT_WORDS))})")
    return value


def taken_word(value: str) -> bool:
    """Whether `value` may never name a seat (a form it cannot take aside)."""
    return value in RESERVED or value in SEAT_WORDS
