"""Mail out: the outbox and `pbem send`.

Everything pbem wants to tell a player by email -- an acknowledgement of the orders they
mailed, their turn report, the answer to a REPORT or HELP request -- is a row of the `outbox`
table, written in the same transaction as the thing it reports on (the submission, the new
turn). `send` delivers the queued rows through SMTP, one at a time:

- a row is *claimed* (status `sending`) before it is handed to the server and marked `sent`
  (committed) as soon as the server has accepted it, before the next one is tried, so a crash
  or a dropped connection leaves exactly the undelivered rows queued;
- a temporary failure (4xx, refused or dropped connection) keeps the row queued: the batch
  reconnects with exponential back-off, and a row that failed gets `next_attempt` in the future;
- a permanent failure (5xx for that message) marks the row `failed`; `pbem status` counts them
  and `pbem send --retry-failed` queues them again.

The only window in which a message could go out twice is between the server's final "250"
and our commit of `sent` (a crash exactly there): such a row is left `sending` and is sent
again after `STALE_CLAIM` with the *same* Message-ID, which mail clients use to drop the copy.

Every message is proper MIME: a text part and an HTML part, UTF-8, a Message-ID of its own,
In-Reply-To/References so that one game's mail threads in the player's client, Reply-To the
GM's order address, `[GAME_ID]` in the subject (so replies find their game), and
`Auto-Submitted` plus our own `X-PBEM-Mail` header, so that we never answer our own mail and
well-behaved auto-responders never answer it.
"""


from __future__ import annotations

import html
import logging
import re
import smtplib
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from pbem.core.errors import PbemError
from pbem.core.text import printable
from pbem import host
from pbem.host import deadline, schedule
from pbem.render.html import render_html_report
from pbem.host.addresses import check_address
from pbem.host.outbox import clean_address, header_safe
from pbem.mail.headers import OWN_HEADER, msgid_ok
from pbem.mail.settings import MailSettings

log = logging.getLogger("pbem.mail")



STALE_CLAIM = timedelta(minutes=15)
SECURITIES = ("auto", "starttls", "ssl", "none")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u0085]+")
_ADDR = re.compile(r"^[^@\s<>(),;:\"\\\[\]]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$")


# --- building messages ------------------------------------------------------------------------------

def _html(text: str) -> str:
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n"
        "<body><pre style=\"font-family: monospace; font-size: 13px; white-space: pre-wrap\">"
        f"{html.escape(text)}</pre></body></html>\n"
    )


def _thread_root(row: dict, domain: str) -> str:
    who = re.sub(r"[^A-Za-z0-9_.-]", "", f"{row.get('game_id') or 'pbem'}.{row.get('player') or 'mail'}")
    return f"<thread.{who}@{domain}>"



def report_html(db, row: dict) -> str | None:
    """The HTML part of a report email: the report page of pbem.render.html (its map as inline SVG,
    the player's own view), with whatever the text part carries above the report (the
    welcome and password of turn 1) on top. None when the page cannot be made (the text
    part still carries everything)."""
    if row.get("kind") != "report" or not row.get("game_id") or not row.get("player"):
        return None
    try:
        page = render_html_report(db, row["game_id"], row["player"], row.get("phase"))
    except Exception:  # a report must go out even if its page fails; the text part is whole
        return None
    stored = host.report_text(db, row["game_id"], row.get("phase"), row["player"])
    # what is above the report: up to the stored report, or to its first line when the report
    # was mailed with its Deadline line brought up to date (pbem.host.seats.current_deadline)
    head = stored.split("\n", 1)[0] if stored else ""
    mark = stored if stored and stored in row["body"] else head if head and head in row["body"] else ""
    prefix = row["body"].split(mark, 1)[0] if mark else ""
    if prefix.strip():
        page = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + "<pre>" + html.escape(prefix) + "</pre>", page, count=1)
    return page


