#!/usr/bin/env bash
# Prove that a plain (non-editable) install of the wheel works: build the wheel, install it
# into a fresh virtualenv in a temporary folder, and from a folder outside the repository
# run `pbem rules gods` and a short game (new, autoplay, replay --verify). The game data
# (games/) and the templates (templates/) must come from inside the installed wheel.
#
# Usage: scripts/wheel_check.sh [PYTHON]      (called by `make wheel-check`)
set -euo pipefail

PYTHON=${1:-python3}
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pbem-wheel-check.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "wheel-check: FAILED: $*" >&2; exit 1; }
step() { echo "== $*"; }

# Nothing from the checkout or the caller's store may leak into the installed program.
unset PYTHONPATH PBEM_DB PBEM_TURNS PBEM_NOW PBEM_DEBUG VIRTUAL_ENV || true

step "building the wheel with $PYTHON"
# A normal, isolated build fetches the build backend (hatchling) from the package index.
# Where that is not possible but hatchling is already installed, build without isolation.
if ! "$PYTHON" -m pip wheel -q --no-deps -w "$WORK/dist" "$REPO" >"$WORK/build.log" 2>&1; then
    if "$PYTHON" -c "import hatchling" 2>/dev/null; then
        echo "   (isolated build failed; building with the installed hatchling)"
        "$PYTHON" -m pip wheel -q --no-deps --no-build-isolation -w "$WORK/dist" "$REPO" \
            >>"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; fail "pip wheel"; }
    else
        cat "$WORK/build.log" >&2
        fail "pip wheel"
    fi
fi
WHEEL=$(ls "$WORK"/dist/pbem-*.whl 2>/dev/null | head -1)
[ -n "$WHEEL" ] || fail "no pbem wheel was built"
echo "   $(basename "$WHEEL")"

step "checking the wheel holds the game data and the templates"
"$PYTHON" - "$WHEEL" <<'EOF' || fail "the wheel is missing files"
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = [
    "pbem/cli/__init__.py",
    "pbem/games/gods/rules.py",
    "pbem/games/gods/data.toml",
    "pbem/games/gods/ORDERS.md",
    "pbem/templates/events.j2",
    "pbem/templates/deity/orders.txt.j2",
    "pbem/templates/site/index.html.j2",
    "pbem/host/wordlist.txt",
]
missing = [n for n in need if n not in names]
for n in missing:
    print(f"   missing from the wheel: {n}", file=sys.stderr)
sys.exit(1 if missing else 0)
EOF

step "installing it (not editable) into a fresh virtualenv"
"$PYTHON" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check "$WHEEL" >"$WORK/install.log" 2>&1 \
    || { cat "$WORK/install.log" >&2; fail "pip install of the wheel"; }
PBEM="$WORK/venv/bin/pbem"
[ -x "$PBEM" ] || fail "the wheel installed no pbem command"

PLAY="$WORK/play"
mkdir -p "$PLAY"
cd "$PLAY"
case "$PLAY" in "$REPO"*) fail "the play folder is inside the repository";; esac

step "the installed package is the wheel's, with its data inside it"
"$WORK/venv/bin/python" - "$WORK/venv" "$REPO" <<'EOF' || fail "pbem is not running from the installed wheel"
import sys
from pathlib import Path
import pbem
from pbem.core import registry
venv, repo = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
for what in (Path(pbem.__file__), registry.games_dir(), registry.templates_dir()):
    what = what.resolve()
    print(f"   {what}")
    assert venv in what.parents, f"{what} is not inside the fresh virtualenv"
    assert repo not in what.parents, f"{what} comes from the repository"
assert "gods" in registry.game_types()
EOF

step "pbem rules gods"
"$PBEM" rules gods >"$WORK/rules.txt" || fail "pbem rules gods"
grep -q "tribe" "$WORK/rules.txt" || fail "pbem rules gods printed no order documentation"

step "a short game: new, autoplay, replay --verify"
"$PBEM" new gods wheel-1 --player athena --player odin --player ra --seed 2026 >"$WORK/new.txt" \
    || { cat "$WORK/new.txt"; fail "pbem new"; }
[ -f pbem.db ] || fail "pbem new did not create ./pbem.db"
[ -f turns/wheel-1/1/reports/public.txt ] || fail "pbem new wrote no turn 1 reports"
"$PBEM" autoplay wheel-1 --max-phases 6 || fail "pbem autoplay --max-phases"
"$PBEM" autoplay wheel-1 || fail "pbem autoplay"
"$PBEM" status wheel-1 --json >"$WORK/status.json" || fail "pbem status"
"$WORK/venv/bin/python" - "$WORK/status.json" <<'EOF' || fail "the game did not finish"
import json, sys
(game,) = json.load(open(sys.argv[1]))["games"]
assert game["status"] == "finished", game
assert game["winners"], game
print(f"   finished at turn {game['turn'] - 1}; winners {', '.join(game['winners'])}; scores {game['scores']}")
EOF
"$PBEM" replay wheel-1 --verify || fail "pbem replay --verify"
last=$(ls turns/wheel-1 | sort -n | tail -1)
grep -q "The game is over" "turns/wheel-1/$last/reports/public.txt" || fail "no final report on disk"

echo "wheel-check: OK"
