"""Claims of Zhang et al., Differential Confounding Privacy and Inverse Composition, App. G–I
(Gaussian copula perturbation): certified continuous checks.  No finite model represents these
statements (their marginals are continuous); every quantity here is a Gaussian law with exact
rational parameters, decided exactly where it can be and otherwise by certified intervals
(:mod:`pufferfish.verify.dcp.gaussian`), never by a float comparison.

=====================  ==========================================================================
``004.thm4.i``         Theorem 4 (i), through App. H's argument: the perturbed noises keep the
                       marginals Ξ1, Ξ2 (U1 = F1(Z1(s)) and U2 = F_ρ(Ẑ2(s)) are uniform for every
                       secret), so M1 and M2 remain (ε1, δ1)- and (ε2, δ2)-CP
``004.thm4.ii``        Theorem 4 (ii)'s premise (App. H, "by Theorem 4.3 in [4]"): the latent
                       z1(s) = η(s) + N(0, w²(C_sen/ε_c)²) with w >= 2 log(2/δ_c) is
                       (ε_c, δ_c)-CP, so the copula may enter OptComp as an (ε_c, δ_c) mechanism
``004.lemma1``         Lemma 1 (i) and (ii): the joint CDF of the perturbed outputs is
                       Φ_ρ(F1^{-1}(Ψ1(y1|s)), F_ρ^{-1}(Ψ2(y2|s))) (A increasing), resp. with
                       1 − Ψ_i (A decreasing)
``004.prop3``          Proposition 3: the PLRV of the perturbed composition is L_b(Ȳ) plus
                       L_{s0,s1}(Y1, Y2; c^g_ρ) = log c^g_ρ(Ψ(Y|s1)) / c^g_ρ(Ψ(Y|s0))
=====================  ==========================================================================

The process (App. G a): Z1(s) = η(s) + Z̃1 with Z̃1 ~ N(0, var1), var1 = w²(C_sen/ε_c)²; Z2 ~
N(0, 1) independent; Ẑ2 = ρZ1 + √(1 − ρ²) Z2; U1 = F1(Z1), U2 = F_ρ(Ẑ2) with F1 the CDF of
N(η(s), var1) (App. H: ``F1(z1(s)) = Φ((z1 − η(s))/√var1)``) and F_ρ the CDF of
N(ρη(s), ρ² var1 + 1 − ρ²); V_i = Ξ_i^{-1}(U_i).  (Z1, Ẑ2) is a Gaussian vector whose mean and
covariance follow by linearity: E Ẑ2 = ρη, Var Ẑ2 = ρ² var1 + (1 − ρ²), Cov(Z1, Ẑ2) = ρ var1 —
computed by :func:`process_law` independently of the paper's F_ρ.  Parameters: C_sen = 1,
|η(s0) − η(s1)| = 1, (ε_c, δ_c) ∈ {(1, 1/10), (1/2, 1/2), (2, 1/100)} with w the least multiple
of 1/64 above 2 log(2/δ_c) (certified), and Definition 5's standard latent N(0, 1);
ρ ∈ {−99/100, −1/2, 0, 1/2, 99/100} (ρ = 0 is excluded from the construction only to make the
copula non-trivial; every formula is defined there).

Decisions.  Two Gaussian laws are equal iff their means and covariances are (exact rationals).
Where a printed CDF and the process's differ, a certified witness point is given: for the
margins, a point where the two normal CDF enclosures are disjoint; for Lemma 1, the Fréchet
bounds ``max(0, F_a + F_b − 1) <= F(q1, q2) <= min(F_a, F_b)`` of both joint CDFs, disjoint
at the point.  Lemma 1 maps a point y to ``q_i = F^{-1}(Ψ_i(y_i|s))`` (resp. ``1 − Ψ_i``), onto
R² because Ψ_i is continuous and strictly increasing, so the statement "for every y" is the
statement "for every q" — decided on the laws.  Proposition 3 is decided exactly: with Gaussian
noises Ξ_i = N(0, b_i²) and y_i = f_i(s) + v_i (A increasing; a decreasing A gives the same
values, the Gaussian copula being radially symmetric), the difference of the two PLRVs at a
rational point is ``A + B r`` with A, B rational and r the correlation of (Z1, Ẑ2), r² rational.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.bibliography import cite
from pufferfish.models.numbers import fraction_str
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_004.composition import PAPER
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register
from pufferfish.verify.dcp.gaussian import event_excess, gaussian_delta, normal_cdf
from pufferfish.verify.numerics.intervals import (endpoints, interval_context, log_interval,
                                                  rational_interval)

Q = Fraction
BITS = 192
RHOS = (Q(-99, 100), Q(-1, 2), Q(0), Q(1, 2), Q(99, 100))
CALIBRATIONS = ((Q(1), Q(1, 10)), (Q(1, 2), Q(1, 2)), (Q(2), Q(1, 100)))
"""(ε_c, δ_c) of the paper-parameter latents."""


@dataclass(frozen=True)
class Latent:
    """The latent Z1: its means η(s) for the secrets and its variance (exact)."""

    label: str
    etas: tuple[Fraction, ...]
    variance: Fraction


def least_w(delta_c: Fraction, denominator: int = 64) -> Fraction:
    """The least multiple of ``1/denominator`` that is certified >= 2 log(2/δ_c)."""
    ctx = interval_context(BITS)
    bound = 2 * log_interval(ctx, 2 / delta_c)
    return Q(math.ceil(endpoints(bound)[1] * denominator), denominator)


def latents() -> tuple[Latent, ...]:
    """Definition 5's standard latent, then the paper's calibration for each (ε_c, δ_c)."""
    made = [Latent("standard latent N(0, 1)", (Q(0), Q(0)), Q(1))]
    for eps_c, delta_c in CALIBRATIONS:
        w = least_w(delta_c)
        made.append(Latent(f"ε_c = {fraction_str(eps_c)}, δ_c = {fraction_str(delta_c)}, "
                           f"w = {fraction_str(w)}", (Q(0), Q(1)), (w / eps_c) ** 2))
    return tuple(made)


# --------------------------------------------------------------------------------------------
# Gaussian laws: the process and the printed formulas
# --------------------------------------------------------------------------------------------

def process_law(rho: Fraction, eta: Fraction, var1: Fraction):
    """Mean and covariance of (Z1, Ẑ2) by linearity: ``((η, ρη), (var1, ρ var1, ρ² var1 +
    (1 − ρ²)))`` — the Z2 coefficient √(1 − ρ²) enters only through its square."""
    return (eta, rho * eta), (var1, rho * var1, rho * rho * var1 + (1 - rho * rho) * 1)


def printed_f1(eta: Fraction, var1: Fraction) -> tuple[Fraction, Fraction]:
    """F1 as App. G/H print it: the CDF of N(μ1, var1) with μ1 = η(s)."""
    return eta, var1


def printed_f_rho(rho: Fraction, mu1: Fraction, var1: Fraction) -> tuple[Fraction, Fraction]:
    """F_ρ as App. G prints it: the CDF of N(ρμ1, ρ² var1 + (1 − ρ²))."""
    return rho * mu1, rho * rho * var1 + 1 - rho * rho


def printed_joint_law(rho: Fraction):
    """Φ_ρ of Definition 5 / Lemma 1: zero means, unit variances, correlation ρ."""
    return (Q(0), Q(0)), (Q(1), rho, Q(1))


def _cdf(ctx, law, t):
    mean, var = law
    return normal_cdf(ctx, (t - rational_interval(ctx, mean)) / ctx.sqrt(rational_interval(ctx, var)))


def _approx_sd(var: Fraction) -> Fraction:
    """A rational near √var, used only to place candidate witness points."""
    return Q(math.sqrt(float(var))).limit_denominator(64) or Q(1)


def margin_witness(law_a, law_b):
    """A rational t with the enclosures of F_a(t) and F_b(t) disjoint, and both enclosures
    (None when no candidate separates them)."""
    ctx = interval_context(BITS)
    candidates = []
    for mean, var in (law_a, law_b):
        sd = _approx_sd(var)
        candidates += [mean + k * sd for k in (Q(0), Q(1), Q(-1), Q(2), Q(-2), Q(1, 2), Q(-1, 2))]
    for t in candidates:
        a, b = _cdf(ctx, law_a, rational_interval(ctx, t)), _cdf(ctx, law_b, rational_interval(ctx, t))
        if a.b < b.a or b.b < a.a:
            return t, a, b
    return None


def _number(value) -> str:
    """A bound for display: tiny magnitudes that underflow a double are shown as such."""
    number = float(value)
    return f"{number:.6g}" if number or value == 0 else "±(< 1e-300)"


def _text(interval) -> str:
    return f"[{_number(interval.a)}, {_number(interval.b)}]"


LABEL = "certified continuous check: "
"""The prefix of every outcome's detail: these claims are not decided on a finite model."""


