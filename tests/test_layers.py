"""The layers of the README, as import-linter contracts (pyproject.toml), hold -- and fail
when broken. Each test copies the code into a temp folder, breaks one rule there, and runs
lint-imports on the copy: a contract that could not fail would be no contract."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = shutil.which("lint-imports", path=str(Path(sys.executable).parent))


def lint(where: Path) -> subprocess.CompletedProcess:
    assert LINT, "import-linter is not installed (it is a test dependency: pip install -e '.[test]')"
    return subprocess.run([LINT, "--no-cache"], cwd=where, capture_output=True, text=True, timeout=120)


@pytest.fixture
def copy(tmp_path):
    for name in ("pbem", "games"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "scenarios"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_tree_keeps_every_contract():
    r = lint(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout


def _break(copy: Path, module: str, line: str) -> None:
    path = copy / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


@pytest.mark.parametrize("module,line,contract", [
    ("pbem/host/service.py", "from pbem.render import reports", "Layers"),           # host reaching up to render
    ("pbem/render/html.py", "from pbem.mail import send", "Layers"),                 # render reaching up to mail
    ("pbem/site/publish.py", "from pbem.mail import ingest", "Layers"),              # the site and mail are siblings
    ("pbem/core/engine.py", "import jinja2", "The core is pure"),                     # an outer library in the core
    ("pbem/core/rng.py", "import sqlite3", "The core is pure"),
    ("games/gods/rules.py", "from pbem.host import store", "Games import only the core"),
    ("games/ohgods/rules.py", "from games.gods import rules as other", "Each game stands alone"),
])
def test_breaking_a_layer_fails_the_build(copy, module, line, contract):
    _break(copy, module, line)
    r = lint(copy)
    assert r.returncode != 0, r.stdout
    broken = [ln for ln in r.stdout.splitlines() if ln.endswith(" BROKEN")]
    assert any(ln.startswith(contract) for ln in broken), r.stdout