def build_message(row: dict, settings: MailSettings, html_body: str | None = None) -> EmailMessage:
    """The MIME message of one outbox row (`html_body`: its HTML part, else the text as HTML)."""
    msg = EmailMessage()
    # issue 14: the configured name; issue 17: a game id from mail may carry control characters
    display = header_safe(settings.display_name(row.get("game_id")), 100)
    msg["From"] = Address(display_name=display, addr_spec=settings.from_addr)
    msg["To"] = Address(addr_spec=row["to_addr"])
    reply_to = clean_address(settings.reply_to) or settings.from_addr
    msg["Reply-To"] = Address(display_name=display, addr_spec=reply_to)
    msg["Subject"] = header_safe(row["subject"], 300)
    msg["Date"] = format_datetime(schedule.parse_time(row["created"]))
    msg["Message-ID"] = row["message_id"]
    root = _thread_root(row, settings.domain)
    parent = msgid_ok(row.get("in_reply_to"))
    msg["In-Reply-To"] = parent or root
    msg["References"] = f"{root} {parent}" if parent else root
    msg["Auto-Submitted"] = "auto-replied" if row["kind"] in ("ack", "help", "notice") else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    msg[OWN_HEADER] = header_safe(f"{row['kind']} {row.get('game_id') or '-'} {row['id']}")
    msg.set_content(printable(row["body"]), charset="utf-8")  # issue 17: a row queued before the guard too
    images = []
    if html_body and "<svg" in html_body:  # issue 14: drawings as inline PNG (cid:), for every client
        from pbem.render.png import inline_images

        html_body, images = inline_images(html_body, f"pbem.{row['id']}", settings.domain)
    msg.add_alternative(printable(html_body or _html(row["body"])), subtype="html", charset="utf-8")
    html_part = msg.get_payload()[1]
    for i, image in enumerate(images, 1):
        html_part.add_related(image.png, maintype="image", subtype="png", cid=f"<{image.cid}>",
                              disposition="inline", filename=f"{'map' if i == 1 else 'drawing'}-{i}.png")
    return msg


def _unwritable(err: Exception) -> str:
    return f"cannot be written as mail: {type(err).__name__}: {header_safe(err, 200)}"


def _assign_message_id(db, row: dict, settings: MailSettings) -> dict:
    if not row.get("message_id"):
        mid = f"<pbem.{row['id']}.{uuid.uuid4().hex[:16]}@{settings.domain}>"
        db["outbox"].update(row["id"], {"message_id": mid})
        row = dict(row, message_id=mid)
    return row


# --- sending --------------------------------------------------------------------------------

@dataclass
class SendResult:
    sent: list[int] = field(default_factory=list)
    failed: list[tuple[int, str]] = field(default_factory=list)
    deferred: list[tuple[int, str]] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    left: int = 0  # still queued when the run stopped
    still_failed: int = 0  # a dry run with retry_failed: failed messages written, left failed
    error: str = ""

    @property
    def complete(self) -> bool:
        return not self.error and not self.left


class _Temporary(Exception):
    """The connection or the server failed in a way worth retrying."""


def _due_rows(db, limit: int | None = None, *, failed: bool = False, change: bool = True) -> list[dict]:
    """The rows to send now, in order: queued (and due), and `failed` ones too when asked.
    A crashed run left some `sending`: they go out again, same Message-ID; queued again here
    unless not to `change` anything (a dry run), which only reads them."""
    now = schedule.now()
    stale = schedule.iso(now - STALE_CLAIM)
    if change:
        with db.atomic():
            db.execute("update outbox set status = 'queued', claimed = null where status = 'sending' and claimed < ?", [stale])
    rows = [
        r for r in db["outbox"].rows_where("status = 'queued' or (status = 'sending' and claimed < ?)"
                                           + (" or status = 'failed'" if failed else ""), [stale], order_by="id")
        if r["status"] != "queued" or not r["next_attempt"] or schedule.parse_time(r["next_attempt"]) <= now
    ]
    return rows[:limit] if limit else rows


