"""`pbem run` (pbem/mail/run.py), through the installed command: one run at a time (a second
stops at once, exit 75), each step's failure reported while the others still run, a run with
nothing to do says nothing with -q and opens no SMTP connection, publishing only when
something changed, `--watch` stopping cleanly on SIGTERM, and clear lines for bad settings.
The whole game under random kills is tests/test_run_game.py."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mail.smtpd import SmtpServer, free_port

from pbem.mail import run as loop

PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent))


def env_for(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"), PBEM_CONFIG=str(tmp_path / "pbem.toml"))
    return env


def pbem(tmp_path: Path, *args, timeout=120):
    return subprocess.run([PBEM, *map(str, args)], capture_output=True, text=True, env=env_for(tmp_path), cwd=tmp_path,
                          timeout=timeout, check=False)


def setup(tmp_path: Path, toml: str) -> None:
    (tmp_path / "pbem.toml").write_text(toml)
    r = pbem(tmp_path, "new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob:bob@example.org",
             "--seed", "2")
    assert r.returncode == 0, r.stderr


def local_smtp(port: int) -> str:
    """pbem.toml's [mail] table for the test SMTP server on `port`."""
    return f'[mail]\nsmtp_host = "127.0.0.1"\nsmtp_port = {port}\nsecurity = "none"\nfrom = "orders@pbem.example"\n'


def steps(out: str) -> dict[str, str]:
    found = {}
    for line in out.splitlines():
        _, _, rest = line.partition(" ")
        name, sep, detail = rest.partition(": ")
        if sep and name in loop.STEPS:
            found[name] = detail
    return found


def test_a_second_run_stops_at_once_while_one_is_at_work(tmp_path):
    setup(tmp_path, "")
    with loop.run_lock(f"{tmp_path / 'pbem.db'}.run.lock"):
        started = time.monotonic()
        r = pbem(tmp_path, "run")
        took = time.monotonic() - started
    assert r.returncode == loop.BUSY_EXIT and r.stdout == ""
    assert r.stderr.startswith("pbem run: another `pbem run` is still at work (pid ") and r.stderr.count("\n") == 1
    assert str(os.getpid()) in r.stderr and took < 10
    assert pbem(tmp_path, "run").returncode == 0  # the lock is free again


def test_a_failing_step_is_reported_and_the_others_still_run(tmp_path):
    dead = free_port()
    setup(tmp_path, f"""
[imap]
host = "no-such-host.invalid"
username = "judge"
password_file = "{tmp_path / 'pw'}"

[mail]
smtp_host = "127.0.0.1"
smtp_port = {dead}
security = "none"
from = "Judge <orders@pbem.example>"
retries = 0
backoff = 0

[run]
publish_dir = "site"
""")
    (tmp_path / "pw").write_text("secret\n")
    r = pbem(tmp_path, "run")
    assert r.returncode == 1, r.stdout + r.stderr
    s = steps(r.stdout)
    assert s["fetch"].startswith("FAILED: ") and "cannot find the server 'no-such-host.invalid'" in s["fetch"]
    assert s["send"].startswith("FAILED: ") and "cannot connect" in s["send"] and "2 left queued" in s["send"]
    assert s["ingest"] == "no new messages" and s["resolve"] == "nothing due"
    assert "written" in s["publish"] and (tmp_path / "site" / "index.html").is_file()
    assert "Traceback" not in r.stdout + r.stderr
    # every line is stamped with the time, for the log
    assert all(line[:4].isdigit() and line[19] == "Z" for line in r.stdout.splitlines())


