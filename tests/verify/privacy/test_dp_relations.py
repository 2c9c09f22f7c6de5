"""DP levels under the scanned neighbour relations (``linf:K``, ``l1:K``, ``add_remove``, listed
pairs): Definitions 1–3 of ``000_65109fe28ca61d17.txt`` §2.1 with these neighbours.

Every level is checked against a value computed by hand or against an independent brute force:
all ordered pairs of the universe, adjacency written here from the definitions, every ratio as a
``Fraction``.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.mechanisms import (FunctionMechanism, GeometricNoise, Query, QueryMechanism,
                                          RandomizedResponse, TableMechanism)
from pufferfish.models.neighbours import (AddRemove, AnswerDistance, ListedPairs,
                                          StandardRelation, parse_neighbours)
from pufferfish.models.numbers import INFINITY
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.dp import dp_level, dp_levels_by_relation

F = Fraction


def answers(width: int, values=(0, 1, 2)) -> Universe:
    return Universe.product([f"q{i}" for i in range(1, width + 1)], [list(values)] * width)


def noisy_sum(u: Universe, high: int) -> QueryMechanism:
    return QueryMechanism("sum", u, Query("sum", u), GeometricNoise(F(1, 2), 0, high))


# --- the definitions, written independently -------------------------------------------------

def linf(bound):
    return lambda d, e: d != e and max(abs(a - b) for a, b in zip(d, e)) <= bound


def l1(bound):
    return lambda d, e: 0 < sum(abs(a - b) for a, b in zip(d, e)) <= bound


def monotone(bound):
    """linf within ``bound``, every answer moving the same way (written independently of the
    relation: the differences' signs)."""
    def adjacent(d, e):
        signs = {(b > a) - (b < a) for a, b in zip(d, e)} - {0}
        return d != e and len(signs) == 1 and max(abs(a - b) for a, b in zip(d, e)) <= bound
    return adjacent


def add_remove(absent, records):
    def adjacent(d, e):
        differing = [r for r in records if any(d[i] != e[i] for i in r)]
        if len(differing) != 1:
            return False
        record = differing[0]
        states = set()
        for dataset in (d, e):
            gone = [dataset[i] == absent for i in record]
            states.add("absent" if all(gone) else "present" if not any(gone) else "partial")
        return states == {"absent", "present"}
    return adjacent


def brute_force(datasets, mechanism, adjacent):
    """(level, ordered pairs) over every ordered pair of ``datasets`` the predicate relates."""
    best, pairs = F(1), 0
    for d in datasets:
        for e in datasets:
            if not adjacent(d, e):
                continue
            pairs += 1
            first, second = mechanism.distribution(d), mechanism.distribution(e)
            for output, p in first.items():
                q = second.prob(output)
                ratio = INFINITY if q == 0 else p / q
                if ratio == INFINITY or (best != INFINITY and ratio > best):
                    best = ratio
    return best, pairs


def attains(result, mechanism) -> bool:
    """The witness is a pair of the relation whose ratio on its output is the level."""
    p = mechanism.prob(result.dataset, result.output)
    q = mechanism.prob(result.neighbour, result.output)
    assert (p, q) == (result.p_dataset, result.p_neighbour)
    return (INFINITY if q == 0 else p / q) == result.max_ratio


def random_table(u: Universe, seed: int, outputs=("a", "b", "c")) -> TableMechanism:
    generator = random.Random(seed)
    rows = {}
    for d in u.datasets():
        weights = [generator.randint(0, 4) for _ in outputs]
        weights[generator.randrange(len(outputs))] += 1
        rows[d] = Distribution({o: F(w, sum(weights)) for o, w in zip(outputs, weights) if w})
    return TableMechanism("table", rows)


# --- levels computed by hand ------------------------------------------------------------------

def test_noisy_sum_on_three_answers_by_hand():
    """Sum of {0,1,2}^3 plus two-sided geometric noise α = 1/2 clamped to [0, 6]: a change of the
    sum by Δ costs exactly 2^Δ.  linf:1 moves it by up to 3, l1:K by up to K."""
    u = answers(3)
    total = noisy_sum(u, 6)
    expected = {"linf:1": 8, "l1:1": 2, "l1:2": 4, "l1:3": 8, "linf:2": 64, "entry": 4}
    for relation, ratio in expected.items():
        result = dp_level(u, total, relation)
        assert result.max_ratio == ratio, relation
        assert attains(result, total)
    # the first worst pair of the scan: dataset by dataset, neighbours in domain order
    first = dp_level(u, total, "linf:1")
    assert (first.dataset, first.neighbour, first.output) == ((0, 0, 0), (1, 1, 1), 0)
    assert first.relation == "linf:1" and first.to_dict()["neighbours"] == "linf:1"


def test_pairs_checked_is_the_number_of_ordered_pairs():
    """linf:1 on {0,1,2}^3: each answer has 2, 3, 2 values within 1, so (2+3+2)^3 − 27 = 316
    ordered pairs; l1:1: one answer moves by 1 (4 ordered value pairs), 3·4·9 = 108."""
    u = answers(3)
    total = noisy_sum(u, 6)
    assert dp_level(u, total, "linf:1").pairs_checked == 316
    assert dp_level(u, total, "l1:1").pairs_checked == 108
    assert AnswerDistance("linf", F(1)).scan_size(u) == 316
    assert AnswerDistance("l1", F(1)).scan_size(u) == 108


@pytest.mark.parametrize("bound", [F(1, 2), F(1), F(2), F(5)])
def test_monotone_pairs_are_the_brute_force_pairs_in_scan_order(bound):
    """Every ordered pair whose answers all move the same way by at most the bound, each once,
    dataset by dataset and neighbours in domain order, counted in closed form; on an explicit
    universe, only its own datasets."""
    u = Universe.product(["q1", "q2", "q3"], [[0, 1, 2], [0, F(1, 2), 2], [-1, 0]])
    relation = AnswerDistance("monotone", bound)
    adjacent = monotone(bound)
    listed = list(relation.ordered_pairs(u))
    expected = [(d, e) for d in u.datasets() for e in u.datasets() if adjacent(d, e)]
    assert listed == expected and relation.scan_size(u) == len(expected)
    kept = [d for i, d in enumerate(u.datasets()) if i % 3 != 1]
    explicit = Universe.listed(u.attributes, u.domains, kept)
    assert set(relation.ordered_pairs(explicit)) == {
        (d, e) for d in kept for e in kept if adjacent(d, e)}


def test_randomized_response_on_answers_by_hand():
    """k-ary randomized response keeping 1/2 (others 1/4 each): 2 per changed answer."""
    u = answers(3)
    rr = RandomizedResponse("rr", u, F(1, 2))
    assert dp_level(u, rr, "linf:1").max_ratio == 8
    assert dp_level(u, rr, "l1:2").max_ratio == 4
    assert dp_level(u, rr, "l1:1").max_ratio == 2


def test_rational_bounds_and_answers():
    u = Universe.product(["q1", "q2"], [[0, F(1, 2), 1]] * 2)
    total = QueryMechanism("half", u, Query("sum", u))   # deterministic: a change is infinite
    result = dp_level(u, total, "linf:1/2")
    assert result.max_ratio == INFINITY and attains(result, total)
    assert AnswerDistance("linf", F(1, 2)).scan_size(u) == (2 + 3 + 2) ** 2 - 9


# --- an independent brute force ---------------------------------------------------------------

@pytest.mark.parametrize("relation, adjacent", [
    ("linf:1", linf(1)), ("linf:2", linf(2)), ("l1:1", l1(1)), ("l1:2", l1(2)),
    ("l1:3/2", l1(F(3, 2))), ("monotone:1", monotone(1)), ("monotone:2", monotone(2))])
@pytest.mark.parametrize("seed", range(3))
def test_answer_relations_match_the_brute_force(relation, adjacent, seed):
    u = answers(3)
    for mechanism in (random_table(u, seed), RandomizedResponse("rr", u, F(3, 5)),
                      noisy_sum(u, 4)):
        result = dp_level(u, mechanism, relation)
        level, pairs = brute_force(list(u.datasets()), mechanism, adjacent)
        assert result.max_ratio == level, (relation, mechanism)
        assert attains(result, mechanism) and adjacent(result.dataset, result.neighbour)
        if level != INFINITY:
            assert result.pairs_checked == pairs


def test_add_remove_matches_the_brute_force_and_counts():
    """Count of the value 1 plus geometric noise: adding or removing a record moves it by at
    most 1 (2 = 1/α); per-entry neighbours may turn a 1 into a 0 and back, also 1."""
    records = [(0,), (1,), (2,)]
    u = Universe.product(["p1", "p2", "p3"], [[0, 1, "-"]] * 3)
    count = QueryMechanism("count", u, Query("count", u), GeometricNoise(F(1, 2), 0, 3))
    relation = parse_neighbours("add_remove:-", u)
    result = dp_level(u, count, relation)
    level, pairs = brute_force(list(u.datasets()), count, add_remove("-", records))
    assert result.max_ratio == level == 2
    # a record: present in 2 of its 3 values; 2·2·9 ordered pairs per record
    assert relation.scan_size(u) == pairs == 3 * 2 * 2 * 9
    assert result.pairs_checked == pairs
    assert result.relation == "add_remove:-"


def test_add_remove_reads_records_and_skips_partly_absent_ones():
    u = Universe.product(["a", "b", "c"], [[0, 1, "-"]] * 3, records=[[0, 1], [2]])
    relation = AddRemove("-")
    adjacent = add_remove("-", [(0, 1), (2,)])
    listed = list(relation.ordered_pairs(u))
    assert len(listed) == len(set(listed)) == relation.scan_size(u)
    assert set(listed) == {(d, e) for d in u.datasets() for e in u.datasets() if adjacent(d, e)}
    assert (("-", "-", 0), (0, 1, 0)) in listed           # the record {a, b} added whole
    # {a, b} is partly absent in (0, "-", 0): its only neighbour removes the record {c}
    assert [e for d, e in listed if d == (0, "-", 0)] == [(0, "-", "-")]
    table = random_table(u, 7)
    level, _ = brute_force(list(u.datasets()), table, adjacent)
    assert dp_level(u, table, relation).max_ratio == level


def test_listed_pairs_by_hand():
    u = Universe.product(["x", "y"], [[0, 1]] * 2)
    rows = {(0, 0): Distribution({"a": F(3, 4), "b": F(1, 4)}),
            (0, 1): Distribution({"a": F(1, 2), "b": F(1, 2)}),
            (1, 0): Distribution({"a": F(1, 8), "b": F(7, 8)}),
            (1, 1): Distribution({"a": F(1, 2), "b": F(1, 2)})}
    table = TableMechanism("t", rows)
    relation = parse_neighbours({"pairs": [[[0, 0], [0, 1]], [[1, 1], [0, 0]]]}, u)
    result = dp_level(u, table, relation)
    # (0,0) vs (0,1): 3/2 on a, 2 on b (reverse direction); (1,1) vs (0,0): 2 on b from (1,1)
    assert result.max_ratio == 2 and result.pairs_checked == 4
    assert (result.dataset, result.neighbour, result.output) == ((0, 1), (0, 0), "b")
    assert result.relation == "listed pairs (2)"
    assert dp_level(u, table, "entry").max_ratio == 6      # (0,0) vs (1,0) on a


def test_listed_pairs_need_no_enumeration_of_the_universe():
    u = answers(40, (0, 1))
    rr = RandomizedResponse("rr", u, F(3, 4), ["q1", "q2"])
    pair = [[0] * 40, [1, 1] + [0] * 38]
    result = dp_level(u, rr, {"pairs": [pair]}, max_datasets=10)
    assert result.max_ratio == 9 and result.pairs_checked == 2


# --- explicit universes -----------------------------------------------------------------------

def test_explicit_universes_keep_only_their_datasets():
    listed = [(0, 0), (1, 1), (2, 2), (0, 2), (2, 1)]
    u = Universe.listed(["q1", "q2"], [[0, 1, 2]] * 2, listed)
    table = random_table(u, 3)
    for relation, adjacent in (("linf:1", linf(1)), ("l1:2", l1(2))):
        result = dp_level(u, table, relation)
        level, pairs = brute_force(listed, table, adjacent)
        assert result.max_ratio == level and attains(result, table)
        assert adjacent(result.dataset, result.neighbour)


def test_explicit_universe_with_wide_domains_tests_every_pair():
    """40 values per answer and a bound of 30: the rule would generate about 60² candidates per
    dataset, more than the 5·4 ordered pairs of the 5 listed datasets, which are tested."""
    listed = [(0, 0), (10, 20), (39, 39), (5, 35), (30, 10)]
    u = Universe.listed(["q1", "q2"], [list(range(40))] * 2, listed)
    relation = AnswerDistance("linf", F(30))
    assert relation.scan_size(u) == 20
    pairs = set(relation.ordered_pairs(u))
    assert pairs == {(d, e) for d in listed for e in listed if linf(30)(d, e)}
    table = random_table(u, 11)
    assert dp_level(u, table, relation).max_ratio == brute_force(listed, table, linf(30))[0]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.sampled_from(["linf", "l1"]),
       st.sampled_from([F(1, 2), F(1), F(2), F(5, 2)]), st.integers(0, 2**16))
