"""What a message asks for, and one small handler per mail command, in a table.

`dispatch` screens a message (automatic mail is never answered), finds the game it is for
(a GAME line, `[GAME_ID]` in the subject, the thread of one of our own messages, or else the
one running game in which the sender's address holds a seat -- of several, the one whose
seat's password the message carries), finds
the order block the player wrote in and the requests typed around it (pbem.mail.extract),
and hands each request to the handler of its command: `COMMANDS` maps each command word
(HELP, REPORT, WAIT, PRESS...; plain orders are the command `orders`) to a `Command` that says
what it needs before it runs -- nothing, a known game, a sender's address, or a player
authenticated by their registered address and PASSWORD -- and the function that answers it.
A new mail command is one handler and one row of the table.

One message may carry orders, several commands and several press blocks (as with njudge
and DPjudge). Each is handled on its own, in the order of its lines, in its own savepoint:
one refused (a bad argument, a wrong password) changes nothing and does not stop the others.
The answers, as a player of those judges expects:

- orders get their acknowledgement, as always (one mail, line by line);
- REPORT, HELP, HISTORY and SEND PASSWORD answer with what they ask for, each its own mail
  (at most MAX_MAILS mails answer one message, the reply and the acknowledgement included);
- every other command and press block, and any request refused, is answered in ONE reply,
  "your commands", that quotes each request with its line number (the player's own) and
  says what was done or why it was refused.

A message that is only orders, only REPORT or only HELP is answered exactly as before.

A message with blocks for several games or players (`_several`, finding 01) is read block by
block, each as a message of its own, and answered in ONE reply; the blocks set aside (an
earlier copy of the same game's, a quoted one) are named in the answer with why.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path

from pbem import host, render
from pbem.core.errors import NotFound, PbemError
from pbem.core.numbers import whole
from pbem.core.registry import game_types, order_doc
from pbem.core.words import plural, turns_exist
from pbem.host import outbox, read
from pbem.host.outbox import clean_address, header_safe
from pbem.mail.extract import Found, Request, choose, order_text
from pbem.mail.formats import Item
from pbem.mail.headers import (
    GAME_TAG,
    THREAD_REF,
    automatic,
    header,
    msgid_ok,
    raw_header,
    received_time,
    sender_of,
)
from pbem.mail.mime import Texts, all_texts, decode_bytes
from pbem.mail.outcome import Context, Outcome
from pbem.render.plain import fill_in_form, markdown_to_text

log = logging.getLogger("pbem.mail")

MAIL_COMMANDS_HELP = """\
Mail commands
-------------
Put each command on a line of its own, in a message with your GAME, PLAYER
and PASSWORD lines (or with the game as [GAME_ID] in the subject). One message
may carry orders, several commands and several press blocks. Your orders get
their acknowledgement; a report, the help, a history and a password come as
their own mail (each asked once); everything else is answered in one reply,
each command with its line number. One message is answered by at most 3 mails
in all, that reply and the acknowledgement included. In several games? One
message may hold a block for each (GAME ... END, each with its PASSWORD):
each is read on its own, and one reply answers them all.

