"""The engine: advance a game until some player must decide, ask exactly those players, wait.

Everything here is pure: a game's state is plain JSON data, `Rules` functions take a state and
an Rng and return events; no I/O, no clock. The state keeps flow data (which phase, who is
active) apart from game data:

    state = {"flow": {"number": 7, "phase": "turn", "active": ["ra"], "sealed": False,
                      "over": False},
             "game": {...}}

A *request* is one player asked to decide in the current phase. One request is a sequential
turn; several sealed requests answered together are a simultaneous phase. A reaction owed by a
player who is not asked is a *standing order*: an order legal for that player even while not
active, kept in the game state until changed. A game may instead ask a reaction live (an
option such as Oh Gods!'s `reactions=ask`): an order stops the phase, the rules ask the
reacting player alone and mark the flow `"pace": "reaction"` (the host gives that phase its
shorter `reaction_deadline`); the acting player's later lines end "unused" (checked: accepted,
depending on another player's answer), and the rules ask them again afterwards.

Two optional hooks serve games whose orders do not fit an enumerated list or whose one
submission covers several turns (both default to the behaviour without them):

* **Parsed orders** (`Grammar.parsed`, `Rules.parse`). A verb listed in `grammar.parsed`
  takes free-form arguments -- a path `a -> b -> c`, a list of units, an amount in the
  hundreds -- that no list of legal orders could enumerate. A line with such a verb is not
  matched against `legal_orders`: `Rules.parse(state, player, tokens)` gets the canonical
  verb and the typed argument tokens and returns the Order (its payload what `apply`
  executes), or raises InvalidOrderError/IllegalOrderError with the reason (the line is
  quoted in front of it), or returns None to match the enumerated legal orders as usual.
  `legal_orders` still lists some representative orders of those verbs (the report's order
  form and the bots draw from it); each must parse back to itself. A parsed order given by
  a player who is not asked counts as a standing order (private).
* **Steps** (`Rules.step_of`). A game that overrides `step_of(state, order)` has each
  submission executed in rounds: `resolve` (and `check_script`, for one player) runs every
  asked player's lines of step 0, in request order, then every player's lines of step 1,
  and so on -- one submission per player for a whole phase, executed turn by turn in
  player order (all placements, then all recruiting, ...). `order` is the line as written
  (canonical verb, typed arguments; not yet checked); `step_of` returns the line's step, or
  None to run it with the line before it (an order allowed at any time). A player's lines
  of one step keep their written order; each line is judged when its round comes and
  skipped with the reason if it is no longer legal. Default orders of players still asked
  follow after the last round. Line results are reported in line order.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from dataclasses import dataclass, field
from typing import Any

from pbem.core.errors import IllegalOrderError, OrderError, PbemError
from pbem.core.orders import (
    Grammar,
    Line,
    Order,
    Script,
    _is_exact_kind,
    line_order,
    match_order,
    trailing_prose,
)
from pbem.core.rng import Rng, phase_rng

Event = dict[str, Any]


def visible_to(event: Event, player: str | None) -> bool:
    """Whether `player` (None: the public) may see `event`. An event's "to" makes it private:
    a player's name (only that player sees it) or a list of players (engine G5: a gift seen by
    giver and receiver, a covenant's news to its controllers; every one listed sees it, and
    nobody else). An event without "to" is public."""
    if "to" not in event:
        return True
    to = event["to"]
    if isinstance(to, (list, tuple)):
        return player is not None and player in to
    return to == player


def recipients(event: Event) -> list[str] | None:
    """The players a private event is addressed to (a list), or None for a public one."""
    if "to" not in event:
        return None
    to = event["to"]
    return list(to) if isinstance(to, (list, tuple)) else [to]


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, str] = field(default_factory=dict)  # option -> help (with default)


@dataclass(frozen=True)
class Request:
    player: str
    phase: str
    prompt: str
    sealed: bool = False


class Rules:
    """The interface every game module implements (one file a game, same shape every time)."""

    info: GameInfo
    grammar: Grammar
    # Public events that belong in a turn's one-line history beside its public orders: the
    # announced part of an order that is itself hidden (Oh Gods!: the element of a set formed
    # face-down). Default: none.
    history_events: tuple[str, ...] = ()

    def __init__(self, data: dict):
        self.data = data

    # --- set-up and flow -------------------------------------------------------------
    def setup(self, players: list[str], options: dict[str, str], rng: Rng) -> tuple[dict, list[Event]]:
        raise NotImplementedError

    def advance(self, state: dict, rng: Rng) -> list[Event]:
        """Eager automation: do everything that needs no decision. Default: nothing."""
        return []

    def requests(self, state: dict) -> list[Request]:
        flow = state["flow"]
        if flow.get("over"):
            return []
        return [
            Request(p, flow["phase"], flow.get("prompt", ""), flow.get("sealed", False))
            for p in flow["active"]
        ]

    def asks_live(self, options: dict[str, str]) -> bool:
        """Whether a game set up with these options ever asks a player a reaction live (a
        phase whose flow `pace` is "reaction", which the host gives the game's shorter
        `reaction_deadline`). Default: never (the host then refuses that option)."""
        return False

    # --- orders ----------------------------------------------------------------------
    def legal_orders(self, state: dict, player: str) -> list[Order]:
        """Every order `player` may give now: the single source of truth for legality."""
        raise NotImplementedError

    def forced_order(self, state: dict, player: str) -> Order | None:
        """The one order `player` may give now when exactly one is legal (a forced order),
        else None. Default: from `legal_orders`; a game whose legal list is long may stop
        counting at the second legal order (issue 17: `settle` asks after every order)."""
        legal = self.legal_orders(state, player)
        return legal[0] if len(legal) == 1 else None

    def bot_orders(self, state: dict, player: str):
        """The legal orders as a bot chooses among them: `legal_orders`, or any sequence equal
        to it (len and indexing suffice: a long list may be built lazily). Issue 17."""
        return self.legal_orders(state, player)

    def order_groups(self, state: dict, player: str, per_verb: int) -> list[tuple[str, list[str], int]]:
        """The order form's summary of `legal_orders`: per verb, in the order its first order
        comes in that list, the texts of its first `per_verb` orders and how many it has.
        Default: from `legal_orders`; a game whose list is long may count instead of listing
        (issue 17: every report of a player asked has an order form)."""
        groups: dict[str, tuple[list[str], list[int]]] = {}
        for order in self.legal_orders(state, player):
            texts, count = groups.setdefault(order.verb, ([], [0]))
            if count[0] < per_verb:
                texts.append(order.text)
            count[0] += 1
        return [(verb, texts, count[0]) for verb, (texts, count) in groups.items()]

    def legal_orders_matching(self, state: dict, player: str, verb: str, exact: frozenset) -> list[Order] | None:
        """Optional (issue 17): the legal orders of `verb` whose tokens hold every number and
        coordinate in `exact` (what a typed line gives exactly; no other order can match it),
        or any list holding at least those, from `legal_orders`. None (the default): the
        line is matched against the whole list."""
        return None

    def standing_orders(self, state: dict, player: str) -> list[Order]:
        """Orders a player may give while not active (standing orders). Default: none."""
        return []

    def apply(self, state: dict, player: str, order: Order, rng: Rng) -> list[Event]:
        raise NotImplementedError

    def default_order(self, state: dict, player: str) -> Order:
        """What a player who gives no (more) orders does: the game's pass/hold."""
        raise NotImplementedError

    def why_illegal(self, state: dict, player: str, typed: list[str]) -> str | None:
        return None

    def parse(self, state: dict, player: str, tokens: list[str]) -> Order | None:
        """A line whose verb is in `grammar.parsed`: `tokens` is the canonical verb and the
        typed arguments. Return the Order, raise InvalidOrderError/IllegalOrderError with
        the reason, or return None to match it against the legal orders. Default: None."""
        return None

    def step_of(self, state: dict, order: Order) -> int | None:
        """The step (round) of a phase in which a line runs (see the module docstring);
        None: with the line before it. A game that does not override it runs each
        submission whole, player after player."""
        return 0

    def private_order(self, state: dict, player: str, order: Order) -> bool:
        """Whether the fact that `player` gave `order` is hidden from the others (e.g. a
        face-down discard). Standing orders are always private."""
        return False

    def add_player(self, state: dict, player: str) -> list[Event]:
        """A new seat joins a running game (the GM's `pbem join`): give `player` a place in
        `state` (changed in place) and return the events. Default: refused -- most games
        are for the players they started with. Faith lets a new god join in the Negotiation
        phase (L348)."""
        raise PbemError(f"{self.info.title} takes no new players once it has begun")

    def condition(self, state: dict, player: str, order: Order) -> str | None:
        """The condition an accepted line still depends on at resolution, outside the player's
        hands: a two-sided deal takes effect "if the other side matches" (Faith's `trade`,
        `accept`), which the check cannot know (the other side's lines are sealed); Faith's
        victory claim is decided by the count once the turn's orders are in. The acknowledgement
        shows it as said here ("accepted, <condition>  <order>"), never as "if the dice allow",
        which is for chance alone (hedged()). Default: None (unconditional)."""
        return None

    def idle_reason(self, state: dict, player: str, reason: str) -> str | None:
        """A line of `player`, who is not asked now, failed for `reason` (the line's quote cut
        off). The reason to give instead, when the game knows why this player can give no
        order now and it is not just that it is not her turn (Faith: every belief of hers is
        in limbo); the engine then gives it alone, without its "(it is not your turn; ...)".
        Default: None (the engine's reasons)."""
        return None

    def answer_in_check(self, state: dict, rng: Rng) -> str | None:
        """While a submission is checked (check_script), an order before the line checked has
        stopped the phase to ask another player live (the flow's `pace` is "reaction"): play
        one answer that player could give, in the check's copy `state` (its preview_state, so
        it knows no more than the player checking), picked with `rng` so that the check's
        outcomes meet every answer (`rng.world` numbers them), and return words naming it
        ("if bob blocks the steal"). The later lines are then checked in what follows: a line
        no answer makes legal is rejected with its reason, one some answers allow is accepted
        as depending on the answer, and those words say which. They are still not run at
        resolution (the player is asked again once the answer is in). Default: None -- the
        game plays no answers in a check, and the later lines are accepted, unchecked, as
        depending on the answer."""
        return None

    def preview_state(self, state: dict, player: str) -> dict:
        """The position a submission is checked against (a copy the rules may change in place):
        a game with hidden cards replaces what `player` may not see (other hands, the deck
        order) so the acknowledgement cannot reveal it; a rule that then meets a hidden card
        draws from the check's Rng, so later lines are accepted 'if the dice allow', like
        after a die. Default: the position as it is."""
        return state

    def bot_choice(self, state: dict, player: str, legal: list[Order], rng) -> Order:
        """The order a bot seat picks (rng is a random.Random). Default: uniformly random;
        a game may bias it so that random play-outs end."""
        return rng.choice(legal)

    # --- what players see and the result ---------------------------------------------
    def view(self, state: dict, player: str | None) -> dict:
        """All `player` may see (None: the public). Reports are rendered from views only."""
        raise NotImplementedError

    def views(self, state: dict, viewers: list[str | None]) -> list[dict]:
        """view(state, v) for each of `viewers`, in order, for one turn's reports (issue 17: a
        game whose viewers see the same may work it out once). Read only: views may share parts."""
        return [self.view(state, v) for v in viewers]

    def scores(self, state: dict) -> dict[str, int]:
        return {}

    def summary(self, view: dict) -> list[tuple[str, str]]:
        """The position as a player would note it on a score sheet: (label, text) pairs in
        plain words, from a view (so it shows only what that view may see). The HTML report
        and the site show it beside the map and the standings; no state key is shown raw."""
        return []

    def summaries(self, views: list[dict]) -> list[list[tuple[str, str]]]:
        """summary(v) for each of `views` (one turn's, from views), in order (issue 17: a game
        whose views share the parts its summary reads may work it out once). Read only."""
        return [self.summary(v) for v in views]

    def outcome(self, state: dict) -> dict | None:
        """None while the game runs; else {"winners": [...], "scores": {...}, ...}."""
        return state["flow"].get("outcome")

    def order_help(self) -> str:
        return "\n".join(f"{verb} {pat}".strip() + f"  -- {doc}" for verb, (pat, doc) in self.grammar.verbs.items())


