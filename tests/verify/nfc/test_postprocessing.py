"""NfC constraint sets and post-processing (000_65109fe28ca61d17.txt §5.2, Theorem 5; App. C)."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.models import Distribution, TableMechanism
from pufferfish.models.files.pufferfish_file import load_model
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.cli.main import main
from pufferfish.verify.nfc.postprocessing import (ConstraintSet, NfcConstraint, evaluate_constraint,
                                   implied_value, invariance_report, parse_constraints,
                                   random_postprocessing_search, reduce_redundant)

D0, D1, D2, D3 = (0,), (1,), (2,), (3,)


def constraint(name, left, beta, pair=("s1", "s2")):
    return NfcConstraint(name, left, pair[0], pair[1], tuple((d, F(b)) for d, b in beta))


def test_two_datasets_per_side_worked_by_hand():
    """β = (1/2, 1/2) on D2, D3: output a has P = 1/2 vs sqrt(1/4 · 1/2), value log(2)/2."""
    mechanism = TableMechanism("m", {D0: Distribution({"a": "1/2", "b": "1/2"}),
                                     D1: Distribution({"a": "1/2", "b": "1/2"}),
                                     D2: Distribution({"a": "1/4", "b": "3/4"}),
                                     D3: Distribution({"a": "1/2", "b": "1/2"})})
    c = constraint("mixed", D0, [(D2, "1/2"), (D3, "1/2")])
    below = evaluate_constraint(c, mechanism, parse_budget("1/2"))
    assert below.holds and below.output == "a"
    assert below.exact_ratio == 2 and below.power == 2
    assert below.value_low <= math.log(2) / 2 <= below.value_high
    assert not evaluate_constraint(c, mechanism, parse_budget("0.3")).holds
    assert evaluate_constraint(c, mechanism, parse_budget("log(2)")).holds


def test_zero_probabilities_in_a_constraint():
    mechanism = TableMechanism("m", {D0: Distribution({"a": "1"}), D1: Distribution({"b": "1"}),
                                     D2: Distribution({"a": "1/2", "b": "1/2"})})
    assert not evaluate_constraint(constraint("c", D0, [(D1, "1/2"), (D2, "1/2")]), mechanism,
                                   parse_budget("5")).holds
    assert evaluate_constraint(constraint("c", D1, [(D2, "1")]), mechanism, parse_budget("1")).holds


def test_dp_style_set_is_invariant_by_theorem_5():
    constraints = ConstraintSet((constraint("dp01", D0, [(D1, "1")]),
                                 constraint("dp10", D1, [(D0, "1")], ("s2", "s1"))),
                                parse_budget("log(3)"))
    report = invariance_report(constraints)
    assert report.theorem5_says_invariant and report.construction is None and report.invariant


def test_mixed_beta_with_two_entries_the_proof_construction_does_not_violate():
    """The smallest case Theorem 5 covers: the proof's M̂ meets every constraint, and A∘M̂ still
    meets the mixed one (verified exactly) — Step 3's AM–GM inequality has the wrong direction."""
    constraints = ConstraintSet((constraint("mixed", D0, [(D1, "1/2"), (D2, "1/2")]),
                                 constraint("dp", D1, [(D0, "1")], ("s2", "s1"))),
                                parse_budget("1/2"))
    report = invariance_report(constraints)
    assert not report.theorem5_says_invariant
    construction = report.construction
    assert construction.mechanism_satisfies_all
    assert construction.before.holds and construction.before.value > 0.5 - 1e-6
    assert construction.after.holds and construction.after.value < construction.before.value
    assert not construction.violation_found and report.invariant


def test_redundancy_of_a_convex_combination_is_detected_exactly():
    c1 = constraint("c1", D0, [(D2, "1")])
    c2 = constraint("c2", D0, [(D3, "1")])
    mix = constraint("mix", D0, [(D2, "1/3"), (D3, "2/3")])
    datasets = [D0, D2, D3]
    assert implied_value(mix, [c1, c2], datasets) == 1          # implied: value = ε exactly
    assert implied_value(c1, [c2, mix], datasets) is None       # not implied (unbounded)
    report = reduce_redundant(ConstraintSet((c1, c2, mix), parse_budget("log(5)")))
    assert report.redundant == ("mix",) and set(report.kept) == {"c1", "c2"}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=9, max_size=9), st.integers(1, 4),
       st.integers(0, 10**6))
