"""A GODS game played entirely through email, through the real CLI and a real SMTP server on
loopback: reports go out by `pbem send`, each player learns their password from their first
report, and answers every report by replying to it -- quoting it, with the order form filled
in, in the styles of different mail clients -- as .eml files, into a Maildir and into mbox
files that the GM ingests with `pbem ingest`, then `pbem resolve`, `pbem send`, until the game
is over. Out-of-office auto-replies arrive too, and are never answered."""

from __future__ import annotations

import json
import mailbox
import random
import re
from email.message import EmailMessage
from email.policy import SMTP

import pytest
from mail.smtpd import SmtpServer

from pbem.host.store import open_db

GAME = "mail-1"
SEED = "16"  # a 2-player game that ends after some 27 turns with these players' choices
PLAYERS = ("alice", "bob")


@pytest.fixture
def smtp():
    server = SmtpServer().start()
    yield server
    server.stop()


def quote(text: str) -> str:
    return "\n".join(("> " + line).rstrip() for line in text.split("\n"))


def legal_examples(report: str) -> list[str]:
    """The legal orders the report's order form lists as commented examples."""
    out, on = [], False
    for line in report.splitlines():
        if line.startswith("# Your legal orders now"):
            on = True
        elif on and line.startswith("#   ") and not line.startswith("#   ..."):
            out.append(line[4:].strip())
        elif line == "END":
            on = False
    return out


def fill_form(report: str, password: str, order: str, quoted: bool) -> str:
    """The report with its order form filled in: the password put in and the order typed
    above END; with `quoted`, the rest is quoted with '> ' as a mail client does."""
    lines = report.split("\n")
    end = max(i for i, line in enumerate(lines) if line == "END")
    out = []
    for i, line in enumerate(lines):
        if line == "PASSWORD your-password-here":
            out.append(f"PASSWORD {password}")
            continue
        if i == end:
            out.append(order)
        out.append(("> " + line).rstrip() if quoted else line)
    return "\n".join(out)


def reply_to(received, player: str, password: str, order: str, style: int, n: int) -> bytes:
    src = received.message
    report = received.text
    msg = EmailMessage()
    msg["From"] = f"{player.title()} <{player}@example.org>"
    msg["To"] = str(src["Reply-To"])
    msg["Subject"] = "Re: " + str(src["Subject"])
    msg["Date"] = "Sun, 22 Nov 2026 10:00:00 +0000"
    msg["Message-ID"] = f"<reply-{n}-{player}@example.org>"
    msg["In-Reply-To"] = str(src["Message-ID"])
    msg["References"] = f"{src['References']} {src['Message-ID']}"
    attribution = f"On Sat, 21 Nov 2026 at 20:00, {src['From']} wrote:\n"
    if style == 0:  # Thunderbird: the whole report quoted, the form filled in inside the quote
        body = attribution + fill_form(report, password, order, quoted=True) + "\n"
    elif style == 1:  # Gmail, top-posted: orders above the quoted report; game from [GAME_ID]
        body = f"Thanks, here goes:\n\nPASSWORD {password}\n{order}\n\n{attribution}{quote(report)}\n"
    elif style == 2:  # Outlook: the original below, unquoted, after its header block
        body = (f"GAME {GAME}\r\nPLAYER {player}\r\nPASSWORD {password}\r\n{order}\r\n\r\n"
                f"-----Original Message-----\r\nFrom: {src['From']}\r\nSent: Saturday, 21 November 2026 20:00\r\n"
                f"To: {player}@example.org\r\nSubject: {src['Subject']}\r\n\r\n{report}")
    else:  # the whole report pasted back unquoted, the form filled in; a signature below
        body = "Hi GM, my orders are in the form.\n\n" + fill_form(report, password, order, quoted=False) + "\n-- \n" + player + "\n"
    msg.set_content(body)
    return msg.as_bytes(policy=SMTP)


def out_of_office(received, player: str, n: int) -> bytes:
    src = received.message
    msg = EmailMessage()
    msg["From"] = f"{player}@example.org"
    msg["To"] = str(src["Reply-To"])
    msg["Subject"] = "Out of Office: " + str(src["Subject"])
    msg["Message-ID"] = f"<ooo-{n}-{player}@example.org>"
    msg["In-Reply-To"] = str(src["Message-ID"])
    msg["Auto-Submitted"] = "auto-replied"
    msg.set_content("I am away this week.\n\n" + quote(received.text))
    return msg.as_bytes(policy=SMTP)


