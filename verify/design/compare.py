"""The designed mechanisms against the papers' mechanisms at the same budget, and the price of
composability (Bai et al., Composition for Pufferfish Privacy, §5–6; Wang et al., Privacy-Preserving
Analysis of Correlated Data, §3).

At one budget ε (designed at the ratio ``r <= e^ε`` of :func:`~pufferfish.verify.design.problem.design_ratio`),
on the same query, outputs, loss and data prior:

* **optimal Pufferfish** and **optimal DP-style** (Pufferfish plus ``P(ω|D) <= r_DP P(ω|D')`` for
  neighbours): :func:`~pufferfish.verify.design.report.design_mechanism`, exact with their dual
  bounds;
* **randomized response on the query** (k-ary, keep ``r/(r + k − 1)`` over the k query values):
  every two datasets have likelihood ratio <= r, so it is ε-DP for any neighbours;
* **geometric noise calibrated by DP** (``α = r^{-1/Δ}``, Δ the query's sensitivity for entry
  neighbours) and **by group DP** over all entries (``Δ`` = the query's range), clamped to the
  range of the query (integer-valued queries whose values form a range);
* the **Markov Quilt Mechanism** (Wang et al., Privacy-Preserving Analysis of Correlated Data,
  §4, MQMExact) when every prior is a Markov chain: ``q(D) + Lap(L·σ_max)``, L the query's entry
  sensitivity, level certified, loss closed form;
* the **Wasserstein mechanism** (§3, Algorithm 1): ``q(D) + Lap(σ)`` with ``σ`` the least grid
  rational ``>= W/ε``; continuous outputs, so its loss is the closed form ``σ`` (l1), ``2σ²``
  (l2) or 1 (01), exact for rational σ, and its Pufferfish level is certified by
  :func:`~pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`.

Every finite mechanism is audited exactly (:func:`~pufferfish.verify.privacy.pufferfish.pufferfish_level`)
and its loss computed exactly.  A mechanism that does not meet the budget is listed with its level
and marked, never compared as if it did.  **Price of composability**: the DP-style optimum minus
the Pufferfish optimum, certified to lie in ``[LB_dp − loss_pf, loss_dp − LB_pf]``.

Cost: two designs, one exact audit per finite mechanism, one certified Laplace level.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> comparison = compare_mechanisms(load_model(example_path("quickstart.json")), "sum", parse_budget("log(3)"))
>>> comparison.price_of_composability
Fraction(43, 144)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.bibliography import cite
from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import GeometricNoise, Mechanism, QueryMechanism, TableMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, epsilon_float, epsilon_str, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.design.report import DesignResult, design_mechanism
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import endpoints, interval_context, log_interval
from pufferfish.verify.privacy.dp import neighbours as neighbours_of, parse_relation
from pufferfish.verify.privacy.pufferfish import pufferfish_level
from pufferfish.verify.report import Explained, table
from pufferfish.verify.transport.queries import parse_query

GRID = 10 ** 9
"""Noise parameters that must be rounded are rounded to this grid, always toward more noise."""


@dataclass(frozen=True)
class Contender:
    """One mechanism of the comparison: exact (or closed-form) loss, whether it meets the budget
    (``None``: undecided or not applicable), its level and how both were obtained."""

    name: str
    source: str
    loss: Fraction | None
    meets_budget: bool | None
    level: str
    how: str

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "source": self.source,
                "loss": None if self.loss is None else fraction_str(self.loss),
                "loss_float": None if self.loss is None else float(self.loss),
                "meets_budget": self.meets_budget, "level": self.level, "how": self.how}


@dataclass(frozen=True, repr=False)
class Comparison(Explained):
    """The contenders at one budget and the price of composability."""

    budget: str
    pufferfish: DesignResult
    dp_style: DesignResult
    contenders: tuple[Contender, ...]

    @property
    def price_of_composability(self) -> Fraction:
        """Loss of the DP-style design minus loss of the Pufferfish design (exact)."""
        return self.dp_style.loss - self.pufferfish.loss

    @property
    def price_interval(self) -> tuple[Fraction, Fraction]:
        """Certified bounds on the difference of the two optima."""
        return (self.dp_style.lower_bound - self.pufferfish.loss,
                self.dp_style.loss - self.pufferfish.lower_bound)

    @property
    def designed_is_best(self) -> bool:
        """The Pufferfish design's loss is <= that of every contender that meets the budget."""
        return all(c.loss is None or c.meets_budget is not True or self.pufferfish.loss <= c.loss
                   for c in self.contenders)

    def to_dict(self) -> dict:
        low, high = self.price_interval
        return {"budget": self.budget, "contenders": [c.to_dict() for c in self.contenders],
                "price_of_composability": fraction_str(self.price_of_composability),
                "price_of_composability_float": float(self.price_of_composability),
                "price_interval": [fraction_str(low), fraction_str(high)],
                "designed_is_best": self.designed_is_best}

    def explain(self) -> str:
        rows = [[c.name, c.source, "-" if c.loss is None else _short(c.loss),
                 "-" if c.loss is None else f"{float(c.loss):.6g}",
                 {True: "yes", False: "NO", None: "?"}[c.meets_budget], c.level, c.how]
                for c in self.contenders]
        low, high = self.price_interval
        price = f"{_short(self.price_of_composability)}"
        if not price.startswith("≈"):
            price += f" ≈ {float(self.price_of_composability):.6g}"
        if low != high:
            price += f" (certified in [{float(low):.6g}, {float(high):.6g}])"
        return "\n".join([
            f"Comparison at ε = {self.budget} (expected loss under the data prior; "
            f"meets = audited at the budget)",
            table(["mechanism", "source", "loss", "≈", "meets", "level", "how"], rows),
            f"price of composability (DP-style − Pufferfish optimum): {price}",
            "the Pufferfish design has the least loss among the mechanisms that meet the budget: "
            + ("yes" if self.designed_is_best else "NO")])


