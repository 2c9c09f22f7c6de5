"""Claims of 004_acc5641f8e5f8c79.txt App. G–I (certified continuous checks) and App. L–M
(Lemmas 5 and 8); every violated claim's counterexample is re-verified here by a separate
computation: mpmath quadrature and erfc in a private 40–60 digit context for the continuous
ones, an enumeration of every deterministic attack for Lemma 5."""

from __future__ import annotations

import json
from fractions import Fraction as Q
from itertools import product

import mpmath
import pytest

from pufferfish.models.files.dcp_file import parse_dcp_model
from pufferfish.proofs_check.paper_004 import gaussian_copula as gc
from pufferfish.proofs_check.paper_004.attack_lemmas import (lemma5_check, printed_hypothesis,
                                                             purity_check)
from pufferfish.proofs_check.paper_004.composition import model_instances
from pufferfish.proofs_check.registry import Instance, claims_for
from pufferfish.verify.dcp.composition import product_of_effective, true_joint

CLAIMS = ("004.thm4.i", "004.thm4.ii", "004.lemma1", "004.prop3", "004.lemma5", "004.lemma8",
          "004.lemma8.hypothesis_is_pure", "004.lemma8.pointwise")
MP = mpmath.MPContext()
MP.dps = 40


@pytest.fixture(scope="module")
def report(claim_results):
    return claim_results([c for c in claims_for(paper="004") if c.id in CLAIMS])


def _mp(value):
    value = Q(value)
    return MP.mpf(value.numerator) / value.denominator


def _phi(x):
    return MP.erfc(-MP.mpf(x) / MP.sqrt(2)) / 2


def test_verdicts_and_counts(report):
    counts = {r.claim.id: (r.instances, r.violated, r.undecided) for r in report.results}
    assert counts == {"004.thm4.i": (20, 0, 0), "004.thm4.ii": (28, 3, 0),
                      "004.lemma1": (40, 35, 0), "004.prop3": (20, 16, 0),
                      "004.lemma5": (12, 7, 0), "004.lemma8": (29, 0, 0),
                      "004.lemma8.hypothesis_is_pure": (29, 0, 0),
                      "004.lemma8.pointwise": (29, 0, 0)}
    for result in report.results:
        if result.violated:
            json.dumps(result.first_counterexample)        # a JSON-ready counterexample


def test_thm4_ii_calibration_fails_for_large_eps_reverified(report):
    result = report.result("004.thm4.ii")
    assert [v.split(":")[0] for v in result.violations] == [
        "ε_c = 10, δ_c = 9/10", "ε_c = 20, δ_c = 1/2", "ε_c = 20, δ_c = 9/10"]
    for eps, delta in ((10, Q(9, 10)), (20, Q(1, 2)), (20, Q(9, 10))):
        w = gc.least_w(delta, 2 ** 20)                       # admissible: w >= 2 log(2/δ_c)
        assert MP.mpf(w.numerator) / w.denominator >= 2 * MP.log(2 / (MP.mpf(delta.numerator) / delta.denominator))
        sigma = MP.mpf(w.numerator) / w.denominator / eps
        # the excess of the event {z <= t} for N(0, σ²) against N(1, σ²), by quadrature
        t = MP.mpf(1) / 2 - eps * sigma ** 2
        density = lambda z, m: MP.exp(-(z - m) ** 2 / (2 * sigma ** 2)) / (sigma * MP.sqrt(2 * MP.pi))
        excess = MP.quad(lambda z: density(z, 0) - MP.exp(eps) * density(z, 1), [-MP.inf, t - 1, t])
        assert excess > MP.mpf(delta.numerator) / delta.denominator


def test_lemma1_counterexample_reverified_by_quadrature_of_the_process(report):
    result = report.result("004.lemma1")
    data = result.first_counterexample
    rho, q1, q2 = (Q(data[k]) for k in ("rho", "q1", "q2"))
    var1, eta = _mp(data["latent_variance"]), _mp(data["eta"])
    r, s1, q1, q2 = _mp(rho), MP.sqrt(var1), _mp(q1), _mp(q2)
    # Pr[Z1 <= q1, ρZ1 + √(1 − ρ²)Z2 <= q2] by integrating over Z1 (the sampler's own steps)
    inner = lambda z: (MP.exp(-((z - eta) / s1) ** 2 / 2) / (s1 * MP.sqrt(2 * MP.pi))
                       * _phi((q2 - r * z) / MP.sqrt(1 - r * r)))
    true_cdf = MP.quad(inner, [-MP.inf, eta - 10 * s1, q1])
    printed = MP.quad(lambda z: MP.exp(-z * z / 2) / MP.sqrt(2 * MP.pi)
                      * _phi((q2 - r * z) / MP.sqrt(1 - r * r)),
                      [-MP.inf, q1])
    assert abs(true_cdf - printed) > MP.mpf("0.1")
    assert report.result("004.lemma1").violations[0].startswith("A increasing (i)")
    decreasing = [i for i in gc.lemma1_instances() if not i.params["increasing"]]
    assert all(gc.lemma1_check()(i).violated for i in decreasing)
    standard = [i for i in gc.lemma1_instances() if i.params["increasing"]
                and i.params["latent"].variance == 1]
    assert standard and all(gc.lemma1_check()(i).holds for i in standard)


