"""Turn reports, rendered with Jinja from views and events only (never from the state), so
nothing a player may not see can reach their report."""

from __future__ import annotations

import pickle
import re
from functools import lru_cache

import jinja2

from pbem.core import citations, engine, hexgrid
from pbem.core.registry import templates_dir
from pbem.host import schedule
from pbem.host.store import loads
from pbem.render import gods


def bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's compiled templates kept between processes (in a private folder of the user's
    temporary directory; Jinja checks each against its template's modification time), so a
    `pbem resolve` does not compile every template again. None when no folder can be made."""
    try:
        return jinja2.FileSystemBytecodeCache()
    except Exception:  # pragma: no cover - an unwritable temporary folder: compile as before
        return None


_DICT_ATTRS = frozenset(dir(dict))
# A line `{# part #}` cuts a template into parts (issue 17): text_reports renders each part on
# its own, once for every reader who sees what it reads the same (a position's public
# table once a turn, its private lines per reader); the whole renders as before.
_PART = re.compile(r"^[ \t]*\{# part #\}[ \t]*\n", re.M)


class _Loader(jinja2.FileSystemLoader):
    """The templates' folder, where NAME#N is the Nth part of the template NAME (see _PART),
    loaded (and compiled, and cached) as a template of its own."""

    def get_source(self, environment, template):
        base, sep, n = template.partition("#")
        if not sep:
            return super().get_source(environment, template)
        source, filename, uptodate = super().get_source(environment, base)
        return _PART.split(source)[int(n)], filename, uptodate


class _Template(jinja2.Template):
    """A template whose contexts are made from a plain dict of its globals (issue 17): Jinja
    keeps them as a ChainMap (the template's own over the environment's), which it reads key
    by key twice at every render and include. The copy is made at the first render; the
    environment's globals are all set when it is made (`environment`), never after."""

    _flat_globals: dict | None = None

    def new_context(self, vars=None, shared=False, locals=None):
        flat = self._flat_globals
        if flat is None:
            flat = self._flat_globals = dict(self.globals)
        return jinja2.runtime.new_context(self.environment, self.name, self.blocks, vars, shared, flat, locals)


class _Environment(jinja2.Environment):
    """Jinja's environment with `x.name` on a plain dict looked up as Jinja does (a dict's own
    attribute first, else its key), without raising an AttributeError first (issue 17)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._loaded: dict[str, jinja2.Template] = {}

    def _load_template(self, name, globals):
        """Jinja's, with the templates already loaded kept in a plain dict in front of its
        locked LRU cache (issue 17: a turn's reports look templates up some thirty times).
        Templates are loaded once a process (auto_reload is off), so this is the same one."""
        if globals:  # (pbem passes none) Jinja adds them to the template's own: its flat copy goes
            template = super()._load_template(name, globals)
            template._flat_globals = None
            return template
        loaded = self._loaded.get(name)
        if loaded is None:
            loaded = self._loaded[name] = super()._load_template(name, globals)
        return loaded

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRS:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = _Environment(
        loader=_Loader(str(templates_dir())),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "htm", "xml", "svg"), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        bytecode_cache=bytecode_cache(),  # issue 17: templates compiled once per machine, not per process
        auto_reload=False,  # issue 17: a template loaded once a process (no stat of its file at each use)
    )
    env.template_class = _Template
    env.globals["hexgrid"] = hexgrid
    env.globals["pick"] = env.select_template  # the first template of a list that exists
    env.filters["plural"] = lambda n, word, many=None: f"{n} {word if n == 1 else (many or word + 's')}"
    return env


# A game's position text written in plain Python instead of a templates/<game>/position.txt.j2
# (issue 17: the largest part of a GODS report, built once a turn in a fraction of a render).
# Each reads the view alone, and nothing of its `you`.
POSITIONS = {"gods": gods.position}
# A game's event lines (but the engine's own, events.j2) in plain Python instead of the macro
# `line` of a templates/<game>/events.j2 (issue 17): each reads the event alone.
EVENT_LINES = {"gods": gods.event_line}
# A game's order form examples in plain Python instead of its orders.txt.j2 (issue 17): each
# reads the report's context, as the template did.
ORDER_FORMS = {"gods": gods.order_form}


def has_position(game_type: str) -> bool:
    """Whether the game has a position text of its own (POSITIONS or its position.txt.j2)."""
    return game_type in POSITIONS or (templates_dir() / game_type / "position.txt.j2").is_file()


def position_text(game_type: str, ctx: dict) -> str:
    """The game's own position text (as report_text shows it) for a context of a report."""
    made = POSITIONS.get(game_type)
    if made is not None:
        return made(ctx["view"])
    return render(f"{game_type}/position.txt.j2", **ctx)


def visible_events(events: list[dict], player: str | None) -> list[dict]:
    """Events a viewer may see: an event with `to` goes to that player only, or to each player
    of a list (engine G5: pbem.core.engine.visible_to)."""
    return [e for e in events if engine.visible_to(e, player)]


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)


