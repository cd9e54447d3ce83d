"""A real SMTP server on loopback (aiosmtpd) for the mail tests, with faults on demand:
a recipient refused for good (550) or for now (451), and the connection dropped in the
middle of a batch -- before the server accepts a message, or right after it did."""

from __future__ import annotations

import email
import email.policy
import socket
import threading
from dataclasses import dataclass, field
from functools import cached_property

from aiosmtpd.controller import Controller


def free_port() -> int:
    """A port nothing listens on now: for a connection that must be refused. A server of
    ours never binds it later (another process may take it in between): SmtpServer binds
    port 0 and reads its port back (see _Controller)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Controller(Controller):
    """aiosmtpd's Controller, bound to the port it is given, or with port 0 to one the system
    picks as it binds (no race with another process taking a port found free beforehand);
    the port is read back from the listening socket before the controller talks to it."""

    def _create_server(self):
        binding = super()._create_server()

        async def bind():
            server = await binding
            self.port = server.sockets[0].getsockname()[1]
            return server

        return bind()


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes

    @cached_property
    def message(self):
        return email.message_from_bytes(self.data, policy=email.policy.default)

    @cached_property
    def text(self) -> str:
        return self.message.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


@dataclass
class Faults:
    refuse: set[str] = field(default_factory=set)  # 550 for these recipients
    later: set[str] = field(default_factory=set)  # 451 for these recipients
    drop_in_data: set[int] = field(default_factory=set)  # drop while receiving the Nth DATA (1-based)
    drop_after: set[int] = field(default_factory=set)  # drop after accepting the Nth message


class Recorder:
    def __init__(self) -> None:
        self.messages: list[Received] = []
        self.faults = Faults()
        self.data_seen = 0
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.faults.refuse:
            return "550 5.1.1 no such mailbox"
        if address in self.faults.later:
            return "451 4.3.0 mailbox busy, try later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if len(self.messages) in self.faults.drop_after:
            self.faults.drop_after.discard(len(self.messages))
            server.transport.abort()
            return "421 closing"
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.data_seen += 1
            n = self.data_seen
        if n in self.faults.drop_in_data:
            server.transport.abort()  # the client never hears "250": the message was not accepted
            return "421 closing"
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 2.0.0 queued"


class SmtpServer:
    def __init__(self) -> None:
        self.handler = Recorder()
        self.controller = _Controller(self.handler, hostname="127.0.0.1", port=0)

    @property
    def port(self) -> int:
        """The port the server listens on (known once started; kept when it is restarted)."""
        return self.controller.port

    @property
    def messages(self) -> list[Received]:
        return self.handler.messages

    @property
    def faults(self) -> Faults:
        return self.handler.faults

    def start(self) -> "SmtpServer":
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
