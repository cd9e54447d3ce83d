"""Regenerate the shipped demo games' order files under turns/ (a developer's tool).

For each demo game: create it in a scratch store with its fixed seed, let the bots play,
and write every turn's orders as turns/GAME/TURN/PLAYER.txt, as a GM would receive them.
`make demo` then replays those files through the real CLI.

    python scripts/make_demo.py [GAME_ID...]
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem import host, render  # noqa: E402
from pbem.core import engine  # noqa: E402
from pbem.core.registry import get_rules  # noqa: E402
from pbem.host.store import open_db  # noqa: E402

render.install()

DEMOS = [
    # (game type, game id, players, seed[, game options])
    ("gods", "demo", ["athena", "odin", "ra"], "2026"),
    ("ohgods", "demo-ohgods", ["delphi", "karnak", "uppsala"], "2026"),
    ("deity", "demo-deity", ["zeus", "isis", "thor"], "2026", {"rounds": "12"}),
    ("yegods", "demo-yegods", ["jupiter", "odin", "lugus"], "2031"),
    ("faith", "demo-faith", ["moses", "zarathustra", "hammurabi"], "2026"),
]


def make(game_type: str, game_id: str, players: list[str], seed: str, options: dict | None = None) -> int:
    out = ROOT / "turns" / game_id
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(str(Path(tmp) / "demo.db"))
        host.new_game(db, game_type, game_id, players, seed=seed, options=options, turns=None)
        rules = get_rules(game_type)
        turns = 0
        while db["games"].get(game_id)["status"] == "running":
            number = db["games"].get(game_id)["phase"]
            state = host.current_state(db, game_id)
            for player in engine.active_players(rules, state):
                rng = random.Random(f"{seed}/demo/{number}/{player}")
                lines = host.bot_script(rules, state, player, rng)
                text = "\n".join([f"GAME {game_id}", f"PLAYER {player}", f"# {player}'s orders for turn {number}", *lines, "END", ""])
                folder = out / str(number)
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{player}.txt").write_text(text, encoding="utf-8")
            host.resolve(db, [game_id], turns=ROOT / "turns", max_phases=1)
            turns += 1
        for folder in out.glob("*/reports"):
            shutil.rmtree(folder)
    return turns


if __name__ == "__main__":
    wanted = sys.argv[1:]  # game ids to regenerate (default: every demo)
    unknown = set(wanted) - {spec[1] for spec in DEMOS}
    if unknown:
        sys.exit(f"unknown demo game(s): {', '.join(sorted(unknown))}; known: {', '.join(spec[1] for spec in DEMOS)}")
    for spec in DEMOS:
        if not wanted or spec[1] in wanted:
            print(f"{spec[1]}: {make(*spec)} turns written")
