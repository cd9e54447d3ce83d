"""Press privacy (issue 13): private press reaches its sender and its recipients and nobody
else, in no output -- mail (text and HTML parts), text reports, HTML reports, the published
site (HTML, JSON, Atom, iCalendar), HISTORY, `pbem report` and `pbem status`; grey press never
shows its sender to the players or on the site, only to the GM (`pbem press --list`).

A GODS game is played by mail through `pbem ingest` (.eml files); every message `pbem send
--dry-run` writes is read back as a real MIME message."""

from __future__ import annotations

import email
import email.policy
import re
from pathlib import Path

import pytest

from pbem.host.store import open_db
from pbem.render.html import render_html_report

PLAYERS = ("alice", "bob", "carol")
# marker -> the players who may read it (None: everyone; the public report and the site too)
WHITE_PRIVATE = {"alice-to-bob-7d1f": {"alice", "bob"}, "carol-to-alice-bob-93ce": {"carol", "alice", "bob"},
                 "bob-to-carol-x55a": {"bob", "carol"}}
PUBLIC = "public-hello-e0b2"
GREY_PRIVATE = "grey-bob-to-alice-61aa"  # sent by bob while the game is grey
GREY_PUBLIC = "grey-carol-to-all-2f0c"  # sent by carol while the game is grey


def read_eml(path: Path) -> tuple[str, str]:
    msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    texts = [part.get_content() for part in msg.walk() if part.get_content_type() in ("text/plain", "text/html")]
    return str(msg["To"]), "\n".join(texts)


