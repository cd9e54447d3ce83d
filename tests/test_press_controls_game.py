"""The host half's scripted GODS game (tests/test_controls_game.py) played by mail, with press
(issue 13): the GM extends a deadline, replaces a player, hands a seat to a bot; the players
send their orders by mail with press blocks in the same messages -- private press both ways,
public press, press from the newcomer under her own name -- and the game ends by a draw voted
by mail (DRAW). Press reaches its recipients at once and in their next report, nobody else."""

from __future__ import annotations

import json
import re

from gods_helpers import legal_lines, passwords

from pbem.host import read
from pbem.host.store import open_db

ADDRESS = {"zeus": "zeus@example.org", "hera": "hera@example.org", "ares": "ares@example.org"}


def test_a_gods_game_by_mail_with_press_a_replacement_a_bot_and_a_draw_voted_by_mail(cli, tmp_path, monkeypatch):
    clock = lambda when: monkeypatch.setenv("PBEM_NOW", when)
    clock("2026-11-23T10:00:00Z")
    r = cli("new", "gods", "g1", "--seed", "7", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org",
            "-p", "ares:ares@example.org", "--every", "48h")
    assert r.exit_code == 0, r.output
    keys = passwords(r.stdout)
    db = open_db(str(tmp_path / "pbem.db"))
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    count = [0]
    person = {"zeus": "zeus", "hera": "hera", "ares": "ares"}  # who plays each seat, by the name they sign with

    def mail(sender: str, body: str) -> str:
        count[0] += 1
        (inbox / f"{count[0]:03}.eml").write_text(
            f"From: {sender}\nSubject: [g1] orders\nMessage-ID: <ctl-{count[0]}@example.org>\n\n{body}", encoding="utf-8")
        r = cli("ingest", inbox)
        assert r.exit_code == 0, r.output
        return r.stdout

    def asked() -> str:
        (who,) = json.loads(cli("status", "g1", "--json").stdout)["games"][0]["awaiting"]
        return who

    def play_turn(seed: int, press: str = "") -> None:
        who = asked()
        lines = "\n".join(legal_lines(db, who, "g1", seed))
        body = f"GAME g1\nPLAYER {person[who]}\nPASSWORD {keys[who]}\n{lines}\n{press}END\n"
        said = mail(ADDRESS[who], body)
        assert "1 accepted, 0 rejected" in said, said
        assert cli("resolve", "g1").exit_code == 0

    def press(to: str, text: str) -> str:
        return f"PRESS TO {to}\n{text}\nENDPRESS\n"

    play_turn(0, press("hera", "z1-private: an alliance?"))  # zeus -> hera
    play_turn(1, press("zeus", "h2-private: agreed"))  # hera -> zeus: both ways
    play_turn(2, press("all", "a3-public: beware"))  # ares -> everyone
    assert read.game(db, "g1")["phase"] == 4

    # the GM moves the deadline; zeus plays
    r = cli("deadline", "g1", "--extend", "24h", "--reason", "zeus is travelling")
    assert r.exit_code == 0 and "deadline 2026-11-26T10:00:00Z" in r.stdout
    clock("2026-11-25T23:00:00Z")
    play_turn(3)

    # hera drops out; dora takes the seat and signs with her own name
    r = cli("replace", "g1", "hera", "dora:dora@example.org", "--reason", "hera has no time")
    assert r.exit_code == 0, r.output
    old_hera = keys["hera"]
    keys["hera"] = re.search(r"password (\S+)", r.stdout).group(1)
    ADDRESS["hera"], person["hera"] = "dora@example.org", "dora"
    said = mail("hera@example.org", f"PLAYER hera\nPASSWORD {old_hera}\nPRESS TO zeus\nstill here?\nENDPRESS\n")
    assert "1 rejected" in said  # the old player's address and password no longer work
    play_turn(4, press("zeus", "d5-private: dora here"))

    # ares's seat goes to a bot
    assert cli("seat", "g1", "ares", "--bot").exit_code == 0
    assert cli("resolve", "g1").exit_code == 0
    for n in range(5, 9):
        play_turn(n)
    assert read.game(db, "g1")["phase"] == 13

    # the draw, voted by mail: zeus, then dora for hera's seat (the bot does not vote)
    said = mail("zeus@example.org", f"PASSWORD {keys['zeus']}\nDRAW\n")
    assert "1 accepted" in said and read.game(db, "g1")["status"] == "running"
    said = mail("dora@example.org", f"PLAYER dora\nPASSWORD {keys['hera']}\nDRAW\n")
    assert "1 accepted" in said
    g = read.game(db, "g1")
    assert g["status"] == "finished" and json.loads(g["outcome"])["draw"]
    assert [a["action"] for a in read.gm_actions(db, "g1")] == ["deadline", "replace", "bot", "draw", "end"]

    # the press went where it was sent, at once and in the next report; nowhere else
    mails = read.rows(db, "select to_addr, kind, subject, body from outbox")
    where = {m: {x["to_addr"] for x in mails if m in x["body"]} for m in
             ("z1-private", "h2-private", "a3-public", "d5-private", "still here?")}
    assert where["z1-private"] == {"zeus@example.org", "hera@example.org"}  # hera's mail and report; zeus's report
    assert where["h2-private"] == {"zeus@example.org", "hera@example.org"}
    assert where["a3-public"] == {"zeus@example.org", "hera@example.org", "ares@example.org"}
    assert where["d5-private"] == {"zeus@example.org", "dora@example.org"}
    assert where["still here?"] == set()
    press_mail = [(m["to_addr"], m["subject"]) for m in mails if m["kind"] == "press"]
    assert ("hera@example.org", "[g1] press from zeus") in press_mail
    assert press_mail.count(("zeus@example.org", "[g1] press from hera")) == 2  # hera's, then dora's for the seat
    assert db["press"].count == 4  # the old player's press was refused, not stored
    # in the reports: the recipient's and the sender's, never the third god's, never the public one
    for phase, viewer, marker, allowed in ((2, "hera", "z1-private", True), (2, "ares", "z1-private", False),
                                           (3, "zeus", "h2-private", True), (3, "ares", "h2-private", False),
                                           (4, "", "a3-public", True), (6, "zeus", "d5-private", True),
                                           (6, "ares", "d5-private", False), (6, "", "d5-private", False)):
        report = read.report_text(db, "g1", phase, viewer)
        assert (marker in report) is allowed, (phase, viewer, marker)
    assert "hera to you:\n  | h2-private: agreed" in read.report_text(db, "g1", 3, "zeus")
    r = cli("replay", "g1", "--verify")
    assert r.exit_code == 0 and "every hash matches" in r.stdout
