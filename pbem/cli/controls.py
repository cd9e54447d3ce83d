# ruff: noqa: B008  (typer declares parameters with typer.Option/Argument defaults)
"""The GM's controls between deadlines: deadlines, pauses, game options, reminders, seats,
replacements, open sign-up, observers, the list of games and the game's end.

Each command opens the store and calls one function of pbem.host.controls or
pbem.host.seats; every change is recorded in the GM-action log and announced to the players
it affects (mail through the outbox: `pbem send` delivers it)."""


import typer

from pbem.cli import _fail, _host, _reader, _store, app, settings
from pbem.core.words import plural


@app.command(short_help="Move the open turn's deadline (players told).")
def deadline(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    extend: str | None = typer.Option(None, "--extend", metavar="DURATION", help="Move the deadline this much later, e.g. 24h, 2d, 90m."),
    at: str | None = typer.Option(None, "--at", metavar="TIME", help='Set the deadline, e.g. "2026-12-01 20:00".'),
    tz: str | None = typer.Option(None, "--tz", metavar="ZONE", help="The zone of --at (default: the game's, else UTC)."),
    reason: str | None = typer.Option(None, "--reason", metavar="TEXT", help="Why (recorded and told to the players)."),
) -> None:
    """Move the open turn's deadline; the players are told. A time inside a declared absence
    (ABSENT) of a player asked this turn is kept, as you chose it, with a warning naming the
    player and the absence (the deadlines pbem sets itself move to the absence's end).

    Example: pbem deadline athens-1 --extend 24h --reason "server trouble"
    """
    from pbem.host import controls

    if (extend is None) == (at is None):  # a usage error, before the store is opened
        raise typer.BadParameter("give either --extend DURATION or --at TIME (one of them)", param_hint="'--extend' / '--at'")
    r = controls.set_deadline(_store(), game_id, extend=extend, at=at, tz=tz, reason=reason)
    typer.echo(f"{r['game']} turn {r['turn']}: deadline {r['deadline']} (was {r['was'] or 'none'})")
    for warning in r["warnings"]:  # finding 10: inside a declared absence of a player asked
        typer.echo(f"pbem: warning: {r['game']}: {warning}", err=True)


@app.command(short_help="Pause a game: no deadline, nothing resolves.")
def pause(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    reason: str | None = typer.Option(None, "--reason", metavar="TEXT", help="Why (recorded and told to the players)."),
) -> None:
    """Pause a game: no deadline runs and nothing resolves (not even `resolve --all`) until
    `pbem resume`. Orders are still taken; the players are told.

    Example: pbem pause athens-1 --reason "holidays"
    """
    from pbem.host import controls

    r = controls.pause(_store(), game_id, reason=reason)
    left = r["left_seconds"]
    typer.echo(f"{r['game']}: paused" + (f" ({left // 3600}h{left % 3600 // 60:02d}m were left before the deadline)" if left is not None else ""))


@app.command(short_help="Resume a paused game (players told).")
def resume(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    at: str | None = typer.Option(None, "--at", metavar="TIME", help='The new deadline (default: now plus the time that was left).'),
    tz: str | None = typer.Option(None, "--tz", metavar="ZONE", help="The zone of --at (default: the game's, else UTC)."),
    reason: str | None = typer.Option(None, "--reason", metavar="TEXT", help="Why (recorded and told to the players)."),
) -> None:
    """Resume a paused game; the players are told. Without --at the deadline is now plus the
    time that was left, moved to the end of a declared absence (ABSENT) of a player asked
    when it falls inside one; an --at inside one is kept, with a warning naming the player.

    Example: pbem resume athens-1 --at "2026-12-01 20:00" --tz Europe/London
    """
    from pbem.host import controls

    r = controls.resume(_store(), game_id, at=at, tz=tz, reason=reason)
    moved = "".join(f" (moved to the end of {a['player']}'s declared absence, which runs from {a['start']} to {a['end']})"
                    for a in r["absences"][-1:])
    typer.echo(f"{r['game']}: resumed; deadline {r['deadline'] or 'none'}{moved}")
    for warning in r["warnings"]:  # finding 10: --at inside a declared absence of a player asked
        typer.echo(f"pbem: warning: {r['game']}: {warning}", err=True)


