"""Algorithm 3 of Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential Privacy" (VLDB 2017)
(from Roth's lecture notes): an answer above the threshold is released as the noisy answer itself,
clamped to [low, high] (unclamped, the output space is infinite).  False means "below"."""

from pufferfish.models.programs import geometric


def svt3(queries, T, c, alpha_rho, alpha_nu, low, high):
    rho = geometric(alpha_rho)
    out, count = [], 0
    for q in queries:
        noisy = q + geometric(alpha_nu)
        if noisy >= T + rho:
            out.append(max(low, min(noisy, high)))
            count += 1
            if count >= c:
                break
        else:
            out.append(False)
    return out
