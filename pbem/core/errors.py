"""Domain errors. Every error a user can cause is a PbemError with a message meant for them.

Order errors follow python-chess: syntax (InvalidOrderError) is separate from legality
(IllegalOrderError) and ambiguity (AmbiguousOrderError); all are ValueErrors whose
messages quote the input.
"""


class PbemError(Exception):
    """An error with a message for the GM or player; the CLI prints it without a traceback."""


class NotFound(PbemError):
    """An unknown game, player, turn or game type."""


class AuthError(PbemError):
    """A wrong or missing password, or a player submitting for another."""


class DataError(PbemError):
    """A game's TOML data fails validation."""


class InputError(PbemError, ValueError):
    """An input that is not an order text at all: binary, too large, undecodable. A
    ValueError, like the order errors: a bad value given by a user."""


class OrderError(PbemError, ValueError):
    """An order line that cannot be executed. `line` and `column` are 1-based."""

    def __init__(self, message: str, text: str = "", line: int = 0, column: int = 0):
        super().__init__(message)
        self.message = message
        self.text = text
        self.line = line
        self.column = column

    def located(self) -> str:
        """The message with line, column and the quoted line under a caret."""
        if not self.line:
            return self.message
        caret = " " * max(self.column - 1, 0) + "^"
        return f"line {self.line}, column {self.column}: {self.message}\n    {self.text}\n    {caret}"

    def __str__(self) -> str:
        return self.message


class InvalidOrderError(OrderError):
    """The line is not an order of this game: unknown verb or malformed arguments."""


class IllegalOrderError(OrderError):
    """The line is well formed but is not a legal order in the current position."""


class AmbiguousOrderError(OrderError):
    """The line matches more than one legal order."""
