"""The `pbem` command. Each command opens the store, calls one library function in
pbem.host, and turns domain errors into a clean message (exit 1), never a traceback."""

import itertools
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.core import TyperGroup

from pbem.core.errors import PbemError
from pbem.core.words import plural


def _flag(value) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in ("1", "true", "t", "yes", "y", "on"):
        return True
    if word in ("0", "false", "f", "no", "n", "off", ""):
        return False
    raise ValueError(value)


_PLAIN = {str: (str, "text"), int: (int, "integer"), float: (float, "number"), bool: (_flag, "boolean")}


def _plain_parameters() -> None:
    """Coerce plain parameters without pydantic.

    Typer 0.29 coerces every parameter value through a pydantic TypeAdapter, and importing
    pydantic costs more than all of typer: every command would pay it. pbem's parameters are
    all plain -- str, int, float or bool, optional or repeated -- so those are converted
    directly here, and anything else is left to typer. Only typer's own hooks are used, and
    only when they are there: with another typer, pbem is merely slower, never wrong (typer is
    bounded to 0.29 in pyproject.toml, and tests/test_cli_installed.py runs the real command).
    """
    from typing import get_args, get_origin

    try:
        from typer import core as typer_core
        from typer._click.exceptions import BadParameter
        from typer._coercion import RuntimeParam
    except ImportError:
        return
    parameter = getattr(typer_core, "_TyperParameter", None)
    if parameter is None or not hasattr(parameter, "get_runtime_param"):
        return

    def plain(annotation):
        """(convert, name, repeated) for a plain annotation, else None."""
        origin, args = get_origin(annotation), get_args(annotation)
        repeated = origin in (list, List)
        if repeated or (args and type(None) in args):
            inner = [a for a in args if a is not type(None)]
            if len(inner) != 1:
                return None
            annotation = inner[0]
        if annotation in _PLAIN:
            return (*_PLAIN[annotation], repeated)
        return None

    class PlainParam(RuntimeParam):
        def _coerce_value(self, value, param, ctx):
            convert, name, repeated = plain(self.annotation)
            try:
                return [convert(v) for v in value] if repeated else convert(value)
            except (TypeError, ValueError):
                raise BadParameter(f"{value!r} is not a valid {name}.", ctx=ctx, param=param) from None

    original = parameter.get_runtime_param

    def get_runtime_param(self):
        if getattr(self, "_runtime_param", None) is None:
            desc = getattr(self, "type_descriptor", None)
            if desc is not None and getattr(desc, "file_annotation", None) is None and plain(desc.annotation):
                self._runtime_param = PlainParam(parameter_info=desc.parameter_info, annotation=desc.annotation)
        return original(self)

    parameter.get_runtime_param = get_runtime_param


_plain_parameters()


def _is_usage_error(err: Exception) -> bool:
    """A click usage error (no such option, missing argument, bad value...), which click itself
    reports with the usage line and exit 2. Typer 0.29 carries its own copy of click
    (`typer._click`), so the class is recognised by name and not by identity."""
    return any(cls.__name__ == "ClickException" and cls.__module__.split(".")[0] in ("click", "typer")
               for cls in type(err).__mro__)


class PbemGroup(TyperGroup):
    """Turns domain errors into one clean line (exit 1) and anything unexpected into a short
    note (exit 70): no traceback reaches a user unless PBEM_DEBUG is set."""

    def invoke(self, ctx):
        if os.environ.get("PBEM_DEBUG"):  # pbem's own debug log (tracebacks of what was set aside) on stderr
            import logging

            logging.basicConfig(format="pbem: debug: %(name)s: %(message)s")
            logging.getLogger("pbem").setLevel(logging.DEBUG)
        try:
            return super().invoke(ctx)
        except PbemError as err:
            typer.echo(f"pbem: {err}", err=True)
            raise typer.Exit(1) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt, BrokenPipeError):
            raise
        except OSError as err:  # the machine said no (a full disk, a missing folder): not a bug of ours
            where = f" ({err.filename})" if getattr(err, "filename", None) else ""
            typer.echo(f"pbem: {err.strerror or err}{where}", err=True)
            raise typer.Exit(1) from None
        except Exception as err:
            if _is_usage_error(err) or os.environ.get("PBEM_DEBUG"):
                raise  # click prints the usage and exits 2
            from pbem.host.store import db_path, explain_error

            said = explain_error(err, db_path(settings.db))  # the disk or the store said no (full, read-only...)
            if said:
                typer.echo(f"pbem: {said}", err=True)
                raise typer.Exit(1) from None
            typer.echo(f"pbem: internal error: {type(err).__name__}: {err} (set PBEM_DEBUG=1 for details)", err=True)
            raise typer.Exit(70) from None


