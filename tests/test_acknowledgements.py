"""Acknowledgements that tell the truth (issue 12): prose after the orders is ignored, not an
error; each line is named once, by the player's own numbering; a line after dice or hidden
cards is rejected when no outcome could make it legal and accepted "if the dice allow" only
when some could."""

from __future__ import annotations

import re

from gods_helpers import legal_lines, new_game, passwords, text

from pbem.core import engine
from pbem.core.orders import read_script, trailing_prose
from pbem.core.registry import get_rules
from pbem.host.store import open_db

GODS = get_rules("gods")


# --- prose after the orders ----------------------------------------------------------------------

def test_a_sign_off_after_the_orders_is_ignored_not_an_error(cli, tmp_path):
    pw = new_game(cli)
    db = open_db(str(tmp_path / "pbem.db"))
    lines = legal_lines(db, "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines + ["", "Cheers,", "Carol"]))
    assert r.exit_code == 0, r.stdout  # nothing rejected: the player is ready
    assert "ignored, not an order  Cheers," in r.stdout and "ignored, not an order  Carol" in r.stdout
    assert f"{len(lines)} accepted, 0 rejected. 2 ignored (not orders)." in r.stdout
    assert "NOT READY" not in r.stdout
    assert cli("resolve", "g1").exit_code == 0
    assert db["phases"].get(("g1", 1))["resolved"] is not None
    skipped = db.execute("select count(*) from events where game_id = 'g1' and data like '%\"skipped\"%'").fetchone()[0]
    assert skipped == 0  # prose is no skipped order in the report either


def test_a_line_close_to_a_verb_stays_a_rejection_with_its_did_you_mean(cli, tmp_path):
    pw = new_game(cli)
    db = open_db(str(tmp_path / "pbem.db"))
    lines = legal_lines(db, "alice")
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], lines + ["tempel 0,1"]))
    assert r.exit_code == 2
    assert re.search(r"line +\d+: REJECTED .*did you mean 'temple'", r.stdout)


def test_a_signature_that_only_looks_like_a_verb_is_prose():
    """'Hera' is as close to 'extra' as difflib's usual cutoff allows, but a lone word after
    the orders is a signature unless it is nearly a verb ('extar' stays a typo of 'extra')."""
    assert trailing_prose(GODS.grammar, read_script("tribe green 1,0\nHera\n")) == {2}
    assert trailing_prose(GODS.grammar, read_script("tribe green 1,0\nextar\n")) == set()
    assert trailing_prose(GODS.grammar, read_script("tribe green 1,0\ntempel 0,1\n")) == set()


def test_prose_is_only_what_follows_the_orders():
    script = read_script("Hello GM,\ntribe green 1,0\nthanks!\nCarol\n")
    assert trailing_prose(GODS.grammar, script) == {3, 4}  # "Hello GM," comes before an order: an error
    assert trailing_prose(GODS.grammar, read_script("Cheers,\nCarol\n")) == set()  # no orders at all


def test_the_acknowledgement_names_each_line_once(cli, tmp_path):
    pw = new_game(cli)
    r = cli("submit", "g1", "alice", "-", input=text("alice", pw["alice"], ["tribe purple 99,99"]))
    rejected = [ln for ln in r.stdout.splitlines() if "REJECTED" in ln]
    assert rejected and all(ln.count("line") == 1 for ln in rejected), rejected


# --- dice and hidden cards: many outcomes, an honest answer ------------------------------------------

def test_the_check_plays_the_script_in_many_outcomes_and_agrees_with_itself():
    """Every game: random scripts from random positions. A line after dice is rejected only
    when it is illegal in every checked outcome, and 'if the dice allow' only when legal in
    some; with no dice before it, the first outcome decides alone."""
    import random


    rnd = random.Random(5)
    for game_type in ("gods", "yegods", "ohgods", "deity"):
        rules = get_rules(game_type)
        players = ["p1", "p2", "p3"]
        state, _ = engine.start(rules, players, {}, "seed-7")
        for step in range(12):
            if state["flow"].get("over"):
                break
            player = engine.active_players(rules, state)[0]
            from pbem import host

            lines = host.bot_script(rules, state, player, rnd)
            extra = [o.text for o in rules.legal_orders(state, player)]
            script = read_script("\n".join(lines + rnd.sample(extra, min(3, len(extra)))))
            acks = engine.check_script(rules, state, player, script)
            worlds = [engine._check_world(rules, state, player, script, engine.check_rng("preview", k))
                      for k in range(engine.CHECK_WORLDS_MAX)]
            for i, ack in enumerate(acks):
                if ack.status == "ignored":
                    continue
                legal = [w[i][0] is not None for w in worlds]
                uncertain = worlds[0][i][2]
                if not uncertain:
                    assert (ack.status == "accepted") == legal[0], (game_type, ack)
                    assert ack.status == "rejected" or not ack.reason, (game_type, ack)
                elif ack.status == "rejected":
                    assert not any(legal), (game_type, ack)  # no outcome checked allows it
                elif ack.reason:
                    assert "depends on earlier dice" in ack.reason and any(legal) and not all(legal[: engine.CHECK_WORLDS]), (game_type, ack)
                else:
                    assert all(legal[: engine.CHECK_WORLDS]), (game_type, ack)  # legal in every outcome it was checked in
            res = engine.resolve(rules, state, {p: (script if p == player else None) for p in engine.active_players(rules, state)},
                                 "seed-7")
            state = res.state


