"""Finite draws in programs: exact probabilities, one decision of the run per draw.

Each draw branches the run over its values of positive probability and multiplies the run's
weight by the probability of the value taken (the semantics of
:mod:`~pufferfish.models.programs.enumerate`).

>>> from pufferfish.models.programs import program_distribution
>>> program_distribution(lambda data: coin("1/4"), (0,))
Distribution({true: 1/4, false: 3/4})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from pufferfish.models.numbers import fraction_str
from pufferfish.models.programs.runs import current_run, exact_parameter

__all__ = ["choice", "coin", "uniform", "exponential_mechanism"]

def choice(weighted: Mapping[object, object] | Sequence[tuple[object, object]]) -> object:
    """A value drawn with exact probabilities: ``choice({"a": "1/4", "b": "3/4"})`` or a list of
    ``(value, probability)`` pairs (for values Python would merge as dict keys).  Probabilities
    must be nonnegative and sum to 1."""
    run = current_run()
    items = list(weighted.items() if isinstance(weighted, Mapping) else weighted)
    options = []
    total = Fraction(0)
    for value, p in items:
        p = exact_parameter(p, "a probability")
        if p < 0:
            raise ValueError(f"probability {fraction_str(p)} of {value!r} is negative")
        total += p
        if p:
            options.append((value, p))
    if total != 1:
        raise ValueError(f"the probabilities sum to {fraction_str(total)}, not 1")
    value, p = options[run.decide(len(options))] if len(options) > 1 else options[0]
    run.weight *= p
    return value


def coin(p: object = Fraction(1, 2)) -> bool:
    """``True`` with probability ``p``, else ``False``."""
    p = exact_parameter(p, "the probability of a coin")
    if not 0 <= p <= 1:
        raise ValueError(f"the probability of a coin must be in [0, 1], got {fraction_str(p)}")
    return choice([(True, p), (False, 1 - p)])


def uniform(values: Sequence[object]) -> object:
    """A value drawn uniformly from ``values`` (a non-empty sequence; repeated values count
    once each time they appear)."""
    values = list(values)
    if not values:
        raise ValueError("uniform() needs at least one value")
    return choice([(v, Fraction(1, len(values))) for v in values])


MAX_WEIGHT_BITS = 1 << 26
"""The largest weight of :func:`exponential_mechanism`, in bits (8 MB; ``2^15000`` has 15,000):
scores spread over ``s`` with ``base = p/q`` need ``s·log2(max(p, q))`` bits, refused above."""


def _count(number: int) -> str:
    """``number`` with thousands separators, or ``10^k`` when it is huge."""
    if number < 10**15:
        return f"{number:,}"
    return f"10^{int(number.bit_length() * 0.30103)}"


def exponential_mechanism(scores: Mapping[object, int] | Sequence[tuple[object, int]],
                          base: object) -> object:
    """A candidate drawn with probability proportional to ``base^score`` (McSherry and Talwar's
    exponential mechanism with ``base = e^(ε/(2Δ))`` made rational: ``base`` an exact number
    > 0, scores integers).

    With ``base = p/q`` in lowest terms and the scores spanning ``[low, high]``, the weight of a
    candidate of score ``s`` is the integer ``p^(s−low)·q^(high−s)`` (``base^(s−low)`` times the
    common factor ``q^(high−low)``), computed once per distinct score and reduced against their
    integer sum with python-flint's ``fmpz`` (sub-quadratic products and gcd; only the drawn
    candidate's probability is reduced): the same exact law
    as ``base^(s−low) / Σ base^(s'−low)`` in :class:`~fractions.Fraction` arithmetic, without its
    quadratic gcd per addition.  Cost: ``O(k·M(n))`` for ``k`` distinct scores and weights of
    ``n ≈ (high−low)·log2(max(p, q))`` bits (``M``: the cost of a product); scores spread over
    ``10^5`` with ``base = 11/10`` take milliseconds.

    >>> from pufferfish.models.programs.enumerate import program_distribution
    >>> program_distribution(lambda data: exponential_mechanism({"a": 0, "b": 2}, "2/3"), ())
    Distribution({'a': 9/13, 'b': 4/13})
    """
    import flint

    base = exact_parameter(base, "the base of the exponential mechanism")
    if base <= 0:
        raise ValueError(f"the base must be positive, got {fraction_str(base)}")
    items = list(scores.items() if isinstance(scores, Mapping) else scores)
    if not items:
        raise ValueError("the exponential mechanism needs at least one candidate")
    for candidate, score in items:
        if isinstance(score, bool) or not isinstance(score, int):
            raise ValueError(f"the score of {candidate!r} must be an integer, got {score!r}")
    low = min(score for _, score in items)
    span = max(score for _, score in items) - low
    bits = span * max(base.numerator, base.denominator).bit_length()
    if bits > MAX_WEIGHT_BITS:  # refused before any power is computed, with the figure
        raise ValueError(f"the exponential mechanism's weights would be integers of about "
                         f"{_count(bits)} bits (scores spread over {_count(span)}, base "
                         f"{fraction_str(base) if len(str(base.denominator)) < 40 else 'p/q'}), "
                         f"more than the limit of {MAX_WEIGHT_BITS:,} bits; scale the scores "
                         f"down (and the base up) or bound them")
    p, q = flint.fmpz(base.numerator), flint.fmpz(base.denominator)
    weights = {d: p ** d * q ** (span - d) for d in {score - low for _, score in items}}
    total = sum((weights[score - low] for _, score in items), flint.fmpz(0))
    run = current_run()
    k = run.decide(len(items)) if len(items) > 1 else 0
    weight = weights[items[k][1] - low]
    common = weight.gcd(total)
    numerator, denominator = int(weight // common), int(total // common)
    coprime = getattr(Fraction, "_from_coprime_ints", None)  # Python 3.12 and later
    run.weight *= (coprime(numerator, denominator) if coprime is not None
                   else Fraction(numerator, denominator, _normalize=False))
    return items[k][0]
