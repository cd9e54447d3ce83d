"""`pbem fetch` against a real IMAP server: Dovecot started here on loopback with a throwaway
configuration and a TLS certificate made for it (tests/mail/mailservers.py). IMAPS and
STARTTLS; move or flag; kills at every point of a fetch (the process SIGKILLs itself at a
failpoint: return code -9) lose and double nothing; a changed UIDVALIDITY; and every bad
configuration gives one clear line, no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mail.mailservers import CA, Dovecot

from pbem import host
from pbem.host.store import open_db
from pbem.mail import fetch as mail_fetch
from pbem.mail.settings import ImapSettings, load_imap_settings

PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent))


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return CA(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def dovecot(ca):
    server = Dovecot(ca).start()
    yield server
    server.stop(remove=True)


@pytest.fixture
def mailbox(dovecot):
    """The test user's mailbox, emptied: INBOX without messages, no other folder."""
    c = dovecot.client()
    try:
        for _flags, _delim, name in c.list_folders():
            if name != "INBOX":
                c.delete_folder(name)
        c.select_folder("INBOX")
        uids = c.search("ALL")
        if uids:
            c.delete_messages(uids)
            c.expunge()
    finally:
        c.logout()
    return dovecot


def message(n: int, sender="alice@example.org", subject=None, body="hello") -> bytes:
    return (f"From: {sender}\r\nTo: orders@pbem.example\r\nSubject: {subject or f'note {n}'}\r\n"
            f"Message-ID: <m{n}.{time.time_ns()}@example.org>\r\nDate: Sat, 21 Nov 2026 14:05:00 +0000\r\n\r\n{body} {n}\r\n").encode()


def settings(server: Dovecot, **kw) -> ImapSettings:
    s = ImapSettings()
    for k, v in server.imap_settings(**kw).items():
        setattr(s, k, v)
    return s


def test_imaps_fetch_stores_each_message_once_and_moves_it(mailbox, tmp_path):
    db = open_db(str(tmp_path / "pbem.db"))
    raws = [message(i) for i in range(3)]
    for raw in raws:
        mailbox.append(raw)
    first = mail_fetch.fetch(db, settings(mailbox))
    assert (first.stored, first.moved, first.already) == (3, 3, 0)
    assert mailbox.count("INBOX") == 0 and mailbox.count("pbem-processed") == 3
    rows = db.execute("select uid, uidvalidity, raw, done from imap_fetched order by uid").fetchall()
    assert [bytes(r[2]) for r in rows] == [r.replace(b"\r\n", b"\r\n") for r in raws]
    assert len({r[0] for r in rows}) == 3 and all(r[1] == first.uidvalidity and r[3] for r in rows)
    again = mail_fetch.fetch(db, settings(mailbox))
    assert (again.stored, again.moved) == (0, 0)
    tally = mail_fetch.ingest_fetched(db, "orders@pbem.example")
    assert len(tally.results) == 3 and db.execute("select count(*) from inbox").fetchone()[0] == 3
    # the raw bytes live on in the inbox, once; the fetch row points at it
    assert db.execute("select count(*) from imap_fetched where raw is null and inbox_id > 0").fetchone()[0] == 3
    assert mail_fetch.ingest_fetched(db, "orders@pbem.example").results == []


def test_starttls_and_flag_mode_leave_the_messages_in_place(mailbox, tmp_path):
    db = open_db(str(tmp_path / "pbem.db"))
    mailbox.append(message(1))
    mailbox.append(message(2))
    s = settings(mailbox, security="starttls", after="flag")
    got = mail_fetch.fetch(db, s)
    assert got.stored == 2 and mailbox.count("INBOX") == 2 and mailbox.count("pbem-processed") == 0
    c = mailbox.client()
    c.select_folder("INBOX", readonly=True)
    assert len(c.search(["KEYWORD", mail_fetch.KEYWORD])) == 2
    c.logout()
    mailbox.append(message(3))
    assert mail_fetch.fetch(db, s).stored == 1  # only the new one
    assert db.execute("select count(*) from imap_fetched").fetchone()[0] == 3


