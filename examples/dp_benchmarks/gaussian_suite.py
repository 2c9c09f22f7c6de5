"""Programs with Gaussian noise: the Gaussian Sparse Vector and report-noisy-max of the
approximate-DP verifiers' benchmark (Bhusal, Chadha, Sistla and Viswanathan, "DiPApprox", CCS
2025; the Gaussian SVT of Zhu and Wang, "Improving Sparse Vector Technique with Renyi Differential
Privacy", NeurIPS 2020, Algorithm 2), and a histogram released with the discrete Gaussian
(Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020).

The toolkit computes their output laws as certified enclosures (Gaussian integrals have no
closed form), so their pure-ε and (ε, δ) levels are certified intervals
(``pufferfish approximate-dp``).  Every function takes the query answers and exact rational
noise parameters (standard deviations ``sigma``).
"""

from pufferfish.models.programs import discrete_gaussian, gaussian


def gaussian_svt(queries, T, c, sigma_threshold, sigma_query):
    """Sparse Vector with Gaussian noise: ρ ~ N(0, σ₁²) on the threshold, ν ~ N(0, σ₂²) on each
    answer; reports above/below and stops after ``c`` answers above."""
    rho = gaussian(sigma_threshold)
    out, count = [], 0
    for q in queries:
        if q + gaussian(sigma_query) >= T + rho:
            out.append(True)
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def gaussian_svt_gap(queries, T, c, sigma_threshold, sigma_query):
    """The same Sparse Vector with the test written as a gap, ``q + ν − ρ ≥ T``."""
    rho = gaussian(sigma_threshold)
    out, count = [], 0
    for q in queries:
        if q + gaussian(sigma_query) - rho >= T:
            out.append(True)
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out


def gaussian_noisy_max(queries, sigma):
    """Report noisy max with Gaussian noise: the index of the largest ``q_i + N(0, σ²)``."""
    best, index = None, None
    for i, q in enumerate(queries):
        noisy = q + gaussian(sigma)
        if best is None or noisy > best:
            best, index = noisy, i
    return index


def discrete_gaussian_histogram(queries, sigma, low, high):
    """Every answer released with discrete Gaussian noise, clamped to ``[low, high]`` (a vector
    of noisy counts)."""
    return [max(low, min(q + discrete_gaussian(sigma), high)) for q in queries]
