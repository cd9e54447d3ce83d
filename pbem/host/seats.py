"""Seats: who plays each seat of a game, and how to reach them, as library functions over the
store -- a new address, a new password, a replacement, a resignation, a bot seat, open
sign-up (JOIN, `pbem start`) and observers.

The name of a seat never changes. The engine's state, the events, the submissions, the
reports and `pbem replay` all know a seat by the name it got when the game began, so a
replacement keeps that name: the newcomer gets a new password and their own name is recorded
as the seat's `person` (shown beside the seat's name, and accepted on a PLAYER line as
well as the seat's name). Every change is a row of `seat_history` and of the GM-action log.

Passwords go to the seat's registered address and nowhere else; a function that makes one
returns it to its caller (the GM's CLI prints it) and never puts it in a log, an
announcement or any other player's mail.

Open sign-up: a game opened with N seats (`open_game`, `pbem new ... --open N`) lives in
`signups` until it starts: the engine needs the players' names to set a game up, so nothing
of the game exists before then. Each JOIN takes a seat and a password (by mail, once the
address has confirmed it with the code `join_code` makes, mailed to it); the game starts when
the last seat is taken, or when the GM runs `pbem start` (with at least the game's minimum
of players), through `pbem.host.service.new_game` with the names and passwords of the
sign-up, so every player's turn-1 mail carries the password they already have.
"""

from __future__ import annotations

import os
import re

from pbem.core.errors import InputError, NotFound, PbemError
from pbem.host import controls, names, outbox, queries, read, schedule
from pbem.host.controls import announce, clean_email, observer_footer, record_action, tell_gm
from pbem.host.store import dumps, loads

__all__ = [
    "add_seat", "close_signup", "join", "join_code", "move_observer", "observe", "observer_code", "observer_move_code", "observers",
    "open_game", "replace", "reset_password", "resign", "send_password", "set_address", "set_bot", "sign_up", "start", "withdraw",
]


def new_password() -> str:
    """A new password: pbem.host.passwords' generator when there is one, else the service's."""
    try:
        from pbem.host.passwords import new_password as make
    except ImportError:
        from pbem.host.service import new_password as make
    return make()


def _history(db, game_id: str, player: str, change: str, old, new) -> None:
    db["seat_history"].insert({"game_id": game_id, "player": player, "at": schedule.iso(schedule.now()),
                               "change": change, "old": old, "new": new})


def _seat(db, game_id: str, player: str) -> tuple[dict, dict]:
    game = read.game(db, game_id)
    return game, read.player(db, game["id"], player)


def _playing(game: dict, doing: str) -> None:
    if game["status"] != "running":
        raise PbemError(f"game '{game['id']}' is over; cannot {doing}")


def shown(seat: dict) -> str:
    """A seat for people: its name, and the person playing it when that is another name."""
    return seat["name"] + (f" (played by {seat['person']})" if seat.get("person") else "")


# --- address and password -------------------------------------------------------------------

def _address_free(db, game_id: str, seat_name: str, addr: str) -> None:
    """Refuse an address registered to another seat of the game: that seat's mail would be
    taken as this one's (and its right password logged as a wrong one)."""
    for other in read.players(db, game_id):
        if other["name"] != seat_name and other.get("email") and other["email"].lower() == addr.lower():
            raise PbemError(f"the address {addr} is already registered to another seat of game '{game_id}'; "
                            "each seat needs its own address. Nothing was changed")


def _readdress(db, game_id: str, seat_name: str, old: str | None, new: str) -> dict[str, int]:
    """The seat's mail not yet sent to its old address goes to the new one (issue 17): the
    queued messages (a turn-1 report with the password among them), and those the old
    address refused (`failed`), queued again. The GM who corrects a typo'd or bouncing
    address, or a player who sends SET ADDRESS, never has a report or a password sent to the
    address just corrected away. Returns how many of each were moved."""
    if not old:
        return {"queued": 0, "failed": 0}
    return _move_unsent(db, "game_id = ? and player = ? and lower(to_addr) = lower(?)", [game_id, seat_name, old],
                        old, new)


def _move_unsent(db, mine: str, params: list, old: str, new: str) -> dict[str, int]:
    """The outbox rows `mine` (a condition, with its `params`) picks, not sent yet, go to
    `new`: the queued ones, and those refused at `old` (`failed`) queued again. Returns how
    many of each were moved (a seat's mail: `_readdress`; an observer's: `move_observer`)."""
    queued = db.execute(f"update outbox set to_addr = ?, next_attempt = null where {mine} and status = 'queued'",
                        [new, *params]).rowcount
    failed = db.execute(f"update outbox set to_addr = ?, status = 'queued', next_attempt = null, last_error = ? "
                        f"where {mine} and status = 'failed'",
                        [new, f"refused at {old}; queued again for {new}", *params]).rowcount
    return {"queued": queued, "failed": failed}


