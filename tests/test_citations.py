"""Every ruling names its rule (issue 18): each rejection and skip reason, and each event a
report shows, is cited by the section of the game's rules text it applies (or the CHOICE of
ours that decided), from the `[citations]` table of the game's data.toml; the
acknowledgement and the reports print the citations.

The coverage tests play each game at random and perturb the orders legal in the positions
met (a wrong hex or name, another player's order, an order after the actions are used up),
and fail on any event type or reason the game's table does not cite.

Adding a game: once its data.toml has a `[citations]` table, add its type to CITED."""

from __future__ import annotations

import copy
import inspect
import random
import re
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

from pbem import host
from pbem.core import citations, engine
from pbem.core.errors import DataError
from pbem.core.orders import read_script
from pbem.core.registry import games_dir, get_rules, load_data
from pbem.render import reports

CITED = ["gods", "deity", "yegods", "ohgods", "faith"]  # the games with a map from their rules to the text's sections
OPTIONS = {"deity": {"rounds": "10"}}
SEATS = {"gods": (2, 4), "deity": (2, 3), "yegods": (2, 3, 4), "ohgods": (3, 5), "faith": (2, 3)}

_HEX = re.compile(r"-?\d+,-?\d+$")
_INT = re.compile(r"\d+$")


def _kind(token: str) -> str:
    return "hex" if _HEX.match(token) else "int" if _INT.match(token) else "->" if token == "->" else "word"


def _perturbed(rules, state, players: list[str], rnd: random.Random) -> dict[str, list[str]]:
    """For each player, lines to check: some orders legal for them now, each with one token
    swapped for another of its kind (a wrong hex, card, name or number), and some orders of
    the other players (out of turn)."""
    vocab: dict[str, set[str]] = {"hex": {"0,0", "5,5", "-3,2", "99,-99"}, "int": {"0", "1", "2", "3", "7", "40"}, "word": set()}
    legal = {p: rules.legal_orders(state, p) for p in players}
    for orders in legal.values():
        for order in orders[:400]:
            for tok in order.tokens[1:]:
                vocab.setdefault(_kind(tok), set()).add(tok)
    pools = {k: sorted(v) for k, v in vocab.items()}
    out = {}
    for p in players:
        mine = legal[p]
        others = [o for q in players if q != p for o in legal[q][:80]]
        lines = []
        for order in rnd.sample(mine, min(8, len(mine))) + rnd.sample(others, min(4, len(others))):
            toks = list(order.tokens)
            lines.append(" ".join(toks))
            for _ in range(4):
                if len(toks) < 2:
                    break
                i = rnd.randrange(1, len(toks))
                swapped = list(toks)
                swapped[i] = rnd.choice(pools.get(_kind(toks[i]), [toks[i]]) or [toks[i]])
                lines.append(" ".join(swapped))
        out[p] = lines
    return out


@lru_cache(maxsize=None)
def rulings(game_type: str) -> tuple[dict, dict]:
    """Random play-outs of a game: {event type: an example event} of every event they made,
    and {reason: the line} of every rejection and skip met on the way."""
    rules = get_rules(game_type)
    events: dict[str, dict] = {}
    reasons: dict[str, str] = {}
    games = 0
    for n in SEATS[game_type]:
        players = ["ann", "bob", "cyd", "dan", "eve", "fay"][:n]
        for seed in range(2):
            games += 1
            state, evs = engine.start(rules, players, OPTIONS.get(game_type, {}), f"cite-{n}-{seed}")
            rnd = random.Random(f"{n}-{seed}")
            for step in range(160):
                for e in evs:
                    events.setdefault(e["type"], e)
                    if e["type"] == "skipped":
                        reasons.setdefault(e["reason"], e["text"])
                if state["flow"].get("over"):
                    break
                asked = engine.active_players(rules, state)
                if step % 4 == 0:
                    for p, lines in _perturbed(rules, state, players, rnd).items():
                        scripts = [[line] for line in lines]
                        if p in asked:  # after a whole turn's orders, the actions are used up
                            scripts.append(host.bot_script(rules, state, p, random.Random(step)) + lines[:6])
                        for script in scripts:
                            for r in engine.check_script(rules, state, p, read_script("\n".join(script)), worlds_n=1):
                                if r.reason and r.status != "ignored":
                                    reasons.setdefault(r.reason, r.text)
                scripts = {p: read_script("\n".join(host.bot_script(rules, state, p, rnd))) for p in asked}
                res = engine.resolve(rules, state, scripts, f"cite-{n}-{seed}")
                state, evs = res.state, res.events
            for e in evs:
                events.setdefault(e["type"], e)
    return events, reasons


