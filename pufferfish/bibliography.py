"""The five source papers, and citations turned from paper keys into readable references.

Each paper has a key, the file name of the plain-text copy it was read from (not distributed with
the toolkit): ``000_65109fe28ca61d17.txt``.  The key is stable and unambiguous, so claims and JSON
outputs keep it as data (a claim's ``paper``, ``theorems --paper 000``), but it says nothing to a
reader: documents, docstrings and reports cite a paper with its authors and title, as
:func:`cite` writes a key (or its three-digit number) and a section (:doc:`/bibliography`
lists the papers in full).  This module and that page are the only places that show the keys.

>>> cite("000_65109fe28ca61d17.txt §5.1, Theorem 4")
'Bai et al., Composition for Pufferfish Privacy, §5.1, Theorem 4'
>>> cite("002 §4")
'Wang et al., Privacy-Preserving Analysis of Correlated Data, §4'
>>> PAPERS["001_3a97785a86d61e37.txt"].arxiv
'2512.18632'
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    """One source paper: its file-name ``key``, the authors in the paper's order, the title, its
    arXiv identifier, the year of this version, and a ``note`` on other versions."""

    key: str
    authors: tuple[str, ...]
    title: str
    arxiv: str
    year: int
    note: str = ""

    @property
    def short(self) -> str:
        """``Surname et al., Title`` (the first author's surname; both surnames for two authors)."""
        surnames = [author.split()[-1] for author in self.authors]
        names = " and ".join(surnames) if len(surnames) <= 2 else f"{surnames[0]} et al."
        return f"{names}, {self.title}"

    @property
    def full(self) -> str:
        """Authors, title, arXiv identifier and year, as the bibliography lists them."""
        note = f" {self.note}" if self.note else ""
        return f"{', '.join(self.authors)}. {self.title}. arXiv:{self.arxiv}, {self.year}.{note}"


PAPERS: dict[str, Paper] = {paper.key: paper for paper in (
    Paper("000_65109fe28ca61d17.txt",
          ("Jiamu Bai", "Guanlin He", "Xin Gu", "Daniel Kifer", "Kiwan Maeng"),
          "Composition for Pufferfish Privacy", "2602.02718", 2026),
    Paper("001_3a97785a86d61e37.txt",
          ("Ni Ding", "Wenjing Yang", "Songpei Lu", "Zijian Zhang"),
          "Multi-user Pufferfish Privacy", "2512.18632", 2025),
    Paper("002_e1f2e9a9937b8cda.txt",
          ("Yizhen Wang", "Shuang Song", "Kamalika Chaudhuri"),
          "Privacy-Preserving Analysis of Correlated Data", "1603.03977", 2016,
          "Later published as Pufferfish Privacy Mechanisms for Correlated Data "
          "(Song, Wang, Chaudhuri, SIGMOD 2017)."),
    Paper("003_72819715ab0527c7.txt",
          ("Jiamu Bai", "Guanlin He", "Xin Gu", "Daniel Kifer", "Kiwan Maeng"),
          "Composition for Pufferfish Privacy", "2602.02718", 2026,
          "The text-only rendering of 000_65109fe28ca61d17.txt (formulas stripped)."),
    Paper("004_acc5641f8e5f8c79.txt",
          ("Tao Zhang", "Bradley A. Malin", "Netanel Raviv", "Yevgeniy Vorobeychik"),
          "Differential Confounding Privacy and Inverse Composition", "2408.12010", 2025,
          "The revised version of Confounding Privacy and Inverse Composition (2024)."),
)}
"""The papers by file-name key, in the order of their numbers."""

_KEY = re.compile(r"\s*`*(?P<number>\d{3})(?P<rest>_[0-9a-f]{16}\.txt)?`*(?P<tail>(?:[\s,].*)?)",
                  re.DOTALL)


def paper(key: str) -> Paper:
    """The paper of a file-name key, or of its three-digit number (``"000"``).

    >>> paper("004").short
    'Zhang et al., Differential Confounding Privacy and Inverse Composition'
    """
    found = [p for k, p in PAPERS.items() if k == key or k.startswith(f"{key}_") and len(key) == 3]
    if len(found) != 1:
        raise KeyError(f"no paper {key!r}; the papers are {', '.join(PAPERS)}")
    return found[0]


def cite(citation: str) -> str:
    """A citation by file name (``"000_65109fe28ca61d17.txt §5.1, Theorem 4"``, or with the
    three-digit number, ``"000 §5.1"``) written with the paper's authors and title; the section
    and statement that follow the key are kept as they are.

    >>> cite("004_acc5641f8e5f8c79.txt App. L, Theorem 5")
    'Zhang et al., Differential Confounding Privacy and Inverse Composition, App. L, Theorem 5'
    >>> cite("001_3a97785a86d61e37.txt")
    'Ding et al., Multi-user Pufferfish Privacy'
    >>> cite("Theorem 4")
    Traceback (most recent call last):
    ...
    ValueError: 'Theorem 4' does not start with a paper's file name or number (000_65109fe28ca61d17.txt, ...)
    """
    match = _KEY.fullmatch(citation)
    if not match:
        raise ValueError(f"{citation!r} does not start with a paper's file name or number "
                         f"({next(iter(PAPERS))}, ...)")
    key = match["number"] + (match["rest"] or "")
    try:
        source = paper(key)
    except KeyError as error:
        raise ValueError(error.args[0]) from None
    tail = match["tail"].strip().lstrip(",").strip()
    return f"{source.short}, {tail}" if tail else source.short


__all__ = ["Paper", "PAPERS", "paper", "cite"]
