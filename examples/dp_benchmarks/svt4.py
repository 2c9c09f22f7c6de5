"""Algorithm 4 of Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy" (VLDB 2017)
(from Lee and Clifton): Algorithm 1's loop with query noise whose scale does not grow with the
cutoff c (here rho ~ Geo(1/2), nu ~ Geo(1/8)).  True means "above", False "below"."""

from pufferfish.models.programs import geometric


def svt4(queries, T, c, alpha_rho, alpha_nu):
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
