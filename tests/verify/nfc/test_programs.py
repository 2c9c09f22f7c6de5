"""NfC linear programs (000_65109fe28ca61d17.txt §5.1, Theorem 4; Appendix C): known answers,
the three zero cases, certification, attacks, repeated runs and the `composes` command."""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import pytest
from pufferfish.verify.numerics.intervals import endpoints, interval_context, log_interval

from pufferfish.models import (Distribution, PufferfishModel, RandomizedResponse, SecretPair, TableMechanism,
                    TablePrior, Universe, entry_secrets, repeat)
from pufferfish.models.errors import TooLargeError
from pufferfish.proofs_check.paper_000.collapse_examples import interval_example
from pufferfish.models.files.pufferfish_file import load_model
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.cli.main import main
from pufferfish.verify.nfc.programs import nfc_programs
from pufferfish.verify.nfc.attack import composition_attack, repeated_run_levels
from pufferfish.verify.privacy.pufferfish import pufferfish_level

BITS2 = Universe.product(["x1", "x2"], [[0, 1]] * 2)


def model_with(mechanism, priors=None, universe=BITS2):
    secrets = entry_secrets(universe)
    if priors is None:
        priors = {"uniform": TablePrior("uniform", Distribution.uniform(list(universe.datasets())))}
    return PufferfishModel(universe, priors, secrets, [SecretPair(secrets["x1=0"], secrets["x1=1"])],
                           {mechanism.name: mechanism})


def table(rows):
    return TableMechanism("m", {d: Distribution(r) for d, r in rows.items()})


def encloses(program_or_result, value_ratio: F) -> bool:
    low, high = endpoints(log_interval(interval_context(80), value_ratio))
    return program_or_result.lower <= low and high <= program_or_result.upper


HIDDEN_COIN = {(0, 0): {"a": "1/4", "b": "3/4"}, (0, 1): {"a": "3/4", "b": "1/4"},
               (1, 0): {"a": "1/2", "b": "1/2"}, (1, 1): {"a": "1/2", "b": "1/2"}}


def test_randomized_response_nfc_value_is_its_dp_level_with_one_hot_beta():
    """§5.1: DP inequalities are NfC constraints; for RR keep 3/4 the NfC value is log 3."""
    u = Universe.product(["x1"], [[0, 1]])
    result = nfc_programs(model_with(RandomizedResponse("rr", u, F(3, 4)), universe=u),
                          [RandomizedResponse("rr", u, F(3, 4))])
    assert encloses(result, F(3))
    assert result.upper - result.lower < 1e-9
    assert all(p.one_hot for p in result.programs)


def test_hidden_coin_has_zero_pufferfish_level_but_nfc_value_log_3_2():
    """A non-DP mechanism with single-run level 0 whose NfC value is log(3/2)."""
    mechanism = table(HIDDEN_COIN)
    model = model_with(mechanism)
    assert pufferfish_level(model, mechanism).epsilon == "0"
    result = nfc_programs(model, [mechanism])
    assert encloses(result, F(3, 2))
    assert result.witness.d_star in ((0, 0), (0, 1))
    assert result.witness.one_hot


def test_output_impossible_under_d_star_leaves_the_program():
    mechanism = table({(0, 0): {"a": "1"}, (0, 1): {"a": "1/2", "b": "1/2"},
                       (1, 0): {"a": "1/2", "b": "1/2"}, (1, 1): {"a": "1/3", "b": "2/3"}})
    result = nfc_programs(model_with(mechanism), [mechanism])
    program = next(p for p in result.programs if p.d_star == (0, 0))
    assert program.outputs == 1
    # only output a: value = min over ℓ of log(1 / P(a|D_ℓ)) = log 2
    assert encloses(program, F(2))


def test_output_impossible_under_a_dataset_excludes_it_and_forces_beta_zero():
    mechanism = table({(0, 0): {"a": "1/2", "b": "1/2"}, (0, 1): {"a": "1/2", "b": "1/2"},
                       (1, 0): {"a": "1"}, (1, 1): {"a": "1/4", "b": "3/4"}})
    result = nfc_programs(model_with(mechanism), [mechanism])
    program = next(p for p in result.programs if p.d_star == (0, 0))
    assert program.excluded == ((1, 0),)
    assert [d for d, _ in program.beta] == [(1, 1)]
    # the value is the supremum without (1, 0): max_α min over ℓ = (1,1) only: log(2) on a
    assert encloses(program, F(2))


def test_every_dataset_excluded_gives_an_infinite_program_and_a_cover():
    mechanism = table({(0, 0): {"a": "1/2", "b": "1/2"}, (0, 1): {"a": "1/2", "b": "1/2"},
                       (1, 0): {"a": "1"}, (1, 1): {"b": "1"}})
    result = nfc_programs(model_with(mechanism), [mechanism], parse_budget("5"))
    program = next(p for p in result.programs if p.d_star == (0, 0))
    assert program.infinite and program.lower == math.inf
    assert sorted(o[1] for o in program.killers) == ["a", "b"]
    assert result.verdict == "violated"
    attack = composition_attack(model_with(mechanism), [mechanism], result.witness,
                                parse_budget("5"))
    assert attack.runs == 2 and attack.ratio == math.inf


