"""Exceptions the `rxb` front end raises on purpose.

Why a tiny hierarchy: the CLI turns any `RxbError` into one line
`rxb: error: <message>` and an exit code, with no traceback, so every
message must already say what is wrong and what would be right. Anything
that is not an `RxbError` is a bug and keeps its traceback.
"""


class RxbError(Exception):
    """Base class; `exit_code` is what the CLI returns."""

    exit_code = 1


class UsageError(RxbError, ValueError):
    """Bad input from the user (exit code 2, like argparse)."""

    exit_code = 2


class ScenarioError(UsageError):
    """A scenario or hardware profile is invalid. The message names the key,
    the bad value and what is allowed."""


class EngineError(RxbError):
    """The simulator engine is missing, failed, or broke its output contract
    (docs/engine-contract.md)."""
