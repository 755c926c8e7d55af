# The two commands of the README:
#   make demo   set up (.venv, release build of the extension) and run the main job
#   make test   set up the same way and run every check and test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-installed
export VIRTUAL_ENV := $(CURDIR)/$(VENV)
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: demo test setup build lint rust-test py-test bench clean

demo: build
	$(BIN)/routelab demo --out demo

test: build lint rust-test py-test

setup: $(STAMP)

$(STAMP): pyproject.toml requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

build: $(STAMP)
	$(BIN)/maturin develop --release --quiet

lint: $(STAMP)
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

rust-test:
	cargo test -p routelab-core --quiet

py-test: build
	$(BIN)/python -m pytest -q tests

bench: build
	cargo bench -p routelab-core


clean:
	rm -rf $(VENV) target demo
