"""`pbem verify`: adjudicate a finished, published game again from its public files alone.

A finished game's site folder holds `record.json` (pbem.host.record: seed, players, options,
every submission as it was executed, every turn's state hash, the hash of the game's data
file) beside the public report of every turn (`turn-N.json`). `verify` re-runs the whole
game through this installation's engine from the record and checks, turn by turn:

- the state hash against the record's and the one in `turn-N.json`;
- the public report of the turn (its events and the public view of the position) against
  `turn-N.json`;
- the seed against its hash, published from the first turn on (so the seed was fixed before
  play began), and the result against the record's.

Any difference is named with the file it was found in. A player needs nothing but pbem
installed from PyPI and the folder (or its URL).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from pbem.core import engine
from pbem.core.errors import PbemError
from pbem.core.registry import game_types, get_rules
from pbem.core.rng import seed_hash as rng_seed_hash
from pbem.host import deadline
from pbem.host.record import RECORD_FORMAT, data_digest, pbem_version, replay_record, rules_digest
from pbem.render.html import public_scores
from pbem.render.reports import visible_events

MAX_FILE = 64 * 2**20  # no published file of a game is near this


@dataclass
class Verified:
    game: str = ""
    game_type: str = ""
    turns: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


FILE_SECONDS = 120  # reading one file of a published game over http(s) may take this long in all


class Source:
    """A published game's folder: a local path, or an http(s)/file URL."""

    def __init__(self, where: str):
        self.where = where.rstrip("/")
        self.url = "://" in where

    def read(self, name: str) -> bytes | None:
        """A file's bytes, or None when it is not there."""
        if self.url:
            try:
                # 30 s for each wait for a byte, and 120 s for the file as a whole (a server that
                # dribbles its answer a byte at a time never trips the first)
                with deadline.within(FILE_SECONDS, f"reading {self.where}/{name}"), \
                        urllib.request.urlopen(f"{self.where}/{name}", timeout=30) as resp:  # noqa: S310 - the user's URL
                    data = resp.read(MAX_FILE + 1)
            except urllib.error.HTTPError as err:
                if err.code == 404:
                    return None
                raise PbemError(f"{self.where}/{name}: HTTP {err.code} {err.reason}") from None
            except (urllib.error.URLError, OSError, ValueError) as err:
                reason = getattr(err, "reason", err)
                raise PbemError(f"cannot read {self.where}/{name}: {reason}") from None
        else:
            path = Path(self.where) / name
            if not path.is_file():
                return None
            if path.stat().st_size > MAX_FILE:
                raise PbemError(f"{path}: too large for a published game file")
            data = path.read_bytes()
        if len(data) > MAX_FILE:
            raise PbemError(f"{self.where}/{name}: too large for a published game file")
        return data

    def json(self, name: str) -> dict | None:
        data = self.read(name)
        if data is None:
            return None
        try:
            doc = json.loads(data.decode("utf-8"))
        except RecursionError:  # issue 17: was "internal error: RecursionError"
            raise PbemError(f"{name} is not a pbem file: its JSON is nested too deeply to read") from None
        except (UnicodeDecodeError, ValueError) as err:
            if "integer string conversion" in str(err):  # (Python's own advice is no help to the reader)
                raise PbemError(f"{name} is not a pbem file: it holds a number of more than "
                                f"{sys.get_int_max_str_digits()} digits") from None
            raise PbemError(f"{name} is not valid JSON: {err}") from None
        if not isinstance(doc, dict):
            raise PbemError(f"{name} is not a JSON object")
        return doc


