"""The state of one run of a program: the decisions it takes and the noise it draws.

A run replays a prescribed prefix of decisions and takes the first option at every new one
(:mod:`~pufferfish.models.programs.enumerate` queues the others); the primitives of
:mod:`~pufferfish.models.programs.enumerate` and :mod:`~pufferfish.models.programs.noise` find
the run in progress through :func:`current_run`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from fractions import Fraction
from numbers import Rational

from pufferfish.models.programs.constraints import NoiseConstraints

__all__ = ["Run", "StepLimit", "CURRENT_RUN", "current_run", "exact_parameter"]


class StepLimit(Exception):
    """More steps on one run than its limit."""


class Run:
    """One execution of the program along a prescribed prefix of decisions."""

    def __init__(self, prefix: Sequence[int], max_steps: int) -> None:
        self.prefix = prefix
        self.taken: list[int] = []
        self.options: list[int] = []
        self.weight = Fraction(1)
        self.noise = NoiseConstraints()
        self.steps = 0
        self.max_steps = max_steps
        # noise kinds drawn: "symbolic" (the discrete Laplace at a multiple of the symbol ε),
        # "fixed" (any noise at a fixed parameter); a run may not mix them
        self.noise_kinds: set[str] = set()

    def draws(self, kind: str) -> None:
        """Record a noise draw of ``kind``; a run with ε as a symbol draws only symbolic noise
        (the law of fixed noise mixed with it may change its order with ε)."""
        self.noise_kinds.add(kind)
        if kind == "symbolic":  # a certified (numeric) mass would not be a function of ε
            self.noise.symbolic = True
        if len(self.noise_kinds) > 1:
            raise TypeError("a program with ε as a symbol may draw only discrete_laplace noise "
                            "at multiples of ε (c·ε): other noise at a fixed parameter is not "
                            "supported with the symbol")

    def step(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise StepLimit()

    def decide(self, count: int) -> int:
        """The index of the option taken at the next decision among ``count`` options."""
        position = len(self.taken)
        index = self.prefix[position] if position < len(self.prefix) else 0
        self.taken.append(index)
        self.options.append(count)
        return index


CURRENT_RUN: ContextVar[Run | None] = ContextVar("pufferfish_program_run", default=None)


def current_run() -> Run:
    """The run in progress (one step more), or ``RuntimeError`` outside a run."""
    run = CURRENT_RUN.get()
    if run is None:
        raise RuntimeError("random primitives of pufferfish.models.programs can only be called "
                           "by a program that the toolkit enumerates (program_distribution)")
    run.step()
    return run


def exact_parameter(value: object, what: str) -> Fraction:
    """A primitive's parameter as an exact number (floats and booleans refused)."""
    if isinstance(value, bool) or isinstance(value, float) or not isinstance(value, Rational | str):
        raise ValueError(f"{what} must be an exact number (an int, a Fraction or a string such "
                         f"as '1/2'), got {value!r}")
    return Fraction(value)
