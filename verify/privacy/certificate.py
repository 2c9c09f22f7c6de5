"""Certificates of an audit: the exact evidence behind each verdict, as JSON that a separate,
small checker re-derives from the model file (``pufferfish_check``, docs/certificates.md).

A certificate (``"pufferfish_certificate": 1``) names the model file (path and SHA-256), the
mechanisms audited when only some were requested (``requested_mechanisms``) and, for each audited
mechanism and for the joint release of several:

* ``datasets``: every dataset of the universe with the mechanism's exact output law (enumerated
  audits and programs; a joint release omits them: its law is the product of its parts' laws);
* ``pufferfish``: per prior and per secret of a pair, ``Pr[s | θ]`` and the conditional law
  ``Pr[M = ω | s, θ]`` of every output, so that each ratio of Definition 5 (Bai et al.,
  Composition for Pufferfish Privacy, §2.2) can be recomputed; every ordered pair's worst ratio
  with its output and two probabilities; the skipped pairs; the level, the witness and, with a
  budget, the verdict.  On the structured path (:mod:`pufferfish.verify.structured`) each
  secret's law of the sum or count a query mechanism reads (``Pr[s ∧ code = k | θ]``, the code
  being the statistic minus its least value) is given as well, and no dataset is listed;
* ``dp``: per neighbour relation the level, its witness (two neighbouring datasets, the output
  and its two probabilities) and, with a DP budget, the verdict; the per-dataset laws above let
  every neighbouring pair be recomputed (on the structured path, ``rows``: the output law of
  each value of the statistic).

Numbers are exact strings (``"3/8"``, ``"inf"``).  A violation is a level above its budget: its
witness is the output, the secret pair (or the neighbouring datasets), the prior and the two
exact probabilities.  Interval families (an infinite set of priors) and symbolic audits have no
certificate: :func:`audit_certificate` refuses them.

>>> from pufferfish.api import load
>>> from pufferfish.verify.privacy.audit import audit_model
>>> model = load("quickstart.json")
>>> data = audit_certificate(model, audit_model(model))
>>> [(m["name"], m["pufferfish"]["max_ratio"]) for m in data["mechanisms"]]
[('rr', '12'), ('sum', '706/137'), ('rr+sum', '1194/31')]
>>> data["mechanisms"][0]["pufferfish"]["priors"]["sticky"]["x1=0"]["law"][0]
[[0, 0, 0], '9/25']
"""

from __future__ import annotations

import hashlib
import os
from fractions import Fraction
from pathlib import Path

from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.mechanisms import Mechanism, QueryMechanism, compose, jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, size_text
from pufferfish.verify.privacy.audit import ModelAudit
from pufferfish.verify.privacy.dp import DPResult
from pufferfish.verify.privacy.pufferfish import PufferfishResult, pair_secrets
from pufferfish.verify.privacy.supports import prior_supports

CERTIFICATE_VERSION = 1
"""The ``"pufferfish_certificate"`` key's value; bumped when a field changes meaning."""

LISTED_DATASETS = 2 ** 16
"""The most datasets an enumerated audit's certificate lists (the checker enumerates as many)."""


