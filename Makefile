# The two commands of the README: `make run` (set up, index the sample documents, search)
# and `make test` (set up, lint, run the tests). Setup installs the CPU build of torch
# first, then hierdoc with every extra the tests use, into .venv (once, again when
# pyproject.toml changes).

VENV ?= .venv
PYTHON ?= python3
DATASETS ?= ../shared/datasets
QUERY ?= right to be forgotten
BIN := $(VENV)/bin

.PHONY: setup run test

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[local,llm,dev,postgres]'
	touch $@

run: setup
	$(BIN)/hierdoc ingest $(DATASETS)/pdf/ $(DATASETS)/gdpr/gdpr.md
	$(BIN)/hierdoc search "$(QUERY)"

test: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -q
