"""Finding the messages in the paths `pbem ingest` is given: Maildir folders, mbox files,
single messages (.eml) and plain order files, each read lazily as an `Item`."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from pbem.core.errors import PbemError
from pbem.host.files import open_regular, read_regular, shown  # regular files only; names fit to store

log = logging.getLogger("pbem.mail")


# --- finding the messages in PATHs ------------------------------------------------------------

@dataclass
class Item:
    origin: str
    kind: str  # eml | mbox | maildir | file
    read: Callable[[], bytes]
    delivered: datetime | None = None
    name: str = ""
    size: int | None = None  # its bytes, when known without reading it
    path: Path | None = None  # the regular file it is, when it is a whole file

    def __post_init__(self) -> None:
        # issue 17: a file name that is not valid UTF-8 is stored and printed with its bytes
        # escaped (it cannot be stored as it is); the file is still read by its real name
        self.origin, self.name = shown(self.origin), shown(self.name)

    def head(self, n: int) -> bytes:
        """Its first `n` bytes, without reading the rest."""
        if self.path is None:
            return self.read()[:n]
        fd = open_regular(self.path)
        with os.fdopen(fd, "rb") as fh:
            return fh.read(n)

    def sha256(self) -> str:
        """The SHA-256 of its bytes, read in chunks (a huge file is never held whole)."""
        if self.path is None:
            return hashlib.sha256(self.read()).hexdigest()
        fd = open_regular(self.path)
        with os.fdopen(fd, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()


def _not_regular(path: Path, what: str) -> Item:
    """An entry that is not a regular file (a FIFO, a socket, a device, a symbolic link):
    never read; it is reported as unreadable, and the rest goes on."""
    def refuse() -> bytes:
        raise OSError(f"not a regular file ({what}): not read")

    return Item(str(path), "file", refuse, None, path.name, size=0)


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device or other special file"


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
        with os.fdopen(open_regular(path), "rb") as fh:
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
            if p.name.startswith("."):
                continue
            try:
                info = p.lstat()  # a symbolic link is not followed: a link to /etc/passwd is no mail
            except FileNotFoundError:  # issue 17: a mail client moved it (new/ to cur/, or a flag
                continue  # changed): it is listed where it went, or taken at the next run
            if stat.S_ISDIR(info.st_mode):
                continue
            m = _MAILDIR_TIME.match(p.name)
            when = int(m.group(1)) if m else int(info.st_mtime)
            entries.append((when, p.name, p, info))
    for when, _, p, info in sorted(entries, key=lambda e: e[:2]):
        if not stat.S_ISREG(info.st_mode):
            yield _not_regular(p, _kind_of(info.st_mode))
            continue
        item = Item(str(p), "maildir", lambda: b"", datetime.fromtimestamp(when, timezone.utc), p.name,
                    size=info.st_size, path=p)
        item.read = lambda item=item: _read_maildir(folder, item)
        yield item


def _read_maildir(folder: Path, item: Item) -> bytes:
    """A Maildir message's bytes. A mail client may move it at any time (new/ to cur/, a flag
    added to its name): its name keeps its unique part (before ':'), by which it is looked
    for again in cur/ and new/ (issue 17: the move stopped the whole run). Gone altogether:
    OSError, and the message is taken at the next run."""
    assert item.path is not None
    try:
        return read_regular(item.path)
    except FileNotFoundError:
        pass
    unique = item.path.name.split(":", 1)[0]
    for sub in ("cur", "new"):
        try:
            names = os.listdir(folder / sub)
        except OSError:
            continue
        for name in names:
            if name.split(":", 1)[0] == unique:
                item.path = folder / sub / name  # (head and sha256 read it there too)
                return read_regular(item.path)
    raise OSError(f"moved away or deleted while being read (by a mail client?); it is taken at the next run if it is "
                  f"still in {shown(folder)}")


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
        data = read_regular(path)
    except OSError as err:
        raise PbemError(f"cannot read the mbox {path}: {err.strerror or err}") from None
    for n, (first, body) in enumerate(split_mbox(data), start=1):
        yield Item(f"{path}#{n}", "mbox", (lambda b=body: b), _from_line_time(first), path.name, size=len(body))


def iter_items(paths: list[str | Path]) -> Iterator[Item]:
    """The messages under each PATH. A PATH the GM names may be a symbolic link (it is
    followed); inside folders only regular files and real folders are read: links, FIFOs,
    sockets and devices are reported as not read (see `_not_regular`)."""
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise PbemError(f"no such file or folder '{given}'")
        yield from _items(path, path.stat())


def _items(path: Path, info: os.stat_result) -> Iterator[Item]:
    if stat.S_ISDIR(info.st_mode) and is_maildir(path):
        yield from _maildir_items(path)
        return
    if stat.S_ISDIR(info.st_mode):
        try:
            children = sorted(path.iterdir())
        except OSError as err:
            raise PbemError(f"cannot read the folder {path}: {err.strerror or err}") from None
        for child in children:
            if child.name.startswith("."):
                continue
            yield from _items(child, child.lstat())
        return
    if not stat.S_ISREG(info.st_mode):
        yield _not_regular(path, _kind_of(info.st_mode))
        return
    kind = sniff(path)
    if kind == "mbox":
        yield from _mbox_items(path)
    else:
        yield Item(str(path), kind, lambda: read_regular(path), None, path.name, size=info.st_size, path=path)


