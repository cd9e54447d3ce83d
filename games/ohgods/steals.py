"""Oh Gods!: steals and Block. What a steal needs (`steal_needs`: two matching gods on your
altar and two other gods given, fewer with the Mastery of War or Love), which steals are open
(`steal_orders`), and carrying one out (`steal`) unless the victim's Block stops it. A player
who is not on turn cannot answer a steal by email, so whether a Block is used is each player's
standing order (`block_orders`, `set_policy`, `wants_block`) -- unless the game option
`reactions=ask` has the steal stop the turn and ask the victim live (`asks_block`, `ask_block`,
`answer_steal`; no answer by the deadline: the standing order, `reaction_default`).
"""

from __future__ import annotations

from itertools import combinations

from pbem.core.engine import Event
from pbem.core.orders import Order
from pbem.core.rng import Rng

from .cards import HIDDEN, RULER, Catalogue, uncertain
from .mastery import holds
from .table import others


# --- Block, a standing order -----------------------------------------------------------------------
def block_policy(mode: str) -> dict:
    """A standing order about Block: `any` steal, `never`, or `some` (of these gods, by these players)."""
    return {"mode": mode, "gods": [], "by": []}


def block_orders(gods: list[str], players: tuple, player: str) -> list[Order]:
    """Every standing order about Block that `player` may give."""
    orders = [Order(("block", "any", "steal"), ("block", "any"), frozenset({2})),
              Order(("never", "block"), ("block", "never"))]
    orders += [Order(("block", "steals", "of", gid), ("block", "god", gid), frozenset({1, 2}))
               for gid in gods]
    orders += [Order(("block", "steals", "by", p), ("block", "by", p), frozenset({1, 2}))
               for p in players if p != player]
    return orders


def set_policy(cat: Catalogue, g: dict, player: str, p: tuple) -> list[Event]:
    pol = g["block"][player]
    if p[1] in ("any", "never"):
        pol = block_policy(p[1])
    else:
        if pol["mode"] != "some":
            pol = block_policy("some")
        field = "gods" if p[1] == "god" else "by"
        if p[2] not in pol[field]:
            pol[field].append(p[2])
    g["block"][player] = pol
    return [{"type": "block_policy", "player": player, "policy": policy_text(cat, pol), "to": player}]


def policy_text(cat: Catalogue, pol: dict) -> str:
    if pol["mode"] == "any":
        return "block any steal"
    if pol["mode"] == "never":
        return "never block"
    parts = []
    if pol["gods"]:
        parts.append("block steals of " + ", ".join(cat.names(pol["gods"])))
    if pol["by"]:
        parts.append("block steals by " + ", ".join(pol["by"]))
    return "; ".join(parts)


def wants_block(g: dict, victim: str, thief: str, target: str) -> bool:
    pol = g["block"][victim]
    if pol["mode"] == "any":
        return True
    if pol["mode"] == "never":
        return False
    return target in pol["gods"] or thief in pol["by"]


def why_not_block(args: list[str]) -> str | None:
    if args and args[-1] not in ("any", "steal", "of", "by", "block"):
        return f"'{args[-1]}' is neither a god of this deck nor another player of this game"
    return None


# --- stealing a god --------------------------------------------------------------------------------
def steal_needs(cat: Catalogue, g: dict, player: str) -> tuple[int, int]:
    """(matching gods needed on your altar, gods you give): 2 and 2, less with War or Love."""
    need = 1 if holds(cat, g, player, "lone_steal") else 2
    give = 1 if holds(cat, g, player, "charm_steal") else 2
    return need, give


