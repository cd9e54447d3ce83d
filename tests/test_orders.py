"""The order language shared by every game (design: "Order language"), checked on GODS and on
the toy sealed-bid game: headers, comments, END, prefixes and aliases, coordinates and arrows,
the three kinds of order error with line, column, the quoted line and "did you mean", and
decoding raw bytes."""

from __future__ import annotations

import copy

import pytest

from pbem.core import engine
from pbem.core.errors import (
    AmbiguousOrderError,
    IllegalOrderError,
    InputError,
    InvalidOrderError,
    OrderError,
    PbemError,
)
from pbem.core.orders import MAX_LINE_CHARS, MAX_ORDER_BYTES, decode, match_order, read_script, tokenize
from pbem.core.registry import get_rules
from toy_sealed import SealedAuction

GODS = get_rules("gods")


@pytest.fixture
def gods():
    """A 2-player GODS position with alice to act. The start board is 0,0 wasteland,
    1,-1 green tribe, -1,1 orange tribe; the display is set to a green and a grey tribe and
    a wasteland, and alice holds 12 crystals."""
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    g = state["game"]
    g["display"] = ["tribe:green", "tribe:grey", "wasteland"]
    g["stock"] -= 12 - g["crystals"]["alice"]
    g["crystals"]["alice"] = 12
    return state


def line_of(text: str):
    lines = read_script(text).lines
    assert len(lines) == 1, lines
    return lines[0]


def match(state, text: str, player: str = "alice", rules=GODS):
    line = line_of(text)
    legal = rules.legal_orders(state, player) + rules.standing_orders(state, player)
    return match_order(rules.grammar, legal, line, lambda typed: rules.why_illegal(state, player, typed))


def caret_column(located: str) -> int:
    """The 1-based column the caret of OrderError.located() points at, checked against the
    quoted line above it."""
    head, quoted, caret = located.split("\n")
    assert quoted.startswith("    ") and caret.startswith("    ")
    assert caret.strip() == "^"
    return len(caret) - 4


# --- headers, comments, blank lines, END -------------------------------------------------

def test_headers_in_any_case_and_orders_in_order():
    script = read_script(
        "game G1\nPlayer Alice\nPASSWORD Lamp-Tiger-42\n\n# a comment\ntribe green 2,-1\ntemple 1,0\n"
    )
    assert script.game == "g1"
    assert script.player == "alice"
    assert script.password == "Lamp-Tiger-42"  # a password keeps its case
    assert [(l.number, l.text) for l in script.lines] == [(6, "tribe green 2,-1"), (7, "temple 1,0")]
    assert script.header_errors == []


def test_headers_separated_by_tabs_or_several_spaces():
    script = read_script("GAME\tg1\nPLAYER   alice\nPASSWORD\tLamp-Tiger-42\ndiscard green\nEND\t\nsignature\n")
    assert (script.game, script.player, script.password) == ("g1", "alice", "Lamp-Tiger-42")
    assert [l.text for l in script.lines] == ["discard green"]  # the password is no order line


def test_header_without_a_value_is_reported_with_its_line():
    script = read_script("GAME g1\nPLAYER\ndiscard green\n")
    assert script.player is None
    assert script.header_errors == ["line 2: PLAYER needs a value"]
    assert [l.text for l in script.lines] == ["discard green"]


def test_comments_and_blank_lines_are_ignored_and_line_numbers_kept():
    text = "# my orders\n\n   \ntribe green 2,-1   # the cheap one\n\t# indented comment\nTEMPLE 1,0\n"
    script = read_script(text)
    assert [(l.number, l.text) for l in script.lines] == [(4, "tribe green 2,-1"), (6, "TEMPLE 1,0")]
    assert [t.text for t in script.lines[1].tokens] == ["temple", "1,0"]  # lower-cased


def test_crlf_line_endings():
    script = read_script("GAME g1\r\nPLAYER bob\r\ndiscard green\r\n")
    assert script.player == "bob"
    assert [l.text for l in script.lines] == ["discard green"]


@pytest.mark.parametrize("end", ["END", "end", "End", "  END  "])
def test_end_stops_reading_signature_and_quoted_text_ignored(end):
    text = (
        "PLAYER alice\ntribe green 2,-1\n" + end + "\n"
        "-- \nAlice, sent from my phone\nPASSWORD not-this-one\n> tribe grey 5,5\ntemple 1,0\n"
    )
    script = read_script(text)
    assert [l.text for l in script.lines] == ["tribe green 2,-1"]
    assert script.password is None  # a header after END is not read either


def test_end_with_words_after_it_is_not_end():
    script = read_script("END of my orders\ndiscard green\n")
    assert [l.text for l in script.lines] == ["END of my orders", "discard green"]