def test_nothing_to_do_costs_little_and_says_nothing_when_quiet(tmp_path):
    server = SmtpServer().start()
    try:
        setup(tmp_path, local_smtp(server.port) + '\n[run]\npublish_dir = "site"\n')
        first = pbem(tmp_path, "run")
        assert first.returncode == 0, first.stderr
        assert steps(first.stdout)["send"].startswith("2 sent") and len(server.messages) == 2
        second = pbem(tmp_path, "run")
        s = steps(second.stdout)
        assert s["send"] == "nothing to send" and s["publish"] == "nothing changed since the last publish"
        assert s["fetch"].startswith("skipped: ")
        quiet = pbem(tmp_path, "run", "-q")
        assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
        assert len(server.messages) == 2
    finally:
        server.stop()
    # with nothing queued, no SMTP connection is even tried: the server is gone and all is well
    again = pbem(tmp_path, "run", "-q")
    assert again.returncode == 0 and again.stdout == ""
    # a change (a rollback's new turn, here a resolved one) is published again
    assert pbem(tmp_path, "autoplay", "g1", "--max-phases", "1", "--force").returncode == 0
    after = pbem(tmp_path, "run", "--only", "publish")
    assert steps(after.stdout)["publish"].endswith("in " + str((tmp_path / "site").resolve()))
    assert "written" in after.stdout and "nothing changed" not in after.stdout


def test_only_and_skip_choose_the_steps(tmp_path):
    setup(tmp_path, "[run]\nsend = false\n")
    r = pbem(tmp_path, "run")
    assert "send" not in steps(r.stdout) and {"fetch", "ingest", "resolve", "remind", "publish"} <= set(steps(r.stdout))
    r = pbem(tmp_path, "run", "--only", "resolve", "--only", "remind")
    assert list(steps(r.stdout)) == ["resolve", "remind"]
    r = pbem(tmp_path, "run", "--skip", "fetch", "--skip", "publish")
    assert list(steps(r.stdout)) == ["ingest", "resolve", "remind"]
    r = pbem(tmp_path, "run", "--only", "bogus")
    assert r.returncode == 1 and "no step 'bogus'" in r.stderr


@pytest.mark.parametrize(("toml", "message"), [
    ("[run]\nbogus = 1\n", "[run] has no setting bogus"),
    ("[run]\nevery = \"soon\"\n", "every 'soon' is not a duration"),
    ("[run]\nfetch = \"yes\"\n", "[run] fetch must be true or false"),
    ("[imap]\nhost = \"x\"\nafter = \"burn\"\n", "[imap] after 'burn' is not one of move, flag"),
    ("[run\n", "pbem.toml"),
])
def test_bad_run_settings_give_one_clear_line(tmp_path, toml, message):
    """Each is said, and exits 1; the steps it does not concern still run (issue 17: a tester
    found `publish_dir = 5` stopping every game's turns and mail, the docs promising that only
    its step does nothing)."""
    setup(tmp_path, "")
    (tmp_path / "pbem.toml").write_text(toml)
    r = pbem(tmp_path, "run")
    assert r.returncode == 1 and message in r.stdout + r.stderr and "Traceback" not in r.stdout + r.stderr
    assert "resolve: " in r.stdout and "remind: " in r.stdout, r.stdout


def test_a_wrong_run_setting_stops_its_step_alone(tmp_path):
    """The tester's case: publish_dir = 5 with a turn due. The turn resolves, the publish step
    alone fails with the setting named; fixed, the next run publishes."""
    setup(tmp_path, "")
    (tmp_path / "pbem.toml").write_text("[run]\nfetch = false\nsend = false\npublish_dir = 5\nmaildir = 7\n")
    (tmp_path / "turns" / "g1" / "1" / "alice.txt").write_text("discard green\n")
    r = pbem(tmp_path, "run")
    found = steps(r.stdout)
    assert r.returncode == 1, r.stdout + r.stderr
    assert found["publish"].endswith("pbem.toml: [run] publish_dir must be text in quotes, not the number 5"), found
    assert "pbem.toml: [run] maildir must be text in quotes" in found["ingest"] and found["ingest"].startswith("FAILED"), found
    assert "g1 turn 1 resolved" in found["resolve"], found
    (tmp_path / "pbem.toml").write_text('[run]\nfetch = false\nsend = false\npublish_dir = "site"\n')
    r = pbem(tmp_path, "run")
    assert r.returncode == 0 and (tmp_path / "site" / "games" / "g1" / "index.html").is_file(), r.stdout


