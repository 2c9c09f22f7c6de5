"""The bibliography: every source paper has an entry, in the module and on the documentation page,
and citations by file name are written readably (:mod:`pufferfish.bibliography`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pufferfish.bibliography import PAPERS, cite

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "bibliography.md"
PAPERS_FOLDER = ROOT.parent / "shared" / "papers"


def test_every_paper_is_on_the_bibliography_page_with_its_arxiv_identifier():
    page = PAGE.read_text(encoding="utf-8")
    for key, paper in PAPERS.items():
        assert f"`{key}`" in page
        assert f"arXiv:{paper.arxiv}" in page


@pytest.mark.skipif(not PAPERS_FOLDER.is_dir(), reason="the papers' folder is not beside the clone")
def test_every_paper_file_has_an_entry_whose_title_it_prints():
    files = sorted(p.name for p in PAPERS_FOLDER.glob("[0-9][0-9][0-9]_*.txt"))
    assert files == sorted(PAPERS)
    for name in files:
        opening = PAPERS_FOLDER.joinpath(name).read_text(encoding="utf-8")[:3000].lower()
        assert PAPERS[name].title.lower() in opening


@pytest.mark.parametrize("citation, readable", [
    ("000_65109fe28ca61d17.txt §5.1, Theorem 4",
     "Bai et al., Composition for Pufferfish Privacy, §5.1, Theorem 4"),
    ("002_e1f2e9a9937b8cda.txt §4, Definition 4.2",
     "Wang et al., Privacy-Preserving Analysis of Correlated Data, §4, Definition 4.2"),
    ("``001_3a97785a86d61e37.txt`` §4", "Ding et al., Multi-user Pufferfish Privacy, §4"),
    ("004", "Zhang et al., Differential Confounding Privacy and Inverse Composition"),
])
def test_a_citation_by_file_name_is_written_with_authors_and_title(citation, readable):
    assert cite(citation) == readable


@pytest.mark.parametrize("citation", ["Theorem 4", "005 §1", "0001", "000_0000000000000000.txt"])
def test_a_citation_that_names_no_paper_is_refused(citation):
    with pytest.raises(ValueError):
        cite(citation)
