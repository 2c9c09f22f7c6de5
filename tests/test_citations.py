"""What a reader sees cites the source papers readably, never by the file name of their text copy.

A paper's key (``000_65109fe28ca61d17.txt``, or its number ``000``) is data: the bibliography
holds it, a claim keeps it in ``paper``, ``theorems --paper 000`` selects by it.  Every docstring,
comment, documentation page, example description, help text and report writes the citation
:func:`pufferfish.bibliography.cite` gives (``Bai et al., Composition for Pufferfish Privacy, §4``).
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

TREES = ("pufferfish", "models", "verify", "proofs_check", "examples", "docs", "benchmarks",
         "README.md")
"""Where a reader meets the papers: the package, its documentation and benchmarks."""

KEYS_SHOWN = {"pufferfish/bibliography.py", "docs/bibliography.md"}
"""The only files that show the keys: the bibliography, which maps each key to its paper."""

FILE_NAME = re.compile(r"\d{3}_[0-9a-f]{16}")
SHORT = re.compile(r"(?<![\w`.])00[0-4] (?:§|Example|Definition|Theorem|Lemma|Proposition|"
                   r"Corollary|Algorithm|Figure|Table|Section|App)")
"""A paper named by its number only (``000 §5.1``); allowed as the argument of ``cite(...)``."""


def _tracked() -> list[str]:
    try:
        listed = subprocess.run(["git", "ls-files", "--", *TREES], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [name for name in listed if name.endswith((".py", ".md", ".json", ".rst", ".txt"))]


def _offenders(pattern: re.Pattern, skip_cite_arguments: bool) -> list[str]:
    found = []
    for name in _tracked():
        if name in KEYS_SHOWN:
            continue
        text = (ROOT / name).read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            for match in pattern.finditer(line):
                if skip_cite_arguments and re.search(r"cite\(f?[\"']$", line[:match.start()]):
                    continue
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    return found


def test_no_file_shows_a_paper_by_the_file_name_of_its_copy():
    offenders = _offenders(FILE_NAME, skip_cite_arguments=False)
    assert not offenders, ("cite the paper readably (pufferfish.bibliography.cite; use "
                           "paper(NUMBER).key where the key is data):\n" + "\n".join(offenders))


def test_no_file_cites_a_paper_by_its_number_alone():
    offenders = _offenders(SHORT, skip_cite_arguments=True)
    assert not offenders, ("cite the paper readably (pufferfish.bibliography.cite):\n"
                           + "\n".join(offenders))


def test_the_allowed_files_exist():
    for name in KEYS_SHOWN:
        assert (ROOT / name).is_file(), name


def _parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def test_no_command_help_names_a_paper_by_its_key():
    from pufferfish.cli.main import build_parser

    for parser in _parsers(build_parser()):
        text = parser.format_help()
        assert not FILE_NAME.search(text) and not SHORT.search(text), parser.prog


def test_the_claims_list_and_a_collapse_report_cite_readably():
    from pufferfish.proofs_check.paper_000.collapse_report import collapse_report
    from pufferfish.proofs_check.registry import all_claims

    for claim in all_claims():
        assert not FILE_NAME.search(claim.citation), claim.id
        assert claim.citation.startswith(("Bai et al.", "Ding et al.", "Wang et al.",
                                          "Zhang et al.")), claim.id
    report = collapse_report("parity", n=3)
    assert "Bai et al., Composition for Pufferfish Privacy" in report.explain()
    assert not FILE_NAME.search(report.explain())
