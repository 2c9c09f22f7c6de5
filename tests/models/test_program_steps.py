"""Stepwise programs (pufferfish.models.programs.steps): the engine merges the paths that reach
the same state with the same live noise.  Every law is compared with the plain engine running
an independently written loop (one run per path, nothing merged), and the programs below whose
paths must NOT be merged (same constraints, another Python state) would give another law if
the merge ignored what it must not."""

from __future__ import annotations

import json
import types
from fractions import Fraction
from itertools import product

import pytest

import pufferfish.examples
from pufferfish.models.programs import (ProgramError, coin, geometric, load_program,
                                        one_sided_geometric, program_distribution)
from pufferfish.models.programs.steps import stepwise

BENCHMARKS = pufferfish.examples.example_path("dp_benchmarks/rnm1.json").parent


# --- report noisy max written as a plain loop, independently of the shipped files ---------------

def plain_rnm1(queries, alpha):
    best_index, best = None, None
    for i, q in enumerate(queries):
        value = q + geometric(alpha)
        if best is None or value > best:
            best_index, best = i, value
    return best_index


def plain_rnm2(queries, alpha):
    best_index, best = None, None
    for i, q in enumerate(queries):
        value = q + one_sided_geometric(alpha)
        if best is None or value > best:
            best_index, best = i, value
    return best_index


def plain_rnm3(queries, alpha, low, high):
    best = None
    for q in queries:
        value = q + geometric(alpha)
        if best is None or value > best:
            best = value
    return max(low, min(best, high))


def plain_rnm4(queries, alpha, low, high):
    best = None
    for q in queries:
        value = q + one_sided_geometric(alpha)
        if best is None or value > best:
            best = value
    return max(low, min(best, high))


PLAIN = {"rnm1": plain_rnm1, "rnm2": plain_rnm2, "rnm3": plain_rnm3, "rnm4": plain_rnm4}


def shipped(name: str):
    spec = json.loads((BENCHMARKS / f"{name}.json").read_text())["mechanisms"][name]["program"]
    return load_program(spec["file"], spec["function"], BENCHMARKS), spec["arguments"]


def unmerged(program):
    """The same function without its stepwise declaration (the plain engine runs it)."""
    function = getattr(program, "__wrapped__", program)
    return types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)


@pytest.mark.parametrize("name", ["rnm1", "rnm2", "rnm3", "rnm4"])
@pytest.mark.parametrize("m", [1, 2, 3])
def test_shipped_report_noisy_max_laws_equal_the_plain_engine(name, m):
    program, arguments = shipped(name)
    assert getattr(program, "__wrapped__", program).stepwise is not None
    for dataset in product(range(3), repeat=m):
        merged = dict(program_distribution(program, dataset, arguments).items())
        assert merged == dict(program_distribution(PLAIN[name], dataset, arguments).items())
        assert merged == dict(program_distribution(unmerged(program), dataset,
                                                   arguments).items())


@pytest.mark.parametrize("name", ["rnm1", "rnm3"])
def test_shipped_report_noisy_max_at_four_answers(name):
    program, arguments = shipped(name)
    for dataset in [(0, 1, 2, 1), (2, 2, 0, 2), (1, 0, 0, 1)]:
        assert (dict(program_distribution(program, dataset, arguments).items())
                == dict(program_distribution(PLAIN[name], dataset, arguments).items()))


def test_merging_takes_fewer_runs_than_paths():
    # report noisy max over 8 answers has 2^7 = 128 comparison paths; merged, about 70 runs
    program, arguments = shipped("rnm1")
    dataset = (0, 1, 2, 0, 1, 2, 0, 1)
    with pytest.raises(ProgramError, match="paths"):
        program_distribution(PLAIN["rnm1"], dataset, arguments, max_runs=100)
    law = program_distribution(program, dataset, arguments, max_runs=100)
    assert dict(law.items()) == dict(program_distribution(PLAIN["rnm1"], dataset,
                                                          arguments).items())


# --- programs whose paths must not be merged -----------------------------------------------------

def fold(start, step, finish):
    """A plain program running the fold, declared stepwise."""
    @stepwise(start, step, finish)
    def program(data):
        state = start(data)
        for i, entry in enumerate(data):
            state = step(state, i, entry)
        return finish(state)
    return program


def plain_fold(start, step, finish):
    def program(data):
        state = start(data)
        for i, entry in enumerate(data):
            state = step(state, i, entry)
        return finish(state)
    return program


def both(start, step, finish, dataset):
    merged = program_distribution(fold(start, step, finish), dataset)
    plain = program_distribution(plain_fold(start, step, finish), dataset)
    return dict(merged.items()), dict(plain.items())


