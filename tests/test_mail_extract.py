"""Finding the orders in a mail text, and recognising what a PATH is: the pieces of
pbem.mail one at a time."""

from __future__ import annotations

import pytest

from pbem.mail import extract as mail_extract
from pbem.mail import formats as mail_formats
from pbem.mail import mime as mail_mime
from pbem.host.outbox import clean_address, header_safe

FORM = """GODS -- game g1 -- turn 3
Report for alice (red).
Display: green tribe
Your orders
-----------
Order form (reply with this, your orders filled in; lines starting with # are ignored)
GAME g1
PLAYER alice
PASSWORD your-password-here
# Your legal orders now:
# tribe: place a tribe
#   tribe green 1,0
END
-- 
This message was sent by pbem."""


def orders_of(text: str) -> tuple[str | None, str | None, str | None, list[str]]:
    found = mail_extract.find_orders(text)
    b = found.block
    return (found.inherited("game"), found.inherited("player"), b.password if b else None, [t for _, t in b.orders] if b else [])


def test_plain_block_and_greeting_and_end():
    text = "Hi GM,\nhere are my orders:\nGAME g1\nPLAYER Alice\nPASSWORD pw-1\ntribe green 1,0  # first\n\ndiscard green\nEND\nthanks"
    assert orders_of(text) == ("g1", "alice", "pw-1", ["tribe green 1,0  # first", "discard green"])


def test_quoted_report_with_the_form_filled_in_inside_the_quote():
    quoted = "\n".join("> " + ln for ln in FORM.split("\n"))
    filled = quoted.replace("> PASSWORD your-password-here", "PASSWORD pw-1").replace("> END", "tribe green 1,0\n> END")
    assert orders_of("On Mon, GM wrote:\n" + filled) == ("g1", "alice", "pw-1", ["tribe green 1,0"])


def test_report_text_above_the_form_is_never_read():
    filled = FORM.replace("PASSWORD your-password-here", "PASSWORD pw-1").replace("\nEND", "\ntemple 2,-1\nEND")
    game, player, password, orders = orders_of(filled)
    assert orders == ["temple 2,-1"] and "Display: green tribe" not in orders


def test_orders_above_a_quoted_report_win_over_its_unfilled_form():
    text = "PASSWORD pw-1\ntribe green 1,0\n\nOn Sat, 21 Nov 2026 at 14:00, pbem g1 <\ngm@pbem.example> wrote:\n" + \
        "\n".join("> " + ln for ln in FORM.split("\n"))
    # game and player come from the quoted form; password and orders from what was typed
    assert orders_of(text) == ("g1", "alice", "pw-1", ["tribe green 1,0"])


def test_new_orders_beat_quoted_old_orders_even_with_a_password_in_the_quote():
    text = "GAME g1\nPLAYER alice\nPASSWORD pw-2\nmove 0,0 -> 0,1\n\n> GAME g1\n> PLAYER alice\n> PASSWORD pw-1\n> tribe green 1,0\n> END\n"
    assert orders_of(text)[2:] == ("pw-2", ["move 0,0 -> 0,1"])


def test_of_two_typed_blocks_the_last_counts():
    text = "GAME g1\nPLAYER alice\nPASSWORD pw\ntribe green 1,0\nEND\nsorry, correction:\nGAME g1\nPLAYER alice\nPASSWORD pw\ntemple 2,-1\nEND\n"
    assert orders_of(text)[3] == ["temple 2,-1"]


def test_signatures_and_mobile_footers_are_dropped():
    text = "GAME g1\nPLAYER alice\nPASSWORD pw\ntribe green 1,0\n\n-- \nAlice\nmove fast\n"
    assert orders_of(text)[3] == ["tribe green 1,0"]
    text = "GAME g1\nPLAYER alice\nPASSWORD pw\ntribe green 1,0\n\nSent from my iPhone\n"
    assert orders_of(text)[3] == ["tribe green 1,0"]


def test_outlook_original_message_counts_as_quoted():
    text = ("PASSWORD pw\ntribe green 1,0\n\n-----Original Message-----\nFrom: GM <gm@x.org>\nSent: Monday\n"
            "To: alice@x.org\nSubject: [g1] turn 3 report\n\n" + FORM)
    assert orders_of(text) == ("g1", "alice", "pw", ["tribe green 1,0"])
    lines = mail_extract.clean_lines(text)
    assert all(not t.startswith(("From:", "Sent:", "Subject:")) for _, t in lines)
    assert max(d for d, _ in lines) == 1


def test_report_and_help_requests():
    found = mail_extract.find_orders("GAME g1\nPLAYER alice\nPASSWORD pw\nREPORT\n")
    assert (found.command, found.command_arg) == ("report", None)
    found = mail_extract.find_orders("report 2\nPASSWORD pw\n")
    assert (found.command, found.command_arg) == ("report", 2)
    assert mail_extract.find_orders("help").command == "help"
    assert mail_extract.find_orders("GAME g1\nPLAYER a\nPASSWORD p\ntribe green 1,0\nhelp\n").command is None  # orders win