With your PASSWORD, from your registered address:
  - REPORT [TURN]       your latest report (or that turn's) again
  - WAIT, NOWAIT        don't resolve this turn early for me; do again
  - ABSENT FROM date TO date
                        away (dates as 2026-12-01): a deadline inside moves
                        to its end, within the game's allowance of days
  - SET ADDRESS new@addr
                        use a new address (both addresses are told)
  - RESIGN              leave the game (a bot plays on, or the seat is empty);
                        before a game open for sign-up starts: withdraw
                        your sign-up
  - DRAW, CONCEDE       propose a draw, or concede: the game ends when every
                        player still playing has sent the same; a vote
                        stands until NODRAW / NOCONCEDE, or until every
                        other player has had a turn after it
  - PRESS TO name[,name]
                        a private message to those players: your lines,
                        then a line ENDPRESS (refused for a seat nobody
                        plays: vacant, or a bot's)
  - PRESS TO ALL        the same, public: players, observers and the site

From your registered address, no password needed:
  - SEND PASSWORD       your password, mailed there (and nowhere else)

From anyone:
  - LIST                every game: type, turn, state, deadline, awaited
  - HISTORY GAME [TURN] a game's public reports (all, or that turn's); at
                        once with your PASSWORD in that game, else the reply
                        asks you to confirm: HISTORY GAME [TURN] CONFIRM CODE
  - JOIN GAME [NAME]    a seat in a game open for sign-up (the reply asks you
                        to confirm: JOIN GAME [NAME] CONFIRM CODE; then your
                        password comes)
  - OBSERVE GAME        each turn's public report of a game (the reply asks
                        you to confirm: OBSERVE GAME CONFIRM CODE)
  - OBSERVE GAME STOP   no more of them
  - OBSERVE GAME ADDRESS new@addr
                        an observer's new address: sent from the observing
                        address, whose reply asks the new one to confirm
  - HELP                this help (with [GAME_ID]: the game's orders too)
Words after STOP or after CONFIRM CODE are ignored (the answer says so). One
message takes one CONFIRM. A message with your PASSWORD is always answered;
without it, at most 3 answers an hour go to one address.

Press: at most {press_chars} characters a message, {press_day} messages a day per
game; the game's press option may turn it off (none) or make it anonymous
(grey).
"""

GENERAL_HELP = """\
pbem -- help

This address takes orders for play-by-email games adjudicated by pbem. To send orders, reply
to your latest turn report (or write a new message) with:

GAME <game id>
PLAYER <your name>
PASSWORD <your password>
<one order a line>
END

Put the game id in the subject as [GAME_ID] or on a GAME line. Send REPORT with your PASSWORD
for your latest report again, or HELP with the game's [GAME_ID] in the subject for its order
documentation. Game types: {types}.

"""

_HOST_REASONS = (
    ("wrong password", "bad password"),
    ("no PASSWORD line", "no password"),
    ("too late", "late"),
    ("is over", "game over"),
    ("wrong phase", None),
    ("parse errors", None),
    ("no usable orders", None),
)


def mail_commands_help() -> str:
    """The mail commands, for the HELP reply."""
    from pbem.host import press

    return MAIL_COMMANDS_HELP.format(press_chars=press.MAX_CHARS, press_day=press.MAX_PER_DAY)


# --- one message, as the handlers see it -----------------------------------------------------

@dataclass
class Incoming:
    """A message being dispatched: what was read from it, and what has been found out so far."""

    db: object
    item: Item
    raw: bytes
    msg: Message | None
    out: Outcome
    ctx: Context
    sender: str | None = None
    mid: str | None = None
    subject: str = ""
    texts: Texts | None = None
    found: Found | None = None
    game: dict | None = None
    players: list[dict] = field(default_factory=list)
    player_name: str | None = None
    row: dict | None = None  # the authenticated player's row
    reply_to: str | None = None
    tag_game: str | None = None  # the game named by the subject or the thread
    games_seen: dict = field(default_factory=dict)  # games rows looked up before any handler ran (`known_game`)
    rows_fresh: bool = False  # `game` and `players` were read in this savepoint and nothing was written since
    request: Request | None = None  # the request being handled
    # the message named no game, its sender holds seats in several, and its PASSWORD is the
    # password of one of them: the game it was taken for (`_password_game`; its answers say so)
    by_password: str | None = None
    # finding 01: one part of a message with blocks for several games or players (`_several`):
    # its answers are collected here, for the one reply that covers every part
    collect: list[str] | None = None
    budget: list[int] | None = None  # ...and the mails answering the whole message so far (MAX_MAILS)
    noted: bool = False  # the blocks set aside (`aside_note`) are told in one of its answers already
    outside: str | None = None  # the part of the requests typed outside every block: which blocks there are
    # HISTORY's code, by game: "told" (an earlier line of this message carries it) or "confirmed"
    # (an earlier line's code was right: the message's other HISTORY lines for that game are sent)
    history_codes: dict = field(default_factory=dict)

    def aside_note(self) -> str | None:
        """Finding 01: the blocks of the message that were not read, and why (once a message)."""
        if self.noted or not self.found or not self.found.aside:
            return None
        self.noted = True
        return "\n".join(f"Not read: {b.described()}: {why}." for b, why in self.found.aside)

    def notes(self) -> str | None:
        """What an answer says first: how the game was found, and the blocks set aside."""
        said = [t for t in (password_note(self.by_password) if self.by_password else None, self.aside_note()) if t]
        return "\n\n".join(said) or None

    @property
    def is_mail(self) -> bool:
        return self.item.kind != "file"

    @property
    def game_id(self) -> str | None:
        return self.game["id"] if self.game else None

    @property
    def password(self) -> str | None:
        return self.found.block.password if self.found and self.found.block else None

    def known_game(self, name: str | None) -> dict | None:
        """`_known_game`, each name looked up once a message (issue 17: the subject's tag, then
        the GAME line, name the same game). Only for the look-ups before a handler runs: a
        handler may change a game."""
        key = name.lower() if name else name
        if key not in self.games_seen:  # (a copy of the row kept for the run: a handler may change its own)
            row = read.kept(self.ctx.rows, ("game", key), lambda: _known_game(self.db, name))
            self.games_seen[key] = dict(row) if row else None
        return self.games_seen[key]

    def game_players(self, game_id: str) -> list[dict]:
        """`host.players`, read once a run while no message changes them (see Context.rows)."""
        return [dict(p) for p in read.kept(self.ctx.rows, ("players", game_id), lambda: host.players(self.db, game_id))]

    def ignore(self, why: str) -> Outcome:
        self.out.outcome, self.out.reason = "ignored", why
        return self.out

    def accept(self, why: str, outbox_id: int | None = None) -> Outcome:
        self.out.outcome, self.out.reason = "accepted", why
        if outbox_id is not None:
            self.out.outbox_id = outbox_id
        return self.out

    def reject(self, why: str, to: str | None = None, tell: bool = True, game_exists: bool = True) -> Outcome:
        """Reject with a reason and tell the sender (`to`, by default whoever gets our replies)."""
        if self.collect is not None:  # one part of several (`_several`): told in the message's one reply
            self.out.outcome, self.out.reason = "rejected", why
            if tell:
                self.collect.append(f"REJECTED: {why}\nNothing of this part was changed.")
            return self.out
        return rejection(self.db, self.out, (to or self.reply_to) if tell else None, self.mid, why,
                         game_exists=game_exists, note=self.notes())

    def notice(self, *, subject: str, text: str, kind: str = "notice", to: str | None = None) -> int | None:
        return _notice(self.db, to=to or self.sender, game_id=self.game_id, player=self.out.player, subject=subject,
                       text=text, kind=kind, in_reply_to=self.mid, inbox_id=self.out.inbox_id)


def _notice(db, *, to: str | None, game_id: str | None, player: str | None, subject: str, text: str,
            kind: str = "notice", in_reply_to: str | None = None, inbox_id: int | None = None) -> int | None:
    return outbox.queue(db, kind=kind, to_addr=to, subject=subject, body=text + outbox.footer(game_id),
                        game_id=game_id, phase=None, player=player, in_reply_to=in_reply_to, inbox_id=inbox_id)


def rejection(db, out: Outcome, to: str | None, mid: str | None, why: str, *, game_exists: bool = True,
              note: str | None = None) -> Outcome:
    """Reject with a reason, and tell the sender (when there is one). `game_exists` False:
    `out.game_id` names no game here, and the reply does not echo it (issue 17: no subject,
    footer or From name a spammer chooses; the `[pbem]` tag and the footer of no game)."""
    out.outcome, out.reason = "rejected", why
    if to:
        about = out.game_id if game_exists else None
        tag = f"[{about}] " if about else "[pbem] "
        text = (f"pbem: your message was rejected\n\n" + (f"{note}\n\n" if note else "") + f"Reason: {why}\n\n"
                + ("Nothing was changed; any orders you sent earlier still stand.\n" if _seated(db, out)
                   else "Nothing was changed.\n"))
        out.outbox_id = _notice(db, to=to, game_id=about, player=out.player if about else None,
                                subject=f"{tag}your message was rejected",
                                text=text, in_reply_to=mid, inbox_id=out.inbox_id)
    return out


def _seated(db, out: Outcome) -> bool:
    """Whether the message spoke for a seat of a running game (whose earlier orders stand)."""
    if not out.player or not out.game_id:
        return False
    row = db.execute("select 1 from players p join games g on g.id = p.game_id where g.id = ? and p.name = ? "
                     "and g.status = 'running'", [out.game_id, out.player]).fetchone()
    return row is not None


def _known_game(db, name: str | None) -> dict | None:
    if not name:
        return None
    cur = db.execute("select * from games where id = ?", [name.lower()])
    row = cur.fetchone()
    return dict(zip([d[0] for d in cur.description], row)) if row else None


def _reason(ack) -> str:
    if ack.confirms and ack.status != "rejected":  # READY alone: the orders on file, made ready
        bad = sum(1 for r in ack.lines if r.status == "rejected")
        return (f"READY: the orders on file made ready ({plural(len(ack.lines), 'line')}"
                + (f", {bad} rejected: skipped" if bad else "") + ")")
    if ack.status == "accepted":
        if ack.lines:
            return "orders accepted"
        return "orders accepted (no orders: default orders will be used)" if ack.asked else "no orders (none asked this turn)"
    if ack.status == "partial":
        bad = sum(1 for r in ack.lines if r.status != "accepted")
        return f"orders accepted ({bad} of {len(ack.lines)} lines rejected)"
    for needle, code in _HOST_REASONS:
        if needle in ack.reason:
            return f"{code}: {ack.reason}" if code else ack.reason
    return f"rejected: {ack.reason}"


# --- what a command needs before it runs ------------------------------------------------------

def _find_seat(m: Incoming) -> tuple[str, str | None, bool] | None:
    """Find and authenticate the seat a message speaks for, by its registered address (the
    password is each handler's to check). Sets `m.row`; else returns (why, who to tell,
    whether to tell at all)."""
    if m.is_mail and not m.sender:
        m.out.player = m.player_name
        return "no From address: orders are taken only from a sender who can be answered", None, False
    game_id = m.game_id
    if not m.player_name:
        names = ", ".join(p["name"] for p in m.players)
        return f"no PLAYER line: say who you are (PLAYER <name>); the players of {game_id} are {names}", m.reply_to, True
    wanted = m.player_name.lower()
    row = next((p for p in m.players if p["name"] == wanted), None) or next(
        (p for p in m.players if p.get("person") and p["person"] == wanted), None)  # a replacement's own name
    if row is None:
        return f"unknown player '{header_safe(m.player_name, 40)}' in game {game_id}", m.reply_to, True
    m.out.player = row["name"]
    if not m.is_mail:
        m.reply_to = row.get("email")  # an order file's acknowledgement goes to the player's address
    elif row.get("email") and row["email"].lower() != m.sender.lower():
        log.warning("%s: orders for %s/%s from %s, not the registered address", m.item.origin, game_id, row["name"], m.sender)
        return (f"sender mismatch: orders for {row['name']} in {game_id} are taken only from the player's registered address",
                m.sender, True)
    elif row.get("email"):
        m.reply_to = row["email"]  # the registered address as registered ('ARES@Players.test' is ares@players.test)
    m.row = row
    return None


def _seat(m: Incoming) -> Outcome | None:
    """`_find_seat` for a message that is one request (orders, REPORT): returns the rejection
    (told to the sender) when it fails, or when the message holds no orders at all."""
    refused = _find_seat(m)
    if refused is not None:
        why, to, tell = refused
        if not tell:
            m.out.outcome, m.out.reason = "rejected", why
            return m.out
        return m.reject(why, to=to)
    found = m.found
    if not found.has_content and not (found.block and found.block.placeholder):
        unread = f" (not opened: {', '.join(m.texts.unread)})" if m.texts.unread else ""
        m.row = None
        return m.reject("no orders found: put your orders in the message text (or a .txt attachment), "
                        "starting with the GAME, PLAYER and PASSWORD lines of the order form" + unread)
    if found.block and found.block.placeholder and not found.block.password:
        m.row = None
        return m.reject("no password: the PASSWORD line still reads 'your-password-here'; "
                        "put your password there (it was in your first report)")
    return None


# --- answers ---------------------------------------------------------------------------------------

@dataclass
class Answer:
    """What became of one request: done or refused, the sentence for the reply, the short
    reason for the inbox, and (`document`) whether its own mail already answered it."""

    ok: bool
    text: str
    reason: str = ""
    outbox_id: int | None = None
    document: bool = False
    mails: bool = False  # (not `document`) it queued a mail of its own to the sender all the same (MAX_MAILS)
    unread: int = 0  # the requests after MAX_REQUESTS this answer stands for (not read at all)

    @staticmethod
    def refused(why: str) -> Answer:
        return Answer(False, why, why)


def _authenticated(m: Incoming) -> bool:
    """Whether the message carries its seat's own PASSWORD (the seat found by `_find_seat`, so
    from its registered address): its answer is never held back by the reply cap (no
    auto-responder knows the password; a forged From's wrong passwords must not silence the
    player, pbem.mail.guard)."""
    return m.row is not None and m.password is not None and m.password == m.row["password"]


def _vouch(m: Incoming, gid: str | None = None) -> dict | None:
    """The seat whose PASSWORD the message carries, from that seat's registered address (and
    named by its PLAYER line, if it has one): of game `gid`, or (None) of any running game. Found, the message is authenticated -- its
    answers are never held back by the reply cap, whatever it asks (HISTORY, HELP, LIST,
    OBSERVE too: tester4 finding 12) -- and, when no other seat is named, the inbox row names
    that seat. None when there is no such seat."""
    if not (m.password and m.sender and m.is_mail):
        return None
    named = (m.found.inherited("player") or "").lower() if m.found else ""  # a PLAYER line: that seat's, or none
    if gid is None:
        found = m.db.execute(
            "select p.game_id, p.name, p.person from players p join games g on g.id = p.game_id where g.status = 'running' "
            "and lower(p.email) = lower(?) and p.password = ? order by p.game_id limit 1", [m.sender, m.password]).fetchone()
    else:
        found = m.db.execute("select game_id, name, person from players where game_id = ? and lower(email) = lower(?) "
                             "and password = ? limit 1", [gid.lower(), m.sender, m.password]).fetchone()
    if found is None or (named and named not in (found[1], (found[2] or "").lower())):
        return None
    m.out.authenticated = True
    if m.out.game_id in (None, found[0]) and not m.out.player:
        m.out.game_id, m.out.player = found[0], found[1]
    return {"game_id": found[0], "name": found[1]}


def _password_ok(m: Incoming, what: str) -> str | None:
    """None when the message's PASSWORD is the seat's; else why not (logged)."""
    if m.password == m.row["password"]:
        return None
    if m.password:
        log.warning("%s: %s for %s/%s with a wrong password", m.item.origin, what, m.game_id, m.row["name"])
        left = read.resigned(m.db, m.game_id, m.row)
        if left:
            return f"bad password: {left}"
        return f"bad password: the PASSWORD given is wrong; {what} needs your own PASSWORD"
    if m.found.block and m.found.block.placeholder:
        return f"no password: {what} needs your PASSWORD (the PASSWORD line still reads 'your-password-here')"
    return f"no password: {what} needs your PASSWORD line"


# --- the handlers ---------------------------------------------------------------------------------

def general_help(m: Incoming) -> Outcome:
    """HELP naming no game: what this address is for, the mail commands, and the game types."""
    if not m.sender:
        return m.ignore("not for any game: no GAME line and no [GAME_ID] in the subject")
    return m.accept("help sent (general help: no game named)",
                    m.notice(subject="[pbem] help", kind="help",
                             text=GENERAL_HELP.format(types=", ".join(game_types())) + mail_commands_help()))


def game_help(m: Incoming) -> Outcome:
    """HELP for a game: its order documentation, and the mail commands."""
    m.out.player = m.player_name
    m.out.outcome, m.out.reason = "accepted", "help sent"
    text = fill_in_form(markdown_to_text(order_doc(m.game["type"])), m.game_id, m.player_name)
    m.out.outbox_id = m.notice(kind="help", subject=f"[{m.game_id}] order documentation ({m.game['type']})",
                               text=text.rstrip("\n") + "\n\n" + mail_commands_help())
    return m.out


def _help(m: Incoming) -> Answer:
    out = game_help(m) if m.game else general_help(m)
    return Answer(out.outcome == "accepted", "the help is sent to you separately", out.reason, out.outbox_id, document=True)


def report(m: Incoming) -> Outcome:
    """REPORT [TURN] with the player's PASSWORD: their latest (or that turn's) report again."""
    a = _report(m)
    return m.accept(a.reason, a.outbox_id) if a.ok else m.reject(a.reason)


def _report(m: Incoming) -> Answer:
    game_id, row, r = m.game_id, m.row, m.request
    word = r.arg if r else None
    number = whole(word)  # 0-9 only: ² or ① is "not a turn number", not an int() error
    if word is not None and number is None:
        return Answer.refused(f"not a turn number: REPORT '{header_safe(word, 20)}'; send REPORT alone for your "
                              f"latest report, or REPORT N for turn N (1 to {m.game['phase']})")
    bad = _password_ok(m, "REPORT")
    if bad:
        return Answer.refused(bad)
    try:
        text = host.report(m.db, game_id, row["name"], number)
        number = number or m.game["phase"]
    except NotFound as err:
        return Answer.refused(f"no such report: {err}")
    if m.by_password:
        text = password_note(game_id) + "\n\n" + text
    oid = outbox.queue(
        m.db, kind="report", to_addr=m.reply_to, subject=f"[{game_id}] turn {number} report",
        body=text + outbox.footer(game_id), game_id=game_id, phase=number, player=row["name"],
        in_reply_to=m.mid, inbox_id=m.out.inbox_id)
    return Answer(True, f"your report of turn {number} is sent to you separately", f"report sent (turn {number})", oid,
                  document=True)


def orders(m: Incoming) -> Outcome:
    """An order block: submitted like `pbem submit` (the host checks the password and every line)."""
    row, out = m.row, m.out
    ack = host.submit(
        m.db, m.game_id, row["name"], order_text(m.game_id, row["name"], m.found), source=f"mail:{out.inbox_id}",
        delivered=m.item.delivered or (received_time(m.msg) if m.msg is not None else None),
        mail={"to": m.reply_to, "in_reply_to": m.mid, "inbox_id": out.inbox_id, "note": m.notes(),
              "held": m.collect is not None},  # (one part of several: its acknowledgement goes in their reply)
        known=(m.game, m.players) if m.rows_fresh else None,
        savepoint=False,  # issue 17: inside the message's savepoint (ingest_item), or the request's (_run)
        kept=m.ctx.rows if m.rows_fresh else None,  # (the phase's state hash, as the game's row: Context.rows)
    )
    out.submission_id = ack.submission_id
    out.authenticated = out.authenticated or _authenticated(m)
    if m.collect is not None:
        m.collect.append(ack.text.rstrip("\n"))
    out.outcome = "rejected" if ack.status == "rejected" else "accepted"
    out.reason = _reason(ack)
    if "wrong password" in ack.reason:
        log.warning("%s: wrong password for %s/%s from %s", m.item.origin, m.game_id, row["name"], m.sender)
    return out


def _orders(m: Incoming) -> Answer:
    out = orders(m)
    return Answer(out.outcome == "accepted", f"{out.reason} (the acknowledgement, line by line, is sent to you separately)",
                  out.reason, document=True)


def _wait(on: bool) -> Callable[[Incoming], Answer]:
    def handle(m: Incoming) -> Answer:
        from pbem.host import controls

        text = controls.wait(m.db, m.game_id, m.row["name"], on)
        return Answer(True, text, "WAIT" if on else "NOWAIT")

    handle.__doc__ = "WAIT: don't resolve this turn early for me." if on else "NOWAIT: take back a WAIT."
    return handle


_ABSENT = re.compile(r"^from[ \t]+(.+?)[ \t]+(?:to|until|till)[ \t]+(.+)$", re.IGNORECASE)


def absent(m: Incoming) -> Answer:
    """ABSENT FROM date TO date: deadlines inside move to its end, within the game's allowance."""
    from pbem.host import controls

    args = (m.request.arg or "").strip()
    found = _ABSENT.match(args)
    if not found:
        return Answer.refused(f"not understood: '{header_safe(m.request.text, 80)}'; write ABSENT FROM 2026-12-01 TO 2026-12-05 "
                              "(dates, or dates and times like 2026-12-01 18:00)")
    text = controls.absent(m.db, m.game_id, m.row["name"], found.group(1).strip(), found.group(2).strip())
    return Answer(True, text, "ABSENT")


