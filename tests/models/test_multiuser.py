"""Tests of pufferfish.models.multiuser and pufferfish.models.files.multiuser_file (001_3a97785a86d61e37.txt §3, Table 1,
equations (7)–(9), §4 pair sets; Tables 2–3)."""

from __future__ import annotations

import json
from fractions import Fraction as Q
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from pufferfish.examples import example_path
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.multiuser import (MultiUserModel, User, UserSecret, bernoulli, conditional,
                                         naive_sum_distribution, others_sum, sum_distribution)
from pufferfish.models.files.multiuser_file import (dump_multiuser_model, load_multiuser_model,
                                   multiuser_model_to_dict, parse_multiuser_model)
from pufferfish.proofs_check.paper_001.instances import (paper_bernoulli_model,
                                                        paper_distribution_model,
                                                        paper_table2_users, paper_table3,
                                                        paper_value_model)

EXAMPLES = example_path("quickstart.json").parent


def test_table2_and_table3_data():
    """§4 Tables 2–3 as printed (each row sums to 1; P4(3) = 0, Q4(1) = Q4(5) = 0)."""
    u1, u2, u3 = paper_table2_users()
    assert u1.distribution.prob(Q(5)) == Q("0.65") and u2.distribution.prob(Q(1)) == Q("0.7")
    assert u3.distribution == Distribution({Q(k): Q(1, 5) for k in range(1, 6)})
    p4, q4 = paper_table3()
    assert p4.prob(Q(3)) == 0 and q4.prob(Q(3)) == Q("0.9") and q4.prob(Q(1)) == 0


def _brute_force(model: MultiUserModel, secret: UserSecret) -> Distribution:
    """Enumerate presence patterns and values of all users; condition on the secret (and, for
    the ``present`` reading, on every other user being present)."""
    mass: dict = {}
    options = []
    for user in model.users:
        if user.name == secret.user:
            if secret.kind == "absent":
                options.append([(None, Q(1))])
            elif secret.kind == "value":
                options.append([(secret.value, Q(1))])
            else:
                dist = user.distribution if secret.which == "P" else user.alternative
                options.append(list(dist.items()))
        else:
            choices = [(v, user.presence * p) for v, p in user.distribution.items()]
            if model.others == "marginal" and user.presence < 1:
                choices.append((None, 1 - user.presence))
            options.append(choices)
    for combo in product(*options):
        weight = Q(1)
        for _, p in combo:
            weight *= p
        x = sum((v for v, _ in combo if v is not None), Q(0))
        mass[x] = mass.get(x, Q(0)) + weight
    total = sum(mass.values())
    return Distribution({x: p / total for x, p in mass.items() if p})


@pytest.mark.parametrize("others", ["marginal", "present"])
def test_conditionals_equations_7_to_9_against_enumeration(others):
    """(7)–(9) with the two readings of the other users' absence, against enumeration."""
    users = (User("a", Q(1, 2), Distribution({Q(1): Q(1, 3), Q(2): Q(2, 3)})),
             User("b", Q(2, 3), Distribution({Q(0): Q(1, 4), Q(3): Q(3, 4)})),
             User("i", Q(3, 4), Distribution({Q(1): Q(1, 2), Q(4): Q(1, 2)}),
                  Distribution({Q(2): Q(1)})))
    model = MultiUserModel(users, ("i",), others)
    for secret in (UserSecret("i", "value", Q(4)), UserSecret("i", "absent"),
                   UserSecret("i", "distribution", which="P"),
                   UserSecret("i", "distribution", which="Q")):
        assert conditional(model, secret) == _brute_force(model, secret)


def test_readings_differ_only_when_others_may_be_absent():
    """With ζ_j = 1 for every other user the two readings coincide; with ζ_j < 1 they differ
    (marginal: absent users add 0 with probability 1 − ζ_j)."""
    model = paper_value_model()
    present = MultiUserModel(model.users, model.targets, "present")
    assert others_sum(model, "u4") == others_sum(present, "u4")
    users = (User("a", Q(1, 2), Distribution({Q(1): Q(1)})), User("i", Q(1), bernoulli(Q(1, 2))))
    marginal = others_sum(MultiUserModel(users, ("i",), "marginal"), "i")
    assert marginal == Distribution({Q(0): Q(1, 2), Q(1): Q(1, 2)})
    assert others_sum(MultiUserModel(users, ("i",), "present"), "i") == Distribution({Q(1): 1})


def test_pair_sets_and_vacuous_pairs():
    """§4 pair sets; pairs with a secret of prior probability 0 are vacuous (ζ_i = 1 for s_⊥)."""
    model = paper_distribution_model(presence=Q(1))
    assert [p.vacuous for p in model.pairs("P-absent")] == [True]
    assert [p.label for p in model.pairs("PQ")] == ["(u4~P, u4~Q)"]
    assert not model.pairs("PQ")[0].vacuous
    labels = [p.label for p in paper_distribution_model().pairs("ab")]
    assert "(u4=1, u4=2)" in labels and not any("=3" in x for x in labels)   # P4(3) = 0
    assert [p.label for p in paper_value_model().pairs("a-absent")] == ["(u4=5, u4=⊥)"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.dictionaries(st.integers(-3, 6), st.integers(1, 9), min_size=1, max_size=4),
                min_size=0, max_size=6))
