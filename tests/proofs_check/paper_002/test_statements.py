"""The statement inventory of paper 002 (``proofs_check/paper_002/statements.py``): every claim of
the paper checks some listed statement, every listed claim exists, names are unique."""

from __future__ import annotations

from pufferfish.proofs_check.paper_002.statements import STATEMENTS
from pufferfish.proofs_check.registry import claims_for


def test_every_claim_of_the_paper_checks_a_listed_statement():
    listed = {claim for s in STATEMENTS for claim in s.claims}
    assert {c.id for c in claims_for(paper="002")} <= listed


def test_every_listed_claim_is_registered_for_the_paper():
    registered = {c.id for c in claims_for(paper="002")}
    for statement in STATEMENTS:
        assert set(statement.claims) <= registered, statement.name


def test_statement_names_are_unique_and_explained():
    names = [s.name for s in STATEMENTS]
    assert len(names) == len(set(names))
    assert all(s.claims or s.reason for s in STATEMENTS)