def set_address(db, game_id: str, player: str, email: str, *, by: str = "gm") -> dict:
    """Register a new address for a seat; both the old and the new address are told. The
    seat's mail not yet sent to the old address goes to the new one (`_readdress`)."""
    game, seat = _seat(db, game_id, player)
    _playing(game, "change an address")
    new = clean_email(email)
    old = seat.get("email")
    if old == new:
        raise PbemError(f"player '{seat['name']}' of game '{game['id']}' is already at {new}")
    _address_free(db, game["id"], seat["name"], new)
    with db.atomic():
        db["players"].update((game["id"], seat["name"]), {"email": new})
        moved = _readdress(db, game["id"], seat["name"], old, new)  # before the notices to both addresses
        _history(db, game["id"], seat["name"], "address", old, new)
        record_action(db, game["id"], by=by, action="address", detail=f"seat {seat['name']}: address changed")
        text = (f"The address of {shown(seat)} in game {game['id']} is now {new}"
                + (f" (it was {old})" if old else "") + ". Reports and acknowledgements go there from now on"
                " (those not sent yet too);"
                " orders are taken from it.\nIf you did not ask for this, tell the GM at once.\n")
        for addr in dict.fromkeys(a for a in (old, new) if a):
            outbox.queue(db, kind="notice", to_addr=addr, subject=f"[{game['id']}] new address for {seat['name']}",
                         body=text + outbox.footer(game["id"]), game_id=game["id"], phase=game["phase"], player=seat["name"])
    return {"game": game["id"], "player": seat["name"], "email": new, "was": old, "moved": moved}


def _mail_password(db, game: dict, seat: dict, password: str, why: str) -> int | None:
    body = (f"{why}\n\nGame {game['id']}, seat {shown(seat)}.\nYour password: {password}\n"
            "Put it on the PASSWORD line of your orders; keep it to yourself.\n")
    return outbox.queue(db, kind="password", to_addr=seat["email"], subject=f"[{game['id']}] your password",
                        body=body + outbox.footer(game["id"]), game_id=game["id"], phase=game["phase"], player=seat["name"])


def reset_password(db, game_id: str, player: str, *, by: str = "gm") -> str:
    """A new password for a seat (the old one stops working), mailed to the registered
    address. Returns it (for the GM, when the seat has no address)."""
    game, seat = _seat(db, game_id, player)
    _playing(game, "reset a password")
    password = new_password()
    with db.atomic():
        db["players"].update((game["id"], seat["name"]), {"password": password})
        _history(db, game["id"], seat["name"], "password", None, None)
        record_action(db, game["id"], by=by, action="password", detail=f"seat {seat['name']}: new password")
        if seat.get("email"):
            _mail_password(db, game, seat, password, "The GM has made you a new password; the old one no longer works.")
    return password


def send_password(db, game_id: str, player: str) -> int:
    """Mail a seat's password to its registered address, and only there (SEND PASSWORD).
    Returns the outbox id."""
    game, seat = _seat(db, game_id, player)
    if not seat.get("email"):
        raise PbemError(f"player '{seat['name']}' of game '{game['id']}' has no registered address; the GM can reset the password")
    with db.atomic():
        oid = _mail_password(db, game, seat, seat["password"], "You asked for your password (SEND PASSWORD).")
    if oid is None:
        raise PbemError(f"the registered address of player '{seat['name']}' cannot be written to")
    return oid


# --- replacement, resignation, bots --------------------------------------------------------------

def _check_person(db, game_id: str, seat: dict, newname: str) -> str:
    name = names.check_seat_name(newname)
    for other in read.players(db, game_id):
        if other["name"] == seat["name"]:
            continue
        if name in (other["name"], other.get("person")):
            raise PbemError(f"the name '{name}' is taken in game '{game_id}' (seat {shown(other)})")
    return name


