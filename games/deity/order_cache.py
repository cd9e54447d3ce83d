"""The Order objects the game makes, each made once and shared (an Order is immutable): the
legal-order lists of a turn are rebuilt after every order, mostly from the same orders."""

from __future__ import annotations

from pbem.core.orders import Order

PASS = Order(("pass",), ("pass",))


def card_words(card: str) -> tuple[str, ...]:
    return tuple(card.split("_"))


def card_tokens(verb: str, card: str, *rest: str) -> tuple[tuple[str, ...], frozenset]:
    """Tokens naming a card: `play tidal wave 3,4`; the second word may be left out."""
    words = card_words(card)
    return (verb, *words, *rest), (frozenset({2}) if len(words) == 2 else frozenset())


class OrderCache:
    def __init__(self) -> None:
        self._oc: dict = {}   # the Order objects already made

    def cached(self, payload: tuple, tokens=None, optional: frozenset = frozenset(), flag=None) -> Order:
        ck = (payload, flag)
        o = self._oc.get(ck)
        if o is None:
            o = self._oc[ck] = Order(tokens, payload, optional)
        return o

    def series(self, ck: tuple, upto: int, make) -> list[Order]:
        """Orders numbered 1..upto (make(n) builds the n-th), kept in one growing list."""
        lst = self._oc.get(ck)
        if lst is None:
            lst = self._oc[ck] = []
        while len(lst) < upto:
            lst.append(make(len(lst) + 1))
        return lst[:upto]

    def made(self, ck: tuple, make, *args) -> list[Order]:
        """The list of orders under ck, made by make(*args) the first time."""
        lst = self._oc.get(ck)
        if lst is None:
            lst = self._oc[ck] = make(*args)
        return lst

    def card_targets(self, verb: str, card: str, keys: list[str]) -> list[Order]:
        per = self._oc.get((verb, card, "by-hex"))
        if per is None:
            per = self._oc[(verb, card, "by-hex")] = {}
        out = []
        for k in keys:
            o = per.get(k)
            if o is None:
                tokens, opt = card_tokens(verb, card, k)
                o = per[k] = Order(tokens, (verb, card, k), opt)
            out.append(o)
        return out

    def card_order(self, verb: str, card: str, *rest: str) -> Order:
        ck = (verb, card, rest)
        o = self._oc.get(ck)
        if o is None:
            tokens, opt = card_tokens(verb, card, *rest)
            o = self._oc[ck] = Order(tokens, (verb, card, *[r for r in rest if r != "->"]), opt)
        return o
