"""Mail out: the outbox and `pbem send`, against a real SMTP server on loopback (aiosmtpd):
proper MIME, threading headers, exactly-once delivery through dropped connections, 4xx and
5xx answers, --dry-run, and settings (options > environment > pbem.toml)."""

from __future__ import annotations

import email
import email.policy
from collections import Counter

import pytest
from mail.smtpd import SmtpServer

from pbem.host import outbox
from pbem.mail import send as mail_send
from pbem.mail import settings as mail_settings
from pbem import host
from pbem.host import schedule
from pbem.host.store import open_db


@pytest.fixture
def smtp():
    server = SmtpServer().start()
    yield server
    server.stop()


@pytest.fixture
def store(tmp_path):
    db = open_db(str(tmp_path / "pbem.db"))
    db.execute("PRAGMA synchronous = OFF")  # test speed only
    return db


def settings_for(smtp, **kw) -> mail_settings.MailSettings:
    values = dict(host="127.0.0.1", port=smtp.port, security="none", sender="gm@pbem.example",
                  reply_to="orders@pbem.example", retries=0, backoff=0)
    values.update(kw)
    return mail_settings.MailSettings(**values)


def queue_many(db, n: int, game_id: str = "g1") -> list[int]:
    return [outbox.queue(db, kind="ack", to_addr=f"p{i}@example.org", subject=f"[{game_id}] message {i}",
                          body=f"body {i}\n", game_id=game_id, player=f"p{i}") for i in range(n)]


def statuses(db) -> Counter:
    return Counter(r["status"] for r in db["outbox"].rows)


def received_ids(smtp) -> list[str]:
    return [m.message["Message-ID"] for m in smtp.messages]


def test_reports_are_queued_with_the_turn_and_sent_as_proper_mime(store, smtp, tmp_path):
    created = host.new_game(store, "gods", "g1", ["alice:alice@example.org", "bob"], seed="1", turns=None)
    rows = list(store["outbox"].rows)
    assert [(r["player"], r["kind"], r["status"]) for r in rows] == [("alice", "report", "queued")]  # bob has no address
    result = mail_send.send(store, settings_for(smtp))
    assert result.complete and result.sent == [rows[0]["id"]]
    [got] = smtp.messages
    assert got.rcpt_tos == ["alice@example.org"] and got.mail_from == "gm@pbem.example"
    msg = got.message
    assert msg["Subject"] == "[g1] turn 1 report"
    assert msg["Reply-To"].addresses[0].addr_spec == "orders@pbem.example"
    assert msg["Auto-Submitted"] == "auto-generated" and msg["X-PBEM-Mail"].startswith("report g1")
    assert msg["Message-ID"].endswith("@pbem.example>")
    assert "<thread.g1.alice@pbem.example>" in msg["References"]
    assert msg.get_content_type() == "multipart/alternative"
    plain, html = msg.get_body(("plain",)), msg.get_body(("html",))
    assert plain.get_content_charset() == "utf-8" and html.get_content_charset() == "utf-8"
    text = plain.get_content()
    password = created["players"][0]["password"]
    assert f"Your password: {password}" in text  # the welcome on turn 1
    assert "Order form" in text and "PASSWORD your-password-here" in text
    assert "GODS -- game g1 -- turn 1" in html.get_content()
    assert store["outbox"].get(rows[0]["id"])["status"] == "sent"
    # nothing left: a second run sends nothing
    assert mail_send.send(store, settings_for(smtp)).sent == []
    assert len(smtp.messages) == 1


def test_connection_dropped_before_the_server_accepts_then_second_run_completes_exactly_once(store, smtp):
    ids = queue_many(store, 6)
    smtp.faults.drop_in_data.add(3)  # the 3rd message is cut off mid-DATA: never accepted
    first = mail_send.send(store, settings_for(smtp))
    assert not first.complete and first.left == 4 and "Disconnected" in first.error
    assert first.sent == ids[:2]
    assert statuses(store) == Counter(sent=2, queued=4)
    second = mail_send.send(store, settings_for(smtp))
    assert second.complete and second.sent == ids[2:]
    assert statuses(store) == Counter(sent=6)
    got = received_ids(smtp)
    assert len(got) == 6 and len(set(got)) == 6
    assert sorted(m.rcpt_tos[0] for m in smtp.messages) == sorted(f"p{i}@example.org" for i in range(6))


