"""Files written whole or not at all (report files, site pages), and files read only when they
are regular files (mail folders, order files in turns/)."""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from pathlib import Path


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def shown(path: str | os.PathLike) -> str:
    """A file name fit to store and print (issue 17): a name that is not valid UTF-8 (its
    bytes kept as surrogates by Python) has those bytes as \\xNN escapes, and a control
    character in it (a terminal escape, a bidirectional override) is shown as \\xNN or
    \\uNNNN, not dropped (the name shown is the name there); any other name is returned as it
    is. The file itself is still opened by its real name."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = os.fsencode(text).decode("utf-8", "backslashreplace")
    if _CONTROL.search(text):
        text = _CONTROL.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)
    return text


_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC


def write_atomic(target: Path, data: bytes) -> None:
    """Write `target` whole or not at all: into a temporary file beside it, renamed over it
    once complete. Each writer has a temporary file of its own (process id and a random
    part in its name), so two processes writing the same file at once both succeed and the
    last rename wins. When the write fails (a full disk), the temporary file is removed:
    the old file stays and no *.tmp is left; the error goes on to the caller."""
    write_all_atomic(os.fspath(target.parent), {target.name: data})


def write_all_atomic(folder: str, files: dict[str, bytes]) -> None:
    """Write each file of `files` (name: bytes) into `folder` as write_atomic does, one
    after the other; the folder is made only when missing (issue 17: for the report files of
    a turn, plain paths and one random part a call, not a Path and a token a file)."""
    tag = f"{os.getpid()}-{secrets.token_hex(4)}"
    for name, data in files.items():
        tmp = os.path.join(folder, f".{name}.{tag}.tmp")
        try:
            try:
                fd = os.open(tmp, _FLAGS, 0o666)
            except (FileNotFoundError, NotADirectoryError):  # issue 17: the folder is made only when missing
                os.makedirs(folder, exist_ok=True)
                fd = os.open(tmp, _FLAGS, 0o666)
            with open(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, os.path.join(folder, name))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


def open_regular(path: Path) -> int:
    """A file descriptor for reading `path`, which must be a regular file. Opened without
    following a symbolic link and without blocking (a FIFO would wait for a writer for
    ever), and checked after opening, so a file swapped in between cannot slip through."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise OSError("not a regular file (a symbolic link): not read") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError("not a regular file: not read")
    return fd


def read_regular(path: Path) -> bytes:
    fd = open_regular(path)
    try:  # issue 17: os.read, without a file object around the descriptor
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