app = typer.Typer(
    cls=PbemGroup,
    name="pbem",
    help="pbem: a play-by-email adjudicator for GODS and other god-themed board games.\n\n"
    "The store is ./pbem.db (--db or PBEM_DB to change it); order files and reports live "
    "under ./turns (--turns or PBEM_TURNS).",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Settings:
    db: Optional[str] = None
    turns: str = "turns"


settings = Settings()


def _version(wanted: bool) -> None:
    if not wanted:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        typer.echo(f"pbem {version('pbem')}")
    except PackageNotFoundError:
        typer.echo("pbem (not installed)")
    raise typer.Exit(0)


@app.callback()
def _global(
    db: Optional[str] = typer.Option(None, "--db", envvar="PBEM_DB", metavar="FILE", help="SQLite store (default ./pbem.db)."),
    turns: str = typer.Option("turns", "--turns", envvar="PBEM_TURNS", metavar="DIR", help="Folder of order files and reports."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=lambda v: _version(v),
                                 help="Print pbem's version and exit."),
) -> None:
    settings.db = db
    settings.turns = turns


def _store():
    from pbem.host.store import open_db

    return open_db(settings.db)


def _reader():
    """The store, for a command that only reads: opened without sqlite-utils (faster)."""
    from pbem.host.store import open_reader

    return open_reader(settings.db)


def _host():
    """The host, with the render layer's report renderer installed (for the commands that
    open turns and so write reports)."""
    from pbem import host, render

    render.install()
    return host


def _fail(message: str, code: int = 1) -> None:
    typer.echo(f"pbem: {message}", err=True)
    raise typer.Exit(code)


@app.command()
def rules(game_type: Optional[str] = typer.Argument(None, metavar="GAME_TYPE", help="A game type; omit to list them.")) -> None:
    """List the game types, or print one game's order documentation.

    Example: pbem rules gods
    """
    from pbem.core.registry import game_types, get_rules, order_doc

    if not game_type:
        for name in game_types():
            r = get_rules(name)
            typer.echo(f"{name:10} {r.info.title} ({r.info.min_players}-{r.info.max_players} players)")
        return
    get_rules(game_type)
    typer.echo(order_doc(game_type))


@app.command()
def new(
    game_type: str = typer.Argument(..., metavar="GAME_TYPE", help="Game type, e.g. gods (see `pbem rules`)."),
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="A new game id: lower-case letters, digits, - and _."),
    player: List[str] = typer.Option([], "--player", "-p", metavar="NAME[:EMAIL]", help="NAME or NAME:EMAIL, once per seat, in seat order (not a word the reports use: you, gm, anonymous, ...)."),
    seed: Optional[str] = typer.Option(None, metavar="SEED", help="RNG seed, for tests and demos (default: 128 random bits; leave it out for a real game: a seed players can guess shows them hidden cards and future dice). Its SHA-256 is published now, the seed at the end."),
    option: List[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE", help="Game option K=V: the game's (see `pbem rules TYPE`) or the host's: grace, remind, early, absences, press, seat_policy, gm_email, reaction_deadline (see `pbem set --help`)."),
    open_seats: Optional[int] = typer.Option(None, "--open", metavar="N", help="Open the game for sign-up with N seats instead of --player: players JOIN by mail; it starts when full or at `pbem start`."),
    every: Optional[str] = typer.Option(None, metavar="DURATION", help="Deadline schedule: each turn lasts this long, e.g. 72h or 3d."),
    at: Optional[str] = typer.Option(None, metavar="HH:MM", help="...moved to this local time of day, e.g. 20:00."),
    tz: Optional[str] = typer.Option(None, metavar="ZONE", help="...in this time zone, e.g. Europe/London (default UTC)."),
    reaction_deadline: Optional[str] = typer.Option(None, "--reaction-deadline", metavar="DURATION", help="A phase that asks one player a reaction live (a game with --option reactions=ask) lasts this long, e.g. 12h (the same as --option reaction_deadline=12h)."),
) -> None:
    """Create a game, open turn 1 and write its reports. Prints each player's password.

    Example: pbem new gods athens-1 --player zeus:z@example.org --player hera --every 72h --at 20:00 --tz Europe/London
    """
    from pbem.host import schedule
    host = _host()
    if not player and open_seats is None:
        raise typer.BadParameter("Missing option '--player' (NAME[:EMAIL] once per seat), or --open N for an open sign-up",
                                 param_hint="'--player'")
    if player and open_seats is not None:
        _fail("give --player for each seat, or --open N for an open sign-up, not both", code=2)


    opts = {}
    for item in option:
        k, sep, v = item.partition("=")
        if not sep or not k.strip():
            _fail(f"--option '{item}' is not K=V")
        opts[k.strip()] = v.strip()
    if reaction_deadline is not None:
        opts["reaction_deadline"] = reaction_deadline
    sched = schedule.make_schedule(every, at, tz)
    created = host.new_game(_store(), game_type, game_id, player, seed=seed, options=opts, sched=sched, turns=settings.turns,
                            open_seats=open_seats)
    if "signup" in created:
        typer.echo(f"opened {game_type} game {created['signup']['id']} for sign-up: {open_seats} seats; players send "
                   f"JOIN {created['signup']['id']} [NAME]; it starts when full (or at `pbem start {created['signup']['id']}`)")
        return
    g = created["game"]
    typer.echo(f"created {g['type']} game {g['id']} (seed hash {g['seed_hash']})")
    from pbem.core.rng import guessable_seed

    if seed is not None and guessable_seed(seed):  # issue 17: the hash published lets players check guesses
        typer.echo(f"pbem: warning: --seed '{seed}' is easy to guess: players who try it against the published seed hash "
                   "can work out hidden cards and future dice. Fine for tests and demos; for a real game leave --seed "
                   "out (a random 128-bit seed).", err=True)
    for p in created["players"]:
        typer.echo(f"  seat {p['seat']}: {p['name']:16} password {p['password']}" + (f"  <{p['email']}>" if p["email"] else ""))
    typer.echo(f"turn 1 reports: {Path(settings.turns) / g['id'] / '1' / 'reports'}")


@app.command(short_help="Submit a player's orders and print the acknowledgement.")
def submit(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    player: str = typer.Argument(..., metavar="PLAYER", help="The player whose orders these are."),
    file: str = typer.Argument(..., metavar="FILE", help="Order file, or - for standard input."),
    gm: bool = typer.Option(False, "--gm", help="The GM enters these orders: no PASSWORD line needed, and the deadline is not enforced."),
) -> None:
    """Submit a player's orders for the current turn and print the acknowledgement.

    Exit code 0 when every line is accepted, 2 when some line is rejected or the whole
    submission is (wrong password, not a text file, game over...).

    Example: pbem submit athens-1 zeus orders.txt
    """
    from pbem import host

    if file == "-":
        raw = sys.stdin.buffer.read()
    else:
        path = Path(file)
        if not path.is_file():  # a folder or a device (/dev/zero) is not read
            _fail(f"no file '{file}'" if not path.exists() else f"'{file}' is a folder, not an order file"
                  if path.is_dir() else f"'{file}' is not a regular file: not read")
        raw = path.read_bytes()
    ack = host.submit(_store(), game_id, player, raw, source="cli" if file == "-" else f"cli:{file}", trusted=gm)
    typer.echo(ack.text, nl=False)
    if not ack.ok:
        raise typer.Exit(2)


@app.command(short_help="Resolve the turns that are due (everyone ready, or deadline passed).")
def resolve(
    game_ids: List[str] = typer.Argument(None, metavar="GAME_ID...", help="Games to resolve (default: all running games)."),
    all_games: bool = typer.Option(False, "--all", help="Resolve every running game (the default without GAME_IDs)."),
    force: bool = typer.Option(False, "--force", help="Resolve the current turn now: missing players get default orders (NMR)."),
    preview: bool = typer.Option(False, "--preview", help="Show the next turn's full result (every report) without committing or sending anything."),
) -> None:
    """Resolve every turn whose orders are all in, or whose deadline has passed.

    Order files in turns/GAME_ID/TURN/PLAYER.txt are picked up first. Reports of each new
    turn are written to turns/GAME_ID/TURN/reports/.

    Example: pbem resolve athens-1
    """
    host = _host()

    if all_games and game_ids:
        _fail("give GAME_IDs or --all, not both")
    warnings: dict[str, str] = {}
    results = host.resolve(_store(), game_ids or None, force=force, turns=settings.turns, preview=preview, keep_going=True,
                           warnings=warnings)
    if preview:
        for r in results:
            typer.echo(f"== PREVIEW of {r.game_id} turn {r.turn}: {r.outcome}" + (f" -- {r.detail}" if r.detail else ""))
            for who, text in r.reports.items():
                typer.echo(f"\n== report for {who or 'the public'}\n{text}")
        typer.echo("(preview: nothing was stored, written or sent)")
        return
    out: list[tuple[bool, str]] = []  # (to stderr, line), written a run of lines at a time (issue 17)
    for gid, why in warnings.items():  # files are copies of the store: the game itself is fine
        out.append((True, f"pbem: warning: {gid}: {why}"))
    if not results:
        from pbem.host.queries import in_grace

        grace = in_grace(_reader()) if game_ids is None or not game_ids else []
        out.append((False, "no game is due: every running game is waiting for orders"
                    + (", before its deadline or in its grace period:" if grace else " before its deadline")))
        for g in grace:  # finding 13: the deadline has passed; the grace (option grace) decides when it resolves
            out.append((False, f"  {g['id']} turn {g['turn']}: the deadline {g['deadline']} has passed; in its grace "
                               f"period until {g['grace_ends']}, then the missing players' default orders apply"))
    for r in results:
        if r.outcome == "error":  # this game could not be resolved; the others went on
            out.append((True, f"pbem: {r.game_id} turn {r.turn}: NOT resolved -- {r.detail}"))
            continue
        nmr = f" (NMR: {', '.join(r.nmr)})" if r.nmr else ""
        verb = {"resolved": "resolved", "finished": "resolved, game over" if r.detail == "game over" else "finished", "waiting": "waiting"}[r.outcome]
        out.append((False, f"{r.game_id} turn {r.turn}: {verb}{nmr}" + (f" -- {r.detail}" if r.detail and r.detail != "game over" else "")))
        if r.warning:
            out.append((True, f"pbem: warning: {r.game_id} turn {r.turn + 1}: {r.warning}"))
    for err, lines in itertools.groupby(out, key=lambda line: line[0]):  # the lines in the order they come
        typer.echo("\n".join(text for _, text in lines), err=err)
    if any(r.outcome == "error" for r in results):  # 70 when it was a bug of ours, as for any command
        raise typer.Exit(70 if any(r.detail.startswith("internal error") for r in results if r.outcome == "error") else 1)


@app.command()
def rollback(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    to: int = typer.Option(..., "--to", metavar="N", help="The turn to go back to (its orders are taken again)."),
) -> None:
    """Set a game back to the opening of turn N, to fix a mistake.

    The turns after N are set aside (kept in archive tables), every submission stays, and
    the next `pbem resolve` replays from turn N. A game with a schedule gets a fresh
    deadline for turn N (its own has passed), so players may send new orders before it;
    one inside a declared absence (ABSENT) of a player asked moves to the absence's end.
    A finished game is refused: its seed was revealed at its end, so play resumed from it
    would have no hidden information left (every hand, the deck order, every die). So is a
    turn before a seat added by `pbem join` (go back to the join's turn at the earliest).

    Example: pbem rollback athens-1 --to 4
    """
    host = _host()

    r = host.rollback(_store(), game_id, to, turns=settings.turns)
    typer.echo(f"{game_id}: back at turn {r['to']} (was {r['from']}); archived "
               + ", ".join(f"{n} {t}" for t, n in r["archived"].items())
               + (f"; {r['mail_cancelled']} queued report mail(s) of those turns cancelled" if r.get("mail_cancelled") else ""))
    for a in r["absences"][-1:]:  # finding 10: the fresh deadline is not inside a declared absence of a player asked
        typer.echo(f"{game_id}: turn {r['to']}'s deadline is {r['deadline']}: moved to the end of {a['player']}'s "
                   f"declared absence (from {a['start']} to {a['end']})")


@app.command(short_help="Each game's turn, who is awaited or not ready, deadline, scores.")
def status(
    game_id: Optional[str] = typer.Argument(None, metavar="GAME_ID", help="One game (default: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the stable JSON documented in the README."),
) -> None:
    """Show each game's turn, who is awaited, the deadline (and, with the option grace, when its
    grace period ends) and the scores.

    Example: pbem status athens-1 --json
    """
    from pbem.host.queries import status as game_status

    data = game_status(_reader(), game_id)
    if as_json:
        import json

        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    if not data["games"] and not data.get("open"):
        typer.echo("no games")
    for g in data.get("open") or []:
        typer.echo(f"{g['id']} ({g['title']}): open for sign-up, {g['joined']} of {g['seats']} seats taken"
                   + (f" ({', '.join(g['players'])})" if g["players"] else "")
                   + f"; `pbem start {g['id']}` starts it (it also starts when full)")
    for g in data["games"]:
        scores = ", ".join(f"{k} {v}" for k, v in g["scores"].items())
        seats = "".join(f"; {kind}: {', '.join(g.get(kind) or [])}" for kind in ("bots", "vacant") if g.get(kind))
        seats += "".join(f"; {r['player']} RESIGNED {r['at']}" for r in g.get("resigned") or [])
        if g["status"] == "finished":
            when = (f"ended at turn {g['turn']} ({'by the GM' if g['ended_by'] == 'gm' else 'by a vote of the players'})"
                    if g.get("ended_by") else f"finished after turn {g['turn'] - 1}")
            typer.echo(f"{g['id']} ({g['title']}): {when}; winner(s) {', '.join(g['winners'])}; scores {scores}{seats}")
            continue
        unready = "".join(f"; not ready: {p} ({why})" for p, why in g.get("not_ready", {}).items())
        unready += "".join(f"; {p}'s order file {why}" for p, why in (g.get("refused_files") or {}).items())
        unready += f"; waiting: {', '.join(g['waiting'])} asked to WAIT" if g.get("waiting") else ""
        awaiting = ", ".join(g["awaiting"]) or ("nobody" if unready else "nobody (ready to resolve)")
        seats += "".join(f"; {p} votes {v['kind'].upper()} (since turn {v['turn']})" for p, v in (g.get("votes") or {}).items())
        deadline = "PAUSED since " + g["paused"] if g.get("paused") else (g["deadline"] or "none") + (
            f" (PASSED; in its grace period until {g['grace_ends']}, then the missing players' default orders apply)"
            if g.get("deadline_passed") and g.get("grace_ends") and g["grace_ends"] > data["now"]
            else " (PASSED)" if g.get("deadline_passed")
            else f" (then a grace period until {g['grace_ends']})" if g.get("grace_ends") else "")  # finding 13
        typer.echo(
            f"{g['id']} ({g['title']}): turn {g['turn']}, awaiting {awaiting}{unready}; "
            f"deadline {deadline}; scores {scores}{seats}"
        )
    for g in data["games"]:  # issue 14: bounced addresses, password guessing
        for line in g.get("alerts") or []:
            typer.echo(f"{g['id']}: {line}")
    mail = data.get("mail") or {}
    if mail.get("failed") or mail.get("queued") or mail.get("sending"):  # the outbox (pbem send)
        typer.echo(f"mail: {mail.get('queued', 0) + mail.get('sending', 0)} queued, {mail.get('failed', 0)} FAILED"
                   + (" (`pbem send --retry-failed` queues failed mail again)" if mail.get("failed") else " (`pbem send` delivers them)"))


@app.command()
def report(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    player: Optional[str] = typer.Option(None, "--player", metavar="PLAYER", help="A player's private report (default: the public one)."),
    turn: Optional[int] = typer.Option(None, "--turn", metavar="N", help="Turn number (default: the current turn)."),
) -> None:
    """Print a turn report: the public one, or a player's private one.

    Example: pbem report athens-1 --player zeus --turn 3
    """
    from pbem.host.queries import report as stored_report

    if turn is not None and not 0 < turn < 2**63:  # SQLite's integers end there
        _fail(f"game '{game_id}' has no turn {turn}: turns are numbered from 1")
    typer.echo(stored_report(_reader(), game_id, player, turn), nl=False)


@app.command(short_help="Let bots play every seat (test games; --force for one with real players).")
def autoplay(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    max_phases: Optional[int] = typer.Option(None, "--max-phases", metavar="N", help="Stop after this many turns."),
    force: bool = typer.Option(False, "--force", help="Play a game with real players too (seats with addresses, orders by mail, observers): their turns are played for them and the reports mailed."),
) -> None:
    """Let every seat play random legal orders until the game ends (or --max-phases).

    For test games: a game with real players -- a seat a person plays with an address, orders
    that came by mail, observers -- is refused unless --force (`pbem rollback` undoes turns).

    Example: pbem autoplay test-1 --max-phases 10
    """
    host = _host()

    db = _store()
    people = _real_players(db, game_id)
    if people and not force:
        _fail(f"game '{game_id}' has real players ({people}): autoplay would play their turns with random orders, "
              "resolve them and mail them the reports. It is for test games; "
              f"`pbem autoplay {game_id} --force` plays this one anyway (`pbem rollback` undoes turns)")
    results = host.autoplay(db, game_id, max_phases=max_phases, turns=settings.turns)
    done = [r for r in results if r.outcome in ("resolved", "finished")]
    last = results[-1] if results else None
    typer.echo(f"{game_id}: {plural(len(done), 'turn')} resolved" + (f"; {last.detail}" if last else ""))


def _real_players(db, game_id: str) -> str:
    """Who in a game is a person autoplay would play for or mail (tester3 finding 16): the
    seats played by a person with an address, the seats whose orders came by mail, the
    observers; '' when none (a test game)."""
    from pbem.host import read

    game = read.game(db, game_id)  # NotFound: no such game
    seats = read.players(db, game["id"])
    mailed = {r[0] for r in db.execute("select distinct player from submissions where game_id = ? and source like 'mail%'",
                                       [game["id"]]).fetchall()}
    people = [s["name"] for s in seats if not s.get("bot") and (s.get("email") or s["name"] in mailed)]
    watching = len(read.observers(db, game["id"]))
    parts = ([f"{', '.join(people)} {'has an address' if len(people) == 1 else 'have addresses'} or mailed orders"] if people else []) \
        + ([plural(watching, "observer")] if watching else [])
    return "; ".join(parts)


@app.command(short_help="Re-run stored history and check every state hash.")
def replay(
    game_id: Optional[str] = typer.Argument(None, metavar="GAME_ID", help="The game (default: every game in the store)."),
    verify: bool = typer.Option(True, "--verify/--no-verify", help="Compare every snapshot hash (the default)."),
) -> None:
    """Re-run stored history from the seed and the stored orders; check every snapshot hash.

    Example: pbem replay athens-1 --verify
    """
    from pbem import host

    db = _store()
    ids = [game_id] if game_id else [r["id"] for r in db["games"].rows_where(select="id", order_by="id")]
    bad = 0
    for gid in ids:
        result = host.replay(db, gid)
        if result["ok"]:
            typer.echo(f"{gid}: {plural(result['phases'], 'phase')} replayed, every hash matches")
        else:
            bad += 1
            typer.echo(f"{gid}: MISMATCH at turn {result['mismatches'][0]}")
    if bad and verify:
        raise typer.Exit(3)


@app.command()
def publish(
    out: Optional[str] = typer.Option(None, "--out", metavar="DIR", help="Folder to write the site into (created if missing; default: publish_dir of pbem.toml's [run] table)."),
    game_ids: List[str] = typer.Argument(None, metavar="GAME_ID...", help="Games to publish (default: every game in the store)."),
    base_url: Optional[str] = typer.Option(None, "--base-url", metavar="URL", help="Where the site will be served, e.g. https://example.org/pbem/ (makes the feed's links absolute)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the summary line, not each file written."),
    check: bool = typer.Option(False, "--check", help="Read every published file and write again any changed or deleted by hand (by default the files of a game with nothing new are trusted as written)."),
) -> None:
    """Render every game as a static website: public reports only. Rewrites only what changed.

    A game with nothing new in the store since the last publish is not looked at again: its
    files are trusted to be as they were written, so publishing after every turn costs the
    same however long the games. The files of a game that changed are checked (size and
    time, their content when these differ) and written again when they differ. --check reads
    every file of every game and restores any edited or deleted by hand; a missing or
    unreadable manifest (.pbem-site.json, .pbem-site/) makes the publish check everything.

    Without --out, the site goes where `pbem run` publishes it (publish_dir in pbem.toml's
    [run] table), and into that folder with run's base_url unless --base-url is given: a
    publish by hand and the loop's write the same files.

    Example: pbem publish --out public_html

    Example: pbem publish --out public_html --check
    """
    from pbem.mail.run import load_run_settings
    from pbem.site.publish import publish as publish_site

    loop_dir = loop_url = None  # where and with which links `pbem run` publishes
    named = out and f"--out {out}"  # how a refusal names the folder
    if out is None or base_url is None:
        try:
            loop = load_run_settings()
            loop_dir, loop_url = loop.publish_dir and Path(loop.publish_dir).expanduser(), loop.base_url
        except PbemError:
            if out is None:
                raise
            # --out given: a [run] table `pbem run` would refuse does not stop a publish by hand
    if out is None:
        if loop_dir is None:
            _fail("give --out DIR (or set publish_dir in pbem.toml's [run] table)", 2)
        out, named = str(loop_dir), f"the publish folder {loop_dir} (publish_dir in pbem.toml)"
    if base_url is None and loop_url and loop_dir and Path(out).expanduser().resolve() == loop_dir.resolve():
        base_url = loop_url  # the loop's site: the same links as `pbem run` writes

    def progress(total: int):
        import click

        return click.progressbar(length=total, label="publishing", file=sys.stderr) if total >= 200 and sys.stderr.isatty() else None

    wrote: list[str] = []  # printed after the run, so they do not cut through the progress bar
    result = publish_site(_store(), out, base_url=base_url, games=game_ids or None,
                          log=None if quiet else wrote.append, progress=progress, check=check, named=named)
    for line in wrote:
        typer.echo(line)
    trusted = f"{result.trusted} not looked at (nothing new; --check looks at them), " if result.trusted else ""
    typer.echo(f"{len(result.written)} written, {len(result.unchanged)} unchanged, {trusted}{len(result.removed)} removed "
               f"({plural(result.games, 'game')}) in {result.out}")


@app.command(short_help="Read players' mail: take the orders, queue acknowledgements.")
def ingest(
    paths: List[str] = typer.Argument(..., metavar="PATH...", help="Maildir folders, mbox files, .eml files, or folders of these and of order files."),
    config: Optional[str] = typer.Option(None, "--config", envvar="PBEM_CONFIG", metavar="FILE", help="pbem.toml with a [mail] table (default ./pbem.toml): its from= address marks our own mail."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the tally."),
) -> None:
    """Read players' mail: store every message, take the orders in it, queue acknowledgements.

    Each message ends accepted, rejected (with the reason) or ignored (auto-replies, bounces,
    spam, mail for no game); the tally is printed last. Running it again on the same mailbox
    changes nothing. `pbem send` delivers the acknowledgements. See docs/mail.md.

    Example: pbem ingest ~/Maildir && pbem resolve --all && pbem send
    """
    from pbem.mail import ingest as mail_in

    def show(result) -> None:
        if not quiet and result.outcome != "seen":
            typer.echo(result.line())

    tally = mail_in.ingest(_store(), paths, own_address=mail_in.own_address_from_env(config), on_result=show,
                           turns=settings.turns)
    typer.echo(tally.summary())


@app.command(short_help="Deliver the outbox through SMTP, each message once.")
def send(
    dry_run: Optional[str] = typer.Option(None, "--dry-run", metavar="DIR", help="Write the queued messages as DIR/*.eml instead of sending them (DIR: a folder, made if missing; not a file)."),
    mark_sent: bool = typer.Option(False, "--mark-sent", help="With --dry-run: mark the written messages sent (you send them by hand)."),
    smtp_host: Optional[str] = typer.Option(None, "--smtp-host", metavar="HOST", help="SMTP server (env PBEM_SMTP_HOST; default localhost)."),
    smtp_port: Optional[int] = typer.Option(None, "--smtp-port", metavar="PORT", help="SMTP port (env PBEM_SMTP_PORT; default 587 starttls, 465 ssl, else 25)."),
    security: Optional[str] = typer.Option(None, "--security", metavar="MODE", help="auto, starttls, ssl or none (env PBEM_SMTP_SECURITY; default auto)."),
    smtp_user: Optional[str] = typer.Option(None, "--smtp-user", metavar="NAME", help="Login name (env PBEM_SMTP_USER); the password comes only from PBEM_SMTP_PASSWORD or pbem.toml."),
    sender: Optional[str] = typer.Option(None, "--from", metavar="ADDRESS", help="The GM's address mail is sent from (env PBEM_FROM; no default: required)."),
    reply_to: Optional[str] = typer.Option(None, "--reply-to", metavar="ADDRESS", help="Where players' replies go: the order address (env PBEM_REPLY_TO; default --from)."),
    retries: Optional[int] = typer.Option(None, "--retries", metavar="N", help="Reconnect this many times after a dropped connection (default 3)."),
    backoff: Optional[float] = typer.Option(None, "--backoff", metavar="SECONDS", help="Seconds before the first reconnect, doubling each time (default 2)."),
    retry_failed: bool = typer.Option(False, "--retry-failed", help="Queue messages the server refused permanently (5xx) again first (with --dry-run: write them too, leave them failed)."),
    config: Optional[str] = typer.Option(None, "--config", envvar="PBEM_CONFIG", metavar="FILE", help="pbem.toml with a [mail] table (default ./pbem.toml)."),
) -> None:
    """Deliver the outbox (acknowledgements, reports) through SMTP, each message exactly once.

    Every message is marked sent as soon as the server accepts it, so running `pbem send`
    again after a failure sends only what is left. Settings come from options, the
    environment, or the [mail] table of pbem.toml. See docs/mail.md.

    Example: pbem send --smtp-host smtp.example.org --from gm@example.org
    """
    from pbem.mail import send as mail_out
    from pbem.mail.settings import load_settings

    settings = load_settings(config, host=smtp_host, port=smtp_port, security=security, username=smtp_user,
                                     sender=sender, reply_to=reply_to, retries=retries, backoff=backoff)
    result = mail_out.send(_store(), settings, dry_run=dry_run, mark_sent=mark_sent, retry_failed=retry_failed)
    if dry_run is not None:
        for path in result.written:
            typer.echo(f"wrote {path}")
        typer.echo(f"{len(result.written)} messages written to {dry_run}" + (
            " and marked sent" if mark_sent else
            f" (still queued; {result.still_failed} of them failed before and stay failed until `pbem send --retry-failed`)"
            if result.still_failed else " (still queued)"))
        return
    for oid, why in result.failed:
        typer.echo(f"FAILED   message {oid}: {why}")
    for oid, why in result.deferred:
        typer.echo(f"deferred message {oid}: {why}")
    typer.echo(f"{len(result.sent)} sent, {len(result.failed)} failed, {len(result.deferred)} deferred"
               + (f", {result.left} left queued" if result.left else "") + f" via {settings.describe()}")
    if result.error:
        _fail(f"stopped: {result.error}; run `pbem send` again to send the rest")


GLOBAL_OPTIONS = ("--db", "--turns")


def global_options_first(argv: list[str]) -> list[str]:
    """`pbem status --db FILE` as `pbem --db FILE status`: the global options may also follow
    the command (where a GM naturally adds them), and are moved before it."""
    head, rest, i = [], [], 0
    while i < len(argv) and argv[i].startswith("-"):  # options before the command
        takes_value = argv[i] in GLOBAL_OPTIONS
        head.append(argv[i])
        if takes_value and i + 1 < len(argv):
            head.append(argv[i + 1])
            i += 1
        i += 1
    moved = []
    tail = argv[i:]
    j = 0
    while j < len(tail):
        word = tail[j]
        if word == "--":
            rest += tail[j:]
            break
        if word in GLOBAL_OPTIONS and j + 1 < len(tail):
            moved += [word, tail[j + 1]]
            j += 2
            continue
        if word.split("=", 1)[0] in GLOBAL_OPTIONS and "=" in word:
            moved.append(word)
        else:
            rest.append(word)
        j += 1
    return head + moved + rest


def main() -> None:
    from pbem.cli.terminal import scrub_output

    scrub_output()  # no control character from players' mail reaches the GM's terminal
    try:
        app(args=global_options_first(sys.argv[1:]), prog_name="pbem")
    except BrokenPipeError:
        # The reader went away (`pbem report g1 | head`): stop quietly, as other tools do.
        # Python would complain again while flushing stdout at exit: point it at /dev/null.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(141)  # 128 + SIGPIPE, like a program the pipe's signal stopped


# The commands of the other command modules register themselves on `app` when imported.
from pbem.cli import controls as _controls, mailloop as _mailloop, press as _press, verify as _verify  # noqa: E402,F401