def test_generated_pairs_are_exactly_the_related_pairs(sizes, kind, bound, seed):
    domains = [list(range(size)) for size in sizes]
    u = Universe.product([f"q{i}" for i in range(len(sizes))], domains)
    relation = AnswerDistance(kind, bound)
    adjacent = linf(bound) if kind == "linf" else l1(bound)
    pairs = list(relation.ordered_pairs(u))
    assert len(pairs) == len(set(pairs)) == relation.scan_size(u)
    assert set(pairs) == {(d, e) for d in u.datasets() for e in u.datasets() if adjacent(d, e)}
    generator = random.Random(seed)
    chosen = [d for d in u.datasets() if generator.random() < 0.6] or [next(u.datasets())]
    explicit = Universe.listed(u.attributes, domains, chosen)
    pairs = list(relation.ordered_pairs(explicit))
    assert set(pairs) == {(d, e) for d in chosen for e in chosen if adjacent(d, e)}
    assert len(pairs) <= relation.scan_size(explicit)


# --- kernel keys, several mechanisms, infinite ratios -------------------------------------------

class CountedSum(QueryMechanism):
    """The noisy sum, counting the distributions it computes."""

    def __init__(self, u: Universe) -> None:
        super().__init__("sum", u, Query("sum", u), GeometricNoise(F(1, 2), 0, 6))
        self.computed = 0

    def _compute(self, dataset):
        self.computed += 1
        return super()._compute(dataset)


