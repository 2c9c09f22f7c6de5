"""Every option the documentation shows on a command exists on that command: each
``pufferfish CMD ... --option`` of a command block, and each code span that starts with a
subcommand (``influence --out``, ``pufferfish audit --epsilon``), in the README, the docs pages
and the docstrings of the package (which the API pages show).  A hidden option (an old spelling
still read) may be named only where the same line says it is an old or deprecated spelling."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from pufferfish.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(ROOT.glob("docs/**/*.md")) + [ROOT / "README.md"]
SOURCES = sorted(p for folder in ("models", "verify", "pufferfish", "proofs_check")
                 for p in (ROOT / folder).rglob("*.py"))
OLD = ("old spelling", "deprecat")

PARSER = build_parser()
COMMANDS = [a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)][0].choices


def _command(words: list[str]) -> tuple[argparse.ArgumentParser | None, int]:
    """The parser of the (sub)command the words start with and how many words name it."""
    parser = COMMANDS.get(words[0]) if words else None
    if parser is None:
        return None, 0
    inner = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if inner and len(words) > 1 and words[1] in inner[0].choices:
        return inner[0].choices[words[1]], 2
    return parser, 1


def _fragments(path: Path):
    """``(line number, line, text)`` of each command line in a fenced block and each code span."""
    fenced = False
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        if path.suffix == ".md" and line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            text = line.strip().removeprefix("$").strip()
            while text.endswith("\\") and number < len(lines):
                text = text[:-1] + " " + lines[number].strip()
                number += 1
            if text.startswith("pufferfish "):
                yield number, line, text
        else:
            for span in re.findall(r"`+([^`]+)`+", line):
                yield number, line, span


def unknown_options(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    for number, line, text in _fragments(path):
        words = text.split()
        if words and words[0] == "pufferfish":
            words = words[1:]
        parser, used = _command(words)
        if parser is None:
            continue
        visible = {s for a in parser._actions for s in a.option_strings
                   if a.help is not argparse.SUPPRESS}
        hidden = {s for a in parser._actions for s in a.option_strings} - visible
        for word in words[used:]:
            if word in ("|", ";", "&&", "#", ">", "2>"):
                break
            option = re.match(r"[\[(|]*(--[a-z][a-z0-9-]*)", word)
            if option is None or option[1] in visible:
                continue
            if option[1] in hidden and any(mark in line.lower() for mark in OLD):
                continue
            found.append(f"{path.relative_to(root)}:{number}: {words[0]} {option[1]}")
    return found


@pytest.mark.parametrize("path", PAGES + SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_option_exists(path):
    assert unknown_options(path) == []


def test_the_check_finds_a_missing_option(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Run `influence --plot FILE` or `mqm MODEL [--quilts Q]`\n\n```\n"
                    "$ pufferfish audit x.json --max-data 3\n$ pufferfish audit x.json --block-datasets 3\n```\n"
                    "(`audit --max-datasets` is its old spelling)\n", encoding="utf-8")
    found = [line.split(": ", 1)[1] for line in unknown_options(page, tmp_path)]
    assert found == ["influence --plot", "mqm --quilts", "audit --max-data"]
