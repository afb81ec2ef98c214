"""The generated tables: scenario keys, result metrics, hardware-profile and calibration keys.

They live with the C library that compiles them, in scenario/tables/ (the C build reads nothing
of this package); vocab/keys is a link to that folder, so a checkout reads them in place and
a wheel ships them as package data. Reading them needs nothing else of the package, so every
module that speaks the vocabulary (scenario, costs, tracegen) reads them here without importing
the others.
"""

import tomllib
from pathlib import Path
from typing import Any

TABLES = Path(__file__).with_name("keys")  # scenario/tables/, through the link
KEYS_FILE = TABLES / "scenario_keys.toml"
METRICS_FILE = TABLES / "result_metrics.toml"
PROFILE_KEYS_FILE = TABLES / "profile_keys.toml"  # the hardware profile's keys
CALIBRATION_KEYS_FILE = TABLES / "calibration_keys.toml"  # a calibration's cycle costs


def _read(path: Path) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


SCENARIO_KEYS = _read(KEYS_FILE)  # section -> key -> its definition (scenario_keys.toml)
METRICS = _read(METRICS_FILE)  # metric -> its definition (result_metrics.toml)
PROFILE_KEYS = _read(PROFILE_KEYS_FILE)  # section -> key -> its definition (profile_keys.toml)
# calibration key -> its definition (calibration_keys.toml), in the order documents list them
CALIBRATION_KEYS = _read(CALIBRATION_KEYS_FILE)


def choices(section: str, key: str) -> tuple[str, ...]:
    """The allowed values of an enum key, in table order."""
    return tuple(SCENARIO_KEYS[section][key]["values"])
