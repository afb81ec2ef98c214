#!/usr/bin/env bash
# Instructions per packet of the emulator's dispatch, under callgrind: the stable figure on a
# shared machine, where cycles move 2x between runs (bench/README.md, "Emulator dispatch under
# callgrind"). Per design: one rxb-emu run (null source, sink workers, one NIC lcore, 1 core)
# under valgrind --tool=callgrind --fair-sched=yes (without fair scheduling the spinning lcores
# starve each other), collecting only inside emu_nic.c's dispatch_burst() (classify + deliver:
# all a packet costs the NIC lcore past its receive), divided by the packets it dispatched.
#
# Usage: bash bench/emu_callgrind.sh [BUILD]      (default build/; ~2 min)
#   RXB_EMU_CG_ARCHS  designs, comma-separated (default: the five of rxb-emu --bench and the
#                     shared page pool)
#   RXB_EMU_CG_MS     run.duration_ms of each run (default 3000; valgrind runs ~50x slower,
#                     so a run dispatches about 100k packets)
#   RXB_EMU_CG_OUT    JSON written (default BUILD/bench-results/emu_callgrind.json)
set -euo pipefail
BUILD="${1:-build}"
BIN="$BUILD/emu/rxb-emu"
ARCHS="${RXB_EMU_CG_ARCHS:-privring,small_privring,shring,shring_list,rxbisect,spool}"
MS="${RXB_EMU_CG_MS:-3000}"
OUT="${RXB_EMU_CG_OUT:-$BUILD/bench-results/emu_callgrind.json}"
if ! command -v valgrind >/dev/null; then
  # optional, as bench/run.sh's callgrind counts
  echo "emu_callgrind: valgrind is not installed (apt install valgrind): skipped" >&2
  exit 0
fi
if [ ! -x "$BIN" ]; then
  echo "emu_callgrind: $BIN not built (make build)" >&2
  exit 2
fi
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$OUT")"
IFS=, read -r -a archs <<<"$ARCHS"
for a in "${archs[@]}"; do
  echo "emu_callgrind: $a (${MS} ms under callgrind)" >&2
  valgrind --tool=callgrind --fair-sched=yes --toggle-collect=dispatch_burst \
    --callgrind-out-file="$tmp/cg.$a" "$BIN" --set "arch.name=$a" --set emu.source=null \
    --set emu.sink=true --set system.cores=1 --set "run.duration_ms=$MS" \
    >"$tmp/rec.$a.json" 2>"$tmp/vg.$a.log" || {
    echo "emu_callgrind: $a failed:" >&2
    tail -20 "$tmp/vg.$a.log" >&2
    exit 1
  }
done
"$PY" - "$tmp" "$OUT" "$MS" "${archs[@]}" <<'PY'
import json
import re
import sys

tmp, out, ms, archs = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:]
rows = {}
for a in archs:
    text = open(f"{tmp}/cg.{a}").read()
    ir = int(re.search(r"^(?:summary|totals): (\d+)", text, re.M).group(1))
    emu = json.load(open(f"{tmp}/rec.{a}.json"))["metrics"]["emulator"]
    pkts = emu["dispatched"]
    rows[a] = {"instructions_per_packet": round(ir / pkts, 1) if pkts else None,
               "instructions": ir, "packets": pkts}
doc = {"what": ("instructions per packet the emulator's NIC lcore executes in dispatch_burst "
                "(classify + deliver), valgrind --tool=callgrind --fair-sched=yes "
                "--toggle-collect=dispatch_burst"),
       "params": {"emu.source": "null", "emu.sink": True, "system.cores": 1,
                  "emu.nic_lcores": 1, "run.duration_ms": ms},
       "dispatch": rows}
json.dump(doc, open(out, "w"), indent=2)
print("emulator dispatch (classify + deliver) under callgrind, one NIC lcore:")
print(f"  {'design':15s} {'instr/pkt':>10s} {'packets':>9s}")
for a, r in rows.items():
    ipp = r["instructions_per_packet"]
    print(f"  {a:15s} {ipp if ipp is not None else 'n/a':>10} {r['packets']:>9d}")
print(f"wrote {out}")
PY