def test_kernel_keys_do_not_change_the_result():
    """The query mechanism shares one row per answer; the same kernel keyed by the dataset itself
    compares every pair: same level, witness and count of pairs."""
    u = answers(3)
    shared = noisy_sum(u, 6)
    alone = FunctionMechanism("sum", shared.distribution)
    counted = CountedSum(u)
    for relation in ("linf:1", "l1:2", "add_remove:0"):
        fast = dp_level(u, shared, relation)
        slow = dp_level(u, alone, relation)
        assert fast.to_dict() == slow.to_dict()
        dp_level(u, counted, relation)
    assert counted.computed == 7     # one distribution per value of the sum, 0..6


def test_mechanisms_share_one_pass_and_stop_at_infinity():
    u = answers(2)
    exact_sum = QueryMechanism("exact", u, Query("sum", u))
    rr = RandomizedResponse("rr", u, F(1, 2))
    relation = AnswerDistance("linf", F(1))
    infinite, finite = dp_levels_by_relation(u, [exact_sum, rr], relation)
    assert infinite.max_ratio == INFINITY and infinite.pairs_checked == 1
    assert finite.max_ratio == 4 and finite.pairs_checked == relation.scan_size(u) == 40
    assert finite.to_dict() == dp_level(u, rr, relation).to_dict()


