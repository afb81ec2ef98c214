"""Where a result record came from: the `provenance` object every record carries
(docs/engine-contract.md §6), and the rule that says when a recorded point is stale.

    {"commit", "dirty", "engine_build", "profile_hash", "costs_hash", "trace_hash",
     "command", "host", "date"}

This module alone computes these facts, so the simulator's and the emulator's records, a
sweep's and a repro's, agree on what each one means. Git is asked once per folder per process
(the answer cannot change under a run that matters), the engine binary is hashed once per
version of the file.
"""

import datetime
import functools
import hashlib
import json
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..vocab import costs as cost_profiles

KEYS = ("commit", "dirty", "engine_build", "profile_hash", "costs_hash", "trace_hash",
        "command", "host", "date")
# Keys records written before them lack (still valid records; a resume re-runs them).
LATER_KEYS = ("trace_hash",)
# What a recorded point is compared on before it is reused, and what a difference is called.
INPUTS = (("engine_build", "engine changed"), ("profile_hash", "hardware profile changed"),
          ("costs_hash", "cost profile changed"), ("trace_hash", "trace changed"))
MISSING = "no provenance (recorded by an older rxb)"
BUILD_HEX = 12  # engine_build: the first hex digits of the binary's SHA-256
GIT_TIMEOUT_S = 5  # a git that hangs (a network file system) must not hold a run up
# Profile fields that say where a profile was read from, not what it describes: a profile
# moved to another folder simulates the same machine.
PROFILE_LABELS = ("source", "description")


def digest(obj: Any, hex_digits: int = 16) -> str:
    """The first hex digits of SHA-256 over the canonical JSON of `obj` (sorted keys)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:hex_digits]


def _git(folder: Path, *args: str) -> str | None:
    try:
        p = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                           timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 else None


@functools.cache
def git_facts(folder: Path) -> tuple[str | None, bool | None]:
    """(HEAD commit, whether tracked files differ from it) of the checkout holding `folder`;
    (None, None) outside a git checkout or without git."""
    head = _git(folder, "rev-parse", "--verify", "HEAD")
    if head is None:
        return None, None
    status = _git(folder, "status", "--porcelain", "--untracked-files=no")
    return head.strip(), None if status is None else bool(status.strip())


@functools.cache
def _file_hash(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:BUILD_HEX]


def file_hash(path: str | os.PathLike) -> str:
    """The first BUILD_HEX hex digits of a file's SHA-256, hashed again only when the file's
    size or time changes."""
    st = os.stat(path)
    return _file_hash(str(Path(path).resolve()), st.st_size, st.st_mtime_ns)


def engine_build(binary: Path) -> str:
    """A short id of the engine binary: its file_hash."""
    return file_hash(binary)


def profile_values(profile: Mapping[str, Any]) -> dict:
    """A hardware profile's numbers, without PROFILE_LABELS."""
    return {k: v for k, v in profile.items() if k not in PROFILE_LABELS}


def inputs(scn: Any, profile: Any) -> dict[str, str | None]:
    """The hashes of what a run reads besides its scenario: the hardware profile (resolved,
    a profiles.Profile), the cost profile workload.costs names, and the trace traffic.pcap
    names (None without one: the scenario holds only its path)."""
    cycles = cost_profiles.load(scn.workload.costs, scn.base).cycles
    return {"profile_hash": digest(profile_values(profile.to_dict())),
            "costs_hash": digest(cycles), "trace_hash": trace_hash(scn.traffic.pcap)}


def trace_hash(pcap: str) -> str | None:
    """The file_hash of a trace file; None for no trace."""
    return file_hash(pcap) if pcap else None


def command_line() -> str:
    """This process's command line as it was run, interpreter included, as a shell would
    take it."""
    return shlex.join(sys.orig_argv)


def facts(binary: Path, scn: Any, profile: Any, command: str | None = None) -> dict:
    """The provenance of a run of `binary` on a scenario and its hardware profile; `command`
    is the command line that asked for it (default: this process's)."""
    commit, dirty = git_facts(Path(binary).resolve().parent)
    return {"commit": commit, "dirty": dirty, "engine_build": engine_build(binary),
            **inputs(scn, profile), "command": command or command_line(),
            "host": socket.gethostname(),
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}


def problems(prov: Any) -> list[str]:
    """What makes `prov` not a provenance object (empty when it is one)."""
    if not isinstance(prov, dict):
        return [f"provenance: expected an object, got {prov!r:.40}"]
    if sorted(prov) not in (sorted(KEYS), sorted(set(KEYS) - set(LATER_KEYS))):
        return [f"provenance: expected exactly the keys {', '.join(KEYS)}; got "
                f"{', '.join(sorted(prov))}"]
    return [f"provenance.{k}: expected {what}, got {prov[k]!r:.40}"
            for k, what, ok in _kinds(prov) if not ok]


def _text(v: Any) -> bool:
    return isinstance(v, str) and v != ""


# What each key must be where it is not a non-empty string: git's facts when not known, and
# trace_hash for a run without a trace, are null.
_NULLABLE = {"commit": ("a string or null", lambda v: v is None or _text(v)),
             "dirty": ("a boolean or null", lambda v: v is None or isinstance(v, bool)),
             "trace_hash": ("a string or null", lambda v: v is None or _text(v))}


def _kinds(prov: dict) -> list[tuple[str, str, bool]]:
    """(key, what it must be, whether it is) for each key the record has."""
    return [(k, *_check_of(k, prov[k])) for k in KEYS if k in prov]


def _check_of(key: str, value: Any) -> tuple[str, bool]:
    what, ok = _NULLABLE.get(key, ("a string", _text))
    return what, ok(value)


def stale(record: Mapping[str, Any], expected: Mapping[str, str | None]) -> str | None:
    """Why a recorded point may not be reused by a run that would use `expected` (INPUTS'
    keys; None: not known here, not compared), or None when it may."""
    prov = record.get("provenance")
    if not isinstance(prov, dict):
        return MISSING
    return next((why if key in prov else f"no {key} (recorded by an older rxb)"
                 for key, why in INPUTS
                 if expected.get(key) is not None and prov.get(key) != expected[key]), None)
