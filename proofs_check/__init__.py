"""The papers' claims as executable checks (:doc:`/design`).

The claims of each paper register when its package is imported;
:func:`pufferfish.proofs_check.registry.claims_for` imports them all, and
:func:`pufferfish.proofs_check.runner.run_claims` runs them.
"""

PAPER_PACKAGES = ("paper_000", "paper_001", "paper_002", "paper_004")
"""The packages that register claims, one per paper (:data:`pufferfish.bibliography.PAPERS`)."""
