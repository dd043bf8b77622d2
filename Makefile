# The two commands of the README: `make run` (set up, index the sample documents in
# samples/documents, search them) and `make test` (set up, lint, run the tests). Setup
# installs the CPU build of torch first, then hierdoc with every extra the tests use, into
# .venv (once, again when pyproject.toml changes).
#
# The benchmark corpora that some tests and every script in benchmarks/ read are found
# through HIERDOC_DATASETS (default: ../shared/datasets beside the repository, see
# hierdoc.eval.datasets.default_datasets); make passes it on from the environment or
# from its command line: `make test HIERDOC_DATASETS=/path`.

VENV ?= .venv
PYTHON ?= python3
SAMPLES ?= samples/documents
QUERY ?= can a bank share account numbers for marketing
BIN := $(VENV)/bin

.PHONY: setup run test test-quick

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[local,llm,dev,postgres]'
	touch $@

run: setup
	$(BIN)/hierdoc ingest $(SAMPLES)/
	$(BIN)/hierdoc search "$(QUERY)" --top-k 3

test: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -q

test-quick: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -q tests/unit tests/contract -m "not slow and not postgres"
