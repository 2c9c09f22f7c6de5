"""Claims of ``002_e1f2e9a9937b8cda.txt`` (Wang, Song, Chaudhuri — Privacy-Preserving Analysis of
Correlated Data), one module per part of the paper."""

from pufferfish.proofs_check.paper_002 import wasserstein  # noqa: F401  (§3 and Appendix A)

try:
    from pufferfish.proofs_check.paper_002 import quilts  # noqa: F401  (§4 and Appendix B)
except ImportError:  # pragma: no cover - the Markov-quilt claims are added separately
    pass
