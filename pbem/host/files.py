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
            _write_all(fd, data)
            os.replace(tmp, os.path.join(folder, name))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


def _write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd` and close it (issue 17: os.write, without a file object
    around the descriptor)."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_new_folder(folder: str, sub: str, files: dict[str, bytes]) -> bool:
    """Make `folder` whole at once, holding the subfolder `sub` with `files` (name: bytes),
    when there is no `folder` yet (issue 17: a new turn's folder and its reports, a folder
    made, the files written straight into it and the folder renamed, rather than a temporary
    file written and renamed for each file). Built beside it as `.NAME.PID-RANDOM.tmp` (a
    name of its own for each writer) and renamed to `folder` once complete, so a reader sees
    no folder or the whole of it. False, with nothing changed and nothing left behind, when
    `folder` is there already (the caller writes file by file, write_all_atomic) or when it
    cannot be made (the caller's write_all_atomic meets the same problem and says what it
    is); the parent folders are made when missing, as write_all_atomic makes them. (A writer
    that makes `folder` at the very same moment may find it replaced by this one while still
    empty, with the same files to come: both end whole.)"""
    if os.path.lexists(folder):
        return False
    parent, name = os.path.split(folder)
    tmp = os.path.join(parent, f".{name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    inner = os.path.join(tmp, sub)
    made: list[tuple[str, bool]] = []  # (path, a folder), in the order made
    try:
        try:
            os.mkdir(tmp)
        except FileNotFoundError:
            os.makedirs(parent, exist_ok=True)
            os.mkdir(tmp)
        made.append((tmp, True))
        os.mkdir(inner)
        made.append((inner, True))
        for fname, data in files.items():
            path = os.path.join(inner, fname)
            fd = os.open(path, _FLAGS | os.O_EXCL, 0o666)
            made.append((path, False))
            _write_all(fd, data)
        os.rename(tmp, folder)
        return True
    except OSError:
        _remove(made)
        return False
    except BaseException:
        _remove(made)
        raise


def _remove(made: list[tuple[str, bool]]) -> None:
    """Remove what write_new_folder made, the last first (its files, then their folders)."""
    for path, folder in reversed(made):
        try:
            (os.rmdir if folder else os.unlink)(path)
        except OSError:
            pass


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
