"""The README and the documentation pages that show commands are tested: every command block
runs and shows what the program prints (:data:`DOCUMENTS`: the README, the guide the README's
long tour moved to, the how-to).

A fenced block whose lines start with ``$ `` is a shell session: each ``$ COMMAND`` line is run
(``pufferfish`` is the installed console script, in a fresh folder where ``examples/`` is the
repository's examples) and the lines after it, up to the next ``$ `` line, must be its output:

* exactly (every line, in order) unless the block is preceded by ``<!-- readme: abridged -->``,
  in which case the shown lines must appear in the output in the same order, and a line
  ``…`` may stand for omitted lines;
* the exit status must be the one the README's exit-code table gives for what the block shows —
  here: never 2 (bad input) and never a traceback; a block preceded by
  ``<!-- readme: exit N -->`` must exit with status N.

A block preceded by ``<!-- readme: not run (REASON) -->`` is not run; the reason is shown in the
test's id (only the set-up commands, which would install or test the project from within its
own tests).  A ``python`` block of ``>>>`` lines is run as a doctest, in a fresh namespace, or
after the block above it when preceded by ``<!-- readme: continues -->``.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCUMENTS = (README, ROOT / "docs" / "guide.md", ROOT / "docs" / "howto.md")
"""The files whose command blocks and ``>>>`` blocks run here.  The executed notebooks'
``code-cell`` blocks run in the documentation build, not here."""
BIN = Path(sys.executable).parent
MARKER = re.compile(r"<!--\s*readme:\s*(.*?)\s*-->")
FENCE = re.compile(r"^```(\S*)")


@dataclass
class Block:
    line: int
    language: str
    lines: list[str]
    marks: list[str]
    document: Path = README

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)} line {self.line}"

    @property
    def abridged(self) -> bool:
        return "abridged" in self.marks

    @property
    def not_run(self) -> str | None:
        return next((m for m in self.marks if m.startswith("not run")), None)

    @property
    def exit_status(self) -> int | None:
        for mark in self.marks:
            if mark.startswith("exit "):
                return int(mark.split()[1])
        return None


def _blocks(document: Path = README) -> list[Block]:
    blocks, marks = [], []
    text = document.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(text):
        marker = MARKER.search(text[i])
        if marker:
            marks.append(marker.group(1))
        fence = FENCE.match(text[i])
        if fence:
            start, body = i + 1, []
            i += 1
            while not text[i].startswith("```"):
                body.append(text[i])
                i += 1
            blocks.append(Block(start, fence.group(1), body, marks, document))
            marks = []
        elif text[i].strip() and not marker:
            marks = []
        i += 1
    return blocks


BLOCKS = [block for document in DOCUMENTS for block in _blocks(document)]
SHELL = [b for b in BLOCKS if any(line.startswith("$ ") for line in b.lines)]
PYTHON = [b for b in BLOCKS if b.language == "python"]
README_BLOCKS = [b for b in BLOCKS if b.document == README]


def _sessions(block: Block) -> list[tuple[str, list[str]]]:
    sessions: list[tuple[str, list[str]]] = []
    for line in block.lines:
        if line.startswith("$ "):
            sessions.append((line[2:], []))
        elif sessions:
            sessions[-1][1].append(line)
    return sessions


def _contains_in_order(expected: list[str], actual: list[str]) -> str | None:
    """None when every shown line occurs in ``actual`` in order (``…`` skips), else the first
    shown line that was not found."""
    position = 0
    for line in expected:
        if line.strip() in ("…", "..."):
            continue
        while position < len(actual) and actual[position].rstrip() != line.rstrip():
            position += 1
        if position == len(actual):
            return line
        position += 1
    return None


def _run(command: str, folder: Path) -> subprocess.CompletedProcess:
    words = shlex.split(command, comments=True)
    if words[0] == "pufferfish":
        words[0] = str(BIN / "pufferfish")
    elif words[0] == "python":
        words[0] = sys.executable
    environment = dict(os.environ, COLUMNS="100", PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    # A guard against a blocked command, not a measure of speed: a loaded machine is slow.
    return subprocess.run(words, cwd=folder, capture_output=True, text=True, timeout=1800,
                          env=environment)


def test_the_documents_have_command_blocks_and_python_examples():
    assert len(SHELL) >= 10 and PYTHON
    readme = [b for b in README_BLOCKS if b in SHELL and not b.not_run]
    assert readme and [b for b in README_BLOCKS if b.language == "python"]


def test_the_readme_is_a_landing_page():
    """What the toolkit is, how to install it, the two commands, one worked example and where to
    go next, on at most about 250 lines; the long tour is in docs/guide.md."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for heading in ("## Install and the two commands", "## Worked example", "## Where to go next"):
        assert heading in text
    assert "$ make demo" in text and "$ make test" in text and "docs/guide.md" in text


