"""Which rule a ruling applies (issue 18): every rejected or skipped line and every event of a
report can name the section of the game's rules text it follows, by the text's own section
names ("Holy War, condition 1"), or "CHOICE: <name>" where a choice of ours (marked CHOICE in
the game's data.toml) decided. The rules texts stay outside the project: a citation is only
a section's name.

Each game keeps its map in its data, a `[citations]` table of data.toml:

    [citations]
    rules = "Ye Gods! (Scott Miller, 2009)"      # the text cited, shown once per report

    [citations.events]          # event type -> section
    holywar = "Holy War, resolution 1-10"
    "draw:name=schism" = "God Cards: Schism"   # type:field=value (lower case), one kind of an event
    "*:card=earthquake" = "Card List: Earthquake"  # any event naming this card, if its type has no entry

    [citations.reasons]         # a distinctive fragment of a rejection reason -> section
    "must already have at least one worshipper" = "Holy War, condition 2"

A reason is cited by the longest fragment it contains (case-insensitive), after the quoted
order line, every quoted word and the "did you mean" hints are cut off (a player's own words
never choose the citation). The order language's own reasons (unknown order, ambiguous, malformed) are cited
"pbem orders" in every game unless its table says otherwise. A game with no table still
works: its rulings are simply not cited.

Pure: no I/O. `validate` runs when a game's data is loaded (pbem.core.registry).
"""

from __future__ import annotations

import re

from pbem.core.errors import DataError

ORDER_LANGUAGE = "pbem orders"

# Reasons of the order language itself (pbem.core.orders), the same in every game.
GENERIC_REASONS: dict[str, str] = {
    "unknown order": ORDER_LANGUAGE,
    "is incomplete: expected": ORDER_LANGUAGE,
    "is incomplete: the order is written": ORDER_LANGUAGE,
    "the order is written": ORDER_LANGUAGE,
    "did not expect": ORDER_LANGUAGE,
    "expected a number, found": ORDER_LANGUAGE,
    "expected a coordinate, found": ORDER_LANGUAGE,
    "is ambiguous: it could be": ORDER_LANGUAGE,
    "ambiguous": ORDER_LANGUAGE,
    "could be": ORDER_LANGUAGE,
    "incomplete": ORDER_LANGUAGE,
    "empty order": ORDER_LANGUAGE,
    "line is longer than": ORDER_LANGUAGE,
    "not an order": ORDER_LANGUAGE,
}

# Events that report an order not carried out, with the reason: cited by the reason when it
# has a citation (a skipped line; Deity's `void`, a later phase's order no longer possible).
_BY_REASON = ("skipped", "void")

_LOCATION = re.compile(r"^line \d+, column \d+: ")
_HINTS = re.compile(r"; (did you mean|legal now:|orders are:).*$", re.S)
_CONDITIONAL = "depends on earlier dice or hidden cards: "
_QUOTED = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)")


def table(data: dict | None) -> dict:
    """A game's `[citations]` table ({} when it has none)."""
    found = (data or {}).get("citations")
    return found if isinstance(found, dict) else {}


def validate(data: dict, where: str = "data.toml") -> None:
    """Check a game's `[citations]` table: `events` and `reasons` map non-empty strings to
    non-empty strings. Raises DataError naming the bad entry."""
    if "citations" not in data:
        return
    cit = data["citations"]
    if not isinstance(cit, dict):
        raise DataError(f"{where}: [citations] must be a table")
    unknown = set(cit) - {"rules", "events", "reasons"}
    if unknown:
        raise DataError(f"{where}: [citations] has unknown key(s) {', '.join(sorted(unknown))}; known: rules, events, reasons")
    if "rules" in cit and not (isinstance(cit["rules"], str) and cit["rules"].strip()):
        raise DataError(f"{where}: citations.rules must be a non-empty string")
    for part in ("events", "reasons"):
        entries = cit.get(part, {})
        if not isinstance(entries, dict):
            raise DataError(f"{where}: [citations.{part}] must be a table")
        for key, value in entries.items():
            if not key.strip():
                raise DataError(f"{where}: citations.{part} has an empty key")
            if not isinstance(value, str) or not value.strip():
                raise DataError(f"{where}: citations.{part}.{key!r} must be a non-empty string (a section of the rules text)")


def clean(reason: str, text: str | None = None) -> str:
    """The part of a reason that says why: without its location, the quoted order line (the
    player's own words), the line echoed under a caret, and the "did you mean" hints."""
    message = _LOCATION.sub("", reason.split("\n", 1)[0])
    if message.startswith(_CONDITIONAL):
        message = message[len(_CONDITIONAL):]
    if text:
        message = message.replace(f"'{text}'", "")
    message = _HINTS.sub("", message)
    message = _QUOTED.sub("''", message)  # a name the player typed: 'tempel', 'hel'
    return message.strip()


def cite_reason(data: dict | None, reason: str, text: str | None = None) -> str | None:
    """The section a rejection or skip reason applies: the value of the longest fragment of
    the game's `reasons` (or of the order language's) found in the reason; None if none is."""
    if not reason:
        return None
    message = clean(reason, text).lower()
    if not message:
        return None
    best: tuple[int, str] | None = None
    own = table(data).get("reasons", {})
    for entries in (own, GENERIC_REASONS):
        for fragment, section in entries.items():
            if fragment.lower() in message and (best is None or len(fragment) > best[0]):
                best = (len(fragment), section)
        if best is not None and entries is own:
            break  # the game's own table decides when it matches
    return best[1] if best else None


def cite_event(data: dict | None, event: dict) -> str | None:
    """The section an event applies: a skipped line's by its reason; else the first
    `type:field=value` entry matching one of the event's fields; else its type's entry; else
    the first `*:field=value` entry matching (a card named by any event)."""
    etype = str(event.get("type", ""))
    if etype in _BY_REASON and isinstance(event.get("reason"), str):
        cited = cite_reason(data, event["reason"], event.get("text") if isinstance(event.get("text"), str) else None)
        if cited:
            return cited
    events = table(data).get("events", {})
    fields = []
    for key, value in event.items():
        if key in ("type", "to") or not isinstance(value, (str, int, bool)):
            continue
        fields.append(f"{key}={str(value).lower()}")
    for field in fields:
        if f"{etype}:{field}" in events:
            return events[f"{etype}:{field}"]
    if etype in events:
        return events[etype]
    for field in fields:
        if f"*:{field}" in events:
            return events[f"*:{field}"]
    return None


def rules_text(data: dict | None) -> str | None:
    """The name of the rules text a game's citations refer to, if its table gives one."""
    name = table(data).get("rules")
    return name if isinstance(name, str) else None
