"""The host's queries: what `pbem status` and `pbem report` show. They only read (through
pbem.host.read), so they run on the light reader (`open_reader`) and import nothing of the
writing side.
"""

from __future__ import annotations

import re
from datetime import timedelta

from pbem.core import engine
from pbem.core.errors import NotFound
from pbem.core.words import turns_exist
from pbem.core.registry import get_rules
from pbem.host import read, schedule
from pbem.host.store import loads


def in_grace(db) -> list[dict]:
    """The running games (not paused) whose deadline has passed and whose grace period (the
    option `grace`) has not ended: [{id, turn, deadline, grace_ends}], by id (finding 13:
    what `pbem resolve --all` says when nothing is due)."""
    now = schedule.iso(schedule.now())
    out = []
    for g in read.rows(db, "select id, phase, deadline, grace from games where status = 'running' and paused is null "
                           "and deadline is not null and deadline <= ? and grace > 0 order by id", [now]):
        ends = schedule.grace_end(g["deadline"], g["grace"])
        if ends > now:
            out.append({"id": g["id"], "turn": g["phase"], "deadline": g["deadline"], "grace_ends": ends})
    return out


def status(db, game_id: str | None = None) -> dict:
    """The state of one game or of all: a stable JSON shape, documented in the README."""
    signup = read.open_game(db, game_id) if game_id else None
    games = [] if signup else [read.game(db, game_id)] if game_id else read.games(db, order_by="id")
    opened = [signup] if signup else [] if game_id else read.open_games(db)
    out = []
    for game in games:
        rules = get_rules(game["type"])
        state = read.current_state(db, game)
        asked = engine.active_players(rules, state)
        latest = read.latest_submissions(db, game["id"], game["phase"])
        outcome = loads(game["outcome"])
        seats = read.players(db, game["id"])
        idle = {p["name"] for p in seats if p.get("bot") or p.get("vacant")}  # never awaited (pbem.host.controls)
        out.append({
            "id": game["id"],
            "type": game["type"],
            "title": rules.info.title,
            "status": game["status"],
            "turn": game["phase"],
            "phase": state["flow"].get("phase"),
            "players": [{"name": p["name"], "seat": p["seat"]} for p in read.players(db, game["id"])],
            "awaiting": [p for p in asked if p not in latest and p not in idle],
            "submitted": sorted(p for p in latest if p in asked),
            # who sent orders but is not ready (lines rejected, no READY), and why
            "not_ready": {p: why for p, why in read.not_ready(db, game["id"], game["phase"], asked, latest).items()
                          if why != "no orders"},
            # issue 17: players awaited whose order file in turns/ was refused whole, and why
            "refused_files": read.refused_files(db, game["id"], game["phase"], [p for p in asked if p not in latest])
            if game["status"] == "running" else {},
            "deadline": game["deadline"],
            "scores": rules.scores(state),
            "seed_hash": game["seed_hash"],
            "seed": game["seed"] if game["status"] == "finished" else None,
            "winners": outcome["winners"] if outcome else [],
            "mail": read.outbox_counts(db, game["id"]),  # outbox rows by status (queued, sending, sent, failed)
            **mail_trouble(db, game["id"]),  # issue 14: bounces and password guessing, for the GM
            # the GM's controls (issue 13): a pause, a deadline passed, bot and vacant seats, resignations
            "paused": game.get("paused"),
            "deadline_passed": bool(game["deadline"]) and game["status"] == "running"
            and schedule.parse_time(game["deadline"]) <= schedule.now(),
            # finding 13: with the option grace, when the turn resolves with the missing players' defaults
            "grace_ends": schedule.grace_end(game["deadline"], game.get("grace")) if game["status"] == "running" else None,
            "bots": [p["name"] for p in seats if p.get("bot")],
            "vacant": [p["name"] for p in seats if p.get("vacant")],
            "resigned": [{"player": a["detail"].split(":")[0].removeprefix("seat "), "at": a["at"]}
                         for a in read.gm_actions(db, game["id"]) if a["action"] == "resign"],
            "ended_by": (outcome or {}).get("ended_by"),
            # players asked this turn who sent WAIT: the turn does not resolve early (pbem.host.controls.wait)
            "waiting": [r[0] for r in db.execute("select player from waits where game_id = ? and phase = ? order by player",
                                                 [game["id"], game["phase"]]).fetchall() if r[0] in asked]
            if game["status"] == "running" and read.has_table(db, "waits") else [],
            # DRAW/CONCEDE votes standing (tester4 finding 06: they stand across turns until withdrawn or lapsed)
            "votes": {p: {"kind": k, "turn": n} for n, p, k in db.execute(
                "select phase, player, kind from proposals where game_id = ? order by player", [game["id"]]).fetchall()}
            if game["status"] == "running" and read.has_table(db, "proposals") else {},
        })
    # games open for sign-up: no turn yet (issue 13: `pbem status` lists them as open)
    signups = [{"id": g["id"], "type": g["type"], "title": get_rules(g["type"]).info.title, "status": "open",
                "seats": g["seats"], "joined": g["joined"],
                "players": [j["name"] for j in read.signed_up(db, g["id"])]} for g in opened]
    return {"version": 1, "now": schedule.iso(schedule.now()), "games": out, "open": signups, "mail": read.outbox_counts(db)}


