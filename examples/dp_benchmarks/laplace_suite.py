"""The Sparse Vector and report-noisy-max benchmark in its published form: Laplace noise at the
papers' ε (Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy",
VLDB 2017, Algorithms 1, 2 and 4–6, Figure 1; Dwork and Roth, "The Algorithmic Foundations of
Differential Privacy", §3.3 and §3.6, report noisy max and NumericSparse), the discrete Laplace at α = e^(−ε)
where the output is a noisy number (Algorithm 3, a noisy histogram), and the same Sparse Vector
written with a subtraction (``q + ν − ρ ≥ T``) as the DP verifiers' benchmarks write it.

Every function takes the query answers and the privacy parameter ``epsilon`` (an exact
rational); the noise scales are the published ones for sensitivity Δ = 1 and ``c`` answers above
the threshold.
"""

from fractions import Fraction

from pufferfish.models.programs import EpsilonSymbol, discrete_laplace, exponential, laplace


def _times(epsilon, c):
    """``c·ε`` for ε given exactly (a number or its text) or as the symbol ε, which the
    discrete Laplace accepts (``pufferfish.dp_for_every_epsilon``)."""
    return epsilon * c if isinstance(epsilon, EpsilonSymbol) else Fraction(epsilon) * c


def _halves(epsilon):
    epsilon = Fraction(epsilon)
    return epsilon / 2, epsilon / 2


def svt1(queries, T, c, epsilon):
    """Algorithm 1: ρ = Lap(1/ε₁), ν = Lap(2c/ε₂), ε₁ = ε₂ = ε/2; stops after c answers above.
    Claimed ε-DP (correct)."""
    eps1, eps2 = _halves(epsilon)
    rho = laplace(1 / eps1)
    out, count = [], 0
    for q in queries:
        if q + laplace(2 * c / eps2) >= T + rho:
            out.append(True)
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def svt1_subtraction(queries, T, c, epsilon):
    """Algorithm 1 with the test written as a gap, ``q + ν − ρ ≥ T``: the same mechanism."""
    eps1, eps2 = _halves(epsilon)
    rho = laplace(1 / eps1)
    out, count = [], 0
    for q in queries:
        if q + laplace(2 * c / eps2) - rho >= T:
            out.append(True)
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def svt2(queries, T, c, epsilon):
    """Algorithm 2 (Dwork and Roth's Sparse): ρ = Lap(c/ε₁), ν = Lap(2c/ε₂), ε₁ = ε₂ = ε/2, and
    a fresh threshold noise after every answer above.  Claimed ε-DP (correct)."""
    eps1, eps2 = _halves(epsilon)
    rho = laplace(c / eps1)
    out, count = [], 0
    for q in queries:
        if q + laplace(2 * c / eps2) >= T + rho:
            out.append(True)
            count += 1
            if count >= c:
                break
            rho = laplace(c / eps1)
        else:
            out.append(False)
    return out


