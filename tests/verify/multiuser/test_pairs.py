"""Tests of pufferfish.verify.multiuser.pairs: a requested pair set without a pair for a protected
user is refused with a located error (001_3a97785a86d61e37.txt §4, the pair sets), never checked
vacuously."""

from __future__ import annotations

import json
from fractions import Fraction as Q

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.models.files.multiuser_file import load_multiuser_model
from pufferfish.models.multiuser import MultiUserModel, User, bernoulli
from pufferfish.proofs_check.paper_001.instances import (paper_distribution_model,
                                                        paper_table2_users, paper_value_model)
from pufferfish.verify.multiuser.calibration import calibrate
from pufferfish.verify.multiuser.pairs import pair_conditionals, require_pairs
from pufferfish.verify.numerics.certified import parse_budget

ONE = parse_budget("1")


def _system(target: User) -> MultiUserModel:
    return MultiUserModel(paper_table2_users() + (target,), ("u4",))


@pytest.mark.parametrize("target, pair_set, path, words", [
    (User("u4", Q(1, 2), bernoulli(Q(1, 5))), "PQ", "users.3.alternative",
     "no alternative distribution Q"),
    (User("u4", Q(1, 2), None, None, (Q(3), Q(5)), ((Q(5), Q(3)),)), "P-absent",
     "users.3.distribution", "no distribution P"),
    (User("u4", Q(1, 2), None, None, (Q(3), Q(5)), ((Q(5), Q(3)),)), "PQ",
     "users.3.distribution", "no distribution P"),
    (User("u4", Q(1, 2), bernoulli(Q(1))), "ab", "users.3.distribution",
     "single value 1"),
    (User("u4", Q(1, 2), bernoulli(Q(1, 2)), None, (), ()), "ab", "users.3.value_pairs",
     "value_pairs list is empty"),
    (User("u4", Q(1, 2), None, None, (Q(3),)), "ab", "users.3.value_pairs",
     "neither a distribution P nor value_pairs"),
    (User("u4", Q(1, 2), None, None, (Q(3),)), "a-absent", "users.3.present_values",
     "neither a distribution P nor present_values"),
    (User("u4", Q(1, 2), bernoulli(Q(1, 2)), None, (), None, ()), "a-absent",
     "users.3.present_values", "present_values list is empty"),
])
def test_empty_pair_set_is_refused_naming_user_and_missing_entry(target, pair_set, path, words):
    model = _system(target)
    with pytest.raises(ModelError) as error:
        require_pairs(model, pair_set)
    assert error.value.path == path
    assert "'u4'" in str(error.value) and words in str(error.value)
    assert "nothing would be checked" in str(error.value)
    with pytest.raises(ModelError) as error:
        calibrate(model, pair_set, ONE, minimal=False)
    assert error.value.path == path


def test_value_model_has_no_pq_pairs_and_calibrate_says_so():
    """Issue 13 defect 9: --pairs PQ on a target without P, Q used to report 0 pairs and θ = 0."""
    with pytest.raises(ModelError, match="pair set PQ has no pair for the protected user 'u4'"):
        calibrate(paper_value_model(), "PQ", ONE)


def test_pair_set_error_path_points_into_the_file(tmp_path):
    data = {"multiuser_model": 1,
            "users": [{"name": "a", "distribution": {"0": "1/2", "1": "1/2"}},
                      {"name": "b", "presence": "1/2", "distribution": {"0": "1/2", "1": "1/2"}}],
            "targets": ["b"]}
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    model = load_multiuser_model(path)
    with pytest.raises(ModelError) as error:
        calibrate(model, "PQ", ONE)
    assert error.value.path == "users.1.alternative"
    data["users"][1]["alternative"] = {"0": "1/4", "1": "3/4"}
    path.write_text(json.dumps(data))
    assert calibrate(load_multiuser_model(path), "PQ", ONE, minimal=False).holds is True


def test_every_target_needs_a_pair_not_only_one():
    """Two protected users, only one with an alternative: the other one is named."""
    users = paper_table2_users()[:2] + (User("u3", Q(1), bernoulli(Q(1, 2)), bernoulli(Q(1, 4))),
                                        User("u4", Q(1, 2), bernoulli(Q(1, 5))))
    model = MultiUserModel(users, ("u3", "u4"))
    with pytest.raises(ModelError, match="'u4'"):
        require_pairs(model, "PQ")
    assert len(require_pairs(model, "P-absent")) == 2


def test_vacuous_pairs_are_still_reported_not_refused():
    """A pair whose secret has prior probability 0 exists (it is vacuous, and listed as such)."""
    model = paper_distribution_model(presence=Q(1))
    assert len(require_pairs(model, "P-absent")) == 1
    pairs, vacuous = pair_conditionals(model, "P-absent")
    assert not pairs and len(vacuous) == 1
