"""The CheckDP benchmark: the programs of Wang, Ding, Kifer and Zhang, "CheckDP: An Automated
and Integrated Approach for Proving Differential Privacy or Finding Precise Counterexamples"
(CCS 2020, §6 and the examples of its repository), each with the verdict CheckDP reports — a
proof of the claimed level, or a counterexample for the ``bad`` variants — beside the exact
level computed here (:data:`BENCHMARK`; the programs page of the documentation has the table).

The programs that only compare noisy values keep CheckDP's continuous Laplace noise.  A program
that releases a noisy number gets the discrete Laplace of the same scale instead
(``Lap(b)`` becomes the two-sided geometric noise at ``α = e^(−1/b)``, which has the same
privacy analysis; a continuous value has a density, not point masses), with the released value
clamped to a window (post-processing of each output: it never raises a level, so a level above
the claim is a genuine violation, while a level within it speaks for the clamped release).
CheckDP writes "below the threshold" as ``0`` or ``-100`` beside numeric outputs; here it is
``False``.

Programs of the benchmark already shipped elsewhere are not repeated: ``sparsevector`` is
Algorithm 1 of ``laplace_suite.py`` (``svt1``), ``badsparsevector1``–``3`` are its Algorithms 5,
6 and 4, ``noisymax`` its ``noisy_max_laplace`` and ``partialsum`` is ``sums_suite.py``'s
``partial_sum``; ``checkdp_suite.json`` names them all.
"""

from fractions import Fraction

from pufferfish.models.programs import discrete_laplace, laplace

BENCHMARK = (
    # (CheckDP's example, the mechanism in checkdp_suite.json, CheckDP's precondition as a
    #  neighbour relation, the claimed level as a multiple of ε, CheckDP's verdict)
    ("sparsevector", "sparse_vector", "linf:1", 1, "proof"),
    ("badsparsevector1", "bad_sparse_vector_1", "linf:1", 1, "counterexample"),
    ("badsparsevector2", "bad_sparse_vector_2", "linf:1", 1, "counterexample"),
    ("badsparsevector3", "bad_sparse_vector_3", "linf:1", 1, "counterexample"),
    ("svt_increasing", "svt_monotone", "monotone:1", 1, "proof"),
    ("gapsparsevector", "gap_sparse_vector", "linf:1", 1, "proof"),
    ("badgapsparsevector", "bad_gap_sparse_vector", "linf:1", 1, "counterexample"),
    ("numsparsevector", "num_sparse_vector", "linf:1", 1, "proof"),
    ("adaptivesparsevector", "adaptive_sparse_vector", "linf:1", 1, "proof"),
    ("badadaptivesparsevector", "bad_adaptive_sparse_vector", "linf:1", 1, "counterexample"),
    ("noisymax", "noisy_max", "linf:1", 1, "proof"),
    ("badnoisymax", "bad_noisy_max", "linf:1", 1, "counterexample"),
    ("partialsum", "partial_sum", "l1:1", 1, "proof"),
    ("badpartialsum", "bad_partial_sum", "l1:1", 1, "counterexample"),
    ("smartsum", "smart_sum", "l1:1", 2, "proof"),
    ("badsmartsum", "bad_smart_sum", "l1:1", 2, "counterexample"),
)
"""CheckDP's benchmark as published: every program's claim (``CHECK: epsilon`` or ``2 *
epsilon``), precondition (``ALL_DIFFER``: every answer moves by at most 1, ``linf:1``;
``ONE_DIFFER``: one answer moves by at most 1, ``l1:1``; ``INCREASING`` and ``DECREASING``:
every answer moves by at most 1 the same way, ``monotone:1`` — ``svt_decreasing`` is the same
program under the same symmetric relation) and verdict."""


def _clamped(value, low, high):
    return int(max(low, min(value, high)))


def _discrete(epsilon, scale):
    """The discrete Laplace of scale ``scale/ε``: ``α = e^(−ε/scale)``."""
    return discrete_laplace(Fraction(epsilon) / scale)


def svt_monotone(queries, T, c, epsilon):
    """``svt_increasing`` / ``svt_decreasing``: Sparse Vector for monotonic queries, ρ = Lap(2/ε),
    ν = Lap(2c/ε) (half the answers' noise of ``sparsevector``), stops after ``c`` answers above.
    Claimed ε-DP when the answers all move the same way."""
    epsilon = Fraction(epsilon)
    rho = laplace(2 / epsilon)
    out, count = [], 0
    for q in queries:
        if count >= c:
            break
        above = q + laplace(2 * c / epsilon) >= T + rho
        out.append(above)
        count += above
    return out


def _releasing(queries, T, c, epsilon, release):
    """Sparse Vector with ρ and ν the discrete Lap(2/ε) and Lap(4c/ε), stopping after ``c``
    answers above the threshold; an answer above is released as ``release(q + ν, T + ρ)``."""
    rho = _discrete(epsilon, 2)
    out, count = [], 0
    for q in queries:
        if count >= c:
            break
        noisy = q + _discrete(epsilon, 4 * c)
        if noisy >= T + rho:
            out.append(release(noisy, T + rho))
            count += 1
        else:
            out.append(False)
    return out


