"""What a forged From can have the judge mail, and who the reply cap may hold back (tester 4,
findings 11 and 12), met where the user meets them: .eml files through the installed
`pbem ingest`, and the mail read as `pbem send --dry-run` writes it."""

from __future__ import annotations

import email
import email.policy
import re
from pathlib import Path

from test_new_gm import eml

_n = iter(range(1, 10_000))


def new_game(run, game_id: str, *players: str, turns: int = 3) -> dict[str, str]:
    """A GODS game played `turns` turns on (each forced); returns {player: password}."""
    args = ["new", "gods", game_id, "--seed", "42"]
    for p in players:
        args += ["--player", p]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    for _ in range(turns):
        assert run("resolve", game_id, "--force").returncode == 0
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", r.stdout))


def mail_in(run, tmp_path: Path, sender: str, body: str, subject: str = "hello") -> str:
    """One message through `pbem ingest`; returns its line of ingest's output."""
    n = next(_n)
    r = run("ingest", eml(tmp_path, f"m{n}", sender, body, subject=subject))
    assert r.returncode == 0 and "Traceback" not in r.stderr, (r.stdout, r.stderr)
    return r.stdout.splitlines()[0]


def mails_out(run, tmp_path: Path) -> list[dict]:
    """The mail queued since the last call, as `pbem send --dry-run` writes it (marked sent):
    [{to, subject, text, bytes}]."""
    out = tmp_path / f"out{next(_n)}"
    r = run("send", "--dry-run", out, "--mark-sent", "--from", "judge@pbem.example.org")
    assert r.returncode == 0, r.stderr
    found = []
    for path in sorted(out.glob("*.eml")) if out.exists() else []:
        data = path.read_bytes()
        msg = email.message_from_bytes(data, policy=email.policy.default)
        found.append({"to": str(msg["To"]), "subject": str(msg["Subject"]), "bytes": len(data),
                      "text": msg.get_body(("plain",)).get_content()})
    return found


def to(mails: list[dict], addr: str) -> list[dict]:
    return [m for m in mails if m["to"] == addr]


# --- 11. a forged From has the judge mail nobody a game's history ----------------------------------------

def test_a_forged_history_request_mails_only_a_short_code(run, tmp_path):
    pw = new_game(run, "g1", "ann:ann@play.test", "bob:bob@play.test")
    mails_out(run, tmp_path)
    # forged: ten addresses once, one five times; none gets a report, each a short answer at most
    for i in range(10):
        assert "accepted" in mail_in(run, tmp_path, f"victim{i}@example.net", "HISTORY g1")
    for _ in range(5):
        mail_in(run, tmp_path, "victim@example.net", "HISTORY g1")
    sent = mails_out(run, tmp_path)
    assert len(to(sent, "victim@example.net")) == 3 and len(to(sent, "victim0@example.net")) == 1
    for m in sent:
        assert "history" not in m["subject"] and "Public report." not in m["text"], m
        assert "HISTORY g1 CONFIRM " in m["text"] and "If you did not ask for it, ignore this mail" in m["text"], m
        assert m["bytes"] < 4000, m["bytes"]
    # a player's address forged without the password: the same short answer, no report
    mail_in(run, tmp_path, "ann@play.test", "HISTORY g1")
    [m] = to(mails_out(run, tmp_path), "ann@play.test")
    assert "HISTORY g1 CONFIRM " in m["text"] and "with their PLAYER and PASSWORD lines" in m["text"], m["text"]
    # who reads the address sends the code back: the history comes, any turn, with the same code
    code = re.search(r"HISTORY g1 CONFIRM (\w+)", sent[0]["text"]).group(1)
    who = sent[0]["to"]
    line = mail_in(run, tmp_path, who, f"HISTORY g1 CONFIRM {code}")
    assert "accepted" in line and "reply cap" not in line, line
    [hist] = to(mails_out(run, tmp_path), who)
    assert hist["subject"] == "[g1] history: the public reports" and "Public report." in hist["text"]
    assert "turn 3" in hist["text"] and "Your password" not in hist["text"]
    mail_in(run, tmp_path, who, f"history g1 2 confirm {code.upper()} thanks")
    got = to(mails_out(run, tmp_path), who)
    assert any(m["subject"] == "[g1] history: turn 2 (public report)" for m in got), [m["subject"] for m in got]
    assert any("ignored: 'thanks'" in m["text"] for m in got), [m["text"] for m in got]
    # the code is that address's: from another it is refused (and counts in the reply cap)
    line = mail_in(run, tmp_path, "other@example.net", f"HISTORY g1 CONFIRM {code}")
    assert "rejected" in line, line
    [m] = to(mails_out(run, tmp_path), "other@example.net")
    assert "that is not the code sent to other@example.net for game g1" in m["text"], m["text"]
    # a player with her PASSWORD, from her address, gets it at once
    mail_in(run, tmp_path, "bob@play.test", f"PLAYER bob\nPASSWORD {pw['bob']}\nHISTORY g1 1", subject="[g1] history")
    [hist] = to(mails_out(run, tmp_path), "bob@play.test")
    assert hist["subject"] == "[g1] history: turn 1 (public report)", hist["subject"]


