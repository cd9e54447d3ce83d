"""Issue 14's "done": a whole game through `pbem run` against a real Dovecot (IMAPS) and a
real SMTP server (aiosmtpd with STARTTLS and a login), killed at random points in between.

Each turn the players mail their orders: the message is APPENDed to the judge's IMAP INBOX.
Then `pbem run` (the installed command) is started, and in most cycles killed with SIGKILL at
a random moment after a random number of its steps have reported -- so the kill is proven to
land mid-run: the process had not finished (its return code is -9), and the steps it had
reported are known -- and the next cycle's run takes up whatever it left. At the end:

- every message mailed is in the store exactly once and was taken as orders exactly once
  (one submission each, one acknowledgement each);
- every report and acknowledgement the store holds was delivered; none twice, save where a
  kill fell between the server's "250" and the commit that records it -- that message was
  claimed twice (attempts 2) and went again with the same Message-ID, which mail clients fold
  into one (pbem/mail/send.py documents that window); none delivered that the store does not
  hold;
- the game is over, its replay verifies, and the site is published with the final result.
"""

from __future__ import annotations

import email
import email.policy
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mail.mailservers import CA, Dovecot, TlsSmtpServer

from pbem import host
from pbem.core import engine
from pbem.core.registry import get_rules
from pbem.host import read
from pbem.host.store import open_reader

PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent))
GAME = "e2e"
SEED = int(os.environ.get("PBEM_E2E_SEED", "23"))  # 23: a game of 26 turns with these players


class Judge:
    """The GM's machine: a folder with pbem.toml, the store, and `pbem run` to start and kill."""

    def __init__(self, folder: Path, dovecot: Dovecot, smtp: TlsSmtpServer, ca: CA):
        self.folder = folder
        self.clock = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
        (folder / "imap-pw").write_text(dovecot.password + "\n")
        (folder / "smtp-pw").write_text(smtp.password + "\n")
        (folder / "pbem.toml").write_text(f"""
[imap]
host = "127.0.0.1"
port = {dovecot.tls_port}
security = "ssl"
username = "{dovecot.user}"
password_file = "{folder / 'imap-pw'}"
ca_file = "{ca.ca_file}"
timeout = 20

[mail]
smtp_host = "127.0.0.1"
smtp_port = {smtp.port}
security = "starttls"
username = "{smtp.user}"
password_file = "{folder / 'smtp-pw'}"
ca_file = "{ca.ca_file}"
from = "Olympus Judge <orders@pbem.example>"
retries = 1
backoff = 0

[run]
publish_dir = "site"
""")
        self.kills: list[str] = []  # the last step each killed run had reported

    def env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
        # each start is 20 minutes after the last: a message a killed run left claimed
        # ("sending") is taken up again by a later run (pbem.mail.send.STALE_CLAIM)
        self.clock += timedelta(minutes=20)
        env.update(PBEM_DB=str(self.folder / "pbem.db"), PBEM_TURNS=str(self.folder / "turns"),
                   PBEM_CONFIG=str(self.folder / "pbem.toml"), PBEM_NOW=self.clock.strftime("%Y-%m-%dT%H:%M:%SZ"))
        return env

    def pbem(self, *args) -> subprocess.CompletedProcess:
        return subprocess.run([PBEM, *args], capture_output=True, text=True, env=self.env(), cwd=self.folder,
                              timeout=300, check=False)

    def run_killed(self, rng: random.Random) -> int:
        """`pbem run`, killed after a random number of its steps reported (and a random
        moment more); returns its return code (-9 when the kill landed mid-run)."""
        proc = subprocess.Popen([PBEM, "run"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env(), cwd=self.folder)
        wait_steps = rng.randrange(0, 6)  # kill after 0..5 of the six step lines
        seen: list[str] = []
        reader = threading.Thread(target=lambda: seen.extend(iter(proc.stdout.readline, "")), daemon=True)
        reader.start()
        deadline = time.monotonic() + 120
        while len(seen) < wait_steps and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.choice((0, 0, 0.005, 0.02, 0.1, 0.3)))  # at once, or a little into the next step
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        reader.join(10)
        proc.stderr.close()
        if proc.returncode == -9:
            self.kills.append(seen[-1].split(" ", 1)[1].split(":")[0] if seen else "(start)")
        else:
            assert proc.returncode == 0, (proc.returncode, seen)
        return proc.returncode

    def run_to_completion(self) -> None:
        for _ in range(5):
            r = self.pbem("run")
            assert "Traceback" not in r.stderr + r.stdout
            if r.returncode == 0:
                return
            assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
        raise AssertionError(f"pbem run did not complete: {r.stdout} {r.stderr}")


def orders_mail(player: str, address: str, password: str, lines: list[str], n: int) -> tuple[str, bytes]:
    mid = f"<orders.{n}.{player}@players.example>"
    body = "\n".join(["Here are my orders.", "", f"GAME {GAME}", f"PLAYER {player}", f"PASSWORD {password}", *lines,
                      "READY", "END", "", "-- ", player])
    raw = (f"From: {player.title()} <{address}>\r\nTo: Olympus Judge <orders@pbem.example>\r\n"
           f"Subject: Re: [{GAME}] orders\r\nMessage-ID: {mid}\r\nDate: Mon, 23 Nov 2026 08:00:00 +0000\r\n"
           f"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n").encode()
    return mid, raw


