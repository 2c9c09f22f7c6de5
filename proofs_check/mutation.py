"""Mutants of the claims: a claim's own check run against a deliberately wrong paper formula or on an
instance outside the statement's hypotheses (:class:`pufferfish.proofs_check.registry.Mutant`).

A mutant replaces, for the duration of its run only, a module-level name that the check reads (the
function computing the paper's formula, a constant of the statement) and runs the unchanged check
on a few instances; or it runs the unchanged check on instances that break a hypothesis.  The
mutant is killed when the check reports a failure on one of them.  Patching a module attribute is
what lets the mutant exercise the registered check itself rather than a copy of it.

>>> import types
>>> from pufferfish.proofs_check.registry import ClaimOutcome
>>> formulas = types.SimpleNamespace(double=lambda x: 2 * x)
>>> check = lambda x: ClaimOutcome(formulas.double(x) == x + x, "2x = x + x")
>>> patched("double replaced by triple", check, [1, 2], formulas, double=lambda x: 3 * x).killed()
True
>>> formulas.double(5)
10
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pufferfish.proofs_check.registry import ClaimOutcome, Mutant


def patched(label: str, check: Callable[[Any], ClaimOutcome], instances: Iterable[Any],
            target: Any = None, **replacements: Any) -> Mutant:
    """A mutant running ``check`` on ``instances`` with ``target``'s attributes replaced.

    ``target`` is a module (or any object) and ``replacements`` maps attribute names to their
    mutated values; the originals are restored when the run ends, also on an exception.  With no
    replacements the mutant only runs ``check`` on the given (hypothesis-breaking) instances.
    Instances are materialised at each run, so a generator function may be passed as
    ``lambda: ...`` through :func:`on`.
    """

    def run() -> list[ClaimOutcome]:
        saved = {name: getattr(target, name) for name in replacements}
        try:
            for name, value in replacements.items():
                setattr(target, name, value)
            return [check(instance) for instance in _materialise(instances)]
        finally:
            for name, value in saved.items():
                setattr(target, name, value)

    return Mutant(label, run)


def on(label: str, check: Callable[[Any], ClaimOutcome], instances: Iterable[Any]) -> Mutant:
    """A mutant running the unchanged ``check`` on instances outside the statement's hypotheses."""
    return patched(label, check, instances)


def _materialise(instances: Any) -> list:
    return list(instances() if callable(instances) else instances)


__all__ = ["patched", "on"]