def _holds(detail: str) -> ClaimOutcome:
    return ClaimOutcome(True, LABEL + detail)


def _undecided(detail: str) -> ClaimOutcome:
    return ClaimOutcome.undecided_at(LABEL + detail)


def _failed(claim_id: str, instance: Instance, detail: str, **data) -> ClaimOutcome:
    detail = LABEL + detail
    return ClaimOutcome(False, detail, {
        "description": f"counterexample to {claim_id} ({cite(PAPER)}): {instance.label}: {detail}",
        **{k: (fraction_str(v) if isinstance(v, Fraction) else v) for k, v in data.items()}})


# --------------------------------------------------------------------------------------------
# Theorem 4 (i)
# --------------------------------------------------------------------------------------------

def thm4_i_instances() -> Iterator[Instance]:
    for latent in latents():
        for rho in RHOS:
            yield Instance(f"ρ = {fraction_str(rho)}, {latent.label}",
                           {"rho": rho, "latent": latent})


def thm4_i_check(instance: Instance) -> ClaimOutcome:
    """U1 and U2 uniform for every secret: the laws of Z1(s) and Ẑ2(s) (by linearity) equal
    the laws whose CDFs the sampler applies (F1, F_ρ as printed)."""
    rho, latent = instance.params["rho"], instance.params["latent"]
    for s, eta in enumerate(latent.etas):
        (m1, m2), (v1, _, v2) = process_law(rho, eta, latent.variance)
        f1 = printed_f1(eta, latent.variance)
        f_rho = printed_f_rho(rho, f1[0], latent.variance)
        for name, actual, applied in (("U1 = F1(Z1)", (m1, v1), f1),
                                      ("U2 = F_ρ(Ẑ2)", (m2, v2), f_rho)):
            if actual == applied:
                continue
            witness = margin_witness(actual, applied)
            law = f"N({fraction_str(actual[0])}, {fraction_str(actual[1])})"
            used = f"N({fraction_str(applied[0])}, {fraction_str(applied[1])})"
            if witness is None:
                detail = (f"secret s{s}: {name} is not uniform (law {law}, CDF applied {used}); "
                          "no certified witness point among the candidates")
                return _failed("004.thm4.i", instance, detail, rho=rho)
            t, a, b = witness
            detail = (f"secret s{s}: {name} is not uniform: Pr[U <= F(t)] ∈ {_text(a)} but F(t) "
                      f"∈ {_text(b)} at t = {fraction_str(t)} (law {law}, CDF applied {used}), so "
                      "the perturbed noise does not keep its marginal Ξ")
            return _failed("004.thm4.i", instance, detail, rho=rho, t=t,
                           latent_variance=latent.variance)
    return _holds("for every secret U1 and U2 are exactly uniform (equal Gaussian "
                              "laws), so V_i ~ Ξ_i and each mechanism is unchanged")