def test_prop3_counterexample_reverified_from_densities():
    instance = next(gc.prop3_instances())                    # ρ = −99/100, standard latent
    outcome = gc.prop3_check()(instance)
    assert outcome.violated and "y = (0, 0)" in outcome.detail
    rho = MP.mpf(-99) / 100
    shift, scales = (1, 1), (1, 2)

    def log_joint(y, mean):                                  # (V1, V2): correlation ρ (σ1 = 1)
        a = [(y[i] - mean[i]) / MP.mpf(scales[i]) for i in range(2)]
        quad = (a[0] ** 2 - 2 * rho * a[0] * a[1] + a[1] ** 2) / (1 - rho ** 2)
        return -quad / 2

    def log_copula(u):                                       # Gaussian copula density, Def. 5
        x = [MP.sqrt(2) * MP.erfinv(2 * ui - 1) for ui in u]
        return (-MP.log(1 - rho ** 2) / 2
                - (rho ** 2 * (x[0] ** 2 + x[1] ** 2) - 2 * rho * x[0] * x[1]) / (2 * (1 - rho ** 2)))

    y = (0, 0)
    true_plrv = log_joint(y, (0, 0)) - log_joint(y, shift)
    psi = lambda mean: [_phi((y[i] - mean[i]) / MP.mpf(scales[i])) for i in range(2)]
    l_b = sum(-(y[i] / MP.mpf(scales[i])) ** 2 / 2 + ((y[i] - shift[i]) / MP.mpf(scales[i])) ** 2 / 2
              for i in range(2))
    printed = l_b + log_copula(psi(shift)) - log_copula(psi((0, 0)))
    assert abs(true_plrv - printed) > 100


def test_thm4_i_holds_exactly_and_its_mutants_are_certified(report):
    assert report.result("004.thm4.i").holds
    latent = gc.latents()[1]
    law, used = (latent.etas[1], latent.variance), (Q(0), latent.variance)
    t, first, second = gc.margin_witness(law, used)
    assert abs(_phi((_mp(t) - _mp(law[0])) / MP.sqrt(_mp(law[1])))
               - _phi(_mp(t) / MP.sqrt(_mp(used[1])))) > MP.mpf("0.01")


def test_lemma5_counterexample_reverified_by_every_deterministic_attack(report):
    result = report.result("004.lemma5")
    model = parse_dcp_model(json.loads(json.dumps(result.first_counterexample)))
    kernels = list(model.mechanisms.values())
    truth, prod = true_joint(model, kernels), product_of_effective(model, kernels)
    outputs = sorted(set(truth["s0"].support) | set(prod["s0"].support)
                     | set(truth["s1"].support) | set(prod["s1"].support))

    def best(rows, w):                                       # max over all 2^|Y| guesses
        return max(sum(w * rows["s0"].prob(y) if g == 0 else (1 - w) * rows["s1"].prob(y)
                       for y, g in zip(outputs, guess))
                   for guess in product((0, 1), repeat=len(outputs)))

    priors = [Q(k, 64) for k in range(65)]
    assert any(best(prod, w) > best(truth, w) for w in priors)   # D_12 beats D_[2]: (ii) fails
    # (i) holds: CEL(J_12) − CEL(J_[2]) = KL >= 0, here > 0 at 40 digits
    prior = model.secret_prior()
    gap = MP.mpf(0)
    for s in truth:
        for y in truth[s].support:
            joint = prior.prob(s) * truth[s].prob(y)
            j_true = joint / sum(prior.prob(t) * truth[t].prob(y) for t in truth)
            j_prod = prior.prob(s) * prod[s].prob(y) / sum(prior.prob(t) * prod[t].prob(y) for t in prod)
            gap += MP.mpf(joint.numerator) / joint.denominator * MP.log(
                MP.mpf(j_true.numerator * j_prod.denominator) / (j_true.denominator * j_prod.numerator))
    assert gap > MP.mpf("1e-6")


def test_lemma5_holds_where_proposition_4_does():
    holding = [i for i in model_instances(2, 2) if lemma5_check()(i).holds]
    assert [i.label.split(":")[0] for i in holding][:2] == ["DP-like", "XOR"]


def test_lemma8_hypothesis_is_vacuous_at_delta_one_and_pure_below():
    xor = next(i for i in model_instances(2) if i.label.startswith("XOR"))
    model = xor.params["model"]
    rows = true_joint(model, list(model.mechanisms.values()))
    assert printed_hypothesis(rows, model.directions(), Q(4), Q(1))      # vacuous at δ_g = 1
    assert not printed_hypothesis(rows, model.directions(), Q(4), Q(99, 100))
    assert purity_check()(xor).holds and not purity_check((Q(1),))(xor).holds
    assert purity_check()(Instance("XOR", {"model": model})).holds
