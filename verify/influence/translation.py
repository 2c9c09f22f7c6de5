"""DP ↔ Pufferfish translation (Theorem 6) and the composition bound (Theorem 7).

Source: Bai et al., Composition for Pufferfish Privacy, §6.2, Theorems 6–7 (proofs in Appendix C).

* **Theorem 6.**  If ``(a, b)`` is a point of an a(b)-influence curve of (Θ, 𝕊), ``a < ε_puffer``
  and ``M`` is per-entry ``ε_DP``-DP with ``ε_DP <= (ε_puffer − a)/b``, then ``M`` is
  ``ε_puffer``-Pufferfish.  Read both ways: the largest admissible ``ε_DP`` for a target
  ``ε_puffer`` is ``max_points (ε_puffer − a)/b`` (:func:`epsilon_dp_for`), and the guarantee of an
  ``ε_DP`` mechanism is ``min_points b·ε_DP + a`` (:func:`epsilon_puffer_for`).
* **Theorem 7.**  ``k`` mechanisms with ``ε_DPℓ <= (ε_pufferℓ − aℓ)/bℓ`` jointly satisfy
  ``(max_ℓ aℓ + Σ_ℓ ε_pufferℓ − Σ_ℓ aℓ)``-Pufferfish (:func:`composition_bound`).

**Exact arithmetic.**  Curve values are logs of rationals and budgets are rationals or logs of
rationals, so every quantity here has the form ``(q + log r)/d`` with ``q`` rational, ``r`` a
positive rational (or ∞) and ``d`` a positive integer: :class:`LogValue`.  Sums, differences and
integer multiples stay in this form; comparisons reduce to the sign of ``q + log R`` for one exact
rational ``R``, decided exactly when ``q = 0`` and otherwise by interval arithmetic at increasing
precision (``exp(q)`` is irrational for rational ``q ≠ 0``, so they always separate).  Decimal
``ε`` values are read as exact rationals.  Floats appear only in ``*_float`` fields and in
:meth:`LogValue.bounds` (certified outward-rounded intervals).

>>> from fractions import Fraction
>>> curve = [CurvePoint(1, LogValue.log(Fraction(3))), CurvePoint(2, LogValue.log(Fraction(6, 5)))]
>>> choice = epsilon_dp_for(LogValue.rational(Fraction(2)), curve, entries=3)
>>> choice.epsilon_dp.text, choice.point.b
('(2 - log(6/5))/2', 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY
from pufferfish.verify.numerics.levels import LogValue
from pufferfish.verify.report import Explained


@dataclass(frozen=True)
class CurvePoint:
    """A point ``(a, b)`` of an a(b)-influence curve: leakage ``a`` beyond a group of size ``b``."""

    b: int
    a: LogValue

    def to_dict(self) -> dict:
        return {"b": self.b, "a": self.a.text, "a_float": self.a.to_float()}


def points_from_curve(curve) -> list[CurvePoint]:
    """Curve points from a :class:`pufferfish.verify.influence.curves.InfluenceCurve` (exact ``a = log r``)."""
    return [CurvePoint(p.b, LogValue.log(p.max_ratio)) for p in curve.points]


@dataclass(repr=False, frozen=True)
class DPChoice(Explained):
    """The ε_DP that Theorem 6 allows for a target ε_puffer, and the curve point giving it."""

    epsilon_puffer: LogValue
    epsilon_dp: LogValue | None
    point: CurvePoint | None
    rule: str
    candidates: tuple[tuple[CurvePoint, LogValue | None], ...]
    entries: int | None = None

    @property
    def holds(self) -> bool:
        """Some curve point allows a positive ε_DP."""
        return self.epsilon_dp is not None

    def to_dict(self) -> dict:
        return {"check": "translate", "direction": "puffer_to_dp", "rule": self.rule,
                "epsilon_puffer": self.epsilon_puffer.to_dict(),
                "epsilon_dp": self.epsilon_dp.to_dict() if self.epsilon_dp else None,
                "point": self.point.to_dict() if self.point else None,
                "candidates": [{**pt.to_dict(), "epsilon_dp": e.to_dict() if e else None,
                                "usable": e is not None} for pt, e in self.candidates],
                "holds": self.holds}

    def explain(self) -> str:
        if self.epsilon_dp is None:
            return (f"no curve point has a < ε_puffer = {self.epsilon_puffer.text}: Theorem 6 gives "
                    "no ε_DP")
        return (f"ε_DP = {self.epsilon_dp.text} ≈ {self.epsilon_dp.to_float():.6g} from the point "
                f"b = {self.point.b}, a = {self.point.a.text} (rule: {self.rule})")


def _check_points(points: Sequence[CurvePoint]) -> None:
    if not points:
        raise ModelError("the curve has no points", "curve.points")
    for k, point in enumerate(points):
        if point.b < 0:
            raise ModelError(f"b must be >= 0, got {point.b}", f"curve.points.{k}.b")


def _dp_at(eps_puffer: LogValue, point: CurvePoint) -> LogValue | None:
    """``(ε_puffer − a)/b`` when ``a < ε_puffer`` (``b = 0``: unbounded), else ``None``."""
    if point.a.infinite or not point.a < eps_puffer:
        return None
    if point.b == 0:
        return LogValue.log(INFINITY)
    return (eps_puffer - point.a).divided(point.b)


def epsilon_dp_for(eps_puffer: LogValue, points: Sequence[CurvePoint], entries: int | None = None,
                   rule: str = "theorem") -> DPChoice:
    """The per-entry ε_DP Theorem 6 allows for ``eps_puffer``.

    ``rule="theorem"``: the largest ``(ε_puffer − a)/b`` over points with ``a < ε_puffer`` (the
    best utility, as §6.4 says: "the maximum should be selected over the entire curve").
    ``rule="algorithm"``: Algorithms 1–2 of Appendix B literally: every point contributes
    ``(ε_puffer − a)/b``, or ``ε_puffer/|I|`` when ``a >= ε_puffer``, and the *minimum* is taken
    (always admissible — ``ε_puffer/|I|`` is group privacy over all ``|I|`` entries — but never
    better than ``"theorem"``).  ``entries`` (``|I|``) is required for ``"algorithm"``.
    """
    _check_points(points)
    if rule not in ("theorem", "algorithm"):
        raise ModelError(f"unknown rule {rule!r}; choose 'theorem' or 'algorithm'", "--rule")
    candidates = tuple((p, _dp_at(eps_puffer, p)) for p in points)
    if rule == "algorithm":
        if not entries or entries < 1:
            raise ModelError("Algorithms 1–2 need the number of entries |I|", "entries")
        chosen = None
        for p, e in candidates:
            value = e if e is not None else eps_puffer.divided(entries)
            if chosen is None or value < chosen[1]:
                chosen = (p, value)
        return DPChoice(eps_puffer, chosen[1], chosen[0], rule, candidates, entries)
    usable = [(p, e) for p, e in candidates if e is not None]
    if not usable:
        return DPChoice(eps_puffer, None, None, rule, candidates, entries)
    best = usable[0]
    for p, e in usable[1:]:
        if best[1] < e:
            best = (p, e)
    return DPChoice(eps_puffer, best[1], best[0], rule, candidates, entries)


@dataclass(repr=False, frozen=True)
class PufferChoice(Explained):
    """The ε_puffer Theorem 6 guarantees for an ε_DP mechanism: ``min_points b·ε_DP + a``."""

    epsilon_dp: LogValue
    epsilon_puffer: LogValue
    point: CurvePoint
    candidates: tuple[tuple[CurvePoint, LogValue], ...]

    @property
    def holds(self) -> bool:
        return not self.epsilon_puffer.infinite

    def to_dict(self) -> dict:
        return {"check": "translate", "direction": "dp_to_puffer",
                "epsilon_dp": self.epsilon_dp.to_dict(),
                "epsilon_puffer": self.epsilon_puffer.to_dict(), "point": self.point.to_dict(),
                "candidates": [{**pt.to_dict(), "epsilon_puffer": e.to_dict()}
                               for pt, e in self.candidates], "holds": self.holds}

    def explain(self) -> str:
        return (f"ε_puffer = {self.epsilon_puffer.text} ≈ {self.epsilon_puffer.to_float():.6g} from "
                f"the point b = {self.point.b}, a = {self.point.a.text}")


def epsilon_puffer_for(eps_dp: LogValue, points: Sequence[CurvePoint]) -> PufferChoice:
    """The ε_puffer of a per-entry ε_DP mechanism by Theorem 6: ``min_points b·ε_DP + a``.

    (The guarantee needs ``a < ε_puffer``, which holds for the minimiser whenever it is finite
    and ``b·ε_DP > 0``; at ``b·ε_DP = 0`` the point gives exactly ``a`` — the limit of the theorem.)
    """
    _check_points(points)
    candidates = tuple((p, eps_dp.times(p.b) + p.a) for p in points)
    best = candidates[0]
    for p, e in candidates[1:]:
        if e < best[1]:
            best = (p, e)
    return PufferChoice(eps_dp, best[1], best[0], candidates)


@dataclass(repr=False, frozen=True)
class CompositionBound(Explained):
    """Theorem 7: ``max_ℓ aℓ + Σ ε_pufferℓ − Σ aℓ`` for mechanisms with chosen points."""

    epsilon_puffers: tuple[LogValue, ...]
    points: tuple[CurvePoint, ...]
    bound: LogValue
    additive: LogValue

    def to_dict(self) -> dict:
        return {"check": "composition_bound", "bound": self.bound.to_dict(),
                "sum_of_epsilons": self.additive.to_dict(),
                "mechanisms": [{"epsilon_puffer": e.to_dict(), "point": p.to_dict()}
                               for e, p in zip(self.epsilon_puffers, self.points)]}

    def explain(self) -> str:
        return (f"joint release: ε_puffer <= {self.bound.text} ≈ {self.bound.to_float():.6g} "
                f"(Theorem 7), vs Σ ε = {self.additive.text} ≈ {self.additive.to_float():.6g}")


def composition_bound(eps_puffers: Sequence[LogValue], points: Sequence[CurvePoint]
                      ) -> CompositionBound:
    """Theorem 7's bound for ``k`` mechanisms, the ℓ-th calibrated at ``points[ℓ]``.

    Raises :class:`ModelError` when a point has ``a >= ε_pufferℓ`` (Theorem 7 needs ``aℓ < ε_pufferℓ``).
    """
    if len(eps_puffers) != len(points) or not points:
        raise ModelError("give one curve point per mechanism", "points")
    for k, (e, p) in enumerate(zip(eps_puffers, points)):
        if p.a.infinite or not p.a < e:
            raise ModelError(f"mechanism {k}: the point a = {p.a.text} is not below "
                             f"ε_puffer = {e.text}", f"points.{k}")
    top = points[0].a
    for p in points[1:]:
        if top < p.a:
            top = p.a
    total = LogValue()
    for e in eps_puffers:
        total = total + e
    bound = top + total
    for p in points:
        bound = bound - p.a
    return CompositionBound(tuple(eps_puffers), tuple(points), bound, total)
