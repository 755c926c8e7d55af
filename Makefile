# The two commands of the README:
#   make demo   set up (.venv, release build of the extension) and run the main job
#   make test   set up the same way and run every check and test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-installed
export VIRTUAL_ENV := $(CURDIR)/$(VENV)
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: demo test setup build lint rust-test py-test bench clean chromium opensm

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
	$(BIN)/ruff check python tests examples
	$(BIN)/ruff format --check python tests examples

rust-test:
	cargo test -p routelab-core --quiet

# One worker per core; a test file stays on one worker (its module fixtures
# are made once); the longest files first (tests/conftest.py).
py-test: build chromium opensm
	$(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder tests

# The report test opens the HTML report in headless Chromium (Debian's package).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	  else \
	    echo "chromium is missing: install it (sudo apt-get install chromium) for the report test" >&2; \
	    exit 1; \
	  fi; }

# tests/test_opensm.py runs OpenSM on ibsim (Debian's packages).
opensm:
	@command -v opensm >/dev/null 2>&1 && command -v ibsim >/dev/null 2>&1 && command -v ibroute >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq opensm ibsim-utils infiniband-diags; \
	  else \
	    echo "opensm, ibsim or ibroute is missing: install them (sudo apt-get install opensm ibsim-utils infiniband-diags) for the OpenSM tests" >&2; \
	  fi; }

bench: build
	cargo bench -p routelab-core


clean:
	rm -rf $(VENV) target demo
