"""``pufferfish approximate-dp``: verdicts, exit statuses and refusals."""

from __future__ import annotations

import json

from pufferfish.examples import example_path

QUICKSTART = example_path("quickstart.json")


def test_verdicts_and_exit_statuses(cli):
    code, out, _ = cli("approximate-dp", QUICKSTART, "--mechanism", "rr",
                       "--epsilon", "log(2)", "--delta", "1/4")
    assert code == 0 and "(log(2), 1/4)-DP: holds" in out
    code, out, _ = cli("approximate-dp", QUICKSTART, "--mechanism", "rr",
                       "--epsilon", "log(2)", "--delta", "1/5", "--json")
    document = json.loads(out)
    assert code == 1 and document["holds"] is False
    assert document["results"][0]["delta"] == "1/4"
    code, out, _ = cli("approximate-dp", QUICKSTART, "--mechanism", "rr", "--delta", "1/4")
    assert code == 0 and "least ε with δ(ε) ≤ 1/4: log(2)" in out


def test_bad_input_is_refused(cli):
    code, _, err = cli("approximate-dp", QUICKSTART, "--delta", "2")
    assert code == 2 and "[0, 1]" in err
    code, _, err = cli("approximate-dp", QUICKSTART)
    assert code == 2 and "--epsilon, --delta or both" in err
    code, _, err = cli("approximate-dp", QUICKSTART, "--delta", "0.1", "--mechanism", "x")
    assert code == 2 and "unknown mechanism 'x'" in err


def test_a_dp_only_model_needs_no_prior(cli):
    """DP is a property of the mechanism alone: a model without priors and secret pairs (the
    how-to's DP-only form) is read by ``approximate-dp`` and ``epsilon-range`` as by
    ``pufferfish.approximate_dp``."""
    survey = example_path("survey_count.json")
    code, out, _ = cli("approximate-dp", survey, "--epsilon", "log(2)", "--delta", "0")
    assert code == 0 and "(log(2), 0)-DP: holds" in out
    code, out, _ = cli("approximate-dp", survey, "--epsilon", "1/2", "--delta", "0")
    assert code == 1 and "VIOLATED" in out
    code, _, err = cli("epsilon-range", survey, "--low", "1/10", "--high", "2")
    assert code == 2 and "needs priors" not in err and "not a program with an argument" in err
