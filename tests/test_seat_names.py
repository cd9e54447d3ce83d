"""Seat names that collide with the words the reports and the press use for someone else
(tester3 finding 10): "you" made a seat's press read "you to everyone:" in the other players'
reports, "gm" was taken for the GM, "anonymous" for grey press. Each way a name is given --
`pbem new`, `pbem join`, `pbem replace`, JOIN by mail -- refuses them with a message quoting
the name, and changes nothing. Through the installed `pbem` command."""

from __future__ import annotations

import re

import pytest

from pbem.host.names import SEAT_WORDS
from pbem.host.store import open_db


def outbox(tmp_path) -> list[dict]:
    return [dict(r) for r in open_db(str(tmp_path / "pbem.db"))["outbox"].rows_where(order_by="id")]


def refused(r, name: str) -> None:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert f"player name '{name}' is not allowed" in r.stderr and "choose another name" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1


@pytest.mark.parametrize("name", ["you", "You", "gm", "the-gm", "anonymous", "everyone"])
def test_new_refuses_a_seat_named_like_a_word_of_the_reports(run, tmp_path, name):
    r = run("new", "gods", "g1", "--player", name, "--player", "dan:dan@x.test")
    refused(r, name.lower())
    assert not (tmp_path / "turns" / "g1").exists()
    assert "no game" in run("status", "g1").stderr


def test_the_words_are_one_list_and_the_message_names_them(run):
    assert {"you", "gm", "anonymous"} <= set(SEAT_WORDS)
    r = run("new", "ohgods", "g8", "--player", "you", "--player", "dan:dan@x.test")
    assert "a report calls its reader 'you'" in r.stderr
    assert all(word in r.stderr for word in SEAT_WORDS)  # the message lists every word refused


def test_replace_and_join_refuse_them_and_change_nothing(run, tmp_path):
    assert run("new", "gods", "g1", "--seed", "2", "--player", "zeus:zeus@x.test", "--player", "hera:hera@x.test").returncode == 0
    before = outbox(tmp_path)
    refused(run("replace", "g1", "hera", "gm:dora@x.test"), "gm")
    refused(run("replace", "g1", "hera", "anonymous"), "anonymous")
    refused(run("join", "g1", "you:new@x.test"), "you")
    assert outbox(tmp_path) == before
    status = run("status", "g1", "--json").stdout
    assert "dora" not in status and '"you"' not in status
    # an ordinary name still works
    assert run("replace", "g1", "hera", "dora:dora@x.test").returncode == 0


def test_join_by_mail_refuses_them_and_a_name_made_from_the_address_avoids_them(run, tmp_path):
    assert run("new", "gods", "open-1", "--open", "3").returncode == 0

    def mail(n: int, sender: str, body: str):
        path = tmp_path / f"m{n}.eml"
        path.write_text(f"From: {sender}\r\nTo: orders@judge.test\r\nSubject: join\r\nMessage-ID: <j{n}@x.test>\r\n"
                        f"Date: Fri, 27 Nov 2026 22:00:00 +0000\r\n\r\n{body}\r\n")
        r = run("ingest", path)
        assert r.returncode == 0, r.stderr
        return [m for m in outbox(tmp_path) if m["to_addr"] == sender][-1]["body"]

    answer = mail(1, "dan@x.test", "JOIN open-1 you")
    assert "player name 'you' is not allowed" in answer and "CONFIRM" not in answer
    # JOIN without a name takes one made from the address: never one of the words
    answer = mail(2, "gm@x.test", "JOIN open-1")
    confirm = re.search(r"^ +(JOIN open-1 CONFIRM \w+)$", answer, re.MULTILINE).group(1)
    answer = mail(3, "gm@x.test", confirm)
    assert "you have a seat in game open-1 as gm2." in answer


def test_the_readme_lists_the_same_words():
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert all(f"`{word}`" in readme for word in SEAT_WORDS)