@app.command("set", short_help="Change a game option (grace, remind, early, etc.).")
def set_option(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    key: str = typer.Argument(..., metavar="KEY", help="grace, remind, early, absences, press, seat_policy, gm_email or reaction_deadline."),
    value: str = typer.Argument(..., metavar="VALUE", help="e.g. 12h, off, on, 14, grey, bot, gm@example.org."),
) -> None:
    """Change a game option of a game running, paused or open for sign-up (not of one that
    is over); the players are told.

    Options: grace (after the deadline the missing players get a 'late' notice and the turn
    waits this long before their default orders), remind (awaited players are reminded this
    long before the deadline), early (on/off: resolve as soon as everyone is ready),
    absences (days of absence each player may declare), press (none/white/grey), seat_policy
    (vacant/bot: what a resignation leaves), gm_email (where player notices go),
    reaction_deadline (the short deadline of a phase that asks a reaction live, in a game
    with reactions=ask or Faith's battle rounds; refused for a game that asks none; from
    the next such phase). With grace, `pbem status` and `pbem list` show when it ends.

    Example: pbem set athens-1 grace 12h
    """
    from pbem.host import controls

    r = controls.set_option(_store(), game_id, key, value)
    typer.echo(f"{r['game']}: {r['option']} = {r['value']} (was {r['was']})")


@app.command(short_help="Queue due reminders and late notices.")
def remind(game_id: str | None = typer.Argument(None, metavar="GAME_ID", help="One game (default: every running game).")) -> None:
    """Queue the reminders that are due (the `remind` option) and the 'late' notices (the
    `grace` option); each goes once per player and turn, so running it often is safe.

    Example: pbem remind && pbem send
    """
    from pbem.host import controls

    sent = controls.remind(_store(), game_id)
    for s in sent:
        typer.echo(f"{s['game']} turn {s['turn']}: {s['kind']} for {s['player']}" + ("" if s["queued"] else " (no address: not mailed)"))
    typer.echo(f"{len(sent)} notice(s) queued" if sent else "no reminder is due")


@app.command(short_help="A seat's address, password, or bot/human.")
def seat(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    player: str = typer.Argument(..., metavar="PLAYER", help="The seat."),
    email: str | None = typer.Option(None, "--email", metavar="ADDRESS", help="Register a new address (both addresses are told; the seat's mail not yet sent, refused mail too, goes to it)."),
    reset_password: bool = typer.Option(False, "--reset-password", help="Make a new password (mailed to the seat's address; printed here)."),
    bot: bool = typer.Option(False, "--bot", help="A bot plays this seat at every resolution."),
    human: bool = typer.Option(False, "--human", help="The seat's player plays it again (undoes --bot)."),
    withdraw: bool = typer.Option(False, "--withdraw", help="A game open for sign-up: take this player's sign-up back (they are told; the seat is open again)."),
    reason: str | None = typer.Option(None, "--reason", metavar="TEXT", help="Why (recorded)."),
) -> None:
    """Change a seat: its address, its password, or who plays it (a bot or its person); in
    a game open for sign-up, withdraw a player's sign-up.

    Example: pbem seat athens-1 zeus --email zeus@new.example.org
    """
    from pbem.host import seats

    chosen = [name for name, on in (("--email", email is not None), ("--reset-password", reset_password), ("--bot", bot),
                                    ("--human", human), ("--withdraw", withdraw)) if on]
    if len(chosen) != 1:
        _fail("give exactly one of --email ADDRESS, --reset-password, --bot, --human or --withdraw"
              + (f" (not {' and '.join(chosen)})" if chosen else ""), code=2)
    db = _store()
    if withdraw:
        typer.echo(seats.withdraw(db, game_id, player, by="gm", reason=reason))
    elif email is not None:
        r = seats.set_address(db, game_id, player, email)
        typer.echo(f"{r['game']}: {r['player']} is now at {r['email']} (was {r['was'] or 'no address'}); both are told")
        _say_moved(r)
    elif reset_password:
        password = seats.reset_password(db, game_id, player)
        typer.echo(f"{game_id}: {player} has a new password: {password} (mailed to the seat's address, if any)")
    else:
        _host()  # a bot seat plays at resolution, which writes reports
        r = seats.set_bot(db, game_id, player, bot, reason=reason)
        typer.echo(f"{r['game']}: {r['player']} is {'a bot' if r['bot'] else 'played by a person'} from now on")