def test_watch_loops_and_stops_cleanly_on_sigterm(tmp_path):
    setup(tmp_path, "")
    proc = subprocess.Popen([PBEM, "run", "--watch", "--every", "1s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env_for(tmp_path), cwd=tmp_path)
    lines = []
    try:
        deadline = time.monotonic() + 60
        while sum(1 for line in lines if " publish: " in line) < 2 and time.monotonic() < deadline:
            lines.append(proc.stdout.readline())
        assert sum(1 for line in lines if " publish: " in line) == 2, lines  # two whole cycles
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.strip().splitlines()[-1].endswith("stopped (SIGTERM)") and "Traceback" not in err
    assert "watching: a run every 1s" in lines[0]
    # the lock is free after it
    assert pbem(tmp_path, "run", "-q").returncode == 0


def test_a_watcher_and_a_cron_run_never_overlap(tmp_path):
    """While a --watch service is between cycles a cron run may go; while it is at work the
    cron run stops at once. Whatever happens, both end cleanly."""
    setup(tmp_path, "")
    proc = subprocess.Popen([PBEM, "run", "--watch", "--every", "1s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env_for(tmp_path), cwd=tmp_path)
    try:
        codes = {pbem(tmp_path, "run", "-q").returncode for _ in range(6)}
        assert codes <= {0, loop.BUSY_EXIT}
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0


def test_backup_copies_a_store_in_use(tmp_path):
    setup(tmp_path, "")
    r = pbem(tmp_path, "backup", "backups/copy.db")
    assert r.returncode == 0, r.stderr
    assert "1 game" in r.stdout
    import sqlite3

    with sqlite3.connect(tmp_path / "backups" / "copy.db") as conn:
        assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
        assert conn.execute("select id from games").fetchall() == [("g1",)]
    assert (tmp_path / "backups" / "copy.db").stat().st_mode & 0o777 == 0o600  # the passwords: owner only
    again = pbem(tmp_path, "backup", "backups/copy.db")
    assert again.returncode == 1 and "exists" in again.stderr
    assert pbem(tmp_path, "backup", "backups/copy.db", "--force").returncode == 0
    r = pbem(tmp_path, "--db", "missing.db", "backup", "x.db")
    assert r.returncode == 1 and "no pbem store at missing.db" in r.stderr


def test_run_in_a_folder_without_a_store_says_so_and_creates_nothing(tmp_path):
    """A cron job started in the wrong folder must not idle unnoticed with a new empty store."""
    (tmp_path / "pbem.toml").write_text("[run]\n")  # the judge's settings are found; the store is not
    env = env_for(tmp_path)
    env.pop("PBEM_DB", None)
    r = subprocess.run([PBEM, "run"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 1 and "no store at pbem.db" in r.stderr, r.stderr
    assert not (tmp_path / "pbem.db").exists()


def test_a_game_that_cannot_be_resolved_does_not_stop_the_others(tmp_path):
    setup(tmp_path, "")
    for gid in ("g2", "g3"):
        r = pbem(tmp_path, "new", "gods", gid, "--player", "alice", "--player", "bob", "--seed", "2", "--every", "1h")
        assert r.returncode == 0, r.stderr
    import sqlite3

    with sqlite3.connect(tmp_path / "pbem.db") as conn:  # g2's stored position is damaged
        conn.execute("update phases set state = '{\"flow\": {}}' where game_id = 'g2'")
    env = env_for(tmp_path)
    env["PBEM_NOW"] = "2099-01-01T00:00:00Z"  # every deadline has passed
    r = subprocess.run([PBEM, "run", "--only", "resolve"], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=120, check=False)
    assert r.returncode == 1 and "Traceback" not in r.stdout + r.stderr
    line = steps(r.stdout)["resolve"]
    assert line.startswith("FAILED: g2: ") and "g3 turn 1 resolved" in line


def test_sigterm_lets_a_one_shot_run_finish_its_step_and_skip_the_rest(tmp_path, monkeypatch):
    """A shutdown or `systemctl stop` sends SIGTERM: the step at work finishes (a message being
    sent is sent and marked), the later steps are skipped, nothing is left half done."""
    import signal

    from pbem.host.store import open_db

    (tmp_path / "pbem.toml").write_text("")
    open_db(str(tmp_path / "pbem.db")).close()
    ran = []

    def ingest_then_terminated(db, ctx):
        os.kill(os.getpid(), signal.SIGTERM)  # arrives while this step is at work
        ran.append("ingest")
        return loop.Step("ingest", "done", "one message")

    monkeypatch.setitem(loop.RUNNERS, "ingest", ingest_then_terminated)
    monkeypatch.setitem(loop.RUNNERS, "resolve", lambda db, ctx: ran.append("resolve") or loop.Step("resolve", "done"))
    said = []
    before = signal.getsignal(signal.SIGTERM)
    result = loop.run_once_stoppable(str(tmp_path / "pbem.db"), only=["ingest", "resolve"], say=said.append,
                                     settings=loop.load_run_settings(str(tmp_path / "pbem.toml")))
    assert ran == ["ingest"] and result.stopped
    assert said[-1].startswith("stopped (SIGTERM)")
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is put back


def test_a_run_looks_at_the_turn_folders_once_however_many_games_are_due(tmp_path, monkeypatch):
    """pbem run resolves the due games one by one (so a stop is heard between two): the turn
    folders of every game are looked at, and missing report files restored, once a run --
    not once a due game, which on a host of many games made a run cost due x games."""
    from pbem.host import folders
    from pbem.host.store import open_db

    setup(tmp_path, "")
    for gid in ("g2", "g3", "g4"):
        r = pbem(tmp_path, "new", "gods", gid, "--player", "alice", "--player", "bob", "--seed", "2", "--every", "1h")
        assert r.returncode == 0, r.stderr
    (tmp_path / "turns" / "g4" / "1" / "reports" / "bob.txt").unlink()  # lost: restored by the run
    monkeypatch.setenv("PBEM_NOW", "2099-01-01T00:00:00Z")  # every deadline has passed
    scans = []
    real = folders.scan
    monkeypatch.setattr(folders, "scan", lambda db, turns: scans.append(turns) or real(db, turns))
    db = open_db(str(tmp_path / "pbem.db"))
    try:
        step = loop.RUNNERS["resolve"](db, {"turns": str(tmp_path / "turns"), "stop": lambda: False})
    finally:
        db.close()
    assert step.status == "done" and all(f"{g} turn 1 resolved" in step.detail for g in ("g2", "g3", "g4")), step
    assert len(scans) == 1, scans  # one for due_games and the restoring: not one more a game
    assert (tmp_path / "turns" / "g4" / "1" / "reports" / "bob.txt").is_file()


def test_publish_by_hand_writes_the_loops_site_with_the_loops_links(tmp_path):
    """A walk-through: `pbem publish --out site` after `pbem run` rewrote the feed and the
    calendars with relative links, and the next run made them absolute again. Without --out,
    publish goes to run's publish_dir with its base_url; elsewhere it stays relative."""
    setup(tmp_path, '[run]\npublish_dir = "site"\nbase_url = "https://judge.example/pbem/"\n')
    r = pbem(tmp_path, "publish")
    assert r.returncode == 0, r.stderr
    feed = (tmp_path / "site" / "games" / "g1" / "feed.atom").read_text()
    assert "https://judge.example/pbem/games/g1/" in feed
    r = pbem(tmp_path, "publish", "--out", tmp_path / "site")  # the same folder named: the same links
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("0 written"), r.stdout
    assert (tmp_path / "site" / "games" / "g1" / "feed.atom").read_text() == feed
    assert pbem(tmp_path, "publish", "--out", "elsewhere").returncode == 0
    assert "https://judge.example" not in (tmp_path / "elsewhere" / "games" / "g1" / "feed.atom").read_text()
    (tmp_path / "pbem.toml").write_text("")
    r = pbem(tmp_path, "publish")
    assert r.returncode == 2 and r.stderr.startswith("pbem: give --out DIR") and "Traceback" not in r.stderr, r.stderr
    (tmp_path / "pbem.toml").write_text("[run]\nbogus = 1\n")  # a [run] table pbem run refuses
    assert pbem(tmp_path, "publish", "--out", "elsewhere").returncode == 0  # does not stop a publish with --out
    r = pbem(tmp_path, "publish")
    assert r.returncode == 1 and "bogus" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_refused_publish_folder_is_named_as_the_gm_gave_it(tmp_path):
    """An attack found `pbem run` (and `pbem publish` without --out) saying "--out DIR already
    holds index.html" of a folder the GM gave as [run] publish_dir, with no --out anywhere:
    the refusal names the setting the folder came from."""
    setup(tmp_path, '[run]\npublish_dir = "site"\nfetch = false\nsend = false\n')
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("MY HOMEPAGE\n")
    r = pbem(tmp_path, "run")
    line = next(x for x in r.stdout.splitlines() if " publish: " in x)
    assert "FAILED: the publish folder site already holds index.html" in line and "--out" not in line, r.stdout
    r = pbem(tmp_path, "publish")
    assert r.returncode == 1 and "--out" not in r.stderr, r.stderr
    assert "pbem: the publish folder site (publish_dir in pbem.toml) already holds index.html" in r.stderr
    r = pbem(tmp_path, "publish", "--out", "site")
    assert r.returncode == 1 and "pbem: --out site already holds index.html" in r.stderr, r.stderr
    assert (tmp_path / "site" / "index.html").read_text() == "MY HOMEPAGE\n"


def test_a_run_whose_every_message_is_refused_fails(tmp_path):
    """A walk-through: `pbem run` exited 0 when the server refused every message for good
    (5xx), each set aside -- a relay that will not take the judge's mail needs the GM. One
    refused address among messages sent is the player's, not a failed run."""
    server = SmtpServer().start()
    try:
        setup(tmp_path, local_smtp(server.port))
        server.faults.refuse |= {"alice@example.org", "bob@example.org"}
        r = pbem(tmp_path, "run", "--only", "send")
        assert r.returncode == 1, r.stdout + r.stderr
        assert steps(r.stdout)["send"].startswith("FAILED: 0 sent, 2 set aside (failed)"), r.stdout
        assert "every message was refused" in r.stdout and "Traceback" not in r.stdout + r.stderr
        assert pbem(tmp_path, "new", "gods", "g2", "--player", "carol:carol@example.org", "--player",
                    "bob:bob@example.org", "--seed", "2").returncode == 0
        r = pbem(tmp_path, "run", "--only", "send")
        assert r.returncode == 0 and steps(r.stdout)["send"].startswith("1 sent, 1 set aside (failed)"), r.stdout
    finally:
        server.stop()


def test_pbem_toml_mistakes_are_said_in_the_gms_words(tmp_path):
    """A tester found `smtp_port = "abc"` answered "mail settings: invalid literal for int() with
    base 10: 'abc'" and a pbem.toml saved as UTF-16 (or with one Latin-1 byte) stopping every
    command with "internal error: UnicodeDecodeError"."""
    setup(tmp_path, "")
    (tmp_path / "pbem.toml").write_text('[mail]\nsmtp_port = "abc"\nfrom = "gm@example.org"\n[imap]\nport = "x"\n')
    r = pbem(tmp_path, "send")
    assert r.returncode == 1 and r.stderr.endswith("pbem.toml: [mail] smtp_port must be a number, not 'abc'\n"), r.stderr
    r = pbem(tmp_path, "run")
    found = steps(r.stdout)
    assert found["send"].endswith("pbem.toml: [mail] smtp_port must be a number, not 'abc'"), found
    assert found["fetch"].endswith("pbem.toml: [imap] port must be a number, not 'x'"), found
    (tmp_path / "pbem.toml").write_bytes('[mail]\nfrom = "gm@example.org"\n'.encode("utf-16"))
    for args in (("send",), ("run",)):
        r = pbem(tmp_path, *args)
        assert r.returncode == 1 and "internal error" not in r.stdout + r.stderr, r.stdout + r.stderr
        assert "pbem.toml is not UTF-8 text (byte 0xff at offset 0): save it as UTF-8" in r.stdout + r.stderr
    assert "resolve: " in r.stdout  # pbem run goes on with what needs no pbem.toml