# --------------------------------------------------------------------------------------------
# Theorem 4 (ii)
# --------------------------------------------------------------------------------------------

EPSILONS_C = (Q(1, 10), Q(1, 2), Q(1), Q(2), Q(5), Q(10), Q(20))
DELTAS_C = (Q(1, 100), Q(1, 10), Q(1, 2), Q(9, 10))


def thm4_ii_instances() -> Iterator[Instance]:
    for eps_c in EPSILONS_C:
        for delta_c in DELTAS_C:
            yield Instance(f"ε_c = {fraction_str(eps_c)}, δ_c = {fraction_str(delta_c)}",
                           {"eps_c": eps_c, "delta_c": delta_c})


def thm4_ii_check(w_factor: Fraction = Q(1)):
    """The latent Gaussian with the least admissible w = 2 log(2/δ_c) (times ``w_factor``: 1 in
    the paper) is (ε_c, δ_c)-CP: the exact δ(ε_c) of the Gaussian pair at distance C_sen (it
    depends on C_sen/σ = ε_c/w only, so C_sen = 1; it decreases in σ, so the least w is the
    worst case) is compared with δ_c.  ε_c = 0 is left out: the noise variance w²(C_sen/ε_c)²
    is then infinite."""
    def check(instance: Instance) -> ClaimOutcome:
        eps_c, delta_c = instance.params["eps_c"], instance.params["delta_c"]
        ctx = interval_context(BITS)
        w = 2 * log_interval(ctx, 2 / delta_c) * rational_interval(ctx, w_factor)
        delta = gaussian_delta(ctx, eps_c, rational_interval(ctx, eps_c) / w)
        low, high = endpoints(delta)
        if high < delta_c:
            return _holds(f"δ(ε_c) ∈ {_text(delta)} < δ_c = {fraction_str(delta_c)} "
                                      "for every w >= 2 log(2/δ_c)")
        if low <= delta_c:
            return _undecided(f"δ(ε_c) ∈ {_text(delta)} against δ_c = "
                                             f"{fraction_str(delta_c)}")
        # a certified witness: an admissible rational w and one event {z <= t}
        w_rational = Q(math.ceil(endpoints(w)[1] * 2 ** 20), 2 ** 20)
        sigma = w_rational / eps_c
        threshold = Q(1, 2) - eps_c * sigma * sigma
        excess = event_excess(ctx, eps_c, rational_interval(ctx, sigma), Q(1), threshold)
        if endpoints(excess)[0] <= delta_c:
            return _undecided(f"δ(ε_c) ∈ {_text(delta)} > δ_c but the event "
                                             f"witness gives {_text(excess)}")
        detail = (f"with w = {float(w_rational):.6f} >= {'' if w_factor == 1 else fraction_str(w_factor) + '·'}"
                  f"2 log(2/δ_c), σ = w/ε_c: Pr_{{s}}[z <= t] − e^ε_c Pr_{{s'}}[z <= t] ∈ "
                  f"{_text(excess)} > δ_c = {fraction_str(delta_c)} at t = {float(threshold):.6g} "
                  f"(exact δ(ε_c) ∈ {_text(delta)}): the latent is not (ε_c, δ_c)-CP")
        return _failed("004.thm4.ii", instance, detail, eps_c=eps_c, delta_c=delta_c,
                       w=w_rational, threshold=threshold, sensitivity="1")
    return check


