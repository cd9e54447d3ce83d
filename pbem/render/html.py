"""Turns as HTML: the Jinja environment for HTML/SVG/XML, a game's public record read from the
store (each turn's public view and public events), what goes on a page (dice, standings,
details, charts), SVG maps and charts, and one turn report as a standalone HTML page for the
HTML part of a report email (`render_html_report`). Used by the mail layer and the site.

Only views and visible events are rendered, never a state: what a page shows is what its
viewer may see.
"""


import hashlib
import json
import re
import shlex
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Callable
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from pbem.core import citations, engine
from pbem.render import reports, svg
from pbem import host
from pbem.host import schedule
from pbem.core.errors import NotFound, PbemError
from pbem.core.registry import get_rules, templates_dir
from pbem.host.store import loads

SAFE_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


# --- the Jinja environment -----------------------------------------------------------------

def url_segment(value) -> str:
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
        bytecode_cache=reports.bytecode_cache(),  # issue 17: compiled once, not in every process
    )
    env.filters["url"] = url_segment
    env.filters["fill"] = svg.fill
    env.filters["ink"] = svg.ink
    env.filters["humanize"] = lambda k: str(k).replace("_", " ")
    env.filters["when"] = when
    env.filters["shquote"] = lambda v: shlex.quote(str(v))
    env.globals["svg"] = svg
    env.globals["shape_path"] = svg.shape_path
    return env


def when(value: str | None) -> str:
    if not value:
        return ""
    t = schedule.parse_time(value)
    return f"{t:%a %d %b %Y %H:%M} UTC"


def has_template(name: str) -> bool:
    return (templates_dir() / name).is_file()


# --- reading the store (public things only) --------------------------------------------------

_UNLOADED = object()


class Turn:
    """One turn of a game's public record. The light facts (number, times, state hash, who is
    asked, whether the game is over, the scores, the history line, `digest`) are always there;
    the heavy ones (`view`, `events`, `text_position`) are read from the store when first used,
    so a publish after one more turn reads only the turns whose pages change (issue 17)."""

    def __init__(self, number: int, opened: str | None, deadline: str | None, resolved: str | None, state_hash: str,
                 view=_UNLOADED, events=_UNLOADED, asked: list[str] | None = None, over: bool = False,
                 scores: dict[str, float] | None = None, text_position=_UNLOADED, *,
                 loader: Callable[["Turn"], None] | None = None, line: str | None = None, digest: str | None = None,
                 events_loader: Callable[["Turn"], list[dict]] | None = None):
        self.number, self.opened, self.deadline, self.resolved, self.state_hash = number, opened, deadline, resolved, state_hash
        self._view, self._events, self._text_position = view, events, text_position
        self.asked: list[str] = list(asked or [])  # who must act in this turn (public: the report names them)
        self.over = over
        self.scores = scores
        self._loader = loader
        self._events_loader = events_loader  # the events alone (the feed needs no view)
        self.line = line            # the history line of the orders that led here: summary(game, events)
        self.digest = digest        # a hash of view, events and text_position (what the turn's pages show)

    def _load(self) -> None:
        if self._loader is None:
            raise AttributeError("turn not loaded")
        self._loader(self)

    @property
    def view(self) -> dict | None:  # the public view; None when the game module is missing
        if self._view is _UNLOADED:
            self._load()
        return self._view

    @property
    def events(self) -> list[dict]:  # public events that led to this position (phase number-1)
        if self._events is _UNLOADED:
            if self._events_loader is not None:
                self._events = self._events_loader(self)
            else:
                self._load()
        return self._events

    @property
    def text_position(self) -> str:  # the position as text, when no map template exists
        if self._text_position is _UNLOADED:
            self._load()
        return self._text_position

    @text_position.setter
    def text_position(self, value: str) -> None:
        self._text_position = value


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

    @cached_property
    def has_map(self) -> bool:
        return self.rules is not None and has_template(f"{self.row['type']}/map.svg.j2")

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


def event_texter(game_type: str, known: bool) -> Callable[[dict], str]:
    """One line of text per event, from the same templates as the text reports."""
    env = reports.environment()
    common = env.get_template("events.j2").module
    game_line = reports.EVENT_LINES.get(game_type) if known else None
    if game_line is None and known and has_template(f"{game_type}/events.j2"):
        game_line = env.get_template(f"{game_type}/events.j2").module.line
    common_types = set(getattr(common, "TYPES", []))

    def line(e: dict) -> str:
        try:
            if e.get("type") in common_types:
                text = str(common.line(e))
            elif game_line is not None:
                text = str(game_line(e))
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


