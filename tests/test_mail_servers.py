"""The test mail servers themselves (tests/mail/mailservers.py): a port another process takes
between finding it free and the server binding it must not fail a test run (CI saw Dovecot
given the same port twice: "duplicate listener")."""

from __future__ import annotations

import socket

import pytest
from mail.mailservers import CA, Dovecot, TlsSmtpServer, _distinct_ports, _listening

pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    return CA(tmp_path_factory.mktemp("tls"))


def test_ports_found_together_are_all_different():
    for _ in range(200):
        ports = _distinct_ports(2)
        assert len(set(ports)) == 2


def test_dovecot_starts_on_fresh_ports_when_its_port_is_taken(ca):
    server = Dovecot(ca)
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", server.port))
    squatter.listen()
    taken = server.port
    try:
        server.start()
        assert server.port != taken
        assert _listening(server.port) and _listening(server.tls_port)
        assert server.port != server.tls_port
    finally:
        squatter.close()
        server.stop(remove=True)


@pytest.mark.parametrize("mode", ["starttls", "ssl"])
def test_tls_smtp_server_listens_on_the_port_it_reports(ca, mode):
    server = TlsSmtpServer(ca, mode).start()
    try:
        assert server.port > 0 and _listening(server.port)
    finally:
        server.stop()
