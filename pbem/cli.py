"""The `pbem` command. Each command opens the store, calls one library function in
pbem.host, and turns domain errors into a clean message (exit 1), never a traceback."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.core import TyperGroup

from pbem.errors import PbemError


class PbemGroup(TyperGroup):
    """Turns domain errors into one clean line (exit 1) and anything unexpected into a short
    note (exit 70): no traceback reaches a user unless PBEM_DEBUG is set."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except PbemError as err:
            typer.echo(f"pbem: {err}", err=True)
            raise typer.Exit(1) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as err:
            import click

            if isinstance(err, click.ClickException) or os.environ.get("PBEM_DEBUG"):
                raise
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
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class Settings:
    db: Optional[str] = None
    turns: str = "turns"


settings = Settings()


@app.callback()
def _global(
    db: Optional[str] = typer.Option(None, "--db", envvar="PBEM_DB", help="SQLite store (default ./pbem.db)."),
    turns: str = typer.Option("turns", "--turns", envvar="PBEM_TURNS", help="Folder of order files and reports."),
) -> None:
    settings.db = db
    settings.turns = turns


def _store():
    from pbem.store import open_db

    return open_db(settings.db)


def _fail(message: str, code: int = 1) -> None:
    typer.echo(f"pbem: {message}", err=True)
    raise typer.Exit(code)


@app.command()
def rules(game_type: Optional[str] = typer.Argument(None, help="A game type; omit to list them.")) -> None:
    """List the game types, or print one game's order documentation.

    Example: pbem rules gods
    """
    from pbem.registry import game_types, get_rules, order_doc

    if not game_type:
        for name in game_types():
            r = get_rules(name)
            typer.echo(f"{name:10} {r.info.title} ({r.info.min_players}-{r.info.max_players} players)")
        return
    get_rules(game_type)
    typer.echo(order_doc(game_type))


@app.command()
def new(
    game_type: str = typer.Argument(..., help="Game type, e.g. gods (see `pbem rules`)."),
    game_id: str = typer.Argument(..., help="A new game id: lower-case letters, digits, - and _."),
    player: List[str] = typer.Option(..., "--player", "-p", help="NAME or NAME:EMAIL, once per seat, in seat order."),
    seed: Optional[str] = typer.Option(None, help="RNG seed (default: random). Its SHA-256 is published now, the seed at the end."),
    option: List[str] = typer.Option([], "--option", "-o", help="Game option K=V (see `pbem rules TYPE`)."),
    every: Optional[str] = typer.Option(None, help="Deadline schedule: each turn lasts this long, e.g. 72h or 3d."),
    at: Optional[str] = typer.Option(None, help="...moved to this local time of day, e.g. 20:00."),
    tz: Optional[str] = typer.Option(None, help="...in this time zone, e.g. Europe/London (default UTC)."),
) -> None:
    """Create a game, open turn 1 and write its reports. Prints each player's password.

    Example: pbem new gods athens-1 --player zeus:z@example.org --player hera --every 72h --at 20:00 --tz Europe/London
    """
    from pbem import host, schedule

    opts = {}
    for item in option:
        k, sep, v = item.partition("=")
        if not sep or not k.strip():
            _fail(f"--option '{item}' is not K=V")
        opts[k.strip()] = v.strip()
    sched = schedule.make_schedule(every, at, tz)
    created = host.new_game(_store(), game_type, game_id, player, seed=seed, options=opts, sched=sched, turns=settings.turns)
    g = created["game"]
    typer.echo(f"created {g['type']} game {g['id']} (seed hash {g['seed_hash']})")
    for p in created["players"]:
        typer.echo(f"  seat {p['seat']}: {p['name']:16} password {p['password']}" + (f"  <{p['email']}>" if p["email"] else ""))
    typer.echo(f"turn 1 reports: {Path(settings.turns) / g['id'] / '1' / 'reports'}")