def test_a_whole_game_runs_itself_through_pbem_run_killed_at_random(tmp_path):
    assert PBEM, "the pbem console script is not installed beside this Python"
    rng = random.Random(SEED)
    ca = CA(tmp_path / "tls")
    dovecot = Dovecot(ca).start()
    smtp = TlsSmtpServer(ca, "starttls").start()
    try:
        judge = Judge(tmp_path, dovecot, smtp, ca)
        players = {"alice": "alice@example.org", "bob": "bob@example.org"}
        r = judge.pbem("new", "yegods", GAME, *[a for p, e in players.items() for a in ("--player", f"{p}:{e}")],
                       "--seed", str(SEED))
        assert r.returncode == 0, r.stderr
        mailed: dict[str, tuple[str, int]] = {}  # Message-ID -> (player, turn)
        sent_for: set[tuple[str, int]] = set()
        attempts = 0
        for _ in range(400):
            db = open_reader(str(tmp_path / "pbem.db"))
            game = read.game(db, GAME)
            if game["status"] == "finished":
                db.close()
                break
            rules = get_rules(game["type"])
            state = read.current_state(db, game)
            for player in engine.active_players(rules, state):
                if (player, game["phase"]) in sent_for:
                    continue
                lines = host.bot_script(rules, state, player, random.Random(f"{SEED}/{game['phase']}/{player}"))
                password = read.player(db, GAME, player)["password"]
                mid, raw = orders_mail(player, players[player], password, lines, len(mailed))
                dovecot.append(raw)
                mailed[mid] = (player, game["phase"])
                sent_for.add((player, game["phase"]))
            db.close()
            attempts += 1
            if rng.random() < 0.6:  # killed; the next cycle's run takes up what it left
                judge.run_killed(rng)
            else:
                judge.run_to_completion()
        else:
            raise AssertionError("the game did not finish within 400 cycles")
        judge.run_to_completion()  # the last reports go out

        db = open_reader(str(tmp_path / "pbem.db"))
        # the kills: proven mid-run (return code -9), at many points of the cycle
        assert len(judge.kills) >= 8, judge.kills
        assert len(set(judge.kills)) >= 3, Counter(judge.kills)

        # every message mailed: fetched, stored and taken exactly once; the mailbox is empty
        inbox = db.execute("select message_id, outcome, submission_id from inbox").fetchall()
        assert Counter(m for m, _, _ in inbox) == Counter(mailed.keys()), "each message exactly once in the store"
        assert all(o == "accepted" and s for _, o, s in inbox)
        assert db.execute("select count(*) from imap_fetched").fetchone()[0] == len(mailed)
        assert db.execute("select count(*) from imap_fetched where inbox_id is null").fetchone()[0] == 0
        subs = db.execute("select count(*), count(distinct source) from submissions where source like 'mail:%'").fetchone()
        assert subs == (len(mailed), len(mailed))
        assert dovecot.count("INBOX") == 0 and dovecot.count("pbem-processed") == len(mailed)

        # every report and acknowledgement delivered; none twice but for the documented window
        rows = db.execute("select id, kind, message_id, status, attempts, to_addr from outbox").fetchall()
        assert rows and all(status == "sent" for _, _, _, status, _, _ in rows), Counter(r[3] for r in rows)
        got = Counter(email.message_from_bytes(m.data, policy=email.policy.default)["Message-ID"] for m in smtp.messages)
        by_mid = {mid: (oid, kind, att) for oid, kind, mid, _, att, _ in rows}
        assert set(got) == set(by_mid), "nothing delivered that the store does not hold, nothing missing"
        doubled = {mid: n for mid, n in got.items() if n > 1}
        assert all(n == 2 and by_mid[mid][2] >= 2 for mid, n in doubled.items()), doubled
        acks = Counter(db.execute("select inbox_id from outbox where kind = 'ack'").fetchall())
        assert len(acks) == len(mailed) and set(acks.values()) == {1}
        reports = db.execute("select count(*) from outbox where kind = 'report'").fetchone()[0]
        turns = db.execute("select count(*) from phases where game_id = ?", [GAME]).fetchone()[0]
        assert reports >= turns  # each player with an address gets each turn's report
        first = email.message_from_bytes(smtp.messages[0].data, policy=email.policy.default)
        assert str(first["From"]) == "Olympus Judge <orders@pbem.example>"

        # the game is over, and its history verifies
        assert read.game(db, GAME)["status"] == "finished"
        db.close()
        replay = judge.pbem("replay", GAME, "--verify")
        assert replay.returncode == 0 and "every hash matches" in replay.stdout
        site = tmp_path / "site"
        assert (site / "index.html").is_file()
        pages = "".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*.html"))
        assert GAME in pages and "result" in pages.lower()
        print(f"\n{len(mailed)} orders mailed, {len(rows)} messages sent ({sum(got.values())} deliveries, "
              f"{len(doubled)} in the 250-to-commit window), {turns} turns, {attempts} cycles, {len(judge.kills)} kills "
              f"mid-run: {dict(Counter(judge.kills))}")
    finally:
        smtp.stop()
        dovecot.stop(remove=True)
        with_db = tmp_path / "pbem.db"
        if with_db.exists():
            sqlite3.connect(with_db).close()
