"""A trusted program (``"trusted": true``: outside the program language, run as it is) never gets
a plain verdict: the audit's text, its JSON, its HTML view, its certificate and every other
command's output say that each verdict assumes the program is a deterministic function of its
draws; the same program without the key is refused before it runs."""

from __future__ import annotations

import json

import pytest

from pufferfish.api import load
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.audit import audit_model
from pufferfish.verify.privacy.certificate import audit_certificate

# Honest and deterministic, but outside the language: it prints.
PROGRAM = '''from pufferfish.models.programs import coin


def noisy_bit(data):
    print("a run")
    return data[0] if coin("3/4") else 1 - data[0]
'''
ASSUMES = "assumes: the trusted program bit (noisy_bit.py:noisy_bit) is taken to be a deterministic"


def model_file(tmp_path, trusted: bool):
    (tmp_path / "noisy_bit.py").write_text(PROGRAM)
    program = {"file": "noisy_bit.py", "function": "noisy_bit"}
    if trusted:
        program["trusted"] = True
    model = {"pufferfish_model": 1, "attributes": ["x"], "domain": [0, 1], "datasets": "all",
             "priors": {"fair": {"uniform": True}},
             "secrets": {"x=0": {"where": {"x": 0}}, "x=1": {"where": {"x": 1}}},
             "pairs": [["x=0", "x=1"]], "mechanisms": {"bit": {"program": program}}}
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    return path


def test_without_the_key_the_program_is_refused_before_it_runs(tmp_path, cli):
    code, out, err = cli("audit", model_file(tmp_path, trusted=False), "--epsilon", "log(3)")
    assert code == 2 and out == ""
    assert "noisy_bit.py, line 5: print() is not allowed in a program" in " ".join(err.split())
    assert "return it instead" in err


def test_every_verdict_of_a_trusted_program_states_its_assumption(tmp_path, cli):
    path = model_file(tmp_path, trusted=True)
    code, out, _ = cli("audit", path, "--epsilon", "log(3)", "--epsilon-dp", "log(3)")
    assert code == 0
    assert "budget ε = log(3): holds, assuming the trusted program is deterministic" in out
    assert "DP budget ε = log(3) (entry): holds, assuming the trusted program" in out
    assert ASSUMES in out
    code, out, _ = cli("audit", path, "--epsilon", "log(2)", "--json")
    document = json.loads(out)
    assert code == 1 and document["holds"] is False
    assert len(document["assumptions"]) == 1 and "noisy_bit.py:noisy_bit" in \
        document["assumptions"][0]
    # a command whose result object knows nothing of programs says it too
    code, out, _ = cli("approximate-dp", path, "--epsilon", "log(3)", "--delta", "0")
    assert code == 0 and "(log(3), 0)-DP: holds, assuming the trusted program" in out
    assert ASSUMES in out


def test_the_python_result_and_the_certificate_carry_the_assumption(tmp_path):
    model = load(model_file(tmp_path, trusted=True))
    audit = audit_model(model, parse_budget("log(3)"))
    assert audit.holds is True and audit.assumptions == model.assumptions()
    assert "holds, assuming" in audit.summary() and "assumes:" in audit._repr_html_()
    certificate = audit_certificate(model, audit)
    assert certificate["assumptions"] == list(audit.assumptions)


@pytest.mark.parametrize("trusted", [True, False])
def test_a_checked_program_assumes_nothing(tmp_path, trusted):
    (tmp_path / "bit.py").write_text(PROGRAM.replace('    print("a run")\n', ""))
    from pufferfish.models.programs import load_program
    from pufferfish.models.programs.mechanism import ProgramMechanism

    program = load_program("bit.py", "noisy_bit", tmp_path, trusted=trusted)
    mechanism = ProgramMechanism("bit", program, trusted=trusted)
    assert bool(mechanism.assumptions()) is trusted
