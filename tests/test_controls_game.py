"""A whole GODS game run the way a GM runs one between deadlines (issue 13): the GM extends
a deadline, replaces a player who drops out, hands a seat to a bot, and the game ends by a
draw vote of the players. The GM's steps go through the `pbem` command; the players' orders
through `submit` with their passwords, their votes through pbem.host.controls.propose (the
mail route of DRAW sends them there too). The clock is PBEM_NOW.

At the end: the result is recorded, every GM action is in the log and was announced, each
password went to its own seat's address only, and `pbem replay --verify` re-runs it all."""

from __future__ import annotations

import json
import re

from gods_helpers import legal_lines, passwords, text

from pbem.host import controls, read
from pbem.host.store import open_db


def test_a_gods_game_with_a_moved_deadline_a_replacement_a_bot_and_a_draw_vote(cli, tmp_path, monkeypatch):
    clock = lambda when: monkeypatch.setenv("PBEM_NOW", when)
    clock("2026-11-23T10:00:00Z")
    r = cli("new", "gods", "g1", "--seed", "7", "-p", "zeus:zeus@example.org", "-p", "hera:hera@example.org",
            "-p", "ares:ares@example.org", "--every", "48h", "--option", "remind=12h")
    assert r.exit_code == 0, r.output
    keys = passwords(r.stdout)
    db = open_db(str(tmp_path / "pbem.db"))
    turns = tmp_path / "turns"

    def asked() -> str:
        (who,) = json.loads(cli("status", "g1", "--json").stdout)["games"][0]["awaiting"]
        return who

    def play_turn(seed: int) -> None:
        who = asked()
        orders = text(who, keys[who], legal_lines(db, who, "g1", seed))
        (turns / "o.txt").write_text(orders)
        assert cli("submit", "g1", who, turns / "o.txt").exit_code == 0
        assert cli("resolve", "g1").exit_code == 0

    for n in range(3):  # turns 1-3: zeus, hera, ares
        play_turn(n)
    assert read.game(db, "g1")["phase"] == 4

    # the GM moves the deadline: zeus is travelling
    r = cli("deadline", "g1", "--extend", "24h", "--reason", "zeus is travelling")
    assert r.exit_code == 0 and "deadline 2026-11-26T10:00:00Z (was 2026-11-25T10:00:00Z)" in r.stdout
    clock("2026-11-25T23:00:00Z")  # 11 hours before the deadline: zeus is reminded once
    assert [s["player"] for s in controls.remind(db)] == ["zeus"] and controls.remind(db) == []
    play_turn(3)  # turn 4: zeus

    # hera drops out; dora takes the seat with a new password
    r = cli("replace", "g1", "hera", "dora:dora@example.org", "--reason", "hera has no time")
    assert r.exit_code == 0, r.output
    old_hera = keys["hera"]
    keys["hera"] = re.search(r"password (\S+)", r.stdout).group(1)
    (turns / "old.txt").write_text(text("hera", old_hera, legal_lines(db, "hera", "g1")))
    assert "wrong password" in cli("submit", "g1", "hera", turns / "old.txt").stdout
    play_turn(4)  # turn 5: hera's seat, played by dora

    # ares's seat goes to a bot: from now on the bot plays it at each resolution
    assert cli("seat", "g1", "ares", "--bot").exit_code == 0
    assert cli("resolve", "g1").exit_code == 0  # turn 6: the bot plays ares
    assert read.game(db, "g1")["phase"] == 7
    assert read.rows(db, "select source from submissions where phase = 6") == [{"source": "bot"}]
    for n in range(5, 9):  # zeus, dora (hera's seat) and the bot, turn after turn
        play_turn(n)
    assert read.game(db, "g1")["phase"] == 13  # each resolve after hera's seat runs on through the bot's turn
    assert "bots: ares" in cli("status", "g1").stdout

    # the players vote for a draw in one turn (the bot does not vote)
    assert "still to vote: hera" in controls.propose(db, "g1", "zeus", "draw")
    assert "is over, drawn" in controls.propose(db, "g1", "dora", "draw")
    g = read.game(db, "g1")
    outcome = json.loads(g["outcome"])
    assert g["status"] == "finished" and outcome["draw"] and outcome["winners"] == ["zeus", "hera", "ares"]
    assert "ended at turn 13 (by a vote of the players)" in cli("status", "g1").stdout
    assert [a["action"] for a in read.gm_actions(db, "g1")] == ["deadline", "replace", "bot", "draw", "end"]
    subjects = [a["subject"] for a in read.announcements(db, "g1")]
    assert subjects == ["turn 4 deadline moved", "hera has a new player", "ares is a bot", "the game is over"]

    # every password went to its own seat's address, and only there
    sent_to = {"zeus": "zeus@example.org", "hera": "dora@example.org", "ares": "ares@example.org"}
    for mail in read.rows(db, "select to_addr, body from outbox"):
        for seat, password in [*keys.items(), ("hera", old_hera)]:
            if password in mail["body"]:
                assert mail["to_addr"] == (sent_to[seat] if password != old_hera else "hera@example.org")
    assert not any(old_hera in m["body"] for m in read.rows(db, "select body from outbox where to_addr != 'hera@example.org'"))
    r = cli("replay", "g1", "--verify")
    assert r.exit_code == 0 and "every hash matches" in r.stdout


