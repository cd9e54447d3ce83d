"""pbem: a play-by-email adjudicator for god-themed board games."""

__version__ = "0.1.0"
