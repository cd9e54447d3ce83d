"""Reactions asked live (the game option `reactions=ask`): Abjuration, Resurrection, and the
attacker's decision to retreat after a battle round.

With the default (`reactions=standing`) a player who is not on turn reacts by his standing
orders (cards.negated, miracles.standing_resurrections). With `reactions=ask` the turn stops
at the moment of the reaction and the reacting player alone is asked, with the host's short
reaction deadline; no answer by then, his standing order decides (`default_answer`).

Who is asked is decided on public facts only -- he is still in, his hand is not empty, and
not every copy of the card lies face up in the discard pile (and, for Resurrection, counters
of his were destroyed this turn in a hex it could bring back) -- so being asked tells nobody
whether he holds the card. `play CARD` without the card is a pass; only he is told.

The player on turn is never asked about a card: his script is running, so his own reactions in his
turn (an Abjuration against an Abjuration of his card) stay his standing orders.

The attacker is the one player on turn who is asked live: after a battle round that leaves
him armies and the defender counters, unless his `retreat K` already ended the battle, he
answers `fight on` or `retreat` (kind "battle", the battle under question in `battle`; see
battle.fight). His later lines wait: the phase of the question and the one of his answer
end his submission there (`game.held`, the flow number: rules.requests), and he is asked
again for the rest of his turn. No answer: his `retreat K` decides the rest of the battle.

The moment in progress is `game.asking` (present only while one is open):
  who    the player asked now (None between questions)
  kind   "abjuration" or "resurrection": what he is asked about
  stack  the cards under question, innermost last: {card, caster, queue} (queue: the players
         still to be asked about that card, in turn order); an Abjuration played pushes one
  area   the hexes of the card under question (for `abjure ... on my hexes`)
  play   the card at the bottom of the stack, whose effect waits: {player, card, args}
  res    the players still to be asked about Resurrection at the end of the Battle phase
  then   what the player on turn was doing when the turn stopped (an order of a later phase
         that moved the turn past the Battle phase, or the end of the turn), done afterwards
"""

from __future__ import annotations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .battle import end as battle_end
from .battle import fight
from .board import land_keys, total
from .cards import abjure_matches, after_in_order


def asks(g: dict) -> bool:
    return g.get("reactions") == "ask"


def moment(g: dict) -> dict:
    """The moment in progress, opened if none is."""
    if "asking" not in g:
        g["asking"] = {"who": None, "kind": None, "stack": [], "area": [], "play": None, "res": [], "then": None}
    return g["asking"]


def may_hold(g: dict, q: str, card: str, copies: int) -> bool:
    """Whether `q` may hold `card`, as everybody can tell: in, cards in hand, a copy unseen."""
    return q not in g["out"] and bool(g["hands"][q]) and g["discard"].count(card) < copies


def begin_abjure(g: dict, caster: str, card: str, args: tuple, area: list[str]) -> None:
    """A card is played: the players after its player are to be asked about it, in turn order."""
    a = moment(g)
    a["stack"] = [{"card": card, "caster": caster, "queue": after_in_order(g, caster)}]
    a["area"] = list(area)
    a["play"] = {"player": caster, "card": card, "args": list(args)}


def begin_resurrections(g: dict) -> None:
    """The end of the Battle phase: the other players are to be asked about Resurrection."""
    moment(g)["res"] = after_in_order(g, g["turn"]["player"])


def restorable_for(g: dict, q: str) -> list[str]:
    """The hexes where a Resurrection would bring back counters of q's, most lost first."""
    from .miracles import restorable
    keys = [k for k in land_keys(g) if restorable(g, k) == q]
    lost = {k: sum(g["turn"]["destroyed"][k][q].values()) for k in keys}
    return sorted(keys, key=lambda k: -lost[k])


def _abjure(g: dict, q: str, top: dict) -> list[Event]:
    """q plays an Abjuration against the card on top: it is now the card under question."""
    g["hands"][q].remove("abjuration")
    g["discard"].append("abjuration")
    g["asking"]["stack"].append({"card": "abjuration", "caster": q, "queue": after_in_order(g, q)})
    return [{"type": "abjure", "player": q, "card": top["card"], "against": top["caster"]}]


