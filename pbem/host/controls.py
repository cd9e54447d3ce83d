"""The GM's controls between deadlines, as library functions over the store.

Every GM action (a deadline moved, a pause, an option changed, a seat changed, the game
ended) is a row of `gm_actions` (who, what, when, why: `record_action`) and is announced to
the players it affects (`announce`: mail through the outbox, and a row of `announcements` the
site shows). Each function checks everything first and raises a PbemError subclass with a
message that quotes the input, so that bad input changes nothing.

Deadlines: `set_deadline`, `pause`, `resume`; game options: `set_option` (grace, remind, early,
absences, press, seat_policy, gm_email, reaction_deadline; see OPTIONS; `reaction_deadline`
gives a phase that asks a reaction live its shorter deadline); `remind` (due reminders and "late"
notices, each once per phase); players' WAIT (`wait`) and `absent`; `games_list` (`pbem
list`); `end_game` and the players' votes (`propose`).

Choices (what a player of an email judge would expect):
- A paused game has no deadline: it keeps the time that was left and `resume` gives it back
  (or sets the deadline given). Orders are still taken while paused; nothing resolves.
- Grace: once the deadline has passed, the players still missing get one "late" notice and
  the turn waits `grace` longer before the defaults (NMR) apply.
- Bot and vacant seats are never awaited: a bot's orders are made at resolution, a vacant
  seat gets the defaults. They do not vote on a draw or concession either.
- DRAW: the game ends drawn, shared by every seat, when every voting player has a vote for
  it standing. CONCEDE: "I give up, score the game as it stands": when every voting player
  who is not among the leaders (the highest score by the game's rules) has a concession
  standing, the game ends and the leaders win (a leader's own concession counts too, so a
  game where everyone is level ends shared by all). A vote (one a player) stands across
  turns -- in GODS, Oh Gods!, Ye Gods! and Deity a turn is one player's move -- until its
  sender withdraws it (NODRAW, NOCONCEDE), sends the other one, leaves the seat, or it
  lapses: once every other voting player has been asked for orders in a turn opened after
  it and that turn is resolved (a full round; in Faith, where all play at once, the turn
  after the vote's). The other voting players are mailed each vote and withdrawal; the
  sender is mailed when it lapses (tester4 finding 06).
- Absences: each player may declare `absences` days per game (default 7). A deadline that
  falls inside a declared absence moves to its end; the part of an absence beyond the
  allowance is not recorded, and the player is told that the defaults apply then. A day is
  charged once, however many declarations cover it (a resend, an overlap: tester4 finding
  05); an absence with no day left to charge is refused, nothing recorded.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.core.errors import InputError, NotFound, PbemError
from pbem.core.numbers import whole
from pbem.core.words import plural
from pbem.host import outbox, read, schedule
from pbem.host.read import HOST_DEFAULTS, host_options
from pbem.host.store import dumps, loads

__all__ = [
    "OPTIONS", "absent", "announce", "end_game", "games_list", "lapse_votes", "pause", "propose", "record_action",
    "remind", "resume", "set_deadline", "set_option", "settle_votes", "split_options", "validate_options", "wait",
    "withdraw",
]

_DURATION = re.compile(r"^\s*(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*$", re.IGNORECASE)
_TRUE = {"1", "true", "yes", "y", "on"}
_FALSE = {"0", "false", "no", "n", "off"}


# --- game options --------------------------------------------------------------------------

def parse_duration(text: str, what: str = "duration", allow_zero: bool = True) -> timedelta:
    """'24h', '3d', '2d12h', '90m' (and '0' or 'off' for none, when allowed) as a timedelta."""
    raw = str(text if text is not None else "").strip()
    if allow_zero and raw.lower() in ("0", "off", "none"):
        return timedelta(0)
    m = _DURATION.match(raw)
    if not raw or not m or not any(m.groups()):
        raise InputError(f"{what} '{raw}' is not a duration like 24h, 3d, 2d12h or 90m")
    d, h, mins = (int(x or 0) for x in m.groups())
    if (d * 24 + h) * 60 + mins > 366 * 24 * 60:  # (Python ints: checked before a timedelta overflows)
        raise InputError(f"{what} '{raw}' is longer than a year: the largest allowed is 366d")
    value = timedelta(days=d, hours=h, minutes=mins)
    if value <= timedelta(0) and not allow_zero:
        raise InputError(f"{what} '{raw}' must be longer than zero")
    return value


def _duration_option(name: str):
    def check(value: str) -> str:
        td = parse_duration(value, f"{name}")
        return "off" if not td else str(value).strip().lower().replace(" ", "")
    return check


def _bool_option(name: str):
    def check(value: str) -> str:
        word = str(value).strip().lower()
        if word in _TRUE:
            return "on"
        if word in _FALSE:
            return "off"
        raise InputError(f"{name} '{value}' is not on or off")
    return check


def _absences(value: str) -> str:
    days = whole(str(value), digits=3)  # 0-9 only: `absences ²` is refused, not an int() error
    if days is None or days > 365:
        raise InputError(f"absences '{value}' is not a number of days from 0 to 365")
    return str(days)


def _choice(name: str, allowed: tuple[str, ...]):
    def check(value: str) -> str:
        word = str(value).strip().lower()
        if word not in allowed:
            raise InputError(f"{name} '{value}' is not one of {', '.join(allowed)}")
        return word
    return check


def _gm_email(value: str) -> str:
    word = str(value).strip()
    if word.lower() in ("", "none", "off"):
        return ""
    try:
        return clean_email(word)
    except PbemError:
        raise InputError(f"gm_email '{value}' is not an email address") from None


# name: (check, what it means); defaults in pbem.host.read.HOST_DEFAULTS
OPTIONS = {
    "grace": (_duration_option("grace"), "after the deadline, missing players get a 'late' notice and the turn waits this long before NMR (e.g. 12h; off)"),
    "remind": (_duration_option("remind"), "awaited players are reminded this long before the deadline, once per turn (e.g. 24h; off)"),
    "early": (_bool_option("early"), "on: resolve before the deadline as soon as every player asked is ready; off: wait for the deadline"),
    "absences": (_absences, "days of absence (ABSENT) each player may declare in this game"),
    "press": (_choice("press", ("none", "white", "grey")), "none, white (signed) or grey (anonymous to the players) press"),
    "seat_policy": (_choice("seat_policy", ("vacant", "bot")), "what a RESIGN leaves: a vacant seat (default orders) or a bot"),
    "gm_email": (_gm_email, "the GM's address: resignations and other player notices go there"),
    "reaction_deadline": (_duration_option("reaction_deadline"), "the deadline of a phase that asks one player a reaction live "
                          "(a game with reactions=ask): this long after it opens, or the usual deadline if sooner (e.g. 12h; off: the usual deadline)"),
}


def reaction_deadline(game: dict, state: dict, opened: datetime, due: datetime | None) -> datetime | None:
    """The deadline of a phase that opens at `opened` with `state`: a reaction asked live (the
    flow's pace is "reaction") gets the game's `reaction_deadline` after it opens when that is
    set and sooner than `due` (the schedule's deadline, or None); any other phase keeps `due`."""
    if state["flow"].get("pace") != "reaction" or state["flow"].get("over"):
        return due
    short = parse_duration(host_options(None, game)["reaction_deadline"])
    if not short:
        return due
    return opened + short if due is None else min(due, opened + short)


def check_useful(game_type: str, rules_options: dict | None, host_options: dict[str, str], game_id: str) -> None:
    """Finding 13: `reaction_deadline` (checked already) is refused for a game that never asks
    a player a reaction live (its rules' `asks_live` with its options): it would do nothing."""
    from pbem.core.registry import get_rules

    if host_options.get("reaction_deadline", "off") == "off":
        return
    rules = get_rules(game_type)
    if not rules.asks_live(rules_options or {}):
        raise InputError(f"reaction_deadline '{host_options['reaction_deadline']}': game '{game_id}' ({rules.info.title}) "
                         "never asks a player a reaction live, so it would never be used (it is for Oh Gods! and Deity "
                         "with the option reactions=ask, and Faith's battle rounds); nothing was changed")


def clean_email(value: str | None) -> str:
    """A plain email address pbem can write, or a clean error quoting the input (the checker of
    pbem.host.addresses when there is one, else the outbox's)."""
    try:
        from pbem.host.addresses import check_address
    except ImportError:
        check_address = None
    if check_address is not None:
        return check_address(value)
    addr = outbox.clean_address(value)
    if not addr or addr != str(value or "").strip():
        raise InputError(f"'{value}' is not an email address")
    return addr


def split_options(options: dict[str, str] | None) -> tuple[dict[str, str], dict[str, str]]:
    """(the game rules' options, the host's options): keys the host knows (OPTIONS) are the
    host's; the rest belong to the game's rules."""
    rules_opts, host_opts = {}, {}
    for key, value in (options or {}).items():
        (host_opts if key.strip().lower() in OPTIONS else rules_opts)[key] = value
    return rules_opts, validate_options(host_opts)


def validate_options(options: dict[str, str]) -> dict[str, str]:
    """The host options, checked and normalised; InputError quoting the first bad one."""
    out = {}
    for key, value in options.items():
        name = key.strip().lower()
        if name not in OPTIONS:
            raise InputError(f"unknown game option '{key}'; the options are {', '.join(OPTIONS)}")
        out[name] = OPTIONS[name][0](value)
    return out


def option_columns(options: dict[str, str]) -> dict:
    """The games columns that mirror options so that `due_games` can use them in SQL."""
    merged = {**HOST_DEFAULTS, **options}
    grace = parse_duration(merged["grace"])
    return {"host_options": dumps(options), "grace": int(grace.total_seconds()), "early": int(merged["early"] == "on")}


def set_option(db, game_id: str, key: str, value: str, *, by: str = "gm") -> dict:
    """Change one game option (`pbem set GAME KEY VALUE`); recorded and announced. A game
    open for sign-up keeps it for when it starts (nobody to tell yet)."""
    signup = read.open_game(db, game_id)
    name = (key or "").strip().lower()
    if signup:
        checked = validate_options({name: value})[name]
        check_useful(signup["type"], loads(signup.get("options")), {name: checked}, signup["id"])
        options = loads(signup.get("host_options")) or {}
        old = {**HOST_DEFAULTS, **options}.get(name)
        options[name] = checked
        with db.atomic():
            db["signups"].update(signup["id"], {"host_options": dumps(options)})
            record_action(db, signup["id"], by=by, action="set", detail=f"{name}={checked} (was {old}; open for sign-up)")
        return {"game": signup["id"], "option": name, "value": checked, "was": old}
    game = read.game(db, game_id)
    checked = validate_options({name: value})[name]
    _running(game, f"change its option {name}")  # finding 13: like every other control of a finished game
    check_useful(game["type"], loads(game.get("options")), {name: checked}, game["id"])
    options = loads(game.get("host_options")) or {}
    old = {**HOST_DEFAULTS, **options}.get(name)
    options[name] = checked
    with db.atomic():
        db["games"].update(game["id"], option_columns(options))
        record_action(db, game["id"], by=by, action="set", detail=f"{name}={checked} (was {old})")
        if name != "gm_email":  # the GM's own address is nobody else's business
            announce(db, game["id"], subject=f"option {name} is now {checked}",
                     text=f"The GM set the game option {name} to {checked} (it was {old}): {OPTIONS[name][1]}.\n")
    return {"game": game["id"], "option": name, "value": checked, "was": old}


# --- the GM-action log and announcements -------------------------------------------------------

def record_action(db, game_id: str, *, by: str, action: str, detail: str, reason: str | None = None) -> int:
    """One row of the GM-action log: who, what, when, why. Returns its id."""
    return db.execute(
        "insert into gm_actions (game_id, at, by, action, detail, reason) values (?, ?, ?, ?, ?, ?)",
        [game_id, schedule.iso(schedule.now()), by, action, detail, reason or None]).lastrowid


def announce(db, game_id: str, *, subject: str, text: str, to: list[str] | None = None) -> int:
    """Tell players something: mail to each (every seated player with an address, and the
    observers, when `to` is None -- a public announcement the site shows; else the named
    players only) and a row of `announcements`. Returns the announcement's id."""
    game = read.game(db, game_id)
    public = to is None
    seats = read.players(db, game["id"])
    names = {p["name"] for p in seats}
    unknown = [n for n in (to or []) if n not in names]
    if unknown:
        raise NotFound(f"game '{game_id}' has no player '{unknown[0]}'")
    aid = db.execute(
        "insert into announcements (game_id, at, phase, subject, text, public) values (?, ?, ?, ?, ?, ?)",
        [game["id"], schedule.iso(schedule.now()), game["phase"], subject, text, int(public)]).lastrowid
    full_subject = f"[{game['id']}] {subject}"
    body = text.rstrip("\n") + "\n" + outbox.footer(game["id"])
    for p in seats:
        if (public or p["name"] in to) and p.get("email") and not p.get("vacant"):
            outbox.queue(db, kind="notice", to_addr=p["email"], subject=full_subject, body=body,
                         game_id=game["id"], phase=game["phase"], player=p["name"])
    if public:
        for email in observer_addresses(db, game["id"]):
            outbox.queue(db, kind="notice", to_addr=email, subject=full_subject,
                         body=text.rstrip("\n") + "\n" + observer_footer(game["id"], over=game["status"] == "finished"),
                         game_id=game["id"], phase=game["phase"])
    return aid


def observer_addresses(db, game_id: str) -> list[str]:
    return [r[0] for r in db.execute("select email from observers where game_id = ? order by email", [game_id]).fetchall()]


def tell_gm(db, game_id: str, subject: str, text: str, fallback: str | None = None) -> int | None:
    """Mail the GM (the game's gm_email option, else `fallback`: the host's GM address, [mail]
    gm of pbem.toml, which the mail layer passes) when one is set; the GM-action log and
    `pbem status` show it either way."""
    addr = host_options(db, game_id).get("gm_email") or fallback
    if not addr:
        return None
    return outbox.queue(db, kind="gm", to_addr=addr, subject=f"[{game_id}] {subject}", body=text, game_id=game_id)


# --- deadlines -------------------------------------------------------------------------------

def _zone(name: str | None, game: dict) -> ZoneInfo:
    sched = loads(game.get("schedule")) or {}
    zone = name or sched.get("tz") or "UTC"
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(f"--tz '{zone}' is not a known time zone (e.g. Europe/London)") from None


def parse_when(text: str | datetime | date, zone: ZoneInfo, what: str = "time", end_of_day: bool = False) -> datetime:
    """'2026-12-01 20:00', '2026-12-01T20:00', '2026-12-01' (midnight; the next midnight with
    `end_of_day`), or an ISO time with its own offset, read in `zone` unless it has one."""
    try:  # issue 17: the last day of the year 9999 has no next midnight, nor a time west of UTC
        if isinstance(text, datetime):
            value = text
        elif isinstance(text, date):
            value = datetime(text.year, text.month, text.day) + (timedelta(days=1) if end_of_day else timedelta(0))
        else:
            raw = str(text or "").strip()
            try:
                value = datetime.fromisoformat(raw.replace("Z", "+00:00").replace(" ", "T", 1) if len(raw) > 10 else raw)
            except ValueError:
                raise InputError(f"{what} '{raw}' is not a date and time like 2026-12-01 20:00") from None
            if len(raw) <= 10 and end_of_day:
                value += timedelta(days=1)
        if value.tzinfo is None:
            value = value.replace(tzinfo=zone)
        return value.astimezone(UTC)
    except OverflowError:
        raise InputError(f"{what} '{text}' is too far ahead: dates go up to the year 9999") from None


def _not_too_late(when: datetime, at: str) -> None:
    """issue 17: a deadline past schedule.LATEST is refused (the turns after it, its grace,
    would not fit in a date)."""
    if when >= schedule.LATEST:
        raise InputError(f"--at '{at}' is too far ahead: a deadline must be before {schedule.iso(schedule.LATEST)}")


def _running(game: dict, doing: str) -> None:
    if game["status"] != "running":
        raise PbemError(f"game '{game['id']}' is {'over' if game['status'] == 'finished' else game['status']}; cannot {doing}")


def _show(game: dict, when: str | None) -> str:
    return schedule.show(when, loads(game.get("schedule")))


def _move_deadline(db, game: dict, when: datetime | None) -> str | None:
    value = schedule.iso(when)
    db["games"].update(game["id"], {"deadline": value})
    db.execute("update phases set deadline = ? where game_id = ? and number = ?", [value, game["id"], game["phase"]])
    return value


def set_deadline(db, game_id: str, *, extend: str | None = None, at: str | None = None, tz: str | None = None,
                 by: str = "gm", reason: str | None = None) -> dict:
    """Move the open turn's deadline: `extend` ('24h') adds to it (to now when there is none),
    `at` ('2026-12-01 20:00', in `tz` or the game's zone) sets it. It must be in the future."""
    game = read.game(db, game_id)
    if (extend is None) == (at is None):
        raise InputError("give either --extend DURATION or --at TIME")
    if tz and at is None:
        raise InputError("--tz goes with --at")
    _running(game, "move its deadline")
    if game.get("paused"):
        raise PbemError(f"game '{game['id']}' is paused; `pbem resume {game['id']} --at TIME` sets its deadline")
    now = schedule.now()
    old = game["deadline"]
    if extend is not None:
        span = parse_duration(extend, "--extend", allow_zero=False)
        when = max(schedule.parse_time(old), now) + span if old else now + span
    else:
        when = parse_when(at, _zone(tz, game), "--at")
    if when <= now:
        raise InputError(f"--at '{at}' is in the past (now is {schedule.iso(now)})")
    if when >= schedule.LATEST:
        if at is None:
            raise InputError(f"--extend '{extend}' moves the deadline too far ahead: a deadline must be before "
                             f"{schedule.iso(schedule.LATEST)}")
        _not_too_late(when, at)
    with db.atomic():
        new = _move_deadline(db, game, when)
        record_action(db, game["id"], by=by, action="deadline", detail=f"turn {game['phase']}: {old or 'none'} -> {new}",
                      reason=reason)
        announce(db, game["id"], subject=f"turn {game['phase']} deadline moved",
                 text=f"The deadline of turn {game['phase']} is now {_show(game, new)}"
                      f" (it was {_show(game, old) if old else 'not set'}).\n" + (f"Reason: {reason}\n" if reason else ""))
    # finding 10: the GM's own time stands, even inside a declared absence; the GM is told
    return {"game": game["id"], "turn": game["phase"], "deadline": new, "was": old,
            "warnings": absence_warning(db, game, new)}


def pause(db, game_id: str, *, reason: str | None = None, by: str = "gm") -> dict:
    """Stop the clock: no deadline runs and nothing resolves until `resume` (orders are still
    taken). The time that was left is kept for `resume`."""
    game = read.game(db, game_id)
    _running(game, "pause it")
    if game.get("paused"):
        raise PbemError(f"game '{game['id']}' is already paused (since {game['paused']})")
    now = schedule.now()
    left = max(0, int((schedule.parse_time(game["deadline"]) - now).total_seconds())) if game["deadline"] else None
    with db.atomic():
        db["games"].update(game["id"], {"paused": schedule.iso(now), "paused_left": left})
        _move_deadline(db, game, None)
        record_action(db, game["id"], by=by, action="pause", detail=f"turn {game['phase']}; deadline was {game['deadline'] or 'none'}",
                      reason=reason)
        announce(db, game["id"], subject="game paused",
                 text=f"The GM has paused game {game['id']} at turn {game['phase']}: no deadline runs and no turn is "
                      "resolved until the game resumes. You may still send orders.\n" + (f"Reason: {reason}\n" if reason else ""))
    return {"game": game["id"], "paused": schedule.iso(now), "left_seconds": left}


def resume(db, game_id: str, *, at: str | None = None, tz: str | None = None, by: str = "gm",
           reason: str | None = None) -> dict:
    """Restart a paused game's clock: the deadline is `at`, else now plus the time that was
    left when it was paused (no deadline if it had none)."""
    game = read.game(db, game_id)
    _running(game, "resume it")
    if not game.get("paused"):
        raise PbemError(f"game '{game['id']}' is not paused")
    if tz and at is None:
        raise InputError("--tz goes with --at")
    now = schedule.now()
    if at is not None:
        when = parse_when(at, _zone(tz, game), "--at")
        if when <= now:
            raise InputError(f"--at '{at}' is in the past (now is {schedule.iso(now)})")
        _not_too_late(when, at)
        moved_by = []
    else:
        left = game.get("paused_left")
        when = now + timedelta(seconds=max(left, 3600)) if left is not None else None
        if when is not None and (when.second or when.microsecond):  # to the minute: 00:00, not 00:00:13
            when = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
        when, moved_by = past_absences(db, game["id"], when)  # finding 10: not inside a declared absence
    absent_note = ", the end of a player's declared absence" if moved_by else ""
    with db.atomic():
        db["games"].update(game["id"], {"paused": None, "paused_left": None})
        new = _move_deadline(db, game, when)
        record_action(db, game["id"], by=by, action="resume", detail=f"turn {game['phase']}: deadline {new or 'none'}"
                      + (f" (absence: {', '.join(a['player'] for a in moved_by)})" if moved_by else ""), reason=reason)
        announce(db, game["id"], subject="game resumed",
                 text=f"Game {game['id']} has resumed at turn {game['phase']}. Deadline: {_show(game, new)}{absent_note}.\n"
                      + (f"Reason: {reason}\n" if reason else ""))
    return {"game": game["id"], "deadline": new, "absences": moved_by,
            "warnings": absence_warning(db, game, new) if at is not None else []}


# --- reminders and late notices ---------------------------------------------------------------

def _awaited(db, game: dict) -> tuple[list[str], dict[str, str]]:
    """(players asked now, {asked human player: why not ready}); bot and vacant seats are never awaited."""
    from pbem.core import engine
    from pbem.core.registry import get_rules

    rules = get_rules(game["type"])
    asked = engine.active_players(rules, read.current_state(db, game))
    skip = {p["name"] for p in read.players(db, game["id"]) if p.get("bot") or p.get("vacant")}
    unready = read.not_ready(db, game["id"], game["phase"], [p for p in asked if p not in skip])
    return asked, unready


def remind(db, game_id: str | None = None, *, now: datetime | None = None) -> list[dict]:
    """Send what is due: a reminder to each awaited player `remind` before the deadline, and
    a "late" notice once the deadline has passed in a game with `grace`; each at most once
    per player and turn, so running it again sends nothing new. Returns what was queued."""
    now = now or schedule.now()
    games = [read.game(db, game_id)] if game_id else read.rows(
        db, "select * from games where status = 'running' and paused is null and deadline is not null order by id")
    sent = []
    for game in games:
        if game["status"] != "running" or game.get("paused") or not game["deadline"]:
            continue
        opts = host_options(db, game["id"])
        due = schedule.parse_time(game["deadline"])
        before = parse_duration(opts["remind"])
        grace = parse_duration(opts["grace"])
        if before and due - before <= now < due:  # (issue 17: schedule.later, a deadline stored far ahead)
            kind = "remind"
        elif grace and due <= now < schedule.later(due, grace):
            kind = "late"
        else:
            continue
        _, unready = _awaited(db, game)
        seats = {p["name"]: p for p in read.players(db, game["id"])}
        with db.atomic():
            for name, why in unready.items():
                if db.execute("select 1 from notices where game_id = ? and phase = ? and player = ? and kind = ?",
                              [game["id"], game["phase"], name, kind]).fetchone():
                    continue
                db.execute("insert into notices (game_id, phase, player, kind, at) values (?, ?, ?, ?, ?)",
                           [game["id"], game["phase"], name, kind, schedule.iso(now)])
                if kind == "remind":
                    subject = f"[{game['id']}] reminder: turn {game['phase']} deadline {game['deadline']}"
                    text = (f"A reminder: your orders for turn {game['phase']} of game {game['id']} are awaited "
                            f"({why}).\nDeadline: {_show(game, game['deadline'])}.\n")
                else:
                    subject = f"[{game['id']}] LATE: turn {game['phase']} orders"
                    text = (f"The deadline of turn {game['phase']} of game {game['id']} has passed and your orders "
                            f"are missing ({why}).\nThe turn waits until {_show(game, schedule.iso(schedule.later(due, grace)))}; "
                            "after that, the game's default orders are used for you.\n")
                oid = outbox.queue(db, kind=kind, to_addr=seats[name].get("email"), subject=subject,
                                   body=text + outbox.footer(game["id"]), game_id=game["id"], phase=game["phase"], player=name)
                sent.append({"game": game["id"], "turn": game["phase"], "player": name, "kind": kind, "queued": oid is not None})
    return sent


# --- WAIT and absences ---------------------------------------------------------------------

def _seat(db, game_id: str, player: str) -> tuple[dict, dict]:
    game = read.game(db, game_id)
    return game, read.player(db, game["id"], player)


def wait(db, game_id: str, player: str, on: bool) -> str:
    """WAIT (on) / NOWAIT (off) for the open turn: a waiting player keeps it from resolving
    before its deadline. Returns the sentence for the acknowledgement."""
    game, seat = _seat(db, game_id, player)
    _running(game, "WAIT")
    if on:  # a WAIT holds a turn only for a player it asks for orders (pbem.host.service counts no other)
        row = db.execute("select active from phases where game_id = ? and number = ?", [game["id"], game["phase"]]).fetchone()
        asked = loads(row[0]) if row and row[0] else []
        if seat["name"] not in asked:
            raise PbemError(f"WAIT has no effect: you are not asked for orders in turn {game['phase']} of {game['id']}, "
                            f"so it resolves when the players asked ({', '.join(asked) or 'none'}) are ready or at its "
                            "deadline. Nothing was recorded; send WAIT again in a turn that asks you for orders")
    with db.atomic():
        if on:
            db.execute("insert or replace into waits (game_id, phase, player, at) values (?, ?, ?, ?)",
                       [game["id"], game["phase"], seat["name"], schedule.iso(schedule.now())])
        else:
            db.execute("delete from waits where game_id = ? and phase = ? and player = ?",
                       [game["id"], game["phase"], seat["name"]])
    if on and not game["deadline"]:  # no deadline to wait for: only the GM resolves it then
        return (f"WAIT: turn {game['phase']} of {game['id']} has no deadline: it will not resolve until you send "
                "NOWAIT or the GM resolves it.")
    if on:
        return (f"WAIT: turn {game['phase']} of {game['id']} will not resolve before its deadline "
                f"({_show(game, game['deadline'])}) unless you send NOWAIT.")
    return f"NOWAIT: turn {game['phase']} of {game['id']} may resolve as soon as everyone is ready."


def waiting(db, game_id: str, number: int) -> list[str]:
    """The players who sent WAIT for turn `number`."""
    return [r[0] for r in db.execute("select player from waits where game_id = ? and phase = ? order by player",
                                     [game_id, number]).fetchall()]


def drop_seat_flags(db, game: dict, seat: str) -> list[str]:
    """What the person leaving `seat` had said for it that is theirs, not the seat's (finding
    03): their WAIT (it held the turn for them), their DRAW/CONCEDE vote and their declared
    absences (a newcomer has the game's whole allowance). Deleted, inside
    the caller's transaction, when the person playing the seat changes (a resignation, a
    replacement, a bot taking over); returns what was withdrawn, as words for the notices
    ("WAIT for turn 3", "vote for a draw"; see `withdrawn`). The seat's orders stay: they are
    its orders."""
    gone = []
    for (number,) in db.execute("select phase from waits where game_id = ? and player = ? and phase >= ? order by phase",
                                [game["id"], seat, game["phase"]]).fetchall():
        gone.append(f"WAIT for turn {number}")
    for (kind,) in db.execute("select kind from proposals where game_id = ? and player = ? order by phase",
                              [game["id"], seat]).fetchall():
        words = _VOTE.get(kind, kind)
        if words not in gone:
            gone.append(words)
    now = schedule.iso(schedule.now())
    row = db.execute("select deadline from phases where game_id = ? and number = ?", [game["id"], game["phase"]]).fetchone()
    deadline = row[0] if row else None
    for begin, end in db.execute("select start, [end] from absences where game_id = ? and player = ? and [end] > ? "
                                 "order by start", [game["id"], seat, now]).fetchall():
        # the re-check of finding 03: a deadline this absence moved is not moved back (everyone
        # was told it; the others may count on it); the notice says so instead of leaving it unsaid
        kept = (f" (turn {game['phase']}'s deadline, moved to its end, stays there as announced)"
                if deadline and schedule.parse_time(deadline) == schedule.parse_time(end) else "")
        gone.append(f"absence from {_show(game, begin)} to {_show(game, end)}{kept}")
    db.execute("delete from waits where game_id = ? and player = ?", [game["id"], seat])
    db.execute("delete from proposals where game_id = ? and player = ?", [game["id"], seat])
    # a declared absence is its person's too: a deadline moved for it stays, none moves for it
    # any more, and a newcomer has the whole allowance
    db.execute("delete from absences where game_id = ? and player = ?", [game["id"], seat])
    return gone


def withdrawn(gone: list[str], whose: str) -> str:
    """The sentence for what `drop_seat_flags` withdrew: "Your WAIT for turn 3 is withdrawn."
    ('' when nothing was)."""
    if not gone:
        return ""
    what = gone[0] if len(gone) == 1 else ", ".join(gone[:-1]) + " and " + gone[-1]
    return f"{whose} {what} {'is' if len(gone) == 1 else 'are'} withdrawn."


def absent(db, game_id: str, player: str, start, end) -> str:
    """Declare an absence (dates, or times, in the game's zone; a date alone covers that whole
    day). Within the game's `absences` allowance (days per player), a deadline falling inside
    it moves to its end; the rest is not covered and the player is told the defaults apply
    then. Returns the sentence to tell them."""
    game, seat = _seat(db, game_id, player)
    _running(game, "declare an absence")
    zone = _zone(None, game)
    begin = parse_when(start, zone, "FROM")
    finish = parse_when(end, zone, "TO", end_of_day=True)
    now = schedule.now()
    today = now.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    if begin < today:
        raise InputError(f"ABSENT FROM '{start}' is in the past")
    if finish <= begin:
        raise InputError(f"ABSENT TO '{end}' is not after FROM '{start}'")
    allowance = int(host_options(db, game["id"])["absences"])
    # finding 05: the allowance counts days of absence, not declarations: a day declared
    # before (a resend, an overlap) is not charged again
    before = _periods(db, game["id"], seat["name"])
    used = _days(before)
    left = allowance - used
    fresh = _uncovered(before, begin, finish)
    if not fresh:
        return (f"ABSENT: from {_show(game, schedule.iso(begin))} to {_show(game, schedule.iso(finish))} you are "
                f"declared absent already; nothing new is recorded or charged ({used} of your "
                f"{plural(allowance, 'day')} used, {max(left, 0)} left).")
    if left <= 0:
        raise PbemError(f"ABSENT: you have used all {plural(allowance, 'day')} of absence this game allows; nothing was "
                        f"recorded: from {_show(game, schedule.iso(fresh[0][0]))} to "
                        f"{_show(game, schedule.iso(fresh[-1][1]))} no deadline moves for you, and if your orders are "
                        "missing at a deadline the default orders are used")
    covered_end = _allowance_end(before, begin, finish, left)
    days = _days(before + [(begin, covered_end)]) - used
    with db.atomic():
        db["absences"].insert({"game_id": game["id"], "player": seat["name"], "start": schedule.iso(begin),
                               "end": schedule.iso(covered_end), "days": days, "declared": schedule.iso(now)})
        moved = apply_absences(db, game["id"], game["phase"], game["deadline"], None, by=f"player:{seat['name']}")
    shown = _show(game, schedule.iso(covered_end))
    out = (f"ABSENT: recorded from {_show(game, schedule.iso(begin))} to {shown} ({used + days} of your "
           f"{plural(allowance, 'day')} used, {left - days} left")
    out += f"; {plural(days, 'new day')} charged, the rest was declared already)." if _days([(begin, covered_end)]) > days else ")."
    if moved:
        out += f" The deadline of turn {game['phase']} moves to {_show(game, moved)}."
    if covered_end < finish:
        out += (f" That is all your allowance: from {shown} to {_show(game, schedule.iso(finish))} no deadline moves "
                "for you, and the default orders are used if yours are missing.")
    return out


def _periods(db, game_id: str, player: str) -> list[tuple[datetime, datetime]]:
    """A player's recorded absences, as (start, end) times."""
    return [(schedule.parse_time(a), schedule.parse_time(b)) for a, b in db.execute(
        "select start, [end] from absences where game_id = ? and player = ? order by start", [game_id, player]).fetchall()]


def _union(periods: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    out: list[list[datetime]] = []
    for a, b in sorted(periods):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _days(periods: list[tuple[datetime, datetime]]) -> int:
    """The days of absence the periods cover together (each day once, however often declared)."""
    return math.ceil(sum((b - a).total_seconds() for a, b in _union(periods)) / 86400)


def _uncovered(periods: list[tuple[datetime, datetime]], begin: datetime, finish: datetime) -> list[tuple[datetime, datetime]]:
    """The parts of [begin, finish) no period covers, in order."""
    out, at = [], begin
    for a, b in _union(periods):
        if b <= at or a >= finish:
            continue
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < finish:
        out.append((at, finish))
    return out


def _allowance_end(periods: list[tuple[datetime, datetime]], begin: datetime, finish: datetime, left: int) -> datetime:
    """How far from `begin` towards `finish` an absence is covered with `left` days still
    allowed: the new days (those no recorded period covers) are charged, the others are free."""
    budget = left * 86400.0
    for a, b in _uncovered(periods, begin, finish):
        span = (b - a).total_seconds()
        if span >= budget:
            return a + timedelta(seconds=budget)
        budget -= span
    return finish


def absences_at(db, game_id: str, when: datetime, asked: list[str] | None = None) -> list[dict]:
    """The declared absences that cover the time `when` of the players asked in the open turn
    (`asked`, else worked out) who are people (bot and vacant seats are never awaited):
    [{player, start, end}], the one that ends last first."""
    if asked is None:
        asked, _ = _awaited(db, read.game(db, game_id))
    humans = [p["name"] for p in read.players(db, game_id) if p["name"] in asked and not p.get("bot") and not p.get("vacant")]
    if not humans:
        return []
    marks = ",".join("?" * len(humans))
    return [{"player": r[0], "start": r[1], "end": r[2]} for r in db.execute(
        f"select player, start, [end] from absences where game_id = ? and player in ({marks}) and start <= ? and [end] > ? "
        "order by [end] desc, player", [game_id, *humans, schedule.iso(when), schedule.iso(when)]).fetchall()]


def past_absences(db, game_id: str, due: datetime | None, asked: list[str] | None = None) -> tuple[datetime | None, list[dict]]:
    """The rule for every deadline the system sets (a turn opened, an absence declared, `pbem
    resume`, the fresh deadline of `pbem rollback`): a deadline falling inside a declared
    absence of a player asked moves to the absence's end (again when that end falls inside
    another). Returns (the deadline, the absences that moved it: [{player, start, end}])."""
    if due is None:
        return None, []
    if asked is None:
        asked, _ = _awaited(db, read.game(db, game_id))
    moved_by = []
    for _ in range(20):
        covering = absences_at(db, game_id, due, asked)
        if not covering:
            break
        moved_by.append(covering[0])
        due = schedule.parse_time(covering[0]["end"])
    return due, moved_by


def absence_warning(db, game: dict, when: str | None) -> list[str]:
    """What the GM is told when a deadline of their own choosing (`pbem deadline --at/--extend`,
    `pbem resume --at`) falls inside a declared absence of a player asked: the time is kept
    (the GM's choice), but that player gets the default orders if theirs are missing then."""
    if not when:
        return []
    return [f"the deadline {_show(game, when)} falls inside {a['player']}'s declared absence (from "
            f"{_show(game, a['start'])} to {_show(game, a['end'])}); {a['player']} is asked this turn and gets the "
            f"default orders if their orders are missing at it. The deadline stands as you set it; "
            f"`pbem deadline {game['id']} --at {a['end']}` moves it to the absence's end"
            for a in absences_at(db, game["id"], schedule.parse_time(when))]


def apply_absences(db, game_id: str, number: int, deadline: str | None, asked: list[str] | None, *,
                   by: str = "absence") -> str | None:
    """Move turn `number`'s deadline past the absences of the players asked (repeatedly, when
    one absence ends inside another); record and announce it. Returns the new deadline, or
    None when it does not move. Called when a turn opens and when an absence is declared."""
    if not deadline:
        return None
    game = read.game(db, game_id)
    due, _ = past_absences(db, game_id, schedule.parse_time(deadline), asked)
    if due == schedule.parse_time(deadline):
        return None
    new = schedule.iso(due)
    db["games"].update(game_id, {"deadline": new})
    db.execute("update phases set deadline = ? where game_id = ? and number = ?", [new, game_id, number])
    record_action(db, game_id, by=by, action="deadline", detail=f"turn {number}: {deadline} -> {new} (absence)")
    announce(db, game_id, subject=f"turn {number} deadline moved",
             text=f"The deadline of turn {number} falls inside a player's declared absence; it moves to {_show(game, new)}.\n")
    return new


# --- the list of games -------------------------------------------------------------------------

def game_state(game: dict) -> str:
    """open / running / paused / over."""
    if game["status"] == "open":
        return "open"
    if game["status"] == "finished":
        return "over"
    return "paused" if game.get("paused") else "running"


def games_list(db) -> list[dict]:
    """Every game (open sign-ups too): id, type, turn, state (open/running/paused/over),
    deadline and the players awaited -- what `pbem list` and the LIST mail command show."""
    out = []
    for g in read.games(db, order_by="id"):
        awaited, waits = [], []
        if g["status"] == "running":  # paused too: `pbem status` names them the same way
            asked, unready = _awaited(db, g)
            awaited = sorted(unready)
            waits = [p for p in waiting(db, g["id"], g["phase"]) if p in asked]
        out.append({"id": g["id"], "type": g["type"], "turn": g["phase"], "state": game_state(g),
                    "deadline": g["deadline"], "awaited": awaited, "waiting": waits,
                    "grace_ends": schedule.grace_end(g["deadline"], g.get("grace")) if g["status"] == "running" else None,
                    "bots": [p["name"] for p in read.players(db, g["id"]) if p.get("bot")]})
    if read.has_table(db, "signups"):
        for s in read.rows(db, "select * from signups order by id"):
            joined = db.execute("select count(*) from signup_players where game_id = ?", [s["id"]]).fetchone()[0]
            out.append({"id": s["id"], "type": s["type"], "turn": 0, "state": "open", "deadline": None, "awaited": [],
                        "bots": [], "seats": s["seats"], "joined": joined})
    return sorted(out, key=lambda g: g["id"])


# --- the end of a game ------------------------------------------------------------------------

def _voters(db, game_id: str) -> list[str]:
    """The players who vote on a draw or a concession: every seat played by a person (not a
    bot, not vacant)."""
    return [p["name"] for p in read.players(db, game_id) if not p.get("bot") and not p.get("vacant")]


def _finish(db, game: dict, outcome: dict) -> None:
    now = schedule.iso(schedule.now())
    db["games"].update(game["id"], {"status": "finished", "finished": now, "outcome": dumps(outcome), "deadline": None,
                                    "paused": None, "paused_left": None})


def end_game(db, game_id: str, *, winners: list[str] | None = None, draw: bool = False, reason: str | None = None,
             by: str = "gm") -> dict:
    """End a running game now with a recorded result: the winners named, or a draw shared by
    every seat. The seed is revealed (as at any game's end)."""
    from pbem.core.registry import get_rules

    game = read.game(db, game_id)
    _running(game, "end it")
    if bool(winners) == bool(draw):
        raise InputError("give the winners (--winner NAME...) or --draw, not both and not neither")
    seats = [p["name"] for p in read.players(db, game["id"])]
    names = []
    for w in winners or []:
        name = read.player(db, game["id"], w)["name"]
        if name not in names:
            names.append(name)
    rules = get_rules(game["type"])
    scores = rules.scores(read.current_state(db, game))
    why = reason or ("a draw" if draw else "the GM's decision")
    outcome = {"winners": seats if draw else names, "scores": scores, "draw": bool(draw), "ended_by": by,
               "reason": f"the game was ended at turn {game['phase']}{', drawn' if draw else ''}: {why}"}
    result = "a draw shared by " + ", ".join(seats) if draw else "won by " + ", ".join(names)
    with db.atomic():
        _finish(db, game, outcome)
        record_action(db, game["id"], by=by, action="end", detail=f"turn {game['phase']}: {result}", reason=reason)
        announce(db, game["id"], subject="the game is over",
                 text=f"Game {game['id']} is over at turn {game['phase']}: {result}.\n"
                      + (f"Reason: {reason}\n" if reason else "")
                      + f"The seed, revealed now: {game['seed']} (its SHA-256 was published at the start: "
                        f"{game['seed_hash']}).\n")
    return {"game": game["id"], "outcome": outcome}


_VOTE = {"draw": "vote for a draw", "concede": "concession"}


def _standing(db, game_id: str) -> dict[str, tuple[str, int]]:
    """The votes standing: {player: (kind, the turn it was sent in)}."""
    return {p: (k, n) for n, p, k in db.execute("select phase, player, kind from proposals where game_id = ? order by phase",
                                                [game_id]).fetchall()}


def _needed(db, game: dict, kind: str, voters: list[str]) -> tuple[list[str], list[str]]:
    """(the players whose vote of `kind` ends the game, the leaders -- for a concession)."""
    from pbem.core.registry import get_rules

    if kind == "draw":
        return voters, []
    scores = get_rules(game["type"]).scores(read.current_state(db, game))
    top = max(scores.values()) if scores else None
    leaders = [p for p, sc in scores.items() if sc == top]
    return [v for v in voters if v not in leaders] or voters, leaders


def propose(db, game_id: str, player: str, kind: str) -> str:
    """A player's DRAW or CONCEDE vote (tester4 finding 06: it stands across turns). It
    replaces the player's other vote, if any, and stands until withdrawn (`withdraw`: NODRAW,
    NOCONCEDE), until the player leaves the seat, or until it lapses (`lapse_votes`: every
    other voting player has been asked for orders in a turn opened after it and resolved).
    When every voting player needed has a vote of the same kind standing, the game ends (see
    the module's docstring). The other voting players are told of each vote by mail.
    Returns the sentence for the acknowledgement."""
    kind = (kind or "").strip().lower()
    if kind not in ("draw", "concede"):
        raise InputError(f"'{kind}' is not a proposal: DRAW or CONCEDE")
    game, seat = _seat(db, game_id, player)
    _running(game, kind.upper())
    voters = _voters(db, game["id"])
    if seat["name"] not in voters:
        raise PbemError(f"player '{seat['name']}' does not vote: the seat is {'a bot' if seat.get('bot') else 'vacant'}")
    now = schedule.iso(schedule.now())
    with db.atomic():
        db.execute("delete from proposals where game_id = ? and player = ?", [game["id"], seat["name"]])
        since = game["phase"]  # a vote sent again is sent anew: it stands for a full round from now
        db.execute("insert into proposals (game_id, phase, player, kind, at) values (?, ?, ?, ?, ?)",
                   [game["id"], since, seat["name"], kind, now])
        votes = _standing(db, game["id"])
        needed, leaders = _needed(db, game, kind, voters)
        missing = [v for v in needed if votes.get(v, ("",))[0] != kind]
        if not missing:
            if kind == "draw":
                end_game(db, game["id"], draw=True, reason="every player voted for a draw", by="players")
                return f"DRAW: every player has voted for a draw; game {game['id']} is over, drawn."
            end_game(db, game["id"], winners=leaders, reason="the other players conceded", by="players")
            return f"CONCEDE: every other player has conceded; game {game['id']} is over, won by {', '.join(leaders)}."
        record_action(db, game["id"], by=f"player:{seat['name']}", action=kind,
                      detail=f"turn {game['phase']}: {len(needed) - len(missing)} of {len(needed)}")
        yes = [v for v in voters if votes.get(v, ("",))[0] == kind]
        others = [v for v in voters if v != seat["name"]]
        if kind == "draw":
            told = (f"{seat['name']} votes to end game {game['id']} drawn (turn {game['phase']}). Votes for a draw so far: "
                    f"{', '.join(yes)}; still to vote: {', '.join(missing)}. The game ends drawn, shared by every seat, "
                    f"when every player has voted for it: send DRAW with your password to agree.\n")
        else:
            told = (f"{seat['name']} concedes game {game['id']} (turn {game['phase']}): when every player who is not "
                    f"leading concedes, the game ends won by the leader(s), now {', '.join(leaders)}. Concessions so "
                    f"far: {', '.join(yes)}; still to concede: {', '.join(missing)}. Send CONCEDE with your password "
                    "to concede too.\n")
        told += ("A vote stands until its sender withdraws it (NODRAW, NOCONCEDE) or every other player has had a "
                 "turn after it; then it lapses and its sender is told.\n")
        if others:
            announce(db, game["id"], subject=f"{seat['name']} {'proposes a draw' if kind == 'draw' else 'concedes'}",
                     text=told, to=others)
    still = ", ".join(missing)
    lasts = (f"it stands until you send NO{kind.upper()}, or until every other player has had a turn after turn "
             f"{since} without the game ending (you are told if it lapses); the others are told of it")
    if kind == "draw":
        return (f"DRAW: your vote for a draw is recorded; {lasts}. The game ends drawn when every player has voted "
                f"for it (still to vote: {still}).")
    return (f"CONCEDE: your concession is recorded; {lasts}. The game ends, won by the leader(s), when every other "
            f"player has conceded (still to concede: {still}).")


def settle_votes(db, game_id: str) -> str | None:
    """After a seat stops voting (a resignation, a bot set on it): when the votes standing now
    suffice, the game ends as they ask (a draw first). Returns the result's words, or None."""
    game = read.game(db, game_id)
    if game["status"] != "running":
        return None
    voters = _voters(db, game["id"])
    votes = _standing(db, game["id"])
    if not voters or not votes:
        return None
    for kind in ("draw", "concede"):
        needed, leaders = _needed(db, game, kind, voters)
        if all(votes.get(v, ("",))[0] == kind for v in needed):
            if kind == "draw":
                end_game(db, game["id"], draw=True, reason="every player still playing voted for a draw", by="players")
                return "drawn"
            end_game(db, game["id"], winners=leaders, reason="the other players still playing conceded", by="players")
            return "won by " + ", ".join(leaders)
    return None


def withdraw(db, game_id: str, player: str, kind: str) -> str:
    """NODRAW / NOCONCEDE: the player's standing vote of that kind is withdrawn (the other
    voting players are told). Returns the sentence for the acknowledgement."""
    kind = (kind or "").strip().lower()
    if kind not in _VOTE:
        raise InputError(f"'{kind}' is not a proposal: DRAW or CONCEDE")
    game, seat = _seat(db, game_id, player)
    _running(game, f"NO{kind.upper()}")
    had = _standing(db, game["id"]).get(seat["name"])
    if not had or had[0] != kind:
        return f"NO{kind.upper()}: you have no {_VOTE[kind]} standing in game {game['id']}; nothing changed."
    with db.atomic():
        db.execute("delete from proposals where game_id = ? and player = ?", [game["id"], seat["name"]])
        record_action(db, game["id"], by=f"player:{seat['name']}", action=f"no{kind}", detail=f"turn {game['phase']}")
        others = [v for v in _voters(db, game["id"]) if v != seat["name"]]
        if others:
            announce(db, game["id"], subject=f"{seat['name']} withdraws their {_VOTE[kind]}",
                     text=f"{seat['name']} withdraws their {_VOTE[kind]} (sent in turn {had[1]}) in game {game['id']}.\n",
                     to=others)
    return f"NO{kind.upper()}: your {_VOTE[kind]} (sent in turn {had[1]}) is withdrawn; the others are told."


def lapse_votes(db, game_id: str, resolved: int) -> list[str]:
    """After turn `resolved` is resolved and the game goes on: a vote lapses once every other
    voting player has been asked for orders in a turn opened after the vote and resolved (a
    full round: each had a turn to answer it; in a game where all play at once, the turn after
    the vote's). Its sender is told. Returns the players whose vote lapsed."""
    votes = _standing(db, game_id)
    if not votes:
        return []
    voters = _voters(db, game_id)
    first = min(n for _, n in votes.values())
    asked_in: dict[int, set[str]] = {
        n: set(loads(a) or []) for n, a in db.execute("select number, active from phases where game_id = ? and number > ? "
                                                     "and number <= ?", [game_id, first, resolved]).fetchall()}
    gone = []
    for player, (kind, since) in votes.items():
        had_a_turn = set().union(*(a for n, a in asked_in.items() if n > since))
        if all(v in had_a_turn for v in voters if v != player):
            db.execute("delete from proposals where game_id = ? and player = ?", [game_id, player])
            gone.append(player)
            if player in voters:
                announce(db, game_id, subject=f"your {_VOTE[kind]} lapsed", to=[player],
                         text=f"Your {_VOTE[kind]} in game {game_id}, sent in turn {since}, has lapsed: every other "
                              f"player has had a turn since (up to turn {resolved}) and the game did not end. Send "
                              f"{'DRAW' if kind == 'draw' else 'CONCEDE'} again to propose it again.\n")
    return gone


# --- hooks the game service calls (pbem.host.service) -----------------------------------------------

def rollback_notice(db, game_id: str, to: int, was: int, rollback_id: int, deadline: str | None = None) -> None:
    """After a rollback (inside its transaction): recorded, and a short correction notice
    that says what happens next as it will happen."""
    record_action(db, game_id, by="gm", action="rollback", detail=f"turn {was} -> {to} (rollback {rollback_id})")
    when = (f"at its deadline, {deadline}, or as soon as every player asked is ready" if deadline
            else "as soon as every player asked is ready, or when the GM resolves it")
    announce(db, game_id, subject=f"correction: back to turn {to}",
             text=f"The GM has set game {game_id} back to turn {to} to correct a mistake. Any report of turns after "
                  f"turn {to} you received no longer counts. Turn {to} will be resolved again {when}: the orders "
                  f"you sent for it still stand (so it may be resolved again at once, when everyone's are in), and "
                  f"orders you send before then replace yours.\n")


def votes_set_aside(db, game_id: str, to: int, votes: list) -> None:
    """After a rollback to turn `to`: each DRAW/CONCEDE vote sent in a turn it set aside,
    (player, kind, turn), is gone; its sender is told (votes stand across turns, so they
    may count on it)."""
    seated = {p["name"] for p in read.players(db, game_id) if not p.get("vacant")}
    for player, kind, since in votes:
        if player in seated:
            announce(db, game_id, subject=f"your {_VOTE.get(kind, kind)} is withdrawn", to=[player],
                     text=f"Your {_VOTE.get(kind, kind)} in game {game_id}, sent in turn {since}, is withdrawn: the GM "
                          f"has set the game back to turn {to}, before it. Send {kind.upper()} again if you still want "
                          "it.\n")


def observer_footer(game_id: str, *, over: bool = False) -> str:
    """The end of every mail to an observer (turn reports, announcements -- a pause, a
    correction, the game's end -- and public press): why it comes, and how to stop it.
    `over`: the game is over (its last report, the notice of its end): no more reports come."""
    if over:
        return (f"\n-- \nYou observe game {game_id}. The game is over: no more of its reports will come to this "
                f"address. To be taken off its observers all the same, send a message with the line "
                f"OBSERVE {game_id} STOP from it.\n")
    return (f"\n-- \nYou observe game {game_id}: each turn's public report comes to this address. To stop, send a "
            f"message with the line OBSERVE {game_id} STOP from it.\n")


def queue_observer_reports(db, game: dict, number: int, public_text: str | None) -> list[int]:
    """Each observer's copy of a turn's public report (called where the players' reports are queued)."""
    if not public_text:
        return []
    ids = []
    for email in observer_addresses(db, game["id"]):
        subject = f"[{game['id']}] turn {number} public report" + (" (game over)" if game.get("status") == "finished" else "")
        body = public_text + observer_footer(game["id"], over=game.get("status") == "finished")
        oid = outbox.queue(db, kind="observer", to_addr=email, subject=subject, body=body, game_id=game["id"], phase=number)
        if oid:
            ids.append(oid)
    return ids


def bot_submissions(db, game: dict, rules, state: dict, asked: list[str], latest: dict[str, dict],
                    players: list[dict] | None = None) -> list[str]:
    """Orders for every bot seat asked in the open turn that has none yet (the rules'
    bot_choice, seeded from the game's seed, the turn and the seat, so a replay agrees);
    stored as submissions like any other. Returns the seats played. `players`: the game's
    players rows, when the caller has read them already."""
    from random import Random

    from pbem.host import service

    bots = {p["name"] for p in (read.players(db, game["id"]) if players is None else players) if p.get("bot")}
    played = []
    for player in asked:
        if player not in bots or player in latest:
            continue
        rng = Random(f"{game['seed']}/bot/{game['phase']}/{player}")
        lines = service.bot_script(rules, state, player, rng)
        text = "\n".join([f"GAME {game['id']}", f"PLAYER {player}", *lines, "END"]) + "\n"
        service.submit(db, game["id"], player, text.encode(), source="bot", trusted=True)
        played.append(player)
    return played


def paused_waiting(game: dict) -> str | None:
    """Why a game must not resolve now, if it is paused."""
    if game.get("paused"):
        return f"paused by the GM since {game['paused']}"
    return None