def report(db, game_id: str, player: str | None = None, turn: int | None = None) -> str:
    game = read.game(db, game_id)
    who = ""
    if player:
        who = read.player(db, game_id, player)["name"]
    number = turn if turn is not None else game["phase"]
    row = db.execute(
        "select text from reports where game_id = ? and phase = ? and player = ?", [game_id, number, who]
    ).fetchone()
    if not row:
        raise NotFound(f"game '{game_id}' has no report for turn {number}; {turns_exist(game['phase'])}")
    if number == game["phase"] and game["status"] == "running":
        return row[0] + orders_so_far(db, game, who)
    return row[0]


def orders_so_far(db, game: dict, who: str) -> str:
    """The current turn's report, asked for again before it resolves, ends with who is ready:
    every asked player ready, not ready (and why: the reason is the reader's own only), or
    without orders yet."""
    state = read.current_state(db, game)
    asked = engine.active_players(get_rules(game["type"]), state)
    if not asked:
        return ""
    latest = read.latest_submissions(db, game["id"], game["phase"])
    waiting = read.not_ready(db, game["id"], game["phase"], asked, latest)
    sched = loads(game["schedule"])
    now = schedule.show(schedule.iso(schedule.now()), sched)
    lines = ["", f"Orders so far (turn {game['phase']}, as of {now})"]
    if game.get("paused"):
        lines.append(f"  Deadline now: none: the GM has paused the game (since {schedule.show(game['paused'], sched)})")
    else:
        lines.append(f"  Deadline now: {schedule.show(game['deadline'], sched)}" + _moved(db, game))
    for p in asked:
        why = waiting.get(p)
        if why is None:
            lines.append(f"  {p}: ready")
        elif why == "no orders":
            lines.append(f"  {p}: no orders yet")
        else:
            lines.append(f"  {p}: not ready" + (f" ({why})" if p == who else ""))
    return "\n".join(lines) + "\n"


def current_deadline(db, game: dict, text: str) -> str:
    """A stored report of the open turn (`read.report_text`) with its Deadline line as it is
    now (tester3 finding 02): the text was written when the turn opened, and a newcomer
    mailed it later (a replacement, an observer) was never told that the GM moved or paused
    the deadline since. The words of `pbem report`'s "Deadline now" line; the text as it was
    when nothing changed."""
    if not text or game.get("status") != "running":
        return text
    sched = loads(game["schedule"])
    now = (f"none: the GM has paused the game (since {schedule.show(game['paused'], sched)})" if game.get("paused")
           else schedule.show(game["deadline"], sched))
    found = re.search(r"^Deadline: (.*)$", text, re.MULTILINE)  # the report's head: the first such line
    if not found or found.group(1) == now:
        return text
    return text[:found.start(1)] + now + _moved(db, game) + text[found.end(1):]


def _moved(db, game: dict) -> str:
    """Why the deadline differs from the report's, when it was moved after the turn opened."""
    opened = db.execute("select opened from phases where game_id = ? and number = ?", [game["id"], game["phase"]]).fetchone()
    moves = [a for a in read.gm_actions(db, game["id"])
             if a["action"] in ("deadline", "pause", "resume") and (a["detail"] or "").startswith(f"turn {game['phase']}")
             and (not opened or not opened[0] or a["at"] >= opened[0])]
    if not moves:
        return ""
    by_gm = any(a["by"] == "gm" for a in moves)
    return " (moved by the GM since this report was written)" if by_gm else " (moved since this report was written)"


def mail_trouble(db, game_id: str) -> dict:
    """Issue 14: what the GM should know about a game's mail -- `bounces` (the players' addresses
    that bounced in the last 30 days: count, last time, status) and `guessing` (seats whose
    wrong passwords went unanswered in the last 24 hours) -- and `alerts`, the same as lines
    for `pbem status`."""
    out: dict = {"bounces": [], "guessing": [], "alerts": []}
    now = schedule.now()
    if read.has_table(db, "bounces"):
        since = schedule.iso(now - timedelta(days=30))
        for b in read.rows(db, "select player, address, count(*) as count, max(at) as last, "
                               "(select status || ' ' || diagnostic from bounces b2 where b2.game_id = b.game_id "
                               " and b2.address = b.address order by b2.id desc limit 1) as why "
                               "from bounces b where game_id = ? and at >= ? group by player, address order by player",
                           [game_id, since]):
            out["bounces"].append(b)
            out["alerts"].append(f"mail to {b['player'] or '?'} <{b['address']}> bounced ({b['count']}x, last {b['last']}: "
                                 f"{' '.join((b['why'] or '').split())[:120] or 'no reason given'})")
    if read.has_table(db, "guard_log"):
        since = schedule.iso(now - timedelta(hours=24))
        for g in read.rows(db, "select player, count(*) as withheld, max(at) as last from guard_log "
                               "where game_id = ? and kind = 'guessing' and at >= ? group by player order by player",
                           [game_id, since]):
            out["guessing"].append(g)
            out["alerts"].append(f"password guessing on {g['player']}'s seat: {g['withheld']} wrong password(s) not "
                                 f"answered in the last 24h (last {g['last']})")
    return out

