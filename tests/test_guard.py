"""The guard (pbem/mail/guard.py, issue 14): bounces recognised, recorded against the player's
address, shown in `pbem status`, never answered; password guessing throttled (recorded, not
answered, the GM told once); auto-replies without Auto-Submitted recognised; and at most a
few answers an hour to one sender, whatever it is."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem import host
from pbem.mail import guard
from pbem.mail import ingest as mail_in

CORPUS = Path(__file__).parent / "mail"
OWN = "gm@pbem.example"


@pytest.fixture
def game(db, turns):
    created = host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org"], seed="1", turns=turns)
    return {p["name"]: p["password"] for p in created["players"]}


def mail(tmp_path: Path, name: str, *, sender="alice@example.org", subject="[g1] orders", body="", headers=None,
         msg: EmailMessage | None = None) -> Path:
    if msg is None:
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = OWN
        msg["Subject"] = subject
        msg["Message-ID"] = f"<{name}@example.org>"
        for k, v in (headers or {}).items():
            msg[k] = v
        msg.set_content(body)
    path = tmp_path / "in" / f"{name}.eml"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(bytes(msg))
    return path


def ingest(db, *paths):
    return mail_in.ingest(db, [str(p) for p in paths], own_address=OWN).results


def replies(db, inbox_id=None, status="queued"):
    where, args = "status = ?", [status]
    if inbox_id is not None:
        where += " and inbox_id = ?"
        args.append(inbox_id)
    return db.execute(f"select count(*) from outbox where {where} and inbox_id is not null", args).fetchone()[0]


# --- bounces -----------------------------------------------------------------------------------------

def test_a_returned_report_is_recorded_against_the_player_and_never_answered(db, game, cli, tmp_path, monkeypatch):
    (out,) = ingest(db, CORPUS / "i04-bounce-mailer-daemon.eml")
    assert out.outcome == "ignored" and "bounce" in out.reason and "alice@example.org (g1/alice)" in out.reason
    rows = db.execute("select address, game_id, player, outbox_id, action from bounces").fetchall()
    assert rows == [("alice@example.org", "g1", "alice", 1, "failed")]
    assert db.execute("select count(*) from outbox where inbox_id is not null").fetchone()[0] == 0
    monkeypatch.setenv("PBEM_DB", str(tmp_path / "pbem.db"))
    r = cli("status")
    assert "g1: mail to alice <alice@example.org> bounced (1x" in r.stdout
    data = json.loads(cli("status", "--json").stdout)
    assert data["games"][0]["bounces"][0]["address"] == "alice@example.org"
    assert data["games"][0]["bounces"][0]["count"] == 1


DSN = b"""From: Mail Delivery Subsystem <postmaster@mx.example.net>
To: gm@pbem.example
Subject: Delivery Status Notification (Failure)
Message-ID: <dsn1@mx.example.net>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

Your message could not be delivered.

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net
Arrival-Date: Sat, 21 Nov 2026 14:05:00 +0000

Final-Recipient: rfc822; bob@example.org
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <bob@example.org>: user unknown

Final-Recipient: rfc822; somebody@example.org
Action: delivered
Status: 2.0.0

--b1
Content-Type: text/rfc822-headers

From: pbem g1 <gm@pbem.example>
To: bob@example.org
Subject: [g1] turn 1 report

