"""`pbem publish`: every game in the store as a static website (HTML, SVG, JSON, Atom, iCalendar).

Only public things go in: each turn's public view (`rules.view(state, None)`), the events
the public may see (`reports.visible_events(events, None)`), the game's public rows
(players' names and seats, deadlines, the seed hash; the seed itself once the game is
over). Never a state, a private view, a private report, an order file or a password.

Layout of the output folder (docs/site.md has the details):

    index.html, style.css                    every game
    games/<game>/index.html                  one game: status, map, chart, every turn
    games/<game>/turn-<N>.html, .json        turn N's public report, and the same as JSON
    games/<game>/result.html                 the result and the revealed seed (when over)
    games/<game>/map.svg                     the current map, standalone
    games/<game>/feed.atom, deadlines.ics    a feed (an entry per turn) and the deadlines

Incremental: each output's inputs are hashed (the page's data, the templates, this code);
a file is rendered only when its inputs changed, and written only when its bytes changed.
`.pbem-site.json` in the output folder remembers what was written; files this site wrote
and no longer produces (a game deleted, turns rolled back) are removed.
"""


import hashlib
import json
import os
import stat
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable


from pbem import host
from pbem.host import schedule
from pbem.host.files import write_atomic
from pbem.core.errors import NotFound, PbemError
from pbem.core.text import printable
from pbem.core.registry import games_dir, templates_dir
from pbem.render.html import (
    Game, Turn, chart_data, details, event_items, game_static, game_summary, load_game,
    players_table, public_players, render, render_chart, render_map, slug_for, url_segment,
)

SITE_FORMAT = 1  # part of every file's key
MANIFEST = ".pbem-site.json"  # the head of the manifest: each game's fingerprint and summary
PARTS = ".pbem-site"  # the rest: a file per game (PARTS/<folder>.json), read when the game changed
MANIFEST_FORMAT = 2
STORE_ID = "store-id"  # run_state: the store's identity, named in the manifest of its site
FEED_ENTRIES = 50
_PBEM = Path(__file__).resolve().parent.parent  # the pbem package


@lru_cache(maxsize=None)
def _code_digest(game_type: str) -> str:
    """A hash of everything a page's bytes depend on besides its data: this code, the
    templates, and the game module (its view and its event texts)."""
    h = hashlib.sha256(f"site-{SITE_FORMAT}".encode())
    files = [_PBEM / "site" / "publish.py", _PBEM / "render" / "html.py", _PBEM / "render" / "reports.py",
             _PBEM / "render" / "svg.py", _PBEM / "host" / "schedule.py", _PBEM / "core" / "engine.py",
             _PBEM / "core" / "citations.py", _PBEM / "core" / "text.py"]
    files += sorted(p for p in templates_dir().rglob("*") if p.is_file())
    gdir = games_dir() / game_type
    if gdir.is_dir():
        files += sorted(p for p in gdir.rglob("*") if p.is_file() and p.suffix in (".py", ".toml"))
    for p in files:
        h.update(str(p.name).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def _json_game(game: Game) -> dict:
    return {"id": game.id, "type": game.row["type"], "title": game.title, "seed_hash": game.row["seed_hash"],
            "players": [{"name": p["name"], "seat": p["seat"]} for p in game.players]}


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str, separators=(",", ":")).encode()).hexdigest()


def _turn_json(game: Game, t: Turn, light: bool = False) -> dict:
    """The public report of one turn, for players' own tools (docs/site.md documents it).
    `light`: the same with the turn's events and view as their hash (t.digest) and without the
    game's part (hashed once a game), for its key."""
    doc = {
        "format": "pbem-public-turn",
        "version": 1,
        "game": None if light else _json_game(game),
        "turn": t.number,
        # a hash of the whole position (hands and deck order too): published only once the
        # game is over, or trying hidden hands against it would reveal them
        "state_hash": t.state_hash if game.finished else None,
        "opened": t.opened,
        "deadline": t.deadline,
        "resolved": t.resolved,
        "over": t.over,
        "asked": t.asked,
        "events": None if light else t.events,
        "view": t.digest if light else t.view,
        "scores": t.scores,
        "outcome": game.outcome if t.over else None,
        "seed": game.row["seed"] if t.over and game.finished else None,
    }
    return doc


def _json_text(doc) -> str:
    """JSON with <, > and & as \\u escapes: the same data, and inert even if a server
    serves it as HTML."""
    text = json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e") + "\n"


def _summaries(game: Game) -> list[str]:
    """One line per turn for the history: what was ordered in it (the events of the next)."""
    return [game.turns[i + 1].line if i + 1 < len(game.turns) else "" for i in range(len(game.turns))]


HISTORY_LINES = 10


def _turn_facts(game: Game, idx: int, numbers: list[int] | None = None) -> dict:
    """What turn `idx`'s page is made of, as plain data: the page's key is its hash (with
    chains of the history and the scores before it, see plan()), so it is cheap to compute
    and nothing the page shows is left out of it."""
    t = game.turns[idx]
    numbers = numbers if numbers is not None else [x.number for x in game.turns]
    next_n = numbers[idx + 1] if idx + 1 < len(numbers) else None
    current = next_n is None and not t.over
    return {
        "idx": idx, "number": t.number, "opened": t.opened, "deadline": t.deadline, "resolved": t.resolved,
        "over": t.over, "asked": t.asked, "awaiting": game.awaiting if current else [], "current": current,
        "prev": numbers[idx - 1] if idx > 0 else None, "next": next_n, "result": game.finished and t.over,
        "digest": t.digest, "scores": t.scores,  # the hash of its view, events and text position
        "has_map": game.has_map, "game": game_static(game), "sched": game.sched,
        "outcome": game.outcome if t.over else None, "seed": game.row["seed"] if t.over and game.finished else None,
    }


