# Everything a fresh machine needs: `make run` and `make test` create the virtual
# environment and install the project on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test lint format bench demo clean system-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,embedded]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/agentium run

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# bubblewrap sandboxes the agents' commands; the tests exercise it when it is installed.
system-deps:
	@command -v bwrap >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; } ; } || \
	  echo "make: bubblewrap not installed; agent commands will run without the sandbox"

test: lint system-deps
	$(BIN)/python -m pytest

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Receiver load, prompt-context growth and GitHub requests per task; prints the figures.
bench: $(STAMP)
	$(BIN)/python -m bench.receiver
	$(BIN)/python -m bench.context
	$(BIN)/python -m bench.github_requests

# Offline: the real processes against fake GitHub and Anthropic servers, two issues.
demo: $(STAMP)
	$(BIN)/python -m tests.e2e.demo

clean:
	rm -rf $(VENV) .data .mypy_cache .ruff_cache .pytest_cache