def public_scores(view: dict | None) -> dict[str, float] | None:
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


def text_position(db, rules, game: dict, state: dict, view: dict, events, number: int, asked) -> str:
    """The position as text for a game without a map: its report partial, else the stored
    public report."""
    gtype = game["type"]
    if rules is not None and reports.has_position(gtype):
        try:
            over = bool(state["flow"].get("over"))
            ctx = {
                "info": rules.info, "game": game, "turn": number, "over": over, "outcome": rules.outcome(state),
                "deadline": schedule.show(game["deadline"], loads(game["schedule"])),
                "revealed_seed": game["seed"] if over else None, "awaiting": asked,
                "player": None, "view": view, "colour": None, "events": events, "asked": False, "prompt": "",
                "order_groups": [],
            }
            return reports.position_text(gtype, ctx)
        except Exception:
            pass
    return host.report_text(db, game["id"], number, None) or ""


def _turn_digest(view, events, text: str) -> str:
    return hashlib.sha256(json.dumps([view, events, text], sort_keys=True, default=str,
                                     separators=(",", ":")).encode()).hexdigest()


def public_players(db, game_id: str) -> list[dict]:
    """A game's players as the site shows them: name and seat, bot and vacant seats marked
    (pbem.host.seats); nothing else of their rows (addresses, passwords)."""
    return [{"name": p["name"], "seat": p["seat"], "bot": bool(p.get("bot")), "vacant": bool(p.get("vacant"))}
            for p in host.players(db, game_id)]


def load_game(db, row: dict, known: dict | None = None, code: str = "") -> Game:
    """A game's public record: every turn's public view and public events.

    `known` (pbem.site.publish's cache, by turn number as text): the light facts of turns
    loaded before, each under the fingerprint of what they were made from (the turn's state
    hash and opening, and the state hash and orders of the turn before it: the events that
    led to it) and `code` (a hash of the code that derives them). A turn whose fingerprint is
    unchanged is not read from the store (its view and events are read when a page needs
    them); the facts of every turn are left in `known` for the next time."""
    gid, gtype = row["id"], row["type"]
    try:
        rules = get_rules(gtype)
    except (NotFound, PbemError):
        rules = None
    players = public_players(db, gid)
    has_map = rules is not None and has_template(f"{gtype}/map.svg.j2")
    game = Game(row, slug_for(gid), rules, rules.info.title if rules is not None else gtype, [], [], [],
                loads(row["outcome"]) if row["status"] == "finished" else None, loads(row["schedule"]),
                event_texter(gtype, rules is not None))
    # a position written by a game's own template may show the game row's deadline and seed
    extra = "" if has_map or rules is None or not reports.has_position(gtype) else json.dumps(
        [row["deadline"], row["schedule"], row["status"], row["seed"]])

    def fill(t: Turn, state: dict | None = None, evs: list[dict] | None = None) -> None:
        if state is None:
            state = json.loads(host.phase(db, gid, t.number)["state"])
        if evs is None:
            evs = host.events(db, gid, t.number - 1)
        t._events = reports.visible_events(evs, None)
        t._view = rules.view(state, None) if rules is not None else None
        t.asked = engine.active_players(rules, state) if rules is not None else []
        t.over = bool(state.get("flow", {}).get("over"))
        t.scores = public_scores(t._view)
        t._text_position = "" if has_map else text_position(db, rules, row, state, t._view, t._events, t.number, t.asked)

    def loader(t: Turn) -> None:
        fill(t)

    def events_loader(t: Turn) -> list[dict]:
        return reports.visible_events(host.events(db, gid, t.number - 1), None)

    metas = host.phases(db, gid, select="number, state_hash, opened, deadline, resolved, used, nmr")
    fps: list[str] = []
    prev = None
    for m in metas:
        fps.append(hashlib.sha256(repr((code, extra, m["number"], m["state_hash"], m["opened"],
                                        prev and (prev["state_hash"], prev["used"], prev["nmr"]))).encode()).hexdigest())
        prev = m
    known = known if known is not None else {}
    misses = [i for i, m in enumerate(metas) if (known.get(str(m["number"])) or {}).get("fp") != fps[i]]
    states: dict[int, str] = {}
    events_by_phase: dict[int, list[dict]] = {}
    if len(misses) > 20:  # many turns to read (the first publish): in one pass each
        events_by_phase = host.events_by_phase(db, gid)
        wanted = {metas[i]["number"] for i in misses}
        states = {p["number"]: p["state"] for p in host.phases(db, gid, select="number, state") if p["number"] in wanted}
    missed = set(misses)
    fresh: dict[str, dict] = {}
    for i, m in enumerate(metas):
        number = m["number"]
        t = Turn(number, m["opened"], m["deadline"], m["resolved"], m["state_hash"], loader=loader,
                 events_loader=events_loader)
        if i in missed:
            fill(t, json.loads(states[number]) if number in states else None,
                 events_by_phase.get(number - 1, []) if events_by_phase or states else None)
            t.line = summary(game, t._events)
            t.digest = _turn_digest(t._view, t._events, t._text_position)
        else:
            k = known[str(number)]
            t.asked, t.over, t.scores, t.line, t.digest = k["asked"], k["over"], k["scores"], k["line"], k["digest"]
        fresh[str(number)] = {"fp": fps[i], "asked": t.asked, "over": t.over, "scores": t.scores, "line": t.line,
                              "digest": t.digest}
        game.turns.append(t)
    known.clear()
    known.update(fresh)
    turns = game.turns
    awaiting: list[str] = []
    if turns and row["status"] == "running":
        submitted = host.submitted_players(db, gid, row["phase"])
        awaiting = [p for p in turns[-1].asked if p not in submitted]
    game.awaiting = awaiting
    # Players' colours come from the public view, when the game gives them.
    colours = {}
    if turns and turns[-1].view:
        for p in turns[-1].view.get("players", []) or []:
            if isinstance(p, dict) and "name" in p and p.get("colour"):
                colours[p["name"]] = p["colour"]
    for i, p in enumerate(players):
        word = colours.get(p["name"])
        game.players.append({"name": p["name"], "seat": p["seat"], "colour": word or "",
                             "fill": svg.fill(word, svg.SERIES[i % len(svg.SERIES)]), "bot": p["bot"], "vacant": p["vacant"]})
    return game