def proceed(tab, g: dict, rng: Rng, copies: int, effect) -> tuple[list[Event], str | None]:
    """Go on with the moment until a player must be asked (returned) or it is over (None).
    `effect(player, card, args, area)` carries out a card that stood."""
    a = g["asking"]
    cur = g["turn"]["player"]
    events: list[Event] = []
    for _ in range(1000):
        stack = a["stack"]
        if stack:
            top = stack[-1]
            if top["queue"]:
                q = top["queue"].pop(0)
                if q in g["out"]:
                    continue
                if q != cur and may_hold(g, q, "abjuration", copies):
                    a["who"], a["kind"] = q, "abjuration"
                    return events, q
                # the player on turn (or one who certainly holds none): his standing order
                if "abjuration" in g["hands"][q] and abjure_matches(g, q, top["card"], a["area"]):
                    events += _abjure(g, q, top)
                continue
            stood = stack.pop()  # nobody negated it: it stands
            if stack:
                parent = stack.pop()  # ... and negates the card it was played against
                events.append({"type": "negated", "card": parent["card"], "player": parent["caster"],
                               "by": stood["caster"]})
                if not stack:
                    a["play"] = None
                continue
            pl, a["play"] = a["play"], None
            if pl:
                events += effect(pl["player"], pl["card"], tuple(pl["args"]), a["area"])
            continue
        if a["res"]:
            q = a["res"][0]
            if (q not in g["out"] and may_hold(g, q, "resurrection", copies) and restorable_for(g, q)):
                a["who"], a["kind"] = q, "resurrection"
                return events, q
            a["res"].pop(0)
            continue
        return events, None
    raise RuntimeError("deity: a reaction did not settle")  # pragma: no cover - a rules bug


def question(tab, g: dict) -> tuple[Event, str]:
    """The public event and the prompt of the question now open."""
    a = g["asking"]
    q = a["who"]
    if a["kind"] == "battle":
        return battle_question(tab, g, a["battle"])
    if a["kind"] == "abjuration":
        top = a["stack"][-1]
        name = tab.cards[top["card"]]["name"]
        pl = a["play"] or {}
        at = ""
        if top["card"] != "abjuration" and pl.get("args"):
            at = " at " + pl["args"][0] + (f" -> {pl['args'][1]}" if len(pl["args"]) > 1 else "")
        what = f"{top['caster']} plays {name}{at}"
        if top["card"] == "abjuration" and len(a["stack"]) > 1:
            under = a["stack"][-2]
            what += f" against {under['caster']}'s {tab.cards[under['card']]['name']}"
        event = {"type": "reaction_asked", "player": q, "question": "abjuration", "card": top["card"],
                 "by": top["caster"], "at": a["area"][:1] if at else []}
        prompt = (f"{q}: {what}: answer `play abjuration` (negate it with an Abjuration from your hand) or "
                  f"`pass`. Without an answer by the deadline your standing abjure orders decide.")
        return event, prompt
    hexes = restorable_for(g, q)
    event = {"type": "reaction_asked", "player": q, "question": "resurrection", "by": g["turn"]["player"],
             "hexes": hexes}
    prompt = (f"{q}: the end of {g['turn']['player']}'s Battle phase -- counters of yours destroyed this turn at "
              f"{', '.join(hexes)} could be brought back: answer `play resurrection Q,R` (or `play resurrection`: "
              f"{hexes[0]}, where you lost most) or `pass`. Without an answer by the deadline your standing "
              f"`resurrect N` order decides.")
    return event, prompt


