"""Mechanisms whose outputs are sums of noisy values, in the form the DP verifiers' benchmarks
(LightDP, ShadowDP, CheckDP) write them: Partial Sum, the running sum released at every step,
and Smart Sum (Chan, Shi and Song, "Private and Continual Release of Statistics", TISSEC 2011,
the two-level counter; Zhang and Kifer, "LightDP", POPL 2017, Figure "SmartSum").

The papers' noise is Laplace of scale 1/ε; a released continuous value has a density, not point
masses, so here it is the discrete Laplace at α = e^(−ε) (the integer Laplace of the same ε), and
every released value is clamped to ``[low, high]`` (post-processing of each output: it never
raises a level).  The neighbour relation is the benchmarks' one, ``l1:1`` (the answers of two
neighbouring datasets differ by at most 1 in total).  ``epsilon`` may be the symbol ε: the
claims are then decided for every ε of an interval at once.
"""

from fractions import Fraction

from pufferfish.models.programs import EpsilonSymbol, discrete_laplace


def _epsilon(epsilon):
    """ε given exactly (a number or its text), or as the symbol ε
    (``pufferfish.dp_for_every_epsilon``)."""
    return epsilon if isinstance(epsilon, EpsilonSymbol) else Fraction(epsilon)


def _clamped(value, low, high):
    return int(max(low, min(value, high)))


def partial_sum(queries, epsilon, low, high):
    """The sum of the answers plus discrete Laplace noise, released clamped: ε-DP under l1:1."""
    return _clamped(sum(queries) + discrete_laplace(_epsilon(epsilon)), low, high)


def running_sum(queries, epsilon, low, high):
    """Every prefix sum released, the noise accumulating: ``out_i = Σ_{j ≤ i} (q_j + η_j)``.
    The vector of outputs is a bijection of the vector of noisy answers ``q_j + η_j`` before
    clamping, so the claim is ε-DP under l1:1."""
    total, out = 0, []
    for q in queries:
        total = total + q + discrete_laplace(_epsilon(epsilon))
        out.append(_clamped(total, low, high))
    return out


def smart_sum(queries, epsilon, block, low, high):
    """Smart Sum with blocks of ``block`` answers: inside a block the running value adds each
    noisy answer (η₂); at a block's end the block's exact sum plus one noise (η₁) is added to the
    noisy total of the blocks before, and the running value restarts from it.  Every answer is
    in at most two noisy sums, so the claim is 2ε-DP under l1:1."""
    total = 0          # the noisy sum of the finished blocks
    running = 0        # the value released at this step
    block_sum = 0      # the exact sum of the current block so far
    out = []
    for i, q in enumerate(queries):
        if (i + 1) % block == 0:
            total = total + block_sum + q + discrete_laplace(_epsilon(epsilon))
            running, block_sum = total, 0
        else:
            running = running + q + discrete_laplace(_epsilon(epsilon))
            block_sum += q
        out.append(_clamped(running, low, high))
    return out
