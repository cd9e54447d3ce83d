"""GODS's report partials in plain Python rather than Jinja (issue 17), the same text built
with string operations: the position (once templates/gods/position.txt.j2; in about a fifth
of the render's time but for the map: it was the largest part of a GODS report, and GODS the
game whose autoplay missed its goal), the event lines (once templates/gods/events.j2) and
the order form's examples (once templates/gods/orders.txt.j2). Each reads the view, the
event or the report's context alone, as a template reads its context, and the position
nothing of the view's `you` (pbem.render.reports.POSITIONS, EVENT_LINES, ORDER_FORMS)."""

from __future__ import annotations

from pbem.core import hexgrid


def _label(c: dict) -> str:
    """A card's cell on the map: a tribe's colour/religion (-- none), T/god a temple, ~~~
    anything else; each name cut to two letters."""
    kind = c["kind"]
    if kind == "tribe":
        return f"{(c.get('colour') or '--')[:2]}/{(c.get('god') or '--')[:2]}"
    if kind == "temple":
        return f"T/{(c.get('god') or '--')[:2]}"
    return "~~~"


def _card(c: dict) -> str:
    kind = c["kind"]
    if kind == "tribe":
        god = c["god"]
        return f"{c['colour']} tribe, {'religion of ' + str(god) if god else 'no religion'}"
    if kind == "temple":
        return f"temple of {c['god']}"
    return "wasteland"


def position(view: dict) -> str:
    """The position as a viewer may see it: the board drawn and listed card by card, the
    display, the piles and stocks, and the gods' table."""
    board = view["board"]
    turn = view["turn"]
    scores = view["scores"]
    left = turn["actions_left"]
    cells = {}
    cards = []
    for c in board:
        cells[c["at"]] = _label(c)
        cards.append(f"  {'%-7s' % (c['at'],)} {_card(c)}\n")
    out = [
        "The board (each hex shows q,r; tribes as colour/religion, T/god = temple, ~~~ = wasteland)\n",
        hexgrid.draw(cells),
        "\nCards on the board:\n",
        *cards,
        f"\nDisplay: {', '.join(map(str, view['display'])) or 'empty'}\n"
        f"Draw pile: {view['deck_count']} cards (the game end card is among the bottom 3)\n"
        f"Crystals in the stock: {view['stock']}\n"
        f"Nation cards left: {', '.join(f'{c} {n}' for c, n in view['nation_stock'].items())}\n"
        f"Victory point cards left: {', '.join(f'{c} {n}' for c, n in view['vp_stock'].items())}\n"
        f"\nGods ({turn['player']} is on turn, {left} action{'s' if left != 1 else ''} left)\n"
        "  god              colour  crystals markers extra temples built/left nations             vp cards       score\n",
    ]
    for p in view["players"]:
        nations = ", ".join(f"{c} {n}" for c, n in p["nations"].items()) or "-"
        vp = ", ".join(f"{c} {n}" for c, n in p["vp_cards"].items()) or "-"
        built = f"{p['temples_built']}/{p['temples_left']}"
        out.append(f"  {'%-16s' % (p['name'],)} {'%-7s' % (p['colour'],)} {'%8d' % (p['crystals'],)} "
                   f"{'%7d' % (p['markers_left'],)} {'%5d' % (p['extra_cards'],)} {'%18s' % (built,)} "
                   f"{'%-19s' % (nations,)} {'%-14s' % (vp,)} {'%5d' % (scores[p['name']],)}"
                   f"{'  (may end the game)' if p['can_end'] else ''}\n")
    out.append("  Each god builds only the 6 temples of their colour.\n"
               "  Score = 3 per nation card + 2 per victory point card, -4 for the most temples built.\n")
    return "".join(out)


def order_form(ctx: dict) -> str:
    """The order form's examples: the legal orders now (the context's order_groups), a few of
    each verb."""
    out = ["# Your legal orders now (each action one line; see `pbem rules gods` for all verbs):\n"]
    for group in ctx["order_groups"]:
        out.append(f"# {group['verb']}: {group['help']}\n")
        out += [f"#   {example}\n" for example in group["examples"]]
        if group["more"]:
            out.append(f"#   ... and {group['more']} more\n")
    return "".join(out)


