"""The claim registry: the papers' statements as executable checks (DESIGN.md, ``proofs_check/``).

A :class:`Claim` is one checkable statement of a paper: an id (``000.thm1.zero_leakage``), the
paper's key (:data:`pufferfish.bibliography.PAPERS`; :attr:`Claim.citation` writes it readably),
the section, the statement in
words, a generator of finite :class:`Instance` s covering the statement's parameter range, and a
check that decides the statement on one instance and returns a :class:`ClaimOutcome`.  When the
statement fails, the outcome carries a counterexample: a model dict (a valid model file, see
:func:`counterexample_dict`) that can be written out and re-checked.

A check must be able to fail: it computes the quantity the paper talks about with the toolkit's
exact algorithms and compares it with the paper's value; it is never tuned to make a paper pass.
Claims that go beyond what the paper states (an observation such as "the bound is attained") are
registered with ``observation=True``.

A claim also carries its :class:`Mutant` s: the same check run on a deliberately wrong version of
the paper's formula or on an instance outside the statement's hypotheses (a constant changed, an
inequality reversed, a hypothesis dropped).  Each mutant must make the check fail; a claim that no
mutant can fail is vacuous and is reported as such (``tests/proofs_check/test_vacuity.py``).

Mutants are usually built with :mod:`pufferfish.proofs_check.mutation`.

Paper packages (``proofs_check/paper_000/``, ...) call :func:`register` at import;
``proofs_check/__init__.py`` imports them, so :func:`all_claims` sees every claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pufferfish.bibliography import cite
from pufferfish.models.errors import ModelError


@dataclass(frozen=True)
class Instance:
    """One finite instance a claim is checked on: a readable ``label`` and the ``params`` to build it."""

    label: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ClaimOutcome:
    """The verdict of a claim on one instance; ``counterexample`` is a model dict when it fails.

    A check that cannot decide the statement at certified precision returns an *undecided*
    outcome (``holds`` is then False, ``undecided`` True and ``detail`` gives the interval): it is
    neither a pass nor a violation, and never the result of rounding.

    >>> ClaimOutcome(True, "ok").verdict
    'holds'
    >>> ClaimOutcome.undecided_at("sign of e − 2.718281828 not decided at 8192 bits").verdict
    'undecided'
    """

    holds: bool
    detail: str
    counterexample: dict | None = None
    undecided: bool = False

    def __post_init__(self) -> None:
        if self.undecided and (self.holds or self.counterexample is not None):
            raise ValueError("an undecided outcome neither holds nor carries a counterexample")

    @classmethod
    def undecided_at(cls, detail: str) -> "ClaimOutcome":
        """An outcome the check could not decide (``detail`` says what stayed open)."""
        return cls(False, detail, None, undecided=True)

    @property
    def violated(self) -> bool:
        """True when the instance is a decided counterexample to the statement."""
        return not self.holds and not self.undecided

    @property
    def verdict(self) -> str:
        """``"holds"``, ``"violated"`` or ``"undecided"``."""
        return "holds" if self.holds else "undecided" if self.undecided else "violated"


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong variant of a claim's check that the check must reject.

    ``run()`` performs the claim's check against the mutated formula or instance described by
    ``label`` and returns the outcomes; the mutant is *killed* when at least one outcome is a
    decided violation (an undecided outcome does not kill it).  A mutant that survives shows that
    the check cannot tell the paper's statement from the mutated one.
    """

    label: str
    run: Callable[[], Iterable[ClaimOutcome]] = field(repr=False, compare=False)

    @classmethod
    def checking(cls, label: str, check: Callable[[Any], ClaimOutcome],
                 generate: Callable[[], Iterable[Any]], limit: int | None = None) -> "Mutant":
        """The mutant that runs ``check`` (a mutated check) on the first ``limit`` instances of
        ``generate`` (all when ``limit`` is None); stops at the first violation.

        >>> never = Mutant.checking("x < 0 for x = 1", lambda x: ClaimOutcome(x < 0, "sign"),
        ...                         lambda: [1, 2])
        >>> never.killed()
        True
        """
        def run() -> Iterator[ClaimOutcome]:
            for index, instance in enumerate(generate()):
                if limit is not None and index >= limit:
                    return
                outcome = check(instance)
                yield outcome
                if outcome.violated:
                    return
        return cls(label, run)

    def killed(self) -> bool:
        """True when the check rejects the mutated statement on at least one instance."""
        return any(outcome.violated for outcome in self.run())


