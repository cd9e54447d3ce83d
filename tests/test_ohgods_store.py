"""Oh Gods! through the store: whole games replay to the same hashes, and nothing a player may
not see -- another player's hand, the contents of a face-down set, the deck -- reaches any
report, acknowledgement or status output that player can receive."""

from __future__ import annotations

import json
import random
import re

import pytest

from pbem import host
from pbem.render.reports import text_reports
from pbem.core.registry import get_rules, order_doc
from pbem.host.store import loads, open_db

RULES = get_rules("ohgods")
PLAYERS = ["xanthe", "yorick", "zelda"]


def play(db, game_id, players, seed, max_phases=None):
    host.new_game(db, "ohgods", game_id, players, seed=seed, turns=None)
    host.autoplay(db, game_id, max_phases=max_phases, turns=None)
    return db["games"].get(game_id)


@pytest.mark.parametrize("players, seed, max_phases", [
    (["xanthe", "yorick"], "11", None),
    (["a1", "b2", "c3", "d4", "e5", "f6"], "12", 40),
])
def test_games_through_the_store_replay_to_the_same_hashes(db, players, seed, max_phases):
    game = play(db, "g", players, seed, max_phases)
    if max_phases is None:
        assert game["status"] == "finished"
        outcome = loads(game["outcome"])
        assert len(outcome["hands"]) == 3
        assert outcome["scores"] == {p: sum(h[p] for h in outcome["hands"]) for p in players}
        assert outcome["winners"] == [p for p in players if outcome["scores"][p] == max(outcome["scores"].values())]
    else:
        assert game["phase"] == max_phases + 1
    result = host.replay(db, "g")
    assert result["ok"] and result["phases"] == game["phase"]


# --- privacy ---------------------------------------------------------------------------------

def hidden_from(state: dict, viewer: str) -> set[str]:
    """The god cards `viewer` may not see now: other hands, other players' face-down sets, the deck."""
    g = state["game"]
    cards = list(g["deck"])
    for p in g["players"]:
        if p != viewer:
            cards += g["hands"][p] + [c for s in g["sets"][p] for c in s["cards"]]
    return {c for c in cards if RULES.is_god(c)}


def last_hand(state: dict) -> set[str]:
    """The cards of the sets scored in the last hand: revealed, so public (reports list them)."""
    history = state["game"]["history"]
    return {c for sets in history[-1]["sets"].values() for s in sets for c in s["cards"]} if history else set()