def copy_state(state: dict) -> dict:
    """A deep copy of a state (plain data): a pickle round trip, which keeps every type and
    shared reference as copy.deepcopy does, several times faster (issue 17)."""
    return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))


def state_hash(state: dict) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def active_players(rules: Rules, state: dict) -> list[str]:
    return [r.player for r in rules.requests(state)]


def settle(rules: Rules, state: dict, rng: Rng) -> list[Event]:
    """Automate until a real decision is needed: run the game's automatic steps, and play
    any order that is the only legal one (a forced order) for the player asked."""
    events: list[Event] = []
    for _ in range(10_000):
        events += rules.advance(state, rng)
        if rules.outcome(state):
            state["flow"]["over"] = True
            state["flow"]["active"] = []
            break
        forced = False
        for req in rules.requests(state):
            order = rules.forced_order(state, req.player)
            if order is not None:
                # An answer to a sealed request stays hidden until the rules reveal it.
                private = req.sealed or rules.private_order(state, req.player, order)
                evs = rules.apply(state, req.player, order, rng)
                event = {"type": "forced", "player": req.player, "order": order.text}
                if private:
                    event["to"] = req.player
                events.append(event)
                events += evs
                forced = True
                break
        if not forced:
            break
    else:  # pragma: no cover - a rules bug, not a user error
        raise RuntimeError("settle did not reach a decision in 10000 steps")
    return events


