"""Laplace-noise calibration for multi-user Pufferfish privacy, checked exactly
(Ding et al., Multi-user Pufferfish Privacy, §2 Proposition 1; §4 Theorems 1–4, equations (10)–(21),
Lemmas 1–2, Remarks 1–2; Appendix A Lemma 3, Proposition 2).

The mechanism releases ``Y = X + Lap(θ)`` where ``X`` is the aggregate of a
:class:`~pufferfish.models.multiuser.MultiUserModel`.  A *calibrator* proposes θ for a budget ε
and a pair set; :func:`calibrate` computes every calibrator of the paper that applies to the pair
set and then the **actual Pufferfish level** of ``X + Lap(θ)`` next to ε
(:mod:`pufferfish.verify.multiuser.levels`).  A level above ε refutes the calibrator.

Calibrators (θ is an exact multiple ``c/ε`` where the paper's form is one, otherwise a certified
rational interval ``[lower, upper]`` containing the exact θ, :mod:`pufferfish.verify.multiuser.thetas`):

=====================  ========================  ==============================================
name                   pair set                  θ
=====================  ========================  ==============================================
``proposition1``       all                       ``max sup_{supp π*} |x − x'| / ε`` on the
                                                 conditionals of X (equation (5))
``proposition2``       all                       ``max sup_x Δ*(x) / ε`` on the conditionals
                                                 (equation (28), Δ* on the lattice)
``theorem1``           ab                        ``max |a_i − b_i| / ε`` (10)
``theorem2``           a-absent                  ``max |a_i| / ε`` (12)
``theorem3_eq14``      P-absent                  ``max_{t ∈ 𝒟_i} |t| / ε`` (14)
``theorem3_eq13``      P-absent                  root of ``E_{P_i}[e^{|D_i|/θ}] = e^ε`` (13)
``eq15``               P-absent, Bernoulli       ``1 / log((e^ε − (1 − p_i))/p_i)`` (15)
``theorem4``           PQ                        ``sup_t Δ*(t) / ε`` on ``F_{P_i}, F_{Q_i}`` (16)
``lemma1``             PQ, Bernoulli             ``1/ε`` (18)
``lemma2``             PQ, Bernoulli             ``sup_x 1/log(e^ε + (e^ε − 1) ψ_i(x))`` (21)
=====================  ========================  ==============================================

For Lemma 2 the report also carries the relaxed condition (20), decided exactly at its (transcendental) θ
(:mod:`pufferfish.verify.multiuser.relaxed`).  Budgets must be rational ε > 0 (``0.5``, ``1/2``)
so that ``c/ε`` is a rational Laplace scale.  A pair set without a pair for some protected user
is refused (:func:`pufferfish.verify.multiuser.pairs.require_pairs`); pairs whose secret has prior
probability 0 are listed as vacuous.

Complexity: the conditionals cost one :func:`pufferfish.models.multiuser.sum_distribution` per
protected user; each calibrator's check costs one level evaluation (two for a certified θ);
the minimal θ costs ``O(log(1/tolerance))`` level evaluations.

Example (one fair coin beside a protected user reporting 0 or 1, ε = 1: Theorem 1 gives θ = 1/ε,
and the level at θ is exactly ε):

>>> from fractions import Fraction
>>> from pufferfish.models.multiuser import MultiUserModel, User, bernoulli
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> model = MultiUserModel((User("o", distribution=bernoulli(Fraction(1, 2))),
...                         User("i", distribution=bernoulli(Fraction(1, 4)))), ("i",))
>>> report = calibrate(model, "ab", parse_budget("1"), minimal=False)
>>> theorem1 = report.calibration("theorem1")
>>> theorem1.theta.coefficient, theorem1.check.relation
(Fraction(1, 1), 'tight')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.models.errors import ModelError
from pufferfish.models.multiuser import (PAIR_SETS, MultiUserModel, UserSecretPair, is_bernoulli,
                                         others_sum)
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.multiuser.levels import MinimalTheta, ThetaCheck, check_theta, minimal_theta
from pufferfish.verify.multiuser.pairs import (ConditionalPair, check_pair_work, pair_conditionals,
                                              require_pairs)
from pufferfish.verify.multiuser.relaxed import relaxed_condition_at_lemma2
from pufferfish.verify.multiuser.thetas import (Theta, eq13_polynomial, eq13_theta, eq15_theta,
                                                epsilon_of, lemma2_psi_min, lemma2_theta)
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.transport.kantorovich import delta_star, transport_plan
from pufferfish.verify.report import Explained

PAPER = paper("001").key
"""The key of the multi-user paper (:data:`pufferfish.bibliography.PAPERS`), the ``paper`` of
the JSON output; its ``citation`` is written by :func:`pufferfish.bibliography.cite`."""


@dataclass(frozen=True)
class Calibration:
    """One calibrator on one pair set: its θ (or why it does not apply) and the actual level."""

    name: str
    source: str
    applicable: bool
    reason: str
    theta: Theta | None = None
    check: ThetaCheck | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self, epsilon: Fraction) -> dict:
        data = {"calibrator": self.name, "source": cite(f"{PAPER} {self.source}"),
                "applicable": self.applicable, "reason": self.reason}
        if self.theta is not None:
            data["theta"] = self.theta.to_dict(epsilon)
        if self.check is not None:
            data["actual"] = self.check.to_dict()
        data.update(self.extra)
        return data


CALIBRATORS: dict[str, tuple[str, tuple[str, ...]]] = {
    "proposition1": ("§2, Proposition 1, equation (5)", PAIR_SETS),
    "proposition2": ("Appendix A, Lemma 3, Proposition 2, equation (28)", PAIR_SETS),
    "theorem1": ("§4.1, Theorem 1, equation (10)", ("ab",)),
    "theorem2": ("§4.2, Theorem 2, equation (12)", ("a-absent",)),
    "theorem3_eq14": ("§4.3, Theorem 3, equation (14)", ("P-absent",)),
    "theorem3_eq13": ("§4.3, Theorem 3, equation (13)", ("P-absent",)),
    "eq15": ("§4.3.2, equation (15)", ("P-absent",)),
    "theorem4": ("§4.4, Theorem 4, equations (16)-(17)", ("PQ",)),
    "lemma1": ("§4.4.1, Lemma 1, equation (18)", ("PQ",)),
    "lemma2": ("§4.4.1, Lemma 2, equation (21)", ("PQ",)),
}
"""Calibrator name -> (source in the paper, pair sets it applies to)."""


def _max_theta(values: Sequence[Theta]) -> Theta:
    if not values:
        return Theta(Fraction(0), Fraction(0))
    best = max(values, key=lambda t: t.upper)
    if all(t is best or t.upper <= best.lower for t in values):
        return best                     # a unique largest θ: keep its root for exact decisions
    return Theta(max(t.lower for t in values), best.upper)


def _users(pairs: Sequence[ConditionalPair]) -> list[str]:
    return list(dict.fromkeys(cp.pair.first.user for cp in pairs))


def calibrator_theta(name: str, model: MultiUserModel, pair_set: str,
                     pairs: Sequence[ConditionalPair], budget: Budget
                     ) -> tuple[bool, str, Theta | None, dict]:
    """``(applicable, reason, θ, extra)`` of one calibrator (without the level check)."""
    eps = epsilon_of(budget)
    source, sets = CALIBRATORS[name]
    if pair_set not in sets:
        return False, f"applies to the pair sets {list(sets)}", None, {}
    extra: dict = {}
    users = [model.user(u) for u in _users(pairs)]
    if name == "proposition1":
        plans = [transport_plan(cp.first, cp.second) for cp in pairs]
        top = max((p.largest_distance for p in plans), default=Fraction(0))
        extra["largest_transported_distance"] = fraction_str(top)
        extra["w1"] = [fraction_str(p.w1) for p in plans]
        return True, "largest transported distance of the comonotone coupling", \
            Theta.multiple(top, eps), extra
    if name == "proposition2":
        sups = [delta_star(cp.first, cp.second) for cp in pairs]
        top = max((d.supremum for d in sups), default=Fraction(0))
        extra["delta_star"] = [d.to_dict() | {"values": None} for d in sups]
        return True, "sup of Δ* on the lattice of the conditionals' support", \
            Theta.multiple(top, eps), extra
    if name == "theorem1":
        top = max((abs(cp.pair.first.value - cp.pair.second.value) for cp in pairs),
                  default=Fraction(0))
        return True, "max |a − b| over the pairs", Theta.multiple(top, eps), extra
    if name == "theorem2":
        top = max((abs(cp.pair.first.value) for cp in pairs), default=Fraction(0))
        return True, "max |a| over the pairs", Theta.multiple(top, eps), extra
    if name == "theorem3_eq14":
        top = max((abs(t) for u in users for t in u.values), default=Fraction(0))
        return True, "max |t| over the protected users' alphabets", Theta.multiple(top, eps), extra
    if name == "theorem3_eq13":
        thetas = [eq13_theta(u.distribution, budget) for u in users]
        extra["polynomials"] = {u.name: {"z": f"e^(1/({eq13_polynomial(u.distribution)[0]}θ))",
                                         "coefficients": {str(k): fraction_str(c) for k, c in
                                                          sorted(eq13_polynomial(u.distribution)[1].items())}}
                                for u in users}
        return True, "certified root of E[e^{|D|/θ}] = e^ε", _max_theta(thetas), extra
    if name == "eq15":
        if not all(is_bernoulli(u.distribution) for u in users):
            return False, "needs Bernoulli users (values in {0, 1})", None, {}
        thetas = [eq15_theta(u.distribution.prob(Fraction(1)), budget) for u in users]
        return True, "closed form for Bernoulli users", _max_theta(thetas), extra
    if name == "theorem4":
        sups = [delta_star(u.distribution, u.alternative) for u in users]
        top = max((d.supremum for d in sups), default=Fraction(0))
        extra["delta_star"] = {u.name: d.to_dict() for u, d in zip(users, sups)}
        return True, "sup of Δ* on F_P, F_Q (lattice of their support)", \
            Theta.multiple(top, eps), extra
    if name == "lemma1":
        if not all(is_bernoulli(u.distribution) and is_bernoulli(u.alternative) for u in users):
            return False, "needs Bernoulli P_i and Q_i", None, {}
        return True, "θ = 1/ε for Bernoulli users", Theta.multiple(Fraction(1), eps), extra
    if name == "lemma2":
        if not all(is_bernoulli(u.distribution) and is_bernoulli(u.alternative) for u in users):
            return False, "needs Bernoulli P_i and Q_i", None, {}
        thetas, psis = [], {}
        for u in users:
            psi = lemma2_psi_min(u.distribution.prob(Fraction(1)), u.alternative.prob(Fraction(1)),
                                 others_sum(model, u.name))
            psis[u.name] = None if psi is None else fraction_str(psi)
            if psi is not None:
                thetas.append(lemma2_theta(psi, budget))
        extra["psi_min"] = psis
        return True, "relaxed condition (20) for Bernoulli users", _max_theta(thetas), extra
    raise ModelError(f"unknown calibrator {name!r}; the calibrators are {list(CALIBRATORS)}",
                     "calibrator")


@dataclass(repr=False, frozen=True)
class MultiUserCalibration(Explained):
    """Every calibrator on one pair set, each θ's actual level, and the minimal θ."""

    pair_set: str
    budget: Budget
    epsilon: Fraction
    others: str
    pairs: tuple[ConditionalPair, ...]
    vacuous: tuple[UserSecretPair, ...]
    calibrations: tuple[Calibration, ...]
    minimal: MinimalTheta | None
    relaxed: dict = field(default_factory=dict)

    @property
    def holds(self) -> bool | None:
        """Whether every applicable calibrator's θ achieves ε (``None`` if one is undecided)."""
        checks = [c.check.holds for c in self.calibrations if c.check is not None]
        if any(h is False for h in checks):
            return False
        return None if any(h is None for h in checks) else True

    def calibration(self, name: str) -> Calibration:
        return next(c for c in self.calibrations if c.name == name)

    def to_dict(self) -> dict:
        data = {"check": "multiuser_calibration", "paper": PAPER, "citation": cite(PAPER),
                "pair_set": self.pair_set,
                "budget": self.budget.text, "others": self.others, "holds": self.holds,
                "pairs": [{"pair": cp.pair.label,
                           "x_given_first": [[fraction_str(v), fraction_str(p)] for v, p in sorted(cp.first.items())],
                           "x_given_second": [[fraction_str(v), fraction_str(p)] for v, p in sorted(cp.second.items())]}
                          for cp in self.pairs],
                "vacuous_pairs": [{"pair": p.label, "reason": "a secret has prior probability 0"}
                                  for p in self.vacuous],
                "calibrations": [c.to_dict(self.epsilon) for c in self.calibrations],
                "minimal_theta": None if self.minimal is None else self.minimal.to_dict(self.epsilon)}
        if self.relaxed:
            data["relaxed_condition_20"] = self.relaxed
        return data

    def explain(self) -> str:
        lines = []
        for c in self.calibrations:
            if c.applicable and c.check is not None:
                lines.append(f"{c.name}: θ {c.theta.text()}, actual level ε ∈ {c.check.level.text()} "
                             f"({c.check.relation})")
        if self.minimal is not None:
            lines.append(f"minimal θ ∈ ({float(self.minimal.lower):.10g}, {float(self.minimal.upper):.10g}]")
        return "\n".join(lines)


