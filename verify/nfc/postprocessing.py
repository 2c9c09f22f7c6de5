"""NfC constraint sets under post-processing (Bai et al., Composition for Pufferfish Privacy, §5.2,
Theorem 5, and its proof in Appendix C).

An NfC constraint (Equation 1, §5.1) names a dataset ``D_t`` (the left side), a secret pair and a
convex combination β over datasets of the second secret; a mechanism satisfies it at ε when, for
every output ω,

    P(ω|D_t) <= e^ε Π_ℓ P(ω|D_ℓ)^{β_ℓ}          (log form: v·w <= ε for v = log P(ω|·))

with ``w = e_t − β``.  Theorem 5 states that a non-redundant set of such constraints is
post-processing invariant if every β is one-hot, and *not* invariant if some β has two or more
nonzero entries.

**What is actually true: every NfC constraint is post-processing invariant.**  The weighted
geometric mean ``G(x) = Π_ℓ x_ℓ^{β_ℓ}`` (``β`` a convex combination) is concave and positively
homogeneous on the non-negative orthant, hence superadditive: ``G(Σ_k c_k x_k) >= Σ_k c_k G(x_k)``
for ``c_k >= 0``.  If ``A`` is any post-processor (a stochastic map), the likelihood of its output
``y`` is ``Σ_ω A(y|ω) P(ω|·)``, so

    P_A(y|D_t) = Σ_ω A(y|ω) P(ω|D_t) <= e^ε Σ_ω A(y|ω) G(P(ω|·)) <= e^ε G(P_A(y|·)).

The proof's Step 3 applies the AM–GM inequality termwise to ``Σ_i w_i log(x_i + y_i)`` although
``w`` has negative entries ``−β_ℓ``; for those terms the inequality is reversed, and the
post-processed value can only go *down*.

The work is split by job, and every public name is importable from here:

* :mod:`pufferfish.verify.nfc.constraints` — constraint sets, their file format, and the exact
  (or certified) evaluation of a constraint on a mechanism;
* :mod:`pufferfish.verify.nfc.redundancy` — redundancy, decided by an exact rational LP;
* :mod:`pufferfish.verify.nfc.theorem5` — Theorem 5's classification next to the verdict the
  toolkit proves (invariant), and the proof's construction — the mechanism M̂ and the
  post-processor A of Steps 1–3 — carried out with exact rationals and evaluated exactly;
* this module — the audit of any mechanism and post-processor (:func:`postprocess_audit`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import ratio_key
from pufferfish.verify.nfc.constraints import (EXACT_POWER_LIMIT, ConstraintEvaluation, ConstraintSet,
                                               NfcConstraint, constraints_from_programs, evaluate_constraint,
                                               parse_constraints)
from pufferfish.verify.nfc.redundancy import RedundancyReport, implied_value, reduce_redundant
from pufferfish.verify.nfc.theorem5 import (InvarianceReport, Theorem5Construction, counterexample_model,
                                            invariance_report, random_postprocessing_search,
                                            theorem5_construction)
from pufferfish.verify.numerics.certified import scale_budget
from pufferfish.verify.report import Explained


# --------------------------------------------------------------------------------------------
# Post-processing audit of a mechanism
# --------------------------------------------------------------------------------------------

@dataclass(repr=False, frozen=True)
class PostprocessAudit(Explained):
    """Pufferfish, DP and NfC levels of ``M`` and of ``A∘M``."""

    mechanism: str
    postprocessed: str
    pufferfish: tuple          # (before, after) PufferfishResult
    dp: tuple                  # (before, after) DPResult
    nfc: tuple | None          # (before, after) NfcResult, or None when not computable
    notes: tuple[str, ...] = ()

    @property
    def pufferfish_increased(self) -> bool:
        return ratio_key(self.pufferfish[1].level_ratio) > ratio_key(self.pufferfish[0].level_ratio)

    @property
    def dp_increased(self) -> bool:
        return ratio_key(self.dp[1].max_ratio) > ratio_key(self.dp[0].max_ratio)

    @property
    def holds(self) -> bool:
        """Post-processing did not raise the Pufferfish or the DP level (it never may)."""
        return not (self.pufferfish_increased or self.dp_increased)

    def to_dict(self) -> dict:
        data = {"check": "postprocess", "mechanism": self.mechanism,
                "postprocessed": self.postprocessed, "holds": self.holds,
                "pufferfish": {"before": self.pufferfish[0].epsilon,
                               "after": self.pufferfish[1].epsilon,
                               "increased": self.pufferfish_increased},
                "dp": {"before": self.dp[0].epsilon, "after": self.dp[1].epsilon,
                       "increased": self.dp_increased},
                "notes": list(self.notes)}
        if self.nfc is not None:
            before, after = self.nfc
            data["nfc"] = {"before": [before.lower, before.upper],
                           "after": [after.lower, after.upper],
                           "change_at_most": after.upper - before.lower,
                           "change_at_least": after.lower - before.upper}
        return data

    def explain(self) -> str:
        p0, p1 = self.pufferfish
        d0, d1 = self.dp
        lines = [f"{self.mechanism} → {self.postprocessed}",
                 f"  Pufferfish level: {p0.epsilon} → {p1.epsilon}"
                 f"{'  INCREASED (impossible: report this model)' if self.pufferfish_increased else ''}",
                 f"  DP level ({d0.relation}): {d0.epsilon} → {d1.epsilon}"
                 f"{'  INCREASED (impossible: report this model)' if self.dp_increased else ''}"]
        if self.nfc is not None:
            before, after = self.nfc
            lines.append(f"  NfC value: [{before.lower:.12g}, {before.upper:.12g}] → "
                         f"[{after.lower:.12g}, {after.upper:.12g}] (change between "
                         f"{after.lower - before.upper:.3g} and {after.upper - before.lower:.3g})")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


def postprocess_audit(model: PufferfishModel, mechanism: Mechanism, postprocessed: Mechanism,
                      max_datasets: int, max_outputs: int) -> PostprocessAudit:
    """Levels before and after post-processing (Pufferfish and DP must not increase)."""
    from pufferfish.models.errors import UnsupportedError
    from pufferfish.verify.privacy.dp import dp_level
    from pufferfish.verify.nfc.programs import nfc_programs
    from pufferfish.verify.privacy.pufferfish import pufferfish_level

    puffer = tuple(pufferfish_level(model, m, None, max_datasets, max_outputs)
                   for m in (mechanism, postprocessed))
    dp = tuple(dp_level(model.universe, m, "entry", None, max_datasets, max_outputs)
               for m in (mechanism, postprocessed))
    notes = []
    try:
        nfc = tuple(nfc_programs(model, [m], None, max_datasets, max_outputs)
                    for m in (mechanism, postprocessed))
    except UnsupportedError as error:
        nfc = None
        notes.append(f"NfC value not computed: {error.reason}")
    return PostprocessAudit(mechanism.name, postprocessed.name, puffer, dp, nfc, tuple(notes))


__all__ = ["NfcConstraint", "ConstraintSet", "ConstraintEvaluation", "EXACT_POWER_LIMIT",
           "evaluate_constraint", "constraints_from_programs", "reduce_redundant", "implied_value",
           "RedundancyReport", "theorem5_construction", "Theorem5Construction", "invariance_report",
           "InvarianceReport", "counterexample_model", "parse_constraints",
           "random_postprocessing_search", "scale_budget", "PostprocessAudit", "postprocess_audit"]
