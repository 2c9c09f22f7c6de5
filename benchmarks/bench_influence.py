"""Benchmark: structured Markov-chain a(b) curve vs brute force over splits
(Bai et al., Composition for Pufferfish Privacy, §6.2 Definition 7, §6.3 Example 6.1).

Sizes: binary chain p = 4/5, q = 9/10 (stationary start), the secret pair of the middle node
(both directions), every b, chain lengths T = 6..12 for the brute force (2^T datasets, C(T, b)
splits per b) against the structured computation on the same chain; then the structured curve of
every node's pair for T = 10^4 with b <= 100, against the structured curve for T = 10^3 as the
baseline.  Prints each timing beside its baseline with the ratio.  Not run by CI.

Run: .venv/bin/python benchmarks/bench_influence.py
"""

import time
from fractions import Fraction


from pufferfish.models.numbers import epsilon_float  # noqa: E402
from pufferfish.verify.influence.chains import chain_influence_curve  # noqa: E402
from pufferfish.verify.influence.curves import influence_curve  # noqa: E402
from pufferfish.proofs_check.paper_000.figures import binary_chain_model  # noqa: E402

P, Q = Fraction(4, 5), Fraction(9, 10)


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main() -> None:
    print("structured vs brute force, middle node's pair, every b")
    print(f"{'T':>4} {'brute (s)':>10} {'structured (s)':>15} {'ratio':>10}  agree")
    for length in range(6, 17):
        model = binary_chain_model(P, Q, length)
        middle = f"x{(length + 1) // 2}=0"
        pairs = [p for p in model.pairs if p.first.name == middle]
        brute, t_brute = timed(lambda: influence_curve(model, pairs))
        chain, t_chain = timed(lambda: chain_influence_curve(model, pairs))
        agree = [p.max_ratio for p in brute.points] == [p.max_ratio for p in chain.points]
        print(f"{length:>4} {t_brute:>10.3f} {t_chain:>15.4f} {t_brute / t_chain:>10.1f}  {agree}")
        if t_brute > 60:
            break
    print("\nstructured curve over every node's pair, b <= 100")
    base_model = binary_chain_model(P, Q, 1000)
    _, t_base = timed(lambda: chain_influence_curve(base_model, max_b=100))
    model = binary_chain_model(P, Q, 10_000)
    curve, t_big = timed(lambda: chain_influence_curve(model, max_b=100))
    print(f"T=1000: {t_base:.2f} s (baseline); T=10000: {t_big:.2f} s; ratio {t_big / t_base:.2f}")
    point = curve.at(100)
    print(f"a(100) ≈ {epsilon_float(point.max_ratio):.6g} (exact log of a rational with "
          f"{len(str(point.max_ratio.denominator))}-digit denominator), worst pair {point.pair}")

if __name__ == "__main__":
    main()
