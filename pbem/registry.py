"""Where the game modules, their data and the templates live, and loading them.

In a wheel, `games/` and `templates/` are inside the package (`pbem/games`, `pbem/templates`);
in a source checkout they sit beside `pbem/`.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from functools import lru_cache
from pathlib import Path

from pbem.errors import DataError, NotFound

_PKG = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    for candidate in (_PKG / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise RuntimeError(f"pbem is installed without its {name}/ folder")


def games_dir() -> Path:
    return _find("games")


def templates_dir() -> Path:
    return _find("templates")


_extra: dict[str, object] = {}


def register(game_type: str, rules) -> None:
    """Register a Rules object under a game type that has no folder in games/ (benchmarks and
    tests use it for synthetic games); `pbem` itself only plays the games in games/."""
    _extra[game_type] = rules


def game_types() -> list[str]:
    return sorted(p.name for p in games_dir().iterdir() if (p / "rules.py").is_file())


def load_data(game_type: str) -> dict:
    path = games_dir() / game_type / "data.toml"
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as err:
        raise DataError(f"{path}: {err}") from err


@lru_cache(maxsize=None)
def get_rules(game_type: str):
    """The Rules object of a game type, its data loaded and validated."""
    if game_type in _extra:
        return _extra[game_type]
    if game_type not in game_types():
        raise NotFound(f"unknown game type '{game_type}'; known: {', '.join(game_types())}")
    module_name = f"pbem_games.{game_type.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(module_name, games_dir() / game_type / "rules.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module.RULES(load_data(game_type))


def order_doc(game_type: str) -> str:
    path = games_dir() / game_type / "ORDERS.md"
    return path.read_text(encoding="utf-8") if path.exists() else get_rules(game_type).order_help()