def test_an_empty_text_is_an_empty_script():
    script = read_script("")
    assert script.lines == [] and script.game is None and script.header_errors == []


# --- tokens: coordinates and arrows --------------------------------------------------------

@pytest.mark.parametrize("spelling", ["2,-1", "2, -1", "(2,-1)", "( 2 , -1 )", "(2, -1)", "2 ,-1"])
def test_coordinate_spellings_are_one_token(spelling):
    tokens = tokenize(f"tribe green {spelling}")
    assert [t.text for t in tokens] == ["tribe", "green", "2,-1"]
    assert tokens[2].column == len("tribe green ") + 1


@pytest.mark.parametrize("arrow", ["->", "=>", "→", "-->"])
def test_arrow_spellings(arrow):
    assert [t.text for t in tokenize(f"move 0,0 {arrow} 1,1")] == ["move", "0,0", "->", "1,1"]


def test_arrow_without_spaces_and_columns():
    tokens = tokenize("move (0,0)->(2,-1)")
    assert [(t.text, t.column) for t in tokens] == [("move", 1), ("0,0", 6), ("->", 11), ("2,-1", 13)]


# --- matching: verbs and names by unique prefix, aliases ---------------------------------

@pytest.mark.parametrize(
    "typed, expected",
    [
        ("tribe green 2,-1", "tribe green 2,-1"),
        ("TRIBE GREEN 2,-1", "tribe green 2,-1"),
        ("tr gree 2,-1", "tribe green 2,-1"),
        ("tri green (2, -1)", "tribe green 2,-1"),
        ("tribe gray 2,-1", "tribe grey 2,-1"),  # alias
        ("tribe grey 2, -1", "tribe grey 2,-1"),
        ("te 2,-1", "temple 2,-1"),
        ("wa (2,-1)", "wasteland 2,-1"),
        ("waste 2,-1", "wasteland 2,-1"),  # alias
        ("dis gree", "discard green tribe"),  # the optional word left out
        ("discard green tribe", "discard green tribe"),
        ("d wa", "discard wasteland"),
    ],
)
def test_verbs_and_names_by_unique_prefix(gods, typed, expected):
    assert match(gods, typed).text == expected


def test_arrows_and_to_in_a_move(gods):
    gods["game"]["display"] = ["tribe:green", "whirlwind"]
    for typed in ("move 0,0 -> 2,-1", "move 0,0 to 2,-1", "mo (0, 0) → (2, -1)", "MOVE 0,0 TO 2,-1"):
        assert match(gods, typed).text == "move 0,0 -> 2,-1"
    assert match(gods, "wh 0,0 to 2,-1").text == "whirlwind 0,0 -> 2,-1"


def test_numbers_never_match_by_prefix():
    rules = SealedAuction()
    state, _ = engine.start(rules, ["a", "b"], {"coins": "20"}, "1")
    assert match(state, "bid 1", "a", rules).text == "bid 1"  # not 'bid 10'..'bid 19'
    assert match(state, "bid 12", "a", rules).text == "bid 12"
    assert match(state, "autobid of", "a", rules).text == "autobid off"  # words do


def test_ambiguous_verb_prefix_quotes_the_input(gods):
    with pytest.raises(AmbiguousOrderError) as info:
        match(gods, "t 2,-1")
    err = info.value
    assert "'t 2,-1'" in err.message
    assert "temple" in err.message and "tribe" in err.message
    with pytest.raises(AmbiguousOrderError, match="wasteland or whirlwind"):
        match(gods, "w 2,-1")


def test_ambiguous_name_prefix_lists_the_candidates(gods):
    with pytest.raises(AmbiguousOrderError) as info:
        match(gods, "tribe gr 2,-1")  # green or grey
    msg = info.value.message
    assert "'tribe gr 2,-1'" in msg
    assert "'tribe green 2,-1'" in msg and "'tribe grey 2,-1'" in msg


def test_optional_colour_needed_only_when_two_colours_are_shown(gods):
    with pytest.raises(AmbiguousOrderError):
        match(gods, "tribe 2,-1")
    gods["game"]["display"] = ["tribe:green", "wasteland"]
    assert match(gods, "tribe 2,-1").text == "tribe green 2,-1"
    assert match(gods, "tribe gr 2,-1").text == "tribe green 2,-1"  # unique among legal orders


# --- errors: unknown verb, malformed arguments, illegal orders ---------------------------

def test_unknown_verb_offers_did_you_mean(gods):
    with pytest.raises(InvalidOrderError) as info:
        match(gods, "trbe green 2,-1")
    err = info.value
    assert "unknown order 'trbe'" in err.message
    assert "did you mean 'tribe'?" in err.message
    assert "'trbe green 2,-1'" in err.message
    assert err.column == 1