def test_the_gms_notices_go_out_through_real_smtp_and_each_password_only_to_its_seat(cli, tmp_path, monkeypatch):
    """The GM's steps, then `pbem send` to a real SMTP server on loopback: who received what."""
    from mail.smtpd import SmtpServer

    server = SmtpServer().start()
    try:
        monkeypatch.setenv("PBEM_NOW", "2026-11-23T10:00:00Z")
        for key, value in (("PBEM_SMTP_HOST", "127.0.0.1"), ("PBEM_SMTP_PORT", str(server.port)),
                           ("PBEM_SMTP_SECURITY", "none"), ("PBEM_FROM", "gm@pbem.example")):
            monkeypatch.setenv(key, value)

        def run(*args):
            r = cli(*args)
            assert r.exit_code == 0, (args, r.output)
            return r.stdout

        keys = passwords(run("new", "gods", "g1", "--seed", "3", "-p", "zeus:zeus@example.org",
                             "-p", "hera:hera@example.org", "--every", "72h"))
        run("send")
        seen = len(server.messages)
        run("deadline", "g1", "--extend", "1d", "--reason", "a public holiday")
        run("seat", "g1", "zeus", "--email", "zeus@new.example.org")
        new_zeus = run("seat", "g1", "zeus", "--reset-password").split("new password: ")[1].split()[0]
        dora = re.search(r"password (\S+)", run("replace", "g1", "hera", "dora:dora@example.org")).group(1)
        run("observe", "g1", "fan@example.org")
        run("pause", "g1", "--reason", "the GM is travelling")
        assert "0 failed" in run("send")
        got = [(m.rcpt_tos[0], str(m.message["Subject"]), m.text) for m in server.messages[seen:]]
        by_rcpt: dict[str, list[str]] = {}
        for rcpt, subject, _ in got:
            by_rcpt.setdefault(rcpt, []).append(subject)
        # then hera is replaced: she is told (issue 13), without any password, and gets nothing more
        assert by_rcpt["hera@example.org"] == ["[g1] turn 1 deadline moved", "[g1] you no longer play hera"]
        assert "[g1] new address for zeus" in by_rcpt["zeus@example.org"]  # the old address is told...
        assert "[g1] your password" not in by_rcpt["zeus@example.org"]  # ...but gets no password
        # the deadline notice, not sent yet when the address changed, follows zeus to the new one (tester3 finding 17)
        assert "[g1] turn 1 deadline moved" not in by_rcpt["zeus@example.org"]
        assert by_rcpt["zeus@new.example.org"][:3] == ["[g1] turn 1 deadline moved", "[g1] new address for zeus",
                                                       "[g1] your password"]
        assert "[g1] you play hera: turn 1 report" in by_rcpt["dora@example.org"]
        assert by_rcpt["fan@example.org"] == ["[g1] turn 1 public report", "[g1] game paused"]
        secrets = {new_zeus: "zeus@new.example.org", dora: "dora@example.org", keys["zeus"]: None, keys["hera"]: None}
        for rcpt, subject, body in got:
            for secret, owner in secrets.items():
                if secret in body:
                    assert rcpt == owner, (rcpt, subject)
        paused = [body for rcpt, subject, body in got if subject == "[g1] game paused"]
        assert len(paused) == 3 and all("the GM is travelling" in b for b in paused)  # zeus, dora, the observer
    finally:
        server.stop()
