"""`pbem verify`: re-adjudicate a finished, published game from its public files alone."""

import typer

from pbem.cli import _fail, app


@app.command(short_help="Re-adjudicate a finished published game from its public record.")
def verify(
    where: str = typer.Argument(..., metavar="DIR_OR_URL", help="A published game's folder, or its web address."),
) -> None:
    """Re-run a finished game from its published record (record.json) and check every
    turn's position hash and public report (turn-N.json) against what this pbem computes.
    Needs no store: only the published files. Exit 0 when everything matches, 1 if not.

    Example: pbem verify https://example.org/pbem/games/athens-1/
    """
    from pbem.site.verify import verify as run

    result = run(where)
    for note in result.notes:
        typer.echo(f"note: {note}")
    for problem in result.problems:
        typer.echo(f"MISMATCH {problem}")
    if result.ok:
        typer.echo(f"{result.game} ({result.game_type}): {result.turns} turns re-adjudicated; every position hash "
                   "and every public report matches")
    else:
        _fail(f"{result.game} ({result.game_type}): {len(result.problems)} difference(s) in {result.turns} turns checked")
