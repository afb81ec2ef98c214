"""Full emulator runs across worker and NIC lcore counts: does the emulator carry the load?

`rxb-emu --bench` (bench/emu_bench.sh) measures the NIC lcores' dispatch alone; this runs the
whole emulator (source, NIC lcores, workers running the NF) for each point of a grid and reports
what it carried, what it dropped and where the time went, so a user sees on their own server
whether a run is limited by the design, the workers or the emulator itself:

  source null   net_null frames as fast as the NIC lcores take them (the emulator's ceiling);
  source gen    the generator at a fixed offered load (traffic.rate_gbps per NIC, frame size
                given), the study's emulated set-up; with two NICs two NIC ports of half the
                workers each, played by one generator lcore, by one each, or by two each
                (emu.gen_lcores = 4: each feeds half of its port's queues).

Worker counts come from the CPUs this process may use (each busy lcore on a CPU of its own:
main + source + NIC lcores + workers), capped at the most system.cores rxb-emu accepts (read
from `rxb-emu --keys`), so the same command runs on a laptop (where it says the threads share
CPUs) and a many-core server. Each point runs --reps times back to back; its row gives the
median of each figure over its runs, the carried Mpps's min and max, and every run as measured.
The figures are absolute: no baseline runs beside them, so compare them only within one sweep.
Writes one JSON, rewritten after every run ("complete": false until the last), so an interrupted
sweep keeps what it measured, and prints a table. A point whose run fails or hangs is an error
row (its remaining runs are not tried); the script then exits 1 after the last point.

    python3 bench/emu_scale.py [--build DIR] [--out FILE] [--archs a,b] [--nic-lcores 1,2,4]
                               [--ms N] [--reps N] [--quick]
rxb-emu is $RXB_EMU_BIN when set (a wrapper that runs a packed build, say), else DIR/emu/rxb-emu.
"""
import argparse
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys

ARCHS = "privring,shring,rxbisect"


def key_range(binary, key):
    """(lo, hi) of an integer scenario key as rxb-emu itself states it (`rxb-emu --keys`: "an
    integer from LO to HI"); SystemExit when it does not say."""
    try:
        p = subprocess.run([binary, "--keys"], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        sys.exit(f"emu_scale: {binary} --keys ran longer than 60 s")
    lines = p.stdout.splitlines()
    for k, line in enumerate(lines):
        if line.split()[:1] == [key]:
            m = re.search(r"an integer from (\d+) to (\d+)", " ".join(lines[k:k + 2]))
            if m:
                return int(m.group(1)), int(m.group(2))
    sys.exit(f"emu_scale: {binary} --keys (exit {p.returncode}) states no integer range of "
             f"{key}: {(p.stderr.strip().splitlines() or ['no output'])[-1]}")


def worker_counts(cpus, nic_lcores, gens, most):
    """8 workers and all the CPUs left after main, the generator lcores and the NIC lcores (at
    least 1, at most `most`: the emulator's limit on system.cores)."""
    left = min(most, max(1, cpus - 1 - nic_lcores - gens))
    return sorted({min(8, left), left})


def point(arch, workers, nic, **keys):
    """One grid point: workers rounded down to a multiple of the NIC lcores and of the NIC
    groups (each gets an equal share), or None when fewer are left than that. The emulator's
    "auto" gives each NIC lcore queues of its own (shRing shared rings, rxBisect association
    sets), as in `rxb-emu --bench`."""
    unit = math.lcm(nic, keys.get("system.nics", 1), keys.get("emu.gen_lcores", 1))
    w = workers // unit * unit
    if w == 0:
        return None
    return {"arch.name": arch, "system.cores": w, "emu.nic_lcores": nic, **keys}


def gen_keys(frame, nics, gens):
    """A generator point at 100 Gbps per NIC port. Several generator lcores need each physical
    queue within one port (and, with more lcores than ports, a queue per lcore at least):
    the emulator's "auto" share degree and association make them so."""
    keys = {"emu.source": "gen", "system.nics": nics, "traffic.packet_bytes": frame,
            "traffic.rate_gbps": 100}
    if gens > 1:
        keys["emu.gen_lcores"] = gens
    return keys


def points(a, cpus, most_workers):
    """The grid: the --set pairs of each point, in the order they run."""
    out = []
    for nic in [int(n) for n in a.nic_lcores.split(",")]:
        for arch in a.archs.split(","):
            for w in worker_counts(cpus, nic, 0, most_workers):
                out.append(point(arch, w, nic, **{"emu.source": "null"}))
            for frame, nics, gens in ((1518, 1, 1), (1518, 2, 1), (1518, 2, 2), (1518, 2, 4),
                                      (64, 1, 1)):
                out.append(point(arch, worker_counts(cpus, nic, gens, most_workers)[-1], nic,
                                 **gen_keys(frame, nics, gens)))
    # rounding can make two points one
    out = [p for k, p in enumerate(out) if p is not None and p not in out[:k]]
    return out[:6] if a.quick else out


def run_one(binary, sets, ms):
    cmd = [binary, "--set", f"run.duration_ms={ms}", "--set", f"run.warmup_ms={ms // 4}",
           "--set", "emu.telemetry=false"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    timeout_s = 60 + ms / 1e3 * 4
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"ran longer than {timeout_s:.0f} s", "command": " ".join(cmd)}
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else
                f"exit {p.returncode}", "command": " ".join(cmd)}
    return summarise(json.loads(p.stdout), cmd)


