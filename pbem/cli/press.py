"""`pbem press`: the GM's broadcasts to a game's players, and the GM's view of its press
(every message with its real sender, grey press too). Players send press by mail (PRESS TO
... ENDPRESS, pbem.mail.commands); pbem.host.press stores and delivers it."""

import sys

import typer

from pbem.cli import _fail, _reader, _store, app


@app.command(short_help="Send press to a game's players (GM), or list its press.")
def press(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    file: str | None = typer.Argument(None, metavar="FILE", help="The message: a text file, or - for standard input."),
    to: str | None = typer.Option(None, "--to", metavar="all|NAMES",
                                     help="all (every player and observer), or player names separated by commas."),
    listing: bool = typer.Option(False, "--list", help="List the game's press with the real senders (grey press too)."),
) -> None:
    """Send press from the GM to a game's players, or list the game's press.

    The GM's press is signed "the GM", goes out at once through the outbox (`pbem send`
    delivers it) and is listed in the recipients' next turn report; press to all is public
    and appears on the site. Press to a seat nobody reads (vacant, or a bot's with no
    address) is refused; the mails queued are counted, and a reader who gets none (no
    address) is named. --list shows every message of the game, private and grey ones
    with their real sender: it is for the GM's eyes.

    Example: pbem press athens-1 --to all notice.txt

    \b
    More examples:
      pbem press athens-1 --to zeus,hera - < note.txt
      pbem press athens-1 --list
    """
    from pbem.host import press as host_press

    if listing:
        if to or file:
            _fail("--list takes no --to and no FILE", code=2)
        rows = host_press.listing(_reader(), game_id)
        if not rows:
            typer.echo(f"{game_id}: no press yet")
        for r in rows:
            to_text = "all" if r["recipients"] is None else ",".join(r["recipients"])
            grey = " (grey: players saw 'anonymous')" if r["grey"] else ""
            typer.echo(f"#{r['id']} turn {r['phase']} {r['sent']} {r['sender']} -> {to_text}{grey}")
            for line in r["body"].split("\n"):
                typer.echo(f"    {line}")
        return
    if not to:
        _fail("say who the press is for: --to all, or --to NAME[,NAME]", code=2)
    if not file:
        _fail("give the message: a FILE, or - to read it from standard input", code=2)
    if file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(file, encoding="utf-8") as fh:
                text = fh.read(host_press.MAX_CHARS * 4 + 1)
        except (OSError, UnicodeDecodeError) as err:
            _fail(f"cannot read {file}: {getattr(err, 'strerror', None) or err}")
    db = _store()
    sent = host_press.send(db, game_id, None, to, text, source="cli")
    to_text = "all" if sent["recipients"] is None else ", ".join(sent["recipients"])
    why = host_press.no_mail(db, sent["game_id"], sent)
    typer.echo(f"{sent['game_id']}: press #{sent['id']} from the GM to {to_text}: {len(sent['outbox'])} mail(s) queued "
               "(`pbem send` delivers them)" + (f"; {why}" if why else ""))
