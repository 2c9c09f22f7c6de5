"""Property tests over random small rational models (DESIGN.md "Tests and evidence").

Models: 2–3 binary attributes, random rational kernels with 2–4 outputs (some probabilities 0),
random rational priors (table and independent, some zeros), entry secret pairs.  Properties:

* post-processing never increases the Pufferfish level (``000_65109fe28ca61d17.txt`` §2.2, after
  Definition 5) nor the DP level (§2.1, post-processing invariance);
* composing mechanisms never exceeds the sum of their DP levels (§2.1, linear composition):
  exactly, the joint ratio is at most the product of the ratios;
* the structured joint/accumulate path agrees with an independent brute-force Fraction
  computation of ``Pr[ω | s, θ]`` (Definition 5) and of the posteriors (Definition 4);
* the integer :class:`KernelTable` agrees with ``mechanism.distribution``.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pufferfish.models.distribution import Distribution
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import PostProcessed, TableMechanism, compose
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY
from pufferfish.models.priors import IndependentPrior, TablePrior
from pufferfish.models.secrets import entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.verify.privacy.composition import product_of_ratios
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.privacy.joint import accumulate
from pufferfish.verify.privacy.leakage import leakage
from pufferfish.verify.privacy.pufferfish import pufferfish_level, ratio_key
from pufferfish.verify.privacy.supports import prior_supports

F = Fraction
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------------------------
# Strategies


@st.composite
def rational_distribution(draw, outcomes, max_weight: int = 4) -> Distribution:
    """A distribution over ``outcomes`` with integer weights 0..max_weight (not all zero)."""
    weights = draw(st.lists(st.integers(0, max_weight), min_size=len(outcomes),
                            max_size=len(outcomes)).filter(lambda w: sum(w) > 0))
    total = sum(weights)
    return Distribution({o: F(w, total) for o, w in zip(outcomes, weights)})


@st.composite
def universes(draw) -> Universe:
    n = draw(st.integers(2, 3))
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


@st.composite
def kernels(draw, universe: Universe, name: str = "m") -> TableMechanism:
    width = draw(st.integers(2, 4))
    outputs = [f"{name}{k}" for k in range(width)]
    return TableMechanism(name, {d: draw(rational_distribution(outputs))
                                 for d in universe.datasets()})


@st.composite
def priors(draw, universe: Universe) -> dict:
    datasets = list(universe.datasets())
    table = TablePrior("table", draw(rational_distribution(datasets, 3)))
    marginals = tuple(draw(rational_distribution([0, 1], 3)) for _ in universe.attributes)
    found = {"table": table, "independent": IndependentPrior("independent", universe.attributes,
                                                             marginals)}
    if draw(st.booleans()):
        del found["independent"]
    return found


@st.composite
def models(draw) -> tuple[PufferfishModel, TableMechanism]:
    universe = draw(universes())
    secrets = entry_secrets(universe)
    model = PufferfishModel(universe, draw(priors(universe)), secrets,
                            entry_pairs(universe, secrets))
    return model, draw(kernels(universe))


@st.composite
def post_processors(draw, mechanism: TableMechanism) -> PostProcessed:
    outputs = sorted({o for dist in mechanism.rows.values() for o in dist.support})
    targets = [f"y{k}" for k in range(draw(st.integers(1, 3)))]
    mapping = {o: draw(rational_distribution(targets)) for o in outputs}
    return PostProcessed("post", mechanism, mapping)


# --------------------------------------------------------------------------------------------
# Independent brute force (Definitions 4 and 5 read literally)


def brute_force_conditional(model: PufferfishModel, mechanism, prior_name: str, secret,
                            output) -> Fraction | None:
    """``Pr[M(Data) = ω | s, θ]`` by summing over every dataset of 𝒰; None if ``Pr[s|θ] = 0``."""
    prior = model.priors[prior_name]
    mass = F(0)
    joint = F(0)
    for dataset in model.universe.datasets():
        if not secret.holds(dataset):
            continue
        weight = prior.probability(dataset)
        mass += weight
        joint += weight * mechanism.distribution(dataset).prob(output)
    return None if mass == 0 else joint / mass


def brute_force_outputs(model: PufferfishModel, mechanism) -> set:
    return {o for d in model.universe.datasets() for o in mechanism.distribution(d).support}


def brute_force_pufferfish_ratio(model: PufferfishModel, mechanism):
    """``max(1, sup Pr[ω|s_i,θ] / Pr[ω|s_j,θ])`` over Def. 5's triples, by enumeration."""
    best = F(1)
    outputs = brute_force_outputs(model, mechanism)
    for prior_name in model.priors:
        for pair in model.pairs:
            for first, second in pair.directions():
                for output in outputs:
                    p_first = brute_force_conditional(model, mechanism, prior_name, first, output)
                    p_second = brute_force_conditional(model, mechanism, prior_name, second,
                                                       output)
                    if p_first is None or p_second is None or p_first == 0:
                        continue
                    if p_second == 0:
                        return INFINITY
                    best = max(best, p_first / p_second)
    return best


def brute_force_dp_ratio(universe: Universe, mechanism):
    """``max(1, max Pr[M(D)=ω]/Pr[M(D')=ω])`` over datasets differing in one entry."""
    datasets = list(universe.datasets())
    best = F(1)
    for d in datasets:
        for e in datasets:
            if sum(a != b for a, b in zip(d, e)) != 1:
                continue
            for output, p in mechanism.distribution(d).items():
                q = mechanism.distribution(e).prob(output)
                if q == 0:
                    return INFINITY
                best = max(best, p / q)
    return best