def test_another_python_state_with_the_same_constraints_is_not_merged():
    # a coin labels the path; the noise and its comparisons do not depend on the label
    def start(data):
        return 0, None

    def step(state, i, entry):
        heads, best = state
        value = entry + geometric("1/2")
        heads += coin("1/3")
        return heads, value if best is None or value > best else best

    def finish(state):
        return [state[0], state[1] >= 2]

    merged, plain = both(start, step, finish, (0, 2, 1))
    assert merged == plain
    assert len(merged) == 8  # 0..3 heads, times the comparison


def test_equal_values_of_another_type_are_not_merged():
    def start(data):
        return None

    def step(state, i, entry):
        return True if entry + geometric("1/2") >= 1 else 1  # True == 1 in Python

    def finish(state):
        return type(state).__name__

    merged, plain = both(start, step, finish, (0, 1))
    assert merged == plain
    assert sorted(merged.values()) == [Fraction(1, 3), Fraction(2, 3)]  # Pr[Z ≥ 0] = 2/3


def test_lists_and_tuples_are_not_merged():
    def start(data):
        return None

    def step(state, i, entry):
        return [entry] if coin("1/4") else (entry,)

    def finish(state):
        return isinstance(state, list)

    merged, plain = both(start, step, finish, (5, 6))
    assert merged == plain
    assert sorted(merged.values()) == [Fraction(1, 4), Fraction(3, 4)]


def test_noisy_values_with_another_offset_or_sign_are_not_merged():
    def start(data):
        return geometric("1/2")

    def step(state, i, entry):
        if coin("1/2"):
            return state + entry          # the same variable, another offset
        return -state if coin("1/2") else state

    def finish(state):
        return state >= 1

    merged, plain = both(start, step, finish, (1, 2))
    assert merged == plain


def test_a_live_value_dropped_after_a_comparison_keeps_its_mass():
    # the carried law of x has total Pr[x ≥ y] < 1: dropping x must not count it as 1
    def start(data):
        return "start", geometric("1/2")

    def step(state, i, entry):
        if i == 0:
            return ("win" if state[1] >= entry + geometric("1/3") else "lose"), state[1]
        return state[0]

    def finish(state):
        return state

    merged, plain = both(start, step, finish, (1, 0))
    assert merged == plain
    assert sum(merged.values()) == 1


def test_states_with_disjoint_supports_are_not_merged_into_a_gap():
    # ("far", x) is reached with x ≥ 3 and with x ≤ −3: merged into one law, the hull would let
    # the next step explore −3 < x < 3, an outcome of probability 0 that the plain form never
    # runs (here it raises)
    def start(data):
        return geometric("1/2")

    def step(state, i, entry):
        if i == 0:
            if state >= 3 or state <= -3:
                return "far", state
            return "near", 0
        if state[0] == "far" and state[1] < 3 and state[1] > -3:
            raise AssertionError("an outcome of probability 0 was explored")
        return state[0]

    merged, plain = both(start, step, lambda state: state, (0, 0))
    assert merged == plain
    assert sorted(merged.values()) == [Fraction(1, 6), Fraction(5, 6)]


def test_live_values_compared_with_each_other_fall_back_to_the_plain_form():
    def start(data):
        return geometric("1/2"), geometric("1/2")

    def step(state, i, entry):
        x, y = state
        return (x, y) if x + entry >= y else (y, x)  # both stay live, now linked

    def finish(state):
        return state[0] >= state[1]

    merged, plain = both(start, step, finish, (0, 1))
    assert merged == plain


def test_a_state_outside_the_grammar_is_refused():
    program = fold(lambda data: {}, lambda state, i, entry: state, lambda state: 0)
    with pytest.raises(ProgramError, match="state of a stepwise program"):
        program_distribution(program, (1,))


def test_a_step_with_hidden_state_is_refused():
    calls = []

    def step(state, i, entry):
        calls.append(i)
        return state + (len(calls) % 2) + coin("1/2")

    program = fold(lambda data: 0, step, lambda state: state)
    with pytest.raises(ProgramError, match="not deterministic"):
        program_distribution(program, (1, 2))


def test_steps_shared_across_datasets_and_arguments_keep_them_apart():
    # what a step does from a node is memoised across calls: entries of another type and other
    # arguments must not reuse it
    def start(data, shift):
        return 0

    def step(state, i, entry, shift):
        return state + (entry + shift + geometric("1/2") >= 1) + (type(entry) is bool)

    def finish(state, shift):
        return state

    @stepwise(start, step, finish)
    def program(data, shift):
        state = start(data, shift)
        for i, entry in enumerate(data):
            state = step(state, i, entry, shift)
        return finish(state, shift)

    def plain(data, shift):
        state = start(data, shift)
        for i, entry in enumerate(data):
            state = step(state, i, entry, shift)
        return finish(state, shift)

    for dataset in [(1, 0), (True, 0), (1, 1), (True, 1)]:
        for shift in (0, 1, 0):
            assert (dict(program_distribution(program, dataset, {"shift": shift}).items())
                    == dict(program_distribution(plain, dataset, {"shift": shift}).items()))