def add_player(rules: Rules, state: dict, player: str) -> tuple[dict, list[Event]]:
    """A new seat in a running game (Rules.add_player), in a copy of `state`: (the new state,
    its events). Replays apply it at the turn it was made, before that turn's submissions."""
    state = copy_state(state)
    events = rules.add_player(state, player)
    return state, events


def start(rules: Rules, players: list[str], options: dict[str, str], seed: str) -> tuple[dict, list[Event]]:
    """Set a game up and settle it until the first decision (phase 1 opens)."""
    rng = phase_rng(seed, 0)
    state, events = rules.setup(list(players), dict(options), rng)
    state["flow"]["number"] = 1
    events += settle(rules, state, rng)
    return state, events


@dataclass
class LineResult:
    number: int
    text: str
    status: str  # accepted | rejected | ignored (prose after the orders) | executed | skipped | unused
    order: str = ""
    reason: str = ""
    error: str = ""  # a rejected line's kind: invalid (no such order), illegal (not now), ambiguous


def _narrowed(rules: Rules, state: dict, player: str, line: Line) -> list[Order] | None:
    """The legal orders a typed line could match (Rules.legal_orders_matching), or None."""
    typed = line_order(rules.grammar, line)
    if typed is None:
        return None
    exact = frozenset(t for t in typed.tokens[1:] if _is_exact_kind(t))
    return rules.legal_orders_matching(state, player, typed.verb, exact)