def test_unknown_verb_far_from_any_lists_the_orders(gods):
    with pytest.raises(InvalidOrderError) as info:
        match(gods, "xyzzy 2,-1")
    assert "did you mean" not in info.value.message
    assert "orders are:" in info.value.message and "tribe" in info.value.message


def test_malformed_argument_names_line_and_column_with_caret():
    text = "GAME g1\nPLAYER alice\n# orders\n\ntemple 2\n"
    state, _ = engine.start(GODS, ["alice", "bob"], {}, "1")
    line = read_script(text).lines[0]
    with pytest.raises(InvalidOrderError) as info:
        match_order(GODS.grammar, GODS.legal_orders(state, "alice"), line)
    err = info.value
    assert (err.line, err.column) == (5, 8)
    assert "expected a coordinate, found '2'" in err.message and "the order is written `temple Q,R`" in err.message
    located = err.located()
    assert located.startswith("line 5, column 8: ")
    assert located.split("\n")[1] == "    temple 2"
    assert caret_column(located) == 8


@pytest.mark.parametrize(
    "typed, column, bad",
    [
        ("move 0,0 2,-1", 10, "2,-1"),  # the arrow is missing
        ("tribe green 2,-1 extra", 18, "extra"),
        ("temple green", 8, "green"),
        ("bid", None, None),
    ],
)
def test_malformed_lines_point_at_the_first_bad_token(gods, typed, column, bad):
    gods["game"]["display"] = ["tribe:green", "whirlwind"]
    rules = GODS
    if typed == "bid":
        rules = SealedAuction()
        gods, _ = engine.start(rules, ["alice", "bob"], {}, "1")
    with pytest.raises(InvalidOrderError) as info:
        match(gods, typed, "alice", rules)
    err = info.value
    located = err.located()
    if column is None:  # incomplete: the caret sits just after the line
        assert "incomplete" in err.message
        assert err.column == len(typed) + 1
    else:
        assert err.column == column
        assert typed[column - 1:].startswith(bad)
        assert f"'{bad}'" in err.message
    assert caret_column(located) == err.column
    assert located.split("\n")[1] == "    " + typed


def test_incomplete_line(gods):
    with pytest.raises(InvalidOrderError) as info:
        match(gods, "temple")
    assert "incomplete" in info.value.message and "the order is written `temple Q,R`" in info.value.message
    assert info.value.column == 7


def test_an_indented_line_is_quoted_as_read_and_the_caret_matches():
    line = read_script("\n      temple x,y\n").lines[0]
    with pytest.raises(InvalidOrderError) as info:
        match_order(GODS.grammar, [], line)
    located = info.value.located()
    quoted = located.split("\n")[1][4:]
    assert quoted[caret_column(located) - 1:].startswith("x,y")


def test_too_long_line(gods):
    line = read_script("tribe " + "g" * (MAX_LINE_CHARS + 10)).lines[0]
    with pytest.raises(InvalidOrderError, match="longer than"):
        match_order(GODS.grammar, GODS.legal_orders(gods, "alice"), line)


@pytest.mark.parametrize(
    "typed, reason",
    [
        ("tribe green 40,40", "40,40 does not adjoin any card"),
        ("temple 0,0", "0,0 is already occupied by a wasteland"),
        ("tribe orange 2,-1", "there is no orange tribe in the display"),
        ("pass", "you may pass only when the display is empty"),
        ("keep", "there is no extra action card in the display"),
        ("extra", "you hold no extra action card"),
        ("endgame", "nations of 3 colours or 4 nation cards"),
        ("whirlwind 0,0 -> 2,-1", "there is no whirlwind in the display"),
        ("move 1,-1 -> 2,-1", "there is no wasteland at 1,-1"),
    ],
)
def test_illegal_but_well_formed_gives_the_games_reason(gods, typed, reason):
    with pytest.raises(IllegalOrderError) as info:
        match(gods, typed)
    assert reason in info.value.message
    assert f"'{typed}'" in info.value.message


def test_illegal_for_want_of_crystals(gods):
    g = gods["game"]
    g["stock"] += g["crystals"]["alice"]
    g["crystals"]["alice"] = 0
    with pytest.raises(IllegalOrderError, match=r"it costs 1 crystals \(1 adjacent card\); you have 0"):
        match(gods, "tribe green 2,-1")
    with pytest.raises(IllegalOrderError, match="repositioning a wasteland costs 2 crystals; you have 0"):
        match(gods, "move 0,0 -> 2,-1")