def audit_certificate(model: PufferfishModel, audit: ModelAudit, model_file=None, *,
                      max_datasets: int = DEFAULT_MAX_DATASETS,
                      max_outputs: int = DEFAULT_MAX_OUTPUTS) -> dict:
    """The certificate of ``audit``, the result of
    :func:`~pufferfish.verify.privacy.audit.audit_model` on ``model`` read from ``model_file``
    (a path, recorded with its SHA-256, that the checker reads; ``None`` for a model built in
    Python: the checker then needs the file named on its command line)."""
    if getattr(model, "dp_only", False):
        raise UnsupportedError("a DP-only model (no priors, no secret pairs) has no certificate "
                               "yet: the checker re-derives the Pufferfish laws of a model's "
                               "priors, which this model has not", "priors")
    if getattr(audit, "certified", False):
        raise UnsupportedError("a certificate records exact levels; this model's probabilities "
                               "are certified intervals (Gaussian noise, or cycles of "
                               "comparisons), whose audit has no certificate", "mechanisms")
    if model.interval_families:
        names = ", ".join(sorted(model.interval_families))
        raise UnsupportedError(f"the prior family {names} is an infinite set of priors: a "
                               f"certificate lists each prior's laws, so it covers finite priors "
                               f"only", "priors")
    structured = audit.method == "structured"
    if not structured and model.universe.size > LISTED_DATASETS:
        raise TooLargeError(f"a certificate of an enumerated audit lists every dataset's output "
                            f"law, and the universe has {size_text(model.universe.size)} "
                            f"datasets, more than the {size_text(LISTED_DATASETS)} the checker "
                            f"enumerates; the structured path (--method structured) certifies "
                            f"sum and count queries on chains without listing them", "certificate")
    chosen = [model.mechanisms[m.name] for m in audit.mechanisms]
    entries = []
    for mechanism, result in zip(chosen, audit.mechanisms):
        entry = {"name": mechanism.name, "kind": "mechanism"}
        laws = _laws(model, mechanism, structured, max_datasets, max_outputs)
        if not structured:
            entry["datasets"] = _dataset_laws(model, mechanism, max_datasets)
        elif isinstance(mechanism, QueryMechanism):
            entry["rows"] = _statistic_rows(model, mechanism)
        entry["pufferfish"] = _pufferfish_evidence(result.pufferfish, laws)
        entry["dp"] = [_dp_evidence(d, relation) for d, relation in zip(result.dp, audit.relations)]
        entries.append(entry)
    if audit.composition is not None:
        joint = compose(chosen)
        entries.append({"name": joint.name, "kind": "joint", "parts": [m.name for m in chosen],
                        "pufferfish": _pufferfish_evidence(
                            audit.composition.joint,
                            _laws(model, joint, structured, max_datasets, max_outputs),
                            audit.composition.budget),
                        "dp": []})
    data = {"pufferfish_certificate": CERTIFICATE_VERSION, "model": _model_reference(model_file),
            "method": audit.method,
            "neighbours": [relation.to_json() for relation in audit.relations],
            "budget": None if audit.budget is None else audit.budget.text,
            "dp_budget": None if audit.dp_budget is None else audit.dp_budget.text,
            "holds": audit.holds, "mechanisms": entries}
    if audit.assumptions:  # trusted programs: every verdict above assumes their determinism
        data["assumptions"] = list(audit.assumptions)
    audited = [m.name for m in chosen]
    if audited != list(model.mechanisms):  # --mechanism: the checker states the subset
        data["requested_mechanisms"] = audited
    return data