def _short(value: Fraction) -> str:
    text = fraction_str(value)
    return text if len(text) <= 14 else f"≈{float(value):.6g}"


def compare_mechanisms(model: PufferfishModel, query: str, budget: Budget, *,
                       loss=None, outputs: Sequence | None = None, data: str | None = None,
                       dp_budget: Budget | None = None, neighbours: str = "entry",
                       designed: DesignResult | None = None,
                       max_datasets: int = DEFAULT_MAX_DATASETS) -> Comparison:
    """The comparison of the module docstring (``designed``: a design already computed, reused
    when it has the same constraints)."""
    options = dict(loss=loss, outputs=outputs, data=data, neighbours=neighbours,
                   max_datasets=max_datasets)
    if designed is None or designed.composable == "dp-style":
        pufferfish = design_mechanism(model, query, budget, name="optimal", **options)
    else:
        pufferfish = designed
    if designed is not None and designed.composable == "dp-style":
        dp_style = designed
    else:
        dp_style = design_mechanism(model, query, budget, composable="dp-style",
                                    dp_budget=dp_budget, name="optimal-dp", **options)
    problem = pufferfish.problem
    contenders = [_designed("optimal Pufferfish", pufferfish),
                  _designed("optimal DP-style", dp_style)]
    q = parse_query(query, model.universe)
    values = sorted({q(d) for d in problem.datasets}, key=str)
    default_outputs = outputs is None
    for name, source, mechanism, how in _paper_mechanisms(model, q, values, problem, neighbours,
                                                          default_outputs):
        audit = pufferfish_level(model, mechanism, budget, max_datasets)
        contenders.append(Contender(name, source, _loss(problem, mechanism), audit.holds,
                                    _level_text(audit.level_ratio), how))
    contenders.append(_wasserstein(model, q, query, problem, budget, max_datasets))
    contenders.append(_markov_quilt(model, q, query, problem, budget, neighbours, max_datasets))
    return Comparison(budget.text, pufferfish, dp_style, tuple(contenders))


def _designed(name: str, result: DesignResult) -> Contender:
    how = "LP, exact, proved optimal" if result.optimal else \
        f"LP, exact, gap {float(result.gap):.3g}"
    return Contender(name, "this design", result.loss, result.holds,
                     _level_text(result.audit.level_ratio), how)


def _level_text(ratio) -> str:
    text = epsilon_str(ratio)
    return text if len(text) <= 24 else f"≈{epsilon_float(ratio):.6g}"


def _loss(problem, mechanism: Mechanism) -> Fraction:
    rows = [[mechanism.distribution(d).prob(o) for o in problem.outputs] for d in problem.datasets]
    return problem.expected_loss(rows)


def _paper_mechanisms(model, query, values, problem, relation, default_outputs):
    """``(name, source, mechanism, how)`` for the finite paper mechanisms that apply."""
    ratio = problem.ratio
    if ratio == INFINITY or not default_outputs:
        return []
    found = []
    k = len(values)
    if k >= 2:
        keep = ratio / (ratio + k - 1)
        other = (1 - keep) / (k - 1)
        rows = {d: Distribution._trusted({v: keep if v == query(d) else other for v in values})
                for d in problem.datasets}
        found.append(("randomized response", cite("000 §2 (k-ary, on the query)"),
                      TableMechanism("rr-query", rows), f"keep {fraction_str(keep)}"))
    integer = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    if integer and k >= 2 and values == list(range(min(values), max(values) + 1)):
        low, high = min(values), max(values)
        kind, width = parse_relation(relation.replace("-", ":"))
        sensitivity = _sensitivity(model, query, problem.datasets, kind, width)
        for name, delta in (("geometric, DP", sensitivity), ("geometric, group DP", high - low)):
            if delta:
                alpha = _alpha(ratio, delta)
                noise = GeometricNoise(alpha, low, high)
                source = (cite(f"000 §6 (calibrated to sensitivity {delta})") if
                          name.endswith(", DP") else "group DP over all entries (Δ = range)")
                found.append((name, source, QueryMechanism(name, model.universe, query, noise),
                              f"α = {_short(alpha)}"))
    return found