def _cardname(c: str) -> str:
    return c[6:] + " tribe" if c.startswith("tribe:") else {"extra": "extra action", "gameend": "game end"}.get(c, c)


def _a(word: str) -> str:
    return f"{'an' if word[:1].lower() in ('a', 'e', 'i', 'o', 'u') else 'a'} {word}"


def _s(n) -> str:
    return "s" if n != 1 else ""


def event_line(e: dict) -> str:
    """A GODS event's report line, stripped (the engine's own events, `order` and the
    others of events.j2's TYPES, are that template's)."""
    etype = e["type"]
    if etype == "turn_over":
        return f"{e['player']}'s turn ends; next: {e['next']}."
    elif etype == "gather":
        forfeited = f" ({e['forfeited']} forfeited over 12)" if e["forfeited"] else ""
        return f"{e['player']} gathers strength: +{e['took']} crystals{forfeited}, now {e['crystals']}."
    elif etype == "reveal":
        card = e["card"]
        return "The GAME END card is turned over!" if card == "gameend" else f"Laid out in the display: {_cardname(card)}."
    elif etype == "move":
        return f"{e['player']} pays {e['cost']} crystals to move the wasteland at {e['src']} to {e['dst']}."
    elif etype == "tribe":
        cost = e["cost"]
        religion = e["religion"]
        adopts = f"it adopts the religion of {religion}." if religion else f"it gets no religion ({e['unclaimed_reason']})."
        return f"{e['player']} places {_a(e['colour'])} tribe at {e['at']} for {cost} crystal{_s(cost)}: {adopts}"
    elif etype == "wasteland":
        return f"{e['player']} lays a wasteland at {e['at']} and gains {e['gained']} crystal{_s(e['gained'])}."
    elif etype == "temple":
        return f"{e['player']} builds a temple at {e['at']} for {e['cost']} crystals."
    elif etype == "convert":
        god = e["god"]
        return f"The {e['colour']} tribe at {e['at']} converts{f' to {god}' if god else ', but stays unclaimed (no markers left)'}."
    elif etype == "discard":
        return f"{e['player']} discards the {_cardname(e['card'])} from the display."
    elif etype == "whirlwind":
        return f"{e['player']} plays the whirlwind: the wasteland at {e['src']} moves to {e['dst']}."
    elif etype == "keep":
        return f"{e['player']} takes the extra action card."
    elif etype == "extra":
        return f"{e['player']} plays an extra action card ({e['actions_left']} action{_s(e['actions_left'])} left)."
    elif etype == "pass":
        return f"{e['player']} forfeits an action."
    elif etype == "nation_founded":
        colour = e["colour"]
        vp = f" and takes {_a(colour)} victory point card" if e["vp_card"] else f" (no {colour} victory point card is left)"
        return f"{e['player']} founds {_a(colour)} nation{vp}."
    elif etype == "nation_lost":
        return f"{e['player']}'s {e['colour']} nation disintegrates; the nation card returns to the stock."
    elif etype == "endgame":
        return f"{e['player']} chooses to end the game."
    elif etype == "setup":
        text = f"The start set-up was laid out ({e['cards']} cards)."
        if "temples_each" in e:
            each, out = e["temples_each"], e["temples_out"]
            text += f" Each god has the {each} temples of their colour"
            if out:
                text += f"; the other {out} temples (of the colour{'s' if out > each else ''} no god plays) are out of the game"
            text += "."
        return text
    elif etype == "shuffle":
        return f"The {e['what']} was shuffled ({e['cards']} cards; {e['note']})."
    elif etype == "roll":
        return f"Start player chosen at random: {e['result']}."
    elif etype == "game_over":
        penalty = e["temple_penalty"]
        most = f" Most temples built: {', '.join(map(str, penalty))} (-4 each)." if penalty else ""
        winners = e["winners"]
        return f"Game over: {e['reason']}.{most} Winner{'s' if len(winners) > 1 else ''}: {', '.join(map(str, winners))}."
    return str(etype).strip()
