"""Exact (ε, δ)-indistinguishability and the (ε, δ)-DCP check of finite mechanisms.

Source: Zhang et al., Differential Confounding Privacy and Inverse Composition, §II, equation (2)
and Definition 1 (equation (3)).  For a finite model the probability of an output set under secret
``s`` is ``Pr^s_γ[Y ∈ W] = Σ_{y∈W} ψ(y|s)`` with the *effective mechanism*
``ψ(y|s) = Σ_x γ(y|x) P_θ(x|s)`` (§III, "Effective Mechanism"), and equation (3) asks, for every
ordered adjacent pair ``(s, s')``,

    sup_W (P(W) − e^ε Q(W)) = Σ_y (p(y) − e^ε q(y))^+ <= δ        (the hockey-stick divergence)

with ``p = ψ(·|s)``, ``q = ψ(·|s')``.  The supremum is attained by ``W* = {y : p(y) > e^ε q(y)}``,
so ``δ(ε) = A − e^ε B`` with the exact rationals ``A = p(W*)``, ``B = q(W*)``.

Exactness.  With ``e^ε = r`` rational (``ε = "log(r)"``) ``δ(ε)`` is an exact rational.  For a
rational ``ε ≠ 0``, ``e^ε`` is irrational; ``W*`` is still decided exactly (each ``p(y)/q(y)`` is
compared with ``e^ε`` by :func:`pufferfish.verify.numerics.certified.compare_ratio`), and ``δ(ε) = A − e^ε B`` is
reported in that exact form together with certified rational bounds.  The divergence itself is
computed by :mod:`pufferfish.verify.numerics.divergence` (the toolkit's one implementation).

Least ε for a given δ.  As a function of ``t = e^ε`` the divergence ``D(t) = Σ_y (p(y) − t q(y))^+``
is continuous, convex and non-increasing, and linear, ``D(t) = A_j − t B_j``, between consecutive
likelihood ratios ``p(y)/q(y)`` sorted in increasing order (``A_j, B_j`` the masses of the outputs
whose ratio is at least the right end of the piece).  The least ``t >= 1`` with ``D(t) <= δ`` is
therefore ``1`` if ``D(1) <= δ``, infinite if ``δ < p({y : q(y) = 0})``, and otherwise
``t* = (A_j − δ)/B_j`` on the piece where ``D`` crosses ``δ``: the least ε is ``log(t*)``, the log of
an exact rational whenever ``δ`` is rational.  Cost: ``O(n log n)`` for ``n`` outputs.

The privacy-loss distribution of a pair (§III, "Privacy Loss Random Variable"; Appendix C,
item e) is the law of ``L = log(p(Y)/q(Y))`` for ``Y ~ p``; it gives ``δ(ε) = E[(1 − e^{ε−L})^+]``,
an independent second computation of the hockey-stick divergence.

>>> from pufferfish.models.distribution import Distribution
>>> p, q = Distribution({0: "3/4", 1: "1/4"}), Distribution({0: "1/4", 1: "3/4"})
>>> hockey_stick_ratio(p, q, Fraction(2)).value      # (3/4 − 2·1/4)^+ + 0
Fraction(1, 4)
>>> least_ratio(p, q, Fraction(1, 4)).ratio           # δ = 1/4 needs e^ε = 2
Fraction(2, 1)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.dcp import DCPModel, DatasetKernel
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str, ratio_key
from pufferfish.verify.numerics.certified import Budget, BudgetCheck, compare_ratio, parse_budget
from pufferfish.verify.numerics.divergence import Divergence, divergence_at_ratio, hockey_stick_divergence
from pufferfish.verify.report import Explained

SecretRows = Mapping[Hashable, Distribution]
"""A mechanism seen from the secrets: ``s -> ψ(·|s)`` (the effective mechanism, eq. (2))."""

_IV_BITS = 96


# --------------------------------------------------------------------------------------------
# effective mechanism (eq. (2))
# --------------------------------------------------------------------------------------------

def effective_mechanism(model: DCPModel, kernel: DatasetKernel) -> dict[Hashable, Distribution]:
    """``ψ(y|s) = Σ_x γ(y|x) P_θ(x|s)`` for every secret with ``P_θ(s) > 0`` (Zhang et al.,
    Differential Confounding Privacy and Inverse Composition, §III, eq. (2)).

    Cost: ``O(|S|·|X|·|Y|)`` exact operations.

    >>> from pufferfish.models.dcp import DCPModel
    >>> m = DCPModel.build({"s0": {"a": "1/2"}, "s1": {"a": "1/4", "b": "1/4"}}, "all",
    ...                    {"id": {"a": {"A": 1}, "b": {"B": 1}}})
    >>> effective_mechanism(m, m.mechanism("id"))["s1"]
    Distribution({'A': 1/2, 'B': 1/2})
    """
    rows = {}
    prior = model.secret_prior()
    for s in model.secrets:
        if prior.prob(s):
            given = model.dataset_given(s)
            rows[s] = Distribution.mixture((w, kernel.row(x)) for x, w in given.items())
    return rows


# --------------------------------------------------------------------------------------------
# the hockey-stick divergence of one ordered pair
# --------------------------------------------------------------------------------------------

def _outputs(p: Distribution, q: Distribution) -> list:
    return list(dict.fromkeys([*p.support, *q.support]))


@dataclass(repr=False, frozen=True)
class HockeyStick(Explained):
    """``sup_W (P(W) − e^ε Q(W)) = A − e^ε B`` for one ordered pair, with the maximising set ``W``.

    ``value`` is exact when ``e^ε`` is rational; ``lower``/``upper`` are exact rational bounds
    (equal to ``value`` when it is exact, else a certified interval from mpmath ``iv``).
    """

    epsilon: str
    a: Fraction
    b: Fraction
    witness_set: tuple
    value: Fraction | None
    lower: Fraction
    upper: Fraction
    pair: tuple = ()

    def to_dict(self) -> dict:
        data = {"epsilon": self.epsilon, "delta_form": f"{fraction_str(self.a)} - e^eps * "
                f"{fraction_str(self.b)}", "witness_set": [str(y) for y in self.witness_set],
                "delta": None if self.value is None else fraction_str(self.value),
                "delta_bounds": [fraction_str(self.lower), fraction_str(self.upper)],
                "delta_float": float(self.upper)}
        if self.pair:
            data["pair"] = [str(s) for s in self.pair]
        return data

    def explain(self) -> str:
        shown = fraction_str(self.value) if self.value is not None else \
            f"in [{float(self.lower):.12g}, {float(self.upper):.12g}]"
        where = f" for {self.pair[0]} vs {self.pair[1]}" if self.pair else ""
        return f"δ({self.epsilon}) = {shown}{where}, attained by W = {list(self.witness_set)}"


def _masses(p: Distribution, q: Distribution) -> list[tuple[Hashable, Fraction, Fraction]]:
    return [(y, p.prob(y), q.prob(y)) for y in _outputs(p, q)]


def _from_divergence(epsilon: str, divergence: Divergence) -> HockeyStick:
    return HockeyStick(epsilon, divergence.a, divergence.b, divergence.witness, divergence.value,
                       divergence.lower, divergence.upper)


def hockey_stick_ratio(p: Distribution, q: Distribution, ratio: Fraction) -> HockeyStick:
    """Exact ``Σ_y (p(y) − r·q(y))^+`` for a rational ``r = e^ε >= 0`` (Definition 1, eq. (3);
    :func:`pufferfish.verify.numerics.divergence.divergence_at_ratio`)."""
    r = Fraction(ratio)
    return _from_divergence(epsilon_str(r) if r >= 1 else f"log({fraction_str(r)})",
                            divergence_at_ratio(_masses(p, q), r))


def hockey_stick(p: Distribution, q: Distribution, epsilon: Budget | str | Fraction) -> HockeyStick:
    """``sup_W (P(W) − e^ε Q(W))`` for ``ε`` given as ``"log(r)"`` (exact) or rational (certified).

    The maximising set is decided exactly in both cases; for rational ``ε ≠ 0`` the value
    ``A − e^ε B`` is returned with a certified rational interval
    (:func:`pufferfish.verify.numerics.divergence.hockey_stick_divergence` at 96 bits).
    """
    budget = epsilon if isinstance(epsilon, Budget) else parse_budget(
        epsilon if isinstance(epsilon, str) else str(epsilon), "--epsilon")
    if budget.ratio is not None:
        return hockey_stick_ratio(p, q, budget.ratio)
    if budget.epsilon == 0:
        return hockey_stick_ratio(p, q, Fraction(1))
    text = "inf" if budget.infinite else fraction_str(budget.epsilon)
    return _from_divergence(text, hockey_stick_divergence(_masses(p, q), budget, _IV_BITS))


# --------------------------------------------------------------------------------------------
# least ε for a given δ: the exact inverse of the piecewise-linear D(t)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LeastEpsilon:
    """The least ``ε >= 0`` with ``δ(ε) <= δ`` for one ordered pair: ``ε = log(ratio)``.

    On the piece where ``D(t) = A − t B`` crosses ``δ``, ``ratio = (A − δ)/B``; ``witness_set``
    is the set ``W`` attaining the divergence there.
    """

    delta: Fraction
    ratio: Ratio
    a: Fraction
    b: Fraction
    witness_set: tuple
    pair: tuple = ()

    @property
    def epsilon(self) -> str:
        return epsilon_str(self.ratio)

    def to_dict(self) -> dict:
        data = {"delta": fraction_str(self.delta), "max_ratio": fraction_str(self.ratio),
                "epsilon": self.epsilon, "epsilon_float": epsilon_float(self.ratio),
                "piece": f"{fraction_str(self.a)} - t * {fraction_str(self.b)}",
                "witness_set": [str(y) for y in self.witness_set]}
        if self.pair:
            data["pair"] = [str(s) for s in self.pair]
        return data


def least_ratio_masses(masses: Sequence[tuple[Hashable, Fraction, Fraction]],
                       delta: Fraction) -> LeastEpsilon:
    """:func:`least_ratio` on a list of ``(label, p-mass, q-mass)`` atoms (not necessarily normalised).

    Used for distributions and for the weighted atoms of the optimal-composition formula.
    """
    delta = Fraction(delta)
    if delta < 0:
        raise ModelError(f"δ must be >= 0, got {fraction_str(delta)}", "--delta")
    infinite = [(y, p) for y, p, q in masses if p and not q]
    p0 = sum((p for _, p in infinite), Fraction(0))
    finite = sorted(((p / q, y, p, q) for y, p, q in masses if p and q), key=lambda t: t[0],
                    reverse=True)
    # D(1) = p0 + Σ_{ratio > 1} (p − q)
    d_one = p0 + sum((p - q for r, _, p, q in finite if r > 1), Fraction(0))
    if d_one <= delta:
        chosen = tuple(y for y, _ in infinite) + tuple(y for r, y, _, _ in finite if r > 1)
        return LeastEpsilon(delta, Fraction(1), d_one + sum(
            (q for r, _, _, q in finite if r > 1), Fraction(0)),
            sum((q for r, _, _, q in finite if r > 1), Fraction(0)), chosen)
    if delta < p0:
        return LeastEpsilon(delta, INFINITY, p0, Fraction(0), tuple(y for y, _ in infinite))
    # walk the breakpoints from the largest ratio down: D(b) = A(>=b) − b·B(>=b) over ratio >= b
    a, b = p0, Fraction(0)
    chosen = [y for y, _ in infinite]
    k = 0
    best: LeastEpsilon | None = None
    while k < len(finite):
        breakpoint = finite[k][0]
        if breakpoint <= 1:
            break
        # outputs with ratio strictly above this breakpoint are in (a, b) already
        value_here = a - breakpoint * b
        if value_here > delta:
            break
        best = LeastEpsilon(delta, breakpoint, a, b, tuple(chosen))
        while k < len(finite) and finite[k][0] == breakpoint:
            _, y, p, q = finite[k]
            a, b = a + p, b + q
            chosen.append(y)
            k += 1
    # D crosses δ on the piece whose right end is the last breakpoint with D <= δ; there the
    # outputs of ratio >= that breakpoint form W and D(t) = a − t b with the current (a, b).
    if best is None:  # impossible: D(max ratio) = p0 <= δ
        raise AssertionError("no breakpoint with D <= δ")
    t_star = (a - delta) / b
    return LeastEpsilon(delta, max(t_star, Fraction(1)), a, b, tuple(chosen))


def least_ratio(p: Distribution, q: Distribution, delta: Fraction) -> LeastEpsilon:
    """The least ``t = e^ε >= 1`` with ``Σ_y (p(y) − t q(y))^+ <= δ`` (exact; see module doc).

    Returns ``INFINITY`` when ``δ < p({y : q(y) = 0})``.
    """
    return least_ratio_masses([(y, p.prob(y), q.prob(y)) for y in _outputs(p, q)], delta)


# --------------------------------------------------------------------------------------------
# privacy-loss distribution
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PrivacyLossDistribution:
    """The law of ``L = log(p(Y)/q(Y))``, ``Y ~ p``, as atoms ``(e^L, mass)`` (Zhang et al.,
    Differential Confounding Privacy and Inverse Composition, §III, App. C).

    ``e^L`` is an exact rational or ``INFINITY`` (outputs impossible under ``q``).
    """

    atoms: tuple[tuple[Ratio, Fraction], ...]

    def delta(self, ratio: Fraction) -> Fraction:
        """``E[(1 − e^{ε − L})^+]`` at ``e^ε = ratio``: the privacy profile (App. C, item e)."""
        total = Fraction(0)
        for loss_ratio, mass in self.atoms:
            if loss_ratio == INFINITY:
                total += mass
            elif loss_ratio > ratio:
                total += mass * (1 - Fraction(ratio) / loss_ratio)
        return total

    def to_dict(self) -> dict:
        return {"atoms": [{"loss": epsilon_str(r) if r == INFINITY or r >= 1 else
                           f"-log({fraction_str(1 / Fraction(r))})",
                           "likelihood_ratio": fraction_str(r), "mass": fraction_str(m),
                           "loss_float": epsilon_float(r)} for r, m in self.atoms]}


def privacy_loss_distribution(p: Distribution, q: Distribution) -> PrivacyLossDistribution:
    """PLD(p‖q): masses of ``p`` grouped by the likelihood ratio ``p(y)/q(y)`` (sorted)."""
    grouped: dict = {}
    for y, mass in p.items():
        qy = q.prob(y)
        key = INFINITY if not qy else mass / qy
        grouped[key] = grouped.get(key, Fraction(0)) + mass
    return PrivacyLossDistribution(tuple(sorted(grouped.items(), key=lambda t: t[0])))


# --------------------------------------------------------------------------------------------
# a mechanism over all adjacent pairs
# --------------------------------------------------------------------------------------------

@dataclass(repr=False, frozen=True)
class DCPLevel(Explained):
    """The least ε with ``(ε, δ)``-DCP (Definition 1) over every ordered adjacent pair.

    ``ratio = max_pairs t*``; ``witness`` is the pair attaining it.  With a ``budget`` the
    verdict ``holds`` says whether ``(budget, δ)``-DCP holds (decided exactly: ``δ(ε) <= δ`` iff
    ``t* <= e^ε``).
    """

    mechanism: str
    delta: Fraction
    ratio: Ratio
    witness: LeastEpsilon | None
    per_pair: tuple[LeastEpsilon, ...]
    budget: BudgetCheck | None = None
    skipped: tuple = ()

    @property
    def epsilon(self) -> str:
        return epsilon_str(self.ratio)

    @property
    def holds(self) -> bool | None:
        return None if self.budget is None else self.budget.holds

    def to_dict(self) -> dict:
        data = {"check": "dcp_epsilon", "mechanism": self.mechanism,
                "delta": fraction_str(self.delta), "max_ratio": fraction_str(self.ratio),
                "epsilon": self.epsilon, "epsilon_float": epsilon_float(self.ratio),
                "witness": self.witness.to_dict() if self.witness else None,
                "pairs": [lv.to_dict() for lv in self.per_pair],
                "skipped_pairs": [[str(a), str(b)] for a, b in self.skipped]}
        if self.budget is not None:
            data["budget"] = self.budget.to_dict()
            data["holds"] = self.holds
        return data

    def explain(self) -> str:
        text = f"{self.mechanism}: least ε for δ = {fraction_str(self.delta)} is {self.epsilon} " \
               f"(≈ {epsilon_float(self.ratio):.6g})"
        if self.witness is not None and self.witness.pair:
            text += f", worst pair {self.witness.pair[0]} vs {self.witness.pair[1]}"
        if self.budget is not None:
            text += f"; budget {self.budget.budget.text}: " + \
                ("holds" if self.holds else "VIOLATED")
        return text


def dcp_level(rows: SecretRows, directions: Iterable[tuple], delta: Fraction,
              name: str = "mechanism", budget: Budget | None = None, skipped: tuple = ()) -> DCPLevel:
    """Least ε with ``(ε, δ)``-indistinguishability of ``rows`` over the ordered ``directions``."""
    per_pair = []
    for s, t in directions:
        level = least_ratio(rows[s], rows[t], Fraction(delta))
        per_pair.append(LeastEpsilon(level.delta, level.ratio, level.a, level.b,
                                     level.witness_set, (s, t)))
    if not per_pair:
        return DCPLevel(name, Fraction(delta), Fraction(1), None, (), None if budget is None else
                        compare_ratio(Fraction(1), budget), skipped)
    witness = max(per_pair, key=lambda lv: ratio_key(lv.ratio))
    check = None if budget is None else compare_ratio(witness.ratio, budget)
    return DCPLevel(name, Fraction(delta), witness.ratio, witness, tuple(per_pair), check, skipped)


@dataclass(repr=False, frozen=True)
class DCPDelta(Explained):
    """``δ(ε) = max over ordered adjacent pairs of the hockey-stick divergence`` (eq. (3))."""

    mechanism: str
    epsilon: str
    value: Fraction | None
    lower: Fraction
    upper: Fraction
    witness: HockeyStick | None
    per_pair: tuple[HockeyStick, ...] = field(default=())

    def to_dict(self) -> dict:
        return {"check": "dcp_delta", "mechanism": self.mechanism, "epsilon": self.epsilon,
                "delta": None if self.value is None else fraction_str(self.value),
                "delta_bounds": [fraction_str(self.lower), fraction_str(self.upper)],
                "delta_float": float(self.upper),
                "witness": self.witness.to_dict() if self.witness else None,
                "pairs": [h.to_dict() for h in self.per_pair]}

    def explain(self) -> str:
        shown = fraction_str(self.value) if self.value is not None else \
            f"in [{float(self.lower):.12g}, {float(self.upper):.12g}]"
        text = f"{self.mechanism}: δ({self.epsilon}) = {shown}"
        if self.witness is not None and self.witness.pair:
            text += f", worst pair {self.witness.pair[0]} vs {self.witness.pair[1]}, " \
                    f"W = {list(self.witness.witness_set)}"
        return text


def dcp_delta(rows: SecretRows, directions: Iterable[tuple], epsilon: Budget | str,
              name: str = "mechanism") -> DCPDelta:
    """``max_{(s,s')} sup_W (Pr^s[W] − e^ε Pr^{s'}[W])`` with the worst pair and set as witness.

    The maximum of certified intervals is the interval ``[max lower, max upper]``; the witness
    is the pair with the largest upper bound (exact when ``e^ε`` is rational).
    """
    per_pair = []
    for s, t in directions:
        h = hockey_stick(rows[s], rows[t], epsilon)
        per_pair.append(HockeyStick(h.epsilon, h.a, h.b, h.witness_set, h.value, h.lower,
                                    h.upper, (s, t)))
    text = epsilon.text if isinstance(epsilon, Budget) else str(epsilon)
    if not per_pair:
        zero = Fraction(0)
        return DCPDelta(name, text, zero, zero, zero, None)
    witness = max(per_pair, key=lambda h: h.upper)
    exact = all(h.value is not None for h in per_pair)
    value = max(h.value for h in per_pair) if exact else None  # type: ignore[type-var]
    return DCPDelta(name, text, value, max(h.lower for h in per_pair),
                    max(h.upper for h in per_pair), witness, tuple(per_pair))


@dataclass(repr=False, frozen=True)
class DCPCheck(Explained):
    """The verdict of ``(ε, δ)``-DCP (Definition 1) with the violating pair and set as witness."""

    mechanism: str
    budget: BudgetCheck
    delta: Fraction
    level: DCPLevel
    at_budget: HockeyStick | None

    @property
    def holds(self) -> bool:
        return self.budget.holds

    def to_dict(self) -> dict:
        return {"check": "dcp", "mechanism": self.mechanism, "holds": self.holds,
                "epsilon": self.budget.budget.text, "delta": fraction_str(self.delta),
                "least_epsilon": self.level.to_dict(),
                "witness": self.at_budget.to_dict() if self.at_budget else None}

    def explain(self) -> str:
        verdict = "holds" if self.holds else "VIOLATED"
        text = f"{self.mechanism}: ({self.budget.budget.text}, {fraction_str(self.delta)})-DCP " \
               f"{verdict}; least ε for this δ is {self.level.epsilon}"
        if self.at_budget is not None:
            text += f"; worst case {self.at_budget.explain()}"
        return text


def dcp_check(rows: SecretRows, directions: Sequence[tuple], epsilon: Budget | str,
              delta: Fraction, name: str = "mechanism") -> DCPCheck:
    """Decide ``(ε, δ)``-DCP exactly: it holds iff the least ``t*`` for δ satisfies ``t* <= e^ε``.

    The witness is the hockey-stick divergence at ``ε`` on the pair that needs the largest ε.
    """
    budget = epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon)
    level = dcp_level(rows, directions, Fraction(delta), name, budget)
    at_budget = None
    if level.witness is not None:
        s, t = level.witness.pair
        h = hockey_stick(rows[s], rows[t], budget)
        at_budget = HockeyStick(h.epsilon, h.a, h.b, h.witness_set, h.value, h.lower, h.upper,
                                (s, t))
    assert level.budget is not None
    return DCPCheck(name, level.budget, Fraction(delta), level, at_budget)


def mechanism_rows(model: DCPModel, kernel: DatasetKernel) -> SecretRows:
    """Shorthand for :func:`effective_mechanism`."""
    return effective_mechanism(model, kernel)


# --------------------------------------------------------------------------------------------
# trade-off functions (Zhang et al., Differential Confounding Privacy and Inverse Composition, App.
# L, Definition 8; Dong, Roth, Su, f-DP, Definition 2.1)
# --------------------------------------------------------------------------------------------

def tradeoff_curve(p: Distribution, q: Distribution) -> tuple[tuple[Fraction, Fraction], ...]:
    """The vertices ``(α, β)`` of ``T(P, Q)(α) = inf{β_φ : α_φ <= α}`` for finite ``P``, ``Q``.

    Testing ``H0: P`` against ``H1: Q``, the Neyman–Pearson tests reject on the outputs of largest
    ``q(y)/p(y)`` first; the curve is the convex piecewise-linear interpolation of the vertices
    (Zhang et al., Differential Confounding Privacy and Inverse Composition, App. L, Definition 8).
    Cost ``O(n log n)``.

    >>> tradeoff_curve(Distribution({0: "3/4", 1: "1/4"}), Distribution({0: "1/4", 1: "3/4"}))
    ((Fraction(0, 1), Fraction(1, 1)), (Fraction(1, 4), Fraction(1, 4)), (Fraction(1, 1), Fraction(0, 1)))
    """
    outputs = _outputs(p, q)
    free = [y for y in outputs if not p.prob(y)]              # rejecting there costs no type I
    ranked = sorted((y for y in outputs if p.prob(y)), key=lambda y: q.prob(y) / p.prob(y),
                    reverse=True)
    alpha, power = Fraction(0), sum((q.prob(y) for y in free), Fraction(0))
    vertices = [(alpha, 1 - power)]
    k = 0
    while k < len(ranked):
        ratio = q.prob(ranked[k]) / p.prob(ranked[k])
        while k < len(ranked) and q.prob(ranked[k]) / p.prob(ranked[k]) == ratio:
            alpha += p.prob(ranked[k])
            power += q.prob(ranked[k])
            k += 1
        vertices.append((alpha, 1 - power))
    return tuple(vertices)


def tradeoff_at(curve: Sequence[tuple[Fraction, Fraction]], alpha: Fraction) -> Fraction:
    """``T(α)`` by linear interpolation between the vertices of :func:`tradeoff_curve`."""
    for (a0, b0), (a1, b1) in zip(curve, curve[1:]):
        if a0 <= alpha <= a1:
            return b0 if a1 == a0 else b0 + (b1 - b0) * (alpha - a0) / (a1 - a0)
    return curve[-1][1]


def tradeoff_compare(first: Sequence[tuple[Fraction, Fraction]],
                     second: Sequence[tuple[Fraction, Fraction]]) -> tuple[bool, bool, Fraction | None]:
    """``(first <= second everywhere, first == second everywhere, an α where first > second)``.

    Both curves are piecewise linear, so comparing them at the union of their vertices decides it.
    """
    points = sorted({a for a, _ in first} | {a for a, _ in second})
    below, equal, where = True, True, None
    for alpha in points:
        f, s = tradeoff_at(first, alpha), tradeoff_at(second, alpha)
        if f != s:
            equal = False
        if f > s and below:
            below, where = False, alpha
    return below, equal, where


def privacy_profile_at(rows: SecretRows, directions: Sequence[tuple], ratio: Fraction) -> Fraction:
    """``max_{(s,s')} Σ_y (ψ(y|s) − t ψ(y|s'))^+`` at ``t = ratio`` (exact)."""
    return max((hockey_stick_ratio(rows[s], rows[t], ratio).value for s, t in directions),
               default=Fraction(0))


def same_privacy_profile(first: SecretRows, second: SecretRows,
                         directions: Sequence[tuple]) -> tuple[bool, Fraction | None]:
    """Whether the two mechanisms have the same privacy profile ``δ(ε)`` for every ``ε >= 0``.

    Each profile is the maximum over pairs of functions that are linear in ``t = e^ε`` between
    consecutive likelihood ratios.  Testing at every breakpoint, every crossing of two of these
    linear pieces and one point beyond the last breakpoint makes both maxima linear between
    consecutive test points, so equality there is equality everywhere (exact).  Returns
    ``(equal, a ratio t where they differ)``.
    """
    pairs = [(rows[s], rows[t]) for rows in (first, second) for s, t in directions]
    breaks = {Fraction(1)}
    for p, q in pairs:
        for y in p.support:
            if q.prob(y) and p.prob(y) / q.prob(y) > 1:
                breaks.add(p.prob(y) / q.prob(y))
    ordered = sorted(breaks)
    points = set(ordered) | {ordered[-1] + 1}
    for low, high in zip(ordered, ordered[1:]):
        middle = (low + high) / 2
        lines = []
        for p, q in pairs:
            h = hockey_stick_ratio(p, q, middle)
            lines.append((h.a, h.b))
        for i, (a1, b1) in enumerate(lines):
            for a2, b2 in lines[i + 1:]:
                if b1 != b2:
                    crossing = (a1 - a2) / (b1 - b2)
                    if low < crossing < high:
                        points.add(crossing)
    for point in sorted(points):
        if privacy_profile_at(first, directions, point) != privacy_profile_at(second, directions,
                                                                              point):
            return False, point
    return True, None