def test_budgets():
    u = answers(3)
    total = noisy_sum(u, 6)
    assert dp_level(u, total, "linf:1", parse_budget("log(8)")).budget.relation == "tight"
    assert dp_level(u, total, "linf:1", parse_budget("2")).holds is False      # log 8 > 2
    assert dp_level(u, total, "linf:1", parse_budget("2.1")).holds is True     # log 8 < 2.1


# --- the fast paths are unchanged ----------------------------------------------------------------

def test_standard_relations_as_objects_give_the_same_results():
    u = answers(3)
    for mechanism in (noisy_sum(u, 6), random_table(u, 5)):
        for text, relation in (("entry", StandardRelation("entry")),
                               ("group:2", StandardRelation("group", 2)),
                               ("record", StandardRelation("record"))):
            assert dp_level(u, mechanism, relation) == dp_level(u, mechanism, text)


# --- refusals -----------------------------------------------------------------------------------

def test_too_many_pairs_are_refused_with_the_count():
    u = answers(5)
    total = noisy_sum(u, 10)
    assert dp_level(u, total, "linf:1", max_pairs=16564).max_ratio == 32
    with pytest.raises(TooLargeError, match="16,564 ordered pairs"):
        dp_level(u, total, "linf:1", max_pairs=16563)
    huge = answers(30, range(10))
    with pytest.raises(TooLargeError, match="ordered pairs"):  # counted, never enumerated
        dp_level(huge, noisy_sum(huge, 270), "l1:1")