--b1--
"""


def test_a_standard_delivery_status_notification(db, game, tmp_path):
    path = tmp_path / "dsn1.eml"
    path.write_bytes(DSN.replace(b"\n", b"\r\n"))
    (out,) = ingest(db, path)
    assert out.outcome == "ignored" and "5.1.1" in out.reason
    rows = db.execute("select address, game_id, player, status, diagnostic from bounces").fetchall()
    assert len(rows) == 1  # the delivered recipient is no failure
    assert rows[0][:4] == ("bob@example.org", "g1", "bob", "5.1.1") and "user unknown" in rows[0][4]
    assert replies(db) == 0


def test_a_qmail_style_failure_notice(db, game, tmp_path):
    body = ("Hi. This is the qmail-send program at mx.example.net.\nI'm afraid I wasn't able to deliver your message "
            "to the following addresses.\n\n<bob@example.org>:\nSorry, no mailbox here by that name. (#5.1.1)\n")
    (out,) = ingest(db, mail(tmp_path, "q1", sender="MAILER-DAEMON@mx.example.net", subject="failure notice", body=body))
    assert out.outcome == "ignored"
    assert db.execute("select address, player from bounces").fetchall() == [("bob@example.org", "bob")]
    assert "no mailbox here" in db.execute("select diagnostic from bounces").fetchone()[0]


# --- password guessing ---------------------------------------------------------------------------------

def test_guessing_is_recorded_but_not_answered_and_the_gm_is_told_once(db, game, tmp_path, monkeypatch, cli):
    monkeypatch.setenv("PBEM_GM", "boss@pbem.example")
    monkeypatch.chdir(tmp_path)
    # a guesser forging alice's address (a stranger's From is refused as a sender mismatch anyway)
    paths = [mail(tmp_path, f"guess{i}", body=f"PLAYER alice\nPASSWORD guess-{i}\nEND\n") for i in range(9)]
    results = ingest(db, *paths)
    assert all(r.outcome == "rejected" and r.reason.startswith("bad password") for r in results)
    answered = [replies(db, r.inbox_id) for r in results]
    assert answered == [1] * guard.GUESS_LIMIT + [0] * (9 - guard.GUESS_LIMIT)
    assert all("not answered" in r.reason for r in results[guard.GUESS_LIMIT:])
    # every attempt is recorded: the message, and the rejected submission
    assert db.execute("select count(*) from inbox where outcome = 'rejected'").fetchone()[0] == 9
    assert db.execute("select count(*) from submissions where player = 'alice' and status = 'rejected'").fetchone()[0] == 9
    assert db.execute("select count(*) from outbox where status = 'withheld'").fetchone()[0] == 9 - guard.GUESS_LIMIT
    notices = db.execute("select to_addr, subject from outbox where to_addr = 'boss@pbem.example'").fetchall()
    assert notices == [("boss@pbem.example", "[g1] password guessing: alice")]
    # the real player still gets through, and is answered
    (ok,) = ingest(db, mail(tmp_path, "real", body=f"PLAYER alice\nPASSWORD {game['alice']}\nEND\n"))
    assert ok.outcome == "accepted" and replies(db, ok.inbox_id) == 1
    monkeypatch.setenv("PBEM_DB", str(tmp_path / "pbem.db"))
    status = cli("status").stdout
    assert f"password guessing on alice's seat: {9 - guard.GUESS_LIMIT} wrong password(s) not answered" in status
    assert json.loads(cli("status", "--json").stdout)["games"][0]["guessing"][0]["withheld"] == 9 - guard.GUESS_LIMIT


def test_guessing_an_hour_later_is_answered_again(db, game, tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_NOW", "2026-11-21T10:00:00Z")
    for i in range(guard.GUESS_LIMIT + 1):
        ingest(db, mail(tmp_path, f"a{i}", body=f"PLAYER alice\nPASSWORD nope-{i}\nEND\n"))
    assert db.execute("select count(*) from outbox where status = 'withheld'").fetchone()[0] == 1
    monkeypatch.setenv("PBEM_NOW", "2026-11-21T11:30:00Z")
    (later,) = ingest(db, mail(tmp_path, "later", body="PLAYER alice\nPASSWORD nope-x\nEND\n"))
    assert replies(db, later.inbox_id) == 1


# --- auto-replies ----------------------------------------------------------------------------------------

AUTO = [
    ({"X-Autogenerated": "Reply"}, "Re: [g1] turn 1 report", "Thanks."),
    ({"X-MS-Exchange-Inbox-Rules-Loop": "alice@example.org"}, "Re: [g1] turn 1 report", "Forwarded by a rule."),
    ({"X-Auto-Response-Suppress": "All"}, "Automatic reply: [g1] turn 1 report", "I am out of the office."),
    ({}, "Réponse automatique : [g1] turn 1 report", "Je suis absent."),
    ({}, "Abwesenheitsnotiz: [g1] turn 1 report", "Ich bin bis Montag nicht im Büro."),
    ({}, "Out of Office: [g1] turn 1 report", "Back on Monday."),
    ({}, "AW: Automatische Antwort: [g1] your message was rejected", "Danke."),
    ({}, "Re: [g1] turn 1 report", ("Hello,\n\nI am currently out of the office with limited access to email.\n"
                                     "I will respond to your message when I return.\n")),
    ({"Delivered-To": "Autoresponder"}, "Re: [g1] turn 1 report", "Got it."),
    ({"X-Precedence": "auto_reply"}, "Re: [g1] turn 1 report", "Got it."),
]


@pytest.mark.parametrize(("headers", "subject", "body"), AUTO)
def test_auto_replies_without_auto_submitted_are_never_answered(db, game, tmp_path, headers, subject, body):
    (out,) = ingest(db, mail(tmp_path, "auto", subject=subject, body=body, headers=headers))
    assert out.outcome == "ignored" and out.reason.startswith("auto-reply"), out.reason
    assert replies(db) == 0


OUT_OF_OFFICE = ["I am out of the office.", "OUT OF THE OFFICE", "i am currently away", "I am on annual leave",
                 "I'm on holiday", "I'm currently out of town", "I will be back on Monday", "Returning on the 3rd",
                 "limited access to my e-mail", "I will reply to you after my return",
                 "I'll get back to you as soon as possible when I return", "This is an automatically generated message",
                 "This is an automated reply", "AutoReply", "auto-reply", "Ich bin bis Montag weg", "Ich bin ab Montag da",
                 "Ich bin vom 3. bis 5. weg", "Ich bin vom 3. bis 5. abwesend", "ABWESEND", "Je suis absent.",
                 "Estoy fuera", "Sono assente", "Je suis abſent", "\u0130 am away", "ich b\u0131n ab heute",
                 "\u017fono a\u017f\u017fente"]
NOT_OUT_OF_OFFICE = ["Buy now! spam spam spam", "I ambush", "office", "I will be there", "I'm", "Grüße, Bob",
                     "I shall return the favour", "this is a test", "ich bin da", "I am", "I was out"]


@pytest.mark.parametrize("body", OUT_OF_OFFICE + NOT_OUT_OF_OFFICE)
def test_the_out_of_office_pre_filter_agrees_with_the_pattern(body):
    """Issue 17: _out_of_office searches only an ASCII text that holds one of its words (else
    every text): it says what _AUTO_BODY says, in any case, for any of its sentences."""
    for text in (body, body.upper(), body.lower(), body.swapcase(), f"Hello,\n\n{body}\n\nBob\n"):
        assert guard._out_of_office(text) == (guard._AUTO_BODY.search(text) is not None), text
    assert guard._out_of_office(body) == (body in OUT_OF_OFFICE), body


def test_a_player_who_mentions_holidays_in_real_orders_is_not_taken_for_a_robot(db, game, tmp_path):
    body = f"I am out of the office next week, so here are my orders.\nPLAYER alice\nPASSWORD {game['alice']}\nEND\n"
    (out,) = ingest(db, mail(tmp_path, "holiday", subject="Re: [g1] turn 1 report", body=body))
    assert out.outcome == "accepted" and replies(db, out.inbox_id) == 1


# --- the reply cap ----------------------------------------------------------------------------------------

def test_an_unrecognised_responder_gets_at_most_a_few_answers_an_hour(db, game, tmp_path):
    paths = [mail(tmp_path, f"loop{i}", sender="robot@example.net", subject="Re: [g1] your message was rejected",
                  body=f"Thank you for contacting us. Ticket {i} was opened.") for i in range(7)]
    results = ingest(db, *paths)
    assert all(r.outcome == "rejected" for r in results)
    answered = [replies(db, r.inbox_id) for r in results]
    assert answered == [1] * guard.REPLY_CAP + [0] * (7 - guard.REPLY_CAP)
    assert "the reply cap" in results[-1].reason
    logged = db.execute("select count(*) from guard_log where kind = 'reply-cap' and address = 'robot@example.net'")
    assert logged.fetchone()[0] == 7 - guard.REPLY_CAP


def test_answers_to_a_sender_no_seat_vouches_for_are_capped_too(db, game, tmp_path):
    """LIST and HISTORY need no password, so a forged From could have the judge mail somebody
    who never asked, message after message: their answers count against the reply cap."""
    paths = [mail(tmp_path, f"ask{i}", sender="victim@example.com", subject="hi",
                  body="HISTORY g1\n" if i % 2 else "LIST\n") for i in range(8)]
    results = ingest(db, *paths)
    assert all(r.outcome == "accepted" and r.player is None for r in results), [r.reason for r in results]
    answered = [replies(db, r.inbox_id) for r in results]  # each answered by one mail: the list, the history
    assert answered == [1] * guard.REPLY_CAP + [0] * (8 - guard.REPLY_CAP)
    assert "the reply cap" in results[-1].reason
    assert replies(db, results[-1].inbox_id) == 0 and replies(db, results[-1].inbox_id, "withheld") >= 1


def test_acknowledgements_of_accepted_orders_are_never_capped(db, game, tmp_path):
    paths = [mail(tmp_path, f"o{i}", body=f"PLAYER alice\nPASSWORD {game['alice']}\nEND\n# try {i}\n") for i in range(6)]
    results = ingest(db, *paths)
    assert [r.outcome for r in results] == ["accepted"] * 6
    assert [replies(db, r.inbox_id) for r in results] == [1] * 6


def test_a_player_command_is_never_taken_for_an_auto_reply_by_its_subject(db, game, tmp_path):
    body = f"GAME g1\nPLAYER alice\nPASSWORD {game['alice']}\nABSENT 3\nEND\n"
    (out,) = ingest(db, mail(tmp_path, "absent", subject="Absent next week [g1]", body=body))
    assert not out.reason.startswith("auto-reply") and out.outcome != "ignored", out.reason


def test_an_auto_reply_that_quotes_our_blank_order_form_is_still_recognised(db, game, tmp_path):
    body = "I am away until Monday.\n\nGAME g1\nPLAYER alice\nPASSWORD your-password-here\nEND\n"
    (out,) = ingest(db, mail(tmp_path, "oof-form", subject="Automatic reply: [g1] turn 1 report", body=body))
    assert out.outcome == "ignored" and out.reason == "auto-reply (its subject)"
    assert replies(db) == 0


def test_orders_with_the_right_password_are_always_told_why_they_were_refused(db, game, tmp_path):
    """A walk-through: after a few rejected messages from her address, a player's orders with
    the right password but refused (no usable line) were not answered 'by the reply cap', so
    she never learned why. The cap is for senders who cannot prove who they are."""
    noise = [mail(tmp_path, f"noise{i}", body="hello, is this the judge?") for i in range(guard.REPLY_CAP + 1)]
    ingest(db, *noise)
    (out,) = ingest(db, mail(tmp_path, "refused", body=f"PLAYER alice\nPASSWORD {game['alice']}\nfly to the moon\nEND\n"))
    assert out.outcome == "rejected" and "reply cap" not in out.reason, out.reason
    assert replies(db, out.inbox_id) == 1
    (bad,) = ingest(db, mail(tmp_path, "nopass", body="PLAYER alice\nPASSWORD nottheone\nfly to the moon\nEND\n"))
    assert bad.outcome == "rejected"  # a wrong password is the guessing throttle's (answered up to its limit)