# --- the text reports of a turn (the host's Reporter) ---------------------------------------

def _order_groups(rules, state: dict, player: str, per_verb: int = 12) -> list[dict]:
    out = []
    for verb, texts, count in rules.order_groups(state, player, per_verb):  # issue 17: counted, not listed, where long
        pattern, help_text = rules.grammar.verbs.get(verb, ("", ""))
        out.append({"verb": verb, "help": help_text, "examples": texts[:per_verb], "more": max(0, count - per_verb)})
    return out


def seat_notes(players: list[dict]) -> list[str]:
    """One line per seat that is not simply played by its first player: a bot, vacant, or
    taken over by someone else (the seat keeps its name)."""
    out = []
    for p in players:
        if p.get("bot"):
            out.append(f"{p['name']}: played by a bot")
        elif p.get("vacant"):
            out.append(f"{p['name']}: vacant (the default orders each turn)")
        elif p.get("person"):
            out.append(f"{p['name']}: played by {p['person']}")
    return out


# A reader's own variables in a report's context (text_reports), and `title`, which report_text
# hands the order form's template (as report.txt.j2, the layout it replaced, had set it).
_OWN = frozenset(("player", "view", "colour", "events", "asked", "prompt", "order_groups", "summary", "press",
                  "event_lines", "position_text", "title"))
_BARE = re.compile(r"(?<![.\w])([A-Za-z_]\w*)")
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")
_VIEW_USE = re.compile(r"(?<![.\w])view\b(?:\.get\(\s*(['\"])(\w+)\1\s*[,)]|\.([A-Za-z_]\w*)\b(?!\s*\()"
                       r"|\[\s*(['\"])(\w+)\4\s*\])?")


@lru_cache(maxsize=None)
def _reads(name: str) -> tuple[frozenset[str], frozenset[str] | None] | None:
    """The names a report part may read from its context (issue 17), found in its tags, on the
    safe side (every name that stands alone, not after a dot), and the keys of `view` it reads
    (None: `view` is used otherwise than as view.KEY, view["KEY"] or view.get("KEY"...)). None when the part
    includes, imports or extends another template."""
    env = environment()
    source = env.loader.get_source(env, name)[0]
    source = "\n".join(re.findall(r"\{\{.*?\}\}|\{%.*?%\}", re.sub(r"\{#.*?#\}", "", source, flags=re.S), flags=re.S))  # the tags only
    if re.search(r"\{%[-+]?\s*(include|import|from|extends)\b", source):
        return None
    names = frozenset(_BARE.findall(_STRING.sub('""', source)))  # a word in a string literal is read by no one
    keys = set()
    for m in _VIEW_USE.finditer(source):
        key = m.group(2) or m.group(3) or m.group(5)
        if not key or key in _DICT_ATTRS:
            return names, None
        keys.add(key)
    return names, frozenset(keys)


_MODULES: dict = {}  # (a template's name, what it reads of the variables) -> its module


