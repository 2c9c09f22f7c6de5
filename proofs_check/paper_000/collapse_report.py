"""Privacy collapse: the examples of Bai et al., Composition for Pufferfish Privacy, §4 audited
against Theorems 1–3.

:func:`collapse_report` builds one of the three examples (:mod:`pufferfish.proofs_check.paper_000.collapse_examples`) and computes,
exactly:

* the single-run audit — posterior equality (Definition 4, :func:`pufferfish.verify.privacy.leakage.leakage`) for
  Examples 4.1 and 4.2, and the Pufferfish level (Definition 5, :func:`pufferfish.verify.privacy.pufferfish.pufferfish_level`)
  for all three (over the whole infinite interval family for Example 4.3);
* the two-run audit — the Pufferfish level of ``repeat(M*, 2)``, infinite when two runs can
  reveal the secret (collapse);
* the expected number of runs before the dataset (4.1, 4.2) or the secret (4.3) is revealed
  (:func:`pufferfish.verify.privacy.expected_runs.expected_runs_to_reveal`), beside the paper's value or bound.

The paper's numbers are computed here from their closed forms, on purpose independently of the
generic algorithms, so the two cross-check each other:

* Theorem 1: the bound ``1 + 1/(1 − max_D max_s Pr(D|s))`` (:func:`theorem1_bound`) and the exact
  value the proof derives (Appendix C), averaged over the secrets,
  ``1 + Σ_s Pr(s) Σ_{D'} p(D'|s̄)/(1 − p(D'|s̄))`` with ``s̄`` the other secret
  (:func:`theorem1_expected_runs`);
* Theorem 2: 3 runs;
* Theorem 3: ``ε = log r`` with ``r`` the largest of ``max(x, 1/x)`` over the theorem's eight
  ratios ``x`` (:func:`theorem3_ratio`), and 3 runs.

**Reading of Theorem 3.**  The paper writes ``ε = max(log|U_T/L_F|, ...)``.  Read literally
(``log`` of an absolute value) the maximum ignores ratios below 1, i.e. the direction
``Pr[ω|¬s1] / Pr[ω|s1]`` that Definition 5 also bounds, and is then *not* a valid level: for
``L_T = 1/5, U_T = 2/5, L_F = 3/10, U_F = 1/2`` it gives ``log(8/3)`` while the exact level is
``log(7/2)`` (output ``("1a","2b")``, ratio ``2/7``).  The natural reading, used here, is
``|log x|``; the literal value is reported beside it (:func:`theorem3_literal_ratio`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.bibliography import cite
from pufferfish.proofs_check.paper_000.collapse_examples import (PAPER, interval_example, interval_member_prior,
                             interval_parameters, parity_example, resample_bits_example)
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import repeat
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.models.secrets import Secret
from pufferfish.verify.privacy.expected_runs import (ExpectedRunsResult, dataset_classes, expected_runs_to_reveal,
                                  pair_classes)
from pufferfish.verify.privacy.leakage import LeakageResult, leakage
from pufferfish.verify.privacy.pufferfish import PufferfishResult, pufferfish_level, ratio_key

KINDS = ("resample", "parity", "interval")

_PARAMETERS = {
    "resample": ("bits", "prior", "model"),
    "parity": ("n",),
    "interval": ("lt", "ut", "lf", "uf", "in_true", "out_true", "in_false", "out_false",
                 "pr_true", "mass_true", "mass_false", "spread"),
}
_MEMBER_KEYS = ("pr_true", "mass_true", "mass_false", "spread")


# --------------------------------------------------------------------------------------------
# The paper's closed forms
# --------------------------------------------------------------------------------------------

def resample_parts(model: PufferfishModel) -> tuple[Distribution, Secret, Secret]:
    """``(θ*, s1, s2)`` of an Example 4.1 model (one finite prior, one secret pair)."""
    priors = list(model.finite_priors.values())
    if len(priors) != 1 or len(model.priors) != 1 or len(model.pairs) != 1:
        raise ModelError("an Example 4.1 model has exactly one prior and one secret pair", "priors")
    return priors[0].distribution(), model.pairs[0].first, model.pairs[0].second


def _conditionals(prior: Distribution, first: Secret, second: Secret) -> dict[str, Distribution]:
    return {secret.name: prior.condition(secret.holds) for secret in (first, second)}


def theorem1_bound(model: PufferfishModel) -> Ratio:
    """Theorem 1's bound ``1 + 1/(1 − max_D max_{s_i} Pr(D | s_i))`` (Bai et al., Composition for
    Pufferfish Privacy, §4).

    Infinite when some ``Pr(D | s_i) = 1`` (outside the example's hypotheses).
    """
    prior, first, second = resample_parts(model)
    given = _conditionals(prior, first, second)
    peak = max(p for dist in given.values() for p in dist.values())
    return INFINITY if peak == 1 else 1 + 1 / (1 - peak)


def theorem1_expected_runs(model: PufferfishModel) -> Ratio:
    """The exact expected runs from the proof of Theorem 1 (Bai et al., Composition for Pufferfish
    Privacy, App. C).

    Given that ``s1`` holds, the outputs are ``(D, D'_k)`` with ``D'_k ~ Pr(·|s2)`` independent;
    the dataset is revealed at the first run whose ``D'_k`` differs from ``D'_1``, after
    ``1 + 1/(1 − p(D'_1|s2))`` runs on average.  Averaging over ``D'_1`` and over the secrets:
    ``1 + Σ_s Pr(s) Σ_{D'} p(D'|s̄) / (1 − p(D'|s̄))``.  An independent closed form, used to
    cross-check :func:`pufferfish.verify.privacy.expected_runs.expected_runs_to_reveal`.
    """
    prior, first, second = resample_parts(model)
    given = _conditionals(prior, first, second)
    total = Fraction(1)
    for secret, other in ((first, second), (second, first)):
        weight = prior.mass(secret.holds)
        for p in given[other.name].values():
            if p == 1:
                return INFINITY
            total += weight * p / (1 - p)
    return total


def theorem3_ratios(lt: Fraction, ut: Fraction, lf: Fraction,
                    uf: Fraction) -> tuple[tuple[str, Fraction], ...]:
    """The eight ratios of Theorem 3 (Bai et al., Composition for Pufferfish Privacy, §4), in the
    paper's order."""
    return (("U_T/L_F", ut / lf), ("L_T/U_F", lt / uf), ("(1-U_T)/U_F", (1 - ut) / uf),
            ("(1-L_T)/L_F", (1 - lt) / lf), ("L_T/(1-L_F)", lt / (1 - lf)),
            ("U_T/(1-U_F)", ut / (1 - uf)), ("(1-U_T)/(1-L_F)", (1 - ut) / (1 - lf)),
            ("(1-L_T)/(1-U_F)", (1 - lt) / (1 - uf)))


def theorem3_ratio(lt: Fraction, ut: Fraction, lf: Fraction, uf: Fraction) -> Fraction:
    """``e^ε`` for Theorem 3's ε, read as ``max |log x|`` over the eight ratios: ``max max(x, 1/x)``."""
    return max(max(x, 1 / x) for _, x in theorem3_ratios(lt, ut, lf, uf))


def theorem3_literal_ratio(lt: Fraction, ut: Fraction, lf: Fraction, uf: Fraction) -> Fraction:
    """``e^ε`` for the literal reading ``max log|x|`` of Theorem 3: ``max x`` (may be below 1)."""
    return max(x for _, x in theorem3_ratios(lt, ut, lf, uf))


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PaperCheck:
    """One statement of the paper checked on the instance.

    ``observation`` marks a check that goes beyond what the paper states (it does not enter
    :attr:`CollapseReport.holds`).
    """

    source: str
    statement: str
    holds: bool
    detail: str
    observation: bool = False

    def to_dict(self) -> dict:
        return {"source": self.source, "statement": self.statement, "holds": self.holds,
                "detail": self.detail, "observation": self.observation}


@dataclass(frozen=True)
class CollapseReport:
    """Single-run and two-run audits and expected runs of one §4 example, beside Theorems 1–3."""

    kind: str
    example: str
    theorem: str
    description: str
    parameters: tuple[tuple[str, str], ...]
    leakage: LeakageResult | None
    single_run: PufferfishResult
    two_runs: PufferfishResult
    expected: ExpectedRunsResult
    expected_prior: str
    paper_values: tuple[tuple[str, str], ...]
    checks: tuple[PaperCheck, ...]
    notes: tuple[str, ...] = ()
    model: PufferfishModel | None = field(default=None, repr=False, compare=False)

    @property
    def holds(self) -> bool:
        """Whether every statement of the paper checked here holds on this instance."""
        return all(c.holds for c in self.checks if not c.observation)

    @property
    def expected_runs(self) -> Ratio:
        return self.expected.expected_runs

    def to_dict(self) -> dict:
        return {
            "check": "collapse", "kind": self.kind, "paper": PAPER, "citation": cite(PAPER),
            "example": self.example,
            "theorem": self.theorem, "description": self.description,
            "parameters": dict(self.parameters), "holds": self.holds,
            "leakage": self.leakage.to_dict() if self.leakage is not None else None,
            "single_run": self.single_run.to_dict(),
            "single_run_epsilon": self.single_run.epsilon,
            "two_runs": self.two_runs.to_dict(),
            "two_runs_epsilon": self.two_runs.epsilon,
            "expected_runs": fraction_str(self.expected.expected_runs),
            "expected_runs_target": self.expected.target,
            "expected_runs_prior": self.expected_prior,
            "paper_values": dict(self.paper_values),
            "checks": [c.to_dict() for c in self.checks],
            "notes": list(self.notes),
        }

    def explain(self) -> str:
        verdict = "the paper's statements hold" if self.holds else "a paper statement FAILS"
        lines = [f"{self.example} ({self.kind}) vs {self.theorem} of {cite(PAPER)}: {verdict}",
                 f"  instance: {self.description}"]
        one = f"  one run: Pufferfish ε = {self.single_run.epsilon}"
        if self.single_run.level_ratio != INFINITY:
            one += f" ≈ {epsilon_float(self.single_run.level_ratio):.6g}"
        if self.leakage is not None:
            one += "; zero leakage" if self.leakage.zero_leakage else "; LEAKS"
        lines.append(one)
        two = f"  two runs: Pufferfish ε = {self.two_runs.epsilon}"
        if self.two_runs.level_ratio == INFINITY and self.two_runs.witness is not None:
            two += f" (collapse: {self.two_runs.witness.explain()})"
        lines.append(two)
        paper = ", ".join(f"{k} = {v}" for k, v in self.paper_values if not k.startswith("ratio "))
        lines.append(f"  expected runs to reveal the {self.expected.target}: "
                     f"{fraction_str(self.expected.expected_runs)} (paper: {paper})")
        for check in self.checks:
            mark = "ok  " if check.holds else "FAIL"
            tag = " [observation beyond the paper]" if check.observation else ""
            lines.append(f"  [{mark}] {check.source}: {check.statement}{tag} — {check.detail}")
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


def collapse_report(kind: str, **params: object) -> CollapseReport:
    """Audit one §4 example of Bai et al., Composition for Pufferfish Privacy against its theorem.

    ``kind`` and its parameters:

    * ``"resample"`` (Example 4.1, Theorem 1): ``bits`` (default 2) and ``prior`` (default
      ``"skewed"``) for :func:`pufferfish.proofs_check.paper_000.collapse_examples.resample_bits_example`, or ``model`` — a model built
      by :func:`pufferfish.proofs_check.paper_000.collapse_examples.resample_example`;
    * ``"parity"`` (Example 4.2, Theorem 2): ``n`` (default 3);
    * ``"interval"`` (Example 4.3, Theorem 3): ``lt, ut, lf, uf`` (defaults 1/5, 2/5, 3/10, 1/2)
      and the block sizes ``in_true, out_true, in_false, out_false`` (default 1) for
      :func:`pufferfish.proofs_check.paper_000.collapse_examples.interval_example`; ``pr_true, mass_true, mass_false, spread`` choose the
      member of Θ on which the expected runs are computed
      (:func:`pufferfish.proofs_check.paper_000.collapse_examples.interval_member_prior`).

    >>> collapse_report("parity", n=3).to_dict()["expected_runs"]
    '3'
    """
    if kind not in KINDS:
        raise ModelError(f"unknown collapse example {kind!r}; choose one of {list(KINDS)}", "kind")
    unknown = sorted(set(params) - set(_PARAMETERS[kind]))
    if unknown:
        raise ModelError(f"unknown parameter(s) {unknown} for the {kind!r} example; it takes "
                         f"{list(_PARAMETERS[kind])}", unknown[0])
    if kind == "resample":
        return _resample_report(params)
    if kind == "parity":
        return _parity_report(params)
    return _interval_report(params)


def _runs_text(value: Ratio) -> str:
    return fraction_str(value)


def _audits(model: PufferfishModel, with_leakage: bool
            ) -> tuple[LeakageResult | None, PufferfishResult, PufferfishResult]:
    mechanism = model.mechanism("collapse")
    leak = leakage(model, mechanism) if with_leakage else None
    single = pufferfish_level(model, mechanism)
    double = pufferfish_level(model, repeat(mechanism, 2))
    return leak, single, double


def _zero_checks(theorem: str, leak: LeakageResult, single: PufferfishResult) -> list[PaperCheck]:
    return [
        PaperCheck(theorem, "the posterior of every secret equals its prior for every output",
                   leak.zero_leakage, leak.explain()),
        PaperCheck(theorem, "zero leakage under posterior-based definitions: the Pufferfish "
                   "level of one run is 0", single.level_ratio == 1,
                   f"one-run Pufferfish ε = {single.epsilon}"),
    ]


def _collapse_check(source: str, statement: str, double: PufferfishResult) -> PaperCheck:
    detail = f"two-run Pufferfish ε = {double.epsilon}"
    if double.witness is not None and double.level_ratio == INFINITY:
        detail += f" ({double.witness.explain()})"
    return PaperCheck(source, statement, double.level_ratio == INFINITY, detail)


def _resample_report(params: Mapping[str, object]) -> CollapseReport:
    model = params.get("model")
    if model is None:
        model = resample_bits_example(params.get("bits", 2), params.get("prior", "skewed"))
        parameters = (("bits", str(params.get("bits", 2))),
                      ("prior", str(params.get("prior", "skewed"))))
    elif set(params) - {"model"}:
        raise ModelError("give either 'model' or 'bits'/'prior' for the resample example, not both",
                         "model")
    elif not isinstance(model, PufferfishModel):
        raise ModelError("'model' must be a PufferfishModel built by resample_example", "model")
    else:
        parameters = (("model", model.description),)
    prior, first, second = resample_parts(model)
    leak, single, double = _audits(model, True)
    mechanism = model.mechanism("collapse")
    runs = expected_runs_to_reveal(mechanism, prior, dataset_classes(), "dataset")
    bound = theorem1_bound(model)
    formula = theorem1_expected_runs(model)
    value = runs.expected_runs
    checks = _zero_checks("Theorem 1", leak, single)
    checks.append(PaperCheck(
        "Theorem 1", "expected runs before the input dataset is revealed <= "
        "1 + 1/(1 - max_D max_s Pr(D|s))", ratio_key(value) <= ratio_key(bound),
        f"exact {_runs_text(value)} vs bound {_runs_text(bound)}"))
    checks.append(PaperCheck(
        "Appendix C, proof of Theorem 1", "expected runs = 1 + Σ_s Pr(s) Σ_D' p(D'|other)/(1 - "
        "p(D'|other))", value == formula,
        f"exact {_runs_text(value)} vs closed form {_runs_text(formula)}"))
    checks.append(_collapse_check("§4, Example 4.1", "the mechanism can reveal the true dataset "
                                  "in as few as two runs (two-run level infinite)", double))
    prior_name = next(iter(model.priors))
    return CollapseReport(
        "resample", "Example 4.1", "Theorem 1", model.description, parameters, leak, single,
        double, runs, prior_name,
        (("theorem1_bound", _runs_text(bound)), ("theorem1_exact_formula", _runs_text(formula))),
        tuple(checks), (), model)


def _parity_report(params: Mapping[str, object]) -> CollapseReport:
    n = params.get("n", 3)
    model = parity_example(n)  # type: ignore[arg-type]
    leak, single, double = _audits(model, True)
    prior = model.finite_priors["uniform"].distribution()
    runs = expected_runs_to_reveal(model.mechanism("collapse"), prior, dataset_classes(), "dataset")
    checks = _zero_checks("Theorem 2", leak, single)
    checks.append(PaperCheck("Theorem 2", "the expected number of runs before the input dataset "
                             "is revealed is 3", runs.expected_runs == 3,
                             f"exact {_runs_text(runs.expected_runs)}"))
    checks.append(_collapse_check("§4, Example 4.2", "the dataset can be reconstructed by "
                                  "running M* as few as 2 times (two-run level infinite)", double))
    return CollapseReport("parity", "Example 4.2", "Theorem 2", model.description,
                          (("n", str(n)),), leak, single, double, runs, "uniform",
                          (("expected_runs", "3"),), tuple(checks), (), model)


def _interval_report(params: Mapping[str, object]) -> CollapseReport:
    build = {k: v for k, v in params.items() if k not in _MEMBER_KEYS}
    member_args = {k: v for k, v in params.items() if k in _MEMBER_KEYS}
    model = interval_example(**build)  # type: ignore[arg-type]
    lt, ut, lf, uf = interval_parameters(model)
    member = interval_member_prior(model, **member_args)  # type: ignore[arg-type]
    _, single, double = _audits(model, False)
    runs = expected_runs_to_reveal(model.mechanism("collapse"), member.distribution(),
                                   pair_classes(model.pairs[0]), "secret")
    r = theorem3_ratio(lt, ut, lf, uf)
    literal = theorem3_literal_ratio(lt, ut, lf, uf)
    level = single.level_ratio
    checks = [
        PaperCheck("Theorem 3", "M* satisfies ε-Pufferfish privacy with ε = max |log x| over the "
                   "eight ratios", ratio_key(level) <= ratio_key(r),
                   f"exact level {epsilon_str(level)} vs ε = {epsilon_str(r)}"),
        PaperCheck("Theorem 3", "the expected number of runs to reveal the true secret is 3",
                   runs.expected_runs == 3,
                   f"exact {_runs_text(runs.expected_runs)} under member prior {member.name!r}"),
        PaperCheck("§4, Example 4.3", "a finite Pufferfish level for one run, but two runs can "
                   "reveal the secret (two-run level infinite)",
                   level != INFINITY and double.level_ratio == INFINITY,
                   f"one run ε = {single.epsilon}, two runs ε = {double.epsilon}"),
        PaperCheck("Theorem 3 (observation)", "the bound is attained: the exact level over Θ "
                   "equals ε", level == r, f"exact {epsilon_str(level)} vs ε = {epsilon_str(r)}",
                   observation=True),
    ]
    notes = ["Theorem 3 writes log|x|; it is read as |log x| (both directions of the secret pair "
             "are bounded by Definition 5)."]
    if ratio_key(Fraction(max(literal, Fraction(1)))) < ratio_key(level):
        notes.append(f"read literally (max of log x) the bound would be {epsilon_str(literal)} "
                     f"if positive, below the exact level {epsilon_str(level)}: the literal "
                     f"reading is false on this instance")
    parameters = tuple((k, fraction_str(v)) for k, v in
                       (("lt", lt), ("ut", ut), ("lf", lf), ("uf", uf))) + tuple(
        (k, str(v)) for k, v in params.items() if k not in ("lt", "ut", "lf", "uf"))
    member_text = f"{member.name}: " + ", ".join(
        f"{list(d)}: {fraction_str(p)}" for d, p in member.table.items())
    return CollapseReport(
        "interval", "Example 4.3", "Theorem 3", model.description, parameters, None, single,
        double, runs, member_text,
        (("theorem3_epsilon", epsilon_str(r)), ("theorem3_ratio", fraction_str(r)),
         ("theorem3_literal_ratio", fraction_str(literal)), ("expected_runs", "3")) + tuple(
            (f"ratio {label}", fraction_str(x)) for label, x in theorem3_ratios(lt, ut, lf, uf)),
        tuple(checks), tuple(notes), model)


__all__ = ["KINDS", "CollapseReport", "PaperCheck", "collapse_report", "resample_parts",
           "theorem1_bound", "theorem1_expected_runs", "theorem3_ratios", "theorem3_ratio",
           "theorem3_literal_ratio"]
