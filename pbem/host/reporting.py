"""The port through which the host gets its turn reports written.

The host stores each turn's reports in the transaction that opens the turn, but rendering
them (Jinja templates) is the render layer's work, and the render layer sits above the host.
So the renderer is handed down, not imported: `pbem.render.install()` registers it once at
start-up (the CLI, the tests' conftest and the benchmarks call it), or a caller passes one
explicitly. A host call that must write reports with no renderer registered fails loudly
instead of writing none.
"""

from __future__ import annotations

from typing import Protocol

from pbem.core.errors import PbemError
from pbem.core.text import printable


class Reporter(Protocol):
    def __call__(self, rules, game: dict, players: list[dict], state: dict, events: list[dict],
                 number: int) -> dict[str, str]:
        """Every report of one turn: one per player name, and the public one under ''."""


_reporter: Reporter | None = None


def install(reporter: Reporter) -> None:
    """Make `reporter` the one the host uses from now on."""
    global _reporter
    _reporter = reporter


def reporter() -> Reporter:
    if _reporter is None:
        raise PbemError("internal: no report renderer is installed (call pbem.render.install() first)")
    return _reporter


def render(rules, game: dict, players: list[dict], state: dict, events: list[dict], number: int) -> dict[str, str]:
    """The reports of one turn, by the installed renderer (issue 17: with no control
    character, whatever a player's press or order line carried)."""
    texts = reporter()(rules, game, players, state, events, number)
    return {who: printable(text) for who, text in texts.items()}


