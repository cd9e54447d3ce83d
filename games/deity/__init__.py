"""The deity game package: `rules.py` holds its Rules class (see its docstring)."""
