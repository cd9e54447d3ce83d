"""Where mail goes out, and as whom: `MailSettings` from defaults, pbem.toml, the environment
and command-line options."""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pbem.core.errors import PbemError
from pbem.host.outbox import clean_address, header_safe

log = logging.getLogger("pbem.mail")



# --- settings ----------------------------------------------------------------------------------

SECURITIES = ("auto", "starttls", "ssl", "none")


@dataclass
class MailSettings:
    """Where mail goes out, and as whom. From (lowest to highest precedence): defaults, the
    `[mail]` table of pbem.toml, environment variables, command-line options."""

    host: str = "localhost"
    port: int | None = None
    security: str = "auto"  # auto | starttls | ssl | none
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    sender: str | None = None  # no default: mail from a made-up address would go out and no reply come back
    reply_to: str | None = None
    timeout: float = 30.0
    retries: int = 3
    backoff: float = 2.0
    name: str | None = None  # the display name in From (issue 14); "{game}" is replaced by the game's id
    password_file: str | None = None  # the password, read from this file (issue 14)
    ca_file: str | None = None  # trust this CA (PEM) besides the system's, e.g. a private mail server's
    gm: str | None = None  # the GM's own address: notices for the GM (guessing, bounces) go there

    def ssl_context(self):
        return tls_context(self.ca_file)

    def display_name(self, game_id: str | None = None) -> str:
        """The name in From: `name` from the settings, else the display name of `from`, else
        "pbem GAME"."""
        name = self.name
        if not name and self.sender:
            from email.utils import parseaddr

            name = parseaddr(str(self.sender))[0]
        if not name:
            return "pbem" + (f" {game_id}" if game_id else "")
        return header_safe(name.replace("{game}", game_id or "").strip() or "pbem", 100)

    @property
    def effective_port(self) -> int:
        if self.port:
            return self.port
        return {"ssl": 465, "starttls": 587}.get(self.security, 25)

    @property
    def from_addr(self) -> str:
        if not self.sender:
            raise PbemError("no sender address: say which address mail is sent from and players reply to "
                            "(--from, PBEM_FROM or from= in pbem.toml)")
        addr = clean_address(self.sender)
        if not addr:
            raise PbemError(f"the sender address '{header_safe(self.sender)}' is not an email address (set --from, PBEM_FROM or from= in pbem.toml)")
        return addr

    @property
    def domain(self) -> str:
        addr = clean_address(self.sender)
        return addr.rpartition("@")[2] if addr else "pbem.invalid"

    def describe(self) -> str:
        """For printing: never the password."""
        who = f"{self.username}@" if self.username else ""
        return f"smtp://{who}{self.host}:{self.effective_port} ({self.security})"


ENV = {
    "host": "PBEM_SMTP_HOST", "port": "PBEM_SMTP_PORT", "security": "PBEM_SMTP_SECURITY",
    "username": "PBEM_SMTP_USER", "password": "PBEM_SMTP_PASSWORD", "sender": "PBEM_FROM",
    "reply_to": "PBEM_REPLY_TO", "timeout": "PBEM_SMTP_TIMEOUT",
    "name": "PBEM_FROM_NAME", "password_file": "PBEM_SMTP_PASSWORD_FILE", "ca_file": "PBEM_CA_FILE", "gm": "PBEM_GM",
}
FILE_KEYS = {
    "host": "smtp_host", "port": "smtp_port", "security": "security", "username": "username",
    "password": "password", "sender": "from", "reply_to": "reply_to", "timeout": "timeout",
    "retries": "retries", "backoff": "backoff",
    "name": "name", "password_file": "password_file", "ca_file": "ca_file", "gm": "gm",
}


def config_path(explicit: str | None = None) -> Path | None:
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise PbemError(f"no config file '{explicit}'")
        return path
    path = Path(os.environ.get("PBEM_CONFIG") or "pbem.toml")
    return path if path.is_file() else None


def _over_the_file(s, env: dict[str, str], overrides: dict) -> None:
    """What overrides pbem.toml, in order: the environment variables of `env` (attribute ->
    variable), then the caller's own values (a command's options) that are not None."""
    for attr, var in env.items():
        if os.environ.get(var):
            setattr(s, attr, os.environ[var])
    for attr, value in overrides.items():
        if value is not None:
            setattr(s, attr, value)


