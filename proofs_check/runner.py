"""Run registered claims on their generated instances and collect a report.

:func:`run_claims` checks every instance of every claim.  Per claim the report keeps the number
of instances tried, how many violated the statement, how many the check could not decide at
certified precision (*undecided*: neither a pass nor a violation), how many checks raised an
error (a defect, never counted as a pass), and the first violation with its counterexample model.
:func:`run_first_instances` checks only the first instance(s) of each claim (a quick look, as
``pufferfish demo`` takes; its report counts only the instances it ran).
A report ``holds`` when every instance of every claim was decided to hold; its ``status`` is
``"violated"`` when some instance violated a claim or a check failed to run, else
``"undecided"`` when some instance was undecided, else ``"holds"``.

>>> from pufferfish.proofs_check.registry import claims_for          # doctest: +SKIP
>>> run_claims(claims_for(paper="000")).holds               # doctest: +SKIP
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import islice

from pufferfish.proofs_check.registry import Claim, ClaimOutcome
from pufferfish.verify.execution import Engine, InProcessEngine

MAX_LISTED_VIOLATIONS = 5
"""How many violated instances a claim result lists by label (all are counted)."""


@dataclass(frozen=True)
class ClaimResult:
    """The outcome of one claim over all its instances."""

    claim: Claim
    instances: int
    violated: int
    errors: int
    first_violation: str | None = None
    first_counterexample: dict | None = None
    violations: tuple[str, ...] = ()
    first_error: str | None = None
    undecided: int = 0
    first_undecided: str | None = None

    @property
    def holds(self) -> bool:
        """Every instance was decided to hold, no check crashed, and at least one instance ran."""
        return (self.violated == 0 and self.errors == 0 and self.undecided == 0
                and self.instances > 0)

    @property
    def status(self) -> str:
        """``violated``, ``error``, ``undecided``, ``no instances`` or ``holds`` (first that applies)."""
        if self.violated:
            return "violated"
        if self.errors:
            return "error"
        if self.undecided:
            return "undecided"
        if not self.instances:
            return "no instances"
        return "holds"

    def to_dict(self) -> dict:
        data = {**self.claim.to_dict(), "holds": self.holds, "status": self.status,
                "instances": self.instances, "violated": self.violated, "errors": self.errors,
                "undecided": self.undecided}
        if self.first_undecided is not None:
            data["first_undecided"] = self.first_undecided
        if self.first_violation is not None:
            data["first_violation"] = self.first_violation
            data["counterexample"] = self.first_counterexample
            data["violations"] = list(self.violations)
        if self.first_error is not None:
            data["first_error"] = self.first_error
        return data

    def explain(self) -> str:
        tag = " (observation beyond the paper)" if self.claim.observation else ""
        if self.holds:
            text = f"{self.claim.id}{tag}: holds on {self.instances}/{self.instances} instances"
        elif not self.instances:
            text = f"{self.claim.id}{tag}: NO INSTANCES were generated, nothing was checked"
        else:
            parts = []
            if self.violated:
                parts.append(f"VIOLATED on {self.violated}/{self.instances} instances")
            if self.errors:
                parts.append(f"ERROR: {self.errors}/{self.instances} checks failed to run")
            if self.undecided:
                parts.append(f"UNDECIDED on {self.undecided}/{self.instances} instances")
            text = f"{self.claim.id}{tag}: " + ", ".join(parts)
        if self.first_violation is not None:
            text += f"; first violation: {self.first_violation}"
        if self.first_undecided is not None:
            text += f"; first undecided: {self.first_undecided}"
        if self.first_error is not None:
            text += f"; error: {self.first_error}"
        return text


@dataclass(frozen=True)
class ClaimsReport:
    """Results of a set of claims; ``holds`` when none was violated or failed to run."""

    results: tuple[ClaimResult, ...]

    @property
    def holds(self) -> bool:
        return all(r.holds for r in self.results)

    @property
    def violated(self) -> tuple[ClaimResult, ...]:
        """The claims that do not hold (violated, failed to run, undecided or without instances)."""
        return tuple(r for r in self.results if not r.holds)

    @property
    def undecided(self) -> tuple[ClaimResult, ...]:
        """The claims whose only defect is an undecided instance."""
        return tuple(r for r in self.results if r.status == "undecided")

    @property
    def status(self) -> str:
        """``holds``; ``undecided`` when nothing is violated but something is undecided;
        otherwise ``violated`` (a violation, a crashed check or a claim without instances)."""
        if self.holds:
            return "holds"
        if all(r.holds or r.status == "undecided" for r in self.results):
            return "undecided"
        return "violated"

    def result(self, claim_id: str) -> ClaimResult:
        """The result of the claim with id ``claim_id``."""
        for r in self.results:
            if r.claim.id == claim_id:
                return r
        raise KeyError(claim_id)

    def to_dict(self) -> dict:
        return {"check": "claims", "holds": self.holds, "status": self.status,
                "claims": len(self.results),
                "instances": sum(r.instances for r in self.results),
                "violated_claims": [r.claim.id for r in self.results
                                    if not r.holds and r.status != "undecided"],
                "undecided_claims": [r.claim.id for r in self.undecided],
                "results": [r.to_dict() for r in self.results]}

    def explain(self) -> str:
        total = sum(r.instances for r in self.results)
        failed = len(self.violated) - len(self.undecided)
        summary = []
        if failed:
            summary.append(f"{failed} VIOLATED or failed")
        if self.undecided:
            summary.append(f"{len(self.undecided)} UNDECIDED")
        head = (f"{len(self.results)} claims on {total} instances: "
                + ("all hold" if self.holds else ", ".join(summary)))
        return "\n".join([head] + [f"  {r.explain()}" for r in self.results])


def _label(instance: object) -> str:
    label = getattr(instance, "label", None)
    return label if isinstance(label, str) else repr(instance)


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


@dataclass(frozen=True)
class ClaimPart:
    """A claim run on the instances whose position ``k`` in its generator has
    ``k % parts == part`` (one task when a claim is split); :func:`merge_parts` joins the parts
    into the :class:`ClaimResult` a whole run gives.  Events carry their instance position so
    that "first" means first in the generator's order, however the parts ran."""

    instances: int
    violated: int
    check_errors: int
    undecided: int
    violations: tuple[tuple[int, str, dict | None], ...]   # the first listed, by position
    first_error: tuple[int, str] | None
    first_undecided: tuple[int, str] | None
    generator_error: str | None


