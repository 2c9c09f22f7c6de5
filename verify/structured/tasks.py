"""The structured audit's independent pieces as tasks of an engine (a Dask cluster).

For one mechanism, the structured Pufferfish level (Bai et al., Composition for Pufferfish
Privacy, §2.2, Definition 5) is a maximum over priors and ordered secret pairs of a ratio read
from that prior's laws, the leakage (Definition 4) a maximum over priors and secrets, and each
per-entry DP level (Definition 2) a computation on its own: every (prior, chunk of directions),
(prior, leakage) and (relation, DP) piece is independent of the others.  :func:`structured_pieces`
runs them as tasks of an :class:`~pufferfish.verify.execution.Engine` — the model sent to each
worker once; a worker builds a prior's :class:`~pufferfish.verify.structured.laws.OutputLaws`
once and keeps it for its later pieces of the same prior — and returns them in audit order, so the
reductions (:func:`~pufferfish.verify.structured.audit.pufferfish_from_directions`,
:func:`~pufferfish.verify.structured.audit.leakage_from_priors`) pick the same witnesses: the
result is the in-process audit's, bit for bit.

Cost: the in-process work divided among the workers, plus one calibration of a prior's junction
tree per worker that reads that prior (``O(T)`` messages on a chain of ``T`` attributes) and the
model sent once to each worker.
"""

from __future__ import annotations

from collections.abc import Sequence

from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import NeighbourRelation
from pufferfish.verify.execution import Engine
from pufferfish.verify.privacy.blocks import shippable
from pufferfish.verify.structured.audit import directions_of, prior_directions, prior_leakage
from pufferfish.verify.structured.dp import structured_entry_dp
from pufferfish.verify.structured.laws import SCREEN_OUTPUTS, OutputLaws
from pufferfish.verify.structured.statistics import (DEFAULT_MAX_CODES, packed_weights,
                                                     statistic_of)

__all__ = ["structured_pieces", "prior_laws", "CHUNKS_PER_WORKER"]

CHUNKS_PER_WORKER = 4
"""Tasks of directions per worker and mechanism: enough to even out directions of unequal cost,
few enough that each worker's calibration of a prior is shared by several chunks."""


def prior_laws(model: PufferfishModel, mechanism_name: str, prior_name: str,
               max_outputs: int) -> OutputLaws:
    """The :class:`~pufferfish.verify.structured.laws.OutputLaws` of one mechanism under one
    prior, as :func:`~pufferfish.verify.structured.laws.output_laws` builds it for every prior
    (kept for the next call with the same arguments in this process)."""
    key = (id(model), mechanism_name, prior_name, max_outputs)
    if _last[0] != key:
        mechanism = model.mechanisms[mechanism_name]
        statistic = statistic_of(mechanism, model.universe, DEFAULT_MAX_CODES)
        laws = OutputLaws(model.finite_priors[prior_name], model.universe, statistic,
                          packed_weights(statistic), mechanism, max_outputs,
                          statistic.codes > SCREEN_OUTPUTS, factored=True)
        _last[:] = [key, laws, model]  # the model is held so that its id is not reused
    return _last[1]


_last: list = [None, None, None]


def structured_pieces(model: PufferfishModel, names: Sequence[str],
                      relations: Sequence[NeighbourRelation], max_outputs: int,
                      engine: Engine) -> list[tuple[list, list, list]]:
    """For each mechanism named, ``(directions, worst shifts, DP results)``: the directions of
    every prior in audit order (:func:`~pufferfish.verify.structured.audit.prior_directions`),
    each prior's worst shift ``(prior, shift)``
    (:func:`~pufferfish.verify.structured.audit.prior_leakage`) and the per-entry DP level under
    each relation, computed as tasks of ``engine`` (module docstring)."""
    directions = len(directions_of(model))
    priors = list(model.finite_priors)
    wanted = max(1, -(-CHUNKS_PER_WORKER * engine.workers // max(1, len(priors))))
    chunks = _chunks(directions, wanted)
    tasks: list[tuple] = []
    for name in names:
        for prior in priors:
            tasks += [("directions", name, prior, chunk) for chunk in chunks]
            tasks.append(("leakage", name, prior, ()))
        tasks += [("dp", name, relation.label, ()) for relation in relations]
    done = engine.map(_piece, [(task, max_outputs) for task in tasks], shared=shippable(model))
    pieces = {name: ([], [], []) for name in names}
    for (kind, name, where, _), result in zip(tasks, done):
        found, worst, dps = pieces[name]
        if kind == "directions":
            found.extend(result)
        elif kind == "leakage":
            worst.append((where, result))
        else:
            dps.append(result)
    # directions in audit order: prior by prior, each prior's chunks in order (tasks are so)
    return [pieces[name] for name in names]


def _chunks(count: int, wanted: int) -> list[tuple[int, ...]]:
    """``range(count)`` cut into at most ``wanted`` consecutive chunks of near-equal sizes."""
    parts = max(1, min(wanted, count))
    size, extra = divmod(count, parts)
    cuts = [0]
    for k in range(parts):
        cuts.append(cuts[-1] + size + (k < extra))
    return [tuple(range(a, b)) for a, b in zip(cuts, cuts[1:])]


def _piece(model: PufferfishModel, task: tuple, max_outputs: int):
    """One task: a chunk of one prior's directions, one prior's worst shift, or one DP level."""
    kind, name, where, chunk = task
    if kind == "dp":
        return structured_entry_dp(model.universe, model.mechanisms[name], where)
    laws = prior_laws(model, name, where, max_outputs)
    if kind == "leakage":
        return prior_leakage(model, laws)
    return prior_directions(model, where, laws, chunk)
