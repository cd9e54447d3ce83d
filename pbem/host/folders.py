"""One look at the GM's turn folders a run (issue 17): which running games have an order file
waiting in turns/GAME/TURN/, and which games' report files of their current turn must be
checked, at the cost of one stat a game when nothing changed.

A ledger in turns/ (LEDGER) lists, for each game, the current turn and the modification time
of its folder turns/GAME/TURN when that folder was last seen with no order file in it and its
reports/ complete. The time of a folder changes whenever an entry is added to it, removed or
renamed (an order file dropped in, its reports/ folder deleted), so a game whose turn and
folder time match its line needs no listing; any other game is listed as before. A line is
only kept for a folder last changed two seconds or more before the look (a change in the same
tick of the clock could not be told apart), and a writer that stores new reports of an open
turn touches its folder first (touch_turn_folder). What the ledger cannot see: a single file
deleted inside an intact reports/ folder, which is written again once the turn changes or the
folder does. Losing the ledger only costs one full look. Lines that no longer match (a game
resolved since, a folder changed) stay until enough of them are there (record)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from pbem.host.files import write_atomic

LEDGER = ".pbem-checked"
_RACY_NS = 2_000_000_000  # a folder changed this recently is listed again next time
_HEADER = "# pbem: turn folders seen with no order file and complete reports (game turn mtime_ns); delete to look at all again\n"


@dataclass
class Scan:
    """What a look at the turn folders found."""

    root: str
    order_files: set[str] = field(default_factory=set)  # running, unpaused games with GAME/TURN/*.txt
    # games to check (gid, turn, status, folder time or None, an order file there); the others are known complete
    check: list[tuple[str, int, str, int | None, bool]] = field(default_factory=list)
    kept: set[str] = field(default_factory=set)  # ledger lines still true
    old: set[str] = field(default_factory=set)
    started_ns: int = 0


def _read_ledger(root: str) -> set[str]:
    """The ledger's lines ("GAME TURN MTIME_NS"), kept as text: a game is looked up by its line."""
    try:
        with open(os.path.join(root, LEDGER), encoding="utf-8") as fh:
            return set(fh.read().split("\n"))
    except (OSError, UnicodeDecodeError):
        return set()


def scan(db, turns: str | Path | None) -> Scan | None:
    """Look at each game's current turn folder (None without a turns folder)."""
    if turns is None or not os.path.isdir(turns):
        return None
    root = os.fspath(turns)
    found = Scan(root=root, old=_read_ledger(root), started_ns=time.time_ns())
    old, check = found.old, found.check
    kept: list[str] = []
    keep = kept.append
    unmatched = []  # (gid, turn, folder time or None), in the order of the games
    stat = os.stat
    fd = os.open(root, os.O_RDONLY)
    try:
        # issue 17: each game's id and turn only; the status of the few games whose folder
        # does not match its line is read after (_status)
        for gid, number in db.execute("SELECT id, phase FROM games").fetchall():
            try:
                mtime = stat(f"{gid}/{number}", dir_fd=fd).st_mtime_ns
            except OSError:
                mtime = None
            else:
                line = f"{gid} {number} {mtime}"
                if line in old:
                    keep(line)
                    continue
            unmatched.append((gid, number, mtime))
        found.kept = set(kept)
        info = _status(db, [gid for gid, _, _ in unmatched])
        for at, (gid, number, mtime) in enumerate(unmatched):
            if gid in info and info[gid][0] != number:  # resolved in between: its turn now, as one statement would read it
                number = info[gid][0]
                try:
                    mtime = stat(f"{gid}/{number}", dir_fd=fd).st_mtime_ns
                except OSError:
                    mtime = None
                unmatched[at] = (gid, number, mtime)
    finally:
        os.close(fd)
    for gid, number, mtime in unmatched:
        if gid not in info:  # (games are never deleted)
            continue
        _, status, paused = info[gid]
        if not os.path.isdir(os.path.join(root, gid)):
            if status == "running":  # a finished game whose folder the GM removed is left alone
                check.append((gid, number, status, None, False))
            continue
        try:
            names = os.listdir(os.path.join(root, gid, str(number))) if mtime is not None else []
        except OSError:
            names = []
        waiting = any(n.endswith(".txt") for n in names)  # as Path.glob("*.txt")
        if waiting and status == "running" and paused is None:
            found.order_files.add(gid)
        check.append((gid, number, status, mtime, waiting))
    return found


def _status(db, ids: list[str]) -> dict[str, tuple]:
    """The turn, status and pause of the games `ids` (id: (turn, status, paused)): all
    games' at once when there are many (a first look), else those of `ids` alone."""
    if len(ids) > 500:
        return {gid: rest for gid, *rest in db.execute("SELECT id, phase, status, paused FROM games")}
    out = {}
    for at in range(0, len(ids), 250):
        part = ids[at:at + 250]
        out.update((gid, rest) for gid, *rest in db.execute(
            f"SELECT id, phase, status, paused FROM games WHERE id IN ({','.join('?' * len(part))})", part))
    return out


def record(found: Scan, complete: list[tuple[str, int, int]]) -> None:
    """Write the ledger: the lines still true, and the folders just seen complete (gid, turn,
    folder time) that last changed long enough ago. Written only when there is a line to add,
    or when many of its lines no longer match (issue 17: not at every run, for the games whose
    turn or folder changed): a line that no longer matches is never true again (its folder
    would have to go back to the very same time) and costs nothing but its bytes. A ledger
    that cannot be written is only a cost (the next run looks again)."""
    new = set()
    for gid, number, mtime in complete:
        if mtime <= found.started_ns - _RACY_NS:
            new.add(f"{gid} {number} {mtime}")
    new -= found.old
    stale = len(found.old) - len(found.kept) - len(found.old & {"", _HEADER.rstrip("\n")})  # kept is a subset of old
    if not new and stale <= len(found.kept) // 4 + 64:
        return
    text = _HEADER + "".join(f"{line}\n" for line in sorted(found.kept | new))
    try:
        write_atomic(Path(found.root) / LEDGER, text.encode("utf-8"))
    except OSError:
        pass


def touch_turn_folder(turns: str | Path | None, game_id: str, number: int) -> None:
    """Mark turns/GAME/TURN as changed (its time set to now), so that the next run checks its
    report files again: called before a commit that stores new reports of an open turn."""
    if turns is None:
        return
    try:
        os.utime(os.path.join(os.fspath(turns), game_id, str(number)))
    except OSError:
        pass
