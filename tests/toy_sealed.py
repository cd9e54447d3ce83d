"""A toy game for the engine's tests: a sealed-bid auction for 2-4 players.

GODS needs only sequential turns; this module shows that the engine core does not assume
them. Every round:

1. *Income* (automatic, done eagerly in `advance`): every player takes `income` coins.
2. *Bidding* (a simultaneous sealed phase): every player is asked at once (flow.sealed is
   True, flow.active is every player, and the set empties as each bids). A player may bid
   0 up to the coins they hold. A player with no coins has one legal order, `bid 0`, which
   the engine plays for them (a forced order: they are not asked).
3. *Reveal* (automatic, once every bid is in): all bids are shown in one event; the highest
   bid wins the round's prize and pays its bid. Ties are broken by a die roll per tied
   player (rolled again while the top roll is tied), every roll shown as an event.

Standing order: `autobid N` (or `autobid off`) can be given at any time, also while the
player is not asked. It is kept in the game state and used as the player's bid (up to the
coins they hold) whenever they send no bid. Pending bids and standing orders are seen by
their owner only.

After `rounds` rounds the player with the most prizes wins (ties: most coins left).
"""

from __future__ import annotations

from pbem.core.engine import Event, GameInfo, Rules
from pbem.core.errors import DataError
from pbem.core.flow import simultaneous
from pbem.core.orders import Grammar, Order
from pbem.core.rng import Rng

MAX_AUTOBID = 30

INFO = GameInfo(
    name="toy-sealed",
    title="Toy sealed-bid auction",
    min_players=2,
    max_players=4,
    options={
        "rounds": "number of rounds (default 3)",
        "coins": "coins each player starts with (default 2)",
        "income": "coins each player takes at the start of every round (default 2)",
    },
)

GRAMMAR = Grammar(
    verbs={
        "bid": ("int", "bid N coins for this round's prize (sealed until every bid is in)"),
        "autobid": ("amount", "standing order: bid N whenever you send no bid (`autobid off` to cancel)"),
    },
)

DEFAULTS = {"rounds": 3, "coins": 2, "income": 2}