def set_address(m: Incoming) -> Answer:
    """SET ADDRESS new@addr: everything goes to a new address; both addresses are told."""
    from pbem.host import seats

    raw = (m.request.arg or "").strip()
    if not raw:
        return Answer.refused("SET ADDRESS needs the new address: SET ADDRESS you@example.org")
    new = clean_address(raw)
    if not new or new != raw.strip("<>"):
        return Answer.refused(f"'{header_safe(raw, 80)}' is not an email address; write SET ADDRESS you@example.org")
    done = seats.set_address(m.db, m.game_id, m.row["name"], new, by=f"player:{m.row['name']}")
    return Answer(True, f"SET ADDRESS: your address in game {m.game_id} is now {done['email']}; both addresses are told.",
                  "SET ADDRESS")


_NOT_SENT = ("SEND PASSWORD: a password is mailed only to the address registered for the seat, and only when "
             "that address asks for it. Nothing was sent.")


def send_password(m: Incoming) -> Answer:
    """SEND PASSWORD, from the registered address: the password, mailed there and nowhere
    else. From anyone else nothing is sent anywhere but this refusal, which tells nothing."""
    from pbem.host import seats

    if m.row is None or not m.is_mail or not m.row.get("email") or not m.sender \
            or m.row["email"].lower() != m.sender.lower():
        log.warning("%s: SEND PASSWORD for %s/%s from %s refused", m.item.origin, m.game_id, m.player_name, m.sender)
        return Answer(False, _NOT_SENT, "SEND PASSWORD refused")
    oid = seats.send_password(m.db, m.game_id, m.row["name"])
    return Answer(True, "SEND PASSWORD: your password is mailed to your registered address.", "password sent", oid,
                  document=True)


def resign(m: Incoming) -> Answer:
    """RESIGN: leave the game; the seat goes to the game's policy and the GM is told."""
    from pbem.host import seats

    from pbem.mail.guard import gm_address

    return Answer(True, seats.resign(m.db, m.game_id, m.row["name"], gm=gm_address(m.db, None)), "RESIGN")


def _propose(kind: str) -> Callable[[Incoming], Answer]:
    def handle(m: Incoming) -> Answer:
        from pbem.host import controls

        return Answer(True, controls.propose(m.db, m.game_id, m.row["name"], kind), kind.upper())

    handle.__doc__ = (f"{kind.upper()}: a vote; the game ends when every player still playing has sent it (a vote "
                      "stands until withdrawn, or a full round of turns after it).")
    return handle