def _claim(db, row_id: int) -> bool:
    with db.atomic():
        cur = db.execute(
            "update outbox set status = 'sending', claimed = ?, attempts = attempts + 1 where id = ? and status = 'queued'",
            [schedule.iso(schedule.now()), row_id],
        )
        return cur.rowcount == 1


def _set(db, row_id: int, **values) -> None:
    with db.atomic():
        db["outbox"].update(row_id, values)


MAX_REPLY_LINES = 500  # lines of one SMTP reply (an EHLO answer is a dozen)
CONNECT_TIMEOUTS = 3  # connecting and logging in may take this many times the timeout in all
MESSAGE_TIMEOUTS = 4  # handing over one message, this many: the socket timeout bounds each wait for a byte only


class _ReplyCap:
    """smtplib's getreply, with a bound on the lines of one reply: a server that never ends a
    multi-line reply made it read until the memory ran out."""

    def getreply(self):
        resp = []
        if self.file is None:
            self.file = self.sock.makefile("rb")
        while True:
            try:
                line = self.file.readline(smtplib._MAXLINE + 1)
            except OSError as e:
                self.close()
                raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed: " + str(e)) from None
            if not line:
                self.close()
                raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
            if len(line) > smtplib._MAXLINE or len(resp) >= MAX_REPLY_LINES:
                self.close()
                raise smtplib.SMTPResponseException(500, "Line too long." if len(resp) < MAX_REPLY_LINES
                                                    else f"a reply of over {MAX_REPLY_LINES} lines")
            resp.append(line[4:].strip(b" \t\r\n"))
            try:
                errcode = int(line[:3])
            except ValueError:
                errcode = -1
                break
            if line[3:4] != b"-":
                break
        return errcode, b"\n".join(resp)


class _SMTP(_ReplyCap, smtplib.SMTP):
    pass


class _SMTP_SSL(_ReplyCap, smtplib.SMTP_SSL):
    pass


def _why(err: BaseException) -> str:
    """A failed exchange in the GM's words: what the server answered, or the bound it overran."""
    if isinstance(err, smtplib.SMTPResponseException):
        return f"the server answered {err.smtp_code} {_decode(err.smtp_error)}"
    return deadline.described(err)


def _connect(settings: MailSettings) -> smtplib.SMTP:
    host, port = settings.host, settings.effective_port
    try:
        with deadline.within(CONNECT_TIMEOUTS * settings.timeout, "connecting and logging in", stoppable=True):
            if settings.security == "ssl" or (settings.security == "auto" and port == 465):
                smtp: smtplib.SMTP = _SMTP_SSL(host, port, timeout=settings.timeout, context=settings.ssl_context())
                secure = True
            else:
                smtp = _SMTP(host, port, timeout=settings.timeout)
                smtp.ehlo()
                secure = False
                if settings.security == "starttls" or (settings.security == "auto" and smtp.has_extn("starttls")):
                    smtp.starttls(context=settings.ssl_context())
                    smtp.ehlo()
                    secure = True
            if settings.username:
                if not secure and settings.security != "none":
                    smtp.close()
                    raise PbemError(f"{settings.describe()}: the server offers no TLS; refusing to send the password in clear (set security = \"none\" to allow it)")
                smtp.login(settings.username, settings.password or "")
        return smtp
    except smtplib.SMTPAuthenticationError as err:
        raise PbemError(f"{settings.describe()}: login refused ({err.smtp_code})") from None
    except smtplib.SMTPNotSupportedError as err:
        raise PbemError(f"{settings.describe()}: {err}") from None
    except (OSError, smtplib.SMTPException) as err:
        raise _Temporary(f"cannot connect to {settings.describe()}: {_why(err)}") from None


