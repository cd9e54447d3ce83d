"""`pbem run`: the whole mail cycle, unattended -- fetch, ingest, resolve, remind, send,
publish -- safe to start every minute from cron or a systemd timer.

- **One run at a time.** A run holds an exclusive lock (`flock`) on `STORE.run.lock` beside
  the store; a second run that finds it taken stops at once with one line (exit 75,
  EX_TEMPFAIL). The kernel drops the lock when a run dies, even by SIGKILL: there is never a
  stale lock to clear.
- **Each step optional**, by the `[run]` table of pbem.toml (`fetch = false`, ...) or
  `--only`/`--skip`; a step with nothing configured (no [imap] host, no from address, no
  publish_dir) is skipped with a note.
- **Every step's failure is reported, and the others still run**: a mail server that is down
  does not stop resolving, a game whose turn cannot be resolved does not stop the others.
  The exit status is 1 when a step failed.
- **Cheap when there is nothing to do**: one IMAP login and SEARCH, a few indexed queries, no
  SMTP connection unless mail is queued, and no publishing unless a game changed since the
  last publish (a fingerprint of the games, events and press kept in `run_state`).
- `run_watch` loops (`pbem run --watch --every 60s`) and stops cleanly on SIGTERM or SIGINT:
  the step under way finishes, the next ones are not started.

Every line printed starts with the time (UTC), so cron's mail and the journal read as a log.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import re
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pbem.core.errors import PbemError
from pbem.core.words import plural
from pbem.host import deadline
from pbem.host import schedule
from pbem.mail.settings import check_types, config_table

log = logging.getLogger("pbem.mail")

STEPS = ("fetch", "ingest", "resolve", "remind", "send", "publish")
BUSY_EXIT = 75  # EX_TEMPFAIL: another run holds the lock


@dataclass
class RunSettings:
    """The [run] table of pbem.toml."""

    steps: dict[str, bool | None] = field(default_factory=lambda: dict.fromkeys(STEPS))  # None: on when configured
    publish_dir: str | None = None
    base_url: str | None = None
    maildirs: list[str] = field(default_factory=list)  # also ingest these local mailboxes (Maildir, mbox)
    every: float = 60.0
    lock_file: str | None = None
    # issue 17 (lenient): a setting of the wrong kind, by the step it stops ("" for none: said
    # as a warning, the default used); the other steps run
    problems: dict[str, str] = field(default_factory=dict)


RUN_KEYS = (*STEPS, "publish_dir", "base_url", "maildir", "every", "lock_file")


def parse_every(value) -> float:
    """'60s', '5m', '1h', '90' (seconds) -> seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h)?\s*", str(value or ""), re.IGNORECASE)
        if not m:
            raise PbemError(f"every '{value}' is not a duration: write e.g. 60s, 5m or 1h")
        seconds = float(m.group(1)) * {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}[(m.group(2) or "").lower()]
    if seconds < 1:
        raise PbemError(f"every '{value}' is too short: at least 1s")
    if seconds > MAX_EVERY_SECONDS:  # issue 17: the next cycle's time must fit in a date
        raise PbemError(f"every '{value}' is too long: the largest allowed is {MAX_EVERY_SECONDS // 3600}h (a year)")
    return seconds


MAX_EVERY_SECONDS = 366 * 24 * 3600


# the step a [run] setting of the wrong kind stops (lenient): "" for none (said, the default used)
_STOPS = {**{step: step for step in STEPS}, "publish_dir": "publish", "base_url": "publish", "maildir": "ingest",
          "every": "", "lock_file": ""}


