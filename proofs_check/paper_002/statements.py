"""The numbered statements of Wang et al., Privacy-Preserving Analysis of Correlated Data and how
the toolkit checks each one (``pufferfish theorems --coverage``;
:class:`pufferfish.proofs_check.coverage.Statement`).

Read from the paper, in its order: every Example, Definition, Theorem, Lemma, Claim, Algorithm and
Figure, plus the unnumbered statements the issue names (the optimality example of A.3, the vector
release of B.2, the γ formula and spectral-norm condition of B.10).  A statement lists the claims
that check it; one without a claim says why no finite instance decides it and what is done
instead.  Definitions have no truth value: they are listed with the claims that compute them.

>>> names = [s.name for s in STATEMENTS]
>>> names[:3]
['Example 1', 'Example 2', 'Definition 2.1']
>>> all(s.claims or s.reason for s in STATEMENTS)
True
"""

from __future__ import annotations

from pufferfish.proofs_check.coverage import Statement

_DEFINITION = "a definition (no truth value); implemented in "
_READINGS = ("the readings the text draws are decided on certified noise scales (the exact "
             "expectations of the plotted averages) on grids coarser than the paper's; the "
             "simulated curves themselves are redrawn numerically by "
             "proofs_check/paper_002/figures.py")

STATEMENTS: tuple[Statement, ...] = (
    Statement("Example 1", "§2", reason="a motivating setting (physical activity time series); "
              "its model, Markov chains, is the subject of §4's claims", checkable=False),
    Statement("Example 2", "§2; §3 (flu example)", claims=("002.flu.numbers", "002.flu.realizable")),
    Statement("Definition 2.1", "§2", reason=_DEFINITION + "pufferfish.verify.privacy.pufferfish", checkable=False),
    Statement("Definition 3.1", "§3", claims=("002.winf.comonotone",),
              reason=_DEFINITION + "pufferfish.verify.transport.w_infinity (two algorithms compared)"),
    Statement("Algorithm 1", "§3", claims=("002.thm3.2.private",)),
    Statement("Theorem 3.2", "§3; Appendix A.1", claims=("002.thm3.2.private",)),
    Statement("Theorem 3.3", "§3; Appendix A.2", claims=("002.thm3.3.group_sensitivity",
                                                        "002.thm3.3.mutual")),
    Statement("Definition 4.1", "§4", reason=_DEFINITION + "pufferfish.verify.influence.max_influence", checkable=False),
    Statement("Definition 4.2", "§4", claims=("002.def42.dsep_independence",)),
    Statement("Theorem 4.3", "§4; Appendix B.3", claims=("002.thm4.3.private",)),
    Statement("Algorithm 2", "§4", claims=("002.thm4.3.private",),
              reason="run through pufferfish.verify.quilts (chains: exact max-influence)"),
    Statement("Theorem 4.4", "§4.1", claims=("002.thm4.4.utility",)),
    Statement("Figure 1", "§5", claims=("002.fig1.readings",), reason=_READINGS),
    Statement("Definition A.1", "Appendix A.2", reason=_DEFINITION + "pufferfish.verify.transport."
              "groups", checkable=False),
    Statement("Definition A.2", "Appendix A.2", claims=("002.thm3.3.group_sensitivity",),
              reason=_DEFINITION + "pufferfish.verify.transport.groups.group_sensitivity"),
    Statement("Definition A.3", "Appendix A.2", claims=("002.thm3.3.group_sensitivity",),
              reason=_DEFINITION + "pufferfish.verify.transport.groups.group_sensitivity"),
    Statement("Definition A.4", "Appendix A.2", reason=_DEFINITION + "F + Lap(Δ_𝒢/ε) (the group-DP "
              "baseline of Theorem 3.3)", checkable=False),
    Statement("Theorem A.5", "Appendix A.2", claims=("002.thmA5.group_dp",)),
    Statement("Lemma A.6", "Appendix A.2", claims=("002.lemA6.mixture",)),
    Statement("A.3 optimality example", "Appendix A.3", claims=("002.A3.optimality",),
              reason="the asymptotic form α = Ω(Δ/ε) is checked through its finite consequence: "
              "no privacy below the printed threshold, privacy at Δ/ε"),
    Statement("Definition A.7", "Appendix A.4", claims=("002.thmA8.epsilon_delta",)),
    Statement("Theorem A.8", "Appendix A.4", claims=("002.thmA8.epsilon_delta",)),
    Statement("Figure 2", "Appendix B.1", reason="an illustration of a Markov blanket and a "
              "Markov quilt", checkable=False),
    Statement("B.2 vector release", "Appendix B.2",
              claims=("002.B2.vector_laplace", "002.thmB9.consistency"),
              reason="Proposition 1 of [7] is checked as the Markov Quilt Mechanism's proof uses "
              "it (the vector Laplace density ratio against d_H/σ, exact on every pair of small "
              "datasets); the privacy of a continuous vector release itself is not enumerated"),
    Statement("Definition B.1", "Appendix B.4", claims=("002.lemB2.chain_quilts",),
              reason=_DEFINITION + "pufferfish.verify.quilts.markov_quilts (minimal quilts)"),
    Statement("Lemma B.2", "Appendix B.4", claims=("002.lemB2.chain_quilts",)),
    Statement("Lemma B.3", "Appendix B.4", claims=("002.lemB3.minimal_suffice",)),
    Statement("Lemma B.4", "Appendix B.5", claims=("002.lemB4.bound", "002.lemB4.symbolic")),
    Statement("Lemma B.5", "Appendix B.5", claims=("002.lemB5.mixing",)),
    Statement("Lemma B.6", "Appendix B.5", claims=("002.lemB6",)),
    Statement("Lemma B.7", "Appendix B.5", claims=("002.lemB7",)),
    Statement("Lemma B.8", "Appendix B.6.1", claims=("002.thm4.4.utility",)),
    Statement("Theorem B.9", "Appendix B.6.2", claims=("002.thmB9.consistency",
                                                      "002.thmB9.proof_constant")),
    Statement("Algorithm 3", "Appendix B.8.1", claims=("002.claimB10.fast_le_basic",
                                                      "002.claimB11.fast_private")),
    Statement("Algorithm 4", "Appendix B.8.1", claims=("002.alg4.literal_finite",)),
    Statement("Claim B.10", "Appendix B.8.2", claims=("002.claimB10.fast_le_basic",)),
    Statement("Claim B.11", "Appendix B.8.2", claims=("002.claimB11.fast_private",
                                                     "002.claimB11.exact_influence")),
    Statement("Algorithm 5", "Appendix B.8.2", claims=("002.claimB10.fast_le_basic",
                                                      "002.claimB11.fast_private")),
    Statement("Lemma B.12", "Appendix B.9", claims=("002.lemB12.binary_chain",)),
    Statement("B.10 γ formula", "Appendix B.10", claims=("002.B10.gamma_formula",
                                                        "002.B10.gamma_structure")),
    Statement("B.10 spectral-norm condition", "Appendix B.10", claims=("002.B10.spectral_norm",)),
    Statement("Figure 3", "Appendix B.11", claims=("002.fig3.readings",), reason=_READINGS),
    Statement("Figure 4", "Appendix B.12", claims=("002.fig4.readings",),
              reason="the readings are decided on the exact expectation of the plotted average "
              "(the noise does not depend on the data); the simulated averages themselves are "
              "redrawn numerically by proofs_check/paper_002/figures.py"),
)
"""The paper's numbered statements, in order."""

__all__ = ["STATEMENTS"]
