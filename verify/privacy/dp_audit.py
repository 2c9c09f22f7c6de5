"""The audit of a DP-only model (no priors, no secret pairs) and the plain-text lines every audit
prints for its DP levels: the exact level with its decimal, and the worst pair of neighbouring
datasets with its output (Bai et al., Composition for Pufferfish Privacy, §2.1, Definitions 1–3).

DP needs the datasets, a neighbour relation and the mechanisms, nothing else: a model file
without ``priors``, ``secrets`` and ``pairs`` is read as such a model
(:attr:`pufferfish.models.model.PufferfishModel.dp_only`), and :func:`dp_levels_only` computes
each mechanism's level under each neighbour relation for the audit.  Its report leads with DP; it has no
Pufferfish or leakage column, since no prior was given.

>>> from pufferfish.api import audit
>>> model = {"pufferfish_model": 1, "attributes": ["x1", "x2"], "domain": [0, 1],
...          "datasets": "all", "mechanisms": {"noisy_sum": {"query": "sum",
...          "noise": {"geometric": {"alpha": "1/2", "min": 0, "max": 2}}}}}
>>> print(audit(model).explain("a DP-only model"))
Audit of a DP-only model (DP only: the model has no priors or secret pairs)
<BLANKLINE>
mechanism  neighbours  DP ε    ≈
---------  ----------  ------  ------
noisy_sum  entry       log(2)  0.6931
<BLANKLINE>
  noisy_sum: entry DP worst case output 0: Pr[ω|[0, 0]] = 2/3 vs Pr[ω|[1, 0]] = 1/3, ratio 2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import NeighbourRelation, ScannedRelation
from pufferfish.models.numbers import epsilon_float, fraction_str
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.verify.privacy.dp import DPResult, dp_level, dp_levels_by_relation
from pufferfish.verify.report import assumption_lines, compact, table

DP_ONLY_NOTE = "DP only: the model has no priors or secret pairs"
"""What the report of a DP-only audit says of the model, in its title and ``method_note``."""


def approximate(result: DPResult) -> str:
    """The decimal of a DP level, for reading (``inf`` when infinite)."""
    value = epsilon_float(result.max_ratio)
    return "inf" if value == math.inf else f"{value:.4f}"


def witness_line(mechanism: str, result: DPResult) -> str | None:
    """The worst case of a DP level: the output and the two neighbouring datasets, their
    probabilities and ratio (``None`` when no pair was compared)."""
    if result.dataset is None:
        return None
    ratio = compact(fraction_str(result.max_ratio))
    return (f"  {mechanism}: {result.relation} DP worst case output "
            f"{jsonable_output(result.output)!r}: Pr[ω|{list(result.dataset)}] = "
            f"{fraction_str(result.p_dataset)} vs Pr[ω|{list(result.neighbour)}] = "
            f"{fraction_str(result.p_neighbour)}, ratio {ratio}")


def dp_levels_only(model: PufferfishModel, relations: Sequence[NeighbourRelation],
                   budget: Budget | None, dp_budget: Budget | None, max_datasets: int,
                   max_outputs: int, max_pairs: int,
                   progress: Callable[[str], None] | None = None
                   ) -> list[tuple[str, tuple[DPResult, ...]]]:
    """The DP levels of a DP-only ``model``: ``(mechanism, levels)`` with each mechanism's exact
    level under each of ``relations`` (``dp_budget`` decides them).  A Pufferfish ``budget`` is
    refused: there is no prior to check it against.  The audit
    (:func:`~pufferfish.verify.privacy.audit.audit_model`) wraps them in its result."""
    if budget is not None:
        raise ModelError("a Pufferfish budget needs priors and secret pairs, and this model has "
                         "none (a DP-only model); check its DP levels with a DP budget "
                         "(--epsilon-dp, or epsilon_dp= in Python)", "epsilon")
    mechanisms = list(model.mechanisms.values())
    scanned = {relation: dp_levels_by_relation(model.universe, mechanisms, relation,
                                               max_datasets, max_outputs, max_pairs)
               for relation in relations if isinstance(relation, ScannedRelation)}
    results = []
    for slot, mechanism in enumerate(mechanisms):
        if progress:
            progress(mechanism.name)
        levels = tuple(scanned[relation][slot] if relation in scanned else
                       dp_level(model.universe, mechanism, relation.text, None, max_datasets,
                                max_outputs, max_pairs)
                       for relation in relations)
        if dp_budget is not None:
            levels = tuple(replace(d, budget=compare_ratio(d.max_ratio, dp_budget))
                           for d in levels)
        results.append((mechanism.name, levels))
    return results


def explain_dp_only(audit, source: str) -> str:
    """The plain-text report of a DP-only audit: one row per mechanism and neighbour relation
    (the exact level, its decimal and, with a DP budget, the verdict), then each worst case."""
    headers = ["mechanism", "neighbours", "DP ε", "≈"] + \
        (["DP budget"] if audit.dp_budget is not None else [])
    rows, lines = [], []
    for m in audit.mechanisms:
        for d in m.dp:
            rows.append([m.name, d.relation, compact(d.epsilon), approximate(d)] +
                        ([] if d.budget is None else
                         ["ok" if d.holds else "VIOLATED"]))
            line = witness_line(m.name, d)
            if line is not None:
                lines.append(line)
    text = [f"Audit of {source} ({DP_ONLY_NOTE})", "", table(headers, rows), ""] + lines
    if audit.dp_budget is not None:
        relations = ", ".join(r.label for r in audit.relations) or "each relation"
        text += ["", f"DP budget ε = {audit.dp_budget.text} ({relations}): "
                     f"{audit._verdict(audit.dp_holds)}"]
    if audit.assumptions:
        text += [""] + assumption_lines(audit.assumptions)
    return "\n".join(text)
