"""`rxb emu`: one run of the DPDK emulator `rxb-emu` (docs/emulator.md), scenario-driven.

The emulator speaks the scenario vocabulary of `rxb sim` where it applies, through its own
`--set key=value`. This module loads the scenario with scenario.py (so a file or `--set`
is checked by the same typed schema, with the same messages), and passes on **only the keys
the scenario file or the command line name**: the emulator's own defaults (2 workers, 1 NIC,
1 Gbps, 1 s: the `[key.emu]` overrides of scenario_keys.toml) are the ones that run on a
small machine, where the simulator's (16 cores, 2 x 100 Gbps) describe a server. `emu.*`
keys are scenario keys that only the emulator honours. EAL options are rxb-emu's business too: it picks
`--no-huge -m 2048`, `--no-pci`, the virtual devices and an `--lcores` map for this machine
unless `--eal` says otherwise.

Keys the emulator does not honour (scenario_keys.toml `engines`: the simulated machine) are
not passed: one warning names them. Keys whose value asks for something the emulator cannot do
(CONTRADICTS) are rejected, naming the key and why.

rxb-emu is found through $RXB_EMU_BIN, else build/emu/rxb-emu under the repository root,
else `rxb-emu` on PATH. Its exit 2 (a rejected `--set`) becomes `rxb: error: ...` exit 2.
"""

import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ScenarioError, UsageError
from ..vocab import profile as profiles
from ..vocab import scenario
from ..vocab.schema import show
from . import engine, provenance

ENV_BIN = "RXB_EMU_BIN"
NAME = "rxb-emu"

# The steps a NIC lcore's cycles per packet are split into, in its loop's order (rxb-emu's
# rxb_emu_stage_name; docs/emulator.md "Emulation cost").
NIC_STAGES = ("refill", "receive", "classify", "deliver", "other")

# What the emulator record must hold: the simulator's metrics (docs/engine-contract.md §4.1)
# except that DRAM bandwidth is null without resctrl, plus the emulator's own block (nulls
# for the native baselines, which have no emulator lcore).
METRICS: dict[str, Any] = {
    **engine.REQUIRED_METRICS,
    "mem_bw_gibps": "number?",
    "emulator": {"dispatch_mpps": "number?", "cycles_per_packet": "number?",
                 "loaded_cycles_per_packet": "number?", "idle_share": "fraction?",
                 "dispatched": "count", "buffer_mismatch": "count", "swaps": "count",
                 "nic_lcores": "count",
                 # what the emulation itself costs (docs/emulator.md "Emulation cost")
                 "cost": {"nic_cycles_per_packet": "number?", "nic_ns_per_packet": "number?",
                          "nic_stage_cycles_per_packet": dict.fromkeys(NIC_STAGES, "number?"),
                          "capacity_mpps": "number?", "added_latency_ns": "number?"}},
}


@dataclass(frozen=True)
class Run:
    """One rxb-emu run: its record (as printed by rxb-emu), and what it said on stderr."""

    record: dict
    warnings: tuple[str, ...]
    command: tuple[str, ...]


def find_emulator() -> Path:
    return engine.find_binary(ENV_BIN, "build/emu/rxb-emu", NAME, "emulator")


def _contradictions(scn: scenario.Scenario, given: Sequence[str]) -> None:
    """Reject what the emulator cannot do rather than ignore it silently."""
    sy = scn.system
    if ({"system.hog", "system.hog_instances"} & set(given)) and sy.hog != "none" \
            and sy.hog_instances > 0:
        raise ScenarioError(f"system.hog = {show(sy.hog)} with system.hog_instances = "
                            f"{sy.hog_instances}: the emulator runs no co-located memory hog "
                            "(start one yourself next to it, or use `rxb sim`); allowed: "
                            "system.hog = 'none' or system.hog_instances = 0")
    if "system.cores_per_nic" in given and len(set(sy.cores_per_nic)) > 1:
        raise ScenarioError(f"system.cores_per_nic = {show(sy.cores_per_nic)}: the emulator "
                            "splits system.cores evenly among system.nics NIC groups; "
                            "allowed: [] or equal entries")


