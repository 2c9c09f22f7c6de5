"""Programs run by the checker with its own primitives: finite draws exactly, geometric noise in a
window, with the exact mass left outside the window as a rigorous bound.

A program file is loaded with a stand-in module in place of ``pufferfish.models.programs`` (in
``sys.modules`` only while the file is imported; nothing of the engine is imported).  Its runs are
enumerated by replay: each run follows a prefix of choices; a new draw of geometric noise, on a
path of probability ``w``, offers the values ``z`` with ``|z| <= r``, ``r`` the largest radius with
``w·Pr[Z = ±r] >= threshold``, and adds ``w·Pr[|Z| > r]`` (exact) to the mass left out (all of
``w`` when even ``z = 0`` falls below the threshold, the run then stopping there).  Every run of
positive probability is either completed or accounted for in the mass left out, so for every
output ``ω``: ``found(ω) <= Pr[ω] <= found(ω) + left_out``.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import sys
import types
from fractions import Fraction
from pathlib import Path

from pufferfish_check.reader import BadInput, key

DEFAULT_THRESHOLD = Fraction(1, 2 ** 16)


class _Stop(Exception):
    """The run's remaining mass fell below the threshold; it is counted as left out."""


class _Run:
    def __init__(self, prefix: list[int], enumerator: "Enumerator") -> None:
        self.prefix, self.taken, self.options = prefix, [], []
        self.weight, self.enumerator = Fraction(1), enumerator

    def decide(self, count: int) -> int:
        position = len(self.taken)
        index = self.prefix[position] if position < len(self.prefix) else 0
        self.taken.append(index)
        self.options.append(count)
        return index

    @property
    def fresh(self) -> bool:
        return len(self.taken) >= len(self.prefix)


class Enumerator:
    """Replay enumeration of one program on one dataset (module docstring)."""

    current: "Enumerator | None" = None

    def __init__(self, threshold: Fraction = DEFAULT_THRESHOLD, max_runs: int = 2_000_000) -> None:
        self.threshold, self.max_runs = threshold, max_runs
        self.run: _Run | None = None
        self.left_out = Fraction(0)
        self.runs = 0

    def choose(self, options: list[tuple[object, Fraction]]) -> object:
        options = [(v, Fraction(p)) for v, p in options if p]
        if sum(p for _, p in options) != 1:
            raise BadInput("a program's choice has probabilities that do not sum to 1")
        value, p = options[self.run.decide(len(options))] if len(options) > 1 else options[0]
        self.run.weight *= p
        return value

    def noise(self, alpha: Fraction, two_sided: bool) -> int:
        run, fresh = self.run, self.run.fresh
        pmf, outside, log_pmf = _noise_table(alpha, two_sided)
        # the radius is chosen in floating point; the mass left outside it is exact
        budget = math.log2(float(run.weight)) - math.log2(float(self.threshold))
        radius = -1
        while radius + 1 < len(log_pmf) and budget + log_pmf[radius + 1] >= 0:
            radius += 1
        if radius < 0:
            if fresh:
                self.left_out += run.weight
            raise _Stop
        if fresh:
            self.left_out += run.weight * outside[radius]
        values = ([0] + [z for r in range(1, radius + 1) for z in (r, -r)] if two_sided
                  else list(range(radius + 1)))
        index = run.decide(len(values))
        run.weight *= pmf[abs(values[index])]
        return values[index]

    def law(self, program, dataset: tuple, arguments: dict) -> tuple[dict, Fraction, int]:
        """``(found, left_out, runs)``: the mass found per output key and the mass left out."""
        found: dict = {}
        pending: list[list[int]] = [[]]
        previous, Enumerator.current = Enumerator.current, self
        try:
            while pending:
                self.runs += 1
                if self.runs > self.max_runs:
                    raise BadInput(f"more than {self.max_runs} runs on dataset {list(dataset)}")
                self.run = run = _Run(pending.pop(), self)
                try:
                    output = program(dataset, **arguments)
                except _Stop:
                    output = _Stop
                for position in range(len(run.prefix), len(run.taken)):
                    for alternative in range(1, run.options[position]):
                        pending.append(run.taken[:position] + [alternative])
                if output is not _Stop:
                    try:
                        k = key(output)
                    except (TypeError, ValueError):
                        raise BadInput(f"a program returned {output!r:.60}, not a JSON value")
                    found[k] = found.get(k, Fraction(0)) + run.weight
        finally:
            Enumerator.current = previous
        return found, self.left_out, self.runs