def scenario_reasons(game_type: str) -> list[tuple[str, str]]:
    """(file, reason) of every expect_rejected in a game's scenarios."""
    out = []

    def walk(node, name):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "expect_rejected" and isinstance(v, list):
                    out.extend((name, item["reason"]) for item in v if isinstance(item, dict) and "reason" in item)
                else:
                    walk(v, name)
        elif isinstance(node, list):
            for v in node:
                walk(v, name)

    for path in sorted((games_dir() / game_type / "scenarios").glob("*.toml")):
        walk(tomllib.loads(path.read_text(encoding="utf-8")), path.name)
    return out


# --- coverage: every event type and every reason is cited -------------------------------------

@pytest.mark.parametrize("game_type", CITED)
def test_every_event_type_has_a_citation(game_type):
    rules = get_rules(game_type)
    events, _ = rulings(game_type)
    assert len(events) >= 10, f"{game_type}: the play-outs made too few kinds of event to prove anything"
    missing = {t: e for t, e in events.items() if not citations.cite_event(rules.data, e)}
    assert not missing, f"{game_type}: event types with no citation: {sorted(missing)}"


@pytest.mark.parametrize("game_type", CITED)
def test_every_rejection_reason_has_a_citation(game_type):
    rules = get_rules(game_type)
    _, reasons = rulings(game_type)
    assert len(reasons) >= 20, f"{game_type}: too few rejections met to prove anything"
    missing = sorted({citations.clean(r, t) for r, t in reasons.items() if not citations.cite_reason(rules.data, r, t)})
    assert not missing, f"{game_type}: {len(missing)} reasons with no citation, e.g.:\n" + "\n".join(missing[:40])


@pytest.mark.parametrize("game_type", CITED)
def test_every_scenario_rejection_has_a_citation(game_type):
    rules = get_rules(game_type)
    found = scenario_reasons(game_type)
    missing = [(name, reason) for name, reason in found if not citations.cite_reason(rules.data, reason)]
    assert not missing, f"{game_type}: scenario rejections with no citation: {missing}"


@pytest.mark.parametrize("game_type", CITED)
def test_every_event_type_the_templates_know_has_a_citation(game_type):
    """Event types a play-out may not meet (rare cards, endings): every type the game's
    report template (or its event lines in plain Python, pbem.render.reports.EVENT_LINES)
    names has a citation too."""
    rules = get_rules(game_type)
    if game_type in reports.EVENT_LINES:
        source = Path(inspect.getsourcefile(reports.EVENT_LINES[game_type]))
    else:
        source = (games_dir().parent / "templates" / game_type / "events.j2")
    if not source.exists():
        from pbem.core.registry import templates_dir
        source = templates_dir() / game_type / "events.j2"
    types = set(re.findall(r'(?:e\.type|etype) == "(\w+)"', source.read_text(encoding="utf-8")))
    assert types
    events = citations.table(rules.data)["events"]
    # a type cited only by its fields (Deity's `play`, by the card) has entries `type:...` or `*:...`
    by_field = {k.split(":")[0] for k in events if ":" in k}
    missing = sorted(t for t in types if not citations.cite_event(rules.data, {"type": t})
                     and t not in by_field and "*" not in by_field)
    assert not missing, f"{game_type}: event types in its template with no citation: {missing}"