def test_connection_dropped_after_the_server_accepted_is_not_sent_twice(store, smtp):
    ids = queue_many(store, 5)
    smtp.faults.drop_after.add(2)  # accepted 2, then the connection dies before the 3rd
    first = mail_send.send(store, settings_for(smtp))
    assert first.sent == ids[:2] and first.left == 3
    second = mail_send.send(store, settings_for(smtp))
    assert second.sent == ids[2:]
    rcpts = [m.rcpt_tos[0] for m in smtp.messages]
    assert len(rcpts) == 5 and len(set(rcpts)) == 5
    assert statuses(store) == Counter(sent=5)


def test_a_dropped_connection_is_retried_with_backoff_in_the_same_run(store, smtp):
    ids = queue_many(store, 4)
    smtp.faults.drop_in_data.add(2)
    waits = []
    result = mail_send.send(store, settings_for(smtp, retries=2, backoff=0.5), sleep=waits.append)
    assert result.complete and result.sent == ids
    assert waits == [0.5]
    assert len(received_ids(smtp)) == 4 and len(set(received_ids(smtp))) == 4


def test_refused_server_leaves_everything_queued(store, smtp):
    queue_many(store, 3)
    smtp.stop()
    waits = []
    result = mail_send.send(store, settings_for(smtp, retries=2, backoff=1), sleep=waits.append)
    assert waits == [1, 2]  # exponential back-off between attempts
    assert result.left == 3 and "cannot connect" in result.error
    assert statuses(store) == Counter(queued=3)
    smtp.controller = type(smtp.controller)(smtp.handler, hostname="127.0.0.1", port=smtp.port)
    smtp.start()
    assert mail_send.send(store, settings_for(smtp)).complete
    assert statuses(store) == Counter(sent=3)


