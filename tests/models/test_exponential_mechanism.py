"""The exponential mechanism of programs: its exact law against the textbook formula
``base^s / Σ base^s'`` in Fraction arithmetic on small scores, and against integer arithmetic
written out by hand on scores of 10^5 (weights of some 10^5 digits)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.models.programs import exponential_mechanism, program_distribution


def textbook(scores: list[tuple[object, int]], base: Fraction) -> dict[object, Fraction]:
    weights = [(candidate, base ** score) for candidate, score in scores]
    total = sum(w for _, w in weights)
    law: dict[object, Fraction] = {}
    for candidate, w in weights:
        law[candidate] = law.get(candidate, Fraction(0)) + w / total
    return law


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=1, max_size=5),
       st.sampled_from([Fraction(2), Fraction(1, 3), Fraction(3, 2), Fraction(1), Fraction(7, 4)]))
def test_small_scores_give_the_textbook_law(scores, base):
    items = [(f"c{i}", s) for i, s in enumerate(scores)]
    law = program_distribution(lambda data: exponential_mechanism(items, base), ())
    assert dict(law.items()) == textbook(items, base)


def test_repeated_candidates_and_scores_add_up():
    items = [("a", 3), ("b", 3), ("a", 5), ("c", 0)]
    law = program_distribution(lambda data: exponential_mechanism(items, "2/3"), ())
    assert dict(law.items()) == textbook(items, Fraction(2, 3))


def test_scores_of_ten_to_the_fifth_against_integer_arithmetic():
    scores = {"low": 0, "middle": 50_000, "high": 100_000}
    law = program_distribution(lambda data: exponential_mechanism(scores, "11/10"), ())
    # independently: weight of score s is 11^s · 10^(100000 − s), over their sum
    weights = {c: 11 ** s * 10 ** (100_000 - s) for c, s in scores.items()}
    total = sum(weights.values())
    for candidate, weight in weights.items():
        p = law.prob(candidate)
        assert p * total == weight  # exact: p = weight / total
    assert law.prob("high") > Fraction(1) - Fraction(1, 10 ** 2000)


def test_invalid_arguments_are_refused():
    for scores, base, message in [({"a": 1}, 0, "positive"), ({}, 2, "at least one"),
                                  ({"a": 1.5}, 2, "integer"), ({"a": True}, 2, "integer")]:
        with pytest.raises(Exception, match=message):
            program_distribution(lambda data: exponential_mechanism(scores, base), ())
