"""A bound on how long one exchange with another machine may take as a whole.

A socket's timeout bounds each wait for a byte, not the exchange: a server (or a broken link)
that dribbles its answer a byte at a time never trips it, and `pbem run`, holding its lock,
would wait for ever. `within(seconds, what)` raises `Overdue` (a TimeoutError, so an OSError:
the callers' handling of a connection that failed applies) when the block has not ended in
time. It uses the process's interval timer (SIGALRM), so it bounds only in the main thread and
only the outermost `within`; elsewhere it bounds nothing and the socket timeouts remain.
Only network exchanges go inside it, never a write to the store.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


class Overdue(TimeoutError):
    """An exchange with another machine did not end within its bound."""


@contextmanager
def within(seconds: float | None, what: str) -> Iterator[None]:
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:  # an outer bound holds
        yield
        return

    def expire(_signum, _frame):
        raise Overdue(f"{what}: not done within {seconds:g} seconds")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Bounded:
    """`target` (e.g. an IMAP client) whose every method call is bounded by `within(seconds)`."""

    def __init__(self, target, seconds: float | None, what: str):
        self._target, self._seconds, self._what = target, seconds, what

    def __getattr__(self, name: str):
        value = getattr(self._target, name)
        if not callable(value):
            return value

        def call(*args, **kwargs):
            with within(self._seconds, f"{self._what} ({name})"):
                return value(*args, **kwargs)

        return call


def described(err: BaseException) -> str:
    """What to tell of a failed exchange: the bound it overran, when an `Overdue` is behind
    `err` (a library may have turned it into its own "connection closed"), else the error's
    kind and words."""
    seen = err
    while seen is not None:
        if isinstance(seen, Overdue):
            return str(seen)
        seen = seen.__context__ or seen.__cause__
    return f"{type(err).__name__}: {err}"