def _turn_context(game: Game, facts: dict, summaries: list[str], root: str) -> dict:
    """The template context of a turn page, from its facts."""
    idx, t = facts["idx"], game.turns[facts["idx"]]
    past = [{"number": x.number, "summary": summaries[i]} for i, x in enumerate(game.turns[:idx])]
    return {
        "root": root,
        "game": facts["game"],
        "turn": {
            "number": t.number, "opened": t.opened, "deadline": t.deadline,
            "deadline_text": schedule.show(t.deadline, game.sched) if t.deadline else "",
            "resolved": t.resolved, "over": t.over, "asked": t.asked,
            "awaiting": facts["awaiting"], "current": facts["current"],
        },
        "prev": facts["prev"],
        "next": facts["next"],
        "result": facts["result"],
        "events": event_items(game, t.events),
        "first": idx == 0,
        "map": {"view": t.view} if game.has_map else None,
        "text_position": t.text_position,
        "standings": players_table(game, t.view, t.scores, (facts["outcome"] or {}).get("winners") if t.over else None),
        "details": details(game.rules, t.view),
        "outcome": facts["outcome"],
        "seed": facts["seed"],
        "history": past[-HISTORY_LINES:],
        "older": [h["number"] for h in past[:-HISTORY_LINES]],
        "chart": chart_data(game, t.number),
    }


def _game_context(game: Game, root: str) -> dict:
    last = game.turns[-1] if game.turns else None
    summaries = []
    for i, t in enumerate(game.turns):
        nxt = game.turns[i + 1] if i + 1 < len(game.turns) else None
        summaries.append({"number": t.number, "opened": t.opened, "deadline": t.deadline, "resolved": t.resolved,
                          "summary": nxt.line if nxt else ("" if t.over or game.finished else "in progress")})
    return {
        "root": root,
        "game": game_summary(game),
        "turns": summaries,
        "standings": players_table(game, last.view if last else None, last.scores if last else None,
                                   (game.outcome or {}).get("winners") if game.finished else None),
        "chart": chart_data(game, last.number if last else 0),
        "outcome": game.outcome,
        "map": {"view": last.view} if (last and game.has_map) else None,
    }


# --- feeds ------------------------------------------------------------------------------------

def _uuid(*parts) -> str:
    return "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, "pbem:" + ":".join(str(p) for p in parts)))


def _feed_context(game: Game, base_url: str | None) -> dict:
    base = (base_url.rstrip("/") + "/games/" + url_segment(game.slug) + "/") if base_url else ""
    entries = []
    for t in game.turns[-FEED_ENTRIES:]:
        items = event_items(game, t.events)
        entries.append({
            "id": _uuid(game.id, game.row["seed_hash"], "turn", t.number),
            "title": (f"Turn {t.number}" if not t.over else f"Turn {t.number}: the game is over"),
            "updated": t.opened or game.row["created"],
            "href": f"{base}turn-{t.number}.html",
            "lines": [it["text"] for it in items],
        })
    entries.reverse()
    return {
        "game": game_summary(game),
        "id": _uuid(game.id, game.row["seed_hash"], "feed"),
        "updated": entries[0]["updated"] if entries else game.row["created"],
        "self_href": f"{base}feed.atom",
        "alt_href": f"{base}index.html",
        "entries": entries,
    }


REMINDER_BEFORE = timedelta(hours=24)  # a player's own deadlines ring this long before (or the game's `remind`)


