"""The Pufferfish level over an interval family whose bounds are rational functions of parameters
(Bai et al., Composition for Pufferfish Privacy, §4, Example 4.3 and Theorem 3), as a guarded
envelope.

For an interval family (:class:`pufferfish.models.priors.IntervalFamily`) the conditional
``q = θ(·|s)`` ranges over the polytope ``{q >= 0, Σ q = 1, l_j <= q(B_j) <= u_j}``, and
``Pr[ω | s, θ] = Σ_D q(D)·Pr[M(D) = ω]`` is linear in ``q``, so its maximum and minimum are
attained at vertices.  A vertex puts each block's mass on one dataset of the block, and the block
masses ``m`` at a vertex of ``{l <= m <= u, Σ m = 1}``: every block but one (the *free* one) at
its lower or upper bound, the free one at ``1 − Σ others``, which must lie in its own interval —
a polynomial condition in the parameters (the vertex's *guards*).  The conditionals of the two
secrets of a pair are chosen independently (the secrets are disjoint), so the supremum of
``Pr[ω|s_i,θ] / Pr[ω|s_j,θ]`` is ``max_v A(v) / min_w B(w)`` over feasible vertices ``v`` of
``s_i`` and ``w`` of ``s_j``, which is the maximum over the pairs ``(v, w)`` of ``A(v)/B(w)``
(``x/0`` infinite, ``0/0`` nothing).  Each pair is a
:class:`pufferfish.verify.symbolic.compare.Branch` guarded by the guards of ``v`` and ``w``; with
the unit branch (the level is never below 0) they form the family's level as an
:class:`~pufferfish.verify.symbolic.compare.Envelope`; a guard proved to hold on the whole box
(:func:`pufferfish.models.parameter_box.nonnegativity_failure`) is dropped.  This is the exact computation of
:meth:`IntervalFamily.extreme_conditional`, read as a function of the parameters.

Cost: for a secret with ``k`` blocks, at most ``k·2^(k−1)`` mass vertices times the product of the
numbers of distinct values ``Pr[M(D) = ω]`` within the blocks (one value per block when the
mechanism does not depend on the parameters); one branch per (output, vertex of ``s_i``, vertex of
``s_j``).

>>> from pufferfish.models.parametric import parse_parametric_model
>>> from pufferfish.verify.symbolic.evaluate import SymbolicModel
>>> data = {"pufferfish_model": 1, "parameters": {"u": ["1/2", "9/10"]},
...         "attributes": ["s", "b"], "domain": [0, 1], "datasets": "all",
...         "priors": {"theta": {"interval": {
...             "one": [{"where": {"b": 1}, "mass": ["1/2", "u"]}, {"rest": True, "mass": ["1-u", "1/2"]}],
...             "zero": [{"where": {"b": 1}, "mass": ["1/2", "1/2"]}, {"rest": True, "mass": ["1/2", "1/2"]}]}}},
...         "secrets": {"one": {"where": {"s": 1}}, "zero": {"where": {"s": 0}}},
...         "pairs": [["one", "zero"]], "mechanisms": {"b": {"query": {"attribute": "b"}}}}
>>> symbolic = SymbolicModel(parse_parametric_model(data))
>>> envelope = family_envelope(symbolic, "b", "theta")
>>> sorted({str(b.ratio.as_expr()) for b in envelope.branches})
['-1/(2*u - 2)', '1', '1/(2*u)', '2 - 2*u', '2*u']
>>> envelope.value_at((Fraction(3, 4),))[0]    # log 2 at u = 3/4: Pr[b=0|one] can be 1/4
Fraction(2, 1)
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.parameter_box import nonnegativity_failure
from pufferfish.verify.symbolic.compare import Branch, Envelope
from pufferfish.verify.symbolic.evaluate import SymbolicModel

__all__ = ["family_envelope", "mass_vertices", "MAX_BLOCKS"]

MAX_BLOCKS = 8
"""Most blocks per secret (the mass vertices grow as ``k·2^(k−1)``)."""


def mass_vertices(lows: list, highs: list, one) -> list[tuple[tuple, tuple]]:
    """The candidate vertices ``(masses, guards)`` of ``{l <= m <= u, Σ m = 1}``: all but one
    block at a bound, the free block at the rest; ``guards`` (``(g, strict)``) say the free
    block's mass lies in its interval (a vertex whose condition is a negative constant is left
    out, a nonnegative constant condition is dropped).  Repeated mass vectors are listed once."""
    k = len(lows)
    out: dict = {}
    for free in range(k):
        others = [j for j in range(k) if j != free]
        for choice in product((False, True), repeat=k - 1):
            masses = [one] * k
            for j, upper in zip(others, choice):
                masses[j] = highs[j] if upper else lows[j]
            masses[free] = one - sum((masses[j] for j in others), one - one)
            conditions = (masses[free] - lows[free], highs[free] - masses[free])
            constant = [g for g in conditions if g.numer.is_ground and g.denom.is_ground]
            if any(g.numer.LC * g.denom.LC < 0 for g in constant if g):
                continue            # never a vertex of the polytope
            guards = tuple((g, False) for g in conditions if g not in constant)
            out.setdefault(tuple(masses), guards)
    return list(out.items())


def _block_values(symbolic: SymbolicModel, kernel: dict, block, output, maximize: bool) -> list:
    """The distinct values ``Pr[M(D) = output]`` over the block (only the extreme one when they
    are all constants)."""
    zero = symbolic.field.zero
    values = list(dict.fromkeys(kernel[d].get(output, zero) for d in block.datasets))
    if all(v.numer.is_ground and v.denom.is_ground for v in values):
        key = lambda v: v.numer.LC / v.denom.LC if v else 0  # noqa: E731
        return [max(values, key=key) if maximize else min(values, key=key)]
    return values


def _vertex_values(symbolic: SymbolicModel, kernel: dict, family_name: str, secret: str, output,
                   maximize: bool) -> list[tuple[object, tuple]]:
    """``(Pr[output | secret, θ_v], guards)`` at every candidate vertex ``v`` of the family."""
    family = symbolic.generic.interval_families[family_name]
    blocks = family.blocks[secret]
    if len(blocks) > MAX_BLOCKS:
        raise TooLargeError(f"secret {secret!r} has {len(blocks)} blocks; the symbolic level "
                            f"handles at most {MAX_BLOCKS}", f"priors.{family_name}.interval")
    base = ("priors", family_name, "interval", secret)
    lows = [symbolic.value(base + (k, "mass", 0)) for k in range(len(blocks))]
    highs = [symbolic.value(base + (k, "mass", 1)) for k in range(len(blocks))]
    per_block = [_block_values(symbolic, kernel, b, output, maximize) for b in blocks]
    out: dict = {}
    for masses, guards in mass_vertices(lows, highs, symbolic.field.one):
        for values in product(*per_block):
            total = sum((m * v for m, v in zip(masses, values)), symbolic.field.zero)
            out.setdefault((total, guards), None)
    return list(out)


def family_envelope(symbolic: SymbolicModel, mechanism: str | tuple[str, ...],
                    family_name: str) -> Envelope:
    """The Pufferfish level of ``mechanism`` under the interval family ``family_name`` over every
    pair of the model, as a guarded envelope of ratios (see the module docstring)."""
    families = symbolic.generic.interval_families
    if family_name not in families:
        raise ModelError(f"no interval family {family_name!r}", "priors")
    kernel = symbolic.kernel(mechanism)
    outputs = list(dict.fromkeys(o for row in kernel.values() for o in row))
    one = symbolic.field.one
    branches: dict = {(one, one, ()): Branch(one, one, (), "the level is never below 0")}
    for pair in symbolic.generic.pairs:
        for first, second in pair.directions():
            families[family_name].require_blocks((first.name, second.name), pair.label,
                                                 family_name)
            for output in outputs:
                tops = _vertex_values(symbolic, kernel, family_name, first.name, output, True)
                bottoms = _vertex_values(symbolic, kernel, family_name, second.name, output, False)
                for (top, top_guards), (bottom, bottom_guards) in product(tops, bottoms):
                    if not top:
                        continue
                    guards = tuple(dict.fromkeys(top_guards + bottom_guards))
                    key = (top, bottom, guards)
                    branches.setdefault(key, Branch(top, bottom, guards,
                                                    f"{first.name} -> {second.name} under "
                                                    f"{family_name}, output {output!r}"))
    proved: dict = {}

    def needed(guard: tuple) -> bool:
        if guard not in proved:
            proved[guard] = nonnegativity_failure(guard[0].as_expr(), guard[1], symbolic.box) is None
        return not proved[guard]

    return Envelope(tuple(Branch(b.numerator, b.denominator,
                                 tuple(g for g in b.guards if needed(g)), b.where)
                          for b in branches.values()))
