"""`rxb trace gen`: the simulator's heavy-tailed trace generator (sim/tracegen.c) as a command.

The generator is C and stays the one implementation: this module only maps options onto its
configuration (struct sim_tracegen_cfg; the model is documented in sim/tracegen.h and
docs/trace-tools.md). No binary exposes it yet (requested: `rxb-sim --tracegen`), so a
thirty-line driver, _DRIVER below, is compiled once against the built simulator libraries
(build/sim/librxbsim.a, build/util/librxbutil.a, build/lib/librxb.a) into a cache folder,
keyed by a hash of the driver and the libraries, so a rebuilt simulator gets a new driver.
The driver holds no model logic: it sets fields, and for --flows bisects the Pareto scale
(flow_min_pkts) on the number of flows the generator really starts.

Skew: the Pareto shape `--alpha` (smaller = heavier tail = a few elephant flows carry more
of the traffic, so per-core RSS load is more uneven); fewer flows (--flows) also leave RSS
fewer flows to spread. Check the result with `rxb trace stats`.
"""

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Sequence

from . import engine
from .errors import EngineError, UsageError

LIBS = ("build/sim/librxbsim.a", "build/util/librxbutil.a", "build/lib/librxb.a")
INCLUDES = ("sim", "include", "util")
DEFAULT_SIZES = ((64, 0.45), (594, 0.10), (1518, 0.45))  # sim_tracegen_cfg_default