def gap_sparse_vector(queries, T, c, epsilon, cap):
    """``gapsparsevector`` (Ding, Wang, Zhang and Kifer, "Free Gap Information", VLDB 2019): an
    answer above the threshold is released as its gap ``q + ν − (T + ρ)`` (capped at ``cap``).
    Claimed ε-DP."""
    return _releasing(queries, T, c, epsilon, lambda noisy, bar: min(noisy - bar, cap))


def bad_gap_sparse_vector(queries, T, c, epsilon, low, high):
    """``badgapsparsevector``: as :func:`gap_sparse_vector`, but the noisy answer ``q + ν`` itself
    is released (clamped to ``[low, high]``).  Claimed ε-DP (wrong: it reveals the answer)."""
    return _releasing(queries, T, c, epsilon, lambda noisy, bar: _clamped(noisy, low, high))


def num_sparse_vector(queries, T, c, epsilon, low, high):
    """``numsparsevector``: ρ = Lap(3/ε), ν = Lap(6c/ε); an answer above is released with fresh
    noise Lap(3c/ε) (here its discrete form, clamped to ``[low, high]``).  Claimed ε-DP."""
    epsilon = Fraction(epsilon)
    rho = laplace(3 / epsilon)
    out, count = [], 0
    for q in queries:
        if count >= c:
            break
        if q + laplace(6 * c / epsilon) >= T + rho:
            out.append(_clamped(q + _discrete(epsilon, 3 * c), low, high))
            count += 1
        else:
            out.append(False)
    return out


def _adaptive(queries, T, c, epsilon, cap, release_noisy_answer, low, high):
    """Adaptive Sparse Vector (Ding et al., "Free Gap Information", Algorithm 3, as CheckDP writes
    it, with √2 rounded to 2): ρ = Lap(2/ε); each answer is first tested with ν₃ = Lap(8c/ε)
    against ``T + 16`` (cost ε), else with ν₂ = Lap(4c/ε) against ``T`` (cost 2ε); the budget
    starts at 2cε spent and the run stops once more than (4c − 2)ε is spent.  Noise is the
    discrete Laplace of those scales; gaps are capped at ``cap``."""
    rho = _discrete(epsilon, 2)
    spent = 2 * c                      # in units of ε
    out = []
    for q in queries:
        top = q + _discrete(epsilon, 8 * c)
        if top - (T + rho) >= 16:
            out.append(_clamped(top, low, high) if release_noisy_answer
                       else min(top - (T + rho), cap))
            spent += 1
        else:
            middle = q + _discrete(epsilon, 4 * c)
            if middle - (T + rho) >= 0:
                out.append(min(middle - (T + rho), cap))
                spent += 2
            else:
                out.append(False)
        if spent > 4 * c - 2:
            break
    return out


def adaptive_sparse_vector(queries, T, c, epsilon, cap):
    """``adaptivesparsevector``: :func:`_adaptive`, releasing gaps.  Claimed ε-DP."""
    return _adaptive(queries, T, c, epsilon, cap, False, None, None)


def bad_adaptive_sparse_vector(queries, T, c, epsilon, cap, low, high):
    """``badadaptivesparsevector``: an answer above ``T + 16`` is released as the noisy answer
    ``q + ν₃`` (clamped to ``[low, high]``) instead of its gap.  Claimed ε-DP (wrong)."""
    return _adaptive(queries, T, c, epsilon, cap, True, low, high)


def bad_noisy_max(queries, epsilon, low, high):
    """``badnoisymax``: report noisy max releasing the largest noisy answer itself (discrete
    Lap(2/ε), clamped to ``[low, high]``) instead of its index.  Claimed ε-DP (wrong)."""
    best = None
    for q in queries:
        noisy = q + _discrete(epsilon, 2)
        if best is None or noisy > best:
            best = noisy
    return _clamped(best, low, high)


def bad_partial_sum(queries, epsilon, low, high):
    """``badpartialsum``: the sum of the answers plus Lap(1/(2ε)) (its discrete form, clamped):
    half the noise ε-DP needs.  Claimed ε-DP (wrong: 2ε)."""
    return _clamped(sum(queries) + discrete_laplace(2 * Fraction(epsilon)), low, high)


def _smart_sum(queries, epsilon, T, M, low, high, block_noise):
    """Smart Sum as CheckDP writes it: for ``i ≤ T``, at the end of a block of ``M`` answers
    ``next = sum + q_i + η₁`` (the block's exact sum so far, noised; ``sum`` restarts), else
    ``next = next + q_i + η₂`` and ``sum = sum + q_i``; ``next`` is released (clamped)."""
    out, running, block_sum = [], 0, 0
    for i, q in enumerate(queries):
        if i > T:
            break
        if (i + 1) % M == 0:
            running = block_sum + q + (_discrete(epsilon, 1) if block_noise else 0)
            block_sum = 0
        else:
            running = running + q + _discrete(epsilon, 1)
            block_sum += q
        out.append(_clamped(running, low, high))
    return out


def smart_sum(queries, epsilon, T, M, low, high):
    """``smartsum``: η₁, η₂ the discrete Lap(1/ε).  Claimed 2ε-DP."""
    return _smart_sum(queries, epsilon, T, M, low, high, True)


def bad_smart_sum(queries, epsilon, T, M, low, high):
    """``badsmartsum``: η₁ = 0, the block's sum released without noise.  Claimed 2ε-DP (wrong)."""
    return _smart_sum(queries, epsilon, T, M, low, high, False)
