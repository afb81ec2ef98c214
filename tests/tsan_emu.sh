#!/usr/bin/env bash
# tests/tsan_emu.sh BUILD — the emulator's concurrent code under ThreadSanitizer (`make
# test-tsan`): rxb-emu --bench, which bounces a line and hands packets between two lcores
# (emu/line_transfer.c, emu/handoff.c) and runs every design's dispatch with NIC lcores and
# workers, once with 1 and once with 2 NIC lcores. A report fails it and is shown.
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
echo "tsan_emu: rxb-emu --bench with 1 and 2 NIC lcores, no ThreadSanitizer report"