def _run_line(rules: Rules, state: dict, player: str, line: Line, rng: Rng,
              was_asked: bool = False) -> tuple[Order, list[Event], bool]:
    """Match one line against the legal orders now and apply it. Returns the order, its
    events, and whether it was a standing order. `was_asked`: the player was asked in this
    phase (so a line after their part of it ended is "used up", not "not your turn")."""
    active = player in active_players(rules, state)
    why = lambda typed: rules.why_illegal(state, player, typed)
    lists: dict[str, list[Order]] = {}
    if rules.grammar.parsed:
        def legal_now() -> list[Order]:  # listed only when a line is matched against them
            if "legal" not in lists:
                lists["standing"] = rules.standing_orders(state, player)
                lists["legal"] = (rules.legal_orders(state, player) if active else []) + lists["standing"]
            return lists["legal"]
        matcher = lambda: match_order(rules.grammar, legal_now, line, why,
                                      parse=lambda typed: rules.parse(state, player, typed))
    else:
        lists["standing"] = rules.standing_orders(state, player)
        narrow = _narrowed(rules, state, player, line) if active else None

        def matcher() -> Order:
            if narrow is not None:  # issue 17: only the orders the line could match...
                try:
                    found = match_order(rules.grammar, narrow + lists["standing"], line, why)
                    lists["narrow"] = narrow
                    return found
                except OrderError:
                    pass  # ...and, for a line that matches none, the whole list says why
            lists["legal"] = (rules.legal_orders(state, player) if active else []) + lists["standing"]
            return match_order(rules.grammar, lists["legal"], line, why)
    try:
        order = matcher()
    except IllegalOrderError as err:
        if state["flow"].get("over"):  # an earlier order ended the game: say so, as every game does
            raise IllegalOrderError(
                f"'{line.text}': the game is over", line.text, line.number, 1,
            ) from err
        if not active:  # a truer reason than the turn's, if the game knows one (Faith: limbo)
            quoted = f"'{line.text}': "
            idle = rules.idle_reason(state, player, err.message.removeprefix(quoted))
            if idle:
                raise IllegalOrderError(f"{quoted}{idle}", line.text, line.number, 1) from err
        if not active and not rules.standing_orders(state, player):
            if was_asked:
                raise IllegalOrderError(
                    f"'{line.text}': your part of this turn is over (the orders before it used up your actions)",
                    line.text, line.number, 1,
                ) from err
            raise IllegalOrderError(
                f"'{line.text}': it is not your turn", line.text, line.number, 1
            ) from err
        if not active:
            # tester3 finding 03: the tail "it is not your turn" only where it is the reason. A
            # standing order (Deity's `abjure`, a set-up list's later `start` lines) that fails
            # fails for its own reason, said as it is; a player asked in this phase whose part
            # of it is over (Oh Gods!' two actions used up) is told so, not that he was not asked
            typed = line_order(rules.grammar, line)
            if typed is not None and typed.verb in {o.verb for o in rules.standing_orders(state, player)}:
                raise
            if was_asked:
                raise IllegalOrderError(
                    f"'{line.text}': your part of this turn is over (the orders before it used up your actions)",
                    line.text, line.number, 1,
                ) from err
            awaited = ", ".join(active_players(rules, state)) or "nobody"
            raise IllegalOrderError(
                f"{err.message} (it is not your turn; awaiting {awaited}; only standing orders can be given now)",
                line.text, line.number, 1,
            ) from err
        raise
    if "narrow" in lists:
        is_standing = order in lists["standing"] and order not in lists["narrow"]
    elif "legal" not in lists:  # a parsed order: standing when its player is not asked
        is_standing = not active
    else:
        standing, legal = lists["standing"], lists["legal"]
        is_standing = order in standing and not (active and order in legal[: len(legal) - len(standing)])
    return order, rules.apply(state, player, order, rng), is_standing


