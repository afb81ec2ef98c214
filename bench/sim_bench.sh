#!/usr/bin/env bash
# bench/sim_bench.sh [BUILD_DIR]   — simulator speed (not a timed test)
#
# Runs rxb-sim on the reference setup (16 cores, 2 x 100 Gbps, 1518 B frames, LB, LLC model on
# with run.llc_sample_shift = 4) once per receive interface, RUNS times each, and writes
# bench/results/sim.json: {"sim_pkts_per_s": {arch: median simulated packets per wall-clock
# second}, ...} with every sample, the setup and the machine. Wall-clock time is what the
# engine reports (sim_wall_s: set-up + simulation, no process start-up).
#   RXB_SIM_BENCH_RUNS   runs per interface (default 3; the median is reported)
#   RXB_SIM_BENCH_MS     simulated milliseconds per run (default 50)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build}
RUNS=${RXB_SIM_BENCH_RUNS:-3}
MS=${RXB_SIM_BENCH_MS:-50}
RESULTS=bench/results
ARCHS="privring small_privring shring shring_list dyn_shring rxbisect"

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD" --target rxb-sim >/dev/null
BIN="$BUILD/sim/rxb-sim"
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
mkdir -p "$RESULTS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for arch in $ARCHS; do
  PYTHONPATH=python "$PY" -m rxbisect scenario show --json --set "arch.name=$arch" \
    --set "run.duration_ms=$MS" --set run.llc_sample_shift=4 >"$tmp/$arch.json"
  for i in $(seq "$RUNS"); do
    "$BIN" --config "$tmp/$arch.json" 2>/dev/null >"$tmp/$arch.out.$i"
  done
done

"$PY" - "$tmp" "$RESULTS/sim.json" "$RUNS" "$MS" $ARCHS <<'PYEOF'
import datetime, json, os, platform, statistics, sys
tmp, out, runs, ms, archs = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]
rate, samples, packets = {}, {}, {}
for a in archs:
    vals = []
    for i in range(1, runs + 1):
        d = json.load(open(f"{tmp}/{a}.out.{i}"))
        assert d["metrics"]["conservation"] == {"packets_ok": True, "buffers_ok": True}, a
        vals.append(d["sim_packets"] / d["sim_wall_s"])
        packets[a] = d["sim_packets"]
    samples[a] = [round(v) for v in vals]
    rate[a] = round(statistics.median(vals))
cpu = "unknown"
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except (OSError, StopIteration):
    pass
doc = {"sim_pkts_per_s": rate, "samples": samples, "sim_packets": packets, "runs": runs,
       "setup": {"duration_ms": ms, "warmup_ms": 1.0, "llc_sample_shift": 4, "cores": 16,
                 "nics": 2, "rate_gbps_per_nic": 100.0, "packet_bytes": 1518, "nf": "lb"},
       "goal_pkts_per_s": 10_000_000,
       "machine": {"cpu": cpu, "online_cpus": os.cpu_count(), "python": platform.python_version()},
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "command": "bash bench/sim_bench.sh"}
json.dump(doc, open(out, "w"), indent=2)
open(out, "a").write("\n")
print("simulated packets per wall-clock second (median of %d runs of %g ms):" % (runs, ms))
for a in archs:
    print(f"  {a:15s} {rate[a] / 1e6:6.2f} M/s   samples {[round(v / 1e6, 2) for v in samples[a]]}")
PYEOF