# --- what goes on a page ----------------------------------------------------------------------

_ROLL_KEYS = ("roll", "rolls", "rolled", "die", "d6")
_FACES = "\u2680\u2681\u2682\u2683\u2684\u2685"


def die(value, label: str = "") -> dict:
    return {"value": value, "face": _FACES[value - 1] if 1 <= value <= 6 else "", "label": label}


def dice(e: dict) -> list[dict]:
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
                out.append(die(x, str(label)))
    return out


def event_items(game: Game, events: list[dict]) -> list[dict]:
    items = []
    for e in events:
        items.append({"type": str(e.get("type", "")), "text": game.event_lines(e), "dice": dice(e),
                      "player": e.get("player") if isinstance(e.get("player"), str) else None,
                      # issue 18: the section of the rules text the event applies (a name only)
                      "rule": citations.cite_event(game.rules.data, e) if game.rules is not None else None})
    return items


def summary(game: Game, events: list[dict], limit: int = 180) -> str:
    """One line for the history: the orders given (public ones), else the first events."""
    parts = []
    for e in events:
        t = e.get("type")
        if t in ("order", "default", "forced"):
            parts.append(f"{e.get('player')}: {e.get('order')}")
        elif t == "nmr":
            parts.append(f"{e.get('player')}: no orders")
        elif t in getattr(game.rules, "history_events", ()) and "to" not in e:
            parts.append(game.event_lines(e))
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


def players_table(game: Game, view: dict | None, scores: dict | None, winners: list[str] | None = None) -> dict:
    """The standings: one row per player, the columns every player row of the view has. Ranked
    by score; once the game is over its `winners` (the rules' outcome) come first whatever their
    score: a win the rules give otherwise than by points (Faith's victory claim, L672) still
    heads the standings."""
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
        won = set(winners or ())
        key = lambda r: (r["name"] not in won, -(r["score"] if r["score"] is not None else -1e9))
        out.sort(key=key)
        for i, r in enumerate(out):  # ties share a rank (a winner never ties with a loser)
            same = i > 0 and key(out[i - 1]) == key(r)
            r["rank"] = out[i - 1]["rank"] if same else i + 1
    return {"columns": cols, "rows": out, "scored": bool(scores)}


def details(rules, view: dict | None) -> list[dict]:
    """The game's labelled summary of a position (Rules.summary), never raw view keys."""
    if not view or rules is None:
        return []
    try:
        return [{"name": label, "value": text} for label, text in rules.summary(view)]
    except Exception:  # a summary that fails must not stop a page; the map and standings remain
        return []


