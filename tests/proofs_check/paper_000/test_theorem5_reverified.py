"""The counterexample of ``000.thm5.mixed_not_invariant`` re-verified by a second code path:
the NfC constraints (``000_65109fe28ca61d17.txt`` §5.2, Theorem 5) evaluated here from their
definition on the mechanism table and the post-processing map that the counterexample's model
file carries, with exact rationals and certified logarithms — not through
:mod:`pufferfish.verify.nfc`, which the claim uses."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import combinations

from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.numerics.intervals import log_enclosure

CONSTRAINTS_MARKER = "NfC constraints file: "


def meets(left: Fraction, right: list[tuple[Fraction, Fraction]], epsilon: Fraction) -> bool:
    """Decide ``log P_left <= ε + Σ_ℓ β_ℓ log P_ℓ`` for ``right = [(β_ℓ, P_ℓ), ...]`` (Equation 1).

    With ``n`` the common denominator of the β this is ``log r <= n·ε`` for the rational
    ``r = P_left^n / Π_ℓ P_ℓ^{n·β_ℓ}``, decided by a certified enclosure of ``log r``.
    """
    if left == 0:
        return True
    if any(beta and not p for beta, p in right):
        return False
    n = math.lcm(*(beta.denominator for beta, _ in right))
    ratio = left ** n
    for beta, p in right:
        ratio /= p ** int(beta * n)
    low, high = log_enclosure(ratio, 96)
    assert not low <= n * epsilon < high, f"undecided: log {ratio} against {n * epsilon}"
    return high <= n * epsilon


def constraint_set(counterexample: dict) -> tuple[Fraction, list[tuple[tuple, list]]]:
    """ε and the constraints ``(D_t, [(β_ℓ, D_ℓ), ...])`` of the file the description carries."""
    document = json.loads(counterexample["description"].split(CONSTRAINTS_MARKER, 1)[1])
    constraints = [(tuple(c["left"]), [(Fraction(beta), tuple(d)) for d, beta in c["beta"]])
                   for c in document["constraints"]]
    return Fraction(document["epsilon"]), constraints


def every_constraint_met(probability, constraints, epsilon: Fraction, outputs) -> bool:
    """``probability(dataset, output)`` meets every constraint at every output."""
    return all(meets(probability(left, o), [(beta, probability(d, o)) for beta, d in right], epsilon)
               for o in outputs for left, right in constraints)


def test_every_post_processing_of_the_proofs_mechanism_keeps_the_mixed_constraint(
        claim_results):
    """β = (1/2, 1/2) with a DP companion at ε = 1/10: the proof's M̂ has outputs 0 and 2 at
    log P(ω|D0) − ½ log P(ω|D1) − ½ log P(ω|D2) = ε − 10⁻¹⁰ (tight as Step 2 asks), and the
    carried map A merges them into one output, whose value is 0.099922 < ε — the violation Step 3
    promises does not occur.  No post-processor of M̂ produces it either: for one output y the
    constraint is linear on the left and a weighted geometric mean (concave) on the right in the
    column A(y|·) ∈ [0, 1]^Ω, so the worst column is a vertex, an event S ⊆ Ω, and all 15 events
    keep every constraint."""
    result = claim_results(claims_for(claim_id="000.thm5.mixed_not_invariant")).results[0]
    assert result.status == "violated"
    counterexample = result.first_counterexample
    epsilon, constraints = constraint_set(counterexample)
    assert epsilon == Fraction(1, 10)
    assert constraints == [((0,), [(Fraction(1, 2), (1,)), (Fraction(1, 2), (2,))]),
                           ((1,), [(Fraction(1), (0,))])]

    mechanisms = counterexample["mechanisms"]
    table = {tuple(d): {o: Fraction(p) for o, p in row} for d, row in mechanisms["M_hat"]["table"]}
    outputs = sorted({o for row in table.values() for o in row})
    assert outputs == [0, 1, 2, 3] and all(sum(row.values()) == 1 for row in table.values())
    given = mechanisms["A_of_M_hat"]["postprocess"]
    assert given["mechanism"] == "M_hat"
    post_map = {o: {y: Fraction(p) for y, p in row} for o, row in given["map"]}
    post = {d: {y: sum(post_map[o].get(y, Fraction(0)) * row[o] for o in outputs)
                for y in (0, 1)} for d, row in table.items()}

    # the model file loads and reproduces both mechanisms
    model = parse_model(counterexample)
    for d in table:
        m_hat = model.mechanism("M_hat").distribution(d)
        composed = model.mechanism("A_of_M_hat").distribution(d)
        assert all(m_hat.prob(o) == table[d][o] for o in outputs)
        assert all(composed.prob(y) == post[d][y] for y in (0, 1))

    # Step 2: M̂ meets every constraint, with outputs 0 and 2 within 10⁻⁹ of equality
    assert every_constraint_met(lambda d, o: table[d][o], constraints, epsilon, outputs)
    (left, right), _ = constraints
    slack = Fraction(1, 10**9)
    for o in (0, 2):
        assert not meets(table[left][o], [(b, table[d][o]) for b, d in right], epsilon - slack)
    # Step 3: A∘M̂ still meets the mixed constraint (and the DP one)
    assert every_constraint_met(lambda d, y: post[d][y], constraints, epsilon, (0, 1))
    merged = (post[left][1], [(b, post[d][1]) for b, d in right])
    assert meets(*merged, Fraction(9993, 100000)) and not meets(*merged, Fraction(9992, 100000))

    # every post-processor: the events S ⊆ Ω are the extreme columns
    for size in range(1, len(outputs) + 1):
        for event in combinations(outputs, size):
            def event_probability(d, _, event=event):
                return sum(table[d][o] for o in event)
            assert every_constraint_met(event_probability, constraints, epsilon, (event,)), event


def test_a_map_that_reads_the_dataset_does_break_the_mixed_constraint(claim_results):
    """The guard: the same evaluation does find a broken constraint when the "post-processor"
    may read the data — reporting 1[ω ∈ {1, 3}] under D0 and 1[ω ∈ {0, 2}] under D1, D2 gives
    log 0.7425 − ½ log(0.2082 · 0.2607) ≈ 1.27 > ε = 1/10."""
    result = claim_results(claims_for(claim_id="000.thm5.mixed_not_invariant")).results[0]
    counterexample = result.first_counterexample
    epsilon, constraints = constraint_set(counterexample)
    table = {tuple(d): {o: Fraction(p) for o, p in row}
             for d, row in counterexample["mechanisms"]["M_hat"]["table"]}

    def reads_the_dataset(d, _):
        return sum(table[d][o] for o in ((1, 3) if d == (0,) else (0, 2)))

    assert not every_constraint_met(reads_the_dataset, constraints[:1], epsilon, ("y",))
