"""Files written whole or not at all (report files, site pages)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_atomic(target: Path, data: bytes) -> None:
    """Write `target` whole or not at all: into a temporary file beside it, renamed over it
    once complete. Each writer has a temporary file of its own (process id and a random
    part in its name), so two processes writing the same file at once both succeed and the
    last rename wins. When the write fails (a full disk), the temporary file is removed:
    the old file stays and no *.tmp is left; the error goes on to the caller."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        except (FileNotFoundError, NotADirectoryError):  # issue 17: the folder is made only when missing
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        with open(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
