"""What pbem prints goes through a filter: text from players' mail (a GAME line, a display
name, an order line quoted in an acknowledgement) may carry terminal control sequences
(an escape that retitles the GM's window, clears the screen or fakes a line) or NUL. Every
control character pbem did not mean to print is shown escaped as visible text (`\\x1b`)
instead of being sent to the terminal.

The filter sits on the bytes under sys.stdout and sys.stderr, so that it holds whichever way
a command prints (click re-wraps a stream whose encoding it does not like around the same
bytes). Kept: newline and tab; on stderr also the carriage return and the two sequences of
click's progress bar (hide and show the cursor)."""

from __future__ import annotations

import io
import re
import sys

# C0 controls but tab and newline, DEL, and the C1 controls as UTF-8 encodes them (0xC2 0x80-0x9F)
_STDOUT = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
_STDERR = re.compile(rb"\x1b\[\?25[lh]|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")


def scrub(data: bytes, pattern: re.Pattern = _STDOUT) -> bytes:
    """`data` with every control character the pattern finds shown as \\xNN (kept: the
    progress bar's own sequences on stderr)."""
    def show(m: re.Match) -> bytes:
        b = m.group()
        if b.startswith(b"\x1b[?25"):
            return b
        return b"\\x%02x" % (b[-1] if len(b) == 2 else b[0])

    return pattern.sub(show, data)


class _Scrubbed(io.RawIOBase):
    """The bytes of a stream, scrubbed on their way out."""

    def __init__(self, raw, pattern: re.Pattern):
        super().__init__()
        self._raw, self._pattern, self._pending = raw, pattern, b""

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        data = self._pending + bytes(b)
        self._pending = b""
        cut = len(data)
        if data.endswith(b"\xc2"):  # the first byte of a UTF-8 pair: wait for the second
            cut -= 1
        elif data.endswith((b"\x1b", b"\x1b[", b"\x1b[?", b"\x1b[?2", b"\x1b[?25")):  # a sequence cut in two
            cut = data.rindex(b"\x1b")
        self._pending = data[cut:]
        self._write_all(scrub(data[:cut], self._pattern))
        return len(b)

    def _write_all(self, out: bytes) -> None:
        view = memoryview(out)
        while view:  # straight to the file: nothing is left in a buffer to fail again at exit
            view = view[self._raw.write(view) or 0:]

    def close(self) -> None:
        if self._pending and not self.closed:
            pending, self._pending = self._pending, b""
            self._write_all(scrub(pending, self._pattern))
        super().close()

    def fileno(self) -> int:
        return self._raw.fileno()

    def isatty(self) -> bool:
        return self._raw.isatty()


def _wrap(stream, pattern: re.Pattern):
    buffer = getattr(stream, "buffer", None)
    raw = getattr(buffer, "raw", buffer)  # the file under Python's own buffer (none with -u)
    if raw is None or not hasattr(raw, "fileno"):  # not a real stream (a test harness): leave it
        return stream
    stream.flush()
    return io.TextIOWrapper(_Scrubbed(raw, pattern), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=True, write_through=True)


def scrub_output() -> None:
    """Put the filter under sys.stdout and sys.stderr (once; the installed command's main)."""
    if isinstance(getattr(sys.stdout, "buffer", None), _Scrubbed):
        return
    sys.stdout = _wrap(sys.stdout, _STDOUT)
    sys.stderr = _wrap(sys.stderr, _STDERR)
