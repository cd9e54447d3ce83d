"""Helpers shared by the CLI-level GODS test files (bad input, store, deadlines and NMR)."""

from __future__ import annotations

import random
import re

from pbem import host
from pbem.core.registry import get_rules


def passwords(output: str) -> dict[str, str]:
    """{player: password} from the output of `pbem new`."""
    return dict(re.findall(r"seat \d+: (\S+)\s+password (\S+)", output))


def new_game(cli, game_id: str = "g1", players=("alice", "bob"), seed: str = "1") -> dict[str, str]:
    """`pbem new gods GAME_ID --seed SEED --player ...` through the CLI; {player: password}."""
    args = ["new", "gods", game_id, "--seed", seed]
    for p in players:
        args += ["--player", p]
    r = cli(*args)
    assert r.exit_code == 0, r.output
    return passwords(r.stdout)


def state(db, game_id: str = "g1") -> dict:
    return host.current_state(db, game_id)


def legal_lines(db, player: str, game_id: str = "g1", seed: int = 0) -> list[str]:
    """A legal order script for `player` in the current position (the bot's choice)."""
    return host.bot_script(get_rules("gods"), state(db, game_id), player, random.Random(seed))


def text(player: str, password: str | None, lines, game_id: str = "g1") -> str:
    head = [f"GAME {game_id}", f"PLAYER {player}"] + ([f"PASSWORD {password}"] if password else [])
    return "\n".join(head + list(lines)) + "\n"