def replace(db, game_id: str, player: str, newname: str, email: str | None = None, *, by: str = "gm",
            reason: str | None = None) -> str:
    """A new person takes the seat: a new password (the old one stops working), the new
    address (or none: the GM hands the password over), the latest report and where to find
    the history mailed to the newcomer; everyone is told. The seat keeps its name (see the
    module's docstring); `newname` is the person's. Returns the new password."""
    game, seat = _seat(db, game_id, player)
    _playing(game, "replace a player")
    person = _check_person(db, game["id"], seat, newname)
    addr = clean_email(email) if email else None
    if addr:
        _address_free(db, game["id"], seat["name"], addr)
    password = new_password()
    before = seat.get("person") or seat["name"]
    if person == before and not seat.get("vacant") and not seat.get("bot"):
        raise PbemError(f"{person} already plays {seat['name']} in game '{game['id']}': nobody is replaced. "
                        f"`pbem seat {game['id']} {seat['name']} --email ADDR` gives the seat a new address"
                        f" (and --reset-password a new password)")
    old_addr = seat.get("email")
    with db.atomic():
        db["players"].update((game["id"], seat["name"]), {"person": None if person == seat["name"] else person,
                                                         "email": addr, "password": password, "bot": 0, "vacant": 0})
        gone = controls.drop_seat_flags(db, game, seat["name"])  # finding 03: the WAIT and vote were `before`'s
        _history(db, game["id"], seat["name"], "replaced", dumps({"person": before, "email": seat.get("email")}),
                 dumps({"person": person, "email": addr}))
        record_action(db, game["id"], by=by, action="replace", detail=f"seat {seat['name']}: {before} -> {person}",
                      reason=reason)
        announce(db, game["id"], subject=f"{seat['name']} has a new player",
                 text=f"From turn {game['phase']}, {person} plays the seat {seat['name']} in game {game['id']} "
                      f"(it was {'a bot' if seat.get('bot') else 'vacant' if seat.get('vacant') else before}).\n"
                      + (controls.withdrawn(gone, f"{before}'s") + " A WAIT, a vote or an absence is its sender's "
                         f"own; {person} sends their own if they want one.\n" if gone else "")
                      + (f"Reason: {reason}\n" if reason else ""))
        if old_addr and (not addr or old_addr.lower() != addr.lower()):  # the player replaced is told too (no password)
            outbox.queue(db, kind="notice", to_addr=old_addr, subject=f"[{game['id']}] you no longer play {seat['name']}",
                         body=f"The GM has given the seat {seat['name']} in game {game['id']} to {person} from turn "
                              f"{game['phase']}; your password for it no longer works and this address gets no more "
                              "of its mail.\n" + (controls.withdrawn(gone, "Your") + "\n" if gone else "")
                              + (f"Reason: {reason}\n" if reason else "")
                              + "If you did not expect this, tell the GM.\n" + outbox.footer(game["id"]),
                         game_id=game["id"], phase=game["phase"], player=seat["name"])
        if addr:
            latest = queries.current_deadline(db, game, read.report_text(db, game["id"], game["phase"], seat["name"]) or "")
            body = (f"Welcome to game {game['id']}: you take over the seat {seat['name']} (seat {seat['seat']}) "
                    f"from turn {game['phase']}.\nYour password: {password}\n"
                    f"Put it on the PASSWORD line of your orders (with PLAYER {seat['name']}); keep it to yourself.\n"
                    f"Earlier turns: send HISTORY {game['id']} [TURN] with your PLAYER and PASSWORD lines for their "
                    "public reports (the game's pages on the GM's site show them too).\n"
                    + (f"{controls.withdrawn(gone, before + chr(39) + 's')} Send your own (WAIT, DRAW, CONCEDE, "
                       "ABSENT) if you want one.\n" if gone else "") + "\n"
                    "Your latest report follows.\n\n" + latest)
            outbox.queue(db, kind="report", to_addr=addr, subject=f"[{game['id']}] you play {seat['name']}: turn {game['phase']} report",
                         body=body + outbox.footer(game["id"]), game_id=game["id"], phase=game["phase"], player=seat["name"])
    return password


def add_seat(db, game_id: str, name: str, email: str | None = None, *, by: str = "gm",
             reason: str | None = None, turns=None) -> str:
    """A new player joins a running game in a new seat (last in seat order): the game's rules
    must take them (Rules.add_player; Faith: in its Negotiation phase, L348), the open turn's
    position is changed and its reports written again, the newcomer gets a password and the
    latest report, everyone is told. The seat records the turn it joined in, so `pbem replay`
    and the published record add it at that turn. `turns`: the folder whose report files of
    the open turn are written again too. Returns the password."""
    from pbem.core import engine
    from pbem.core.registry import get_rules
    from pbem.host import reporting
    from pbem.host.folders import touch_turn_folder
    from pbem.host.service import _store_reports, _write_report_files

    game = read.game(db, game_id)
    _playing(game, "add a seat")
    rules = get_rules(game["type"])
    player = names.check_seat_name(name)
    seats = read.players(db, game["id"])
    if any(s["name"] == player or s.get("person") == player for s in seats):
        raise PbemError(f"the name '{player}' is taken in game '{game['id']}'")
    if len(seats) >= rules.info.max_players:
        raise PbemError(f"{rules.info.title} is for at most {rules.info.max_players} players; "
                        f"game '{game['id']}' has {len(seats)}")
    addr = clean_email(email) if email else None
    if addr:
        _address_free(db, game["id"], player, addr)
    number = game["phase"]
    phase = read.rows(db, "select * from phases where game_id = ? and number = ?", [game["id"], number])[0]
    state, events = engine.add_player(rules, loads(phase["state"]), player)   # the rules may refuse (PbemError)
    password = new_password()
    seat = {"game_id": game["id"], "name": player, "email": addr, "seat": max(s["seat"] for s in seats) + 1,
            "bot": 0, "password": password, "joined": number}
    touch_turn_folder(turns, game["id"], number)  # its report files are checked again (pbem.host.folders)
    with db.atomic():
        db["players"].insert(seat)
        db.execute("update phases set state = ?, state_hash = ?, active = ? where game_id = ? and number = ?",
                   [dumps(state), engine.state_hash(state), dumps(engine.active_players(rules, state)), game["id"], number])
        # the join's events belong to the events the open turn's reports show (those of the
        # resolution that opened it), after them
        last = db.execute("select coalesce(max(seq), -1) from events where game_id = ? and phase = ?",
                          [game["id"], number - 1]).fetchone()[0]
        db["events"].insert_all({"game_id": game["id"], "phase": number - 1, "seq": last + 1 + i, "data": dumps(e)}
                                for i, e in enumerate(events))
        shown = [loads(r["data"]) for r in db["events"].rows_where("game_id = ? and phase = ?", [game["id"], number - 1],
                                                                  order_by="seq")]
        texts = reporting.render(rules, game, read.players(db, game["id"]), state, shown, number)
        _store_reports(db, game["id"], number, texts)
        _history(db, game["id"], player, "joined", None, dumps({"email": addr, "turn": number}))
        record_action(db, game["id"], by=by, action="join", detail=f"new seat {player} in turn {number}", reason=reason)
        announce(db, game["id"], subject=f"{player} joins the game",
                 text=f"From turn {number}, {player} plays a new seat (seat {seat['seat']}) in game {game['id']}.\n"
                      + (f"Reason: {reason}\n" if reason else ""))
        if addr:
            body = (f"Welcome to game {game['id']}: you play the new seat {player} (seat {seat['seat']}) from turn {number}.\n"
                    f"Your password: {password}\n"
                    f"Put it on the PASSWORD line of your orders (with PLAYER {player}); keep it to yourself.\n"
                    f"Earlier turns: send HISTORY {game['id']} [TURN] with your PLAYER and PASSWORD lines for their "
                    "public reports.\n\n"
                    "Your report follows.\n\n" + (texts.get(player) or ""))
            outbox.queue(db, kind="report", to_addr=addr, subject=f"[{game['id']}] you join as {player}: turn {number} report",
                         body=body + outbox.footer(game["id"]), game_id=game["id"], phase=number, player=player)
    _write_report_files(turns, game["id"], number, texts)   # copies of the store's, after the commit
    return password


