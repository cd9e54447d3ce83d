"""Files written whole or not at all (report files, site pages)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

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