@pytest.mark.parametrize("game_type", CITED)
def test_the_engine_events_and_reasons_are_cited(game_type):
    data = get_rules(game_type).data
    for etype in ("order", "skipped", "default", "nmr", "forced"):
        assert citations.cite_event(data, {"type": etype, "player": "ann", "order": "x"}), (game_type, etype)
    for reason in ("'x': it is not your turn",
                   "'x': your part of this turn is over (the orders before it used up your actions)",
                   "'x': unknown order 'x'; orders are: a, b",
                   "'x y' is ambiguous: it could be 'x y1', 'x y2'",
                   "'x': not legal now", "'x': no 'x' order is legal now"):
        assert citations.cite_reason(data, reason, "x y" if "x y" in reason else "x"), (game_type, reason)


# --- the mechanism -------------------------------------------------------------------------------

DATA = {"citations": {
    "rules": "A Game",
    "events": {"draw": "Draw", "draw:name=schism": "Cards: Schism", "skipped": "Sequence of play"},
    "reasons": {"not adjoin": "Placing", "does not adjoin any card": "Placing, must adjoin", "not your turn": "Sequence of play"},
}}


def test_the_longest_fragment_wins():
    assert citations.cite_reason(DATA, "line 3, column 1: 'temple 9,9': 9,9 does not adjoin any card\n    temple 9,9\n    ^",
                                 "temple 9,9") == "Placing, must adjoin"
    assert citations.cite_reason(DATA, "'x': the hexes do not adjoin", "x") == "Placing"


def test_the_players_own_words_never_choose_the_citation():
    # the quoted line and the did-you-mean hint are cut off before matching
    assert citations.cite_reason(DATA, "'not your turn 1,0': unknown order 'not'", "not your turn 1,0") == citations.ORDER_LANGUAGE
    assert citations.cite_reason(DATA, "'x': too dear; did you mean 'does not adjoin any card'?", "x") is None


def test_an_event_is_cited_by_a_field_before_its_type():
    assert citations.cite_event(DATA, {"type": "draw", "name": "Schism"}) == "Cards: Schism"
    assert citations.cite_event(DATA, {"type": "draw", "name": "Saint"}) == "Draw"
    assert citations.cite_event(DATA, {"type": "skipped", "reason": "'a': 1,0 does not adjoin any card", "text": "a"}) == "Placing, must adjoin"
    assert citations.cite_event(DATA, {"type": "skipped", "reason": "'a': what?", "text": "a"}) == "Sequence of play"
    assert citations.cite_event(DATA, {"type": "nothing"}) is None


def test_a_game_without_a_table_still_works():
    assert citations.cite_event({}, {"type": "draw"}) is None
    assert citations.cite_reason({}, "'x': 9,9 does not adjoin any card", "x") is None
    assert citations.cite_reason(None, "'x': unknown order 'x'", "x") == citations.ORDER_LANGUAGE
    citations.validate({})


@pytest.mark.parametrize("bad", [
    {"citations": {"events": {"draw": ""}}},
    {"citations": {"reasons": {"x": 3}}},
    {"citations": {"reasons": {" ": "A"}}},
    {"citations": {"events": ["draw"]}},
    {"citations": {"event": {"draw": "Draw"}}},
    {"citations": "yes"},
])
def test_a_bad_table_is_refused_on_load(bad):
    with pytest.raises(DataError):
        citations.validate(bad)


@pytest.mark.parametrize("game_type", CITED)
def test_each_game_table_is_valid_and_names_its_text(game_type):
    data = load_data(game_type)
    citations.validate(data)
    assert citations.rules_text(data)
    cited = set(citations.table(data)["events"].values()) | set(citations.table(data)["reasons"].values())
    text = " ".join(line.lstrip("# ") for line in (games_dir() / game_type / "data.toml").read_text(encoding="utf-8").splitlines())
    for c in cited:  # a cited CHOICE is one data.toml writes down, under that name
        for name in re.findall(r"CHOICE: ([^;()]+)", c):
            assert f"CHOICE: {name.strip()}" in text, f"{game_type}: {c!r} names no CHOICE of data.toml"


