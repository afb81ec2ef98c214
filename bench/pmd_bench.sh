#!/usr/bin/env bash
# bench/pmd_bench.sh [BUILD_DIR]   — net_rxbisect under an unmodified DPDK application (what
# `make bench` adds for pmd/; see pmd/ and docs/pmd.md)
#
# Debian's dpdk-testpmd, io forwarding on one port (--port-topology=loop), measured
#   direct:             on --vdev net_null0 itself, PMD_BENCH_QUEUES forwarding lcores and
#                       queues (no NIC thread: net_null makes the mbufs on the forwarding core);
#   direct_equal_cpus:  the same with one forwarding lcore more, on the CPU the design's NIC
#                       uses (the design's whole CPU budget);
#   <iface>:            on --vdev net_rxbisect0,port=net_null0,iface=<iface> (-d the driver),
#                       PMD_BENCH_QUEUES forwarding lcores and queues + the NIC as a DPDK
#                       service on one service lcore (EAL -S), for each receive interface.
# Lcores: main + forwarding + service, each busy one on a CPU of its own when there are enough
# (here, 2 CPUs: forwarding lcore and main on CPU 0, the NIC service on CPU 1).
# A run = one testpmd process driven on stdin: 'start', a warm-up, then PMD_BENCH_WINDOWS
# windows of 1 s, each ended by 'show port stats all'; its value is the median window's Tx-pps
# (testpmd's "throughput since last show", timed by testpmd: packets forwarded per second).
# PMD_BENCH_REPS repetitions of every configuration, interleaved (direct between every two
# interfaces), medians into $RXB_BENCH_RESULTS/pmd.json (default BUILD/bench-results; make
# bench-reference copies it to bench/results) with every sample: Mpps, the ratio to direct
# measured in the same invocation (and the per-repetition "paired" ratio), the NIC's offered
# rate and drop share (xstats), the CPU budget of each side and the command lines. The JSON is
# rewritten after every run ("complete": false until the last): an interrupted benchmark keeps
# the runs it finished.
# Only one testpmd at a time: a run waits (up to PMD_BENCH_QUIET_WAIT_S) while someone else's
# dpdk-testpmd runs, and is marked in the JSON if it still did.
#   PMD_BENCH_QUEUES        forwarding lcores = Rx/Tx queues (default 1)
#   PMD_BENCH_REPS          repetitions (default 3)
#   PMD_BENCH_WINDOWS       1 s windows per run (default 2)
#   PMD_BENCH_IFACES        comma-separated interfaces (default all six)
#   PMD_BENCH_QUIET_WAIT_S  (default 10)
#   PMD_BENCH_NIC_THREADS   NIC thread counts, e.g. 1,2,4: K > 1 adds each chosen interface but
#                           dyn_shring with K NIC threads (a queue, share group or association set
#                           each) beside direct on K forwarding lcores
#   PMD_BENCH_OUT           the JSON written (default $RXB_BENCH_RESULTS/pmd.json, that folder
#                           being BUILD_DIR/bench-results unless `make bench` names another)
#   PMD_BENCH_BASE_SO       a second build of the driver (before a change): measured in the same
#                           runs as <iface>@base
# Skipped (exit 0, with a message) when the driver or dpdk-testpmd is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build}
OUT=${PMD_BENCH_OUT:-${RXB_BENCH_RESULTS:-$BUILD/bench-results}/pmd.json}
SO="$BUILD/pmd/librte_net_rxbisect.so"
TPMD=${PMD_BENCH_TESTPMD:-/usr/bin/dpdk-testpmd}

if [ -f "$BUILD/CMakeCache.txt" ] && [ -d "$BUILD/pmd" ]; then
  cmake --build "$BUILD" --target rte_net_rxbisect >/dev/null ||
    { echo "pmd_bench: building rte_net_rxbisect in $BUILD failed" >&2; exit 1; }
fi
if [ ! -f "$SO" ]; then
  echo "pmd_bench: skipped: $SO not found (DPDK or its driver SDK missing at configure time?" \
       "run \`make build\`)" >&2
  exit 0
fi
if [ ! -x "$TPMD" ]; then
  TPMD=$(command -v dpdk-testpmd || true)
fi
if [ -z "$TPMD" ] || [ ! -x "$TPMD" ]; then
  echo "pmd_bench: skipped: dpdk-testpmd not found (Debian package dpdk)" >&2
  exit 0
fi
# The EAL refuses a -d path with a world-writable directory above it (a
# checkout under /tmp): load a copy from a private directory, one per run, so
# that two runs (two checkouts, an A/B) never load, or overwrite under a
# running testpmd, each other's driver.
mkdir -p -m 700 "$HOME/.cache/rxbisect"
so_dir=$(mktemp -d "$HOME/.cache/rxbisect/pmd-bench.XXXXXX")
cp "$SO" "$so_dir/librte_net_rxbisect.so"
SO="$so_dir/librte_net_rxbisect.so"
base=()
if [ -n "${PMD_BENCH_BASE_SO:-}" ]; then
  cp "$PMD_BENCH_BASE_SO" "$so_dir/librte_net_rxbisect_base.so"
  base=(--so-base "$so_dir/librte_net_rxbisect_base.so")
fi
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
mkdir -p "$(dirname "$OUT")"
tmp=$(mktemp -d)
prefix="rxb-pmdb-$$"
cleanup() {
  # our own testpmd only, by the process group pmd_bench.py noted for the run under way
  if [ -s "$tmp/running.pgid" ]; then
    pg=$(cat "$tmp/running.pgid")
    if grep -qs -- "$prefix" "/proc/$pg/cmdline"; then kill -KILL -- "-$pg" 2>/dev/null || true; fi
  fi
  rm -rf "$tmp" "$so_dir" "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix"
}
trap cleanup EXIT

"$PY" bench/pmd_bench.py --testpmd "$TPMD" --so "$(realpath "$SO")" \
  "${base[@]}" --out "$OUT" --log-dir "$tmp" --prefix "$prefix" \
  --queues "${PMD_BENCH_QUEUES:-1}" --reps "${PMD_BENCH_REPS:-3}" \
  --windows "${PMD_BENCH_WINDOWS:-2}" --quiet-wait-s "${PMD_BENCH_QUIET_WAIT_S:-10}" \
  ${PMD_BENCH_IFACES:+--ifaces "$PMD_BENCH_IFACES"} \
  ${PMD_BENCH_NIC_THREADS:+--nic-threads "$PMD_BENCH_NIC_THREADS"}