def waiting_reason(rules: Rules, state: dict) -> str:
    """Why a line of a player asked in this phase does not run: an order before it stopped the
    phase to ask another player live (a reaction: the flow's `pace` is "reaction")."""
    awaited = ", ".join(active_players(rules, state))
    whose = f"{awaited}'s answer" if awaited else "an answer"  # none awaited: the player's own (Deity's battle)
    return (f"not run: an order before it waits for {whose} (a reaction asked live); "
            f"once it is known you are asked again for the rest of your turn, if it goes on")


def stepped(rules: Rules) -> bool:
    """Whether a game runs submissions in steps (overrides Rules.step_of)."""
    return type(rules).step_of is not Rules.step_of


def line_steps(rules: Rules, state: dict, lines: list[Line]) -> list[int]:
    """The step of each line (Rules.step_of; None: the step of the line before it)."""
    out = []
    current = 0
    for line in lines:
        order = line_order(rules.grammar, line)
        step = rules.step_of(state, order) if order is not None else None
        if step is not None:
            current = step
        out.append(current)
    return out


CHECK_WORLDS = 12       # independent dice streams (and fillings of the hidden cards) a submission is checked in
CHECK_WORLDS_MAX = 64   # ...and up to this many before a line no checked outcome allows is rejected
# The reasons of an accepted line that still hangs on chance or on an answer not yet given: the
# acknowledgement says "if the dice allow" for these only. Any other reason of an accepted line
# is a Rules.condition, shown as the rules word it.
DICE_REASON = "depends on earlier dice or hidden cards: "
ANSWER_REASON = "depends on another player's answer: "


def hedged(reason: str) -> bool:
    """Whether an accepted line's reason is chance (dice, hidden cards, an answer to come)."""
    return reason.startswith((DICE_REASON, ANSWER_REASON))