def _module(template: jinja2.Template, variables: dict):
    """The template as a module (its macros) made with `variables`: one made before for the
    same values of the variables it reads (_reads; issue 17: events.j2 reads `vacant_seats`
    alone, and was made again each turn), else a new one."""
    reads = _reads(template.name)
    try:
        key = None if reads is None else (
            template.name, pickle.dumps([(k, variables[k]) for k in sorted(reads[0] & variables.keys())]))
    except Exception:  # a value that does not pickle: made anew
        key = None
    found = _MODULES.get(key) if key else None
    if found is None:
        found = template.make_module(vars=dict(variables))
        if key:
            if len(_MODULES) >= 256:
                _MODULES.clear()
            _MODULES[key] = found
    return found


def _event_texts(rules, base: dict, events: list[dict], ctx: dict | None = None) -> dict[int, tuple[str, str]]:
    """Each event's report line and the rule it cites, by id(event), as report_text writes
    them (`common` imported with the context): once a turn for every reader (issue 17), as
    events.j2 reads none of a reader's own variables; else once per reader (`ctx`)."""
    env = environment()
    common_t = env.get_template("events.j2")
    reads = _reads(common_t.name)
    if ctx is None and (reads is None or reads[0] & _OWN):
        return {}
    common = _module(common_t, base if ctx is None else ctx)
    game_line = EVENT_LINES.get(rules.info.name) or env.select_template([f"{rules.info.name}/events.j2", "generic/events.j2"]).module.line
    types = common.TYPES
    out = {}
    for e in events:
        if id(e) in out:
            continue
        text = str(game_line(e) if env.getattr(e, "type") not in types else common.line(e)).strip()
        out[id(e)] = (text, base["cite"](e) if text else "")
    return out


@lru_cache(maxsize=None)
def _parts(name: str) -> tuple[str, ...]:
    """The names of the parts of the template `name` (NAME#0, NAME#1, ...: see _PART), or
    the name alone when it has none."""
    env = environment()
    count = len(_PART.split(env.loader.get_source(env, name)[0]))
    return tuple(f"{name}#{i}" for i in range(count)) if count > 1 else (name,)


def _render_parts(template: jinja2.Template, ctx: dict, own: set[str], memo: dict) -> str:
    """`template` rendered part by part (_render_part each, see _PART): the same text."""
    parts = _parts(template.name)
    if len(parts) == 1:
        return _render_part(template, ctx, own, memo)
    env = environment()
    return "".join(_render_part(env.get_template(name), ctx, own, memo) for name in parts)


def _render_part(template: jinja2.Template, ctx: dict, own: set[str], memo: dict) -> str:
    """An included part of a report rendered on its own (as `{% include %}` would, with the
    report's context): once for every reader whose own variables (`own`) it reads are the
    same (issue 17)."""
    reads = _reads(template.name)
    if reads is None:
        return template.render(**ctx)
    names, view_keys = reads
    names = names & own
    view = ctx["view"]
    if view_keys is not None and type(view) is dict:
        names = names - {"view"}
        read = [(k, ctx[k]) for k in sorted(names)] + [(k, k in view, view.get(k)) for k in sorted(view_keys)]
    else:
        read = [(k, ctx[k]) for k in sorted(names)]
    # the very same objects as another reader's (views that share their parts: Rules.views) read
    # the same without being compared; `read` is kept in the memo, so no id is reused meanwhile
    same = (template.name, *(id(x) for item in read for x in item[1:]))
    found = memo.get(same)
    if found is not None:
        return found[0]
    # else compared by content (pickled) with what the readers before read; issue 17: a read is
    # pickled only once some reader's is not the very same objects (the first reader's alone never is)
    pending = memo.get((None, template.name))
    if pending is None:
        entry = memo[same] = (template.render(**ctx), read)
        memo[(None, template.name)] = [entry]
        return entry[0]
    for text, earlier in pending:
        memo.setdefault(pickle.dumps([template.name] + earlier), text)
    pending.clear()
    key = pickle.dumps([template.name] + read)
    if key not in memo:
        memo[key] = template.render(**ctx)
    memo[same] = (memo[key], read)
    return memo[key]


def _dashes(title: str) -> str:
    return f"{title}\n{'-' * len(title)}\n"


