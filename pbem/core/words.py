"""Small helpers for the sentences games write (summaries, reasons)."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """"1 priest", "2 priests", "0 cards in hand" -> pass the plural when it is not word + s."""
    return f"{n} {word if n == 1 else (many or word + 's')}"