def resign(db, game_id: str, player: str, gm: str | None = None) -> str:
    """The player leaves: the seat goes to the game's `seat_policy` (a bot, or vacant: the
    default orders each turn), the old password and address stop working, the GM is told
    (gm_email, else `gm`: the host's GM address, and the GM-action log `pbem status` shows
    it either way). Returns the sentence for the player."""
    game, seat = _seat(db, game_id, player)
    _playing(game, "resign")
    if seat.get("vacant"):
        raise PbemError(f"seat '{seat['name']}' of game '{game['id']}' is already vacant")
    policy = read.host_options(db, game)["seat_policy"]
    flags = {"bot": 1, "vacant": 0} if policy == "bot" else {"bot": 0, "vacant": 1}
    leaves = "a bot plays it from now on" if policy == "bot" else "it is vacant: the default orders are used each turn"
    with db.atomic():
        db["players"].update((game["id"], seat["name"]), {**flags, "email": None, "password": new_password()})
        gone = controls.drop_seat_flags(db, game, seat["name"])  # finding 03: their WAIT and vote leave with them
        _history(db, game["id"], seat["name"], "resigned", dumps({"person": seat.get("person") or seat["name"],
                                                                  "email": seat.get("email")}), policy)
        record_action(db, game["id"], by=f"player:{seat['name']}", action="resign", detail=f"seat {seat['name']}: {policy}")
        announce(db, game["id"], subject=f"{seat['name']} resigned",
                 text=f"{shown(seat)} has resigned from game {game['id']} at turn {game['phase']}; {leaves}.\n"
                      + (controls.withdrawn(gone, "Their") + "\n" if gone else ""))
        tell_gm(db, game["id"], f"{seat['name']} resigned",
                f"{shown(seat)} resigned from game {game['id']} at turn {game['phase']}; the seat is now {policy}.\n"
                f"`pbem replace {game['id']} {seat['name']} NEWNAME[:EMAIL]` gives it to a new player.\n", fallback=gm)
        ended = controls.settle_votes(db, game["id"])  # the votes of the players still playing may now suffice
    return (f"RESIGN: you have left game {game['id']}; seat {seat['name']} is now {'a bot' if policy == 'bot' else 'vacant'}. "
            + (controls.withdrawn(gone, "Your") + " " if gone else "")
            + (f"The votes of the players still playing end the game now: it is over, {ended}. " if ended else "")
            + "Thank you for playing.")


def set_bot(db, game_id: str, player: str, bot: bool, *, by: str = "gm", reason: str | None = None) -> dict:
    """A bot plays the seat at every resolution from now on (`bot`), or the seat's person
    again. A vacant seat is given to a person with `replace`."""
    game, seat = _seat(db, game_id, player)
    _playing(game, "change a seat")
    left = db.execute("select 1 from seat_history where game_id = ? and player = ? and change = 'resigned'",
                      [game["id"], seat["name"]]).fetchone() and not seat.get("person") and not seat.get("email")
    # a vacant seat is no person's either (tester4 finding 13: it was "already played by a person")
    if not bot and (seat.get("vacant") or left):
        raise PbemError(f"seat '{seat['name']}' has no player (they resigned): `pbem replace {game['id']} {seat['name']} "
                        "NEWNAME[:EMAIL]` gives it to a person")
    if bool(seat.get("bot")) == bool(bot):
        raise PbemError(f"seat '{seat['name']}' of game '{game['id']}' is already {'a bot' if bot else 'played by a person'}")
    with db.atomic():
        db["players"].update((game["id"], seat["name"]), {"bot": int(bool(bot)), "vacant": 0})
        gone = controls.drop_seat_flags(db, game, seat["name"]) if bot else []  # finding 03: a bot sends neither
        _history(db, game["id"], seat["name"], "bot" if bot else "human", None, None)
        record_action(db, game["id"], by=by, action="bot" if bot else "human", detail=f"seat {seat['name']}", reason=reason)
        announce(db, game["id"], subject=f"{seat['name']} is {'a bot' if bot else 'played by a person again'}",
                 text=(f"From turn {game['phase']}, a bot plays {shown(seat)} in game {game['id']}: its orders are made "
                       "by the computer at each resolution.\n" + (controls.withdrawn(gone, "The player's") + "\n" if gone else ""))
                      if bot else
                      f"From turn {game['phase']}, {shown(seat)} plays their own seat in game {game['id']} again.\n")
        if bot:
            controls.settle_votes(db, game["id"])  # the votes of the players still playing may now suffice
    return {"game": game["id"], "player": seat["name"], "bot": bool(bot)}


