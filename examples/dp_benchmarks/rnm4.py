"""Report noisy max (Dwork and Roth, The Algorithmic Foundations of Differential Privacy, §3.3):
the largest noisy answer itself, one-sided geometric noise, clamped to [low, high].
Ties go to the lowest index; Laplace(b) noise is geometric noise of alpha = e^(-1/b)."""

from pufferfish.models.programs import one_sided_geometric


def rnm4(queries, alpha, low, high):
    best_index, best = None, None
    for i, q in enumerate(queries):
        value = q + one_sided_geometric(alpha)
        if best is None or value > best:
            best_index, best = i, value
    return max(low, min(best, high))