def load_run_settings(config: str | None = None, lenient: bool = False) -> RunSettings:
    """The [run] table. A setting of the wrong kind (or unknown) is refused (PbemError), or with
    `lenient` (pbem run: one typo must not stop every game's turns and mail, issue 17) kept in
    `problems` by the step it stops, the others' settings read as usual."""
    s = RunSettings()
    try:
        table, path = config_table("run", config)
    except PbemError as err:  # the file cannot be read at all: each step that needs it says so itself
        if not lenient:
            raise
        s.problems[""] = f"{err}; its [run] table is not read"
        return s

    def problem(key: str, why: str) -> None:
        if not lenient:
            raise PbemError(why)
        where = _STOPS.get(key, "")
        s.problems[where] = f"{s.problems[where]}; {why}" if where in s.problems else why

    unknown = sorted(set(table) - set(RUN_KEYS))
    if unknown:
        problem("", f"{path}: [run] has no setting {', '.join(unknown)} (known: {', '.join(RUN_KEYS)}): ignored")
    kinds = {"publish_dir": {"strings": ("publish_dir",)}, "base_url": {"strings": ("base_url",)},
             "lock_file": {"strings": ("lock_file",)}, "every": {"numbers": ("every",)}, "maildir": {"lists": ("maildir",)}}
    good = {k: v for k, v in table.items() if k not in unknown}
    for key, kind in kinds.items():
        try:
            check_types(table, path, "run", **kind)
        except PbemError as err:
            problem(key, str(err))
            good.pop(key, None)
    for step in STEPS:
        if step in good:
            if not isinstance(good[step], bool):
                problem(step, f"{path}: [run] {step} must be true or false")
                continue
            s.steps[step] = good[step]
    s.publish_dir = good.get("publish_dir") or os.environ.get("PBEM_PUBLISH_DIR") or None
    s.base_url = good.get("base_url")
    dirs = good.get("maildir", [])
    s.maildirs = [dirs] if isinstance(dirs, str) else list(dirs)
    try:
        s.every = parse_every(good.get("every", 60))
    except PbemError as err:
        problem("every", f"{path}: [run] {err}" + ("; 60s used" if lenient else ""))
    s.lock_file = good.get("lock_file")
    return s


# --- the lock --------------------------------------------------------------------------------------

class Busy(PbemError):
    """Another run holds the lock."""


