"""`pbem send` over TLS, against aiosmtpd with a certificate made here (tests/mail/mailservers.py):
STARTTLS on a submission port and implicit TLS ("ssl"), each with a login; the configured
display name in From; and the bad configurations (wrong password, an untrusted certificate,
no STARTTLS, a login over a plain connection) each give one clear line and send nothing."""

from __future__ import annotations

import email
import email.policy
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mail.mailservers import CA, TlsSmtpServer
from mail.smtpd import SmtpServer

PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent))
# implicit TLS: aiosmtpd does not count it as TLS and warns about AUTH (tests/mail/mailservers.py)
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return CA(tmp_path_factory.mktemp("tls"))


@pytest.fixture(params=["starttls", "ssl"])
def tls_smtp(request, ca):
    server = TlsSmtpServer(ca, request.param).start()
    yield server
    server.stop()


def pbem(tmp_path: Path, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"), PBEM_CONFIG=str(tmp_path / "pbem.toml"))
    return subprocess.run([PBEM, *map(str, args)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
                          check=False)


def config(tmp_path: Path, **mail) -> None:
    pw = tmp_path / "smtp-password"
    pw.write_text(mail.pop("password", TlsSmtpServer.password) + "\n")
    pw.chmod(0o600)
    mail.setdefault("password_file", str(pw))
    mail.setdefault("from", "Olympus Judge <orders@pbem.example>")
    mail.setdefault("retries", 0)
    mail.setdefault("backoff", 0)
    body = "\n".join(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in mail.items())
    (tmp_path / "pbem.toml").write_text("[mail]\n" + body + "\n")


def new_game(tmp_path: Path) -> None:
    r = pbem(tmp_path, "new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob:bob@example.org",
             "--seed", "3")
    assert r.returncode == 0, r.stderr


def queued(tmp_path: Path) -> int:
    import sqlite3

    with sqlite3.connect(tmp_path / "pbem.db") as conn:
        return conn.execute("select count(*) from outbox where status = 'queued'").fetchone()[0]


def test_reports_go_out_over_tls_with_a_login_and_the_configured_name(tmp_path, tls_smtp, ca):
    new_game(tmp_path)
    config(tmp_path, smtp_host="127.0.0.1", smtp_port=tls_smtp.port, security=tls_smtp.mode, username=tls_smtp.user,
           ca_file=str(ca.ca_file))
    r = pbem(tmp_path, "send")
    assert r.returncode == 0, r.stderr
    assert "2 sent" in r.stdout and f"({tls_smtp.mode})" in r.stdout
    assert len(tls_smtp.messages) == 2 and tls_smtp.logins
    msg = email.message_from_bytes(tls_smtp.messages[0].data, policy=email.policy.default)
    assert msg["From"].addresses[0].display_name == "Olympus Judge"
    assert msg["From"].addresses[0].addr_spec == "orders@pbem.example"
    assert queued(tmp_path) == 0
    assert pbem(tmp_path, "send").stdout.startswith("0 sent")  # each once


def test_name_may_carry_the_game(tmp_path, tls_smtp, ca):
    new_game(tmp_path)
    config(tmp_path, smtp_host="127.0.0.1", smtp_port=tls_smtp.port, security=tls_smtp.mode, username=tls_smtp.user,
           ca_file=str(ca.ca_file), name="Judge of {game}")
    assert pbem(tmp_path, "send").returncode == 0
    msg = email.message_from_bytes(tls_smtp.messages[0].data, policy=email.policy.default)
    assert str(msg["From"]) == "Judge of g1 <orders@pbem.example>"
    assert msg["Reply-To"].addresses[0].display_name == "Judge of g1"


def test_a_wrong_password_is_a_clear_line_and_nothing_is_sent(tmp_path, tls_smtp, ca):
    new_game(tmp_path)
    config(tmp_path, smtp_host="127.0.0.1", smtp_port=tls_smtp.port, security=tls_smtp.mode, username=tls_smtp.user,
           ca_file=str(ca.ca_file), password="wrong")
    r = pbem(tmp_path, "send")
    assert r.returncode == 1 and "login refused" in r.stderr and "Traceback" not in r.stderr
    assert "wrong" not in r.stderr + r.stdout  # the password is never printed
    assert tls_smtp.messages == [] and queued(tmp_path) == 2


def test_an_untrusted_certificate_is_refused(tmp_path, tls_smtp):
    new_game(tmp_path)
    config(tmp_path, smtp_host="127.0.0.1", smtp_port=tls_smtp.port, security=tls_smtp.mode, username=tls_smtp.user)
    r = pbem(tmp_path, "send")
    assert r.returncode == 1, r.stdout
    assert "CERTIFICATE_VERIFY_FAILED" in r.stderr and "Traceback" not in r.stderr
    assert tls_smtp.messages == [] and queued(tmp_path) == 2


def test_starttls_asked_of_a_server_without_it(tmp_path):
    server = SmtpServer().start()
    try:
        new_game(tmp_path)
        config(tmp_path, smtp_host="127.0.0.1", smtp_port=server.port, security="starttls")
        r = pbem(tmp_path, "send")
        assert r.returncode == 1 and "STARTTLS" in r.stderr and "Traceback" not in r.stderr
        assert server.messages == [] and queued(tmp_path) == 2
        # a login over a connection without TLS is refused unless security = "none"
        config(tmp_path, smtp_host="127.0.0.1", smtp_port=server.port, security="auto", username="judge")
        r = pbem(tmp_path, "send")
        assert r.returncode == 1 and "refusing to send the password in clear" in r.stderr
        assert server.messages == []
    finally:
        server.stop()


def test_implicit_tls_against_a_plain_server_fails_clearly(tmp_path, ca):
    server = SmtpServer().start()
    try:
        new_game(tmp_path)
        config(tmp_path, smtp_host="127.0.0.1", smtp_port=server.port, security="ssl", ca_file=str(ca.ca_file))
        r = pbem(tmp_path, "send")
        assert r.returncode == 1 and "cannot connect" in r.stderr and "SSL" in r.stderr
        assert "Traceback" not in r.stderr and queued(tmp_path) == 2
    finally:
        server.stop()
