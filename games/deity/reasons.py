"""Why an order is not legal: the message a player gets for a line that matches no legal
order (legal_orders in rules.py stays the one source of truth; this only explains)."""

from __future__ import annotations

from pbem.core.numbers import is_number, odd_digits

from .battle import attackers
from .board import effect_hexes, geo_of, hex_dist, room_left, total
from .population import raise_limits
from .tables import KIND_STEP, STEP_NAMES, STEPS, Tables


def why_illegal(tab: Tables, state: dict, player: str, typed: list[str]) -> str | None:
    g = state["game"]
    flow = state["flow"]
    verb = typed[0]
    if flow.get("over"):
        return "the game is over"
    if player in g["out"]:
        return "you are out of the game"
    phase = flow["phase"]
    if verb in STANDING_VERBS:  # given at any time, on turn or off: what is wrong with the line itself
        return _standing(tab, typed)
    if player not in flow["active"] and not (phase == "setup" and verb == "start"):
        return "it is not your turn"
    odd = next((tok for tok in typed[1:] if odd_digits(tok)), None)
    if odd is not None:  # ² or ①: str.isdigit() is True for them, but they are no digits (finding 15)
        return _odd(odd)
    hexes = [tok for tok in typed[1:] if "," in tok]
    nums = [int(tok) for tok in typed[1:] if is_number(tok)]
    land = g["land"]
    geo = geo_of(g)
    if phase == "world":
        return _world(tab, g, player, verb, hexes)
    if phase == "setup":
        if verb == "start" and hexes:
            k = hexes[0]
            c = land.get(k)
            if c is None:
                return f"{k} is not land" if k in geo.onmap else f"{k} is not on the map"
            if c["terrain"] != "plains":
                return f"{k} is {tab.terrain[c['terrain']]['name']}, not plains"
            if total(c):
                return f"{k} is taken"
            return f"{k} is already on your list"
        return "set-up: `start Q,R` (a plains hex)"
    a = g.get("asking")
    if a and a.get("who") == player:  # reactions=ask: asked live about one card, or the battle
        if a["kind"] == "battle":
            b = a["battle"]
            return (f"you are asked only whether to fight on or retreat in your battle at {b['at']}: answer "
                    f"`fight on` or `retreat` (the rest of your turn is asked for afterwards)")
        if a["kind"] == "abjuration":
            top = a["stack"][-1]
            return (f"you are asked only whether to negate {top['caster']}'s {tab.cards[top['card']]['name']}: "
                    f"answer `play abjuration` or `pass`")
        return ("you are asked only whether to play a Resurrection at the end of the Battle phase: answer "
                "`play resurrection [Q,R]` (a hex where counters of yours were destroyed this turn) or `pass`")
    if verb in ("fight", "retreat"):
        return ("`fight on` and `retreat` answer the question asked live after a battle round (game option "
                "reactions=ask); an attack's own retreat is `attack Q,R -> Q,R N retreat K`")
    t = g["turn"]
    if t["pending"]:
        if t["pending"]["kind"] == "discard":
            return f"you hold {len(g['hands'][player])} cards: discard down to {tab.r['hand_max']} first"
        if verb == "carry":
            pd = t["pending"]
            return (f"{pd['dest']} has room for {room_left(land[pd['dest']], tab.tmax)} more counters; "
                    f"{pd['src']} holds {land[pd['src']]['pop']} population and {land[pd['src']]['armies']} armies")
        return "finish the Godspeed first: `carry N pop M armies` or `carry all`"
    if t["step"] == "discard" and verb != "discard":
        return f"you hold {len(g['hands'][player])} cards: discard down to {tab.r['hand_max']} first"
    if verb == "discard":
        return "you may discard only when your hand holds more than 7 cards"
    if verb in ("put", "redraw", "start"):
        return "the world and the set-up are done"
    if verb == "carry":
        return "there is no Godspeed to carry out"
    step = KIND_STEP.get(verb)
    if verb == "play" and len(typed) > 1 and typed[1].startswith("res"):
        step = "battle_end"
    if step and STEPS.index(step) < STEPS.index(t["step"]):
        return (f"the {STEP_NAMES[step]} phase is over (now: {STEP_NAMES[t['step']]}); "
                "orders must follow the turn sequence")
    k = hexes[0] if hexes else None
    c = land.get(k) if k else None
    if k and k not in geo.onmap:
        return f"{k} is not on the map"
    if verb in ("temple", "raise", "disband", "attack") and k:
        if c is None:
            return f"{k} is water"
        if c["owner"] != player:
            return f"{k} is not yours"
    if verb == "temple" and c:
        if c["temple"]:
            return f"{k} already has a temple"
        if not tab.terrain[c["terrain"]]["temples"]:
            return f"temples cannot be built in {tab.terrain[c['terrain']]['name']}"
        if any(n in land and land[n]["temple"] for n in geo.nbrs[k]):
            return f"{k} is next to a temple"
        if c["pop"] < tab.r["temple_population"]:
            return f"a temple needs {tab.r['temple_population']} population; {k} has {c['pop']}"
    if verb == "raise" and c and nums:
        left = raise_limits(g, player).get(k, 0)
        return f"at most half the population of {k} may be raised this phase: {left} more"
    if verb == "disband" and c and nums:
        return f"{k} has {c['armies']} armies"
    if verb == "attack" and len(hexes) >= 2:
        dst = hexes[1]
        d = land.get(dst)
        if dst not in geo.nbrs.get(k, ()):
            return f"{dst} is not next to {k}"
        if d is None or d["owner"] is None:
            return f"{dst} holds no enemy counters"
        if d["owner"] == player:
            return f"{dst} is your own"
        if dst in effect_hexes(g, "sanctuary"):
            return f"{dst} is a sanctuary this turn"
        return _attack_numbers(typed, attackers(g, k), k)
    if verb == "move" and len(typed) > 2 and typed[2] not in ("pop", "armies") and (
            typed[2].startswith("temple") or typed[2].startswith("monster")):
        return "temples and monsters never move; move `pop` or `armies`"
    if verb == "move" and len(hexes) >= 2:
        return _move(tab, g, player, t, hexes)
    if verb == "play" and len(typed) > 1:
        return _play(tab, g, player, typed, hexes, k)
    return None