# --------------------------------------------------------------------------------------------
# Lemma 1
# --------------------------------------------------------------------------------------------

def lemma1_instances() -> Iterator[Instance]:
    for increasing in (True, False):
        for latent in latents():
            for rho in RHOS:
                kind = "A increasing (i)" if increasing else "A decreasing (ii)"
                yield Instance(f"{kind}, ρ = {fraction_str(rho)}, {latent.label}",
                               {"rho": rho, "latent": latent, "increasing": increasing})


def _frechet(ctx, first, second):
    """Fréchet bounds on a bivariate CDF from its margins at the point."""
    low = first + second - 1
    return ctx.mpf([max(low.a, 0), min(first.b, second.b)])


def lemma1_check(joint_law=None):
    """Lemma 1 for each secret (``joint_law(ρ)``: the printed Φ_ρ's law; a mutant changes it)."""
    def check(instance: Instance) -> ClaimOutcome:
        rho, latent = instance.params["rho"], instance.params["latent"]
        increasing = instance.params["increasing"]
        printed = (joint_law or printed_joint_law)(rho)
        ctx = interval_context(BITS)
        for s, eta in enumerate(latent.etas):
            truth = process_law(rho, eta, latent.variance)
            (m1, m2), (v1, _, v2) = truth
            (p1, p2), (w1, _, w2) = printed
            big = Q(math.ceil(abs(m1) + abs(m2) + 40 * (1 + _approx_sd(max(v1, v2, w1, w2)))))
            if increasing:
                if truth == printed:
                    continue
                for q1 in (m1, m1 - _approx_sd(v1), m1 + _approx_sd(v1), Q(0), Q(-1), Q(1)):
                    q = (rational_interval(ctx, q1), rational_interval(ctx, big))
                    printed_bounds = _frechet(ctx, _cdf(ctx, (p1, w1), q[0]),
                                              _cdf(ctx, (p2, w2), q[1]))
                    true_bounds = _frechet(ctx, _cdf(ctx, (m1, v1), q[0]),
                                           _cdf(ctx, (m2, v2), q[1]))
                    if printed_bounds.b < true_bounds.a or true_bounds.b < printed_bounds.a:
                        detail = (f"secret s{s}: at q = ({fraction_str(q1)}, {fraction_str(big)})"
                                  f" the printed Φ_ρ ∈ {_text(printed_bounds)} but the outputs' "
                                  f"joint CDF ∈ {_text(true_bounds)} ((Z1, Ẑ2) has means "
                                  f"({fraction_str(m1)}, {fraction_str(m2)}), variances "
                                  f"({fraction_str(v1)}, {fraction_str(v2)}))")
                        return _failed("004.lemma1", instance, detail, rho=rho, q1=q1, q2=big,
                                       latent_variance=latent.variance, eta=eta)
                return _failed("004.lemma1", instance,
                               f"secret s{s}: the law of (Z1, Ẑ2) differs from Φ_ρ's "
                               "(no certified witness point among the candidates)", rho=rho)
            # decreasing A: Ψ_[2](y) = Pr[Z1 >= q1, Ẑ2 >= q2] at q_i = F^{-1}(1 − Ψ_i(y_i))
            point = rational_interval(ctx, -big)
            printed_upper = _frechet(ctx, _cdf(ctx, (p1, w1), point), _cdf(ctx, (p2, w2), point))
            true_lower = 1 - _cdf(ctx, (m1, v1), point) - _cdf(ctx, (m2, v2), point)
            if printed_upper.b < true_lower.a:
                detail = (f"secret s{s}: at q = (−{fraction_str(big)}, −{fraction_str(big)}) the "
                          f"printed Φ_ρ <= {_number(printed_upper.b)} but the outputs' joint "
                          f"CDF Pr[Z1 >= q1, Ẑ2 >= q2] >= {_number(true_lower.a)} (the printed "
                          "formula is a lower-tail probability, the outputs need an upper tail)")
                return _failed("004.lemma1", instance, detail, rho=rho, q1=-big, q2=-big)
            return _undecided(f"secret s{s}: bounds {_text(printed_upper)} and "
                                             f"{_text(true_lower)} overlap")
        return _holds("the law of (Z1, Ẑ2) is Φ_ρ's for every secret (equal means "
                                  "and covariances), so the printed joint CDF is exact")
    return check