def _kind(value) -> str:
    """What a JSON value is, for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {dict: "an object", list: "a list", str: "text"}.get(type(value), "a number")


def _check_shape(record: dict) -> None:
    """issue 17: a hand-edited record.json whose parts are not what a record holds is refused
    with a message naming the part (was "internal error: TypeError" for `phases: null`, and
    "record.json lacks list indices must be integers" for `game: []`)."""
    for key, want, kind in (("game", dict, "an object"), ("phases", list, "a list")):
        if key not in record:
            raise PbemError(f"record.json lacks '{key}'")
        if not isinstance(record[key], want):
            raise PbemError(f"record.json: {key} is not {kind} (it is {_kind(record[key])})")
    for key in ("id", "type", "seed", "seed_hash", "players", "options"):
        if key not in record["game"]:
            raise PbemError(f"record.json: game lacks '{key}'")
    game = record["game"]
    for key, want, kind in (("players", list, "a list"), ("options", dict, "an object"), ("joined", dict, "an object")):
        if key in game and not isinstance(game[key], want):
            raise PbemError(f"record.json: game.{key} is not {kind} (it is {_kind(game[key])})")
    for i, name in enumerate(game["players"]):
        if not isinstance(name, str):
            raise PbemError(f"record.json: game.players[{i}] is not a name (it is {_kind(name)})")
    for i, phase in enumerate(record["phases"]):
        if not isinstance(phase, dict):
            raise PbemError(f"record.json: phases[{i}] is not an object (it is {_kind(phase)})")
        turn = phase.get("turn")
        if not (isinstance(turn, int) and not isinstance(turn, bool) and 0 < turn < 10**9):
            shown = (f"{turn}" if len(str(turn)) <= 12 else f"a number of {len(str(turn))} digits") \
                if isinstance(turn, int) and not isinstance(turn, bool) else _kind(turn)
            raise PbemError(f"record.json: phases[{i}].turn is not a turn number (it is {shown})")
        scripts = phase.get("scripts", {})
        if not isinstance(scripts, dict):
            raise PbemError(f"record.json: phases[{i}].scripts is not an object (it is {_kind(scripts)})")
        for who, text in scripts.items():
            if not isinstance(text, str):
                raise PbemError(f"record.json: phases[{i}].scripts's {json.dumps(who)[:40]} is not text (it is {_kind(text)})")


def _names(winners) -> str:
    """Winners as a GM reads them: 'zeus, hera and ares' (nobody: 'nobody')."""
    names = [str(w) for w in winners or []]
    return "nobody" if not names else names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _same(a, b) -> bool:
    """Equal as JSON (tuples and lists alike, key order ignored)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _first_difference(published: list, computed: list) -> str:
    for i, (p, c) in enumerate(zip(published, computed)):
        if not _same(p, c):
            return f"event {i + 1}: published {json.dumps(p, sort_keys=True)[:160]}, re-adjudicated {json.dumps(c, sort_keys=True)[:160]}"
    return f"{len(published)} events published, {len(computed)} re-adjudicated"


