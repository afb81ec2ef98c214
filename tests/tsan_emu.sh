#!/usr/bin/env bash
# tests/tsan_emu.sh BUILD — the emulator's concurrent code under ThreadSanitizer (`make
# test-tsan`):
#  - rxb-emu --bench, which bounces a line and hands packets between two lcores
#    (emu/line_transfer.c, emu/handoff.c) and runs every design's dispatch with NIC lcores and
#    workers, once with 1 and once with 2 NIC lcores: any report fails it;
#  - a whole LB run whose two workers first learn their flows on their own lcores while the
#    main lcore waits (emu/emu_flows.c): a report that involves that file fails it. The run's
#    packets themselves cross DPDK's rings and mempool drivers, uninstrumented libraries whose
#    hand-offs ThreadSanitizer cannot see, so the reports on the packet path are not ours to
#    judge here.
set -euo pipefail
BIN=$1/emu/rxb-emu
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for n in 1 2; do
  if ! TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
      "$BIN" --bench --bench-ms 20 --set "emu.nic_lcores=$n" >/dev/null 2>"$log"; then
    cat "$log" >&2
    echo "tsan_emu: rxb-emu --bench with $n NIC lcore(s) failed under ThreadSanitizer" >&2
    exit 1
  fi
done
TSAN_OPTIONS="halt_on_error=0 exitcode=0 second_deadlock_stack=1" "$BIN" \
  --set workload.nf=lb --set emu.source=gen --set system.cores=2 \
  --set traffic.gen_src_addrs=2000 --set traffic.gen_dst_addrs=2 --set traffic.rate_gbps=0.2 \
  --set emu.packets=6000 --set emu.telemetry=false >/dev/null 2>"$log" || {
  cat "$log" >&2
  echo "tsan_emu: the LB run that learns its flows failed" >&2
  exit 1
}
# each report sits between two lines of '='; keep those naming the learning's file
ours=$(awk '/^==================$/ { if (r ~ /emu_flows\.c/) printf "%s", r; r = ""; next }
            { r = r $0 "\n" }' "$log")
if [ -n "$ours" ]; then
  printf '%s\n' "$ours" >&2
  echo "tsan_emu: ThreadSanitizer reports in the workers' learning of their flows" >&2
  exit 1
fi
echo "tsan_emu: rxb-emu --bench with 1 and 2 NIC lcores and the learning of an LB run's flows," \
  "no ThreadSanitizer report"
