"""Benchmark the CLI's start-up: the installed `pbem` console script, as users run it, beside
`python -c "import typer"` (the floor any Typer CLI pays) and `python -c pass`.

    python benchmarks/bench_startup.py            # 15 interleaved runs of each
    python benchmarks/bench_startup.py --runs 5

`pbem status` reads a store of 100 games. Each command is run in turn (interleaved, so a
burst of load elsewhere falls on all of them alike); min and median wall times are printed
with their ratio to `import typer`, beside the goals: `pbem --help` <= 1.3x, `pbem status`
<= 2x (issue 11). A benchmark, not a test: nothing fails on a slow machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem import host, render  # noqa: E402

render.install()

GOALS = {"pbem --help": 1.3, "pbem status": 2.0}


def _store(path: Path, games: int) -> None:
    db = host.open_db(str(path))
    for i in range(games):
        host.new_game(db, "gods", f"g{i:03d}", ["alice", "bob", "carol"], seed=str(i), turns=None)
    db.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--out", default=str(ROOT / "build" / "bench" / "startup.json"))
    args = ap.parse_args()
    py = sys.executable
    pbem = shutil.which("pbem", path=str(Path(py).parent)) or shutil.which("pbem")
    if not pbem:
        sys.exit("no installed `pbem` beside this Python: run `make venv` first")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "many.db"
        _store(db, args.games)
        # as an installed pbem runs: its modules compiled once and then read from bytecode (a
        # session that forbids writing bytecode would compile them again at every run)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PBEM_DB=str(db), PBEM_TURNS=str(Path(tmp) / "turns"))
        commands = {
            "python -c pass": [py, "-c", "pass"],
            "python -c 'import typer'": [py, "-c", "import typer"],
            "pbem --help": [pbem, "--help"],
            "pbem status": [pbem, "status"],
        }
        for cmd in commands.values():  # warm the page cache and the bytecode
            subprocess.run(cmd, check=True, capture_output=True, env=env)
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True, env=env)
                samples[name].append(time.perf_counter() - t0)
    typer_min = min(samples["python -c 'import typer'"])
    typer_med = statistics.median(samples["python -c 'import typer'"])
    rows = {}
    print(f"CLI start-up: {args.runs} interleaved runs each; `pbem status` on a store of {args.games} games")
    print(f"  {'command':28} {'min ms':>8} {'median ms':>10} {'min ratio':>10} {'median ratio':>13}  goal")
    for name, values in samples.items():
        lo, med = min(values), statistics.median(values)
        rows[name] = {"min_s": lo, "median_s": med, "min_ratio_to_typer": lo / typer_min, "median_ratio_to_typer": med / typer_med}
        goal = f"<= {GOALS[name]}x import typer" if name in GOALS else ""
        print(f"  {name:28} {lo * 1000:8.1f} {med * 1000:10.1f} {lo / typer_min:9.2f}x {med / typer_med:12.2f}x  {goal}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=2))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
