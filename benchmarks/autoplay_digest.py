"""A digest of everything autoplay stores, to show that a change to the store path (issue 17)
changes no behaviour: every row of every table and every report file, after 3 seeded games of
each game type (as bench_engine's bench_autoplay plays them) and one more game whose players
have mail addresses (the outbox's report mail). Not a test: run it on two checkouts and compare.

    python benchmarks/autoplay_digest.py [CHECKOUT] [--verbose]

CHECKOUT (default: this one) is the source tree whose pbem is imported. Times, passwords and
message ids differ from run to run and are left out; so is turns/.pbem-checked (the ledger of
folder times). One line per game type and one for all.
"""

from __future__ import annotations

import hashlib
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_engine  # noqa: E402  (installs the report renderer)
from pbem import host  # noqa: E402
from pbem.core.registry import game_types, get_rules  # noqa: E402
from pbem.host.folders import LEDGER  # noqa: E402
from pbem.host.store import open_db  # noqa: E402

TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|\+00:00)?")


def _value(column: str, value) -> str:
    if "password" in column or column == "message_id":
        return "<varies>"
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        value = TIME.sub("<time>", value)
    return repr(value)


def digest(game_type: str) -> tuple[str, dict[str, int], int]:
    rules = get_rules(game_type)
    players = bench_engine._players_for(rules)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(str(Path(tmp) / "b.db"))
        turns = Path(tmp) / "turns"
        for s in range(3):
            host.new_game(db, game_type, f"g{s}", players, seed=str(s), turns=str(turns))
            host.autoplay(db, f"g{s}", turns=str(turns))
        host.new_game(db, game_type, "mail", [f"{p}:{p}@example.org" for p in players], seed="9", turns=str(turns),
                      passwords={p: "pw-" + p for p in players})
        host.autoplay(db, "mail", turns=str(turns))
        h = hashlib.sha256()
        counts = {}
        for (table,) in db.execute("select name from sqlite_master where type = 'table' order by name").fetchall():
            columns = [r[1] for r in db.execute(f"pragma table_info([{table}])").fetchall()]
            rows = db.execute(f"select * from [{table}] order by rowid").fetchall()
            for row in rows:
                h.update(("|".join([table, *(_value(c, v) for c, v in zip(columns, row))]) + "\n").encode())
            counts[table] = len(rows)
        files = sorted(p for p in turns.rglob("*") if p.is_file() and p.name != LEDGER)
        for p in files:
            h.update(str(p.relative_to(turns)).encode() + b"\0" + p.read_bytes() + b"\0")
        db.close()
    return h.hexdigest(), counts, len(files)


def main() -> None:
    verbose = "--verbose" in sys.argv
    total = hashlib.sha256()
    for game_type in game_types():
        d, counts, files = digest(game_type)
        total.update(d.encode())
        rows = {k: v for k, v in counts.items() if v} if verbose else sum(counts.values())
        print(f"{game_type:8} {d[:20]} files={files} rows={rows}")
    print(f"all      {total.hexdigest()[:20]}")


if __name__ == "__main__":
    main()