def brute_force_worst_shift(model: PufferfishModel, mechanism) -> Fraction:
    """``max |Pr[s|ω,θ] − Pr[s|θ]|`` over secrets, priors and outputs of positive probability."""
    worst = F(0)
    outputs = brute_force_outputs(model, mechanism)
    for prior in model.priors.values():
        for secret in model.secrets.values():
            prior_s = sum((prior.probability(d) for d in model.universe.datasets()
                           if secret.holds(d)), F(0))
            for output in outputs:
                total = sum((prior.probability(d) * mechanism.distribution(d).prob(output)
                             for d in model.universe.datasets()), F(0))
                if total == 0:
                    continue
                with_s = sum((prior.probability(d) * mechanism.distribution(d).prob(output)
                              for d in model.universe.datasets() if secret.holds(d)), F(0))
                worst = max(worst, abs(with_s / total - prior_s))
    return worst


# --------------------------------------------------------------------------------------------
# Properties


@SETTINGS
@given(data=st.data())
def test_postprocessing_never_increases_pufferfish_level(data):
    """§2.2: "Like differential privacy, Pufferfish satisfies post-processing invariance"."""
    model, mechanism = data.draw(models())
    post = data.draw(post_processors(mechanism))
    before = pufferfish_level(model, mechanism).level_ratio
    after = pufferfish_level(model, post).level_ratio
    assert ratio_key(after) <= ratio_key(before)


@SETTINGS
@given(data=st.data())
def test_postprocessing_never_increases_dp_level(data):
    """§2.1: post-processing invariance of ε-DP (per-entry neighbours, Definition 2)."""
    model, mechanism = data.draw(models())
    post = data.draw(post_processors(mechanism))
    before = dp_level(model.universe, mechanism).max_ratio
    after = dp_level(model.universe, post).max_ratio
    assert ratio_key(after) <= ratio_key(before)


@SETTINGS
@given(data=st.data())
def test_composition_never_exceeds_sum_of_dp_levels(data):
    """§2.1 linear composition: ε(M1, M2) <= ε1 + ε2, i.e. joint ratio <= r1 · r2 exactly."""
    universe = data.draw(universes())
    first = data.draw(kernels(universe, "a"))
    second = data.draw(kernels(universe, "b"))
    joint = dp_level(universe, compose([first, second])).max_ratio
    bound = product_of_ratios([dp_level(universe, first).max_ratio,
                               dp_level(universe, second).max_ratio])
    assert ratio_key(joint) <= ratio_key(bound)


@SETTINGS
@given(data=st.data())
def test_joint_accumulate_agrees_with_brute_force(data):
    """The one-pass integer accumulation equals Pr[ω|s,θ] summed over 𝒰 with Fractions."""
    model, mechanism = data.draw(models())
    supports = prior_supports(model)
    table = KernelTable.build(mechanism, list(model.universe.datasets()))
    secrets = list(model.secrets.values())
    for prior_name, support in supports.items():
        joint = accumulate(prior_name, support, table, secrets)
        scale = joint.total_mass
        for secret in secrets:
            brute_mass = sum((model.priors[prior_name].probability(d)
                              for d in model.universe.datasets() if secret.holds(d)), F(0))
            assert F(joint.mass[secret.name], scale) == brute_mass
            for o, output in enumerate(table.outputs):
                expected = brute_force_conditional(model, mechanism, prior_name, secret, output)
                if expected is None:
                    assert joint.mass[secret.name] == 0
                else:
                    assert joint.conditional(secret.name, o) == expected


@SETTINGS
@given(data=st.data())
def test_pufferfish_level_agrees_with_brute_force(data):
    model, mechanism = data.draw(models())
    result = pufferfish_level(model, mechanism)
    event("level inf" if result.level_ratio == INFINITY
          else "level 0" if result.level_ratio == 1 else "level finite > 0")
    event(f"skipped directions: {bool(result.skipped)}")
    assert result.level_ratio == brute_force_pufferfish_ratio(model, mechanism)
    w = result.witness
    if w is not None and w.output is not None:
        assert w.p_first == brute_force_conditional(model, mechanism, w.prior,
                                                    model.secrets[w.first], w.output)
        assert w.p_second == brute_force_conditional(model, mechanism, w.prior,
                                                     model.secrets[w.second], w.output)


@SETTINGS
@given(data=st.data())
def test_dp_level_agrees_with_brute_force(data):
    model, mechanism = data.draw(models())
    assert dp_level(model.universe, mechanism).max_ratio == brute_force_dp_ratio(
        model.universe, mechanism)


@SETTINGS
@given(data=st.data())
def test_leakage_agrees_with_brute_force(data):
    """Definition 4: the worst posterior shift, and zero leakage iff it is 0."""
    model, mechanism = data.draw(models())
    result = leakage(model, mechanism)
    expected = brute_force_worst_shift(model, mechanism)
    assert result.worst_shift == expected
    assert result.zero_leakage is (expected == 0)


@SETTINGS
@given(data=st.data())
def test_kernel_table_agrees_with_distribution(data):
    model, mechanism = data.draw(models())
    datasets = list(model.universe.datasets())
    table = KernelTable.build(mechanism, datasets)
    outputs = brute_force_outputs(model, mechanism)
    assert set(table.outputs) == outputs
    for d in datasets:
        assert sum(table.rows[table.dataset_index[d]]) == table.denominator
        for output in outputs:
            assert table.prob(d, output) == mechanism.distribution(d).prob(output)
            o = table.output_index[output]
            assert F(table.rows[table.dataset_index[d]][o], table.denominator) == \
                mechanism.distribution(d).prob(output)
