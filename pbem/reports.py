"""Turn reports, rendered with Jinja from views and events only (never from the state), so
nothing a player may not see can reach their report."""

from __future__ import annotations

from functools import lru_cache

import jinja2

from pbem import hexgrid
from pbem.registry import templates_dir


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "htm", "xml", "svg"), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
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
