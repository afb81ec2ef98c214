"""`rxb report` and `rxb trace`: reading results and traces."""

import argparse


def register(sub, parser_class: type[argparse.ArgumentParser]) -> None:
    """Add the `report` and `trace` subcommands to the `rxb` parser."""
