"""Loading the games: each is a package (games/TYPE/), its mechanics beside rules.py, imported
relatively in either form."""

from __future__ import annotations

import sys

from pbem.core import registry


def test_a_game_package_loads_with_relative_imports_of_both_forms(tmp_path, monkeypatch):
    pkg = tmp_path / "games" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""A toy game."""\n')
    (pkg / "dice.py").write_text("SIDES = 6\n")
    (pkg / "board.py").write_text("from .dice import SIDES\nCELLS = SIDES * 2\n")
    (pkg / "rules.py").write_text("from . import board\nfrom .dice import SIDES\nRULES = (board.CELLS, SIDES)\n")
    monkeypatch.setattr(registry, "games_dir", lambda: tmp_path / "games")
    for name in [m for m in sys.modules if m.startswith("pbem_games.toy")]:
        monkeypatch.delitem(sys.modules, name)
    module = registry.load_module("toy")
    assert module.RULES == (12, 6)
    assert module.__name__ == "pbem_games.toy.rules"
    assert registry.load_module("toy") is module  # loaded once


def test_every_shipped_game_is_a_package_with_rules():
    for game_type in registry.game_types():
        assert (registry.games_dir() / game_type / "__init__.py").is_file()
        assert hasattr(registry.load_module(game_type), "RULES")
