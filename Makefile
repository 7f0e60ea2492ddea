# The two commands of the README:  make book  (build the website)  and  make test  (every test).
# Both create the virtual environment .venv from requirements.txt on first use.
# make test runs one pytest worker per core (pytest-xdist). With --dist loadscope, tests/conftest.py
# keeps each notebook on one worker (nbval runs a chapter's cells in order in one kernel) and spreads
# every other test over the workers.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt pyproject.toml | cksum | cut -d' ' -f1)
SITE   := _build/html

.PHONY: book test lab notebooks bench clean help

help:
	@echo "make book       set up .venv and build the website into $(SITE)"
	@echo "make test       set up .venv, build the book, run every test (library, notebooks, browser)"
	@echo "make lab        open the chapters in JupyterLab (working copies in lab/, markup rendered)"
	@echo "make notebooks  re-execute the chapters and store their outputs (after editing one)"
	@echo "make bench      run the benchmarks"

$(STAMP): requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed (found %s)" % sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . -n -W --keep-going
	@echo
	@echo "Book built: open $(CURDIR)/$(SITE)/index.html"

test: book
	$(BIN)/ruff check .
	$(BIN)/mypy
	POSENC_TRAIN_CACHE_MISS=error $(BIN)/python -m pytest -n auto --dist loadscope --durations=15 \
	  --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg tests notebooks

lab: $(STAMP)
	$(BIN)/python tools/lab_copies.py
	$(BIN)/jupyter lab lab/

notebooks: $(STAMP)
	$(BIN)/python tools/execute_notebooks.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf _build test-artifacts
