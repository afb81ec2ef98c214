"""Where the repository checkout is: the package runs from python/ of a checkout, whose build/
holds the engines and the rules library and whose experiments/ holds the catalogue."""

from pathlib import Path


def repo_root() -> Path:
    """The checkout's top folder (python/rxbisect/ is two levels below it)."""
    return Path(__file__).resolve().parents[2]
