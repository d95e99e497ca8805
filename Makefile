# Everything a fresh machine needs: `make run` and `make test` create the virtual
# environment and install the project on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test lint format bench demo eval eval-real clean system-deps sandbox-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,embedded]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

run: $(STAMP) sandbox-deps
	$(BIN)/agentium run

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Debian packages: bubblewrap and util-linux (prlimit, setpriv) for the agents' sandbox,
# without which a worker refuses to start, and chromium for the dashboard seen in a real
# browser. Installed when missing and we are root; otherwise `make run` says what to
# install and the tests that need them skip.
SANDBOX_PACKAGES := bwrap:bubblewrap prlimit:util-linux setpriv:util-linux
SYSTEM_PACKAGES := $(SANDBOX_PACKAGES) chromium:chromium
define install_missing
	@missing=""; for pair in $(1); do \
	  command -v $${pair%%:*} >/dev/null || missing="$$missing $${pair##*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing \
	      >/dev/null || echo "make: could not install$$missing"; \
	  else echo "make: not installed:$$missing"; fi; fi
endef

sandbox-deps:
	$(call install_missing,$(SANDBOX_PACKAGES))

system-deps:
	$(call install_missing,$(SYSTEM_PACKAGES))

test: lint system-deps
	$(BIN)/python -m pytest

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Receiver load, tasks under load, prompt context (cache reads per role, a 60-step run's
# size per call), GitHub requests per task, a task's footprint and the bot's CPU per call,
# the environment step's time per corpus repository, waves (subtasks at once on 4 workers)
# and the soak (minute-long model calls; ~6 min).
bench: $(STAMP)
	$(BIN)/python -m bench.receiver
	$(BIN)/python -m bench.tasks
	$(BIN)/python -m bench.context
	$(BIN)/python -m bench.github_requests
	$(BIN)/python -m bench.footprint
	$(BIN)/python -m bench.environments
	$(BIN)/python -m bench.waves
	$(BIN)/python -m bench.soak

# Offline: the real processes against fake GitHub and Anthropic servers, two issues.
demo: $(STAMP)
	$(BIN)/python -m tests.e2e.demo

# The shipped suite (tests/corpus/eval/, 8 tasks) through `agentium eval`, offline: the real
# workers, controller, agents' prompts and tools, sandbox, environment step and grading,
# with a scripted model whose workers write each task's reference fix (tests/eval/scripted.py):
# it must grade 100 % (EVAL_ARGS=--unchanged: workers that change no code, 0 %). A couple
# of minutes; no key, no network. Each task's folder gets agents-saw.md, every prompt.
EVAL_WORKERS ?= 2
EVAL_ARGS ?=
eval: $(STAMP) sandbox-deps
	$(BIN)/python -m tests.eval.scripted --workers $(EVAL_WORKERS) $(EVAL_ARGS)

# The same suite with the real model: the user's key, the user's money (the tasks' setup
# needs the package index). Without a key it says so.
eval-real: $(STAMP) sandbox-deps
	@if [ -z "$$ANTHROPIC_API_KEY" ] && ! grep -qs '^ANTHROPIC_API_KEY=.' .env; then \
	  echo "make eval-real: ANTHROPIC_API_KEY is not set (environment or .env): the suite"; \
	  echo "runs the real agents, so it needs a key (or ANTHROPIC_BASE_URL of a compatible"; \
	  echo "API). Offline, with a scripted model: make eval"; \
	  exit 2; fi
	$(BIN)/agentium eval tests/corpus/eval/corpus-repos.jsonl --workers $(EVAL_WORKERS) --out eval-results.json

clean:
	rm -rf $(VENV) .data .mypy_cache .ruff_cache .pytest_cache