def test_the_readme_tells_how_to_install_and_the_distribution_name():
    import tomllib

    name = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert name == "pufferfish-verifier"
    assert "$ pip install ." in README.read_text(encoding="utf-8")
    assert "not published on a package index" in text and f"`pip show {name}`" in text
    assert "`import pufferfish`" in text and "`python -m pufferfish`" in text
    assert "`pip install pufferfish` would install an unrelated project" in text


def test_a_python_example_builds_audits_and_plots_a_model():
    code = "\n".join(line for block in PYTHON for line in block.lines)
    for step in ("PufferfishModel.build(", "pufferfish.audit(", "new_figure(", "finish("):
        assert step in code, step


@pytest.mark.parametrize("block", SHELL, ids=lambda b: f"{b.document.stem}-line{b.line}" + (
    f"-{b.not_run}" if b.not_run else ""))
def test_command_block(block: Block, tmp_path: Path):
    if block.not_run:
        assert block.not_run.startswith("not run (") and block.not_run.endswith(")"), (
            "a block that is not run must give its reason: <!-- readme: not run (REASON) -->")
        return
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for command, shown in _sessions(block):
        result = _run(command, tmp_path)
        where = f"{block.where}: $ {command}"
        assert "Traceback" not in result.stderr, f"{where}\n{result.stderr}"
        if block.exit_status is not None:
            assert result.returncode == block.exit_status, f"{where}: exit {result.returncode}"
        else:
            assert result.returncode in (0, 1, 3), f"{where}: exit {result.returncode}\n{result.stderr}"
        actual = result.stdout.rstrip("\n").splitlines()
        shown = [line for line in shown]
        if block.abridged:
            missing = _contains_in_order(shown, actual)
            assert missing is None, f"{where}: shown line not in the output: {missing!r}\n" + \
                "\n".join(actual)
        else:
            assert [l.rstrip() for l in actual] == [l.rstrip() for l in shown], (
                f"{where}: the output differs from the document\n" + "\n".join(actual))


def _python_chain(block: Block) -> list[Block]:
    """The python blocks that run, in order and in one namespace, to check ``block``: the block
    itself after the blocks it continues (``<!-- readme: continues -->`` before a block runs it
    after the python block above it, as a reader who typed that one goes on)."""
    start = PYTHON.index(block)
    while start > 0 and "continues" in PYTHON[start].marks \
            and PYTHON[start - 1].document == block.document:
        start -= 1
    return PYTHON[start:PYTHON.index(block) + 1]


@pytest.mark.parametrize("block", PYTHON, ids=lambda b: f"{b.document.stem}-line{b.line}")
def test_python_block(block: Block):
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    names: dict = {}                                  # a fresh namespace for each chain of blocks
    for part in _python_chain(block):
        test = parser.get_doctest("\n".join(part.lines), names, part.where,
                                  str(part.document), part.line)
        runner.run(test, clear_globs=False)
        names = test.globs
    assert runner.summarize(verbose=False).failed == 0


def _update() -> None:
    """Rewrite the output of every exact (not abridged, not skipped) block from the program.

    Run ``python tests/test_readme.py --update`` after a change of output, review the diff, and
    commit it with the change; abridged blocks are left as they are (they are checked, not
    rewritten).
    """
    import tempfile

    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8").splitlines()
        for block in reversed([b for b in SHELL if b.document == document]):
            if block.abridged or block.not_run:
                continue
            new_lines = []
            with tempfile.TemporaryDirectory() as folder:
                (Path(folder) / "examples").symlink_to(ROOT / "examples")
                for command, _ in _sessions(block):
                    new_lines.append(f"$ {command}")
                    new_lines += _run(command, Path(folder)).stdout.rstrip("\n").splitlines()
            text[block.line:block.line + len(block.lines)] = new_lines
        document.write_text("\n".join(text) + "\n", encoding="utf-8")

if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    _update()