def render_ics(game: Game, base_url: str | None = None, player: str | None = None,
               remind: timedelta = REMINDER_BEFORE, cache: dict | None = None) -> str:
    """An iCalendar file (RFC 5545, written by the `icalendar` library) of the game's deadlines
    and its start and end. With `player`: only the deadlines of the turns that player is asked
    in, each with a reminder alarm `remind` before it (that player's own calendar).

    `cache` (kept in the game's part of the manifest): each event as written before, by its
    place (`start`, `end` or `deadline`, the player, the turn), under the hash of what it is
    made of; an event whose inputs are unchanged is not written by the library again (issue
    17: after one more turn, a calendar costs one event, not one per turn). A calendar is its properties and its events' lines, in order, so the
    text is the same either way."""
    from icalendar import Alarm, Calendar, Event

    name = f"pbem {game.title} {game.id}"
    url = (base_url.rstrip("/") + "/games/" + url_segment(game.slug) + "/") if base_url else ""
    cal = Calendar()
    cal.add("prodid", "-//pbem//pbem publish//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", name + (f" deadlines of {player}" if player else " deadlines"))
    events: list[str] = []
    end = "END:VCALENDAR\r\n"

    def event(what: str, number: int | None, stamp: str, start: str, summary: str, description: str, href: str = "",
              alarm: bool = False) -> None:
        slot = f"{what}{whose}:{number}"  # the event's place: its UID is made of it
        made_of = _hash([game.id, game.row["seed_hash"], stamp, start, summary, description, href,
                         remind.total_seconds() if alarm else None])
        known = cache.get(slot) if cache is not None else None
        if isinstance(known, list) and len(known) == 3 and known[0] == made_of and isinstance(known[1], str):
            events.append(known[1])
            return
        parts = (game.id, game.row["seed_hash"], what + whose) + (() if number is None else (number,))
        uid = _uuid(*parts) + "@pbem"
        ev = Event()
        ev.add("uid", uid)
        ev.add("dtstamp", schedule.parse_time(stamp))
        ev.add("dtstart", schedule.parse_time(start))
        ev.add("summary", summary)
        ev.add("description", description)
        if href:
            ev.add("url", href)
        if alarm:
            al = Alarm()
            al.add("action", "DISPLAY")
            al.add("description", summary)
            al.add("trigger", -remind)
            ev.add_component(al)
        if cache is None:  # the library writes the whole calendar
            cal.add_component(ev)
            return
        text = ev.to_ical().decode("utf-8")
        cache[slot] = [made_of, text, number or 0]  # the turn's number (0: the start and the end)
        events.append(text)

    created = game.row["created"]
    whose = f"-{player}" if player else ""
    event("start", None, created, created, f"{name}: the game starts",
          f"Seed hash (SHA-256): {game.row['seed_hash']}", url + "index.html" if url else "")
    for t in game.turns:
        if not t.deadline or (player and player not in t.asked):
            continue
        who = ", ".join(t.asked) or "nobody"
        event("deadline", t.number, t.opened or created, t.deadline,
              f"{name}: " + (f"your orders for turn {t.number} due" if player else f"orders for turn {t.number} due"),
              f"Orders awaited from: {who}.", f"{url}turn-{t.number}.html" if url else "", alarm=bool(player))
    if game.finished and game.row["finished"]:
        winners = ", ".join((game.outcome or {}).get("winners", []))
        event("end", None, game.row["finished"], game.row["finished"],
              f"{name}: the game is over", f"Winner(s): {winners}.", url + "result.html" if url else "")
    whole = cal.to_ical().decode("utf-8")
    return whole if cache is None else whole[: -len(end)] + "".join(events) + end


# --- publishing -------------------------------------------------------------------------------

@dataclass
class Output:
    path: str                       # relative to the output folder, '/'-separated
    key: str                        # hash of the inputs
    render: Callable[[], str | bytes]


@dataclass
class Published:
    out: Path
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    games: int = 0
    trusted: int = 0  # files of games with nothing new, not looked at (see publish's `check`)


@lru_cache(maxsize=None)
def _key_base(kind: str, game_type: str):
    h = hashlib.sha256(_code_digest(game_type).encode())
    h.update(kind.encode())
    return h


def _key(kind: str, game_type: str, ctx) -> str:
    h = _key_base(kind, game_type).copy()  # the code's hash and the kind, hashed once a process
    h.update(json.dumps(ctx, sort_keys=True, default=str, separators=(",", ":")).encode())
    return h.hexdigest()


def _inside(out: Path, rel: str, dirs: dict | None = None) -> Path:
    """The file for `rel` under `out`, refusing any path that would leave it. `dirs`: folders
    resolved before (a site has a few folders and many files: each folder is resolved once)."""
    folder, _, name = rel.rpartition("/")
    if dirs is not None and name not in ("", ".", "..") and not os.path.islink(os.path.join(out, rel)):
        if folder not in dirs:
            dirs[folder] = _inside(out, folder) if folder else out
        return dirs[folder] / name
    target = (out / rel).resolve()
    if target == out or not target.is_relative_to(out):
        raise PbemError(f"refusing to write {rel!r}: it is outside the output folder {out}")
    return target


def _inside_stat(out: Path, rel: str, dirs: dict) -> tuple[Path, tuple[int, int] | None]:
    """`_inside(out, rel, dirs)` and the file's size and mtime as `_stat` gives them, with one
    system call for a regular file that is there (issue 17: a publish with nothing new looks
    at each file once). A link, or anything else, takes the careful way."""
    folder, _, name = rel.rpartition("/")
    if name not in ("", ".", ".."):
        try:
            st = os.lstat(os.path.join(out, rel))
        except FileNotFoundError:
            st = None
        except OSError:
            st = False
        if st is None or (st is not False and stat.S_ISREG(st.st_mode)):
            if folder not in dirs:
                dirs[folder] = _inside(out, folder) if folder else out
            return dirs[folder] / name, (None if st is None else (st.st_size, st.st_mtime_ns))
    target = _inside(out, rel, dirs)
    return target, _stat(target)


def plan(games: list[Game], base_url: str | None = None, press: dict[str, list[dict]] | None = None,
         records: dict[str, dict] | None = None, announcements: dict[str, list[dict]] | None = None,
         reuse: dict[str, dict] | None = None) -> list[Output]:
    """Every file of the site, each with the hash of its inputs and how to render it.
    `press`: each game's public press (pbem.host.press.public), shown on its page.
    `records`: each finished game's public record (pbem.host.record), for `pbem verify`."""
    outs = _site_outputs([game_summary(g) for g in games])
    for g in games:
        outs += _game_plan(g, base_url, press, records, announcements, reuse)
    return outs


