"""A scripted Faith game of 3 gods played by mail through `pbem ingest` (issue 16): the gods
reach the Negotiation phase of era 2 by mail, talk by PRESS in the same messages as their
orders (a private offer, a private answer, a public boast), and strike a trade of the
initiative for faith that binds because both sides sent the mirror lines. The acknowledgement
says each trade line is accepted "if the other side matches"; the trade, one event seen by
its two parties (engine G5), and the private press reach exactly those two; the public press
reaches everyone; replay agrees hash for hash."""

from __future__ import annotations

import json
import random

from gods_helpers import passwords

from pbem import host
from pbem.core import engine
from pbem.core.registry import get_rules
from pbem.host import read
from pbem.host.store import open_db

RULES = get_rules("faith")
ADDRESS = {"ann": "ann@example.org", "bob": "bob@example.org", "cat": "cat@example.org"}


def test_a_faith_game_by_mail_with_press_and_a_trade_in_the_negotiation(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_NOW", "2026-11-23T10:00:00Z")
    r = cli("new", "faith", "f1", "--seed", "21", *[x for p, a in ADDRESS.items() for x in ("-p", f"{p}:{a}")],
            "--every", "48h")
    assert r.exit_code == 0, r.output
    keys = passwords(r.stdout)
    db = open_db(str(tmp_path / "pbem.db"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    count = [0]

    def mail(who: str, lines: list[str]) -> str:
        count[0] += 1
        body = "\n".join(["GAME f1", f"PLAYER {who}", f"PASSWORD {keys[who]}", *lines, "END"]) + "\n"
        (inbox / f"{count[0]:03}.eml").write_text(
            f"From: {ADDRESS[who]}\nSubject: [f1] orders\nMessage-ID: <f-{count[0]}@example.org>\n\n{body}", encoding="utf-8")
        r = cli("ingest", inbox)
        assert r.exit_code == 0, r.output
        return r.stdout

    def ack(who: str) -> str:
        """The latest acknowledgement mailed to `who`."""
        rows = read.rows(db, "select body from outbox where kind = 'ack' and to_addr = ? order by id desc limit 1",
                         [ADDRESS[who]])
        return rows[0]["body"]

    def state() -> dict:
        return host.current_state(db, "f1")

    # the bots' orders, by mail, until the Negotiation of era 2
    for turn in range(10):
        if state()["flow"]["phase"] == "negotiation":
            break
        for who in engine.active_players(RULES, state()):
            lines = host.bot_script(RULES, state(), who, random.Random(f"{turn}/{who}"))
            mail(who, lines)
            assert " 0 rejected." in ack(who), ack(who)
        assert cli("resolve", "f1").exit_code == 0
    s = state()
    assert s["flow"]["phase"] == "negotiation" and sorted(engine.active_players(RULES, s)) == sorted(ADDRESS)
    turn = read.game(db, "f1")["phase"]
    g = s["game"]
    holder = g["beliefs"][g["initiative"]]["player"]
    buyer, third = [p for p in ADDRESS if p != holder]
    mine = RULES.actors(g, buyer)[0]
    hid = next(h for h, x in g["hexes"].items() if sum(x["pop"].get(mine, (0, 0))) >= 1)

    # the offer and the answer go by press; the deal itself is two mirror lines
    mail(holder, [f"trade initiative for 1 with {buyer}", "done",
                  "PRESS TO " + buyer, "offer-7: the initiative is yours for 1 faith", "ENDPRESS"])
    said = ack(holder)
    assert "accepted, if the other side matches" in said and " 0 rejected." in said, said
    mail(buyer, [f"take 1 {hid}", f"trade 1 for initiative with {holder}", "done",
                 "PRESS TO " + holder, "answer-7: deal, here is my line", "ENDPRESS"])
    said = ack(buyer)
    assert "accepted, if the other side matches" in said and " 0 rejected." in said, said
    mail(third, ["done", "PRESS TO all", "boast-7: I need no initiative", "ENDPRESS"])
    assert " 0 rejected." in ack(third), ack(third)
    assert cli("resolve", "f1").exit_code == 0

    after = state()["game"]
    assert after["beliefs"][after["initiative"]]["player"] == buyer   # until Phase 4 bids for it anew
    trades = [e for e in _events(db, turn) if e["type"] == "trade"]
    assert len(trades) == 1 and sorted(trades[0]["to"]) == sorted([holder, buyer])
    # the trade and the private press: the two parties' reports only; the boast: everyone's
    line = f"Trade: {trades[0]['player']} gives"
    for viewer, sees_trade in ((holder, True), (buyer, True), (third, False), ("", False)):
        report = read.report_text(db, "f1", turn + 1, viewer)
        assert (line in report) is sees_trade, (viewer, report)
        assert ("offer-7" in report) is (viewer in (holder, buyer)), viewer
        assert ("answer-7" in report) is (viewer in (holder, buyer)), viewer
        assert "boast-7" in report, viewer
    mails = read.rows(db, "select to_addr, body from outbox")
    assert {m["to_addr"] for m in mails if "offer-7" in m["body"]} == {ADDRESS[holder], ADDRESS[buyer]}
    assert {m["to_addr"] for m in mails if line in m["body"]} == {ADDRESS[holder], ADDRESS[buyer]}
    r = cli("replay", "f1", "--verify")
    assert r.exit_code == 0 and "every hash matches" in r.stdout, r.output


def _events(db, phase: int) -> list[dict]:
    return [json.loads(r["data"]) for r in db["events"].rows_where("game_id = ? and phase = ?", ["f1", phase], order_by="seq")]
