"""Every numbered statement of Zhang et al., Differential Confounding Privacy and Inverse
Composition (Definitions 1–8, Theorems 1–5 by part, Propositions 1–4, Lemmas 1–8, the Tasks'
convexity statement, Tables I–IX, Fig. 1, and the reduction of App. C.3) with the claims that check
it or the reason it cannot be checked on a finite instance
(:mod:`pufferfish.proofs_check.coverage`).

Definitions and the notation / architecture tables assert nothing and are listed with
``checkable=False``.  The Gaussian-copula statements (App. G–I) are about continuous marginals,
which no finite model represents; they are checked by certified continuous checks
(:mod:`pufferfish.proofs_check.paper_004.gaussian_copula`: Gaussian laws compared exactly,
witnesses enclosed by intervals), labelled so in their claims.

>>> len(STATEMENTS), sum(s.checkable for s in STATEMENTS), sum(s.covered for s in STATEMENTS)
(43, 28, 27)
"""

from __future__ import annotations

from pufferfish.proofs_check.coverage import Statement

_CONTINUOUS = ("certified continuous check (no finite model represents continuous marginals): "
               "Gaussian laws with exact parameters on a grid of ρ (negative, 0, positive, near "
               "±1) and of the paper's calibration (ε_c, δ_c), not every Ξ_i")


def _definition(name: str, section: str, what: str) -> Statement:
    return Statement(name, section, reason=f"a definition: {what}", checkable=False)


STATEMENTS: tuple[Statement, ...] = (
    _definition("Definition 1", "§II, equation (3)",
                "(ε, δ)-DCP, decided by pufferfish.verify.dcp.levels and enumerated literally "
                "over every event by 004.thm1.i, 004.thm2.ii, 004.lemma2, 004.lemma3"),
    Statement("Theorem 1 (i)", "§III", ("004.thm1.i",)),
    Statement("Theorem 1 (ii)", "§III", ("004.thm1.ii",)),
    Statement("Theorem 1 (iii)", "§III", ("004.thm1.iii",)),
    Statement("Task-1 and Task-2 convexity", "§IV, Convex Optimization",
              ("004.tasks.pi_convex", "004.tasks.joint_convexity", "004.tasks.convex_in_pi")),
    Statement("Theorem 2 (i)", "§IV", ("004.thm2.i",),
              reason="only through a necessary condition: α* is an exact minimiser of "
                     "(Task-1), an infinite-dimensional program the paper leaves unsolved, so "
                     "the design itself is not computed"),
    Statement("Theorem 2 (ii)", "§IV", ("004.thm2.ii",)),
    Statement("Theorem 2 (iii)", "§IV", ("004.thm2.iii.task1", "004.thm2.iii", "004.thm2.ii"),
              reason="its first sentence (the Task-1 design α†) only through a necessary "
                     "condition, as for Theorem 2 (i); the 'if' half of the Task-2 equivalence "
                     "is 004.thm2.ii at δ = 0"),
    Statement("Fig. 1", "§IV-A", ("004.fig1.targets",),
              reason="the AUC curves come from attacks on the iDASH 2016 genomic data, which "
                     "the project does not have; only the printed targets are checked"),
    Statement("Table I", "App. A", reason="notation", checkable=False),
    Statement("Table II", "App. A", reason="notation", checkable=False),
    Statement("Table III", "App. A", reason="notation", checkable=False),
    _definition("Definition 2", "App. C", "invertible G, implemented by "
                "pufferfish.verify.dcp.composition.invertibility"),
    Statement("Proposition 1", "App. C; App. J",
              ("004.prop1.invertible", "004.prop1.noninvertible")),
    Statement("Proposition 2", "App. C; App. K", ("004.thm1.i",)),
    Statement("Theorem 3 (i)", "App. C", ("004.thm3.i",)),
    Statement("Theorem 3 (ii)", "App. C", ("004.thm3.ii",),
              reason="the upper bounds opt <= opt-bar involve a mechanism N̂(c) with privacy "
                     "loss L^G, undefined for finite outputs (a discrete copula is not unique); "
                     "only the strict lower inequalities are checked"),
    Statement("App. C.3 (DCP as Pufferfish)", "App. C.3", ("004.C3.pufferfish",)),
    _definition("Definition 3", "App. E", "(ε_ω, δ_ω)-Bayesian DP, a related notion the paper "
                "compares with; the toolkit does not implement it"),
    _definition("Definition 4", "App. F", "the probability-integral transform of continuous "
                "marginals"),
    _definition("Definition 5", "App. G", "the bivariate Gaussian copula"),
    Statement("Theorem 4 (i)", "App. G; App. H", ("004.thm4.i",),
              reason=_CONTINUOUS + "; checked through App. H's argument (the noises keep "
                     "their marginals Ξ1, Ξ2)"),
    Statement("Theorem 4 (ii)", "App. G; App. H", ("004.thm4.ii",),
              reason=_CONTINUOUS + "; only its premise that the copula's latent is "
                     "(ε_c, δ_c)-CP is checked: the true composition of continuous mechanisms "
                     "is not computed against OptComp"),
    _definition("Definition 6", "App. G", "invertible noise perturbation"),
    Statement("Proposition 3", "App. G; App. I", ("004.prop3",),
              reason=_CONTINUOUS + "; Gaussian noises Ξ_i only"),
    Statement("Lemma 1", "App. I", ("004.lemma1",), reason=_CONTINUOUS),
    _definition("Definition 7", "App. K", "optimal symmetric trade-off function; its conjugate "
                "is computed from the vertices of the trade-off curves by 004.lemma2"),
    Statement("Lemma 2", "App. K", ("004.lemma2",)),
    Statement("Lemma 3", "App. K", ("004.lemma3",)),
    Statement("Theorem 5", "App. L", ("004.thm5.i", "004.thm5.ii", "004.thm5.equality")),
    _definition("Definition 8", "App. L", "trade-off function, implemented by "
                "pufferfish.verify.dcp.levels.tradeoff_curve"),
    Statement("Proposition 4", "App. L", ("004.prop4",)),
    Statement("Lemma 4", "App. L", ("004.lemma4",)),
    Statement("Lemma 5", "App. L", ("004.lemma5",)),
    Statement("Lemma 6", "App. M", ("004.lemma6",)),
    Statement("Lemma 7", "App. M", ("004.lemma7",)),
    Statement("Lemma 8", "App. M", ("004.lemma8", "004.lemma8.hypothesis_is_pure",
                                    "004.lemma8.pointwise")),
    Statement("Table IV", "App. N", reason="a neural-network architecture", checkable=False),
    Statement("Table V", "App. N", reason="a neural-network architecture", checkable=False),
    Statement("Table VI", "App. N", reason="a neural-network architecture", checkable=False),
    Statement("Table VII", "App. N", reason="a neural-network architecture", checkable=False),
    Statement("Table VIII", "App. N", ("004.tableVIII.rows", "004.fig1.targets"),
              reason="the AUC values come from attacks on the iDASH 2016 genomic data, which "
                     "the project does not have; only the printed targets are checked"),
    Statement("Table IX", "App. N",
              reason="the text copy of the paper has the caption but no rows; the AUC values "
                     "come from the iDASH 2016 genomic data, which the project does not have"),
)
"""Paper 004's numbered statements in the order of the paper."""