def test_priors_with_equal_supports_share_programs():
    mechanism = table(HIDDEN_COIN)
    datasets = list(BITS2.datasets())
    priors = {"uniform": TablePrior("uniform", Distribution.uniform(datasets)),
              "tilted": TablePrior("tilted", Distribution(dict(zip(datasets, ["1/10", "2/10",
                                                                             "3/10", "4/10"]))))}
    result = nfc_programs(model_with(mechanism, priors), [mechanism])
    assert len(result.programs) == 4
    assert all({q for _, q in p.occurrences} == {"uniform", "tilted"} for p in result.programs)


def test_budget_verdicts_holds_violated_undecided():
    mechanism = table(HIDDEN_COIN)
    model = model_with(mechanism)
    assert nfc_programs(model, [mechanism], parse_budget("0.41")).verdict == "holds"
    assert nfc_programs(model, [mechanism], parse_budget("0.40")).verdict == "violated"
    assert nfc_programs(model, [mechanism], parse_budget("log(3/2)")).verdict == "undecided"


def test_attack_on_the_hidden_coin_breaks_epsilon_zero_after_two_runs():
    mechanism = table(HIDDEN_COIN)
    model = model_with(mechanism)
    result = nfc_programs(model, [mechanism], parse_budget("0"))
    attack = composition_attack(model, [mechanism], result.witness, parse_budget("0"))
    # two b's: Pr[bb | x1=0] = (9/16 + 1/16)/2 = 5/16 vs Pr[bb | x1=1] = 1/4
    assert attack.runs == 2 and attack.ratio == F(5, 4)


def test_repeated_run_levels_agree_with_the_exact_level_of_repeated_mechanisms():
    """Multiset enumeration = brute-force level of repeat(M, r) (independent cross-check)."""
    mechanism = table(HIDDEN_COIN)
    model = model_with(mechanism)
    levels = repeated_run_levels(model, mechanism, 3)
    for r in range(1, 4):
        assert levels.ratios[r - 1] == pufferfish_level(model, repeat(mechanism, r)).level_ratio
    rr = RandomizedResponse("rr", BITS2, F(2, 3))
    sticky = load_model("examples/quickstart.json").priors["sticky"]
    model = model_with(rr, {"sticky": TablePrior("sticky", Distribution(
        {d: p for d, p in [((a, b), sum(sticky.probability((a, b, c)) for c in (0, 1)))
                           for a in (0, 1) for b in (0, 1)]}))})
    levels = repeated_run_levels(model, rr, 2)
    assert levels.ratios[1] == pufferfish_level(model, repeat(rr, 2)).level_ratio


def test_limits_and_unsupported_families():
    mechanism = table(HIDDEN_COIN)
    with pytest.raises(TooLargeError, match="coefficients"):
        nfc_programs(model_with(mechanism), [mechanism], max_coefficients=1)


def test_interval_family_programs_cover_every_member_exactly():
    """Example 4.3's family: the members' supports give infinite programs; the attack uses a member."""
    family = interval_example()
    mechanism = family.mechanism("collapse")
    result = nfc_programs(family, [mechanism], parse_budget("log(7/2)"))
    assert result.verdict == "violated" and result.lower == math.inf
    attack = composition_attack(family, [mechanism], result.witness, parse_budget("log(7/2)"))
    assert attack.runs == 2 and attack.ratio == math.inf


def test_minimal_supports_of_an_interval_family():
    from pufferfish.models import IntervalBlock, IntervalFamily
    from pufferfish.verify.nfc.programs import minimal_supports

    a, b, c, d = (0,), (1,), (2,), (3,)
    family = IntervalFamily("f", {"s": (IntervalBlock((a, b), F(1, 2), F(1)),
                                        IntervalBlock((c,), F(0), F(1, 2)),
                                        IntervalBlock((d,), F(0), F(1)))})
    # block 0 is required; alone it can carry mass 1, so {0} is the only minimal block set
    assert sorted(minimal_supports(family, "s")) == [(a,), (b,)]
    family = IntervalFamily("g", {"s": (IntervalBlock((a,), F(1, 5), F(1, 2)),
                                        IntervalBlock((c,), F(0), F(1, 2)),
                                        IntervalBlock((d,), F(0), F(1, 2)))})
    assert sorted(minimal_supports(family, "s")) == [(a, c), (a, d)]


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr()


def test_composes_command_exit_codes_and_json(capsys):
    code, out = run(capsys, "composes", "examples/hidden_coin.json", "--epsilon", "1/2")
    assert code == 0
    code, out = run(capsys, "composes", "examples/hidden_coin.json", "--epsilon", "0", "--json")
    assert code == 1
    data = json.loads(out.out)
    assert data["attack"]["runs"] == 2
    program = data["programs"][0]
    for key in ("direction", "pairs_and_priors", "d_star", "lower", "upper", "alpha", "beta",
                "beta_one_hot", "solver"):
        assert key in program
    code, out = run(capsys, "composes", "examples/hidden_coin.json", "--epsilon", "log(3/2)")
    assert code == 3 and "contains ε" in out.out
    code, out = run(capsys, "composes", "examples/hidden_coin.json", "--epsilon", "1",
                    "--mechanisms", "nope")
    assert code == 2 and "nope" in out.err
