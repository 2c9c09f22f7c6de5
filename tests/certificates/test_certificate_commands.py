"""``audit --certificate FILE``, ``pufferfish.audit(..., certificate=FILE)`` and
``pufferfish check-certificate``: written atomically, checked with exit 0 / 1 / 2."""

from __future__ import annotations

import json

import pytest

import pufferfish
from pufferfish.cli.main import main
from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError


@pytest.fixture
def run(capsys):
    def command(*argv) -> tuple[int, str, str]:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return command


def test_audit_writes_a_certificate_that_check_certificate_accepts(tmp_path, run):
    certificate = tmp_path / "quickstart.cert.json"
    code, out, err = run("audit", example_path("quickstart.json"), "--epsilon", "log(3)",
                         "--epsilon-dp", "log(2)", "--certificate", certificate)
    assert code == 1 and "VIOLATED" in out and f"wrote {certificate}" in err
    data = json.loads(certificate.read_text())
    assert data["pufferfish_certificate"] == 1 and data["holds"] is False
    witness = data["mechanisms"][0]["pufferfish"]["witness"]  # the violation's evidence
    assert {"direction", "prior", "output", "p_first", "p_second"} <= set(witness)
    code, out, _ = run("check-certificate", certificate)
    assert code == 0 and out.startswith("accepted")
    code, out, _ = run("check-certificate", certificate, example_path("quickstart.json"), "--json")
    document = json.loads(out)
    assert code == 0 and document["accepted"] is True and document["reason"] is None


def test_check_certificate_rejects_and_refuses(tmp_path, run):
    certificate = tmp_path / "coin.cert.json"
    assert run("audit", example_path("hidden_coin.json"), "--certificate", certificate)[0] == 0
    data = json.loads(certificate.read_text())
    data["mechanisms"][0]["datasets"][0][1][0][1] = "1/3"
    certificate.write_text(json.dumps(data))
    code, out, _ = run("check-certificate", certificate)
    assert code == 1 and "rejected" in out and "recomputed" in out
    code, out, _ = run("check-certificate", certificate, "--json")
    assert code == 1 and json.loads(out)["accepted"] is False
    (tmp_path / "list.json").write_text("[1, 2]")
    code, _, err = run("check-certificate", tmp_path / "list.json")
    assert code == 2 and "not a certificate" in err and "Traceback" not in err
    (tmp_path / "broken.json").write_text("{")
    assert run("check-certificate", tmp_path / "broken.json")[0] == 2
    assert run("check-certificate", tmp_path / "missing.json")[0] == 2
    code, _, err = run("check-certificate", certificate,
                       example_path("quickstart_parametric.json"))
    assert code == 2 and "parametric" in err


def test_a_failed_audit_leaves_the_previous_certificate(tmp_path, run):
    certificate = tmp_path / "c.json"
    assert run("audit", example_path("quickstart.json"), "--certificate", certificate)[0] == 0
    before = certificate.read_bytes()
    code, _, err = run("audit", example_path("quickstart.json"), "--mechanism", "nothing",
                       "--certificate", certificate)
    assert code == 2 and "unknown mechanism" in err
    assert certificate.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]  # no temporary file left
    code, _, err = run("audit", example_path("quickstart.json"), "--certificate", tmp_path)
    assert code == 2 and "--certificate" in err


def test_symbolic_audits_have_no_certificate(tmp_path, run):
    code, _, err = run("audit", example_path("quickstart_parametric.json"), "--symbolic",
                       "--certificate", tmp_path / "c.json")
    assert code == 2 and "closed form has no certificate" in err


def test_python_audit_writes_the_certificate(tmp_path):
    import pufferfish_check

    path = tmp_path / "sum.cert.json"
    result = pufferfish.audit("quickstart.json", "log(6)", mechanisms=["sum"], certificate=path)
    assert result.holds is True
    data = json.loads(path.read_text())
    assert [m["name"] for m in data["mechanisms"]] == ["sum"] and data["holds"] is True
    assert pufferfish_check.check_certificate(data).accepted
    with pytest.raises(ModelError, match="model file"):
        pufferfish.certificate(pufferfish.load("quickstart.json"))
    with pytest.raises(ModelError, match="model file"):
        pufferfish.audit(pufferfish.load("quickstart.json"), certificate=path)


def test_window_bits_narrow_a_programs_bound(tmp_path, run):
    certificate = tmp_path / "svt5.cert.json"
    assert run("audit", example_path("dp_benchmarks/svt5.json"), "--certificate",
               certificate, "--quiet")[0] == 0
    masses = []
    for bits in ("16", "20"):
        code, out, _ = run("check-certificate", certificate, "--window-bits", bits, "--json")
        document = json.loads(out)
        assert code == 0 and document["accepted"], document["reason"]
        masses.append(float(document["notes"][0].split("at most ")[1].split(" ")[0]))
    assert masses[1] < masses[0] / 10