def _deliver(smtp: smtplib.SMTP, msg: EmailMessage, sender: str, to_addr: str) -> tuple[str, str]:
    """Hand one message to the server: ('sent', ''), ('failed', why) for a permanent refusal
    of this message (5xx), ('deferred', why) for a temporary one (4xx); raises _Temporary
    when the connection fails (the message was not accepted)."""
    try:
        wire = _wire(msg, sender, to_addr)
        with deadline.within(MESSAGE_TIMEOUTS * (getattr(smtp, "timeout", None) or 0), "handing over a message"):
            refused = smtp.sendmail(sender, [to_addr], *wire)
    except smtplib.SMTPRecipientsRefused as err:
        code, text = next(iter(err.recipients.values()))
        return ("deferred" if 400 <= code < 500 else "failed"), f"{code} {_decode(text)}"
    except smtplib.SMTPSenderRefused as err:
        # about our own address: no message can go, so stop the batch and keep them queued
        raise PbemError(f"the server refused the sender {sender}: {err.smtp_code} {_decode(err.smtp_error)}") from None
    except smtplib.SMTPResponseException as err:
        if err.smtp_code == 421 or err.smtp_code < 400:  # 421: the server is closing the connection
            raise _Temporary(f"{err.smtp_code} {_decode(err.smtp_error)}") from None
        return ("deferred" if err.smtp_code < 500 else "failed"), f"{err.smtp_code} {_decode(err.smtp_error)}"
    except (OSError, smtplib.SMTPException) as err:
        raise _Temporary(_why(err)) from None
    if refused:
        code, text = next(iter(refused.values()))
        return ("deferred" if 400 <= code < 500 else "failed"), f"{code} {_decode(text)}"
    return "sent", ""


def _wire(msg: EmailMessage, sender: str, to_addr: str) -> tuple[bytes, tuple[str, ...]]:
    """The message's bytes as sent, and the MAIL options. smtplib's send_message flattens
    with a generator made without a policy, which turns a body line "From ..." into ">From
    ..."; flattened here with the message's own policy (mangle_from_ off), the body arrives
    as written -- as `send --dry-run` writes it. Non-ASCII addresses need SMTPUTF8, as
    send_message would ask."""
    international = any(not s.isascii() for s in (sender, to_addr, str(msg.get("From", "")), str(msg.get("To", ""))))
    policy = msg.policy.clone(linesep="\r\n", mangle_from_=False, **({"utf8": True} if international else {}))
    options = ("SMTPUTF8", "BODY=8BITMIME") if international else ()
    return msg.as_bytes(policy=policy), options


def _decode(value) -> str:
    return header_safe(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)


def _eml_name(row: dict) -> str:
    parts = [f"{row['id']:06d}", row.get("game_id") or "pbem", row.get("player") or "mail", row["kind"]]
    # each part cut to 40 characters (a game id or name taken from mail may be any length):
    # the name stays far below the 255 bytes file systems allow, and unique by the row id
    return "-".join(re.sub(r"[^A-Za-z0-9_-]", "_", str(p))[:40] for p in parts) + ".eml"


