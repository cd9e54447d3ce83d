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

`render_html_report(db, game_id, player, turn)` renders one turn report as a standalone HTML
page for email: the public one (player None) or a player's private one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from pbem import engine, reports, schedule, svg
from pbem.errors import NotFound, PbemError
from pbem.registry import games_dir, get_rules, templates_dir
from pbem.store import loads

SITE_FORMAT = 1
MANIFEST = ".pbem-site.json"
FEED_ENTRIES = 50
SAFE_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
_HERE = Path(__file__).resolve()


# --- the Jinja environment -----------------------------------------------------------------

def _url(value) -> str:
    """One URL path segment: everything but unreserved characters percent-encoded."""
    return quote(str(value), safe="")


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Every site template is HTML, SVG or XML: autoescape is on for all of them."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["url"] = _url
    env.filters["fill"] = svg.fill
    env.filters["ink"] = svg.ink
    env.filters["humanize"] = lambda k: str(k).replace("_", " ")
    env.filters["when"] = _when
    env.filters["shquote"] = lambda v: shlex.quote(str(v))
    env.globals["svg"] = svg
    env.globals["shape_path"] = svg.shape_path
    return env


def _when(value: str | None) -> str:
    if not value:
        return ""
    t = schedule.parse_time(value)
    return f"{t:%a %d %b %Y %H:%M} UTC"


def _has_template(name: str) -> bool:
    return (templates_dir() / name).is_file()


