"""The README's own command lines are valid `rxb` syntax: each `.venv/bin/rxb ...` line of
its code blocks (several per line when joined by `;`) must parse with the real parser, so a
renamed or positional option cannot leave the README showing a command that fails."""
import re
import shlex

import pytest

from conftest import REPO
from rxbisect.commands import cli

COMMAND = re.compile(r"\.venv/bin/rxb\s+([^#;\n]*)")
OPTIONAL = re.compile(r"\[[^\]]*\]")  # [SCENARIO | ...], [--set ...]: choices shown to the reader


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [m.group(1).strip() for b in blocks for m in COMMAND.finditer(b)]


def test_the_readme_shows_rxb_commands():
    assert len(readme_commands()) >= 8


@pytest.mark.parametrize("line", readme_commands())
def test_readme_command_parses(line):
    argv = shlex.split(OPTIONAL.sub("", line))
    try:
        cli.build_parser().parse_args(cli._glue_eal(argv))
    except SystemExit as e:
        pytest.fail(f"README command does not parse (exit {e.code}): rxb {line}")
