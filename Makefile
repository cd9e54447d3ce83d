# pbem -- the usual helpers. `make demo` and `make test` are the README's quick start.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
DEMO_DB := build/demo.db

.PHONY: venv demo test lint-imports browser dovecot bench clean wheel-check

$(BIN)/pbem: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(BIN)/pbem

venv: $(BIN)/pbem

## demo: set up and play the shipped demo games through the real CLI; reports stay on disk
demo: venv
	bash scripts/demo.sh $(BIN)/pbem $(DEMO_DB)

## test: the layer contracts, then the whole test suite in parallel (slowest tests listed last)
test: venv browser dovecot lint-imports
	$(BIN)/python -m pytest -n auto --durations=15

## lint-imports: the layers of the README (contracts in pyproject.toml), checked by import-linter
lint-imports: venv
	$(BIN)/lint-imports --no-cache

## browser: headless Chromium for the site's browser tests (installed when run as root)
browser:
	@bash scripts/need_chromium.sh

## dovecot: Dovecot for the IMAP tests of the mail loop (installed when run as root; each test run starts its own)
dovecot:
	@bash scripts/need_dovecot.sh

## wheel-check: a plain (non-editable) install of the wheel works with its data
wheel-check: venv
	bash scripts/wheel_check.sh $(PYTHON)

## bench: benchmarks (not tests); each prints the figures it measured
bench: venv
	mkdir -p build/bench
	$(BIN)/python benchmarks/bench_startup.py | tee build/bench/startup.txt
	$(BIN)/python benchmarks/bench_engine.py | tee build/bench/engine.txt
	$(BIN)/python benchmarks/bench_host.py | tee build/bench/host.txt
	$(BIN)/python benchmarks/bench_ingest.py
	$(BIN)/python benchmarks/bench_site.py
	$(BIN)/python benchmarks/bench_faith.py | tee build/bench/faith.txt

clean:
	rm -rf build dist $(VENV) .pytest_cache .hypothesis .import_linter_cache
	find turns -type d -name reports -prune -exec rm -rf {} +
