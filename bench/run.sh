#!/usr/bin/env bash
# bench/run.sh BUILD_DIR [bench_rings options]   (what `make bench` runs)
#
# Builds bench_rings in BUILD_DIR if needed, measures the per-packet cost of
# every software receive path (table on stdout, $RXB_BENCH_RESULTS/rings.json),
# then the ns per Toeplitz hash of each rxb_rss implementation ($RXB_BENCH_RESULTS/rss.json),
# then, when valgrind is installed and RXB_BENCH_CALLGRIND is not 0, counts
# the instructions per packet of each path with callgrind (deterministic,
# unlike the clock on a shared machine) into $RXB_BENCH_RESULTS/callgrind.txt and
# the "callgrind_ir_per_pkt" key of rings.json. See bench/README.md.
#   RXB_BENCH_RESULTS    folder for rings.json and callgrind.txt (default build/bench-results;
#                        `rxb calibrate` points it at a temporary folder; `make bench-reference`
#                        copies a run into the tracked bench/results)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build}
shift || true
RESULTS=${RXB_BENCH_RESULTS:-build/bench-results}
BIN="$BUILD/bench/bench_rings"

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -G Ninja -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD" --target bench_rings bench_rss >/dev/null
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
sanitize=$(sed -n 's/^RXB_SANITIZE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
[[ "$sanitize" =~ ^(OFF|off|0|FALSE|false|NO|no)?$ ]] && sanitize=""
if [[ "$build_type" != Rel* || -n "$sanitize" ]]; then
  echo "bench: warning: $BUILD is a '$build_type' build${sanitize:+ with $sanitize sanitizer};" \
       "numbers are not comparable with an optimized build" >&2
fi
mkdir -p "$RESULTS"

"$BIN" --json "$RESULTS/rings.json" "$@"
"$BUILD/bench/bench_rss" --json "$RESULTS/rss.json"

if [ "${RXB_BENCH_CALLGRIND:-1}" = 0 ] || ! command -v valgrind >/dev/null; then
  exit 0
fi

# Instructions per packet of rx_round_<arch> (rx bursts + frees, the timed
# region) and its costliest functions (self cost, inlined code attributed to
# the function it was inlined into).
ROUNDS=1000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report="$RESULTS/callgrind.txt"
{
  echo "Instructions (Ir) per packet in the timed region, callgrind, $ROUNDS rounds of 128 packets"
  echo "build: $BUILD ($build_type), $(${CC:-cc} --version 2>/dev/null | head -1)"
} >"$report"
pairs=()
for arch in privring rxbisect shring_arr shring_list; do
  echo "bench: callgrind $arch" >&2
  out="$tmp/cg.$arch"
  rc=0
  valgrind --tool=callgrind --toggle-collect="rx_round_$arch" --callgrind-out-file="$out" \
    "$BIN" --only "$arch" --rounds "$ROUNDS" >"$out.stdout" 2>"$out.stderr" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "bench: callgrind $arch failed (exit $rc); the end of its stderr:" >&2
    tail -n 20 "$out.stderr" >&2
    exit 1
  fi
  pkts=$(awk '/packets through/ {print $2}' "$out.stdout")
  total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  if ! [[ "$pkts" =~ ^[1-9][0-9]*$ && "$total" =~ ^[0-9]+$ ]]; then
    echo "bench: callgrind $arch: no packet count ('packets through') or no instruction" \
         "total in its output (packets '$pkts', total '$total'); its stdout:" >&2
    tail -n 20 "$out.stdout" >&2
    exit 1
  fi
  per=$(awk -v t="$total" -v p="$pkts" 'BEGIN {printf "%.1f", t / p}')
  pairs+=("\"$arch\": $per")
  {
    echo
    echo "== $arch: $per Ir/pkt ($total Ir, $pkts packets)"
    callgrind_annotate --inclusive=no --auto=no --threshold=99 "$out" 2>/dev/null |
      awk -v p="$pkts" -v root="$PWD/" '/file:function/ {on = 1; next}
        on && $1 ~ /^[0-9,]+$/ {n = $1; gsub(",", "", n); sub(/^ *[0-9,]+ *\([^)]*\) */, "");
                                sub(/ \[.*\]$/, ""); sub(root, "");
                                printf "  %6.2f  %s\n", n / p, $0}'
  } >>"$report"
done
(IFS=,; printf '{%s}\n' "${pairs[*]}") >"$tmp/ir.json"
python3 - "$RESULTS/rings.json" "$tmp/ir.json" <<'EOF'
import json, sys
path, ir = sys.argv[1], json.load(open(sys.argv[2]))
doc = json.load(open(path))
doc["callgrind_ir_per_pkt"] = ir
if ir.get("privring"):
    doc["callgrind_rxbisect_vs_privring"] = round(ir["rxbisect"] / ir["privring"], 3)
json.dump(doc, open(path, "w"), indent=2)
open(path, "a").write("\n")
EOF
echo
echo "callgrind, instructions per packet (details in $report):"
printf "  %s\n" "${pairs[@]}" | tr -d "\""
