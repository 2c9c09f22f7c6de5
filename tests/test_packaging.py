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


def test_the_release_files_agree_on_the_version_and_the_licence():
    """``CHANGELOG.md``'s newest entry, ``CITATION.cff`` and ``pyproject.toml`` name the version
    ``pufferfish --version`` prints; the licence is stated once (SPDX) and shipped."""
    import re

    project = _pyproject()["project"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+) \(\d{4}-\d\d-\d\d\)$", changelog, re.MULTILINE)
    assert newest and newest.group(1) == project["version"]
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: {re.escape(project['version'])}$", citation, re.MULTILINE)
    assert re.search(r"^license: MIT$", citation, re.MULTILINE) and project["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert project["license-files"] == ["LICENSE"]


def test_distributed_execution_and_figures_are_extras_with_a_message():
    """A plain install has neither Dask nor matplotlib; a command that needs one names the extra
    (``make check-install`` runs the command without it)."""
    from pufferfish.models.errors import MissingExtra, require_extra

    project = _pyproject()["project"]
    base = " ".join(project["dependencies"])
    assert "distributed" not in base and "matplotlib" not in base
    assert project["optional-dependencies"]["dask"] == ["distributed>=2024.1"]
    assert project["optional-dependencies"]["plots"] == ["matplotlib>=3.7"]
    try:
        require_extra("surely_not_installed_module", "dask", "running tasks on a Dask cluster")
    except MissingExtra as error:
        assert "pip install 'pufferfish-verifier[dask]'" in str(error)
    else:
        raise AssertionError("require_extra accepted a missing module")
