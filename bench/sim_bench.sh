#!/usr/bin/env bash
# bench/sim_bench.sh [BUILD_DIR]   — simulator speed (not a timed test)
#
# Runs rxb-sim on the reference setup (16 cores, 2 x 100 Gbps, 1518 B frames, LB, LLC model on
# with run.llc_sample_shift = 4) once per receive interface, RUNS times each, and writes
# $RXB_BENCH_RESULTS/sim.json (default build/bench-results): {"sim_pkts_per_s": {arch: median simulated packets per wall-clock
# second}, "instructions_per_packet": {arch: callgrind instructions / simulated packet}, ...}
# with every sample, the setup and the machine. Wall-clock time is what the engine reports
# (sim_wall_s: set-up + simulation, no process start-up). Runs of the interfaces are
# interleaved (round r of every interface, then round r + 1), so that a noisy neighbour on a
# shared machine spreads over all of them instead of hitting one.
#
# Instructions per packet come from one run per interface under callgrind (deterministic:
# the number does not depend on the machine's load; the whole process, set-up included,
# divided by sim_packets).
#   RXB_SIM_BENCH_RUNS       runs per interface (default 5; the median is reported)
#   RXB_SIM_BENCH_MS         simulated milliseconds per run (default 50)
#   RXB_SIM_BENCH_CALLGRIND  1 (default, when valgrind is installed) or 0: skip callgrind
#   RXB_SIM_BENCH_SET        one more SECTION.KEY=VALUE for every run (e.g. workload.costs=light,
#                            to compare with runs made before the study's costs were the default)
#   RXB_SIM_BIN              the rxb-sim to run (default BUILD_DIR/sim/rxb-sim, built if needed)
# Progress goes to stderr; sim.json is rewritten after every round and every callgrind run
# ("complete": false until the end), so an interrupted benchmark keeps what it measured. Each
# interface's median is also given as a ratio to privring's, measured in the same run. A run
# that fails stops the benchmark with the interface, the run and the end of its stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build}
RUNS=${RXB_SIM_BENCH_RUNS:-5}
MS=${RXB_SIM_BENCH_MS:-50}
CG=${RXB_SIM_BENCH_CALLGRIND:-1}
RESULTS=${RXB_BENCH_RESULTS:-build/bench-results}
ARCHS="privring small_privring shring shring_list dyn_shring rxbisect"

if [ -n "${RXB_SIM_BIN:-}" ]; then
  BIN=$RXB_SIM_BIN
else
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  cmake --build "$BUILD" --target rxb-sim >/dev/null
  BIN="$BUILD/sim/rxb-sim"
fi
# `python -m rxbisect` needs the project's packages (tqdm, ...): only the .venv has them
if [ ! -x .venv/bin/python ]; then
  echo "sim_bench: .venv/bin/python not found (scripts/deps.sh makes it: run \`make build\`)" >&2
  exit 1
fi
PY=.venv/bin/python
if [ "$CG" = 1 ] && ! command -v valgrind >/dev/null; then
  echo "sim_bench: valgrind not found, no instruction counts" >&2
  CG=0
fi
mkdir -p "$RESULTS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# summarise DONE COMPLETE: sim.json and (stdout) the table from the first DONE rounds and the
# callgrind runs made so far
summarise() {
  "$PY" - "$tmp" "$RESULTS/sim.json" "$1" "$MS" "$CG" "$2" $ARCHS <<'PYEOF'
import datetime, json, os, platform, re, statistics, sys
tmp, out, runs, ms, cg, complete, archs = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                           float(sys.argv[4]), sys.argv[5] == "1",
                                           sys.argv[6] == "true", sys.argv[7:])
