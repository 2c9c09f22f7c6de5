"""Sphinx configuration of the pufferfish documentation site (``make docs``).

The pages are the Markdown files of this folder (read by MyST), the API reference is generated
from the docstrings of the installed package (autodoc + autosummary), the command-line page from
the argparse parser (``_ext/cli_usage.py``), and the tutorial notebook is executed on every build.
The build runs with ``-W --keep-going -n``: every warning, including an unresolved
cross-reference, fails it.
"""

from __future__ import annotations

import re
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
    "sphinx.ext.mathjax",  # $…$ and $$…$$ (MyST's dollarmath) typeset by MathJax in the browser
    "sphinx-mathjax-offline",  # ... from a copy of MathJax in the site, not from a CDN
    "cli_usage",
    "short_references",
]
templates_path = ["_templates"]

# price_of_mqm/ holds the files of ``pufferfish mqm-price --out``: its Markdown table is included
# by price_of_mqm.md, not a page of its own.
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "price_of_mqm/*"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# The PyData theme (networkx, OpenDP, NumPy, pandas): a responsive layout whose navigation and
# search stay visible at every width (a collapsible menu on narrow screens), an "on this page"
# panel, and a content column that grows with the window.  No option below fixes a width: the
# theme's own fluid layout is kept (tests/test_docs_theme.py checks it).
html_theme = "pydata_sphinx_theme"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,  # the "on this page" panel lists sections and subsections
    "secondary_sidebar_items": ["page-toc"],  # no "edit this page" / "show source" links
    "navbar_align": "left",
    "navbar_center": [],  # the pages are listed in the left sidebar, not in a crowded header
    "show_prev_next": True,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"**": ["site-nav"]}  # every page of the site on the left (_templates/site-nav.html)
html_show_sourcelink = False
html_title = f"pufferfish {release}"
html_static_path = ["_static"]
html_css_files = ["pufferfish.css"]  # wrapped code lines, a narrower left sidebar; no fixed width

# --- MyST ----------------------------------------------------------------------------------------
# dollarmath: $ε = \log r$ inline and $$…$$ display mathematics, typeset by MathJax.
myst_enable_extensions = ["colon_fence", "dollarmath"]
# Headings get anchors so that the pages' links such as design.md#command-line resolve.
myst_heading_anchors = 3

# --- executed notebooks --------------------------------------------------------------------------
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 300
# Progress lines (a program audit's "N datasets done") go to stderr, which a page shows as an
# output box of its own: the pages show what the code prints on stdout.
nb_output_stderr = "remove"

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
                    "cvxpy", "scipy", "contextlib", "decimal", "random", "datetime", "json",
                    "inspect", "pufferfish_check")  # the checker: its own docs page
nitpick_ignore_regex = [
    (r"py:.*", rf"({'|'.join(EXTERNAL_MODULES)})(\..*)?"),
]
nitpick_ignore = [
    ("py:class", "Fraction"),  # fractions.Fraction, as the signatures and docstrings write it
    ("py:class", "np.ndarray"),  # numpy.ndarray, as the signatures write it
    ("py:class", "nx.DiGraph"),  # networkx.DiGraph, imported only for type checking
    # Type aliases of the models (``Dataset = tuple``, ``Output = Hashable``, ...): plain names
    # in signatures, with nothing to document.
    ("py:class", "Dataset"), ("py:class", "Output"), ("py:class", "Outcome"),
    ("py:class", "Value"), ("py:class", "Node"),
    # argparse's own docstring of ArgumentParser.error, which the command's parser inherits,
    # writes its signature as ``error(message: string)``.
    ("py:class", "string"),
]
# Private helper classes (``_Side``, ``_Masses``) appear in annotations and in a module's
# explanation of its own algorithm; they are deliberately not part of the documented API.
nitpick_ignore_regex.append((r"py:class", r"(.*\.)?_[A-Za-z]\w*"))


# --- no path of the machine that built the site --------------------------------------------------
# A module constant that holds a path (a schema file beside its module) hides its value
# (``:meta hide-value:``); a page that still shows the folder the site was built from fails the
# build.
REPOSITORY = str(HERE.parent)


def _refuse_build_paths(app, pagename, templatename, context, doctree) -> None:
    from sphinx.util import logging

    if REPOSITORY in context.get("body", ""):
        logging.getLogger(__name__).warning(
            f"{pagename}: the page shows the build machine's path {REPOSITORY}", type="pufferfish")


# --- a site that works offline ------------------------------------------------------------------
# A verifier's documentation is read on machines without network: every script and stylesheet
# a page loads must be a file of the site (MathJax included), never a URL.
EXTERNAL_ASSET = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=[\"'](?:https?:)?//[^\"']*[\"']"
                            r"[^>]*>", re.IGNORECASE)


def _refuse_external_assets(app, exception) -> None:
    from sphinx.util import logging

    if exception is not None or app.builder.format != "html":
        return
    for page in sorted(Path(app.outdir).rglob("*.html")):
        for tag in EXTERNAL_ASSET.findall(page.read_text(encoding="utf-8", errors="replace")):
            if "<link" in tag.lower() and "stylesheet" not in tag.lower() \
                    and "preload" not in tag.lower():
                continue  # a link to another site (rel="canonical"), not an asset
            logging.getLogger(__name__).warning(
                f"{page.relative_to(app.outdir)} loads {tag!r} from the network; ship it with "
                f"the site", type="pufferfish")


def setup(app) -> None:
    app.connect("html-page-context", _refuse_build_paths)
    app.connect("build-finished", _refuse_external_assets)
