"""Issue 17: control characters a player mails (terminal escape sequences, a bell, NUL, C1)
never reach an output pbem writes -- a mail body, a report file, a site page -- and a game
id that names no game is not echoed back (no spam reflection). Through the installed
command: `pbem ingest`, `pbem send --dry-run`, `pbem resolve`, `pbem publish`. Ordinary
text (accents, emoji, other scripts) comes through unchanged. The raw message stays in the
inbox as it came."""

from __future__ import annotations

import email
import re
import sqlite3
from email import policy

from test_reliability_inputs import new_game, ok, pbem
from test_site_lib import parse_html

# C0 but tab and newline (CR only inside the mail's own CRLF line ends), DEL, C1
BAD = re.compile(r"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]")
BAD_BYTES = re.compile(rb"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")
ORDINARY = "café à Ελληνικά 日本語 🎲 naïve — ok"


def mail(sender: str, mid: str, body: str, subject: str = "orders") -> bytes:
    return (f"From: {sender}\nTo: gm@pbem.example\nSubject: {subject}\nMessage-ID: <{mid}@example.org>\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n"
            ).encode() + body.encode("utf-8")


def sent_mails(tmp, name: str):
    out = tmp / name
    ok(pbem(tmp, "send", "--dry-run", out, "--from", "gm@pbem.example"))
    mails = []
    for f in sorted(out.iterdir()):
        raw = f.read_bytes()
        msg = email.message_from_bytes(raw, policy=policy.default)
        text = msg.get_body(("plain",)).get_content()
        html = msg.get_body(("html",)).get_content()
        mails.append((raw, msg, text, html))
    return mails


def test_control_characters_reach_no_mail_report_or_page_and_unknown_games_are_not_echoed(tmp_path):
    pw = new_game(tmp_path, "g1", "hera:hera@example.org", "zeus:zeus@example.org")
    box = tmp_path / "in"
    box.mkdir()
    hera = "Hera <hera@example.org>"
    # 1. a GAME line with escape codes from a registered player's address
    (box / "1.eml").write_bytes(mail(hera, "esc", "GAME \x1b[2J\x1b[31mEVIL\x1b]0;pwned\x07\nPLAYER hera\nPASSWORD x\nEND\n"))
    # 2. private press with colour codes; 3. public press with BEL, ESC, 0x01; and ordinary text
    (box / "2.eml").write_bytes(mail(hera, "press", f"GAME g1\nPLAYER hera\nPASSWORD {pw['hera']}\n"
                                     "PRESS TO zeus\nhi \x1b[31mred\x1b[0m\nENDPRESS\n"
                                     f"PRESS TO ALL\nbell\x07 and esc \x1b[5m blink \x01\n{ORDINARY}\nENDPRESS\n"))
    # 4. unknown games: a URL from a registered address, a plain name from a stranger
    (box / "3.eml").write_bytes(mail(hera, "spam", "GAME http://spam.example/cheap-pills\nPLAYER hera\nPASSWORD x\nEND\n"))
    (box / "4.eml").write_bytes(mail("Stranger <who@elsewhere.example>", "nosuch", "GAME nosuchgame\nPLAYER x\nPASSWORD y\nEND\n"))
    p = ok(pbem(tmp_path, "ingest", box))
    assert not BAD.search(p.stdout + p.stderr), repr(p.stdout + p.stderr)

    mails = sent_mails(tmp_path, "sent1")
    for raw, msg, text, html in mails:
        assert not BAD_BYTES.search(raw.replace(b"\r\n", b"\n")), raw
        assert not BAD.search(text) and not BAD.search(html), (text, html)
        assert not BAD.search(str(msg["Subject"]) + str(msg["From"])), msg["Subject"]
    by_subject = {str(msg["Subject"]): (msg, text) for _, msg, text, _ in mails}
    rejections = [(msg, text) for _, msg, text, _ in mails if "rejected" in str(msg["Subject"])]
    assert len(rejections) == 3, list(by_subject)
    for msg, text in rejections:
        # no game of that name: the neutral tag, the footer of no game, no From name echoing it
        assert str(msg["Subject"]) == "[pbem] your message was rejected", msg["Subject"]
        assert "adjudicator of game" not in text, text
        for echoed in ("evil", "pwned", "spam.example", "cheap-pills"):
            assert echoed not in text.lower() and echoed not in str(msg["From"]).lower(), (echoed, text)
        assert "nosuchgame" not in str(msg["Subject"]) + str(msg["From"])
    stranger = [text for msg, text in rejections if "who@elsewhere.example" in str(msg["To"])]
    assert len(stranger) == 1 and "unknown game 'nosuchgame'" in stranger[0], stranger  # a valid id may be quoted
    assert sum("no game by that name exists" in text for _, text in rejections) == 2
    press_to_zeus = [text for _, msg, text, _ in mails if "zeus@" in str(msg["To"]) and "hi red" in text]
    assert press_to_zeus, [t for *_, t, _ in mails]
    public = [text for _, msg, text, _ in mails if "bell and esc" in text]
    assert public and all(ORDINARY in t for t in public), public

    # the raw message itself is kept untouched in the inbox
    conn = sqlite3.connect(tmp_path / "pbem.db")
    try:
        cols = [r[1] for r in conn.execute("pragma table_info(inbox)")]
        raw_col = next(c for c in ("raw", "body", "message") if c in cols)
        kept = b"".join(bytes(r[0]) if isinstance(r[0], (bytes, memoryview)) else str(r[0]).encode()
                        for r in conn.execute(f"select {raw_col} from inbox"))
    finally:
        conn.close()
    assert b"\x1b[31mred\x1b[0m" in kept and b"\x1b]0;pwned\x07" in kept

    # the next turn's report files list the press, cleaned
    ok(pbem(tmp_path, "resolve", "g1", "--force"))
    reports = list((tmp_path / "turns" / "g1" / "2" / "reports").glob("*.txt"))
    assert reports
    for f in reports:
        assert not BAD_BYTES.search(f.read_bytes()), (f, f.read_bytes())
    zeus = (tmp_path / "turns" / "g1" / "2" / "reports" / "zeus.txt").read_text()
    assert "hi red" in zeus and "bell and esc  blink" in zeus and ORDINARY in zeus, zeus
    public_report = (tmp_path / "turns" / "g1" / "2" / "reports" / "public.txt").read_text()
    assert "hi red" not in public_report and ORDINARY in public_report  # private press stays private
    for raw, _, text, html in sent_mails(tmp_path, "sent2"):
        assert not BAD_BYTES.search(raw.replace(b"\r\n", b"\n")) and not BAD.search(text + html)

    # the site: no control character, strict HTML5, the ordinary text as it was
    site = tmp_path / "site"
    ok(pbem(tmp_path, "publish", "--out", site))
    page = site / "games" / "g1" / "index.html"
    assert not BAD_BYTES.search(page.read_bytes())
    parse_html(page)  # html5lib strict: an invalid codepoint fails
    assert ORDINARY in page.read_text() and "bell and esc" in page.read_text()
    for f in site.rglob("*"):
        if f.is_file() and f.suffix in (".html", ".xml", ".json", ".ics", ".txt", ".atom"):
            assert not BAD_BYTES.search(f.read_bytes()), f


