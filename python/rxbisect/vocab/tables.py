"""The generated tables: scenario keys, result metrics and hardware-profile keys.

Each is also compiled into the C engines (scenario/CMakeLists.txt names the same folder), so
moving them is changing TABLES here and its CMake twin. Reading them needs nothing else of the
package, so every module that speaks the vocabulary (scenario, costs, tracegen) reads them
here without importing the others.
"""

import tomllib
from pathlib import Path
from typing import Any

TABLES = Path(__file__).resolve().parents[1]  # python/rxbisect/
KEYS_FILE = TABLES / "scenario_keys.toml"
METRICS_FILE = TABLES / "result_metrics.toml"
PROFILE_KEYS_FILE = TABLES / "profile_keys.toml"  # the hardware profile's keys


def _read(path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


SCENARIO_KEYS = _read(KEYS_FILE)  # section -> key -> its definition (scenario_keys.toml)
METRICS = _read(METRICS_FILE)  # metric -> its definition (result_metrics.toml)


def choices(section: str, key: str) -> tuple[str, ...]:
    """The allowed values of an enum key, in table order."""
    return tuple(SCENARIO_KEYS[section][key]["values"])
