"""Algorithm 5 of Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy" (VLDB 2017)
(from Stoddard et al.): a noisy threshold, no noise on the queries and no cutoff.  True means
"above", False "below"."""

from pufferfish.models.programs import geometric


def svt5(queries, T, alpha_rho):
    rho = geometric(alpha_rho)
    return [q >= T + rho for q in queries]