def test_every_nfc_constraint_survives_post_processing(weights, b, seed):
    """Superadditivity of the weighted geometric mean: A∘M meets every constraint M meets."""
    rows = {d: Distribution({o: F(w, sum(weights[3 * k:3 * k + 3]))
                             for o, w in enumerate(weights[3 * k:3 * k + 3])})
            for k, d in enumerate((D0, D1, D2))}
    mechanism = TableMechanism("m", rows)
    c = constraint("c", D0, [(D1, F(b, 5)), (D2, 1 - F(b, 5))])
    value = evaluate_constraint(c, mechanism, parse_budget("0"))
    budget = parse_budget(str(F(value.value_high).limit_denominator(10**6) + F(1, 10**6)))
    constraints = ConstraintSet((c,), budget)
    assert evaluate_constraint(c, mechanism, budget).holds
    found, _ = random_postprocessing_search(constraints, mechanism, 10, random.Random(seed))
    assert found == 0


def test_constraints_file_errors():
    with pytest.raises(Exception, match="nfc_constraints"):
        parse_constraints({"constraints": []})
    with pytest.raises(Exception, match="sum"):
        parse_constraints({"nfc_constraints": 1, "epsilon": "1", "constraints": [
            {"left": [0], "beta": [[[1], "1/2"]]}]})


@pytest.mark.parametrize("epsilon, hint", [(0.1, '"0.1"'), (1e400, '"1/2"'), (float("nan"), '"1/2"')])
def test_constraints_file_refuses_float_budgets_with_the_model_readers_hint(epsilon, hint):
    from pufferfish.models.errors import ModelError

    data = {"nfc_constraints": 1, "epsilon": epsilon,
            "constraints": [{"left": [0], "beta": [[[1], "1"]]}]}
    with pytest.raises(ModelError, match="float") as info:
        parse_constraints(data)
    assert info.value.path == "epsilon" and hint in str(info.value)


def test_constraints_file_budget_forms():
    item = [{"left": [0], "beta": [[[1], "1"]]}]
    assert parse_constraints({"nfc_constraints": 1, "epsilon": "0.1", "constraints": item}
                             ).budget.epsilon == F(1, 10)
    assert parse_constraints({"nfc_constraints": 1, "epsilon": 2, "constraints": item}
                             ).budget.epsilon == 2
    assert parse_constraints({"nfc_constraints": 1, "epsilon": "log(3)", "constraints": item}
                             ).budget.ratio == 3


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr()


def test_postprocess_commands(capsys, tmp_path):
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"map": [["a", [["x", "1"]]], ["b", [["x", "1/2"], ["y", "1/2"]]]]}))
    code, out = run(capsys, "postprocess", "examples/hidden_coin.json", "--mechanism", "coin",
                    "--map", str(mapping), "--json")
    data = json.loads(out.out)
    assert code == 0 and not data["pufferfish"]["increased"] and not data["dp"]["increased"]
    constraints = tmp_path / "c.json"
    constraints.write_text(json.dumps({"nfc_constraints": 1, "epsilon": "1/2", "constraints": [
        {"name": "mixed", "left": [0], "beta": [[[1], "1/2"], [[2], "1/2"]]},
        {"name": "dp", "left": [1], "pair": ["s2", "s1"], "beta": [[[0], "1"]]}]}))
    written = tmp_path / "construction.json"
    code, out = run(capsys, "postprocess", "--constraints", str(constraints), "--write",
                    str(written))
    assert code == 0 and "NOT invariant (a β mixes datasets)" in out.out
    model = load_model(written)
    assert set(model.mechanisms) == {"M_hat", "A_of_M_hat"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"map": [["zzz", [["x", "1"]]]]}))
    code, out = run(capsys, "postprocess", "examples/hidden_coin.json", "--mechanism", "coin",
                    "--map", str(bad))
    assert code == 2


def test_theorem_5_second_part_is_reported_violated_with_counterexamples(claim_results):
    from pufferfish.proofs_check.registry import claims_for

    report = claim_results(claims_for(claim_id="000.thm5.mixed_not_invariant"))
    result = report.results[0]
    assert not report.holds and result.violated == result.instances > 0
    assert "M_hat" in result.first_counterexample["mechanisms"]
    assert claim_results(claims_for(claim_id="000.thm5.one_hot_invariant")).holds
    assert claim_results(claims_for(claim_id="000.thm5.every_constraint_invariant")).holds