@lru_cache(maxsize=None)
def _code_digest(game_type: str) -> str:
    """A hash of everything a page's bytes depend on besides its data: this code, the
    templates, and the game module (its view and its event texts)."""
    h = hashlib.sha256(f"site-{SITE_FORMAT}".encode())
    files = [_HERE, _HERE.parent / "svg.py", _HERE.parent / "schedule.py"]
    files += sorted(p for p in templates_dir().rglob("*") if p.is_file())
    gdir = games_dir() / game_type
    if gdir.is_dir():
        files += sorted(p for p in gdir.rglob("*") if p.is_file() and p.suffix in (".py", ".toml"))
    for p in files:
        h.update(str(p.name).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


# --- reading the store (public things only) --------------------------------------------------

@dataclass
class Turn:
    number: int
    opened: str | None
    deadline: str | None
    resolved: str | None
    state_hash: str
    view: dict | None          # the public view; None when the game module is missing
    events: list[dict]         # public events that led to this position (phase number-1)
    asked: list[str]           # who must act in this turn (public: the report names them)
    over: bool
    scores: dict[str, float] | None
    text_position: str = ""    # the position as text, when no map template exists


@dataclass
class Game:
    row: dict
    slug: str
    rules: object | None
    title: str
    players: list[dict]
    turns: list[Turn]
    awaiting: list[str]
    outcome: dict | None
    sched: dict | None
    event_lines: Callable[[dict], str] = field(repr=False, default=lambda e: "")

    @property
    def id(self) -> str:
        return self.row["id"]

    @property
    def finished(self) -> bool:
        return self.row["status"] == "finished"

    @property
    def has_map(self) -> bool:
        return self.rules is not None and _has_template(f"{self.row['type']}/map.svg.j2")

    def row_public(self) -> dict:
        """The game row without what stays secret until the end (the seed)."""
        r = {k: v for k, v in self.row.items() if k != "seed"}
        if self.finished:
            r["seed"] = self.row["seed"]
        return r


def slug_for(game_id: str) -> str:
    """The folder name of a game: its id when that is a safe name, else a hash of it."""
    if SAFE_SLUG.match(game_id or "") and game_id not in (".", ".."):
        return game_id
    return "game-" + hashlib.sha256(str(game_id).encode()).hexdigest()[:16]


def _event_texter(game_type: str, known: bool) -> Callable[[dict], str]:
    """One line of text per event, from the same templates as the text reports."""
    env = reports.environment()
    common = env.get_template("events.j2").module
    game_mod = None
    if known and _has_template(f"{game_type}/events.j2"):
        game_mod = env.get_template(f"{game_type}/events.j2").module
    common_types = set(getattr(common, "TYPES", []))

    def line(e: dict) -> str:
        try:
            if e.get("type") in common_types:
                text = str(common.line(e))
            elif game_mod is not None:
                text = str(game_mod.line(e))
            else:
                text = ""
        except Exception:  # a malformed event must not stop the site
            text = ""
        text = " ".join(text.split())
        if not text:
            detail = ", ".join(f"{k} {v}" for k, v in e.items() if k != "type")
            text = f"{e.get('type', 'event')}: {detail}" if detail else str(e.get("type", "event"))
        return text

    return line


def _public_scores(view: dict | None) -> dict[str, float] | None:
    """Standings from the public view: its `scores`, or a `score` per player."""
    if not view:
        return None
    sc = view.get("scores")
    if isinstance(sc, dict) and sc and all(isinstance(v, (int, float)) for v in sc.values()):
        return dict(sc)
    players = view.get("players")
    if isinstance(players, list):
        out = {p["name"]: p["score"] for p in players if isinstance(p, dict) and isinstance(p.get("score"), (int, float)) and "name" in p}
        return out or None
    return None


def _text_position(db, rules, game: dict, state: dict, view: dict, events, number: int, asked) -> str:
    """The position as text for a game without a map: its report partial, else the stored
    public report."""
    gtype = game["type"]
    if rules is not None and _has_template(f"{gtype}/position.txt.j2"):
        try:
            over = bool(state["flow"].get("over"))
            ctx = {
                "info": rules.info, "game": game, "turn": number, "over": over, "outcome": rules.outcome(state),
                "deadline": schedule.show(game["deadline"], loads(game["schedule"])),
                "revealed_seed": game["seed"] if over else None, "awaiting": asked,
                "player": None, "view": view, "colour": None, "events": events, "asked": False, "prompt": "",
                "order_groups": [],
            }
            return reports.render(f"{gtype}/position.txt.j2", **ctx)
        except Exception:
            pass
    row = db.execute("select text from reports where game_id = ? and phase = ? and player = ''", [game["id"], number]).fetchone()
    return row[0] if row else ""


def load_game(db, row: dict) -> Game:
    """A game's public record: every turn's public view and public events."""
    gid, gtype = row["id"], row["type"]
    try:
        rules = get_rules(gtype)
    except (NotFound, PbemError):
        rules = None
    players = list(db["players"].rows_where("game_id = ?", [gid], order_by="seat", select="name, seat"))
    events_by_phase: dict[int, list[dict]] = {}
    for ph, data in db.execute("select phase, data from events where game_id = ? order by phase, seq", [gid]).fetchall():
        events_by_phase.setdefault(ph, []).append(json.loads(data))
    turns: list[Turn] = []
    rows = db.execute(
        "select number, state, state_hash, opened, deadline, resolved from phases where game_id = ? order by number", [gid]
    ).fetchall()
    has_map = rules is not None and _has_template(f"{gtype}/map.svg.j2")
    for number, state_text, state_hash, opened, deadline, resolved in rows:
        state = json.loads(state_text)
        public_events = reports.visible_events(events_by_phase.get(number - 1, []), None)
        view = rules.view(state, None) if rules is not None else None
        asked = engine.active_players(rules, state) if rules is not None else []
        over = bool(state.get("flow", {}).get("over"))
        t = Turn(number, opened, deadline, resolved, state_hash, view, public_events, asked, over, _public_scores(view))
        if not has_map:
            t.text_position = _text_position(db, rules, row, state, view, public_events, number, asked)
        turns.append(t)
    awaiting: list[str] = []
    if turns and row["status"] == "running":
        submitted = {r[0] for r in db.execute(
            "select distinct player from submissions where game_id = ? and phase = ? and status != 'rejected'",
            [gid, row["phase"]]).fetchall()} if db["submissions"].exists() else set()
        awaiting = [p for p in turns[-1].asked if p not in submitted]
    title = rules.info.title if rules is not None else gtype
    # Players' colours come from the public view, when the game gives them.
    colours = {}
    if turns and turns[-1].view:
        for p in turns[-1].view.get("players", []) or []:
            if isinstance(p, dict) and "name" in p and p.get("colour"):
                colours[p["name"]] = p["colour"]
    pl = []
    for i, p in enumerate(players):
        word = colours.get(p["name"])
        pl.append({"name": p["name"], "seat": p["seat"], "colour": word or "",
                   "fill": svg.fill(word, svg.SERIES[i % len(svg.SERIES)])})
    outcome = loads(row["outcome"]) if row["status"] == "finished" else None
    return Game(row, slug_for(gid), rules, title, pl, turns, awaiting, outcome, loads(row["schedule"]),
                _event_texter(gtype, rules is not None))


# --- what goes on a page ----------------------------------------------------------------------

_ROLL_KEYS = ("roll", "rolls", "rolled", "die", "d6")
_FACES = "\u2680\u2681\u2682\u2683\u2684\u2685"


def _die(value, label: str = "") -> dict:
    return {"value": value, "face": _FACES[value - 1] if 1 <= value <= 6 else "", "label": label}


def _dice(e: dict) -> list[dict]:
    """Every die in an event, for showing as faces: keys named roll/rolls/die/d6 or ending in
    "dice" (a_dice, attacker_dice...), holding a number, a list of numbers, or numbers by
    name (a roll-off). Other numbers (a card's value, a total) are not dice."""
    out = []
    for k, v in e.items():
        if not (k in _ROLL_KEYS or k.endswith("dice")):
            continue
        prefix = k[: -len("dice")].rstrip("_") if k.endswith("dice") and k != "dice" else ""
        prefix = {"a": "attacker", "d": "defender"}.get(prefix, prefix.replace("_", " "))
        items = v.items() if isinstance(v, dict) else [(prefix, x) for x in (v if isinstance(v, list) else [v])]
        for label, x in items:
            if isinstance(x, int) and not isinstance(x, bool):
                out.append(_die(x, str(label)))
    return out


def _event_items(game: Game, events: list[dict]) -> list[dict]:
    items = []
    for e in events:
        items.append({"type": str(e.get("type", "")), "text": game.event_lines(e), "dice": _dice(e),
                      "player": e.get("player") if isinstance(e.get("player"), str) else None})
    return items


def _summary(game: Game, events: list[dict], limit: int = 180) -> str:
    """One line for the history: the orders given (public ones), else the first events."""
    parts = []
    for e in events:
        t = e.get("type")
        if t in ("order", "default", "forced"):
            parts.append(f"{e.get('player')}: {e.get('order')}")
        elif t == "nmr":
            parts.append(f"{e.get('player')}: no orders")
    if not parts:
        parts = [game.event_lines(e) for e in events[:2]]
    text = "; ".join(parts)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _scalar(v) -> bool:
    return isinstance(v, (str, int, float, bool)) or v is None


def _show(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "-"
    if isinstance(v, dict):
        if not v:
            return "-"
        for named in ("label", "name", "title"):  # a card or a piece: its name says it
            if isinstance(v.get(named), str):
                return v[named]
        if len(v) <= 3 and all(_scalar(x) for x in v.values()):
            return " ".join(_show(x) for x in v.values())
        return ", ".join(f"{str(k).replace('_', ' ')} {_show(x)}" for k, x in v.items())
    if isinstance(v, list):
        if not v:
            return "-"
        if all(isinstance(x, dict) for x in v):
            return "; ".join(_show(x) if any(isinstance(x.get(n), str) for n in ("label", "name", "title")) or len(x) <= 3
                             else f"{len(x)} facts" for x in v)
        return ", ".join(_show(x) for x in v)
    return str(v)


def _players_table(game: Game, view: dict | None, scores: dict | None) -> dict:
    """The standings: one row per player, the columns every player row of the view has."""
    rows = [p for p in (view or {}).get("players", []) if isinstance(p, dict) and "name" in p] if view else []
    fills = {p["name"]: p["fill"] for p in game.players}
    if not rows:
        rows = [{"name": p["name"]} for p in game.players]
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in ("name", "colour", "you") and not (scores and k == "score") and k not in cols:
                cols.append(k)
    out = []
    for r in rows:
        name = str(r["name"])
        out.append({
            "name": name, "colour": str(r.get("colour") or ""), "fill": fills.get(name, svg.fill(r.get("colour"))),
            "cells": [_show(r.get(c)) for c in cols],
            "score": scores.get(name) if scores else None,
        })
    if scores:
        out.sort(key=lambda r: (-(r["score"] if r["score"] is not None else -1e9)))
        for i, r in enumerate(out):  # ties share a rank
            same = i > 0 and out[i - 1]["score"] == r["score"]
            r["rank"] = out[i - 1]["rank"] if same else i + 1
    return {"columns": cols, "rows": out, "scored": bool(scores)}


def _details(view: dict | None) -> list[dict]:
    """The rest of the public view, as a list of name/value pairs."""
    if not view:
        return []
    out = []
    for k, v in view.items():
        if k in ("players", "board", "scores", "you", "map", "provinces", "hexes", "altars"):
            continue
        if isinstance(v, list) and v and not all(_scalar(x) for x in v):
            continue
        if isinstance(v, (list, dict)) and len(v) > 12:  # a lookup table or the board itself: not a fact
            continue
        if isinstance(v, dict) and any(not _scalar(x) and not isinstance(x, (list, dict)) for x in v.values()):
            continue
        out.append({"name": str(k), "value": _show(v)})
    return out


def _chart_data(game: Game, upto: int) -> dict | None:
    turns = [t for t in game.turns if t.number <= upto]
    if not any(t.scores for t in turns):
        return None
    names = [p["name"] for p in game.players]
    return {
        "turns": [t.number for t in turns],
        "scores": {n: [(t.scores or {}).get(n) for t in turns] for n in names},
        "colours": {p["name"]: p["fill"] for p in game.players},
    }


def _game_static(game: Game) -> dict:
    return {
        "id": game.id, "slug": game.slug, "type": game.row["type"], "title": game.title,
        "players": game.players, "seed_hash": game.row["seed_hash"], "created": game.row["created"],
        "has_map": game.has_map,
    }


def _game_summary(game: Game) -> dict:
    last = game.turns[-1] if game.turns else None
    deadline = game.row["deadline"] if not game.finished else None
    return {
        **_game_static(game),
        "status": game.row["status"],
        "turn": game.row["phase"],
        "last_turn": last.number if last else 0,
        "awaiting": game.awaiting,
        "deadline": deadline,
        "deadline_text": schedule.show(deadline, game.sched) if deadline else "",
        "finished": game.row["finished"],
        "winners": (game.outcome or {}).get("winners", []),
        "reason": (game.outcome or {}).get("reason", ""),
        "seed": game.row["seed"] if game.finished else None,
    }


def _turn_json(game: Game, t: Turn) -> dict:
    """The public report of one turn, for players' own tools (docs/site.md documents it)."""
    doc = {
        "format": "pbem-public-turn",
        "version": 1,
        "game": {"id": game.id, "type": game.row["type"], "title": game.title, "seed_hash": game.row["seed_hash"],
                 "players": [{"name": p["name"], "seat": p["seat"]} for p in game.players]},
        "turn": t.number,
        "opened": t.opened,
        "deadline": t.deadline,
        "resolved": t.resolved,
        "over": t.over,
        "asked": t.asked,
        "events": t.events,
        "view": t.view,
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


# --- rendering --------------------------------------------------------------------------------

def _render(template: str, **ctx) -> str:
    return environment().get_template(template).render(**ctx)


def render_map(game_type: str, view: dict | None, uid: str = "m", title: str = "", standalone: bool = False) -> str:
    """A game's map as SVG from a view, or '' when the game has no map template."""
    if view is None or not _has_template(f"{game_type}/map.svg.j2"):
        return ""
    return Markup(_render(f"{game_type}/map.svg.j2", view=view, uid=uid, title=title, standalone=standalone).strip())


def render_chart(data: dict | None, uid: str = "c", title: str = "Standings over time") -> str:
    if not data:
        return ""
    chart = svg.standings_chart(data["turns"], data["scores"], data["colours"])
    if chart.empty:
        return ""
    return Markup(_render("site/chart.svg.j2", chart=chart, uid=uid, title=title).strip())


def _summaries(game: Game) -> list[str]:
    """One line per turn for the history: what was ordered in it (the events of the next)."""
    return [_summary(game, game.turns[i + 1].events) if i + 1 < len(game.turns) else "" for i in range(len(game.turns))]


HISTORY_LINES = 10


def _turn_facts(game: Game, idx: int) -> dict:
    """What turn `idx`'s page is made of, as plain data: the page's key is its hash (with
    chains of the history and the scores before it, see plan()), so it is cheap to compute
    and nothing the page shows is left out of it."""
    t = game.turns[idx]
    numbers = [x.number for x in game.turns]
    next_n = numbers[idx + 1] if idx + 1 < len(numbers) else None
    current = next_n is None and not t.over
    return {
        "idx": idx, "number": t.number, "opened": t.opened, "deadline": t.deadline, "resolved": t.resolved,
        "over": t.over, "asked": t.asked, "awaiting": game.awaiting if current else [], "current": current,
        "prev": numbers[idx - 1] if idx > 0 else None, "next": next_n, "result": game.finished and t.over,
        "events": t.events, "view": t.view, "scores": t.scores, "text_position": t.text_position,
        "has_map": game.has_map, "game": _game_static(game), "sched": game.sched,
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
        "events": _event_items(game, t.events),
        "first": idx == 0,
        "map": {"view": t.view} if game.has_map else None,
        "text_position": t.text_position,
        "standings": _players_table(game, t.view, t.scores),
        "details": _details(t.view),
        "outcome": facts["outcome"],
        "seed": facts["seed"],
        "history": past[-HISTORY_LINES:],
        "older": [h["number"] for h in past[:-HISTORY_LINES]],
        "chart": _chart_data(game, t.number),
    }


def _game_context(game: Game, root: str) -> dict:
    last = game.turns[-1] if game.turns else None
    summaries = []
    for i, t in enumerate(game.turns):
        nxt = game.turns[i + 1] if i + 1 < len(game.turns) else None
        summaries.append({"number": t.number, "opened": t.opened, "deadline": t.deadline, "resolved": t.resolved,
                          "summary": _summary(game, nxt.events) if nxt else ("" if t.over else "in progress")})
    return {
        "root": root,
        "game": _game_summary(game),
        "turns": summaries,
        "standings": _players_table(game, last.view if last else None, last.scores if last else None),
        "chart": _chart_data(game, last.number if last else 0),
        "outcome": game.outcome,
        "map": {"view": last.view} if (last and game.has_map) else None,
    }


def _index_context(games: list[Game]) -> dict:
    return {"root": "", "games": [_game_summary(g) for g in games]}


# --- feeds ------------------------------------------------------------------------------------

def _uuid(*parts) -> str:
    return "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, "pbem:" + ":".join(str(p) for p in parts)))


def _feed_context(game: Game, base_url: str | None) -> dict:
    base = (base_url.rstrip("/") + "/games/" + _url(game.slug) + "/") if base_url else ""
    entries = []
    for t in game.turns[-FEED_ENTRIES:]:
        items = _event_items(game, t.events)
        entries.append({
            "id": _uuid(game.id, game.row["seed_hash"], "turn", t.number),
            "title": (f"Turn {t.number}" if not t.over else f"Turn {t.number}: the game is over"),
            "updated": t.opened or game.row["created"],
            "href": f"{base}turn-{t.number}.html",
            "lines": [it["text"] for it in items],
        })
    entries.reverse()
    return {
        "game": _game_summary(game),
        "id": _uuid(game.id, game.row["seed_hash"], "feed"),
        "updated": entries[0]["updated"] if entries else game.row["created"],
        "self_href": f"{base}feed.atom",
        "alt_href": f"{base}index.html",
        "entries": entries,
    }


def _ics_text(value: str) -> str:
    return (str(value).replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n"))


def _ics_time(value: str) -> str:
    return schedule.parse_time(value).strftime("%Y%m%dT%H%M%SZ")


def _fold(line: str) -> str:
    """Fold a content line at 75 octets (RFC 5545 3.1)."""
    data = line.encode("utf-8")
    if len(data) <= 75:
        return line
    parts, cur, size = [], "", 0
    for ch in line:
        n = len(ch.encode("utf-8"))
        if size + n > (75 if not parts else 74):
            parts.append(cur)
            cur, size = "", 0
        cur += ch
        size += n
    parts.append(cur)
    return "\r\n ".join(parts)


def render_ics(game: Game, base_url: str | None = None) -> str:
    """An iCalendar file of the game's deadlines (and its start and end)."""
    name = f"pbem {game.title} {game.id}"
    url = (base_url.rstrip("/") + "/games/" + _url(game.slug) + "/") if base_url else ""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//pbem//pbem publish//EN", "CALSCALE:GREGORIAN",
             "METHOD:PUBLISH", f"X-WR-CALNAME:{_ics_text(name + ' deadlines')}"]

    def event(uid: str, stamp: str, start: str, summary: str, description: str, href: str = "") -> None:
        lines.extend(["BEGIN:VEVENT", f"UID:{uid}", f"DTSTAMP:{_ics_time(stamp)}", f"DTSTART:{_ics_time(start)}",
                      f"SUMMARY:{_ics_text(summary)}", f"DESCRIPTION:{_ics_text(description)}"])
        if href:
            lines.append(f"URL:{href}")
        lines.append("END:VEVENT")

    created = game.row["created"]
    event(_uuid(game.id, game.row["seed_hash"], "start") + "@pbem", created, created, f"{name}: the game starts",
          f"Seed hash (SHA-256): {game.row['seed_hash']}", url + "index.html" if url else "")
    for t in game.turns:
        if t.deadline:
            who = ", ".join(t.asked) or "nobody"
            event(_uuid(game.id, game.row["seed_hash"], "deadline", t.number) + "@pbem", t.opened or created, t.deadline,
                  f"{name}: orders for turn {t.number} due", f"Orders awaited from: {who}.",
                  f"{url}turn-{t.number}.html" if url else "")
    if game.finished and game.row["finished"]:
        winners = ", ".join((game.outcome or {}).get("winners", []))
        event(_uuid(game.id, game.row["seed_hash"], "end") + "@pbem", game.row["finished"], game.row["finished"],
              f"{name}: the game is over", f"Winner(s): {winners}.", url + "result.html" if url else "")
    lines.append("END:VCALENDAR")
    return "\r\n".join(_fold(x) for x in lines) + "\r\n"


# --- the HTML email report --------------------------------------------------------------------

def render_html_report(db, game_id: str, player: str | None = None, turn: int | None = None) -> str:
    """One turn report as a standalone HTML page (CSS inline, map as inline SVG), for the
    HTML part of a report email. `player` None: the public report; a player's name: that
    player's private report (their own view and the events they may see) -- never publish
    that one. The plain-text report (with the order form) is included at the end."""
    from pbem import host

    game_row = host._game(db, game_id)
    who = host._player(db, game_id, player)["name"] if player else None
    number = turn if turn is not None else game_row["phase"]
    phase = host._phase(db, game_id, number)
    rules = get_rules(game_row["type"])
    state = loads(phase["state"])
    evs = [json.loads(r[0]) for r in db.execute(
        "select data from events where game_id = ? and phase = ? order by seq", [game_id, number - 1]).fetchall()]
    events = reports.visible_events(evs, who)
    view = rules.view(state, who)
    public_game = load_game(db, game_row)
    text_row = db.execute("select text from reports where game_id = ? and phase = ? and player = ?",
                          [game_id, number, who or ""]).fetchone()
    over = bool(state["flow"].get("over"))
    scores = _public_scores(view)
    ctx = {
        "root": "",
        "game": _game_static(public_game),
        "player": who,
        "turn": {"number": number, "deadline": phase["deadline"],
                 "deadline_text": schedule.show(phase["deadline"], loads(game_row["schedule"])) if phase["deadline"] else "",
                 "over": over, "asked": engine.active_players(rules, state)},
        "events": _event_items(public_game, events),
        "first": number == 1,
        "map_svg": render_map(game_row["type"], view, uid="r", title=f"{rules.info.title} {game_id}, turn {number}"),
        "text_position": "" if _has_template(f"{game_row['type']}/map.svg.j2") else _text_position(
            db, rules, game_row, state, view, events, number, engine.active_players(rules, state)),
        "standings": _players_table(public_game, view, scores),
        "details": _details(view),
        "chart_svg": render_chart(_chart_data(public_game, number), uid="rc"),
        "outcome": rules.outcome(state) if over else None,
        "seed": game_row["seed"] if over and game_row["status"] == "finished" else None,
        "text_report": text_row[0] if text_row else "",
        "css": Markup((templates_dir() / "site" / "style.css").read_text(encoding="utf-8")),  # our own file
    }
    return _render("site/email.html.j2", **ctx)


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


def _inside(out: Path, rel: str) -> Path:
    """The file for `rel` under `out`, refusing any path that would leave it."""
    target = (out / rel).resolve()
    if target == out or not target.is_relative_to(out):
        raise PbemError(f"refusing to write {rel!r}: it is outside the output folder {out}")
    return target


def plan(games: list[Game], base_url: str | None = None) -> list[Output]:
    """Every file of the site, each with the hash of its inputs and how to render it."""
    outs: list[Output] = []
    css = (templates_dir() / "site" / "style.css").read_text(encoding="utf-8")
    outs.append(Output("style.css", _key("css", "", css), lambda: css))
    ictx = _index_context(games)
    outs.append(Output("index.html", _key("index", "", ictx), lambda c=ictx: _render("site/index.html.j2", **c)))
    for g in games:
        base = f"games/{g.slug}/"
        gtype = g.row["type"]
        gctx = _game_context(g, "../../")
        outs.append(Output(base + "index.html", _key("game", gtype, gctx),
                           lambda c=gctx: _render("site/game.html.j2", chart_svg=render_chart(c["chart"], uid="gc"), **c)))
        if g.has_map and g.turns:
            mctx = {"view": g.turns[-1].view, "title": f"{g.title} {g.id}, turn {g.turns[-1].number}"}
            outs.append(Output(base + "map.svg", _key("map", gtype, mctx),
                               lambda c=mctx, g=g: render_map(g.row["type"], c["view"], uid="m", title=c["title"],
                                                              standalone=True) + "\n"))
        # A turn page shows the history and the chart up to it: its key hashes them as a
        # chain, so a page's key costs O(1) however long the game (and stays exact).
        summaries = _summaries(g)
        hist, chart = hashlib.sha256(), hashlib.sha256()
        for idx, t in enumerate(g.turns):
            hist_key = hist.hexdigest()  # turns before this one
            hist.update(json.dumps([t.number, summaries[idx]]).encode())
            chart.update(json.dumps([t.number, t.scores], sort_keys=True).encode())
            facts = _turn_facts(g, idx)
            key = _key("turn", gtype, {**facts, "history": hist_key, "chart": chart.hexdigest()})

            def render_turn(f=facts, g=g, t=t, summaries=summaries):
                c = _turn_context(g, f, summaries, "../../")
                map_svg = render_map(g.row["type"], t.view, uid="m", title=f"{g.title} {g.id}, turn {t.number}") if c["map"] else ""
                return _render("site/turn.html.j2", map_svg=map_svg, chart_svg=render_chart(c["chart"], uid="c"), **c)

            outs.append(Output(base + f"turn-{t.number}.html", key, render_turn))
            jdoc = _turn_json(g, t)
            outs.append(Output(base + f"turn-{t.number}.json", _key("json", gtype, jdoc),
                               lambda d=jdoc: _json_text(d)))
        if g.finished:
            last = g.turns[-1] if g.turns else None
            rctx = {"root": "../../", "game": _game_summary(g), "outcome": g.outcome,
                    "standings": _players_table(g, last.view if last else None, (g.outcome or {}).get("scores") or (last.scores if last else None)),
                    "chart": _chart_data(g, last.number if last else 0), "last_turn": last.number if last else 0}
            outs.append(Output(base + "result.html", _key("result", gtype, rctx),
                               lambda c=rctx: _render("site/result.html.j2", chart_svg=render_chart(c["chart"], uid="rc"), **c)))
        feed_in = {"game": _game_summary(g), "base": base_url,
                   "turns": [(t.number, t.opened, t.over, t.events) for t in g.turns[-FEED_ENTRIES:]]}
        outs.append(Output(base + "feed.atom", _key("feed", gtype, feed_in),
                           lambda g=g: _render("site/feed.atom.j2", **_feed_context(g, base_url))))
        ics_in = {"turns": [(t.number, t.opened, t.deadline, t.asked) for t in g.turns], "row": g.row_public(), "base": base_url,
                  "outcome": g.outcome}
        outs.append(Output(base + "deadlines.ics", _key("ics", gtype, ics_in), lambda g=g: render_ics(g, base_url)))
    return outs


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    loaded = [load_game(db, r) for r in rows]
    slugs: dict[str, str] = {}
    for g in loaded:
        if g.slug in slugs:
            raise PbemError(f"games {slugs[g.slug]!r} and {g.id!r} would share the folder games/{g.slug}")
        slugs[g.slug] = g.id
    outputs = plan(loaded, base_url)
    manifest_path = out_path / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    except (OSError, ValueError):
        manifest = {}
    old = manifest.get("files", {}) if manifest.get("format") == SITE_FORMAT else {}
    if games:  # publishing some games keeps the others' files
        keep = {p: v for p, v in old.items() if not p.startswith("games/") or p.split("/")[1] not in {g.slug for g in loaded}}
    else:
        keep = {}
    new_files: dict[str, dict] = dict(keep)
    result = Published(out_path, games=len(loaded))
    say = log or (lambda s: None)
    bar_cm = progress(len(outputs)) if progress else None
    bar = bar_cm.__enter__() if bar_cm is not None else None
    try:
        for o in outputs:
            target = _inside(out_path, o.path)
            prev = old.get(o.path)
            on_disk = target.read_bytes() if target.is_file() else None
            if prev and prev.get("key") == o.key and on_disk is not None and _sha(on_disk) == prev.get("sha256"):
                result.unchanged.append(o.path)
                new_files[o.path] = prev
            else:
                data = o.render()
                data = data.encode("utf-8") if isinstance(data, str) else data
                digest = _sha(data)
                if on_disk is not None and _sha(on_disk) == digest:
                    result.unchanged.append(o.path)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    tmp = target.with_name(target.name + ".tmp")
                    tmp.write_bytes(data)
                    os.replace(tmp, target)
                    result.written.append(o.path)
                    say(f"wrote {o.path}")
                new_files[o.path] = {"key": o.key, "sha256": digest}
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
        if target.is_file() and _sha(target.read_bytes()) == info.get("sha256"):
            target.unlink()
            result.removed.append(rel)
            say(f"removed {rel}")
            try:
                target.parent.rmdir()  # only when empty
            except OSError:
                pass
    manifest_path.write_text(json.dumps({"format": SITE_FORMAT, "files": new_files}, indent=0, sort_keys=True) + "\n",
                             encoding="utf-8")
    return result
