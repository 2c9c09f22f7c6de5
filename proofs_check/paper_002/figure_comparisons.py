"""Claims ``002.fig1.readings`` and ``002.fig3.readings`` of Wang et al., Privacy-Preserving
Analysis of Correlated Data, §5 and Appendix B.11: the qualitative readings the text draws from
Figures 1 and 3 (Markov Quilt Mechanism against the inferential-privacy algorithm [11] on binary
chains, T = 100, releasing the 1-Lipschitz sum), decided on certified noise scales.

Both figures are functions of noise scales: Figure 1 plots the average of ``|S' − S|/T`` over runs,
whose expectation is ``b/T`` for Laplace noise of scale b (the noise does not depend on the data),
with ``b`` the largest scale any θ of the grid needs (§5: "compute the amount of noise needed for
each θ ∈ Θ and then add the maximum"); Figure 3 colours each θ = (p0, p1) by which method adds
less noise.  So the readings are decided on the scales themselves, with no sampling error:

* MQM: σ_max of MQMExact (Algorithm 3 with exact max-influence, any initial distribution), a
  certified enclosure (:func:`pufferfish.verify.quilts.chain_search.mqm_chain_exact`);
* [11] (Appendix B.10): ``‖Γ‖₂ = 2γ cos(π/(T + 1))`` with ``γ = ½ log`` of the exact ratio of
  :func:`pufferfish.verify.quilts.gk16.gk16_gamma_ratio`; the method applies when the enclosure
  is below 1 and fails when it is at least 1 (undecided otherwise).  Where it applies, the row
  sums of ``(I − Γ)^{-1}`` are enclosed by the tridiagonal (Thomas) elimination in interval
  arithmetic (:func:`gk16_noise_enclosure`; pivots stay positive because ``I − Γ`` is positive
  definite when ``‖Γ‖₂ < 1``), and the scale is ``2 max_i Σ_j φ_ij / ε``.

Grids (coarser than the paper's, which are not all given): Figure 1, ℓ ∈ {1/10, 1/5, 3/10,
13/40, 7/20, 3/8, 2/5} with Θ = [ℓ, 1 − ℓ] searched on a 5 × 5 grid of (p0, p1) including the
corners; Figure 3, p0, p1 ∈ {1/20, 1/10, 1/5, ..., 4/5, 9/10, 19/20}; ε ∈ {1, 5, 10}.  The
readings (§5 and B.11, as printed):

Figure 1: (1) for every ε the MQM error decreases as ℓ increases; (2) so does [11]'s where it
works; (3) [11] does not work for ℓ left of a threshold (a non-empty prefix of the grid) while
the MQM still gives a finite noise there; where both work, "for ℓ close to 0.5 and for small ε,
[11] performs a little better, whereas for smaller ℓ the MQM is significantly better" — read as
(4) at ε = 1 [11] adds less noise at the largest ℓ, and (5) the MQM adds less noise at the
smallest ℓ where [11] works, at every ε (the sentence puts no condition on ε for smaller ℓ).
Figure 3: (1) [11] fails on part of the grid; (2) "as ε grows, the MQM performs increasingly
better": the set of θ where the MQM adds less noise grows with ε (nested).

Cost: one MQMExact (O(T k³)) and one interval elimination (O(T)) per grid point and ε.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache

from pufferfish.bibliography import cite
from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.proofs_check.paper_002.quilt_instances import PAPER
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register
from pufferfish.verify.numerics.intervals import endpoints, interval_context, log_interval
from pufferfish.verify.quilts.chain_search import mqm_chain_exact
from pufferfish.verify.quilts.gk16 import gk16_gamma_ratio

Q = Fraction
LENGTH = 100
EPSILONS = (1, 5, 10)
FIG1_LOWS = (Q(1, 10), Q(1, 5), Q(3, 10), Q(13, 40), Q(7, 20), Q(3, 8), Q(2, 5))
FIG3_GRID = (Q(1, 20),) + tuple(Q(k, 10) for k in range(1, 10)) + (Q(19, 20),)
FAILS = "fails"
UNDECIDED = "undecided"


@lru_cache(maxsize=None)
def mqm_scale(p0: Fraction, p1: Fraction, epsilon: int) -> tuple[Fraction, Fraction]:
    """Certified σ_max of MQMExact for the binary chain (p0, p1) of length T = 100."""
    chain = MarkovChain.binary(p0, p1, LENGTH)
    low, high = mqm_chain_exact(ChainFamily((chain,), "any"), str(epsilon)).sigma
    return Q(low), Q(high)


@lru_cache(maxsize=None)
def gk16_noise_enclosure(p0: Fraction, p1: Fraction, epsilon: int):
    """[11]'s Laplace scale enclosed as exact bounds, or ``FAILS`` (‖Γ‖₂ >= 1 certified) or
    ``UNDECIDED`` (the enclosure of ‖Γ‖₂ contains 1)."""
    ctx = interval_context(192)
    gamma = log_interval(ctx, gk16_gamma_ratio(p0, p1)) / 2
    norm = 2 * gamma * ctx.cos(ctx.pi / (LENGTH + 1))
    if norm.a >= 1:
        return FAILS
    if not norm.b < 1:
        return UNDECIDED
    # (I − Γ) r = 1, Γ tridiagonal with γ off the diagonal, by Thomas elimination in intervals:
    # c'_i = −γ/p_i, d'_i = (1 + γ d'_{i−1})/p_i with pivots p_i = 1 + γ c'_{i−1} = 1 − γ²/p_{i−1}
    upper, rhs = [], []
    for i in range(LENGTH):
        pivot = 1 + (gamma * upper[-1] if i else 0)
        upper.append(-gamma / pivot if i < LENGTH - 1 else ctx.mpf(0))
        rhs.append((1 + (gamma * rhs[-1] if i else 0)) / pivot)
    sums = [rhs[-1]]
    for i in range(LENGTH - 2, -1, -1):
        sums.append(rhs[i] - upper[i] * sums[-1])
    low = max(endpoints(s)[0] for s in sums)
    high = max(endpoints(s)[1] for s in sums)
    return 2 * low / epsilon, 2 * high / epsilon


def theta_grid(low: Fraction) -> list[tuple[Fraction, Fraction]]:
    points = [low + j * (1 - 2 * low) / 4 for j in range(5)]
    return [(a, b) for i, a in enumerate(points) for b in points[i:]]


def family_scales(low: Fraction, epsilon: int):
    """The noise each method adds for Θ = [ℓ, 1 − ℓ]: the largest scale over the θ grid
    (``(low, high)`` bounds; [11]: ``FAILS``/``UNDECIDED`` when some θ is)."""
    grid = theta_grid(low)
    mqm = [mqm_scale(a, b, epsilon) for a, b in grid]
    gk = [gk16_noise_enclosure(a, b, epsilon) for a, b in grid]
    mqm_bounds = (max(m[0] for m in mqm), max(m[1] for m in mqm))
    if FAILS in gk:
        return mqm_bounds, FAILS
    if UNDECIDED in gk:
        return mqm_bounds, UNDECIDED
    return mqm_bounds, (max(g[0] for g in gk), max(g[1] for g in gk))


def _below(first, second) -> bool:
    """``first`` certified below ``second`` (both ``(low, high)``)."""
    return first[1] < second[0]


def _fail(claim_id: str, instance: Instance, detail: str) -> ClaimOutcome:
    return ClaimOutcome(False, detail, {"description": f"counterexample to {claim_id} "
                                                       f"({cite(PAPER)}): {instance.label}: "
                                                       f"{detail}"})


FIG1_READINGS = ("the MQM error decreases as ℓ increases", "[11]'s error decreases as ℓ "
                 "increases where it works", "[11] fails left of a threshold in ℓ, the MQM works "
                 "there", "at ε = 1 [11] adds less noise at the largest ℓ (close to 1/2)",
                 "for smaller ℓ the MQM adds less noise: at the smallest ℓ where [11] works, "
                 "at every ε")


def fig1_instances() -> Iterator[Instance]:
    for number, text in enumerate(FIG1_READINGS, 1):
        yield Instance(f"Figure 1, reading {number}: {text}", {"reading": number})


def fig1_check(reverse: frozenset = frozenset()):
    """One reading of Figure 1 (a reading in ``reverse`` has its direction reversed: a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        number, flip = instance.params["reading"], instance.params["reading"] in reverse
        table = {e: [family_scales(low, e) for low in FIG1_LOWS] for e in EPSILONS}
        if UNDECIDED in (g for e in EPSILONS for _, g in table[e]):
            return ClaimOutcome.undecided_at("‖Γ‖₂ against 1 not decided on some θ")
        if number in (1, 2):
            for e in EPSILONS:
                values = [m if number == 1 else g for m, g in table[e] if number == 1 or g != FAILS]
                for j in range(len(values) - 1):
                    pair = (values[j], values[j + 1]) if flip else (values[j + 1], values[j])
                    if not _below(*pair):
                        return _fail("002.fig1.readings", instance,
                                     f"ε = {e}: the noise at the {j + 2}-th ℓ is not certified "
                                     f"{'above' if flip else 'below'} the {j + 1}-th")
            return ClaimOutcome(True, "certified decreasing at every ε")
        if number == 3:
            fails = [g == FAILS for _, g in table[1]]
            prefix = fails.index(False) if False in fails else len(fails)
            holds = 0 < prefix and not any(fails[prefix:]) and all(
                m[1] < float("inf") for m, _ in table[1])
            if flip:
                holds = not holds
            text = (f"[11] fails for ℓ in {[str(v) for v in FIG1_LOWS[:prefix]]} and works from "
                    f"ℓ = {FIG1_LOWS[prefix] if prefix < len(FIG1_LOWS) else 'nowhere'}; the MQM "
                    "noise is finite on all of them")
            return ClaimOutcome(True, text) if holds else _fail("002.fig1.readings", instance, text)
        for e in (EPSILONS[:1] if number == 4 else EPSILONS):
            working = [(low, m, g) for low, (m, g) in zip(FIG1_LOWS, table[e]) if g != FAILS]
            if not working:
                return _fail("002.fig1.readings", instance, f"ε = {e}: [11] works nowhere")
            low, m, g = working[-1] if number == 4 else working[0]
            first, second = ((g, m) if number == 4 else (m, g))
            if flip:
                first, second = second, first
            text = (f"ε = {e}, ℓ = {low}: [11] adds noise ∈ [{float(g[0]):.4g}, {float(g[1]):.4g}],"
                    f" the MQM ∈ [{float(m[0]):.4g}, {float(m[1]):.4g}] (largest scale over the "
                    "5 × 5 grid of θ)")
            if not _below(first, second):
                return _fail("002.fig1.readings", instance, text)
        return ClaimOutcome(True, text if number == 4 else "at every ε the MQM adds less noise "
                                                           "at the smallest ℓ where [11] works")
    return check


def fig3_classes(epsilon: int) -> dict[tuple[Fraction, Fraction], str]:
    """Each grid point (p0 <= p1; the figure is symmetric) as ``fails``, ``mqm`` (MQM adds less
    noise), ``gk16`` or ``undecided``."""
    classes = {}
    for i, a in enumerate(FIG3_GRID):
        for b in FIG3_GRID[i:]:
            gk = gk16_noise_enclosure(a, b, epsilon)
            m = mqm_scale(a, b, epsilon)
            if gk in (FAILS, UNDECIDED):
                classes[(a, b)] = gk
            else:
                classes[(a, b)] = ("mqm" if _below(m, gk) else "gk16" if _below(gk, m)
                                   else UNDECIDED)
    return classes


def fig3_instances() -> Iterator[Instance]:
    yield Instance("Figure 3, reading 1: [11] fails on part of the grid", {"reading": 1})
    yield Instance("Figure 3, reading 2: the region where the MQM adds less noise grows with ε",
                   {"reading": 2})


def fig3_check(order=EPSILONS):
    """A reading of Figure 3 (``order``: the ε order along which the MQM region must grow; the
    reversed order is a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        classes = {e: fig3_classes(e) for e in EPSILONS}
        if instance.params["reading"] == 1:
            failing = sum(c == FAILS for c in classes[1].values())
            text = f"[11] fails on {failing} of {len(classes[1])} grid points"
            return (ClaimOutcome(True, text) if failing
                    else _fail("002.fig3.readings", instance, text))
        regions = [{p for p, c in classes[e].items() if c == "mqm"} for e in order]
        if any(UNDECIDED in classes[e].values() for e in EPSILONS):
            return ClaimOutcome.undecided_at("some grid point is undecided")
        sizes = ", ".join(f"ε = {e}: {len(r)}" for e, r in zip(order, regions))
        for j in range(len(regions) - 1):
            if not regions[j] <= regions[j + 1]:
                lost = sorted(regions[j] - regions[j + 1])[0]
                return _fail("002.fig3.readings", instance,
                             f"θ = ({lost[0]}, {lost[1]}) is in the MQM region at ε = {order[j]} "
                             f"but not at ε = {order[j + 1]} (sizes {sizes})")
        return ClaimOutcome(True, f"the MQM regions are nested ({sizes} of "
                                  f"{len(classes[1])} points)")
    return check


register(Claim(
    "002.fig1.readings", PAPER, "§5, Figure 1",
    "the readings of Figure 1: both errors decrease in ℓ, [11] fails left of a threshold where "
    "the MQM works, [11] is better near ℓ = 1/2 at small ε and the MQM at smaller ℓ (decided on "
    "certified noise scales, the exact expectations of the plotted averages)",
    fig1_instances, fig1_check(), False,
    (Mutant.checking("the MQM error read as increasing in ℓ", fig1_check(frozenset({1})),
                     fig1_instances),
     Mutant.checking("the comparison at ε = 1 reversed", fig1_check(frozenset({4})),
                     fig1_instances))))
register(Claim(
    "002.fig3.readings", PAPER, "Appendix B.11, Figure 3",
    "the readings of Figure 3: [11] fails on part of the (p0, p1) grid, and the region where the "
    "MQM adds less noise grows with ε (decided on certified noise scales)",
    fig3_instances, fig3_check(), False,
    (Mutant.checking("the region read as shrinking with ε", fig3_check(EPSILONS[::-1]),
                     fig3_instances),)))