def _site_outputs(summaries: list[dict]) -> list[Output]:
    """The files of the site that are no game's: the style sheet, and the index of the games
    (from each game's summary, html.game_summary)."""
    css = (templates_dir() / "site" / "style.css").read_text(encoding="utf-8")
    ictx = {"root": "", "games": summaries}
    return [Output("style.css", _key("css", "", css), lambda: css),
            Output("index.html", _key("index", "", ictx), lambda c=ictx: render("site/index.html.j2", **c))]


def _game_plan(g: Game, base_url: str | None, press: dict | None, records: dict | None,
               announcements: dict | None, reuse: dict[str, dict] | None, ics: dict | None = None) -> list[Output]:
    """One game's files (_game_outputs). `reuse`: the files and keys planned last time, by
    game, under the hash of their inputs: the same inputs plan nothing again. `ics`: the
    game's calendar events as written before (render_ics's cache)."""
    gin = _hash([_code_digest(g.row["type"]), base_url, g.row, g.players, g.awaiting, (press or {}).get(g.id, []),
                 (announcements or {}).get(g.id, []), (records or {}).get(g.id),
                 [(t.number, t.opened, t.deadline, t.resolved, t.state_hash, t.asked, t.over, t.scores, t.line,
                   t.digest) for t in g.turns]])
    prior = (reuse or {}).get(g.id) or {}
    if reuse is not None and prior.get("in") == gin and isinstance(prior.get("outputs"), list):
        # the same inputs as last time: the same files and keys, planned again (to render
        # one) only when a file must be written (issue 17: nothing new costs no work a turn)
        def again(path: str, g=g, memo: list = []) -> str | bytes:
            if not memo:
                memo.extend(_game_outputs(g, base_url, press, records, announcements, ics))
            return next(o for o in memo if o.path == path).render()

        return [Output(path, key, lambda path=path, again=again: again(path)) for path, key in prior["outputs"]]
    mine = _game_outputs(g, base_url, press, records, announcements, ics)
    if reuse is not None:
        reuse[g.id] = {"in": gin, "outputs": [[o.path, o.key] for o in mine]}
    return mine


def _game_outputs(g: Game, base_url: str | None, press: dict | None, records: dict | None,
                  announcements: dict | None, ics: dict | None = None) -> list[Output]:
    """Every file of one game, as plan() returns them."""
    outs: list[Output] = []
    base = f"games/{g.slug}/"
    gtype = g.row["type"]
    gctx = _game_context(g, "../../")
    gctx["press"] = (press or {}).get(g.id, [])  # public press only (grey: "anonymous")
    gctx["announcements"] = (announcements or {}).get(g.id, [])  # the GM's public announcements (issue 13)
    outs.append(Output(base + "index.html", _key("game", gtype, gctx),
                       lambda c=gctx: render("site/game.html.j2", chart_svg=render_chart(c["chart"], uid="gc"), **c)))
    if g.has_map and g.turns:
        mctx = {"view": g.turns[-1].view, "title": f"{g.title} {g.id}, turn {g.turns[-1].number}"}
        outs.append(Output(base + "map.svg", _key("map", gtype, mctx),
                           lambda c=mctx, g=g: render_map(g.row["type"], c["view"], uid="m", title=c["title"],
                                                          standalone=True) + "\n"))
    # A turn page shows the history and the chart up to it: its key hashes them as a
    # chain, so a page's key costs O(1) however long the game (and stays exact).
    summaries = _summaries(g)
    static = _hash([game_static(g), g.sched])  # what every turn page shows of the game: hashed once
    jstatic = _hash(_json_game(g))
    hist, chart = hashlib.sha256(), hashlib.sha256()
    numbers = [x.number for x in g.turns]
    for idx, t in enumerate(g.turns):
        hist_key = hist.hexdigest()  # turns before this one
        hist.update(json.dumps([t.number, summaries[idx]]).encode())
        chart.update(json.dumps([t.number, t.scores], sort_keys=True).encode())
        facts = _turn_facts(g, idx, numbers)
        key = _key("turn", gtype, {**facts, "game": static, "sched": None, "history": hist_key, "chart": chart.hexdigest()})

        def render_turn(f=facts, g=g, t=t, summaries=summaries):
            c = _turn_context(g, f, summaries, "../../")
            map_svg = render_map(g.row["type"], t.view, uid="m", title=f"{g.title} {g.id}, turn {t.number}") if c["map"] else ""
            return render("site/turn.html.j2", map_svg=map_svg, chart_svg=render_chart(c["chart"], uid="c"), **c)

        outs.append(Output(base + f"turn-{t.number}.html", key, render_turn))
        outs.append(Output(base + f"turn-{t.number}.json", _key("json", gtype, {**_turn_json(g, t, light=True), "game": jstatic}),
                           lambda g=g, t=t: _json_text(_turn_json(g, t))))
    record = (records or {}).get(g.id)
    if g.finished and record is not None:
        outs.append(Output(base + "record.json", _key("record", gtype, record), lambda d=record: _json_text(d)))
    if g.finished:
        last = g.turns[-1] if g.turns else None
        rctx = {"root": "../../", "game": game_summary(g), "outcome": g.outcome,
                "standings": players_table(g, last.view if last else None, (g.outcome or {}).get("scores") or (last.scores if last else None),
                                           (g.outcome or {}).get("winners")),
                "chart": chart_data(g, last.number if last else 0), "last_turn": last.number if last else 0}
        outs.append(Output(base + "result.html", _key("result", gtype, rctx),
                           lambda c=rctx: render("site/result.html.j2", chart_svg=render_chart(c["chart"], uid="rc"), **c)))
    feed_in = {"game": game_summary(g), "base": base_url,
               "turns": [(t.number, t.opened, t.over, t.digest) for t in g.turns[-FEED_ENTRIES:]]}
    outs.append(Output(base + "feed.atom", _key("feed", gtype, feed_in),
                       lambda g=g: render("site/feed.atom.j2", **_feed_context(g, base_url))))
    # what render_ics reads of the game row (not its phase or deadline: a player's calendar
    # changes only with the turns that player is asked in)
    cal_row = {k: g.row.get(k) for k in ("id", "seed_hash", "created", "status", "finished")}
    ics_in = {"turns": [(t.number, t.opened, t.deadline, t.asked) for t in g.turns], "row": cal_row, "base": base_url,
              "outcome": g.outcome}
    outs.append(Output(base + "deadlines.ics", _key("ics", gtype, ics_in), lambda g=g: render_ics(g, base_url, cache=ics)))
    remind = _remind(g)
    for p in g.players:  # each player's own deadlines, with a reminder alarm
        mine = {"turns": [(t.number, t.opened, t.deadline) for t in g.turns if p["name"] in t.asked],
                "row": ics_in["row"], "base": base_url, "outcome": g.outcome, "player": p["name"],
                "remind": remind.total_seconds()}
        outs.append(Output(base + f"deadlines-{url_segment(p['name'])}.ics", _key("ics-player", gtype, mine),
                           lambda g=g, who=p["name"], r=remind: render_ics(g, base_url, who, r, cache=ics)))
    return outs


