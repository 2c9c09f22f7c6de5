"""Claims of ``002_e1f2e9a9937b8cda.txt`` (Wang, Song, Chaudhuri — Privacy-Preserving Analysis of
Correlated Data), one module per part of the paper; also the flu example and Figures 1, 3, 4."""

CLAIM_MODULES = (
    "wasserstein",  # §3 and Appendix A
    "quilts",  # §4 and Appendix B
    "appendix_lemmas",  # Appendix A.2 Lemma A.6, B.9 Lemma B.12
    "optimality",  # Appendix A.3
    "inferential",  # Appendix B.10, spectral-norm condition
    "symbolic_claims",  # Lemma B.4 as a function of a two-state chain's parameters
)
"""The modules that register this paper's claims when imported (in this order)."""
