# Spool's developer commands. Every target that needs the virtual environment makes it first, so a
# fresh clone needs only `make test` (or `make demo`).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SPECTRAL_VERSION := 6.16.3
SPECTRAL_DIR := $(VENV)/spectral
SPECTRAL := $(SPECTRAL_DIR)/node_modules/.bin/spectral

.PHONY: help install generate check-generated spec-diff lint checks test coverage contract serve demo bench clean

help: ## Show the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

# The console's browser tests drive Debian's headless Chromium with selenium, installed without
# trio and trio-websocket, which only its async DevTools client uses (the tests speak WebDriver):
# httpcore imports trio wherever it is installed, a cost every one of the many Python processes a
# test run starts would pay. The rest of what selenium needs is pinned in the dev extra.
SELENIUM := selenium==4.51.0

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps '$(SELENIUM)'
	touch $@

install: $(STAMP) ## Create .venv and install the pinned dependencies

generate: $(STAMP) ## Regenerate generated/ from openapi.yaml
	PATH="$(CURDIR)/$(BIN):$$PATH" ./.ci/generate

check-generated: $(STAMP) ## Fail with a diff when generated/ differs from a fresh generation
	PATH="$(CURDIR)/$(BIN):$$PATH" ./.ci/check-generated

# BASE is a git ref; without it the base is the last document of the previous info.version
# (.ci/spec_diff.py says why and what breaks).
spec-diff: $(STAMP) ## Classify openapi.yaml's changes since BASE; fail when info.version's bump is too small
	$(BIN)/python .ci/spec_diff.py $(if $(BASE),--base '$(BASE)')

$(SPECTRAL):
	mkdir -p $(SPECTRAL_DIR)
	npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix $(SPECTRAL_DIR) @stoplight/spectral-cli@$(SPECTRAL_VERSION) >/dev/null

lint: $(STAMP) $(SPECTRAL) ## ruff, mypy --strict, Spectral on openapi.yaml, luacheck on the Lua
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(SPECTRAL) lint --ruleset .spectral.yaml --fail-severity warn openapi.yaml
	$(BIN)/python .ci/luacheck.py

# Two workers per core: most tests spend their time waiting on servers, sockets and timers rather
# than computing, so one worker per core leaves the cores idle. With xdist's work stealing a worker
# that runs out of tests takes queued ones from a busy worker, so the few long tests (the
# independent schemathesis runs) do not leave one worker running alone at the end, as they can
# with `--dist load`.
WORKERS ?= $(shell echo $$(( 2 * $$(nproc) )))
# Python processes keep their bytecode beside the sources (git ignores __pycache__/) even where the
# environment turns caching off: otherwise every worker and every process the tests start compiles
# sdk/, server/ and generated/ again, and every worker rewrites the asserts of every test module.
TEST_ENVIRONMENT := env -u PYTHONDONTWRITEBYTECODE
# The slowest tests are listed at the end of each run, so a test that grew slow shows in CI's log.
PYTEST := $(TEST_ENVIRONMENT) $(BIN)/python -m pytest -n $(WORKERS) --dist worksteal --durations=25
# Line and branch coverage of sdk/ and server/, the processes the tests start included
# (pyproject.toml's [tool.coverage.*]); below the floor the run fails.
COVERAGE := --cov --cov-report=term

checks: check-generated spec-diff lint ## The generated code check, the spec's version check and lint, in turn

test: $(STAMP) checks ## Everything CI runs: make checks, then the suite with its coverage floor
	$(PYTEST) $(COVERAGE)

coverage: $(STAMP) ## The suite with coverage, as `make test` runs it, and the report in .coverage-html/
	$(PYTEST) $(COVERAGE) --cov-report=html:.coverage-html

contract: $(STAMP) ## The contract tests at 100 examples per operation, on SQLite and Redis
	SPOOL_CONTRACT_EXAMPLES=100 $(PYTEST) tests/server/test_contract.py tests/server/test_independent_contract.py

serve: $(STAMP) ## Run the reference service on the embedded SQLite store
	$(BIN)/python -m server

demo: $(STAMP) ## A short tour of the SDK against the embedded service
	$(BIN)/python demo.py

# `make bench BENCH="http client"` runs only the named benchmarks; `make bench BENCH=peers` runs
# Spool beside other job queues, which only runs when named (it makes virtualenvs of its own).
BENCH ?=
bench: $(STAMP) ## Benchmarks that print ratios measured side by side (BENCH=peers: beside other job queues)
	$(BIN)/python -m bench $(BENCH)

clean: ## Remove the virtual environment and caches
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
