"""The Python side of the contract with the C simulator engine `rxb-sim`.

Why a process boundary and JSON rather than a C binding for runs: a run is
seconds to minutes of C, so process start-up is noise; a crash in the engine
cannot take the front end (or a sweep's worker pool) down with it; and the
resolved configuration written to a file is a complete, replayable record of
what was simulated. The contract, in full, is docs/engine-contract.md:

    rxb-sim --config FILE.json
      FILE.json  the resolved scenario: sections arch, system, traffic, workload,
                 run, plus "profile" (the hardware) and "derived" (numbers computed
                 once here), no "auto" left anywhere
      stdout     ONE JSON object {"params", "metrics", "sim_packets", "sim_wall_s"}
      stderr     "progress <fraction>" lines drive the progress bar; "warning: ..."
                 lines are shown to the user; "error: ..." lines explain a failure
      exit code  0 success, 2 configuration rejected, 3 out of memory, anything else a failure

The record of a run (Result.record) carries its provenance (provenance.py: commit, engine
build, profile hashes, command, host, date; docs/engine-contract.md §6).

The engine is found through $RXB_SIM_BIN, else build/sim/rxb-sim under the
repository root, else `rxb-sim` on PATH.
"""

import collections
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .. import checkout
from ..errors import EngineError, RxbError, UsageError
from ..vocab.scenario import Resolved, check_sets, derived, load_resolved, metric_spec
from . import provenance

CONTRACT_VERSION = 1
EXIT_NOMEM = 3  # an engine's exit code for "valid, but this machine has not the memory"
ENV_BIN = "RXB_SIM_BIN"
# What `metrics` must hold, and what is checked when present (the engine may add any other
# key: per_core, per_ring, series, ...): result_metrics.toml, the one list the C engines are
# built with too. Kinds: count (integer >= 0), number (finite >= 0), fraction (0..1), bool,
# object (any JSON object), counts (a list of counts); a trailing "?" allows null. Nested
# dicts are required sub-objects.
REQUIRED_METRICS: dict[str, Any] = metric_spec(True)
OPTIONAL_METRICS: dict[str, Any] = metric_spec(False)
DROP_CAUSES = tuple(REQUIRED_METRICS["drops_by_cause"])  # lib/common.c rxb_drop_cause_name
ECHOED_PARAMS = (("arch.name", ("arch", "name")), ("run.seed", ("run", "seed")))


@dataclass(frozen=True)
class Result:
    """One engine run, validated."""

    params: dict
    metrics: dict
    sim_packets: int
    sim_wall_s: float
    extra: dict = field(default_factory=dict)  # further top-level keys the engine added
    warnings: tuple[str, ...] = ()
    provenance: dict = field(default_factory=dict)  # provenance.facts of the run

    def record(self) -> dict:
        """The result record of docs/evaluation.md §4, plus the engine's effort and where the
        result came from."""
        return {"experiment": "sim", "arch": self.params.get("arch.name"),
                "params": self.params, "metrics": self.metrics,
                "sim_packets": self.sim_packets, "sim_wall_s": self.sim_wall_s,
                "provenance": self.provenance}


def find_binary(env_var: str, built_rel: str, name: str, what: str) -> Path:
    """$env_var, else `built_rel` under the repository root, else `name` on PATH."""
    env = os.environ.get(env_var)
    if env:
        p = Path(env)
        if not (p.is_file() and os.access(p, os.X_OK)):
            raise EngineError(f"{env_var}={env}: not an executable file")
        return p
    built = checkout.repo_root() / built_rel
    if built.is_file() and os.access(built, os.X_OK):
        return built
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    raise EngineError(f"{what} not found: {built} does not exist and {name} is not "
                      f"on PATH; build it with `make build`, or set {env_var} to its path")


def find_engine() -> Path:
    return find_binary(ENV_BIN, "build/sim/rxb-sim", "rxb-sim", "simulator engine")


def build_config(res: Resolved, calibration: dict | None = None) -> dict:
    """The JSON document the engine receives: everything resolved, nothing implicit.

    calibration: a calibration document (sim/calibration/default.json's shape), embedded
    under the top-level key "calibration" (docs/simulator.md §4) so the config stays a
    complete record; None = the engine's compiled-in default.
    """
    scn = res.scenario
    cfg = {"contract": CONTRACT_VERSION, "description": scn.description,
           **{k: v for k, v in scn.sections().items() if k != "emu"}, "profile": res.profile.to_dict(), "derived": derived(res)}
    if calibration is not None:
        cfg["calibration"] = calibration
    return cfg


