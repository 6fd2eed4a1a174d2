# Two entry points do all set-up on a fresh machine with Python 3.11:
#   make demo   -> creates .venv, installs scorekit, renders the release notebook on the
#                  bundled example into reports/demo/ (prints the decision and the report's path)
#   make test   -> creates .venv, installs scorekit[dev], runs ruff and mypy (configured in
#                  pyproject.toml; any finding fails) and then the whole suite, on every
#                  core (pytest-xdist, at most 4 workers)
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python

.PHONY: demo test bench clean

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found (set PYTHON=...)" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Stamp files re-run the install only when the build inputs change (the install
# also compiles the C helper scorekit/_speedups.c).
BUILD_INPUTS := pyproject.toml hatch_build.py scorekit/_speedups.c

$(VENV)/.installed: $(BUILD_INPUTS) | $(PY)
	$(PY) -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: $(BUILD_INPUTS) | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@ $(VENV)/.installed

# Executes notebooks/release_scorecard.ipynb (papermill) on the bundled example and
# exports it (nbconvert): reports/demo/release_scorecard.html, .md, .ipynb, and the
# library's scorecard.json/.md/.html and evidence.parquet.
demo: $(VENV)/.installed
	$(BIN)/scorekit demo --out-dir reports/demo

test: $(VENV)/.installed-dev
	$(BIN)/ruff check
	$(BIN)/mypy
	$(PY) -m pytest -n auto --maxprocesses=4

bench: $(VENV)/.installed-dev
	$(PY) benchmarks/bench_stats.py
	$(PY) benchmarks/bench_evaluate.py

clean:
	rm -rf $(VENV) build dist *.egg-info
