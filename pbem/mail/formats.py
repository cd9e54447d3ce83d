"""Finding the messages in the paths `pbem ingest` is given: Maildir folders, mbox files,
single messages (.eml) and plain order files, each read lazily as an `Item`."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from pbem.core.errors import PbemError

log = logging.getLogger("pbem.mail")


# --- finding the messages in PATHs ------------------------------------------------------------

@dataclass
class Item:
    origin: str
    kind: str  # eml | mbox | maildir | file
    read: Callable[[], bytes]
    delivered: datetime | None = None
    name: str = ""


_MAILDIR_TIME = re.compile(r"^(\d{9,11})[.]")
_HEADER_LINE = re.compile(rb"^[!-9;-~]+:[ \t]?")
_MAIL_HEADERS = (b"from:", b"to:", b"subject:", b"message-id:", b"received:", b"return-path:", b"date:",
                 b"mime-version:", b"delivered-to:", b"content-type:")


def is_maildir(path: Path) -> bool:
    return path.is_dir() and (path / "cur").is_dir() and (path / "new").is_dir()


def sniff(path: Path) -> str:
    """What a file is: 'mbox', 'eml' or 'file' (an order file)."""
    suffix = path.suffix.lower()
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return "file"
    if suffix in (".mbox", ".mbx") or head.startswith(b"From "):
        return "mbox"
    if suffix in (".eml", ".msg", ".mail"):
        return "eml"
    lines = head.replace(b"\r\n", b"\n").split(b"\n", 12)[:12]
    known = sum(1 for ln in lines if ln.lower().startswith(_MAIL_HEADERS))
    if lines and _HEADER_LINE.match(lines[0]) and known >= 2:
        return "eml"
    return "file"


def _maildir_items(folder: Path) -> Iterator[Item]:
    entries = []
    for sub in ("new", "cur"):
        d = folder / sub
        for p in d.iterdir():
            if p.name.startswith(".") or not p.is_file():
                continue
            m = _MAILDIR_TIME.match(p.name)
            when = int(m.group(1)) if m else int(p.stat().st_mtime)
            entries.append((when, p.name, p))
    for when, _, p in sorted(entries):
        yield Item(str(p), "maildir", p.read_bytes, datetime.fromtimestamp(when, timezone.utc), p.name)


_FROM_LINE_DATE = re.compile(r"([A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d{1,2}:\d{2}:\d{2} \d{4})")


def _from_line_time(line: bytes) -> datetime | None:
    m = _FROM_LINE_DATE.search(line.decode("latin-1"))
    if not m:
        return None
    try:
        return datetime.strptime(" ".join(m.group(1).split()), "%a %b %d %H:%M:%S %Y").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def split_mbox(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """(From_ line, message bytes) for each message of an mbox (mboxo or mboxrd: one '>' is
    taken off '>From ' lines)."""
    data = data.replace(b"\r\n", b"\n")
    starts = [0] if data.startswith(b"From ") else []
    starts += [m.start() + 1 for m in re.finditer(rb"\n(?=From )", data)]
    if not starts:
        if data.strip():
            yield b"", data
        return
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        chunk = data[start:end]
        first, _, body = chunk.partition(b"\n")
        body = re.sub(rb"(?m)^>(>*From )", rb"\1", body)
        if body.endswith(b"\n\n"):
            body = body[:-1]
        yield first, body


def _mbox_items(path: Path) -> Iterator[Item]:
    try:
        data = path.read_bytes()
    except OSError as err:
        raise PbemError(f"cannot read the mbox {path}: {err.strerror or err}") from None
    for n, (first, body) in enumerate(split_mbox(data), start=1):
        yield Item(f"{path}#{n}", "mbox", (lambda b=body: b), _from_line_time(first), path.name)


def iter_items(paths: list[str | Path]) -> Iterator[Item]:
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise PbemError(f"no such file or folder '{given}'")
        yield from _items(path)


def _items(path: Path) -> Iterator[Item]:
    if is_maildir(path):
        yield from _maildir_items(path)
        return
    if path.is_dir():
        try:
            children = sorted(path.iterdir())
        except OSError as err:
            raise PbemError(f"cannot read the folder {path}: {err.strerror or err}") from None
        for child in children:
            if child.name.startswith("."):
                continue
            yield from _items(child)
        return
    kind = sniff(path)
    if kind == "mbox":
        yield from _mbox_items(path)
    else:
        yield Item(str(path), kind, path.read_bytes, None, path.name)


