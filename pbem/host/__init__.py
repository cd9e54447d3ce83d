"""The store and the host: the SQLite store and its migrations, deadlines, the outbox, and the
game service -- one library function per thing a GM or a player does (new, submit, resolve,
rollback, status, report, autoplay, replay). Everything above this layer (render, mail, site,
cli) calls these functions and reads the store through the read API (pbem.host.read), never
through the tables' layout.

    from pbem import host
    db = host.open_db("pbem.db")
    host.status(db)["games"]

The names below are loaded on first use, so a command imports only what it needs (the
sqlite-utils store, the engine) when it needs it.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "read": (
        "current_state", "events", "events_by_phase", "game", "games", "latest_submissions", "outbox_counts",
        "phase", "phases", "player", "players", "report_text", "submitted_players", "turn_dir",
    ),
    "queries": ("current_deadline", "report", "status"),
    "reporting": ("Reporter",),
    "service": (
        "DEFAULT_TURNS", "Ack", "Resolved", "autoplay", "bot_script", "collect_turn_files", "due_games", "failpoint",
        "new_game", "new_password", "replay", "resolve", "restore_report_files", "rollback", "submit",
    ),
    "store": ("kept_secret", "open_db", "open_reader"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