def write_eml(db, out_dir: str | Path, settings: MailSettings, mark_sent: bool = False,
              failed: bool = False) -> SendResult:
    """`pbem send --dry-run DIR`: each queued message (and each failed one too, with
    `failed`: --retry-failed) as DIR/NNNNNN-GAME-PLAYER-KIND.eml. No message's status
    changes unless `mark_sent` (the GM sends these by hand), but for one that cannot be
    written as mail at all, set aside as `send` would. Each keeps the Message-ID it is
    given here, so the file and the message sent later agree."""
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():  # finding 13: not the OS's "File exists"
        raise PbemError(f"--dry-run {out_dir} is a file, not a folder: give a folder for the .eml files (it is made "
                        "if it does not exist); nothing was written")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # a file on the way: a/b where a is a file
        raise PbemError(f"--dry-run {out_dir}: a part of that path is a file, not a folder; give a folder for the "
                        ".eml files; nothing was written") from None
    result = SendResult()
    for row in _due_rows(db, failed=failed, change=mark_sent):
        row = _assign_message_id(db, row, settings)
        path = folder / _eml_name(row)
        try:
            data = bytes(build_message(row, settings, report_html(db, row)))
        except (ValueError, TypeError, LookupError) as err:  # issue 14: set aside, the rest go on
            _set(db, row["id"], status="failed", last_error=_unwritable(err))
            result.failed.append((row["id"], _unwritable(err)))
            continue
        path.write_bytes(data)
        result.written.append(path)
        if row["status"] == "failed" and not mark_sent:
            result.still_failed += 1
        if mark_sent:
            _set(db, row["id"], status="sent", sent_at=schedule.iso(schedule.now()), last_error=f"written to {path} for sending by hand")
    return result


def send(db, settings: MailSettings, dry_run: str | Path | None = None, mark_sent: bool = False,
         retry_failed: bool = False, limit: int | None = None, sleep=time.sleep) -> SendResult:
    """Deliver the outbox (see the module docstring). Safe to run again at any time."""
    if dry_run is not None:  # issue 17: a dry run leaves failed mail failed (it writes it too, with retry_failed)
        return write_eml(db, dry_run, settings, mark_sent, failed=retry_failed)
    if retry_failed:
        with db.atomic():
            db.execute("update outbox set status = 'queued', next_attempt = null where status = 'failed'")
    result = SendResult()
    rows = _due_rows(db, limit)
    if not rows:
        return result
    sender = settings.from_addr
    smtp: smtplib.SMTP | None = None
    failures = 0
    i = 0
    try:
        while i < len(rows):
            row = rows[i]
            try:
                if smtp is None:
                    smtp = _connect(settings)
                if not _claim(db, row["id"]):
                    i += 1  # another `pbem send` has it
                    continue
                row = _assign_message_id(db, row, settings)
                try:
                    check_address(row["to_addr"])  # queued before addresses were checked?
                    message = build_message(row, settings, report_html(db, row))
                    bytes(message)  # a header it cannot write fails here, not halfway through the batch
                except (ValueError, TypeError, LookupError) as err:  # issue 14: set aside with its reason
                    _set(db, row["id"], status="failed", claimed=None, last_error=_unwritable(err))
                    result.failed.append((row["id"], _unwritable(err)))
                    i += 1
                    continue
                try:
                    outcome, why = _deliver(smtp, message, sender, row["to_addr"])
                except BaseException:
                    _set(db, row["id"], status="queued", claimed=None)
                    raise
                now = schedule.now()
                if outcome == "sent":  # recorded before anything else is tried
                    _set(db, row["id"], status="sent", claimed=None, sent_at=schedule.iso(now), last_error=None)
                    result.sent.append(row["id"])
                elif outcome == "failed":
                    _set(db, row["id"], status="failed", claimed=None, last_error=why)
                    result.failed.append((row["id"], why))
                else:
                    wait = timedelta(seconds=settings.backoff * 60 * (2 ** min(row["attempts"], 6)))
                    _set(db, row["id"], status="queued", claimed=None, last_error=why, next_attempt=schedule.iso(now + wait))
                    result.deferred.append((row["id"], why))
                i += 1
                failures = 0
            except _Temporary as err:
                if smtp is not None:
                    try:
                        smtp.close()
                    except Exception:
                        pass
                smtp = None
                failures += 1
                if failures > settings.retries:
                    _set(db, row["id"], last_error=str(err))
                    result.error = str(err)
                    result.left = len(rows) - i
                    break
                sleep(settings.backoff * (2 ** (failures - 1)))
    finally:
        if smtp is not None:
            try:
                smtp.quit()
            except Exception:
                try:
                    smtp.close()
                except Exception:
                    pass
    return result


