# Two entry points that set everything up on a fresh machine:
#   make demo   - the main job on the embedded default example (examples/quickstart.json)
#   make test   - the test suite
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed

.PHONY: demo test check-install bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/pufferfish demo

test: $(STAMP)
	$(VENV)/bin/pytest

check-install:
	bash .ci/check-install

bench: $(STAMP)
	$(VENV)/bin/python benchmarks/bench_audit.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
