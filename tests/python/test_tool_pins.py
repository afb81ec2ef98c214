"""The lint and test tools are pinned to exact versions in python/pyproject.toml: `make test`
on a fresh machine installs them, and a newer ruff or mypy must not fail it with no change in
the code."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lint_and_test_tools_are_pinned_exactly():
    extras = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())
    test = extras["project"]["optional-dependencies"]["test"]
    names = {d.split("==")[0] for d in test}
    assert {"ruff", "mypy", "pytest"} <= names
    assert all("==" in d for d in test), test