# --- by mail: the player's own line numbers ------------------------------------------------------

def test_a_mailed_acknowledgement_numbers_lines_as_the_player_wrote_them(cli, tmp_path):
    from email.message import EmailMessage

    r = cli("new", "gods", "g1", "--seed", "1", "-p", "alice:alice@example.org", "-p", "bob")
    pw = passwords(r.stdout)
    db = open_db(str(tmp_path / "pbem.db"))
    good = legal_lines(db, "alice")[0]
    body = "\n".join([
        "Hi GM,",                      # 1
        "",                            # 2
        f"PASSWORD {pw['alice']}",     # 3
        good,                          # 4
        "tribe purple 99,99",          # 5: rejected
        "",                            # 6
        "Cheers,",                     # 7: prose
        "Alice",                       # 8: prose
    ]) + "\n"
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "alice@example.org", "gm@pbem.example", "[g1] my orders"
    msg["Message-ID"] = "<orders-1@example.org>"
    msg.set_content(body)
    inbox = tmp_path / "in"
    inbox.mkdir()
    (inbox / "1.eml").write_bytes(bytes(msg))
    assert cli("ingest", inbox).exit_code == 0
    ack = db.execute("select body from outbox where kind = 'ack'").fetchone()[0]
    assert re.search(r"line +4: accepted", ack), ack
    assert re.search(r"line +5: REJECTED  column \d+: 'tribe purple 99,99'", ack), ack
    assert "line   7: ignored, not an order  Cheers," in ack and "line   8: ignored, not an order  Alice" in ack
    assert "line   1" not in ack  # "Hi GM," came before the password: outside the order block


def _mail(cli, tmp_path, body: str, n: int) -> str:
    """Ingest one message from alice; the body of what she gets back."""
    from email.message import EmailMessage

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "alice@example.org", "gm@pbem.example", "[g1] request"
    msg["Message-ID"] = f"<req-{n}@example.org>"
    msg.set_content(body)
    inbox = tmp_path / f"in{n}"
    inbox.mkdir()
    (inbox / "m.eml").write_bytes(bytes(msg))
    assert cli("ingest", inbox).exit_code == 0
    db = open_db(str(tmp_path / "pbem.db"))
    return db.execute("select body from outbox where in_reply_to = ?", [msg["Message-ID"]]).fetchone()[0]


def test_report_with_no_turn_number_says_so(cli, tmp_path):
    r = cli("new", "gods", "g1", "--seed", "1", "-p", "alice:alice@example.org", "-p", "bob")
    pw = passwords(r.stdout)
    for n, arg in enumerate(["-1", "abc", "1e3", "99999999"]):
        reply = _mail(cli, tmp_path, f"PASSWORD {pw['alice']}\nREPORT {arg}\n", n)
        assert "not a turn number" in reply and f"REPORT '{arg}'" in reply, reply
        assert "wrong phase" not in reply and "parse errors" not in reply
    reply = _mail(cli, tmp_path, f"PASSWORD {pw['alice']}\nREPORT 1\n", 9)
    assert "turn 1" in reply and "not a turn number" not in reply


def test_help_is_plain_text_with_the_players_own_game_and_name(cli, tmp_path):
    cli("new", "gods", "g1", "--seed", "1", "-p", "alice:alice@example.org", "-p", "bob")
    reply = _mail(cli, tmp_path, "HELP\n", 1)
    assert "GAME g1" in reply and "PLAYER alice" in reply and "PASSWORD <your password>" in reply
    assert "GAME demo" not in reply and "PLAYER athena" not in reply
    for markup in ("```", "**", "`", "|---"):
        assert markup not in reply, markup
    documentation = reply.split("\n-- \n", 1)[0]  # above pbem's footer
    assert max(len(line) for line in documentation.splitlines()) <= 78


def test_every_games_order_documentation_reads_as_plain_text():
    from pbem.core.registry import game_types, order_doc
    from pbem.render.plain import markdown_to_text

    for game_type in game_types():
        text = markdown_to_text(order_doc(game_type))
        assert "```" not in text and "**" not in text and "`" not in text, game_type
        assert not any(line.lstrip().startswith("|") for line in text.splitlines()), game_type
        assert max(len(line) for line in text.splitlines()) <= 78, game_type


def test_well_formed_but_illegal_orders_are_no_parse_error(cli, tmp_path):
    r = cli("new", "gods", "g1", "--seed", "1", "-p", "alice:alice@example.org", "-p", "bob")
    pw = passwords(r.stdout)
    reply = _mail(cli, tmp_path, f"PASSWORD {pw['alice']}\ntemple 50,50\n", 1)
    assert "no usable orders" in reply and "parse errors" not in reply, reply
    reply = _mail(cli, tmp_path, f"PASSWORD {pw['alice']}\nfrobnicate 1\n", 2)
    assert "parse errors" in reply