@app.command()
def submit(
    game_id: str = typer.Argument(..., help="The game."),
    player: str = typer.Argument(..., help="The player whose orders these are."),
    file: str = typer.Argument(..., help="Order file, or - for standard input."),
    gm: bool = typer.Option(False, "--gm", help="The GM enters these orders: no PASSWORD line needed."),
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
        if not path.is_file():
            _fail(f"no file '{file}'")
        raw = path.read_bytes()
    ack = host.submit(_store(), game_id, player, raw, source="cli" if file == "-" else f"cli:{file}", trusted=gm)
    typer.echo(ack.text, nl=False)
    if not ack.ok:
        raise typer.Exit(2)


@app.command()
def resolve(
    game_ids: List[str] = typer.Argument(None, help="Games to resolve (default: all running games)."),
    all_games: bool = typer.Option(False, "--all", help="Resolve every running game (the default without GAME_IDs)."),
    force: bool = typer.Option(False, "--force", help="Resolve the current turn now: missing players get default orders (NMR)."),
) -> None:
    """Resolve every turn whose orders are all in, or whose deadline has passed.

    Order files in turns/GAME_ID/TURN/PLAYER.txt are picked up first. Reports of each new
    turn are written to turns/GAME_ID/TURN/reports/.

    Example: pbem resolve athens-1
    """
    from pbem import host

    if all_games and game_ids:
        _fail("give GAME_IDs or --all, not both")
    results = host.resolve(_store(), game_ids or None, force=force, turns=settings.turns)
    if not results:
        typer.echo("no running games")
    for r in results:
        nmr = f" (NMR: {', '.join(r.nmr)})" if r.nmr else ""
        verb = {"resolved": "resolved", "finished": "resolved, game over" if r.detail == "game over" else "finished", "waiting": "waiting"}[r.outcome]
        typer.echo(f"{r.game_id} turn {r.turn}: {verb}{nmr}" + (f" -- {r.detail}" if r.detail and r.detail != "game over" else ""))


@app.command()
def status(
    game_id: Optional[str] = typer.Argument(None, help="One game (default: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the stable JSON documented in the README."),
) -> None:
    """Show each game's turn, who is awaited, the deadline and the scores.

    Example: pbem status athens-1 --json
    """
    from pbem import host

    data = host.status(_store(), game_id)
    if as_json:
        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    if not data["games"]:
        typer.echo("no games")
    for g in data["games"]:
        scores = ", ".join(f"{k} {v}" for k, v in g["scores"].items())
        if g["status"] == "finished":
            typer.echo(f"{g['id']} ({g['title']}): finished after turn {g['turn'] - 1}; winner(s) {', '.join(g['winners'])}; scores {scores}")
            continue
        typer.echo(
            f"{g['id']} ({g['title']}): turn {g['turn']}, awaiting {', '.join(g['awaiting']) or 'nobody (ready to resolve)'}; "
            f"deadline {g['deadline'] or 'none'}; scores {scores}"
        )


@app.command()
def report(
    game_id: str = typer.Argument(..., help="The game."),
    player: Optional[str] = typer.Option(None, "--player", help="A player's private report (default: the public one)."),
    turn: Optional[int] = typer.Option(None, "--turn", help="Turn number (default: the current turn)."),
) -> None:
    """Print a turn report: the public one, or a player's private one.

    Example: pbem report athens-1 --player zeus --turn 3
    """
    from pbem import host

    typer.echo(host.report(_store(), game_id, player, turn), nl=False)


@app.command()
def autoplay(
    game_id: str = typer.Argument(..., help="The game."),
    max_phases: Optional[int] = typer.Option(None, "--max-phases", help="Stop after this many turns."),
) -> None:
    """Let every seat play random legal orders until the game ends (or --max-phases).

    Example: pbem autoplay test-1 --max-phases 10
    """
    from pbem import host

    results = host.autoplay(_store(), game_id, max_phases=max_phases, turns=settings.turns)
    done = [r for r in results if r.outcome in ("resolved", "finished")]
    last = results[-1] if results else None
    typer.echo(f"{game_id}: {len(done)} turns resolved" + (f"; {last.detail}" if last else ""))


@app.command()
def replay(
    game_id: Optional[str] = typer.Argument(None, help="The game (default: every game in the store)."),
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
            typer.echo(f"{gid}: {result['phases']} phases replayed, every hash matches")
        else:
            bad += 1
            typer.echo(f"{gid}: MISMATCH at turn {result['mismatches'][0]}")
    if bad and verify:
        raise typer.Exit(3)


def main() -> None:
    app()
