"""Claims of Bai et al., Composition for Pufferfish Privacy, §4 checked as functions of a prior
parameter.

The collapse examples are stated for one prior; here the prior carries a parameter ``t`` and the
toolkit's closed-form level (:func:`pufferfish.verify.symbolic.levels.symbolic_audit`) is compared
with the paper's value *as functions of t*: the check reports the exact set of ``t`` (a union of
intervals with algebraic endpoints) where the two differ, and holds when that set is empty.

``000.ex41.symbolic``   Example 4.1 (Theorem 1): for the prior family θ_t on x ∈ {0,1,2,3} with
                        θ_t = (t/2, (1−t)/2, t/2, (1−t)/2), s1 = "x ∈ {0,1}", s2 = "x ∈ {2,3}",
                        and the mechanism that keeps the input's own half and resamples the other
                        half from θ_t(·|s), one run has Pufferfish level 0 for every t in the range,
                        and two runs have an infinite level for every t.
``000.thm8.symbolic``   Theorem 8 (Appendix C form): Example 6.1's binary chain with q fixed and
                        p in [1/100, 99/100]; the exact a*(b) and the closed form compared as
                        functions of p, the exact set where they differ reported.
``000.thm3.symbolic``   Theorem 3: ε = max |log x| over eight ratios of the interval bounds,
                        against the exact level of Example 4.3's M* over the interval family with
                        parametric bounds (:mod:`pufferfish.verify.symbolic.families`), compared as
                        functions of L_T, U_T, L_F, U_F: the exact differing set on one-bound
                        slices, a certified map on two-bound boxes
                        (:mod:`pufferfish.verify.symbolic.compare`).
``000.ex43.symbolic``   Example 4.3: M* run once has a finite level and run twice an infinite
                        level for every interval bounds of the slices and boxes.
``000.ex42.prior``      Example 4.2 (observation beyond the paper): the parity mechanism on 3 bits
                        is 0-Pufferfish under i.i.d. bits with Pr[1] = t exactly at t = 1/2 (the
                        paper's uniform prior); the level as a function of t and the exact zero
                        set are reported.

Cost: one symbolic audit per instance; for Theorem 8, one closed-form level per (ordered pair,
high set), then a root isolation per pair of distinct pieces.

>>> outcome = _check_example41(Instance("t in [1/10, 9/10]", {"low": "1/10", "high": "9/10"}))
>>> outcome.holds, outcome.detail[:45]
(True, 'one run: level 0 on the whole range [1/10, 9/')
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations

import sympy

from pufferfish.bibliography import cite, paper
from pufferfish.models.files.pufferfish_file import model_to_dict
from pufferfish.models.parametric import parse_parametric_model
from pufferfish.models.polynomials import fraction_text, to_fraction
from pufferfish.proofs_check.paper_000.collapse_examples import interval_example, parity_example
from pufferfish.proofs_check.paper_000.figures import binary_chain_model
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import (Claim, ClaimOutcome, Instance, Mutant, register,
                                              violation)
from pufferfish.verify.symbolic.compare import (Branch, DifferingSet, Envelope, differing_map,
                                                differing_set)
from pufferfish.verify.symbolic.evaluate import SymbolicModel
from pufferfish.verify.symbolic.families import family_envelope
from pufferfish.verify.symbolic.levels import symbolic_audit, symbolic_level
from pufferfish.verify.symbolic.univariate import decompose

PAPER = paper("000").key


def example41_file(low: str, high: str, swapped: bool = False) -> dict:
    """The parametric model of Example 4.1 described in the module docstring (``swapped``: the
    mutant that resamples the other half with the weights exchanged, not from θ_t(·|s))."""
    keep, other = ("1-t", "t") if swapped else ("t", "1-t")
    return {
        "pufferfish_model": 1, "parameters": {"t": [low, high]},
        "description": f"{cite(PAPER)}, §4, Example 4.1 with the prior family θ_t",
        "attributes": ["x"], "domain": [0, 1, 2, 3], "datasets": "all",
        "priors": {"theta": {"table": [[[0], "t/2"], [[1], "(1-t)/2"], [[2], "t/2"],
                                       [[3], "(1-t)/2"]]}},
        "secrets": {"s1": {"where": {"x": [0, 1]}}, "s2": {"where": {"x": [2, 3]}}},
        "pairs": [["s1", "s2"]],
        "mechanisms": {
            "collapse": {"table": [
                [[0], [[[0, 2], keep], [[0, 3], other]]], [[1], [[[1, 2], keep], [[1, 3], other]]],
                [[2], [[[0, 2], "t"], [[1, 2], "1-t"]]], [[3], [[[0, 3], "t"], [[1, 3], "1-t"]]]]},
            "twice": {"repeat": {"mechanism": "collapse", "times": 2}}}}


def _differences(level, expected) -> list[str]:
    """The pieces of a one-parameter level whose ratio is not ``expected`` (None: infinite)."""
    return [f"({piece.low}, {piece.high}): {piece.ratio}" for piece in level.pieces
            if piece.ratio != expected]


def _check_example41(instance: Instance, swapped: bool = False) -> ClaimOutcome:
    low, high = instance.params["low"], instance.params["high"]
    model = parse_parametric_model(example41_file(low, high, swapped))
    audit = symbolic_audit(model)
    once, twice = audit.mechanisms[0].pufferfish, audit.mechanisms[1].pufferfish
    differ_once = _differences(once, 1)
    differ_twice = _differences(twice, None)
    if differ_once or differ_twice:
        return ClaimOutcome(False, f"the level differs from the paper's on: one run "
                                   f"{differ_once or 'nowhere'}; two runs "
                                   f"{differ_twice or 'nowhere'}")
    return ClaimOutcome(True, f"one run: level 0 on the whole range [{low}, {high}] (exact, "
                              f"as a function of t); two runs: infinite on the whole range")


def _example41_instances() -> Iterator[Instance]:
    for low, high in (("1/10", "9/10"), ("1/3", "2/3"), ("1/100", "1/2")):
        yield Instance(f"t in [{low}, {high}]", {"low": low, "high": high})


def parity_file(low: str, high: str) -> dict:
    """Example 4.2's parity mechanism on 3 bits, tabulated, under i.i.d. bits with Pr[1] = t."""
    data = model_to_dict(parity_example(3))
    data["parameters"] = {"t": [low, high]}
    data["priors"] = {"iid": {"independent": {a: {"0": "1-t", "1": "t"}
                                              for a in data["attributes"]}}}
    return data