def summarise(rec, cmd):
    m = rec["metrics"]
    emu = m["emulator"]
    workers = m["per_worker"]
    wire_bits = (rec["params"]["traffic.packet_bytes"] + 20) * 8  # frame + preamble and gap
    return {
        "offered_mpps": round(m["offered_gbps"] * 1e3 / wire_bits, 3),
        "throughput_mpps": m["throughput_mpps"], "drop_rate": m["drop_rate"],
        "drops": {k: v for k, v in m["drops_by_cause"].items() if v},
        "dispatch_mpps": emu["dispatch_mpps"],
        "nic_cycles_per_packet": emu["cost"]["nic_cycles_per_packet"],
        "nic_idle_share": emu["idle_share"],
        "added_latency_ns": emu["cost"]["added_latency_ns"],
        "worker_idle_share": round(sum(w["idle_share"] for w in workers) / len(workers), 4),
        "gen_late": emu.get("gen_late", 0),
        "latency_us_p99": m["latency_us_p99"],
        "command": " ".join(cmd),
    }


def point_row(sets, runs):
    """A point's row from its runs so far: the failed run's error when the last one failed (a
    point stops at its first failure), else the median of each figure over the runs (drops by
    cause too) and the spread of the carried Mpps; every run is kept as measured."""
    if "error" in runs[-1]:
        return dict(sets, **runs[-1], runs=runs)

    def median(values):  # a figure rxb-emu could not measure is null in its record
        known = [v for v in values if v is not None]
        return round(statistics.median(known), 6) if known else None

    row = dict(sets, **{k: median([r[k] for r in runs]) for k in runs[0]
                        if k not in ("drops", "command")})
    causes = {c for r in runs for c in r["drops"]}
    drops = {c: median([r["drops"].get(c, 0) for r in runs]) for c in sorted(causes)}
    carried = [r["throughput_mpps"] for r in runs]
    row.update(drops={c: v for c, v in drops.items() if v}, throughput_mpps_min=min(carried),
               throughput_mpps_max=max(carried), command=runs[0]["command"], runs=runs)
    return row