def test_copying_the_data_does_not_share_the_table():
    data = copy.deepcopy(load_data("gods"))
    data["citations"]["events"]["tribe"] = "changed"
    assert citations.cite_event(get_rules("gods").data, {"type": "tribe"}) != "changed"


# --- the acknowledgement and the reports print them ------------------------------------------------

def test_the_acknowledgement_cites_the_rule_of_each_rejected_line(cli, tmp_path):
    from gods_helpers import new_game, text

    pw = new_game(cli)
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["temple 9,9", "tempel 1,0"]))
    assert r.exit_code == 2, r.stdout
    lines = r.stdout.splitlines()
    far = next(ln for ln in lines if "REJECTED" in ln and "9,9" in ln)
    assert far.endswith("[The actions in detail: it must adjoin at least one card that is already there]"), far
    typo = next(ln for ln in lines if "REJECTED" in ln and "tempel" in ln)
    assert typo.endswith("[pbem orders]"), typo
    assert "[...] names the rule each ruling applies" in r.stdout
    r = cli("submit", "g1", "bob", "-", input=text("bob", pw["bob"], ["discard green"]))
    assert "it is not your turn [Course of the game: play proceeds clockwise]" in r.stdout, r.stdout


def test_an_accepted_submission_cites_nothing(cli, tmp_path):
    from gods_helpers import legal_lines, new_game, text
    from pbem.host.store import open_db

    pw = new_game(cli)
    lines = legal_lines(open_db(str(tmp_path / "pbem.db")), "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines))
    assert r.exit_code == 0 and "[" not in r.stdout.split("=\n", 1)[1], r.stdout


def test_the_reports_cite_each_event_and_each_skipped_line(cli, tmp_path):
    from gods_helpers import legal_lines, new_game, text
    from pbem.host.store import open_db
    from pbem.render.html import render_html_report

    pw = new_game(cli)
    db = open_db(str(tmp_path / "pbem.db"))
    lines = legal_lines(db, "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["temple 9,9"] + lines + ["READY"]))
    assert "READY" in r.stdout
    assert cli("resolve", "g1").exit_code == 0
    mine = cli("report", "g1", "--player", "alice", "--turn", "2").stdout
    skipped = next(ln for ln in mine.splitlines() if "was skipped" in ln)
    assert skipped.endswith("[The actions in detail: it must adjoin at least one card that is already there]"), skipped
    assert re.search(r"bob gathers strength: .*\[Course of the game, 1\) Gather strength\]$", mine, re.M), mine
    assert "a section of the rules text (GODS by Michael Schacht" in mine
    public = cli("report", "g1", "--turn", "2").stdout
    assert "was skipped" not in public and "9,9" not in public  # alice's skipped line stays hers
    assert "[Course of the game, 1) Gather strength]" in public
    page = render_html_report(db, "g1", "alice", 2)
    assert '<span class="rule" title="the rule this applies">[The actions in detail: it must adjoin' in page
    assert '[Course of the game, 1) Gather strength]</span>' in render_html_report(db, "g1", None, 2)


def test_the_site_turn_pages_cite_the_public_events(cli, tmp_path):
    from pbem.site.publish import publish

    from gods_helpers import legal_lines, new_game, text
    from pbem.host.store import open_db

    pw = new_game(cli)
    db = open_db(str(tmp_path / "pbem.db"))
    cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["temple 9,9"] + legal_lines(db, "alice") + ["READY"]))
    assert cli("resolve", "g1").exit_code == 0
    publish(db, tmp_path / "site")
    page = (tmp_path / "site" / "games" / "g1" / "turn-2.html").read_text(encoding="utf-8")
    assert "[Course of the game, 1) Gather strength]" in page
    assert "must adjoin" not in page  # the skipped line is alice's alone