def _withdraw(kind: str) -> Callable[[Incoming], Answer]:
    def handle(m: Incoming) -> Answer:
        from pbem.host import controls

        return Answer(True, controls.withdraw(m.db, m.game_id, m.row["name"], kind), f"NO{kind.upper()}")

    handle.__doc__ = f"NO{kind.upper()}: withdraw one's {kind.upper()} vote."
    return handle


def press(m: Incoming) -> Answer:
    """PRESS TO name[,name] | PRESS TO ALL, its lines, ENDPRESS: delivered at once."""
    from pbem.host import press as host_press

    r = m.request
    to = r.arg or ""
    if not re.match(r"^to\b", to, re.IGNORECASE):
        return Answer.refused(f"not understood: '{header_safe(r.text, 80)}'; write PRESS TO ALL, or PRESS TO name[,name], "
                              "then your lines, then ENDPRESS")
    if not r.ended:
        return Answer.refused(f"'{header_safe(r.text, 80)}' has no ENDPRESS line: the press ends with a line ENDPRESS. "
                              "Nothing was sent")
    sent = host_press.send(m.db, m.game_id, m.row["name"], to, "\n".join(r.body), source=f"mail:{m.out.inbox_id}",
                           inbox_id=m.out.inbox_id)
    who = "everyone (public press)" if sent["recipients"] is None else ", ".join(sent["recipients"])
    grey = " anonymously (grey press)" if sent["grey"] else ""
    lines = len(sent["body"].split("\n"))
    why = host_press.no_mail(m.db, m.game_id, sent)
    return Answer(True, f"press of {plural(lines, 'line')} sent{grey} to {who}" + (f" ({why})." if why else "."),
                  f"press to {'all' if sent['recipients'] is None else ','.join(sent['recipients'])}")


def list_games(m: Incoming) -> Answer:
    """LIST: every game with its type, turn, state, deadline and who is awaited."""
    from pbem.host import controls

    games = controls.games_list(m.db)
    if not games:
        return Answer(True, "LIST: no games here yet.", "LIST")
    lines = ["LIST: the games here", f"  {'game':<20} {'type':<8} {'turn':>4}  {'state':<8} {'deadline':<21} awaited"]
    for g in games:
        turn = str(g["turn"]) if g.get("turn") else "-"
        state = g["state"] + (f" ({g['joined']}/{g['seats']})" if g["state"] == "open" and "seats" in g else "")
        lines.append(f"  {g['id']:<20} {g['type']:<8} {turn:>4}  {state:<8} {g.get('deadline') or '-':<21} "
                     f"{', '.join(g.get('awaited') or []) or '-'}")
    return Answer(True, "\n".join(lines), "LIST")


HISTORY_LIMIT = 400_000  # characters of reports in one HISTORY reply; beyond it the latest ones


def history(m: Incoming) -> Answer:
    """HISTORY GAME [TURN]: a game's public reports (every turn, or one), never a private one.
    Mailed at once to a message that carries the password of its sender's seat in that game
    (from the seat's registered address); to any other sender only once it confirms that it
    reads its address (HISTORY GAME [TURN] CONFIRM CODE, the code the first answer carries:
    good for that game and address, any turn). So a forged From has the judge mail nobody a
    game's history (some 1 MB for a finished Faith game), only the short answer with the code,
    and that counts in the reply cap (tester4 finding 11)."""
    from pbem.host import seats

    gid, word, rest = (m.request.args + (None, None, None))[:3]
    gid = gid or m.tag_game or (m.game_id if m.game else None)
    if not gid:
        return Answer.refused("HISTORY needs a game: HISTORY GAME [TURN]")
    game = _known_game(m.db, gid)
    if game is None:
        return Answer.refused(f"{no_such_game(gid)} (LIST shows the games)")
    confirming, typed, extra = False, None, []
    if word is not None and word.lower() == "confirm" and rest is None:  # HISTORY GAME CONFIRM (no code)
        word, confirming = None, True
    elif rest:
        _, confirming, typed, extra = _confirm_parts(rest)
    turn = whole(word)
    if word is not None and turn is None:
        return Answer.refused(f"not a turn number: HISTORY {game['id']} '{header_safe(word, 20)}'; "
                              f"{turns_exist(game['phase'])}")
    gid = game["id"]
    if word is not None:
        try:
            text = host.report(m.db, gid, None, turn)
        except NotFound as err:
            return Answer.refused(f"no such report: {err}")
    elif not any(host.report_text(m.db, gid, n, None) is not None for n in range(game["phase"], 0, -1)):
        return Answer.refused(f"game {gid} has no public report yet")
    line = f"HISTORY {gid}" + (f" {turn}" if word is not None else "")
    if _vouch(m, gid) is None and m.history_codes.get(gid) != "confirmed":  # the sender shows it reads its mail first
        if not m.sender:
            return Answer.refused("HISTORY needs a From address to answer, or your PLAYER and PASSWORD lines")
        code = seats.history_code(m.db, gid, m.sender)
        if not confirming and m.history_codes.get(gid) == "told":
            return Answer(True, f"HISTORY: the same code as above: send {line} CONFIRM {code} from this address",
                          f"HISTORY {gid}: confirmation asked")
        if not confirming:
            m.history_codes[gid] = "told"
            asked = _ask_code(label=f"HISTORY {gid}", line=line, code=code,
                              purpose=f"have {'the public report of turn ' + str(turn) if word is not None else 'the public reports'}"
                                      f" of game {gid} mailed to {m.sender}",
                              unasked="nothing more will come")
            asked.text += (f"\n(The code is good for every turn of game {gid}, from this address. A player of the game "
                           "sends HISTORY with their PLAYER and PASSWORD lines instead; the game's pages on the GM's "
                           "site show the reports too.)")
            return asked
        refused = _check_code(m, line=line, typed=typed, right=lambda t: t == code,
                              to_get=f"send {line} to have it mailed to {m.sender}",
                              wrong=f"that is not the code sent to {m.sender} for game {gid} (send {line} for it)")
        if refused:
            return refused
        m.out.authenticated = True  # the code proves the sender reads that address (as OBSERVE's)
        m.history_codes[gid] = "confirmed"
    if word is not None:
        title, numbers = f"[{gid}] history: turn {turn} (public report)", [turn]
    else:
        parts: list[str] = []
        size = 0
        for n in range(game["phase"], 0, -1):
            t = host.report_text(m.db, gid, n, None)
            if t is None:
                continue
            if size + len(t) > HISTORY_LIMIT and parts:
                parts.append(f"(turns 1 to {n}: too long for one message; send HISTORY {gid} N for turn N)\n")
                break
            parts.append(t)
            size += len(t)
        text = ("\n" + "=" * 78 + "\n\n").join(reversed(parts))
        title, numbers = f"[{gid}] history: the public reports", list(range(1, game["phase"] + 1))
    oid = outbox.queue(m.db, kind="history", to_addr=m.reply_to, subject=title, body=text + outbox.footer(gid),
                       game_id=gid, phase=numbers[-1], player=None, in_reply_to=m.mid, inbox_id=m.out.inbox_id)
    if extra:  # the words after the code: said in the reply (`_conclude` tells a request that is not `document`)
        return Answer(True, f"HISTORY: the public report{'s' if len(numbers) > 1 else ''} of {gid} sent to you "
                            "separately" + _ignored(extra, "the code"), "HISTORY", oid, mails=True)
    return Answer(True, f"HISTORY: the public report{'s' if len(numbers) > 1 else ''} of {gid} "
                        "sent to you separately", "HISTORY", oid, document=True)


def _game_arg(m: Incoming, what: str) -> str | None:
    return m.request.arg or m.tag_game or m.found.inherited("game")


def _confirm_parts(text: str | None) -> tuple[list[str], bool, str | None, list[str]]:
    """The words of a request after its game, split at CONFIRM: (the words before it, whether
    there is a CONFIRM, the code after it, the words after the code)."""
    words = (text or "").split()
    at = next((i for i, w in enumerate(words) if w.lower() == "confirm"), None)
    if at is None:
        return words, False, None, []
    return words[:at], True, (words[at + 1] if len(words) > at + 1 else None), words[at + 2:]


def _ignored(words: list[str], after: str) -> str:
    """The sentence that says which words after STOP or CONFIRM CODE were not read."""
    if not words:
        return ""
    return f"\n(The words after {after} were ignored: '{header_safe(' '.join(words), 60)}'.)"


def _ask_code(*, label: str, purpose: str, line: str, code: str, unasked: str,
              sent_from: str = "this address") -> Answer:
    """The first step of a request confirmed by a code (JOIN, OBSERVE, OBSERVE ... ADDRESS): the
    reply that carries the code and the line to send it back with."""
    return Answer(True, f"{label.split()[0]}: to {purpose}, send a message with this line from {sent_from}:\n\n"
                        f"    {line} CONFIRM {code}\n\n"
                        f"If you did not ask for it, ignore this mail: {unasked}.",
                  f"{label}: confirmation asked")