def _check_world(rules: Rules, state: dict, player: str, script: Script, rng: Rng,
                 end: list | None = None) -> list[tuple[Order | None, OrderError | None, bool, tuple | None]]:
    """One play-through of a script in a copy of the position: for each line, the order it
    matched (or the error), whether dice or hidden cards had been met by then -- before it,
    or by the line itself on the way to its step (Deity's blight roll before a later move) --
    and, for a line after an order that asked another player live, what it waits for:
    (why it is not run, the words of the answer played in this outcome or None when the game
    plays none (Rules.answer_in_check), whom the question asks)."""
    sim = rules.preview_state(copy_state(state), player)
    asked = player in active_players(rules, sim)
    order_of_run = list(range(len(script.lines)))
    if stepped(rules):  # run as at resolution: the lines of step 0 first, then step 1, ...
        steps = line_steps(rules, sim, script.lines)
        order_of_run.sort(key=lambda i: steps[i])
    out: list = [None] * len(script.lines)
    waited: tuple | None = None  # the question this outcome answered, once a line met one
    for i in order_of_run:
        line = script.lines[i]
        if asked and sim["flow"].get("pace") == "reaction" and player not in active_players(rules, sim):
            # a reaction asked live (see check_script): play an answer, if the game can, and
            # check the line in what follows
            why, whom = waiting_reason(rules, sim), ", ".join(active_players(rules, sim))
            label = rules.answer_in_check(sim, rng)
            if label is None or (sim["flow"].get("pace") == "reaction" and player not in active_players(rules, sim)):
                out[i] = (None, None, True, (why, None, whom))
                continue
            waited = (why, label, whom) if waited is None else (waited[0], f"{waited[1]} and {label}", waited[2])
        try:
            order, _, _ = _run_line(rules, sim, player, line, rng, was_asked=asked)
            out[i] = (order, None, rng.counter > 0, waited)
        except OrderError as err:
            err.line, err.text = line.number, line.text
            out[i] = (None, err, rng.counter > 0, waited)
    if end is not None:  # (defaults_after: the position the lines leave)
        end += [sim, asked, waited is not None or any(o is not None and o[3] is not None for o in out)]
    return out


MAX_DEFAULTS = 20  # the orders taken by default after a submission that `defaults_after` names at most
ENDING_VERBS = frozenset(("pass", "done", "end"))  # orders that only end a player's part of a phase


def defaults_after(rules: Rules, state: dict, player: str, script: Script,
                   seed: str = "preview") -> tuple[list[str], bool, bool] | None:
    """What resolution does for `player` once the submission's lines run out while her part
    of the phase is not over (resolve: the forced or default orders "for what they left
    open"): (the orders taken for her, in order; whether dice or hidden cards were met, so
    that what is taken may differ -- then the orders are the check's guess and not to be
    named; whether she could still give another order than one that ends her part). None when she is not asked, or a line waits for another player's answer.
    Checked in the check's first outcome (check_rng), in the preview position: it knows no
    more than the player."""
    end: list = []
    rng = check_rng(seed, 0)
    _check_world(rules, state, player, script, rng, end=end)
    sim, asked, waits = end
    if not asked or waits:
        return None
    taken: list[str] = []
    more = False
    for _ in range(MAX_DEFAULTS):
        flow = sim["flow"]
        if flow.get("over") or flow.get("pace") == "reaction" or player not in active_players(rules, sim):
            break
        forced = rules.forced_order(sim, player)
        order = forced or rules.default_order(sim, player)
        if not taken and forced is None:  # could she still do something, other than end her part?
            more = any(o.verb not in ENDING_VERBS for o in rules.legal_orders(sim, player))
        taken.append(order.text)
        try:
            rules.apply(sim, player, order, rng)
        except OrderError:  # (never at resolution; here: stop naming)
            break
    return taken, rng.counter > 0, more


def check_rng(seed: str, k: int) -> Rng:
    """The dice of outcome `k` of a submission check (see Rng.world)."""
    rng = Rng(f"check:{seed}" + (f":{k}" if k else ""), "preview")
    rng.world = k
    return rng


