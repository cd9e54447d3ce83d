"""Turn reports, rendered with Jinja from views and events only (never from the state), so
nothing a player may not see can reach their report."""

from __future__ import annotations

from functools import lru_cache

import jinja2

from pbem.core import citations, engine, hexgrid
from pbem.core.registry import templates_dir
from pbem.host import schedule
from pbem.host.store import loads


def bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's compiled templates kept between processes (in a private folder of the user's
    temporary directory; Jinja checks each against its template's modification time), so a
    `pbem resolve` does not compile every template again. None when no folder can be made."""
    try:
        return jinja2.FileSystemBytecodeCache()
    except Exception:  # pragma: no cover - an unwritable temporary folder: compile as before
        return None


_DICT_ATTRS = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja's environment with `x.name` on a plain dict looked up as Jinja does (a dict's own
    attribute first, else its key), without raising an AttributeError first (issue 17)."""

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
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "htm", "xml", "svg"), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        bytecode_cache=bytecode_cache(),  # issue 17: templates compiled once per machine, not per process
    )
    env.globals["hexgrid"] = hexgrid
    env.globals["pick"] = env.select_template  # the first template of a list that exists
    env.filters["plural"] = lambda n, word, many=None: f"{n} {word if n == 1 else (many or word + 's')}"
    return env


def visible_events(events: list[dict], player: str | None) -> list[dict]:
    """Events a viewer may see: an event with `to` goes to that player only."""
    return [e for e in events if "to" not in e or e["to"] == player]


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)


# --- the text reports of a turn (the host's Reporter) ---------------------------------------

def _order_groups(rules, state: dict, player: str, per_verb: int = 12) -> list[dict]:
    groups: dict[str, list[str]] = {}
    for order in rules.legal_orders(state, player):
        groups.setdefault(order.verb, []).append(order.text)
    out = []
    for verb, texts in groups.items():
        pattern, help_text = rules.grammar.verbs.get(verb, ("", ""))
        out.append({"verb": verb, "help": help_text, "examples": texts[:per_verb], "more": max(0, len(texts) - per_verb)})
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
    out = {}
    for viewer in [None] + [p["name"] for p in players]:
        view = rules.view(state, viewer)
        ctx = dict(base)
        ctx.update(
            player=viewer,
            view=view,
            colour=next((p.get("colour") for p in view.get("players", []) if p.get("name") == viewer), None),
            events=visible_events(events, viewer),
            asked=viewer in asked,
            prompt=next((r.prompt for r in rules.requests(state) if r.player == viewer), ""),
            order_groups=_order_groups(rules, state, viewer) if viewer in asked else [],
            summary=rules.summary(view),  # the position in labelled words, from this viewer's view
            press=press.get(viewer or "", []),  # the press this viewer may read, senders as they may see them
        )
        out[viewer or ""] = render("report.txt.j2", **ctx)
    return out