def run_claim(claim: Claim) -> ClaimResult:
    """Check ``claim`` on every instance its generator yields."""
    return merge_parts(claim, [run_claim_part(claim, 0, 1)])


def run_claim_part(claim: Claim, part: int, parts: int, first: int | None = None) -> ClaimPart:
    """Check ``claim`` on its instances at positions ``k ≡ part (mod parts)``; with ``first``,
    only among the first ``first`` instances its generator yields (the rest are not generated)."""
    instances = violated = check_errors = undecided = 0
    violations: list[tuple[int, str, dict | None]] = []
    first_error = first_undecided = generator_error = None
    try:
        generated: Iterable[object] = claim.generate()
        if first is not None:
            generated = islice(generated, first)
        for position, instance in enumerate(generated):
            if position % parts != part:
                continue
            instances += 1
            try:
                outcome = claim.check(instance)
                if not isinstance(outcome, ClaimOutcome):
                    raise TypeError(f"the check returned {type(outcome).__name__}, not ClaimOutcome")
            except Exception as error:  # a crashing check is a defect, reported, never a pass
                check_errors += 1
                if first_error is None:
                    first_error = (position, f"{_label(instance)}: {_error_text(error)}")
                continue
            if outcome.undecided:
                undecided += 1
                if first_undecided is None:
                    first_undecided = (position, f"{_label(instance)}: {outcome.detail}")
            elif not outcome.holds:
                violated += 1
                if len(violations) < MAX_LISTED_VIOLATIONS:
                    violations.append((position, f"{_label(instance)}: {outcome.detail}",
                                       outcome.counterexample))
    except Exception as error:  # the generator itself failed (every part sees it)
        generator_error = f"generating instances: {_error_text(error)}"
    return ClaimPart(instances, violated, check_errors, undecided, tuple(violations), first_error,
                     first_undecided, generator_error)