def named(text: str, cards: set[str]) -> set[str]:
    """Which of these cards the text names (by name or order token, as whole words)."""
    lower = text.lower()
    words = set(re.findall(r"[\w-]+", lower))
    out = set()
    for c in cards:
        name = RULES.name(c).lower()
        if RULES.tok(c) in words or name in words or (" " in name and re.search(rf"\b{re.escape(name)}\b", lower)):
            out.add(c)
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A three-player game played to the end; during every turn each player who is not on turn
    also sends orders (a standing order, and an order they may not give now)."""
    db = open_db(str(tmp_path_factory.mktemp("ohgods") / "pbem.db"))
    host.new_game(db, "ohgods", "p", PLAYERS, seed="31", turns=None)
    pick = random.Random(5)
    while db["games"].get("p")["status"] == "running":
        number = db["games"].get("p")["phase"]
        state = loads(db["phases"].get(("p", number))["state"])
        for p in PLAYERS:
            if p in state["flow"]["active"]:
                continue
            mine = state["game"]["hands"][p]
            lines = [pick.choice(["block any steal", "never block", f"block steals by {pick.choice([o for o in PLAYERS if o != p])}",
                                  f"block steals of {pick.choice(RULES.gods)}"])]
            if mine:
                lines.append(f"play {RULES.tok(pick.choice(mine))}")
            host.submit(db, "p", p, "\n".join(lines).encode(), trusted=True)
        host.autoplay(db, "p", max_phases=1, turns=None)
    return db


def test_no_report_acknowledgement_or_status_names_a_hidden_card(played):
    db = played
    last = db["games"].get("p")["phase"]
    checked_reports = checked_acks = 0
    typed_so_far = {p: set() for p in PLAYERS}  # a player's own orders are echoed back to them
    for number in range(1, last + 1):
        state = loads(db["phases"].get(("p", number))["state"])
        for sub in db["submissions"].rows_where("game_id = 'p' and phase = ?", [number - 1]):
            typed_so_far[sub["player"]] |= named(sub["raw"].decode(), set(RULES.gods))
        texts = {r["player"]: r["text"] for r in db["reports"].rows_where("game_id = 'p' and phase = ?", [number])}
        public = texts[""]
        for viewer in PLAYERS:
            # what the public report names was public (a god played, then put in a set):
            # test_public_reports_name_no_card_in_a_hand_set_or_deck checks that
            secret = hidden_from(state, viewer) - named(public, hidden_from(state, viewer)) - typed_so_far[viewer] \
                - last_hand(state)
            leaked = named(texts[viewer], secret)
            assert not leaked, f"turn {number}: {viewer}'s report names {leaked}"
            checked_reports += 1
        for sub in db["submissions"].rows_where("game_id = 'p' and phase = ?", [number]):
            typed = named(sub["raw"].decode(), set(RULES.gods))  # a player's own orders are echoed back
            leaked = named(sub["ack"], hidden_from(state, sub["player"]) - typed)
            assert not leaked, f"turn {number}: {sub['player']}'s acknowledgement names {leaked}"
            checked_acks += 1
    assert checked_reports == 3 * last and checked_acks == 3 * (last - 1)
    # and the submissions really did meet rejections and standing orders
    acks = "\n".join(r["ack"] for r in db["submissions"].rows)
    assert "it is not your turn" in acks and "only standing orders" in acks
    status = json.dumps(host.status(db, "p"))
    assert not named(status, set(RULES.gods))


def test_public_reports_name_no_card_in_a_hand_set_or_deck(played):
    db = played
    for number in range(1, db["games"].get("p")["phase"] + 1):
        state = loads(db["phases"].get(("p", number))["state"])
        public = db.execute("select text from reports where game_id = 'p' and phase = ? and player = ''",
                            [number]).fetchone()[0]
        events = [loads(r["data"]) for r in db["events"].rows_where("game_id = 'p' and phase = ?", [number - 1])]
        said = json.dumps([e for e in events if "to" not in e])
        # a hidden card may be named only if a public event of the turn named it (played, then formed)
        leaked = {c for c in named(public, hidden_from(state, "") - last_hand(state)) if not named(said, {c})}
        assert not leaked, f"turn {number}: the public report names {leaked}"


def scramble(state: dict, viewer: str, rng: random.Random) -> dict:
    """The same position as `viewer` sees it: every card they may not see is shuffled among
    the places they may not see into (other hands, other sets, the deck), and the others'
    standing orders are changed."""
    state = json.loads(json.dumps(state))
    g = state["game"]
    slots = [(g, "deck", i) for i in range(len(g["deck"]))]
    for p in g["players"]:
        if p == viewer:
            continue
        slots += [(g["hands"], p, i) for i in range(len(g["hands"][p]))]
        slots += [(s, "cards", i) for s in g["sets"][p] for i in range(len(s["cards"]))]
        g["block"][p] = rng.choice([{"mode": "never", "gods": [], "by": []},
                                    {"mode": "some", "gods": ["zeus"], "by": [viewer]}])
    cards = [holder[key][i] for holder, key, i in slots]
    rng.shuffle(cards)
    for (holder, key, i), card in zip(slots, cards):
        holder[key][i] = card
    return state


def test_a_report_is_the_same_whatever_the_hidden_cards_are(played):
    """The strongest form: swap every hidden card around and re-render each player's report
    from the same events: not one character changes."""
    db = played
    game = db["games"].get("p")
    seats = list(db["players"].rows_where("game_id = 'p'", order_by="seat"))
    rng = random.Random(9)
    compared = 0
    for number in range(1, game["phase"] + 1, 4):
        state = loads(db["phases"].get(("p", number))["state"])
        events = [loads(r["data"]) for r in db["events"].rows_where("game_id = 'p' and phase = ?", [number - 1],
                                                                     order_by="seq")]
        texts = text_reports(RULES, game, seats, state, events, number)
        for viewer in PLAYERS:
            other = scramble(state, viewer, rng)
            assert other != state
            assert RULES.view(other, viewer) == RULES.view(state, viewer)
            assert text_reports(RULES, game, seats, other, events, number)[viewer] == texts[viewer]
            compared += 1
    assert compared >= 30


# --- documentation ----------------------------------------------------------------------------------

def test_every_verb_is_documented():
    doc = order_doc("ohgods")
    for verb in RULES.grammar.verbs:
        assert f"`{verb}" in doc, verb
    for domain in ("Sky", "Sun", "Sea", "War", "Wisdom", "Love", "Death", "Healing"):
        assert domain in doc


def test_the_scramble_catches_a_leaky_view(played, monkeypatch):
    """The comparison above is sharp: a view showing one card of each other hand would differ."""
    state = loads(played["phases"].get(("p", 5))["state"])
    honest = RULES.view

    def leaky(state, player):
        view = honest(state, player)
        view["peek"] = sorted(state["game"]["hands"][p][0] for p in state["game"]["players"] if p != player)
        return view

    monkeypatch.setattr(RULES, "view", leaky)
    rng = random.Random(1)
    assert any(RULES.view(scramble(state, "xanthe", rng), "xanthe") != RULES.view(state, "xanthe") for _ in range(5))


def test_the_game_with_standing_orders_from_bystanders_replays(played):
    """Every turn's bystander submissions (standing orders) are part of the stored history."""
    used = [loads(r["used"]) for r in played["phases"].rows_where("game_id = 'p' and resolved is not null")]
    assert all(len(u) == 3 for u in used)
    result = host.replay(played, "p")
    assert result["ok"] and result["phases"] == played["games"].get("p")["phase"]
