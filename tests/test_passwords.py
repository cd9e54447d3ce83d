"""Players' passwords (issue 14): at least 60 bits, several words from a long list shipped
in the package, typed without trouble; `pbem new` hands them out."""

from __future__ import annotations

import math
import re

from pbem.host import passwords, service


def test_the_word_list_is_long_plain_and_unambiguous():
    words = passwords.words()
    assert len(words) == 2048 == len(set(words))
    assert all(re.fullmatch(r"[a-z]{3,8}", w) for w in words)
    assert len({w[:4] for w in words}) == 2048  # four letters tell any word apart


def test_a_password_has_at_least_60_bits_and_can_be_typed():
    assert passwords.bits() >= 60
    assert math.isclose(passwords.bits(), passwords.WORDS_PER_PASSWORD * 11)
    pw = passwords.new_password()
    parts = pw.split("-")
    assert len(parts) == passwords.WORDS_PER_PASSWORD and all(p in passwords.words() for p in parts)
    assert re.fullmatch(r"[a-z-]+", pw) and len(pw) <= 6 * 9
    many = {passwords.new_password() for _ in range(2000)}
    assert len(many) == 2000
    # every word turns up: the draw covers the whole list (2000 x 6 draws of 2048 words)
    seen = {w for p in many for w in p.split("-")}
    assert len(seen) > 1900


def test_too_few_words_are_refused():
    import pytest

    with pytest.raises(ValueError, match="60 are needed"):
        passwords.new_password(5)


def test_new_games_hand_out_these_passwords(db, gods_game):
    assert service.new_password().count("-") == passwords.WORDS_PER_PASSWORD - 1
    _, pw = gods_game()
    for p in pw.values():
        assert len(p.split("-")) == passwords.WORDS_PER_PASSWORD and all(w in passwords.words() for w in p.split("-"))
