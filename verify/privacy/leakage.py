"""Zero leakage / posterior equality (Bai et al., Composition for Pufferfish Privacy, §2.2,
Definition 4).

A posterior-based definition assigns leakage 0 to ``M`` when ``Pr[s | M(Data) = ω, θ] = Pr[s | θ]``
for every secret ``s``, every prior ``θ ∈ Θ`` and every output ω (of positive probability, so the
posterior is defined).  This module checks that exactly and, when it fails, reports the worst
posterior shift ``max |Pr[s | ω, θ] − Pr[s | θ]|`` with the secret, prior and output attaining it.

Definition 4 needs the whole prior θ, not only its conditionals given secrets, so it is evaluated
on the model's finite priors; interval families (which constrain only ``θ(·|s)``) are listed as
not evaluated.  Cost: one pass per prior (:mod:`pufferfish.verify.privacy.joint`) plus ``O(#secrets·|Ω|)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import exact_ratio, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.privacy.joint import SecretJoint, accumulate
from pufferfish.verify.privacy.supports import audited_datasets, prior_supports
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class LeakageResult(Explained):
    """Whether every posterior equals its prior; the worst shift and where it happens if not."""

    mechanism: str
    zero_leakage: bool
    worst_shift: Fraction
    secret: str | None = None
    prior: str | None = None
    output: object = None
    prior_probability: Fraction | None = None
    posterior_probability: Fraction | None = None
    not_evaluated: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        return self.zero_leakage

    def to_dict(self) -> dict:
        data = {"check": "leakage", "mechanism": self.mechanism, "zero_leakage": self.zero_leakage,
                "worst_shift": fraction_str(self.worst_shift), "witness": None,
                "not_evaluated": list(self.not_evaluated)}
        if self.secret is not None:
            data["witness"] = {"secret": self.secret, "prior": self.prior,
                               "output": jsonable_output(self.output),
                               "prior_probability": fraction_str(self.prior_probability),
                               "posterior_probability": fraction_str(self.posterior_probability)}
        return data

    def explain(self) -> str:
        if self.zero_leakage:
            text = f"{self.mechanism}: zero leakage (every posterior equals its prior)"
        else:
            text = (f"{self.mechanism}: leaks; worst posterior shift {fraction_str(self.worst_shift)}"
                    f" for secret {self.secret} under {self.prior} on output "
                    f"{jsonable_output(self.output)!r} (prior {fraction_str(self.prior_probability)},"
                    f" posterior {fraction_str(self.posterior_probability)})")
        if self.not_evaluated:
            text += f"; not evaluated for interval families {list(self.not_evaluated)}"
        return text


def leakage(model: PufferfishModel, mechanism: Mechanism,
            max_datasets: int = DEFAULT_MAX_DATASETS,
            max_outputs: int = DEFAULT_MAX_OUTPUTS) -> LeakageResult:
    """Check Definition 4's posterior equality for every declared secret and finite prior."""
    supports = prior_supports(model, max_datasets)
    table = KernelTable.build(mechanism, audited_datasets(model, max_datasets), max_outputs)
    secrets = list(model.secrets.values())
    joints = {name: accumulate(name, support, table, secrets) for name, support in supports.items()}
    return leakage_from_joints(model, mechanism.name, joints)


def leakage_from_joints(model: PufferfishModel, mechanism_name: str,
                        joints: dict[str, SecretJoint]) -> LeakageResult:
    """Definition 4's check from each finite prior's :class:`SecretJoint` over every declared
    secret (in the model's prior order).  Cost ``O(#priors·#secrets·|Ω|)``."""
    secrets = list(model.secrets.values())
    worst = Fraction(0)
    witness = None
    for prior_name, joint in joints.items():
        table = joint.table
        total_mass = joint.total_mass
        for secret in secrets:
            mass = joint.mass[secret.name]
            for o, total in enumerate(joint.total_joint):
                if not total:
                    continue
                # posterior - prior = J_s/J_all - M_s/M_all, exactly
                shift = exact_ratio(joint.joint[secret.name][o] * total_mass - mass * total,
                                    total * total_mass)
                if abs(shift) > worst:
                    worst = abs(shift)
                    witness = (secret.name, prior_name, table.outputs[o], Fraction(mass, total_mass),
                               exact_ratio(joint.joint[secret.name][o], total))
    skipped = tuple(model.interval_families)
    if witness is None:
        return LeakageResult(mechanism_name, True, Fraction(0), not_evaluated=skipped)
    return LeakageResult(mechanism_name, False, worst, *witness, not_evaluated=skipped)
