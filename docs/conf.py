"""Sphinx configuration of the pufferfish documentation site (``make docs``).

The pages are the Markdown files of this folder (read by MyST), the API reference is generated
from the docstrings of the installed package (autodoc + autosummary), the command-line page from
the argparse parser (``_ext/cli_usage.py``), and the tutorial notebook is executed on every build.
The build runs with ``-W --keep-going -n``: every warning, including an unresolved
cross-reference, fails it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import pufferfish  # noqa: E402  (the installed package whose docstrings are documented)

project = "pufferfish"
author = "the pufferfish-verifier authors"
release = pufferfish.__version__
version = release

extensions = [
    "myst_nb",  # Markdown pages (it includes myst_parser) and executed notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "cli_usage",
    "short_references",
]
templates_path = ["_templates"]

# price_of_mqm/ holds the files of ``pufferfish mqm-price --out``: its Markdown table is included
# by price_of_mqm.md, not a page of its own.
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "price_of_mqm/*"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

html_theme = "alabaster"  # Sphinx's default theme: no further dependency
# Wide enough for the 80-column command-line usage and the model files without a scroll bar.
html_theme_options = {"page_width": "1300px", "sidebar_width": "260px"}
html_title = f"pufferfish {release}"
html_static_path: list[str] = []

# --- MyST ----------------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence"]
# Headings get anchors so that the pages' links such as design.md#command-line resolve.
myst_heading_anchors = 3

# --- executed notebooks --------------------------------------------------------------------------
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 300

# --- API reference -------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
# Every public name a module defines is documented, with or without a docstring, so that the
# result types named in signatures have a page to link to.  ``__all__`` is not followed: it lists
# what ``import *`` exports, and a package's ``__init__`` re-exports its modules' names, which
# would then be documented twice and make every short reference to them ambiguous.
autodoc_default_options = {"members": True, "undoc-members": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True

# --- nitpicky cross-references -------------------------------------------------------------------
# The build reaches no documentation site (CI reaches only package registries), so there is no
# intersphinx inventory of the standard library or of the third-party packages: their names in
# signatures are shown as plain text rather than reported as unresolved.  The toolkit's own names
# must all resolve (``_ext/short_references.py`` resolves the short forms the docstrings use).
nitpicky = True
EXTERNAL_MODULES = ("fractions", "collections", "typing", "os", "pathlib", "numpy", "sympy",
                    "mpmath", "networkx", "jsonschema", "distributed", "dask", "flint",
                    "argparse", "concurrent", "types", "abc", "enum", "io", "matplotlib",
                    "cvxpy", "scipy", "contextlib", "decimal", "random", "datetime", "json")
nitpick_ignore_regex = [
    (r"py:.*", rf"({'|'.join(EXTERNAL_MODULES)})(\..*)?"),
]
nitpick_ignore = [
    ("py:class", "Fraction"),  # fractions.Fraction, as the signatures and docstrings write it
    ("py:class", "np.ndarray"),  # numpy.ndarray, as the signatures write it
    # Type aliases of the models (``Dataset = tuple``, ``Output = Hashable``, ...): plain names
    # in signatures, with nothing to document.
    ("py:class", "Dataset"), ("py:class", "Output"), ("py:class", "Outcome"),
    ("py:class", "Value"),
    # argparse's own docstring of ArgumentParser.error, which the command's parser inherits,
    # writes its signature as ``error(message: string)``.
    ("py:class", "string"),
]
# Private helper classes (``_Side``, ``_Masses``) appear in annotations and in a module's
# explanation of its own algorithm; they are deliberately not part of the documented API.
nitpick_ignore_regex.append((r"py:class", r"(.*\.)?_[A-Za-z]\w*"))
