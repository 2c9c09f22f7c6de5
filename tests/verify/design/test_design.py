"""Mechanism design (000_65109fe28ca61d17.txt §2.2 Definition 5, §5–6): known optima worked by
hand, brute force over rational grids, an independent solver, the exact dual bound, interval
families, DP-style designs that compose, rounding of decimal budgets."""

from __future__ import annotations

import math
from fractions import Fraction as F
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.files.pufferfish_file import load_model, parse_model
from pufferfish.verify.design.compare import compare_mechanisms
from pufferfish.verify.design.exact import exact_design, is_feasible, lagrangian_bound
from pufferfish.verify.design.losses import read_loss_table
from pufferfish.verify.design.lp import solve_float
from pufferfish.verify.design.problem import build_problem, design_ratio
from pufferfish.verify.design.report import design_mechanism, designed_model
from pufferfish.verify.design.vertex import solve_linear
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.pufferfish import pufferfish_level

QUICKSTART = load_model(example_path("quickstart.json"))


def one_attribute(p0: str = "1/2") -> object:
    return parse_model({
        "pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
        "priors": {"data": {"independent": {"x": {"0": p0, "1": str(1 - F(p0))}}}},
        "entry_pairs": True, "mechanisms": {}})


def two_attributes(priors: dict, first_only: bool = False) -> object:
    secrets = ({"secrets": {"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
                "pairs": [["x1=0", "x1=1"]]} if first_only else {"entry_pairs": True})
    return parse_model({"pufferfish_model": 1, "attributes": ["x1", "x2"], "domain": [0, 1],
                        "datasets": "all", "priors": priors, **secrets, "mechanisms": {}})


@pytest.mark.parametrize("ratio", [F(1), F(2), F(3), F(9, 2)])
def test_one_binary_attribute_uniform_prior_gives_randomized_response(ratio):
    """Worked by hand: keep e^ε/(1+e^ε), 0/1 loss 1/(1+e^ε)."""
    result = design_mechanism(one_attribute(), "attribute:x", parse_budget(f"log({ratio})"),
                              loss="01")
    assert result.loss == 1 / (1 + ratio)
    assert result.optimal and result.holds
    keep = [row[o] for row, o in zip(result.design.rows, (0, 1))]
    assert keep == [ratio / (1 + ratio)] * 2 or ratio == 1


def _grid_optimum(model, query, ratio, grid=12):
    """Brute force over every 2x2 mechanism with entries in {k/grid}: least exact 0/1 loss
    among the exactly feasible ones (an upper bound on the optimum)."""
    problem = build_problem(model, query, parse_budget(f"log({ratio})"), loss="01")
    best = None
    for a, b in product(range(grid + 1), repeat=2):
        rows = [[F(a, grid), 1 - F(a, grid)], [F(b, grid), 1 - F(b, grid)]]
        if is_feasible(problem, rows):
            loss = problem.expected_loss(rows)
            best = loss if best is None else min(best, loss)
    return best


@pytest.mark.parametrize("p0,ratio", [("1/2", 2), ("1/3", 3), ("3/4", 2), ("1/5", 5)])
def test_brute_force_grid_never_beats_the_design(p0, ratio):
    model = one_attribute(p0)
    result = design_mechanism(model, "attribute:x", parse_budget(f"log({ratio})"), loss="01")
    assert result.optimal
    assert result.loss <= _grid_optimum(model, "attribute:x", ratio)


@st.composite
def chain_priors(draw):
    def probability():
        return F(draw(st.integers(1, 9)), 10)
    stay0, stay1, start = probability(), probability(), probability()
    return {"chain": {"markov": {"initial": {"0": str(start), "1": str(1 - start)},
                                 "transition": {"0": {"0": str(stay0), "1": str(1 - stay0)},
                                                "1": {"0": str(1 - stay1), "1": str(stay1)}}}},
            "fair": {"uniform": True}}


@settings(max_examples=12, deadline=None)
@given(priors=chain_priors(), ratio=st.sampled_from(["log(2)", "log(3)", "1/2"]),
       loss=st.sampled_from(["l1", "l2", "01"]), dp=st.booleans())
def test_random_models_exact_feasible_and_match_an_independent_solver(priors, ratio, loss, dp):
    from scipy.optimize import linprog

    import numpy as np

    model = two_attributes(priors)
    budget = parse_budget(ratio)
    result = design_mechanism(model, "sum", budget, loss=loss,
                              composable="dp-style" if dp else "none")
    assert result.holds and is_feasible(result.problem, result.design.rows)
    assert result.lower_bound <= result.loss
    problem = result.problem
    n, m = len(problem.datasets), len(problem.outputs)
    equality = np.kron(np.eye(n), np.ones((1, m)))
    independent = linprog([float(c) for row in problem.cost for c in row],
                          A_ub=problem.matrix.toarray(),
                          b_ub=np.zeros(len(problem.constraints)), A_eq=equality,
                          b_eq=np.ones(n), bounds=(0, None), method="highs-ipm")
    assert independent.status == 0
    assert float(result.lower_bound) - 1e-7 <= independent.fun <= float(result.loss) + 1e-7


def test_lagrangian_bound_is_valid_for_any_nonnegative_multipliers():
    problem = build_problem(QUICKSTART, "sum", parse_budget("log(3)"))
    design = exact_design(problem, solve_float(problem))
    for scale in (F(0), F(1, 10), F(1), F(7)):
        multipliers = [scale * (k % 3) for k in range(len(problem.constraints))]
        assert lagrangian_bound(problem, multipliers) <= design.loss
    with pytest.raises(ValueError):
        lagrangian_bound(problem, [F(-1)] * len(problem.constraints))


def test_quickstart_design_is_proved_optimal_and_reaudited():
    result = design_mechanism(QUICKSTART, "sum", parse_budget("log(3)"))
    assert (result.loss, result.lower_bound, result.gap) == (F(3, 16), F(3, 16), 0)
    audit = pufferfish_level(designed_model(QUICKSTART, result.mechanism), result.mechanism,
                             parse_budget("log(3)"))
    assert audit.holds and audit.level_ratio == 3


def test_decimal_budget_rounds_down_and_is_certified():
    ratio, note = design_ratio(parse_budget("1"))
    assert ratio == F(2718281, 1000000) and "rounded down" in note
    assert math.log(ratio) <= 1
    result = design_mechanism(QUICKSTART, "sum", parse_budget("0.5"))
    assert result.holds and result.audit.budget.relation == "below"


def test_zero_and_infinite_budgets():
    zero = design_mechanism(QUICKSTART, "sum", parse_budget("0"))
    problem = zero.problem
    constant = min(sum(row[o] for row in problem.cost) for o in range(len(problem.outputs)))
    assert zero.holds and zero.loss <= constant and zero.optimal
    free = design_mechanism(QUICKSTART, "sum", parse_budget("inf"))
    assert free.loss == 0 and free.problem.constraints == ()


def test_dp_style_design_meets_dp_and_costs_more():
    plain = design_mechanism(QUICKSTART, "sum", parse_budget("log(3)"))
    styled = design_mechanism(QUICKSTART, "sum", parse_budget("log(3)"), composable="dp-style")
    assert styled.dp_audit.holds and styled.holds and styled.optimal
    assert styled.loss == F(35, 72) >= plain.loss


def test_dp_style_design_composes_while_the_optimum_does_not():
    """On the six-day chain at log 2 the Pufferfish optimum has NfC value inf; the DP-style design
    is certified to compose (000 §5.1, Theorem 4)."""
    model = load_model(example_path("design_chain6.json"))
    plain = design_mechanism(model, "sum", parse_budget("log(2)"), composable="nfc")
    assert plain.composition.verdict == "violated" and not plain.holds
    from pufferfish.verify.nfc.report import composition_report
    styled = design_mechanism(model, "sum", parse_budget("log(2)"), composable="dp-style")
    report = composition_report(designed_model(model, styled.mechanism), [styled.mechanism],
                                parse_budget("log(2)"))
    assert report.verdict == "holds"


def test_an_interval_family_alone_gives_no_expected_loss():
    model = load_model(example_path("collapse_interval_family.json"))
    with pytest.raises(ModelError, match="finite prior"):
        design_mechanism(model, "attribute:secret", parse_budget("log(2)"))


def test_interval_family_with_a_finite_data_prior():
    from pufferfish.models.priors import IntervalBlock, IntervalFamily
    model = two_attributes({"fair": {"uniform": True}}, first_only=True)
    blocks = {}
    for secret in ("x1=0", "x1=1"):
        value = int(secret[-1])
        blocks[secret] = (IntervalBlock(((value, 0),), F(1, 4), F(3, 4)),
                          IntervalBlock(((value, 1),), F(1, 4), F(3, 4)))
    model.priors["box"] = IntervalFamily("box", blocks)
    result = design_mechanism(model, "sum", parse_budget("log(2)"))
    assert result.holds and result.optimal
    without = design_mechanism(two_attributes({"fair": {"uniform": True}}, first_only=True),
                               "sum", parse_budget("log(2)"))
    assert result.loss >= without.loss
    model.priors["box"] = IntervalFamily("box", {"x1=0": blocks["x1=0"]})
    with pytest.raises(ModelError, match="no blocks for secret 'x1=1'"):
        design_mechanism(model, "sum", parse_budget("log(2)"))


def test_comparison_designed_is_best_and_price():
    comparison = compare_mechanisms(QUICKSTART, "sum", parse_budget("log(3)"))
    assert comparison.designed_is_best
    assert comparison.price_of_composability == F(43, 144)
    names = [c.name for c in comparison.contenders]
    assert "geometric, DP" in names and "Wasserstein (Laplace)" in names
    geometric = comparison.contenders[names.index("geometric, DP")]
    assert geometric.meets_budget is False          # DP-calibrated noise fails under correlation


def test_comparison_on_the_chain_of_six():
    model = load_model(example_path("design_chain6.json"))
    comparison = compare_mechanisms(model, "sum", parse_budget("log(3)"))
    assert comparison.designed_is_best and comparison.pufferfish.optimal
    quilt = {c.name: c for c in comparison.contenders}["Markov Quilt Mechanism"]
    assert quilt.meets_budget is True and quilt.loss > comparison.pufferfish.loss
    for contender in comparison.contenders:
        if contender.meets_budget and contender.loss is not None:
            assert comparison.pufferfish.loss <= contender.loss


def test_solve_linear_exact_and_inconsistent():
    assert solve_linear([{0: F(2)}], [F(1)], {}) == {0: F(1, 2)}
    assert solve_linear([{0: F(1)}, {0: F(1)}], [F(1), F(2)], {}) is None
    assert solve_linear([{0: F(1), 1: F(1)}], [F(1)], {1: F(1, 3)}) == {0: F(2, 3), 1: F(1, 3)}


def test_loss_table_and_bad_loss_tables():
    table = read_loss_table({"design_loss": 1, "loss": {"0": {"0": "0", "1": "1"},
                                                        "1": {"0": "2", "1": "0"}}})
    result = design_mechanism(one_attribute(), "attribute:x", parse_budget("log(3)"), loss=table)
    assert result.optimal and result.holds
    with pytest.raises(ModelError, match="loss.0.1"):
        read_loss_table({"design_loss": 1, "loss": {"0": {"1": "-1"}}})
    with pytest.raises(ModelError, match="float|decimal|exact"):
        read_loss_table({"design_loss": 1, "loss": {"0": {"1": 0.5}}})
    missing = read_loss_table({"design_loss": 1, "loss": {"0": {"0": "0"}}})
    with pytest.raises(ModelError, match="no row for query value 1|no loss for output"):
        design_mechanism(one_attribute(), "attribute:x", parse_budget("log(3)"), loss=missing)


@pytest.mark.parametrize("kwargs,match", [
    ({"query": "median"}, "unknown query"),
    ({"data": "nobody"}, "unknown prior"),
    ({"loss": "l3"}, "unknown loss"),
    ({"outputs": []}, "at least one output"),
    ({"composable": "sometimes"}, "composability"),
    ({"neighbours": "cousins", "composable": "dp-style"}, "neighbour relation"),
])
def test_bad_design_inputs_are_located(kwargs, match):
    query = kwargs.pop("query", "sum")
    with pytest.raises(ModelError, match=match):
        design_mechanism(QUICKSTART, query, parse_budget("log(3)"), **kwargs)
