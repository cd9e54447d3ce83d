"""A bound on how long one exchange with another machine may take as a whole.

A socket's timeout bounds each wait for a byte, not the exchange: a server (or a broken link)
that dribbles its answer a byte at a time never trips it, and `pbem run`, holding its lock,
would wait for ever. `within(seconds, what)` raises `Overdue` (a TimeoutError, so an OSError:
the callers' handling of a connection that failed applies) when the block has not ended in
time. It uses the process's interval timer (SIGALRM), so it bounds only in the main thread and
only the outermost `within`; elsewhere it bounds nothing and the socket timeouts remain.
Only network exchanges go inside it, never a write to the store.

An exchange that is safe to cut short (fetching, connecting; not the hand-over of a message,
which could then go twice) is `within(..., stoppable=True)`: when the process is asked to stop
meanwhile (`pbem run` gets SIGTERM, and its handler calls stop_exchange), the bound's timer is
made to fire at once and the exchange ends with `Stopped` (an Overdue) instead of after its
whole bound. The signal handler itself raises nothing.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


class Overdue(TimeoutError):
    """An exchange with another machine did not end within its bound."""


class Stopped(Overdue):
    """An exchange cut short because the process was asked to stop."""


_stoppable: list[str] = []  # the stoppable exchanges at work, innermost last
_stop_why: list[str] = []  # why a stop was asked for, while the bound's timer fires


def stop_exchange(why: str) -> None:
    """For a signal handler: end the stoppable exchange at work, if there is one, by making
    its bound's timer fire now (its `within` raises Stopped), and refuse any stoppable one
    begun after, until stops_ended()."""
    if not _stop_why:
        _stop_why.append(why)
    if _stoppable and hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        signal.setitimer(signal.ITIMER_REAL, 0.001)


def stop_asked() -> str | None:
    """Why a stop was asked for (stop_exchange), if one was."""
    return _stop_why[0] if _stop_why else None


def stops_ended() -> None:
    """The stop asked for is over (the run it stopped has returned)."""
    _stop_why.clear()


@contextmanager
def within(seconds: float | None, what: str, stoppable: bool = False) -> Iterator[None]:
    if stoppable:
        if _stop_why:
            raise Stopped(f"{what}: stopped ({_stop_why[0]})")
        _stoppable.append(what)
    try:
        with _bounded(seconds, what):
            yield
    finally:
        if stoppable:
            _stoppable.pop()


@contextmanager
def _bounded(seconds: float | None, what: str) -> Iterator[None]:
    usable = (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable or signal.getitimer(signal.ITIMER_REAL)[0] > 0:  # an outer bound holds
        yield
        return

    def expire(_signum, _frame):
        if _stop_why and _stoppable:
            raise Stopped(f"{_stoppable[-1]}: stopped ({_stop_why[0]})")
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

    def __init__(self, target, seconds: float | None, what: str, stoppable: bool = False):
        self._target, self._seconds, self._what, self._stoppable = target, seconds, what, stoppable

    def __getattr__(self, name: str):
        value = getattr(self._target, name)
        if not callable(value):
            return value

        def call(*args, **kwargs):
            with within(self._seconds, f"{self._what} ({name})", self._stoppable):
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
