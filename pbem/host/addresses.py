"""Email addresses pbem will write: `check_address` accepts exactly the addresses that can go
into a To header and an SMTP envelope as they are, and refuses the rest with a clean message.

Python's `email` package parses far more than it can write back: `.x@evil.org`,
`x.@evil.org`, `a..b@evil.org` (not a dot-atom), `ü@evil.org` (not ASCII: SMTPUTF8 is not
assumed of the GM's server) or a GM-registered `../x@b.org` parse on the way in, and then
stop every message behind them on the way out with InvalidHeaderDefect. So an address is
checked where it enters: when a player is registered (pbem.host.service.new_game) and when
mail is queued (pbem.host.outbox.clean_address); pbem.mail.send sets aside whatever still
fails, with its reason, and sends the rest.

What is accepted (RFC 5321/5322, the unquoted form every mail system handles):

- local part: a dot-atom -- one or more runs of letters, digits and ``!#$%&'*+/=?^_`{|}~-``
  separated by single dots, none at either end; at most 64 characters;
- domain: labels of letters, digits and hyphens (1 to 63 characters, no hyphen at either
  end) separated by single dots, with at least one dot (or exactly `localhost`); the last
  label not all digits; at most 253 characters;
- the whole address at most 254 characters. It is returned as written (the local part may
  be case-sensitive; addresses are compared case-insensitively elsewhere).

`clean_address` reads a header value ("Name <addr>", folded or not) down to the one bare
address in it, or None; pbem.host.outbox.clean_address is this function.
"""

from __future__ import annotations

import re

from pbem.core.errors import PbemError


class BadInput(PbemError, ValueError):
    """A value a user gave that pbem cannot use (here: an address it could not write)."""


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = re.compile(rf"{_ATOM}(?:\.{_ATOM})*")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def _show(value: str) -> str:
    text = "".join(c if c.isprintable() else "?" for c in value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_address(value: object) -> str:
    """The address (surrounding blanks dropped), or BadInput saying what is wrong with it."""
    text = str(value if value is not None else "").strip()
    shown = _show(text)
    if not text:
        raise BadInput("no email address given")
    if any(ord(c) > 126 for c in text):
        raise BadInput(f"'{shown}' is not an email address pbem can write: only ASCII letters, digits and "
                       "punctuation are allowed (no accented letters)")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in text):
        raise BadInput(f"'{shown}' is not an email address: it contains a space or a control character")
    if text.count("@") != 1:
        raise BadInput(f"'{shown}' is not an email address: it needs exactly one '@'")
    local, domain = text.split("@")
    if not local or not domain:
        raise BadInput(f"'{shown}' is not an email address: something is missing "
                       + ("before" if not local else "after") + " the '@'")
    if len(text) > 254 or len(local) > 64:
        raise BadInput(f"'{shown}' is too long for an email address")
    if not _LOCAL.fullmatch(local):
        if local.startswith(".") or local.endswith(".") or ".." in local:
            why = "its part before '@' may not start or end with a dot, nor have two dots in a row"
        else:
            why = "its part before '@' has a character mail cannot carry unquoted"
        raise BadInput(f"'{shown}' is not an email address pbem can write: {why}")
    labels = domain.split(".")
    if len(domain) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise BadInput(f"'{shown}' is not an email address: '{_show(domain)}' is not a domain name "
                       "(letters, digits and hyphens, separated by single dots)")
    if len(labels) < 2 and domain != "localhost":
        raise BadInput(f"'{shown}' is not an email address: the domain '{_show(domain)}' has no dot")
    if labels[-1].isdigit():
        raise BadInput(f"'{shown}' is not an email address: '{_show(domain)}' is not a domain name")
    return f"{local}@{domain}"


def is_writable(value: object) -> bool:
    try:
        check_address(value)
    except BadInput:
        return False
    return True


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u0085]+")


def clean_address(value: str | None) -> str | None:
    """The bare address (local@domain) in a From/To value, or None unless exactly one address
    in it passes `check_address`; a line break that is not header folding (an
    injection attempt) gives None too."""
    if not value:
        return None
    value = re.sub(r"\r?\n[ \t]+", " ", str(value))  # unfold a folded header
    if "\r" in value or "\n" in value:
        return None
    value = _CONTROL.sub(" ", value)
    # only here: the email package is slow to import
    from email.utils import getaddresses

    valid = {a.strip() for _, a in getaddresses([value]) if a.strip() and is_writable(a.strip())}
    return valid.pop() if len(valid) == 1 else None  # exactly one address, or none at all