PARITY_ZERO = Fraction(1, 2)
"""Where Example 4.2's parity mechanism leaks nothing: the paper's uniform prior, t = 1/2."""


def _check_parity(instance: Instance) -> ClaimOutcome:
    low, high = instance.params["low"], instance.params["high"]
    audit = symbolic_audit(parse_parametric_model(parity_file(low, high)))
    result = audit.mechanisms[0]
    zero = result.leakage.points if result.leakage.points is not None else ()
    zero_level = [f"[{p.low}, {p.high}]" for p in result.pufferfish.pieces if p.ratio == 1]
    expected = PARITY_ZERO
    inside = Fraction(low) <= expected <= Fraction(high)
    ok = not zero_level and [str(p) for p in zero] == (["1/2"] if inside else [])
    pieces = "; ".join(p.text("t") for p in result.pufferfish.pieces)
    detail = (f"level {pieces}; leakage zero exactly at {[str(p) for p in zero] or 'no t'}")
    return ClaimOutcome(ok, detail)


def _parity_instances() -> Iterator[Instance]:
    for low, high in (("1/4", "3/4"), ("1/10", "2/5")):
        yield Instance(f"t in [{low}, {high}]", {"low": low, "high": high})


# --------------------------------------------------------------------------------------------
# Theorem 8 as a function of p
# --------------------------------------------------------------------------------------------

THEOREM8_Q = (Fraction(1, 10), Fraction(1, 2), Fraction(9, 10))
THEOREM8_LENGTHS = (3, 4, 5)