def battle_question(tab, g: dict, b: dict) -> tuple[Event, str]:
    """The attacker's question after a round: fight on or retreat. All of it is public (the
    battle's events say as much)."""
    q, left, theirs = b["player"], b["fa"] + b["fm"], total(g["land"][b["at"]])
    event = {"type": "reaction_asked", "player": q, "question": "battle", "from": b["from"], "at": b["at"],
             "defender": b["defender"], "round": b["round"], "attackers_left": left, "defenders_left": theirs}
    standing = (f"your `retreat {b['k']}` decides, round by round (you withdraw once {b['k']} or fewer are left)"
                if b["k"] else "you fight to the end (your attack has no `retreat K`)")
    prompt = (f"{q}: your battle from {b['from']} against {b['defender']} at {b['at']}, after round {b['round']}: "
              f"{left} of your attacking counters left, {theirs} of {b['defender']}'s counters at {b['at']} -- "
              f"fight on or retreat? Answer `fight on` (another round) or `retreat` (the {left} left stay at "
              f"{b['from']}); then you are asked for the rest of your turn. Without an answer by the deadline "
              f"{standing}.")
    return event, prompt


def answer_orders(g: dict, player: str) -> list[Order]:
    a = g.get("asking")
    if not a or a["who"] != player:
        return []
    if a["kind"] == "battle":
        return [Order(("fight", "on"), ("react", "fight"), frozenset({1})), Order(("retreat",), ("react", "retreat"))]
    if a["kind"] == "abjuration":
        return [Order(("play", "abjuration"), ("react", "play")), Order(("pass",), ("react", "pass"))]
    hexes = restorable_for(g, player)
    return ([Order(("play", "resurrection"), ("react", "play"))]
            + [Order(("play", "resurrection", k), ("react", "play", k)) for k in hexes]
            + [Order(("pass",), ("react", "pass"))])


def default_answer(g: dict, player: str) -> Order:
    """No answer by the deadline: what the player's standing order would do."""
    a = g["asking"]
    if a["kind"] == "battle":  # the threshold did not end the battle after this round: on, and it decides
        return Order(("fight", "on"), ("react", "standing"))
    orders = answer_orders(g, player)
    if a["kind"] == "abjuration":
        top = a["stack"][-1]
        wants = "abjuration" in g["hands"][player] and abjure_matches(g, player, top["card"], a["area"])
        return orders[0 if wants else -1]
    least = g["standing"][player]["resurrect"]
    hexes = restorable_for(g, player)
    if least and "resurrection" in g["hands"][player] and hexes:
        best = hexes[0]
        if sum(g["turn"]["destroyed"][best][player].values()) >= least:
            return next(o for o in orders if o.payload == ("react", "play", best))
    return orders[-1]


def answer(tab, g: dict, player: str, payload: tuple, rng: Rng) -> list[Event]:
    """The asked player's answer. `play` without the card is a pass, and only he is told."""
    from .miracles import play
    a = g["asking"]
    kind = a["kind"]
    a["who"], a["kind"] = None, None
    events: list[Event] = []
    choice = payload[1]
    if kind == "abjuration":
        if choice == "play" and "abjuration" in g["hands"][player]:
            return _abjure(g, player, a["stack"][-1])
        if choice == "play":
            events.append({"type": "no_card", "player": player, "card": "abjuration", "to": player})
        return events
    if choice == "play" and "resurrection" in g["hands"][player]:
        k = payload[2] if len(payload) > 2 else restorable_for(g, player)[0]
        return play(tab, g, player, "resurrection", (k,), rng, reaction=True)
    if choice == "play":
        events.append({"type": "no_card", "player": player, "card": "resurrection", "to": player})
    a["res"].pop(0)
    return events


def battle_answer(tab, g: dict, player: str, payload: tuple, rng: Rng) -> list[Event]:
    """The attacker's answer: a round more (maybe asked again after it), the retreat, or (no
    answer by the deadline) his `retreat K` deciding the rest of the battle, unasked."""
    b = g.pop("asking")["battle"]
    choice = payload[1]
    if choice == "retreat":
        return battle_end(g, b, "retreat")
    events: list[Event] = []
    if choice == "standing":
        b["ask"] = False
        events.append({"type": "battle_standing", "player": player, "from": b["from"], "at": b["at"],
                       "retreat": b["k"]})
    return events + fight(tab, g, b, rng)


def then_of(order: Order) -> dict:
    return {"do": "order", "tokens": list(order.tokens), "payload": list(order.payload)}
