"""Deadlines. A game's schedule (set at `pbem new`) gives each phase a deadline:
`--every 72h --at 20:00 --tz Europe/London` means: 72 hours after the phase opens, moved to
20:00 local time on that day. Times are stored as ISO 8601 in UTC."""

from __future__ import annotations

import os
import re
import time
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.core.errors import PbemError


_NOW: list = [None, None]  # issue 17: the last second asked for, and its datetime (ingest asks some 3 times a message)


def now() -> datetime:
    """The current time; PBEM_NOW (ISO 8601) overrides it for tests and dry runs."""
    fixed = os.environ.get("PBEM_NOW")
    if fixed:
        return parse_time(fixed)
    second = int(time.time())  # (whole seconds; issue 17: no replace)
    if _NOW[0] != second:
        _NOW[0], _NOW[1] = second, datetime.fromtimestamp(second, timezone.utc)
    return _NOW[1]


def parse_time(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as err:
        raise PbemError(f"'{text}' is not a date and time like 2026-11-21T20:00Z") from err
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    aware = value.utcoffset() is not None
    if aware:  # issue 17: ingest writes the same few times (now, the deliveries) again and again
        text = _ISO.get(value)
        if text is not None:
            return text
    text = value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if aware:
        if len(_ISO) >= 256:
            _ISO.clear()
        _ISO[value] = text  # (aware times that are the same instant are equal, and hash alike)
    return text


_ISO: dict[datetime, str] = {}


# issue 17: the latest deadline the GM may set (`deadline --at`, `resume --at`); far enough
# that a schedule's step (MAX_EVERY_DAYS) and a grace (at most a year) added to it stay far
# inside what a date can hold (the year 9999)
LATEST = datetime(9000, 1, 1, tzinfo=timezone.utc)
_FAR = datetime.max.replace(tzinfo=timezone.utc)


def later(when: datetime, span: timedelta) -> datetime:
    """`when + span`, or the last moment a date can hold when that is past it (a deadline
    stored before LATEST was checked: resolve never fails on it)."""
    try:
        return when + span
    except OverflowError:
        return _FAR


def grace_end(deadline: str | None, grace_seconds: int | None) -> str | None:
    """When a turn's grace period (the game option `grace`) ends and the missing players'
    default orders apply: the deadline plus the grace; None without a deadline or a grace."""
    if not deadline or not grace_seconds:
        return None
    return iso(later(parse_time(deadline), timedelta(seconds=grace_seconds)))


MAX_EVERY_DAYS = 3660  # ten years a turn: longer is a typo, and far later dates overflow
_DURATION = re.compile(r"^\s*(?:(\d+)d)?\s*(?:(\d+)h)?\s*(?:(\d+)m)?\s*$")


def parse_every(text: str) -> timedelta:
    m = _DURATION.match(text or "")
    if not text or not m or not any(m.groups()):
        raise PbemError(f"--every '{text}' is not a duration like 72h, 3d or 2d12h")
    d, h, mins = (int(x or 0) for x in m.groups())
    minutes = (d * 24 + h) * 60 + mins  # Python ints: no overflow before the check
    if minutes > MAX_EVERY_DAYS * 24 * 60:
        raise PbemError(f"--every '{text}' is too long: at most {MAX_EVERY_DAYS} days ({MAX_EVERY_DAYS}d)")
    value = timedelta(minutes=minutes)
    if value <= timedelta(0):
        raise PbemError("--every must be longer than zero")
    return value


def make_schedule(every: str | None, at: str | None, tz: str | None) -> dict | None:
    if not every:
        if at or tz:
            raise PbemError("--at and --tz need --every")
        return None
    parse_every(every)
    if at and not re.fullmatch(r"([01]?\d|2[0-3]):[0-5]\d", at):
        raise PbemError(f"--at '{at}' is not a time like 20:00")
    zone = tz or "UTC"
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise PbemError(f"--tz '{zone}' is not a known time zone (e.g. Europe/London)") from err
    return {"every": every, "at": at, "tz": zone}


def deadline(schedule: dict | None, opened: datetime) -> datetime | None:
    """The deadline of a phase opened at `opened`; None without a schedule, or when it would
    be past the last date a date can hold (a turn opened after a deadline in the year 9999
    stored before LATEST was checked: it waits without one; issue 17)."""
    if not schedule:
        return None
    try:
        return _deadline(schedule, opened)
    except OverflowError:
        return None


def _deadline(schedule: dict, opened: datetime) -> datetime:
    zone = ZoneInfo(schedule["tz"])
    if schedule.get("at"):
        # "3 days later at 20:00" is calendar arithmetic in the local zone (aware datetimes
        # add wall-clock time), so a clock change in between does not shift the day.
        due = opened.astimezone(zone) + parse_every(schedule["every"])
        hh, mm = (int(x) for x in schedule["at"].split(":"))
        due = due.replace(hour=hh, minute=mm, second=0, microsecond=0)
        if due <= opened:
            due += timedelta(days=1)
    else:
        due = opened + parse_every(schedule["every"])
    return due.astimezone(timezone.utc)


def show(value: str | None, schedule: dict | None) -> str:
    """A deadline for people: in the game's zone, with UTC beside it."""
    if not value:
        return "none set (the GM resolves when all orders are in)"
    when = parse_time(value)
    zone = ZoneInfo(schedule["tz"]) if schedule else timezone.utc
    try:
        local = when.astimezone(zone)
    except OverflowError:  # (the last hours of the year 9999, east of UTC)
        local = when
    return f"{local:%a %d %b %Y %H:%M} {local.tzname()} ({iso(when)})"
