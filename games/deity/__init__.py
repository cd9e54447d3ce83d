"""The deity game package: `rules.py` holds its Rules class, the mechanics sit beside it (its docstring maps the rules text to them)."""