def test_placeholder_password_is_not_a_password():
    found = mail_extract.find_orders(FORM.replace("\nEND", "\ntribe green 1,0\nEND"))
    assert found.block.password is None and found.block.placeholder


def test_prose_lines_are_not_headers():
    assert mail_extract.find_orders("The game is on.\nPassword: I forgot it\nPlayer one wins\n").blocks == []


def test_html_to_text_keeps_lines_entities_and_quotes():
    html = ("<html><head><style>p{}</style><script>GAME x</script></head><body><p>GAME&nbsp;g1<br>move 0,0 -&gt; 0,1</p>"
            "<div>a<b>b</b>c</div><blockquote><p>PASSWORD quoted</p></blockquote><hr><pre>  kept\n  as is</pre></body></html>")
    text = mail_mime.html_to_text(html)
    lines = text.split("\n")
    assert "GAME\xa0g1" in lines or "GAME g1" in lines
    assert "move 0,0 -> 0,1" in lines and "abc" in lines and "> PASSWORD quoted" in lines
    assert "  kept" in lines and "GAME x" not in text


@pytest.mark.parametrize("charset,text", [
    ("windows-1252", "\u201cquoted\u201d \u20ac"), ("iso-8859-1", "façade"), ("iso-8859-15", "\u20ac\u0153"),
    ("koi8-r", "Привет"), ("utf-8", "Grüße ✓"),
])
def test_decode_bytes_in_any_charset(charset, text):
    assert mail_mime.decode_bytes(text.encode(charset), charset) == text


def test_decode_bytes_boms_and_wrong_or_missing_charsets():
    assert mail_mime.decode_bytes(b"\xef\xbb\xbfGAME g1", "iso-8859-1") == "GAME g1"
    assert mail_mime.decode_bytes(b"\xff\xfe" + "GAME g1".encode("utf-16-le")) == "GAME g1"
    assert mail_mime.decode_bytes("naïve".encode("utf-8"), "x-bogus") == "naïve"
    assert mail_mime.decode_bytes("naïve".encode("cp1252"), "us-ascii") == "naïve"


def test_sniff_and_split_mbox(tmp_path):
    (tmp_path / "a.eml").write_bytes(b"From: a@x.org\nSubject: s\n\nbody")
    (tmp_path / "noext").write_bytes(b"Received: from x\nFrom: a@x.org\nSubject: s\n\nbody")
    (tmp_path / "box").write_bytes(b"From a@x.org Sat Nov 21 14:10:00 2026\nFrom: a@x.org\n\none\n>From here\n\n"
                                   b"From b@x.org Sat Nov 21 14:11:00 2026\nFrom: b@x.org\n\ntwo\n")
    (tmp_path / "orders.txt").write_bytes(b"GAME g1\nPLAYER a\n")
    assert [mail_formats.sniff(tmp_path / n) for n in ("a.eml", "noext", "box", "orders.txt")] == ["eml", "eml", "mbox", "file"]
    parts = list(mail_formats.split_mbox((tmp_path / "box").read_bytes()))
    assert len(parts) == 2 and parts[0][1].endswith(b"one\nFrom here\n") and parts[1][1].endswith(b"two\n")
    items = list(mail_formats.iter_items([tmp_path]))
    assert [i.kind for i in items] == ["eml", "mbox", "mbox", "eml", "file"]
    assert items[1].delivered.isoformat().startswith("2026-11-21T14:10")


def test_folders_skip_hidden_entries_and_read_maildirs(tmp_path):
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.eml").write_bytes(b"From: a@x.org\n\nx")
    md = tmp_path / "sub" / "Maildir"
    for d in ("cur", "new", "tmp"):
        (md / d).mkdir(parents=True)
    (md / "new" / "1763733000.M1P1.host").write_bytes(b"From: a@x.org\n\nx")
    (md / "tmp" / "1763733001.M1P1.host").write_bytes(b"From: a@x.org\n\npartial")
    items = list(mail_formats.iter_items([tmp_path]))
    assert [(i.kind, i.name) for i in items] == [("maildir", "1763733000.M1P1.host")]
    assert items[0].delivered.year == 2025


def test_header_safety():
    assert header_safe("[g1] a\r\nBcc: x@y\r\n\r\nbody\x00") == "[g1] a Bcc: x@y body"
    assert len(header_safe("x" * 1000)) == 200
    assert clean_address("Alice <alice@example.org>") == "alice@example.org"
    assert clean_address("alice@example.org\r\nBcc: v@example.com") is None
    assert clean_address("a@example.org, b@example.org") is None
    assert clean_address("Doe, John <john@example.org>") == "john@example.org"
    assert clean_address("") is None and clean_address("<>") is None


def test_a_charset_name_with_a_nul_falls_back_instead_of_raising():
    from pbem.mail.mime import decode_bytes

    assert decode_bytes("caf\u00e9".encode("utf-8"), "utf\x00-8") == "caf\u00e9"


