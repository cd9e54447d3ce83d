"""The GM's controls between deadlines: deadlines, pauses, seats, press, observers, the game's end."""

from pbem.cli import app  # noqa: F401