def run(res: Resolved, progress: bool | None = None, timeout: float | None = None,
        keep_config: str | os.PathLike | None = None, calibration: dict | None = None) -> Result:
    """Run the engine on a resolved scenario and return its validated output.

    progress: True/False forces the bar on/off; None shows it only on a terminal.
    keep_config: also leave the config JSON at this path (for replay).
    calibration: replaces the engine's default calibration (see build_config).
    """
    binary = find_engine()
    cfg = build_config(res, calibration)
    with tempfile.TemporaryDirectory(prefix="rxb-") as tmp:
        path = Path(keep_config) if keep_config else Path(tmp) / "config.json"
        try:
            path.write_text(json.dumps(cfg, indent=2) + "\n")
        except OSError as e:
            raise UsageError(f"cannot write the config to {path} ({e.strerror or e})") from None
        rc, out, stderr, warnings, timed_out = execute(
            [str(binary), "--config", str(path)], binary.name, progress, timeout)
    check_exit(binary.name, rc, stderr, timed_out, timeout)
    result = parse_output(out, cfg)
    return Result(result.params, result.metrics, result.sim_packets, result.sim_wall_s,
                  result.extra, tuple(warnings),
                  provenance.facts(binary, res.scenario, res.profile))


def simulate(scenario_ref: str | None = None, sets: Sequence[str] = (),
             calibration: dict | None = None, timeout: float | None = None,
             progress: bool | None = False) -> dict:
    """Simulate one scenario and return its result record, the JSON `rxb sim --json` prints.

    scenario_ref: a scenario file or built-in name (None: the reference setup); sets:
    `section.key=value` overrides; calibration: a calibration document (`rxb calibrate`
    writes one) instead of the engine's default; timeout: seconds before the engine is
    stopped. A short run of the reference setup:

    >>> rec = simulate("reference", sets=["run.duration_ms=0.2", "run.warmup_ms=0.05"])
    >>> rec["arch"], rec["metrics"]["conservation"]
    ('rxbisect', {'packets_ok': True, 'buffers_ok': True})
    >>> simulate(sets=["traffic.rate_gbps=fast"])
    Traceback (most recent call last):
    ...
    rxbisect.errors.ScenarioError: --set: traffic.rate_gbps = 'fast': cannot be read as float; ...
    """
    check_sets(sets)
    res = load_resolved(scenario_ref, sets)
    return run(res, progress=progress, timeout=timeout, calibration=calibration).record()


def execute(cmd: list[str], name: str, progress: bool | None, timeout: float | None,
            parse: Callable[[str], float | None] | None = None,
            report: Callable[[float], None] | None = None):
    """Run an engine (rxb-sim, rxb-emu, a benchmark); stdout is drained by a thread while
    stderr drives the bar. Its `warning:` and `note:` lines are shown at once as
    `NAME: warning: ...`. `parse` reads a fraction done from a stderr line (default:
    `progress <f>`); `report`, when given, receives those fractions instead of a bar of
    our own (a caller's bar over several runs). Returns (exit code, stdout, last stderr
    lines, warnings, timed out)."""
    parse = parse or _progress
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                encoding="utf-8", errors="replace")
    except OSError as e:
        raise EngineError(f"cannot start {cmd[0]}: {e.strerror or e}") from None
    stdout, stderr = proc.stdout, proc.stderr
    assert stdout is not None and stderr is not None  # both are PIPE above
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(stdout.read()), daemon=True)
    reader.start()
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()  # before the kill: the exit it causes reads as a timeout
        proc.kill()

    timer = None
    if timeout:
        timer = threading.Timer(timeout, expire)
        timer.start()
    tail: collections.deque[str] = collections.deque(maxlen=20)
    warnings: list[str] = []
    bar = tqdm(total=100, desc=name, unit="%", leave=False,
               disable=True if report else None if progress is None else not progress,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}")
    try:
        for line in stderr:
            line = line.rstrip("\n")
            frac = parse(line)
            if frac is not None:
                if report:
                    report(frac)
                bar.update(max(0, round(frac * 100) - bar.n))
                continue
            if line.startswith(("warning:", "note:")):
                warnings.append(line)
                bar.write(f"{name}: {line}", file=sys.stderr)
            if line.strip():
                tail.append(line)
        proc.wait()
        reader.join()
    except BaseException:  # Ctrl-C included: never leave the engine running
        proc.kill()
        proc.wait()
        raise
    finally:
        bar.close()
        if timer:
            timer.cancel()
    return proc.returncode, "".join(out), list(tail), warnings, timed_out.is_set()


def _progress(line: str) -> float | None:
    word, _, rest = line.partition(" ")
    if word != "progress":
        return None
    try:
        f = float(rest)
    except ValueError:
        return None
    return min(max(f, 0.0), 1.0) if math.isfinite(f) else None