def steal_orders(cat: Catalogue, g: dict, player: str) -> list[Order]:
    out = []
    altar = g["altars"][player]
    need, give = steal_needs(cat, g, player)
    if len(altar) < need + give:
        return out
    matching: dict[str, int] = {}
    for c in altar:
        if cat.is_god(c):
            for e in cat.cards[c]["elements"]:
                matching[e] = matching.get(e, 0) + 1
    givable = [c for c in altar if cat.movable(c)]
    gift_combos: dict[str, list[tuple]] = {}
    for v in others(g, player):
        if g["sanctuary"][v]:
            continue
        for target in g["altars"][v]:
            if not cat.is_god(target) or cat.is_ruler(target):
                continue
            combos: dict[tuple, None] = {}
            for e in cat.cards[target]["elements"]:
                if matching.get(e, 0) < need:
                    continue
                if e not in gift_combos:
                    givers = [c for c in givable if not cat.has(c, e)]
                    gift_combos[e] = list(combinations(givers, give))  # in altar order
                for combo in gift_combos[e]:
                    combos[combo] = None
            for combo in combos:
                out.append(Order(("steal", cat.tok(target), "from", v, "give", *(cat.tok(c) for c in combo)),
                                 ("steal", v, target, combo), frozenset({2, 3})))
    return out


def steal(cat: Catalogue, g: dict, player: str, p: tuple, rng: Rng) -> list[Event]:
    _, victim, target, give = p
    blocked = [{"type": "blocked", "player": player, "victim": victim, "god": cat.name(target)}]
    if g.get("preview"):
        uncertain(rng)  # the victim may hold a Block: what follows depends on it
        # Checking the thief's orders, the victim's hand and standing order are unseen: in some
        # of the check's outcomes an unseen Block stops the steal (if any Block is unseen).
        unseen_blocks = [c for c in g.get("unseen", []) if cat.effect(c) == "block"]
        if HIDDEN in g["hands"][victim] and unseen_blocks and rng.randbelow(2) == 0:
            g["unseen"].remove(unseen_blocks[0])
            g["hands"][victim].remove(HIDDEN)
            g["discard"].append(unseen_blocks[0])
            return blocked
    blocks = [c for c in g["hands"][victim] if cat.effect(c) == "block"]
    events: list[Event] = []
    if blocks and wants_block(g, victim, player, target):
        card = blocks[0]
        g["hands"][victim].remove(card)
        g["discard"].append(card)
        # Playing the Block is public; the standing order that played it is the victim's
        # secret (ORDERS.md): nothing of it goes in this event, which everyone sees.
        return blocked
    if blocks:
        events.append({"type": "not_blocked", "player": victim, "thief": player, "god": cat.name(target),
                       "policy": policy_text(cat, g["block"][victim]), "to": victim})
    return events + _take(cat, g, player, victim, target, give)


def _take(cat: Catalogue, g: dict, player: str, victim: str, target: str, give) -> list[Event]:
    """The steal carried out: the god to the thief's altar, the gifts to the victim's."""
    events: list[Event] = []
    mine, theirs = g["altars"][player], g["altars"][victim]
    theirs.remove(target)
    mine.append(target)
    for c in give:
        mine.remove(c)
        theirs.append(c)
    events.append({"type": "steal", "player": player, "victim": victim, "god": cat.name(target),
                   "gave": cat.names(give)})
    return events


# --- Block asked live (game option reactions=ask) --------------------------------------------------
def asks_block(cat: Catalogue, g: dict, victim: str) -> bool:
    """Whether a steal from `victim`'s altar stops to ask them live (option reactions=ask).
    Decided on public facts only -- their hand is not empty, and not every Block card of the
    deck lies face up in the discard pile -- so being asked tells nobody whether they hold one."""
    if g.get("reactions") != "ask" or not g["hands"][victim]:
        return False
    total = sum(1 for c in cat.deck_ids if cat.effect(c) == "block")
    return sum(1 for c in g["discard"] if cat.effect(c) == "block") < total


def ask_block(cat: Catalogue, state: dict, player: str, p: tuple) -> list[Event]:
    """Stop the turn at the steal: record it as pending and ask the victim alone."""
    g = state["game"]
    _, victim, target, give = p
    g["pending"] = {"thief": player, "victim": victim, "target": target, "give": list(give)}
    state["flow"].update(
        phase="reaction", active=[victim], pace="reaction",
        prompt=(f"{victim}: {player} steals {cat.name(target)} from your altar (giving {', '.join(cat.names(give))}): "
                f"answer `block` (play a Block card from your hand) or `allow` (let it through). Without an answer "
                f"by the deadline your standing order about Block decides."))
    return [{"type": "steal_asked", "player": player, "victim": victim, "god": cat.name(target),
             "gave": cat.names(give)}]