# --- open sign-up --------------------------------------------------------------------------------

def open_game(db, game_type: str, game_id: str, seats: int, seed: str | None = None,
              options: dict[str, str] | None = None, sched: dict | None = None) -> dict:
    """Announce a game with `seats` open seats (state "open"): players JOIN it; it starts when
    full or at `start`."""
    from pbem.core.registry import get_rules
    rules = get_rules(game_type)
    game_id = names.check_name("game id", game_id)
    if db.execute("select 1 from games where id = ?", [game_id]).fetchone() or \
            db.execute("select 1 from signups where id = ?", [game_id]).fetchone():
        raise PbemError(f"a game '{game_id}' already exists")
    info = rules.info
    if not isinstance(seats, int) or not info.min_players <= seats <= info.max_players:
        raise InputError(f"{info.title} is for {info.min_players} to {info.max_players} players, not {seats}")
    rules_opts, host_opts = controls.split_options(options)
    controls.check_useful(game_type, rules_opts, host_opts, game_id)  # finding 13: reaction_deadline
    row = {"id": game_id, "type": game_type, "seats": seats, "seed": None if seed is None else str(seed),
           "options": dumps(rules_opts), "host_options": dumps(host_opts), "schedule": dumps(sched),
           "created": schedule.iso(schedule.now())}
    with db.atomic():
        db["signups"].insert(row)
        record_action(db, game_id, by="gm", action="open", detail=f"{game_type}, {seats} seats")
    return row


def _signup(db, game_id: str, *, starting: bool = False) -> dict:
    found = read.rows(db, "select * from signups where id = ?", [(game_id or "").strip().lower()])
    if found:
        return found[0]
    if db.execute("select 1 from games where id = ?", [(game_id or "").strip().lower()]).fetchone():
        if starting:
            raise PbemError(f"game '{game_id}' has already started: there is nothing to start")
        raise PbemError(f"game '{game_id}' has already started; only games open for sign-up take new players")
    known = [r[0] for r in db.execute("select id from signups order by id").fetchall()]
    raise NotFound(f"no game '{game_id}' is open for sign-up" + (f"; open games: {', '.join(known)}" if known else ""))


def _default_name(email: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9_-]+", "-", email.split("@")[0].lower()).strip("-_")[:36] or "player"
    if not base[0].isalnum():
        base = "p" + base
    name, n = base, 2
    while name in taken or names.taken_word(name) or not names.NAME.match(name):
        name, n = f"{base}{n}", n + 1
    return name


def _joinable(db, game_id: str, email: str, name: str | None) -> tuple[dict, list[dict], str, str | None]:
    """Check that `email` may take a seat in the open game `game_id` under `name` (None: a name
    made from the address): (the sign-up, who joined so far, the address, the name checked or
    None). Raises the reason it may not (a PbemError; NotFound for no such open game)."""
    signup = _signup(db, game_id)
    addr = clean_email(email)
    joined = read.signed_up(db, signup["id"])
    if any(j["email"].lower() == addr.lower() for j in joined):
        mine = next(j["name"] for j in joined if j["email"].lower() == addr.lower())
        raise PbemError(f"{addr} has already joined game '{signup['id']}' as {mine}")
    if len(joined) >= signup["seats"]:
        raise PbemError(f"game '{signup['id']}' is full ({signup['seats']} seats)")
    player = None
    if name:
        player = names.check_seat_name(name)
        if player in {j["name"] for j in joined}:
            raise PbemError(f"the name '{player}' is taken in game '{signup['id']}'; JOIN {signup['id']} with another name")
    return signup, joined, addr, player


def join_code(db, game_id: str, email: str, name: str | None = None) -> tuple[str, str | None]:
    """The code that confirms a JOIN by mail of this address, under this name (None: a name
    made from the address), in this sign-up of this game: (the code, the name checked). Like
    OBSERVE's (`observer_code`), known only to the store and to whoever reads that address's
    mail, so a forged From takes no seat. Refused (PbemError) when the JOIN itself would be."""
    signup, _joined, addr, player = _joinable(db, game_id, email, name)
    # the sign-up's creation time too: a game opened again under the same id takes no old code
    return _code(db, "join-key", "JOIN", "join", signup["id"], signup["created"], addr.lower(), player or ""), player