def check_script(rules: Rules, state: dict, player: str, script: Script, seed: str = "preview",
                 worlds_n: int = CHECK_WORLDS) -> list[LineResult]:
    """Check a submission against the current position, line by line, without changing it.
    Each line is checked in the position the previous lines lead to, as at resolution.

    Until a line rolls dice or meets a hidden card, every outcome is certain. After that, the
    script is played through in `worlds_n` independent dice streams (each with its own filling
    of the cards the player cannot see), and in up to CHECK_WORLDS_MAX before a line is given
    up: a later line illegal in all of them is rejected with its reason; legal in some but not
    all, it is accepted "if the dice allow"; legal in all, accepted. So no line is hedged that
    no dice could save, and a rare draw that allows a line is looked for before it is refused.
    `worlds_n=1` checks in one outcome only (for bot seats, whose lines come from the legal
    list): a line after dice that fails there is accepted "if the dice allow"."""
    def world(k: int) -> list:
        return _check_world(rules, state, player, script, check_rng(seed, k))

    worlds = [world(0)]
    if worlds_n > 1 and any(uncertain for _, _, uncertain, _ in worlds[0]):
        worlds += [world(k) for k in range(1, worlds_n)]
    prose = trailing_prose(rules.grammar, script)
    results = []
    for i, line in enumerate(script.lines):
        if line.number in prose:
            results.append(LineResult(line.number, line.text, "ignored", reason="not an order"))
            continue
        order, err, uncertain, _ = worlds[0][i]
        waits = [w[i][3] for w in worlds if w[i][3] is not None]
        if waits:  # an earlier line stops the phase for another player's answer (a reaction asked live)
            def more(i: int = i) -> tuple:
                worlds.append(world(len(worlds)))
                return worlds[-1][i]
            results.append(_after_answer(line, [w[i] for w in worlds], waits, more))
            continue
        if uncertain and len(worlds) > 1:
            # before rejecting a line no outcome checked so far allows, look at more outcomes:
            # a rare draw may still allow it
            while len(worlds) < CHECK_WORLDS_MAX and not any(w[i][0] is not None for w in worlds):
                worlds.append(world(len(worlds)))
        outcomes = [w[i] for w in worlds]
        legal_in = [o for o, e, _, _ in outcomes if o is not None]
        if uncertain and len(worlds) == 1 and order is None:  # checked in one outcome only (worlds_n=1)
            results.append(LineResult(line.number, line.text, "accepted", line.text,
                                      reason=f"{DICE_REASON}{err.message}"))
        elif not uncertain or len(worlds) == 1:
            if order is not None:
                results.append(LineResult(line.number, line.text, "accepted", order.text,
                                          reason=rules.condition(state, player, order) or ""))
            else:
                results.append(LineResult(line.number, line.text, "rejected", reason=err.located(), error=_kind(err)))
        elif len(legal_in) == len(outcomes):
            results.append(LineResult(line.number, line.text, "accepted", order.text,
                                      reason=rules.condition(state, player, order) or ""))
        elif legal_in:
            why = err if err is not None else next(e for o, e, _, _ in outcomes if e is not None)
            shown = order.text if order is not None else legal_in[0].text
            results.append(LineResult(line.number, line.text, "accepted", shown,
                                      reason=f"{DICE_REASON}{why.message}"))
        else:
            results.append(LineResult(line.number, line.text, "rejected", reason=err.located(), error=_kind(err)))
    return results


_HINT = re.compile(r"; (?=did you mean|legal now:|orders are:)")  # where a reason's hints begin


def _after_answer(line: Line, outcomes: list[tuple], waits: list[tuple], more) -> LineResult:
    """The result of a line after an order that asked another player live (check_script):
    it is not run at resolution -- the player is asked again once the answer is in -- but
    where the game plays the answers in the check (Rules.answer_in_check), it is judged in
    each: rejected with its reason when no answer (nor dice) makes it legal, else accepted
    as depending on the answer, naming the answers that allow it when not all do. `more()`
    checks one more outcome (a rare draw may still allow the line) and returns its entry."""
    why = waits[0][0]
    if any(label is None for _, label, _ in waits) or len(outcomes) == 1:  # answers not played (or one outcome only)
        return LineResult(line.number, line.text, "accepted", line.text, reason=f"{ANSWER_REASON}{why}")
    while len(outcomes) < CHECK_WORLDS_MAX and not any(o is not None for o, _, _, _ in outcomes):
        outcomes.append(more())
    legal = [(o, w) for o, _, _, w in outcomes if o is not None]
    if not legal:
        err = next(e for _, e, _, _ in outcomes if e is not None)
        head, hint = _HINT.split(err.message, 1) if _HINT.search(err.message) else (err.message, "")
        told = type(err)(f"{head} -- whatever {waits[0][2]} answers{'; ' + hint if hint else ''}", err.text,
                         err.line, err.column)
        return LineResult(line.number, line.text, "rejected", reason=told.located(), error=_kind(err))
    # the answers that allow it, named when not every answer does (an outcome in which no
    # question was asked -- dice before it made its order fail -- names none)
    allowed = sorted({w[1] for _, w in legal if w is not None})
    labels = {w[1] for _, _, _, w in outcomes if w is not None}
    named = allowed and set(allowed) != labels and all(w is not None for _, w in legal)
    only = f"legal only {' or '.join(allowed)}; " if named else ""
    return LineResult(line.number, line.text, "accepted", legal[0][0].text, reason=f"{ANSWER_REASON}{only}{why}")


