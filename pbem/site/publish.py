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


from pbem.host import schedule
from pbem.host.files import write_atomic
from pbem.core.errors import NotFound, PbemError
from pbem.core.registry import games_dir, templates_dir
from pbem.render.html import (
    Game, Turn, chart_data, details, event_items, game_static, game_summary, load_game,
    players_table, render, render_chart, render_map, url_segment,
)

SITE_FORMAT = 1
MANIFEST = ".pbem-site.json"
FEED_ENTRIES = 50
_PBEM = Path(__file__).resolve().parent.parent  # the pbem package


@lru_cache(maxsize=None)
def _code_digest(game_type: str) -> str:
    """A hash of everything a page's bytes depend on besides its data: this code, the
    templates, and the game module (its view and its event texts)."""
    h = hashlib.sha256(f"site-{SITE_FORMAT}".encode())
    files = [_PBEM / "site" / "publish.py", _PBEM / "render" / "html.py", _PBEM / "render" / "reports.py",
             _PBEM / "render" / "svg.py", _PBEM / "host" / "schedule.py", _PBEM / "core" / "engine.py",
             _PBEM / "core" / "citations.py"]
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
        "standings": players_table(game, t.view, t.scores),
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
        "standings": players_table(game, last.view if last else None, last.scores if last else None),
        "chart": chart_data(game, last.number if last else 0),
        "outcome": game.outcome,
        "map": {"view": last.view} if (last and game.has_map) else None,
    }


def _index_context(games: list[Game]) -> dict:
    return {"root": "", "games": [game_summary(g) for g in games]}


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
               remind: timedelta = REMINDER_BEFORE) -> str:
    """An iCalendar file (RFC 5545, written by the `icalendar` library) of the game's deadlines
    and its start and end. With `player`: only the deadlines of the turns that player is asked
    in, each with a reminder alarm `remind` before it (that player's own calendar)."""
    from icalendar import Alarm, Calendar, Event

    name = f"pbem {game.title} {game.id}"
    url = (base_url.rstrip("/") + "/games/" + url_segment(game.slug) + "/") if base_url else ""
    cal = Calendar()
    cal.add("prodid", "-//pbem//pbem publish//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", name + (f" deadlines of {player}" if player else " deadlines"))

    def event(uid: str, stamp: str, start: str, summary: str, description: str, href: str = "",
              alarm: bool = False) -> None:
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
        cal.add_component(ev)

    created = game.row["created"]
    whose = f"-{player}" if player else ""
    event(_uuid(game.id, game.row["seed_hash"], "start" + whose) + "@pbem", created, created, f"{name}: the game starts",
          f"Seed hash (SHA-256): {game.row['seed_hash']}", url + "index.html" if url else "")
    for t in game.turns:
        if not t.deadline or (player and player not in t.asked):
            continue
        who = ", ".join(t.asked) or "nobody"
        event(_uuid(game.id, game.row["seed_hash"], "deadline" + whose, t.number) + "@pbem", t.opened or created, t.deadline,
              f"{name}: " + (f"your orders for turn {t.number} due" if player else f"orders for turn {t.number} due"),
              f"Orders awaited from: {who}.", f"{url}turn-{t.number}.html" if url else "", alarm=bool(player))
    if game.finished and game.row["finished"]:
        winners = ", ".join((game.outcome or {}).get("winners", []))
        event(_uuid(game.id, game.row["seed_hash"], "end" + whose) + "@pbem", game.row["finished"], game.row["finished"],
              f"{name}: the game is over", f"Winner(s): {winners}.", url + "result.html" if url else "")
    return cal.to_ical().decode("utf-8")


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


