"""Tester3 finding 15, the service part, through the installed `pbem`: a superscript digit
(² ³: AltGr+2/3 on many European keyboards) where a number is due was an int() ValueError --
the whole mail dropped "unreadable" with no answer, `pbem submit` exit 70, a file in turns/
that stopped its game for good, `pbem set g1 absences ²` an internal error. Each is now a
clean rejection quoting the line, and the rest goes on."""

from __future__ import annotations

import re
import sqlite3

from test_reliability_inputs import clean_failure, ok, pbem, phase

NOW = {"PBEM_NOW": "2026-11-27T12:00:00Z"}
LATER = {"PBEM_NOW": "2026-11-29T12:00:00Z"}


def no_internals(p) -> None:
    out = p.stdout + p.stderr
    assert "Traceback" not in out and "internal error" not in out and "ValueError" not in out, out
    assert p.returncode in (0, 1, 2), (p.returncode, out)  # 2: a submission with rejected lines; 70 an internal error


def _yegods(tmp):
    """A Ye Gods! game past its set-up: (passwords, the player asked, his FROM and TO of a
    legal worshipper move)."""
    out = ok(pbem(tmp, "new", "yegods", "y1", "--seed", "11", "--every", "24h",
                  *[a for p in "abc" for a in ("--player", f"{p}:{p}@play.test")], env=NOW)).stdout
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", out))
    for p in "abc":
        report = ok(pbem(tmp, "report", "y1", "--player", p, env=NOW)).stdout
        line = re.search(r"^#   (priest \S+)", report, re.MULTILINE).group(1)
        (tmp / f"{p}.txt").write_text(line + "\n")
        ok(pbem(tmp, "submit", "y1", p, f"{p}.txt", "--gm", env=NOW))
    ok(pbem(tmp, "resolve", "y1", env=NOW))
    status = ok(pbem(tmp, "status", "y1", env=NOW)).stdout
    who = re.search(r"awaiting (\w+)", status).group(1)
    report = ok(pbem(tmp, "report", "y1", "--player", who, env=NOW)).stdout
    src, dst = re.search(r"^#   move priest (\S+) -> (\S+)", report, re.MULTILINE).groups()
    return pw, who, src, dst


def _outbox(tmp, to: str) -> list[tuple[str, str]]:
    conn = sqlite3.connect(tmp / "pbem.db")
    try:
        return conn.execute("select subject, body from outbox where to_addr = ? order by id", [to]).fetchall()
    finally:
        conn.close()


def test_a_superscript_count_by_mail_is_a_rejected_line_with_an_answer(tmp_path):
    pw, who, src, dst = _yegods(tmp_path)
    before = len(_outbox(tmp_path, f"{who}@play.test"))
    (tmp_path / "m.eml").write_bytes(
        f"From: {who}@play.test\r\nTo: o@j.t\r\nSubject: [y1] orders\r\nMessage-ID: <s1@play.test>\r\n"
        f"Date: Fri, 27 Nov 2026 11:00:00 +0000\r\n\r\nGAME y1\r\nPLAYER {who}\r\nPASSWORD {pw[who]}\r\n"
        f"move \u00b2 {src} -> {dst}\r\ndone\r\n".encode())
    p = pbem(tmp_path, "ingest", "m.eml", env=NOW)
    no_internals(p)
    assert "unreadable" not in p.stdout, p.stdout
    answers = _outbox(tmp_path, f"{who}@play.test")[before:]
    assert answers, "no answer to the player's orders"
    body = "\n".join(b for _, b in answers)
    assert f"move \u00b2 {src} -> {dst}" in body and "expected a number, found '\u00b2'" in body, body
    assert re.search(r"accepted\s+done", body), body  # the rest of the message is carried out


def test_a_superscript_count_by_submit_and_as_a_file_in_turns_is_a_rejected_line(tmp_path):
    pw, who, src, dst = _yegods(tmp_path)
    (tmp_path / "o.txt").write_text(f"move \u00b3 {src} -> {dst}\ndone\n", encoding="utf-8")
    p = pbem(tmp_path, "submit", "y1", who, "o.txt", "--gm", env=NOW)
    no_internals(p)
    assert "REJECTED" in p.stdout and "expected a number, found '\u00b3'" in p.stdout, p.stdout
    # the same file dropped in turns/ by the GM: the game resolves at its deadline, the line skipped
    turn = phase(tmp_path, "y1")
    (tmp_path / "turns" / "y1" / str(turn) / f"{who}.txt").write_text(f"move \u00b3 {src} -> {dst}\ndone\n", encoding="utf-8")
    p = pbem(tmp_path, "resolve", "--all", env=LATER)
    no_internals(p)
    assert p.returncode == 0, p.stdout + p.stderr
    assert phase(tmp_path, "y1") == turn + 1


