"""Small helpers for the sentences games write (summaries, reasons)."""

from __future__ import annotations


def turns_exist(last: int) -> str:
    """What a player is told of the turns there are: "only turn 1 exists", "turns 1 to 5 exist"."""
    return "only turn 1 exists" if last <= 1 else f"turns 1 to {last} exist"


def plural(n: int, word: str, many: str | None = None) -> str:
    """"1 priest", "2 priests", "0 cards in hand" -> pass the plural when it is not word + s."""
    return f"{n} {word if n == 1 else (many or word + 's')}"