def _remind(game: Game) -> timedelta:
    """How long before a deadline a player's calendar rings: the game's `remind` option
    (pbem set GAME remind 12h) when it is on, else a day."""
    from pbem.host.controls import parse_duration
    from pbem.host.read import host_options

    try:
        value = parse_duration(host_options(None, game.row)["remind"])
    except PbemError:  # validated when it was set: a day if it cannot be read now
        return REMINDER_BEFORE
    return value or REMINDER_BEFORE


def _store_identity(file: str) -> str | None:
    """The identity kept in the store `file` (STORE_ID), read without changing or creating
    anything; None when there is no such store or it cannot be read."""
    import sqlite3
    from urllib.parse import quote

    if not os.path.isfile(file):
        return None
    try:
        conn = sqlite3.connect(f"file:{quote(file)}?mode=ro", uri=True, timeout=1)
        try:
            row = conn.execute("select value from run_state where key = ?", [STORE_ID]).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def _store_name(db) -> str:
    """The store's file, as SQLite names it (':memory:' or '' for a store without one)."""
    try:
        row = db.execute("PRAGMA database_list").fetchone()
        return str(Path(row[2]).resolve()) if row and row[2] else ":memory:"
    except Exception:  # noqa: BLE001 - a name for a message only
        return ":memory:"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stat(target: Path) -> tuple[int, int] | None:
    """A regular file's size and modification time (ns), or None when there is none."""
    try:
        st = os.stat(target)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def _manifest_bytes(doc: dict) -> bytes:
    """A manifest file: compact JSON (the C encoder: an indented dump is written by Python's
    own, many times slower on a long game's part)."""
    return (json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def _read_json(path: Path) -> dict:
    """A manifest file's document, or {} when it is missing, unreadable or not an object."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _lstat_pair(path: Path) -> list[int] | None:
    """A regular file's size and mtime (ns), as the manifest records them; None when there is none."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns] if stat.S_ISREG(st.st_mode) else None


def _part_path(out: Path, slug: str) -> Path:
    return out / PARTS / f"{slug}.json"


def _fingerprint(db, row: dict, base_url: str | None, press: list, announcements: list) -> str:
    """What a game's files are made of in the store, read in a few statements however long the
    game (issue 17): its row, its players as shown, its last two turns (a resolve writes the
    turn it resolves and the next; a rollback, a seat taken over or a deadline moved rewrite
    the last), how many turns there are, who has sent orders for the open turn, its public
    press and announcements, the code and the site's address. The game's seed is part of the
    row: the hash reveals nothing of the state hashes and orders in it while the game runs."""
    gid = row["id"]
    last = db.execute("SELECT number, state_hash, opened, deadline, resolved, used, nmr FROM phases "
                      "WHERE game_id = ? ORDER BY number DESC LIMIT 2", [gid]).fetchall()
    count = db.execute("SELECT count(*), min(number) FROM phases WHERE game_id = ?", [gid]).fetchone()
    submitted = sorted(host.submitted_players(db, gid, row["phase"])) if row["status"] == "running" else []
    return _hash([MANIFEST_FORMAT, _code_digest(row["type"]), base_url, row, public_players(db, gid),
                  [list(r) for r in last], list(count), submitted, press, announcements])


def _turn_code(row: dict) -> str:
    """The `code` of html.load_game's cache of turns: the code's hash, and the game's seed so
    that the cache's fingerprints (of state hashes and orders) reveal nothing while it runs."""
    return _hash([_code_digest(row["type"]), row["seed"]])


def _migrate(old: dict, rows: list[dict]) -> tuple[dict, dict[str, dict]]:
    """A manifest of the first format (one file listing every file) as the head of the second
    and a part for each game of the store; files of no game of the store stay in the head's
    files (they are removed as files no longer made, when unchanged since)."""
    files = old.get("files") if isinstance(old.get("files"), dict) else {}
    turns = old.get("turns") if isinstance(old.get("turns"), dict) else {}
    plans = old.get("plans") if isinstance(old.get("plans"), dict) else {}
    by_slug = {slug_for(r["id"]): r["id"] for r in rows}
    parts = {r["id"]: {"files": {}, "turns": turns.get(r["id"]) if isinstance(turns.get(r["id"]), dict) else {},
                       "plan": plans.get(r["id"]) if isinstance(plans.get(r["id"]), dict) else None} for r in rows}
    site_files = {}
    for rel, info in files.items():
        seg = rel.split("/")
        if len(seg) >= 3 and seg[0] == "games" and seg[1] in by_slug:
            parts[by_slug[seg[1]]]["files"][rel] = info
        else:
            site_files[rel] = info
    parts = {gid: p for gid, p in parts.items() if p["files"] or p["turns"] or p["plan"]}
    return {"format": MANIFEST_FORMAT, "store": old.get("store"), "files": site_files, "games": {}}, parts


def _sync(out_path: Path, outputs: list[Output], old: dict, dirs: dict, result: Published,
          say: Callable[[str], None], bar, read_all: bool = False) -> dict[str, dict]:
    """Render and write each output whose file is not what it should be; the manifest's
    record of each. A file whose size and mtime are those recorded when it was written is
    trusted unchanged; any other is read and hashed (issue 17). `read_all` (publish --check):
    every file is read and hashed (an edit that kept the size and put the time back too)."""
    new_files: dict[str, dict] = {}
    for o in outputs:
        target, st = _inside_stat(out_path, o.path, dirs)
        prev = old.get(o.path) if isinstance(old.get(o.path), dict) else None
        same_stat = bool(not read_all and prev and st and prev.get("size") == st[0] and prev.get("mtime") == st[1])
        on_disk_sha = (prev.get("sha256") if same_stat else _sha(target.read_bytes())) if st else None
        if prev and prev.get("key") == o.key and on_disk_sha is not None and on_disk_sha == prev.get("sha256"):
            result.unchanged.append(o.path)
            new_files[o.path] = {**prev, "size": st[0], "mtime": st[1]}
        else:
            data = o.render()
            # issue 17: no page carries a control character (press stored before the guard)
            data = printable(data).encode("utf-8") if isinstance(data, str) else data
            digest = _sha(data)
            if on_disk_sha is not None and on_disk_sha == digest:
                result.unchanged.append(o.path)
            else:
                write_atomic(target, data)
                result.written.append(o.path)
                say(f"wrote {o.path}")
                st = _stat(target)
            new_files[o.path] = {"key": o.key, "sha256": digest, "size": st[0], "mtime": st[1]}
        if bar is not None:
            bar.update(1)
    return new_files


def _remove(out_path: Path, old: dict, made: set[str], result: Published, say: Callable[[str], None]) -> None:
    """Remove the files recorded in `old` that are made no more, when unchanged since written."""
    for rel, info in sorted(old.items()):
        if rel in made or not isinstance(info, dict):
            continue
        try:
            target = _inside(out_path, rel)
        except PbemError:
            continue
        st = _stat(target)
        if st and ((info.get("size"), info.get("mtime")) == st or _sha(target.read_bytes()) == info.get("sha256")):
            target.unlink()
            result.removed.append(rel)
            say(f"removed {rel}")
            try:
                target.parent.rmdir()  # only when empty
            except OSError:
                pass


# what the pages pbem writes at the top of a site carry, so that a site whose manifest was lost
# is told from a folder of somebody else's files (a GM's own home page is never overwritten)
_SIGNATURES = {"index.html": b"Published by <code>pbem publish</code>", "style.css": b"/* pbem published site"}


def _foreign_files(out_path: Path, only: tuple[str, ...] = tuple(_SIGNATURES)) -> list[str]:
    """The files at the top of `out_path` (of `only`) that a site would overwrite and pbem did not write."""
    foreign = []
    for name in only:
        signature = _SIGNATURES[name]
        path = out_path / name
        try:
            st = path.lstat()
        except FileNotFoundError:
            continue
        except OSError:
            foreign.append(name)
            continue
        if not stat.S_ISREG(st.st_mode):
            foreign.append(name)
            continue
        try:
            data = path.read_bytes()
        except OSError:
            data = b""
        if signature not in data:
            foreign.append(name)
    return foreign


def _foreign_game_files(out_path: Path, outs: list[Output], known: dict) -> list[str]:
    """The files a game's pages would overwrite that pbem did not write (issue 17): a file
    already at one of its paths that the manifest does not list, in a game folder whose
    index.html is not one of pbem's pages (a folder of pbem's pages whose manifest was lost is
    pbem's, taken over as the top of the site is)."""
    found = [o.path for o in outs if o.path not in known and os.path.lexists(out_path / o.path)]
    if not found:
        return []
    ours: dict[str, bool] = {}
    foreign = []
    for rel in found:
        folder = rel.rpartition("/")[0]
        if folder not in ours:
            ours[folder] = not _foreign_files(out_path / folder, only=("index.html",)) and (
                out_path / folder / "index.html").is_file()
        if not ours[folder]:
            foreign.append(rel)
    return foreign


def publish(db, out: str | Path, base_url: str | None = None, games: Iterable[str] | None = None,
            log: Callable[[str], None] | None = None, progress: Callable[[int], object] | None = None,
            check: bool = False, named: str | None = None) -> Published:
    """Render every game (or the games named) into the folder `out`; write only what changed.

    A game with nothing new in the store since the last publish (its fingerprint, see
    _fingerprint, is the one in the manifest, and its part of the manifest is as written) is
    not looked at: its files are trusted to be as written (issue 17: nothing new costs the same
    however long the games). `check`: read every file of every game (its hash, whatever its
    size and mtime) and write again any changed or missing. The files of a game
    that changed, the index and the style sheet are always looked at.

    `log` gets one line per file written or removed; `progress(total)` may return a context
    manager with `.update(n)` (e.g. click.progressbar) to show progress on long runs. `named`:
    how the folder is named in a refusal (default "--out OUT"; pbem run names its setting)."""
    from pbem.host import press as host_press  # issue 13: public press on each game's page
    from pbem.host import read as host_read  # issue 13: the GM's public announcements
    from pbem.host import record as host_record  # a finished game's record, for `pbem verify`

    named = named or f"--out {out}"
    out_path = Path(out)
    if out_path.exists() and not out_path.is_dir():
        raise PbemError(f"{named} is a file, not a folder")
    out_path.mkdir(parents=True, exist_ok=True)
    out_path = out_path.resolve()
    every = list(db["games"].rows_where(order_by="created, id")) if db["games"].exists() else []
    rows = every
    if games:
        wanted = set(games)
        missing = wanted - {r["id"] for r in rows}
        if missing:
            raise NotFound(f"no game {', '.join(sorted(missing))} in this store")
        rows = [r for r in rows if r["id"] in wanted]
    manifest_path = out_path / MANIFEST
    head = _read_json(manifest_path)
    migrated: dict[str, dict] = {}
    if head.get("format") == 1:  # one file listing every file (before issue 17)
        head, migrated = _migrate(head, every)
    elif head.get("format") != MANIFEST_FORMAT:
        head = {}  # missing or unreadable: every file is looked at
        foreign = _foreign_files(out_path)
        if foreign:
            raise PbemError(f"{named} already holds {' and '.join(foreign)}, which pbem publish did not write "
                            f"(and no {MANIFEST}): publish into a new or empty folder, or move them away")
    entries = {gid: e for gid, e in (head.get("games") or {}).items() if isinstance(e, dict)}
    site_old = {p: v for p, v in (head.get("files") or {}).items() if isinstance(v, dict)}
    # a site folder belongs to one store: another store publishing into it would remove every
    # page it did not make (its manifest lists them)
    # the store is known by an identity kept inside it, so a store moved with its site (or
    # renamed) still owns it; a manifest written before names the store's file
    path = _store_name(db)
    store = (host.kept_secret(db, STORE_ID) if path != ":memory:" else None) or path
    if (entries or site_old or migrated) and head.get("store") not in (None, store, path):
        raise PbemError(f"{named} holds the site of another store, not of {path}: publish each store into its "
                        f"own folder (if this is the site of this store from before it was moved, delete {MANIFEST} "
                        "there: the next publish looks at every file and takes the folder over)")
    was = head.get("store_file")
    if head.get("store") == store != path and isinstance(was, str) and was != path and _store_identity(was) == store:
        raise PbemError(f"{named} holds the site of the store {was}, which has this store's identity and is still "
                        f"there: one is a copy of the other (cp -a, a backup): publish each copy into its own folder "
                        f"(if {was} is no longer used, remove it and publish again)")
    slugs: dict[str, str] = {}
    for r in rows:
        slug = slug_for(r["id"])
        if slug in slugs:
            raise PbemError(f"games {slugs[slug]!r} and {r['id']!r} would share the folder games/{slug}")
        slugs[slug] = r["id"]
    press = {r["id"]: host_press.public(db, r["id"]) for r in rows}
    announcements = {r["id"]: host_read.announcements(db, r["id"]) for r in rows}
    # each game's fingerprint before anything else is read: a turn resolved meanwhile leaves a
    # fingerprint older than the pages, and the next publish looks again
    fps = {r["id"]: _fingerprint(db, r, base_url, press[r["id"]], announcements[r["id"]]) for r in rows}

    def trusted(r: dict) -> bool:
        e = entries.get(r["id"])
        return bool(not check and e and e.get("fp") == fps[r["id"]] and e.get("slug") == slug_for(r["id"])
                    and isinstance(e.get("summary"), dict)
                    and _lstat_pair(_part_path(out_path, e["slug"])) == e.get("part"))

    def part_of(r: dict) -> dict:
        """What the manifest says of a game: its files, its turns as loaded, its plan."""
        if r["id"] in migrated:
            return migrated[r["id"]]
        if not head:
            return {}
        part = _read_json(_part_path(out_path, slug_for(r["id"])))
        return part if part.get("format") == MANIFEST_FORMAT and part.get("game") == r["id"] else {}

    result = Published(out_path, games=len(rows))
    say = log or (lambda s: None)
    todo = [r for r in rows if not trusted(r)]
    parts = {r["id"]: part_of(r) for r in todo}
    loaded: dict[str, Game] = {}
    caches: dict[str, dict] = {}
    for r in todo:
        cache = parts[r["id"]].get("turns")
        caches[r["id"]] = cache = dict(cache) if isinstance(cache, dict) else {}
        loaded[r["id"]] = load_game(db, r, cache, _turn_code(r))
    records = {}
    for g in loaded.values():
        if g.finished:
            try:
                records[g.id] = host_record.game_record(db, g.id)
            except PbemError as err:  # one game's broken history stops neither its pages nor the others
                say(f"no record.json for {g.id}: {err}")
    # the index lists every game published here: those looked at now, the others as the
    # manifest remembers them (a game of a first-format manifest is loaded for it once)
    summaries: dict[str, dict] = {}
    for r in every:
        gid = r["id"]
        if gid in loaded:
            summaries[gid] = game_summary(loaded[gid])
        elif isinstance((entries.get(gid) or {}).get("summary"), dict):
            summaries[gid] = entries[gid]["summary"]
        elif gid in migrated:
            summaries[gid] = game_summary(load_game(db, r, dict(migrated[gid].get("turns") or {}), _turn_code(r)))
    site_outs = _site_outputs(list(summaries.values()))
    reuse = {gid: p["plan"] for gid, p in parts.items() if isinstance(p.get("plan"), dict)}
    ics = {gid: {u: e for u, e in (p.get("ics") or {}).items() if isinstance(e, list) and len(e) == 3}
           if isinstance(p.get("ics"), dict) else {} for gid, p in parts.items()}
    game_outs = {gid: _game_plan(g, base_url, press, records, announcements, reuse, ics[gid]) for gid, g in loaded.items()}
    foreign = sorted(rel for gid, outs in game_outs.items()
               for rel in _foreign_game_files(out_path, outs, parts[gid].get("files") or {}))
    if foreign:  # refused before anything is written
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise PbemError(f"{named} already holds {shown}, which pbem publish did not write: publish into a new "
                        "or empty folder, or move them away")
    dirs: dict[str, Path] = {}
    bar_cm = progress(len(site_outs) + sum(len(o) for o in game_outs.values())) if progress else None
    bar = bar_cm.__enter__() if bar_cm is not None else None
    try:
        site_files = _sync(out_path, site_outs, site_old, dirs, result, say, bar, check)
        game_files = {}
        for gid, outs in game_outs.items():
            game_files[gid] = _sync(out_path, outs, (parts[gid].get("files") or {}), dirs, result, say, bar, check)
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)
    _remove(out_path, site_old, set(site_files), result, say)
    for gid in loaded:
        old_files = parts[gid].get("files")
        _remove(out_path, old_files if isinstance(old_files, dict) else {}, set(game_files[gid]), result, say)
    new_entries: dict[str, dict] = {}
    in_store = {r["id"] for r in every}
    gone = [gid for gid in entries if gid not in in_store]
    for gid in gone:  # games no longer in the store: their files go (publishing some games keeps them)
        slug = entries[gid].get("slug")
        if games or not isinstance(slug, str) or slug_for(gid) != slug:
            new_entries[gid] = entries[gid]
            continue
        part = _read_json(_part_path(out_path, slug))
        if part.get("format") == MANIFEST_FORMAT and part.get("game") == gid and isinstance(part.get("files"), dict):
            _remove(out_path, part["files"], set(), result, say)
        try:
            _part_path(out_path, slug).unlink()
        except OSError:
            pass
    for r in every:
        gid, slug = r["id"], slug_for(r["id"])
        if gid in loaded:
            last = loaded[gid].turns[-1].number if loaded[gid].turns else 0
            doc = {"format": MANIFEST_FORMAT, "store": store, "game": gid, "files": game_files[gid],
                   "turns": caches[gid], "plan": reuse.get(gid),
                   "ics": {u: e for u, e in ics[gid].items()  # not the events of turns rolled back
                           if u.startswith(("start", "deadline", "end")) and isinstance(e[2], int) and e[2] <= last}}
            if doc != parts[gid] or _lstat_pair(_part_path(out_path, slug)) is None:
                write_atomic(_part_path(out_path, slug), _manifest_bytes(doc))
            new_entries[gid] = {"fp": fps[gid], "slug": slug, "summary": summaries[gid], "files": len(game_files[gid]),
                                "part": _lstat_pair(_part_path(out_path, slug))}
        elif gid in entries:
            new_entries[gid] = entries[gid]
            if gid in fps:
                result.trusted += entries[gid].get("files") or 0
        elif gid in migrated:  # not published now: its part as the first format had it, looked at next time
            doc = {"format": MANIFEST_FORMAT, "store": store, "game": gid, **migrated[gid]}
            write_atomic(_part_path(out_path, slug), _manifest_bytes(doc))
            new_entries[gid] = {"fp": None, "slug": slug, "summary": summaries[gid], "files": len(migrated[gid]["files"]),
                                "part": _lstat_pair(_part_path(out_path, slug))}
    doc = {"format": MANIFEST_FORMAT, "store": store, "store_file": path, "files": site_files, "games": new_entries}
    if doc != head:  # nothing new: not written again
        write_atomic(manifest_path, _manifest_bytes(doc))
    return result
