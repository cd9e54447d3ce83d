"""What a message asks for, and one small handler per mail command, in a table.

`dispatch` screens a message (automatic mail is never answered), finds the game it is for
(a GAME line, `[GAME_ID]` in the subject, or the thread of one of our own messages), finds
the order block the player wrote in, and hands it to the handler of its command: `COMMANDS`
maps each command word (HELP, REPORT; plain orders are the command `orders`) to a `Command`
that says what it needs before it runs -- nothing, a known game, or a player authenticated
by their registered address -- and the function that answers it. A new mail command is one
handler and one row of the table.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path
from typing import Callable

from pbem import host
from pbem.core.errors import NotFound
from pbem.core.registry import game_types, order_doc
from pbem.host import outbox
from pbem.host.outbox import header_safe
from pbem.mail.extract import Found, choose, order_text
from pbem.mail.formats import Item
from pbem.mail.headers import GAME_TAG, THREAD_REF, received_time, automatic, header, msgid_ok, raw_header, sender_of
from pbem.mail.mime import Texts, all_texts, decode_bytes
from pbem.mail.outcome import Context, Outcome
from pbem.render.plain import fill_in_form, markdown_to_text

log = logging.getLogger("pbem.mail")

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

    @property
    def is_mail(self) -> bool:
        return self.item.kind != "file"

    @property
    def game_id(self) -> str | None:
        return self.game["id"] if self.game else None

    def ignore(self, why: str) -> Outcome:
        self.out.outcome, self.out.reason = "ignored", why
        return self.out

    def accept(self, why: str, outbox_id: int | None = None) -> Outcome:
        self.out.outcome, self.out.reason = "accepted", why
        if outbox_id is not None:
            self.out.outbox_id = outbox_id
        return self.out

    def reject(self, why: str, to: str | None = None, tell: bool = True) -> Outcome:
        """Reject with a reason and tell the sender (`to`, by default whoever gets our replies)."""
        return rejection(self.db, self.out, (to or self.reply_to) if tell else None, self.mid, why)

    def notice(self, *, subject: str, text: str, kind: str = "notice", to: str | None = None) -> int | None:
        return _notice(self.db, to=to or self.sender, game_id=self.game_id, player=self.out.player, subject=subject,
                       text=text, kind=kind, in_reply_to=self.mid, inbox_id=self.out.inbox_id)


def _notice(db, *, to: str | None, game_id: str | None, player: str | None, subject: str, text: str,
            kind: str = "notice", in_reply_to: str | None = None, inbox_id: int | None = None) -> int | None:
    return outbox.queue(db, kind=kind, to_addr=to, subject=subject, body=text + outbox.footer(game_id),
                        game_id=game_id, player=player, in_reply_to=in_reply_to, inbox_id=inbox_id)


def rejection(db, out: Outcome, to: str | None, mid: str | None, why: str) -> Outcome:
    """Reject with a reason, and tell the sender (when there is one)."""
    out.outcome, out.reason = "rejected", why
    if to:
        tag = f"[{out.game_id}] " if out.game_id else "[pbem] "
        text = (f"pbem: your message was rejected\n\nReason: {why}\n\n"
                "Nothing was changed; any orders you sent earlier still stand.\n")
        out.outbox_id = _notice(db, to=to, game_id=out.game_id, player=out.player, subject=f"{tag}your message was rejected",
                                text=text, in_reply_to=mid, inbox_id=out.inbox_id)
    return out


def _known_game(db, name: str | None) -> dict | None:
    if not name:
        return None
    cur = db.execute("select * from games where id = ?", [name.lower()])
    row = cur.fetchone()
    return dict(zip([d[0] for d in cur.description], row)) if row else None


def _reason(ack) -> str:
    if ack.status == "accepted":
        return "orders accepted" if ack.lines else "orders accepted (no orders: default orders will be used)"
    if ack.status == "partial":
        bad = sum(1 for r in ack.lines if r.status != "accepted")
        return f"orders accepted ({bad} of {len(ack.lines)} lines rejected)"
    for needle, code in _HOST_REASONS:
        if needle in ack.reason:
            return f"{code}: {ack.reason}" if code else ack.reason
    return f"rejected: {ack.reason}"


# --- what a command needs before it runs ------------------------------------------------------

def _seat(m: Incoming) -> Outcome | None:
    """Authenticate the player a message speaks for, by their registered address (the password
    is each handler's to check). Sets `m.row`; returns the rejection when that fails."""
    if m.is_mail and not m.sender:
        m.out.player = m.player_name
        m.out.outcome, m.out.reason = "rejected", "no From address: orders are taken only from a sender who can be answered"
        return m.out
    game_id = m.game_id
    if not m.player_name:
        return m.reject(f"no PLAYER line: say who you are (PLAYER <name>); the players of {game_id} are "
                        f"{', '.join(p['name'] for p in m.players)}")
    row = next((p for p in m.players if p["name"] == m.player_name.lower()), None)
    if row is None:
        return m.reject(f"unknown player '{header_safe(m.player_name, 40)}' in game {game_id}")
    m.out.player = row["name"]
    if not m.is_mail:
        m.reply_to = row.get("email")  # an order file's acknowledgement goes to the player's address
    elif row.get("email") and row["email"].lower() != m.sender.lower():
        log.warning("%s: orders for %s/%s from %s, not the registered address", m.item.origin, game_id, row["name"], m.sender)
        return m.reject(f"sender mismatch: orders for {row['name']} in {game_id} are taken only from the player's registered address",
                        to=m.sender)
    found = m.found
    if not found.has_content and not (found.block and found.block.placeholder):
        unread = f" (not opened: {', '.join(m.texts.unread)})" if m.texts.unread else ""
        return m.reject("no orders found: put your orders in the message text (or a .txt attachment), "
                        "starting with the GAME, PLAYER and PASSWORD lines of the order form" + unread)
    if found.block and found.block.placeholder and not found.block.password:
        return m.reject("no password: the PASSWORD line still reads 'your-password-here'; "
                        "put your password there (it was in your first report)")
    m.row = row
    return None


# --- the handlers ---------------------------------------------------------------------------------

def general_help(m: Incoming) -> Outcome:
    """HELP naming no game: what this address is for, and the game types."""
    if not m.sender:
        return m.ignore("not for any game: no GAME line and no [GAME_ID] in the subject")
    return m.accept("help sent (general help: no game named)",
                    m.notice(subject="[pbem] help", kind="help", text=GENERAL_HELP.format(types=", ".join(game_types()))))


def game_help(m: Incoming) -> Outcome:
    """HELP for a game: its order documentation."""
    m.out.player = m.player_name
    m.out.outcome, m.out.reason = "accepted", "help sent"
    text = fill_in_form(markdown_to_text(order_doc(m.game["type"])), m.game_id, m.player_name)
    m.out.outbox_id = m.notice(kind="help", subject=f"[{m.game_id}] order documentation ({m.game['type']})", text=text)
    return m.out


def report(m: Incoming) -> Outcome:
    """REPORT [TURN] with the player's PASSWORD: their latest (or that turn's) report again."""
    game_id, row, found = m.game_id, m.row, m.found
    if found.command_word is not None and found.command_arg is None:
        return m.reject(f"not a turn number: REPORT '{header_safe(found.command_word, 20)}'; send REPORT alone for your "
                        f"latest report, or REPORT N for turn N (1 to {m.game['phase']})")
    password = found.block.password if found.block else None
    if password != row["password"]:
        log.warning("%s: REPORT for %s/%s with a wrong password", m.item.origin, game_id, row["name"])
        return m.reject("bad password: REPORT needs your PASSWORD" if password else "no password: REPORT needs your PASSWORD line")
    try:
        text = host.report(m.db, game_id, row["name"], found.command_arg)
        number = found.command_arg or m.game["phase"]
    except NotFound as err:
        return m.reject(f"no such report: {err}")
    return m.accept(f"report sent (turn {number})", outbox.queue(
        m.db, kind="report", to_addr=m.reply_to, subject=f"[{game_id}] turn {number} report",
        body=text + outbox.footer(game_id), game_id=game_id, phase=number, player=row["name"],
        in_reply_to=m.mid, inbox_id=m.out.inbox_id))


def orders(m: Incoming) -> Outcome:
    """An order block: submitted like `pbem submit` (the host checks the password and every line)."""
    row, out = m.row, m.out
    ack = host.submit(
        m.db, m.game_id, row["name"], order_text(m.game_id, row["name"], m.found), source=f"mail:{out.inbox_id}",
        delivered=m.item.delivered or (received_time(m.msg) if m.msg is not None else None),
        mail={"to": m.reply_to, "in_reply_to": m.mid, "inbox_id": out.inbox_id},
    )
    out.submission_id = ack.submission_id
    out.outcome = "rejected" if ack.status == "rejected" else "accepted"
    out.reason = _reason(ack)
    if "wrong password" in ack.reason:
        log.warning("%s: wrong password for %s/%s from %s", m.item.origin, m.game_id, row["name"], m.sender)
    return out


@dataclass(frozen=True)
class Command:
    """A mail command: what it needs before it runs, and its handler.

    `needs`: "game" (a known game; the sender need not be a player) or "player" (a player of
    the game, authenticated by their registered address). `without_game` answers the command
    when the message names no game (None: such a message is ignored)."""

    name: str
    needs: str
    handle: Callable[[Incoming], Outcome]
    without_game: Callable[[Incoming], Outcome] | None = None


COMMANDS: dict[str, Command] = {c.name: c for c in (
    Command("help", "game", game_help, without_game=general_help),
    Command("report", "player", report),
    Command("orders", "player", orders),
)}


# --- dispatching ----------------------------------------------------------------------------------

def _tagged_game(m: Incoming) -> str | None:
    """The game named in the subject as [GAME_ID], or the game of the thread it replies to."""
    for tag in GAME_TAG.findall(m.subject):
        if _known_game(m.db, tag):
            return tag.lower()
    if m.msg is None:
        return None
    thread = THREAD_REF.search(header(m.msg, "References") + " " + header(m.msg, "In-Reply-To"))
    if thread and _known_game(m.db, thread.group(1)):
        return thread.group(1).lower()
    return None


def _unknown_game(m: Incoming, game_id: str) -> Outcome:
    found = m.found
    m.out.game_id = game_id
    looks_like_orders = found.block is not None and (found.block.player or found.block.password or found.block.placeholder)
    if not looks_like_orders:
        m.out.game_id = None
        return m.ignore(f"not for any game: '{header_safe(game_id, 40)}' is no game here")
    if m.is_mail and not m.sender:
        m.out.outcome, m.out.reason = "rejected", f"unknown game '{header_safe(game_id, 40)}' (and no From address to tell)"
        return m.out
    known = [r["id"] for r in m.db["games"].rows_where("status = 'running'", select="id", order_by="id")]
    return m.reject(f"unknown game '{header_safe(game_id, 40)}'" + (f"; running games: {', '.join(known)}" if known else ""),
                    to=m.sender if m.is_mail else None, tell=m.is_mail)


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


def dispatch(db, item: Item, raw: bytes, msg: Message | None, out: Outcome, ctx: Context) -> Outcome:
    """One message to its outcome: screened, routed to its game, answered by its command."""
    m = Incoming(db, item, raw, msg, out, ctx)
    m.sender = m.reply_to = sender_of(msg)
    m.mid = msgid_ok(raw_header(msg, "Message-ID")) if msg is not None else None
    m.subject = header_safe(header(msg, "Subject")) if msg is not None else ""

    if msg is not None:
        why = automatic(msg, m.sender, ctx.own)
        if why:
            return m.ignore(why)

    tag_game = _tagged_game(m)
    if len(raw) > ctx.max_bytes:
        out.game_id = tag_game
        if not tag_game:
            return m.ignore(f"not for any game (too large to read: {len(raw) / 2**20:.1f} MB, and no [GAME_ID] in the subject)")
        return m.reject(f"too large: the message is {len(raw) / 2**20:.1f} MB; the limit is {ctx.max_bytes / 2**20:.0f} MB. "
                        "Send your orders as plain text.")

    m.texts = all_texts(msg) if m.is_mail else Texts([("order file", decode_bytes(raw))])
    m.found = choose(m.texts)
    command = COMMANDS[m.found.command or "orders"]
    game_id = m.found.inherited("game") or tag_game
    if not game_id:
        if command.without_game:
            return command.without_game(m)
        return m.ignore("not for any game: no GAME line and no [GAME_ID] in the subject")
    m.game = _known_game(db, game_id)
    if not m.game:
        return _unknown_game(m, game_id)
    out.game_id = game_id
    m.players = host.players(db, game_id)
    m.player_name = _who(m)
    if command.needs == "player":
        refused = _seat(m)
        if refused is not None:
            return refused
    return command.handle(m)
