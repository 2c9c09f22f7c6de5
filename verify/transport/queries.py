"""The query syntax of the Laplace-noise commands (Wang et al., Privacy-Preserving Analysis of
Correlated Data, §3: the released query ``F`` of the Wasserstein mechanism).

``sum`` (the sum of all attributes), ``count`` (the number of nonzero attributes), ``parity``
(the sum modulo 2) or ``attribute:NAME`` (one attribute's value), each as a
:class:`pufferfish.models.mechanisms.Query` over a universe.

>>> from pufferfish.models.universe import Universe
>>> universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
>>> parse_query("sum", universe)((1, 1)), parse_query("attribute:x2", universe)((0, 1))
(2, 1)
"""

from __future__ import annotations

from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Query
from pufferfish.models.universe import Universe

QUERY_NAMES = ("sum", "count", "parity")
"""The whole-dataset queries; ``attribute:NAME`` selects one attribute."""


def parse_query(text: str, universe: Universe) -> Query:
    """The command-line query syntax: ``sum``, ``count``, ``parity`` or ``attribute:NAME``
    (errors are :class:`ModelError` located at ``--query``)."""
    if not isinstance(text, str) or not text.strip():
        raise ModelError("give a query: sum, count, parity or attribute:NAME", "--query")
    stripped = text.strip()
    if stripped.startswith("attribute:"):
        return Query("attribute", universe, [stripped.split(":", 1)[1]], 1, "--query")
    if stripped not in QUERY_NAMES:
        raise ModelError(f"unknown query {stripped!r}; use sum, count, parity or attribute:NAME",
                         "--query")
    return Query(stripped, universe, None, 1, "--query")
