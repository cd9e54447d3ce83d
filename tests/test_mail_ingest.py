"""Ingest rules beyond the corpus: the deadline is checked against the delivery time, REPORT
requests are authenticated, and no input -- however mangled -- makes ingest raise."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mail_corpus import CORPUS, make_store

from pbem.mail import formats as mail_formats
from pbem.mail import ingest as mail_ingest
from pbem.mail import outcome as mail_outcome
from pbem import host
from pbem.host import schedule

ORDERS = b"GAME late1\nPLAYER erin\nPASSWORD elm-fern-44\ntribe green 1,0\nEND\n"


def maildir_message(folder: Path, when: int, name: str, body: bytes) -> None:
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "new" / f"{when}.M1P1Q{name}.host").write_bytes(
        b"From: Erin <erin@example.org>\nSubject: [late1] orders\nMessage-ID: <" + name.encode() + b"@example.org>\n\n" + body)


def test_the_deadline_is_checked_against_the_delivery_time_not_the_ingest_time(tmp_path, monkeypatch):
    db = make_store(tmp_path / "pbem.db")
    deadline = schedule.parse_time(db["games"].get("late1")["deadline"])  # 2026-01-01T01:00Z
    box = tmp_path / "Maildir"
    maildir_message(box, int(deadline.timestamp()) - 60, "early", ORDERS)  # arrived a minute before
    maildir_message(box, int(deadline.timestamp()) + 60, "late", ORDERS.replace(b"1,0", b"0,1"))
    monkeypatch.setenv("PBEM_NOW", "2026-01-01T01:30:00Z")  # the GM's cron runs half an hour later
    early, late = mail_ingest.ingest(db, [box]).results
    assert early.outcome == "accepted", early.reason
    assert late.outcome == "rejected" and late.reason.startswith("late:")
    assert db["submissions"].get(early.submission_id)["received"] == "2026-01-01T00:59:00Z"


def test_the_delivery_time_of_an_eml_is_its_topmost_received_header(tmp_path, monkeypatch):
    db = make_store(tmp_path / "pbem.db")
    monkeypatch.setenv("PBEM_NOW", "2026-01-01T05:00:00Z")
    raw = (b"Received: from mx by gm.example; Thu, 1 Jan 2026 00:30:00 +0000\n"
           b"Received: from forged by forged; Wed, 31 Dec 2025 00:00:00 +0000\n"
           b"From: erin@example.org\nSubject: [late1] orders\nMessage-ID: <rcv@example.org>\n\n" + ORDERS)
    (tmp_path / "m.eml").write_bytes(raw)
    [r] = mail_ingest.ingest(db, [tmp_path / "m.eml"]).results
    assert r.outcome == "accepted"
    assert db["submissions"].get(r.submission_id)["received"] == "2026-01-01T00:30:00Z"


def test_report_requests_need_the_password_and_the_registered_address(tmp_path):
    db = make_store(tmp_path / "pbem.db")

    def request(name: str, sender: str, password: str) -> mail_outcome.Outcome:
        (tmp_path / name).write_bytes(f"From: {sender}\nSubject: [g1] report\nMessage-ID: <{name}@x>\n\nPASSWORD {password}\nREPORT\n".encode())
        [r] = mail_ingest.ingest(db, [tmp_path / name]).results
        return r

    ok = request("a.eml", "alice@example.org", "amber-anvil-11")
    assert ok.outcome == "accepted" and ok.player == "alice"
    [sent] = db["outbox"].rows_where("inbox_id = ?", [ok.inbox_id])
    assert sent["kind"] == "report" and sent["body"].startswith(host.report(db, "g1", "alice"))
    bad = request("b.eml", "alice@example.org", "guess")
    assert bad.outcome == "rejected" and "bad password" in bad.reason
    assert "amber-anvil-11" not in next(db["outbox"].rows_where("inbox_id = ?", [bad.inbox_id]))["body"]
    other = request("c.eml", "mallory@evil.example", "amber-anvil-11")
    assert other.outcome == "rejected" and "no PLAYER line" in other.reason  # not a registered address: who is it?
    spoof = request("d.eml", "Mallory <mallory@evil.example>", "amber-anvil-11\nPLAYER alice")
    assert spoof.outcome == "rejected" and "sender mismatch" in spoof.reason


def test_a_player_cannot_submit_for_another(tmp_path):
    db = make_store(tmp_path / "pbem.db")
    # alice, from her own address, with her own password, claims to be bob
    (tmp_path / "x.eml").write_bytes(b"From: alice@example.org\nSubject: [g1] o\nMessage-ID: <x@x>\n\n"
                                     b"GAME g1\nPLAYER bob\nPASSWORD amber-anvil-11\ntribe green 1,0\nEND\n")
    [r] = mail_ingest.ingest(db, [tmp_path / "x.eml"]).results
    assert r.outcome == "rejected" and r.player == "bob"
    assert "sender mismatch" in r.reason
    assert db["submissions"].count_where("player = 'bob' and status != 'rejected'") == 0


def test_nothing_is_reported_before_its_batch_is_committed(tmp_path, monkeypatch):
    """Issue 17: ingest commits in batches; a crash in the middle of a batch rolls it back,
    so none of its messages may have been reported (printed as accepted) by then. Each
    message reported is in the store, and the rerun takes the rest."""
    db = make_store(tmp_path / "pbem.db")
    box = tmp_path / "Maildir"
    orders = b"GAME g1\nPLAYER alice\nPASSWORD amber-anvil-11\ntribe green 1,0\nEND\n"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    for n in range(7):
        (box / "new" / f"{1_800_000_000 + n}.M1P1Q{n}.host").write_bytes(
            b"From: alice@example.org\nSubject: [g1] orders\nMessage-ID: <m%d@example.org>\n\n%s# %d\n" % (n, orders, n))
    real = mail_ingest.ingest_item
    seen = []

    def crash_on_the_sixth(db, item, ctx):
        seen.append(item)
        if len(seen) == 6:
            raise KeyboardInterrupt  # the GM's Ctrl-C, a kill: the batch under way is rolled back
        return real(db, item, ctx)

    monkeypatch.setattr(mail_ingest, "ingest_item", crash_on_the_sixth)
    reported = []
    try:
        mail_ingest.ingest(db, [box], on_result=reported.append, batch=4)
    except KeyboardInterrupt:
        pass
    assert [r.outcome for r in reported] == ["accepted"] * 4  # the first batch: committed, then reported
    stored = {r[0] for r in db.execute("select id from inbox").fetchall()}
    assert {r.inbox_id for r in reported} == stored  # the fifth was rolled back: never reported
    monkeypatch.setattr(mail_ingest, "ingest_item", real)
    again = mail_ingest.ingest(db, [box], on_result=reported.append)
    assert [r.outcome for r in again.results] == ["seen"] * 4 + ["accepted"] * 3
    assert db.execute("select count(*) from inbox").fetchone()[0] == 7


SAMPLES = [p.read_bytes() for p in sorted(CORPUS.glob("*.eml")) if p.stat().st_size < 50_000]


@st.composite
def mangled(draw):
    raw = bytearray(draw(st.sampled_from(SAMPLES)))
    rnd = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(1, 40))):
        op = rnd.random()
        i = rnd.randrange(len(raw) + 1)
        if op < 0.4 and raw:
            raw[min(i, len(raw) - 1)] = rnd.randrange(256)
        elif op < 0.7:
            raw[i:i] = rnd.choice([b"\r", b"\n", b"\x00", b"=?", b"?=", b"--", b">", b"boundary=", b"\xff\xfe", b": ", b"=\n"])
        else:
            del raw[i:i + rnd.randrange(1, 200)]
    return bytes(raw)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(raw=mangled())
def test_no_mangled_message_makes_ingest_raise(tmp_path_factory, raw):
    db = _fuzz_store(tmp_path_factory)
    item = mail_formats.Item("fuzz", "eml", lambda: raw)
    out = mail_ingest.ingest_item(db, item, mail_outcome.Context(own="gm@pbem.example"))
    assert out.outcome in ("accepted", "rejected", "ignored", "seen")
    if out.outcome != "seen":
        assert db["inbox"].get(out.inbox_id)["outcome"] == out.outcome and out.reason
        assert not out.reason.startswith("unreadable")  # no internal error was papered over


_STORES: dict = {}


def _fuzz_store(factory):
    if "db" not in _STORES:
        _STORES["db"] = make_store(factory.mktemp("fuzz") / "pbem.db")
    return _STORES["db"]


def _parsed_state(msg) -> dict:
    """A parsed message as data: its headers, payload (parts too), defects and the rest."""
    state = {k: v for k, v in vars(msg).items() if not k.startswith("_pbem")}
    state["defects"] = [(type(d).__name__, str(d)) for d in state["defects"]]
    if isinstance(state["_payload"], list):
        state["_payload"] = [_parsed_state(p) for p in state["_payload"]]
    return state


def test_the_plain_message_parser_builds_what_the_email_package_builds():
    """issue 17: ingest reads a one-part message with a plain header block itself
    (ingest._parse_plain); it must be exactly the message compat32's feed parser builds --
    the same headers, payload and (no) defects -- and any other message must go to the feed
    parser. Mixed from header and body lines that are ugly in every way the feed parser
    cares about: folding, empty values, no colon, a leading colon, "From " lines, CR and CRLF,
    8-bit bytes, NUL, multipart and message/* types, no blank line."""
    import email

    heads = ["Subject: hi", "Subject:hi", "Subject:", "Subject: ", "Subject:\t x", "X-Y: a:b", "From: a@b", "From a@b",
             "From: =?utf-8?q?J=C3=BCrgen?= <j@x>", "Content-Type: text/plain", "Content-Type: text/plain; charset=utf-8",
             "content-type: TEXT/HTML", "Content-Type: multipart/mixed; boundary=x", "Content-Type: message/rfc822",
             "Content-Type: message/delivery-status", "Content-Type: text", "Content-Type: ; x", "Content-Type: a/b/c",
             "Content-Transfer-Encoding: base64", " folded", "\tfolded tab", "  ", "\t", ":nothing", "No colon here",
             "S\u00fcbject: x", "Subject: Gr\u00fc\u00dfe", "X: \x00", "X: \x0c", "X-A: \u2028", "X-\x7f: y", "X~: y",
             "Received: from x by y; Sat, 21 Nov 2026 14:00:00 +0000", "Content-Disposition: attachment; filename=a.txt"]
    bodies = ["", "hello\n", "GAME g\nEND\n", "\n\nx", "From me\n", "a\rb", "=C3=BC\n", "\x00\x01",
              "--x\nContent-Type: text/plain\n\nhi\n--x--\n"]
    rng = random.Random(17)
    messages = [p.read_bytes() for p in sorted(CORPUS.iterdir()) if p.suffix == ".eml"]
    for _ in range(4000):
        newline = rng.choice(["\n"] * 8 + ["\r\n", "\r"])
        text = newline.join(rng.choice(heads) for _ in range(rng.randint(0, 8)))
        raw = (text + rng.choice([newline * 2, newline * 2, newline, ""]) + rng.choice(bodies)).encode("utf-8")
        messages.append(raw.replace(b"\xc3\xbc", b"\xfc") if rng.random() < 0.1 else raw)
    plain = 0
    for raw in messages:
        mine = mail_ingest._parse_plain(raw)
        if mine is not None:
            plain += 1
            theirs = email.message_from_bytes(raw)
            assert type(mine) is type(theirs) and _parsed_state(mine) == _parsed_state(theirs), raw
    assert 400 < plain < len(messages) - 1000  # both paths taken, many times
    assert mail_ingest._parse_plain(b"Content-Type: multipart/mixed; boundary=x\n\n--x\n\nhi\n--x--\n") is None
    assert mail_ingest._parse_plain(b"From x@y Sat Nov 21 14:00:00 2026\nSubject: hi\n\nbody\n") is None
    assert mail_ingest._parse_plain(b"Subject: hi\r\n\r\nbody\r\n") is None


def test_what_ingest_knows_ahead_of_a_part_is_what_the_part_says():
    """issue 17: a part's content type, file name, charset and disposition are worked out
    ahead, once for each Content-Type/Content-Disposition pair (headers.known); for every
    part of many messages each must be what the part's own method says (or be left out when
    the method raises)."""
    from pbem.mail import headers as mail_headers

    types = ["text/plain", 'TEXT/Plain; Charset="UTF-8"', "text/plain; charset=utf-8; name=a.txt",
             "text/plain; name*0=a; name*1=b.txt", "text/html", "text", "a/b/c", "; x", "", "text/plain; charset=\u00fc",
             "application/octet-stream; name=\"=?utf-8?q?x=2Etxt?=\"", "text/plain; charset*=utf-8''%C3%BC",
             "message/rfc822", "text/plain; charset=\"\"", "text/plain;;charset=x", None]
    dispositions = [None, None, "attachment", "inline", "attachment; filename=o.txt", 'ATTACHMENT; FILENAME="x y.TXT"',
                    "attachment; filename*=utf-8''%C3%BC.txt", "", "; ;"]
    rng = random.Random(17)

    def headers() -> str:
        ctype, disposition = rng.choice(types), rng.choice(dispositions)
        return "".join([f"Content-Type: {ctype}\n" if ctype is not None else "",
                        f"Content-Disposition: {disposition}\n" if disposition is not None else "",
                        "content-type: text/html\n" if rng.random() < 0.2 else ""])

    messages = [p.read_bytes() for p in sorted(CORPUS.iterdir()) if p.suffix == ".eml"]
    for _ in range(1500):
        if rng.random() < 0.5:
            kind = rng.choice(["mixed", "digest", "alternative"])
            parts = "".join(f"--b\n{headers()}\nhello\n" for _ in range(rng.randint(1, 3)))
            messages.append(f"Subject: x\nContent-Type: multipart/{kind}; boundary=b\n\n{parts}--b--\n".encode())
        else:
            messages.append(f"Subject: x\n{headers()}\nhi\n".encode())
    asked = 0
    for raw in messages:
        for part in mail_ingest._parse(raw).walk():
            ahead = mail_headers.known(part)
            for what, ask in (("ctype", part.get_content_type), ("filename", part.get_filename),
                              ("charset", part.get_content_charset), ("disposition", part.get_content_disposition)):
                try:
                    said = ask()
                except Exception:  # noqa: BLE001
                    assert what not in ahead
                    continue
                assert ahead[what] == said, (what, raw)
                asked += 1
    assert asked > 10000


def test_ingest_keeps_its_savepoints_journal_in_memory_and_puts_the_setting_back(tmp_path):
    """issue 17: each message's savepoint journals the pages it changes; ingest keeps that
    journal in memory (temp_store = MEMORY) while it runs, not in a temporary file written
    page by page, and leaves the connection's setting as it found it."""
    db = make_store(tmp_path / "pbem.db")
    db.execute("PRAGMA temp_store = FILE")
    seen = []
    box = tmp_path / "Maildir"
    maildir_message(box, 1_800_000_000, "one", ORDERS)
    mail_ingest.ingest(db, [box], on_result=lambda r: seen.append(db.execute("PRAGMA temp_store").fetchone()[0]))
    assert seen == [2]  # MEMORY while the batch was ingested
    assert db.execute("PRAGMA temp_store").fetchone()[0] == 1  # FILE again after
