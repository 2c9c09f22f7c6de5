"""A small Bayesian network shared by the structured tests."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pufferfish.models.bayesnet import BayesNet


@pytest.fixture
def four_node_network() -> BayesNet:
    """``a → b``, ``a, b → c``, ``c → d`` over {0, 1}: every CPT row differs."""
    return BayesNet.from_cpts(
        {"a": [], "b": ["a"], "c": ["a", "b"], "d": ["c"]},
        {v: (0, 1) for v in "abcd"},
        {"a": {(): {0: "1/3", 1: "2/3"}},
         "b": {(0,): {0: "1/4", 1: "3/4"}, (1,): {0: "3/5", 1: "2/5"}},
         "c": {(x, y): {0: Fraction(1 + x + y, 5), 1: 1 - Fraction(1 + x + y, 5)}
               for x in (0, 1) for y in (0, 1)},
         "d": {(0,): {0: "1/2", 1: "1/2"}, (1,): {0: "1/7", 1: "6/7"}}})