def _sensitivity(model, query, datasets, kind: str, width: int) -> int:
    return max((abs(query(d) - query(o)) for d in datasets
                for o in neighbours_of(model.universe, d, kind, width)), default=0)


def _alpha(ratio: Fraction, sensitivity: int) -> Fraction:
    """The least grid rational ``>= r^{-1/Δ}`` (``1/r`` exactly when Δ = 1)."""
    if sensitivity == 1:
        return 1 / ratio
    context = interval_context(128)
    _, high = endpoints(context.exp(-log_interval(context, ratio) / sensitivity))
    return min(Fraction(GRID - 1, GRID), Fraction(-(-high.numerator * GRID // high.denominator),
                                                   GRID))


def _wasserstein(model, query, query_text: str, problem, budget: Budget, max_datasets: int
                 ) -> Contender:
    from pufferfish.verify.transport.laplace_level import laplace_pufferfish_level
    from pufferfish.verify.transport.parameter import wasserstein_parameter

    name, source = "Wasserstein (Laplace)", cite("002 §3, Algorithm 1")
    numeric = all(isinstance(v, int | Fraction) and not isinstance(v, bool)
                  for v in (query(d) for d in problem.datasets))
    if problem.ratio == INFINITY or not numeric or problem.ratio == 1:
        return Contender(name, source, None, None, "-", "not applicable (needs a numeric query "
                         "and 0 < ε < inf)")
    w = wasserstein_parameter(model, query, max_datasets=max_datasets).value
    context = interval_context(128)
    low, _ = endpoints(log_interval(context, problem.ratio))
    sigma = Fraction(-(-(w / low).numerator * GRID // (w / low).denominator), GRID)
    level = laplace_pufferfish_level(model, query, sigma, budget, max_datasets=max_datasets,
                                     query_name=query_text)
    closed = {"l1": sigma, "l2": 2 * sigma ** 2, "01": Fraction(1)}
    loss = closed.get(problem.loss.name)
    level_text = f"[{level.epsilon_lower:.4g}, {level.epsilon_upper:.4g}]"
    return Contender(name, source, loss, level.holds, level_text,
                     f"σ = {_short(sigma)} >= W/ε, W = {fraction_str(w)}; continuous output, "
                     f"closed-form loss" if loss is not None else
                     "loss table not defined on real outputs")


def _markov_quilt(model, query, query_text: str, problem, budget: Budget, relation: str,
                  max_datasets: int) -> Contender:
    """The Markov Quilt Mechanism (Wang et al., Privacy-Preserving Analysis of Correlated Data, §4,
    Algorithms 2–3, MQMExact) when every prior is a Markov chain: ``q(D) + Lap(L·σ_max)`` with L the
    query's entry sensitivity, σ rounded up to the grid; level certified, loss in closed form."""
    from pufferfish.models.bayesnet import chain_from_markov_prior
    from pufferfish.models.chain_family import ChainFamily
    from pufferfish.models.priors import MarkovPrior
    from pufferfish.verify.quilts.chain_search import mqm_chain_exact
    from pufferfish.verify.transport.laplace_level import laplace_pufferfish_level

    name, source = "Markov Quilt Mechanism", cite("002 §4, MQMExact")
    numeric = all(isinstance(v, int | Fraction) and not isinstance(v, bool)
                  for v in (query(d) for d in problem.datasets))
    chains = [p for p in model.priors.values() if isinstance(p, MarkovPrior)]
    if (problem.ratio in (INFINITY, 1) or not numeric or len(chains) != len(model.priors)
            or problem.loss.name not in ("l1", "l2", "01")):
        return Contender(name, source, None, None, "-", "not applicable (needs Markov-chain "
                         "priors only, a numeric query, 0 < ε < inf and a built-in loss)")
    family = ChainFamily(tuple(chain_from_markov_prior(p) for p in chains), "given")
    result = mqm_chain_exact(family, budget)
    lipschitz = _sensitivity(model, query, problem.datasets, "entry", 1)
    if not result.holds or not lipschitz:
        return Contender(name, source, None, None, "-", "no quilt of finite score")
    scaled = Fraction(result.sigma_upper) * lipschitz
    sigma = Fraction(-(-scaled.numerator * GRID // scaled.denominator), GRID)
    level = laplace_pufferfish_level(model, query, sigma, budget, max_datasets=max_datasets,
                                     query_name=query_text)
    loss = {"l1": sigma, "l2": 2 * sigma ** 2, "01": Fraction(1)}[problem.loss.name]
    return Contender(name, source, loss, level.holds,
                     f"[{level.epsilon_lower:.4g}, {level.epsilon_upper:.4g}]",
                     f"σ = {_short(sigma)} = L·σ_max, L = {lipschitz}; continuous output, "
                     f"closed-form loss")


__all__ = ["Contender", "Comparison", "compare_mechanisms", "GRID"]