def test_permanent_5xx_marks_failed_status_shows_it_and_retry_failed_requeues(store, smtp):
    host.new_game(store, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org"], seed="1", turns=None)
    smtp.faults.refuse.add("bob@example.org")
    result = mail_send.send(store, settings_for(smtp))
    assert len(result.sent) == 1 and len(result.failed) == 1 and "550" in result.failed[0][1]
    data = host.status(store, "g1")
    assert data["games"][0]["mail"]["failed"] == 1 and data["mail"]["sent"] == 1
    row = next(store["outbox"].rows_where("status = 'failed'"))
    assert row["to_addr"] == "bob@example.org" and "550" in row["last_error"]
    smtp.faults.refuse.clear()
    again = mail_send.send(store, settings_for(smtp), retry_failed=True)
    assert again.sent == [row["id"]]
    assert statuses(store) == Counter(sent=2)


def test_status_command_shows_failed_mail(tmp_path, smtp, cli, monkeypatch):
    assert cli("new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob:bob@example.org", "--seed", "1").exit_code == 0
    out = cli("status").stdout
    assert "mail: 2 queued, 0 FAILED" in out
    smtp.faults.refuse.add("bob@example.org")
    r = cli("send", "--smtp-host", "127.0.0.1", "--smtp-port", smtp.port, "--from", "gm@pbem.example", "--security", "none")
    assert r.exit_code == 0, r.output
    assert "FAILED   message" in r.stdout and "1 sent, 1 failed" in r.stdout
    assert "mail: 0 queued, 1 FAILED" in cli("status").stdout


def test_temporary_4xx_defers_only_that_message(store, smtp, monkeypatch):
    ids = queue_many(store, 3)
    smtp.faults.later.add("p1@example.org")
    result = mail_send.send(store, settings_for(smtp, backoff=1))
    assert result.sent == [ids[0], ids[2]] and [d[0] for d in result.deferred] == [ids[1]]
    row = store["outbox"].get(ids[1])
    assert row["status"] == "queued" and "451" in row["last_error"] and row["next_attempt"]
    smtp.faults.later.clear()
    assert mail_send.send(store, settings_for(smtp)).sent == []  # not due yet
    monkeypatch.setenv("PBEM_NOW", schedule.iso(schedule.parse_time(row["next_attempt"])))
    assert mail_send.send(store, settings_for(smtp)).sent == [ids[1]]
    assert len(smtp.messages) == 3


def test_a_claim_left_by_a_crashed_run_is_sent_again_with_the_same_message_id(store, smtp, monkeypatch):
    [oid] = queue_many(store, 1)
    mail_send._assign_message_id(store, store["outbox"].get(oid), settings_for(smtp))
    mid = store["outbox"].get(oid)["message_id"]
    store["outbox"].update(oid, {"status": "sending", "claimed": "2026-01-01T00:00:00Z"})
    monkeypatch.setenv("PBEM_NOW", "2026-01-01T00:05:00Z")
    assert mail_send.send(store, settings_for(smtp)).sent == []  # another run may still hold it
    monkeypatch.setenv("PBEM_NOW", "2026-01-01T00:20:00Z")
    assert mail_send.send(store, settings_for(smtp)).sent == [oid]
    assert received_ids(smtp) == [mid]


def test_two_runs_never_send_the_same_message(store, smtp, tmp_path):
    ids = queue_many(store, 4)
    other = open_db(str(tmp_path / "pbem.db"))
    # the other run claims message 2 first; this run must skip it
    assert mail_send._claim(other, ids[1])
    result = mail_send.send(store, settings_for(smtp))
    assert result.sent == [ids[0], ids[2], ids[3]]
    assert len(smtp.messages) == 3


def test_header_injection_in_subject_and_address_is_impossible(store, smtp):
    oid = outbox.queue(store, kind="ack", to_addr="alice@example.org", game_id="g1", player="alice",
                        subject="[g1] hi\r\nBcc: victim@example.com\r\n\r\nbody", body="text\n",
                        in_reply_to="<x@y>\r\nBcc: victim2@example.com")
    assert outbox.queue(store, kind="ack", to_addr="alice@example.org\r\nBcc: v@example.com", subject="s", body="b") is None
    assert outbox.queue(store, kind="ack", to_addr="a@example.org, b@example.org", subject="s", body="b") is None
    mail_send.send(store, settings_for(smtp))
    [got] = smtp.messages
    assert got.rcpt_tos == ["alice@example.org"]
    msg = email.message_from_bytes(got.data, policy=email.policy.default)
    assert msg["Bcc"] is None and "victim" not in str(msg["To"])
    assert msg["Subject"] == "[g1] hi Bcc: victim@example.com body"
    assert "victim2" not in (msg["In-Reply-To"] or "")
    assert store["outbox"].get(oid)["status"] == "sent"


def test_dry_run_writes_eml_files_and_marks_nothing_unless_asked(store, tmp_path, cli):
    queue_many(store, 3)
    out = tmp_path / "out"
    result = mail_send.send(store, mail_settings.MailSettings(sender="gm@pbem.example"), dry_run=out)
    assert len(result.written) == 3 and statuses(store) == Counter(queued=3)
    first = sorted(out.glob("*.eml"))[0]
    msg = email.message_from_bytes(first.read_bytes(), policy=email.policy.default)
    assert msg["To"] == "p0@example.org" and msg["Subject"] == "[g1] message 0"
    again = mail_send.send(store, mail_settings.MailSettings(sender="gm@pbem.example"), dry_run=out)
    assert sorted(p.name for p in again.written) == sorted(p.name for p in result.written)  # same files, same ids
    assert email.message_from_bytes(first.read_bytes())["Message-ID"] == msg["Message-ID"]
    mail_send.send(store, mail_settings.MailSettings(sender="gm@pbem.example"), dry_run=out, mark_sent=True)
    assert statuses(store) == Counter(sent=3)


def test_send_cli_dry_run(cli, tmp_path):
    cli("new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob", "--seed", "1")
    r = cli("send", "--dry-run", tmp_path / "eml", "--from", "gm@pbem.example")
    assert r.exit_code == 0, r.output
    assert "1 messages written" in r.stdout and "(still queued)" in r.stdout
    assert len(list((tmp_path / "eml").glob("*.eml"))) == 1


def test_settings_precedence_and_the_password_is_never_printed(tmp_path, monkeypatch, cli, smtp):
    conf = tmp_path / "pbem.toml"
    conf.write_text('[mail]\nsmtp_host = "file.example"\nsmtp_port = 2525\nfrom = "file@pbem.example"\n'
                    'username = "gm"\npassword = "s3cret-pw"\nsecurity = "starttls"\n')
    s = mail_settings.load_settings(str(conf))
    assert (s.host, s.port, s.sender, s.username, s.security) == ("file.example", 2525, "file@pbem.example", "gm", "starttls")
    monkeypatch.setenv("PBEM_SMTP_HOST", "env.example")
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", "env-pw")
    s = mail_settings.load_settings(str(conf), host=None, port=26)
    assert (s.host, s.port, s.password) == ("env.example", 26, "env-pw")
    assert "env-pw" not in repr(s) and "env-pw" not in s.describe()
    s = mail_settings.load_settings(str(conf), host="cli.example")
    assert s.host == "cli.example"
    with pytest.raises(Exception, match="security"):
        mail_settings.load_settings(None, security="carrier-pigeon")
    # a login over a connection without TLS is refused, and the password is not in the message
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", "s3cret-pw")
    cli("new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob", "--seed", "1")
    r = cli("send", "--config", conf, "--smtp-host", "127.0.0.1", "--smtp-port", smtp.port, "--security", "auto")
    assert r.exit_code == 1
    assert "s3cret-pw" not in r.output
    assert "refusing to send the password in clear" in r.stderr
    assert smtp.messages == []


def test_a_report_email_carries_the_html_report_with_its_svg_map(tmp_path):
    """Issue 7: the same SVG map as the site, embedded in the HTML part of the report email;
    the turn-1 password stays in both parts; the text part is the plain report."""
    import email
    from email import policy

    from pbem import host
    from pbem.host.store import open_db

    db = open_db(str(tmp_path / "m.db"))
    host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org"], seed="4", turns=None)
    out = tmp_path / "eml"
    mail_send.send(db, mail_settings.MailSettings(sender="gm@pbem.example"), dry_run=out)
    files = sorted(out.glob("*.eml"))
    alice = [f for f in files if b"alice@example.org" in f.read_bytes()]
    assert alice
    msg = email.message_from_bytes(alice[0].read_bytes(), policy=policy.default)
    html_part = msg.get_body(("html",)).get_content()
    text_part = msg.get_body(("plain",)).get_content()
    password = db["players"].get(("g1", "alice"))["password"]
    assert password in html_part and password in text_part
    # issue 14: the map is an inline PNG (cid:) rendered from the SVG, with alt text; no inline <svg>
    assert "<svg" not in html_part and 'src="cid:' in html_part and 'alt="GODS g1, turn 1' in html_part
    images = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    assert images and images[0].get_content().startswith(b"\x89PNG") and images[0]["Content-ID"].strip("<>") in html_part
    assert "Order form" in text_part
    bob_password = db["players"].get(("g1", "bob"))["password"]
    assert bob_password not in html_part


def test_without_a_sender_address_nothing_is_sent(cli, smtp):
    """A first `pbem send` with no --from must not mail players from a made-up address that
    no reply can reach: it stops, says what to set, and leaves the outbox queued."""
    cli("new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob", "--seed", "1")
    r = cli("send", "--smtp-host", "127.0.0.1", "--smtp-port", smtp.port, "--security", "none")
    assert r.exit_code == 1 and "no sender address" in r.stderr and "--from" in r.stderr
    assert smtp.messages == []
    import json

    assert json.loads(cli("status", "--json").stdout)["mail"]["queued"] == 1  # alice's report waits


def test_a_rollback_cancels_the_unsent_reports_of_the_turns_it_sets_aside(cli, tmp_path):
    """Players must not get the report of a turn the GM took back beside the corrected one."""
    import json

    from pbem.host.store import open_db

    cli("new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob:bob@example.org", "--seed", "1")
    assert cli("autoplay", "g1", "--max-phases", "2", "--force").exit_code == 0
    db = open_db(str(tmp_path / "pbem.db"))
    later = db.execute("select count(*) from outbox where phase > 1 and status = 'queued'").fetchone()[0]
    assert later > 0
    r = cli("rollback", "g1", "--to", "1")
    assert r.exit_code == 0 and f"{later} queued report mail(s) of those turns cancelled" in r.stdout
    assert db.execute("select count(*) from outbox where phase > 1 and status = 'queued'").fetchone()[0] == 0
    assert json.loads(cli("status", "--json").stdout)["mail"]["cancelled"] == later
    # the turn-1 reports (with the passwords) still go out; the cancelled ones never do
    r = cli("send", "--dry-run", tmp_path / "eml", "--from", "gm@pbem.example")
    sent = [f.read_text() for f in (tmp_path / "eml").glob("*.eml")]
    assert sent and all("turn 1 report" in m for m in sent if "report" in m.split("Subject:", 1)[1][:80])


# --- tester3 finding 17: mail not yet sent follows the seat's new address ---------------------------

def _smtp_args(smtp):
    return ("--smtp-host", "127.0.0.1", "--smtp-port", smtp.port, "--security", "none", "--from", "gm@pbem.example",
            "--retries", "0", "--backoff", "0")


def _outbox(tmp_path) -> list[dict]:
    db = open_db(str(tmp_path / "pbem.db"))
    return [dict(r) for r in db["outbox"].rows_where(order_by="id")]


def test_a_bounced_report_goes_to_the_corrected_address_and_a_dry_run_changes_nothing(run, tmp_path, smtp):
    """The documented fix for a bounce: the GM corrects the address (`pbem seat --email`); the
    failed turn-1 report, with the password, goes to the new address -- never to the old one
    again -- and `send --retry-failed --dry-run` leaves the outbox as it was."""
    assert run("new", "gods", "g1", "--seed", "4", "--player", "zeus:typo@play.test",
               "--player", "hera:hera@play.test").returncode == 0
    password = next(r for r in _outbox(tmp_path) if r["player"] == "zeus")["body"].split("Your password: ")[1].split("\n")[0]
    smtp.faults.refuse.add("typo@play.test")
    r = run("send", *_smtp_args(smtp))
    assert r.returncode == 0 and "1 sent, 1 failed" in r.stdout, r.stdout + r.stderr
    before = _outbox(tmp_path)
    assert [x["status"] for x in before if x["player"] == "zeus"] == ["failed"]
    # a dry run with --retry-failed shows the failed mail but changes no row
    r = run("send", "--retry-failed", "--dry-run", tmp_path / "look", "--from", "gm@pbem.example")
    assert r.returncode == 0 and "1 messages written" in r.stdout and "stay failed" in r.stdout, r.stdout + r.stderr
    assert _outbox(tmp_path) == before
    assert "mail: 0 queued, 1 FAILED" in run("status").stdout
    # the GM corrects the address: the failed report now waits for the new one
    r = run("seat", "g1", "zeus", "--email", "zeus@play.test")
    assert r.returncode == 0, r.stderr
    assert "1 message not yet sent to typo@play.test now goes to zeus@play.test" in r.stdout
    report = next(x for x in _outbox(tmp_path) if x["kind"] == "report" and x["player"] == "zeus")
    assert report["to_addr"] == "zeus@play.test" and report["status"] == "queued"
    smtp.faults.refuse.clear()  # whatever the old address would do now, nothing goes there but the notice
    r = run("send", *_smtp_args(smtp))
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout + r.stderr
    to = {}
    for m in smtp.messages:
        to.setdefault(m.rcpt_tos[0], []).append(m.message["Subject"])
    assert sorted(to["typo@play.test"]) == ["[g1] new address for zeus"]
    assert sorted(to["zeus@play.test"]) == ["[g1] new address for zeus", "[g1] turn 1 report"]
    assert not any(password in m.text for m in smtp.messages if m.rcpt_tos == ["typo@play.test"])
    got = next(m for m in smtp.messages if m.rcpt_tos == ["zeus@play.test"] and m.message["Subject"] == "[g1] turn 1 report")
    assert f"Your password: {password}" in got.text


def test_mail_queued_before_an_address_change_goes_to_the_new_address(run, tmp_path):
    """A typo fixed right after `pbem new`, before the first `pbem send`: the welcome (with the
    password) is written for the new address only; other seats' mail is untouched."""
    assert run("new", "gods", "g1", "--seed", "4", "--player", "zeus:old@play.test",
               "--player", "hera:hera@play.test").returncode == 0
    assert run("seat", "g1", "zeus", "--email", "new@play.test").returncode == 0
    r = run("send", "--dry-run", tmp_path / "out", "--from", "gm@pbem.example")
    assert r.returncode == 0, r.stderr
    sent = []
    for path in sorted((tmp_path / "out").glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        sent.append((str(msg["To"]), str(msg["Subject"]), "Your password:" in msg.get_body(("plain",)).get_content()))
    assert sorted(sent) == [("hera@play.test", "[g1] turn 1 report", True),
                            ("new@play.test", "[g1] new address for zeus", False),
                            ("new@play.test", "[g1] turn 1 report", True),
                            ("old@play.test", "[g1] new address for zeus", False)]


def test_set_address_by_mail_takes_the_reports_not_yet_sent_along(run, tmp_path):
    """A player who no longer reads the old mailbox sends SET ADDRESS: his report queued
    before it goes to the new address (the answer to his request and the notice still go
    to the old one, where he wrote from)."""
    assert run("new", "gods", "g1", "--seed", "4", "--player", "zeus:old@play.test",
               "--player", "hera:hera@play.test").returncode == 0
    password = next(r for r in _outbox(tmp_path) if r["player"] == "zeus")["body"].split("Your password: ")[1].split("\n")[0]
    (tmp_path / "m.eml").write_text(
        "From: old@play.test\r\nTo: orders@judge.test\r\nSubject: [g1] address\r\nMessage-ID: <sa1@play.test>\r\n"
        "Date: Fri, 27 Nov 2026 22:00:00 +0000\r\n\r\n"
        f"GAME g1\r\nPLAYER zeus\r\nPASSWORD {password}\r\nSET ADDRESS new@play.test\r\n")
    r = run("ingest", tmp_path / "m.eml")
    assert r.returncode == 0 and "1 accepted" in r.stdout, r.stdout + r.stderr
    rows = _outbox(tmp_path)
    assert [x["to_addr"] for x in rows if x["kind"] == "report" and x["player"] == "zeus"] == ["new@play.test"]
    assert not [x for x in rows if x["to_addr"] == "old@play.test" and password in x["body"]]


def test_a_newcomer_after_a_deadline_move_is_told_the_current_deadline_in_both_parts(run, tmp_path):
    """Tester3 finding 02: after `pbem deadline --extend`, the replacement player's welcome and a
    new observer's public report showed the old deadline in their text part (the stored report
    of the turn) while the HTML part showed the new one."""
    run.env["PBEM_NOW"] = "2026-11-27T12:00:00Z"
    assert run("new", "gods", "g1", "--player", "zeus:zeus@play.test", "--player", "hera:hera@play.test",
               "--player", "ares:ares@play.test", "--every", "24h").returncode == 0
    assert run("deadline", "g1", "--extend", "48h", "--reason", "server trouble").returncode == 0
    assert run("replace", "g1", "ares", "dora:dora@play.test").returncode == 0
    assert run("observe", "g1", "fan@watch.test").returncode == 0
    assert run("send", "--dry-run", tmp_path / "out", "--from", "gm@pbem.example").returncode == 0
    old, new = "Sat 28 Nov 2026 12:00 UTC", "Mon 30 Nov 2026 12:00 UTC"
    seen = set()
    for path in sorted((tmp_path / "out").glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if str(msg["To"]) not in ("dora@play.test", "fan@watch.test") or "report" not in str(msg["Subject"]):
            continue
        seen.add(str(msg["To"]))
        text, page = msg.get_body(("plain",)).get_content(), msg.get_body(("html",)).get_content()
        assert f"\nDeadline: {new} (2026-11-30T12:00:00Z) (moved by the GM" in text, text[:600]
        assert old not in text and old not in page and new in page
        if str(msg["To"]) == "dora@play.test":  # the welcome stays on top of the HTML part too
            assert "Your password:" in page
    assert seen == {"dora@play.test", "fan@watch.test"}
    # the stored report is as it was written; `pbem report` adds the line it always did
    assert f"Deadline: {old}" in run("report", "g1", "--player", "ares").stdout