def load_settings(config: str | None = None, **overrides) -> MailSettings:
    """Settings from pbem.toml's [mail] table, then the environment, then `overrides`
    (command-line options; None means not given)."""
    s = MailSettings()
    table, path = config_table("mail", config)
    if path:
        check_types(table, path, "mail", numbers=("smtp_port", "timeout", "retries", "backoff"),
                    strings=tuple(k for k in FILE_KEYS.values() if k not in ("smtp_port", "timeout", "retries", "backoff")))
        for attr, key in FILE_KEYS.items():
            if key in table:
                setattr(s, attr, table[key])
    _over_the_file(s, ENV, overrides)
    _numbers(s, path, "mail", ENV, {"port": (_port, "smtp_port"), "timeout": (float, "timeout"),
                                    "retries": (lambda v: max(0, int(v)), "retries"),
                                    "backoff": (lambda v: max(0.0, float(v)), "backoff")})
    s.security = str(s.security).lower()
    if s.security not in SECURITIES:
        raise PbemError(f"security '{s.security}' is not one of {', '.join(SECURITIES)}")
    if not s.password and s.password_file:
        s.password = read_password_file(s.password_file, "SMTP")
    return s


# --- issue 14: TLS, password files, and the [imap] and [run] tables ---------------------------

def tls_context(ca_file: str | None = None):
    """A verifying TLS context: the system's CAs, plus `ca_file` when given."""
    import ssl

    context = ssl.create_default_context()
    if ca_file:
        try:
            context.load_verify_locations(cafile=str(ca_file))
        except (OSError, ssl.SSLError) as err:
            raise PbemError(f"cannot read the CA file {ca_file}: {err}") from None
    return context