def _check_code(m: Incoming, *, line: str, typed: str | None, right: Callable[[str], bool], to_get: str,
                wrong: str) -> Answer | None:
    """The second step: None when `typed` is the code (`right` says); else the refusal -- no
    code typed (`to_get`: how to have it mailed), or a wrong one (`wrong`: why not). A wrong
    code counts against the sender's reply cap (Outcome.confirm_failed, pbem.mail.guard); one
    message tries one code at most (`_confirms`, in `_many`)."""
    if not typed:
        return Answer.refused(f"{line} CONFIRM needs the code: {to_get}")
    if not right(typed.lower()):
        m.out.confirm_failed = True
        log.warning("%s: %s CONFIRM with a wrong code from %s", m.item.origin, line, m.sender)
        return Answer.refused(f"{line} CONFIRM: {wrong}")
    return None


def _confirms(r: Request | None) -> bool:
    """Whether a request tries a confirmation code (JOIN or OBSERVE ... CONFIRM CODE)."""
    if r is None or r.name not in ("join", "observe", "history"):
        return False
    _, confirming, typed, _ = _confirm_parts(r.args[-1] if r.name == "history" else r.args[1] if len(r.args) > 1 else None)
    return confirming and typed is not None


ONE_CONFIRMATION = ("one confirmation per message: this CONFIRM was not checked (an earlier line of this message "
                    "tried a code); send it in a message of its own")


def join(m: Incoming) -> Answer:
    """JOIN GAME [NAME]: a seat in a game open for sign-up, for the sender's address, once the
    address confirms it (JOIN GAME [NAME] CONFIRM CODE, the code mailed back for that game,
    name and address: a forged From takes no seat and gets nobody a password)."""
    from pbem.host import seats

    gid = _game_arg(m, "JOIN")
    if not gid:
        return Answer.refused("JOIN needs a game: JOIN GAME [NAME] (LIST shows the games open for sign-up)")
    words, confirming, typed, extra = _confirm_parts(m.request.args[1] if len(m.request.args) > 1 else None)
    name = " ".join(words) or None
    if name and len(words) > 1:
        one = "-".join(words)
        return Answer.refused(f"JOIN: '{header_safe(name, 80)}' is not a name here: a name is one word of letters, "
                              f"digits, '-' or '_' (at most 40), e.g. JOIN {header_safe(gid, 40)} {header_safe(one, 40)}. "
                              "Nothing was changed")
    code, player = seats.join_code(m.db, gid, m.sender, name)  # refused as the JOIN itself would be
    gid = gid.lower()
    line = f"JOIN {gid}{' ' + player if player else ''}"
    as_whom = f"as {player}" if player else "under a name made from your address"
    if not confirming:
        return _ask_code(label=f"JOIN {gid}", line=line, code=code,
                         purpose=f"take a seat in game {gid} {as_whom}, with the address {m.sender}",
                         unasked="no seat is taken and nothing more will come")
    refused = _check_code(m, line=line, typed=typed, right=lambda t: t == code,
                          to_get=f"send {line} to have it mailed to {m.sender}",
                          wrong=f"that is not the code sent to {m.sender} for this game and name (a code confirms "
                                f"one game, one name and one address; send {line} for it)")
    if refused:
        return refused
    player, password = seats.join(m.db, gid, m.sender, name, turns=m.ctx.turns)
    m.out.authenticated = True  # the code proves the sender reads that address: never held back (the reply cap)
    return Answer(True, f"JOIN: you have a seat in game {gid} as {player}.\nYour password: {password}\n"
                        "Put it on the PASSWORD line of your orders; keep it to yourself. Your first report comes "
                        "when the game starts." + _ignored(extra, "the code"), f"JOIN {gid} as {player}")


def observe(m: Incoming) -> Answer:
    """OBSERVE GAME: each turn's public report of a game, to the sender's address, once the
    address confirms it (OBSERVE GAME CONFIRM CODE, the code mailed back: a forged From cannot
    sign somebody up); OBSERVE GAME STOP: no more; OBSERVE GAME ADDRESS NEW: move to a new
    address (`observer_address`). Words after STOP or CONFIRM CODE are ignored, and the answer
    says so."""
    from pbem.host import seats

    gid = _game_arg(m, "OBSERVE")
    if not gid:
        return Answer.refused("OBSERVE needs a game: OBSERVE GAME (LIST shows the games)")
    gid = gid.lower()
    how = (m.request.args[1] or "").split() if len(m.request.args) > 1 and m.request.args[1] else []
    if how and how[0].lower() == "stop":
        return Answer(True, seats.observe(m.db, gid, m.sender, remove=True) + _ignored(how[1:], "STOP"),
                      f"OBSERVE {gid} STOP")
    if how and (how[0].lower() == "address" or [w.lower() for w in how[:2]] == ["set", "address"]):
        return observer_address(m, gid, how[1 + (how[0].lower() == "set"):])
    code = seats.observer_code(m.db, gid, m.sender)  # NotFound for a game that is not there
    line = f"OBSERVE {gid}"
    if not how:
        return _ask_code(label=line, line=line, code=code,
                         purpose=f"have each turn's public report of game {gid} come to {m.sender}",
                         unasked="nothing more will come")
    refused = _check_code(m, line=line, typed=how[1] if len(how) > 1 else None, right=lambda t: t == code,
                          to_get=f"send {line} to have it mailed to {m.sender}",
                          wrong=f"that is not the code sent to {m.sender} (send {line} for it)")
    if refused:
        return refused
    before = m.db.execute("select coalesce(max(id), 0) from outbox").fetchone()[0]
    text = seats.observe(m.db, gid, m.sender)  # (and the latest public report, when the game has begun)
    m.out.authenticated = True  # the code proves the sender reads that address (as JOIN's)
    mailed = m.db.execute("select count(*) from outbox where id > ?", [before]).fetchone()[0]
    return Answer(True, text + _ignored(how[2:], "the code"), f"OBSERVE {gid}", mails=bool(mailed))


def observer_address(m: Incoming, gid: str, words: list[str]) -> Answer:
    """OBSERVE GAME ADDRESS NEW, from the address that observes the game: the code comes back
    to it, to be sent from NEW (OBSERVE GAME ADDRESS NEW CONFIRM CODE), which moves the
    observer there (both addresses are told). Asked by the old address, confirmed by the new:
    a forged From moves nobody's mail (neither address alone can do it)."""
    from pbem.host import seats

    before, confirming, typed, extra = _confirm_parts(" ".join(words))
    usage = f"write OBSERVE {gid} ADDRESS you@example.org, from the address that observes the game now"
    if len(before) != 1:
        return Answer.refused(f"OBSERVE {gid} ADDRESS needs the new address, one: {usage}" if not before else
                              f"'{header_safe(' '.join(before), 80)}' is not an email address; {usage}")
    raw = before[0]
    new = clean_address(raw)
    if not new or new != raw.strip("<>"):
        return Answer.refused(f"'{header_safe(raw, 80)}' is not an email address; {usage}")
    line = f"OBSERVE {gid} ADDRESS {new}"
    if not confirming:
        code = seats.observer_move_code(m.db, gid, m.sender, new)  # refused unless the sender observes the game
        return _ask_code(label=f"OBSERVE {gid} ADDRESS", line=line, code=code, sent_from=f"the new address, {new}",
                         purpose=f"have the public reports of game {gid} go to {new} instead of {m.sender}",
                         unasked="nothing changes")
    if new.lower() != m.sender.lower():
        return Answer.refused(f"{line} CONFIRM: send it from {new}, the address it moves to "
                              "(the code was mailed to the address that observes the game)")
    was = seats.observer_moved_by(m.db, gid, new, typed) if typed else None  # the observer the code is for
    refused = _check_code(m, line=line, typed=typed, right=lambda _typed: was is not None,
                          to_get=f"send {line} from the address that observes game {gid}, to have it mailed there",
                          wrong=f"that is not the code mailed for moving an observer of game {gid} to {new} (the "
                                f"address that observes the game sends {line} for it)")
    if refused:
        return refused
    moved = seats.move_observer(m.db, gid, was, new, by="observer")
    m.out.authenticated = True  # the code proves both addresses agree (as OBSERVE's)
    return Answer(True, f"OBSERVE: the observer of game {gid} at {moved['was']} is now at {moved['email']}; "
                        "both addresses are told." + _ignored(extra, "the code"), f"OBSERVE {gid} ADDRESS",
                  mails=True)


@dataclass(frozen=True)
class Command:
    """A mail command: what it needs before it runs, and its handler.

    `needs`: "nothing" (LIST, HISTORY: public things), "sender" (JOIN, OBSERVE: a sender's
    address to answer), "game" (a known game; the sender need not be a player), "seat" (a
    player of the game, found by their PLAYER line or registered address; no password:
    SEND PASSWORD) or "player" (a player authenticated by their registered address and, in
    `answer`, their PASSWORD). `handle` answers the command when it is a message's only
    request (the old single-request path); `answer` answers it among others.
    `without_game` answers it when the message names no game (None: it needs one)."""

    name: str
    needs: str
    handle: Callable[[Incoming], Outcome] | None = None
    without_game: Callable[[Incoming], Outcome] | None = None
    answer: Callable[[Incoming], Answer] | None = None
    word: str = ""  # how the reply names it

    @property
    def title(self) -> str:
        return self.word or self.name.upper().replace("_", " ")


