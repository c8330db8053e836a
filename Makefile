# Two commands do all the set-up on a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-fast lint bench notebooks clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet --no-deps 'pycanon>=1.3.6'  # test reference; it pins old numpy/pandas
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/streamlit run app.py --server.address localhost --server.headless true --server.fileWatcherType none \
		--browser.gatherUsageStats false

# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE): pytest keeps the test
# modules it rewrote for their asserts, so a second run collects in 7 s instead of 16.
PYTEST := $(BIN)/python -m pytest
export PYTHONDONTWRITEBYTECODE :=

# tests/_pg_cluster.py runs the suite beside a throwaway PostgreSQL when one is installed (the register's tests).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python tests/_pg_cluster.py -- $(PYTEST) -q -n 2 --dist worksteal --durations=25

# The library's unit and property tests: no app, browser, notebook, published study or scale test (tests/conftest.py).
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(PYTEST) -q -n 2 --dist worksteal -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python tests/benchmarks/bench_lattice.py

notebooks: $(STAMP)  # execute notebooks/ again, outputs fresh (tests/test_notebooks.py compares them)
	$(BIN)/python -m tests.test_notebooks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
