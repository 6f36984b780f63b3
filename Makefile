# Tallero: every target creates the virtualenv when it is missing.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The installed virtualenv takes about 6.3 GB (PyTorch most of it); the free space is
# checked before it is created, not when an existing one is brought up to date.
NEED_GB ?= 7

define DISK_CHECK
import shutil, sys, tempfile
need = float(sys.argv[1])
for where in (".", tempfile.gettempdir()):
    free = shutil.disk_usage(where).free / 1e9
    if free < need:
        sys.exit(f"setup needs about {need:g} GB free for .venv; {where} has {free:.1f} GB")
endef
export DISK_CHECK

.PHONY: setup demo test test-fast lint fmt clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -c "$$DISK_CHECK" $(NEED_GB)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/tallero demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

# The edit-test loop: everything but the tests marked slow (model fits, benchmarks).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

fmt: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
