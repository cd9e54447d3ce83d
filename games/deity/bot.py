"""The bot: a random player that goes through its turn in order, builds, grows and fights."""

from __future__ import annotations

from pbem.core.orders import Order

from .board import geo_of
from .order_cache import PASS

TRY = {"temple": 0.9, "raise": 0.5, "disband": 0.02, "play": 0.7, "attack": 0.95, "resurrection": 0.9,
       "move": 0.8}
HARM = {"earthquake", "crumble", "tidal_wave", "volcanic_eruption", "flood", "fire", "famine", "plague",
        "chasm", "draught", "pestilence", "hurricane"}
BOON = {"prophet", "fertility", "repopulate", "sanctuary", "sacrifice"}


def decide(state: dict, player: str, gens: list[tuple[str, object]], rng) -> Order | None:
    """Try the kinds in turn order, each with its own chance; pass when none is taken."""
    if state["flow"]["phase"] != "turn" or len(gens) == 1:
        orders = [o for _, gen in gens for o in gen()]
        redraw = [o for o in orders if o.verb == "redraw"]
        if redraw and rng.random() < 0.05:
            return redraw[0]
        rest = [o for o in orders if o.verb != "redraw"]
        return rng.choice(rest or orders) if orders else None
    g = state["game"]
    keep_going = 0.9 ** g["turn"]["orders"]
    for kind, gen in gens:
        if kind == "pass" or rng.random() > TRY.get(kind, 0.5) * keep_going:
            continue
        orders = gen()
        if orders:
            pick = _pick(state, player, kind, orders, rng)
            if pick is not None:
                return pick
    return PASS


def _enemy_dist(g: dict, player: str):
    """A hex's distance to the nearest enemy counter (99 if there is none)."""
    geo = geo_of(g)
    enemy = [k for k, c in g["land"].items() if c["owner"] not in (None, player)]
    memo: dict = {}

    def near(k: str) -> int:
        if k not in memo:
            row = geo.dist[k]
            memo[k] = min((row[e] for e in enemy), default=99)
        return memo[k]
    return near


def _pick(state: dict, player: str, kind: str, orders: list[Order], rng) -> Order | None:
    g = state["game"]
    land = g["land"]
    if kind == "raise":
        near = _enemy_dist(g, player)
        front = [o for o in orders if near(o.payload[2]) <= 4]
        if not front:
            return None
        best = max(o.payload[1] for o in front)
        return rng.choice([o for o in front if o.payload[1] == best])
    if kind == "attack":
        def odds(o):
            d = land[o.payload[2]]
            dn = 2 * (d["armies"] + d["monsters"]) + (d["pop"] + 1) // 2
            return 2 * o.payload[3] - dn
        full = [o for o in orders if 4 in o.optional]
        good = [o for o in full if odds(o) >= -1]
        if good:
            return rng.choice(good)
        return rng.choice(full) if full and rng.random() < 0.2 else None
    if kind == "play":
        def fit(o):
            if len(o.payload) < 3 or o.payload[2] not in land:
                return 0
            owner = land[o.payload[2]]["owner"]
            if o.payload[1] in HARM:
                return 1 if owner not in (None, player) else -1
            if o.payload[1] in BOON:
                return 1 if owner == player else -1
            return 0
        best = max(fit(o) for o in orders)
        return rng.choice([o for o in orders if fit(o) == best])
    if kind == "move":
        armies = [o for o in orders if o.payload[2] == "armies"]
        if armies and rng.random() < 0.7:
            near = _enemy_dist(g, player)
            step = min(near(o.payload[4]) - near(o.payload[3]) for o in armies)
            if step < 0:
                best = [o for o in armies if near(o.payload[4]) - near(o.payload[3]) == step]
                most = max(o.payload[1] for o in best)
                return rng.choice([o for o in best if o.payload[1] == most])
        spread = [o for o in orders if o.payload[2] == "pop" and land[o.payload[4]]["owner"] is None
                  and o.payload[1] * 2 >= land[o.payload[3]]["pop"] - 1]
        if spread:
            return rng.choice(spread)
        return rng.choice(orders) if rng.random() < 0.3 else None
    return rng.choice(orders)