COMMANDS: dict[str, Command] = {c.name: c for c in (
    Command("help", "game", game_help, without_game=general_help, answer=_help),
    Command("report", "player", report, answer=_report),
    Command("orders", "player", orders, answer=_orders),
    Command("wait", "player", answer=_wait(True)),
    Command("nowait", "player", answer=_wait(False)),
    Command("absent", "player", answer=absent),
    Command("set_address", "player", answer=set_address),
    Command("send_password", "seat", answer=send_password),
    Command("resign", "player", answer=resign),
    Command("draw", "player", answer=_propose("draw")),
    Command("concede", "player", answer=_propose("concede")),
    Command("nodraw", "player", answer=_withdraw("draw")),
    Command("noconcede", "player", answer=_withdraw("concede")),
    Command("press", "player", answer=press),
    Command("list", "nothing", answer=list_games),
    Command("history", "nothing", answer=history),
    Command("join", "sender", answer=join),
    Command("observe", "sender", answer=observe),
)}
_LEGACY = ("orders", "report", "help")  # answered as before when a message carries nothing else
# issue 17: one message's requests are answered up to these limits (a forged From asking
# HISTORY a thousand times made a thousand mails to somebody who never asked)
MAX_REQUESTS = 50  # requests read from one message
# mails that answer one message, all told: the reply "your commands" is counted from the first
# request on (it goes out whenever one request is refused or answered in it), and so is the
# acknowledgement of the message's orders; the rest is for requests answered by a mail of their
# own (each asked once). A forged From asking HISTORY three times got four mails.
MAX_MAILS = 3
OWN_MAIL = {"report", "history", "help", "send_password"}  # the requests answered by a mail of their own


# --- dispatching ----------------------------------------------------------------------------------

def _tagged_game(m: Incoming) -> str | None:
    """The game named in the subject as [GAME_ID], or the game of the thread it replies to."""
    for tag in GAME_TAG.findall(m.subject):
        if m.known_game(tag):
            return tag.lower()
    if m.msg is None:
        return None
    thread = THREAD_REF.search(header(m.msg, "References") + " " + header(m.msg, "In-Reply-To"))
    if thread and m.known_game(thread.group(1)):
        return thread.group(1).lower()
    return None


def _unknown_tag(m: Incoming) -> str | None:
    """A [GAME_ID] in the subject that names no game here (when none names one); "[pbem]",
    the tag of our own replies that name no game, is not one."""
    for tag in GAME_TAG.findall(m.subject):
        if tag.lower() != "pbem":
            return tag
    return None


def no_such_game(game_id: str | None) -> str:
    """The reason for a game id that names no game here, quoting it only when it is a
    syntactically valid game id (issue 17: a URL or escape codes are not reflected back)."""
    from pbem.host.service import NAME  # the game ids pbem new takes

    gid = str(game_id or "").lower()
    if NAME.match(gid):
        return f"unknown game '{gid}'"
    return "unknown game: no game by that name exists here (a game id is 1-40 letters, digits, '-' or '_')"


def _open_signup(m: Incoming, signup: dict) -> Outcome:
    """A message for a game open for sign-up (not set up yet: no game row, tester4 finding
    14). RESIGN with the password of one who joined from this address (or named on the
    PLAYER line) withdraws that sign-up; anything else is refused with the true reason."""
    gid = signup["id"]
    m.out.game_id = gid
    if m.is_mail and not m.sender:
        m.out.outcome, m.out.reason = "rejected", f"game '{gid}' has not started yet (and no From address to tell)"
        return m.out
    joined = read.signed_up(m.db, gid)
    named = (m.found.inherited("player") or "").strip().lower()
    mine = [j for j in joined if (named and j["name"] == named)
            or (not named and m.sender and j["email"].lower() == m.sender.lower())]
    if (len(mine) == 1 and m.password and m.sender and m.password == mine[0]["password"]
            and mine[0]["email"].lower() == m.sender.lower()):
        # her sign-up's password from her address vouches for her as a seat's does: never
        # held back by the reply cap (the re-check of tester4 finding 12)
        m.out.authenticated = True
    wants_resign = any(r.name == "resign" for r in m.found.requests)
    if wants_resign and len(mine) == 1:
        if m.password is None:
            return m.reject(f"RESIGN for game '{gid}' needs your PASSWORD (the one its JOIN mailed you)", game_exists=False)
        if m.password != mine[0]["password"]:
            return m.reject(f"bad password for {mine[0]['name']} in game '{gid}'", game_exists=False)
        from pbem.host import seats
        from pbem.mail.guard import gm_address

        m.out.player = mine[0]["name"]
        said = seats.withdraw(m.db, gid, mine[0]["name"], by="player", gm=gm_address(m.db, None))
        oid = m.notice(subject=f"[{gid}] sign-up withdrawn", text=said + "\n", to=m.sender)
        return m.accept(said, outbox_id=oid)
    how = (" To withdraw your sign-up before it starts, send GAME " + gid + ", your PASSWORD and RESIGN."
           if mine else "")
    return m.reject(f"game '{gid}' has not started yet: it is open for sign-up ({len(joined)} of {signup['seats']} "
                    "seats taken) and starts when full or when the GM starts it; orders and commands for it are "
                    f"taken from then on.{how}", game_exists=False)


def _unknown_game(m: Incoming, game_id: str) -> Outcome:
    signup = read.open_game(m.db, game_id)
    if signup:
        return _open_signup(m, signup)
    found = m.found
    m.out.game_id = game_id
    looks_like_orders = found.block is not None and (found.block.player or found.block.password or found.block.placeholder)
    if not looks_like_orders and not any(r.name != "help" for r in found.requests):
        m.out.game_id = None
        return m.ignore(f"not for any game: '{header_safe(game_id, 40)}' is no game here")
    if m.is_mail and not m.sender:
        m.out.outcome, m.out.reason = "rejected", f"{no_such_game(game_id)} (and no From address to tell)"
        return m.out
    known = [r["id"] for r in m.db["games"].rows_where("status = 'running'", select="id", order_by="id")]
    return m.reject(no_such_game(game_id) + (f"; running games: {', '.join(known)}" if known else ""),
                    to=m.sender if m.is_mail else None, tell=m.is_mail, game_exists=False)


def _seat_games(m: Incoming) -> list[str]:
    """The running games in which the sender's address holds a seat (a message that names no
    game is for the one of them, when there is one)."""
    if not m.is_mail or not m.sender:
        return []
    return [r[0] for r in m.db.execute(
        "select distinct p.game_id from players p join games g on g.id = p.game_id "
        "where g.status = 'running' and lower(p.email) = lower(?) order by p.game_id", [m.sender]).fetchall()]


def _password_game(m: Incoming) -> str | None:
    """Of the running games in which the sender's address holds a seat, the one whose seat's
    password is the message's PASSWORD, when it is exactly one; else None (no PASSWORD, or
    one that is no seat's or several seats' password: the sender is asked which)."""
    if not m.password or not m.sender:
        return None
    hits = [r[0] for r in m.db.execute(
        "select distinct p.game_id from players p join games g on g.id = p.game_id "
        "where g.status = 'running' and lower(p.email) = lower(?) and p.password = ?", [m.sender, m.password]).fetchall()]
    return hits[0] if len(hits) == 1 else None


def _sender_games(m: Incoming) -> list[str]:
    """The games a message that names none may be for: the running games in which its
    sender's address holds a seat (`_seat_games`), narrowed, when there are several, to the
    one its PASSWORD belongs to (`m.by_password`, which its answers name) if it belongs to one.
    More than one left: the sender is to be asked which (`_which_game`)."""
    seats = _seat_games(m)
    if len(seats) > 1:
        m.by_password = _password_game(m)
        if m.by_password:
            return [m.by_password]
    return seats


def password_note(game_id: str) -> str:
    """What the answers to a message taken by its PASSWORD (`_password_game`) say first."""
    return (f"(No GAME line and no [GAME_ID] in the subject: taken for game {game_id}, the game your password "
            "belongs to.)")


def _which_game(games: list[str]) -> str:
    """Why a message naming no game from the holder of seats in several is refused."""
    return (f"which game? No GAME line and no [GAME_ID] in the subject, and your address holds seats in "
            f"{', '.join(games)}: put GAME <game id> on a line of its own (or [GAME_ID] in the subject)")


def _who(m: Incoming) -> str | None:
    """The player a message speaks for: its PLAYER line, else the one player registered with
    the sender's address, else (an order file) the file's name."""
    name = m.found.inherited("player")
    if not name and m.sender:
        mine = [p["name"] for p in m.players if p.get("email") and p["email"].lower() == m.sender.lower()]
        if len(mine) == 1:
            name = mine[0]
    if not name and not m.is_mail:
        stem = Path(m.item.name).stem.lower()
        if any(p["name"] == stem for p in m.players):
            name = stem
    return name


def _request_list(found: Found) -> list[Request | None]:
    """The message's requests in the order of their lines; None stands for its orders (at the
    line of their first order, or of the password when the block has no order line)."""
    items: list[tuple[int, Request | None]] = [(r.line, r) for r in found.requests]
    if found.has_orders:
        block = found.block
        first = block.numbers[0] if block.numbers else (block.password_line or 0)
        items.append((first, None))
    return [r for _, r in sorted(items, key=lambda x: x[0])]


