"""Real mail servers on loopback for the mail-loop tests (issue 14): Dovecot (Debian's
`dovecot-imapd`, installed by `make test` through scripts/need_dovecot.sh) started with a
throwaway configuration in a temporary folder, and aiosmtpd with TLS (STARTTLS or implicit
TLS). The TLS certificates come from a throwaway CA made here (trustme); clients trust it
through `ca_file`, as a GM with a private CA would.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

import trustme
from mail.smtpd import Recorder, _Controller


def dovecot_binary() -> str:
    found = shutil.which("dovecot") or ("/usr/sbin/dovecot" if os.path.exists("/usr/sbin/dovecot") else None)
    if not found:
        raise RuntimeError("Dovecot is not installed: `make test` installs it (scripts/need_dovecot.sh), "
                           "or: sudo apt-get install -y dovecot-imapd")
    return found


class CA:
    """A throwaway CA and a certificate for 127.0.0.1/localhost."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.ca = trustme.CA()
        self.cert = self.ca.issue_cert("127.0.0.1", "localhost")
        self.ca_file = folder / "ca.pem"
        self.cert_file = folder / "cert.pem"
        self.key_file = folder / "key.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        self.cert.cert_chain_pems[0].write_to_path(str(self.cert_file))
        for extra in self.cert.cert_chain_pems[1:]:
            with open(self.cert_file, "ab") as fh:
                fh.write(extra.bytes())
        self.cert.private_key_pem.write_to_path(str(self.key_file))
        for f in (self.ca_file, self.cert_file, self.key_file):
            os.chmod(f, 0o644)

    def server_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.cert.configure_cert(ctx)
        return ctx


CONFIG = """\
base_dir = {run}
state_dir = {state}
log_path = {log}
info_log_path = {log}
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{home}/%u/Maildir
first_valid_uid = 0
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {users}
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={home}/%u
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {tls_port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service imap {{
  process_limit = 50
}}
protocol imap {{
  mail_max_userip_connections = 100
}}
"""


