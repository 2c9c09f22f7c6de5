"""Claims of ``000_65109fe28ca61d17.txt`` (Bai, He, Gu, Kifer, Maeng — Composition for Pufferfish
Privacy), one module per part of the paper."""

from pufferfish.proofs_check.paper_000 import collapse  # noqa: F401  (§4, Theorems 1–3)
from pufferfish.proofs_check.paper_000 import nfc  # noqa: F401  (§5.1, Theorem 4)
from pufferfish.proofs_check.paper_000 import postprocessing  # noqa: F401  (§5.2, Theorem 5)
from pufferfish.proofs_check.paper_000 import influence  # noqa: F401  (§6, Theorems 6–9)
