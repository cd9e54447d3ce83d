"""Scenario tests: a position in TOML, scripted dice and draws, orders, expected events and
position -- run through the real engine (engine.start, engine.settle, engine.check_script,
engine.resolve), so a scenario tests exactly the code a GM runs.

The format is documented in docs/scenarios.md. In short:

    title = "a temple converts adjacent tribes"
    rule = "b) Place a temple: all directly adjacent tribes change religion"
    game = "gods"
    players = ["red", "blue"]
    [position]                       # merged onto a freshly set-up game's state["game"]
    crystals = { red = 6 }
    [position.board]                 # the board is replaced, not merged
    "0,0" = { kind = "tribe", colour = "green", god = "blue" }
    [[step]]                         # one player's submission, resolved like a real turn
    player = "red"
    orders = ["temple 1,0", "discard wasteland"]
    [[step.expect_event]]
    type = "convert"
    [expect]
    "game.board.0,0.god" = "red"

Run files with `python -m pbem.core.scenario [FILE...]` (default: every games/*/scenarios/*.toml),
or from Python with `run(path)`, which raises ScenarioFailure with a readable message.
"""

from __future__ import annotations

import copy
import json
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.core import engine
from pbem.core.orders import Script, read_script
from pbem.core.registry import games_dir, get_rules
from pbem.core.rng import Rng, phase_rng

NULL = "~"  # TOML has no null: "~" stands for None in positions, events and expectations
MATCHERS = {"contains", "lacks", "len", "min", "max", "absent", "equals"}
TOP_KEYS = {
    "title", "rule", "note", "game", "players", "seed", "options", "position", "flow", "replace",
    "dice", "randoms", "random", "step", "expect", "expect_start_event",
}
STEP_KEYS = {
    "player", "orders", "nmr", "note", "expect_rejected", "expect_conditional", "expect_event", "expect_no_event",
    "expect_line", "expect",
}
LINE_STATUSES = {"accepted", "rejected", "ignored", "executed", "skipped", "unused"}


class ScenarioError(Exception):
    """The scenario file itself is wrong (bad TOML, unknown key, a position the state lacks)."""


class ScenarioFailure(AssertionError):
    """The engine did not do what the scenario expects."""


# --- scripted randomness -------------------------------------------------------------------

class ScriptedRng(Rng):
    """An Rng that returns the scenario's scripted values and fails loudly when asked for
    one more than was scripted. `dice` feeds die()/dice() (values 1..sides); `randoms`
    feeds every other draw (randbelow, and so shuffle and choice): each value must be
    below the bound asked for."""

    def __init__(self, dice: list[int] | None = None, randoms: list[int] | None = None):
        super().__init__("scenario", "scripted")
        self.script_dice = [int(v) for v in dice or []]
        self.script_randoms = [int(v) for v in randoms or []]

    def die(self, sides: int = 6) -> int:
        if not self.script_dice:
            raise ScenarioFailure(
                f"the rules rolled a d{sides}, but the scenario's `dice` script is used up "
                f"(rolled so far: {[v for _, v in self.draws if _.startswith('d')]})"
            )
        value = self.script_dice.pop(0)
        if not 1 <= value <= sides:
            raise ScenarioError(f"scripted die {value} cannot be rolled on a d{sides}")
        self.counter += 1
        self.draws.append((f"d{sides}", value))
        return value

    def randbelow(self, n: int) -> int:
        if not self.script_randoms:
            raise ScenarioFailure(
                f"the rules drew a random number below {n}, but the scenario's `randoms` "
                "script is used up (script it, or set random = \"seeded\")"
            )
        value = self.script_randoms.pop(0)
        if not 0 <= value < n:
            raise ScenarioError(f"scripted random {value} is not below {n}")
        self.counter += 1
        return value

    def leftover(self) -> str | None:
        left = []
        if self.script_dice:
            left.append(f"dice {self.script_dice}")
        if self.script_randoms:
            left.append(f"randoms {self.script_randoms}")
        return " and ".join(left) or None


