"""The arguments several `rxb` commands share, defined once: the parser class with one-line
errors, value types (lists, seconds, numbers), and the option groups for scenarios, engine
pools and progress bars, with the helpers that read them back; and exit_status, how every
command line of the package (`rxb`, `python -m rxbisect.study`) ends."""

import argparse
import contextlib
import copy
import dataclasses
import json
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..errors import RxbError, ScenarioError, UsageError
from ..vocab import scenario
from ..vocab.schema import parse_text


class Parser(argparse.ArgumentParser):
    """argparse with errors in the same one-line shape as everything else."""

    def error(self, message: str):  # noqa: D102 (argparse API)
        self.print_usage(sys.stderr)
        self.exit(2, f"rxb: error: {message}\n")


def exit_status(command: Callable[[], int], program: bool) -> int:
    """Run `command` and return its exit status; an RxbError is one line `rxb: error: ...`
    and its exit code, Ctrl-C `rxb: interrupted` and 130, never a traceback. program: this
    is the process's own command line, on its way out (a second Ctrl-C changes nothing)."""
    try:
        return command()
    except RxbError as e:
        print(f"rxb: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        if program:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("rxb: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `rxb scenario keys | head`
        sys.stderr.close()
        return 0


class ListDefaults(argparse.HelpFormatter):
    """Help that writes a list default as it is typed: "100,25", not "[100.0, 25.0]"."""

    def _expand_help(self, action: argparse.Action) -> str:
        if isinstance(action.default, list):
            action = copy.copy(action)
            action.default = ",".join(f"{v:g}" for v in action.default)
        return super()._expand_help(action)


def list_of(conv: Callable[[str], float]) -> Callable[[str], list]:
    """An argparse type: a comma-separated list of `conv` values, at least one. An empty item
    ("10,,20", a trailing comma) is refused, not skipped: the values would no longer line up
    with what they stand for (one per NIC)."""
    def parse(text: str) -> list:
        allowed = f"allowed: a comma-separated list of {conv.__name__} values"
        items = [x.strip() for x in text.split(",")]
        if text.strip() == "":
            raise argparse.ArgumentTypeError(f"empty list; {allowed}")
        if "" in items:
            raise argparse.ArgumentTypeError(f"{text!r}: item {items.index('') + 1} is empty; "
                                             f"{allowed}")
        try:
            return [conv(x) for x in items]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of "
                                             f"{conv.__name__} values") from None
    return parse


def at_most(hi: float, unit: str) -> Callable[[str], float]:
    """An argparse type: a number from 0 to `hi` `unit` (a latency, a capacity: past hi it is no
    machine's, and a calculator's arithmetic on it would overflow); -0 reads as 0."""
    allowed = f"allowed: a number from 0 to {int(hi) if hi == int(hi) else hi} ({unit})"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number; {allowed}") from None
        if not 0 <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text!r}: out of range; {allowed}")
        return value + 0.0  # -0.0 + 0.0 is 0.0

    parse.__name__ = "number"  # list_of's message names it
    return parse


def nonempty(text: str) -> str:
    """An argparse type for a file, a folder or a name: not empty. An unset shell variable
    (`--out "$DIR"`) would otherwise stand for the current folder or the default."""
    if text.strip() == "":
        raise argparse.ArgumentTypeError("empty; allowed: a file, folder or name")
    return text


def as_key(full: str) -> Callable[[str], Any]:
    """An argparse type for an option that stands for scenario key `full` (a calculator's
    --buffer-bytes is arch.buffer_bytes): read and checked as the key is, so the option
    accepts exactly the key's values (type, range, power of two), "auto" excepted."""
    info = dataclasses.replace(scenario.SCHEMA.known(full), auto=False)

    def parse(text: str) -> Any:
        try:
            return parse_text(info, text)
        except ScenarioError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = info.type_name()  # list_of's message names it
    return parse


def seconds(text: str) -> float:
    """A --timeout: a finite number of seconds above 0 (a run cannot finish within 0 s)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds > 0")
    return value


def number(conv: type, noun: str) -> Callable[[str], Any]:
    """An argparse type: `conv` of the text, or an error saying what the value must be."""
    def parse(text: str):
        try:
            return conv(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
    parse.__name__ = noun  # argparse names the type in some messages
    return parse


INT, FLOAT = number(int, "an integer"), number(float, "a number")


@contextlib.contextmanager
def option_blamed(option: str, value: str) -> Iterator[None]:
    """Errors of the block start with the option the user typed: a missing --profile is
    otherwise blamed on the scenario key system.profile, which the command line never had."""
    try:
        yield
    except ScenarioError as e:
        raise UsageError(f"{option} {value}: {e}") from None


def print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2))


def warn(lines: Sequence[str]) -> None:
    for line in lines:
        print(f"rxb: warning: {line}", file=sys.stderr)


def set_args(p: argparse.ArgumentParser, help: str = "override one key (repeatable); see "
             "`rxb scenario keys`") -> None:
    """--set SECTION.KEY=VALUE, collected in args.sets."""
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help=help)


def scenario_args(p: argparse.ArgumentParser, default: str = "the reference setup") -> None:
    """The scenario (a file or built-in name) and its --set overrides."""
    p.add_argument("scenario", type=nonempty, nargs="?", metavar="SCENARIO",
                   help="scenario TOML file or built-in name (see `rxb scenario list`); "
                        f"default: {default}")
    set_args(p)


def pool_args(p: argparse.ArgumentParser) -> None:
    """Where engine runs go: the local pool (--jobs) or a Dask cluster (--cluster)."""
    p.add_argument("--jobs", type=INT, metavar="N",
                   help="engine runs at once on the local pool (default: every CPU)")
    p.add_argument("--cluster", type=nonempty, metavar="ADDRESS",
                   help="run on this Dask distributed scheduler (tcp://HOST:PORT) instead")
    p.add_argument("--timeout", type=seconds, metavar="SECONDS",
                   help="stop a point's engine after this (each trial of a search): the point "
                   "fails, the others go on, and a rerun retries it")


def bar_args(p: argparse.ArgumentParser) -> None:
    """--progress / --no-progress; progress() reads them back."""
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", action="store_true", help="always show the progress bar")
    bar.add_argument("--no-progress", action="store_true", help="never show the progress bar")


def progress(args: argparse.Namespace) -> bool | None:
    """The bar_args choice: forced on, forced off, or None (only on a terminal)."""
    return False if args.no_progress else (True if args.progress else None)