def dispatch(db, item: Item, raw: bytes, msg: Message | None, out: Outcome, ctx: Context) -> Outcome:
    """One message to its outcome: screened, routed to its game, answered by its command(s)."""
    render.install()  # a command may open a turn (JOIN filling a game), which writes reports
    m = Incoming(db, item, raw, msg, out, ctx)
    m.sender = m.reply_to = sender_of(msg)
    m.mid = msgid_ok(raw_header(msg, "Message-ID")) if msg is not None else None
    m.subject = header_safe(header(msg, "Subject")) if msg is not None else ""

    if msg is not None:
        why = automatic(msg, m.sender, ctx.own)
        if why:
            return m.ignore(why)

    tag_game = m.tag_game = _tagged_game(m)
    if len(raw) > ctx.max_bytes:
        out.game_id = tag_game
        if not tag_game:
            return m.ignore(f"not for any game (too large to read: {len(raw) / 2**20:.1f} MB, and no [GAME_ID] in the subject)")
        return m.reject(f"too large: the message is {len(raw) / 2**20:.1f} MB; the limit is {ctx.max_bytes / 2**20:.0f} MB. "
                        "Send your orders as plain text.")

    m.texts = all_texts(msg) if m.is_mail else Texts([("order file", decode_bytes(raw))])
    m.found = choose(m.texts)
    if m.is_mail and m.sender and len(m.found.seats) > 1:
        return _several(m)
    return _route(m)


def _route(m: Incoming) -> Outcome:
    """A message (or one part of it, `_several`) routed to its game and answered by its command(s)."""
    out, ctx, tag_game = m.out, m.ctx, m.tag_game
    requests = _request_list(m.found)
    if m.collect is not None or len(requests) > 1 or (
            requests and requests[0] is not None and requests[0].name not in _LEGACY):
        # mail commands may change a game or its players (RESIGN, SET ADDRESS, JOIN...): no
        # row read before is kept (orders, REPORT and HELP, alone, change neither)
        if ctx.rows is not None:
            ctx.rows.clear()
        try:
            return _many(m, requests)
        finally:
            if ctx.rows is not None:
                ctx.rows.clear()
    if requests and requests[0] is not None:
        m.request = requests[0]
    command = COMMANDS[m.found.command or "orders"]
    game_id = m.found.inherited("game") or tag_game
    if not game_id:
        if command.without_game:
            _vouch(m)  # HELP with a seat's PASSWORD: never held back by the reply cap
            return command.without_game(m)
        unknown = _unknown_tag(m)
        if unknown:
            return _unknown_game(m, unknown)
        seats = _sender_games(m) if m.found.has_content else []  # a seat holder's orders: their game's
        if len(seats) > 1:
            return m.reject(_which_game(seats), to=m.sender, game_exists=False)
        if not seats:
            return m.ignore("not for any game: no GAME line and no [GAME_ID] in the subject")
        game_id = seats[0]
    m.game = m.known_game(game_id)
    if not m.game:
        return _unknown_game(m, game_id)
    out.game_id = game_id
    m.players = m.game_players(game_id)
    m.rows_fresh = True  # one request: nothing is written before its handler reads them
    m.player_name = _who(m)
    if command.needs == "player":
        refused = _seat(m)
        if refused is not None:
            return refused
        out.authenticated = _authenticated(m)
    elif command.needs == "game":
        _vouch(m, game_id)  # HELP with the seat's PASSWORD: never held back by the reply cap
    handled = command.handle(m)
    if m.by_password:
        handled.reason += f" (taken for {m.by_password}: the game its password belongs to)"
    return handled


# --- several requests in one message ---------------------------------------------------------------

def _many(m: Incoming, requests: list[Request | None]) -> Outcome:
    """A message with several requests (or a command other than REPORT and HELP): each
    answered on its own, in its own savepoint, in the order of its lines; one reply tells
    what became of each (see the module docstring)."""
    db, out = m.db, m.out
    if m.is_mail and not m.sender:
        out.outcome, out.reason = "rejected", "no From address: commands are taken only from a sender who can be answered"
        return out
    game_id = m.found.inherited("game") or m.tag_game
    unknown: str | None = None
    if game_id:
        m.game = m.known_game(game_id)
        if m.game:
            out.game_id = m.game["id"]
            m.players = host.players(db, m.game["id"])
            m.player_name = _who(m)
        else:
            unknown = game_id
    needs_game = [r for r in requests if r is None or (COMMANDS[r.name].needs in ("player", "seat"))]
    if not game_id and _unknown_tag(m):
        unknown = game_id = _unknown_tag(m)
    which: list[str] = []  # the games the sender holds seats in, when the message names none of several
    if not game_id and needs_game:
        seats = _sender_games(m)  # a seat holder's requests: their game's
        if len(seats) == 1:
            game_id = seats[0]
            m.game = m.known_game(game_id)
            out.game_id = m.game["id"]
            m.players = host.players(db, m.game["id"])
            m.player_name = _who(m)
        else:
            which = seats
    if not game_id and not which and not any(r is not None and COMMANDS[r.name].needs in ("nothing", "sender") or
                                             (r is not None and r.name == "help") for r in requests):
        return m.ignore("not for any game: no GAME line and no [GAME_ID] in the subject")
    if unknown and needs_game and not any(r is not None and COMMANDS[r.name].needs in ("nothing", "sender")
                                          for r in requests):
        return _unknown_game(m, unknown)
    # a message with its sender's seat's PASSWORD is answered whatever it asks, never held back
    # by the reply cap: LIST, HELP, OBSERVE... too (tester4 finding 12; HISTORY checks its own game)
    _vouch(m, m.game["id"] if m.game else None)
    seat_checked = False
    seat_refusal: str | None = None
    answers: list[tuple[Request | None, Answer]] = []
    asked: set[tuple] = set()  # the requests met so far: the same one again is answered once
    confirmed = False  # a confirmation code was tried: one a message (a code is some 40 bits; 50 guesses a message were)
    # the mails answering this message so far: the reply from the first on, and the orders'
    # acknowledgement (orders are always taken: nothing a player sent is lost); one part of
    # several: the one reply that covers them all, and what the parts before asked
    sent = m.budget[0] if m.budget else 1 + (None in requests)
    for i, r in enumerate(requests):
        m.request = r
        if i == MAX_REQUESTS:  # one message cannot make the judge do (or send) without end
            rest = len(requests) - i
            why = (f"not read: this and the {rest - 1} request(s) after it; one message "
                   f"takes at most {MAX_REQUESTS} requests")
            answers.append((r, Answer(False, why, why, unread=rest)))
            break
        if r is not None:
            key = _request_key(r, m)
            if key in asked:  # LIST sixty times made one reply of sixty game lists
                answers.append((r, Answer.refused("the same request as an earlier line: answered once")))
                continue
            asked.add(key)
            if _confirms(r):
                if confirmed:
                    answers.append((r, Answer.refused(ONE_CONFIRMATION)))
                    continue
                confirmed = True
            if r.name in OWN_MAIL and sent >= MAX_MAILS:
                answers.append((r, Answer.refused(
                    f"not sent: one message is answered by at most {MAX_MAILS} mails, this reply and the "
                    "acknowledgement of orders included (REPORT, HISTORY, HELP and SEND PASSWORD each come as "
                    "a mail of their own); ask for the others in another message")))
                continue
        command = COMMANDS["orders" if r is None else r.name]
        answer: Answer
        if m.outside and command.needs in ("player", "seat"):  # (a message with blocks for several games)
            answers.append((r, Answer.refused(
                f"which game? This line is outside the blocks of your message ({m.outside}): put it inside the "
                "block of its game, before its END line")))
            continue
        if command.needs in ("player", "seat"):
            if not m.game:
                answer = Answer.refused(no_such_game(unknown) if unknown else _which_game(which) if which else
                                        "no game named: put GAME <game id> on a line, or [GAME_ID] in the subject")
                answers.append((r, answer))
                continue
            if not seat_checked:
                seat_checked = True
                refused = _find_seat(m)
                seat_refusal = refused[0] if refused else None
                out.authenticated = out.authenticated or (seat_refusal is None and _authenticated(m))
            if seat_refusal and command.needs == "seat":
                answers.append((r, Answer(False, _NOT_SENT, "SEND PASSWORD refused")))
                continue
            if seat_refusal:
                answers.append((r, Answer.refused(seat_refusal)))
                continue
            if command.needs == "player" and r is not None and r.name != "report":
                bad = _password_ok(m, command.title)
                if bad:
                    answers.append((r, Answer.refused(bad)))
                    continue
        elif command.needs == "sender" and not m.sender:
            answers.append((r, Answer.refused(f"{command.title} needs a From address to answer")))
            continue
        answer = _run(m, command)
        sent += bool(r is not None and answer.ok and (answer.document or answer.mails))  # a refused one sent nothing
        answers.append((r, answer))
    if m.budget:
        m.budget[0] = sent
    return _conclude(m, answers)


MAX_PARTS = 10  # blocks for different games or players read from one message


