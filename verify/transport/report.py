"""The Wasserstein mechanism's report for one model file and query (Wang et al., Privacy-Preserving
Analysis of Correlated Data, §3, Algorithm 1 and Theorem 3.2; the (ε, δ) variant of Appendix A.4,
Theorem A.8): the result of
:func:`pufferfish.verify.transport.wasserstein.verify_wasserstein_mechanism` or
:func:`pufferfish.verify.transport.epsilon_delta.verify_epsilon_delta_mechanism` together with the
model's source name and the query's text, which both outputs show.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> report = wasserstein_report(load_model(example_path("flu.json")), "sum", parse_budget("1"),
...                             source="flu.json")
>>> report.relation, list(report.to_dict())[:2]
('below', ['model', 'query'])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.numbers import fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.report import Explained, table


@dataclass(repr=False, frozen=True)
class WassersteinReport(Explained):
    """A Wasserstein (or, with δ, an (ε, δ)-Wasserstein) mechanism result with the model's
    ``source`` name and the ``query`` text."""

    source: str
    query: str
    result: object      # WassersteinMechanismResult or EpsilonDeltaResult
    delta: Fraction | None = None

    @property
    def relation(self) -> str | None:
        """``below``/``tight`` (holds), ``above`` (violated) or ``undecided``."""
        if self.delta is not None:
            return self.result.relation
        return self.result.level.relation

    def to_dict(self) -> dict:
        return {"model": self.source, "query": self.query, **self.result.to_dict()}

    def explain(self) -> str:
        if self.delta is not None:
            return _delta_text(self.source, self.query, self.result)
        return _text(self.source, self.query, self.result)


def wasserstein_report(model, query_text: str, budget: Budget, delta: Fraction | None = None, *,
                       max_datasets: int = DEFAULT_MAX_DATASETS,
                       source: str = "") -> WassersteinReport:
    """Parse ``query_text`` against the model's universe
    (:func:`pufferfish.verify.transport.queries.parse_query`) and verify the Wasserstein
    mechanism at ``budget`` (with ``delta``: the (ε, δ) variant)."""
    from pufferfish.verify.transport.epsilon_delta import verify_epsilon_delta_mechanism
    from pufferfish.verify.transport.queries import parse_query
    from pufferfish.verify.transport.wasserstein import verify_wasserstein_mechanism

    query = parse_query(query_text, model.universe)
    if delta is not None:
        result = verify_epsilon_delta_mechanism(model, query, budget, delta, max_datasets)
    else:
        result = verify_wasserstein_mechanism(model, query, budget, max_datasets, query_text)
    return WassersteinReport(source, query_text, result, delta)


def _coupling_rows(coupling) -> list[list[str]]:
    return [[fraction_str(a), fraction_str(b), fraction_str(m), fraction_str(abs(a - b))]
            for a, b, m in coupling]


def _text(source: str, query: str, result) -> str:
    parameter = result.parameter
    lines = [f"model {source}: Wasserstein mechanism for query {query!r}, "
             f"ε = {fraction_str(result.epsilon)}"]
    rows = [[d.pair, d.prior, fraction_str(d.value)] for d in parameter.distances]
    lines += ["", table(["pair", "prior", "W∞"], rows)]
    lines.append("")
    lines.append(f"W = {fraction_str(parameter.value)}")
    if parameter.witness is not None:
        witness = parameter.witness
        lines.append(f"witness: pair {witness.pair} under prior {witness.prior}; comonotone "
                     f"coupling (certificate verified: {witness.distance.verify()}):")
        lines.append(table([f"{witness.first} value", f"{witness.second} value", "mass", "moved"],
                           _coupling_rows(witness.distance.coupling)))
    lines.append(f"σ = W/ε = {fraction_str(result.scale)}")
    level = result.level
    lines.append(f"actual Pufferfish level of {query} + Lap({fraction_str(result.scale)}): "
                 f"ε ∈ [{level.epsilon_lower:.10g}, {level.epsilon_upper:.10g}] (certified)")
    if level.witness is not None:
        lines.append(f"worst case: {level.witness.explain()}")
    verdict = {None: "UNDECIDED", True: "holds", False: "VIOLATED"}[level.holds]
    lines.append(f"Theorem 3.2 (level <= ε = {fraction_str(result.epsilon)}): {verdict} "
                 f"({level.relation})")
    return "\n".join(lines)


def _delta_text(source: str, query: str, result) -> str:
    parameter = result.parameter
    lines = [f"model {source}: (ε, δ)-Wasserstein mechanism for query {query!r}, "
             f"ε = {fraction_str(result.epsilon)}, δ = {fraction_str(result.delta)}",
             f"W_δ = {fraction_str(parameter.value)}; σ = W_δ/ε = {fraction_str(result.scale)}"]
    if parameter.witness is not None:
        distance = parameter.witness.distance
        lines.append(f"witness: pair {parameter.witness.pair} under prior "
                     f"{parameter.witness.prior}; partial coupling of mass "
                     f"{fraction_str(1 - distance.delta)} (certificate verified: {distance.verify()}):")
        lines.append(table(["first", "second", "mass", "moved"],
                           _coupling_rows(distance.partial_coupling)))
    rows = [[f"{a} -> {b}", p, f"[{h.to_dict()['hockey_stick']['lower_float']:.6g}, "
             f"{h.to_dict()['hockey_stick']['upper_float']:.6g}]", r]
            for a, b, p, h, r in result.divergences]
    lines += ["", table(["direction", "prior", "sup_S P1(S) - e^ε P2(S)", "vs δ"], rows)]
    verdict = {None: "UNDECIDED", True: "holds", False: "VIOLATED"}[result.holds]
    lines.append(f"Theorem A.8 ((ε, δ)-Pufferfish): {verdict} ({result.relation})")
    return "\n".join(lines)


__all__ = ["WassersteinReport", "wasserstein_report"]