def test_a_gods_game_played_entirely_by_email(tmp_path, monkeypatch, cli, smtp):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PBEM_SMTP_PORT", str(smtp.port))
    monkeypatch.setenv("PBEM_SMTP_SECURITY", "none")
    monkeypatch.setenv("PBEM_FROM", "gm@pbem.example")
    monkeypatch.setenv("PBEM_REPLY_TO", "orders@pbem.example")
    maildir = mailbox.Maildir(tmp_path / "Maildir", create=True)
    eml_dir = tmp_path / "saved"
    mbox_dir = tmp_path / "mboxes"
    eml_dir.mkdir()
    mbox_dir.mkdir()

    def run(*args):
        result = cli(*args)
        assert result.exit_code == 0, (args, result.output)
        return result.stdout

    run("new", "gods", GAME, "--player", "alice:alice@example.org", "--player", "bob:bob@example.org", "--seed", SEED)
    assert "2 sent, 0 failed" in run("send")
    passwords = {}
    for got in smtp.messages:  # each player learns the password from the first report
        player = got.rcpt_tos[0].split("@")[0]
        passwords[player] = re.search(r"Your password: (\S+)", got.text).group(1)
    assert set(passwords) == set(PLAYERS)

    rng = random.Random(int(SEED))
    seen = 0  # SMTP messages read so far
    ingested = 0  # messages in the mailboxes
    turn = 0
    over = False
    while not over:
        turn += 1
        assert turn < 80, "the game should have ended"
        new = smtp.messages[seen:]
        seen = len(smtp.messages)
        reports = [m for m in new if m.message["X-PBEM-Mail"].startswith("report")]
        assert sorted(m.rcpt_tos[0] for m in reports) == ["alice@example.org", "bob@example.org"]
        assert all(m.message["Subject"].startswith(f"[{GAME}] turn ") for m in reports)
        if all("The game is over." in m.text for m in reports):
            over = True
            break
        replies = []
        for got in reports:
            player = got.rcpt_tos[0].split("@")[0]
            examples = legal_examples(got.text)
            if not examples:
                assert "It is not your turn" in got.text
                continue
            order = "endgame" if "endgame" in examples else rng.choice(examples)
            replies.append((player, order, reply_to(got, player, passwords[player], order, turn % 4, turn)))
        assert len(replies) == 1  # GODS: one god acts at a time
        player, order, raw = replies[0]
        where = turn % 3
        if where == 0:
            maildir.add(raw)
        elif where == 1:
            (eml_dir / f"turn-{turn}.eml").write_bytes(raw)
        else:  # an mbox saved by a mail client, with the other god's out-of-office reply in it
            idle = next(m for m in reports if m.rcpt_tos[0] != f"{player}@example.org")
            box = mailbox.mbox(mbox_dir / f"turn-{turn}.mbox")
            box.add(raw)
            box.add(out_of_office(idle, idle.rcpt_tos[0].split("@")[0], turn))
            box.close()
        out = run("ingest", tmp_path / "Maildir", eml_dir, mbox_dir)
        fresh = 2 if where == 2 else 1
        assert f"{fresh} new message{'s' if fresh != 1 else ''}: 1 accepted, 0 rejected, {fresh - 1} ignored; {ingested} already ingested" in out, out
        ingested += fresh
        assert "1 sent" in run("send")  # the acknowledgement, and nothing for the auto-reply
        ack = smtp.messages[seen]
        seen += 1
        assert ack.rcpt_tos == [f"{player}@example.org"]
        assert ack.message["In-Reply-To"] == f"<reply-{turn}-{player}@example.org>"
        assert "orders accepted" in ack.message["Subject"], ack.text
        assert "1 accepted, 0 rejected." in ack.text, ack.text
        assert re.search(r"line +\d+: accepted", ack.text)
        resolved = run("resolve", GAME)
        assert f"{GAME} turn" in resolved and "NMR" not in resolved
        assert "2 sent, 0 failed" in run("send")

    status = json.loads(run("status", GAME, "--json"))["games"][0]
    assert status["status"] == "finished" and status["winners"]
    assert status["mail"] == {"queued": 0, "sending": 0, "sent": len(smtp.messages), "failed": 0, "cancelled": 0}
    assert "every hash matches" in run("replay", GAME)
    ids = [m.message["Message-ID"] for m in smtp.messages]
    assert len(ids) == len(set(ids))  # each message delivered exactly once
    db = open_db(str(tmp_path / "pbem.db"))
    outcomes = dict(db.execute("select outcome, count(*) from inbox group by outcome").fetchall())
    assert outcomes == {"accepted": turn - 1, "ignored": sum(1 for t in range(1, turn) if t % 3 == 2)}
    # auto-replies were never answered: nothing in the outbox refers to an ignored message
    assert not db.execute(
        "select count(*) from outbox where inbox_id in (select id from inbox where outcome = 'ignored')").fetchone()[0]
    # the reports say who won; the seed is revealed at the end
    final = smtp.messages[-1].text
    assert "WINNER" in final and f"Seed (revealed at the end): {SEED}" in final
