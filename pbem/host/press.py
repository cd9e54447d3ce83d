"""Press: the messages players (and the GM) send each other through the judge.

A press message is a row of the `press` table (migration m007_press), stored with who sent
it, to whom, in which turn, and whether it was grey; it is delivered at once through the
outbox (one mail per recipient, in the transaction that stores it) and listed in the next
turn report of everyone who may read it (`for_reports`). Public press ("to all") goes to
every player and observer and onto the site (`public`); private press reaches its sender
and its recipients only -- nowhere else, in no output.

The game option `press` says what players may send: `none` (no press; the GM's broadcasts
still go out), `white` (the default: the sender's name is shown) or `grey` (players and the
site see "anonymous"; the GM sees the sender: `pbem press GAME --list`). The GM's press is
always signed "the GM".

Limits (per player and game): a message is at most `MAX_CHARS` characters; a player sends at
most `MAX_PER_DAY` messages in any 24 hours (a message to several players counts once).
"""

from __future__ import annotations

import re
from datetime import timedelta

from pbem.core.errors import NotFound, PbemError
from pbem.core.text import printable
from pbem.host import outbox, read, schedule
from pbem.host.controls import observer_footer
from pbem.host.store import dumps, loads

MAX_CHARS = 8000  # characters in one message (about two pages)
MAX_PER_DAY = 30  # messages a player may send in one game in any 24 hours
MODES = ("none", "white", "grey")
DEFAULT_MODE = "white"
GM = "gm"  # the sender column of the GM's press
ANONYMOUS = "anonymous"
_SPLIT = re.compile(r"[\s,;]+")


# --- the game's press option --------------------------------------------------------------------

def mode(db, game: dict) -> str:
    """The game's `press` option: none, white (the default) or grey."""
    value = str(read.host_options(db, game).get("press") or DEFAULT_MODE).strip().lower()
    return value if value in MODES else DEFAULT_MODE


# --- who a message goes to ------------------------------------------------------------------------

def parse_recipients(spec: str | list[str] | None, names: list[str],
                     persons: dict[str, str] | None = None) -> list[str] | None:
    """The recipients of `TO ...`: None for ALL (public), else the player names (each known,
    case-insensitive, given once; the name of a person who took a seat over, in `persons`,
    stands for the seat, as on a PLAYER line). Raises PbemError quoting what was not understood."""
    words = [w for w in (_SPLIT.split(spec.strip()) if isinstance(spec, str) else [str(x).strip() for x in spec or []]) if w]
    if words and words[0].lower() == "to":
        words = words[1:]
    if not words:
        raise PbemError("say who the press is for: TO ALL (everyone), or TO name[,name]")
    lowered = [w.lower() for w in words]
    if "all" in lowered:
        if len(lowered) > 1:
            raise PbemError(f"TO '{' '.join(words)}': send to ALL, or to players by name, not both")
        return None
    persons = persons or {}
    unknown = [w for w in words if w.lower() not in names and w.lower() not in persons]
    if unknown:
        raise NotFound(f"no player {', '.join(repr(w[:40]) for w in unknown)} in this game; its players are {', '.join(names)}")
    out: list[str] = []
    for w in (x if x in names else persons[x] for x in lowered):
        if w not in out:
            out.append(w)
    return out


def unread_seat(seat: dict) -> str | None:
    """Why nobody reads what is sent to a seat -- vacant, or played by a bot with no address
    (its player resigned, or the GM gave it to a bot) -- or None when somebody does."""
    if seat.get("email"):
        return None
    if seat.get("vacant"):
        return "is vacant: its player left the game and nobody has taken it over"
    if seat.get("bot"):
        return "is played by a bot, which reads no press"
    return None


def no_mail(db, game_id: str, sent: dict) -> str:
    """Why a press `send` stored queued no mail to some of its readers (or to none): the
    recipients without an address read it in their next turn report; public press with no
    player or observer address at all is on the site and in the reports only. '' when every
    reader got a mail."""
    seated = read.players(db, game_id)
    readers = [p for p in seated if p["name"] != sent["sender"]
               and (sent["recipients"] is None or p["name"] in sent["recipients"]) and not unread_seat(p)]
    without = [p["name"] for p in readers if not p.get("email")]
    if sent["outbox"] and not without:
        return ""
    if sent["recipients"] is None and not sent["outbox"]:
        return ("no player or observer has a mail address" + (f" ({', '.join(without)})" if without else "")
                + ": listed in the next turn reports and on the site")
    if without:
        return (f"{', '.join(without)} {'has' if len(without) == 1 else 'have'} no mail address: "
                "listed in the next turn report")
    return ""


