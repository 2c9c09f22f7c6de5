"""Fixtures of the command-line tests: run ``pufferfish`` in this process through ``main``."""

from __future__ import annotations

import pytest

from pufferfish.cli.main import main


@pytest.fixture
def cli(capsys):
    """``cli(*argv) -> (exit status, stdout, stderr)``."""
    def run(*argv: str) -> tuple[int, str, str]:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run