# --- 12. a message with its seat's password is never held back; a player is never left in silence -----------

def test_a_players_requests_with_her_password_are_never_capped(run, tmp_path):
    new_game(run, "g", "ann:ann@play.test", "bob:bob@play.test", turns=4)
    r = run("replace", "g", "bob", "dora:dora@play.test")
    assert r.returncode == 0, r.stderr
    password = r.stdout.split()[-1]
    [welcome] = [m for m in to(mails_out(run, tmp_path), "dora@play.test") if "you play bob" in m["subject"]]
    assert "send HISTORY g [TURN] with your PLAYER and PASSWORD lines" in welcome["text"], welcome["text"]
    head = f"PLAYER dora\nPASSWORD {password}\n"
    for turn in (1, 2, 3, 4, 5):
        line = mail_in(run, tmp_path, "dora@play.test", head + f"HISTORY g {turn}", subject="Re: [g] you play bob")
        assert "g/bob: HISTORY" in line and "reply cap" not in line, line
    for body in ("LIST", "HELP", "LIST\nHELP", "OBSERVE g", "HELP\nLIST"):
        line = mail_in(run, tmp_path, "dora@play.test", head + body, subject="[g] more")
        assert "reply cap" not in line, line
    got = to(mails_out(run, tmp_path), "dora@play.test")
    subjects = [m["subject"] for m in got]
    assert [f"[g] history: turn {t} (public report)" for t in (1, 2, 3, 4, 5)] == [s for s in subjects if "history" in s]
    # five histories; three helps, and a reply to each message of the others but HELP alone
    assert len(got) == 5 + 3 + 4 and subjects.count("[g] order documentation (gods)") == 3, subjects
    # ...nor do they count against her address's cap: her next messages without the password are answered
    for _ in range(3):
        line = mail_in(run, tmp_path, "dora@play.test", "LIST", subject="[g] list")
        assert "reply cap" not in line, line


def test_a_capped_player_is_told_once_and_a_capped_stranger_hears_nothing(run, tmp_path):
    new_game(run, "g", "ann:ann@play.test", "bob:bob@play.test", turns=1)
    mails_out(run, tmp_path)
    # no password: the reply cap holds back the fourth answer an hour; the player is told so, once
    lines = [mail_in(run, tmp_path, "bob@play.test", "LIST", subject="[g] list") for _ in range(5)]
    assert all("reply cap" not in line for line in lines[:3]), lines
    assert "the reply cap" in lines[3] and "a note says so" in lines[3], lines[3]
    assert "the reply cap" in lines[4] and "a note says so" not in lines[4], lines[4]
    got = to(mails_out(run, tmp_path), "bob@play.test")
    assert [m["subject"] for m in got] == ["[g] your commands: done"] * 3 + ["[g] your message was not answered (the reply cap)"]
    note = got[-1]["text"]
    assert 'your message (subject "[g] list") was received, but not answered' in note, note
    assert "Send it again with your PLAYER and PASSWORD lines" in note and "this note is not sent again" in note, note
    # an address that holds no seat and observes nothing: three answers, then silence
    for _ in range(5):
        mail_in(run, tmp_path, "stranger@example.net", "LIST")
    assert len(to(mails_out(run, tmp_path), "stranger@example.net")) == 3
