"""The package's version: one place, read by pyproject.toml (setuptools' dynamic version),
`rxb --version` and the report page."""

__version__ = "0.1.0"