_DRIVER = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "tracegen.h"
#include "pcap.h"
int main(int argc, char **argv)
{
	struct sim_tracegen_cfg c;
	struct sim_tracegen g;
	struct rxb_err err = { 0 };
	uint64_t n = 0;
	double flows = 0;
	unsigned snap = 128;
	const char *out = NULL;

	sim_tracegen_cfg_default(&c);
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		if (!strcmp(k, "out")) out = v;
		else if (!strcmp(k, "seed")) c.seed = strtoull(v, 0, 10);
		else if (!strcmp(k, "duration_ps")) c.duration_ps = strtoull(v, 0, 10);
		else if (!strcmp(k, "rate_bps")) c.rate_bps = strtod(v, 0);
		else if (!strcmp(k, "line_bps")) c.line_bps = strtoull(v, 0, 10);
		else if (!strcmp(k, "flow_alpha")) c.flow_alpha = strtod(v, 0);
		else if (!strcmp(k, "flow_min_pkts")) c.flow_min_pkts = strtod(v, 0);
		else if (!strcmp(k, "flow_max_pkts")) c.flow_max_pkts = (uint32_t)strtoul(v, 0, 10);
		else if (!strcmp(k, "flow_pps_median")) c.flow_pps_median = strtod(v, 0);
		else if (!strcmp(k, "flow_pps_sigma")) c.flow_pps_sigma = strtod(v, 0);
		else if (!strcmp(k, "tcp_share")) c.tcp_share = strtod(v, 0);
		else if (!strcmp(k, "snaplen")) snap = (unsigned)strtoul(v, 0, 10);
		else if (!strcmp(k, "flows")) flows = strtod(v, 0);
		else if (!strcmp(k, "size")) {
			if (c.size.n == SIM_SIZE_MAX) { fprintf(stderr, "error: at most %u sizes\n", SIM_SIZE_MAX); return 2; }
			if (sscanf(v, "%u:%lf", &c.size.len[c.size.n], &c.size.weight[c.size.n]) != 2) return 2;
			c.size.n++;
		} else if (!strcmp(k, "sizes_reset")) c.size.n = 0;
		else { fprintf(stderr, "error: unknown key %s\n", k); return 2; }
	}
	if (flows > 0) {
		double most;
		struct sim_pkt p;

		/* The most flows this rate and duration give: all flows as small as can be. */
		c.flow_min_pkts = 1.0;
		if (sim_tracegen_init(&g, &c, &err)) { fprintf(stderr, "error: %s\n", err.msg); return 2; }
		while (sim_tracegen_next(&g, &p) == 1)
			;
		most = (double)g.flows_started;
		sim_tracegen_free(&g);
		if (most < 0.98 * flows) {
			fprintf(stderr, "error: flows = %.0f: at most about %.0f flows start at this "
				"rate, duration and flow-size cap; raise the rate or the duration\n", flows, most);
			return 2;
		}
		/* More flows = smaller flows at the same rate: bisect the Pareto scale
		 * (log scale) on the count of flows the trace really starts. */
		double lo = 0.0, hi = log((double)c.flow_max_pkts);
		for (int it = 0; it < 40; it++) {
			double mid = 0.5 * (lo + hi), f = 0;
			c.flow_min_pkts = exp(mid);
			if (sim_tracegen_init(&g, &c, &err)) { fprintf(stderr, "error: %s\n", err.msg); return 2; }
			while (sim_tracegen_next(&g, &p) == 1)
				;
			f = (double)g.flows_started;
			sim_tracegen_free(&g);
			if (fabs(f - flows) <= 0.02 * flows) { lo = mid; break; }
			if (f > flows) lo = mid; else hi = mid;
		}
		c.flow_min_pkts = exp(lo);
	}
	if (sim_tracegen_write_pcap(&c, out, SIM_PCAP_NSEC, snap, &n, &err)) {
		fprintf(stderr, "error: %s\n", err.msg);
		return 2;
	}
	printf("{\"packets\": %llu, \"flow_min_pkts\": %.17g}\n", (unsigned long long)n, c.flow_min_pkts);
	return 0;
}
"""


def _cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rxbisect"


def driver() -> Path:
    """The compiled driver, built now if this driver and these libraries have none yet."""
    root = engine.repo_root()
    libs = [root / lib for lib in LIBS]
    missing = [str(p) for p in libs if not p.is_file()]
    if missing:
        raise EngineError(f"the trace generator needs the built simulator: {missing[0]} "
                          "does not exist; build it with `make build`")
    h = hashlib.sha256(_DRIVER.encode())
    for p in libs:
        h.update(p.read_bytes())
    exe = _cache() / f"rxb-tracegen-{h.hexdigest()[:16]}"
    if exe.is_file():
        return exe
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise EngineError("the trace generator driver needs a C compiler (cc); install "
                          "build-essential (scripts/deps.sh)")
    try:
        exe.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EngineError(f"cannot create {exe.parent} ({e.strerror or e})") from None
    src = exe.with_suffix(".c")
    src.write_text(_DRIVER)
    tmp = exe.with_name(f".{exe.name}.{os.getpid()}")
    cmd = [cc, "-O2", "-std=gnu11", *(f"-I{root / i}" for i in INCLUDES), str(src),
           *map(str, libs), "-lm", "-o", str(tmp)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise EngineError("could not build the trace generator driver: "
                          + (r.stderr.strip().splitlines() or ["(no message)"])[-1])
    os.replace(tmp, exe)  # atomic: a concurrent build never runs a half-written file
    return exe


def _check(name: str, v: float, ok: bool, allowed: str) -> None:
    if not ok:
        raise UsageError(f"{name} {v:g}: {allowed}")


def generate(out: str | os.PathLike, duration_ms: float = 100.0, rate_gbps: float = 10.0,
             line_gbps: float | None = 100.0, alpha: float = 1.2, flows: int | None = None,
             min_pkts: float = 1.0, max_pkts: int = 1_000_000, flow_pps: float = 10_000.0,
             flow_pps_sigma: float = 1.0, sizes: Sequence[tuple[int, float]] = DEFAULT_SIZES,
             tcp_share: float = 0.8, seed: int = 1, snaplen: int = 128) -> dict:
    """Write a synthetic trace to `out` (pcap, ns timestamps); returns {"packets", ...}."""
    _check("--duration-ms", duration_ms, 0 < duration_ms <= 3.6e6, "must be > 0 (at most an hour)")
    _check("--rate-gbps", rate_gbps, rate_gbps > 0, "must be > 0")
    if line_gbps is not None:
        _check("--line-gbps", line_gbps, line_gbps >= rate_gbps,
               f"must be at least --rate-gbps ({rate_gbps:g})")
    _check("--alpha", alpha, 0 < alpha <= 10, "must be in (0, 10]; smaller is more skewed")
    _check("--min-pkts", min_pkts, min_pkts >= 1, "must be at least 1")
    _check("--max-pkts", max_pkts, 1 <= max_pkts <= 100_000_000, "must be in 1..1e8")
    _check("--flow-pps", flow_pps, flow_pps > 0, "must be > 0")
    _check("--flow-pps-sigma", flow_pps_sigma, flow_pps_sigma >= 0, "must be >= 0")
    _check("--tcp-share", tcp_share, 0 <= tcp_share <= 1, "must be in [0, 1]")
    _check("--snaplen", snaplen, 64 <= snaplen <= 262144, "must be in 64..262144")
    if flows is not None:
        _check("--flows", flows, flows >= 1, "must be at least 1")
    if not 1 <= len(sizes) <= 16 or any(not 64 <= n <= 9018 or w <= 0 for n, w in sizes):
        raise UsageError(f"--sizes {','.join(f'{n}:{w:g}' for n, w in sizes)}: 1 to 16 "
                         "LEN:WEIGHT pairs, frame lengths 64..9018, weights > 0")
    args = {"out": os.fspath(out), "seed": seed, "duration_ps": round(duration_ms * 1e9),
            "rate_bps": rate_gbps * 1e9, "line_bps": round((line_gbps or 0) * 1e9),
            "flow_alpha": alpha, "flow_min_pkts": min_pkts, "flow_max_pkts": max_pkts,
            "flow_pps_median": flow_pps, "flow_pps_sigma": flow_pps_sigma,
            "tcp_share": tcp_share, "snaplen": snaplen, "flows": flows or 0, "sizes_reset": 1}
    argv = [str(driver())]
    for k, v in args.items():
        argv += [k, repr(v) if isinstance(v, float) else str(v)]
    for n, w in sizes:
        argv += ["size", f"{n}:{w!r}"]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        msg = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
        raise UsageError(f"trace generator: {msg.removeprefix('error: ')}")
    return json.loads(r.stdout) | {"file": os.fspath(out)}
