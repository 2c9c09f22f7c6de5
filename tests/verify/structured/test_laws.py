"""The shortcuts of :mod:`pufferfish.verify.structured.laws` against the plain computation they
replace: a split law's low terms read from its terms' coefficients near either end, and a
geometric noise's row read off its kernel."""

from __future__ import annotations

from fractions import Fraction

from flint import fmpq, fmpq_poly
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.models.mechanisms import GeometricNoise
from pufferfish.verify.structured.elimination import EXACT
from pufferfish.verify.structured.laws import GeometricConvolution, SplitLaw

fractions = st.fractions(min_value=-3, max_value=3, max_denominator=7)
polynomials = st.lists(fractions, min_size=0, max_size=12).map(
    lambda cs: fmpq_poly([fmpq(c.numerator, c.denominator) for c in cs]))


@settings(max_examples=300, deadline=None)
@given(terms=st.lists(st.tuples(polynomials, polynomials), min_size=1, max_size=3),
       n=st.integers(-2, 26), point=st.sampled_from([fmpq(1), fmpq(2, 5), fmpq(5, 2)]),
       window=st.sampled_from([0, 1, 3, 24]))
def test_low_terms_near_either_end_equal_the_truncated_product(terms, n, point, window):
    split = SplitLaw(terms)
    split.WINDOW = window          # 0: always the product; 24: always the coefficients
    full = sum((a * b for a, b in terms), fmpq_poly())
    expected = full.truncate(n)(point) if n > 0 else fmpq(0)
    assert split.low(n, point) == expected
    assert split(point) == full(point)


@settings(max_examples=200, deadline=None)
@given(alpha=st.sampled_from([Fraction(0), Fraction(1, 3), Fraction(9, 10)]),
       low=st.integers(-3, 4), width=st.integers(0, 8), codes=st.integers(1, 9),
       offset=st.integers(-2, 2), data=st.data())
def test_a_point_mass_row_equals_the_product_with_the_noise(alpha, low, width, codes, offset,
                                                            data):
    noise = GeometricNoise(alpha, low, low + width)
    convolution = GeometricConvolution(noise, offset, codes, EXACT)
    code = data.draw(st.integers(0, codes - 1))
    assert convolution.point_mass(code) == convolution.apply(EXACT.monomial(Fraction(1), code))


def _chain_sum(width: int) -> dict:
    import json

    from pufferfish.examples import example_path

    data = json.loads(example_path("chain_sum_T60.json").read_text())
    data["attributes"] = [f"x{t}" for t in range(1, width + 1)]
    data["mechanisms"]["sum"]["noise"]["geometric"]["max"] = width
    return data


def _tree(model):
    from pufferfish.verify.structured.elimination import JunctionTree
    from pufferfish.verify.structured.statistics import packed_weights, statistic_of

    statistic = statistic_of(model.mechanisms["sum"], model.universe, 10**7)
    prior = next(iter(model.priors.values()))
    return JunctionTree.of_prior(prior, model.universe, packed_weights(statistic))


def test_the_memory_estimate_is_within_a_small_factor_of_the_messages():
    """:meth:`JunctionTree.message_bytes` against what the calibrated messages hold (numerators,
    common denominator, a word per coefficient): neither below nor far above."""
    from pufferfish.api import load

    for width in (20, 120):
        tree = _tree(load(_chain_sum(width)))
        held = sum(sum(int(c).bit_length() for c in poly.numer().coeffs()) // 8
                   + int(poly.denom()).bit_length() // 8 + 16 * (poly.degree() + 1)
                   for message in tree.messages.values() for poly in message.values())
        assert held <= tree.message_bytes() <= 4 * held, (width, held, tree.message_bytes())


def test_a_chain_whose_messages_exceed_memory_is_refused_before_they_are_built(
        tmp_path, capsys, monkeypatch):
    import json

    from pufferfish.cli.main import main

    # the chain keeps checkpoints only (about 0.16 GB of its 1.3 GB of messages)
    monkeypatch.setattr("pufferfish.verify.execution.usable_memory", lambda: 2**27)
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(_chain_sum(1000)))
    assert main(["audit", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "needs about 0.2 GB" in err and "of the 0.1 GB this process may use" in err, err
    assert "Traceback" not in err
