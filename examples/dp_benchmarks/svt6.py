"""Algorithm 6 of Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy" (VLDB 2017)
(from Chen et al.): noise on the threshold and on the queries, no cutoff.  True means "above",
False "below"."""

from pufferfish.models.programs import geometric


def svt6(queries, T, alpha_rho, alpha_nu):
    rho = geometric(alpha_rho)
    return [q + geometric(alpha_nu) >= T + rho for q in queries]