class Dovecot:
    """A Dovecot of our own: IMAP with STARTTLS on `port`, IMAPS on `tls_port`, one user
    (`user`/`password`) with a Maildir under the temporary folder."""

    user = "judge"
    password = "s3cret-imap-pass"

    def __init__(self, ca: CA) -> None:
        # a folder of its own under /tmp, passable by the unprivileged mail user (pytest's
        # tmp_path sits under a folder only its owner may enter)
        self.folder = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        os.chmod(self.folder, 0o755)
        self.ca = ca
        self.port, self.tls_port = _distinct_ports(2)
        self.proc: subprocess.Popen | None = None

    def start(self) -> Dovecot:
        """Start Dovecot; Dovecot cannot bind port 0 and say which port it got, so the ports
        are found free beforehand, and when another process takes one in between (a
        parallel test worker), Dovecot is started again on fresh ports."""
        for attempt in range(5):
            try:
                return self._start()
            except _PortTaken:
                self.stop()
                self.port, self.tls_port = _distinct_ports(2)
        return self._start()

    def _start(self) -> Dovecot:
        f = self.folder
        for sub in ("run", "state", "home"):
            (f / sub).mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:  # Dovecot runs its mail processes as an unprivileged user
            account = pwd.getpwnam("nobody")
            user, uid, gid = "nobody", account.pw_uid, account.pw_gid
            group = "nogroup"
            for sub in ("home", "state"):
                os.chown(f / sub, uid, gid)
        else:
            account = pwd.getpwuid(os.geteuid())
            user, uid, gid = account.pw_name, account.pw_uid, account.pw_gid
            import grp

            group = grp.getgrgid(gid).gr_name
        users = f / "users"
        users.write_text(f"{self.user}:{{PLAIN}}{self.password}\n")
        os.chmod(users, 0o644)
        conf = f / "dovecot.conf"
        conf.write_text(CONFIG.format(run=f / "run", state=f / "state", log=f / "dovecot.log", cert=self.ca.cert_file,
                                      key=self.ca.key_file, home=f / "home", user=user, group=group, uid=uid, gid=gid,
                                      users=users, port=self.port, tls_port=self.tls_port))
        self.proc = subprocess.Popen([dovecot_binary(), "-F", "-c", str(conf)], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out = self.proc.stdout.read().decode(errors="replace") if self.proc.stdout else ""
                log = (f / "dovecot.log").read_text(errors="replace") if (f / "dovecot.log").exists() else ""
                said = f"{out}\n{log}"
                if any(w in said for w in ("Address already in use", "duplicate listener")):
                    raise _PortTaken(said)
                raise RuntimeError(f"Dovecot did not start: {said}")
            if _listening(self.port) and _listening(self.tls_port):
                return self
            time.sleep(0.05)
        raise RuntimeError("Dovecot did not listen within 20 s")

    def stop(self, remove: bool = False) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if remove:
            shutil.rmtree(self.folder, ignore_errors=True)

    # --- a client for the tests (not pbem's) ---

    def client(self):
        from imapclient import IMAPClient

        c = IMAPClient("127.0.0.1", port=self.tls_port, ssl=True, ssl_context=ssl.create_default_context(cafile=str(self.ca.ca_file)))
        c.login(self.user, self.password)
        return c

    def append(self, raw: bytes, folder: str = "INBOX") -> None:
        c = self.client()
        try:
            c.append(folder, raw)
        finally:
            c.logout()

    def count(self, folder: str = "INBOX") -> int:
        c = self.client()
        try:
            if not c.folder_exists(folder):
                return 0
            return c.folder_status(folder, [b"MESSAGES"])[b"MESSAGES"]
        finally:
            c.logout()

    def messages(self, folder: str = "INBOX") -> list[bytes]:
        c = self.client()
        try:
            if not c.folder_exists(folder):
                return []
            c.select_folder(folder, readonly=True)
            uids = c.search("ALL")
            data = c.fetch(uids, ["BODY.PEEK[]"]) if uids else {}
            return [bytes(data[u][b"BODY[]"]) for u in sorted(data)]
        finally:
            c.logout()

    def imap_settings(self, security: str = "ssl", **more) -> dict:
        port = self.tls_port if security == "ssl" else self.port
        return {"host": "127.0.0.1", "port": port, "security": security, "username": self.user,
                "password": self.password, "ca_file": str(self.ca.ca_file), "timeout": 10, **more}


class _PortTaken(RuntimeError):
    """A server could not bind the port found free for it: another process took it."""


def _distinct_ports(n: int) -> list[int]:
    """n ports nothing listens on now, all different: each socket stays bound until all are
    found (two free_port() calls in a row can return the same port)."""
    sockets = []
    try:
        for _ in range(n):
            s = socket.socket()
            sockets.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class TlsSmtpServer:
    """aiosmtpd with TLS: `mode` "starttls" (STARTTLS required before MAIL, AUTH offered
    after it) or "ssl" (implicit TLS on connect). Login: `user`/`password`."""

    user = "judge"
    password = "s3cret-smtp-pass"

    def __init__(self, ca: CA, mode: str = "starttls") -> None:
        from aiosmtpd.smtp import AuthResult, LoginPassword

        self.handler = Recorder()
        self.mode = mode
        self.logins: list[str] = []

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == self.user \
                and auth_data.password.decode() == self.password
            if ok:
                self.logins.append(auth_data.login.decode())
            return AuthResult(success=ok, handled=False)

        ctx = ca.server_context()
        # port 0: the system picks a free port as the server binds it (no race with another
        # process taking a port found free beforehand); _Controller reads it back
        common = {"hostname": "127.0.0.1", "port": 0, "authenticator": authenticator,
                  "auth_require_tls": True, "auth_required": True}
        if mode == "ssl":
            # aiosmtpd counts only STARTTLS as TLS when offering AUTH; here the whole connection is TLS
            common["auth_require_tls"] = False
            self.controller = _Controller(self.handler, ssl_context=ctx, **common)
        else:
            self.controller = _Controller(self.handler, tls_context=ctx, require_starttls=True, **common)

    @property
    def port(self) -> int:
        """The port the server listens on (known once started)."""
        return self.controller.port

    @property
    def messages(self):
        return self.handler.messages

    def start(self) -> TlsSmtpServer:
        if self.mode == "ssl":
            # aiosmtpd's own readiness check speaks plain SMTP; with implicit TLS, wait for the port instead
            self.controller.ready_timeout = 5
            try:
                self.controller.start()
            except Exception:
                if not _listening(self.port):
                    raise
        else:
            self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