@app.command(short_help="Give a seat to a new player.")
def replace(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    player: str = typer.Argument(..., metavar="PLAYER", help="The seat to hand over."),
    newcomer: str = typer.Argument(..., metavar="NEWNAME[:EMAIL]", help="The new player's name, and address."),
    reason: str | None = typer.Option(None, "--reason", metavar="TEXT", help="Why (recorded and told to the players)."),
) -> None:
    """Give a seat to a new player: a new password (the old one stops working), the latest
    report mailed to them, everyone told. The seat keeps its name in the game; the
    newcomer's name is shown beside it and accepted on their PLAYER line.

    Example: pbem replace athens-1 zeus dora:dora@example.org
    """
    from pbem.host import seats

    name, _, email = newcomer.partition(":")
    password = seats.replace(_store(), game_id, player, name, email.strip() or None, reason=reason)
    typer.echo(f"{game_id}: {name.strip().lower()} now plays {player.strip().lower()}; password {password}"
               + ("" if email.strip() else " (no address: hand it over yourself)"))


@app.command("join", short_help="Seat a new player: in a game open for sign-up, or a new seat in a running game.")
def join_running(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="A game open for sign-up, or a running game."),
    newcomer: str = typer.Argument(..., metavar="NAME[:EMAIL]", help="The new player's name, and address."),
    reason: str | None = typer.Option(None, "--reason", metavar="TEXT", help="Why (recorded and told to the players)."),
) -> None:
    """Seat a new player. In a game open for sign-up (`pbem new ... --open N`): a seat, as a
    JOIN by mail takes one but without its confirmation (you vouch for the address, which is
    needed); the password is printed here, and the player's turn-1 report carries it when
    the game starts (at once, when this fills the last seat).

    In a running game: a new seat, when its rules take one (Faith: a new god joins in the
    Negotiation phase and founds a belief there). The newcomer gets a password and the open
    turn's report; everyone is told. `pbem replay` and the published record add the seat at
    the turn it joined in; `pbem rollback` goes back to that turn at the earliest.

    Example: pbem join faith-1 erin:erin@example.org
    """
    from pbem.host import read, seats

    _host()
    name, _, email = newcomer.partition(":")
    db = _store()
    if read.open_game(db, game_id):  # finding 13: the GM seats a player who signed up by other means
        r = seats.sign_up(db, game_id, name, email.strip() or None, turns=settings.turns)
        typer.echo(f"{r['game']}: {r['player']} has a seat ({r['joined']} of {r['seats']} taken); password {r['password']}"
                   + (f"; the game is full and has started: each player's turn-1 report (with their password) is queued"
                      if r["started"] else f"; their turn-1 report, with it, goes to {email.strip()} when the game starts "
                      f"(when full, or at `pbem start {r['game']}`)"))
        return
    password = seats.add_seat(db, game_id, name, email.strip() or None, reason=reason, turns=settings.turns)
    typer.echo(f"{game_id}: {name.strip().lower()} joins in a new seat; password {password}"
               + ("" if email.strip() else " (no address: hand it over yourself)"))


@app.command(short_help="Start a game open for sign-up.")
def start(game_id: str = typer.Argument(..., metavar="GAME_ID", help="A game open for sign-up.")) -> None:
    """Start a game open for sign-up (`pbem new ... --open N`) with the players who joined.

    Example: pbem start athens-2
    """
    from pbem.host import seats

    _host()
    created = seats.start(_store(), game_id, turns=settings.turns)
    g = created["game"]
    typer.echo(f"started {g['type']} game {g['id']} with " + ", ".join(p["name"] for p in created["players"])
               + " (each player's password went to their address with the turn 1 report)")