def read_password_file(path: str | os.PathLike, what: str) -> str:
    """A password kept in a file of its own (its first line; the file should be readable by
    the GM alone)."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise PbemError(f"cannot read the {what} password file {path}: {getattr(err, 'strerror', None) or err}") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise PbemError(f"the {what} password file {path} is empty")
    return lines[0].rstrip("\r\n")


def config_table(name: str, config: str | None = None) -> tuple[dict, Path | None]:
    """One table of pbem.toml (empty when there is no file or no such table), and the file."""
    path = config_path(config)
    if not path:
        return {}, None
    try:
        with path.open("rb") as fh:
            table = tomllib.load(fh).get(name, {})
    except (tomllib.TOMLDecodeError, OSError) as err:
        raise PbemError(f"{path}: {err}") from None
    except UnicodeDecodeError as err:  # saved as UTF-16, or a stray Latin-1 byte (was "internal error")
        raise PbemError(f"{path} is not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {err.start}): "
                        "save it as UTF-8") from None
    if not isinstance(table, dict):
        raise PbemError(f"{path}: [{name}] must be a table")
    return table, path


def _toml_type(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, str):
        return "text"
    return "a date"


def _port(value):
    return int(value) if value not in (None, "") else None


def _numbers(s, path: Path | None, section: str, env: dict[str, str], fields: dict) -> None:
    """Each of `fields` (attribute: (conversion, its key in the table)) of `s` as a number, or
    a message naming where the value came from (an option, a variable, pbem.toml) and what it
    is: "pbem.toml: [mail] smtp_port must be a number, not 'abc'" (was "mail settings: invalid
    literal for int() with base 10: 'abc'")."""
    for attr, (convert, key) in fields.items():
        value = getattr(s, attr)
        try:
            setattr(s, attr, convert(value))
        except (TypeError, ValueError, OverflowError):
            var = env.get(attr)
            where = (var if var and os.environ.get(var) == value else
                     f"{path}: [{section}] {key}" if path else f"[{section}] {key}")
            raise PbemError(f"{where} must be a number, not {str(value)[:40]!r}") from None


def check_types(table: dict, path: Path | None, section: str, *, strings: tuple[str, ...] = (),
                numbers: tuple[str, ...] = (), lists: tuple[str, ...] = ()) -> None:
    """issue 17: each setting of the kind it must be, else a clear message naming it (a number
    where text goes, `mail = 5`, was 'internal error: TypeError'). `numbers` may also be written
    as text ("587"); `lists` are text or a list of texts."""
    for key in strings:
        if key in table and not isinstance(table[key], str):
            raise PbemError(f"{path}: [{section}] {key} must be text in quotes, not {_toml_type(table[key])}")
    for key in numbers:
        value = table.get(key)
        if key in table and (isinstance(value, bool) or not isinstance(value, (int, float, str))):
            raise PbemError(f"{path}: [{section}] {key} must be a number, not {_toml_type(value)}")
    for key in lists:
        value = table.get(key)
        if key in table and not isinstance(value, str) and not (
                isinstance(value, list) and all(isinstance(v, str) for v in value)):
            what = (f"a list with {next(_toml_type(v) for v in value if not isinstance(v, str))}"
                    if isinstance(value, list) else _toml_type(value))
            raise PbemError(f"{path}: [{section}] {key} must be text in quotes or a list of them, not {what}")


IMAP_SECURITIES = ("ssl", "starttls", "none")


@dataclass
class ImapSettings:
    """Where players' mail is read from: the `[imap]` table of pbem.toml and PBEM_IMAP_*
    variables. The password only ever comes from a file (`password_file`) or the environment
    (`PBEM_IMAP_PASSWORD`): never from pbem.toml itself, never the store."""

    host: str | None = None
    port: int | None = None
    security: str = "ssl"  # ssl (IMAPS, 993) | starttls (143) | none (143, only with allow_plain)
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    password_file: str | None = None
    folder: str = "INBOX"
    after: str = "move"  # move (to `processed`) | flag (keyword `$PbemProcessed`)
    processed: str = "pbem-processed"
    timeout: float = 60.0
    ca_file: str | None = None
    batch: int = 200  # at most this many messages a run (the rest next time)
    max_bytes: int = 25 * 1024 * 1024  # larger messages: their headers only (ingest rejects them as too large)

    @property
    def configured(self) -> bool:
        return bool(self.host)

    @property
    def effective_port(self) -> int:
        return self.port or (993 if self.security == "ssl" else 143)

    @property
    def account(self) -> str:
        """The key fetched messages are recorded under: user, server and folder."""
        return f"{self.username or ''}@{self.host}:{self.effective_port}/{self.folder}"

    def describe(self) -> str:
        who = f"{self.username}@" if self.username else ""
        return f"imap{'s' if self.security == 'ssl' else ''}://{who}{self.host}:{self.effective_port}/{self.folder} ({self.security})"

    def ssl_context(self):
        return tls_context(self.ca_file)


IMAP_ENV = {
    "host": "PBEM_IMAP_HOST", "port": "PBEM_IMAP_PORT", "security": "PBEM_IMAP_SECURITY", "username": "PBEM_IMAP_USER",
    "password": "PBEM_IMAP_PASSWORD", "password_file": "PBEM_IMAP_PASSWORD_FILE", "folder": "PBEM_IMAP_FOLDER",
    "ca_file": "PBEM_CA_FILE",
}
IMAP_KEYS = ("host", "port", "security", "username", "password_file", "folder", "after", "processed", "timeout",
             "ca_file", "batch", "max_bytes")


def load_imap_settings(config: str | None = None, **overrides) -> ImapSettings:
    """The [imap] table, then the environment, then `overrides` (None: not given)."""
    table, path = config_table("imap", config)
    s = ImapSettings()
    if "password" in table:
        raise PbemError(f"{path}: [imap] password: keep the IMAP password out of pbem.toml; put it in a file of its own "
                        "(password_file = \"~/.pbem-imap-password\", readable by you alone) or in PBEM_IMAP_PASSWORD")
    unknown = sorted(set(table) - set(IMAP_KEYS))
    if unknown:
        raise PbemError(f"{path}: [imap] has no setting {', '.join(unknown)} (known: {', '.join(IMAP_KEYS)})")
    check_types(table, path, "imap", numbers=("port", "timeout", "batch", "max_bytes"),
                strings=("host", "security", "username", "password_file", "folder", "after", "processed", "ca_file"))
    for key in IMAP_KEYS:
        if key in table:
            setattr(s, key, table[key])
    _over_the_file(s, IMAP_ENV, overrides)
    _numbers(s, path, "imap", IMAP_ENV, {"port": (_port, "port"), "timeout": (float, "timeout"),
                                         "batch": (lambda v: max(1, int(v)), "batch"),
                                         "max_bytes": (lambda v: max(1024, int(v)), "max_bytes")})
    s.security = str(s.security).lower()
    if s.security not in IMAP_SECURITIES:
        raise PbemError(f"[imap] security '{s.security}' is not one of {', '.join(IMAP_SECURITIES)}")
    s.after = str(s.after).lower()
    if s.after not in ("move", "flag"):
        raise PbemError(f"[imap] after '{s.after}' is not one of move, flag")
    if s.host and not s.password and s.password_file:
        s.password = read_password_file(s.password_file, "IMAP")
    return s

