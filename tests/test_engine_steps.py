"""Engine extension G4: a submission executed in rounds by step (Rules.step_of). A toy game:
every player plants seeds (step 0) and then harvests (step 1) in one submission; the engine
runs every player's planting lines, in request order, before anyone's harvest, and a line no
longer legal when its round comes is skipped with the reason. Games without step_of keep
running each script whole, player after player."""

from __future__ import annotations

from pbem.core import engine
from pbem.core.engine import GameInfo, Rules
from pbem.core.orders import Grammar, Order, read_script

FIELD = 3


class Garden(Rules):
    """Two gardeners share one field of 3 plots; `plant` takes a plot (step 0), `harvest`
    takes one ripe plot's crop (step 1), `note` may come anywhere (step None), `done` ends."""

    info = GameInfo("garden", "Garden", 2, 2)
    grammar = Grammar(verbs={"plant": ("", "take a plot"), "harvest": ("", "harvest a plot you planted"),
                             "note": ("", "a note, run where it stands"), "done": ("", "end")})

    def setup(self, players, options, rng):
        return {"flow": {"phase": "garden", "active": list(players), "sealed": True, "over": False},
                "game": {"plots": [], "crops": {p: 0 for p in players}, "log": []}}, []

    def legal_orders(self, state, player):
        g = state["game"]
        out = [Order(("done",), ("done",)), Order(("note",), ("note",))]
        if len(g["plots"]) < FIELD:
            out.append(Order(("plant",), ("plant",)))
        if player in g["plots"]:
            out.append(Order(("harvest",), ("harvest",)))
        return out

    def step_of(self, state, order):
        return {"plant": 0, "harvest": 1, "note": None}.get(order.verb, 2)

    def apply(self, state, player, order, rng):
        g = state["game"]
        g["log"].append(f"{player}:{order.verb}")
        if order.verb == "plant":
            g["plots"].append(player)
        elif order.verb == "harvest":
            g["plots"].remove(player)
            g["crops"][player] += 1
        elif order.verb == "done":
            state["flow"]["active"].remove(player)
        return [{"type": order.verb, "player": player}]

    def default_order(self, state, player):
        return Order(("done",), ("done",))

    def view(self, state, player):
        return dict(state["game"])


class WholeScripts(Garden):
    step_of = Rules.step_of   # no steps: the engine's behaviour without the hook


RULES = Garden({})


def _resolve(rules, scripts):
    state, _ = engine.start(rules, ["ann", "bob"], {}, "s")
    return engine.resolve(rules, state, {p: read_script(t) for p, t in scripts.items()}, "s")


def test_every_players_step_0_lines_run_before_anyones_step_1_lines():
    res = _resolve(RULES, {"ann": "plant\nharvest\nplant", "bob": "plant\nharvest"})
    # ann's two plantings, then bob's, then the harvests in request order, then the defaults
    assert res.state["game"]["log"] == ["ann:plant", "ann:plant", "bob:plant", "ann:harvest", "bob:harvest",
                                        "ann:done", "bob:done"]
    assert [r.status for r in res.lines["ann"]] == ["executed", "executed", "executed"]
    assert [r.number for r in res.lines["ann"]] == [1, 2, 3]   # reported in line order


def test_a_line_no_longer_legal_in_its_round_is_skipped_with_the_reason():
    res = _resolve(RULES, {"ann": "plant\nplant\nplant", "bob": "plant\nharvest"})
    bob = {r.text: r for r in res.lines["bob"]}
    assert bob["plant"].status == "skipped" and "no 'plant' order is legal now" in bob["plant"].reason
    assert bob["harvest"].status == "skipped"
    assert res.state["game"]["plots"] == ["ann", "ann", "ann"]


def test_a_line_of_step_none_runs_with_the_line_before_it():
    res = _resolve(RULES, {"ann": "harvest\nnote\nplant", "bob": "done"})
    # the note runs with the harvest (step 1), after it; bob's `done` is step 2
    assert res.state["game"]["log"] == ["ann:plant", "ann:harvest", "ann:note", "bob:done", "ann:done"]


def test_the_check_runs_a_submission_by_step_too():
    state, _ = engine.start(RULES, ["ann", "bob"], {}, "s")
    acks = engine.check_script(RULES, state, "ann", read_script("harvest\nplant"))
    assert [a.status for a in acks] == ["accepted", "accepted"]   # the harvest waits for the planting
    whole = WholeScripts({})
    acks = engine.check_script(whole, state, "ann", read_script("harvest\nplant"))
    assert [a.status for a in acks] == ["rejected", "accepted"]


def test_without_step_of_each_script_runs_whole_player_after_player():
    res = _resolve(WholeScripts({}), {"ann": "plant\nharvest", "bob": "plant"})
    assert res.state["game"]["log"] == ["ann:plant", "ann:harvest", "ann:done", "bob:plant", "bob:done"]
