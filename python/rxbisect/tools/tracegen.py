"""`rxb trace gen`: the simulator's heavy-tailed trace generator as a command.

The generator is C (sim/tracegen.c, model in sim/tracegen.h and docs/trace-tools.md) and
stays the one implementation: `rxb-tracegen` (build/sim) takes one flag per field of its
configuration and checks them itself, so this module passes options through and adds one
thing the binary has no flag for: `flows`, a target number of flows. More flows at the same
rate means smaller flows, so the Pareto scale (--min-pkts) is bisected, on a log scale, on
the flow count the generator reports for a trace written to /dev/null, until it is within
2 % of the target; then the trace is written once.

Skew: the Pareto shape `alpha` (lower = heavier tail = a few elephant flows carry more of
the traffic, so per-core RSS load is more uneven); fewer flows also leave RSS fewer flows to
spread. Check a result with `rxb trace stats`.

The binary checks every option's range and names it. Two rules are checked here first,
where its message would be vague: --sizes item by item (it says only "a length or weight is
out of range"), and --min-pkts against --max-pkts (it would clamp the flow sizes silently).
"""

import json
import math
import os
import re
import subprocess
from typing import Any

from ..engines import engine
from ..errors import EngineError, UsageError
from ..vocab.tables import SCENARIO_KEYS

ENV_BIN = "RXB_TRACEGEN"
FLOWS_TOLERANCE = 0.02
BISECT_STEPS = 40
MAX_PKTS_DEFAULT = 1_000_000  # sim_tracegen_cfg_default's flow_max_pkts
# A frame length of --sizes: the range of the scenario key traffic.packet_bytes, which is
# the generator's too (SIM_ETH_MIN_FRAME..SIM_ETH_MAX_FRAME, sim/traffic.h).
FRAME = SCENARIO_KEYS["traffic"]["packet_bytes"]
# The numbers the binary reads as a whole weight (strtod without spaces, hex or inf/nan).
_DECIMAL = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
SIZES_ALLOWED = (f"LEN:WEIGHT,... with LEN a frame length from {FRAME['lo']} to {FRAME['hi']} "
                 "bytes and WEIGHT a positive number")


def find() -> os.PathLike:
    return engine.find_binary(ENV_BIN, "build/sim/rxb-tracegen", "rxb-tracegen",
                              "trace generator")


def _run(out: str, flags: dict[str, Any]) -> dict:
    argv = [os.fspath(find()), "--out", out]
    for k, v in flags.items():
        if v is not None:
            argv += [f"--{k}", _text(v)]
    r = subprocess.run(argv, capture_output=True, text=True)
    msg = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
    if r.returncode == 2:  # a rejected flag: its message names it, as ours would
        raise UsageError(msg.removeprefix("error: "))
    if r.returncode != 0:
        raise EngineError(f"rxb-tracegen failed: {msg.removeprefix('error: ')}")
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        raise EngineError(f"rxb-tracegen printed no JSON result: {r.stdout[:200]!r}") from None


def _text(v: Any) -> str:
    """A value as the user wrote it: a float's shortest exact text ("1e-09", "20" for 20.0),
    so the binary's messages echo the value given."""
    return repr(v).removesuffix(".0") if isinstance(v, float) else str(v)


def _min_pkts_for(flows: int, flags: dict[str, Any]) -> float:
    """The Pareto scale that makes the generator start about `flows` flows; a count outside
    what the scale can reach is refused (the bisection would silently give its bound)."""
    largest = float(flags.get("max-pkts") or MAX_PKTS_DEFAULT)
    most = _run(os.devnull, {**flags, "min-pkts": 1.0})["flows"]  # all flows smallest
    if most < (1 - FLOWS_TOLERANCE) * flows:
        raise UsageError(f"--flows {flows}: at most about {most} flows start at this rate, "
                         "duration and flow-size cap; raise --rate-gbps or --duration-ms")
    # All flows largest: the flows that carry the rate at the start, none ending in time.
    fewest = _run(os.devnull, {**flags, "min-pkts": largest})["flows"]
    if fewest > (1 + FLOWS_TOLERANCE) * flows:
        raise UsageError(f"--flows {flows}: at least about {fewest} flows carry this rate at "
                         "these per-flow rates; lower --rate-gbps or raise --pps-median")
    lo, hi = 0.0, math.log(largest)
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        got = _run(os.devnull, {**flags, "min-pkts": math.exp(mid)})["flows"]
        if abs(got - flows) <= FLOWS_TOLERANCE * flows:
            return math.exp(mid)
        lo, hi = (mid, hi) if got > flows else (lo, mid)
    return math.exp(lo)


def check_sizes(text: str) -> None:
    """UsageError naming the first item of a --sizes mix that is not LEN:WEIGHT with LEN a
    frame length and WEIGHT a positive number (how many items is the binary's check)."""
    for item in text.split(","):
        length, sep, weight = item.partition(":")
        why = _size_fault(length, weight) if sep else \
            f"item {item!r} is not LEN:WEIGHT"
        if why:
            raise UsageError(f"--sizes {text}: {why}; allowed: {SIZES_ALLOWED}")


def _size_fault(length: str, weight: str) -> str | None:
    """What is wrong with one LEN:WEIGHT item of --sizes, or None."""
    if not re.fullmatch("[0-9]+", length):
        return f"length {length!r} is not a whole number of bytes"
    if not FRAME["lo"] <= int(length) <= FRAME["hi"]:
        return f"length {length} is out of range"
    if not _DECIMAL.fullmatch(weight):
        return f"weight {weight!r} is not a number"
    if not 0 < float(weight) < math.inf:
        return f"weight {weight} is not a positive, finite number"
    return None


def _check_flow_sizes(f: dict[str, Any]) -> None:
    """The smallest flow (Pareto scale) must not be larger than the largest."""
    least, most = f.get("min-pkts"), f.get("max-pkts") or MAX_PKTS_DEFAULT
    if least is not None and least > most:
        raise UsageError(f"--min-pkts {_text(least)}: above --max-pkts {most}; allowed: at most "
                         "--max-pkts (the largest flow)")


def generate(out: str | os.PathLike, flows: int | None = None, **flags: Any) -> dict:
    """Write a synthetic trace to `out` (pcap). `flags` are rxb-tracegen's, with _ for -:
    seed, duration_ms, rate_gbps, line_gbps, alpha, min_pkts, max_pkts, pps_median,
    pps_sigma, tcp_share, sizes ("64:0.45,1518:0.55"), snaplen; None = its default.
    Returns its result {"packets", "flows", "duration_ms"} and "file".

    >>> import pathlib, tempfile
    >>> pcap = pathlib.Path(tempfile.mkdtemp()) / "t.pcap"
    >>> generate(pcap, seed=1, duration_ms=1, rate_gbps=1)["packets"]
    185
    >>> s = rxbisect.trace_stats(pcap, cores=4)
    >>> s["packets"], s["flows"]
    (185, 46)"""
    f = {k.replace("_", "-"): v for k, v in flags.items()}
    if f.get("sizes") is not None:
        check_sizes(str(f["sizes"]))
    _check_flow_sizes(f)
    if flows is not None:
        if isinstance(flows, bool) or not isinstance(flows, int) or flows < 1:
            raise UsageError(f"--flows {flows}: must be an integer, at least 1")
        if f.get("min-pkts") is not None:
            raise UsageError("--flows sets --min-pkts; give one of them")
        f["min-pkts"] = _min_pkts_for(flows, f)
    return _run(os.fspath(out), f) | {"file": os.fspath(out)}