# --- loading -------------------------------------------------------------------------------

@dataclass
class Scenario:
    path: Path
    data: dict
    title: str = ""
    game: str = ""
    players: list[str] = field(default_factory=list)
    seeds: list[str] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.path}: \"{self.title}\""


def load(path: str | Path) -> Scenario:
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(f"{path}: not valid TOML: {err}") from err
    return from_data(data, path)


def from_data(data: dict, path: str | Path = "<scenario>") -> Scenario:
    path = Path(path)

    def bad(msg: str) -> ScenarioError:
        return ScenarioError(f"{path}: {msg}")

    unknown = set(data) - TOP_KEYS
    if unknown:
        raise bad(f"unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(TOP_KEYS))}")
    for need in ("title", "game", "players"):
        if need not in data:
            raise bad(f"`{need}` is required")
    players = data["players"]
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        raise bad("`players` must be a list of names")
    seed = data.get("seed", "scenario")
    seeds = [str(s) for s in seed] if isinstance(seed, list) else [str(seed)]
    if not seeds:
        raise bad("`seed` must not be an empty list")
    if data.get("random", "scripted") not in ("scripted", "seeded"):
        raise bad("`random` must be \"scripted\" (the default) or \"seeded\"")
    if data.get("random") == "seeded" and ("dice" in data or "randoms" in data):
        raise bad("`dice`/`randoms` script the draws; they make no sense with random = \"seeded\"")
    steps = data.get("step", [])
    if not isinstance(steps, list):
        raise bad("`step` must be an array of tables: write [[step]]")
    for i, step in enumerate(steps, 1):
        unknown = set(step) - STEP_KEYS
        if unknown:
            raise bad(f"step {i}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(STEP_KEYS))}")
        if "orders" in step and step.get("nmr"):
            raise bad(f"step {i}: a step has either `orders` or `nmr = true`, not both")
        if ("orders" in step or step.get("nmr") or "expect_rejected" in step) and not (
            "player" in step or isinstance(step.get("orders"), dict)
        ):
            raise bad(f"step {i}: `player` is required")
        if "player" in step and step["player"] not in players:
            raise bad(f"step {i}: player '{step['player']}' is not one of {players}")
        for entry in step.get("expect_line", []):
            if "line" not in entry and "text" not in entry:
                raise bad(f"step {i}: an expect_line entry needs `line` (its number) or `text`")
            if entry.get("status", "executed") not in LINE_STATUSES:
                raise bad(f"step {i}: expect_line status must be one of {sorted(LINE_STATUSES)}")
        for entry in step.get("expect_rejected", []):
            if "order" not in entry or "reason" not in entry:
                raise bad(f"step {i}: an expect_rejected entry needs `order` and `reason`")
        for entry in step.get("expect_conditional", []):
            if "order" not in entry:
                raise bad(f"step {i}: an expect_conditional entry needs `order`")
    return Scenario(path, data, str(data["title"]), str(data["game"]), list(players), seeds, steps)


def discover(root: str | Path | None = None) -> list[Path]:
    """Every scenario file of every game: games/*/scenarios/*.toml."""
    base = Path(root) if root else games_dir()
    return sorted(base.glob("*/scenarios/*.toml"))


# --- matching ------------------------------------------------------------------------------