def write_json(path, doc):
    """Replace the file whole (a temporary file beside it, renamed): a sweep killed while writing
    leaves the version before, never half a document."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def sweep(grid, reps, run, doc, out):
    """Each point `reps` times back to back through run(sets); doc["rows"] and the file at out
    are brought up to date after every run, and each point's row printed once it is done."""
    for k, sets in enumerate(grid, 1):
        print(f"emu_scale: {k}/{len(grid)} {sets}", file=sys.stderr, flush=True)
        runs = []
        doc["rows"].append(None)  # this point's row, replaced after each of its runs
        for _ in range(reps):
            runs.append(run(sets))
            doc["rows"][-1] = point_row(sets, runs)
            write_json(out, doc)
            if "error" in runs[-1]:
                break  # it would fail again: a hung run costs a minute each time
        print_row(doc["rows"][-1])
    doc["complete"] = True
    write_json(out, doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default=None)
    ap.add_argument("--archs", default=ARCHS)
    ap.add_argument("--nic-lcores", default="1,2,4")
    ap.add_argument("--ms", type=int, default=400, help="run.duration_ms of each point")
    ap.add_argument("--reps", type=int, default=3, help="runs of each point (their median)")
    ap.add_argument("--quick", action="store_true", help="the first 6 points only")
    a = ap.parse_args()
    if a.reps < 1:
        sys.exit(f"emu_scale: --reps {a.reps}: must be at least 1")
    binary = os.environ.get("RXB_EMU_BIN") or os.path.join(a.build, "emu", "rxb-emu")
    if not os.access(binary, os.X_OK):
        sys.exit(f"emu_scale: {binary} not found or not executable (make build, or set "
                 "RXB_EMU_BIN)")
    out = a.out or os.path.join(os.environ.get("RXB_BENCH_RESULTS",
                                               os.path.join(a.build, "bench-results")),
                                "emu_scale.json")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    cpus = len(os.sched_getaffinity(0))
    most_workers = key_range(binary, "system.cores")[1]
    grid = points(a, cpus, most_workers)
    doc = {"command": "python3 " + " ".join(sys.argv), "cpus": cpus, "ms": a.ms,
           "reps": a.reps, "max_workers": most_workers,
           "method": (f"each point run {a.reps} times back to back; a row's figures are the "
                      "medians of its runs (runs: each as measured); absolute figures, no "
                      "baseline measured in the same sweep"),
           "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "complete": False, "rows": []}
    print(f"medians of {a.reps} runs per point; absolute figures (no baseline runs beside "
          "them): compare points of one sweep")
    print(f"{'arch':14s} {'source':10s} {'nics':>4s} {'workers':>7s} {'nic':>3s} {'gen':>3s}"
          f" {'offered':>8s}"
          f" {'carried':>8s} {'min-max':>11s} {'drop':>6s} {'nic cyc':>7s} {'nic idle':>8s}"
          f" {'wrk idle':>8s}  drops")
    sweep(grid, a.reps, lambda sets: run_one(binary, sets, a.ms), doc, out)
    print(f"wrote {out}")
    failed = [r for r in doc["rows"] if "error" in r]
    if failed:
        sys.exit(f"emu_scale: {len(failed)} of {len(grid)} points failed, first: "
                 f"{failed[0]['command']}: {failed[0]['error']}")


def print_row(r):
    src = r["emu.source"] + (f"/{r['traffic.packet_bytes']}B" if r["emu.source"] == "gen" else "")
    head = (f"{r['arch.name']:14s} {src:10s} {r.get('system.nics', 1):4d} "
            f"{r['system.cores']:7d} {r['emu.nic_lcores']:3d} {r.get('emu.gen_lcores', 1):3d}")
    if "error" in r:
        print(f"{head}  error: {r['error']}")
        return
    spread = f"{r['throughput_mpps_min']:.2f}-{r['throughput_mpps_max']:.2f}"
    print(f"{head} {r['offered_mpps']:8.2f} {r['throughput_mpps']:8.2f} {spread:>11s} "
          f"{r['drop_rate']:6.3f} {r['nic_cycles_per_packet']:7.0f} {r['nic_idle_share']:8.3f} "
          f"{r['worker_idle_share']:8.3f}  {r['drops'] or ''}", flush=True)


if __name__ == "__main__":
    main()
