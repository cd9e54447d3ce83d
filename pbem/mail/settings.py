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
}
FILE_KEYS = {
    "host": "smtp_host", "port": "smtp_port", "security": "security", "username": "username",
    "password": "password", "sender": "from", "reply_to": "reply_to", "timeout": "timeout",
    "retries": "retries", "backoff": "backoff",
}


def config_path(explicit: str | None = None) -> Path | None:
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise PbemError(f"no config file '{explicit}'")
        return path
    path = Path(os.environ.get("PBEM_CONFIG") or "pbem.toml")
    return path if path.is_file() else None


def load_settings(config: str | None = None, **overrides) -> MailSettings:
    """Settings from pbem.toml's [mail] table, then the environment, then `overrides`
    (command-line options; None means not given)."""
    s = MailSettings()
    path = config_path(config)
    if path:
        try:
            with path.open("rb") as fh:
                table = tomllib.load(fh).get("mail", {})
        except (tomllib.TOMLDecodeError, OSError) as err:
            raise PbemError(f"{path}: {err}") from None
        for attr, key in FILE_KEYS.items():
            if key in table:
                setattr(s, attr, table[key])
    for attr, var in ENV.items():
        if os.environ.get(var):
            setattr(s, attr, os.environ[var])
    for attr, value in overrides.items():
        if value is not None:
            setattr(s, attr, value)
    try:
        s.port = int(s.port) if s.port not in (None, "") else None
        s.timeout = float(s.timeout)
        s.retries = max(0, int(s.retries))
        s.backoff = max(0.0, float(s.backoff))
    except (TypeError, ValueError) as err:
        raise PbemError(f"mail settings: {err}") from None
    s.security = str(s.security).lower()
    if s.security not in SECURITIES:
        raise PbemError(f"security '{s.security}' is not one of {', '.join(SECURITIES)}")
    return s