def test_special_first_holds_every_character_a_special_line_can_start_with():
    """numbered_lines tries _MAYBE_SPECIAL only on a line whose first character is in
    SPECIAL_FIRST: every character the pattern can start a match with, in any case (as
    IGNORECASE folds them), must be there -- else a signature or a forwarded header would be
    read as a line of orders."""
    import re
    import sys

    firsts = re.compile(r"[_\-b*fvdoaleisg]", re.IGNORECASE)  # the first characters of _MAYBE_SPECIAL's branches
    assert {chr(c) for c in range(sys.maxunicode + 1) if firsts.match(chr(c))} == set(mail_extract.SPECIAL_FIRST)
    tails = ["_" * 9, "", "egin forwarded message:", "rom:", "on:", "e:", "n x", "m x", "e x", "l x", "p x", "ent ",
             "et outlook", "on meinem", "nvoy", "nviado desde", "from:", "von:", "de:"]
    for c in map(chr, range(0x250)):  # (the Latin letters and their cases: each tried against every branch)
        if any(mail_extract._MAYBE_SPECIAL.match(c + tail) for tail in tails):
            assert c in mail_extract.SPECIAL_FIRST, repr(c)
    assert [d for d in ("\u0130", "\u0131", "\u017f") if mail_extract._MAYBE_SPECIAL.match(d + "n x" if d != "\u017f" else d + "ent ")]
    # a line starting with none of them is read as it is; one that does is still looked at
    lines = mail_extract.numbered_lines("GAME g\nhold A\n\u017fent from my phone\n")
    assert [t for _, _, t in lines if t] == ["GAME g", "hold A"]  # (a mobile footer: dropped)
    lines = mail_extract.numbered_lines("GAME g\nhold A\nxent from my phone\n")
    assert [t for _, _, t in lines if t] == ["GAME g", "hold A", "xent from my phone"]


def test_command_first_holds_every_character_a_command_word_can_start_with():
    """find_orders looks up a line's first word among the command words only when its first
    character is in _COMMAND_FIRST: no other character lowers to a command's first letter."""
    import sys

    letters = {w[0] for w in mail_extract._FIRST_WORDS}
    assert {chr(c) for c in range(sys.maxunicode + 1) if chr(c).lower()[:1] in letters} == set(mail_extract._COMMAND_FIRST)
    found = mail_extract.find_orders("GAME g\nPASSWORD pw\nhold A\nEND\nReport 3\n")
    assert [r.name for r in found.requests] == ["report"] and found.block.orders == [(0, "hold A")]


def test_an_attribution_is_found_at_the_end_of_its_line_as_the_pattern_finds_it_anywhere():
    """issue 17: _attribution looks for the attribution word only before the final ':' (not
    at every character); on any stripped line it must say what _ATTRIBUTION's search says."""
    import random

    rng = random.Random(17)
    pieces = list(mail_extract._ATTRIBUTION_WORDS) + ["WROTE", "Schrieb", "\u017fkrev", "a \u00c9CRIT", "\u041d\u0410\u041f\u0418\u0421\u0410\u041b",
                                                      "x", "wrote:", "", "wrot", "rote", " ", "  ", "\t", "\u2003", ":", " :",
                                                      "On Sat, Bob ", "> "]
    found = 0
    for _ in range(20000):
        line = ("".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))) + rng.choice([":", " :", "", "\t:"])).strip()
        expected = line.endswith(":") and mail_extract._ATTRIBUTION.search(line) is not None
        assert mail_extract._attribution(line) == expected, line
        found += expected
    assert 2000 < found < 18000
    lines = mail_extract.clean_lines("GAME g\n-1,1 x\n- 2\n-- \nsig\n")
    assert [t for _, t in lines] == ["GAME g", "-1,1 x", "- 2"]  # (a minus is no signature; '-- ' is)


def test_special_pairs_holds_the_first_two_characters_of_every_ascii_special_line():
    """numbered_lines tries _MAYBE_SPECIAL on an ASCII line only when its first two
    characters, lowered, are in SPECIAL_PAIRS: every pair of printable ASCII characters that
    starts a match, completed by the rest of each branch, must be there."""
    import itertools

    tails = ["_" * 8, "", "gin forwarded message:", "om:", "n:", ":", " x", "\tx", "x", "nt ", "t outlook", "n meinem", "voy",
             "viado desde", "rom:", "on:", "e:", "*:", "*\t:", " :", "_" * 9, "egin forwarded message:", "ent "]
    chars = [chr(c) for c in range(32, 127)]
    started = set()
    for a, b in itertools.product(chars, chars):
        if any(mail_extract._MAYBE_SPECIAL.match(a + b + tail) for tail in tails):
            started.add((a + b).lower())
    assert started == set(mail_extract.SPECIAL_PAIRS)
    assert [t for _, _, t in mail_extract.numbered_lines("hold A\n\u017fent from my phone\nsent from my phone\n") if t] == ["hold A"]