@dataclass(frozen=True)
class Claim:
    """A paper's statement with a generator of instances and an exact check."""

    id: str
    paper: str
    section: str
    statement: str
    generate: Callable[[], Iterable[Any]] = field(repr=False, compare=False)
    check: Callable[[Any], ClaimOutcome] = field(repr=False, compare=False)
    observation: bool = False
    mutants: tuple[Mutant, ...] = field(default=(), repr=False, compare=False)
    shares: str = field(default="", compare=False)
    """Claims with the same non-empty ``shares`` build one per-process cache (e.g. a fitted
    prior and its samples): a sweep on a cluster runs them in one task so it is built once."""

    @property
    def citation(self) -> str:
        """The paper and section written readably (:func:`pufferfish.bibliography.cite`), e.g.
        ``Bai et al., Composition for Pufferfish Privacy, §4, Theorem 1``; ``paper`` is the key."""
        return cite(f"{self.paper} {self.section}")

    def to_dict(self) -> dict:
        return {"id": self.id, "paper": self.paper, "citation": self.citation,
                "section": self.section, "statement": self.statement,
                "observation": self.observation}


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry (registering the same object twice is a no-op).

    Raises :class:`ModelError` if another claim already has the same id.
    """
    known = _REGISTRY.get(claim.id)
    if known is not None and known is not claim:
        raise ModelError(f"a claim with id {claim.id!r} is already registered", "claims")
    _REGISTRY[claim.id] = claim
    return claim


def all_claims() -> list[Claim]:
    """Every registered claim, in registration order."""
    _load_papers()
    return list(_REGISTRY.values())


def _paper_matches(claim: Claim, paper: str) -> bool:
    wanted = paper.strip()
    stem = claim.paper[:-4] if claim.paper.endswith(".txt") else claim.paper
    return wanted in (claim.paper, stem) or stem.split("_", 1)[0] == wanted


def claims_for(paper: str | None = None, claim_id: str | None = None) -> list[Claim]:
    """The registered claims of ``paper`` and/or with id ``claim_id`` (all claims if neither).

    ``paper`` is the paper's key (its file name, as :data:`pufferfish.bibliography.PAPERS` holds
    it), its stem, or its number (``000``).  An unknown paper or id raises :class:`ModelError`
    naming the known ones.
    """
    claims = all_claims()
    if paper is not None:
        selected = [c for c in claims if _paper_matches(c, paper)]
        if not selected:
            papers = sorted({c.paper for c in claims})
            known = "; ".join(f"{key[:3]} ({cite(key)})" for key in papers)
            raise ModelError(f"no claims registered for paper {paper!r}; the papers with claims "
                             f"are {known}", "--paper")
        claims = selected
    if claim_id is not None:
        selected = [c for c in claims if c.id == claim_id]
        if not selected:
            scope = f" of paper {paper!r}" if paper is not None else ""
            raise ModelError(f"unknown claim id {claim_id!r}{scope}; the claims are "
                             f"{[c.id for c in claims]}", "--claim")
        claims = selected
    return claims


def counterexample_dict(model: Any, description: str) -> dict:
    """A counterexample as a model dict (a valid model file) whose description says what failed.

    Uses :func:`pufferfish.models.files.pufferfish_file.model_to_dict`, imported here so the registry loads without it.
    """
    try:
        from pufferfish.models.files.pufferfish_file import model_to_dict
    except ImportError:  # pragma: no cover - the writer is part of the toolkit
        return {"description": description, "model_file": None}
    data = model_to_dict(model)
    data["description"] = description
    return data


def violation(claim_id: str, paper: str, instance: Instance, detail: str, model: Any = None,
              writer: Callable[[Any, str], dict] | None = None) -> ClaimOutcome:
    """A violated check, with ``model`` (if any) written as the counterexample.

    The counterexample's description names the claim, the paper, the instance and what failed.
    ``writer(model, description)`` turns the model into a file dict; the default is
    :func:`counterexample_dict` (Pufferfish model files); other model kinds pass their own writer.
    A statement about no finite model (a continuous prior, a printed algorithm's parameters)
    carries the instance's parameters instead, as exact strings, so the run can be reproduced.
    """
    description = f"counterexample to {claim_id} ({cite(paper)}): {instance.label}: {detail}"
    if model is None:
        return ClaimOutcome(False, detail, {"description": description,
                                            "instance": jsonable_parameters(instance.params)})
    return ClaimOutcome(False, detail, (writer or counterexample_dict)(model, description))


def jsonable_parameters(value: Any) -> Any:
    """Instance parameters as JSON: exact numbers as strings (``"3/8"``), sequences as lists,
    mappings with string keys, objects with ``to_dict()`` through it, anything else by ``str``."""
    from fractions import Fraction

    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable_parameters(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable_parameters(v) for v in value]
    if hasattr(value, "to_dict"):
        return jsonable_parameters(value.to_dict())
    return str(value)


def _load_papers() -> None:
    """Import the paper modules so their claims are registered (idempotent)."""
    import importlib

    from pufferfish.proofs_check import PAPER_PACKAGES

    for package in PAPER_PACKAGES:
        paper = importlib.import_module(f"pufferfish.proofs_check.{package}")
        for module in paper.CLAIM_MODULES:
            importlib.import_module(f"{paper.__name__}.{module}")