@contextlib.contextmanager
def run_lock(path: str | Path):
    """Hold the run lock for the block; Busy when another process holds it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = ""
            with contextlib.suppress(OSError):
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
            raise Busy(f"another `pbem run` is still at work ({holder or 'lock ' + str(path)}); this one stops") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {schedule.iso(schedule.now())}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def lock_path(db_file: str, settings: RunSettings) -> Path:
    if settings.lock_file:
        return Path(settings.lock_file).expanduser()
    if db_file == ":memory:":
        return Path(".pbem-run.lock")
    return Path(f"{db_file}.run.lock")


# --- the steps -------------------------------------------------------------------------------------

@dataclass
class Step:
    name: str
    status: str  # done | idle | skipped | failed | stopped (a fetch or connection cut short by SIGTERM)
    detail: str = ""

    def line(self) -> str:
        mark = {"failed": "FAILED: ", "skipped": "skipped: ", "stopped": "cut short: "}.get(self.status, "")
        return f"{self.name}: {mark}{self.detail}"


@dataclass
class RunResult:
    steps: list[Step] = field(default_factory=list)
    stopped: bool = False

    problems: str = ""  # a setting of the wrong kind that stopped no step (said as a warning)

    @property
    def failed(self) -> list[Step]:
        return [s for s in self.steps if s.status == "failed"]


def _fetch(db, ctx: dict) -> Step:
    from pbem.mail.settings import load_imap_settings

    imap = load_imap_settings(ctx["config"])
    if not imap.configured:
        return Step("fetch", "skipped", "no IMAP server configured ([imap] host in pbem.toml)")
    from pbem.mail import fetch as mail_fetch
    result = mail_fetch.fetch(db, imap)
    return Step("fetch", "done" if result.stored or result.already or result.notes else "idle", result.summary())


def _ingest(db, ctx: dict) -> Step:
    from pbem.mail import fetch as mail_fetch
    from pbem.mail import ingest as mail_in

    own = mail_in.own_address_from_env(ctx["config"])
    say = ctx["say_detail"]
    tally = mail_fetch.ingest_fetched(db, own, on_result=lambda r: say(f"  {r.line()}"), turns=ctx["turns"])
    extra = ""
    if ctx["run"].maildirs:
        paths = [str(Path(p).expanduser()) for p in ctx["run"].maildirs]
        local = mail_in.ingest(db, paths, own_address=own, turns=ctx["turns"],
                               on_result=lambda r: r.outcome != "seen" and say(f"  {r.line()}"))
        tally.results += local.new
        extra = f" (with {', '.join(ctx['run'].maildirs)})"
    if not tally.new:
        return Step("ingest", "idle", "no new messages" + extra)
    return Step("ingest", "done", tally.summary().split(";")[0] + extra)


def _resolve(db, ctx: dict) -> Step:
    from pbem import host
    from pbem.host import folders

    done, failed = [], []
    warnings: dict[str, str] = {}  # report files that could not be written: the store has the turn
    found = folders.scan(db, ctx["turns"])  # one look at the turn folders a run, for both
    due = host.due_games(db, ctx["turns"], found)
    # the missing report files of every game, once a run (each resolve below is told not to)
    host.restore_report_files(db, ctx["turns"], warnings, found)
    if due:  # the report renderer, for the turns that open (imported only when there is one)
        from pbem import render

        render.install()
    for game_id in due:
        if ctx["stop"]():
            break
        try:
            for r in host.resolve(db, [game_id], turns=ctx["turns"], warnings=warnings, restore=False):
                if r.outcome == "error":  # a host that reports a game it could not resolve
                    failed.append(f"{game_id}: {r.detail}")
                elif r.outcome in ("resolved", "finished") and r.detail != "the game is over":
                    done.append(f"{r.game_id} turn {r.turn} {'resolved' if r.outcome == 'resolved' else 'finished'}")
                if r.warning:
                    warnings[r.game_id] = r.warning
        except PbemError as err:
            failed.append(f"{game_id}: {err}")
        except Exception as err:
            log.debug("resolve %s", game_id, exc_info=True)  # PBEM_DEBUG shows it; no traceback for the GM
            failed.append(f"{game_id}: internal error: {type(err).__name__}: {err}")
    done += [f"warning: {gid}: {why}" for gid, why in warnings.items()]
    if failed:
        return Step("resolve", "failed", "; ".join(failed) + (f" (and {', '.join(done)})" if done else ""))
    return Step("resolve", "done" if done else "idle", ", ".join(done) if done else "nothing due")


def _remind(db, ctx: dict) -> Step:
    try:
        from pbem.host.controls import remind
    except ImportError:
        return Step("remind", "skipped", "reminders are not available in this version (pbem.host.controls.remind)")
    queued = remind(db)
    if not queued:
        return Step("remind", "idle", "no reminder due")
    return Step("remind", "done", f"{plural(len(queued), 'reminder')} queued")


def _send(db, ctx: dict) -> Step:
    from pbem.mail.settings import load_settings

    settings = load_settings(ctx["config"])
    if not settings.sender:
        queued = db.execute("select count(*) from outbox where status = 'queued'").fetchone()[0]
        return Step("send", "skipped", f"no from address configured ([mail] from in pbem.toml); {queued} queued")
    if not db.execute("select 1 from outbox where status in ('queued', 'sending') limit 1").fetchone():
        return Step("send", "idle", "nothing to send")  # not even the mail code is loaded
    from pbem.mail import send as mail_out

    result = mail_out.send(db, settings)
    for oid, why in result.failed:
        ctx["say_detail"](f"  message {oid} set aside: {why}")
    parts = [f"{len(result.sent)} sent"]
    if result.failed:
        parts.append(f"{len(result.failed)} set aside (failed)")
    if result.deferred:
        parts.append(f"{len(result.deferred)} deferred")
    if result.error:
        return Step("send", "failed", f"{result.error} ({', '.join(parts)}; {result.left} left queued for the next run)")
    if not (result.sent or result.failed or result.deferred):
        return Step("send", "idle", "nothing to send")
    if result.failed and not result.sent:  # every recipient refused for good: the relay, not the players
        return Step("send", "failed", ", ".join(parts) + f" via {settings.describe()}: every message was refused "
                                      "(does the server take mail from this sender? `pbem status` lists them; "
                                      "`pbem send --retry-failed` sends them again)")
    return Step("send", "done", ", ".join(parts) + f" via {settings.describe()}")


def fingerprint(db) -> str:
    """What the published site depends on, cheaply: every game row, and the size and last row
    of the tables whose rows appear on the site."""
    h = hashlib.sha256()
    for row in db.execute("select * from games order by id").fetchall():
        h.update(repr(tuple(row)).encode())
    tables = [r[0] for r in db.execute(
        "select name from sqlite_master where type = 'table' and (name in ('events', 'phases', 'announcements') "
        "or name like 'press%') order by name").fetchall()]
    for name in tables:
        h.update(f"{name}:{db.execute(f'select count(*), max(rowid) from [{name}]').fetchone()}".encode())
    return h.hexdigest()


def _publish(db, ctx: dict) -> Step:
    out = ctx["publish_dir"]
    if not out:
        return Step("publish", "skipped", "no publish_dir configured ([run] publish_dir in pbem.toml)")
    publish = ctx["publisher"]
    if publish is None:  # the site is a sibling layer: the caller (the CLI) hands it in
        return Step("publish", "skipped", "no site publisher given")
    key = f"publish:{Path(out).expanduser().resolve()}"
    mark = fingerprint(db)
    row = db.execute("select value from run_state where key = ?", [key]).fetchone()
    folder = Path(out).expanduser()
    if row and row[0] == mark and folder.is_dir() and any(folder.iterdir()):
        return Step("publish", "idle", "nothing changed since the last publish")
    result = publish(db, str(Path(out).expanduser()), base_url=ctx["run"].base_url,
                     named=f"the publish folder {out}")
    with db.atomic():
        db.execute("insert or replace into run_state (key, value, at) values (?, ?, ?)",
                   [key, mark, schedule.iso(schedule.now())])
    trusted = f"{result.trusted} not looked at (nothing new), " if result.trusted else ""
    return Step("publish", "done", f"{len(result.written)} written, {len(result.unchanged)} unchanged, {trusted}"
                                   f"{len(result.removed)} removed in {result.out}")


RUNNERS: dict[str, Callable[[object, dict], Step]] = {
    "fetch": _fetch, "ingest": _ingest, "resolve": _resolve, "remind": _remind, "send": _send, "publish": _publish,
}


def chosen_steps(settings: RunSettings, only: list[str] | None = None, skip: list[str] | None = None) -> list[str]:
    for word in (only or []) + (skip or []):
        if word not in STEPS:
            raise PbemError(f"no step '{word}': the steps are {', '.join(STEPS)}")
    if only:
        return [s for s in STEPS if s in only]
    return [s for s in STEPS if settings.steps.get(s) is not False and s not in (skip or [])]


def run_once(db_file: str, *, config: str | None = None, turns: str = "turns", only: list[str] | None = None,
             skip: list[str] | None = None, publish_dir: str | None = None, say: Callable[[str], None] = print,
             say_detail: Callable[[str], None] | None = None, stop: Callable[[], bool] = lambda: False,
             settings: RunSettings | None = None, publisher: Callable | None = None, quiet: bool = False) -> RunResult:
    """One cycle under the lock (Busy when another run holds it). Each step reports one line
    through `say`; `say_detail` gets a line per message ingested or set aside. `publisher`
    is pbem.site.publish.publish (the site is not the mail layer's to import). `quiet`: only
    the steps that did something or failed are said."""
    from pbem.host.store import open_db

    settings = settings or load_run_settings(config, lenient=True)
    steps = chosen_steps(settings, only, skip)
    result = RunResult()
    with run_lock(lock_path(db_file, settings)):
        db = open_db(db_file)
        try:
            ctx = {"config": config, "turns": turns, "run": settings, "publish_dir": publish_dir or settings.publish_dir,
                   "say_detail": say_detail or (lambda line: None), "stop": stop, "publisher": publisher}
            if "" in settings.problems:
                result.problems = settings.problems[""]
                say(f"warning: {result.problems}")
            for name in steps:
                if stop():
                    result.stopped = True
                    break
                try:
                    if name in settings.problems:  # a setting of this step is of the wrong kind: it alone stops
                        raise PbemError(settings.problems[name])
                    step = RUNNERS[name](db, ctx)
                except PbemError as err:
                    # an exchange ended by the stop asked for (deadline.Stopped) is no failure
                    step = Step(name, "stopped" if stop() and deadline.stop_asked() else "failed", str(err))
                except Exception as err:
                    log.debug("step %s", name, exc_info=True)
                    step = Step(name, "failed", f"internal error: {type(err).__name__}: {err} (set PBEM_DEBUG=1 for details)")
                    if os.environ.get("PBEM_DEBUG"):
                        log.exception("step %s", name)
                finally:
                    if db.conn.in_transaction:  # a step that failed halfway leaves nothing open
                        db.conn.execute("ROLLBACK")
                result.steps.append(step)
                if not quiet or step.status in ("done", "failed", "stopped"):
                    say(step.line())
        finally:
            db.close()
    return result


def run_once_stoppable(db_file: str, *, say: Callable[[str], None] = print, **kwargs) -> RunResult:
    """`run_once` for cron or a systemd timer: SIGTERM (a shutdown, `systemctl stop`) lets the
    step at work finish (a message being sent is sent and marked) and skips the rest."""
    stopping = threading.Event()

    def handler(signum, frame):
        stopping.set()
        deadline.stop_exchange("SIGTERM")  # a fetch or a connection at work ends now

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        result = run_once(db_file, say=say, stop=stopping.is_set, **kwargs)
    finally:
        signal.signal(signal.SIGTERM, previous)
        deadline.stops_ended()
    if stopping.is_set():
        cut = [s.name for s in result.steps if s.status == "stopped"]
        say(f"stopped (SIGTERM): {cut[0]} was cut short (what it had stored is kept), the rest skipped" if cut
            else "stopped (SIGTERM): the step at work was finished, the rest skipped")
    return result


def run_watch(db_file: str, every: float, *, say: Callable[[str], None] = print, **kwargs) -> int:
    """Run a cycle every `every` seconds until SIGTERM or SIGINT (then return 0)."""
    stopping = threading.Event()
    got: list[str] = []

    def handler(signum, frame):
        got.append(signal.Signals(signum).name)
        stopping.set()
        deadline.stop_exchange(got[0])  # a fetch or a connection at work ends now

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}
    say(f"watching: a run every {every:g}s (SIGTERM or Ctrl-C stops)")
    try:
        while not stopping.is_set():
            started = time.monotonic()
            try:
                run_once(db_file, say=say, stop=stopping.is_set, **kwargs)
            except Busy as err:
                say(f"waiting: {err}")
            except PbemError as err:
                say(f"FAILED: {err}")
            except Exception as err:  # noqa: BLE001 - the service goes on to the next cycle
                say(f"FAILED: internal error: {type(err).__name__}: {err}")
            spent = time.monotonic() - started
            stopping.wait(max(0.0, every - spent))
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)
        deadline.stops_ended()
    say(f"stopped ({got[0] if got else 'done'})")
    return 0