@app.command(short_help="Add, move or remove an observer of a game.")
def observe(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    email: str = typer.Argument(..., metavar="EMAIL", help="The observer's address."),
    remove: bool = typer.Option(False, "--remove", help="Stop sending to this address."),
    new_email: str | None = typer.Option(None, "--email", metavar="ADDRESS", help="Move this observer to a new address (both addresses are told; the game's public mail not yet sent to the old one, refused mail too, goes to it)."),
) -> None:
    """Add an observer: the address gets each turn's public report (or --remove it, or move
    it to a new address with --email).

    Example: pbem observe athens-1 fan@example.org

    Example: pbem observe athens-1 fan@example.org --email fan@new.example.org
    """
    from pbem.host import seats

    if remove and new_email is not None:
        _fail("give --remove or --email ADDRESS, not both", code=2)
    if new_email is None:
        typer.echo(seats.observe(_store(), game_id, email, remove=remove))
        return
    r = seats.move_observer(_store(), game_id, email, new_email)
    typer.echo(f"{r['game']}: the observer at {r['was']} is now at {r['email']}; both are told")
    _say_moved(r)


def _say_moved(r: dict) -> None:
    """What a new address (a seat's, an observer's) took along: the mail not yet sent to the old one."""
    moved = r["moved"]
    if moved["queued"] or moved["failed"]:
        n = moved["queued"] + moved["failed"]
        typer.echo(f"  {plural(n, 'message')} not yet sent to {r['was']} now {'goes' if n == 1 else 'go'} to {r['email']}"
                   + ("" if not moved["failed"] else " (refused at the old address, queued again)" if moved["failed"] == n
                      else f" ({moved['failed']} of them refused at the old address, queued again)")
                   + ": `pbem send` delivers them")


@app.command("list", short_help="Every game: turn, state, deadline, awaited.")
def list_games(as_json: bool = typer.Option(False, "--json", help="Print JSON: a list of games.")) -> None:
    """List every game: type, turn, state (open, running, paused, over), deadline (and when
    its grace period ends, with the option grace), who is awaited.

    Example: pbem list --json
    """
    from pbem.host import controls

    games = controls.games_list(_reader())  # only reads: the light store
    if as_json:
        import json

        typer.echo(json.dumps({"version": 1, "games": games}, indent=2, sort_keys=True))
        return
    if not games:
        typer.echo("no games")
    for g in games:
        if g["state"] == "open":
            typer.echo(f"{g['id']:20} {g['type']:8} open for sign-up: {g['joined']} of {g['seats']} seats taken")
            continue
        awaited = ", ".join(g["awaited"]) or "-"
        bots = f"; bot seats: {', '.join(g['bots'])}" if g["bots"] else ""
        bots += f"; waiting: {', '.join(g['waiting'])} asked to WAIT" if g.get("waiting") else ""
        grace = f"grace until {g['grace_ends']} " if g.get("grace_ends") else ""  # finding 13: when the defaults apply
        typer.echo(f"{g['id']:20} {g['type']:8} turn {g['turn']:<4} {g['state']:8} deadline {g['deadline'] or 'none':21} "
                   f"{grace}awaiting {awaited}{bots}")


@app.command(short_help="End a game: winners or a draw (players told).")
def end(
    game_id: str = typer.Argument(..., metavar="GAME_ID", help="The game."),
    winner: list[str] = typer.Option([], "--winner", metavar="NAME", help="A winner (repeat for several)."),
    draw: bool = typer.Option(False, "--draw", help="A draw, shared by every seat."),
    reason: str | None = typer.Option(None, "--reason", metavar="TEXT", help="Why (recorded and told to the players)."),
) -> None:
    """End a game now with a recorded result; the players are told and the seed is revealed.
    A game still open for sign-up is closed instead, with no result (`pbem end GAME`
    alone): it was never set up; whoever joined is told.

    Example: pbem end athens-1 --winner zeus --reason "the others conceded by mail"
    """
    from pbem.host import controls, read, seats

    db = _store()
    if read.open_game(db, game_id):
        if winner or draw:
            _fail(f"game '{game_id}' is open for sign-up and has not started: it has no result to record; "
                  f"`pbem end {game_id}` alone closes the sign-up", code=2)
        typer.echo(seats.close_signup(db, game_id, reason=reason))
        return
    if bool(winner) == draw:
        _fail("give --winner NAME (one or more) or --draw", code=2)
    r = controls.end_game(db, game_id, winners=winner or None, draw=draw, reason=reason)
    o = r["outcome"]
    typer.echo(f"{r['game']}: over, " + ("a draw shared by " if o["draw"] else "won by ") + ", ".join(o["winners"]))
