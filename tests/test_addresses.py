"""Addresses pbem can write (issue 14): checked when a player is registered and when mail is
queued; a message that still cannot be written is set aside with its reason and the rest go
out -- never again "internal error: InvalidHeaderDefect" with real reports waiting behind it."""

from __future__ import annotations

import email
import email.policy

import pytest
from mail.smtpd import SmtpServer

from pbem import host
from pbem.host import outbox, schedule
from pbem.host.addresses import BadInput, check_address, clean_address
from pbem.mail import send as mail_send
from pbem.mail.settings import MailSettings

BAD = [".x@evil.org", "x.@evil.org", "a..b@evil.org", "ü@evil.org", "../x@b.org", "x@evil", "x@-evil.org",
       "x@evil-.org", "x@evil..org", "x y@evil.org", "x@@evil.org", "@evil.org", "x@", "x@1.2.3.4", '"x"@evil.org',
       "x@ev_il.org", "a" * 65 + "@evil.org", "x@" + "a" * 64 + ".org", "x\r\n@evil.org"]
GOOD = ["alice@example.org", "Alice.Smith+pbem@Example.ORG", "o'brien@example.ie", "x@localhost", "a-b_c@sub.example.co.uk",
        "u{1}@example.org", "1@2.example"]


@pytest.mark.parametrize("value", BAD)
def test_addresses_mail_cannot_carry_are_refused_with_a_clean_message(value):
    with pytest.raises(BadInput) as err:
        check_address(value)
    text = str(err.value)
    assert "not an email address" in text or "too long" in text or "no email address" in text
    assert "\n" not in text and "\r" not in text
    assert clean_address(value) is None
    assert clean_address(f"Someone <{value}>") is None


@pytest.mark.parametrize("value", GOOD)
def test_real_addresses_pass_and_can_be_written(value):
    assert check_address(f"  {value} ") == value
    assert clean_address(f"Someone <{value}>") == value
    msg = email.message.EmailMessage()
    msg["To"] = email.headerregistry.Address(addr_spec=value)
    assert value.encode() in bytes(msg)


def test_queueing_skips_an_address_it_cannot_write(db):
    assert outbox.queue(db, kind="notice", to_addr="Mallory <.x@evil.org>", subject="s", body="b") is None
    assert outbox.queue(db, kind="notice", to_addr="ü@evil.org", subject="s", body="b") is None
    assert db.execute("select count(*) from outbox").fetchone()[0] == 0


def test_a_player_with_such_an_address_is_refused_and_nothing_is_made(cli):
    r = cli("new", "gods", "g1", "--player", "zeus:../x@b.org", "--player", "hera")
    assert r.exit_code == 1 and "'../x@b.org' is not an email address" in r.stderr and "Traceback" not in r.stderr
    assert "no games" in cli("status").stdout or cli("status").exit_code != 0
    r = cli("new", "gods", "g1", "--player", "zeus:ü@evil.org", "--player", "hera")
    assert r.exit_code == 1 and "accented" in r.stderr


def test_a_message_that_cannot_be_written_is_set_aside_and_the_rest_go_out(db, gods_game):
    """Rows queued before addresses were checked (or written into the store by hand): each bad
    one fails alone, with its reason; the real reports around it are delivered."""
    gods_game(players=("alice:alice@example.org", "bob:bob@example.org"))
    now = schedule.iso(schedule.now())
    for bad in (".x@evil.org", "a..b@evil.org", "ü@evil.org"):
        db.execute("insert into outbox (created, kind, to_addr, subject, body, status, attempts) "
                   "values (?, 'notice', ?, 'x', 'x', 'queued', 0)", [now, bad])
    db.execute("insert into outbox (created, kind, to_addr, subject, body, status, attempts) "
               "values (?, 'notice', 'carol@example.org', 'late', 'text', 'queued', 0)", [now])
    db.conn.commit()
    server = SmtpServer().start()
    try:
        result = mail_send.send(db, MailSettings(host="127.0.0.1", port=server.port, security="none",
                                                 sender="gm@pbem.example", retries=0, backoff=0))
    finally:
        server.stop()
    assert not result.error and len(result.sent) == 3 and len(result.failed) == 3
    got = sorted(m.rcpt_tos[0] for m in server.messages)
    assert got == ["alice@example.org", "bob@example.org", "carol@example.org"]
    failed = db.execute("select to_addr, last_error from outbox where status = 'failed' order by id").fetchall()
    assert [f[0] for f in failed] == [".x@evil.org", "a..b@evil.org", "ü@evil.org"]
    assert all("cannot be written as mail" in f[1] and "not an email address" in f[1] for f in failed)
    # --dry-run sets them aside the same way
    db.execute("update outbox set status = 'queued' where status = 'failed'")
    db.conn.commit()
    r = mail_send.send(db, MailSettings(sender="gm@pbem.example"), dry_run=str(db.conn.execute("pragma database_list").fetchone()[2]) + ".eml")
    assert len(r.failed) == 3 and r.written == []


def test_the_cli_send_reports_the_set_aside_message_and_exits_cleanly(cli, db):
    cli("new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob", "--seed", "1")
    db2 = host.open_db(None)
    db2.execute("insert into outbox (created, kind, to_addr, subject, body, status, attempts) "
                "values (?, 'notice', '.x@evil.org', 'x', 'x', 'queued', 0)", [schedule.iso(schedule.now())])
    db2.conn.commit()
    server = SmtpServer().start()
    try:
        r = cli("send", "--smtp-host", "127.0.0.1", "--smtp-port", server.port, "--security", "none",
                "--from", "gm@pbem.example")
    finally:
        server.stop()
    assert r.exit_code == 0, r.stderr
    assert "FAILED   message" in r.stdout and "cannot be written as mail" in r.stdout and "1 sent, 1 failed" in r.stdout
    assert "internal error" not in r.stdout + r.stderr
