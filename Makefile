# minitorch: one entry point. `make book` reads the book, `make test` runs every check CI runs.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# pytest-xdist: one test process per core (at most 4); numba's disk cache is shared between them.
PYTEST_PAR ?= -n auto --maxprocesses 4

.PHONY: env book lab test test-fast check-sync nbtest pytest bench clean

env: $(STAMP)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) on PATH (or make PYTHON=python3 ...)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,book]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

## The main job: execute every chapter and render the book to book/_build/html.
book: env
	$(BIN)/python book/build.py
	@echo "The book is at file://$(CURDIR)/book/_build/html/index.html"

## Open the chapters in JupyterLab.
lab: env
	$(BIN)/jupyter lab nbs

## Everything CI runs: package matches notebooks, notebooks clean, every chapter executed (with its slow cells;
## the book build, which fails on any error in a cell), then pytest on every core (it checks the built book too).
test: env check-sync
	$(BIN)/python book/build.py
	$(BIN)/python -m pytest tests --runslow $(PYTEST_PAR)

## The same without slow tests (quicker while working).
test-fast: env check-sync
	$(MAKE) nbtest NBFLAGS=
	$(BIN)/python -m pytest tests $(PYTEST_PAR)

check-sync: env
	$(BIN)/python .ci/check_sync.py

# Each chapter runs in its own process: chapters patch classes of the package as they build them, and one
# chapter's definitions must not leak into the next (nbdev_test alone reuses worker processes).
NBFLAGS ?= --flags slow
nbtest: env
	ls nbs/*.ipynb | xargs -P 2 -n 1 $(BIN)/nbdev_test $(NBFLAGS) --path

bench: env
	$(BIN)/python kernels/bench_cpu.py

clean:
	rm -rf book/_build book/_src
