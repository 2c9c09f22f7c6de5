"""The Bayesian Network Repository's networks (bnlearn), in BIF, for the tests of the BIF import
and of the ``bayesnet`` prior.

pgmpy's wheel ships them as package data (``pgmpy/utils/example_models/*.bif.gz``); the Makefile
installs it with ``--no-deps`` and the tests read the files without importing pgmpy (whose
dependencies are not installed).  A missing file fails the test that needs it, with the command
that installs it: a test never skips silently."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PGMPY = "pgmpy==1.1.2"
INSTALL = f"pip install --no-deps {PGMPY} (make test installs it)"


def bnlearn_folder() -> Path:
    """The folder of the BIF files inside the installed pgmpy package (found, not imported)."""
    spec = importlib.util.find_spec("pgmpy")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail(f"pgmpy is not installed; the BIF tests read the bnlearn networks it ships: "
                    f"{INSTALL}")
    folder = Path(list(spec.submodule_search_locations)[0]) / "utils" / "example_models"
    if not folder.is_dir():
        pytest.fail(f"the installed pgmpy has no {folder}; install {PGMPY}: {INSTALL}")
    return folder


def bnlearn_path(name: str) -> Path:
    """The compressed BIF file of the network ``name`` (``"asia"``) shipped by pgmpy."""
    path = bnlearn_folder() / f"{name}.bif.gz"
    if not path.is_file():
        pytest.fail(f"pgmpy ships no {path.name} (looked in {path.parent}); install {PGMPY}: "
                    f"{INSTALL}")
    return path


@pytest.fixture
def bnlearn():
    """``bnlearn(name) -> Path`` of a shipped network's BIF file."""
    return bnlearn_path
