"""The model audit (``000_65109fe28ca61d17.txt`` Definitions 1–5): a model with nothing to audit is
refused, never reported as holding."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pufferfish.examples import example_path
from pufferfish.models.errors import ModelError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import UniformPrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.audit import audit_model


def empty_model() -> PufferfishModel:
    universe = Universe.product(["x1"], [[0, 1]])
    s0 = Secret.where("x1=0", universe, {"x1": 0})
    s1 = Secret.where("x1=1", universe, {"x1": 1})
    return PufferfishModel(universe, {"uniform": UniformPrior("uniform", universe)},
                           {"x1=0": s0, "x1=1": s1}, [SecretPair(s0, s1)])


@pytest.mark.parametrize("budget", [None, "1", "log(3)", "inf"])
def test_a_model_without_mechanisms_is_refused(budget):
    with pytest.raises(ModelError, match="no mechanisms") as info:
        audit_model(empty_model(), None if budget is None else parse_budget(budget))
    assert info.value.path == "mechanisms"


def test_the_command_line_exits_2_on_a_model_without_mechanisms(tmp_path):
    data = json.loads(example_path("composable_rr.json").read_text())
    data["mechanisms"] = {}
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-c", "import sys; from pufferfish.cli.main import main; "
                           "sys.exit(main())", "audit", str(path), "--epsilon", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "holds" not in done.stdout
