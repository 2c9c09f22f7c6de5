"""Every docstring example in the installed ``pufferfish`` package runs and shows what it says.

The modules are imported by their package names (``pufferfish.verify...``), walking the package
as installed, so each module is imported once under its real name (collecting the source files
directly would import the claim modules a second time under other names).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pufferfish


def _modules() -> list[str]:
    names = ["pufferfish"]
    for info in pkgutil.walk_packages(pufferfish.__path__, "pufferfish."):
        names.append(info.name)
    for sub in ("models", "verify", "proofs_check", "examples"):
        package = importlib.import_module(f"pufferfish.{sub}")
        names.append(package.__name__)
        names += [info.name for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")]
    return sorted(set(names))


MODULES = _modules()


def test_the_walk_finds_every_part_of_the_package():
    for part in ("pufferfish.api", "pufferfish.cli.main", "pufferfish.models.numbers",
                 "pufferfish.verify.numerics.intervals", "pufferfish.proofs_check.registry"):
        assert part in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed in {name}"