rate, samples, packets, ipp = {}, {}, {}, {}
for a in archs:
    vals = []
    for i in range(1, runs + 1):
        d = json.load(open(f"{tmp}/{a}.out.{i}"))
        assert d["metrics"]["conservation"] == {"packets_ok": True, "buffers_ok": True}, a
        vals.append(d["sim_packets"] / d["sim_wall_s"])
        packets[a] = d["sim_packets"]
    samples[a] = [round(v) for v in vals]
    rate[a] = round(statistics.median(vals))
    if cg and os.path.exists(f"{tmp}/{a}.cgdone"):  # its callgrind run has finished
        m = re.search(r"Collected\s*:\s*(\d+)", open(f"{tmp}/{a}.cg").read())
        assert m, f"{a}: no callgrind total"
        assert json.load(open(f"{tmp}/{a}.cgout"))["sim_packets"] == packets[a], a
        ipp[a] = round(int(m.group(1)) / packets[a])
cpu = "unknown"
try:
    cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
except (OSError, StopIteration):
    pass
try:
    load = [round(x, 2) for x in os.getloadavg()]
except OSError:
    load = None
base = rate.get("privring")
vs = {a: round(rate[a] / base, 3) for a in archs} if base else None
doc = {"sim_pkts_per_s": rate, "instructions_per_packet": ipp, "samples": samples,
       "sim_pkts_per_s_vs_privring": vs, "sim_packets": packets, "runs": runs,
       "complete": complete,
       "setup": {"duration_ms": ms, "warmup_ms": 1.0, "llc_sample_shift": 4, "cores": 16,
                 "nics": 2, "rate_gbps_per_nic": 100.0, "packet_bytes": 1518, "nf": "lb"},
       "goal_pkts_per_s": 10_000_000,
       "machine": {"cpu": cpu, "online_cpus": os.cpu_count(), "load_avg_after": load,
                   "python": platform.python_version()},
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
       "command": "bash bench/sim_bench.sh"}
if not cg:
    del doc["instructions_per_packet"]
with open(out + ".tmp", "w") as f:  # replaced whole: a reader never sees half a file
    json.dump(doc, f, indent=2)
    f.write("\n")
os.replace(out + ".tmp", out)
print("simulated packets per wall-clock second (median of %d runs of %g ms)%s:"
      % (runs, ms, ", callgrind instructions per packet" if cg else ""))
for a in archs:
    extra = f"   {ipp[a]:5d} instr/pkt" if a in ipp else ""
    ratio = f"  {vs[a]:5.2f}x privring" if vs else ""
    print(f"  {a:15s} {rate[a] / 1e6:6.2f} M/s{ratio}{extra}   samples {[round(v / 1e6, 2) for v in samples[a]]}")
PYEOF
}

# fail NAME STATUS ERRFILE: stop the benchmark, saying which run failed and how
fail() {
  echo "sim_bench: $1 failed (exit $2); the end of its stderr:" >&2
  tail -n 20 "$3" >&2
  exit 1
}

for arch in $ARCHS; do
  PYTHONPATH=python "$PY" -m rxbisect scenario show --json --set "arch.name=$arch" \
    --set "run.duration_ms=$MS" --set run.llc_sample_shift=4 \
    ${RXB_SIM_BENCH_SET:+--set "$RXB_SIM_BENCH_SET"} >"$tmp/$arch.json"
done
for i in $(seq "$RUNS"); do
  echo "sim_bench: run $i/$RUNS: $ARCHS" >&2
  for arch in $ARCHS; do
    rc=0
    "$BIN" --config "$tmp/$arch.json" 2>"$tmp/$arch.err.$i" >"$tmp/$arch.out.$i" || rc=$?
    [ "$rc" -eq 0 ] || fail "$arch run $i/$RUNS" "$rc" "$tmp/$arch.err.$i"
  done
  summarise "$i" false >/dev/null
done
if [ "$CG" = 1 ]; then
  for arch in $ARCHS; do
    echo "sim_bench: callgrind $arch" >&2
    rc=0
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" --config "$tmp/$arch.json" \
      2>"$tmp/$arch.cg" >"$tmp/$arch.cgout" || rc=$?
    [ "$rc" -eq 0 ] || fail "$arch under callgrind" "$rc" "$tmp/$arch.cg"
    touch "$tmp/$arch.cgdone"
    summarise "$RUNS" false >/dev/null
  done
fi
summarise "$RUNS" true
