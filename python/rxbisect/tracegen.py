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
"""

import json
import math
import os
import subprocess
from typing import Any

from . import engine
from .errors import EngineError, UsageError

ENV_BIN = "RXB_TRACEGEN"
FLOWS_TOLERANCE = 0.02
BISECT_STEPS = 40


def find() -> os.PathLike:
    return engine.find_binary(ENV_BIN, "build/sim/rxb-tracegen", "rxb-tracegen",
                              "trace generator")


def _run(out: str, flags: dict[str, Any]) -> dict:
    argv = [os.fspath(find()), "--out", out]
    for k, v in flags.items():
        if v is not None:
            argv += [f"--{k}", format(v, ".17g") if isinstance(v, float) else str(v)]
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


def _min_pkts_for(flows: int, flags: dict[str, Any]) -> float:
    """The Pareto scale that makes the generator start about `flows` flows."""
    most = _run(os.devnull, {**flags, "min-pkts": 1.0})["flows"]  # all flows smallest
    if most < (1 - FLOWS_TOLERANCE) * flows:
        raise UsageError(f"--flows {flows}: at most about {most} flows start at this rate, "
                         "duration and flow-size cap; raise --rate-gbps or --duration-ms")
    lo, hi = 0.0, math.log(float(flags.get("max-pkts") or 1_000_000))
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) / 2
        got = _run(os.devnull, {**flags, "min-pkts": math.exp(mid)})["flows"]
        if abs(got - flows) <= FLOWS_TOLERANCE * flows:
            return math.exp(mid)
        lo, hi = (mid, hi) if got > flows else (lo, mid)
    return math.exp(lo)


def generate(out: str | os.PathLike, flows: int | None = None, **flags: Any) -> dict:
    """Write a synthetic trace to `out` (pcap). `flags` are rxb-tracegen's, with _ for -:
    seed, duration_ms, rate_gbps, line_gbps, alpha, min_pkts, max_pkts, pps_median,
    pps_sigma, tcp_share, sizes ("64:0.45,1518:0.55"), snaplen; None = its default.
    Returns its result {"packets", "flows", "duration_ms"} and "file"."""
    f = {k.replace("_", "-"): v for k, v in flags.items()}
    if flows is not None:
        if isinstance(flows, bool) or not isinstance(flows, int) or flows < 1:
            raise UsageError(f"--flows {flows}: must be an integer, at least 1")
        if f.get("min-pkts") is not None:
            raise UsageError("--flows sets --min-pkts; give one of them")
        f["min-pkts"] = _min_pkts_for(flows, f)
    return _run(os.fspath(out), f) | {"file": os.fspath(out)}