def _key(kind: str, game_type: str, ctx) -> str:
    h = hashlib.sha256(_code_digest(game_type).encode())
    h.update(kind.encode())
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
    outs: list[Output] = []
    css = (templates_dir() / "site" / "style.css").read_text(encoding="utf-8")
    outs.append(Output("style.css", _key("css", "", css), lambda: css))
    ictx = _index_context(games)
    outs.append(Output("index.html", _key("index", "", ictx), lambda c=ictx: render("site/index.html.j2", **c)))
    for g in games:
        gin = _hash([_code_digest(g.row["type"]), base_url, g.row, g.players, g.awaiting, (press or {}).get(g.id, []),
                     (announcements or {}).get(g.id, []), (records or {}).get(g.id),
                     [(t.number, t.opened, t.deadline, t.resolved, t.state_hash, t.asked, t.over, t.scores, t.line,
                       t.digest) for t in g.turns]])
        prior = (reuse or {}).get(g.id) or {}
        if reuse is not None and prior.get("in") == gin:
            # the same inputs as last time: the same files and keys, planned again (to render
            # one) only when a file must be written (issue 17: nothing new costs no work a turn)
            def again(path: str, g=g, memo: list = []) -> str | bytes:
                if not memo:
                    memo.extend(_game_outputs(g, base_url, press, records, announcements))
                return next(o for o in memo if o.path == path).render()

            outs += [Output(path, key, lambda path=path, again=again: again(path)) for path, key in prior["outputs"]]
            continue
        mine = _game_outputs(g, base_url, press, records, announcements)
        if reuse is not None:
            reuse[g.id] = {"in": gin, "outputs": [[o.path, o.key] for o in mine]}
        outs += mine
    return outs


def _game_outputs(g: Game, base_url: str | None, press: dict | None, records: dict | None,
                  announcements: dict | None) -> list[Output]:
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
                "standings": players_table(g, last.view if last else None, (g.outcome or {}).get("scores") or (last.scores if last else None)),
                "chart": chart_data(g, last.number if last else 0), "last_turn": last.number if last else 0}
        outs.append(Output(base + "result.html", _key("result", gtype, rctx),
                           lambda c=rctx: render("site/result.html.j2", chart_svg=render_chart(c["chart"], uid="rc"), **c)))
    feed_in = {"game": game_summary(g), "base": base_url,
               "turns": [(t.number, t.opened, t.over, t.digest) for t in g.turns[-FEED_ENTRIES:]]}
    outs.append(Output(base + "feed.atom", _key("feed", gtype, feed_in),
                       lambda g=g: render("site/feed.atom.j2", **_feed_context(g, base_url))))
    ics_in = {"turns": [(t.number, t.opened, t.deadline, t.asked) for t in g.turns], "row": g.row_public(), "base": base_url,
              "outcome": g.outcome}
    outs.append(Output(base + "deadlines.ics", _key("ics", gtype, ics_in), lambda g=g: render_ics(g, base_url)))
    remind = _remind(g)
    for p in g.players:  # each player's own deadlines, with a reminder alarm
        mine = {"turns": [(t.number, t.opened, t.deadline) for t in g.turns if p["name"] in t.asked],
                "row": ics_in["row"], "base": base_url, "outcome": g.outcome, "player": p["name"],
                "remind": remind.total_seconds()}
        outs.append(Output(base + f"deadlines-{url_segment(p['name'])}.ics", _key("ics-player", gtype, mine),
                           lambda g=g, who=p["name"], r=remind: render_ics(g, base_url, who, r)))
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