class SealedAuction(Rules):
    info = INFO
    grammar = GRAMMAR

    def __init__(self, data: dict | None = None):
        super().__init__(dict(DEFAULTS, **(data or {})))

    # --- set-up and automation ---------------------------------------------------------
    def setup(self, players, options, rng: Rng):
        unknown = set(options) - set(DEFAULTS)
        if unknown:
            raise DataError(f"toy: unknown option(s) {', '.join(sorted(unknown))}")
        conf = {k: int(options.get(k, self.data[k])) for k in DEFAULTS}
        game = {
            "players": list(players),
            "conf": conf,
            "round": 0,
            "stage": "income",
            "coins": {p: conf["coins"] for p in players},
            "prizes": {p: 0 for p in players},
            "bids": {},  # sealed: player -> amount, until the reveal
            "autobid": {p: None for p in players},  # standing orders
            "history": [],  # revealed rounds
        }
        state = {"flow": {"phase": "bid", "active": [], "sealed": True, "over": False, "prompt": ""},
                 "game": game}
        return state, [{"type": "setup", "players": list(players)}]

    def advance(self, state: dict, rng: Rng) -> list[Event]:
        """Income and the reveal need no decision: do them at once."""
        g = state["game"]
        flow = state["flow"]
        events: list[Event] = []
        while not flow.get("over"):
            if g["stage"] == "income":
                if g["round"] >= g["conf"]["rounds"]:
                    events += self._finish(state)
                    break
                g["round"] += 1
                for p in g["players"]:
                    g["coins"][p] += g["conf"]["income"]
                events.append({"type": "income", "round": g["round"], "amount": g["conf"]["income"],
                               "coins": dict(g["coins"])})
                g["stage"] = "bid"
                flow.update(phase="bid", sealed=True, active=simultaneous(g["players"]),
                            prompt=f"round {g['round']}: send one sealed bid")
                break
            if g["stage"] == "bid" and not flow["active"]:
                events += self._reveal(state, rng)
                g["stage"] = "income"
                continue
            break
        return events

    def _reveal(self, state: dict, rng: Rng) -> list[Event]:
        g = state["game"]
        bids = {p: g["bids"][p] for p in g["players"]}
        events: list[Event] = [{"type": "reveal", "round": g["round"], "bids": dict(bids)}]
        top = max(bids.values())
        tied = [p for p in g["players"] if bids[p] == top]
        while len(tied) > 1:
            rolls = {p: rng.die() for p in tied}
            events.append({"type": "roll", "what": "tie-break", "rolls": rolls})
            best = max(rolls.values())
            tied = [p for p in tied if rolls[p] == best]
        winner = tied[0]
        g["coins"][winner] -= bids[winner]
        g["prizes"][winner] += 1
        g["history"].append({"round": g["round"], "bids": bids, "winner": winner})
        g["bids"] = {}
        events.append({"type": "won", "round": g["round"], "player": winner, "paid": bids[winner]})
        return events

    def _finish(self, state: dict) -> list[Event]:
        g = state["game"]
        best = max((g["prizes"][p], g["coins"][p]) for p in g["players"])
        winners = [p for p in g["players"] if (g["prizes"][p], g["coins"][p]) == best]
        state["flow"].update(over=True, active=[], prompt="")
        state["flow"]["outcome"] = {"winners": winners, "scores": self.scores(state)}
        return [{"type": "game_over", "winners": winners}]

    # --- orders --------------------------------------------------------------------------
    def legal_orders(self, state, player):
        g = state["game"]
        if state["flow"].get("over") or player not in state["flow"]["active"]:
            return []
        return [Order(("bid", str(n)), ("bid", n)) for n in range(g["coins"][player] + 1)]

    def standing_orders(self, state, player):
        if state["flow"].get("over") or player not in state["game"]["players"]:
            return []
        out = [Order(("autobid", str(n)), ("autobid", n)) for n in range(MAX_AUTOBID + 1)]
        return out + [Order(("autobid", "off"), ("autobid", None))]

    def apply(self, state, player, order, rng):
        g = state["game"]
        verb, amount = order.payload
        if verb == "autobid":
            g["autobid"][player] = amount
            return [{"type": "autobid", "player": player, "amount": amount, "to": player}]
        if amount > g["coins"][player] or player in g["bids"]:
            raise ValueError(f"{player} cannot bid {amount}")  # legal_orders prevents this
        g["bids"][player] = amount
        state["flow"]["active"] = [p for p in state["flow"]["active"] if p != player]
        return [{"type": "bid_in", "player": player}]  # that a bid is in is public, not how much

    def default_order(self, state, player):
        g = state["game"]
        standing = g["autobid"][player]
        amount = 0 if standing is None else min(standing, g["coins"][player])
        return Order(("bid", str(amount)), ("bid", amount))

    def why_illegal(self, state, player, typed):
        g = state["game"]
        if typed[0] == "bid" and len(typed) == 2 and typed[1].isdigit():
            if player in g["bids"]:
                return "you have already bid this round"
            if int(typed[1]) > g["coins"][player]:
                return f"you have only {g['coins'][player]} coins"
        if typed[0] == "autobid":
            return f"autobid takes a number from 0 to {MAX_AUTOBID}, or 'off'"
        return None

    def bot_choice(self, state, player, legal, rng):
        return rng.choice(legal)

    # --- views and result ----------------------------------------------------------------
    def view(self, state, player):
        g = state["game"]
        out = {
            "round": g["round"],
            "rounds": g["conf"]["rounds"],
            "coins": dict(g["coins"]),
            "prizes": dict(g["prizes"]),
            "bid_in": sorted(g["bids"]),  # who has bid, never how much
            "history": [dict(h) for h in g["history"]],
        }
        if player is not None:
            out["you"] = player
            out["your_bid"] = g["bids"].get(player)
            out["your_autobid"] = g["autobid"][player]
        return out

    def scores(self, state):
        return dict(state["game"]["prizes"])


RULES = SealedAuction
