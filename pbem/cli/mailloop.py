"""The unattended mail loop: fetch from IMAP, and `pbem run` (fetch, ingest, resolve, remind,
send, publish); `pbem backup` copies the store while it is in use. See docs/hosting.md."""

import os
# ruff: noqa: B008  (typer declares parameters with typer.Option/Argument defaults)


import typer

from pbem.cli import _fail, _store, app, settings
from pbem.core.words import plural


def _stamp(line: str) -> str:
    from datetime import UTC, datetime

    return f"{datetime.now(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')} {line}"


def _use_config(config: str | None) -> None:
    """--config FILE is what every layer reads (the guard looks up the GM's address there)."""
    import os

    if config:
        os.environ["PBEM_CONFIG"] = config


@app.command(short_help="Read new mail from the IMAP mailbox, each message exactly once.")
def fetch(
    config: str | None = typer.Option(None, "--config", envvar="PBEM_CONFIG", metavar="FILE", help="pbem.toml with an [imap] table (default ./pbem.toml)."),
    ingest: bool = typer.Option(True, "--ingest/--no-ingest", help="Also process what was fetched (the default), as `pbem ingest` does."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the summary lines."),
) -> None:
    """Read new messages from the IMAP folder of pbem.toml's [imap] table into the store, then
    (unless --no-ingest) take the orders in them and queue the acknowledgements.

    Each message is stored with its UID in one transaction and only then moved to the
    processed folder (or flagged), so an interrupted fetch neither loses nor doubles one. The
    password comes from password_file or PBEM_IMAP_PASSWORD, never from pbem.toml.

    Example: pbem fetch && pbem resolve --all && pbem send
    """
    from pbem.mail import fetch as mail_fetch
    from pbem.mail import ingest as mail_in
    from pbem.mail.settings import load_imap_settings

    _use_config(config)
    imap = load_imap_settings(config)
    if not imap.configured:
        _fail("no IMAP server configured: add an [imap] table with host, username and password_file to pbem.toml "
              "(see docs/hosting.md)")
    db = _store()
    result = mail_fetch.fetch(db, imap)
    typer.echo(f"fetch: {result.summary()} from {imap.describe()}")
    if not ingest:
        left = mail_fetch.pending(db)
        if left:
            typer.echo(f"{left} fetched message(s) wait to be processed (`pbem fetch` or `pbem run` processes them)")
        return

    def show(r) -> None:
        if not quiet:
            typer.echo(r.line())

    tally = mail_fetch.ingest_fetched(db, mail_in.own_address_from_env(config), on_result=show, turns=settings.turns)
    typer.echo(tally.summary())


@app.command(short_help="One whole mail cycle: fetch, ingest, resolve, remind, send, publish.")
def run(
    config: str | None = typer.Option(None, "--config", envvar="PBEM_CONFIG", metavar="FILE", help="pbem.toml (default ./pbem.toml): [imap], [mail] and [run] tables."),
    only: list[str] = typer.Option(None, "--only", metavar="STEP", help="Run only this step (repeatable): fetch, ingest, resolve, remind, send, publish."),
    skip: list[str] = typer.Option(None, "--skip", metavar="STEP", help="Leave out this step (repeatable)."),
    publish_dir: str | None = typer.Option(None, "--publish-dir", metavar="DIR", help="Publish the site here (default: [run] publish_dir)."),
    watch: bool = typer.Option(False, "--watch", help="Keep running: a cycle every --every, until SIGTERM or Ctrl-C."),
    every: str | None = typer.Option(None, "--every", metavar="DURATION", help="With --watch: time between cycles, e.g. 60s, 5m; at most 8784h (default [run] every, else 60s)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the steps that did something or failed (cron mails nothing on a quiet run)."),
) -> None:
    """Run the whole cycle once: fetch new mail (IMAP), ingest it, resolve what is due, send
    reminders, send the outbox (SMTP), publish the site. Safe to start every minute: a second
    run while one is at work stops at once (exit 75); a step that fails is reported and the
    others still run (exit 1). Each step can be turned off in pbem.toml's [run] table.

    Example: pbem run --quiet        (crontab: * * * * * cd ~/judge && pbem run -q)
    """
    from pbem.mail import run as loop

    def publish(*args, **kwargs):  # the site's code is imported only when a run publishes
        from pbem.site.publish import publish as publish_site

        return publish_site(*args, **kwargs)

    _use_config(config)
    run_settings = loop.load_run_settings(config, lenient=True)  # a wrong setting stops its step alone
    from pbem.host.store import db_path

    db_file = db_path(settings.db)
    if not os.path.exists(db_file):  # a cron job started in the wrong folder must not idle unnoticed
        _fail(f"no store at {db_file}: run `pbem run` in the judge's folder (where pbem.db is), "
              "or name the store with --db or PBEM_DB")

    def say(line: str) -> None:
        typer.echo(_stamp(line))

    kwargs = {"config": config, "turns": settings.turns, "only": only or None, "skip": skip or None,
              "publish_dir": publish_dir, "settings": run_settings, "publisher": publish, "quiet": quiet,
              "say_detail": None if quiet else say}
    if watch:
        seconds = loop.parse_every(every) if every else run_settings.every
        raise typer.Exit(loop.run_watch(db_file, seconds, say=say, **kwargs))
    if every:
        _fail("--every goes with --watch", 2)
    try:
        result = loop.run_once_stoppable(db_file, say=say, **kwargs)
    except loop.Busy as err:
        typer.echo(f"pbem run: {err}", err=True)
        raise typer.Exit(loop.BUSY_EXIT) from None
    if result.failed or result.problems:  # a wrong setting: the run went on, but the GM must look
        raise typer.Exit(1)


@app.command(short_help="Copy the store safely while pbem is running (SQLite online backup).")
def backup(
    file: str = typer.Argument(..., metavar="FILE", help="Where to write the copy (a new file; --force replaces one)."),
    force: bool = typer.Option(False, "--force", help="Replace FILE if it exists."),
) -> None:
    """Copy the store to FILE with SQLite's online backup: consistent even while `pbem run`
    or a player's mail is being processed. The copy is checked (integrity_check) and only
    then put in place, so FILE is never a half-written store. FILE may not be the store (not
    even with --force), nor SQLite's -wal, -shm or -journal file beside it.

    Example: pbem backup backups/pbem-$(date +%F).db
    """
    import os
    import sqlite3
    from pathlib import Path

    from pbem.host.store import db_path

    source = db_path(settings.db)
    if source == ":memory:" or not Path(source).is_file():
        _fail(f"no pbem store at {source}")
    target = Path(file)
    if target.exists() and target.resolve() == Path(source).resolve():  # finding 13: said first, --force or not
        _fail(f"{file} is the store itself: a backup cannot replace it (not even with --force); give another name")
    if target.exists() and not force:
        _fail(f"{file} exists; give another name, or --force to replace it")
    store = Path(source).resolve()
    for suffix in ("-wal", "-shm", "-journal"):  # issue 17: SQLite's files beside the store: it deletes them
        if target.resolve() == store.with_name(store.name + suffix):
            _fail(f"{file} is the store's own {suffix} file (SQLite's, beside {store.name}): the next pbem command "
                  f"would delete the copy; give another name")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # the players' passwords: owner only
    src = sqlite3.connect(f"file:{Path(source).resolve()}?mode=ro", uri=True)
    try:
        src.execute("PRAGMA busy_timeout = 30000")
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst, pages=1024)
            dst.execute("PRAGMA journal_mode = DELETE")  # a single self-contained file
            check = dst.execute("PRAGMA integrity_check").fetchone()[0]
            games = dst.execute("select count(*) from games").fetchone()[0] if dst.execute(
                "select 1 from sqlite_master where name = 'games'").fetchone() else 0
        finally:
            dst.close()
    except sqlite3.DatabaseError as err:
        partial.unlink(missing_ok=True)
        _fail(f"cannot back up {source}: {err}")
    finally:
        src.close()
    if check != "ok":
        partial.unlink(missing_ok=True)
        _fail(f"the copy failed its integrity check ({check}); {source} is unchanged, nothing written")
    os.replace(partial, target)
    typer.echo(f"backed up {source} to {target} ({target.stat().st_size} bytes, {plural(games, 'game')}); "
               "restore by copying it back while pbem is stopped")