def calibrate(model: MultiUserModel, pair_set: str, budget: Budget, minimal: bool = True,
              names: Sequence[str] | None = None, naive: bool = False,
              progress: Callable[[str], None] | None = None) -> MultiUserCalibration:
    """Every calibrator of ``pair_set`` with its θ and the certified actual level of
    ``X + Lap(θ)``; with ``minimal`` also the smallest θ achieving ε (bisection).

    Raises :class:`ModelError` when the pair set has no pair for a protected user
    (:func:`pufferfish.verify.multiuser.pairs.require_pairs`): the check would be vacuous."""
    eps = epsilon_of(budget)
    check_pair_work(model, pair_set)
    require_pairs(model, pair_set)
    pairs, vacuous = pair_conditionals(model, pair_set, naive)
    cache: dict = {}
    calibrations = []
    for name in names or CALIBRATORS:
        if progress:
            progress(name)
        applicable, reason, theta, extra = calibrator_theta(name, model, pair_set, pairs, budget)
        if not applicable:
            if pair_set in CALIBRATORS[name][1]:
                calibrations.append(Calibration(name, CALIBRATORS[name][0], False, reason))
            continue
        check = check_theta(pairs, theta, budget, cache)
        calibrations.append(Calibration(name, CALIBRATORS[name][0], True, reason, theta, check, extra))
    relaxed = {}
    lemma2 = next((c for c in calibrations if c.name == "lemma2" and c.applicable), None)
    psis = [] if lemma2 is None else [Fraction(p) for p in lemma2.extra["psi_min"].values()
                                      if p is not None]
    if psis:
        # Lemma 2's θ is the largest θ(ψ_u), i.e. θ at the least ψ; (20) is decided exactly there
        psi = min(psis)
        for cp in pairs:
            forward = relaxed_condition_at_lemma2(cp.first, cp.second, psi, budget)
            backward = relaxed_condition_at_lemma2(cp.second, cp.first, psi, budget)
            relaxed[cp.pair.label] = {"theta": "lemma2 (exact)",
                                      "forward": forward.to_dict(), "backward": backward.to_dict()}
    best = None
    if minimal:
        start = max((c.theta.upper for c in calibrations if c.theta is not None), default=None)
        best = minimal_theta(pairs, budget, start, cache=cache)
    return MultiUserCalibration(pair_set, budget, eps, model.others, pairs, vacuous,
                                tuple(calibrations), best, relaxed)
