"""The distribution's package list matches the source tree, and the installed package is one
import namespace, ``pufferfish``, with its examples and schemas as package data.

(A plain, non-editable ``pip install .`` into a new virtual environment is exercised by
``make check-install``, which ``.ci/run`` runs after the tests.)
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pufferfish
from pufferfish.examples import example_names, example_path

ROOT = Path(__file__).resolve().parent.parent


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_directory_is_listed_and_every_listed_package_exists():
    setuptools = _pyproject()["tool"]["setuptools"]
    mapping, listed = setuptools["package-dir"], set(setuptools["packages"])
    found = set()
    for package, folder in mapping.items():
        root = ROOT / folder
        # a package is a folder with an __init__.py, or a data folder (JSON Schemas) inside one
        for marker in [*root.rglob("__init__.py"), *root.rglob("*.schema.json"),
                       *root.glob("cli/schemas/*.json")]:
            relative = marker.parent.relative_to(root).parts
            if any(part.startswith(".") for part in relative):
                continue
            found.add(".".join((package, *relative)))
    assert found == listed


def test_the_namespace_is_pufferfish_and_the_independent_checker():
    """One namespace, ``pufferfish``, and the certificate checker ``pufferfish_check`` on its own
    (importing it must not run the toolkit's ``__init__``: docs/design.md, Layout)."""
    setuptools = _pyproject()["tool"]["setuptools"]
    assert {name.split(".")[0] for name in setuptools["packages"]} == {"pufferfish",
                                                                       "pufferfish_check"}
    assert setuptools["package-dir"]["pufferfish_check"] == "pufferfish_check"


def test_the_examples_ship_with_the_package():
    assert "quickstart.json" in example_names()
    assert example_path("quickstart.json").read_text(encoding="utf-8").startswith("{")


def test_version_is_known():
    assert pufferfish.__version__ == _pyproject()["project"]["version"]


def test_no_generic_top_level_module_is_imported():
    import pufferfish.cli.main  # noqa: F401  (imports every command module)

    assert not {"models", "verify", "proofs_check", "cli"} & set(sys.modules)