def test_relations_without_pairs_are_refused():
    u = answers(2)
    with pytest.raises(ModelError, match="no pair to check"):
        dp_level(u, noisy_sum(u, 4), "linf:1/2")
    far = Universe.listed(["q1", "q2"], [[0, 1, 2]] * 2, [(0, 0), (2, 2)])
    with pytest.raises(ModelError, match="no pair to check"):
        dp_level(far, random_table(far, 1), "l1:1")


def test_non_numeric_domains_are_refused():
    u = Universe.product(["a", "b"], [["yes", "no"]] * 2)
    for relation in ("linf:1", "l1:2"):
        with pytest.raises(ModelError, match="numeric query answers.*'yes'"):
            dp_level(u, RandomizedResponse("rr", u, F(3, 4)), relation)


@pytest.mark.parametrize("spec, message", [
    ("linf", "unknown neighbour relation"), ("l1:0", "must be positive"),
    ("add_remove:9", "no attribute's domain holds"), ("hamming:1", "unknown neighbour relation"),
    ({"pairs": [[[0, 0], [0, 3]]]}, r"neighbours\.pairs\.0\.1: value 3"),
    ({"pairs": [[[0, 0], [0, 0]]]}, "not its own neighbour"),
    ({"pairs": [[[0, 0], [0, 1]], [[0, 1], [0, 0]]]}, r"pairs\.1: .*already listed"),
    ({"pairs": []}, "non-empty list"), ({"add_remove": {"absent": 5}}, "not in the domain"),
    ({"other": 1}, "expected")])
def test_bad_relations_are_located(spec, message):
    u = answers(2)
    with pytest.raises(ModelError, match=message):
        parse_neighbours(spec, u)


def test_listed_pairs_outside_an_explicit_universe():
    u = Universe.listed(["q1", "q2"], [[0, 1, 2]] * 2, [(0, 0), (1, 1)])
    with pytest.raises(ModelError, match=r"neighbours\.pairs\.0\.1: dataset \[2, 2\] is not in"):
        ListedPairs((((0, 0), (2, 2)),)).check(u)


def test_all_neighbours_of_a_product_universe_are_in_it():
    u = answers(2)
    for relation in (AnswerDistance("l1", F(2)), AddRemove(0)):
        assert all(d in u and e in u for d, e in relation.ordered_pairs(u))