def _model_reference(model_file) -> dict:
    if model_file is None:
        return {"file": None, "sha256": None}
    path = Path(model_file)
    return {"file": os.path.abspath(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def _law(distribution) -> list:
    """``[[output, "p/q"], ...]`` in a fixed order (by the output's JSON text)."""
    items = [(jsonable_output(o), p) for o, p in distribution.items() if p]
    if any(not isinstance(p, Fraction) for _, p in items):
        raise UnsupportedError("a certificate holds rational probabilities, which its checker "
                               "re-derives with the standard library; this mechanism's are "
                               "exact numbers of Q(e^(1/n)) (Laplace-type noise), which have no "
                               "such checker yet", "certificate")
    items.sort(key=lambda item: repr(item[0]))
    return [[o, fraction_str(p)] for o, p in items]


def _dataset_laws(model: PufferfishModel, mechanism: Mechanism, max_datasets: int) -> list:
    return [[list(jsonable_output(d)), _law(mechanism.distribution(d))]
            for d in model.universe.datasets(max_datasets)]


def _laws(model, mechanism, structured, max_datasets, max_outputs) -> dict:
    """Per prior, per secret of a pair: ``{"mass", "law"[, "statistic"]}``."""
    secrets = pair_secrets(model)
    result: dict = {}
    if structured:
        from pufferfish.verify.structured.laws import output_laws

        reads_a_sum = (isinstance(mechanism, QueryMechanism)
                       and mechanism.query.kind in ("sum", "count"))
        for prior, laws in output_laws(model, mechanism, max_outputs).items():
            per_secret = result.setdefault(prior, {})
            for secret in secrets:
                mass = Fraction(int(laws.mass(secret).p), int(laws.mass(secret).q))
                per_secret[secret.name] = {"mass": fraction_str(mass), "law": _law(
                    {o: (Fraction(int(v.p), int(v.q)) / mass if mass else Fraction(0))
                     for o, v in zip(laws.outputs, laws.exact(secret))})}
                if reads_a_sum:  # the law of the sum or count itself, by its code
                    per_secret[secret.name]["statistic"] = [
                        [k, fraction_str(Fraction(int(c.p), int(c.q)))]
                        for k, c in enumerate(laws.law(secret).coeffs()) if c != 0]
        return result
    for prior, support in prior_supports(model, max_datasets).items():
        masses = {s.name: Fraction(0) for s in secrets}
        joints: dict = {s.name: {} for s in secrets}
        for dataset, weight in support:
            distribution = None
            for secret in secrets:
                if secret.holds(dataset):
                    masses[secret.name] += weight
                    distribution = distribution or mechanism.distribution(dataset)
                    joint = joints[secret.name]
                    for output, p in distribution.items():
                        joint[output] = joint.get(output, Fraction(0)) + weight * p
        result[prior] = {name: {"mass": fraction_str(masses[name]),
                                "law": _law({o: v / masses[name] for o, v in joints[name].items()}
                                            if masses[name] else {})}
                         for name in masses}
    return result


def _statistic_rows(model: PufferfishModel, mechanism: QueryMechanism) -> list:
    """The output law of every value the query can answer on the product of the domains."""
    positions = mechanism.query.positions
    domains = [model.universe.domains[i] for i in positions]
    if mechanism.query.kind == "sum":
        low, high = sum(min(d) for d in domains), sum(max(d) for d in domains)
    elif mechanism.query.kind == "count":
        low, high = 0, len(positions)
    else:
        return []
    return [[t, _law(mechanism.key_distribution(t))] for t in range(low, high + 1)]


def _pufferfish_evidence(result: PufferfishResult, laws: dict, budget=None) -> dict:
    budget = budget if budget is not None else result.budget
    return {"max_ratio": fraction_str(result.level_ratio), "epsilon": result.epsilon,
            "vacuous": result.vacuous,
            "holds": None if budget is None else budget.holds,
            "witness": None if result.witness is None else _direction(result.witness),
            "levels": [_direction(level) for level in result.levels],
            "skipped": [[first_second, prior] for first_second, prior, _ in result.skipped],
            "priors": laws}


def _direction(level) -> dict:
    data = {"direction": [level.first, level.second], "prior": level.prior,
            "max_ratio": fraction_str(level.max_ratio)}
    if level.has_output:
        data.update({"output": jsonable_output(level.output),
                     "p_first": fraction_str(level.p_first),
                     "p_second": fraction_str(level.p_second)})
    return data


def _dp_evidence(result: DPResult, relation) -> dict:
    data = {"neighbours": relation.to_json(), "max_ratio": fraction_str(result.max_ratio),
            "epsilon": result.epsilon, "holds": result.holds, "witness": None}
    if result.dataset is not None:
        data["witness"] = {"dataset": list(jsonable_output(result.dataset)),
                           "neighbour": list(jsonable_output(result.neighbour)),
                           "output": jsonable_output(result.output),
                           "p_dataset": fraction_str(result.p_dataset),
                           "p_neighbour": fraction_str(result.p_neighbour)}
    return data


def write_certificate(data: dict, path: str | os.PathLike, option: str = "") -> None:
    """Write a certificate atomically: a regular file is replaced in one step, never left
    partial (:func:`~pufferfish.models.files.json_io.write_json_atomically`)."""
    from pufferfish.models.files.json_io import write_json_atomically

    if not isinstance(data, dict) or data.get("pufferfish_certificate") != CERTIFICATE_VERSION:
        raise ModelError("not a certificate", option)
    write_json_atomically(data, path, option)


__all__ = ["CERTIFICATE_VERSION", "LISTED_DATASETS", "audit_certificate", "write_certificate"]
