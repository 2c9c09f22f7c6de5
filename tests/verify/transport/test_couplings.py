"""Tests of pufferfish.verify.transport.couplings: the one validator of finite measures on the
line and the couplings shared by W∞ (002_e1f2e9a9937b8cda.txt §3) and Kantorovich
(001_3a97785a86d61e37.txt §2, equation (6))."""

from __future__ import annotations

from fractions import Fraction as Q

import pytest

from pufferfish.models.errors import ModelError
from pufferfish.verify.transport.couplings import (atoms, comonotone_coupling,
                                                   greedy_partial_coupling, marginal,
                                                   verify_coupling)


def test_atoms_merges_sorts_and_drops_zero_mass():
    assert atoms({"1/2": "1/4", 0: "1/2", "0.5": "1/4", 3: 0}) == ((Q(0), Q(1, 2)), (Q(1, 2), Q(1, 2)))


@pytest.mark.parametrize("raw, normalized, path, words", [
    ({0: 0.5, 1: "1/2"}, True, "mu.0", "float"),
    ({0.5: "1"}, True, "mu.0.5", "float"),
    ({0: "-1/2", 1: "3/2"}, True, "mu.0", "negative"),
    ({0: "1/2"}, True, "mu", "sum to 1/2"),
    ({0: 0}, False, "mu", "no mass"),
    ({}, False, "mu", "no mass"),
    ([0, 1], True, "mu", "mapping"),
])
def test_atoms_refuses_bad_input_with_located_errors(raw, normalized, path, words):
    with pytest.raises(ModelError) as error:
        atoms(raw, "mu", normalized)
    assert error.value.path == path and words in str(error.value)


def test_unnormalized_measures_keep_their_mass():
    assert atoms({0: 2, 1: "1/2"}, "m", normalized=False) == ((Q(0), Q(2)), (Q(1), Q(1, 2)))


def test_comonotone_and_partial_couplings_verify():
    mu, nu = atoms({0: "1/2", 1: "1/2"}), atoms({1: "1/4", 3: "3/4"})
    coupling = comonotone_coupling(mu, nu)
    assert verify_coupling(coupling, mu, nu, Q(3))
    assert not verify_coupling(coupling, mu, nu, Q(2))
    assert marginal(coupling, 0) == dict(mu) and marginal(coupling, 1) == dict(nu)
    partial = greedy_partial_coupling(mu, nu, Q(2))
    assert verify_coupling(partial, mu, nu, Q(2), Q(3, 4))
