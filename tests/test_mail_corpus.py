"""The mail corpus (tests/mail/): every message gets exactly the outcome expected.toml names,
and the hostile ones change nothing they should not. The games: g1 (alice, active, and bob,
both with registered addresses), g2 (dave, no address), late1 (its deadline long past) and
done1 (finished)."""

from __future__ import annotations

import base64
import email
import email.policy
import logging
import mailbox
import shutil
import tomllib
from pathlib import Path

import pytest

from pbem.mail import headers as mail_headers
from pbem.host import read
from pbem.host.store import loads
from pbem.mail import ingest as mail_ingest
from pbem.mail import send as mail_send
from pbem.mail import settings as mail_settings
from pbem import host
from pbem.host.store import open_db

CORPUS = Path(__file__).parent / "mail"
EXPECTED = tomllib.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))
PASSWORDS = {
    ("g1", "alice"): "amber-anvil-11", ("g1", "bob"): "birch-cedar-22", ("g2", "dave"): "delta-ember-33",
    ("late1", "erin"): "elm-fern-44", ("done1", "gina"): "gold-grove-55",
}


def make_store(path: Path, monkeypatch=None):
    db = open_db(str(path))
    db.execute("PRAGMA synchronous = OFF")  # test speed only
    host.new_game(db, "gods", "g1", ["alice:alice@example.org", "bob:bob@example.org"], seed="1", turns=None)
    host.new_game(db, "gods", "g2", ["dave", "carol:carol@example.org"], seed="1", turns=None)
    mp = pytest.MonkeyPatch()
    mp.setenv("PBEM_NOW", "2026-01-01T00:00:00Z")
    host.new_game(db, "gods", "late1", ["erin:erin@example.org", "frank"], seed="1", turns=None,
                  sched={"every": "1h", "at": None, "tz": "UTC"})
    mp.undo()
    host.new_game(db, "gods", "done1", ["gina:gina@example.org", "hal"], seed="1", turns=None)
    db["games"].update("done1", {"status": "finished"})
    for (game, player), password in PASSWORDS.items():
        db["players"].update((game, player), {"password": password})
    db.execute("delete from outbox")  # the turn-1 reports: not what these tests look at
    db.conn.commit()
    return db


def corpus_paths() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix == ".eml") + [CORPUS / "mbox", CORPUS / "orders"]


def key_of(origin: str) -> str:
    path, _, n = origin.partition("#")
    rel = Path(path).resolve().relative_to(CORPUS.resolve()).as_posix()
    return f"{rel}#{n}" if n else rel


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    db = make_store(tmp_path_factory.mktemp("corpus") / "pbem.db")
    results = {}
    for path in corpus_paths():  # one at a time, in name order: duplicates come second
        for r in mail_ingest.ingest(db, [path], own_address="gm@pbem.example").results:
            results[key_of(r.origin)] = r
    return db, results


def test_the_corpus_is_large_and_every_message_has_an_expected_outcome(ingested):
    db, results = ingested
    assert len(results) >= 40
    assert set(results) == set(EXPECTED)
    outcomes = {r.outcome for r in results.values()}
    assert outcomes == {"accepted", "rejected", "ignored"}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_message_gets_its_expected_outcome(ingested, key):
    db, results = ingested
    want = EXPECTED[key]
    got = results[key]
    assert (got.outcome, want["reason"] in got.reason) == (want["outcome"], True), got.reason
    row = db["inbox"].get(got.inbox_id)
    assert (row["outcome"], row["reason"]) == (got.outcome, got.reason)  # recorded with the raw bytes
    assert row["raw"] or row["size"] == 0
    if "player" in want:
        assert got.player == want["player"]
    if want.get("orders") or want.get("not_orders"):
        raw = db["submissions"].get(got.submission_id)["raw"].decode()
        lines = raw.splitlines()
        for line in want.get("orders", []):
            assert line in lines, raw
        for line in want.get("not_orders", []):
            assert line not in raw, raw
    answers = list(db["outbox"].rows_where("inbox_id = ?", [got.inbox_id]))
    if got.outcome == "ignored":
        assert answers == []  # never answered: no mail loops, no backscatter
    elif "no From" in got.reason:
        assert answers == []
    else:
        assert len(answers) == 1  # exactly one acknowledgement, report or help text
        sender = mail_headers.sender_of(email.message_from_bytes(row["raw"])) if not key.startswith("orders/") else "alice@example.org"
        assert answers[0]["to_addr"] == sender


