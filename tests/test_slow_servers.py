"""A server that dribbles its answer a byte at a time never trips a socket's timeout (each
byte restarts it): `pbem send`, `pbem fetch` (and so `pbem run`, which holds its lock while
they work) and `pbem verify` waited as long as the server liked. And an SMTP reply that never
ends read until the memory ran out. Each exchange now has a bound as a whole, and one reply a
bound on its lines; the GM gets a clear message and nothing is lost (issue 17: no single
input can stop a judge). Through the installed command."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

PBEM = str(Path(sys.executable).with_name("pbem"))


class Server:
    """A listening socket (bound once: no port race) whose every connection is answered by
    `talk(conn)` in a thread of its own."""

    def __init__(self, talk):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.port = self.sock.getsockname()[1]
        self.talk = talk
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        try:
            self.talk(conn, self.stop)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self):
        self.stop.set()
        self.sock.close()


def dribble(prefix: bytes = b""):
    def talk(conn, stop):
        conn.sendall(prefix)
        while not stop.is_set():
            conn.sendall(b"2")  # a byte every 0.1 s: the 0.5 s socket timeout never trips
            time.sleep(0.1)
    return talk


def endless_reply(conn, stop):
    while not stop.is_set():
        conn.sendall(b"220-still greeting you\r\n" * 200)


@pytest.fixture
def host(tmp_path):
    def pbem(*args, env=None):
        e = dict(os.environ, PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"))
        for k in ("PBEM_FAILPOINT", "PBEM_DEBUG", "PBEM_NOW", "PBEM_CONFIG"):
            e.pop(k, None)
        e.update(env or {})
        return subprocess.run([PBEM, *map(str, args)], capture_output=True, text=True, env=e, cwd=tmp_path, timeout=60)

    p = pbem("new", "gods", "g1", "--player", "zeus:zeus@example.org", "--player", "hera:hera@example.org")
    assert p.returncode == 0, p.stderr
    return pbem


def queued(tmp_path) -> int:
    conn = sqlite3.connect(tmp_path / "pbem.db")
    try:
        return conn.execute("select count(*) from outbox where status = 'queued'").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("talk,says", [(dribble(), "connecting and logging in: not done within 1.5 seconds"),
                                       (endless_reply, "a reply of over 500 lines")],
                         ids=["dribbled-greeting", "endless-greeting"])
def test_send_gives_up_on_a_server_that_never_finishes_and_keeps_the_mail(host, tmp_path, talk, says):
    server = Server(talk)
    before = queued(tmp_path)
    try:
        started = time.monotonic()
        p = host("send", "--smtp-host", "127.0.0.1", "--smtp-port", server.port, "--security", "none",
                 "--from", "gm@example.org", "--retries", "0", env={"PBEM_SMTP_TIMEOUT": "0.5"})
        took = time.monotonic() - started
    finally:
        server.close()
    assert "Traceback" not in p.stderr and "MemoryError" not in p.stderr, p.stderr
    assert says in p.stdout + p.stderr, p.stdout + p.stderr
    assert not re.search(r"SMTP\w*(Exception|Disconnected)|Overdue", p.stdout + p.stderr), p.stdout + p.stderr  # the GM's words
    assert took < 30, took  # before: as long as the server liked
    assert before > 0 and queued(tmp_path) == before  # nothing lost: every mail still waits


def test_fetch_gives_up_on_a_server_that_dribbles_its_greeting(host, tmp_path):
    server = Server(dribble(b"* OK "))
    (tmp_path / "imappw").write_text("pw\n")
    (tmp_path / "imappw").chmod(0o600)
    (tmp_path / "pbem.toml").write_text(f'[imap]\nhost = "127.0.0.1"\nport = {server.port}\nsecurity = "none"\n'
                                        f'username = "x"\npassword_file = "{tmp_path / "imappw"}"\ntimeout = 0.5\n')
    try:
        started = time.monotonic()
        p = host("fetch")
        took = time.monotonic() - started
    finally:
        server.close()
    assert p.returncode == 1, p.stdout + p.stderr
    assert "Traceback" not in p.stderr, p.stderr
    assert "connecting and logging in: not done within 1.5 seconds" in p.stderr, p.stderr
    assert took < 30, took


def test_verify_gives_up_on_a_server_that_dribbles_a_file(monkeypatch):
    from pbem.core.errors import PbemError
    from pbem.site import verify

    monkeypatch.setattr(verify, "FILE_SECONDS", 1.5)
    server = Server(lambda conn, stop: (conn.recv(4096), dribble(b"HTTP/1.0 200 OK\r\n\r\n")(conn, stop)))
    try:
        started = time.monotonic()
        with pytest.raises(PbemError, match=r"not done within 1.5 seconds"):
            verify.Source(f"http://127.0.0.1:{server.port}/g").read("record.json")
        assert time.monotonic() - started < 30
    finally:
        server.close()


@pytest.mark.parametrize("watch", [False, True], ids=["run", "run-watch"])
def test_sigterm_ends_a_fetch_stuck_on_a_dribbling_server_at_once(host, tmp_path, watch):
    """An attack found `pbem run` given SIGTERM (a shutdown, `systemctl stop`) while its fetch
    was held by a dribbling IMAP server waiting out the whole bound (3 x the timeout: 180 s
    with the default 60 s, past systemd's 90 s stop timeout). A fetch is safe to cut short (a
    message leaves the server only once stored): it ends at once, the run says so, exit 0."""
    connected = threading.Event()
    talk = dribble(b"* OK ")
    server = Server(lambda conn, stop: (connected.set(), talk(conn, stop)))
    (tmp_path / "imappw").write_text("pw\n")
    (tmp_path / "imappw").chmod(0o600)
    (tmp_path / "pbem.toml").write_text(f'[imap]\nhost = "127.0.0.1"\nport = {server.port}\nsecurity = "none"\n'
                                        f'username = "x"\npassword_file = "{tmp_path / "imappw"}"\ntimeout = 20\n'
                                        '[run]\nsend = false\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"))
    proc = subprocess.Popen([PBEM, "run", *(["--watch", "--every", "1h"] if watch else [])], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert connected.wait(30), "pbem run never connected"
        time.sleep(0.5)  # inside the greeting's exchange
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=50)
        took = time.monotonic() - started
    finally:
        proc.kill()
        server.close()
    assert took < 10, took  # before: the whole 60 s bound
    assert proc.returncode == 0, out + err
    assert "Traceback" not in err, err
    assert re.search(r"fetch: cut short: .*connecting and logging in: stopped \(SIGTERM\)", out), out
    assert ("stopped (SIGTERM)" in out.splitlines()[-1]) and "ingest:" not in out, out
