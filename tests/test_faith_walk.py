"""What a new GM and players of a Faith game met by mail (a walk-through of issue 16), each
checked through the installed `pbem` where the player sees it: the report's list of gods, the
words for a default order, the Jihad line of "At a glance"."""

from __future__ import annotations

import re

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
    from pbem.host.store import open_db

    assert run("new", "faith", "w4", "-p", "ann", "-p", "bob", "--seed", "12").returncode == 0
    db = open_db(str(run.cwd / "pbem.db"))
    for _ in range(10):
        if host.current_state(db, "w4")["flow"]["phase"] == "negotiation":
            break
        assert run("autoplay", "w4", "--max-phases", "1").returncode == 0
    turn = db["games"].get("w4")["phase"]
    assert run("join", "w4", "cat").returncode == 0
    folder = run.cwd / "turns" / "w4" / str(turn) / "reports"
    stored = {r["player"]: r["text"] for r in db["reports"].rows_where("game_id = ? and phase = ?", ["w4", turn])}
    assert (folder / "cat.txt").read_text() == stored["cat"]
    for who in ("ann", "bob", ""):
        text = (folder / f"{who or 'public'}.txt").read_text()
        assert "cat joins the game" in text and text == stored[who], who