def test_fast_sum_equals_naive_convolution(raw):
    """The product-tree convolution agrees with repeated Fraction convolution."""
    factors = [Distribution({Q(v, 2): Q(w, sum(d.values())) for v, w in d.items()}) for d in raw]
    assert sum_distribution(factors) == naive_sum_distribution(factors)


def test_fast_sum_large_uses_ntt_path_exactly():
    """60 users on {0..10}: the decimal (NTT) path, checked against the naive convolution."""
    factors = [Distribution({Q(v): Q(1 + (v * k) % 7, sum(1 + (u * k) % 7 for u in range(11)))
                             for v in range(11)}) for k in range(60)]
    assert sum_distribution(factors) == naive_sum_distribution(factors)


def test_file_round_trip_and_examples():
    for name in ("values", "table3", "bernoulli"):
        model = load_multiuser_model(EXAMPLES / f"multiuser_{name}.json")
        assert parse_multiuser_model(multiuser_model_to_dict(model)) == model
    assert load_multiuser_model(EXAMPLES / "multiuser_bernoulli.json") == paper_bernoulli_model()


def test_file_writer_is_atomic(tmp_path):
    target = tmp_path / "m.json"
    dump_multiuser_model(paper_value_model(), target)
    assert load_multiuser_model(target) == paper_value_model()


@pytest.mark.parametrize("data, path", [
    ({"users": []}, "multiuser_model"),
    ({"multiuser_model": 2, "users": []}, "multiuser_model"),
    ({"multiuser_model": 1, "users": [{"name": "a", "distribution": {"1": 0.5, "2": "1/2"}}]},
     "users.0.distribution.1"),
    ({"multiuser_model": 1, "users": [{"name": "a", "distribution": {"1": "1/3"}}]},
     "users.0.distribution"),
    ({"multiuser_model": 1, "users": [{"name": "a", "presence": "3/2", "distribution": {"1": 1}}]},
     "users.0.presence"),
    ({"multiuser_model": 1, "users": [{"name": "a"}, {"name": "b", "distribution": {"1": 1}}]},
     "users.0.distribution"),
    ({"multiuser_model": 1, "users": [{"name": "a", "distribution": {"1": 1}}], "targets": ["z"]},
     "targets"),
    ({"multiuser_model": 1, "users": [{"name": "a", "distribution": {"1": 1}, "colour": 1}]},
     "users.0"),
    ({"multiuser_model": 1, "users": [{"name": "a", "distribution": {"1": 1},
                                       "value_pairs": [[1, 1]]}]}, "users.0.value_pairs.0"),
])
def test_file_errors_carry_json_paths(data, path):
    with pytest.raises(ModelError) as error:
        parse_multiuser_model(json.loads(json.dumps(data)))
    assert error.value.path == path


_USER = {"name": "a", "distribution": {"1": 1}}


@pytest.mark.parametrize("data, path", [
    ({"multiuser_model": 1.0, "users": [_USER]}, "multiuser_model"),
    ({"multiuser_model": True, "users": [_USER]}, "multiuser_model"),
    ({"multiuser_model": 1, "users": [_USER], "targets": []}, "targets"),
    ({"multiuser_model": 1, "users": [{**_USER, "presence": 0.5}]}, "users.0.presence"),
    ({"multiuser_model": 1, "users": [{**_USER, "presence": 1e400}]}, "users.0.presence"),
    ({"multiuser_model": 1, "users": [{**_USER, "values": [0.25]}]}, "users.0.values.0"),
    ({"multiuser_model": 1, "users": [{**_USER, "value_pairs": [[1, 0.5]]}]},
     "users.0.value_pairs.0.1"),
    ({"multiuser_model": 1, "users": [{**_USER, "present_values": [0.5]}]},
     "users.0.present_values.0"),
    ({"multiuser_model": 1, "users": [{"name": "a", "distribution": {"1": "1/2", "1.0": "1/2"}}]},
     "users.0.distribution.1.0"),
    ({"multiuser_model": 1, "users": [{"name": "a", "distribution": {"x": "1"}}]},
     "users.0.distribution.x"),
    ({"multiuser_model": 1, "users": [_USER, {**_USER, "alternative": {"1": 1}, "name": "b",
                                              "distribution": None}]}, "users.1.distribution"),
])
def test_bad_input_is_refused_with_located_messages(data, path):
    """Floats (even 1.0 as the version, and 1e400, which JSON decodes to infinity), an empty
    target list (it used to mean "every user" silently), repeated values and non-numbers."""
    with pytest.raises(ModelError) as error:
        parse_multiuser_model(json.loads(json.dumps(data)))
    assert error.value.path == path


def test_float_refusal_gives_a_hint():
    data = {"multiuser_model": 1, "users": [{"name": "a", "presence": 0.5,
                                            "distribution": {"1": 1}}]}
    with pytest.raises(ModelError, match='"0.5".*"1/2"'):
        parse_multiuser_model(data)
