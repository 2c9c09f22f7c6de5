"""Claims of Ding et al., Multi-user Pufferfish Privacy, Appendix A: Example 1 with Tables 4–6, and
Lemma 3 read as printed (x over the support points).

================================  ==============================================================
``001.table5.printed``            Table 5: the printed cumulative distributions of Table 4
``001.table6.printed``            Table 6: the printed Kantorovich plan π* of Table 4
``001.ex1.delta_star``            Example 1: Δ*(1) = 2, Δ*(5) = 0, sup Δ* = 2 = the largest
                                  distance in supp π*
``001.ex1.equal_deltas``          Example 1 as printed: "Δ*(2) = Δ*(3) = Δ*(4)"
``001.lemma3.support_points``     Lemma 3 with x over the support points of the two priors and
                                  the minima of (25) over the positive reals (the third case's
                                  set is open: its infimum, one lattice step short of the
                                  transported distance)
================================  ==============================================================

Every check compares the paper's printed value with an independent exact computation: the
cumulative sums of Table 4 summed here, the plan checked as a coupling of Table 4's marginals
whose cost equals ``W_1 = ∫|F_i − F_j|`` (so it is optimal), Δ* evaluated literally on the lattice
(:func:`pufferfish.verify.transport.kantorovich.delta_star_brute_force`, a search step by step)
and, for Lemma 3 as printed, the minima of (25) solved over the reals here.  The toolkit reads
Lemma 3 on the lattice of the support (claim ``001.lemma3.lattice``); where the printed reading
(support points only) differs, ``001.lemma3.support_points`` reports it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.proofs_check.paper_001.multiuser import all_instances
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register
from pufferfish.verify.multiuser.pairs import pair_conditionals
from pufferfish.verify.transport.kantorovich import (delta_star, delta_star_brute_force,
                                                     transport_plan, w1_by_cdf)

PAPER = paper("001").key
Q = Fraction
POINTS = tuple(Q(k) for k in range(1, 6))
TABLE4 = ({1: Q("0.2"), 2: Q("0.225"), 3: Q("0.5"), 4: Q("0.075"), 5: Q(0)},
          {1: Q(0), 2: Q("0.075"), 3: Q("0.5"), 4: Q("0.225"), 5: Q("0.2")})
"""Table 4: ``P_{X|S}(·|s_i)`` and ``P_{X|S}(·|s_j)`` on X = 1..5."""
TABLE5 = ((Q("0.2"), Q("0.42"), Q("0.925"), Q(1), Q(1)),
          (Q(0), Q("0.075"), Q("0.575"), Q("0.925"), Q(1)))
"""Table 5 as printed: ``F(·|s_i)`` and ``F(·|s_j)`` at X = 1..5."""
TABLE6 = ((0, "0.075", "0.125", 0, 0), (0, 0, "0.225", 0, 0), (0, 0, "0.15", "0.225", "0.125"),
          (0, 0, 0, 0, "0.075"), (0, 0, 0, 0, 0))
"""Table 6 as printed: ``π*(x, x')``, rows x = 1..5, columns x' = 1..5."""


def _table_instance() -> Iterator[Instance]:
    yield Instance("Table 4 of Example 1", {"first": TABLE4[0], "second": TABLE4[1]})


def _data(detail: str, **fields) -> dict:
    return {"description": f"counterexample ({cite(PAPER)}, Appendix A): {detail}",
            **{k: {str(x): str(p) for x, p in v.items()} if isinstance(v, Mapping) else v
               for k, v in fields.items()}}


def table5_check(printed=TABLE5):
    """Table 5: each printed cumulative value equals the cumulative sum of Table 4."""
    def check(instance: Instance) -> ClaimOutcome:
        wrong = []
        for row, (dist, name) in enumerate(((instance.params["first"], "s_i"),
                                            (instance.params["second"], "s_j"))):
            total = Q(0)
            for x, value in zip(POINTS, printed[row]):
                total += dist.get(int(x), Q(0))
                if value != total:
                    wrong.append(f"F({x}|{name}) printed {value}, exactly {total}")
        if wrong:
            return ClaimOutcome(False, "; ".join(wrong),
                                _data("; ".join(wrong), first=instance.params["first"],
                                      second=instance.params["second"]))
        return ClaimOutcome(True, "every printed cumulative value is exact")
    return check


def table6_check(printed=TABLE6):
    """Table 6: the printed plan is a coupling of Table 4's marginals with cost ``W_1``
    (:func:`w1_by_cdf`, the area between the CDFs), hence optimal, and it equals π*."""
    def check(instance: Instance) -> ClaimOutcome:
        first, second = instance.params["first"], instance.params["second"]
        plan = {(x, y): Q(printed[i][j]) for i, x in enumerate(POINTS)
                for j, y in enumerate(POINTS)}
        problems = []
        for x in POINTS:
            row = sum(plan[x, y] for y in POINTS)
            col = sum(plan[y, x] for y in POINTS)
            if row != first.get(int(x), Q(0)):
                problems.append(f"row {x} sums to {row}, not P(·|s_i)({x})")
            if col != second.get(int(x), Q(0)):
                problems.append(f"column {x} sums to {col}, not P(·|s_j)({x})")
        cost = sum(m * abs(x - y) for (x, y), m in plan.items())
        w1 = w1_by_cdf(first, second)
        if cost != w1:
            problems.append(f"cost {cost} ≠ W1 = {w1}: not optimal")
        comonotone = {(a, b): m for a, b, m in transport_plan(first, second).coupling}
        if {k: v for k, v in plan.items() if v} != comonotone:
            problems.append("differs from the comonotone plan π* of (6)")
        if problems:
            return ClaimOutcome(False, "; ".join(problems), _data("; ".join(problems),
                                                                   first=first, second=second))
        return ClaimOutcome(True, f"a coupling of Table 4 with cost W1 = {w1}, equal to π* of (6)")
    return check


def _lattice_deltas(first, second) -> dict[Fraction, Fraction]:
    return {x: d for x, d in delta_star(first, second).values}


def ex1_check(printed: Mapping[int, int] | None = None, supremum: int = 2):
    """Example 1: the printed Δ*(1) = 2, Δ*(5) = 0 and sup Δ* = 2 = largest distance in supp π*,
    against (25) evaluated literally step by step (:func:`delta_star_brute_force`) and Δ* of
    :func:`delta_star`."""
    printed = {1: 2, 5: 0} if printed is None else printed

    def check(instance: Instance) -> ClaimOutcome:
        first, second = instance.params["first"], instance.params["second"]
        deltas = _lattice_deltas(first, second)
        brute = delta_star_brute_force(first, second)
        moved = transport_plan(first, second).largest_distance
        wrong = [f"Δ*({x}) printed {d}, exactly {deltas[Q(x)]}" for x, d in printed.items()
                 if deltas[Q(x)] != d]
        if not brute == max(deltas.values()) == moved == supremum:
            wrong.append(f"sup Δ* printed {supremum}; literal (25) {brute}, largest distance "
                         f"in supp π* {moved}")
        if wrong:
            return ClaimOutcome(False, "; ".join(wrong), _data("; ".join(wrong), first=first,
                                                               second=second))
        return ClaimOutcome(True, f"Δ* = {[str(deltas[x]) for x in POINTS]}, sup 2 = largest "
                                  "transported distance")
    return check


def equal_deltas_check(points: tuple[int, ...] = (2, 3, 4)):
    """Example 1 as printed: "Δ*(2) = Δ*(3) = Δ*(4)" (other ``points``: a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        deltas = _lattice_deltas(instance.params["first"], instance.params["second"])
        values = [deltas[Q(x)] for x in points]
        detail = (f"Δ* at {', '.join(map(str, points))} = "
                  f"{', '.join(str(v) for v in values)} (Δ* on the lattice, Lemma 3)")
        if len(set(values)) == 1:
            return ClaimOutcome(True, detail)
        return ClaimOutcome(False, detail + ": not all equal",
                            _data(detail, first=instance.params["first"],
                                  second=instance.params["second"]))
    return check


def printed_delta_star(first: Mapping, second: Mapping, x: Fraction) -> Fraction:
    """Δ*(x) of (25) with Δ over the positive reals (the minimum read as an infimum where the set
    is open): for ``F_i(x) > F_j(x)`` the least ``Δ`` with ``F_j(x + Δ) >= F_i(x)``; for
    ``F_i(x) < F_j(x)`` the infimum of ``Δ > 0`` with ``F_j(x − Δ) <= F_i(x)``."""
    def cdf(dist, t):
        return sum((p for v, p in dist.items() if Q(v) <= t), Q(0))

    fi, fj = cdf(first, x), cdf(second, x)
    support = sorted(Q(v) for v, p in second.items() if p)
    if fi == fj:
        return Q(0)
    if fi > fj:
        return min(y for y in support if cdf(second, y) >= fi) - x
    first_above = min(y for y in support if cdf(second, y) > fi)
    return max(x - first_above, Q(0))


def lemma3_support_check(first_support_only: bool = False):
    """Lemma 3 as printed, x over the support points of the two priors (``first_support_only``:
    over the support of the first prior only, a mutant)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        for pair_set in ("ab", "a-absent", "P-absent", "PQ"):
            for cp in pair_conditionals(model, pair_set)[0]:
                for a, b in ((cp.first, cp.second), (cp.second, cp.first)):
                    points = sorted(set(a.support) if first_support_only
                                    else set(a.support) | set(b.support))
                    sup = max(printed_delta_star(dict(a.items()), dict(b.items()), x)
                              for x in points)
                    moved = transport_plan(a, b).largest_distance
                    if sup != moved:
                        detail = (f"{pair_set} {cp.pair.label}: sup of (25) over the support "
                                  f"points, Δ real = {sup}, largest distance in supp π* = "
                                  f"{moved} (the toolkit reads (25) with x and Δ on the lattice "
                                  "of the support: 001.lemma3.lattice)")
                        return ClaimOutcome(False, detail, _data(detail, first=a, second=b))
        return ClaimOutcome(True, "equal on every pair")
    return check


def point_mass_instances() -> Iterator[Instance]:
    """The generated systems, then a point mass against a spread pair (a protected user who
    reports 5 or is absent beside one user reporting 0 or 1)."""
    from pufferfish.models.distribution import Distribution
    from pufferfish.models.multiuser import MultiUserModel, User

    yield from all_instances()
    other = User("o", Q(1), Distribution({Q(0): Q(1, 2), Q(1): Q(1, 2)}))
    target = User("i", Q(1, 2), Distribution({Q(5): Q(1)}), Distribution({Q(0): Q(1)}))
    yield Instance("user i reports 5 or is absent; the other reports 0 or 1",
                   {"model": MultiUserModel((other, target), ("i",)), "epsilon": Q(1)})


def _claim(claim_id, section, statement, generate, check, mutants):
    register(Claim(claim_id, PAPER, section, statement, generate, check, False, tuple(mutants)))


_MUTATED5 = ((Q("0.2"), Q("0.425"), Q("0.925"), Q(1), Q(1)),
             (Q(0), Q("0.075"), Q("0.575"), Q("0.8"), Q("0.9")))
_MUTATED6 = tuple(tuple("0.125" if (i, j) == (0, 1) else v for j, v in enumerate(row))
                  for i, row in enumerate(TABLE6))

_claim("001.table5.printed", "Appendix A, Example 1, Table 5",
       "Table 5 prints the cumulative distributions of Table 4.", _table_instance,
       table5_check(), [Mutant.checking("F(5|s_j) printed 0.9 instead of 1",
                                        table5_check(_MUTATED5), _table_instance)])
_claim("001.table6.printed", "Appendix A, Example 1, Table 6",
       "Table 6 prints the Kantorovich optimal plan π* of Table 4.", _table_instance,
       table6_check(), [Mutant.checking("π*(1, 2) printed 0.125 instead of 0.075",
                                        table6_check(_MUTATED6), _table_instance)])
_claim("001.ex1.delta_star", "Appendix A, Example 1",
       "Δ*(1) = 2, Δ*(5) = 0 and sup Δ* = sup_{supp π*} |x − x'| = 2 for Table 4.",
       _table_instance, ex1_check(),
       [Mutant.checking("Δ*(1) = 1", ex1_check({1: 1, 5: 0}), _table_instance),
        Mutant.checking("sup Δ* = 3", ex1_check(supremum=3), _table_instance)])
_claim("001.ex1.equal_deltas", "Appendix A, Example 1 (as printed)",
       "\"In the same way, Δ*(2) = Δ*(3) = Δ*(4)\" for Table 4.", _table_instance,
       equal_deltas_check(), [Mutant.checking("Δ*(1) = Δ*(2) = Δ*(3) = Δ*(4)",
                                              equal_deltas_check((1, 2, 3, 4)),
                                              _table_instance)])
_claim("001.lemma3.support_points", "Appendix A, Lemma 3 (as printed), equation (25)",
       "sup_{supp π*} |x − x'| = sup_x Δ*(x) with x over the support points of the two priors "
       "and Δ over the positive reals (the third case of (25) has no minimum over the reals: "
       "read as its infimum; the toolkit's reading is on the lattice: 001.lemma3.lattice).", point_mass_instances, lemma3_support_check(),
       [Mutant.checking("x over the support of the first prior only",
                        lemma3_support_check(True), point_mass_instances)])