# --------------------------------------------------------------------------------------------
# Proposition 3
# --------------------------------------------------------------------------------------------

NOISE_SCALES = (Q(1), Q(2))
SHIFTS = ((Q(1), Q(1)), (Q(1), Q(-2)))
POINTS = ((Q(0), Q(0)), (Q(1), Q(-1)), (Q(2), Q(3)), (Q(-1), Q(1, 2)))


def prop3_instances() -> Iterator[Instance]:
    for latent in latents()[:2]:
        for shift in SHIFTS:
            for rho in RHOS:
                yield Instance(f"ρ = {fraction_str(rho)}, {latent.label}, f(s1) − f(s0) = "
                               f"({', '.join(map(fraction_str, shift))}), Ξ = N(0, 1), N(0, 4)",
                               {"rho": rho, "latent": latent, "shift": shift})


def _g_coefficients(r_squared: Fraction, a) -> tuple[Fraction, Fraction]:
    """``g_r(a) = (r²(a1² + a2²) − 2 r a1 a2) / (2(1 − r²))`` as ``(A, B)`` with g = A + B r."""
    scale = 2 * (1 - r_squared)
    return r_squared * (a[0] ** 2 + a[1] ** 2) / scale, -2 * a[0] * a[1] / scale


def printed_copula_correlation(rho: Fraction) -> Fraction:
    """The correlation of the copula density c^g_ρ in Proposition 3's copula term: ρ."""
    return rho


