"""Claim ``002.fig4.readings`` of Wang et al., Privacy-Preserving Analysis of Correlated Data,
Appendix B.12: the qualitative readings the text draws from Figure 4, decided on the exact
expectation of the plotted quantity.

Figure 4 plots the L1 error ``‖M(D) − F(D)‖₁`` of the MQM histogram averaged over 100 runs.  The
noise ``(2σ_max/T)·Lap(1)^k`` does not depend on the data, so the average estimates
``E‖M(D) − F(D)‖₁ = k · 2σ_max/T`` exactly; deciding the readings on that expectation removes
the sampling error a statistical check would have to bound.  σ_max is the certified enclosure
``[σ_low, σ_up]`` of Algorithm 5 with Lemma B.4's bounds from ``(π_est, g_est)``
(:func:`pufferfish.verify.quilts.histogram.histogram_mechanism`, as
:func:`pufferfish.proofs_check.paper_002.figures.figure4_data` draws the figure), so an error
``E1`` is certified smaller than ``E2`` when ``k·2σ_up(1)/T1 < k·2σ_low(2)/T2``.

The readings (B.12, last paragraph), on the figure's grid (k = 5, ε ∈ {1/10, 1/5, 1/2, 1, 2, 5,
10}, π_est ∈ {1/100, ..., 1/20} at g_est = 1/10, g_est ∈ {1/50, ..., 1/10} at π_est = 1/20,
T = 10⁴ or T ∈ {10³, 3·10³, 10⁴, 3·10⁴}):

1. utility improves with larger ε (every line of every panel);
2. ... with larger π_est (panel a, at every ε);
3. ... with larger g_est (panel b, at every ε);
4. π_est is less influential than g_est: over their ranges (both a factor 5) the error changes
   by a smaller factor in π_est than in g_est, at every ε;
5. utility improves with larger T (panel c, at every ε).

Cost: one σ_max per grid point (Algorithm 5, a few milliseconds each).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache

from pufferfish.bibliography import cite
from pufferfish.proofs_check.paper_002.figures import (FIG4_EPSILONS, FIG4_G_ESTS, FIG4_LENGTH,
                                                       FIG4_LENGTHS, FIG4_PI_ESTS)
from pufferfish.proofs_check.paper_002.quilt_instances import PAPER
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register
from pufferfish.verify.quilts.histogram import histogram_mechanism

Q = Fraction
STATES = 5
PI_GEN, G_GEN = "1/20", "1/10"


@lru_cache(maxsize=None)
def expected_l1(length: int, epsilon: str, pi_est: str, g_est: str) -> tuple[Fraction, Fraction]:
    """Certified bounds on ``E‖M(D) − F(D)‖₁ = k·2σ_max/T`` (exact rationals)."""
    mech = histogram_mechanism(length, epsilon, states=range(STATES), pi=pi_est, g=g_est,
                               method="fast")
    low, high = mech.scale_interval
    return STATES * low, STATES * high


def _line(points) -> list[tuple[Fraction, Fraction]]:
    return [expected_l1(*p) for p in points]


def _decreasing(bounds) -> int | None:
    """The first index j where bounds[j + 1] is not certified below bounds[j] (None: none)."""
    for j in range(len(bounds) - 1):
        if not bounds[j + 1][1] < bounds[j][0]:
            return j
    return None


def _epsilon_lines():
    lines = [[(FIG4_LENGTH, e, p, G_GEN) for e in FIG4_EPSILONS] for p in FIG4_PI_ESTS]
    lines += [[(FIG4_LENGTH, e, PI_GEN, g) for e in FIG4_EPSILONS] for g in FIG4_G_ESTS]
    lines += [[(t, e, PI_GEN, G_GEN) for e in FIG4_EPSILONS] for t in FIG4_LENGTHS]
    return lines


def _panel(kind: str, epsilon: str):
    if kind == "pi_est":
        return [(FIG4_LENGTH, epsilon, p, G_GEN) for p in FIG4_PI_ESTS]
    if kind == "g_est":
        return [(FIG4_LENGTH, epsilon, PI_GEN, g) for g in FIG4_G_ESTS]
    return [(t, epsilon, PI_GEN, G_GEN) for t in FIG4_LENGTHS]


READINGS = ("larger ε improves utility", "larger π_est improves utility",
            "larger g_est improves utility", "π_est is less influential than g_est",
            "larger T improves utility")


def readings_instances() -> Iterator[Instance]:
    for number, text in enumerate(READINGS, 1):
        yield Instance(f"reading {number}: {text}", {"reading": number})


def readings_check(reverse: frozenset = frozenset()):
    """Each reading decided on certified expectations; a reading in ``reverse`` is checked with
    its direction reversed (a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        number = instance.params["reading"]
        flip = number in reverse
        if number in (1, 2, 3, 5):
            if number == 1:
                lines = [(f"line {k}", points) for k, points in enumerate(_epsilon_lines())]
            else:
                kind = {2: "pi_est", 3: "g_est", 5: "T"}[number]
                lines = [(f"ε = {e}", _panel(kind, e)) for e in FIG4_EPSILONS]
            for name, points in lines:
                bounds = _line(points)
                where = _decreasing(bounds[::-1] if flip else bounds)
                if where is not None:
                    detail = (f"{name}: the expected L1 error is not certified to decrease from "
                              f"{points[where]} (E ∈ [{float(bounds[where][0]):.6g}, "
                              f"{float(bounds[where][1]):.6g}]) to the next grid point")
                    return ClaimOutcome(False, detail, {"description": f"counterexample to "
                                                        f"002.fig4.readings ({cite(PAPER)}): "
                                                        f"{detail}"})
            return ClaimOutcome(True, f"certified decreasing on all {len(lines)} lines")
        for e in FIG4_EPSILONS:
            pi_line, g_line = _line(_panel("pi_est", e)), _line(_panel("g_est", e))
            pi_factor_high = pi_line[0][1] / pi_line[-1][0]
            g_factor_low = g_line[0][0] / g_line[-1][1]
            holds = (g_factor_low > pi_factor_high if not flip else
                     pi_line[0][0] / pi_line[-1][1] > g_line[0][1] / g_line[-1][0])
            if not holds:
                detail = (f"ε = {e}: the error changes by a factor <= {float(pi_factor_high):.4g} "
                          f"over π_est and >= {float(g_factor_low):.4g} over g_est")
                return ClaimOutcome(False, detail, {"description": f"counterexample to "
                                                    f"002.fig4.readings ({cite(PAPER)}): "
                                                    f"{detail}"})
        return ClaimOutcome(True, "at every ε the error changes by a smaller factor over π_est "
                                  "than over g_est")
    return check


register(Claim(
    "002.fig4.readings", PAPER, "Appendix B.12, Figure 4",
    "utility improves with larger ε, π_est, g_est and T, and π_est is less influential than "
    "g_est (decided on the exact expectation k·2σ_max/T of the plotted L1 error, σ_max "
    "certified, on the figure's grid)",
    readings_instances, readings_check(), False,
    (Mutant.checking("larger g_est read as worsening utility", readings_check(frozenset({3})),
                     readings_instances),
     Mutant.checking("π_est read as more influential than g_est", readings_check(frozenset({4})),
                     readings_instances))))