STANDING_VERBS = ("abjure", "unabjure", "resurrect")


def _odd(tok: str) -> str:
    if "," in tok:
        return f"expected a coordinate, found '{tok}': a coordinate is written q,r with the digits 0-9, e.g. 1,-2"
    return f"expected a number, found '{tok}' (a number is written with the digits 0-9)"


def _standing(tab: Tables, typed: list[str]) -> str:
    """Why a standing order matches none (tester3 finding 06: `abjure nonsense` sent off turn
    was told "it is not your turn", although a standing order may be sent at any time)."""
    verb, args = typed[0], typed[1:]
    if verb == "resurrect" and args and odd_digits(args[0]):
        return _odd(args[0])
    if verb == "resurrect":
        if args and is_number(args[0]) and len(args) == 1:
            return "resurrect N takes N from 1 to 30 (how many of your counters destroyed in one battle phase)"
        return "write `resurrect N` (N: how many of your counters destroyed in one battle phase) or `resurrect off`"
    word = args[0] if args else ""
    if word and word not in ("any", "all") and not any(
            c.startswith(word) or c.split("_")[0].startswith(word) for c in tab.card_ids):
        return f"there is no card '{word}'"
    if verb == "unabjure":
        return "write `unabjure CARD` or `unabjure all`"
    return "write `abjure CARD`, `abjure CARD on my hexes` or `abjure any [on my hexes]`"


def _attack_numbers(typed: list[str], avail: int, k: str) -> str:
    """What is wrong with the numbers of `attack Q,R -> Q,R [N] [retreat K]`."""
    rest = typed[typed.index("->") + 2:] if "->" in typed else []
    at = next((i for i, tok in enumerate(rest) if tok.isalpha() and "retreat".startswith(tok)), None)
    before = rest if at is None else rest[:at]
    n = int(before[0]) if before and is_number(before[0]) else None
    kk = int(rest[at + 1]) if at is not None and len(rest) > at + 1 and is_number(rest[at + 1]) else None
    if avail <= 0 or (n is not None and n > avail):
        return f"{k} has {avail} armies that may still attack"
    if n == 0:
        return "an attack needs at least one army"
    going = avail if n is None else n
    if kk is not None and kk > going:
        return (f"retreat {kk} is more than the {going} attacking (`retreat {going}` already withdraws "
                f"after the first round; without `retreat` they fight to the end)")
    return f"{k} has {avail} armies that may still attack"


