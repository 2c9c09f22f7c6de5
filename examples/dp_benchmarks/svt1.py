"""Algorithm 1 of Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy" (VLDB 2017):
the Sparse Vector Technique that stops after c answers above the threshold.  Laplace(b) noise is
two-sided geometric noise of alpha = e^(-1/b); True means "above", False "below"."""

from pufferfish.models.programs import geometric


def svt1(queries, T, c, alpha_rho, alpha_nu):
    rho = geometric(alpha_rho)
    out, count = [], 0
    for q in queries:
        if q + geometric(alpha_nu) >= T + rho:
            out.append(True)
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out
