"""Which numbered statements of each paper the claims check (``theorems --coverage``).

Each paper package lists its checkable statements in a ``statements`` module as a tuple
``STATEMENTS`` of :class:`Statement`: the statement's name as the paper prints it (``"Theorem 3"``,
``"Example 4.2"``, ``"Algorithm 1"``, ``"Table 5"``), its section, and either the ids of the claims
that check it or the reason it cannot be checked on a finite instance (with what is checked
instead, e.g. "numerical check on a grid, labelled so").

:func:`coverage_report` reads every paper package's list (a package without a ``statements``
module is reported as such) and sets it against the registered claims: the share of statements
checked, claim ids named but not registered, and registered claims that no statement names.

>>> s = Statement("Theorem 1", "§4", claims=("000.thm1.zero_leakage",))
>>> s.covered
True
>>> Statement("Lemma 9", "App. B", reason="asymptotic in T; no finite instance decides it").covered
False
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pufferfish.bibliography import cite
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.report import Explained


@dataclass(frozen=True)
class Statement:
    """One numbered statement of a paper and how the toolkit checks it.

    ``claims`` are registered claim ids; ``reason`` says why there is no exact claim (required
    when ``claims`` is empty, and allowed beside claims to say what part stays unchecked).
    ``checkable`` is False for a statement that asserts nothing (a table of input data, a
    glossary): it is listed but not counted in the checked share.
    """

    name: str
    section: str
    claims: tuple[str, ...] = ()
    reason: str | None = None
    checkable: bool = True

    def __post_init__(self) -> None:
        if not self.claims and not self.reason:
            raise ValueError(f"statement {self.name!r} has neither claims nor a reason")

    @property
    def covered(self) -> bool:
        """True when at least one registered claim checks the statement."""
        return bool(self.claims)

    def to_dict(self) -> dict:
        return {"name": self.name, "section": self.section, "claims": list(self.claims),
                "reason": self.reason, "covered": self.covered, "checkable": self.checkable}


@dataclass(frozen=True, repr=False)
class PaperCoverage(Explained):
    """The statements of one paper (``statements is None`` when the paper's package has no
    ``statements`` module yet) and the registered claims that no statement names."""

    package: str
    paper: str
    statements: tuple[Statement, ...] | None
    unknown_claims: tuple[str, ...] = ()
    unlisted_claims: tuple[str, ...] = ()

    @property
    def covered(self) -> int:
        """How many checkable statements at least one claim checks."""
        return sum(s.covered for s in self.checkable)

    @property
    def checkable(self) -> tuple[Statement, ...]:
        """The statements that assert something (``Statement.checkable``)."""
        return tuple(s for s in self.statements or () if s.checkable)

    @property
    def percent(self) -> Fraction | None:
        """The share of checkable statements checked by a claim, in percent (None: no list)."""
        if not self.checkable:
            return None
        return Fraction(100 * self.covered, len(self.checkable))

    def to_dict(self) -> dict:
        percent = self.percent
        return {"package": self.package, "paper": self.paper, "citation": cite(self.paper),
                "statements_module": self.statements is not None,
                "statements": [s.to_dict() for s in self.statements or ()],
                "covered": self.covered, "checkable": len(self.checkable),
                "total": len(self.statements or ()),
                "percent": None if percent is None else fraction_str(percent),
                "percent_float": None if percent is None else float(percent),
                "unknown_claims": list(self.unknown_claims),
                "unlisted_claims": list(self.unlisted_claims)}

    def explain(self) -> str:
        if self.statements is None:
            return (f"{cite(self.paper)}: no statements module "
                    f"(pufferfish.proofs_check.{self.package}.statements); coverage unknown")
        lines = [f"{cite(self.paper)}: {self.covered} of {len(self.checkable)} checkable numbered "
                 f"statements checked by claims ({float(self.percent or 0):.0f}%); "
                 f"{len(self.statements) - len(self.checkable)} state nothing to check"]
        for s in self.statements:
            head = f"  {s.name} ({s.section}): "
            if not s.checkable:
                text = head + f"nothing to check: {s.reason}"
            elif s.covered:
                text = head + ", ".join(s.claims)
                if s.reason:
                    text += f" — not checked: {s.reason}"
            else:
                text = head + f"NOT CHECKED: {s.reason}"
            lines.append(text)
        if self.unknown_claims:
            lines.append(f"  claim ids named but not registered: {list(self.unknown_claims)}")
        if self.unlisted_claims:
            lines.append(f"  registered claims no statement names: {list(self.unlisted_claims)}")
        return "\n".join(lines)


@dataclass(frozen=True, repr=False)
class CoverageReport(Explained):
    """:class:`PaperCoverage` of every paper package (``claims``: registered claims of those papers)."""

    papers: tuple[PaperCoverage, ...]

    claims: int = 0

    def to_dict(self) -> dict:
        return {"check": "coverage", "claims": self.claims,
                "papers": [p.to_dict() for p in self.papers]}

    def explain(self) -> str:
        return "\n\n".join(p.explain() for p in self.papers)


def paper_statements(package: str) -> tuple[Statement, ...] | None:
    """``STATEMENTS`` of ``pufferfish.proofs_check.<package>.statements`` (None if it has none)."""
    import importlib

    name = f"pufferfish.proofs_check.{package}.statements"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        return None
    return tuple(module.STATEMENTS)


def coverage_report(paper: str | None = None) -> CoverageReport:
    """Which numbered statements of each paper (or of ``paper``: number, file name or stem) the
    registered claims check.  Cost: one pass over the statements and the registered claims."""
    from pufferfish.proofs_check import PAPER_PACKAGES
    from pufferfish.proofs_check.registry import all_claims

    claims = all_claims()
    registered = {c.id for c in claims}
    papers, counted = [], 0
    for package in PAPER_PACKAGES:
        number = package.removeprefix("paper_")
        own = [c for c in claims if c.paper.split("_", 1)[0] == number]
        file_name = own[0].paper if own else number
        if paper is not None and paper.strip() not in (number, file_name,
                                                       file_name.removesuffix(".txt")):
            continue
        counted += len(own)
        statements = paper_statements(package)
        named = {cid for s in statements or () for cid in s.claims}
        papers.append(PaperCoverage(
            package, file_name, statements,
            tuple(sorted(named - registered)),
            () if statements is None else tuple(c.id for c in own if c.id not in named)))
    if not papers:
        known = [p.removeprefix("paper_") for p in PAPER_PACKAGES]
        raise ModelError(f"no paper {paper!r}; the papers are "
                         f"{'; '.join(f'{n} ({cite(n)})' for n in known)}", "--paper")
    return CoverageReport(tuple(papers), counted)