def _several(m: Incoming) -> Outcome:
    """Finding 01: a message with blocks for several games or players (njudge's way for a
    player in several games: GAME ath ... END, GAME olymp ... END, each with its PASSWORD).
    Each block is read as its own submission, with the requests typed in it, in its own
    savepoint, exactly as a message of its own would be (`_route`); the requests typed outside
    every block are one more part. ONE reply tells what became of each part -- each game's
    acknowledgement, line by line, and its requests -- and which blocks were set aside and why;
    the mails of their own (REPORT, HISTORY, HELP, SEND PASSWORD) count with it against
    MAX_MAILS. The message's one outcome (its inbox row) names the first part that was taken
    and the reason of each."""
    db, out = m.db, m.out
    parts = m.found.split()
    names = ", ".join("/".join(x for x in (b.game, b.player) if x) + f" at line {b.line}" if b.game or b.player
                      else f"a block at line {b.line}" for b in (p.block for p in parts) if b is not None)
    budget = [1]  # (the reply)
    sections: list[tuple[str, Outcome | None, list[str]]] = []
    guessed: Outcome | None = None  # the part whose PASSWORD was wrong: one a message is tried
    for i, found in enumerate(parts):
        title = (found.block.described() if found.block is not None else "the lines outside the blocks")
        if i == MAX_PARTS:
            sections.append((title, None, [f"NOT READ: this block and the {len(parts) - i - 1} after it; one message "
                                           f"is read for at most {MAX_PARTS} games or players"]))
            break
        if guessed is not None and found.block is not None and found.block.password:
            sections.append((title, None, [f"NOT READ: the password of an earlier block ({guessed.game_id}/{guessed.player}) "
                                           "was wrong, and one message tries one wrong password at most (password "
                                           "guessing); send this block again, in a message of its own"]))
            continue
        sub = Incoming(db, m.item, m.raw, m.msg, Outcome(out.origin, "rejected", "", inbox_id=out.inbox_id), m.ctx,
                       sender=m.sender, mid=m.mid, subject=m.subject, texts=m.texts, found=found, reply_to=m.sender,
                       tag_game=m.tag_game, collect=[], budget=budget, noted=True,
                       outside=names if found.block is None else None)
        if m.ctx.rows is not None:
            m.ctx.rows.clear()  # (a part may change a game: nothing read before is kept)
        try:
            with db.atomic():
                result = _route(sub)
        except PbemError as err:
            result = sub.out
            result.outcome, result.reason = "rejected", str(err)
            sub.collect.append(f"REFUSED: {err}")
        if result.outcome == "ignored":
            sub.collect.append(f"NOT READ: {result.reason}")
        if result.reason.startswith("bad password") and guessed is None:
            guessed = result
        sections.append((title, result, sub.collect))
    if m.ctx.rows is not None:
        m.ctx.rows.clear()
    results = [r for _, r, _ in sections if r is not None]
    taken = [r for r in results if r.outcome != "ignored"]
    if not taken:  # no part is for a game here: as a message that names none
        return m.ignore(results[0].reason if results else "not for any game")
    done = [r for r in taken if r.outcome == "accepted"]
    first = guessed or (done or taken)[0]  # (a wrong password first: the guessing throttle counts it, pbem.mail.guard)
    results = [first] + [r for r in results if r is not first]
    out.outcome = "accepted" if done else "rejected"
    out.game_id, out.player, out.submission_id = first.game_id, first.player, first.submission_id
    out.authenticated = any(r.authenticated for r in results)
    out.confirm_failed = any(r.confirm_failed for r in results)
    out.reason = "; ".join([first.reason] + [f"{r.game_id or '-'}{'/' + r.player if r.player else ''}: {r.reason}"
                                             for r in results[1:]])[:500]  # (the row names the first's game and player)
    verdicts = []
    for (title, r, _) in sections:
        who = f"{r.game_id}/{r.player}" if r is not None and r.game_id and r.player else (
            r.game_id if r is not None and r.game_id else "other lines")
        verdicts.append(f"{who} " + ("not read" if r is None or r.outcome == "ignored" else
                                     "REFUSED" if r.outcome != "accepted" else
                                     "accepted, some lines rejected" if " lines rejected" in r.reason else "accepted"))
    lines = ["pbem: your message, block by block", "",
             f"Your message holds blocks for {len(m.found.seats)} games or players ({names}); each is read as its own "
             "submission, and this one reply answers them all.", ""]
    for title, _, texts in sections:
        head = f"== {title} =="
        lines += [head, ""] + [t + "\n" for t in texts] if texts else [head, "", "(nothing in it to answer)", ""]
    if m.found.aside:
        lines += [f"Not read: {b.described()}: {why}." for b, why in m.found.aside] + [""]
    if m.by_password:
        lines += [password_note(m.by_password), ""]
    kind = "ack" if any(p.has_orders for p in parts) else "notice"
    out.outbox_id = _notice(db, to=m.sender, game_id=None, player=None, subject=f"[pbem] your message: {', '.join(verdicts)}",
                            text="\n".join(lines).rstrip("\n") + "\n", kind=kind, in_reply_to=m.mid,
                            inbox_id=out.inbox_id)
    return out


def _request_key(r: Request, m: Incoming) -> tuple:
    """What makes two requests the same (answered once): the command, its words (a turn number
    as its number: REPORT 01 is REPORT 1; REPORT alone is the current turn's), its block."""
    args = tuple(str(n) if (n := whole(a)) is not None else (a or "").lower() for a in r.args)
    if r.name == "report" and not any(args) and m.game:
        args = (str(m.game["phase"]),)
    return (r.name, args, tuple(r.body))


def _run(m: Incoming, command: Command) -> Answer:
    """One request's handler, in its own savepoint: refused (a PbemError), it changes nothing.
    (A handler that refuses by its answer has written nothing; refused orders are kept, as
    every submission is, with their acknowledgement.)"""
    try:
        with m.db.atomic():
            return command.answer(m)
    except PbemError as err:
        return Answer.refused(str(err))


def _describe(r: Request | None, m: Incoming) -> str:
    if r is None:
        block = m.found.block
        first = block.numbers[0] if block.numbers else block.password_line
        n = len(block.orders)
        return f"line {first}: your orders ({plural(n, 'line')})"
    shown = header_safe(r.text, 80)
    if r.name == "press":
        n = len(r.body)
        return f"line {r.line}: {shown} ({plural(n, 'line')})"
    return f"line {r.line}: {shown}"


def _conclude(m: Incoming, answers: list[tuple[Request | None, Answer]]) -> Outcome:
    """The message's one outcome, and the one reply that tells what became of each request."""
    out = m.out
    done = [a for _, a in answers if a.ok]
    out.outcome = "accepted" if done else "rejected"
    counted: dict[str, int] = {}  # each reason once, with how many requests it answers (the GM's line)
    for _, a in answers:
        if a.reason:
            counted[a.reason] = counted.get(a.reason, 0) + 1
    out.reason = "; ".join(why if n == 1 else f"{why} ({n} times)" for why, n in counted.items())[:500]
    if len(answers) == 1 and not answers[0][1].ok:
        out.reason = answers[0][1].reason
    if m.by_password:
        out.reason += f" (taken for {m.by_password}: the game its password belongs to)"
    if m.collect is not None:  # one part of several: every request told in the message's one reply
        lines = [text for r, a in answers if r is not None or not a.document  # (orders: their acknowledgement)
                 for text in (_describe(r, m), f"  {'done' if a.ok else 'REFUSED'}: "
                              + "\n  ".join(a.text.rstrip("\n").split("\n")))]
        if lines:
            m.collect.append("\n".join(lines))
        return out
    told = [(r, a) for r, a in answers if not (a.ok and a.document and r is not None) and not (r is None and a.ok)]
    orders_only_failed = len(answers) == 1 and answers[0][0] is None
    if not told or orders_only_failed or (m.is_mail and not m.sender) or not m.reply_to:
        ids = [a.outbox_id for _, a in answers if a.outbox_id]
        out.outbox_id = out.outbox_id or (ids[0] if ids else None)
        return out
    refused = sum(1 for _, a in answers if not a.ok)
    note = m.notes()
    lines = ["pbem: your message, request by request", ""] + ([note, ""] if note else [])
    for r, a in answers:
        lines.append(_describe(r, m))
        mark = "done" if a.ok else "REFUSED"
        text = a.text.rstrip("\n").split("\n")
        lines.append(f"  {mark}: {text[0]}")
        lines.extend("  " + t if t else "" for t in text[1:])
        lines.append("")
    if refused:
        lines.append("A refused request changed nothing" + ("; the others were carried out." if done else
                                                             ". Any orders you sent earlier still stand." if _seated(m.db, out)
                                                             else "."))
    tag = f"[{m.game_id}] " if m.game_id else "[pbem] "
    unread = sum(a.unread for _, a in answers)
    counts = [f"{len(done)} done" if done else "", f"{refused - bool(unread)} refused" if refused - bool(unread) else "",
              f"{unread} not read" if unread else ""]
    verdict = "done" if not refused else "REFUSED" if not done and not unread else ", ".join(c for c in counts if c)
    oid = m.notice(subject=f"{tag}your commands: {verdict}", text="\n".join(lines) + "\n", to=m.reply_to)
    out.outbox_id = oid or out.outbox_id
    return out