def check_exit(name: str, rc: int, stderr: list[str], timed_out: bool, timeout: float | None,
               rejected: type[RxbError] = EngineError) -> None:
    """Raise the error an engine's exit means; `rejected` is the class for exit 2 (the
    configuration was rejected): rxb-sim only sees resolved configs, so that is its fault
    (EngineError, exit 1); rxb-emu checks the user's keys itself (UsageError, exit 2)."""
    if timed_out:
        raise EngineError(f"{name} did not finish within {timeout:g} s and was stopped")
    if rc == 2:
        raise rejected(_failure(name, rc, stderr))
    if rc != 0:
        raise EngineError(_failure(name, rc, stderr))


def _failure(name: str, rc: int, stderr: list[str]) -> str:
    errors = [ln.split(":", 1)[1].strip() for ln in stderr if ln.startswith("error:")]
    detail = "; ".join(errors) or " | ".join(stderr[-5:]) or "(nothing on stderr)"
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = f"signal {-rc}"
        return f"{name} was killed by {sig}: {detail}"
    if rc == 2:
        return f"{name} rejected the configuration: {detail}"
    if rc == EXIT_NOMEM:
        return f"{name} ran out of memory: {detail}"
    return f"{name} failed with exit code {rc}: {detail}"


CONTRACT_DOCS = {"rxb-sim": "docs/engine-contract.md", "rxb-emu": "docs/emulator.md"}


def broken(what: str, who: str = "rxb-sim") -> EngineError:
    return EngineError(f"{who} broke the output contract: {what} "
                       f"(see {CONTRACT_DOCS.get(who, 'docs/engine-contract.md')})")


def _check_value(path: str, v: Any, kind: str, who: str = "rxb-sim") -> None:
    nullable = kind.endswith("?")
    kind = kind.rstrip("?")
    if v is None and nullable:
        return
    is_num = isinstance(v, (int, float)) and not isinstance(v, bool)
    ok = {
        "count": isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "number": is_num and math.isfinite(v) and v >= 0,
        "fraction": is_num and 0 <= v <= 1,
        "bool": isinstance(v, bool),
        "object": isinstance(v, dict),
        "counts": isinstance(v, list) and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v),
    }[kind]
    if not ok:
        raise broken(f"{path} should be {kind}{' or null' if nullable else ''}, "
                      f"got {json.dumps(v)}", who)


def check_tree(prefix: str, obj: Any, spec: dict, required: bool, who: str = "rxb-sim") -> None:
    """Check `obj` against a spec like REQUIRED_METRICS; `who` names the engine in errors."""
    if not isinstance(obj, dict):
        raise broken(f"{prefix} should be an object, got {json.dumps(obj)[:80]}", who)
    for k, kind in spec.items():
        path = f"{prefix}.{k}"
        if k not in obj:
            if required:
                raise broken(f"{path} is missing", who)
            continue
        if isinstance(kind, dict):
            check_tree(path, obj[k], kind, True, who)
        else:
            _check_value(path, obj[k], kind, who)


def parse_output(text: str, cfg: dict | None = None) -> Result:
    """Validate the engine's stdout; `cfg` (the config sent) enables the echo check."""
    if not text.strip():
        raise broken("nothing was printed on stdout")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise broken(f"stdout is not one JSON object ({e})") from None
    if not isinstance(doc, dict):
        raise broken(f"stdout is a JSON {type(doc).__name__}, not an object")
    for k in ("params", "metrics", "sim_packets", "sim_wall_s"):
        if k not in doc:
            raise broken(f"top-level key '{k}' is missing")
    if not isinstance(doc["params"], dict):
        raise broken("params should be an object")
    _check_value("sim_packets", doc["sim_packets"], "count")
    _check_value("sim_wall_s", doc["sim_wall_s"], "number")
    m = doc["metrics"]
    check_tree("metrics", m, REQUIRED_METRICS, True)
    check_tree("metrics", m, OPTIONAL_METRICS, False)
    dropped = sum(m["drops_by_cause"].values())
    if m["offered_packets"] != m["delivered_packets"] + dropped + m["in_flight_packets"]:
        raise broken(f"packets are not conserved: offered {m['offered_packets']} != delivered "
                      f"{m['delivered_packets']} + dropped {dropped} + in flight "
                      f"{m['in_flight_packets']}")
    params = doc["params"]
    for name, (sec, key) in ECHOED_PARAMS:
        if name not in params:
            raise broken(f"params.{name} is missing (the engine echoes what it ran)")
        if cfg is not None and params[name] != cfg[sec][key]:
            raise broken(f"params.{name} = {json.dumps(params[name])} but the config asked "
                          f"for {json.dumps(cfg[sec][key])}")
    extra = {k: v for k, v in doc.items() if k not in ("params", "metrics", "sim_packets",
                                                        "sim_wall_s")}
    return Result(params, m, doc["sim_packets"], float(doc["sim_wall_s"]), extra)
