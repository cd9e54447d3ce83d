"""The host: what each CLI command does, as library functions over the store.

Each function takes an open store (sqlite_utils.Database) and raises PbemError subclasses
for anything a user did wrong; the CLI turns those into clean messages.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path


from pbem.core import citations, engine
from pbem.host import folders, outbox, read, reporting, schedule, store
from pbem.host.names import NAME, RESERVED, check_name, check_seat_name  # noqa: F401 (NAME, RESERVED: for older importers)
from pbem.core.text import printable
from pbem.host.files import read_regular, shown, write_all_atomic, write_new_folder
from pbem.host.read import current_state, turn_dir
from pbem.host.read import game as _game
from pbem.host.read import phase as _phase
from pbem.host.read import player as _player
from pbem.host.read import players as _players
from pbem.core.engine import LineResult
from pbem.core.errors import AuthError, InputError, NotFound, PbemError
from pbem.core.orders import Script, decode, read_script
from pbem.core.registry import get_rules
from pbem.core.rng import Rng, new_seed, seed_hash
from pbem.core.words import plural
from pbem.host.store import dumps, loads

log = logging.getLogger("pbem.host")

DEFAULT_TURNS = "turns"
_check_name = check_name  # the names a game or a seat may have: pbem.host.names


def new_password() -> str:
    from pbem.host import passwords  # issue 14: six words of 2048 (66 bits)

    return passwords.new_password()


def _store_reports(db, game_id: str, number: int, texts: dict[str, str]) -> None:
    db.conn.executemany("INSERT OR REPLACE INTO reports (game_id, phase, player, text) VALUES (?, ?, ?, ?)",
                        [(game_id, number, who, text) for who, text in texts.items()])  # issue 17: plain SQL


@contextmanager
def _one_commit(db, turns: str | Path | None):
    """A write transaction of turns (resolve --all, autoplay: issue 17), yielding the list the
    body fills with (Resolved, its report texts or None) for each turn it stores; then the
    commit, and only once it is made each turn's report files. A body that raises stores
    nothing and writes no file. A file that cannot be written is the result's warning: the
    turn is stored, and the files are copies a later run restores."""
    taken: list[tuple[Resolved, dict | None]] = []
    with store.write_transaction(db):
        yield taken
        if any(texts is not None for _, texts in taken):
            failpoint("resolve-before-commit")
    if any(texts is not None for _, texts in taken):
        failpoint("resolve-after-commit")
    for result, texts in taken:
        if texts is not None:
            try:
                _write_report_files(turns, result.game_id, result.turn + 1, texts, rendered=True)
            except OSError as err:
                result.warning = _files_warning(err)


def _write_report_files(turns: str | Path | None, game_id: str, number: int, texts: dict[str, str],
                        rendered: bool = False) -> None:
    """The report files of a turn (`rendered`: `texts` are reporting.render's, printable already)."""
    if turns is None:
        return
    # whole or not at all: a crash leaves no half report; issue 17: no control character, and
    # plain paths (the folder made by write_all_atomic when missing)
    files = {f"{who or 'public'}.txt": (text if rendered else printable(text)).encode("utf-8") for who, text in texts.items()}
    turn = os.path.join(os.fspath(turns), game_id, str(number))
    # issue 17: a turn's folder not there yet (the turn just opened) is made whole at once,
    # reports and all; else (an order file dropped in early, a reports folder lost) each file
    # is written whole, one after the other, and any problem is said as it always was
    if not write_new_folder(turn, "reports", files):
        write_all_atomic(os.path.join(turn, "reports"), files)


def restore_report_files(db, turns: str | Path | None, warnings: dict[str, str] | None = None,
                         found: folders.Scan | None = None) -> list[Path]:
    """Write the report files of each game's current turn that are missing from turns/ (a
    run killed between its commit and the files, a reports folder deleted by hand): the
    files are copies of the store's reports, so any later run makes them whole again. Only
    the games whose turn folder is not known complete are listed (pbem.host.folders: one
    stat a game otherwise); a finished game whose folder the GM removed is left alone. A
    game whose files cannot be written (a full disk, a file where its folder should be) does
    not stop the others: why goes into `warnings` by game id. `found`: the run's look at the
    folders, when it has one. Returns the files written."""
    if found is None:
        found = folders.scan(db, turns)
    if found is None:
        return []
    check = found.check
    if len(check) > 200:  # a first look at a big host: all at once
        wanted: dict[str, list] = {}
        for gid, who in db.execute(
                "SELECT r.game_id, r.player FROM reports r JOIN games g ON g.id = r.game_id AND r.phase = g.phase"):
            wanted.setdefault(gid, []).append(who)
    else:
        wanted = {gid: [r[0] for r in db.execute("SELECT player FROM reports WHERE game_id = ? AND phase = ?", [gid, number])]
                  for gid, number, *_ in check}
    written, complete = [], []
    for gid, number, status, mtime, waiting in check:
        names = {f"{who or 'public'}.txt": who for who in wanted.get(gid, [])}
        folder = turn_dir(turns, gid, number) / "reports"
        if names and status != "running" and not folder.parent.parent.is_dir():
            continue
        if names:
            try:
                have = set(os.listdir(folder))
            except OSError:  # none yet, or a file where the folder goes: writing them below says why
                have = set()
            missing = [who for name, who in names.items() if name not in have]
            if missing:
                texts = {who: text for who, text in db.execute(
                    f"SELECT player, text FROM reports WHERE game_id = ? AND phase = ? AND player IN ({','.join('?' * len(missing))})",
                    [gid, number, *missing])}
                try:
                    _write_report_files(turns, gid, number, texts)
                except OSError as err:
                    if warnings is not None:
                        warnings[gid] = _files_warning(err)
                    continue
                written += [folder / f"{who or 'public'}.txt" for who in texts]
                continue
        if mtime is not None and not waiting:
            complete.append((gid, number, mtime))
    folders.record(found, complete)
    return written


# --- new -----------------------------------------------------------------------------------

def new_game(db, game_type: str, game_id: str, players: list[str], seed: str | None = None,
             options: dict[str, str] | None = None, sched: dict | None = None,
             turns: str | Path | None = DEFAULT_TURNS, open_seats: int | None = None,
             passwords: dict[str, str] | None = None) -> dict:
    """Create a game, set it up, open turn 1 and write its reports. Returns the game row and
    the players' generated passwords (or those given in `passwords`, by player name).

    `options` holds the game rules' options and the host's (grace, remind, early, ...: see
    pbem.host.controls.OPTIONS), told apart by name. With `open_seats` N the game is
    announced for open sign-up instead (pbem.host.seats.open_game): no players yet."""
    from pbem.host import controls

    if open_seats is not None:
        from pbem.host import seats as seat_control

        if players:
            raise PbemError("an open game takes no players: they JOIN it")
        return {"signup": seat_control.open_game(db, game_type, game_id, open_seats, seed=seed, options=options,
                                                  sched=sched), "players": []}
    rules = get_rules(game_type)
    game_id = _check_name("game id", game_id)
    if db["games"].exists() and db["games"].count_where("id = ?", [game_id]):
        raise PbemError(f"a game '{game_id}' already exists")
    if db["signups"].exists() and db["signups"].count_where("id = ?", [game_id]):
        raise PbemError(f"a game '{game_id}' already exists (open for sign-up)")
    options, host_options = controls.split_options(options)
    controls.check_useful(game_type, options, host_options, game_id)  # finding 13: reaction_deadline
    seats = []
    for spec in players:
        name, _, email = spec.partition(":")
        name = check_seat_name(name)
        if any(s["name"] == name for s in seats):
            raise PbemError(f"player '{name}' is named twice")
        email = email.strip()
        if email:
            # issue 14: only addresses mail can carry
            from pbem.host.addresses import check_address

            email = check_address(email)
        seats.append({"name": name, "email": email or None})
    info = rules.info
    if not info.min_players <= len(seats) <= info.max_players:
        raise PbemError(f"{info.title} is for {info.min_players} to {info.max_players} players, not {len(seats)}")
    seed = str(seed) if seed is not None else new_seed()
    opened = schedule.now()
    state, events = engine.start(rules, [s["name"] for s in seats], options or {}, seed)
    due = schedule.deadline(sched, opened)
    game = {
        "id": game_id, "type": game_type, "seed": seed, "seed_hash": seed_hash(seed),
        "options": dumps(options or {}), "schedule": dumps(sched), "status": "running", "phase": 1,
        "deadline": schedule.iso(due), "created": schedule.iso(opened), "finished": None, "outcome": None,
        **controls.option_columns(host_options),
    }
    for i, s in enumerate(seats):
        s.update(game_id=game_id, seat=i + 1, bot=0, password=(passwords or {}).get(s["name"]) or new_password())
    if state["flow"].get("over"):
        game.update(status="finished", finished=schedule.iso(opened), outcome=dumps(rules.outcome(state)))
    with db.atomic():
        db["games"].insert(game)
        db["players"].insert_all(seats)
        db["phases"].insert({
            "game_id": game_id, "number": 1, "state": dumps(state), "state_hash": engine.state_hash(state),
            "active": dumps(engine.active_players(rules, state)), "opened": schedule.iso(opened),
            "deadline": schedule.iso(due), "resolved": None, "nmr": None, "used": None,
        })
        db["events"].insert_all({"game_id": game_id, "phase": 0, "seq": i, "data": dumps(e)} for i, e in enumerate(events))
        texts = reporting.render(rules, game, seats, state, events, 1)
        _store_reports(db, game_id, 1, texts)
        outbox.queue_reports(db, game, seats, 1, texts, welcome=True)  # mail: each player's report
    _write_report_files(turns, game_id, 1, texts)
    return {"game": game, "players": seats}


# --- submit --------------------------------------------------------------------------------

_OVER = "no more orders are taken"  # why a game that is over refuses orders


@dataclass
class Ack:
    game_id: str
    player: str
    turn: int | None
    status: str  # accepted | partial | rejected
    lines: list[LineResult] = field(default_factory=list)
    reason: str = ""
    submission_id: int | None = None
    confirmed: bool = False  # the orders carry a READY line
    rules: dict[int, str] = field(default_factory=dict)  # issue 18: line -> the rule its ruling applies
    rule: str = ""  # ...and the rule of `reason`, when the whole submission is rejected by one
    asked: bool = True  # the player is asked for orders this turn (told apart for an empty submission)
    # READY alone (no order line): the submission on file it made ready, as it stands ({"id", "received",
    # "lines"}); an empty submission: the orders on file it replaced with none (its acknowledgement says so)
    confirms: dict | None = None
    replaces: dict | None = None
    # finding 07: the orders resolution takes for the player after these lines run out while her part
    # of the turn goes on ({"orders": [...], "unsure": dice or hidden cards first, "alone": the only
    # player asked, "early": the game resolves as soon as every player asked is ready})
    defaults: dict | None = None
    # issue 17: the submissions row as stored (its columns in the table's order), for a caller
    # that goes on in the same transaction (autoplay) instead of reading it back
    stored: dict | None = field(default=None, repr=False, compare=False)

    @property
    def ready(self) -> bool:
        """Whether these orders let the turn resolve before its deadline: none rejected, or
        taken as they are with READY."""
        return self.status == "accepted" or (self.status == "partial" and self.confirmed)

    @property
    def ok(self) -> bool:
        return self.status == "accepted"

    @staticmethod
    def _why(r: LineResult) -> str:
        """A line's reason without its line number: the acknowledgement names each line once."""
        prefix = f"line {r.number}, "
        return r.reason[len(prefix):] if r.reason.startswith(prefix) else r.reason

    def _cited(self, r: LineResult, why: str) -> str:
        """`why` with the rule the ruling applies in brackets, at the end of its first line."""
        rule = self.rules.get(r.number)
        if not rule:
            return why
        first, sep, rest = why.partition("\n")
        return f"{first} [{rule}]{sep}{rest}"

    @property
    def text(self) -> str:
        head = f"pbem acknowledgement: game {self.game_id}, player {self.player}" + (f", turn {self.turn}" if self.turn else "")
        out = [head, "=" * len(head)]
        if self.confirms and self.status != "rejected":
            out.append(f"READY: your orders on file for this turn, received {self.confirms['received']}, are made ready as "
                       "they stand; this replaces nothing. They are (line numbers of that message):")
        if self.status == "rejected":
            out.append(f"REJECTED: {self.reason}" + (f" [{self.rule}]" if self.rule else ""))
            out.append("Nothing was changed." if self.reason.endswith(_OVER)  # no turn for earlier orders to stand in
                       else "Nothing was changed; any earlier orders you sent for this turn still stand.")
            out += [f"line {r.number:>3}: REJECTED  {self._cited(r, self._why(r))}" for r in self.lines if r.status != "accepted"]
            return "\n".join(out + self._rules_note()) + "\n"
        for r in self.lines:
            if r.status == "ignored":
                out.append(f"line {r.number:>3}: ignored, not an order  {r.text}")
            elif r.status == "accepted" and r.reason.startswith(engine.ANSWER_REASON):  # a reaction asked live
                out.append(f"line {r.number:>3}: accepted, waiting for an answer  {self._cited(r, f'{r.order} ({r.reason})')}")
            elif r.status == "accepted" and engine.hedged(r.reason):   # chance: dice, hidden cards
                out.append(f"line {r.number:>3}: accepted, if the dice allow  {self._cited(r, f'{r.order} ({r.reason})')}")
            elif r.status == "accepted" and r.reason:   # Rules.condition: a two-sided deal, a victory claim
                out.append(f"line {r.number:>3}: accepted, {r.reason}  {self._cited(r, r.order)}")
            elif r.status == "accepted":
                out.append(f"line {r.number:>3}: accepted  {r.order}")
            else:
                out.append(f"line {r.number:>3}: REJECTED  {self._cited(r, self._why(r))}")
        accepted = sum(1 for r in self.lines if r.status == "accepted")
        ignored = sum(1 for r in self.lines if r.status == "ignored")
        rejected = len(self.lines) - accepted - ignored
        if not self.lines and self.asked:
            out.append("(no orders: the game's default orders will be used for you)")
        elif not self.lines:
            out.append("(no orders, and none are asked of you this turn: nothing is needed from you until it is your turn)")
        out.append(f"{accepted} accepted, {rejected} rejected." + (f" {ignored} ignored (not orders)." if ignored else ""))
        out += self._defaults_note()
        # the re-check of finding 07: when the turn may be resolved before its deadline (said
        # just above), "before the deadline" would promise time the player may not have
        by = ("before the turn is resolved (see above)" if self.defaults and self.ready and self.defaults["early"]
              else "before the deadline")
        if self.confirms:
            out.append(f"Send new orders to change them {by}.")
        else:
            out.append(f"These orders replace any you sent earlier for this turn; send again to change them {by}.")
        if self.replaces:
            out.append(f"They replace your orders received {self.replaces['received']} "
                       f"({plural(self.replaces['lines'], 'order line')}) with none. To keep those instead, send a line "
                       "READY alone (with your PASSWORD): it makes the orders on file ready and replaces nothing.")
        if rejected and self.confirmed:
            out.append("READY: you take these orders as they are; the rejected lines will be skipped when the turn is resolved.")
        elif rejected and not self.asked:  # (finding 04: no turn waits for a player it does not ask)
            out.append("You are not asked for orders this turn, so the turn does not wait for you: the rejected lines are "
                       "skipped and the accepted ones kept (no READY is needed). Send again to change them; nothing "
                       "more is needed from you until you are asked.")
        elif rejected:
            out.append("You are NOT READY while lines are rejected: the turn waits for your corrected orders until its "
                       "deadline (then the rejected lines are skipped). To keep these orders as they are, send a line "
                       "READY (with your PASSWORD, no order line needed): it makes them ready and replaces nothing.")
        return "\n".join(out + self._rules_note()) + "\n"

    def _defaults_note(self) -> list[str]:
        """Finding 07: an order set that leaves part of the player's turn open says what is
        taken for her (an action left out, or just the end of her part, when she could still
        do more), and when the turn may be resolved -- before she can add the rest."""
        d = self.defaults
        if not d:
            return []
        taken = d["orders"]
        if all(t.split()[0].lower() in engine.ENDING_VERBS for t in taken if t.split()):  # it only ends her part
            if not d["more"]:
                return [f"After these orders your part of this turn ends ({'; '.join(taken)}, by default)."]
            out = [f"After these orders your part of this turn ends ({'; '.join(taken)}, by default): nothing else you "
                   "could still do this turn is done."]
        elif d["unsure"]:
            out = ["NOT COMPLETE: after these orders your part of this turn is not over (as far as the check can tell: "
                   "dice or hidden cards come first); whatever is left will be done for you by default."]
        else:
            out = [f"NOT COMPLETE: after these orders your part of this turn is not over; "
                   f"{'this' if len(taken) == 1 else 'these'} will be done for you by default: {'; '.join(taken)}."]
        if self.ready and d["early"]:
            when = ("You are the only player asked, so the turn is resolved at the judge's next run, before its deadline"
                    if d["alone"] else "The turn is resolved before its deadline as soon as every player asked is ready")
            out.append(f"{when}: to do more yourself, send your complete orders again now (or a line WAIT with your "
                       "PASSWORD, to keep the turn open until its deadline).")
        return out

    def _rules_note(self) -> list[str]:
        """How to read the brackets, when a ruling cites one (issue 18)."""
        if not (self.rule or any(r.number in self.rules for r in self.lines if r.status != "accepted" or r.reason)):
            return []
        return ["[...] names the rule each ruling applies: a section of the game's rules text, or a CHOICE of ours "
                "written in the game's data (see `How to read the rulings` in the game's orders)."]


def _cite_whole(game_type: str, reason: str) -> str:
    """The rule a whole submission's rejection applies (the game is over, not your turn), if
    the game's citations name one; a password or deadline is no rule of the game: ''."""
    try:
        return citations.cite_reason(get_rules(game_type).data, reason) or ""
    except PbemError:
        return ""


_CHECKS: dict[tuple, object] = {}  # `_by_position`'s results


# issue 17: the most order lines one submission may hold. A turn's orders are a few dozen lines
# in every game (a Deity order form ~30); each line is checked in the position the lines before
# it leave, in up to 64 outcomes of the dice, so a mail of thousands of lines cost minutes and
# gigabytes. A submission over it is kept and refused whole, changing nothing.
MAX_ORDER_LINES = 300


def _checked(db, rules, game: dict, player: str, script: Script, kept: dict | None = None) -> list[LineResult]:
    """engine.check_script of `script` in the game's open turn (`_by_position`), each caller
    getting its own copies."""
    found = _by_position(db, game, player, script, kept, "check",
                         lambda state: engine.check_script(rules, state, player, script))
    return [_copied(r) for r in found]


def _defaults_after(db, rules, game: dict, player: str, script: Script, kept: dict | None = None):
    """engine.defaults_after of `script` in the game's open turn (`_by_position`: 0.2 ms a
    time, a third of an order mail's cost, were it worked out for each)."""
    found = _by_position(db, game, player, script, kept, "defaults",
                         lambda state: engine.defaults_after(rules, state, player, script) or ())
    return (list(found[0]), found[1], found[2]) if found else None


def _by_position(db, game: dict, player: str, script: Script, kept: dict | None, what: str, work):
    """`work(state)` of the game's open turn, worked out once for the same lines against the
    same position (issue 17: keyed by the phase's state hash; an ingest run meets the same
    orders mailed again and again). `kept`: where the caller keeps rows it read in this
    transaction while nothing changes them (the phase's state hash is read once a run, as
    the mail layer's Context.rows). `what` keeps apart the results of different `work`."""
    row = read.kept(kept, ("state_hash", game["id"], game["phase"]), lambda: db.execute(
        "select state_hash from phases where game_id = ? and number = ?", [game["id"], game["phase"]]).fetchone())
    key = (what, game["type"], row[0] if row else None, player, tuple((line.number, line.text) for line in script.lines))
    found = _CHECKS.get(key) if row and row[0] else None
    if found is None:
        found = work(current_state(db, game))
        if row and row[0]:
            if len(_CHECKS) >= 256:
                _CHECKS.clear()
            _CHECKS[key] = found
    return found


def _copied(r: LineResult) -> LineResult:
    """A shallow copy of a line's result: what copy.copy makes of a dataclass without slots
    (a new instance, its attributes the same objects), without copy's generic protocol
    (issue 17: dataclasses.replace builds each through __init__, copy.copy through
    __reduce_ex__: both slower)."""
    new = object.__new__(type(r))
    new.__dict__.update(r.__dict__)
    return new


def _asked(db, rules, game: dict, kept: dict | None = None) -> list[str]:
    """The players asked for orders in the game's open turn (engine.active_players); issue 17:
    with `kept` (see `_checked`), worked out once while it is kept, not from the turn's state
    read and decoded again for each message sent out of turn."""
    return read.kept(kept, ("asked", game["id"], game["phase"]), lambda: engine.active_players(rules, current_state(db, game)))


_SUBMISSION_COLUMNS = ("id", "game_id", "phase", "player", "received", "source", "raw", "sha256", "status", "ack", "ready")


def submit(db, game_id: str, player: str, raw: bytes, source: str = "cli", trusted: bool = False,
           delivered: datetime | None = None, mail: dict | None = None,
           known: tuple[dict, list[dict]] | None = None, script: Script | None = None,
           savepoint: bool = True, kept: dict | None = None) -> Ack:
    """Store an order text for the current turn and check it against the position.

    The raw bytes are kept whatever happens. `trusted` (the GM typing orders in, or files the
    GM dropped into turns/) waives the password; a PASSWORD line, if present, must be right.
    It also waives the deadline: the GM collects files as they arrive and resolves after the
    deadline, so a file the GM put in the turn folder is on time by the GM's word. And the GM's
    entries count as ready as they are: only a player's own orders with a rejected line (and no
    READY) keep a turn from resolving before its deadline. READY alone (no order line) makes the
    player's orders on file for the turn ready as they stand and replaces nothing (refused when
    there are none); an empty submission without READY is an empty order set.

    Mail (pbem.mailin): `delivered` is when the message reached the GM's mailbox (the deadline
    is checked against it, never later than now); `mail` ({"to", "in_reply_to", "inbox_id"})
    queues the acknowledgement to the sender in the same transaction (not with "held": the
    caller mails it, one reply for a message with orders for several games), and a mailed submission
    none of whose lines can be used is rejected as a whole (wrong phase, parse errors, or no
    usable orders), so
    it does not replace earlier orders.

    `known`: the game's row and its players' rows (`read.game`, `read.players`) when the caller
    has just read them in this same transaction (issue 17: the mail layer has, for each message).

    `savepoint=False`: the caller holds a savepoint of its own that an exception rolls back
    (ingest's, a message's), so the submission and its acknowledgement are written without
    one more (issue 17: two statements a message); outside a transaction one is begun anyway.
    `kept`: rows the caller keeps while nothing changes them (see `_checked`)."""
    game = known[0] if known else _game(db, game_id)
    row = _player(db, game_id, player, known[1] if known else None)
    player = row["name"]
    number = game["phase"]
    received = schedule.iso(min(delivered, schedule.now()) if delivered else schedule.now())
    ack = Ack(game_id, player, number, "rejected")
    on_file: dict | None = None
    try:
        if game["status"] != "running":
            raise PbemError(f"game '{game_id}' is over; {_OVER}")
        if script is None:  # `script`: read_script(decode(raw)), when the caller has it (autoplay)
            script = read_script(decode(raw))
        if script.header_errors:
            raise InputError("; ".join(script.header_errors))
        if script.game and script.game != game_id:
            raise AuthError(f"these orders are for game '{script.game}', not '{game_id}'")
        if script.player and script.player not in (player, row.get("person")):  # a replacement may use their own name
            raise AuthError(f"these orders are for player '{script.player}', not '{player}'; a player can only send their own orders")
        if script.password is not None and script.password != row["password"]:
            left = read.resigned(db, game["id"], row)
            raise AuthError("wrong password" + (f": {left}" if left else ""))
        if script.password is None and not trusted:
            raise AuthError("no PASSWORD line: add 'PASSWORD <your password>' to your orders")
        if not trusted and game["deadline"] and schedule.parse_time(received) > schedule.parse_time(game["deadline"]):
            raise PbemError(f"too late: the deadline of turn {number} was {game['deadline']}")
        if not script.lines:  # READY alone keeps the orders on file (the submission that counts); an empty set replaces them
            on_file = read.latest_submissions(db, game_id, number).get(player)
        if script.ready and not script.lines:
            if on_file is None:
                raise InputError(f"READY alone, and you have no orders on file for turn {number}: there is nothing to "
                                 "make ready. Send your orders (with a line READY to take them as they are, rejected "
                                 "lines and all); to send no orders at all (the game's default orders), send your "
                                 "PASSWORD line alone, without READY")
            script = read_script(decode(on_file["raw"]))
            ack.confirms = {"id": on_file["id"], "received": on_file["received"], "lines": len(script.lines)}
        if len(script.lines) > MAX_ORDER_LINES:  # each line is checked in up to 64 outcomes of the dice
            raise InputError(f"too many lines: {len(script.lines)} order lines; one turn's orders take at most "
                             f"{MAX_ORDER_LINES} (send each order once)")
        rules = get_rules(game["type"])
        if source == "bot" and trusted and mail is None:  # issue 17: a bot seat's lines (bot_script) are legal orders
            ack.lines = [LineResult(line.number, line.text, "accepted", line.text) for line in script.lines]
        else:
            ack.lines = _checked(db, rules, game, player, script, kept)
        ack.rules = {r.number: rule for r in ack.lines if r.reason and r.status != "ignored"
                     and (rule := citations.cite_reason(rules.data, r.reason, r.text))}  # issue 18
        ack.status = "accepted" if all(r.status in ("accepted", "ignored") for r in ack.lines) else "partial"
        ack.confirmed = script.ready or trusted or bool(ack.confirms)  # the GM's own entries (and bot seats) are taken as they are
        if not ack.lines or ack.status == "partial":  # an empty submission: default orders only for a player asked
            ack.asked = player in _asked(db, rules, game, kept)  # this turn; a rejected line: does the turn wait?
            earlier = len(read_script(decode(on_file["raw"])).lines) if on_file and not ack.confirms else 0
            if earlier:  # (its acknowledgement says what it replaced, and how to keep it instead)
                ack.replaces = {"id": on_file["id"], "received": on_file["received"], "lines": earlier}
        if mail is not None and ack.lines and not ack.confirms and not any(r.status == "accepted" for r in ack.lines):
            ack.status = "rejected"
            asked = _asked(db, rules, game, kept)
            if player not in asked:
                raise PbemError(f"wrong phase: it is not your turn (awaiting {', '.join(asked) or 'nobody'})")
            if all(r.error == "invalid" for r in ack.lines if r.status == "rejected"):
                raise InputError("parse errors: no line of these orders is an order of this game")
            raise InputError("no usable orders: every line was rejected (each line says why)")
        if ack.lines and any(r.status == "accepted" for r in ack.lines) and not (source == "bot" and trusted):
            # finding 07: what resolution takes for the player when these lines run out before her part of
            # the turn is over (an action left out), and whether the turn may be resolved before she adds it
            asked = _asked(db, rules, game, kept)
            if player in asked:
                left = _defaults_after(db, rules, game, player, script, kept)
                if left and left[0]:
                    ack.defaults = {"orders": left[0], "unsure": left[1], "more": left[2], "alone": asked == [player],
                                    "early": bool(game.get("early", 1))}
    except PbemError as err:
        ack.reason = str(err)
        ack.rule = _cite_whole(game["type"], ack.reason)
    text = ack.text
    with db.atomic() if savepoint or not db.conn.in_transaction else nullcontext():
        # READY alone is stored as the orders it made ready (the turn is resolved from the latest
        # submission's text); its sha256 stays that of the text sent (an order file is collected once)
        values = [game_id, number, player, received, source, on_file["raw"] if ack.confirms else raw,
                  hashlib.sha256(raw).hexdigest(), ack.status, text, int(ack.ready)]
        ack.submission_id = db.execute(  # issue 17: plain SQL (sqlite-utils reads the schema each insert)
            "INSERT INTO submissions (game_id, phase, player, received, source, raw, sha256, status, ack, ready) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values).lastrowid
        ack.stored = dict(zip(_SUBMISSION_COLUMNS, [ack.submission_id, *values]))
        if mail is not None and not mail.get("held"):  # held: the mail layer puts it in a reply of its own
            outbox.queue_ack(db, ack, mail, text)  # mail: the acknowledgement goes out with the submission
    return ack


def collect_turn_files(db, game_id: str, number: int, turns: str | Path | None) -> list[Ack]:
    """Submit order files the GM dropped in turns/GAME_ID/TURN/PLAYER.txt (each once)."""
    if turns is None:
        return []
    try:  # issue 17: one listing, no pathlib glob; a Path only for a folder with order files
        names = sorted(name for name in os.listdir(os.path.join(os.fspath(turns), game_id, str(number)))
                       if name.endswith(".txt"))
    except OSError:  # no folder (or a file in its place)
        return []
    acks = []
    if not names:  # issue 17: the usual case (its reports only), without a Path made
        return acks
    folder = turn_dir(turns, game_id, number)  # the files' source names, as they always were
    for path in (folder / name for name in names):
        if shown(path.name) != path.name:  # issue 17: no player has such a name, and it cannot be stored
            raise PbemError(f"{shown(path)}: the file name is not valid UTF-8 or holds a control character (only "
                            f"PLAYER.txt files belong there); rename the file or move it away")
        try:  # a FIFO would wait for a writer for ever, a link could point anywhere
            raw = read_regular(path)
        except OSError as err:  # resolve reports it for this game, and goes on with the others
            why = err.strerror or str(err)
            raise PbemError(f"{path}: cannot be read as orders ({why}); replace it with a plain text file "
                            f"or move it away") from None
        digest = hashlib.sha256(raw).hexdigest()
        source = f"file:{path}"
        if db["submissions"].count_where("game_id = ? and phase = ? and source = ? and sha256 = ?", [game_id, number, source, digest]):
            continue
        try:
            acks.append(submit(db, game_id, path.stem, raw, source=source, trusted=True))
        except NotFound as err:  # resolve reports it for this game, and goes on with the others
            raise PbemError(f"{path}: {err}; move the file away (only PLAYER.txt files belong there)") from None
    return acks


# --- resolve -------------------------------------------------------------------------------

@dataclass
class Resolved:
    game_id: str
    turn: int
    outcome: str  # resolved | waiting | finished | error (this game could not be resolved: detail says why)
    detail: str = ""
    nmr: list[str] = field(default_factory=list)
    reports: dict[str, str] = field(default_factory=dict)  # with preview: every report of the new turn
    state_hash: str = ""
    warning: str = ""  # resolved and stored, but its report files could not be written (the next run writes them)
    # issue 17: the turn just opened, already found waiting in the same transaction (resolve's next pass)
    then: Resolved | None = field(default=None, repr=False, compare=False)
    # issue 17: the turn just opened as _resolve_locked left it (its game row, players, state and
    # deadline), for the look at it in the same transaction (_waiting_next), which reads none again
    opened: dict | None = field(default=None, repr=False, compare=False)


class _Preview(Exception):
    """Raised inside a preview's transaction so that everything it wrote is rolled back."""

    def __init__(self, result: Resolved):
        self.result = result


def _preview(db, game_id: str, force: bool, turns) -> Resolved:
    """The current phase of one game resolved in a write transaction that is rolled back:
    the result with every report, nothing stored or written. (`resolve` stores turns in
    _resolve_batch: the write lock held from the first read to the commit, so a concurrent
    submit or resolve waits, no submission arrives unseen mid-resolution and no phase is
    resolved twice; report files written after the commit: the store is the truth.)"""
    try:
        with store.write_transaction(db):
            result, _ = _resolve_locked(db, game_id, force, turns, True)
            raise _Preview(result)
    except _Preview as done:
        return done.result


def _waiting_next(db, game_id: str, turns, resolved: Resolved) -> Resolved | None:
    """The turn `resolved` just opened, looked at as the next pass of `resolve` would (not
    forced): its result when it waits, else None with nothing of the look kept."""
    known, resolved.opened = resolved.opened, None
    db.conn.execute("SAVEPOINT pbem_next_turn")
    try:
        result, _ = _resolve_locked(db, game_id, False, turns, False, known=known, check_only=True)
    except Exception:  # the next pass meets it again, in its own transaction, and reports it
        result = None
    if result is None:
        db.conn.execute("ROLLBACK TO pbem_next_turn")
    db.conn.execute("RELEASE pbem_next_turn")
    return result


def _files_warning(err: OSError) -> str:
    return (f"its report files could not be written ({err.strerror or err}: {err.filename or ''}); "
            "the next run writes them from the store")


_failpoints: dict[str, int] = {}


def failpoint(name: str) -> None:
    """Crash-test hook: with PBEM_FAILPOINT=NAME@N in the environment, the process kills
    itself (SIGKILL, no clean-up) the Nth time it reaches NAME. Unset, it does nothing."""
    spec = os.environ.get("PBEM_FAILPOINT")
    if not spec:
        return
    target, _, nth = spec.partition("@")
    if target != name:
        return
    _failpoints[name] = _failpoints.get(name, 0) + 1
    if _failpoints[name] >= int(nth or 1):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def _resolve_locked(db, game_id: str, force: bool, turns, preview: bool, known: dict | None = None,
                    check_only: bool = False, look_ahead: bool = False):
    """The work of one pass of `resolve` (_resolve_batch, _preview) in its transaction.
    `known` (autoplay, issue 17): the game's row, its players' rows and the open turn's
    state and deadline, read in this same transaction, so not read again; "scripts": the
    submissions already read, by id; and "latest" (autoplay), the turn's latest submissions
    as read.latest_submissions would read them (the rows read, and those stored since). `check_only`: stop where the turn would be resolved,
    returning (None, None) (the turn is due), or the result why not as always. `look_ahead`:
    the turn opened is kept in the result's `opened` for _waiting_next."""
    game = known["game"] if known else _game(db, game_id)
    rules = get_rules(game["type"])
    number = game["phase"]
    if game["status"] != "running":
        return Resolved(game_id, number, "finished", "the game is over"), None
    # the GM's controls: pause, bot and vacant seats, WAIT, grace, early
    from pbem.host import controls

    if controls.paused_waiting(game):
        return Resolved(game_id, number, "waiting", controls.paused_waiting(game)), None
    if known:
        phase, state = {"deadline": known["deadline"]}, known["state"]
    else:
        phase = _phase(db, game_id, number)
        state = loads(phase["state"])
    collect_turn_files(db, game_id, number, turns)
    asked = engine.active_players(rules, state)
    latest = known["latest"] if known and "latest" in known else read.latest_submissions(db, game_id, number)
    seated = {p["name"]: p for p in (known["players"] if known else _players(db, game_id))}
    if controls.bot_submissions(db, game, rules, state, asked, latest, list(seated.values())):  # bot seats play now
        latest = read.latest_submissions(db, game_id, number)
    humans = [p for p in asked if not seated[p].get("bot") and not seated[p].get("vacant")]  # vacant: defaults
    unready = read.not_ready(db, game_id, number, humans, latest)
    for p in controls.waiting(db, game_id, number):
        if p in humans:
            unready.setdefault(p, "sent WAIT")
    now = schedule.now()
    passed = bool(phase["deadline"]) and now >= schedule.parse_time(phase["deadline"])
    due = passed and now >= schedule.later(schedule.parse_time(phase["deadline"]), timedelta(seconds=game.get("grace") or 0))
    early = bool(game.get("early", 1)) or not phase["deadline"] or passed
    if (unready or not early) and not (force or due):
        if not unready:
            return Resolved(game_id, number, "waiting", f"early resolution is off: waiting for the deadline {phase['deadline']}"), None
        refused = read.refused_files(db, game_id, number, [p for p, why in unready.items() if why == "no orders"])
        grace = (f"; the deadline {phase['deadline']} has passed: in its grace period until "  # finding 13
                 f"{schedule.grace_end(phase['deadline'], game.get('grace'))}, then the default orders apply" if passed else "")
        return Resolved(game_id, number, "waiting", "waiting for " + ", ".join(  # (issue 17: a refused order file named)
            f"{p} ({refused[p]})" if p in refused else p if why == "no orders" else f"{p} ({why})"
            for p, why in unready.items()) + grace), None
    if check_only:
        return None, None
    scripts: dict[str, Script | None] = {p: None for p in asked}
    for p, row in latest.items():
        scripts[p] = (known or {}).get("scripts", {}).get(row["id"]) or read_script(decode(row["raw"]))
    res = engine.resolve(rules, state, scripts, game["seed"])
    new_number = number + 1
    opened = schedule.now()
    sched = loads(game["schedule"])
    over = bool(res.state["flow"].get("over"))
    due_next = None if over else schedule.deadline(sched, opened)
    due_next = controls.reaction_deadline(game, res.state, opened, due_next)  # a reaction asked live: its short deadline
    players = list(seated.values())  # in seat order, as read above (nothing here changes them)
    game_update = {"phase": new_number, "deadline": schedule.iso(due_next)}
    if over:
        game_update.update(status="finished", finished=schedule.iso(opened), outcome=dumps(rules.outcome(res.state)))
    # issue 17: plain SQL on this path (sqlite-utils reads the tables' schema at each call)
    db.execute("UPDATE phases SET resolved = ?, nmr = ?, used = ? WHERE game_id = ? AND number = ?",
               [schedule.iso(opened), dumps(res.nmr), dumps({p: row["id"] for p, row in latest.items()}), game_id, number])
    db.conn.executemany("INSERT INTO events (game_id, phase, seq, data) VALUES (?, ?, ?, ?)",
                        [(game_id, number, i, dumps(e)) for i, e in enumerate(res.events)])
    awaited = engine.active_players(rules, res.state)  # the players asked in the turn opened (issue 17: worked out once)
    state_text = dumps(res.state)  # issue 17: encoded once; engine.state_hash is the SHA-256 of this text
    state_hash = hashlib.sha256(state_text.encode()).hexdigest()
    store.insert(db, "phases", {
        "game_id": game_id, "number": new_number, "state": state_text,
        "state_hash": state_hash, "active": dumps(awaited),
        "opened": schedule.iso(opened), "deadline": schedule.iso(due_next), "resolved": None, "nmr": None, "used": None,
    })
    db.execute(f"UPDATE games SET {', '.join(f'[{k}] = ?' for k in game_update)} WHERE id = ?", [*game_update.values(), game_id])
    if not over:  # tester4 finding 06: a DRAW/CONCEDE vote lapses once every other player had a turn after it
        controls.lapse_votes(db, game_id, number)
    if due_next is not None:  # a deadline inside a declared absence moves to its end
        moved = controls.apply_absences(db, game_id, new_number, game_update["deadline"], list(awaited))
        game_update["deadline"] = moved or game_update["deadline"]
    merged = {**game, **game_update}
    from pbem.host import press  # issue 13: each reader's press of the turn just resolved, for their report

    with_press = {**merged, "press": press.for_reports(db, game_id, number, [p["name"] for p in players])}
    texts = reporting.render(rules, with_press, players, res.state, res.events, new_number)
    _store_reports(db, game_id, new_number, texts)
    outbox.queue_reports(db, merged, players, new_number, texts)  # mail: each player's report
    controls.queue_observer_reports(db, merged, new_number, texts.get(""))  # mail: the observers' public report
    detail = "game over" if over else f"turn {new_number} opened; awaiting {', '.join(awaited)}"
    result = Resolved(game_id, number, "finished" if over else "resolved", detail, res.nmr,
                      reports=texts if preview else {}, state_hash=state_hash)
    if look_ahead and not over:  # the state is plain JSON data (pbem.core.engine): as read back from the store
        result.opened = {"game": merged, "players": players, "state": res.state, "deadline": game_update["deadline"]}
    return result, texts


def due_games(db, turns: str | Path | None = None, found: folders.Scan | None = None) -> list[str]:
    """The running games that may resolve now, found by SQL so that the cost follows the
    due games, not the size of the store: a deadline passed, every asked player is ready
    (their latest orders have no rejected line, or carry READY), or (with a turns folder) an
    order file waits for the current turn.

    The GM's controls (pbem.host.controls): a paused game is never due; a deadline counts
    once its grace is over too; early resolution needs the game's `early` option (or no
    deadline, or a deadline passed) and no WAIT from a player asked; bot and vacant seats
    are not waited for."""
    now = schedule.iso(schedule.now())
    rows = db.execute(
        """
        SELECT g.id FROM games g
        WHERE g.status = 'running' AND g.paused IS NULL AND (
          (g.deadline IS NOT NULL AND g.deadline <= ?
            AND (g.grace = 0 OR strftime('%Y-%m-%dT%H:%M:%SZ', g.deadline, '+' || g.grace || ' seconds') <= ?))
          OR ((g.early = 1 OR g.deadline IS NULL OR g.deadline <= ?)
            -- issue 17: implied by what follows (some player asked has orders in, or is a bot
            -- or vacant seat, or nobody is asked), and cheap: an idle game is passed over here
            -- without its turn's row being read (the bot and vacant seats listed once for all,
            -- and the turns where nobody is asked, from the partial indexes of m012)
            AND (EXISTS (SELECT 1 FROM submissions s0 WHERE s0.game_id = g.id AND s0.phase = g.phase)
                 OR g.id IN (SELECT p0.game_id FROM players p0 INDEXED BY idx_players_bot_or_vacant
                             WHERE p0.bot = 1 OR p0.vacant = 1)
                 OR EXISTS (SELECT 1 FROM phases p0 INDEXED BY idx_phases_nobody_asked
                            WHERE p0.game_id = g.id AND p0.number = g.phase
                              AND json_valid(p0.active) AND json_array_length(p0.active) = 0))
            AND NOT EXISTS (SELECT 1 FROM phases p INDEXED BY idx_phases_game_id_number_active JOIN json_each(p.active) aw
                            JOIN waits w ON w.game_id = g.id AND w.phase = g.phase AND w.player = aw.value
                            WHERE p.game_id = g.id AND p.number = g.phase)
            AND NOT EXISTS (
            SELECT 1 FROM phases p INDEXED BY idx_phases_game_id_number_active JOIN json_each(p.active) a
            WHERE p.game_id = g.id AND p.number = g.phase AND NOT EXISTS (
              SELECT 1 FROM submissions s WHERE s.ready = 1 AND s.id = (
                SELECT max(s2.id) FROM submissions s2 WHERE s2.game_id = g.id AND s2.phase = g.phase
                  AND s2.player = a.value AND s2.status != 'rejected'))
              AND NOT EXISTS (SELECT 1 FROM players pl WHERE pl.game_id = g.id AND pl.name = a.value
                              AND (pl.bot = 1 OR pl.vacant = 1)))))
          -- a game whose turn has no row is not due (it was joined to it before)
          AND EXISTS (SELECT 1 FROM phases p INDEXED BY idx_phases_game_id_number_active
                      WHERE p.game_id = g.id AND p.number = g.phase)
        """,
        [now, now, now],
    ).fetchall()
    ids = {r[0] for r in rows}
    if found is None:
        found = folders.scan(db, turns)
    if found is not None:  # issue 17: one stat a game whose folder is known to hold no order file
        ids |= found.order_files
    return sorted(ids)


# issue 17: `resolve` stores several games' turns in one write transaction (one commit, not
# one a game), holding the write lock no longer than about _BATCH_SECONDS at a time (a
# concurrent submit or ingest waits that long at most), and at most _BATCH_GAMES turns
_BATCH_GAMES = 200
_BATCH_SECONDS = 0.25


def resolve(db, game_ids: list[str] | None = None, force: bool = False, turns: str | Path | None = DEFAULT_TURNS,
            max_phases: int = 100_000, preview: bool = False, keep_going: bool = False,
            warnings: dict[str, str] | None = None, restore: bool = True) -> list[Resolved]:
    """Resolve every phase whose orders are all in (or whose deadline has passed, or all with
    `force`), again and again until each game waits for orders or ends.

    With `preview`, resolve the current phase of each game without committing anything
    (no phase, event, report or mail is stored; no file is written) and return the result
    with every report; the real resolution later gives the same result.

    With `keep_going` (`pbem resolve`), a game that cannot be resolved (a stray file in its
    turn folder, a bug) does not stop the others: its result says "error" and why, and the
    next game goes on; without, the error is raised. Either way, the report files of each
    game's current turn that are missing are written first (restore_report_files); a game
    whose files cannot be written is named in `warnings` (game id: why) and the run goes on
    (a resolved turn's own files too: its result's `warning`). A caller that resolves game
    after game (pbem run) restores once itself and passes `restore=False`.

    Issue 17: the turns of several games are stored in one write transaction, each game's in
    a savepoint of its own (a game that fails is rolled back alone; the others go on), and
    a game's next turn in a later one (see _resolve_batch). Whatever a kill leaves, each game
    is at a turn whole: a batch is committed or not at all, and the report files, written
    after its commit, are restored by the next run when missing. The results come game by
    game, in the order of the games."""
    restore = restore and not preview
    found = folders.scan(db, turns) if restore or not (game_ids or force) else None  # one look for both
    if game_ids:
        games = [_game(db, g)["id"] for g in game_ids]
    elif force:
        games = [r["id"] for r in db["games"].rows_where("status = 'running'", select="id", order_by="id")]
    else:
        games = due_games(db, turns, found)
    if restore:
        restore_report_files(db, turns, warnings, found)
    if preview:
        return [_one_preview(db, game_id, force, turns, keep_going) for game_id in games]
    results: list[Resolved] = []
    at = [0, 0]  # the next game (its index in `games`) and the passes it has had
    while at[0] < len(games):
        _resolve_batch(db, games, at, force, turns, max_phases, keep_going, results)
    return results


def _one_preview(db, game_id: str, force: bool, turns, keep_going: bool) -> Resolved:
    """A preview of one game (_preview), or with `keep_going` an "error" result (_failed)."""
    try:
        return _preview(db, game_id, force, turns)
    except Exception as err:
        return _failed(db, game_id, err, keep_going)


def _failed(db, game_id: str, err: Exception, keep_going: bool) -> Resolved:
    """The result of a game that could not be resolved (what it stored rolled back), or
    `err` raised again: without `keep_going`, and for the store's or the machine's problems
    (sqlite3.Error, MemoryError), the same for every game."""
    if isinstance(err, (sqlite3.Error, MemoryError)) or not keep_going:
        raise err
    if not isinstance(err, PbemError):
        log.debug("resolving %s", game_id, exc_info=err)  # PBEM_DEBUG users see it with logging on
        err = f"internal error: {type(err).__name__}: {err}"
    return Resolved(game_id, _game(db, game_id)["phase"], "error", str(err))


def _resolve_batch(db, games: list[str], at: list[int], force: bool, turns, max_phases: int, keep_going: bool,
                   results: list[Resolved]) -> None:
    """One write transaction of `resolve` (issue 17): the passes of the games from `at` on,
    in order, each in a savepoint of its own (a game that fails is rolled back alone, and
    the others go on), until about _BATCH_SECONDS have passed or _BATCH_GAMES passes are
    taken, or a game's next turn is due at once (its next pass begins the next transaction:
    a game's turns are committed one by one, as before; a turn that waits is found by the
    look at it in the same savepoint, _waiting_next); then the commit, and only then the
    report files of each turn resolved. `at` moves on; the results go into `results`, in
    the order of the games. Without `keep_going`, a game's error is raised once the games
    before it are committed and their files written. An error of the store or the machine
    (sqlite3.Error, MemoryError: the same for every game) rolls the whole transaction back
    and is raised: none of its turns is stored, and the next run takes them again."""
    started = time.monotonic()
    failure = None
    with _one_commit(db, turns) as taken:
        while at[0] < len(games) and not (taken and (len(taken) >= _BATCH_GAMES
                                                     or time.monotonic() - started >= _BATCH_SECONDS)):
            game_id, passes = games[at[0]], at[1]
            try:
                with db.atomic():  # a savepoint
                    look = passes + 1 < max_phases
                    result, texts = _resolve_locked(db, game_id, force and passes == 0, turns, False, look_ahead=look)
                    if texts is not None and look and result.outcome == "resolved":
                        result.then = _waiting_next(db, game_id, turns, result)
                    result.opened = None
            except Exception as err:
                try:
                    result, texts = _failed(db, game_id, err, keep_going), None
                except (sqlite3.Error, MemoryError):
                    raise  # the whole transaction is rolled back
                except Exception as raised:
                    failure = raised
                    break
            taken.append((result, texts))
            results.append(result)
            if result.then is not None:  # the turn it opened waits: looked at in the same savepoint
                results.append(result.then)
                result.then = None
            elif result.outcome == "resolved" and passes + 1 < max_phases:
                at[1] += 1  # its next turn is due too: in the next transaction
                break
            at[:] = [at[0] + 1, 0]
    if failure is not None:
        raise failure


def seed_revealed_refusal(game: dict, doing: str) -> str:
    """Why a finished game is never played on (finding 02): its seed was revealed at its end."""
    return (f"game '{game['id']}' is over and its seed was revealed when it ended (in the game-over reports and "
            f"notice, `pbem status` and the site): with it anyone can work out every hand, the deck order and every "
            f"die of any turn played from now on, so the game cannot {doing} and be played on with it. Nothing was "
            f"changed. To play a position again, start a new game (`pbem new`: a new, secret seed)")


def rollback(db, game_id: str, to: int, turns: str | Path | None = DEFAULT_TURNS) -> dict:
    """Set a game back to the opening of turn `to` (the GM fixes a mistake). The phases,
    events and reports after it are moved to archive tables, kept; every submission stays,
    so resolving again replays from turn `to` with the orders that were in (plus any new).
    A finished game is refused (finding 02): its seed was revealed at its end, and play
    resumed with a known seed would have no hidden information left. So is a turn before a
    seat added by `pbem join` (finding 09): the rules took it in its turn's position."""
    with store.write_transaction(db):
        game = _game(db, game_id)
        if game["status"] == "finished":
            raise PbemError(seed_revealed_refusal(game, f"roll back to turn {to}"))
        if not 1 <= to <= game["phase"]:
            raise PbemError(f"game '{game_id}' has turns 1 to {game['phase']}; cannot roll back to {to}")
        if to == game["phase"]:
            raise PbemError(f"game '{game_id}' is already at turn {to}")
        # finding 09: a seat added by `pbem join` is part of the position of its turn and those
        # after it; played again from an earlier turn, the game would have no place for it
        # while the store keeps it (and `pbem replay`, which adds it at its turn, would differ)
        later = sorted((p["joined"], p["name"]) for p in _players(db, game_id) if p.get("joined") and p["joined"] > to)
        if later:
            first = later[0][0]
            who = ", ".join(f"{name} in turn {turn}" for turn, name in later)
            raise PbemError(f"game '{game_id}': a new seat joined after turn {to} ({who}, `pbem join`); played again "
                            f"from turn {to} the game would have no place for it. Roll back to turn {first} or later "
                            "(the seat stays, its turn's orders are taken again). Nothing was changed")
        rb = db["rollbacks"].insert({"game_id": game_id, "to_phase": to, "from_phase": game["phase"],
                                     "at": schedule.iso(schedule.now())}).last_pk
        moved = {}
        for table, where in (("phases", "number >= ?"), ("events", "phase >= ?"), ("reports", "phase > ?")):
            cols = ", ".join(f"[{c.name}]" for c in db[table].columns)
            db.execute(f"INSERT INTO [{table}_archive] ({cols}, rollback_id) SELECT {cols}, ? FROM [{table}] "
                       f"WHERE game_id = ? AND {where}", [rb, game_id, to])
            if table == "phases":
                db.execute("DELETE FROM phases WHERE game_id = ? AND number > ?", [game_id, to])
                db.execute("UPDATE phases SET resolved = NULL, nmr = NULL, used = NULL WHERE game_id = ? AND number = ?", [game_id, to])
            else:
                db.execute(f"DELETE FROM [{table}] WHERE game_id = ? AND {where}", [game_id, to])
            moved[table] = db.execute(f"SELECT count(*) FROM [{table}_archive] WHERE rollback_id = ?", [rb]).fetchone()[0]
        phase = _phase(db, game_id, to)
        # a fresh deadline from the game's schedule (the turn's own has passed: orders sent
        # now would be refused as too late), as the turn got when it opened: a reaction asked
        # live its short `reaction_deadline`; a game without a schedule keeps the turn's
        from pbem.host import controls

        sched = loads(game.get("schedule"))
        opened = schedule.now()
        fresh = controls.reaction_deadline(game, loads(phase["state"]), opened, schedule.deadline(sched, opened) if sched else None)
        deadline = schedule.iso(fresh) if sched or fresh is not None else phase["deadline"]
        if deadline != phase["deadline"]:
            db.execute("UPDATE phases SET deadline = ? WHERE game_id = ? AND number = ?", [deadline, game_id, to])
        db["games"].update(game_id, {"phase": to, "status": "running", "finished": None, "outcome": None,
                                     "deadline": deadline})

        absences = []
        if fresh is not None:  # finding 10: not inside a declared absence of a player asked (as at every turn opened)
            due, absences = controls.past_absences(db, game_id, schedule.parse_time(deadline))
            if absences:
                deadline = schedule.iso(due)
                db.execute("UPDATE phases SET deadline = ? WHERE game_id = ? AND number = ?", [deadline, game_id, to])
                db["games"].update(game_id, {"deadline": deadline})
        # the reports of the turns set aside must not reach the players: their queued mail is
        # cancelled (kept, with the reason); what was sent already is history
        cancelled = db.execute(
            "UPDATE outbox SET status = 'cancelled', last_error = ? WHERE game_id = ? AND phase > ? AND status = 'queued'",
            [f"rolled back to turn {to} (rollback {rb})", game_id, to]).rowcount
        votes = db.execute("SELECT player, kind, phase FROM proposals WHERE game_id = ? AND phase > ?", [game_id, to]).fetchall()
        for table in ("waits", "proposals", "notices"):  # what players said about the turns set aside
            db.execute(f"DELETE FROM [{table}] WHERE game_id = ? AND phase > ?", [game_id, to])
        controls.rollback_notice(db, game_id, to, game["phase"], rb,  # recorded, and a correction notice queued
                                 schedule.show(deadline, sched) if deadline else None)
        controls.votes_set_aside(db, game_id, to, votes)  # their senders are told (tester4 finding 06: votes stand)
    return {"game": game_id, "from": game["phase"], "to": to, "archived": moved, "rollback_id": rb,
            "mail_cancelled": cancelled, "deadline": deadline, "absences": absences}

# --- autoplay and replay -------------------------------------------------------------------

def bot_script(rules, state: dict, player: str, rng, limit: int = 60) -> list[str]:
    """A random legal order script for `player` in this position: every seat's bot."""
    sim = engine.copy_state(state)
    prng = Rng("bot", "bot")
    lines = []
    phase = sim["flow"].get("phase")
    # A submission answers this phase only: once the simulation has moved on to another phase
    # (the other players' forced orders played by settle), later lines would be checked, and
    # run, against the phase the player was asked in, where their part is already over.
    while (player in engine.active_players(rules, sim) and not sim["flow"].get("over") and len(lines) < limit
           and sim["flow"].get("phase") == phase):
        legal = rules.bot_orders(sim, player)
        if not legal:
            break
        order = rules.bot_choice(sim, player, legal, rng)
        lines.append(order.text)
        rules.apply(sim, player, order, prng)
        engine.settle(rules, sim, prng)
    return lines


def autoplay(db, game_id: str, max_phases: int | None = None, turns: str | Path | None = DEFAULT_TURNS) -> list[Resolved]:
    """Every seat plays random legal orders (through `submit`, as a GM would) until the game
    ends or `max_phases` turns are resolved. Reproducible: the bots' choices are seeded from
    the game seed and the turn.

    Issue 17: each turn holds the bots' submissions and the resolution (as `resolve` would
    store them), each row read once, in a savepoint of its own; the turns of about
    _BATCH_SECONDS share one write transaction (one commit, not one a turn; a concurrent
    submit or ingest waits that long at most: see _autoplay_batch). Whatever a kill leaves,
    the game is at a turn whole (the last turns not committed are played again by the next
    run); the report files of a turn are written only after the commit that holds it, and
    the next run restores any that are missing."""
    rules = get_rules(_game(db, game_id)["type"])
    results: list[Resolved] = []
    if turns is not None:
        restore_report_files(db, turns)  # as `resolve` does first
    while (max_phases is None or len(results) < max_phases) and _autoplay_batch(db, game_id, rules, max_phases, turns, results):
        pass
    return results


def _autoplay_batch(db, game_id: str, rules, max_phases: int | None, turns, results: list[Resolved]) -> bool:
    """One write transaction of `autoplay` (issue 17): its turns, each in a savepoint, until
    about _BATCH_SECONDS have passed, `max_phases` turns are played or the game is over;
    then the commit, and only then the report files of each turn. The results go into
    `results`; False once the game is no longer running. A turn that fails is rolled back
    alone: the turns before it are committed and their files written, then the error is
    raised. An error of the store or the machine (sqlite3.Error, MemoryError) rolls the whole
    transaction back and is raised (the next run plays its turns again)."""
    started = time.monotonic()
    running = True
    failure = None
    with _one_commit(db, turns) as taken:
        while max_phases is None or len(results) < max_phases:
            if taken and time.monotonic() - started >= _BATCH_SECONDS:
                break
            try:
                with db.atomic():  # a savepoint: a turn that fails is rolled back alone
                    turn = _autoplay_turn(db, game_id, rules, turns)
            except (sqlite3.Error, MemoryError):
                raise  # the whole transaction is rolled back
            except Exception as err:
                failure = err
                break
            if turn is None:
                running = False
                break
            taken.append(turn)
            results.append(turn[0])
    if failure is not None:
        raise failure
    return running


def _autoplay_turn(db, game_id: str, rules, turns) -> tuple[Resolved, dict | None] | None:
    """One turn of `autoplay` in the open transaction: the bots' submissions of the seats
    with none, then the resolution (as _resolve_locked returns it); None when the game is
    not running."""
    from random import Random

    game = _game(db, game_id)
    if game["status"] != "running":
        return None
    number = game["phase"]
    row = db.execute("select state, deadline from phases where game_id = ? and number = ?", [game_id, number]).fetchone()
    if row is None:
        raise NotFound(f"game '{game_id}' has no turn {number}")
    state = loads(row[0])
    seats = _players(db, game_id)
    latest = read.latest_submissions(db, game_id, number)
    scripts: dict[int, Script] = {}  # by submission id
    for player in engine.active_players(rules, state):
        if player in latest:
            continue
        rng = Random(f"{game['seed']}/bot/{number}/{player}")
        lines = bot_script(rules, state, player, rng)
        raw = ("\n".join([f"GAME {game_id}", f"PLAYER {player}", *lines, "END"]) + "\n").encode()
        script = read_script(decode(raw))  # read once, for the submission and the resolution
        ack = submit(db, game_id, player, raw, source="bot", trusted=True, known=(game, seats), script=script,
                     savepoint=False)  # the turn's savepoint: a failure rolls it all back
        scripts[ack.submission_id] = script
        if ack.status != "rejected":  # as read.latest_submissions would read it back
            latest[player] = ack.stored
    return _resolve_locked(db, game_id, False, turns, False,
                           known={"game": game, "players": seats, "state": state, "deadline": row[1],
                                  "scripts": scripts, "latest": latest})


def replay(db, game_id: str) -> dict:
    """Re-run a game's stored history from its seed and inputs; compare every snapshot hash."""
    game = _game(db, game_id)
    rules = get_rules(game["type"])
    seats = _players(db, game_id)
    players = [p["name"] for p in seats if not p.get("joined")]
    state, _ = engine.start(rules, players, loads(game["options"]), game["seed"])
    phases = list(db["phases"].rows_where("game_id = ?", [game_id], order_by="number"))
    mismatches = []
    checked = 0
    for ph in phases:
        checked += 1
        for p in seats:   # a seat added in this turn (`pbem join`) joins before its hash is checked
            if p.get("joined") == ph["number"]:
                state, _ = engine.add_player(rules, state, p["name"])
        if engine.state_hash(state) != ph["state_hash"]:
            mismatches.append(ph["number"])
            break
        if not ph["resolved"]:
            break
        used = loads(ph["used"]) or {}
        scripts: dict[str, Script | None] = {p: None for p in engine.active_players(rules, state)}
        for p, sid in used.items():
            scripts[p] = read_script(decode(db["submissions"].get(sid)["raw"]))
        state = engine.resolve(rules, state, scripts, game["seed"]).state
    return {"game": game_id, "phases": checked, "mismatches": mismatches, "ok": not mismatches}