def reaction_orders() -> list[Order]:
    """The answers to a steal asked live."""
    return [Order(("block",), ("react", "block")), Order(("allow",), ("react", "allow"))]


def reaction_default(cat: Catalogue, g: dict, victim: str) -> Order:
    """No answer by the deadline: what the victim's standing order about Block would do."""
    pend = g["pending"]
    held = any(cat.effect(c) == "block" for c in g["hands"][victim])
    wants = held and wants_block(g, victim, pend["thief"], pend["target"])
    return reaction_orders()[0 if wants else 1]


def answer_steal(cat: Catalogue, g: dict, victim: str, choice: str) -> list[Event]:
    """The victim's answer to the pending steal: Block it (with a Block card from their hand)
    or let it through. `block` without a Block card in hand lets it through; only the victim
    is told why, so everyone else learns no more than from `allow`."""
    pend = g.pop("pending")
    thief, target, give = pend["thief"], pend["target"], tuple(pend["give"])
    blocks = [c for c in g["hands"][victim] if cat.effect(c) == "block"]
    if choice == "block" and blocks:
        g["hands"][victim].remove(blocks[0])
        g["discard"].append(blocks[0])
        return [{"type": "blocked", "player": thief, "victim": victim, "god": cat.name(target)}]
    events: list[Event] = []
    if choice == "block":
        events.append({"type": "no_block", "player": victim, "thief": thief, "god": cat.name(target), "to": victim})
    return events + _take(cat, g, thief, victim, target, give)


def why_not_steal(cat: Catalogue, g: dict, player: str, args: list[str]) -> str | None:
    altar = g["altars"][player]
    where = [(v, c) for v in others(g, player) for c in cat.find(args[0], g["altars"][v])]
    if not where:
        return f"no other player's altar holds '{args[0]}'"
    v, target = where[0]
    if cat.is_ruler(target):
        return "Rulers never leave an altar except by scoring"
    if cat.is_imm(target):
        return "Immortalized has no domain or pantheon until it is in a set, so it cannot be stolen"
    if g["sanctuary"][v]:
        return f"{v}'s altar is in Sanctuary until {v}'s next turn: no god can be stolen from it"
    need, give = steal_needs(cat, g, player)
    best = max((sum(1 for c in altar if cat.is_god(c) and cat.has(c, e)), e)
               for e in cat.cards[target]["elements"])
    if best[0] < need:
        return (f"to steal {cat.name(target)} your altar needs {need} god{'s' if need > 1 else ''} sharing its pantheon or a "
                f"domain ({', '.join(cat.element_names[e] for e in cat.cards[target]['elements'] if e != RULER)}); "
                f"it has at most {best[0]}")
    if "give" not in args and [a for a in args[1:] if a != "from" and a not in g["players"]]:
        return "name the gods you give after the word `give`: steal GOD [from PLAYER] give GOD GOD"
    gifts = args[args.index("give") + 1:] if "give" in args else []
    left = list(altar)
    for t in gifts:
        found = cat.find(t, left)
        if not found:
            return f"'{t}' is not on your altar"
        left.remove(found[0])
        if cat.is_ruler(found[0]):
            return "Rulers never leave an altar except by scoring"
    if gifts and len(gifts) != give:
        return f"you give {give} god{'s' if give > 1 else ''} for a steal"
    if gifts:
        given = [cat.find(t, altar)[0] for t in gifts]
        usable = [e for e in cat.cards[target]["elements"]
                  if sum(1 for c in altar if cat.is_god(c) and cat.has(c, e)) >= need]
        for c in given:
            shared = [e for e in usable if cat.has(c, e)]
            if len(shared) == len(usable):
                names = ", ".join(cat.element_names[e] for e in shared)
                return (f"{cat.name(c)} is one of your gods matching {cat.name(target)} ({names}): "
                        f"the gods you give must be other gods")
        if any(all(not cat.has(c, e) for c in given) for e in usable):
            canon = sorted(given, key=altar.index)
            return (f"name them in the order of your altar: `steal {cat.tok(target)} from {v} give "
                    f"{' '.join(cat.tok(c) for c in canon)}`")
        return (f"the gods you give must be other gods: no element of {cat.name(target)} that your "
                f"altar matches may be shared by one of them")
    return None
