# Two entry points that set everything up on a fresh machine:
#   make demo   - the main job on the embedded default example (examples/quickstart.json)
#   make test   - the test suite
#   make docs   - the documentation site, in docs/_build/html (every warning fails the build)
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: demo test docs check-install bench clean

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	# The Bayesian Network Repository's networks in BIF (asia, sachs, alarm, ...) that
	# tests/models/test_bif.py reads: pgmpy's wheel ships them as package data; the tests read
	# the files without importing pgmpy, so none of its dependencies is installed.
	$(VENV)/bin/pip install --quiet --no-deps pgmpy==1.1.2
	touch $(STAMP)

$(DOCS_STAMP): $(STAMP)
	$(VENV)/bin/pip install --quiet -e '.[test,docs]'
	touch $(DOCS_STAMP)

demo: $(STAMP)
	$(VENV)/bin/pufferfish demo

test: $(STAMP)
	$(VENV)/bin/pytest

# -W: a warning is an error; --keep-going: report all of them; -n: every cross-reference must
# resolve; -E: every page is read afresh (the command-line usage and the tutorial's outputs come
# from the code, which Sphinx does not watch).  The API pages are regenerated from the docstrings.
docs: $(DOCS_STAMP)
	rm -rf docs/api/generated
	$(VENV)/bin/sphinx-build -b html -E -W --keep-going -n docs docs/_build/html

check-install:
	bash .ci/check-install

bench: $(STAMP)
	$(VENV)/bin/python benchmarks/bench_audit.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info docs/_build docs/api/generated
