"""Maps and charts (pbem/svg.py and the map templates): colours that survive colour-blindness,
labels that contrast with their fills, geometry, and that every map shows what its view holds."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest
from test_site_lib import make_game

from pbem.render import html as render_html
from pbem.render import svg
from pbem.core.registry import game_types, get_rules, load_data, templates_dir
from pbem.host.store import loads, open_db

SVG = "{http://www.w3.org/2000/svg}"
MIN_DELTA_E = 15  # CIE76; ~2.3 is "just noticeable", 10+ is clearly apart


def _game_colour_sets() -> dict[str, list[str]]:
    """The colour words each game gives its players and pieces (from its data files)."""
    sets: dict[str, list[str]] = {}
    for gtype in game_types():
        data = load_data(gtype)
        rules = data.get("rules", {})
        if "god_colours" in rules:
            sets[f"{gtype} gods"] = list(rules["god_colours"])
        if "tribe_colours" in rules:
            sets[f"{gtype} tribes"] = list(rules["tribe_colours"])
        gods = data.get("gods")
        if isinstance(gods, list) and gods and all(isinstance(g, dict) and "colour" in g for g in gods):
            sets[f"{gtype} gods"] = [g["colour"] for g in gods]
    return sets


def test_every_colour_word_of_every_game_has_a_palette_colour():
    sets = _game_colour_sets()
    assert "gods gods" in sets and "gods tribes" in sets
    for name, words in sets.items():
        for w in words:
            assert w.lower() in svg.COLOURS, f"{name}: no palette colour for '{w}'"


@pytest.mark.parametrize("kind", [None, *svg.CVD_KINDS])
def test_colours_of_one_game_stay_apart_with_colour_blindness(kind):
    """Within each set of colours a game uses together, every pair stays apart for normal
    vision and as simulated for protanopia, deuteranopia and tritanopia (Machado 2009)."""
    for name, words in _game_colour_sets().items():
        fills = [svg.fill(w) for w in words]
        for (wa, a), (wb, b) in itertools.combinations(zip(words, fills), 2):
            d = svg.delta_e(a, b, kind)
            assert d >= MIN_DELTA_E, f"{name}: {wa} and {wb} are {d:.1f} apart for {kind or 'normal vision'}"


def test_okabe_ito_palette_and_the_simulation():
    assert svg.fill("red") == svg.OKABE_ITO["vermillion"] and svg.fill("blue") == svg.OKABE_ITO["blue"]
    assert svg.fill("#0072b2") == "#0072B2" and svg.fill("no-such-colour") == svg.NEUTRAL
    assert svg.fill('"><script>') == svg.NEUTRAL  # a colour is never copied into a drawing as given
    # The classic confusion: red and green almost merge for a deuteranope, unlike Okabe-Ito's.
    assert svg.delta_e("#FF0000", "#00FF00", "deuteranopia") < svg.delta_e("#D55E00", "#009E73", "deuteranopia")
    assert svg.delta_e("#123456", "#123456") == 0


def test_labels_contrast_with_their_fills():
    for colour in set(svg.COLOURS.values()) | set(svg.SERIES) | {svg.NEUTRAL, svg.WATER}:
        assert svg.contrast(colour, svg.ink(colour)) >= 4.5, colour


def test_hex_layout_puts_neighbours_side_by_side():
    lay = svg.hex_layout(["0,0", "1,0", "0,1", "-1,1", "5,-3"], size=30)
    a, b, c = lay["0,0"], lay["1,0"], lay["0,1"]
    assert abs(((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5 - 30 * svg.SQRT3) < 0.2
    assert abs(((a.x - c.x) ** 2 + (a.y - c.y) ** 2) ** 0.5 - 30 * svg.SQRT3) < 0.2
    for h in lay.cells.values():
        assert 0 < h.x < lay.width and 0 < h.y < lay.height
    assert set(svg.frontier(["0,0"])) == {"1,0", "-1,0", "0,1", "0,-1", "1,-1", "-1,1"}


def test_abbreviations_are_unique():
    assert svg.abbreviations(["athena", "bob", "zeus"]) == {"athena": "At", "bob": "Bo", "zeus": "Ze"}
    assert svg.abbreviations(["athena", "atlas", "zeus"]) == {"athena": "1", "atlas": "2", "zeus": "3"}


def test_chart_axes_cover_the_scores_and_labels_do_not_overlap():
    turns = list(range(1, 301))
    scores = {"a": [t % 7 - 4 for t in turns], "b": [t // 10 for t in turns], "c": [t // 10 for t in turns], "d": [None] * 300}
    chart = svg.standings_chart(turns, scores, {})
    assert not chart.empty
    ys = [y for y, _ in chart.yticks]
    values = [v for _, v in chart.yticks]
    assert min(values) <= -4 and max(values) >= 29
    assert values == sorted(values) and ys == sorted(ys, reverse=True)  # up the axis, up the page
    assert all(len(s.points) <= 161 for s in chart.series)  # long games are thinned
    assert [s.name for s in chart.series] == ["a", "b", "c"]  # no line for a player never scored
    labels = sorted(s.label_y for s in chart.series)
    assert all(b - a >= 14 for a, b in zip(labels, labels[1:]))
    assert len({s.dash for s in chart.series}) == 3 and len({s.shape for s in chart.series}) == 3
    markup = render_html.render_chart({"turns": turns, "scores": scores, "colours": {"a": "#D55E00"}})
    root = ET.fromstring(markup)
    assert root.tag == f"{SVG}svg" and root.find(f"{SVG}title").text == "Standings over time"
    assert render_html.render_chart(None) == "" and render_html.render_chart({"turns": [], "scores": {}, "colours": {}}) == ""


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A short game of each type with a map template, and its views."""
    db = open_db(str(tmp_path_factory.mktemp("svg") / "pbem.db"))
    views = {}
    for gtype in game_types():
        if not (templates_dir() / gtype / "map.svg.j2").is_file():
            continue
        make_game(db, gtype, f"{gtype}-m", seed="svg-1", finished=False, running_turns=12)
        last = db["games"].get(f"{gtype}-m")["phase"]
        state = loads(db["phases"].get((f"{gtype}-m", last))["state"])
        views[gtype] = get_rules(gtype).view(state, None)
    return views


