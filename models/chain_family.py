"""Families of Markov chains: the prior class Θ of Wang et al., Privacy-Preserving Analysis of
Correlated Data, §4.1 and §5.

A :class:`ChainFamily` is a finite set of homogeneous Markov chains over the same states and
length, with a rule for the initial distribution.  The §5 family of binary chains whose two
stay probabilities range over a box ``[ℓ, u]`` is made finite as a grid
(:func:`binary_grid_family`); its Lemma B.4 parameters ``(π_Θ, g_Θ)`` over the whole continuous
box have closed forms (:func:`binary_box_parameters`).  For any family of reversible chains,
:func:`chain_family_parameters` certifies ``(π_Θ, g_Θ)`` from the exact transition matrices.

(Not to be confused with :class:`pufferfish.models.priors.IntervalFamily`, the prior family of
Bai et al., Composition for Pufferfish Privacy, Example 4.3.)

>>> family = binary_grid_family("1/4", "3/4", 5, "1/4")
>>> len(family.members), family.length, family.initial
(9, 5, 'any')
>>> binary_box_parameters(Fraction(1, 4), Fraction(3, 4))
(Fraction(1, 4), Fraction(1, 2))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.numbers import exact

INITIAL_MODES = ("given", "stationary", "any")


@dataclass(frozen=True)
class ChainFamily:
    """A finite family Θ of homogeneous chains over the same states and length (§4.1).

    Each member's initial distribution is used as given (``initial="given"``), replaced by its
    stationary distribution (``"stationary"``), or ranges over the whole simplex (``"any"``, the
    §5 family; needs every transition probability positive).
    """

    members: tuple[MarkovChain, ...]
    initial: str = "given"

    def __post_init__(self) -> None:
        if not self.members:
            raise ModelError("a chain family needs at least one chain", "priors")
        first = self.members[0]
        for m in self.members:
            if m.states != first.states or m.length != first.length:
                raise ModelError("every chain of the family needs the same states and length",
                                 f"priors.{m.name}")
        if self.initial not in INITIAL_MODES:
            raise ModelError(f"unknown initial mode {self.initial!r}; use one of {INITIAL_MODES}",
                             "--initial")
        if self.initial == "any":
            for m in self.members:
                if any(p <= 0 for row in m.matrix for p in row):
                    raise UnsupportedError("initial='any' needs every transition probability > 0",
                                           f"priors.{m.name}")
        if self.initial == "given":
            for m in self.members:
                if m.initial is None:
                    raise ModelError("a member has no initial distribution; use --initial any "
                                     "or stationary", f"priors.{m.name}")

    @property
    def length(self) -> int:
        return self.members[0].length

    @property
    def k(self) -> int:
        return self.members[0].k

    def effective(self) -> tuple[MarkovChain, ...]:
        """Members with the initial distribution the mode prescribes (``None`` for "any")."""
        if self.initial == "stationary":
            return tuple(m.stationary_start() for m in self.members)
        if self.initial == "any":
            return tuple(m.with_initial(None) for m in self.members)
        return self.members

    def to_dict(self) -> dict:
        return {"initial": self.initial, "length": self.length, "states": list(self.members[0].states),
                "members": [m.name for m in self.members]}


def binary_grid_family(low: object, high: object, length: int, step: object,
                    initial: str = "any") -> ChainFamily:
    """The §5 family ``Θ = [ℓ, u]`` of binary chains, made finite as the grid
    ``{ℓ, ℓ+h, ..., u}²`` of ``(p0, p1)`` (``h`` = ``step``; ``u`` is always included).

    The exact methods are exact for this finite grid; the approximate method uses the closed forms
    of :func:`binary_box_parameters` for the whole continuous box.
    """
    lo, hi, h = exact(low, "low"), exact(high, "high"), exact(step, "step")
    if not (0 < lo <= hi < 1) or h <= 0:
        raise ModelError("need 0 < ℓ <= u < 1 and a positive step", "--interval")
    grid = []
    v = lo
    while v < hi:
        grid.append(v)
        v += h
    grid.append(hi)
    members = tuple(MarkovChain.binary(p0, p1, length, ["1/2", "1/2"]) for p0 in grid for p1 in grid)
    return ChainFamily(members, initial)


def binary_box_parameters(low: Fraction, high: Fraction) -> tuple[Fraction, Fraction]:
    """``(π_Θ, g_Θ)`` of the continuous box ``p0, p1 ∈ [ℓ, u]`` (§4.1 definitions), exactly.

    For ``P = [[p0, 1−p0], [1−p1, p1]]``: ``π = ((1−p1), (1−p0))/(2−p0−p1)`` (Lemma B.12) and the
    second eigenvalue is ``p0 + p1 − 1``; so ``π_Θ = (1−u)/(2−ℓ−u)`` and
    ``g_Θ = 1 − max(|2ℓ−1|, |2u−1|)``.
    """
    pi = (1 - high) / (2 - low - high)
    g = 1 - max(abs(2 * low - 1), abs(2 * high - 1))
    return pi, g



def chain_family_parameters(family: ChainFamily) -> tuple[Fraction, Fraction]:
    """Certified ``(π_Θ, g_Θ)`` for Lemma B.4: ``π_Θ`` exact (min of the exact stationary
    distributions); ``g_Θ`` a rational lower bound on ``min_θ (1 − |λ_2|)``.

    Every member must be reversible (detailed balance, checked exactly) with ``g > 0``.  Binary
    chains have ``λ_2 = p0 + p1 − 1`` exactly; otherwise the eigenvalues are isolated in rational
    intervals of width ``≤ 10^-12`` from the exact characteristic polynomial (sympy).
    """
    pis, gs = [], []
    for m in family.members:
        if not m.is_reversible():
            raise UnsupportedError("Lemma B.4 needs reversible chains (detailed balance fails)",
                                   f"priors.{m.name}")
        pis.append(min(m.stationary()))
        gs.append(eigengap_lower_bound(m))
    pi, g = min(pis), min(gs)
    if pi <= 0 or g <= 0:
        raise UnsupportedError("Lemma B.4 needs π_Θ > 0 and g_Θ > 0 (irreducible, aperiodic chains)",
                               "priors")
    return pi, g


def eigengap_interval(chain: MarkovChain) -> tuple[Fraction, Fraction]:
    """Rational bounds ``lo <= g <= hi`` on the eigengap ``g = 1 − max{|λ| : λ ≠ the eigenvalue 1}``.

    Binary chains: ``λ_2 = p0 + p1 − 1`` exactly (``lo = hi``).  Otherwise the real eigenvalues of
    the exact characteristic polynomial (one factor ``x − 1`` removed) are isolated in rational
    intervals of width ``≤ 10^-15`` (sympy); a reversible chain has only real eigenvalues.
    """
    if chain.k == 1:
        return Fraction(1), Fraction(1)
    if chain.k == 2:
        lam = chain.matrix[0][0] + chain.matrix[1][1] - 1
        return 1 - abs(lam), 1 - abs(lam)
    import sympy
    x = sympy.Symbol("x")
    M = sympy.Matrix([[sympy.Rational(p.numerator, p.denominator) for p in row] for row in chain.matrix])
    poly = sympy.Poly(M.charpoly(x).as_expr(), x)
    poly = sympy.Poly(sympy.quo(poly, sympy.Poly(x - 1, x)), x)   # remove one eigenvalue 1
    if poly.degree() != len(poly.real_roots()):
        raise UnsupportedError("the chain has complex eigenvalues (it is not reversible)",
                               f"priors.{chain.name}")
    hi_abs, lo_abs = Fraction(0), Fraction(0)
    for (lo, hi), _mult in poly.intervals(eps=sympy.Rational(1, 10**15)):
        flo = Fraction(int(sympy.numer(lo)), int(sympy.denom(lo)))
        fhi = Fraction(int(sympy.numer(hi)), int(sympy.denom(hi)))
        hi_abs = max(hi_abs, abs(flo), abs(fhi))
        lo_abs = max(lo_abs, Fraction(0) if flo <= 0 <= fhi else min(abs(flo), abs(fhi)))
    return 1 - hi_abs, 1 - lo_abs


def eigengap_lower_bound(chain: MarkovChain) -> Fraction:
    """A rational lower bound on the eigengap (see :func:`eigengap_interval`)."""
    return eigengap_interval(chain)[0]


__all__ = ["INITIAL_MODES", "ChainFamily", "binary_grid_family", "binary_box_parameters",
           "chain_family_parameters", "eigengap_interval", "eigengap_lower_bound"]