def publish(db, out: str | Path, base_url: str | None = None, games: Iterable[str] | None = None,
            log: Callable[[str], None] | None = None, progress: Callable[[int], object] | None = None) -> Published:
    """Render every game (or the games named) into the folder `out`; write only what changed.

    `log` gets one line per file written or removed; `progress(total)` may return a context
    manager with `.update(n)` (e.g. click.progressbar) to show progress on long runs."""
    out_path = Path(out)
    if out_path.exists() and not out_path.is_dir():
        raise PbemError(f"--out {out} is a file, not a folder")
    out_path.mkdir(parents=True, exist_ok=True)
    out_path = out_path.resolve()
    rows = list(db["games"].rows_where(order_by="created, id")) if db["games"].exists() else []
    if games:
        wanted = set(games)
        missing = wanted - {r["id"] for r in rows}
        if missing:
            raise NotFound(f"no game {', '.join(sorted(missing))} in this store")
        rows = [r for r in rows if r["id"] in wanted]
    manifest_path = out_path / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    except (OSError, ValueError):
        manifest = {}
    if manifest.get("format") != SITE_FORMAT:
        manifest = {}
    # a site folder belongs to one store: another store publishing into it would remove every
    # page it did not make (its manifest lists them)
    store = _store_name(db)
    if manifest.get("files") and manifest.get("store") not in (None, store):
        raise PbemError(f"--out {out} holds the site of another store ({manifest['store']}), not of {store}: "
                        "publish each store into its own folder")
    # each game's turns as loaded last time (html.load_game): only the turns new or changed are read
    caches = {gid: c for gid, c in (manifest.get("turns") or {}).items() if isinstance(c, dict)}
    loaded = []
    for r in rows:
        cache = caches.setdefault(r["id"], {})
        loaded.append(load_game(db, r, cache, _code_digest(r["type"])))
    slugs: dict[str, str] = {}
    for g in loaded:
        if g.slug in slugs:
            raise PbemError(f"games {slugs[g.slug]!r} and {g.id!r} would share the folder games/{g.slug}")
        slugs[g.slug] = g.id
    from pbem.host import press as host_press  # issue 13: public press on each game's page
    from pbem.host import read as host_read  # issue 13: the GM's public announcements

    from pbem.host import record as host_record  # a finished game's record, for `pbem verify`

    plans = {gid: v for gid, v in (manifest.get("plans") or {}).items() if isinstance(v, dict)}
    records = {}
    for g in loaded:
        if g.finished:
            try:
                records[g.id] = host_record.game_record(db, g.id)
            except PbemError as err:  # one game's broken history stops neither its pages nor the others
                (log or (lambda s: None))(f"no record.json for {g.id}: {err}")
    outputs = plan(loaded, base_url, press={g.id: host_press.public(db, g.id) for g in loaded},
                   records=records,
                   announcements={g.id: host_read.announcements(db, g.id) for g in loaded}, reuse=plans)
    old = manifest.get("files", {})
    if games:  # publishing some games keeps the others' files
        keep = {p: v for p, v in old.items() if not p.startswith("games/") or p.split("/")[1] not in {g.slug for g in loaded}}
    else:
        keep = {}
    new_files: dict[str, dict] = dict(keep)
    result = Published(out_path, games=len(loaded))
    say = log or (lambda s: None)
    dirs: dict[str, Path] = {}
    bar_cm = progress(len(outputs)) if progress else None
    bar = bar_cm.__enter__() if bar_cm is not None else None
    try:
        for o in outputs:
            target, st = _inside_stat(out_path, o.path, dirs)
            prev = old.get(o.path)
            # a file whose size and mtime are those recorded when it was written is trusted
            # unchanged; any other is read and hashed (issue 17)
            same_stat = bool(prev and st and prev.get("size") == st[0] and prev.get("mtime") == st[1])
            on_disk_sha = (prev.get("sha256") if same_stat else _sha(target.read_bytes())) if st else None
            if prev and prev.get("key") == o.key and on_disk_sha is not None and on_disk_sha == prev.get("sha256"):
                result.unchanged.append(o.path)
                new_files[o.path] = {**prev, "size": st[0], "mtime": st[1]}
            else:
                data = o.render()
                data = data.encode("utf-8") if isinstance(data, str) else data
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
    finally:
        if bar_cm is not None:
            bar_cm.__exit__(None, None, None)
    planned = {o.path for o in outputs}
    for rel, info in sorted(old.items()):
        if rel in planned or rel in keep:
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
    published = {g.id for g in loaded} | ({r[0] for r in db.execute("SELECT id FROM games")} if games else set())
    turns = {gid: c for gid, c in caches.items() if gid in published}
    doc = {"format": SITE_FORMAT, "store": store, "files": new_files, "turns": turns,
           "plans": {gid: v for gid, v in plans.items() if gid in published}}
    if manifest != doc:  # nothing new: not written again
        write_atomic(manifest_path, (json.dumps(doc, indent=0, sort_keys=True) + "\n").encode("utf-8"))
    return result