def test_ingesting_the_corpus_again_changes_nothing(ingested):
    db, _ = ingested
    before = {t: db[t].count for t in ("inbox", "submissions", "outbox")}
    tally = mail_ingest.ingest(db, corpus_paths())
    assert tally.new == [] and tally.count("seen") == len(EXPECTED)
    assert {t: db[t].count for t in ("inbox", "submissions", "outbox")} == before


def test_injected_headers_never_reach_an_acknowledgement(ingested):
    db, results = ingested
    for key in ("h01-header-injection-subject.eml", "h02-from-name-injection.eml"):
        row = db["outbox"].get(results[key].outbox_id or next(db["outbox"].rows_where("inbox_id = ?", [results[key].inbox_id]))["id"])
        msg = mail_send.build_message(mail_send._assign_message_id(db, row, mail_settings.MailSettings(sender="gm@pbem.example")),
                                    mail_settings.MailSettings(sender="gm@pbem.example"))
        parsed = email.message_from_bytes(bytes(msg), policy=email.policy.default)
        assert parsed["Bcc"] is None and parsed["To"] == "alice@example.org"
        assert [k for k in parsed.keys() if k.lower() in ("bcc", "cc")] == []
    inbox = db["inbox"].get(results["h01-header-injection-subject.eml"].inbox_id)
    assert "\r" not in inbox["subject"] and "\n" not in inbox["subject"] and "Bcc" in inbox["subject"]


def test_the_corpus_works_from_a_maildir_too(tmp_path):
    db = make_store(tmp_path / "pbem.db")
    box = mailbox.Maildir(tmp_path / "Maildir", create=True)
    names = ["c01-plain.eml", "c17-reply-form-filled-quoted.eml", "i01-auto-submitted.eml", "r01-bad-password.eml"]
    for name in names[:2]:
        box.add(mailbox.MaildirMessage((CORPUS / name).read_bytes()))  # new/
    for name in names[2:]:
        msg = mailbox.MaildirMessage((CORPUS / name).read_bytes())
        msg.set_subdir("cur")
        msg.add_flag("S")
        box.add(msg)
    (tmp_path / "Maildir" / "tmp" / "half-delivered").write_bytes(b"From: x@example.org\n\npartial")
    tally = mail_ingest.ingest(db, [tmp_path / "Maildir"])
    assert sorted(r.outcome for r in tally.results) == sorted(EXPECTED[n]["outcome"] for n in names)
    assert {r.origin.split("/")[-2] for r in tally.results} == {"new", "cur"}  # tmp/ is never read
    assert all(r.outcome != "seen" for r in tally.results)
    assert mail_ingest.ingest(db, [tmp_path / "Maildir"]).count("seen") == 4


