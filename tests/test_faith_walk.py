"""What a new GM and players of a Faith game met by mail (a walk-through of issue 16), each
checked through the installed `pbem` where the player sees it: the report's list of gods, the
words for a default order, the Jihad line of "At a glance"."""

from __future__ import annotations

import re

from faith_helpers import autoplay_to
from pbem import host
from pbem.core.registry import get_rules


def test_a_god_without_a_belief_is_a_line_of_its_own_in_the_report(run):
    """A seat with no belief yet (the set-up, a newcomer, a god who gave hers away) was printed
    as 'no belief yet' glued to the next line ('no belief yetTechnology: ...')."""
    assert run("new", "faith", "w1", "-p", "ann", "-p", "bob", "--seed", "7").returncode == 0
    text = run("report", "w1", "--player", "ann").stdout
    assert re.search(r"^  ann +no belief yet$", text, re.M), text
    assert re.search(r"^  bob +no belief yet$", text, re.M), text
    assert re.search(r"^Technology: ", text, re.M), text


def test_a_god_who_left_the_rest_open_is_not_said_to_have_given_no_order(run):
    """bob names his belief and level but sends no `done`: the default `done` is his, but he did
    give orders; the report said 'bob gave no order'."""
    assert run("new", "faith", "w2", "-p", "ann", "-p", "bob", "--seed", "7").returncode == 0
    assert run("submit", "w2", "ann", "-", "--gm", input="belief israelites\nlevel 1\ndone\n").returncode == 0
    assert run("submit", "w2", "bob", "-", "--gm", input="belief egyptian\nlevel 2\n").returncode == 0
    assert run("resolve", "w2").returncode == 0
    text = run("report", "w2", "--turn", "2").stdout
    assert "bob orders: level 2" in text
    assert "bob gave no order" not in text
    assert "bob gave no further order; by default: done" in text


def test_at_a_glance_names_the_jihad_only_for_its_era(db):
    """An old Jihad (era 14 in era 17) was still shown as 'X control the infidels in era 14'."""
    rules = get_rules("faith")
    host.new_game(db, "faith", "w3", ["ann", "bob"], seed="4", turns=None)
    state = host.current_state(db, "w3")
    g = state["game"]
    g["jihad"] = {"holder": "odin", "era": 3}
    for era, shown in ((2, True), (3, True), (4, False), (17, False)):
        g["era"] = era
        labels = [label for label, _ in rules.summary(rules.view(state, None))]
        assert ("Jihad" in labels) is shown, (era, labels)


def test_a_join_writes_the_open_turns_report_files_again(run):
    """`pbem join` rewrote the open turn's reports in the store but not the files under
    turns/GAME/TURN/reports: the newcomer's file was missing and the others lacked the join."""
    assert run("new", "faith", "w4", "-p", "ann", "-p", "bob", "--seed", "12").returncode == 0
    db, turn = autoplay_to(run, "w4", "negotiation")
    assert run("join", "w4", "cat").returncode == 0
    folder = run.cwd / "turns" / "w4" / str(turn) / "reports"
    stored = {r["player"]: r["text"] for r in db["reports"].rows_where("game_id = ? and phase = ?", ["w4", turn])}
    assert (folder / "cat.txt").read_text() == stored["cat"]
    for who in ("ann", "bob", ""):
        text = (folder / f"{who or 'public'}.txt").read_text()
        assert "cat joins the game" in text and text == stored[who], who


def test_a_flip_with_no_pacified_chips_says_why(run):
    """Era after era a player writes `flip all`; with every chip in unrest it was refused as
    "no 'flip' order is legal now", which does not say why or what to send instead."""
    assert run("new", "faith", "w5", "-p", "ann", "-p", "bob", "--seed", "7").returncode == 0
    for p, b in (("ann", "israelites"), ("bob", "egyptian")):
        assert run("submit", "w5", p, "-", "--gm", input=f"belief {b}\nlevel 1\ndone\n").returncode == 0
    assert run("resolve", "w5").returncode == 0                     # era 1, Action
    for i, p in enumerate(("bob", "ann")):   # placements from the order form, in two hexes
        place = re.findall(r"^#   (place 3 \w+)$", run("report", "w5", "--player", p).stdout, re.M)[i]
        assert run("submit", "w5", p, "-", "--gm", input=f"{place}\ndone\n").returncode == 0
    assert run("resolve", "w5").returncode == 0                     # era 1, Divine Power
    for p in ("ann", "bob"):
        assert run("submit", "w5", p, "-", "--gm", input="none\n").returncode == 0
    assert run("resolve", "w5").returncode == 0                     # era 2, Negotiation
    for p in ("ann", "bob"):
        assert run("submit", "w5", p, "-", "--gm", input="done\n").returncode == 0
    assert run("resolve", "w5").returncode == 0                     # era 2, Power-Up
    assert run("submit", "w5", "ann", "-", "--gm", input="flip all\ndone\n").returncode == 0
    assert run("submit", "w5", "bob", "-", "--gm", input="flip all\ndone\n").returncode == 0
    assert run("resolve", "w5").returncode == 0                     # every chip now in unrest
    assert "Phase 5" in run("report", "w5", "--player", "ann").stdout
    for p in ("ann", "bob"):
        assert run("submit", "w5", p, "-", "--gm", input="done\n").returncode == 0
    assert run("resolve", "w5").returncode == 0
    for p in ("ann", "bob"):
        assert run("submit", "w5", p, "-", "--gm", input="none\n").returncode == 0
    assert run("resolve", "w5").returncode == 0                     # era 3, Negotiation
    for p in ("ann", "bob"):
        assert run("submit", "w5", p, "-", "--gm", input="done\n").returncode == 0
    assert run("resolve", "w5").returncode == 0                     # era 3, Power-Up: all in unrest
    ack = run("submit", "w5", "ann", "-", "--gm", input=f"flip all\nflip 2 {place.split()[-1]}\ndone\n").stdout
    assert "REJECTED" in ack and "no 'flip' order is legal now" not in ack, ack
    assert ack.count("you have no pacified chips to flip") == 2, ack
    assert "`done` takes your level's base income" in ack, ack


def test_the_report_lists_the_claims_standing_order_with_the_others(run):
    """`accept claims` is a standing order (CHOICE 166), but the report's 'Your standing orders'
    listed only overflow, retreat, defend and side: a god could not see whether she held it (a
    later submission without the line had quietly dropped it)."""
    assert run("new", "faith", "w9", "-p", "ann", "-p", "bob", "--seed", "7").returncode == 0
    assert run("autoplay", "w9", "--max-phases", "4").returncode == 0
    r = run("submit", "w9", "ann", "-", "--gm", input="accept claims\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert run("resolve", "w9", "--force").returncode == 0
    ann = run("report", "w9", "--player", "ann").stdout
    bob = run("report", "w9", "--player", "bob").stdout
    block = lambda text: text.split("Your standing orders (secret):", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"^  accept claims$", block(ann), re.M), block(ann)
    assert re.search(r"^  contest claims$", block(bob), re.M), block(bob)