def test_press_stored_raw_before_the_guard_reaches_no_report_mail_or_page(tmp_path):
    """The last guard: a press row stored with control characters (by a pbem before issue
    17's fix) is listed in reports, mail and the site with none of them."""
    pw = new_game(tmp_path, "g1", "hera:hera@example.org", "zeus:zeus@example.org")
    box = tmp_path / "in"
    box.mkdir()
    (box / "1.eml").write_bytes(mail("Hera <hera@example.org>", "p", f"GAME g1\nPLAYER hera\nPASSWORD {pw['hera']}\n"
                                     "PRESS TO ALL\nplaceholder one\nENDPRESS\nPRESS TO zeus\nplaceholder two\nENDPRESS\n"))
    ok(pbem(tmp_path, "ingest", box))
    conn = sqlite3.connect(tmp_path / "pbem.db")
    with conn:
        conn.execute("update press set body = ? where body = 'placeholder one'", [f"old \x1b]0;x\x07bell\x07\x00 {ORDINARY}"])
        conn.execute("update press set body = ? where body = 'placeholder two'", ["old \x1b[31mred\x9b0m"])
    conn.close()
    ok(pbem(tmp_path, "resolve", "g1", "--force"))
    folder = tmp_path / "turns" / "g1" / "2" / "reports"
    for f in folder.glob("*.txt"):
        assert not BAD_BYTES.search(f.read_bytes()), (f, f.read_bytes())
    assert "old red" in (folder / "zeus.txt").read_text() and ORDINARY in (folder / "public.txt").read_text()
    for raw, _, text, html in sent_mails(tmp_path, "sent"):
        assert not BAD_BYTES.search(raw.replace(b"\r\n", b"\n")) and not BAD.search(text + html), text
    site = tmp_path / "site"
    ok(pbem(tmp_path, "publish", "--out", site))
    page = site / "games" / "g1" / "index.html"
    parse_html(page)
    assert not BAD_BYTES.search(page.read_bytes()) and ORDINARY in page.read_text()


def test_printable_drops_escape_sequences_and_controls_and_keeps_ordinary_text():
    from pbem.core.text import printable

    assert printable(ORDINARY) == ORDINARY and printable("a\tb\nc\r\nd") == "a\tb\nc\r\nd"
    assert printable("hi \x1b[31mred\x1b[0m") == "hi red"
    assert printable("\x1b[2J\x1b[31mEVIL\x1b]0;pwned\x07x") == "EVILx"
    assert printable("bell\x07 and esc \x1b[5m blink \x01") == "bell and esc  blink "
    assert printable("nul\x00 del\x7f c1\x85\x9b31m csi") == "nul del c1 csi"
    assert printable("a \x1b]0;title without end\nnext line") == "a \nnext line"  # an OSC ends at the line's end
    assert printable("lone\rcr") == "lone\ncr"


def test_printable_is_the_search_and_substitution_it_shortcuts():
    """Issue 17: a text is looked at by deleting its plain characters from its bytes;
    whatever the text, the result is what the search of _ANY and the substitution give."""
    from hypothesis import given, settings, strategies as st

    from pbem.core import text

    def by_search(s: str) -> str:
        return s if not text._ANY.search(s) else text._UNSAFE.sub("", text._LONE_CR.sub("\n", s))

    @settings(max_examples=400, deadline=None)
    @given(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.text(alphabet="ab \t\n\r\x1b[]0;m\x07\x7f\x00")
           | st.text(alphabet="aé—€ \n\x85\x9b\x80\x9f\xa0\xbf\u0100\u2028\U0001f600\x1b[m\r") | st.text())
    def same(s: str) -> None:
        assert text.printable(s) == by_search(s)

    same()
    for s in ("plain report\n  text\tok\n", "crlf\r\n", "x\x7f", "\x1b[1m", "", "é\x85", "— é\n", "é\x1b[1m", "\ud800x"):
        assert text.printable(s) == by_search(s)
