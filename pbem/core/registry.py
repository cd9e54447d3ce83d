"""Where the game modules, their data and the templates live, and loading them.

In a wheel, `games/` and `templates/` are inside the package (`pbem/games`, `pbem/templates`);
in a source checkout they sit beside `pbem/`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import tomllib
import types
from functools import lru_cache
from pathlib import Path

from pbem.core import citations
from pbem.core.errors import DataError, NotFound

_PKG = Path(__file__).resolve().parent.parent  # the pbem package


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


def load_module(game_type: str):
    """A game's rules module. Each game is a package (`games/TYPE/__init__.py`, its Rules class
    in `rules.py`, mechanics beside it, imported relatively), loaded as `pbem_games.TYPE` from
    wherever the games folder is (a checkout, or inside the wheel)."""
    package = f"pbem_games.{game_type.replace('-', '_')}"
    if package + ".rules" in sys.modules:
        return sys.modules[package + ".rules"]
    if "pbem_games" not in sys.modules:  # the parent of every game package (`from . import x` needs it)
        parent = types.ModuleType("pbem_games", "The game packages, loaded by pbem.core.registry.")
        parent.__path__ = []
        sys.modules["pbem_games"] = parent
    folder = games_dir() / game_type
    spec = importlib.util.spec_from_file_location(package, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return importlib.import_module(package + ".rules")


@lru_cache(maxsize=None)
def get_rules(game_type: str):
    """The Rules object of a game type, its data loaded and validated."""
    if game_type in _extra:
        return _extra[game_type]
    if game_type not in game_types():
        raise NotFound(f"unknown game type '{game_type}'; known: {', '.join(game_types())}")
    data = load_data(game_type)
    citations.validate(data, f"{game_type}/data.toml")  # issue 18: the map from rulings to the rules text
    return load_module(game_type).RULES(data)


def order_doc(game_type: str) -> str:
    path = games_dir() / game_type / "ORDERS.md"
    return path.read_text(encoding="utf-8") if path.exists() else get_rules(game_type).order_help()