def _world(tab: Tables, g: dict, player: str, verb: str, hexes: list[str]) -> str:
    land = g["land"]
    geo = geo_of(g)
    if verb == "redraw":
        return "you have no redraws left" if g["world"]["redraws"][player] <= 0 else "the pile holds no other counter"
    if verb == "put" and hexes:
        k = hexes[0]
        if k not in geo.onmap:
            return f"{k} is not on the map"
        if k in land:
            return f"{k} already holds a {tab.terrain[land[k]['terrain']]['name']} counter"
        if land and not any(n in land for n in geo.nbrs[k]):
            return f"{k} is not next to a counter already placed"
        return "a river valley must keep one side on the water (and no counter may close a river valley in)"
    return "the world is being built: `put Q,R` or `redraw`"


def _move(tab: Tables, g: dict, player: str, t: dict, hexes: list[str]) -> str:
    land = g["land"]
    geo = geo_of(g)
    src, dst = hexes[0], hexes[1]
    s, d = land.get(src), land.get(dst)
    if s is None or s["owner"] != player:
        return f"{src} is not yours"
    if dst not in geo.nbrs.get(src, ()):
        return f"{dst} is not next to {src}: counters move one hex"
    if d is None:
        return f"{dst} is water"
    if d["blight"]:
        return f"{dst} is blighted: no counters may enter"
    if d["owner"] not in (None, player):
        return f"{dst} belongs to {d['owner']}: take it in battle first"
    came = t["arrived"].get(src, {})
    return (f"{src} has {s['pop'] - came.get('pop', 0)} population and {s['armies'] - came.get('armies', 0)} armies "
            f"free to move; {dst} has room for {room_left(d, tab.tmax)}")


def _play(tab: Tables, g: dict, player: str, typed: list[str], hexes: list[str], k: str | None) -> str | None:
    land = g["land"]
    geo = geo_of(g)
    card = next((c_ for c_ in tab.card_ids if c_.startswith(typed[1]) or c_.split("_")[0].startswith(typed[1])), None)
    if card is None:
        return f"there is no card '{typed[1]}'"
    if card not in g["hands"][player]:
        return f"you hold no {tab.cards[card]['name']} card"
    if card == "abjuration":
        return "Abjuration is a reaction: set it as a standing order, e.g. `abjure earthquake on my hexes`"
    if card in ("alter_land", "create_land") and not g["reserve"]:
        return "the terrain reserve is empty"
    if card == "godspeed" and len(hexes) >= 2 and hexes[0] in land and hexes[1] in geo.onmap:
        src, dst = hexes[0], hexes[1]
        far = hex_dist(g, src, dst)
        d = land.get(dst)
        if land[src]["owner"] != player:
            return f"{src} is not yours"
        if far > tab.r["godspeed_range"]:
            return f"{dst} is {far} hexes from {src}; Godspeed reaches {tab.r['godspeed_range']}"
        if d is None:
            return f"{dst} is water"
        if d["blight"]:
            return f"{dst} is blighted: no counters may enter"
        if d["owner"] not in (None, player):
            return f"{dst} belongs to {d['owner']}"
        if room_left(d, tab.tmax) <= 0:
            return f"{dst} is full"
    if k:
        return f"{tab.cards[card]['name']} cannot target {k}: {_target_why(tab, g, card, k)}"
    return None


# The terrain a card's target must be (the card list: "Mountain space", "Forest space").
_TERRAIN_OF = {"mountains_occupied": ("mountains", "a mountain space"), "forest_occupied": ("forest", "a forest space")}
_NEEDS_COUNTERS = ("occupied", "coastal_occupied", "mountains_occupied", "forest_occupied")


def _target_why(tab: Tables, g: dict, card: str, k: str) -> str:
    """What is true of k that the card's target needs and k lacks: the terrain first, then
    the counters to destroy (an empty hex has none: the card would be wasted, so it is
    refused, not played for nothing); otherwise the card's text says what it targets."""
    kind = tab.cards[card]["target"]
    c = g["land"].get(k)
    if kind in _NEEDS_COUNTERS and c is not None:
        terrain, what = _TERRAIN_OF.get(kind, (None, ""))
        if terrain and c["terrain"] != terrain:
            return f"{k} is {tab.terrain[c['terrain']]['name']}, not {what}"
        if total(c) == 0:
            return f"there are no counters at {k}, nothing to destroy"
    return tab.cards[card]["text"].lower()