def test_a_20_mb_attachment_is_rejected_unread_and_kept_in_part(tmp_path):
    db = make_store(tmp_path / "pbem.db")
    def message(subject: str, mid: str) -> bytes:  # built by hand: 20 MB through EmailMessage is slow
        head = (f"From: Alice <alice@example.org>\nTo: gm@pbem.example\nSubject: {subject}\nMessage-ID: <{mid}@example.org>\n"
                "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/plain\n\n"
                "GAME g1\nPLAYER alice\nPASSWORD amber-anvil-11\ntribe green 1,0\nEND\n\n--B\n"
                "Content-Type: image/png; name=\"photo.png\"\nContent-Disposition: attachment; filename=\"photo.png\"\n"
                "Content-Transfer-Encoding: base64\n\n")
        return head.encode() + base64.encodebytes(photo) + b"--B--\n"

    photo = b"\x89PNG" + bytes(15 * 1024 * 1024)  # 20 MB once base64-encoded
    big = tmp_path / "big.eml"
    big.write_bytes(message("[g1] orders and a photo", "big"))
    assert big.stat().st_size > 20 * 1024 * 1024
    untagged = tmp_path / "untagged.eml"
    untagged.write_bytes(message("holiday photos", "big2"))
    tally = mail_ingest.ingest(db, [big, untagged])
    first, second = tally.results
    assert first.outcome == "rejected" and "too large" in first.reason and first.game_id == "g1"
    assert second.outcome == "ignored" and "too large" in second.reason
    row = db["inbox"].get(first.inbox_id)
    assert row["truncated"] == 0 and row["size"] > 20 * 1024 * 1024 and len(row["raw"]) == row["size"]  # kept whole
    assert db["submissions"].count == 0
    [ack] = db["outbox"].rows_where("inbox_id = ?", [first.inbox_id])
    assert "too large" in ack["body"] and ack["to_addr"] == "alice@example.org"
    assert mail_ingest.ingest(db, [big]).count("seen") == 1


def test_a_wrong_password_changes_nothing_and_is_logged(tmp_path, caplog):
    db = make_store(tmp_path / "pbem.db")
    mail_ingest.ingest(db, [CORPUS / "c01-plain.eml"])
    before = read.latest_submissions(db, "g1", 1)["alice"]["id"]
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        [r] = mail_ingest.ingest(db, [CORPUS / "r01-bad-password.eml"]).results
    assert r.outcome == "rejected" and "bad password" in r.reason
    assert read.latest_submissions(db, "g1", 1)["alice"]["id"] == before
    assert any("wrong password" in m for m in caplog.messages)
    [ack] = db["outbox"].rows_where("inbox_id = ?", [r.inbox_id])
    assert "REJECTED: wrong password" in ack["body"] and ack["to_addr"] == "alice@example.org"


def test_the_last_valid_submission_counts_and_earlier_ones_stay(tmp_path):
    db = make_store(tmp_path / "pbem.db")
    tally = mail_ingest.ingest(db, [CORPUS / "c01-plain.eml", CORPUS / "c33-resubmission.eml", CORPUS / "r04-parse-errors.eml"])
    assert [r.outcome for r in tally.results] == ["accepted", "accepted", "rejected"]
    assert db["submissions"].count_where("game_id = 'g1' and player = 'alice'") == 3
    host.resolve(db, ["g1"], force=True, turns=None)
    orders = [e for e in (loads(r["data"]) for r in db["events"].rows_where("game_id = 'g1' and phase = 1"))
              if e.get("type") == "order"]
    assert [e["order"] for e in orders] == ["temple 2,-1"]  # c33's, not c01's; r04 (rejected) did not count
    assert host.replay(db, "g1")["ok"]


def test_ingest_cli_prints_each_outcome_and_the_tally(cli, tmp_path):
    assert cli("new", "gods", "g1", "--player", "alice:alice@example.org", "--player", "bob:bob@example.org").exit_code == 0
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("r01-bad-password.eml", "i07-spam.eml", "i01-auto-submitted.eml"):
        shutil.copy(CORPUS / name, folder / name)
    r = cli("ingest", folder)
    assert r.exit_code == 0, r.output
    assert "rejected" in r.stdout and "bad password" in r.stdout
    assert "3 new messages: 0 accepted, 1 rejected, 2 ignored; 0 already ingested" in r.stdout
    r = cli("ingest", folder, "--quiet")
    assert r.stdout.strip() == "0 new messages: 0 accepted, 0 rejected, 0 ignored; 3 already ingested"
    r = cli("ingest", tmp_path / "nope")
    assert r.exit_code == 1 and "no such file or folder" in r.stderr and "Traceback" not in r.output
