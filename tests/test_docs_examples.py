"""The ``>>>`` examples of the documentation pages that are not executed notebooks run and show
what they say: each page's ``python`` blocks, in order, as one doctest (a block may use the
names of the blocks above it, as a reader does)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ["python-api.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", PAGES)
def test_the_examples_of_a_page_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                       # anything an example writes stays here
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = [b for b in BLOCK.findall(text) if b.lstrip().startswith(">>>")]
    assert blocks, f"{page} has no python examples"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, page, str(DOCS / page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {page}"