def theorem8_chain_file(q: Fraction, length: int) -> dict:
    """Example 6.1's binary chain ``P = [[p, 1−p], [1−q, q]]`` from its stationary law, ``p`` a
    parameter in [1/100, 99/100], every node's value a secret, and one mechanism per high set
    ``H`` (``2|H| + 1 <= T``) releasing ``X_L``, ``L = I minus H``."""
    names = [f"x{i}" for i in range(1, length + 1)]
    pi0 = f"({fraction_text(1 - q)})/({fraction_text(2 - q)} - p)"
    mechanisms: dict = {n: {"query": {"attribute": n}} for n in names}
    for b in range(1, (length - 1) // 2 + 1):
        for high in combinations(names, b):
            mechanisms["L without " + ",".join(high)] = {
                "compose": [n for n in names if n not in high]}
    return {"pufferfish_model": 1, "parameters": {"p": ["1/100", "99/100"]},
            "description": f"{cite(PAPER)}, Example 6.1, q = {fraction_text(q)}, T = {length}",
            "attributes": names, "domain": [0, 1], "datasets": "all",
            "priors": {"chain": {"markov": {
                "initial": {"0": pi0, "1": f"1 - {pi0}"},
                "transition": {"0": {"0": "p", "1": "1-p"},
                               "1": {"0": fraction_text(1 - q), "1": fraction_text(q)}}}}},
            "entry_pairs": True, "mechanisms": mechanisms}


def _theorem8_paper(p: sympy.Symbol, q: Fraction, b: int, t: Fraction):
    """Theorem 8's closed form (Appendix C, with |log|) on the branch that holds at ``p = t``,
    as a sympy expression in ``p`` (``None``: infinite), and the polynomials whose roots switch
    branches."""
    qq = sympy.Rational(q.numerator, q.denominator)
    lam = p + qq - 1
    branch_q = q > t
    pi = (1 - qq) / (2 - p - qq) if branch_q else (1 - p) / (2 - p - qq)
    total, at = sympy.Integer(1), {p: sympy.Rational(t.numerator, t.denominator)}
    for d in ((b + 1) // 2, -(-(b + 1) // 2)):
        x = sympy.cancel((pi + lam ** d * (1 - pi)) / (pi - lam ** d * pi))
        numerator, denominator = sympy.fraction(x)
        if denominator.xreplace(at) == 0:
            return None
        total *= x if x.xreplace(at) >= 1 else 1 / x
    return sympy.cancel(total)


def _theorem8_paper_shifted(p: sympy.Symbol, q: Fraction, b: int, t: Fraction):
    """Mutant: Theorem 8's closed form evaluated at ``b + 1`` (d_L, d_R off by one)."""
    return _ORIGINAL_THEOREM8_PAPER(p, q, b + 1, t)


_ORIGINAL_THEOREM8_PAPER = _theorem8_paper


def _theorem8_switches(p: sympy.Symbol, q: Fraction, b: int) -> list[sympy.Poly]:
    qq = sympy.Rational(q.numerator, q.denominator)
    lam = p + qq - 1
    polys = [sympy.Poly(p - qq, p)]
    for pi in ((1 - qq) / (2 - p - qq), (1 - p) / (2 - p - qq)):
        for d in ((b + 1) // 2, -(-(b + 1) // 2)):
            x = sympy.cancel((pi + lam ** d * (1 - pi)) / (pi - lam ** d * pi))
            numerator, denominator = sympy.fraction(x)
            polys += [sympy.Poly(numerator - denominator, p), sympy.Poly(denominator, p)]
    return polys


def _value(ratio, t: Fraction):
    if ratio is None:
        return math.inf
    return to_fraction(ratio.xreplace({ratio.free_symbols and next(iter(ratio.free_symbols)) or
                                        sympy.Symbol("p"): sympy.Rational(t.numerator,
                                                                          t.denominator)}))


def theorem8_differences(q: Fraction, length: int, b: int) -> list[tuple]:
    """The open intervals of p in [1/100, 99/100] where the toolkit's exact a*(b) of the chain,
    as a function of p, differs from Theorem 8's closed form (up to finitely many points):
    ``(low, high, exact, paper, t)`` with both sides' expressions at the rational point ``t``.

    a*(b) = max over ordered pairs of min over ``|H| = b`` of a†(I minus H) (Bai et al., Composition
    for Pufferfish Privacy, §6.2, Definition 7); each a† is the closed-form level of the release of
    ``X_L`` (:func:`pufferfish.verify.symbolic.levels.symbolic_level`).  The range is cut at every
    root of a difference of two pieces and every branch switch of the closed form; on each cell the
    two sides are read at a rational point and compared as rational functions."""
    model = parse_parametric_model(theorem8_chain_file(q, length))
    symbolic = SymbolicModel(model)
    p = model.box.symbols[0]
    names = [f"x{i}" for i in range(1, length + 1)]
    directions = [d for pair in symbolic.generic.pairs for d in pair.directions()]
    envelopes = []            # per direction: per high set, the piece functions of a†
    for first, second in directions:
        per_high = []
        for high in combinations(names, b):
            level = symbolic_level(symbolic, symbolic.direction_candidates(
                "L without " + ",".join(high), first, second), "a†")
            per_high.append(list(dict.fromkeys(piece.ratio for piece in level.pieces)))
        envelopes.append(per_high)
    functions = list(dict.fromkeys(f for per_high in envelopes for fs in per_high for f in fs
                                   if f is not None))
    polys = _theorem8_switches(p, q, b)
    for i, f in enumerate(functions):
        polys.append(sympy.Poly(sympy.fraction(sympy.cancel(f))[1], p))
        for g in functions[i + 1:]:
            polys.append(sympy.Poly(sympy.fraction(sympy.cancel(f - g))[0], p))
    cells = decompose(polys, model.box.low[0], model.box.high[0])
    differ = []
    for i, t in enumerate(cells.samples):
        best = None
        for per_high in envelopes:
            lowest = None
            for fs in per_high:
                value, f = max(((_value(f, t), f) for f in fs), key=lambda item: item[0])
                if lowest is None or value < lowest[0]:
                    lowest = (value, f)
            if best is None or lowest[0] > best[0]:
                best = lowest
        exact = best[1]
        paper = _theorem8_paper(p, q, b, t)
        same = (exact is None and paper is None) or (
            exact is not None and paper is not None and sympy.cancel(exact - paper) == 0)
        if not same and differ and differ[-1][1] == cells.points[i]:
            differ[-1] = (differ[-1][0], cells.points[i + 1], *differ[-1][2:])
        elif not same:
            differ.append((cells.points[i], cells.points[i + 1], exact, paper, t))
    return differ


def _check_theorem8(instance: Instance) -> ClaimOutcome:
    q, length, b = instance.params["q"], instance.params["T"], instance.params["b"]
    differ = theorem8_differences(q, length, b)
    if not differ:
        return ClaimOutcome(True, "equal as functions of p on the whole range [1/100, 99/100]")
    low, high, exact, paper, t = differ[0]
    where = "; ".join(f"({a}, {c})" for a, c, *_ in differ)
    detail = (f"they differ for p in {where} (exact endpoints; equal elsewhere up to finitely many "
              f"points); e.g. at p = {t}: exact e^a*(b) = {exact} but Theorem 8 gives {paper}")
    return violation("000.thm8.symbolic", PAPER, instance, detail,
                     binary_chain_model(t, q, length))


def _theorem8_instances() -> Iterator[Instance]:
    for q in THEOREM8_Q:
        for length in THEOREM8_LENGTHS:
            for b in range(1, (length - 1) // 2 + 1):
                yield Instance(f"q={q}, T={length}, b={b}", {"q": q, "T": length, "b": b})


register(Claim(
    "000.ex41.symbolic", PAPER, "§4, Example 4.1 and Theorem 1 (as functions of a prior parameter)",
    "For the prior family θ_t = (t/2, (1−t)/2, t/2, (1−t)/2) on x ∈ {0,1,2,3} and Example 4.1's "
    "resampling mechanism, one run is 0-Pufferfish and two runs have an infinite level, for "
    "every t of the range (exact closed forms; the set of t where they differ must be empty).",
    _example41_instances, _check_example41,
    mutants=(Mutant("resampling with the weights exchanged (not from θ_t(·|s))",
                    lambda: [_check_example41(i, swapped=True) for i in _example41_instances()]),)))

register(Claim(
    "000.ex42.prior", PAPER, "§4, Example 4.2 (observation beyond the paper)",
    "Observation: on 3 bits i.i.d. with Pr[1] = t, the parity mechanism's single-run Pufferfish "
    "level is positive except at t = 1/2 (the paper's uniform prior), where the leakage is zero; "
    "the closed form in t and the exact zero set are reported.",
    _parity_instances, _check_parity, observation=True,
    mutants=(patched("zero leakage claimed at t = 1/3 instead of 1/2", _check_parity,
                     _parity_instances, sys.modules[__name__], PARITY_ZERO=Fraction(1, 3)),)))

register(Claim(
    "000.thm8.symbolic", PAPER, "§6.3, Theorem 8 (Appendix C statement) as a function of p",
    "For Example 6.1's binary chain started in its stationary law, every node's value a secret, "
    "Theorem 8's closed form of a*(b) equals the exact a*(b) as a function of p in "
    "[1/100, 99/100] (q fixed, 2b + 1 <= T); otherwise the exact set of p where they differ is "
    "reported.",
    _theorem8_instances, _check_theorem8,
    mutants=(patched("d_L, d_R computed from b + 1", _check_theorem8,
                     [Instance("q=1/2, T=3, b=1", {"q": Fraction(1, 2), "T": 3, "b": 1})],
                     sys.modules[__name__], _theorem8_paper=_theorem8_paper_shifted),)))


# --------------------------------------------------------------------------------------------
# Example 4.3 and Theorem 3 as functions of the interval bounds
# --------------------------------------------------------------------------------------------

INTERVAL_BOUNDS = ("LT", "UT", "LF", "UF")
"""Theorem 3's parameters L_T, U_T, L_F, U_F, as parameter names of the model file."""

EXAMPLE43_OUTPUTS = {"in_true": (("1a", "2a"), ("1a", "2b")), "out_true": (("1b", "2a"), ("1b", "2b")),
                     "in_false": (("1a", "2a"), ("1b", "2a")), "out_false": (("1a", "2b"), ("1b", "2b"))}
"""M*'s two outputs (probability 1/2 each) in the four cases 1a, 1b, 2a, 2b of Example 4.3."""


def example43_file(bounds: dict) -> dict:
    """Example 4.3's model (:func:`pufferfish.proofs_check.paper_000.collapse_examples.interval_example`,
    one dataset per block) with the interval family's bounds ``L_T, U_T, L_F, U_F`` given in
    ``bounds`` as a fixed number (``"1/5"``) or a parameter range (``("1/2", "9/10")``), and a
    second mechanism ``twice`` that runs M* two times."""
    data = model_to_dict(interval_example("1/5", "2/5", "3/10", "1/2"))
    data["parameters"] = {n: list(v) for n, v in bounds.items() if isinstance(v, tuple)}
    value = {n: n if isinstance(v, tuple) else v for n, v in bounds.items()}
    family = data["priors"]["theta"]["interval"]
    for secret, low, high in (("s1", value["LT"], value["UT"]), ("not_s1", value["LF"], value["UF"])):
        family[secret][0]["mass"] = [low, high]
        family[secret][1]["mass"] = [f"1 - ({high})", f"1 - ({low})"]
    cases = {(1, "in"): "in_true", (1, "out"): "out_true", (0, "in"): "in_false",
             (0, "out"): "out_false"}
    data["mechanisms"] = {"collapse": {"table": [
        [dataset, [[list(o), f"1/{len(outputs)}"] for o in outputs]]
        for dataset, _ in data["mechanisms"]["collapse"]["table"]
        for outputs in [EXAMPLE43_OUTPUTS[cases[(dataset[0], dataset[1])]]]]},
        "twice": {"repeat": {"mechanism": "collapse", "times": 2}}}
    data["description"] = (f"{cite(PAPER)}, §4, Example 4.3 with interval bounds "
                           f"{_bounds_text(bounds)}")
    return data


def _bounds_text(bounds: dict) -> str:
    return ", ".join(f"{n} in [{v[0]}, {v[1]}]" if isinstance(v, tuple) else f"{n} = {v}"
                     for n, v in bounds.items())


def _theorem3_paper_ratios(v: dict, one) -> list[tuple]:
    """Theorem 3's eight ratios ``x`` as (numerator, denominator), in the paper's order."""
    lt, ut, lf, uf = (v[n] for n in INTERVAL_BOUNDS)
    return [(ut, lf), (lt, uf), (one - ut, uf), (one - lt, lf), (lt, one - lf), (ut, one - uf),
            (one - ut, one - lf), (one - lt, one - uf)]


def _theorem3_first_four(v: dict, one) -> list[tuple]:
    """Mutant: only the first four of Theorem 3's eight ratios."""
    return _ORIGINAL_THEOREM3_RATIOS(v, one)[:4]


_ORIGINAL_THEOREM3_RATIOS = _theorem3_paper_ratios


def theorem3_envelope(symbolic: SymbolicModel, bounds: dict) -> Envelope:
    """Theorem 3's e^ε = max over the eight ratios x of max(x, 1/x) (``|log x|``; it is >= 1, so
    the unit branch of the level's convention changes nothing), in the model's parameters."""
    field, one = symbolic.field, symbolic.field.one
    symbols = {s.name: s for s in symbolic.box.symbols}
    v = {n: field.from_sympy(symbols[n] if n in symbols else sympy.Rational(str(bounds[n])))
         for n in INTERVAL_BOUNDS}
    branches = [Branch(one, one)]
    for a, b in _theorem3_paper_ratios(v, one):
        branches += [Branch(a, b, where="x"), Branch(b, a, where="1/x")]
    return Envelope(tuple(branches))


def _comparison(first: Envelope, second: Envelope, symbolic: SymbolicModel):
    box = symbolic.box
    if len(box.names) == 1:
        return differing_set(first, second, box.symbols, box.low, box.high)
    return differing_map(first, second, box.names, box.bounds, MAP_WIDTH)


MAP_WIDTH = Fraction(1, 64)
"""Boundary width of the two-parameter certified maps."""


def _outcome_of(claim_id: str, instance: Instance, comparison, expect_empty: bool, what: str,
                bounds: dict) -> ClaimOutcome:
    """Holds when the differing set is empty (``expect_empty``) or the whole range (otherwise)."""
    if isinstance(comparison, DifferingSet):
        if comparison.empty if expect_empty else comparison.whole:
            return ClaimOutcome(True, f"{what}: differing set {comparison.text()} (exact)")
        point = (comparison.intervals[0].sample if expect_empty else comparison.equal_point())
        name = next(n for n, v in bounds.items() if isinstance(v, tuple))
        detail = f"{what}: they differ on {comparison.text()} (exact endpoints)"
        if point is None:       # equal only at irrational cut points
            return violation(claim_id, PAPER, instance, detail)
        detail += f"; e.g. {'different' if expect_empty else 'equal'} at {name} = {point}"
        return violation(claim_id, PAPER, instance, detail, _instance_at(bounds, {name: point}))
    bad = comparison.differing if expect_empty else comparison.equal
    if bad:
        centre = {n: (a + b) / 2 for n, (a, b) in zip(comparison.names, bad[0])}
        detail = (f"{what}: certified map: {comparison.text()}; e.g. the box "
                  f"{_box_text(comparison.names, bad[0])} is proved "
                  f"{'differing' if expect_empty else 'equal'}")
        return violation(claim_id, PAPER, instance, detail, _instance_at(bounds, centre))
    if comparison.boundary:
        return ClaimOutcome.undecided_at(f"{what}: certified map: {comparison.text()}; boxes "
                                         f"left undecided at width {MAP_WIDTH}")
    return ClaimOutcome(True, f"{what}: certified map, every box proved "
                              f"{'equal' if expect_empty else 'differing'}: {comparison.text()}")


def _box_text(names, box) -> str:
    return ", ".join(f"{n} in [{fraction_text(a)}, {fraction_text(b)}]" for n, (a, b) in zip(names, box))


def _instance_at(bounds: dict, point: dict):
    """The exact Example 4.3 model at a parameter point (the counterexample file)."""
    values = {n: Fraction(point[n]) if n in point else Fraction(str(v)) if not isinstance(v, tuple)
              else Fraction(v[0]) for n, v in bounds.items()}
    return interval_example(values["LT"], values["UT"], values["LF"], values["UF"])


def _check_theorem3(instance: Instance) -> ClaimOutcome:
    bounds = instance.params["bounds"]
    symbolic = SymbolicModel(parse_parametric_model(example43_file(bounds)))
    level = family_envelope(symbolic, "collapse", "theta")
    comparison = _comparison(level, theorem3_envelope(symbolic, bounds), symbolic)
    return _outcome_of("000.thm3.symbolic", instance, comparison, True,
                       "exact level vs Theorem 3's ε", bounds)


def _check_example43(instance: Instance) -> ClaimOutcome:
    bounds = instance.params["bounds"]
    symbolic = SymbolicModel(parse_parametric_model(example43_file(bounds)))
    infinite = Envelope((Branch(symbolic.field.one, symbolic.field.zero),))
    once = _comparison(family_envelope(symbolic, "collapse", "theta"), infinite, symbolic)
    first = _outcome_of("000.ex43.symbolic", instance, once, False, "one run: level vs inf", bounds)
    if not first.holds:
        return first
    twice = _comparison(family_envelope(symbolic, "twice", "theta"), infinite, symbolic)
    second = _outcome_of("000.ex43.symbolic", instance, twice, True, "two runs: level vs inf",
                         bounds)
    if not second.holds:
        return second
    return ClaimOutcome(True, f"{first.detail}, i.e. finite on the whole range; {second.detail}, "
                              f"i.e. infinite on the whole range")


EXAMPLE43_SLICES = (
    {"LT": "1/5", "UT": ("2/5", "99/100"), "LF": "3/10", "UF": "1/2"},
    {"LT": ("1/100", "2/5"), "UT": "2/5", "LF": "3/10", "UF": "1/2"},
    {"LT": "1/5", "UT": "2/5", "LF": ("1/100", "1/2"), "UF": "1/2"},
    {"LT": "1/3", "UT": "2/3", "LF": "1/10", "UF": ("1/10", "9/10")},
    {"LT": "1/5", "UT": ("2/5", "9/10"), "LF": "3/10", "UF": ("1/2", "9/10")},
    {"LT": ("1/100", "1/5"), "UT": ("1/2", "99/100"), "LF": "1/10", "UF": "9/10"},
)
"""One-parameter slices (exact differing sets) and two-parameter boxes (certified maps) of
(L_T, U_T, L_F, U_F); every box keeps ``0 < L <= U < 1``."""


def _example43_instances() -> Iterator[Instance]:
    for bounds in EXAMPLE43_SLICES:
        yield Instance(_bounds_text(bounds), {"bounds": bounds})


register(Claim(
    "000.thm3.symbolic", PAPER, "§4, Theorem 3 as a function of L_T, U_T, L_F, U_F",
    "For Example 4.3's M* and its interval family, Theorem 3's ε (max |log x| over the eight "
    "ratios) equals the exact Pufferfish level as a function of the interval bounds: the exact "
    "set (one free bound) or certified map (two) where they differ is empty.",
    _example43_instances, _check_theorem3,
    mutants=(patched("only the first four of the eight ratios", _check_theorem3,
                     lambda: list(_example43_instances())[:1], sys.modules[__name__],
                     _theorem3_paper_ratios=_theorem3_first_four),)))

register(Claim(
    "000.ex43.symbolic", PAPER, "§4, Example 4.3 as a function of L_T, U_T, L_F, U_F",
    "For every interval bounds of the range, M* of Example 4.3 has a finite Pufferfish level when "
    "run once and an infinite level when run twice (exact sets, or certified maps for two free "
    "bounds).",
    _example43_instances, _check_example43,
    mutants=(patched("every case outputs all four tuples (no case is revealed)", _check_example43,
                     lambda: list(_example43_instances())[:1], sys.modules[__name__],
                     EXAMPLE43_OUTPUTS={k: (("1a", "2a"), ("1a", "2b"), ("1b", "2a"), ("1b", "2b"))
                                        for k in EXAMPLE43_OUTPUTS}),)))