@functools.lru_cache(maxsize=64)
def _noise_table(alpha: Fraction, two_sided: bool, radii: int = 400):
    """``Pr[Z = ±r]`` (one value), ``Pr[|Z| > r]`` exactly, and ``log2 Pr[Z = r]`` (a float, to
    choose radii) for ``r < radii``: two-sided ``(1 − α)/(1 + α)·α^|z|``, tail ``2α^(r+1)/(1 + α)``;
    one-sided ``(1 − α)·α^z``, tail ``α^(r+1)``."""
    scale = (1 - alpha) / (1 + alpha) if two_sided else 1 - alpha
    pmf = [scale * alpha ** r for r in range(radii)]
    outside = [(2 / (1 + alpha) if two_sided else 1) * alpha ** (r + 1) for r in range(radii)]
    return pmf, outside, [math.log2(float(scale)) + r * math.log2(float(alpha))
                          for r in range(radii)]


@functools.lru_cache(maxsize=64)
def _alpha(alpha) -> Fraction:
    value = Fraction(alpha) if isinstance(alpha, int | str | Fraction) and not isinstance(
        alpha, bool) else None
    if value is None or not 0 <= value < 1:
        raise ValueError(f"alpha must be an exact number in [0, 1), got {alpha!r}")
    return value


def choice(weighted):
    items = list(weighted.items() if isinstance(weighted, dict) else weighted)
    return Enumerator.current.choose([(v, Fraction(p)) for v, p in items])


def coin(p=Fraction(1, 2)):
    p = Fraction(p)
    return choice([(True, p), (False, 1 - p)])


def uniform(values):
    values = list(values)
    return choice([(v, Fraction(1, len(values))) for v in values])


def exponential_mechanism(scores, base):
    items = list(scores.items() if isinstance(scores, dict) else scores)
    base, low = Fraction(base), min(s for _, s in items)
    weights = [base ** (s - low) for _, s in items]
    return choice([(c, w / sum(weights)) for (c, _), w in zip(items, weights)])


def geometric(alpha):
    alpha = _alpha(alpha)
    return Enumerator.current.noise(alpha, True) if alpha else 0


def one_sided_geometric(alpha):
    alpha = _alpha(alpha)
    return Enumerator.current.noise(alpha, False) if alpha else 0


def load_program(file: Path, function: str):
    """The function ``function`` of the program ``file``, imported with the stand-in module."""
    stand_in = types.ModuleType("pufferfish.models.programs")
    for name in ("choice", "coin", "uniform", "exponential_mechanism", "geometric",
                 "one_sided_geometric"):
        setattr(stand_in, name, globals()[name])
    names = ("pufferfish", "pufferfish.models", "pufferfish.models.programs")
    saved = {name: sys.modules.get(name) for name in names}
    for name in names[:2]:
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = []
    sys.modules[names[2]] = stand_in
    try:
        spec = importlib.util.spec_from_file_location(f"_checked_program_{file.stem}", file)
        if spec is None:
            raise BadInput(f"cannot load the program {file}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except OSError as error:
        raise BadInput(f"cannot read the program {file}: {error}") from None
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
    if not callable(getattr(module, function, None)):
        raise BadInput(f"{file} has no function {function!r}")
    return getattr(module, function)
