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

.PHONY: help install generate check-generated lint checks test coverage contract serve demo bench clean

help: ## Show the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

# The console's browser tests drive Debian's headless Chromium with selenium, installed without
# trio and trio-websocket, which only its async DevTools client uses (the tests speak WebDriver):
# httpcore imports trio wherever it is installed, and that was 120 ms of CPU in each of the
# several hundred Python processes a test run starts. The rest of what selenium needs is pinned
# in the dev extra.
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
# than computing (on 2 cores the suite took 3 min 30 s with four workers, 4 min 30 s with two). An
# idle worker takes queued tests from a busy one, so the long tests, which the suite starts first
# (tests/conftest.py), do not leave one worker running alone at the end.
WORKERS ?= $(shell echo $$(( 2 * $$(nproc) )))
# Every worker imports the whole suite, and the tests start many more Python processes (servers,
# the CLI, pytest and README runs). Where the environment turns bytecode caching off
# (PYTHONDONTWRITEBYTECODE), each of them compiled sdk/, server/ and generated/ again, and each
# worker rewrote the asserts of every test module again: 12 s of a worker's 18 s of collection.
# The bytecode goes beside the sources (git ignores __pycache__/), where pip already compiled the
# installed packages: a cache elsewhere (PYTHONPYCACHEPREFIX) made the first processes of a fresh
# checkout compile all of those again, each worker at once (a cold collection: 15-16 s of CPU
# against 9-12 s). The project's own are compiled once before the workers start.
TEST_ENVIRONMENT := env -u PYTHONDONTWRITEBYTECODE
PYTEST := $(TEST_ENVIRONMENT) $(BIN)/python -m pytest -n $(WORKERS) --dist worksteal
WARM_BYTECODE := $(TEST_ENVIRONMENT) $(BIN)/python -m compileall -q -j 0 sdk server generated
# Line and branch coverage of sdk/ and server/ (pyproject.toml), the `python -m server` processes
# the tests start included; below the floor the run fails.
COVERAGE := --cov --cov-report=term

checks: check-generated lint ## The generated code check and lint, one after the other

# The checks run beside the suite rather than before it, at the lowest CPU priority: the suite
# leaves a core idle about a sixth of its time (waiting on its processes), and the checks' 13 s of
# CPU fit into those gaps instead of adding 20 s before the first test. Their output is kept and
# printed after the suite's; either failing fails `make test`. `make checks` runs them alone.
test: $(STAMP) ## Everything CI runs: generated code check, lint, and the suite with its coverage floor
	$(WARM_BYTECODE)
	checks_log="$$(mktemp)"; trap 'rm -f "$$checks_log"' EXIT; \
	nice -n 19 $(MAKE) --no-print-directory checks >"$$checks_log" 2>&1 & \
	suite=0; $(PYTEST) $(COVERAGE) || suite=$$?; \
	checks=0; wait $$! || checks=$$?; \
	cat "$$checks_log"; \
	exit $$(( suite != 0 ? suite : checks ))

coverage: $(STAMP) ## The suite with coverage, as `make test` runs it, and the report in .coverage-html/
	$(WARM_BYTECODE)
	$(PYTEST) $(COVERAGE) --cov-report=html:.coverage-html

contract: $(STAMP) ## The contract tests at 100 examples per operation, on SQLite and Redis
	SPOOL_CONTRACT_EXAMPLES=100 $(PYTEST) tests/server/test_contract.py tests/server/test_independent_contract.py

serve: $(STAMP) ## Run the reference service on the embedded SQLite store
	$(BIN)/python -m server

demo: $(STAMP) ## A short tour of the SDK against the embedded service
	$(BIN)/python demo.py

bench: $(STAMP) ## Benchmarks that print ratios measured side by side
	$(BIN)/python -m bench

clean: ## Remove the virtual environment and caches
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