def merge_parts(claim: Claim, parts: Sequence[ClaimPart]) -> ClaimResult:
    """The :class:`ClaimResult` of the whole run from its parts (any order)."""
    violations = sorted((v for p in parts for v in p.violations), key=lambda v: v[0])
    errors = [e for p in parts if p.first_error for e in [p.first_error]]
    undecided = [u for p in parts if p.first_undecided for u in [p.first_undecided]]
    generator_error = next((p.generator_error for p in parts if p.generator_error), None)
    first_error = min(errors)[1] if errors else generator_error
    first = violations[0] if violations else None
    return ClaimResult(
        claim, sum(p.instances for p in parts), sum(p.violated for p in parts),
        sum(p.check_errors for p in parts) + (1 if generator_error else 0),
        first[1] if first else None, first[2] if first else None,
        tuple(text for _, text, _ in violations[:MAX_LISTED_VIOLATIONS]), first_error,
        sum(p.undecided for p in parts), min(undecided)[1] if undecided else None)


def run_claims(claims: Iterable[Claim], progress: Callable[[str], None] | None = None,
               engine: Engine | None = None) -> ClaimsReport:
    """Run every claim; ``progress(claim_id)`` is called after each claim finishes.

    On a Dask ``engine`` (:mod:`pufferfish.verify.execution`) each registered claim is a task that
    the worker looks up by id — split into one task per worker (instances dealt round-robin) when
    there are fewer than four claims per worker — and the parts are merged in generator order,
    so the report is the same as in one process.
    """
    claims = list(claims)
    parts = 1
    if engine is not None and len(claims) < 4 * engine.workers:
        parts = engine.workers
    return ClaimsReport(tuple(_sweep(run_claim, _run_claim_part_by_id, merge_parts, claims,
                                     parts, progress, engine)))


