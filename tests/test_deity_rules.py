"""Deity: the rules that are not one position and one order (those are the scenarios in
games/deity/scenarios/): both ways of building the world, the data and options checks, what
each player may see, the order language, the map drawing and the shipped documentation."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from pbem.core import engine, hexgrid
from pbem.render import reports
from pbem.core.errors import AmbiguousOrderError, DataError, IllegalOrderError
from pbem.core.orders import read_script
from pbem.core.registry import games_dir, get_rules, load_data
from pbem.core.rng import Rng

RULES = get_rules("deity")
DATA = load_data("deity")
TERRAIN = Counter({t["id"]: t["count"] for t in DATA["terrain"]})


def _connected(keys: set, nbrs: dict) -> bool:
    todo, seen = [next(iter(keys))], set()
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        todo += [n for n in nbrs[k] if n in keys]
    return seen == keys


def check_world(g: dict) -> None:
    geo = RULES._geo(g)
    land = g["land"]
    assert set(land) <= geo.onmap
    assert len(land) + len(g["reserve"]) == 60
    assert Counter(c["terrain"] for c in land.values()) + Counter(g["reserve"]) == TERRAIN
    assert len(g["reserve"]) >= DATA["rules"]["reserve"]
    assert _connected(set(land), geo.nbrs), "every counter is placed next to one already placed"
    for k, c in land.items():
        if c["terrain"] == "river":
            assert any(n not in land for n in geo.nbrs[k]), f"river valley {k} has no water side"


@pytest.mark.parametrize("size", ["10", "12"])
def test_random_world_is_a_valid_world(size):
    """world=random: the engine draws and places the 55 counters by the placing rules."""
    for seed in range(25):
        state, events = engine.start(RULES, ["a", "b", "c"], {"size": size}, f"w{seed}")
        g = state["game"]
        check_world(g)
        assert len(g["reserve"]) == 5 and not g["pile"]
        assert g["size"] == int(size)
        assert state["flow"]["phase"] == "setup" and state["flow"]["sealed"]
        built = next(e for e in events if e["type"] == "world_built")
        assert built["land"] == 55 and sum(built["counts"].values()) == 55
    # the seed decides the world
    a = engine.start(RULES, ["a", "b"], {}, "same")[0]["game"]["land"]
    b = engine.start(RULES, ["a", "b"], {}, "same")[0]["game"]["land"]
    c = engine.start(RULES, ["a", "b"], {}, "other")[0]["game"]["land"]
    assert a == b and a != c


def test_manual_world_building_to_the_end():
    """world=manual: one counter a resolution, players in turn, with redraws; unanswered
    turns place the counter by default; when the pile is out the set-up begins."""
    state, _ = engine.start(RULES, ["a", "b", "c"], {"world": "manual"}, "manual-1")
    g = state["game"]
    assert state["flow"]["phase"] == "world" and state["flow"]["active"] == ["a"]
    assert len(g["pile"]) == 54 and g["world"]["drawn"]
    placers = []
    redraws = Counter()
    for step in range(200):
        if state["flow"]["phase"] != "world":
            break
        p = state["flow"]["active"][0]
        placers.append(p)
        lines = []
        if redraws[p] < 2 and step % 7 == 0 and g["pile"]:
            lines.append("redraw")
            redraws[p] += 1
        res = engine.resolve(RULES, state, {p: read_script("\n".join(lines))} if lines else {p: None}, "manual-1")
        state, g = res.state, res.state["game"]
        assert all(r.status == "executed" for r in res.lines.get(p, []))
        for k, c in g["land"].items():
            if c["terrain"] == "river":
                assert any(n not in g["land"] for n in RULES._geo(g).nbrs[k])
    assert state["flow"]["phase"] == "setup"
    check_world(g)
    assert g["world"]["placed"] == len(g["land"])
    assert placers[:6] == ["a", "b", "c", "a", "b", "c"]
    assert all(g["world"]["redraws"][p] == 2 - redraws[p] for p in "abc")


def test_manual_world_first_counter_anywhere_then_adjacent():
    state, _ = engine.start(RULES, ["a", "b"], {"world": "manual"}, "manual-2")
    g = state["game"]
    first = {o.text for o in RULES.legal_orders(state, "a") if o.verb == "put"}
    if g["world"]["drawn"] != "river":
        assert len(first) == 100  # anywhere on the 10x10 map
    res = engine.resolve(RULES, state, {"a": read_script("put 4,4")}, "manual-2")
    legal = {o.text for o in RULES.legal_orders(res.state, "b") if o.verb == "put"}
    assert legal <= {"put 5,4", "put 3,4", "put 4,5", "put 4,3", "put 5,3", "put 3,5"}
    assert legal


def test_options_and_data_are_checked():
    with pytest.raises(DataError, match="size must be one of 10, 12"):
        RULES.setup(["a", "b"], {"size": "11"}, Rng("x", 0))
    with pytest.raises(DataError, match="world must be 'random' or 'manual'"):
        RULES.setup(["a", "b"], {"world": "auto"}, Rng("x", 0))
    with pytest.raises(DataError, match="unknown option"):
        RULES.setup(["a", "b"], {"colour": "red"}, Rng("x", 0))
    with pytest.raises(DataError, match="rounds must be a whole number"):
        RULES.setup(["a", "b"], {"rounds": "-3"}, Rng("x", 0))
    bad = copy.deepcopy(DATA)
    bad["terrain"][0]["count"] = 9
    with pytest.raises(DataError, match="must number 60, not 59"):
        type(RULES)(bad)
    bad = copy.deepcopy(DATA)
    bad["cards"][3]["target"] = "moon"
    with pytest.raises(DataError, match="unknown target 'moon'"):
        type(RULES)(bad)
    bad = copy.deepcopy(DATA)
    del bad["cards"][-1]
    with pytest.raises(DataError, match="26 distinct cards"):
        type(RULES)(bad)


def test_the_deck_holds_two_of_each_of_the_26_cards():
    state, _ = engine.start(RULES, ["a", "b"], {}, "deck")
    deck = Counter(state["game"]["deck"])
    assert len(deck) == 26 and set(deck.values()) == {2}


def test_start_random_option_rotates_the_order():
    starters = set()
    for seed in range(12):
        state, events = engine.start(RULES, ["a", "b", "c"], {"start": "random"}, f"s{seed}")
        first = next(e["player"] for e in events if e["type"] == "first_player")
        assert state["game"]["order"][0] == first
        assert state["flow"]["active"][0] == first
        starters.add(first)
    assert len(starters) > 1


def _a_game_in_play(seed="views") -> dict:
    state, _ = engine.start(RULES, ["a", "b", "c"], {}, seed)
    res = engine.resolve(RULES, state, {p: None for p in "abc"}, seed)
    state = res.state
    g = state["game"]
    g["hands"]["b"] = ["earthquake", "godspeed"]
    g["hands"]["c"] = ["abjuration"]
    g["standing"]["c"] = {"abjure": [{"card": "earthquake", "mine": True}], "resurrect": 2}
    return state


def test_views_hold_nothing_a_player_may_not_see():
    state = _a_game_in_play()
    g = state["game"]
    public = RULES.view(state, None)
    text = json.dumps(public)
    for secret in ("hand", "standing", "deck", "reserve", "pile", "start_choices"):
        assert secret not in public
    assert str(g["reserve"]) not in text
    for p in "abc":
        v = RULES.view(state, p)
        assert v["you"] == p
        assert [c["id"] for c in v["hand"]] == g["hands"][p]
        assert v["standing"]["resurrect"] == g["standing"][p]["resurrect"]
        others = json.dumps({k: val for k, val in v.items() if k not in ("hand", "standing")})
        assert "Godspeed" not in others and "godspeed" not in others  # b's card, never discarded
    assert [p["hand"] for p in public["players"]] == [len(g["hands"][p]) for p in "abc"]


def test_sealed_start_choices_stay_hidden_until_served():
    state, _ = engine.start(RULES, ["a", "b"], {}, "sealed")
    plains = [o.text for o in RULES.legal_orders(state, "a")]
    script = read_script("\n".join(plains[:3]))
    acks = engine.check_script(RULES, state, "a", script)
    assert [r.status for r in acks] == ["accepted"] * 3, "a list of choices is all accepted"
    res = engine.resolve(RULES, state, {"a": script, "b": None}, "sealed")
    shown = reports.visible_events(res.events, "b")
    assert not [e for e in shown if e["type"] in ("start_choice", "order") and e["player"] == "a"]
    assert [e for e in reports.visible_events(res.events, "a") if e["type"] == "start_choice" and e["player"] == "a"]
    placed = [e for e in res.events if e["type"] == "start_place"]
    assert [e["player"] for e in placed] == ["a", "b"]
    assert placed[0]["at"] == plains[0].split()[1] and placed[0]["choice"] == 1


def test_reports_show_the_map_hand_privately_and_the_order_form(db, turns):
    from pbem import host

    host.new_game(db, "deity", "r1", ["ann", "bob"], seed="12", turns=turns)
    host.submit(db, "r1", "ann", b"start 0,0\n", trusted=True)
    host.resolve(db, ["r1"], force=True, turns=turns)
    folder = turns / "r1" / "2" / "reports"
    ann, bob, public = ((folder / f"{w}.txt").read_text() for w in ("ann", "bob", "public"))
    state = json.loads(db["phases"].get(("r1", 2))["state"])
    g = state["game"]
    for text in (ann, bob, public):
        assert "The world (10x10 hexes)" in text and " 0,0 " in text and "~~~" in text
        assert "Owners: A = ann, B = bob." in text
    assert "Your hand (1 card; private)" in ann and "Your hand" not in public
    drawn = RULES.cards[g["hands"]["ann"][0]]["name"]
    assert f"You drew: {drawn}." in ann and "You drew" not in bob and "You drew" not in public
    assert "# Your legal orders now" in ann and "PLAYER ann" in ann
    assert "It is not your turn: waiting for ann." in bob
    assert "# pass: end your turn" in ann


def test_no_round_limit_by_default_and_every_report_states_the_end(db, turns):
    """The text has no turn limit, nor has a game by default; a limit is the GM's option
    (`rounds=N`), and the text reports and the public view the site shows say how the game ends."""
    from pbem import host
    from pbem.render import html

    assert DATA["options"]["rounds"] == 0
    assert "0 (default) = no limit" in RULES.info.options["rounds"]
    for gid, opts, said in (("n1", {}, "There is no round limit: the game goes on until one god is left"),
                            ("n2", {"rounds": "12"}, ("The game ends after round 12 if more than one god is still in; "
                                                      "then the highest score"))):
        host.new_game(db, "deity", gid, ["ann", "bob"], seed="12", options=opts, turns=turns)
        host.submit(db, gid, "ann", b"start 0,0\n", trusted=True)
        host.resolve(db, [gid], force=True, turns=turns)
        state = json.loads(db["phases"].get((gid, 2))["state"])
        assert state["game"]["round_limit"] == int(opts.get("rounds", 0))
        public = RULES.view(state, None)
        assert said in public["game_end"]
        assert any(said in d["value"] for d in html.details(RULES, public))
        for who in ("ann", "bob", "public"):
            text = (turns / gid / "2" / "reports" / f"{who}.txt").read_text()
            assert said in text, (gid, who)
            assert ("Round 1 of 12;" in text) == bool(opts)


def test_order_language_prefixes_aliases_and_errors():
    state = _a_game_in_play("lang")
    g = state["game"]
    me = state["flow"]["active"][0]
    g["hands"][me] = ["tidal_wave", "fire", "famine", "draught"]
    g["turn"]["step"] = "miracle"
    coastal = next(k for k in RULES._land_keys(g) if RULES._coastal(g, k) and g["land"][k]["owner"])
    desert = next(k for k in RULES._land_keys(g) if g["land"][k]["terrain"] == "desert")

    def check(text):
        return engine.check_script(RULES, state, me, read_script(text))[0]

    assert check(f"pl tid {coastal}").order == f"play tidal wave {coastal}"
    assert check(f"PLAY Tidal Wave {coastal}").status == "accepted"
    assert check(f"play drought {desert}").order == f"play draught {desert}"
    assert check(f"play f {desert}").order == f"play famine {desert}"  # the only f-card legal there
    g["land"][desert].update(terrain="forest", owner=me, pop=2)
    r = check(f"play f {desert}")
    assert r.status == "rejected" and "ambiguous" in r.reason  # now Fire could burn it too
    r = check("play earthquake 0,0")
    assert r.status == "rejected" and "you hold no Earthquake card" in r.reason
    r = check("plya fire 0,0")
    assert "did you mean 'play'" in r.reason
    r = check("abjure famine on my hexes")
    assert r.status == "accepted" and r.order == "abjure famine on my hexes"


def test_attack_all_and_retreat_spelling():
    state = _a_game_in_play("attack")
    g = state["game"]
    me = state["flow"]["active"][0]
    other = next(p for p in "abc" if p != me)
    g["land"] = {
        "2,2": {"terrain": "plains", "owner": me, "pop": 1, "armies": 3, "monsters": 0, "temple": False, "blight": None},
        "3,2": {"terrain": "plains", "owner": other, "pop": 1, "armies": 0, "monsters": 0, "temple": False, "blight": None},
    }
    g["turn"]["step"] = "battle"
    # an attack to the end is spelt without `retreat` (as ORDERS.md writes it); `retreat 0` may be typed
    acks = engine.check_script(RULES, state, me, read_script("attack 2,2 -> 3,2"))
    assert acks[0].order == "attack 2,2 -> 3,2 3"
    acks = engine.check_script(RULES, state, me, read_script("attack 2,2 to 3,2 2"))
    assert acks[0].order == "attack 2,2 -> 3,2 2"
    acks = engine.check_script(RULES, state, me, read_script("attack 2,2 -> 3,2 2 retreat 0"))
    assert acks[0].order == "attack 2,2 -> 3,2 2"
    acks = engine.check_script(RULES, state, me, read_script("attack (2, 2) -> (3, 2) retreat 1"))
    assert acks[0].order == "attack 2,2 -> 3,2 3 retreat 1"


def _blank(**kw) -> dict:
    return {"terrain": "plains", "owner": None, "pop": 0, "armies": 0, "monsters": 0, "temple": False, "blight": None, **kw}


def test_the_acknowledgement_does_not_reveal_the_other_players_standing_orders():
    """Another player's standing Abjuration would negate the Earthquake: the check must not
    play it (so the move after it is not rejected for a reason only that order explains)."""
    state = _a_game_in_play("privacy")
    g = state["game"]
    me = state["flow"]["active"][0]
    other = next(p for p in "abc" if p != me)
    third = next(p for p in "abc" if p not in (me, other))
    g["land"] = {"2,2": _blank(owner=me, pop=4), "3,2": _blank(owner=other, pop=1), "6,6": _blank(owner=other, pop=3),
                 "0,8": _blank(owner=third, pop=3)}
    g["turn"]["step"] = "miracle"
    g["hands"][me] = ["earthquake"]
    g["hands"][other] = ["abjuration"]
    g["standing"][other] = {"abjure": [{"card": "earthquake", "mine": True}], "resurrect": 0}
    acks = engine.check_script(RULES, state, me, read_script("play earthquake 3,2\nmove 1 pop 2,2 -> 3,2"))
    assert [a.status for a in acks] == ["accepted", "accepted"]
    res = engine.resolve(RULES, state, {me: read_script("play earthquake 3,2\nmove 1 pop 2,2 -> 3,2")}, "privacy")
    assert any(e["type"] == "negated" for e in res.events)
    assert [r.status for r in res.lines[me]] == ["executed", "skipped"]


def test_an_order_of_a_later_step_is_judged_when_its_step_comes():
    """Before the Miracle phase a move into a hex of one's own blight is accepted (the blight
    may go on its roll at the start of that phase); into another god's blight, not rolled in
    this turn, it is refused. At resolution the move is carried out or void, as the roll says."""
    state = _a_game_in_play("later")
    g = state["game"]
    me = state["flow"]["active"][0]
    other = next(p for p in "abc" if p != me)
    third = next(p for p in "abc" if p not in (me, other))
    g["land"] = {"2,2": _blank(owner=me, pop=4), "3,2": _blank(blight=me), "1,2": _blank(blight=other),
                 "6,6": _blank(owner=other, pop=2), "5,6": _blank(), "0,8": _blank(owner=third, pop=3)}
    g["turn"]["step"] = "temple"
    ok = engine.check_script(RULES, state, me, read_script("move 1 pop 2,2 -> 3,2"))[0]
    # legal only if the blight goes on its roll: "accepted, if the dice allow", with the reason
    assert ok.status == "accepted" and "depends on earlier dice" in ok.reason and "3,2 is blighted" in ok.reason
    bad = engine.check_script(RULES, state, me, read_script("move 1 pop 2,2 -> 1,2"))[0]
    assert bad.status == "rejected" and "1,2 is blighted" in bad.reason
    outcomes = set()
    for seed in range(40):
        res = engine.resolve(RULES, state, {me: read_script("move 1 pop 2,2 -> 3,2")}, f"later-{seed}")
        roll = next(e for e in res.events if e["type"] == "blight_roll")
        void = [e for e in res.events if e["type"] == "void"]
        land = res.state["game"]["land"]
        if roll["gone"]:
            assert not void and land["3,2"]["owner"] == me and land["3,2"]["pop"] == 1
        else:
            assert void and "3,2 is blighted" in void[0]["reason"] and land["3,2"]["owner"] is None
        outcomes.add(roll["gone"])
    assert outcomes == {True, False}


def test_hexgrid_draws_labels_of_several_lines():
    text = hexgrid.draw({"0,0": "Pl AT\n12/3", "1,0": "Mt"}, {"0,1": "~~~"})
    lines = text.splitlines()
    assert lines[0].split() == ["0,0", "1,0"]
    assert "[Pl AT]" in lines[1] and "[ 12/3]" in lines[2]
    assert "[  Mt ]" in lines[1] and "[     ]" in lines[2]
    # single-line labels are drawn as before
    assert hexgrid.draw({"0,0": "abc"}).splitlines()[1] == " [abc]"
    # a row of one-line labels (drawn directly, issue 17) is laid out as a row with a label of several lines
    assert hexgrid.draw({"0,0": "ab", "2,0": "cd", "-1,1": "x\ny"}, {"1,1": "."}).splitlines() == [
        "      0,0             2,0",
        "      [ab]            [cd]",
        "",
        "  -1,1            1,1",
        "[  x  ]            .",
        "[  y  ]",
    ]


def test_hexgrid_labels_each_card_by_the_format_of_its_kind():
    cards = [{"at": "0,0", "kind": "tribe", "colour": "green", "god": None},
             {"at": "1,0", "kind": "tribe", "colour": "orange", "god": "zeus"},
             {"at": "0,1", "kind": "temple", "god": "hera"}, {"at": "-1,1", "kind": "wasteland"}]
    labels = hexgrid.labels(cards, {"tribe": "{colour:.2}/{god:.2}", "temple": "T/{god:.2}"}, other="~~~")
    assert labels == {"0,0": "gr/--", "1,0": "or/ze", "0,1": "T/he", "-1,1": "~~~"}


def test_orders_doc_names_every_verb_and_card():
    doc = (games_dir() / "deity" / "ORDERS.md").read_text()
    for verb in RULES.grammar.verbs:
        assert f"`{verb}" in doc, f"ORDERS.md does not show the verb {verb}"
    for card in DATA["cards"]:
        assert card["name"] in doc, f"ORDERS.md does not name {card['name']}"
    form = (games_dir().parent / "templates" / "deity" / "events.j2").read_text()
    for card in DATA["cards"]:
        assert f'"{card["id"]}": "{card["name"]}"' in form


def test_illegal_orders_quote_the_input():
    state = _a_game_in_play("quote")
    me = state["flow"]["active"][0]
    r = engine.check_script(RULES, state, me, read_script("temple 99,99"))[0]
    assert r.status == "rejected" and "'temple 99,99'" in r.reason and "99,99 is not on the map" in r.reason
    other = next(p for p in "abc" if p != me)
    r = engine.check_script(RULES, state, other, read_script("temple 0,0"))[0]
    assert "not your turn" in r.reason
    with pytest.raises((IllegalOrderError, AmbiguousOrderError)):
        from pbem.core.orders import match_order

        line = read_script("move 1 pop 0,0 -> 9,9").lines[0]
        match_order(RULES.grammar, RULES.legal_orders(state, me), line, lambda t: RULES.why_illegal(state, me, t))
