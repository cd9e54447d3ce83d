"""The outbox: every message pbem wants to send is a row of the `outbox` table, queued in the
same transaction as what it reports on (the submission, the new turn). `pbem.mail.send`
delivers the rows. Also the header-safety helpers both sides use."""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from pbem.core.text import printable
from pbem.core.words import plural
from pbem.host import schedule
from pbem.host.addresses import is_writable

log = logging.getLogger("pbem.mail")



_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u0085]+")
_ADDR = re.compile(r"^[^@\s<>(),;:\"\\\[\]]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$")


# --- header safety ---------------------------------------------------------------------------

def header_safe(value: object, limit: int = 200) -> str:
    """Text fit for a header: CR, LF and every other control character become spaces (so
    nothing put in a header can start another header), runs of spaces collapse, and the
    result is cut to `limit` characters."""
    text = str(value or "")
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text[:limit]  # issue 17: nothing to clean (a printable text's only white space is ' ')
    text = _CONTROL.sub(" ", text)
    text = " ".join(text.split())
    return text[:limit]


def clean_address(value: str | None) -> str | None:
    """The bare address (local@domain) in a From/To value, or None when there is none or it
    is not a plain, single, injection-free address."""
    if not value:
        return None
    return _clean_address(str(value))


@lru_cache(maxsize=4096)
def _clean_address(value: str) -> str | None:
    """`clean_address` of a text, worked out once per text (issue 17: an ingest run reads the
    same few senders again and again)."""
    value = re.sub(r"\r?\n[ \t]+", " ", value)  # unfold a folded header
    if "\r" in value or "\n" in value:
        return None  # a line break that is not folding: an injection attempt
    value = _CONTROL.sub(" ", value)
    from email.utils import getaddresses  # only here: the email package is slow to import

    found = {a.strip() for _, a in getaddresses([value])} - {""}
    # issue 17: each address as written in the value: getaddresses glues a bare address and the
    # word after it ('zeus@example.org Bcc: evil@x' gave 'zeus@example.orgBcc'): a value with
    # such a part names no address, not the other one beside it
    if any(a not in value for a in found):
        return None
    valid = {a for a in found if _ADDR.match(a) and is_writable(a)}
    return valid.pop() if len(valid) == 1 else None  # exactly one address that mail can carry, or none at all


# --- queueing (called inside the host's transactions) -------------------------------------------

FOOTER = (
    "\n-- \n"
    "This message was sent by pbem, the adjudicator of game {game}. Reply to it with your\n"
    "orders (GAME, PLAYER and PASSWORD lines, one order a line, END). Send REPORT with your\n"
    "PASSWORD for your latest report again, or HELP for the order documentation.\n"
)


FOOTER_NO_GAME = (
    "\n-- \n"
    "This message was sent by pbem, the play-by-email adjudicator. Send HELP for what it\n"
    "takes, or LIST for its games.\n"
)


def footer(game_id: str | None) -> str:
    return FOOTER.format(game=game_id) if game_id else FOOTER_NO_GAME


def queue(db, *, kind: str, to_addr: str | None, subject: str, body: str, game_id: str | None = None,
          phase: int | None = None, player: str | None = None, in_reply_to: str | None = None,
          inbox_id: int | None = None) -> int | None:
    """Add one message to the outbox (status `queued`); returns its id, or None when there is
    no usable address. Call it inside the transaction that creates what it reports."""
    addr = clean_address(to_addr)
    if not addr:
        return None
    row = {
        "created": schedule.iso(schedule.now()), "kind": kind, "game_id": game_id, "phase": phase,
        "player": player, "to_addr": addr, "subject": header_safe(subject, 300), "body": printable(body),
        "in_reply_to": header_safe(in_reply_to, 500) or None, "message_id": None, "status": "queued",
        "attempts": 0, "next_attempt": None, "claimed": None, "sent_at": None, "last_error": None,
        "inbox_id": inbox_id,
    }
    return db.execute(_QUEUE_SQL, list(row.values())).lastrowid


_QUEUE_SQL = ("insert into outbox (created, kind, game_id, phase, player, to_addr, subject, body, in_reply_to, message_id, "
              "status, attempts, next_attempt, claimed, sent_at, last_error, inbox_id) "
              "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")  # (queue's row, its columns in order)


def welcome_text(game: dict, player: dict) -> str:
    return (
        f"Welcome to game {game['id']}: you play {player['name']} (seat {player['seat']}).\n"
        f"Your password: {player['password']}\n"
        "Put it on the PASSWORD line of your orders; keep it to yourself.\n"
        "To send orders, reply to your report: fill in the order form at its end (the\n"
        "PASSWORD line, then one order a line), or write just the form's lines. Quoting the\n"
        "report in your reply is fine.\n\n"
    )


def queue_reports(db, game: dict, players: list[dict], number: int, texts: dict[str, str],
                  welcome: bool = False) -> list[int]:
    """Queue each player's private turn report to their registered address (players without
    an email address get none). `welcome` (turn 1) puts the player's password on top."""
    ids = []
    over = game.get("status") == "finished"
    for p in players:
        text = texts.get(p["name"])
        if not p.get("email") or text is None:
            continue
        body = (welcome_text(game, p) if welcome else "") + text + footer(game["id"])
        subject = f"[{game['id']}] turn {number} report" + (" (game over)" if over else "")
        oid = queue(db, kind="report", to_addr=p["email"], subject=subject, body=body,
                    game_id=game["id"], phase=number, player=p["name"])
        if oid:
            ids.append(oid)
    return ids


def queue_ack(db, ack, mail: dict, text: str | None = None) -> int | None:
    """Queue the acknowledgement of a mailed submission to the sender (`mail["to"]`); `text`:
    `ack.text`, when the caller has it already; `mail["note"]`, a line put above it."""
    verdict = {"accepted": "orders accepted", "partial": "orders accepted, some lines rejected",
               "rejected": "orders REJECTED"}.get(ack.status, ack.status)
    if ack.confirms and ack.status != "rejected":  # READY alone: it took nothing new and replaced nothing
        skipped = sum(1 for r in ack.lines if r.status == "rejected")
        verdict = "orders on file marked ready" + (f", {plural(skipped, 'rejected line')} skipped" if skipped else "")
    turn = f" turn {ack.turn}" if ack.turn else ""
    subject = f"[{ack.game_id}]{turn}: {verdict} ({ack.player})"
    note = f"{mail['note']}\n\n" if mail.get("note") else ""  # (the mail layer's word on how the message was read)
    return queue(db, kind="ack", to_addr=mail.get("to"), subject=subject,
                 body=note + (ack.text if text is None else text) + footer(ack.game_id),
                 game_id=ack.game_id, phase=ack.turn, player=ack.player, in_reply_to=mail.get("in_reply_to"),
                 inbox_id=mail.get("inbox_id"))