def run_first_instances(claims: Iterable[Claim], count: int = 1,
                        progress: Callable[[str], None] | None = None) -> ClaimsReport:
    """Every claim checked on the first ``count`` instances its generator yields only, in this
    process: a quick look at the claims, whose report counts exactly the instances it ran (a claim
    violated only on a later instance holds here; :func:`run_claims` runs them all).

    >>> from pufferfish.proofs_check.registry import claims_for
    >>> report = run_first_instances(claims_for(claim_id="000.thm2.expected_runs"))
    >>> report.results[0].instances, report.status
    (1, 'holds')
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, not {count}")
    results = []
    for claim in claims:
        results.append(merge_parts(claim, [run_claim_part(claim, 0, 1, first=count)]))
        if progress is not None:
            progress(claim.id)
    return ClaimsReport(tuple(results))


def _run_claim_part_by_id(claim_id: str, part: int, parts: int) -> ClaimPart:
    return run_claim_part(_registered(claim_id), part, parts)


def _registered(claim_id: str) -> Claim:
    from pufferfish.proofs_check.registry import claims_for
    return claims_for(claim_id=claim_id)[0]


def _sweep(run_one: Callable, run_part_by_id: Callable, merge: Callable, claims: list[Claim],
           parts: int, progress: Callable[[str], None] | None, engine: Engine | None) -> list:
    """``[run_one(claim) for claim in claims]``, as tasks on ``engine`` when it has workers.

    A task carries only the claim's id and its part (claims hold closures and models, so they
    are looked up in the worker's registry); ``merge(claim, parts)`` joins a claim's parts.
    Claims that are not registered run in this process.
    """
    if engine is None or isinstance(engine, InProcessEngine):
        results = []
        for claim in claims:
            results.append(run_one(claim))
            if progress is not None:
                progress(claim.id)
        return results
    from pufferfish.proofs_check.registry import all_claims
    registered = {c.id for c in all_claims()}
    remote = [c for c in claims if c.id in registered]
    groups: dict[str, list[str]] = {}
    for claim in remote:  # claims sharing a per-process cache run in one task
        groups.setdefault(claim.shares or claim.id, []).append(claim.id)
    # the groups first (stable): the longest tasks start first and the singles fill in after
    ordered = sorted(groups.values(), key=len, reverse=True)
    tasks = [(run_part_by_id, tuple(ids), part, parts) for ids in ordered for part in range(parts)]
    done = engine.map(_run_group, tasks,
                      progress=None if progress is None else
                      lambda count, total: progress(tasks[count - 1][1][0]))
    finished: dict[str, list] = {}
    for (_, ids, _, _), results in zip(tasks, done):  # parts of a claim come in part order
        for claim_id, result in zip(ids, results):
            finished.setdefault(claim_id, []).append(result)
    by_id = {c.id: merge(c, finished[c.id]) for c in remote}
    return [by_id[c.id] if c.id in by_id else run_one(c) for c in claims]


def _run_group(run_part_by_id: Callable, claim_ids: tuple[str, ...], part: int,
               parts: int) -> list:
    """One task: part ``part`` of ``parts`` of each claim of ``claim_ids``, in order."""
    return [run_part_by_id(claim_id, part, parts) for claim_id in claim_ids]


@dataclass(frozen=True)
class VacuityResult:
    """The mutants of one claim: which the check killed and which survived (label, reason)."""

    claim: Claim
    killed: tuple[str, ...]
    survived: tuple[str, ...]

    @property
    def status(self) -> str:
        """``no mutants``, ``survived`` (some mutant was not rejected) or ``killed``."""
        if not self.killed and not self.survived:
            return "no mutants"
        return "survived" if self.survived else "killed"

    def to_dict(self) -> dict:
        return {"id": self.claim.id, "status": self.status, "killed": list(self.killed),
                "survived": list(self.survived)}

    def explain(self) -> str:
        if self.status == "no mutants":
            return f"{self.claim.id}: NO MUTANT (vacuity not tested)"
        text = f"{self.claim.id}: {len(self.killed)}/{len(self.killed) + len(self.survived)} " \
               "mutants killed"
        if self.survived:
            text += f"; SURVIVED: {list(self.survived)}"
        return text


@dataclass(frozen=True)
class VacuityReport:
    """:class:`VacuityResult` of a set of claims; ``holds`` when no mutant survived."""

    results: tuple[VacuityResult, ...]

    @property
    def holds(self) -> bool:
        return all(r.status != "survived" for r in self.results)

    @property
    def without_mutants(self) -> tuple[str, ...]:
        """The ids of the claims that carry no mutant."""
        return tuple(r.claim.id for r in self.results if r.status == "no mutants")

    def to_dict(self) -> dict:
        return {"check": "vacuity", "holds": self.holds, "claims": len(self.results),
                "mutants": sum(len(r.killed) + len(r.survived) for r in self.results),
                "survived": [r.claim.id for r in self.results if r.status == "survived"],
                "without_mutants": list(self.without_mutants),
                "results": [r.to_dict() for r in self.results]}

    def explain(self) -> str:
        mutants = sum(len(r.killed) + len(r.survived) for r in self.results)
        killed = sum(len(r.killed) for r in self.results)
        head = (f"{len(self.results)} claims, {mutants} mutants: {killed} killed, "
                f"{mutants - killed} survived; {len(self.without_mutants)} claims without a mutant")
        return "\n".join([head] + [f"  {r.explain()}" for r in self.results])


def run_mutants(claim: Claim) -> VacuityResult:
    """Run every mutant of ``claim``; a mutant whose run raises counts as surviving (with the
    error in its label), never as killed."""
    killed, survived = [], []
    for mutant in claim.mutants:
        try:
            (killed if mutant.killed() else survived).append(mutant.label)
        except Exception as error:  # a crashing mutant run is a defect, not a kill
            survived.append(f"{mutant.label} ({_error_text(error)})")
    return VacuityResult(claim, tuple(killed), tuple(survived))


def run_vacuity(claims: Iterable[Claim], progress: Callable[[str], None] | None = None,
                engine: Engine | None = None) -> VacuityReport:
    """Run the mutants of every claim (see :class:`pufferfish.proofs_check.registry.Mutant`),
    one task per claim on ``engine`` like :func:`run_claims`."""
    return VacuityReport(tuple(_sweep(run_mutants, _run_mutants_by_id, _with_claim,
                                      list(claims), 1, progress, engine)))


def _run_mutants_by_id(claim_id: str, part: int, parts: int) -> VacuityResult:
    return replace(run_mutants(_registered(claim_id)), claim=None)


def _with_claim(claim: Claim, parts: Sequence[VacuityResult]) -> VacuityResult:
    return replace(parts[0], claim=claim)
