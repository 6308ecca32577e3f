# One verb per task. `make run` and `make test` set up everything they need on a fresh
# machine (.venv, Python deps, Node deps, Debian's chromium) and are fast when already set up.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: run test test-fast test-slow test-matrix bench gpu-check lint fmt typecheck frontend chromium screenshots clean help

help:
	@echo "make run         start the app on http://$(HOST):$(PORT) (CPU device by default; WORKERS=n processes)"
	@echo "make test        the whole test suite, browser tests included (not the slow-marked)"
	@echo "make test-slow   the slow-marked tests (e.g. /train playing for 5 minutes)"
	@echo "make test-matrix the suite under each forced CPU-feature configuration (slow, not CI)"
	@echo "make bench       engine vs PyTorch vs NumPy, and API latency (ratios, medians)"
	@echo "make gpu-check   on a GPU machine: CuPy parity and timings (bench/gpu_check.py)"
	@echo "make lint        ruff, mypy, tsc (also types.ts against /openapi.json), hadolint"
	@echo "make fmt         ruff format + autofix"
	@echo "make screenshots regenerate the screenshots in docs/ (and artifacts/screenshots/)"

# --- set-up ---------------------------------------------------------------------------------
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,dev]'
	@# PyTorch is only a test oracle: install it where it can be had, skip its tests elsewhere.
	$(PY) -m pip install -q 'torch==2.13.0' || echo "note: torch==2.13.0 not installable here; PyTorch oracle tests will be skipped"
	touch $@

venv: $(VENV)/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The page's tables made from the op table (server/page_tables.py), regenerated when the table
# may have changed; committed, so that npm alone builds the page (the Dockerfile's Node stage).
OPS_GEN := static/src/generated/ops.gen.ts
$(OPS_GEN): $(shell find engine -name '*.py') server/page_tables.py server/program/known.py | $(VENV)/.installed
	$(PY) -m server.page_tables

FRONTEND_SRC := $(shell find static/src -type f 2>/dev/null) $(OPS_GEN) package.json esbuild.config.mjs
static/dist/.built: node_modules/.installed $(FRONTEND_SRC)
	npm run --silent build
	touch $@

frontend: $(if $(wildcard package.json),static/dist/.built,)

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# --- verbs ----------------------------------------------------------------------------------
# WORKERS: server processes (default: one per core, at most 4; AGP_WORKERS).
run: venv frontend
	$(PY) -m server --host $(HOST) --port $(PORT) $(if $(WORKERS),--workers $(WORKERS),)

test: venv frontend chromium
	npm run --silent test
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

# The long versions (e.g. five minutes of live training in the browser); not in CI.
test-slow: venv frontend chromium
	$(PY) -m pytest -m slow $(PYTEST_ARGS)

test-fast: venv frontend
	npm run --silent test
	$(PY) -m pytest -m "not e2e and not slow" $(PYTEST_ARGS)

# The suite once per forced CPU-feature set (NumPy SIMD, OpenBLAS core, ATen, MKL): tests/matrix.py.
test-matrix: venv frontend chromium
	$(PY) -m tests.matrix $(if $(PYTEST_ARGS),-- $(PYTEST_ARGS),)

bench: venv
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m bench

# On a machine with a GPU and CuPy: op parity on cuda, the API on cuda, MLP timings.
gpu-check: venv
	$(PY) -m bench.gpu_check

lint: venv frontend
	$(VENV)/bin/ruff check engine recorder server tests bench
	$(VENV)/bin/ruff format --check engine recorder server tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/hadolint Dockerfile
	$(VENV)/bin/kubernetes-validate --strict --quiet deploy/*.yaml
	$(if $(wildcard package.json),npm run --silent typecheck,)
	$(PY) -m tests.e2e.openapi_types && npx tsc --noEmit -p static/contract/tsconfig.json

fmt: venv
	$(VENV)/bin/ruff format engine recorder server tests bench
	$(VENV)/bin/ruff check --fix engine recorder server tests bench

screenshots: venv frontend chromium
	$(PY) -m tests.e2e.screenshots
	$(PY) -m tests.e2e.train_screenshots
	$(PY) -m tests.e2e.big_graph_screenshots

clean:
	rm -rf $(VENV) node_modules static/dist .pytest_cache .mypy_cache .ruff_cache
