"""Claims of 004_acc5641f8e5f8c79.txt added or rewritten for issue 17; every violated claim's
counterexample is re-verified here by a separate computation."""

from __future__ import annotations

import json
from fractions import Fraction as Q

import mpmath
import pytest

from pufferfish.models.files.dcp_file import parse_dcp_model
from pufferfish.proofs_check.paper_004.composition import model_instances, thm1_i_check
from pufferfish.proofs_check.paper_004.inverse_claims import (joint_convexity_instances,
                                                              lemma6_check, lemma6_instances)
from pufferfish.proofs_check.registry import claims_for


@pytest.fixture(scope="module")
def report(claim_results):
    """Every claim of paper 004 (each run once in this process, shared with other tests)."""
    return claim_results(claims_for(paper="004"))


def _joint(model):
    """``Pr(ȳ | s)`` of the composition, summed here over datasets and mechanisms."""
    rows = {}
    for s in model.secrets:
        row: dict = {}
        for x, p in model.joint.items():
            if x[0] != s:
                continue
            outs = [((), Q(1))]
            for kernel in model.mechanisms.values():
                outs = [(ys + (y,), w * q) for ys, w in outs for y, q in kernel.row(x[1]).items()]
            for ys, w in outs:
                row[ys] = row.get(ys, Q(0)) + p * w
        total = sum(row.values())
        if total:
            rows[s] = {ys: w / total for ys, w in row.items()}
    return rows


def test_thm1_i_is_checked_on_every_event_and_can_fail(report):
    assert report.result("004.thm1.i").holds
    first = next(iter(model_instances(2)))
    assert not thm1_i_check(lambda rows, d: (Q(1), Q(0)))(first).holds


def test_thm2_iii_counterexample_reverified_from_its_model_file(report):
    result = report.result("004.thm2.iii")
    assert result.violated == 14 and result.instances == 29
    model = parse_dcp_model(json.loads(json.dumps(result.first_counterexample)))
    rows = _joint(model)
    prior = {s: sum(p for x, p in model.joint.items() if x[0] == s) for s in rows}
    level = max(rows[s][y] / rows[t][y] for s, t in model.directions() for y in rows[s])
    tau = 1 + (level - 1) * min(prior.values())
    outputs = set().union(*(set(r) for r in rows.values()))
    worst = Q(1)
    for y in outputs:
        evidence = sum(prior[s] * rows[s].get(y, Q(0)) for s in rows)
        for s in rows:
            worst = min(worst, prior[s] * rows[s].get(y, Q(0)) / evidence / prior[s])
    assert worst < 1 / tau          # μ ∉ Π[τ, 0] although the composition is ε(τ, θ)-DCP


def test_thm2_i_counterexample_the_xor_composition_reveals_the_secret(report):
    result = report.result("004.thm2.i")
    assert result.first_violation.startswith("XOR")
    model = parse_dcp_model(json.loads(json.dumps(result.first_counterexample)))
    rows = _joint(model)
    assert not set(rows["s0"]) & set(rows["s1"])          # disjoint supports: δ = 1 at every ε


def test_joint_convexity_counterexample_at_high_precision(report):
    ctx = mpmath.MPContext()
    ctx.dps = 30
    j_a = j_b = -ctx.log(ctx.mpf(7) / 8)                    # identity / swapped release
    j_mid = -ctx.log(ctx.mpf(1) / 2)                        # uninformative midpoint
    assert j_mid > (j_a + j_b) / 2 + ctx.mpf("0.5")
    result = report.result("004.tasks.joint_convexity")
    assert result.first_violation.startswith(next(iter(joint_convexity_instances())).label)
    assert report.result("004.tasks.convex_in_pi").holds
    assert report.result("004.tasks.pi_convex").holds


def test_lemma6_is_not_vacuous():
    checked = [lemma6_check()(i) for i in lemma6_instances()]
    assert all(o.holds for o in checked)
    assert sum("nothing to check" not in o.detail for o in checked) >= 5


def test_printed_targets_disagree(report):
    rows = report.result("004.tableVIII.rows")
    assert "Single (ε_g, ε_i) = (0.0, 0.1) after Composition (0.6, 0.1)" in rows.first_violation
    assert report.result("004.fig1.targets").violated == 1


def test_profiles_and_unchanged_verdicts(report):
    for claim_id in ("004.lemma2", "004.lemma3", "004.lemma6", "004.thm2.ii", "004.lemma7",
                     "004.C3.pufferfish", "004.prop1.invertible", "004.lemma4"):
        assert report.result(claim_id).holds, claim_id
    violated = {r.claim.id: r.violated for r in report.results if r.violated}
    assert {k: violated[k] for k in ("004.thm1.iii", "004.thm3.ii", "004.prop1.noninvertible",
                                     "004.prop4", "004.thm5.i", "004.thm5.ii",
                                     "004.thm5.equality")} == {
        "004.thm1.iii": 11, "004.thm3.ii": 15, "004.prop1.noninvertible": 3, "004.prop4": 14,
        "004.thm5.i": 7, "004.thm5.ii": 13, "004.thm5.equality": 2}
    assert report.undecided == ()


def test_thm2_iii_task1_counterexample_reverified_from_its_model_file(report):
    """τ_g = 1 gives ε = 0, where δ is the largest total-variation distance between the
    composition's output laws under two secrets: 1/2 > δ_g = 0, so no extension is DCP."""
    result = report.result("004.thm2.iii.task1")
    assert result.first_violation.startswith("DP-like") and "τ_g = 1, δ_g = 0" in result.first_violation
    model = parse_dcp_model(json.loads(json.dumps(result.first_counterexample)))
    rows = _joint(model)
    delta_at_zero = max(sum(max(Q(0), p - rows[t].get(y, Q(0))) for y, p in rows[s].items())
                        for s, t in model.directions())
    assert delta_at_zero == Q(1, 2)