def _code(db, key_name: str, what: str, *parts: str) -> str:
    """An HMAC of `parts` under a key kept in the store (`kept_secret`), 10 hex digits."""
    import hashlib
    import hmac

    from pbem.host.store import kept_secret

    key = kept_secret(db, key_name)
    if key is None:
        raise PbemError(f"{what} cannot be confirmed now (the store cannot be written); try again later")
    return hmac.new(key.encode(), "\n".join(parts).encode(), hashlib.sha256).hexdigest()[:10]


def join(db, game_id: str, email: str, name: str | None = None, *, turns=None) -> tuple[str, str]:
    """Take a seat in a game open for sign-up: (the seat's name, its password). The caller
    tells the player (the JOIN reply); by mail, only once the address has confirmed it
    (`join_code`). The game starts when this fills the last seat."""
    signup, joined, addr, player = _joinable(db, game_id, email, name)
    if player is None:
        player = _default_name(addr, {j["name"] for j in joined})
    password = new_password()
    with db.atomic():
        db["signup_players"].insert({"game_id": signup["id"], "name": player, "email": addr, "password": password,
                                     "joined": schedule.iso(schedule.now())})
        if len(joined) + 1 >= signup["seats"]:
            start(db, signup["id"], turns=turns)
    return player, password


def _tell_signup_gm(db, signup: dict, subject: str, text: str, fallback: str | None) -> None:
    """Mail the GM of a game open for sign-up (its gm_email option, else `fallback`)."""
    addr = (loads(signup.get("host_options")) or {}).get("gm_email") or fallback
    if addr:
        outbox.queue(db, kind="gm", to_addr=addr, subject=f"[{signup['id']}] {subject}", body=text, game_id=signup["id"])


def withdraw(db, game_id: str, player: str, *, by: str = "gm", reason: str | None = None,
             gm: str | None = None) -> str:
    """Take back a sign-up to a game open for sign-up (tester4 finding 14): the player's
    RESIGN by mail (`by` "player"), or the GM's `pbem seat GAME NAME --withdraw`. The seat is
    open again; the player is told (by the GM's hand: a mail to their address), the GM is
    told of a player's own withdrawal. Returns the sentence for whoever asked."""
    signup = _signup(db, game_id)
    name = (player or "").strip().lower()
    found = read.rows(db, "select * from signup_players where game_id = ? and name = ?", [signup["id"], name])
    if not found:
        joined = [j["name"] for j in read.signed_up(db, signup["id"])]
        raise NotFound(f"nobody signed up for game '{signup['id']}' as '{player}'"
                       + (f"; signed up: {', '.join(joined)}" if joined else "; nobody has signed up yet"))
    row = found[0]
    why = f" ({reason})" if reason else ""
    with db.atomic():
        db.execute("delete from signup_players where game_id = ? and name = ?", [signup["id"], row["name"]])
        record_action(db, signup["id"], by=by if by == "gm" else f"player:{row['name']}", action="withdraw",
                      detail=f"sign-up of {row['name']}", reason=reason)
        if by == "gm":
            outbox.queue(db, kind="notice", to_addr=row["email"], subject=f"[{signup['id']}] your sign-up is withdrawn",
                         body=f"The GM has withdrawn your sign-up ({row['name']}) for game {signup['id']}, which has "
                              f"not started yet{why}. Your password for it no longer works.\n", game_id=signup["id"])
        else:
            _tell_signup_gm(db, signup, f"{row['name']} withdrew",
                            f"{row['name']} ({row['email']}) withdrew their sign-up for game {signup['id']}; "
                            "the seat is open again.\n", gm)
    left = signup["seats"] - db.execute("select count(*) from signup_players where game_id = ?", [signup["id"]]).fetchone()[0]
    if by == "gm":
        return f"{signup['id']}: the sign-up of {row['name']} is withdrawn ({row['email']} is told); {left} seat(s) open"
    return (f"RESIGN: your sign-up ({row['name']}) for game {signup['id']} is withdrawn, before the game started; "
            "your password for it no longer works. You may JOIN again while it is open.")


def close_signup(db, game_id: str, *, reason: str | None = None) -> str:
    """The GM's `pbem end` of a game open for sign-up: the sign-up is closed and gone (no game
    was set up: there is no seed to reveal, no result); each player who joined is told."""
    signup = _signup(db, game_id)
    joined = read.signed_up(db, signup["id"])
    why = f" ({reason})" if reason else ""
    with db.atomic():
        for j in joined:
            outbox.queue(db, kind="notice", to_addr=j["email"], subject=f"[{signup['id']}] game cancelled",
                         body=f"The GM has closed the sign-up for game {signup['id']} before it started{why}: "
                              "the game will not be played. Your password for it no longer works.\n",
                         game_id=signup["id"])
        db.execute("delete from signup_players where game_id = ?", [signup["id"]])
        db.execute("delete from signups where id = ?", [signup["id"]])
        record_action(db, signup["id"], by="gm", action="close", detail=f"sign-up closed, {len(joined)} joined",
                      reason=reason)
    return (f"{signup['id']}: sign-up closed before the game started; {len(joined)} player(s) who joined are told"
            if joined else f"{signup['id']}: sign-up closed before the game started (nobody had joined)")


