"""Claims of 002_e1f2e9a9937b8cda.txt on Appendix B.2 (vector release) and the readings of Figures
1, 3 and 4; the certified noise scales of Figures 1 and 3 are compared with the numerical code
paths the figures are drawn with (scipy's banded solve for [11], the float MQM search)."""

from __future__ import annotations

from fractions import Fraction as Q

import pytest

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.proofs_check.paper_002 import figure_comparisons as fc
from pufferfish.proofs_check.paper_002.vector_release import (laplace_vector_level,
                                                               scaled_histogram, vector_check,
                                                               vector_instances)
from pufferfish.proofs_check.registry import claims_for
from pufferfish.verify.quilts.chain_search import mqm_sigma_numerical
from pufferfish.verify.quilts.gk16 import gk16_gamma_ratio, gk16_noise


@pytest.fixture(scope="module")
def report(claim_results):
    return claim_results([c for c in claims_for(paper="002") if c.id in (
        "002.B2.vector_laplace", "002.fig1.readings", "002.fig3.readings", "002.fig4.readings")])


def test_verdicts(report):
    counts = {r.claim.id: (r.instances, r.violated, r.undecided) for r in report.results}
    assert counts == {"002.B2.vector_laplace": (15, 0, 0), "002.fig1.readings": (5, 0, 0),
                      "002.fig3.readings": (2, 0, 0), "002.fig4.readings": (5, 0, 0)}


def test_vector_laplace_level_is_the_l1_distance_and_attained():
    a, c = (Q(1), Q(0), Q(2)), (Q(0), Q(1), Q(1, 2))
    assert laplace_vector_level(a, c, Q(2)) == Q(7, 4)      # (1 + 1 + 3/2)/2
    # the log density ratio at one output far in the right orthant attains it
    w = (Q(10), Q(-10), Q(10))
    assert (sum(abs(wi - ci) for wi, ci in zip(w, c)) - sum(abs(wi - ai) for wi, ai in zip(w, a))) / 2 == Q(7, 4)
    one_change = scaled_histogram((0, 1, 1), 2, Q(3, 2)), scaled_histogram((1, 1, 1), 2, Q(3, 2))
    assert laplace_vector_level(*one_change, Q(1)) == 1       # 1-Lipschitz after the T/2 scaling
    outcome = vector_check(scale_of=lambda t: Q(t))(next(vector_instances()))
    assert outcome.violated                                   # a 1/T reading of the histogram


def test_fig1_scales_agree_with_the_numerical_figure_code():
    low = Q(13, 40)                                           # the smallest ℓ where [11] works
    grid = fc.theta_grid(low)
    for a, b in grid:
        numeric = gk16_noise(gk16_gamma_ratio(a, b), fc.LENGTH, "1").noise_scale
        low_, high = fc.gk16_noise_enclosure(a, b, 1)
        assert float(low_) * (1 - 1e-12) <= numeric <= float(high) * (1 + 1e-12)
        assert high - low_ < Q(1, 10**20)
        sigma = mqm_sigma_numerical("1", family=ChainFamily((MarkovChain.binary(a, b, fc.LENGTH),),
                                                            "any"))
        m_low, m_high = fc.mqm_scale(a, b, 1)
        assert float(m_low) * (1 - 1e-9) <= sigma <= float(m_high) * (1 + 1e-9)
    gk = max(gk16_noise(gk16_gamma_ratio(a, b), fc.LENGTH, "1").noise_scale for a, b in grid)
    mqm = max(float(fc.mqm_scale(a, b, 1)[1]) for a, b in grid)
    assert mqm < gk                                           # reading 5 at ε = 1
    assert fc.gk16_noise_enclosure(Q(1, 10), Q(1, 10), 1) == fc.FAILS
