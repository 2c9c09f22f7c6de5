"""Which numbered statements of each paper the claims check (issue 17, ``theorems --coverage``).

Each paper package lists its checkable statements in a ``statements`` module as a tuple
``STATEMENTS`` of :class:`Statement`: the statement's name as the paper prints it (``"Theorem 3"``,
``"Example 4.2"``, ``"Algorithm 1"``, ``"Table 5"``), its section, and either the ids of the claims
that check it or the reason it cannot be checked on a finite instance (with what is checked
instead, e.g. "numerical check on a grid, labelled so").

>>> s = Statement("Theorem 1", "§4", claims=("000.thm1.zero_leakage",))
>>> s.covered
True
>>> Statement("Lemma 9", "App. B", reason="asymptotic in T; no finite instance decides it").covered
False
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Statement:
    """One numbered statement of a paper and how the toolkit checks it.

    ``claims`` are registered claim ids; ``reason`` says why there is no exact claim (required
    when ``claims`` is empty, and allowed beside claims to say what part stays unchecked).
    """

    name: str
    section: str
    claims: tuple[str, ...] = ()
    reason: str | None = None

    def __post_init__(self) -> None:
        if not self.claims and not self.reason:
            raise ValueError(f"statement {self.name!r} has neither claims nor a reason")

    @property
    def covered(self) -> bool:
        """True when at least one registered claim checks the statement."""
        return bool(self.claims)

    def to_dict(self) -> dict:
        return {"name": self.name, "section": self.section, "claims": list(self.claims),
                "reason": self.reason, "covered": self.covered}
