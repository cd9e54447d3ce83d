"""Turn orders as small `first`/`next` objects (after boardgame.io's turn-order.ts)."""

from __future__ import annotations


class Clockwise:
    """Seat order, wrapping round: the turn order of most of our games."""

    def first(self, players: list[str], start: int = 0) -> str:
        return players[start % len(players)]

    def next(self, players: list[str], current: str) -> str:
        return players[(players.index(current) + 1) % len(players)]


class Custom:
    """A fixed order decided during set-up (a roll-off, a bid) held in the state."""

    def __init__(self, order: list[str]):
        self.order = list(order)

    def first(self, players: list[str], start: int = 0) -> str:
        return self.order[0]

    def next(self, players: list[str], current: str) -> str:
        return self.order[(self.order.index(current) + 1) % len(self.order)]


def simultaneous(players: list[str]) -> list[str]:
    """A simultaneous phase: every player is active; the set empties as each answers."""
    return list(players)
