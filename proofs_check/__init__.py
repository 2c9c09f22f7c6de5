"""The papers' claims as executable checks (DESIGN.md, ``proofs_check/``).

Importing the package registers every paper module's claims; use
:func:`pufferfish.proofs_check.registry.claims_for` and :func:`pufferfish.proofs_check.runner.run_claims`.
"""

from pufferfish.proofs_check import paper_000  # noqa: F401  (registers the claims of 000_65109fe28ca61d17.txt)
from pufferfish.proofs_check import paper_001  # noqa: F401  (001_3a97785a86d61e37.txt)
from pufferfish.proofs_check import paper_002  # noqa: F401  (002_e1f2e9a9937b8cda.txt)
from pufferfish.proofs_check import paper_004  # noqa: F401  (004_acc5641f8e5f8c79.txt)
