"""GODS's report partials in plain Python rather than Jinja (issue 17): the position text,
once templates/gods/position.txt.j2, the same text built with string operations (in about
a fifth of the render's time but for the map; the position was the largest part of a GODS
report, and GODS the game whose autoplay missed its goal). Read from the view alone, as a
template reads its context, and nothing of its `you` (pbem.render.reports.POSITIONS)."""

from __future__ import annotations

from pbem.core import hexgrid

_LABELS = {"tribe": "{colour:.2}/{god:.2}", "temple": "T/{god:.2}"}


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
    out = [
        "The board (each hex shows q,r; tribes as colour/religion, T/god = temple, ~~~ = wasteland)\n",
        hexgrid.draw(hexgrid.labels(board, _LABELS, other="~~~")),
        "\nCards on the board:\n",
        *[f"  {'%-7s' % (c['at'],)} {_card(c)}\n" for c in board],
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
