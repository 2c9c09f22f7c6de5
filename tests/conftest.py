"""Fixtures shared by every test folder, and how the suite is split between parallel workers.

The suite runs in parallel (``pytest-xdist``: ``-n auto --dist loadgroup`` in the pytest
options of ``pyproject.toml``, one worker process per core; ``pytest -n 0`` runs everything in
one process).  Each test goes to whichever worker is free, except the tests of one *group*
(:data:`GROUPS`), which go together to one worker and run there one after the other:

* ``claims``: the tests that read results of registered claims (:func:`claim_results`, each
  claim run at most once per process) or that reuse the caches the claims fill in a process
  (the mutants of the vacuity tests, the Top-K tables' samples, the figures' noise scales) —
  in one process each of those is computed once, as in a serial run;
* ``dask``: the modules that start local Dask clusters (a cluster shared by a module, workers
  killed in the middle of a run): one at a time, so that two clusters never compete for the
  two cores;
* ``cli-json``: the pure-JSON and schema tests of the command line, which read one subprocess
  run of every command (the ``json_outputs`` fixture of ``tests/cli/conftest.py``).

The groups are named by path here, not by the ``xdist_group`` mark, because pytest 9.2 no longer
lets ``pytest-xdist`` (3.8) write a test's group into its id.  Work starts with the longest
units (:data:`FIRST`), so that no long test is left to run alone at the end.
"""

from __future__ import annotations

import dataclasses

import pytest

GROUPS: dict[str, tuple[str, ...]] = {
    "claims": (
        "tests/proofs_check/",
        "tests/test_findings.py::",
        "tests/verify/dcp/test_dcp.py::test_claims_of_paper_004",
        "tests/verify/multiuser/test_calibration.py::test_claims_of_paper_001",
        "tests/verify/nfc/test_postprocessing.py::test_theorem_5_",
        "tests/verify/quilts/test_mqm.py::test_claims_of_section_4",
        "tests/verify/quilts/test_mqm_histogram.py::test_theorem_b9_claims",
        "tests/verify/transport/test_wasserstein.py::test_claims_of_paper_002",
    ),
    "dask": (
        "tests/verify/test_execution.py::",
        "tests/verify/test_execution_sweeps.py::",
        "tests/cli/test_execution_options.py::",
        "tests/cli/test_sweeps_on_cluster.py::",
    ),
    "cli-json": (
        "tests/cli/test_pure_json.py::",
        "tests/cli/test_output_schemas.py::test_outputs_validate_against_their_schema",
    ),
}
"""Group name -> the test ids (prefixes) of its tests."""

FIRST: tuple[str, ...] = (
    "claims",
    "dask",
    "tests/test_readme.py::",
    "cli-json",
    "tests/cli/test_bad_input.py::test_interruption_",
)
"""The work handed out first, longest first: group names and test id prefixes.  Any other test
follows in the order of collection."""


def group_of(nodeid: str) -> str | None:
    """The group (:data:`GROUPS`) of the test with id ``nodeid``, if any."""
    for name, prefixes in GROUPS.items():
        if nodeid.startswith(prefixes):
            return name
    return None


def _rank(scope: str) -> int:
    """The place of a unit of work (a group name or a test id) in :data:`FIRST`."""
    for place, start in enumerate(FIRST):
        if scope == start or (start.startswith("tests/") and scope.startswith(start)):
            return place
    return len(FIRST)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadgroup``: the groups of :data:`GROUPS`, longest work first."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class PathGroupScheduling(LoadGroupScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)  # an xdist_group mark, where pytest keeps it
            if scope != nodeid:
                return scope
            return group_of(nodeid) or nodeid

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the first assignment: the whole queue is known
                units = sorted(self.workqueue.items(), key=lambda unit: _rank(unit[0]))
                self.workqueue.clear()
                self.workqueue.update(units)
                self.ordered = True
            super()._assign_work_unit(node)

    return PathGroupScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """A test that takes :func:`claim_results` outside the ``claims`` group still passes, but
    computes its claims again in another process: say so."""
    for item in items:
        if "claim_results" in getattr(item, "fixturenames", ()) and group_of(item.nodeid) not in (
                "claims", "dask"):
            item.warn(pytest.PytestWarning(
                "this test takes claim_results but is not in the 'claims' group of "
                "tests/conftest.py: in a parallel run it computes its claims again"))


@pytest.fixture(scope="session")
def claim_results():
    """``run(claims) -> ClaimsReport``: the report ``run_claims(claims)`` gives in this process,
    with each registered claim run at most once per test process and its ``ClaimResult`` shared
    (it is immutable; the counterexample dict is copied for each caller).  A claim that is not
    the registered object with its id — a test's own claim, or a registered one with parts
    replaced — is run afresh."""
    from pufferfish.proofs_check.registry import all_claims
    from pufferfish.proofs_check.runner import ClaimsReport, run_claim

    done: dict = {}

    def result_of(claim):
        registered = {c.id: c for c in all_claims()}
        if registered.get(claim.id) is not claim:
            return run_claim(claim)
        if claim.id not in done:
            done[claim.id] = run_claim(claim)
        result = done[claim.id]
        return dataclasses.replace(result, first_counterexample=_copy(result.first_counterexample))

    def run(claims) -> ClaimsReport:
        return ClaimsReport(tuple(result_of(claim) for claim in claims))

    return run


def _copy(value):
    import copy
    return copy.deepcopy(value)
