"""`rxb repro`: the study's experiments (experiments/, docs/experiments.md)."""

import argparse


def register(sub, parser_class: type[argparse.ArgumentParser]) -> None:
    """Add the `repro` subcommand to the `rxb` parser."""
