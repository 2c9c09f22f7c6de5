"""Benchmark: exact conditional distributions and calibration for multi-user systems
(Ding et al., Multi-user Pufferfish Privacy, §3–4; :mod:`pufferfish.models.multiuser`,
:mod:`pufferfish.verify.multiuser`).

Sizes: n users with values in {0, ..., 10} and random rational probabilities (denominators <= 60),
presence 1 (marginal reading), one protected user with P and Q on {0..10}.  For each n the exact
distribution of the other users' sum is computed by the product tree (decimal NTT) and by naive
repeated Fraction convolution (the baseline, run only up to NAIVE_MAX users because it grows
roughly cubically); their ratio is printed.  For n = 1000 the script also times the full 𝕊_{P,Q}
calibration (conditionals, Proposition 1, Theorem 4, certified actual levels) without the
minimal-θ bisection, and one certified level evaluation.  Run:
``.venv/bin/python benchmarks/bench_multiuser.py``.  Never run by CI.
"""

from __future__ import annotations

import random
import time
from fractions import Fraction as Q


from pufferfish.models.distribution import Distribution  # noqa: E402
from pufferfish.models.multiuser import MultiUserModel, User, naive_sum_distribution, sum_distribution  # noqa: E402
from pufferfish.verify.numerics.certified import parse_budget  # noqa: E402
from pufferfish.verify.multiuser.calibration import calibrate  # noqa: E402
from pufferfish.verify.multiuser.levels import level_at  # noqa: E402
from pufferfish.verify.multiuser.pairs import pair_conditionals  # noqa: E402

NAIVE_MAX = 200


def random_user(rng: random.Random, name: str) -> Distribution:
    weights = [rng.randint(0, 5) for _ in range(11)]
    weights[rng.randrange(11)] += 1
    total = sum(weights)
    return Distribution({Q(v): Q(w, total) for v, w in enumerate(weights) if w})


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def main() -> None:
    rng = random.Random(1)
    print(f"{'users':>6} {'product tree (s)':>17} {'naive (s)':>10} {'ratio':>8}")
    for n in (50, 100, 200, 500, 1000):
        factors = [random_user(rng, f"u{k}") for k in range(n - 1)]
        fast, t_fast = timed(sum_distribution, factors)
        if n <= NAIVE_MAX:
            naive, t_naive = timed(naive_sum_distribution, factors)
            assert naive == fast
            print(f"{n:>6} {t_fast:>17.3f} {t_naive:>10.3f} {t_naive / t_fast:>8.1f}")
        else:
            print(f"{n:>6} {t_fast:>17.3f} {'(skipped)':>10} {'-':>8}")
    n = 1000
    users = tuple(User(f"u{k}", Q(1), random_user(rng, f"u{k}")) for k in range(n - 1))
    target = User("i", Q(1, 2), random_user(rng, "P"), random_user(rng, "Q"))
    model = MultiUserModel(users + (target,), ("i",))
    budget = parse_budget("1")
    (pairs, _), t_cond = timed(pair_conditionals, model, "PQ")
    print(f"\n{n} users: conditionals X|s_P, X|s_Q ({len(pairs[0].first)} and {len(pairs[0].second)} "
          f"support points): {t_cond:.2f} s")
    level, t_level = timed(level_at, pairs, Q(10), budget)
    print(f"one certified level evaluation at θ = 10: {t_level:.2f} s (ε ∈ "
          f"[{level.epsilon_lower:.6f}, {level.epsilon_upper:.6f}], {level.relation})")
    report, t_cal = timed(calibrate, model, "PQ", budget, minimal=False)
    summary = ", ".join(f"{c.name} θ = {float(c.theta.upper):.4g} ({c.check.relation})"
                        for c in report.calibrations if c.applicable)
    print(f"𝕊_PQ calibration without minimal θ: {t_cal:.2f} s: {summary}")


if __name__ == "__main__":
    main()
