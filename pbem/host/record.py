"""A finished game's public record: everything needed to adjudicate it again from nothing.

When a game is over nothing in it is secret any more, so its record holds the seed, the
players and options, and every submission exactly as it was executed (the lines the engine
ran, each under the number the player gave it; the password and the GAME/PLAYER lines are
left out, they decide nothing), with the state hash of every turn, the hash of the game's
data file and the versions that played it. `pbem verify` (pbem.site.verify) re-runs the
game from this record alone and checks every state hash and every public turn report.

While a game runs there is no record: `game_record` refuses.
"""

from __future__ import annotations

import hashlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pbem.core import engine
from pbem.core.errors import PbemError
from pbem.core.orders import read_script
from pbem.core.registry import games_dir
from pbem.host import read
from pbem.host.store import loads

RECORD_FORMAT = "pbem-game-record"
RECORD_VERSION = 1


def pbem_version() -> str:
    try:
        return version("pbem")
    except PackageNotFoundError:
        return "unknown"


def data_digest(game_type: str) -> str:
    """The SHA-256 of a game's data file (its board, deck and numbers)."""
    return hashlib.sha256((games_dir() / game_type / "data.toml").read_bytes()).hexdigest()


def rules_digest(game_type: str) -> str:
    """A SHA-256 over the game's code and the engine's (pbem/core): what decides a ruling."""
    h = hashlib.sha256()
    for base in (games_dir() / game_type, Path(engine.__file__).parent):
        for p in sorted(base.rglob("*.py")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def script_text(lines: list[tuple[int, str]]) -> str:
    """Order lines back into a text in which each keeps its number (blank lines between)."""
    if not lines:
        return ""
    by_number = dict(lines)
    return "\n".join(by_number.get(n, "") for n in range(1, max(by_number) + 1)) + "\n"


def game_record(db, game_id: str) -> dict:
    """The public record of a finished game (see the module's docstring)."""
    game = read.game(db, game_id)
    if game["status"] != "finished":
        raise PbemError(f"game '{game_id}' is not over: its record is published when it ends")
    subs = {r["id"]: r for r in read.rows(db, "select id, player, raw from submissions where game_id = ?", [game_id])}
    phases = []
    for ph in read.phases(db, game_id, select="number, state_hash, resolved, used"):
        scripts: dict[str, str] = {}
        for player, sid in sorted((loads(ph["used"]) or {}).items()):
            if sid not in subs:
                raise PbemError(f"game '{game_id}': turn {ph['number']} was resolved with submission {sid}, "
                                "which is not in the store: its record cannot be published")
            raw = subs[sid]["raw"]
            text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
            script = read_script(text)
            scripts[player] = script_text([(ln.number, ln.text) for ln in script.lines])
        phases.append({"turn": ph["number"], "state_hash": ph["state_hash"], "resolved": ph["resolved"],
                       "scripts": scripts})
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "game": {"id": game["id"], "type": game["type"], "seed": game["seed"], "seed_hash": game["seed_hash"],
                 "options": loads(game["options"]) or {},
                 "players": [p["name"] for p in read.players(db, game_id) if not p.get("joined")],
                 # seats added while the game ran (`pbem join`): name -> the turn they joined in
                 "joined": {p["name"]: p["joined"] for p in read.players(db, game_id) if p.get("joined")}},
        "outcome": loads(game["outcome"]),
        "pbem_version": pbem_version(),
        "data_sha256": data_digest(game["type"]),
        "rules_sha256": rules_digest(game["type"]),
        "phases": phases,
    }


def replay_record(record: dict):
    """Re-run a record through the engine: yields (turn, state, events of the turn before it)."""
    from pbem.core.registry import get_rules

    g = record["game"]
    rules = get_rules(g["type"])
    state, events = engine.start(rules, list(g["players"]), dict(g["options"]), g["seed"])
    joined = g.get("joined") or {}
    for ph in record["phases"]:
        for name, turn in joined.items():   # a seat added in this turn joins before it is played
            if turn == ph["turn"]:
                state, more = engine.add_player(rules, state, name)
                events = events + more
        yield ph, state, events
        if not ph["resolved"]:
            return
        scripts = {p: None for p in engine.active_players(rules, state)}
        for p, text in ph["scripts"].items():
            scripts[p] = read_script(text)
        res = engine.resolve(rules, state, scripts, g["seed"])
        state, events = res.state, res.events
