"""The unattended mail loop: fetch from IMAP, and `pbem run` (fetch, ingest, resolve, remind, send, publish)."""

from pbem.cli import app  # noqa: F401
