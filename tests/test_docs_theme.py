"""The documentation site reads well at every width: its theme is responsive and no option fixes
a width of the page, the body or a sidebar (a fixed page width put the navigation and the search
below the page at 1280 px and clipped code); mathematics is typeset; the pages' tables keep
their columns; the theme is one the ``docs`` extra installs."""

from __future__ import annotations

import re
import runpy
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONF = runpy.run_path(str(DOCS / "conf.py"))
FIXED = re.compile(r"^\s*\d+(\.\d+)?\s*(px|pt|em|rem|cm|mm|in)\s*$")
RESPONSIVE_THEMES = {"pydata_sphinx_theme": "pydata-sphinx-theme", "furo": "furo",
                     "sphinx_book_theme": "sphinx-book-theme"}


def test_the_theme_is_responsive_and_installed_by_the_docs_extra():
    theme = CONF["html_theme"]
    assert theme in RESPONSIVE_THEMES, f"{theme} is not one of the responsive themes"
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["docs"]
    assert any(requirement.startswith(RESPONSIVE_THEMES[theme]) for requirement in extra), extra


def test_no_theme_option_fixes_a_width():
    for key, value in CONF.get("html_theme_options", {}).items():
        if "width" in key:
            assert not (isinstance(value, (int, float)) or FIXED.match(str(value))), (key, value)


def test_no_stylesheet_of_the_site_fixes_a_width():
    sheets = [DOCS / folder / name for folder in CONF.get("html_static_path", [])
              for name in CONF.get("html_css_files", [])]
    for sheet in sheets:
        text = sheet.read_text(encoding="utf-8")
        assert not re.search(r"(?<!max-)(?<!min-)width\s*:\s*\d+(px|em|rem)", text), sheet


def test_mathematics_is_typeset():
    assert "sphinx.ext.mathjax" in CONF["extensions"]
    assert "dollarmath" in CONF["myst_enable_extensions"]
    assert "$$" in (DOCS / "concepts.md").read_text(encoding="utf-8")


def _unescaped_cells(row: str) -> int:
    """The cells of a Markdown table row, as GitHub-flavoured Markdown splits it: at every pipe
    that is not escaped, inside code spans too."""
    return len(re.split(r"(?<!\\)\|", row.strip().strip("|")))


PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_every_table_row_has_the_columns_of_its_header(page):
    """A ``|`` inside backticks still ends a cell (write ``\\|``): the ``geometric`` row of the
    primitives table lost its definition that way."""
    fence, header = False, None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith(("```", ":::")):
            fence = not fence
        if fence or not line.lstrip().startswith("|"):
            header = None if not line.lstrip().startswith("|") else header
            continue
        if header is None:
            header = _unescaped_cells(line)
        elif not re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", line):
            assert _unescaped_cells(line) == header, f"{page.name}:{number}: {line[:80]}"


def test_the_site_ships_its_mathematics_and_refuses_network_assets():
    """The site works offline: MathJax comes from the ``docs`` extra (copied into the site), and
    the build warns — fails, under ``-W`` — on any page that loads a script or stylesheet from a
    URL (``docs/conf.py``, ``_refuse_external_assets``)."""
    assert "sphinx-mathjax-offline" in CONF["extensions"]
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["docs"]
    assert any(requirement.startswith("sphinx-mathjax-offline") for requirement in extra)
    external = CONF["EXTERNAL_ASSET"]
    for tag in ['<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>',
                "<script defer src='//cdn.example/x.js'>",
                '<link rel="stylesheet" href="http://fonts.example/css">']:
        assert external.search(tag), tag
    for tag in ['<script src="_static/mathjax/tex-chtml.js"></script>',
                '<link rel="stylesheet" href="_static/pufferfish.css">']:
        assert not external.search(tag), tag