def verify(where: str) -> Verified:
    """Re-adjudicate the published game at `where` (see the module's docstring)."""
    src = Source(where)
    record = src.json("record.json")
    if record is None:
        if src.json("turn-1.json") is not None:
            raise PbemError(f"{where} has no record.json: the game is not over yet (its record is published when it ends)")
        raise PbemError(f"{where} is no published pbem game (no record.json, no turn-1.json)")
    if record.get("format") != RECORD_FORMAT:
        raise PbemError(f"record.json is not a pbem game record (format {record.get('format')!r})")
    _check_shape(record)
    out = Verified()
    try:
        g = record["game"]
        out.game, out.game_type = str(g["id"]), str(g["type"])
        phases = record["phases"]
        seed, seed_hash = str(g["seed"]), str(g["seed_hash"])
        _ = (g["players"], g["options"])
    except (KeyError, TypeError) as err:
        raise PbemError(f"record.json lacks {err}") from None
    if out.game_type not in game_types():
        raise PbemError(f"record.json is a game of type '{out.game_type}', which this pbem ({pbem_version()}) does not know")
    rules = get_rules(out.game_type)
    info = rules.info
    if not info.min_players <= len(g["players"]) <= info.max_players:
        raise PbemError(f"record.json: game.players lists {len(g['players'])} players; {info.title} is for "
                        f"{info.min_players} to {info.max_players}")

    if record.get("data_sha256") != data_digest(out.game_type):
        out.problems.append(f"record.json: the game was played with another {out.game_type} data file "
                            f"(sha256 {record.get('data_sha256')}); this pbem {pbem_version()} has {data_digest(out.game_type)}")
    if record.get("rules_sha256") != rules_digest(out.game_type):
        out.notes.append(f"the game was played by pbem {record.get('pbem_version')}, whose rules code differs from this "
                         f"pbem {pbem_version()}: a difference below may come from that")
    if rng_seed_hash(seed) != seed_hash:
        out.problems.append("record.json: the seed does not match its published hash")

    final_state = None
    try:
        for ph, state, events in replay_record(record):
            n = ph["turn"]
            out.turns += 1
            final_state = state
            computed = engine.state_hash(state)
            if computed != ph["state_hash"]:
                out.problems.append(f"record.json, turn {n}: state hash {ph['state_hash'][:12]}..., "
                                    f"re-adjudicated {computed[:12]}...")
                break
            turn_doc = src.json(f"turn-{n}.json")
            if turn_doc is None:
                out.problems.append(f"turn-{n}.json is missing")
                continue
            name = f"turn-{n}.json"
            if turn_doc.get("state_hash") != computed:
                out.problems.append(f"{name}: state hash {str(turn_doc.get('state_hash'))[:12]}..., re-adjudicated {computed[:12]}...")
            if (turn_doc.get("game") or {}).get("seed_hash") != seed_hash:
                out.problems.append(f"{name}: the seed hash differs from record.json's")
            public = visible_events(events, None)
            if not _same(turn_doc.get("events"), public):
                out.problems.append(f"{name}: the public events differ: {_first_difference(turn_doc.get('events') or [], public)}")
            view = rules.view(state, None)
            if not _same(turn_doc.get("view"), view):
                out.problems.append(f"{name}: the public position differs from the re-adjudicated one")
            if not _same(turn_doc.get("scores"), public_scores(view)):  # the standings a reader cares about
                out.problems.append(f"{name}: the scores are {json.dumps(turn_doc.get('scores'), sort_keys=True)[:160]}, "
                                    f"re-adjudicated {json.dumps(public_scores(view), sort_keys=True)[:160]}")
            if turn_doc.get("outcome") is not None and not _same(turn_doc.get("outcome"), record.get("outcome")):
                out.problems.append(f"{name}: the result differs from record.json's")
    except PbemError:
        raise
    except Exception as err:  # a record whose scripts or options the engine cannot run
        out.problems.append(f"record.json: re-adjudication stopped at turn {out.turns}: {type(err).__name__}: {err}")
    if final_state is not None and not out.problems:
        outcome = final_state["flow"].get("outcome")
        ended_by = (record.get("outcome") or {}).get("ended_by")
        if not final_state["flow"].get("over") and ended_by:
            out.notes.append(f"the game was ended by {ended_by}, not by the rules, at turn {out.turns}; "
                             f"the result is theirs: {_names(record['outcome'].get('winners'))}")
        elif not final_state["flow"].get("over"):
            out.problems.append("record.json: re-adjudicated, the game is not over after its last turn")
        elif record.get("outcome") is not None and not _same((record["outcome"] or {}).get("winners"), (outcome or {}).get("winners")):
            out.problems.append(f"record.json: the winners are {_names(record['outcome'].get('winners'))}, "
                                f"re-adjudicated {_names((outcome or {}).get('winners'))}")
        elif record.get("outcome") is not None and not _same(record["outcome"], outcome):  # the scores too
            out.problems.append(f"record.json: the result is {json.dumps(record['outcome'], sort_keys=True)[:200]}, "
                                f"re-adjudicated {json.dumps(outcome, sort_keys=True)[:200]}")
    if len(phases) == 0:
        out.problems.append("record.json: no turns")
    return out