@pytest.fixture
def played(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_NOW", "2026-11-21T12:00:00Z")
    monkeypatch.setenv("PBEM_FROM", "gm@pbem.example")

    def run(*args):
        r = cli(*args)
        assert r.exit_code == 0, (args, r.output)
        return r.stdout

    out = run("new", "gods", "p1", *[a for p in PLAYERS for a in ("--player", f"{p}:{p}@example.org")], "--seed", "5")
    passwords = dict(re.findall(r"^\s*(\w+)\s.*password[: ]+(\S+)", out, re.MULTILINE | re.IGNORECASE))
    if set(passwords) != set(PLAYERS):  # the CLI's layout: read the passwords from the store
        db = open_db(str(tmp_path / "pbem.db"))
        passwords = {r["name"]: r["password"] for r in db["players"].rows}
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    n = [0]

    def mail(player: str, body: str) -> str:
        n[0] += 1
        (inbox / f"m{n[0]}.eml").write_text(
            f"From: {player}@example.org\nSubject: [p1] press\nMessage-ID: <p{n[0]}@example.org>\n\n"
            f"PASSWORD {passwords[player]}\n{body}", encoding="utf-8")
        said = run("ingest", inbox)
        assert "0 rejected" in said, said
        return said

    mail("alice", "PRESS TO bob\nalice-to-bob-7d1f\nENDPRESS\nPRESS TO ALL\npublic-hello-e0b2\nENDPRESS\n")
    mail("carol", "PRESS TO alice,bob\ncarol-to-alice-bob-93ce\nENDPRESS\n")
    run("resolve", "p1", "--force")
    mail("bob", "PRESS TO carol\nbob-to-carol-x55a\nENDPRESS\n")
    run("set", "p1", "press", "grey")
    mail("bob", "PRESS TO alice\ngrey-bob-to-alice-61aa\nENDPRESS\n")
    mail("carol", "PRESS TO all\ngrey-carol-to-all-2f0c\nENDPRESS\n")
    run("resolve", "p1", "--force")
    run("resolve", "p1", "--force")
    run("send", "--dry-run", tmp_path / "outgoing")
    run("publish", "--out", tmp_path / "site")
    return run, open_db(str(tmp_path / "pbem.db")), tmp_path


def allowed(marker: str) -> set[str] | None:
    if marker in WHITE_PRIVATE:
        return WHITE_PRIVATE[marker]
    if marker == GREY_PRIVATE:
        return {"bob", "alice"}
    return None  # public


MARKERS = [*WHITE_PRIVATE, PUBLIC, GREY_PRIVATE, GREY_PUBLIC]


def test_every_mail_carries_press_only_to_its_readers(played):
    _, _db, tmp = played
    files = sorted((tmp / "outgoing").glob("*.eml"))
    assert len(files) > 20
    seen = {m: set() for m in MARKERS}
    for path in files:
        to, text = read_eml(path)
        who = to.split("@")[0]
        for marker in MARKERS:
            if marker in text:
                seen[marker].add(who)
                readers = allowed(marker)
                assert readers is None or who in readers, (marker, to, path.name)
    # and each reached its recipients: by press mail, and again in the next report
    assert seen["alice-to-bob-7d1f"] == {"alice", "bob"}  # alice: her own press in her report
    assert seen["bob-to-carol-x55a"] == {"bob", "carol"}
    assert seen[PUBLIC] == set(PLAYERS)


def test_grey_press_never_shows_its_sender_to_the_players(played):
    _, db, tmp = played
    checked = 0
    for path in sorted((tmp / "outgoing").glob("*.eml")):
        to, text = read_eml(path)
        who = to.split("@")[0]
        for marker, sender in ((GREY_PRIVATE, "bob"), (GREY_PUBLIC, "carol")):
            if marker in text and who != sender:
                checked += 1
                # the headline before it says anonymous, never the sender
                heads = re.findall(r"(?m)^.*(?:from \S+ to|^\s*\S+ to) [^\n]*:\s*$", text[:text.index(marker)])
                assert heads and "anonymous" in heads[-1] and sender not in heads[-1], (path.name, heads[-1:])
                assert f"press from {sender}" not in text
    assert checked >= 6  # the press mails (alice; alice, bob) and the next reports (alice; alice, bob, HTML and text)
    checked = 0
    for row in db["reports"].rows:
        for marker, sender in ((GREY_PRIVATE, "bob"), (GREY_PUBLIC, "carol")):
            if marker in row["text"] and row["player"] != sender:
                checked += 1
                before = row["text"][:row["text"].index(marker)].rstrip().split("\n")
                heading = next(line for line in reversed(before) if line.rstrip().endswith(":"))
                assert heading.startswith("anonymous to"), (row["player"], heading)
    assert checked == 4  # alice: both; bob: carol's; the public report: carol's


def test_reports_text_and_html_carry_press_only_to_its_readers(played):
    run, db, _tmp = played
    found = {m: set() for m in MARKERS}
    for row in db["reports"].rows:
        viewer = row["player"] or "public"
        html = render_html_report(db, "p1", row["player"] or None, row["phase"])
        for marker in MARKERS:
            for text in (row["text"], html):
                if marker in text:
                    found[marker].add(viewer)
                    readers = allowed(marker)
                    assert readers is None or viewer in readers, (marker, viewer, row["phase"])
    assert "public" in found[PUBLIC] and "public" in found[GREY_PUBLIC]
    assert found["carol-to-alice-bob-93ce"] == {"alice", "bob", "carol"}
    # the public report as the CLI prints it, and the status
    for args in (("report", "p1"), ("report", "p1", "--turn", "2"), ("status", "p1"), ("status", "--json")):
        out = run(*args)
        assert not any(m in out for m in [*WHITE_PRIVATE, GREY_PRIVATE]), args


def test_the_site_shows_public_press_only_and_grey_anonymous(played):
    _, _db, tmp = played
    site = tmp / "site"
    files = [p for p in site.rglob("*") if p.is_file()]
    assert any(p.suffix == ".json" for p in files) and any(p.suffix == ".atom" for p in files)
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for marker in [*WHITE_PRIVATE, GREY_PRIVATE]:
            assert marker not in text, (marker, path)
    page = (site / "games" / "p1" / "index.html").read_text(encoding="utf-8")
    assert PUBLIC in page and GREY_PUBLIC in page
    item = page[page.rindex("<li", 0, page.index(GREY_PUBLIC)):page.index(GREY_PUBLIC)]
    assert "<strong>anonymous</strong>" in item and "carol" not in item
    item = page[page.rindex("<li", 0, page.index(PUBLIC)):page.index(PUBLIC)]
    assert "<strong>alice</strong>" in item


def test_history_by_mail_is_public_only(played):
    run, db, tmp = played
    (tmp / "inbox" / "h.eml").write_text("From: stranger@example.net\nSubject: history\nMessage-ID: <h@x>\n\nHISTORY p1\n",
                                         encoding="utf-8")
    run("ingest", tmp / "inbox")
    # (a sender no seat's password vouches for confirms that it reads its mail first: finding 11)
    [asked] = [r["body"] for r in db["outbox"].rows_where("to_addr = 'stranger@example.net'")]
    assert not any(m in asked for m in [*WHITE_PRIVATE, GREY_PRIVATE, PUBLIC, GREY_PUBLIC])
    code = re.search(r"HISTORY p1 CONFIRM (\w+)", asked).group(1)
    (tmp / "inbox" / "h2.eml").write_text("From: stranger@example.net\nSubject: history\nMessage-ID: <h2@x>\n\n"
                                          f"HISTORY p1 CONFIRM {code}\n", encoding="utf-8")
    run("ingest", tmp / "inbox")
    [row] = db["outbox"].rows_where("kind = 'history'")
    assert PUBLIC in row["body"] and GREY_PUBLIC in row["body"]
    assert not any(m in row["body"] for m in [*WHITE_PRIVATE, GREY_PRIVATE])


def test_the_gm_sees_every_sender(played):
    run, _db, _tmp = played
    listing = run("press", "p1", "--list")
    assert re.search(r"bob -> alice \(grey", listing) and GREY_PRIVATE in listing
    assert re.search(r"carol -> all \(grey", listing)
    assert "alice -> bob\n" in listing
