"""The store and the host: the SQLite store and its migrations, deadlines, the outbox, and the
game service -- one library function per thing a GM or a player does (new, submit, resolve,
rollback, status, report, autoplay, replay). Everything above this layer (render, mail, site,
cli) calls these functions and reads the store through the read API below, never through the
tables' layout.

    from pbem import host
    db = host.open_db("pbem.db")
    host.status(db)["games"]
"""

from pbem.host.read import (
    current_state, events, events_by_phase, game, games, phase, phases, player, players, report_text,
    submitted_players, turn_dir,
)
from pbem.host.reporting import Reporter
from pbem.host.service import (
    DEFAULT_TURNS, Ack, Resolved, autoplay, bot_script, collect_turn_files, due_games, failpoint, new_game,
    new_password, replay, report, resolve, rollback, status, submit,
)
from pbem.host.store import open_db

__all__ = [
    "Ack", "DEFAULT_TURNS", "Reporter", "Resolved", "autoplay", "bot_script", "collect_turn_files", "current_state",
    "due_games", "events", "events_by_phase", "failpoint", "game", "games", "new_game", "new_password", "open_db",
    "phase", "phases", "player", "players", "replay", "report", "report_text", "resolve", "rollback", "status",
    "submit", "submitted_players", "turn_dir",
]