def test_illegal_order_suggests_a_close_legal_one(gods):
    gods["game"]["display"] = ["tribe:green", "tribe:green"]
    with pytest.raises(IllegalOrderError) as info:
        match(gods, "discard grey")
    assert "did you mean 'discard green tribe'?" in info.value.message


def test_orders_out_of_turn(gods):
    with pytest.raises(IllegalOrderError, match="it is not your turn"):
        match(gods, "discard green", player="bob")


def test_errors_through_check_script_are_located(gods):
    text = "GAME g1\nPLAYER alice\nPASSWORD x\ntemple 2\ntr gr 2,-1\nfrobnicate\ntribe green 2,-1\n"
    results = engine.check_script(GODS, gods, "alice", read_script(text))
    assert [(r.number, r.status) for r in results] == [
        (4, "rejected"), (5, "rejected"), (6, "rejected"), (7, "accepted"),
    ]
    assert results[0].reason.startswith("line 4, column 8: ")
    assert results[1].reason.startswith("line 5, column 1: ") and "ambiguous" in results[1].reason
    assert "unknown order 'frobnicate'" in results[2].reason and "\n    frobnicate\n    ^" in results[2].reason
    assert results[3].order == "tribe green 2,-1"
    # after the last order, a line that is no order even loosely is prose: ignored, not an error
    results = engine.check_script(GODS, gods, "alice", read_script(text + "frobnicate\n"))
    assert (results[-1].number, results[-1].status, results[-1].reason) == (8, "ignored", "not an order")


@pytest.mark.parametrize("cls", [OrderError, InvalidOrderError, IllegalOrderError, AmbiguousOrderError, InputError])
def test_every_order_and_input_error_is_a_value_error(cls):
    assert issubclass(cls, ValueError)
    assert issubclass(cls, PbemError)


def test_located_without_a_line_is_the_message():
    assert OrderError("plain").located() == "plain"


# --- decode: bytes to text ----------------------------------------------------------------

def test_decode_utf8_with_and_without_bom():
    text = "GAME g1\nmove 0,0 → 2,-1\n"
    assert decode(text.encode("utf-8")) == text
    assert decode(b"\xef\xbb\xbf" + text.encode("utf-8")) == text
    assert read_script(decode(b"\xef\xbb\xbfGAME g1\n")).game == "g1"  # BOM not part of the header


def test_decode_falls_back_to_cp1252():
    assert decode(b"# gr\xfc\xdfe \x93Alice\x94\ndiscard green\n") == "# grüße “Alice”\ndiscard green\n"


def test_decode_refuses_nul_bytes():
    with pytest.raises(InputError, match="NUL"):
        decode(b"discard green\x00\x00\n")


def test_decode_refuses_control_junk():
    with pytest.raises(InputError, match="not a text file"):
        decode(bytes(range(1, 32)) * 10)


def test_decode_refuses_huge_input_and_takes_the_limit():
    ok = (b"# padding line\n" * (MAX_ORDER_BYTES // 15 + 1))[:MAX_ORDER_BYTES]
    assert len(decode(ok)) == MAX_ORDER_BYTES
    with pytest.raises(InputError, match="limited to"):
        decode(ok + b"x")
    with pytest.raises(InputError, match="5.0 MB"):
        decode(b"x" * (5 * 1024 * 1024))


def test_match_does_not_change_the_position(gods):
    before = copy.deepcopy(gods)
    for typed in ("tribe green 2,-1", "t 2,-1", "temple 2", "tribe green 40,40"):
        try:
            match(gods, typed)
        except OrderError:
            pass
    assert gods == before


# --- free text (the `text` kind of a parsed verb: spec G2) ------------------------------------

def test_a_text_argument_is_the_rest_of_the_line_as_written():
    from pbem.core.orders import Grammar, Order

    grammar = Grammar(verbs={"judge": ("word text", "accuse a god: `judge NAME CRIME...`")},
                      parsed=frozenset({"judge"}))
    seen = []

    def parse(typed):
        seen.append(typed)
        return Order(tuple(typed), tuple(typed))

    line = line_of("JUDGE Odin  Broke the DEAL of era 3,  and lied -> twice  # not this")
    order = match_order(grammar, [], line, parse=parse)
    assert seen == [["judge", "odin", "Broke the DEAL of era 3,  and lied -> twice"]]
    assert order.payload[2] == "Broke the DEAL of era 3,  and lied -> twice"
    # the order's text reads back to the same order
    again = match_order(grammar, [], line_of(order.text), parse=parse)
    assert again == order
    # the text may not be left out: the syntax error names what is missing
    with pytest.raises(InvalidOrderError, match="incomplete: the order is written `judge NAME CRIME...`"):
        match_order(grammar, [], line_of("judge odin"), parse=lambda typed: None)