def test_report_and_history_with_a_superscript_turn_are_answered_and_the_rest_goes_on(tmp_path):
    pw, who, _src, _dst = _yegods(tmp_path)
    before = len(_outbox(tmp_path, f"{who}@play.test"))
    (tmp_path / "m.eml").write_bytes(
        f"From: {who}@play.test\r\nTo: o@j.t\r\nSubject: [y1] commands\r\nMessage-ID: <s2@play.test>\r\n\r\n"
        f"GAME y1\r\nPLAYER {who}\r\nPASSWORD {pw[who]}\r\nREPORT \u00b2\r\nHISTORY y1 \u00b2\r\nHISTORY y1 1\r\n".encode())
    p = pbem(tmp_path, "ingest", "m.eml", env=NOW)
    no_internals(p)
    assert "unreadable" not in p.stdout, p.stdout
    body = "\n".join(b for _, b in _outbox(tmp_path, f"{who}@play.test")[before:])
    assert "not a turn number: REPORT '\u00b2'" in body, body
    assert "not a turn number: HISTORY y1 '\u00b2'" in body, body
    assert "history: turn 1" in "\n".join(s for s, _ in _outbox(tmp_path, f"{who}@play.test")[before:]) + body


def test_a_deity_standing_order_and_a_discard_with_odd_digits_are_rejected_off_turn_too(tmp_path):
    out = ok(pbem(tmp_path, "new", "deity", "d1", "--seed", "5", "--player", "gus", "--player", "hal",
                  "--player", "ivy", env=NOW)).stdout
    assert "password" in out
    (tmp_path / "o.txt").write_text("abjure \u00b2\ndiscard \u2460\nresurrect \u2079\ntemple \u00b2,9\n", encoding="utf-8")
    p = pbem(tmp_path, "submit", "d1", "gus", "o.txt", "--gm", env=NOW)
    no_internals(p)
    assert p.stdout.count("REJECTED") == 4, p.stdout
    for odd in ("\u00b2", "\u2460", "\u2079"):
        assert f"found '{odd}" in p.stdout, (odd, p.stdout)


def test_absences_must_be_a_number_of_days_for_set_and_new(tmp_path):
    ok(pbem(tmp_path, "new", "gods", "g1", "--player", "a", "--player", "b", env=NOW))
    for odd in ("\u00b2", "\u2460", "\u00bd"):
        clean_failure(pbem(tmp_path, "set", "g1", "absences", odd, env=NOW), "absences", "not a number of days")
        clean_failure(pbem(tmp_path, "new", "gods", "g2", "--player", "a", "--player", "b", "--option", f"absences={odd}",
                           env=NOW), "absences", "not a number of days")
    ok(pbem(tmp_path, "set", "g1", "absences", "5", env=NOW))


# --- tester3 finding 03: a resigned player writing again is told why the password fails ----------

def test_a_resigned_player_is_told_the_seat_was_resigned_not_only_wrong_password(tmp_path):
    out = ok(pbem(tmp_path, "new", "gods", "g1", "--seed", "4", "--player", "zeus:zeus@play.test",
                  "--player", "hera:hera@play.test", "--player", "ares:ares@play.test", env=NOW)).stdout
    pw = dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", out))

    def mail(n: int, body: str) -> str:
        (tmp_path / f"m{n}.eml").write_text(f"From: ares@play.test\nTo: o@j.t\nSubject: [g1] x\nMessage-ID: <r{n}@play.test>\n\n"
                                            f"GAME g1\nPLAYER ares\nPASSWORD {pw['ares']}\n{body}\n")
        before = len(_outbox(tmp_path, "ares@play.test"))
        p = pbem(tmp_path, "ingest", f"m{n}.eml", env=NOW)
        no_internals(p)
        return p.stdout + "\n".join(b for _, b in _outbox(tmp_path, "ares@play.test")[before:])

    assert "RESIGN: you have left game g1" in mail(1, "RESIGN")
    for n, body in ((2, "pass"), (3, "REPORT")):
        said = mail(n, body)
        assert "the player of seat ares resigned from game g1" in said and "it is vacant" in said, said
    (tmp_path / "o.txt").write_text(f"PASSWORD {pw['ares']}\npass\n")
    p = pbem(tmp_path, "submit", "g1", "ares", "o.txt", env=NOW)
    no_internals(p)
    assert "resigned from game g1" in p.stdout + p.stderr, p.stdout + p.stderr
    # a wrong password of a seat that is played is told only that
    (tmp_path / "o.txt").write_text("PASSWORD nope\npass\n")
    p = pbem(tmp_path, "submit", "g1", "hera", "o.txt", env=NOW)
    assert "wrong password" in p.stdout + p.stderr and "resigned" not in p.stdout + p.stderr