def prop3_check(copula_correlation=None):
    """True PLRV (the bivariate normal density of (V1, V2), correlation r) minus the printed
    decomposition, decided exactly at each point (``copula_correlation``: a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        rho, latent, shift = (instance.params[k] for k in ("rho", "latent", "shift"))
        correlation = (copula_correlation or printed_copula_correlation)(rho)
        (_, _), (v1, cov, v2) = process_law(rho, Q(0), latent.variance)
        r_squared = cov * cov / (v1 * v2)
        sign = (cov > 0) - (cov < 0)
        for y in POINTS:
            a0 = tuple(y[i] / NOISE_SCALES[i] for i in range(2))
            a1 = tuple((y[i] - shift[i]) / NOISE_SCALES[i] for i in range(2))
            # true: (Q_r(a1) − Q_r(a0))/2 = L_b + g_r(a1) − g_r(a0); printed: L_b + g_ρ(a0) − g_ρ(a1)
            t1, t0 = _g_coefficients(r_squared, a1), _g_coefficients(r_squared, a0)
            c_sq = correlation * correlation
            p0 = _g_coefficients(c_sq, a0)
            p1 = _g_coefficients(c_sq, a1)
            printed_term = (p0[0] + p0[1] * correlation) - (p1[0] + p1[1] * correlation)
            const = t1[0] - t0[0] - printed_term
            slope = t1[1] - t0[1]
            # difference = const + slope·r with r = sign·√(r²)
            if sign == 0 or slope == 0:
                zero, value = const == 0, const
            else:
                zero = const * const == slope * slope * r_squared and (const == 0 or
                                                                      (const > 0) != (slope * sign > 0))
                value = None
            if not zero:
                approx = float(const) + float(slope) * sign * math.sqrt(float(r_squared))
                detail = (f"at y = ({fraction_str(y[0])}, {fraction_str(y[1])}) the true PLRV "
                          f"minus the printed decomposition is {fraction_str(value) if value is not None else f'{fraction_str(const)} + ({fraction_str(slope)})·r'}"
                          f" ≈ {approx:.6g} ≠ 0 (r² = {fraction_str(r_squared)}; decided exactly): "
                          "the copula term's orientation (s1 over s0) and correlation (ρ, not r) "
                          "differ from the outputs' law")
                return _failed("004.prop3", instance, detail, rho=rho, y=[str(v) for v in y],
                               latent_variance=latent.variance)
        return _holds("the printed decomposition equals the true PLRV at every point "
                                  "(decided exactly)")
    return check


# --------------------------------------------------------------------------------------------
# registration
# --------------------------------------------------------------------------------------------

def _holding(check, generate):
    return lambda: (i for i in generate() if check(i).holds)


def _variance_typo(rho, mu1, var1):
    """F_ρ with the variance ρ² var1 + 1 (the −ρ² dropped): a mutant."""
    return rho * mu1, rho * rho * var1 + 1


def _centred_at_zero(eta, var1):
    """F1 centred at η(s0) = 0 for every secret (a sampler that does not know s): a mutant."""
    return Q(0), var1


_MODULE = sys.modules[__name__]

register(Claim(
    "004.thm4.i", PAPER, "App. G, Theorem 4 (i); App. H, proof of part (i)",
    "M1 and M2 perturbed by the copula remain (ε1, δ1)- and (ε2, δ2)-CP: the perturbed noises "
    "keep the marginals Ξ1, Ξ2 (U1, U2 uniform for every secret; certified continuous check: "
    "Gaussian laws compared exactly, witnesses enclosed by intervals)",
    thm4_i_instances, thm4_i_check, False,
    (patched("F_ρ's variance printed as ρ² var1 + 1", thm4_i_check, thm4_i_instances,
             _MODULE, printed_f_rho=_variance_typo),
     patched("the sampler's F1 centred at η(s0) = 0 for every secret (it does not know s)",
             thm4_i_check, thm4_i_instances, _MODULE, printed_f1=_centred_at_zero))))
register(Claim(
    "004.thm4.ii", PAPER, "App. G, Theorem 4 (ii); App. H, proof of part (ii)",
    "the copula's latent z1(s) = η(s) + N(0, w²(C_sen/ε_c)²) with w >= 2 log(2/δ_c) is "
    "(ε_c, δ_c)-CP — the premise of (ii)'s OptComp bound (certified continuous check: exact "
    "δ(ε) of the Gaussian pair enclosed by intervals, a violation witnessed by one event)",
    thm4_ii_instances, thm4_ii_check(), False,
    (Mutant.checking("w >= (1/4)·2 log(2/δ_c)", thm4_ii_check(Q(1, 4)),
                     _holding(thm4_ii_check(), thm4_ii_instances)),)))
register(Claim(
    "004.lemma1", PAPER, "App. I, Lemma 1",
    "the outputs' joint CDF under copula perturbation is Φ_ρ(F1^{-1}(Ψ1(y1|s)), "
    "F_ρ^{-1}(Ψ2(y2|s))) for A increasing and Φ_ρ(F1^{-1}(1 − Ψ1), F_ρ^{-1}(1 − Ψ2)) for A "
    "decreasing (certified continuous check: laws compared exactly, witnesses by interval "
    "Fréchet bounds)",
    lemma1_instances, lemma1_check(), False,
    (Mutant.checking("Φ_ρ's means read as (1, 0)",
                     lemma1_check(lambda rho: ((Q(1), Q(0)), (Q(1), rho, Q(1)))),
                     _holding(lemma1_check(), lemma1_instances)),)))
register(Claim(
    "004.prop3", PAPER, "App. G, Proposition 3; App. I",
    "the PLRV of the perturbed composition is L_b(Ȳ) + log c^g_ρ(Ψ1(Y1|s1), Ψ2(Y2|s1)) / "
    "c^g_ρ(Ψ1(Y1|s0), Ψ2(Y2|s0)) (certified continuous check, decided exactly: Gaussian "
    "noises, the true PLRV from the outputs' bivariate normal density)",
    prop3_instances, prop3_check(), False,
    (Mutant.checking("the copula term's correlation read as 1/2",
                     prop3_check(lambda rho: Q(1, 2)), _holding(prop3_check(), prop3_instances)),)))