def _kind(err: OrderError) -> str:
    return {"InvalidOrderError": "invalid", "IllegalOrderError": "illegal", "AmbiguousOrderError": "ambiguous"}.get(
        type(err).__name__, "invalid")


@dataclass
class Resolution:
    state: dict
    events: list[Event]
    lines: dict[str, list[LineResult]]
    nmr: list[str]
    defaulted: dict[str, list[str]]


def resolve(rules: Rules, state: dict, scripts: dict[str, Script | None], seed: str,
            rng: Rng | None = None) -> Resolution:
    """Resolve the current phase: standing orders of players not asked, then the scripts of
    the players asked (in request order), default orders for what they left open, then
    settle until the next decision. A player with no script at all is NMR. `rng` replaces
    the phase's stream (scenario tests pass scripted dice); by default it is
    phase_rng(seed, phase number)."""
    state = copy_state(state)
    number = state["flow"]["number"]
    if rng is None:
        rng = phase_rng(seed, number)
    events: list[Event] = []
    lines: dict[str, list[LineResult]] = {}
    defaulted: dict[str, list[str]] = {}
    asked = active_players(rules, state)
    nmr = [p for p in asked if scripts.get(p) is None]
    for p in nmr:
        events.append({"type": "nmr", "player": p})

    def run(player: str, script: Script, only: list[Line] | None = None) -> None:
        results = lines.setdefault(player, [])
        prose = trailing_prose(rules.grammar, script)
        for line in (script.lines if only is None else only):
            if line.number in prose:
                results.append(LineResult(line.number, line.text, "ignored", reason="not an order"))
                continue
            if player in asked and player not in active_players(rules, state) and state["flow"].get("pace") == "reaction":
                why = waiting_reason(rules, state)
                results.append(LineResult(line.number, line.text, "unused", reason=why))
                events.append({"type": "unused", "player": player, "line": line.number, "text": line.text,
                               "reason": why, "to": player})
                continue
            if player in asked and player not in active_players(rules, state) and not rules.standing_orders(state, player):
                why = ("the game is over (an order before it ended it)" if state["flow"].get("over")
                       else "your part of this phase was over")
                results.append(LineResult(line.number, line.text, "unused", reason=why))
                continue
            try:
                order, evs, standing = _run_line(rules, state, player, line, rng)
            except OrderError as err:
                err.line, err.text = line.number, line.text
                results.append(LineResult(line.number, line.text, "skipped", reason=err.located()))
                events.append({"type": "skipped", "player": player, "line": line.number, "text": line.text,
                               "reason": err.message, "to": player})
                continue
            results.append(LineResult(line.number, line.text, "executed", order.text))
            event = {"type": "order", "player": player, "order": order.text}
            if standing or rules.private_order(state, player, order):
                event["to"] = player
            events.append(event)
            events.extend(evs)

    bystanders = [p for p, s in scripts.items() if s is not None and p not in asked]
    for player in sorted(bystanders):
        run(player, scripts[player])  # type: ignore[arg-type]
    if stepped(rules):  # in rounds: every asked player's lines of step 0, then of step 1, ...
        plans = {}
        for player in asked:
            script = scripts.get(player)
            if script is not None:
                plans[player] = (script, line_steps(rules, state, script.lines))
        for step in sorted({s for _, steps in plans.values() for s in steps}):
            for player, (script, steps) in plans.items():
                mine = [ln for ln, s in zip(script.lines, steps) if s == step]
                if mine:
                    run(player, script, mine)
        for player in plans:
            lines.setdefault(player, []).sort(key=lambda r: r.number)
    for player in asked:
        script = scripts.get(player)
        if script is not None and not stepped(rules):
            run(player, script)
        for _ in range(1000):
            if player not in active_players(rules, state) or state["flow"].get("over"):
                break
            order = rules.forced_order(state, player) or rules.default_order(state, player)
            defaulted.setdefault(player, []).append(order.text)
            events.append({"type": "default", "player": player, "order": order.text})
            events.extend(rules.apply(state, player, order, rng))
    state["flow"]["number"] = number + 1
    events += settle(rules, state, rng)
    return Resolution(state, events, lines, nmr, defaulted)
