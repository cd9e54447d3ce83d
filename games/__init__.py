"""The games: one package each, importing only pbem.core (an import-linter contract checks
it). Loaded by pbem.core.registry from wherever this folder is (a checkout, or the wheel)."""
