"""A Sphinx directive that prints the ``--help`` of every ``pufferfish`` subcommand.

``.. pufferfish-cli::`` (or ```{pufferfish-cli}``` in MyST) builds the parser with
:func:`pufferfish.cli.main.build_parser` when the documentation is built and emits, for the
top-level command and then for every subcommand (and sub-subcommand, such as
``collapse parity``), a section with its help text as a literal block.  The help is formatted at a
fixed width so the pages do not depend on the terminal that builds them.
"""

from __future__ import annotations

import argparse
import os
from unittest import mock

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

HELP_WIDTH = 80


def _subcommands(parser: argparse.ArgumentParser):
    """(name, parser) of each subcommand of ``parser``, in the order of its ``--help``."""
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield choice.dest, action.choices[choice.dest]


def _walk(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    yield words, parser
    for name, child in _subcommands(parser):
        yield from _walk(child, (*words, name))


def _help(parser: argparse.ArgumentParser) -> str:
    with mock.patch.dict(os.environ, {"COLUMNS": str(HELP_WIDTH)}):
        return parser.format_help().rstrip()


class PufferfishCli(SphinxDirective):
    """The usage of ``pufferfish`` and of each of its subcommands."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from pufferfish.cli.main import build_parser

        sections = []
        for words, parser in _walk(build_parser()):
            title = " ".join(("pufferfish", *words))
            section_id = nodes.make_id("command " + title)
            section = nodes.section(ids=[section_id])
            section += nodes.title(text=title)
            help_text = _help(parser)
            section += nodes.literal_block(help_text, help_text, language="none")
            sections.append(section)
        return sections


def setup(app):
    app.add_directive("pufferfish-cli", PufferfishCli)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