def _pbem(tmp_path: Path, *args, env_extra=None, timeout=60):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"), PBEM_CONFIG=str(tmp_path / "pbem.toml"))
    env.update(env_extra or {})
    return subprocess.run([PBEM, *map(str, args)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=timeout,
                          check=False)


def write_config(tmp_path: Path, server: Dovecot, **over) -> None:
    s = server.imap_settings(**over.pop("imap", {}))
    pw = tmp_path / "imap-password"
    pw.write_text(s.pop("password") + "\n")
    pw.chmod(0o600)
    lines = ["[imap]"] + [f"{k} = {v!r}" if isinstance(v, str) else f"{k} = {v}" for k, v in s.items()]
    lines.append(f"password_file = {str(pw)!r}")
    lines += [f"{k} = {v!r}" if isinstance(v, str) else f"{k} = {v}" for k, v in over.items()]
    (tmp_path / "pbem.toml").write_text("\n".join(lines).replace("'", '"') + "\n")


@pytest.mark.parametrize("point", ["fetch-after-store@1", "fetch-after-store@2", "fetch-before-move@1",
                                   "ingest-before-commit@1", "ingest-before-commit@3"])
def test_a_kill_anywhere_in_fetch_neither_loses_nor_doubles(mailbox, tmp_path, point):
    """The command kills itself (SIGKILL) at a point of the fetch; the next run completes it:
    every message is stored and processed exactly once, and answered exactly once."""
    assert PBEM, "the pbem console script is not installed beside this Python"
    r = _pbem(tmp_path, "new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob:bob@example.org",
              "--seed", "5")
    assert r.returncode == 0, r.stderr
    db = open_db(str(tmp_path / "pbem.db"))
    pw = {p["name"]: p["password"] for p in host.players(db, "g1")}
    db.close()
    write_config(tmp_path, mailbox)
    for i in range(4):  # orders with a wrong password: each must be answered (rejected) exactly once
        mailbox.append(message(i, subject="[g1] orders", body=f"PLAYER alice\nPASSWORD wrong-{i}\nEND\n"))
    mailbox.append(message(9, sender="bob@example.org", subject="[g1] orders", body=f"PLAYER bob\nPASSWORD {pw['bob']}\nEND\n"))
    killed = _pbem(tmp_path, "fetch", env_extra={"PBEM_FAILPOINT": point})
    assert killed.returncode == -9, (killed.returncode, killed.stdout, killed.stderr)
    done = _pbem(tmp_path, "fetch")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr + killed.stderr
    db = open_db(str(tmp_path / "pbem.db"))
    assert db.execute("select count(*) from imap_fetched").fetchone()[0] == 5
    assert db.execute("select count(*) from imap_fetched where inbox_id is null").fetchone()[0] == 0
    assert db.execute("select count(*) from inbox").fetchone()[0] == 5
    assert db.execute("select count(distinct inbox_id) from imap_fetched").fetchone()[0] == 5
    replies = db.execute("select inbox_id, count(*) from outbox where inbox_id is not null group by inbox_id").fetchall()
    assert len(replies) == 5 and all(n == 1 for _, n in replies)
    assert db.execute("select count(*) from submissions where source like 'mail:%'").fetchone()[0] == 5
    assert mailbox.count("INBOX") == 0 and mailbox.count("pbem-processed") == 5


def test_a_changed_uidvalidity_is_reported_and_nothing_is_taken_twice(tmp_path, ca):
    """The server renumbers the folder (its index is rebuilt) while two messages that were
    stored but not yet moved are still in it: they come again under new UIDs, and ingest
    recognises them; nothing is answered twice."""
    server = Dovecot(ca).start()
    try:
        r = _pbem(tmp_path, "new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob", "--seed", "5")
        assert r.returncode == 0, r.stderr
        write_config(tmp_path, server)
        for i in range(2):
            server.append(message(i, subject="[g1] orders", body="PLAYER alice\nPASSWORD nope\nEND\n"))
        killed = _pbem(tmp_path, "fetch", env_extra={"PBEM_FAILPOINT": "fetch-before-move@1"})
        assert killed.returncode == -9
        db = open_db(str(tmp_path / "pbem.db"))
        before = db.execute("select uidvalidity from imap_mailboxes").fetchone()[0]
        db.close()
        server.stop()
        time.sleep(1.1)  # Dovecot takes the time as the new UIDVALIDITY
        maildir = server.folder / "home" / server.user / "Maildir"
        for f in maildir.iterdir():
            if f.name.startswith("dovecot"):
                f.unlink() if f.is_file() else shutil.rmtree(f)
        server.start()
        server.append(message(7, subject="[g1] orders", body="PLAYER alice\nPASSWORD nope\nEND\n"))
        again = _pbem(tmp_path, "fetch")
        assert again.returncode == 0, again.stderr
        assert "UIDVALIDITY" in again.stdout and "changed" in again.stdout
        db = open_db(str(tmp_path / "pbem.db"))
        after, changes = db.execute("select uidvalidity, changes from imap_mailboxes").fetchone()
        assert after != before and changes == 1
        assert db.execute("select count(*) from imap_fetched").fetchone()[0] == 5  # 2 + (2 again + 1 new)
        assert db.execute("select count(*) from inbox").fetchone()[0] == 3  # each message once
        assert db.execute("select count(*) from outbox where inbox_id is not null").fetchone()[0] == 3
        assert server.count("INBOX") == 0
    finally:
        server.stop(remove=True)


def _bad(tmp_path, server, expect: str, **over):
    write_config(tmp_path, server, **over)
    r = _pbem(tmp_path, "fetch", timeout=60)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert expect in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert r.stderr.count("\n") == 1  # one line
    return r.stderr


def test_bad_configurations_give_one_clear_line(mailbox, tmp_path):
    _bad(tmp_path, mailbox, "cannot find the server 'no-such-host.invalid'", imap={"host": "no-such-host.invalid"})
    from mail.smtpd import free_port

    _bad(tmp_path, mailbox, "connection refused", imap={"port": free_port()})
    _bad(tmp_path, mailbox, "login refused", imap={"password": "not-the-password"})
    # IMAPS (implicit TLS) against the plain port: the server speaks no TLS there
    msg = _bad(tmp_path, mailbox, "TLS failed", imap={"port": mailbox.port})
    assert "993" in msg and "starttls" in msg
    # a server whose certificate is not trusted (no ca_file)
    _bad(tmp_path, mailbox, "not trusted", imap={"ca_file": ""})
    # the password in pbem.toml itself is refused
    (tmp_path / "pbem.toml").write_text('[imap]\nhost = "127.0.0.1"\nusername = "judge"\npassword = "x"\n')
    r = _pbem(tmp_path, "fetch")
    assert r.returncode == 1 and "keep the IMAP password out of pbem.toml" in r.stderr
    (tmp_path / "pbem.toml").write_text('[imap]\nhost = "127.0.0.1"\nusername = "judge"\n')
    r = _pbem(tmp_path, "fetch")
    assert r.returncode == 1 and "no IMAP password" in r.stderr
    (tmp_path / "pbem.toml").write_text('[imap]\nhost = "127.0.0.1"\nusername = "judge"\npassword_file = "/nonexistent/pw"\n')
    r = _pbem(tmp_path, "fetch")
    assert r.returncode == 1 and "cannot read the IMAP password file /nonexistent/pw" in r.stderr
    (tmp_path / "pbem.toml").write_text("")
    r = _pbem(tmp_path, "fetch")
    assert r.returncode == 1 and "no IMAP server configured" in r.stderr


def test_plain_imap_without_tls_only_when_asked(mailbox, tmp_path):
    """security = "none" is the GM's explicit choice (a server on this machine); it works,
    and the settings say so when printed."""
    db = open_db(str(tmp_path / "pbem.db"))
    mailbox.append(message(1))
    s = settings(mailbox, security="none")
    assert "(none)" in s.describe() and "imaps" not in s.describe()
    assert mail_fetch.fetch(db, s).stored == 1


def test_the_password_comes_from_the_environment_or_a_file_never_the_store(mailbox, tmp_path, monkeypatch):
    pw = tmp_path / "pw"
    pw.write_text(mailbox.password + "\n")
    (tmp_path / "pbem.toml").write_text(f'[imap]\nhost = "127.0.0.1"\nusername = "judge"\npassword_file = "{pw}"\n')
    assert load_imap_settings(str(tmp_path / "pbem.toml")).password == mailbox.password
    monkeypatch.setenv("PBEM_IMAP_PASSWORD", "from-env")
    (tmp_path / "pbem.toml").write_text('[imap]\nhost = "127.0.0.1"\nusername = "judge"\n')
    s = load_imap_settings(str(tmp_path / "pbem.toml"))
    assert s.password == "from-env" and "from-env" not in repr(s) and "from-env" not in s.describe()
    monkeypatch.delenv("PBEM_IMAP_PASSWORD")
    db = open_db(str(tmp_path / "pbem.db"))
    mailbox.append(message(1))
    mail_fetch.fetch(db, settings(mailbox))
    dump = "\n".join(db.conn.iterdump())
    assert mailbox.password not in dump