def _denull(value: Any) -> Any:
    if value == NULL:
        return None
    if isinstance(value, dict):
        return {k: _denull(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_denull(v) for v in value]
    return value


def _is_matcher(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and set(value) <= MATCHERS


def _show(value: Any) -> str:
    if value is None:
        return "~ (none)"
    try:
        text = json.dumps(value, sort_keys=True)
    except TypeError:
        text = repr(value)
    return text if len(text) <= 400 else text[:400] + "..."


def _same_scalar(expected: Any, found: Any) -> bool:
    if isinstance(expected, bool) or isinstance(found, bool):
        return isinstance(expected, bool) and isinstance(found, bool) and expected == found
    return expected == found


def mismatch(expected: Any, found: Any, where: str = "") -> str | None:
    """None if `found` satisfies `expected`; else a one-line reason.
    Tables match as subsets (only the keys written are checked); arrays match element by
    element; "~" means none; a table of matcher keys (contains, lacks, len, min, max,
    absent, equals) tests the value instead of comparing it."""
    at = f"{where}: " if where else ""
    if expected == NULL:
        return None if found is None else f"{at}expected ~ (none), found {_show(found)}"
    if _is_matcher(expected):
        for op, arg in expected.items():
            arg = _denull(arg)
            if op == "absent":
                continue  # handled by the caller, which knows whether the key exists
            if op == "equals":
                if found != arg:
                    return f"{at}expected exactly {_show(arg)}, found {_show(found)}"
            elif op in ("contains", "lacks"):
                if isinstance(found, str):
                    has = isinstance(arg, str) and arg in found
                elif isinstance(found, dict):
                    has = arg in found
                elif isinstance(found, list):
                    has = any(mismatch(arg, item) is None for item in found)
                else:
                    return f"{at}`{op}` needs a text, array or table, found {_show(found)}"
                if op == "contains" and not has:
                    return f"{at}expected it to contain {_show(arg)}, found {_show(found)}"
                if op == "lacks" and has:
                    return f"{at}expected it not to contain {_show(arg)}, found {_show(found)}"
            elif op == "len":
                try:
                    n = len(found)
                except TypeError:
                    return f"{at}expected something with a length, found {_show(found)}"
                if n != arg:
                    return f"{at}expected length {arg}, found length {n}: {_show(found)}"
            elif op in ("min", "max"):
                if not isinstance(found, (int, float)) or isinstance(found, bool):
                    return f"{at}expected a number, found {_show(found)}"
                if (op == "min" and found < arg) or (op == "max" and found > arg):
                    return f"{at}expected {'at least' if op == 'min' else 'at most'} {arg}, found {found}"
        return None
    if isinstance(expected, dict):
        if not isinstance(found, dict):
            return f"{at}expected a table like {_show(_denull(expected))}, found {_show(found)}"
        for k, v in expected.items():
            sub = f"{where}.{k}" if where else str(k)
            if _is_matcher(v) and v.get("absent"):
                if k in found:
                    return f"{sub}: expected no such key, found {_show(found[k])}"
                continue
            if k not in found:
                return f"{sub}: expected {_show(_denull(v))}, found no such key"
            reason = mismatch(v, found[k], sub)
            if reason:
                return reason
        return None
    if isinstance(expected, list):
        if not isinstance(found, list) or len(found) != len(expected):
            return f"{at}expected {_show(_denull(expected))}, found {_show(found)}"
        for i, (e, f) in enumerate(zip(expected, found)):
            reason = mismatch(e, f, f"{where}[{i}]")
            if reason:
                return f"{at}expected {_show(_denull(expected))}, found {_show(found)} ({reason})"
        return None
    if not _same_scalar(expected, found):
        return f"{at}expected {_show(expected)}, found {_show(found)}"
    return None


_MISSING = object()


def _step_into(value: Any, segment: str) -> Any:
    if isinstance(value, dict):
        return value.get(segment, _MISSING)
    if isinstance(value, (list, tuple)):
        try:
            if ":" in segment:
                a, b = segment.split(":", 1)
                return list(value[slice(int(a) if a else None, int(b) if b else None)])
            i = int(segment)
            return value[i] if -len(value) <= i < len(value) else _MISSING
        except ValueError:
            return _MISSING
    return _MISSING


class _Position:
    """What an expectation path can name: game.* and flow.* (the raw state), scores.*,
    outcome.*, active, legal.PLAYER (legal order texts), view.PLAYER / view.public."""

    def __init__(self, rules, state: dict, players: list[str]):
        self.rules, self.state, self.players = rules, state, players

    def root(self, name: str) -> Any:
        if name in ("game", "flow"):
            return self.state.get(name, _MISSING)
        if name == "scores":
            return self.rules.scores(self.state)
        if name == "outcome":
            return self.rules.outcome(self.state)
        if name == "active":
            return engine.active_players(self.rules, self.state)
        if name == "legal":
            return {p: [o.text for o in self.rules.legal_orders(self.state, p)] for p in self.players}
        if name == "view":
            views = {p: self.rules.view(self.state, p) for p in self.players}
            views["public"] = self.rules.view(self.state, None)
            return views
        raise ScenarioError(
            f"expectation path starts with '{name}'; it must start with one of: "
            "game, flow, scores, outcome, active, legal, view"
        )

    def lookup(self, path: str) -> Any:
        head, *rest = path.split(".")
        value = self.root(head)
        for seg in rest:
            if value is _MISSING:
                break
            value = _step_into(value, seg)
        return value

    def check(self, expect: dict) -> list[str]:
        problems = []
        for path, wanted in expect.items():
            found = self.lookup(path)
            if found is _MISSING:
                if _is_matcher(wanted) and wanted.get("absent"):
                    continue
                problems.append(f"{path}: expected {_show(_denull(wanted))}, found no such entry")
                continue
            if _is_matcher(wanted) and wanted.get("absent"):
                problems.append(f"{path}: expected no such entry, found {_show(found)}")
                continue
            reason = mismatch(wanted, found, path)
            if reason:
                problems.append(reason)
        return problems


def _event_lines(events: list[dict]) -> str:
    if not events:
        return "    (no events)"
    return "\n".join(f"    {i:2}. {_show(e)}" for i, e in enumerate(events, 1))


def match_events(expected: list[dict], events: list[dict]) -> str | None:
    """Every expected event must match (as a subset) some event, in the order written."""
    pos = 0
    for n, want in enumerate(expected, 1):
        for i in range(pos, len(events)):
            if mismatch(want, events[i]) is None:
                pos = i + 1
                break
        else:
            earlier = any(mismatch(want, e) is None for e in events[:pos])
            note = " (it occurs, but before the previous expected event)" if earlier else ""
            return (f"expected event #{n} {_show(_denull(want))} was not found{note}; the events were:\n"
                    + _event_lines(events))
    return None


# --- running -------------------------------------------------------------------------------

@dataclass
class Outcome:
    """What a scenario run produced, for tests that want to look further."""

    scenario: Scenario
    seed: str
    state: dict
    events: list[dict]  # start events (set-up and the settle after the position), then each step's


def _merge(target: dict, over: dict, where: str, replace: set[str]) -> None:
    known = set(target)  # a table that starts empty (e.g. a god's nations) takes any keys
    for k, v in over.items():
        here = f"{where}.{k}"
        if known and k not in known:
            raise ScenarioError(
                f"{here} is not in the game's state (known there: {', '.join(sorted(map(str, known)))})"
            )
        if isinstance(v, dict) and isinstance(target.get(k), dict) and here not in replace:
            _merge(target[k], v, here, replace)
        else:
            target[k] = _denull(copy.deepcopy(v))


def _scripts(step: dict) -> dict[str, Script] | None:
    """The step's submissions: player -> Script; {} for an NMR step; None for a check-only step."""
    if step.get("nmr"):
        return {}
    if "orders" not in step:
        return None
    orders = step["orders"]
    if isinstance(orders, dict):
        return {p: _script(lines) for p, lines in orders.items()}
    return {step["player"]: _script(orders)}


def _script(lines: list[str] | str) -> Script:
    text = lines if isinstance(lines, str) else "\n".join(lines)
    return read_script(text)


class _Runner:
    def __init__(self, sc: Scenario, seed: str):
        self.sc, self.seed = sc, seed
        try:
            self.rules = get_rules(sc.game)
        except Exception as err:
            raise ScenarioError(f"{sc.path}: {err}") from err
        self.where = f"{sc.name}" + (f" [seed {seed}]" if len(sc.seeds) > 1 else "")

    def fail(self, at: str, message: str) -> ScenarioFailure:
        return ScenarioFailure(f"{self.where}\n  {at}: {message}")

    def guarded(self, at: str, fn, *args, **kw):
        try:
            return fn(*args, **kw)
        except ScenarioError as err:  # e.g. a scripted die out of range
            raise ScenarioError(f"{self.where}\n  {at}: {err}") from err
        except ScenarioFailure as err:  # e.g. the dice script ran out
            raise self.fail(at, str(err)) from err
        except Exception as err:  # the engine broke: say where, keep the traceback
            raise self.fail(at, f"the engine raised {type(err).__name__}: {err}") from err

    def position(self, state: dict) -> None:
        data = self.sc.data
        replace = {f"position.{k}" for k in data.get("replace", ["board"])}
        pos = data.get("position", {})
        try:
            _merge(state["game"], pos, "position", replace)
            _merge(state["flow"], data.get("flow", {}), "flow", set())
        except ScenarioError as err:
            raise ScenarioError(f"{self.sc.path}: {err}") from err
        turn = pos.get("turn", {})
        if isinstance(turn, dict) and "player" in turn and "active" not in data.get("flow", {}):
            player = turn["player"]
            if player not in self.sc.players:
                raise ScenarioError(f"{self.sc.path}: position.turn.player '{player}' is not one of {self.sc.players}")
            state["flow"]["active"] = [player]
            state["flow"]["prompt"] = f"{player}: to act (scenario position)"

    def run(self) -> Outcome:
        sc, rules = self.sc, self.rules
        data = sc.data
        state, events = self.guarded(
            "set-up", engine.start, rules, sc.players, {k: str(v) for k, v in data.get("options", {}).items()}, self.seed
        )
        scripted = data.get("random", "scripted") == "scripted"
        rng = ScriptedRng(data.get("dice"), data.get("randoms")) if scripted else None
        if "position" in data or "flow" in data:
            self.position(state)
        settle_rng = rng if rng is not None else phase_rng(self.seed, state["flow"]["number"])
        events = events + self.guarded("settling the position", engine.settle, rules, state, settle_rng)
        all_events = list(events)
        if data.get("expect_start_event"):
            problem = match_events(data["expect_start_event"], events)
            if problem:
                raise self.fail("set-up and position", problem)
        for i, step in enumerate(sc.steps, 1):
            at = f"step {i}" + (f" ({step['player']})" if "player" in step else "")
            state, step_events = self.step(at, step, state, rng)
            all_events += step_events
        self.check_expect("after the last step", data.get("expect"), state)
        if rng is not None and rng.leftover():
            raise self.fail("after the last step", f"scripted draws were never used: {rng.leftover()}")
        return Outcome(sc, self.seed, state, all_events)

    def step(self, at: str, step: dict, state: dict, rng: Rng | None) -> tuple[dict, list[dict]]:
        rules = self.rules
        orders = step.get("orders", [])
        order_lines = orders.get(step.get("player"), []) if isinstance(orders, dict) else orders
        if isinstance(order_lines, str):
            order_lines = order_lines.splitlines()
        for entry in step.get("expect_rejected", []):
            self.check_rejected(at, entry, state, step["player"], list(order_lines))
        for entry in step.get("expect_conditional", []):
            self.check_conditional(at, entry, state, step["player"], list(order_lines))
        scripts = _scripts(step)
        if scripts is None:  # a check-only step
            if step.get("expect_event") or step.get("expect_line"):
                raise ScenarioError(f"{self.sc.path}: {at}: expects events or lines, but gives no `orders` (or `nmr`)")
            self.check_position(at, step, state)
            return state, []
        asked = engine.active_players(rules, state)
        for p in scripts:
            if p not in asked:
                raise self.fail(at, f"{p} gives orders, but the engine awaits {', '.join(asked) or 'nobody (the game is over)'}")
        covered = self.covered(at, step, scripts)
        self.check_submission(at, state, scripts, covered)
        res = self.guarded(at, engine.resolve, rules, state, scripts, self.seed, rng=rng)
        self.check_lines(at, step, res, covered)
        self.check_events(at, step, res.events)
        self.check_position(at, step, res.state)
        return res.state, res.events

    def check_submission(self, at: str, state: dict, scripts: dict[str, Script], covered: set) -> None:
        """Every line is accepted when submitted, unless the step expects otherwise."""
        for p, script in scripts.items():
            acks = self.guarded(f"{at}, checking the orders", engine.check_script, self.rules, state, p, script)
            for r in acks:
                if r.status == "rejected" and (p, r.number) not in covered:
                    raise self.fail(at, f"{p}'s line {r.number} was rejected at submission (list it in expect_line "
                                        f"if that is intended):\n    {r.reason}")

    def check_lines(self, at: str, step: dict, res, covered: set) -> None:
        """Every line was executed, unless `expect_line` says what became of it."""
        for p, results in res.lines.items():
            for r in results:
                if r.status != "executed" and (p, r.number) not in covered:
                    raise self.fail(at, f"{p}'s line {r.number} '{r.text}' was {r.status}, not executed: {r.reason}")
        for entry in step.get("expect_line", []):
            p = entry.get("player", step.get("player"))
            r = self.find_line(at, res.lines.get(p, []), entry, p)
            status = entry.get("status", "executed")
            if r.status != status:
                raise self.fail(at, f"{p}'s line {r.number} '{r.text}': expected {status}, found {r.status}"
                                    + (f" ({r.reason})" if r.reason else ""))
            if "reason" in entry and entry["reason"] not in r.reason:
                raise self.fail(at, f"{p}'s line {r.number} '{r.text}': expected a reason containing "
                                    f"{entry['reason']!r}, found {r.reason!r}")

    def check_events(self, at: str, step: dict, events: list[dict]) -> None:
        """`expect_event` in order; nothing like `expect_no_event`."""
        if step.get("expect_event"):
            problem = match_events(step["expect_event"], events)
            if problem:
                raise self.fail(at, problem)
        for unwanted in step.get("expect_no_event", []):
            hits = [e for e in events if mismatch(unwanted, e) is None]
            if hits:
                raise self.fail(at, f"expected no event like {_show(_denull(unwanted))}, found {_show(hits[0])}; "
                                    "the events were:\n" + _event_lines(events))

    def check_position(self, at: str, step: dict, state: dict) -> None:
        self.check_expect(f"after {at}", step.get("expect"), state)

    def check_expect(self, at: str, expect: dict | None, state: dict) -> None:
        if not expect:
            return
        try:
            problems = _Position(self.rules, state, self.sc.players).check(expect)
        except ScenarioError as err:  # a path that names nothing the runner knows
            raise ScenarioError(f"{self.where}\n  {at}: {err}") from err
        if problems:
            raise self.fail(at, "\n    ".join(problems))

    def covered(self, at: str, step: dict, scripts: dict[str, Script]) -> set[tuple[str, int]]:
        out = set()
        for entry in step.get("expect_line", []):
            p = entry.get("player", step.get("player"))
            if p not in scripts:
                raise ScenarioError(f"{self.sc.path}: {at}: expect_line names {p}, who gives no orders in this step")
            lines = scripts[p].lines
            if "line" in entry:
                out.add((p, int(entry["line"])))
            else:
                hits = [ln.number for ln in lines if ln.text.strip() == entry["text"].strip()]
                if not hits:
                    raise ScenarioError(f"{self.sc.path}: {at}: expect_line text {entry['text']!r} is not one of {p}'s orders")
                out.add((p, hits[0]))
        return out

    def find_line(self, at: str, results, entry: dict, player: str):
        for r in results:
            if ("line" in entry and r.number == int(entry["line"])) or (
                "text" in entry and r.text.strip() == entry["text"].strip()
            ):
                return r
        raise self.fail(at, f"{player} has no line {entry.get('line', entry.get('text'))!r} in the resolution "
                            f"(lines: {[(r.number, r.text, r.status) for r in results]})")

    def check_rejected(self, at: str, entry: dict, state: dict, player: str, lines: list[str]) -> None:
        """`order` must be rejected by check_script after the step's first `after` lines."""
        after = int(entry.get("after", 0))
        if after > len(lines):
            raise ScenarioError(f"{self.sc.path}: {at}: expect_rejected after = {after}, but the step has {len(lines)} order(s)")
        script = _script(lines[:after] + [entry["order"]])
        acks = self.guarded(f"{at}, checking {entry['order']!r}", engine.check_script, self.rules, state, player, script)
        for r in acks[:-1]:
            if r.status != "accepted":
                raise self.fail(at, f"checking {entry['order']!r}: the preceding line {r.text!r} was itself "
                                    f"{r.status}: {r.reason}")
        last = acks[-1]
        if last.status != "rejected":
            raise self.fail(at, f"expected {entry['order']!r} to be rejected ({entry['reason']!r}), "
                                f"but it was {last.status} as '{last.order}'")
        if entry["reason"] not in last.reason:
            raise self.fail(at, f"{entry['order']!r} was rejected, but not for the expected reason:\n"
                                f"    expected a reason containing {entry['reason']!r}\n"
                                f"    found: {last.reason}")
        lacks = entry.get("lacks", [])
        for words in [lacks] if isinstance(lacks, str) else lacks:
            if words in last.reason:
                raise self.fail(at, f"{entry['order']!r} was rejected for a reason that says what it must not:\n"
                                    f"    expected no {words!r}\n"
                                    f"    found: {last.reason}")


    def check_conditional(self, at: str, entry: dict, state: dict, player: str, lines: list[str]) -> None:
        """`order`, after the step's first `after` lines, is accepted 'if the dice allow': legal in
        some outcome of the dice or hidden cards before it, not in every one."""
        after = int(entry.get("after", 0))
        if after > len(lines):
            raise ScenarioError(f"{self.sc.path}: {at}: expect_conditional after = {after}, but the step has {len(lines)} order(s)")
        script = _script(lines[:after] + [entry["order"]])
        acks = self.guarded(f"{at}, checking {entry['order']!r}", engine.check_script, self.rules, state, player, script)
        last = acks[-1]
        if last.status != "accepted" or "depends on earlier dice" not in (last.reason or ""):
            raise self.fail(at, f"expected {entry['order']!r} to be accepted 'if the dice allow', but it was "
                                f"{last.status}" + (f": {last.reason}" if last.reason else " outright"))


def run(source: str | Path | Scenario) -> list[Outcome]:
    """Run a scenario (once per seed). Raises ScenarioFailure (an AssertionError) with a
    readable message if the engine does not do what it expects, ScenarioError if the file
    is malformed."""
    sc = source if isinstance(source, Scenario) else load(source)
    return [_Runner(sc, seed).run() for seed in sc.seeds]


def main(argv: list[str] | None = None) -> int:
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or discover()
    failed = 0
    for path in paths:
        try:
            outs = run(path)
            print(f"ok    {path}  ({outs[0].scenario.title})")
        except (ScenarioFailure, ScenarioError) as err:
            failed += 1
            print(f"FAIL  {err}")
    print(f"{len(paths) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