def _events_part(ctx: dict) -> str:
    """A report's lines of the turn's events, each with the rule it cites."""
    out = []
    lines = ctx["event_lines"]  # each event's line and the rule it cites, rendered once a turn (_event_texts)
    for text, cited in lines:
        if text:
            out.append(f"  {text} [{cited}]\n" if cited else f"  {text}\n")
    if not lines:
        out.append("  (nothing)\n")
    rules_text = ctx.get("rules_text")
    if ctx["events"] and rules_text:
        out.append(f"  [...]: the rule each ruling applies, a section of the rules text ({rules_text}) or a CHOICE of ours.\n")
    return "".join(out)


def _table_part(ctx: dict) -> str:
    """A report's position text, seats, summary and result."""
    out = ["\n", ctx["position_text"]]
    if ctx["seat_notes"]:
        out.append("\nSeats\n-----\n")
        out += [f"  {line}\n" for line in ctx["seat_notes"]]
    if ctx["summary"]:
        out.append("\nAt a glance\n-----------\n")
        out += [f"  {label}: {text}\n" for label, text in ctx["summary"]]
    outcome = ctx["outcome"]
    if outcome:
        out.append(f"\nResult\n------\n{str(outcome['reason']).capitalize()}.\n")
        out += [f"  {'%-16s' % (name,)} {'%3d' % (pts,)} points{'   WINNER' if name in outcome['winners'] else ''}\n"
                for name, pts in outcome["scores"].items()]
    return "".join(out)


# what each part of report_text reads of a report's context
_PART_READS = {_events_part: ("event_lines", "events", "rules_text"),
               _table_part: ("position_text", "seat_notes", "summary", "outcome")}


def _part(part, ctx: dict, memo: dict | None) -> str:
    """`part` of a report: once a turn for the readers whose contexts hold the very same
    objects for all it reads (issue 17: the events, the position and the summary are most
    often every reader's). The objects are kept in `memo` with the text, so no id is reused
    while it lives."""
    if memo is None:
        return part(ctx)
    read = tuple(ctx.get(name) for name in _PART_READS[part])
    key = (part, *map(id, read))
    found = memo.get(key)
    if found is None:
        found = memo[key] = (read, part(ctx))
    return found[1]


def report_text(ctx: dict, memo: dict | None = None) -> str:
    """One reader's turn report from its context (text_reports): the shared layout of every
    game, its sections in order (the events, the press, the game's position text, the seats,
    the summary, the result, the order form), written with string operations (issue 17: it
    was templates/report.txt.j2, rendered four times a turn). The order form's examples are
    the game's ORDER_FORMS, else its templates/<game>/orders.txt.j2 (or generic/orders.txt.j2),
    with this context. `memo`: a dict kept for the readers of one turn (see _part)."""
    info, game, turn, player = ctx["info"], ctx["game"], ctx["turn"], ctx["player"]
    title = f"{info.title} -- game {game['id']} -- turn {turn}"
    out = [title, "\n", "=" * len(title), "\n"]
    if player:
        colour = ctx["colour"]
        out.append(f"Report for {player} ({colour}).\n" if colour else f"Report for {player}.\n")
    else:
        out.append("Public report.\n")
    out.append("The game is over.\n" if ctx["over"] else f"Deadline: {ctx['deadline']}\n")
    out.append(f"Seed hash (SHA-256, published at the start): {game['seed_hash']}\n")
    seed = ctx["revealed_seed"]
    if seed is not None:
        out.append(f'Seed (revealed at the end): {seed} -- check: sha256 of "{seed}" must equal the hash above,\n'
                   f"and `pbem replay {game['id']} --verify` re-runs every phase from it.\n")
    out.append("\n")
    out.append(_dashes(f"What happened in turn {turn - 1}") if turn > 1 else "The game begins\n---------------\n")
    out.append(_part(_events_part, ctx, memo))
    press = ctx["press"]
    if press:
        out.append("\n" + _dashes(f"Messages (press) in turn {turn - 1}"))
        for p in press:
            to = "everyone" if p["public"] else ("you" if p["to"] == player else p["to"])
            out.append(f"{'you' if p['mine'] else p['from']} to {to}:\n")
            out += [f"  {line}\n" for line in p["lines"]]
    out.append(_part(_table_part, ctx, memo))
    if player and not ctx["over"]:
        out.append("\nYour orders\n-----------\n")
        out.append(f"{ctx['prompt']}\n" if ctx["asked"] else
                   f"It is not your turn: waiting for {', '.join(map(str, ctx['awaiting'])) or 'nobody'}.\n")
        out.append(f"\nOrder form (reply with this, your orders filled in; lines starting with # are ignored)\n"
                   f"GAME {game['id']}\nPLAYER {player}\nPASSWORD your-password-here\n"
                   "# (a line READY keeps these orders as they are even if a line is rejected; see the acknowledgement)\n")
        if ctx["asked"]:
            form = ORDER_FORMS.get(info.name)
            out.append(form(ctx) if form else environment().select_template(
                [f"{info.name}/orders.txt.j2", "generic/orders.txt.j2"]).render(**ctx, title=title))
        out.append("END\n")
    return "".join(out)


