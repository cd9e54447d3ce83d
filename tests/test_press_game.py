"""A GODS game played by mail with press, through the installed `pbem` and a real SMTP server
on loopback (issue 13): each turn the god on turn replies to the report with orders AND a
private press block in one message, the other god sends public press; the press reaches the
other player at once by mail and is listed in the next report; the GM broadcasts with `pbem
press`; and the game ends by a draw voted by mail (DRAW, once in a message with orders)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

import pytest
from mail.smtpd import SmtpServer
from test_mail_e2e import legal_examples, quote

PBEM = shutil.which("pbem", path=str(Path(sys.executable).parent))
GAME = "duel"
OTHER = {"alice": "bob", "bob": "alice"}


@pytest.fixture
def smtp():
    server = SmtpServer().start()
    yield server
    server.stop()


@pytest.fixture
def pbem(tmp_path, smtp):
    assert PBEM, "the pbem console script is not installed beside this Python"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DB=str(tmp_path / "pbem.db"), PBEM_TURNS=str(tmp_path / "turns"), PBEM_SMTP_HOST="127.0.0.1",
               PBEM_SMTP_PORT=str(smtp.port), PBEM_SMTP_SECURITY="none", PBEM_FROM="gm@pbem.example",
               PBEM_REPLY_TO="orders@pbem.example")

    def run(*args, input=None, ok=True):
        r = subprocess.run([PBEM, *map(str, args)], check=False, capture_output=True, text=True, env=env, cwd=tmp_path, input=input,
                           timeout=120)
        if ok:
            assert r.returncode == 0, (args, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr
        return r

    return run


def message(n: int, player: str, body: str, subject: str, in_reply_to=None) -> bytes:
    msg = EmailMessage()
    msg["From"] = f"{player.title()} <{player}@example.org>"
    msg["To"] = "orders@pbem.example"
    msg["Subject"] = subject
    msg["Message-ID"] = f"<press-game-{n}-{player}@example.org>"
    if in_reply_to is not None:
        msg["In-Reply-To"] = str(in_reply_to["Message-ID"])
        msg["References"] = f"{in_reply_to['References']} {in_reply_to['Message-ID']}"
    msg.set_content(body)
    return msg.as_bytes(policy=SMTP)


def test_press_flows_both_ways_and_the_game_ends_by_a_draw_voted_by_mail(pbem, smtp, tmp_path):
    pbem("new", "gods", GAME, "--player", "alice:alice@example.org", "--player", "bob:bob@example.org", "--seed", "16")
    assert "2 sent" in pbem("send").stdout
    passwords = {m.rcpt_tos[0].split("@")[0]: re.search(r"Your password: (\S+)", m.text).group(1) for m in smtp.messages}
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    seen = len(smtp.messages)
    reports = list(smtp.messages)
    n = 0

    def deliver(*raws: bytes) -> str:
        nonlocal n
        for raw in raws:
            n += 1
            (inbox / f"{n:03}.eml").write_bytes(raw)
        return pbem("ingest", inbox).stdout

    def sent_since() -> list:
        nonlocal seen
        pbem("send")
        new = smtp.messages[seen:]
        seen = len(smtp.messages)
        return new

    for turn in range(1, 4):
        acting = next(m for m in reports if legal_examples(m.text))
        me = acting.rcpt_tos[0].split("@")[0]
        other = OTHER[me]
        order = legal_examples(acting.text)[0]
        # the god on turn: orders and a private press block in one reply, the report quoted below
        body = (f"PASSWORD {passwords[me]}\n{order}\nPRESS TO {other}\nturn {turn}: {me} whispers to {other}\nENDPRESS\n\n"
                f"On Sat, pbem wrote:\n{quote(acting.text)}\n")
        idle = (f"GAME {GAME}\nPLAYER {other}\nPASSWORD {passwords[other]}\nPRESS TO ALL\n"
                f"turn {turn}: {other} speaks to everyone\nENDPRESS\n")
        said = deliver(message(turn, me, body, "Re: " + str(acting.message["Subject"]), acting.message),
                       message(turn, other, idle, f"[{GAME}] public press"))
        assert "2 accepted, 0 rejected" in said, said
        mail = sent_since()
        to = {}
        for m in mail:
            to.setdefault(m.rcpt_tos[0].split("@")[0], []).append(m)
        subjects = {who: sorted(str(m.message["Subject"]) for m in ms) for who, ms in to.items()}
        assert f"[{GAME}] press from {me}" in subjects[other]  # delivered at once, before any resolve
        assert f"[{GAME}] press from {other} to all" in subjects[me]
        whisper = next(m for m in to[other] if str(m.message["Subject"]) == f"[{GAME}] press from {me}")
        assert f"| turn {turn}: {me} whispers to {other}" in whisper.text
        reply = next(m for m in to[me] if "your commands" in str(m.message["Subject"]))
        assert f"line 3: PRESS TO {other} (1 line)\n  done: press of 1 line sent to {other}." in reply.text
        assert "line 2: your orders (1 line)" in reply.text
        assert any("orders accepted" in str(m.message["Subject"]) for m in to[me])  # the acknowledgement
        if turn == 2:  # the GM broadcasts
            pbem("press", GAME, "--to", "all", "-", input="The GM: the server moves on Sunday.\n")
            assert sorted(m.rcpt_tos[0] for m in sent_since()) == ["alice@example.org", "bob@example.org"]
        assert "resolved" in pbem("resolve", GAME).stdout
        reports = [m for m in sent_since() if m.message["X-PBEM-Mail"].startswith("report")]
        assert len(reports) == 2
        for m in reports:
            who = m.rcpt_tos[0].split("@")[0]
            section = m.text[m.text.index(f"Messages (press) in turn {turn}"):]
            assert f"| turn {turn}: {me} whispers to {other}" in section
            assert f"| turn {turn}: {other} speaks to everyone" in section
            if turn == 2:
                assert "the GM to everyone:\n  | The GM: the server moves on Sunday." in section
            mine = me if who == me else other
            assert "you to " in section and f"{OTHER[mine]} to " in section

    # the end: DRAW by mail, once with orders in the same message, once alone
    acting = next(m for m in reports if legal_examples(m.text))
    me = acting.rcpt_tos[0].split("@")[0]
    other = OTHER[me]
    body = f"PASSWORD {passwords[me]}\n{legal_examples(acting.text)[0]}\nDRAW\n\nOn Sat, pbem wrote:\n{quote(acting.text)}\n"
    assert "1 accepted" in deliver(message(10, me, body, "Re: " + str(acting.message["Subject"]), acting.message))
    reply = next(m for m in sent_since() if "your commands" in str(m.message["Subject"]))
    assert "line 3: DRAW\n  done: DRAW: your vote for a draw is recorded" in reply.text
    assert json.loads(pbem("status", GAME, "--json").stdout)["games"][0]["status"] == "running"
    bad = deliver(message(11, other, f"PASSWORD not-{passwords[other]}\nDRAW\n", f"[{GAME}] draw"))
    assert "1 rejected" in bad
    assert "bad password" in sent_since()[0].text
    assert "1 accepted" in deliver(message(12, other, f"PASSWORD {passwords[other]}\nDRAW\n", f"[{GAME}] draw"))
    final = sent_since()
    assert any("is over, drawn" in m.text for m in final if m.rcpt_tos == [f"{other}@example.org"])
    over = [m for m in final if "the game is over" in str(m.message["Subject"])]
    assert sorted(m.rcpt_tos[0] for m in over) == ["alice@example.org", "bob@example.org"]
    status = json.loads(pbem("status", GAME, "--json").stdout)["games"][0]
    assert status["status"] == "finished"
    # no more press once the game is over
    assert "1 rejected" in deliver(message(13, me, f"PASSWORD {passwords[me]}\nPRESS TO ALL\nhello?\nENDPRESS\n",
                                           f"[{GAME}] press"))
    assert "is over" in sent_since()[0].text
    # the GM's view of the press: every message with its sender
    listing = pbem("press", GAME, "--list").stdout
    assert listing.count(" -> ") == 7 and "gm -> all" in listing


def test_the_gm_press_command_refuses_bad_input_cleanly(pbem, tmp_path):
    pbem("new", "gods", GAME, "--player", "alice:alice@example.org", "--player", "bob")
    (tmp_path / "note.txt").write_text("hello players\n", encoding="utf-8")
    cases = [
        (("press", GAME, "--to", "zed", "note.txt"), 1, "no player 'zed'"),
        (("press", "nosuch", "--to", "all", "note.txt"), 1, "no game 'nosuch'"),
        (("press", GAME, "--to", "all", "missing.txt"), 1, "cannot read missing.txt"),
        (("press", GAME, "note.txt"), 2, "--to all"),
        (("press", GAME, "--to", "all"), 2, "give the message"),
        (("press", GAME, "--list", "--to", "all"), 2, "--list takes no --to"),
    ]
    for args, code, says in cases:
        r = pbem(*args, ok=False)
        assert r.returncode == code and says in r.stderr, (args, r.returncode, r.stderr)
        assert r.stderr.startswith("pbem: ") and r.stderr.count("\n") == 1
    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    r = pbem("press", GAME, "--to", "all", "empty.txt", ok=False)
    assert r.returncode == 1 and "the press is empty" in r.stderr
    assert "no press yet" in pbem("press", GAME, "--list").stdout
    out = pbem("press", GAME, "--to", "alice,bob", "note.txt").stdout
    assert "press #1 from the GM to alice, bob: 1 mail(s) queued" in out  # bob has no address: nothing to send him
    assert "press" in pbem("--help").stdout