def _observers(db, game_id: str) -> list[str]:
    """The addresses of a game's observers (they read public press like the public report)."""
    return read.observers(db, game_id)


# --- sending ---------------------------------------------------------------------------------------

def _clean(text: str) -> str:
    """The press text as stored: no control character (issue 17: an escape sequence, a bell
    or NUL a player typed is dropped), no blank lines around it, no trailing spaces."""
    lines = printable(text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(line.rstrip() for line in lines)


def quoted(text: str) -> str:
    """A press text as it is shown in mail and reports: each line behind '| ', so that no
    line of it can ever be read back as an order, a command or a header when a player
    pastes a report or a press mail into a reply."""
    return "\n".join("| " + line if line else "|" for line in text.split("\n"))


def shown_sender(row: dict, viewer: str | None) -> str:
    """Who a press message is from, as `viewer` (a player name, '' or None: the public; "gm":
    the GM) may see it: grey press is anonymous to everyone but its sender and the GM."""
    if row["sender"] == GM:
        return "the GM"
    if viewer == GM or viewer == row["sender"]:
        return row["sender"]
    return ANONYMOUS if row["grey"] else row["sender"]


def _recipients_text(row: dict) -> str:
    to = loads(row["recipients"])
    return "all" if to is None else ", ".join(to)


def send(db, game_id: str, sender: str | None, to: str | list[str] | None, text: str, *, source: str = "cli",
         inbox_id: int | None = None, in_reply_to: str | None = None) -> dict:
    """Store one press message and queue its delivery, in one transaction. `sender` is a
    player name, or None for the GM; `to` is "all"/"ALL" or player names (a list, or a
    "bob, carol" string). Raises PbemError (nothing stored, nothing sent) when the press is
    off, the game is over, a recipient is unknown, the text is empty or too long, or the
    sender is over the rate limit. Returns the stored row and the outbox ids."""
    game = read.game(db, game_id)
    game_id = game["id"]
    seated = read.players(db, game_id)
    names = [p["name"] for p in seated]
    persons = {p["person"]: p["name"] for p in seated if p.get("person")}
    by_gm = sender is None or sender == GM
    who = GM if by_gm else read.player(db, game_id, sender)["name"]
    how = mode(db, game)
    if not by_gm:
        if how == "none":
            raise PbemError(f"press is off in game {game_id} (its option press=none): nothing was sent")
        if game["status"] == "finished":
            raise PbemError(f"game {game_id} is over: no more press")
    recipients = parse_recipients(to, names, persons)
    if recipients is not None and recipients == [who]:
        raise PbemError("this press is addressed to yourself only: nothing was sent")
    if recipients is not None:  # finding 08: a seat nobody plays reads nothing (its mail and its report go nowhere)
        empty = [(p["name"], nobody) for p in seated if p["name"] in recipients and (nobody := unread_seat(p))]
        if empty:
            why = "; ".join(f"{name}'s seat {nobody}" for name, nobody in empty)
            raise PbemError(f"nobody reads press to {', '.join(n for n, _ in empty)}: {why}. Nothing was sent"
                            + (" (send it again to the others only)" if len(empty) < len(recipients) else ""))
    body = _clean(text)
    if not body.strip():
        raise PbemError("the press is empty: write the message between the PRESS line and ENDPRESS")
    if len(body) > MAX_CHARS:
        raise PbemError(f"the press is too long: {len(body)} characters; the limit is {MAX_CHARS}. Nothing was sent")
    now = schedule.now()
    if not by_gm:
        since = schedule.iso(now - timedelta(hours=24))
        count = db.execute("select count(*) from press where game_id = ? and sender = ? and sent > ?",
                           [game_id, who, since]).fetchone()[0]
        if count >= MAX_PER_DAY:
            raise PbemError(f"too much press: {count} messages in the last 24 hours; the limit is {MAX_PER_DAY} a day. "
                            "Nothing was sent; try again later")
    grey = int(how == "grey" and not by_gm)
    row = {
        "game_id": game_id, "phase": game["phase"], "sent": schedule.iso(now), "sender": who,
        "recipients": dumps(recipients), "public": int(recipients is None), "grey": grey, "body": body,
        "source": source, "inbox_id": inbox_id,
    }
    with db.atomic():
        cur = db.execute(f"insert into press ({', '.join(row)}) values ({', '.join('?' * len(row))})", list(row.values()))
        row["id"] = cur.lastrowid
        queued = _deliver(db, game, row, in_reply_to=in_reply_to, inbox_id=inbox_id)
    return {**row, "recipients": recipients, "outbox": queued, "shown": shown_sender(row, None)}


def _deliver(db, game: dict, row: dict, *, in_reply_to: str | None, inbox_id: int | None) -> list[int]:
    """Queue one mail per recipient (public press: every player but the sender, and every
    observer). Each shows the sender as that recipient may see it."""
    game_id = game["id"]
    players = read.players(db, game_id)
    recipients = loads(row["recipients"])
    targets = [(p["name"], p.get("email")) for p in players
               if p["name"] != row["sender"] and (recipients is None or p["name"] in recipients)]
    if recipients is None:
        targets += [(None, addr) for addr in _observers(db, game_id)]
    ids = []
    for name, addr in targets:
        shown = shown_sender(row, name)
        to_text = "everyone (public press)" if recipients is None else (
            "you" if recipients == [name] else ", ".join(recipients))
        if row["sender"] == GM:
            answer = "To answer the GM, write to the GM."
        elif shown == ANONYMOUS:
            answer = "The sender is anonymous (grey press). To answer everyone, send PRESS TO ALL ... ENDPRESS."
        else:
            answer = (f"To answer, send PRESS TO {shown} (or TO ALL), your lines, then ENDPRESS, with your "
                      "GAME, PLAYER and PASSWORD lines.")
        body = (f"Press in game {game_id}, turn {row['phase']}, from {shown} to {to_text}:\n\n"
                f"{quoted(row['body'])}\n\n{answer if name else ''}\n").replace("\n\n\n", "\n\n")
        subject = f"[{game_id}] press from {shown}" + (" to all" if recipients is None else "")
        end = outbox.footer(game_id) if name else observer_footer(game_id)  # an observer: how to stop
        oid = outbox.queue(db, kind="press", to_addr=addr, subject=subject, body=body + end,
                           game_id=game_id, phase=row["phase"], player=name, in_reply_to=None, inbox_id=inbox_id)
        if oid:
            ids.append(oid)
    return ids


# --- reading --------------------------------------------------------------------------------------

def _rows(db, sql: str, params) -> list[dict]:
    if not read.has_table(db, "press"):
        return []
    return read.rows(db, sql, params)


def listing(db, game_id: str) -> list[dict]:
    """Every press message of a game, with its real sender: the GM's view (`pbem press --list`)."""
    game_id = read.game(db, game_id)["id"]
    return [{**r, "recipients": loads(r["recipients"])} for r in
            _rows(db, "select * from press where game_id = ? order by id", [game_id])]


def visible_to(row: dict, viewer: str | None) -> bool:
    """Whether `viewer` (a player name; None or '': the public) may read a press message:
    public press everyone, private press its sender and its recipients."""
    recipients = loads(row["recipients"]) if isinstance(row["recipients"], str) else row["recipients"]
    if recipients is None:
        return True
    return bool(viewer) and (viewer == row["sender"] or viewer in recipients)


def _item(row: dict, viewer: str | None) -> dict:
    recipients = loads(row["recipients"]) if isinstance(row["recipients"], str) else row["recipients"]
    return {"id": row["id"], "phase": row["phase"], "sent": row["sent"], "from": shown_sender(row, viewer or None),
            "mine": bool(viewer) and viewer == row["sender"], "public": recipients is None,
            "to": "all" if recipients is None else ", ".join(recipients), "text": row["body"],
            "lines": quoted(row["body"]).split("\n")}


def for_reports(db, game_id: str, phase: int, viewers: list[str]) -> dict[str, list[dict]]:
    """The press of turn `phase` (sent while it was open) for the reports of the next turn:
    for each viewer (a player name; '' the public report) the messages they may read, each
    with its sender as they may see it."""
    rows = _rows(db, "select * from press where game_id = ? and phase = ? order by id", [game_id, phase])
    return {v: [_item(r, v) for r in rows if visible_to(r, v or None)] for v in ["", *viewers]}


def for_player(db, game_id: str, viewer: str | None, phase: int | None = None) -> list[dict]:
    """The press one viewer may read (all turns, or turn `phase`), oldest first."""
    sql, args = "select * from press where game_id = ?", [game_id]
    if phase is not None:
        sql, args = sql + " and phase = ?", args + [phase]
    return [_item(r, viewer) for r in _rows(db, sql + " order by id", args) if visible_to(r, viewer or None)]


def public(db, game_id: str) -> list[dict]:
    """The public press of a game, as the site shows it (grey press anonymous)."""
    return [_item(r, None) for r in _rows(db, "select * from press where game_id = ? and public = 1 order by id", [game_id])]


def recipients_text(row: dict) -> str:
    return _recipients_text(row)
