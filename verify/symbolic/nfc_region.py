"""Where Theorem 4's necessary condition for linear composition holds, as a function of the
parameters: ``pufferfish composes MODEL --epsilon E --region``.

The NfC value of mechanisms ``M_1..M_m`` (Bai et al., Composition for Pufferfish Privacy, §5.1,
Theorem 4; :mod:`pufferfish.verify.nfc.programs`) is the largest optimum of the linear programs
``max_α min_ℓ Σ_i α_i d_ℓi`` with coefficients ``d_ℓi = log P(ω_i|D*) − log P(ω_i|D_ℓ)``.  In a
parametric model each ``P(ω|D)`` is a rational function of the parameters, but the optimum of a
linear program in those coefficients is only *piecewise* a function of them (the optimal basis
changes), and the coefficients are logarithms: the NfC value is neither rational nor exactly
computable as a closed form.  **This region is therefore certified numerically, not exact**: every
box is decided by interval-verified LP certificates, and no float decides anything.

Certificate of a box ``B`` (sound for every point of ``B``, no sampling):

1. *Constant structure.* Every nonzero prior probability and kernel entry (a rational function)
   is proved ``> 0`` on ``B`` (exact rational bounds of numerator and denominator,
   :class:`pufferfish.models.polynomials.BoundedPolynomial`); the supports, hence the set of
   programs, their outputs ``Ω*`` and their excluded datasets, are then the same at every point
   of ``B``.  Otherwise the box is undecided.
2. *Bounds.* Each ``log P(ω|D)`` is enclosed over ``B`` from the rational bounds of ``P``
   (:func:`pufferfish.verify.numerics.intervals.log_enclosure`).  For each program, a rational
   ``α`` on the simplex gives ``value >= min_ℓ Σ_i α_i d_ℓi`` and a rational ``β`` gives
   ``value <= max_i Σ_ℓ β_ℓ d_ℓi`` at every point (weak duality, the feasible sets do not depend
   on the parameters); both are bounded over ``B`` by the rigorous dot products of
   :mod:`pufferfish.verify.numerics.log_table`.  ``α`` and ``β`` are the dyadic certificates of
   :func:`pufferfish.verify.nfc.programs.nfc_programs` at a rational point of ``B`` (the centre
   of the box, or of an ancestor box whose certificate is tried first; an inherited certificate
   is used only if it covers every program of ``B`` with ``α`` on its possible outputs and ``β``
   on its kept datasets, else the programs are solved at the centre of ``B``).
3. *Verdict* (:func:`pufferfish.verify.nfc.programs.nfc_verdict`, exact comparison with ε): the
   condition NfC <= ε *holds* on ``B`` when every program's upper bound is <= ε, *fails* when some
   program's lower bound is > ε (a program whose datasets are all excluded has value +inf).

Undecided boxes are bisected along their widest side (:func:`bisect_widest`) until narrower
than ``width`` and then reported as the boundary layer.  With one parameter the boxes are merged
into intervals with rational endpoints.

Cost: per box, one bound of each distinct probability (``O(terms)`` rational operations), one log
enclosure each, and ``O(|Ω*|·|Ξ2|)`` numpy work per program; an LP pair per program only when the
inherited certificate does not decide the box.  Boxes: ``O(log(extent/width))`` per boundary
point with one parameter, ``O((extent/width)^(d−1))`` near the boundary with ``d``.

>>> from pufferfish.models.parametric import load_parametric_model
>>> from pufferfish.examples import example_path
>>> model = load_parametric_model(example_path("quickstart_parametric.json")).restrict({"q": "9/10"})
>>> region = nfc_region(model, "log(3)", ["rr"], width=Fraction(1, 64))
>>> for kind in ("holds", "fails", "boundary"):
...     print(kind, [f"[{a}, {b}]" for a, b in region.intervals(kind)])
holds ['[1/2, 47/64]']
fails ['[49/64, 63/64]']
boundary ['[47/64, 49/64]', '[63/64, 1]']

Randomized response alone has NfC value ``log(p/(1 − p))``, which crosses ``log 3`` at
``p = 3/4`` (inside the first boundary interval); at ``p = 1`` it never flips, outputs become
impossible and the programs change, so the last box is never decided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.parameter_box import bisect_widest
from pufferfish.models.parametric import ParametricModel
from pufferfish.models.polynomials import BoundedPolynomial, fraction_text, polynomial_terms
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.nfc.programs import (DEFAULT_MAX_COEFFICIENTS, nfc_programs, nfc_verdict)
from pufferfish.verify.numerics.certified import Budget, parse_budget
from pufferfish.verify.numerics.intervals import log_enclosure
from pufferfish.verify.numerics.log_table import (dot_lower, dot_upper, lower_difference,
                                                  upper_difference)
from pufferfish.verify.report import Explained
from pufferfish.verify.symbolic.evaluate import SymbolicModel

__all__ = ["NfcRegion", "nfc_region", "CERTIFICATION"]

Box = tuple[tuple[Fraction, Fraction], ...]

CERTIFICATION = ("certified numerically, not exact: the NfC value is the optimum of linear "
                 "programs in logarithms of the probabilities, only piecewise a function of the "
                 "parameters; each box is decided by rational LP certificates (α, β) whose "
                 "bounds are verified over the whole box with interval arithmetic")
"""What ``composes --region`` certifies, as its reports state it."""

KINDS = ("holds", "fails", "boundary")


@dataclass(frozen=True, repr=False)
class NfcRegion(Explained):
    """Boxes where NfC <= ε is proved (``inside``), where NfC > ε is proved (``outside``), and
    the undecided boundary layer, each narrower than ``width``."""

    names: tuple[str, ...]
    ranges: dict
    budget: Budget
    mechanisms: tuple[str, ...]
    inside: tuple[Box, ...]
    outside: tuple[Box, ...]
    boundary: tuple[Box, ...]
    width: Fraction
    solves: int
    method: str = "map"

    @property
    def scope(self) -> str:
        return f"NfC value of {', '.join(self.mechanisms)} <= ε"

    def summary(self) -> str:
        return f"region where the {self.scope} (ε = {self.budget.text})"

    def boxes(self, kind: str) -> tuple[Box, ...]:
        return {"holds": self.inside, "fails": self.outside, "boundary": self.boundary}[kind]

    def intervals(self, kind: str) -> list[tuple[Fraction, Fraction]]:
        """One parameter: the boxes of ``kind`` merged into closed intervals."""
        merged: list[list[Fraction]] = []
        for (low, high), in sorted(self.boxes(kind)):
            if merged and merged[-1][1] == low:
                merged[-1][1] = high
            else:
                merged.append([low, high])
        return [(a, b) for a, b in merged]

    def ranges_fractions(self) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
        return (tuple(Fraction(a) for a, _ in self.ranges.values()),
                tuple(Fraction(b) for _, b in self.ranges.values()))

    def _volume(self, kind: str) -> Fraction:
        total = Fraction(0)
        for box in self.boxes(kind):
            size = Fraction(1)
            for a, b in box:
                size *= b - a
            total += size
        return total

    def to_dict(self) -> dict:
        data: dict = {"check": "nfc_region", "parameters": self.ranges, "budget": self.budget.text,
                      "mechanisms": list(self.mechanisms), "method": "certified_numerical",
                      "certification": CERTIFICATION, "width": fraction_text(self.width),
                      "programs_solved_at": self.solves,
                      "area": {k: fraction_text(self._volume(k)) for k in KINDS},
                      "boxes": {k: [{n: [fraction_text(a), fraction_text(b)]
                                     for n, (a, b) in zip(self.names, box)}
                                    for box in self.boxes(k)] for k in KINDS}}
        if len(self.names) == 1:
            data["intervals"] = {k: [[fraction_text(a), fraction_text(b)]
                                     for a, b in self.intervals(k)] for k in KINDS}
        return data

    def explain(self, source: str = "the model") -> str:
        ranges = ", ".join(f"{n} in [{a}, {b}]" for n, (a, b) in self.ranges.items())
        lines = [f"Region of {source} where the {self.scope} = {self.budget.text} "
                 f"(Theorem 4's necessary condition), over {ranges}",
                 "certified numerically, not exact (interval-verified LP certificates; the NfC "
                 "value is only piecewise a function of the parameters); boundary boxes "
                 f"narrower than {fraction_text(self.width)}"]
        labels = {"holds": "holds (NfC <= ε proved)", "fails": "fails (NfC > ε proved)",
                  "boundary": "boundary (undecided)"}
        if len(self.names) == 1:
            for kind in KINDS:
                shown = self.intervals(kind)
                lines.append(f"{labels[kind]}: " + ("none" if not shown else ", ".join(
                    f"[{fraction_text(a)}, {fraction_text(b)}]" for a, b in shown)))
        else:
            total = Fraction(1)
            for a, b in zip(*self.ranges_fractions()):
                total *= b - a
            for kind in KINDS:
                share = self._volume(kind) / total if total else Fraction(0)
                lines.append(f"  {labels[kind]:<26} {len(self.boxes(kind)):>6} boxes, "
                             f"{float(share):.2%} of the parameter box")
        lines.append(f"LP certificates computed at {self.solves} point(s)")
        return "\n".join(lines)


class _BoxCertifier:
    """The probabilities of a parametric model as bounded rational functions, and the NfC
    certificates of boxes (see the module docstring)."""

    def __init__(self, model: ParametricModel, mechanisms: list[str], max_datasets: int,
                 max_outputs: int, max_coefficients: int) -> None:
        self.model = model
        self.mechanisms = mechanisms
        self.max_datasets, self.max_outputs = max_datasets, max_outputs
        self.max_coefficients = max_coefficients
        symbolic = SymbolicModel(model, max_datasets, max_outputs)
        self.field = symbolic.field
        if symbolic.interval_families:
            name = symbolic.interval_families[0]
            raise UnsupportedError(f"prior {name!r} is an interval family; NfC regions are "
                                   f"computed for table, independent, markov and uniform priors",
                                   f"priors.{name}")
        self.datasets = symbolic.datasets
        self.index = {d: i for i, d in enumerate(self.datasets)}
        kernels = {m: symbolic.kernel(m) for m in mechanisms}
        self.outputs = [(m, o) for m in mechanisms
                        for o in dict.fromkeys(o for row in kernels[m].values() for o in row)]
        self.column = {key: j for j, key in enumerate(self.outputs)}
        self.entries: dict[tuple[int, int], object] = {}
        for m in mechanisms:
            for d, row in kernels[m].items():
                for o, value in row.items():
                    self.entries[(self.index[d], self.column[(m, o)])] = value
        self.prior_entries = [v for name in symbolic.finite_priors
                              for v in symbolic.prior(name).values()]
        self.programs = self._program_keys(symbolic)
        self.symbols = model.box.symbols
        self.factors: list[BoundedPolynomial] = []
        self.factor_index: dict = {}
        self.factored: dict = {}
        self.ratios: dict[tuple[int, int, int], object] = {}
        self.solves = 0

    @staticmethod
    def _program_keys(symbolic: SymbolicModel) -> frozenset:
        """The programs ``(s1, s2, D*, supp θ(·|s2))`` of every finite prior (as
        :func:`pufferfish.verify.nfc.programs.nfc_programs` builds them), read from the nonzero
        prior probabilities: on a box where each of them is proved > 0 these are the programs at
        every point."""
        keys = set()
        for name in symbolic.finite_priors:
            support = list(symbolic.prior(name))
            for pair in symbolic.generic.pairs:
                for first, second in pair.directions():
                    xi1 = [d for d in support if first.holds(d)]
                    xi2 = frozenset(d for d in support if second.holds(d))
                    if xi1 and xi2:
                        keys.update((first.name, second.name, d, xi2) for d in xi1)
        return frozenset(keys)

    def _factors(self, polynomial) -> tuple[Fraction, list[tuple[int, int]]]:
        """``polynomial`` as a rational constant times powers of irreducible factors (indices
        into :attr:`factors`), each bounded on its own: tight near the factor's zeros (e.g.
        ``(1 − p)^3`` near 1), and shared by every probability that has it."""
        constant, factors = sympy.Poly(polynomial.as_expr(), *self.symbols).factor_list()
        constant = sympy.Rational(constant)
        indices = []
        for factor, power in factors:
            key = factor.as_expr()
            if key not in self.factor_index:
                self.factor_index[key] = len(self.factors)
                self.factors.append(BoundedPolynomial.of(
                    polynomial_terms(self.field(key).numer)))
            indices.append((self.factor_index[key], power))
        return Fraction(int(constant.p), int(constant.q)), indices

    def _factored(self, value) -> tuple:
        if value not in self.factored:
            self.factored[value] = (self._factors(value.numer), self._factors(value.denom))
        return self.factored[value]

    def _product_bounds(self, factored, box: Box, cache: dict) -> tuple[Fraction, Fraction]:
        constant, factors = factored
        low = high = constant
        for index, power in factors:
            if index not in cache:
                cache[index] = self.factors[index].bounds(box)
            a, b = cache[index]
            ends = [a ** power, b ** power]
            f_low, f_high = (min(ends), max(ends))
            if power % 2 == 0 and a < 0 < b:
                f_low = Fraction(0)
            products = [low * f_low, low * f_high, high * f_low, high * f_high]
            low, high = min(products), max(products)
        return low, high

    def _bounds(self, value, box: Box, cache: dict) -> tuple[Fraction, Fraction] | None:
        """Rational bounds of a positive rational function on ``box`` (``cache``: the bounds of
        the factors on this box), or ``None`` unless it is proved > 0."""
        if ("value", value) in cache:
            return cache[("value", value)]
        cache[("value", value)] = bounds = self._quotient_bounds(value, box, cache)
        return bounds

    def _quotient_bounds(self, value, box: Box, cache: dict) -> tuple[Fraction, Fraction] | None:
        numerator, denominator = self._factored(value)
        n_low, n_high = self._product_bounds(numerator, box, cache)
        d_low, d_high = self._product_bounds(denominator, box, cache)
        if d_low <= 0 <= d_high:
            return None
        quotients = [n / d for n in (n_low, n_high) for d in (d_low, d_high)]
        low, high = min(quotients), max(quotients)
        return (low, high) if low > 0 else None

    def log_tables(self, box: Box, cache: dict) -> tuple[np.ndarray, np.ndarray] | None:
        """Enclosures of every ``log P(ω|D)`` over ``box`` (``-inf`` where ``P`` is identically
        0), or ``None`` when the zero pattern is not proved constant on the box."""
        for value in dict.fromkeys(self.prior_entries):
            if self._bounds(value, box, cache) is None:
                return None
        shape = (len(self.datasets), len(self.outputs))
        low, high = np.full(shape, -math.inf), np.full(shape, -math.inf)
        logs: dict = {}
        for (d, o), value in self.entries.items():
            if value not in logs:
                bounds = self._bounds(value, box, cache)
                if bounds is None:
                    return None
                logs[value] = (log_enclosure(bounds[0])[0],
                               log_enclosure(min(bounds[1], Fraction(1)))[1])
            low[d, o], high[d, o] = logs[value]
        return low, high

    def certificates(self, box: Box) -> dict:
        """The dyadic ``α`` and ``β`` of every program, solved at the centre of ``box``."""
        centre = {n: (a + b) / 2 for n, (a, b) in zip(self.model.box.names, box)}
        instance = self.model.instantiate(centre, max_datasets=self.max_datasets)
        result = nfc_programs(instance, [instance.mechanism(m) for m in self.mechanisms], None,
                              self.max_datasets, self.max_outputs, self.max_coefficients)
        self.solves += 1
        return {(p.first, p.second, p.d_star, frozenset(p.support)): (p.alpha, p.beta)
                for p in result.programs}

    def _tighten(self, a_low: np.ndarray, a_high: np.ndarray, star: int, kept: np.ndarray,
                 columns: np.ndarray, box: Box, cache: dict) -> None:
        """Narrow the enclosures of ``d_ℓi = log(P(ω_i|D*)/P(ω_i|D_ℓ))`` with bounds of the
        ratio itself (reduced and factored: common factors cancel, so the enclosure shrinks with
        the box much faster than the difference of two logarithms)."""
        logs: dict = cache.setdefault("logs", {})
        for r, row in enumerate(kept):
            for c, column in enumerate(columns):
                key = (star, int(row), int(column))
                if key not in self.ratios:
                    self.ratios[key] = (self.entries[(star, int(column))] /
                                        self.entries[(int(row), int(column))])
                bounds = self._bounds(self.ratios[key], box, cache)
                if bounds is None:
                    continue
                for end in bounds:
                    if end not in logs:
                        logs[end] = log_enclosure(end)
                a_low[r, c] = max(a_low[r, c], logs[bounds[0]][0])
                a_high[r, c] = min(a_high[r, c], logs[bounds[1]][1])

    def decide(self, box: Box, certificates: dict | None, budget: Budget) -> str:
        """``"holds"``, ``"violated"`` or ``"undecided"`` on ``box`` with these certificates
        (``None``: none yet), or ``"mixed"`` when the zero pattern is not proved constant on
        the box (no certificate can decide it): first with the differences of the logarithms'
        enclosures, then, if that does not decide, with the tighter enclosures of the ratios."""
        cache: dict = {}
        tables = self.log_tables(box, cache)
        if tables is None:
            return "mixed"
        if certificates is None:
            return "undecided"
        verdict = self._decide(tables, certificates, budget, box, cache, tight=False)
        if verdict == "undecided":
            verdict = self._decide(tables, certificates, budget, box, cache, tight=True)
        return verdict

    def _decide(self, tables: tuple[np.ndarray, np.ndarray], certificates: dict, budget: Budget,
                box: Box, cache: dict, tight: bool) -> str:
        low, high = tables
        lower, upper = -math.inf, -math.inf
        if not self.programs <= set(certificates):
            return "undecided"          # certificates from a point of another structure
        for (first, second, d_star, support), (alpha, beta) in certificates.items():
            if (first, second, d_star, support) not in self.programs:
                continue
            star = self.index[d_star]
            columns = np.flatnonzero(high[star] > -math.inf)
            rows = np.array([self.index[d] for d in support])
            kept = rows[(high[np.ix_(rows, columns)] > -math.inf).all(axis=1)]
            if kept.size == 0:
                lower = upper = math.inf
                break
            a_low = lower_difference(low[star, columns][None, :], high[np.ix_(kept, columns)])
            a_high = upper_difference(high[star, columns][None, :], low[np.ix_(kept, columns)])
            if tight:
                self._tighten(a_low, a_high, star, kept, columns, box, cache)
            position = {int(c): k for k, c in enumerate(columns)}
            place = {int(r): k for k, r in enumerate(kept)}
            if not (beta and all(self.column.get(key) in position for key, _ in alpha) and
                    all(self.index[dataset] in place for dataset, _ in beta)):
                return "undecided"      # α or β of a point where other outputs are possible
            alpha_vector = np.zeros(columns.size)
            for key, weight in alpha:
                alpha_vector[position[self.column[key]]] = float(weight)
            beta_vector = np.zeros(kept.size)
            for dataset, weight in beta:
                beta_vector[place[self.index[dataset]]] = float(weight)
            lower = max(lower, float(np.min(dot_lower(alpha_vector, a_low))))
            upper = max(upper, float(np.max(dot_upper(beta_vector, a_high.T))))
        return nfc_verdict(lower, upper, budget)


def nfc_region(model: ParametricModel, epsilon: str | Budget, mechanisms: list[str] | None = None,
               width: Fraction | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
               max_outputs: int = DEFAULT_MAX_OUTPUTS,
               max_coefficients: int = DEFAULT_MAX_COEFFICIENTS) -> NfcRegion:
    """The certified map of ``NfC value of mechanisms <= epsilon`` over the parameter box (see
    the module docstring); ``mechanisms`` default to all, ``width`` to 1/64 of the widest
    range."""
    budget = epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon)
    names = list(model.data.get("mechanisms") or {})
    chosen = list(mechanisms) if mechanisms else names
    if not chosen:
        raise ModelError("the model has no mechanisms", "mechanisms")
    for name in chosen:
        if name not in names:
            raise ModelError(f"no mechanism {name!r}; the model has {', '.join(names)}",
                             "--mechanism")
    box = model.box
    if width is None:
        width = max(b - a for a, b in box.bounds) / 64
    if width <= 0:
        raise ModelError("the boundary width must be positive", "--width")
    if all(a == b for a, b in box.bounds):
        raise ModelError("every free parameter has a point range; use --set", "parameters")
    certifier = _BoxCertifier(model, chosen, max_datasets, max_outputs, max_coefficients)
    found: dict[str, list[Box]] = {"holds": [], "violated": [], "undecided": []}
    pending: list[tuple[Box, dict | None]] = [(box.bounds, None)]
    while pending:
        current, inherited = pending.pop()
        verdict = certifier.decide(current, inherited, budget)
        certificates = inherited
        if verdict == "undecided":
            certificates = certifier.certificates(current)
            verdict = certifier.decide(current, certificates, budget)
        if verdict in ("holds", "violated"):
            found[verdict].append(current)
            continue
        halves = bisect_widest(current, width)
        if halves is None:
            found["undecided"].append(current)
            continue
        pending.extend((half, certificates) for half in halves)
    key = lambda b: tuple(a for a, _ in b)  # noqa: E731
    return NfcRegion(box.names, box.to_dict(), budget, tuple(chosen),
                     tuple(sorted(found["holds"], key=key)),
                     tuple(sorted(found["violated"], key=key)),
                     tuple(sorted(found["undecided"], key=key)), width, certifier.solves)
