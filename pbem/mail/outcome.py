"""What became of each message `pbem ingest` read, and the settings one run shares."""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.core.words import plural

MAX_MESSAGE_BYTES = 10 * 1024 * 1024  # larger messages are rejected unread, but kept whole


@dataclass
class Outcome:
    origin: str
    outcome: str  # accepted | rejected | ignored | seen
    reason: str
    game_id: str | None = None
    player: str | None = None
    inbox_id: int | None = None
    submission_id: int | None = None
    outbox_id: int | None = None
    authenticated: bool = False  # the password (or JOIN's, OBSERVE's code) was right: never held back by the reply cap
    confirm_failed: bool = False  # a JOIN or OBSERVE confirmation code was wrong: counted in the reply cap (pbem.mail.guard)

    def line(self) -> str:
        who = f" {self.game_id}" + (f"/{self.player}" if self.player else "") if self.game_id else ""
        return f"{self.outcome:8} {self.origin}{who}: {self.reason}"


@dataclass
class Tally:
    results: list[Outcome] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def new(self) -> list[Outcome]:
        return [r for r in self.results if r.outcome != "seen"]

    def summary(self) -> str:
        return (
            f"{plural(len(self.new), 'new message')}: {self.count('accepted')} accepted, {self.count('rejected')} rejected, "
            f"{self.count('ignored')} ignored; {self.count('seen')} already ingested"
        )


@dataclass
class Context:
    own: str | None
    max_bytes: int = MAX_MESSAGE_BYTES
    # where report files go when a message opens a turn (a JOIN that fills a game starts it);
    # None: PBEM_TURNS, else ./turns
    turns: str | None = None
    # issue 17: games and players rows read in the transaction under way, kept while no message
    # has changed them (pbem.mail.commands.dispatch empties it before a mail command runs;
    # ingest when it begins a transaction). None: each message reads them
    rows: dict | None = None
    # issue 17: the id the next inbox row gets, while `rows` is kept (ingest: one transaction
    # at a time, and only ingest writes inbox rows); None: read from the store
    next_inbox: int | None = None
