"""Programs run with the checker's own primitives: finite draws exactly, geometric noise in a
window whose outside mass is exact.  A program file is loaded with a stand-in module in place of
``pufferfish.models.programs`` (in ``sys.modules`` only while the file loads).  Runs are replayed
by prefixes of choices; a new draw of noise on a path of mass ``w`` offers ``|z| <= r`` for the
largest ``r`` with ``w·Pr[Z = ±r] >= threshold`` and leaves out ``w·Pr[|Z| > r]`` (all of ``w``
below the threshold, the run stopping).  Every run is found or left out, so for each output
``ω``: ``found(ω) <= Pr[ω] <= found(ω) + left_out``.
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


class Enumerator:
    """Replay enumeration of one program on one dataset (module docstring).  A run replays the
    choices ``prefix``, then takes the first option of every new draw; ``taken``/``options``
    record each draw's choice and number of options, so the runs still to do are known."""

    current: "Enumerator | None" = None

    def __init__(self, threshold: Fraction = DEFAULT_THRESHOLD, max_runs: int = 2_000_000) -> None:
        self.threshold, self.max_runs, self.left_out, self.runs = threshold, max_runs, Fraction(0), 0

    def decide(self, count: int) -> tuple[int, bool]:
        """The option taken at the next draw, and whether the draw is new (not replayed)."""
        position = len(self.taken)
        index = self.prefix[position] if position < len(self.prefix) else 0
        self.taken.append(index)
        self.options.append(count)
        return index, position >= len(self.prefix)

    def choose(self, options: list[tuple[object, Fraction]]) -> object:
        options = [(v, Fraction(p)) for v, p in options if p]
        if sum(p for _, p in options) != 1:
            raise BadInput("a program's choice has probabilities that do not sum to 1")
        value, p = options[self.decide(len(options))[0]] if len(options) > 1 else options[0]
        self.weight *= p
        return value

    def noise(self, alpha: Fraction, two_sided: bool) -> int:
        pmf, outside, log_pmf = _noise_table(alpha, two_sided)
        # the radius is chosen in floating point; the mass left outside it is exact
        radius, budget = -1, (math.log2(float(self.weight)) - math.log2(float(self.threshold))
                              if self.weight >= self.threshold else -1)
        while radius + 1 < len(log_pmf) and budget + log_pmf[radius + 1] >= 0:
            radius += 1
        values = ([] if radius < 0 else [0] + [z for r in range(1, radius + 1) for z in (r, -r)]
                  if two_sided else list(range(radius + 1)))
        index, fresh = self.decide(max(1, len(values)))
        if fresh:
            self.left_out += self.weight * (outside[radius] if values else 1)
        if not values:
            raise _Stop
        self.weight *= pmf[abs(values[index])]
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
                self.prefix, self.taken, self.options, self.weight = pending.pop(), [], [], Fraction(1)
                try:
                    output = program(dataset, **arguments)
                except _Stop:
                    output = _Stop
                for position in range(len(self.prefix), len(self.taken)):
                    pending += [self.taken[:position] + [k] for k in range(1, self.options[position])]
                if output is not _Stop:
                    try:
                        k = key(output)
                    except (TypeError, ValueError):
                        raise BadInput(f"a program returned {output!r:.60}, not a JSON value")
                    found[k] = found.get(k, Fraction(0)) + self.weight
        finally:
            Enumerator.current = previous
        if sum(found.values()) + self.left_out != 1:  # every run is found or left out, exactly
            raise RuntimeError("the checker's enumeration lost mass: a defect of the checker")
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
    if isinstance(alpha, bool | float) or not 0 <= Fraction(alpha) < 1:
        raise ValueError(f"alpha must be an exact number in [0, 1), got {alpha!r}")
    return Fraction(alpha)


def choice(weighted):
    items = list(weighted.items() if isinstance(weighted, dict) else weighted)
    return Enumerator.current.choose([(v, Fraction(p)) for v, p in items])


def coin(p=Fraction(1, 2)):
    return choice([(True, Fraction(p)), (False, 1 - Fraction(p))])


def uniform(values):
    return choice([(v, Fraction(1, len(values))) for v in values])


def exponential_mechanism(scores, base):
    items = list(scores.items() if isinstance(scores, dict) else scores)
    base, low = Fraction(base), min(s for _, s in items)
    weights = [base ** (s - low) for _, s in items]
    return choice([(c, w / sum(weights)) for (c, _), w in zip(items, weights)])


def geometric(alpha):
    return Enumerator.current.noise(_alpha(alpha), True) if _alpha(alpha) else 0


def one_sided_geometric(alpha):
    return Enumerator.current.noise(_alpha(alpha), False) if _alpha(alpha) else 0


def load_program(file: Path, function: str):
    """The function ``function`` of the program ``file``, imported with the stand-in module."""
    names = ("pufferfish", "pufferfish.models", "pufferfish.models.programs")
    saved = {name: sys.modules.get(name) for name in names}
    for name in names:
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = []
    for name in ("choice", "coin", "uniform", "exponential_mechanism", "geometric",
                 "one_sided_geometric"):
        setattr(sys.modules[names[2]], name, globals()[name])
    try:
        spec = importlib.util.spec_from_loader(f"_checked_{file.stem}", loader=None)
        module = importlib.util.module_from_spec(spec)
        module.__file__ = str(file)
        exec(compile(file.read_text(encoding="utf-8"), str(file), "exec"), module.__dict__)
    except OSError as error:
        raise BadInput(f"cannot read the program {file}: {error}") from None
    finally:
        for name, previous in saved.items():
            sys.modules.pop(name, None) if previous is None else sys.modules.update({name: previous})
    if not callable(getattr(module, function, None)):
        raise BadInput(f"{file} has no function {function!r}")
    return getattr(module, function)