def _texts(root) -> str:
    return " ".join(" ".join(t for t in root.itertext()).split())


def test_each_map_is_well_formed_svg_with_a_title_and_a_legend(played):
    assert {"gods", "yegods", "ohgods", "deity"} & set(played)
    for gtype, view in played.items():
        markup = render_html.render_map(gtype, view, uid="t", title=f"{gtype} test")
        root = ET.fromstring(markup)
        assert root.tag == f"{SVG}svg", gtype
        assert root.attrib["role"] == "img" and root.find(f"{SVG}title").text == f"{gtype} test"
        assert root.find(f".//{SVG}g[@class='legend']") is not None, gtype
        all_ids = [el.attrib["id"] for el in root.iter() if "id" in el.attrib]
        assert all(i.startswith("t-") for i in all_ids) and len(all_ids) == len(set(all_ids)), gtype


def test_the_gods_map_shows_every_card_and_names_every_god_and_tribe_colour(played):
    view = played["gods"]
    root = ET.fromstring(render_html.render_map("gods", view))
    text = _texts(root)
    cards = root.findall(f".//{SVG}g[@class]")
    on_board = [g for g in cards if g.attrib["class"].startswith("card ")]
    assert len(on_board) == len(view["board"])
    for cell in view["board"]:
        assert cell["at"] in text
    for p in view["players"]:
        assert f"{p['name']} ({p['colour']})" in text
    for colour in view["nation_stock"]:
        assert f"{colour} tribe" in text


def test_the_ye_gods_map_shows_owners_counts_crossings_and_deserts(played):
    if "yegods" not in played:
        pytest.fail("games/yegods has no map template")
    view = played["yegods"]
    root = ET.fromstring(render_html.render_map("yegods", view))
    text = _texts(root)
    provinces = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class", "").startswith("province")]
    assert len(provinces) == len(view["provinces"])
    crossings = {tuple(sorted((p["name"], n[:-1]))) for p in view["provinces"] for n in p["next_to"] if n.endswith("~")}
    dashed = [ln for ln in root.iter(f"{SVG}line") if ln.attrib.get("stroke-dasharray") and ln.find(f"{SVG}title") is not None]
    assert len(dashed) == len(crossings) > 0
    for p in view["provinces"]:
        box = next(g for g in provinces if g.find(f"{SVG}title").text.startswith(view["titles"][p["name"]] + ":"))
        btext = _texts(box)
        if p["desert"]:
            assert "desert" in box.attrib["class"]
            continue
        for god, n in p["worshippers"].items():
            if n or p["priests"][god] or p["saints"][god]:
                assert f"{n}w" in btext
        if p["heretics"]:
            assert f"{p['heretics']} heretic" in btext
        if p["owner"]:
            title = next(g["title"] for g in view["gods"] if g["god"] == p["owner"])
            assert f"owner: {title}" in btext
    for g in view["gods"]:
        assert g["title"] in text


def test_the_oh_gods_table_shows_altars_sets_and_scores(played):
    if "ohgods" not in played:
        pytest.fail("games/ohgods has no map template")
    view = played["ohgods"]
    root = ET.fromstring(render_html.render_map("ohgods", view))
    text = _texts(root)
    cards = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "card"]
    sets = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "set"]
    assert len(cards) == sum(len(p["altar"]) for p in view["players"])
    assert len(sets) == sum(len(p["sets"]) for p in view["players"])
    for p in view["players"]:
        assert p["name"] in text and f"score {p['score']}" in text
        for c in p["altar"]:
            assert c["name"] in text
    assert "Scores by hand" in text


def test_the_deity_map_shows_terrain_population_armies_and_temples(played):
    if "deity" not in played:
        pytest.fail("games/deity has no map template")
    view = played["deity"]
    root = ET.fromstring(render_html.render_map("deity", view))
    hexes = [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "hex"]
    assert len(hexes) == len(view["map_cells"])
    by_at = {g.find(f"{SVG}title").text.split(":")[0]: g for g in hexes}
    for c in view["cells"]:
        t = _texts(by_at[c["at"]])
        if c["pop"]:
            assert str(c["pop"]) in t
        if c["armies"]:
            assert f"A{c['armies']}" in t
        if c["owner"]:
            letter = next(p["letter"] for p in view["players"] if p["name"] == c["owner"])
            assert letter in t
    for t in view["terrain"]:
        assert t["name"] in _texts(root)