def sign_up(db, game_id: str, name: str, email: str | None, *, turns=None, by: str = "gm") -> dict:
    """The GM seats a player in a game open for sign-up (`pbem join` on an open game): as a
    JOIN by mail does, without the confirmation (the GM vouches for the address), recorded.
    The address is needed: the player's turn-1 report, with the password, goes there when the
    game starts (at once, when this fills the last seat). Returns {game, player, password,
    joined, seats, started}."""
    signup = _signup(db, game_id)
    if not (email or "").strip():
        raise InputError(f"game '{signup['id']}' is open for sign-up: a player seated there needs an address, where "
                         f"their turn-1 report and password go when it starts: `pbem join {signup['id']} "
                         f"{(name or 'NAME').strip().lower()}:EMAIL`")
    with db.atomic():
        player, password = join(db, signup["id"], email, name, turns=turns)
        started = bool(db.execute("select 1 from games where id = ?", [signup["id"]]).fetchone())
        record_action(db, signup["id"], by=by, action="sign-up", detail=f"{player} seated by the GM"
                      + ("; the game started" if started else ""))
    joined = signup["seats"] if started else db.execute("select count(*) from signup_players where game_id = ?",
                                                        [signup["id"]]).fetchone()[0]
    return {"game": signup["id"], "player": player, "password": password, "joined": joined, "seats": signup["seats"],
            "started": started}


def start(db, game_id: str, *, turns=None) -> dict:
    """Start a game open for sign-up with the players who joined (at least the game's
    minimum): set up by the rules, turn 1 opened and every player's report mailed. Its
    report files go under `turns` (default: PBEM_TURNS, else ./turns, as the CLI's)."""
    from pbem.core.registry import get_rules
    from pbem.host import service

    signup = _signup(db, game_id, starting=True)
    joined = read.signed_up(db, signup["id"])
    info = get_rules(signup["type"]).info
    if len(joined) < info.min_players:
        raise PbemError(f"game '{signup['id']}' needs at least {info.min_players} players to start; {len(joined)} joined")
    options = {**(loads(signup["options"]) or {}), **(loads(signup["host_options"]) or {})}
    with db.atomic():
        db.execute("delete from signup_players where game_id = ?", [signup["id"]])
        db.execute("delete from signups where id = ?", [signup["id"]])
        created = service.new_game(db, signup["type"], signup["id"], [f"{j['name']}:{j['email']}" for j in joined],
                                   seed=signup["seed"], options=options, sched=loads(signup["schedule"]),
                                   turns=(os.environ.get("PBEM_TURNS") or service.DEFAULT_TURNS) if turns is None else turns,
                                   passwords={j["name"]: j["password"] for j in joined})
        record_action(db, signup["id"], by="gm", action="start", detail=f"{len(joined)} players: "
                      + ", ".join(j["name"] for j in joined))
        # observers who signed up while the game was open get its first public report too
        controls.queue_observer_reports(db, read.game(db, signup["id"]), 1, read.report_text(db, signup["id"], 1, ""))
    return created


# --- observers -------------------------------------------------------------------------------------

def _observable(db, gid: str) -> bool:
    """Whether the game `gid` has started (else it is open for sign-up); NotFound when it is neither."""
    if db.execute("select 1 from games where id = ?", [gid]).fetchone():
        return True
    if read.open_game(db, gid):
        return False
    known = [r[0] for r in db.execute("select id from games where status = 'running' union select id from signups "
                                      "order by 1").fetchall()]
    raise NotFound(f"no game '{gid[:40]}'" + (f"; its games: {', '.join(known)}" if known else "") + " (LIST shows them)")


def observe(db, game_id: str, email: str, *, remove: bool = False) -> str:
    """Add (or `remove`) an observer: an address that gets each turn's public report (and
    the public announcements). A new observer gets the latest public report at once.
    Returns the sentence to tell them."""
    addr = clean_email(email)
    gid = (game_id or "").strip().lower()
    started = _observable(db, gid)
    game = read.game(db, gid) if started else None
    known = db.execute("select 1 from observers where game_id = ? and lower(email) = lower(?)", [gid, addr]).fetchone()
    if remove:
        if not known:
            raise NotFound(f"{addr} does not observe game '{gid}'")
        with db.atomic():
            db.execute("delete from observers where game_id = ? and lower(email) = lower(?)", [gid, addr])
            record_action(db, gid, by="gm", action="observe", detail="an observer left")
        return f"OBSERVE: {addr} no longer observes game {gid}."
    if known:
        raise PbemError(f"{addr} already observes game '{gid}'")
    with db.atomic():
        db["observers"].insert({"game_id": gid, "email": addr, "added": schedule.iso(schedule.now())})
        record_action(db, gid, by="gm", action="observe", detail="an observer joined")
        if game is not None:
            latest = queries.current_deadline(db, game, read.report_text(db, gid, game["phase"], ""))
            if latest:
                outbox.queue(db, kind="observer", to_addr=addr, subject=f"[{gid}] turn {game['phase']} public report",
                             body=latest + observer_footer(gid, over=game["status"] == "finished"),
                             game_id=gid, phase=game["phase"])
    return f"OBSERVE: {addr} now observes game {gid}: each turn's public report goes there."