def text_reports(rules, game: dict, players: list[dict], state: dict, events: list[dict], number: int) -> dict[str, str]:
    """Every report of one turn: one per player, and the public one under the key ''."""
    sched = loads(game["schedule"])
    press = game.get("press") or {}  # each reader's press of the turn (pbem.host.press.for_reports)
    game = {k: v for k, v in game.items() if k != "press"}  # no template ever sees anyone else's
    outcome = rules.outcome(state)
    over = bool(state["flow"].get("over"))
    asked = engine.active_players(rules, state)
    base = {
        "info": rules.info,
        "game": game,
        "turn": number,
        "over": over,
        "outcome": outcome,
        "deadline": schedule.show(game["deadline"], sched),
        "revealed_seed": game["seed"] if over else None,
        "awaiting": asked,
        "seat_notes": seat_notes(players),  # bot, vacant and taken-over seats (pbem.host.seats)
        "vacant_seats": [p["name"] for p in players if p.get("vacant")],  # their defaults are no NMR
        "cite": lambda e: citations.cite_event(rules.data, e),  # issue 18: the rule each event applies
        "rules_text": citations.rules_text(rules.data),
    }
    texts = _event_texts(rules, base, events)  # issue 17: what every reader shares, rendered once
    made = POSITIONS.get(rules.info.name)
    position = None if made else environment().select_template([f"{rules.info.name}/position.txt.j2", "generic/position.txt.j2"])
    memo: dict = {}
    requests = rules.requests(state)
    out = {}
    viewers = [None] + [p["name"] for p in players]
    views = rules.views(state, viewers)
    summaries = rules.summaries(views)  # the position in labelled words, from each viewer's view
    prompts = {r.player: r.prompt for r in reversed(requests)}  # (the first request of a player's)
    # issue 17: with no private event, every reader sees the same events, and their lines
    public = all("to" not in e for e in events)
    shared = (events, [texts[id(e)] for e in events]) if public and texts else None
    for viewer, view, summary in zip(viewers, views, summaries):
        ctx = dict(base)
        ctx.update(
            player=viewer,
            view=view,
            colour=next((p.get("colour") for p in view.get("players", []) if p.get("name") == viewer), None),
            events=shared[0] if shared else visible_events(events, viewer),
            asked=viewer in asked,
            prompt=prompts.get(viewer, ""),
            order_groups=_order_groups(rules, state, viewer) if viewer in asked else [],
            summary=summary,
            press=press.get(viewer or "", []),  # the press this viewer may read, senders as they may see them
        )
        own = set(ctx) - set(base)  # (all of _OWN's)
        if shared:
            ctx["event_lines"] = shared[1]
        else:
            lines = texts or _event_texts(rules, base, ctx["events"], ctx)
            ctx["event_lines"] = [lines[id(e)] for e in ctx["events"]]
        if made is None:
            ctx["position_text"] = _render_parts(position, ctx, own, memo)
        else:  # once for the views that share every part but `you` (Rules.views); they are alive: no id reused
            same = tuple(id(x) for k, x in view.items() if k != "you")
            if same not in memo:
                memo[same] = made(view)
            ctx["position_text"] = memo[same]
        out[viewer or ""] = report_text(ctx, memo)
    return out
