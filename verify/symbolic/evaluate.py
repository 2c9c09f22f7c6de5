"""Symbolic evaluation of a parametric model: every prior probability and mechanism probability
as an exact rational function of the parameters, and the polynomial conditions of Definitions 1–5.

The definitions are those of :mod:`pufferfish.verify.privacy` (Bai et al., Composition for
Pufferfish Privacy, Definitions 1–5), read with rational functions in place of rationals.  For a
prior θ, a directed pair ``(s_i, s_j)`` and an output ω, write
``A_i(ω) = Σ_{D∈s_i} θ(D)·Pr[M(D) = ω]`` and ``B_i = Σ_{D∈s_i} θ(D)``; Definition 5 at budget
``log r`` is ``A_i(ω)·B_j <= r·A_j(ω)·B_i``. Written this way (not as a quotient) the convention of
the point audit is kept at every parameter value: a pair whose secret has probability 0 under θ
imposes ``0 <= 0``; a 0/0 ratio imposes nothing; ``x/0`` with ``x > 0`` violates every finite
budget.  DP (Definition 1, entry neighbours) is ``Pr[M(D) = ω] <= r·Pr[M(D') = ω]``.

A :class:`Candidate` is one such pair ``(A, B)`` of rational functions that are nonnegative on
the box; the level at a point is ``log max(1, max A/B)`` over the candidates with ``B > 0``
(``inf`` if some ``A > 0 = B``).  Numbers live in sympy's field ``QQ(p, q, ...)`` (canonical
reduced quotients of sparse polynomials).  Cost: one field operation per (dataset, output) pair
for each mechanism and prior, plus one per (pair, output) candidate; the universe and the output
space are bounded by ``max_datasets`` and ``max_outputs`` as in the point audit.

Supported: ``table``, ``independent``, ``markov`` and ``uniform`` priors; every mechanism kind of
the file format.  Interval families (Example 4.3) are not single priors: the candidates here
range over the finite priors (:attr:`SymbolicModel.finite_priors`), and
:mod:`pufferfish.verify.symbolic.families` gives a family's level as a guarded envelope.

>>> from pufferfish.models.parametric import load_parametric_model
>>> from pufferfish.examples import example_path
>>> model = SymbolicModel(load_parametric_model(example_path("quickstart_parametric.json")))
>>> sorted({str(c.ratio) for c in model.dp_candidates("rr")})
['(-p + 1)/p', '-p/(p - 1)']
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import sympy
from sympy import QQ

from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.parametric import ParametricModel
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.privacy.dp import neighbours

__all__ = ["Candidate", "SymbolicModel"]


@dataclass(frozen=True)
class Candidate:
    """One constraint ``A <= r·B`` (``A``, ``B`` nonnegative rational functions on the box), with
    the place it comes from (``where``: pair/prior/output, or datasets/output for DP)."""

    numerator: object
    denominator: object
    where: str

    @property
    def ratio(self):
        """``A/B`` reduced (``None`` when ``B`` is identically 0)."""
        return None if not self.denominator else self.numerator / self.denominator

    def gap(self, r: Fraction):
        """``A - r·B``, a field element; the constraint is ``gap <= 0``."""
        field = self.numerator.field
        return self.numerator - field(sympy.Rational(r.numerator, r.denominator)) * self.denominator


class SymbolicModel:
    """The rational functions of a :class:`ParametricModel` (see the module docstring)."""

    def __init__(self, model: ParametricModel, max_datasets: int = DEFAULT_MAX_DATASETS,
                 max_outputs: int = DEFAULT_MAX_OUTPUTS) -> None:
        self.model = model
        self.box = model.box
        self.field = QQ.frac_field(*model.box.symbols)
        self.generic = model.instantiate(model.box.midpoint(), max_datasets=max_datasets)
        self.universe = self.generic.universe
        self.datasets = list(self.universe.datasets(max_datasets))
        self.max_outputs = max_outputs
        self._kernels: dict[str, dict[Dataset, dict]] = {}
        self._priors: dict[str, dict[Dataset, object]] = {}
        self._rows: dict[str, dict[Dataset, int]] = {}
        self._values: dict[tuple, object] = {}

    # -- numbers ------------------------------------------------------------------------------
    def value(self, location: tuple):
        """The probability at ``location`` as a field element."""
        if location not in self._values:
            self._values[location] = self.field.from_sympy(self.model.expression(location))
        return self._values[location]

    # -- priors -------------------------------------------------------------------------------
    @property
    def finite_priors(self) -> list[str]:
        """The priors that are single distributions (not interval families)."""
        return [n for n, body in self.model.data["priors"].items() if "interval" not in body]

    @property
    def interval_families(self) -> list[str]:
        """The interval-family priors (:mod:`pufferfish.verify.symbolic.families`)."""
        return [n for n, body in self.model.data["priors"].items() if "interval" in body]

    def prior(self, name: str) -> dict[Dataset, object]:
        """``dataset -> θ(dataset)`` over the universe (zero entries left out)."""
        if name not in self._priors:
            self._priors[name] = self._build_prior(name)
        return self._priors[name]

    def _key(self, position: int, key: str):
        return next(v for v in self.universe.domains[position] if str(v) == key)

    def _build_prior(self, name: str) -> dict[Dataset, object]:
        body = self.model.data["priors"][name]
        base = ("priors", name)
        one, out = self.field.one, {}
        if "interval" in body:
            raise UnsupportedError(f"prior {name!r} is an interval family; the symbolic audit "
                                   f"handles table, independent, markov and uniform priors",
                                   f"priors.{name}")
        if "uniform" in body:
            share = self.field.from_sympy(sympy.Rational(1, len(self.datasets)))
            return {d: share for d in self.datasets}
        if "table" in body:
            for k, (dataset, _) in enumerate(body["table"]):
                out[tuple(dataset)] = self.value(base + ("table", k, 1))
            return {d: p for d, p in out.items() if p}
        factors: list[dict] = []
        if "independent" in body:
            for i, attribute in enumerate(self.universe.attributes):
                raw = body["independent"][attribute]
                factors.append({self._key(i, k): self.value(base + ("independent", attribute, k))
                                for k in raw})
            for dataset in self.datasets:
                p = one
                for i, v in enumerate(dataset):
                    p *= factors[i].get(v, self.field.zero)
                if p:
                    out[dataset] = p
            return out
        markov = body["markov"]
        initial = {self._key(0, k): self.value(base + ("markov", "initial", k))
                   for k in markov["initial"]}
        for dataset in self.datasets:
            p = initial.get(dataset[0], self.field.zero)
            for step in range(1, len(dataset)):
                prefix = (("transition",) if "transition" in markov else ("transitions", step - 1))
                row = _get(markov, prefix).get(str(dataset[step - 1]), {})
                key = str(dataset[step])
                p *= self.value(base + ("markov",) + prefix + (str(dataset[step - 1]), key)) \
                    if key in row else self.field.zero
                if not p:
                    break
            if p:
                out[dataset] = p
        return out

    # -- mechanisms ---------------------------------------------------------------------------
    def kernel(self, name: str | tuple[str, ...]) -> dict[Dataset, dict]:
        """``dataset -> {output: Pr[M(dataset) = output]}`` (zero entries left out); a tuple of
        names is their joint release (outputs are tuples)."""
        if name not in self._kernels:
            if isinstance(name, tuple):
                kernel = {d: self._product(name, d, "+".join(name)) for d in self.datasets}
            else:
                kernel = {d: self._distribution(name, d) for d in self.datasets}
            outputs = {o for row in kernel.values() for o in row}
            if len(outputs) > self.max_outputs:
                raise TooLargeError(f"mechanism {name!r} has {len(outputs):,} outputs, more than "
                                    f"--max-outputs {self.max_outputs:,}", f"mechanisms.{name}")
            self._kernels[name] = kernel
        return self._kernels[name]

    def _distribution(self, name: str, dataset: Dataset) -> dict:
        if name in self._kernels:
            return self._kernels[name][dataset]
        body = self.model.data["mechanisms"][name]
        base = ("mechanisms", name)
        mechanism = self.generic.mechanisms[name]
        if "table" in body:
            if name not in self._rows:
                self._rows[name] = {tuple(d): k for k, (d, _) in enumerate(body["table"])}
            k = self._rows[name][dataset]
            row = {_output(o): self.value(base + ("table", k, 1, j, 1))
                   for j, (o, _) in enumerate(body["table"][k][1])}
            return {o: p for o, p in row.items() if p}
        if "query" in body:
            answer = mechanism.query(dataset)
            if "noise" not in body:
                return {answer: self.field.one}
            return self._geometric(base, body["noise"]["geometric"], answer)
        if "per_entry" in body:
            keep = self.value(base + ("per_entry", "randomized_response", "keep"))
            result = {(): self.field.one}
            for position in mechanism.positions:
                value = dataset[position]
                others = [v for v in self.universe.domains[position] if v != value]
                entry = {value: keep} if others else {value: self.field.one}
                if others:
                    entry.update({v: (self.field.one - keep) / len(others) for v in others})
                result = {o + (v,): p * q for o, p in result.items() for v, q in entry.items() if p * q}
            return result
        if "compose" in body or "repeat" in body:
            parts = (body["compose"] if "compose" in body
                     else [body["repeat"]["mechanism"]] * body["repeat"]["times"])
            return self._product(parts, dataset, name)
        post = body["postprocess"]
        mapping = {_output(o): [(_output(y), self.value(base + ("postprocess", "map", k, 1, j, 1)))
                                for j, (y, _) in enumerate(row)]
                   for k, (o, row) in enumerate(post["map"])}
        result: dict = {}
        for o, p in self._distribution(post["mechanism"], dataset).items():
            if o not in mapping:
                raise ModelError(f"the post-processing map has no entry for output {o!r}",
                                 f"mechanisms.{name}.postprocess.map")
            for y, q in mapping[o]:
                result[y] = result.get(y, self.field.zero) + p * q
        return {o: p for o, p in result.items() if p}

    def _product(self, parts, dataset: Dataset, name: str) -> dict:
        """Independent runs of ``parts`` on ``dataset``; outputs are tuples."""
        result = {(): self.field.one}
        for part in parts:
            row = self._distribution(part, dataset)
            result = {o + (v,): p * q for o, p in result.items() for v, q in row.items()}
            if len(result) > self.max_outputs:
                raise TooLargeError(f"{name!r} has more than --max-outputs "
                                    f"{self.max_outputs:,} outputs", f"mechanisms.{name}")
        return result

    def _geometric(self, base: tuple, noise: dict, centre: int) -> dict:
        """``clamp(centre + Z, min, max)`` for two-sided geometric ``Z`` with parameter α
        (:class:`pufferfish.models.mechanisms.GeometricNoise`; the closed forms hold for α = 0)."""
        a = self.value(base + ("noise", "geometric", "alpha"))
        one = self.field.one
        low, high = noise["min"], noise["max"]
        if low == high:
            return {low: one}

        def tail_at_least(t: int):
            return a ** t / (one + a) if t >= 1 else one - a ** (1 - t) / (one + a)

        out = {low: tail_at_least(centre - low), high: tail_at_least(high - centre)}
        scale = (one - a) / (one + a)
        for y in range(low + 1, high):
            out[y] = scale * a ** abs(y - centre)
        return {o: p for o, p in out.items() if p}

    # -- Definitions 1, 4, 5 as candidates ----------------------------------------------------
    def pufferfish_candidates(self, name: str | tuple[str, ...]) -> list[Candidate]:
        """Definition 5: ``(A_i(ω)·B_j, A_j(ω)·B_i)`` for every finite prior, directed pair and
        output, without repeats (``name`` a tuple: the joint release of those mechanisms)."""
        out: dict[tuple, Candidate] = {}
        for pair in self.generic.pairs:
            for first, second in pair.directions():
                for c in self.direction_candidates(name, first, second):
                    out.setdefault((c.numerator, c.denominator), c)
        return list(out.values())

    def direction_candidates(self, name: str | tuple[str, ...], first, second) -> list[Candidate]:
        """Definition 5 for one ordered pair of secrets (every finite prior and output)."""
        kernel = self.kernel(name)
        out: dict[tuple, Candidate] = {}
        for prior_name in self.finite_priors:
            prior = self.prior(prior_name)
            a_first, b_first = self._joint(prior, kernel, first)
            a_second, b_second = self._joint(prior, kernel, second)
            for output in set(a_first) | set(a_second):
                num = a_first.get(output, self.field.zero) * b_second
                den = a_second.get(output, self.field.zero) * b_first
                if num:
                    out.setdefault((num, den), Candidate(num, den, f"{first.name} -> {second.name} "
                                                         f"under {prior_name}, output {output!r}"))
        return list(out.values())

    def _joint(self, prior: dict, kernel: dict, secret) -> tuple[dict, object]:
        joint: dict = {}
        mass = self.field.zero
        for dataset, p in prior.items():
            if not secret.holds(dataset):
                continue
            mass += p
            for output, q in kernel[dataset].items():
                joint[output] = joint.get(output, self.field.zero) + p * q
        return joint, mass

    def dp_candidates(self, name: str | tuple[str, ...]) -> list[Candidate]:
        """Definition 1 over entry neighbours: ``(Pr[M(D)=ω], Pr[M(D')=ω])``, without repeats
        (``name`` a tuple: the joint release of those mechanisms)."""
        kernel = self.kernel(name)
        out: dict[tuple, Candidate] = {}
        for dataset in self.datasets:
            for other in neighbours(self.universe, dataset, "entry"):
                row, other_row = kernel[dataset], kernel[other]
                for output, p in row.items():
                    key = (p, other_row.get(output, self.field.zero))
                    out.setdefault(key, Candidate(p, key[1], f"{list(dataset)} vs {list(other)}, "
                                                  f"output {output!r}"))
        return list(out.values())

    def leakage_conditions(self, name: str) -> Iterator[object]:
        """Definition 4: ``J_s(ω)·M - M_s·T(ω)`` for every secret, finite prior and output; the
        leakage is zero exactly where all of them vanish."""
        kernel = self.kernel(name)
        for prior_name in self.finite_priors:
            prior = self.prior(prior_name)
            total = self.field.zero
            totals: dict = {}
            for dataset, p in prior.items():
                total += p
                for output, q in kernel[dataset].items():
                    totals[output] = totals.get(output, self.field.zero) + p * q
            for secret in self.generic.secrets.values():
                joint, mass = self._joint(prior, kernel, secret)
                for output, t in totals.items():
                    condition = joint.get(output, self.field.zero) * total - mass * t
                    if condition:
                        yield condition


def _get(data: dict, location: tuple):
    for key in location:
        data = data[key]
    return data


def _output(raw: object) -> object:
    if isinstance(raw, list):
        return tuple(_output(item) for item in raw)
    return raw