def observer_code(db, game_id: str, email: str) -> str:
    """The code that confirms an OBSERVE by mail for this game and address: known only to the
    store (an HMAC under a key kept in it) and to whoever reads that address's mail."""
    addr = clean_email(email)
    gid = (game_id or "").strip().lower()
    _observable(db, gid)
    return _code(db, "observe-key", "OBSERVE", gid, addr.lower())


def history_code(db, game_id: str, email: str) -> str:
    """The code that has a game's public history mailed (HISTORY GAME [TURN] CONFIRM CODE) to
    an address no seat's password vouches for: good for that game and that address, any turn,
    and known only to the store (an HMAC under a key kept in it) and to whoever reads that
    address's mail -- a forged From has nothing mailed but the short answer that carries it."""
    addr = clean_email(email)
    return _code(db, "history-key", "HISTORY", "history", (game_id or "").strip().lower(), addr.lower())


def _observing(db, gid: str, addr: str) -> str | None:
    """The address as the observers table has it, when `addr` observes game `gid`; else None."""
    row = db.execute("select email from observers where game_id = ? and lower(email) = lower(?)", [gid, addr]).fetchone()
    return row[0] if row else None


def _movable(db, game_id: str, old: str, new: str) -> tuple[str, str, str]:
    """(the game, the observing address as kept, the new address) for a move of an observer;
    refused (NotFound, PbemError) when `old` observes no such game, or `new` is no address,
    is `old`, or observes the game already."""
    gid = (game_id or "").strip().lower()
    _observable(db, gid)
    was = _observing(db, gid, clean_email(old))
    if was is None:
        raise NotFound(f"{clean_email(old)} does not observe game '{gid}'")
    addr = clean_email(new)
    if addr.lower() == was.lower():
        raise PbemError(f"{addr} is the address that observes game '{gid}' already. Nothing was changed")
    if _observing(db, gid, addr):
        raise PbemError(f"{addr} already observes game '{gid}'. Nothing was changed")
    return gid, was, addr


def observer_move_code(db, game_id: str, old: str, new: str) -> str:
    """The code that confirms, by mail, the move of the observer `old` of a game to the
    address `new` (OBSERVE GAME ADDRESS NEW): mailed to `old` only, and sent back from `new`,
    so the move is asked by the address that observes and confirmed by the one it moves to --
    a forged From moves nobody's mail (an HMAC under a key kept in the store, as
    `observer_code`). Refused as the move itself would be."""
    gid, was, addr = _movable(db, game_id, old, new)
    return _move_code(db, gid, was, addr)


def _move_code(db, gid: str, was: str, addr: str) -> str:
    return _code(db, "observer-address-key", "OBSERVE ADDRESS", "move", gid, was.lower(), addr.lower())


def observer_moved_by(db, game_id: str, new: str, code: str) -> str | None:
    """The observer of a game whose move to `new` the `code` confirms (`observer_move_code`),
    or None when it confirms none."""
    import hmac

    gid = (game_id or "").strip().lower()
    addr = clean_email(new)
    for was in read.observers(db, gid):
        if was.lower() != addr.lower() and hmac.compare_digest(_move_code(db, gid, was, addr), code.lower()):
            return was
    return None


def move_observer(db, game_id: str, old: str, new: str, *, by: str = "gm") -> dict:
    """Move an observer of a game to a new address; both addresses are told. The public mail
    of the game not yet sent to the old address (queued, or refused there) goes to the new
    one, as a seat's does (`_readdress`). By mail only once both addresses have shown they
    agree (`observer_move_code`); the GM's `pbem observe GAME OLD --email NEW` moves at once."""
    gid, was, addr = _movable(db, game_id, old, new)
    game = read.game(db, gid) if db.execute("select 1 from games where id = ?", [gid]).fetchone() else None
    mine = "game_id = ? and player is null and lower(to_addr) = lower(?) and kind in ('observer', 'notice', 'press')"
    with db.atomic():
        db.execute("update observers set email = ? where game_id = ? and lower(email) = lower(?)", [addr, gid, was])
        moved = _move_unsent(db, mine, [gid, was], was, addr)
        record_action(db, gid, by=by, action="observe", detail="an observer moved to a new address")
        text = (f"The observer of game {gid} at {was} is now at {addr}: the game's public reports go there from now "
                "on (those not sent yet too).\nIf you did not ask for this, tell the GM at once.\n")
        over = bool(game and game["status"] == "finished")
        left = f"\n-- \nThis address no longer observes game {gid}: nothing more of it comes here.\n"
        for to, footer in ((was, left), (addr, observer_footer(gid, over=over))):
            outbox.queue(db, kind="notice", to_addr=to, subject=f"[{gid}] new address for an observer",
                         body=text + footer, game_id=gid, phase=game["phase"] if game else None)
    return {"game": gid, "email": addr, "was": was, "moved": moved}


def observers(db, game_id: str) -> list[str]:
    """The addresses observing a game."""
    gid = (game_id or "").strip().lower()
    if not db.execute("select 1 from games where id = ?", [gid]).fetchone():
        _signup(db, gid)
    return read.observers(db, gid)