def chart_data(game: Game, upto: int) -> dict | None:
    turns = [t for t in game.turns if t.number <= upto]
    if not any(t.scores for t in turns):
        return None
    names = [p["name"] for p in game.players]
    return {
        "turns": [t.number for t in turns],
        "scores": {n: [(t.scores or {}).get(n) for t in turns] for n in names},
        "colours": {p["name"]: p["fill"] for p in game.players},
    }


def game_static(game: Game) -> dict:
    return {
        "id": game.id, "slug": game.slug, "type": game.row["type"], "title": game.title,
        "players": game.players, "seed_hash": game.row["seed_hash"], "created": game.row["created"],
        "has_map": game.has_map,
    }


def game_summary(game: Game) -> dict:
    last = game.turns[-1] if game.turns else None
    deadline = game.row["deadline"] if not game.finished else None
    return {
        **game_static(game),
        "status": game.row["status"],
        "paused": bool(game.row.get("paused")) and not game.finished,  # the GM paused it (pbem pause)
        "turn": game.row["phase"],
        "last_turn": last.number if last else 0,
        "awaiting": game.awaiting,
        "deadline": deadline,
        "deadline_text": schedule.show(deadline, game.sched) if deadline else "",
        "finished": game.row["finished"],
        "winners": (game.outcome or {}).get("winners", []),
        "draw": bool((game.outcome or {}).get("draw")),  # a draw agreed by vote or declared by the GM
        "reason": (game.outcome or {}).get("reason", ""),
        "seed": game.row["seed"] if game.finished else None,
    }


# --- rendering --------------------------------------------------------------------------------

def render(template: str, **ctx) -> str:
    return environment().get_template(template).render(**ctx)


def render_map(game_type: str, view: dict | None, uid: str = "m", title: str = "", standalone: bool = False) -> str:
    """A game's map as SVG from a view, or '' when the game has no map template."""
    if view is None or not has_template(f"{game_type}/map.svg.j2"):
        return ""
    return Markup(render(f"{game_type}/map.svg.j2", view=view, uid=uid, title=title, standalone=standalone).strip())


def render_chart(data: dict | None, uid: str = "c", title: str = "Standings over time") -> str:
    if not data:
        return ""
    chart = svg.standings_chart(data["turns"], data["scores"], data["colours"])
    if chart.empty:
        return ""
    return Markup(render("site/chart.svg.j2", chart=chart, uid=uid, title=title).strip())


# --- the HTML email report --------------------------------------------------------------------

def render_html_report(db, game_id: str, player: str | None = None, turn: int | None = None) -> str:
    """One turn report as a standalone HTML page (CSS inline, map as inline SVG), for the
    HTML part of a report email. `player` None: the public report; a player's name: that
    player's private report (their own view and the events they may see) -- never publish
    that one. The plain-text report (with the order form) is included at the end."""
    game_row = host.game(db, game_id)
    who = host.player(db, game_id, player)["name"] if player else None
    number = turn if turn is not None else game_row["phase"]
    phase = host.phase(db, game_id, number)
    rules = get_rules(game_row["type"])
    state = loads(phase["state"])
    evs = host.events(db, game_id, number - 1)
    events = reports.visible_events(evs, who)
    view = rules.view(state, who)
    public_game = load_game(db, game_row)
    text_report = host.report_text(db, game_id, number, who)
    if number == game_row["phase"]:  # the Deadline line as it is now (tester3 finding 02)
        text_report = host.current_deadline(db, game_row, text_report)
    over = bool(state["flow"].get("over"))
    scores = public_scores(view)
    ctx = {
        "root": "",
        "game": game_static(public_game),
        "player": who,
        "turn": {"number": number, "deadline": phase["deadline"],
                 "deadline_text": schedule.show(phase["deadline"], loads(game_row["schedule"])) if phase["deadline"] else "",
                 "over": over, "asked": engine.active_players(rules, state)},
        "events": event_items(public_game, events),
        "first": number == 1,
        "map_svg": render_map(game_row["type"], view, uid="r", title=f"{rules.info.title} {game_id}, turn {number}"),
        "text_position": "" if has_template(f"{game_row['type']}/map.svg.j2") else text_position(
            db, rules, game_row, state, view, events, number, engine.active_players(rules, state)),
        "standings": players_table(public_game, view, scores),
        "details": details(rules, view),
        "chart_svg": render_chart(chart_data(public_game, number), uid="rc"),
        "outcome": rules.outcome(state) if over else None,
        "seed": game_row["seed"] if over and game_row["status"] == "finished" else None,
        "text_report": text_report or "",
        "css": Markup((templates_dir() / "site" / "style.css").read_text(encoding="utf-8")),  # our own file
    }
    return render("site/email.html.j2", **ctx)


