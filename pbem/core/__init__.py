"""The pure core: the engine, the order language, the RNG, turn orders, the hex grid, errors,
the game registry and the scenario runner. No I/O beyond reading the games' own data files;
no jinja2, sqlite_utils, email or network imports (an import-linter contract checks it)."""