def _text(v: Any) -> str:
    """A value as rxb-emu's --set reads it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(str(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    return str(v)


def emu_sets(ref: str | None, sets: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the `key=value`s to pass to rxb-emu, the given keys the emulator does not honour)."""
    scn = scenario.load(ref, sets)  # typed checks; relative paths made absolute
    given = scenario.given_keys(ref, sets)
    _contradictions(scn, given)
    passed, ignored = [], []
    for full in given:
        if not scenario.honours(full, "emu"):
            ignored.append(full)
            continue
        sec, key = full.split(".", 1)
        passed.append(f"{full}={_text(getattr(getattr(scn, sec), key))}")
    return passed, ignored


def command(ref: str | None, sets: Sequence[str], eal: str | None = None,
            bench_ms: float | None = None) -> tuple[list[str], list[str]]:
    """(the rxb-emu command line, the scenario keys ignored)."""
    passed, ignored = emu_sets(ref, sets)
    # --quiet-keys: the front end has already warned about keys without effect (cli idle_keys)
    cmd = [str(find_emulator()), "--quiet-keys"]
    if not any(s.startswith("emu.progress=") for s in passed):
        cmd += ["--set", "emu.progress=true"]  # drives the bar; harmless without one
    for s in passed:
        cmd += ["--set", s]
    if eal is not None:
        cmd += ["--eal", eal]
    if bench_ms is not None:
        cmd += ["--bench", "--bench-ms", f"{bench_ms:g}"]
    return cmd, ignored


def _output(text: str) -> dict:
    if not text.strip():
        raise engine.broken("nothing was printed on stdout", NAME)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise engine.broken(f"stdout is not one JSON object ({e})", NAME) from None
    if not isinstance(doc, dict):
        raise engine.broken(f"stdout is a JSON {type(doc).__name__}, not an object", NAME)
    return doc


def _invoke(cmd: list[str], ignored: list[str], progress: bool | None,
            timeout: float | None, report=None) -> tuple[dict, list[str]]:
    if ignored:
        print(f"rxb: warning: ignored by the emulator (they describe the simulated machine): "
              f"{', '.join(ignored)}", file=sys.stderr)
    rc, out, tail, warnings, timed_out = engine.execute(cmd, NAME, progress, timeout,
                                                        report=report)
    engine.check_exit(NAME, rc, tail, timed_out, timeout, rejected=UsageError)
    return _output(out), warnings


def run(ref: str | None = None, sets: Sequence[str] = (), eal: str | None = None,
        progress: bool | None = None, timeout: float | None = None) -> Run:
    """One emulator run; the record is checked against METRICS."""
    cmd, ignored = command(ref, sets, eal)
    doc, warnings = _invoke(cmd, ignored, progress, timeout)
    for k in ("params", "metrics"):
        if not isinstance(doc.get(k), dict):
            raise engine.broken(f"top-level key '{k}' is missing or not an object", NAME)
    engine.check_tree("metrics", doc["metrics"], METRICS, True, NAME)
    doc["provenance"] = facts(ref, sets, Path(cmd[0]))
    return Run(doc, tuple(warnings), tuple(cmd))


def facts(ref: str | None, sets: Sequence[str], binary: Path) -> dict:
    """The record's provenance: the emulator reads the scenario's hardware and cost profiles
    as the simulator does, unresolved (it resolves its own defaults)."""
    scn = scenario.load(ref, sets)
    return provenance.facts(binary, scn, profiles.load(scn.system.profile, scn.base))


def bench(bench_ms: float = 300, sets: Sequence[str] = (), eal: str | None = None,
          timeout: float | None = None, report=None) -> dict:
    """`rxb-emu --bench`: per interface, the emulator's dispatch rate and cost on one core
    (`dispatch[]`) and the workers' receive cost (`rx_cost[]`), docs/emulator.md."""
    cmd, ignored = command(None, sets, eal, bench_ms=bench_ms)
    doc, _ = _invoke(cmd, ignored, False, timeout, report)
    for k in ("dispatch", "rx_cost"):
        if not isinstance(doc.get(k), list) or not doc[k]:
            raise engine.broken(f"--bench: '{k}' is missing or empty", NAME)
    return doc