def numerical_svt(queries, T, c, epsilon, low, high):
    """NumericSparse (Dwork and Roth, §3.6; NumSVT of the verifiers' benchmarks): ε₁ = 8ε/9,
    ε₂ = 2ε/9, ρ = Lap(2c/ε₁), ν = Lap(4c/ε₁), and an answer above the threshold is released as
    ``q + Lap(2c/ε₂)`` with fresh noise — here the discrete Laplace of that ε (clamped to
    [low, high]).  Claimed ε-DP (correct)."""
    epsilon = Fraction(epsilon)
    eps1, eps2 = epsilon * 8 / 9, epsilon * 2 / 9
    rho = laplace(2 * c / eps1)
    out, count = [], 0
    for q in queries:
        if q + laplace(4 * c / eps1) >= T + rho:
            out.append(int(max(low, min(q + discrete_laplace(eps2 / (2 * c)), high))))
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def svt3(queries, T, c, epsilon, low, high):
    """Algorithm 3 (Roth's lecture notes): an answer above the threshold is released as its noisy
    value, here with the discrete Laplace of the same ε₂/c (clamped to [low, high]: a Laplace
    value has a density, not point masses).  Claimed ε-DP (wrong: the released values leak)."""
    rho = discrete_laplace(_times(epsilon, Fraction(1, 2)))
    out, count = [], 0
    for q in queries:
        noisy = q + discrete_laplace(_times(epsilon, Fraction(1, 2 * c)))
        if noisy >= T + rho:
            out.append(max(low, min(noisy, high)))
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def svt4(queries, T, c, epsilon):
    """Algorithm 4: ε₁ = ε/4, ε₂ = 3ε/4, ρ = Lap(1/ε₁), ν = Lap(1/ε₂).  Claimed ε-DP (wrong for
    c > 1: the level is ((1 + 6c)/4)·ε)."""
    epsilon = Fraction(epsilon)
    rho = laplace(4 / epsilon)
    out, count = [], 0
    for q in queries:
        if q + laplace(4 / (3 * epsilon)) >= T + rho:
            out.append(True)
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def svt5(queries, T, epsilon):
    """Algorithm 5: ρ = Lap(2/ε), no noise on the answers, no stop.  Claimed ε-DP (wrong: not
    private at any ε)."""
    rho = laplace(2 / Fraction(epsilon))
    return [q >= T + rho for q in queries]


def svt6(queries, T, epsilon):
    """Algorithm 6: ρ = Lap(2/ε), ν = Lap(2/ε), no stop.  Claimed ε-DP (wrong: not private at
    any ε once there are enough queries)."""
    epsilon = Fraction(epsilon)
    rho = laplace(2 / epsilon)
    return [q + laplace(2 / epsilon) >= T + rho for q in queries]


def noisy_max_laplace(queries, epsilon):
    """Report noisy max with Lap(2/ε) noise, the index (Dwork and Roth, Claim 3.9: ε-DP)."""
    best_index, best = None, None
    for i, q in enumerate(queries):
        value = q + laplace(2 / Fraction(epsilon))
        if best is None or value > best:
            best_index, best = i, value
    return best_index


def noisy_max_exponential(queries, epsilon):
    """Report noisy max with exponential noise of scale 2/ε, the index (ε-DP)."""
    best_index, best = None, None
    for i, q in enumerate(queries):
        value = q + exponential(2 / Fraction(epsilon))
        if best is None or value > best:
            best_index, best = i, value
    return best_index


def noisy_histogram(queries, epsilon, low, high):
    """Every answer released with discrete Laplace noise at α = e^(−ε), clamped to [low, high]: a
    vector of noisy values (ε-DP per answer; k·ε when k answers may move by one)."""
    return [max(low, min(high, q + discrete_laplace(epsilon))) for q in queries]


def noisy_top_k(queries, k, epsilon):
    """One-shot noisy top-k with Lap(2k/ε) noise on every answer, released as the k indices in
    order (Qiao, Su and Zhang, "Oneshot Differentially Private Top-k Selection", ICML 2021:
    ε-DP)."""
    ranked = []  # (noisy value, index), largest first, at most k kept
    for i, q in enumerate(queries):
        value = q + laplace(2 * k / Fraction(epsilon))
        position = len(ranked)
        while position > 0 and value > ranked[position - 1][0]:
            position -= 1
        if position < k:
            ranked.insert(position, (value, i))
            del ranked[k:]
    return [i for _, i in ranked]


def noisy_max_gap(queries, epsilon, cap):
    """Report noisy max with the gap to the runner-up (Ding, Wang, Zhang, Kifer, "Free Gap
    Information from the Differentially Private Sparse Vector and Noisy Max Mechanisms", VLDB
    2019, Algorithm 2: ε-DP), with the discrete Laplace at e^(−ε/2) (the discrete Lap(2/ε)) and
    the gap capped at ``cap`` (post-processing)."""
    first = second = None  # (noisy value, index)
    for i, q in enumerate(queries):
        value = q + discrete_laplace(_times(epsilon, Fraction(1, 2)))
        if first is None or value > first[0]:
            first, second = (value, i), first
        elif second is None or value > second[0]:
            second = (value, i)
    return [first[1], min(first[0] - second[0], cap)]
