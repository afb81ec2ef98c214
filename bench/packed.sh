#!/usr/bin/env bash
# bench/packed.sh PACK_DIR SHIM_DIR — run the benchmarks on a server without DPDK
#
# PACK_DIR is a self-contained copy of rxb-emu, the net_rxbisect driver, dpdk-testpmd, DPDK's
# net_null / net_ring / mempool_ring drivers and every library they load, with a `run` script
# that starts a program through the packed loader (`run PROGRAM ARGS...`). This makes SHIM_DIR
# look like a build directory to the benchmark scripts:
#   SHIM_DIR/emu/rxb-emu                  runs the packed rxb-emu with the packed drivers
#   SHIM_DIR/pmd/librte_net_rxbisect.so   the packed driver
#   SHIM_DIR/bin/dpdk-testpmd             runs the packed testpmd with the packed drivers
# Then, with SHIM_DIR/bin first on PATH:
#   RXB_EMU_BIN=SHIM_DIR/emu/rxb-emu bash bench/emu_bench.sh SHIM_DIR
#   PMD_BENCH_TESTPMD=SHIM_DIR/bin/dpdk-testpmd bash bench/pmd_bench.sh SHIM_DIR
#   RXB_EMU_BIN=SHIM_DIR/emu/rxb-emu python3 bench/emu_scale.py --build SHIM_DIR
# The EAL refuses drivers (-d) under a world-writable directory: keep PACK_DIR below one that
# is not (not /tmp). Without a plugin directory the EAL loads only what -d names.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,17p' "$0"; exit 2; }
pack=$(cd "$1" && pwd)
shim=$2
[ -x "$pack/run" ] || { echo "packed.sh: $pack/run not found (not a packed build)" >&2; exit 1; }
drivers=()
for f in "$pack"/lib/dpdk/*; do
  case $f in *.so.*.*) continue ;; esac # the same driver as its .so.N twin: load it once
  drivers+=(-d "$f")
done
[ ${#drivers[@]} -gt 0 ] || { echo "packed.sh: no drivers in $pack/lib/dpdk" >&2; exit 1; }
mkdir -p "$shim/emu" "$shim/pmd" "$shim/bin"
cp "$pack/bin/librte_net_rxbisect.so" "$shim/pmd/"
# rxb-emu adds what the machine needs (lcores, no hugepages, file prefix) to the EAL options
# it is given; these only name the drivers.
cat >"$shim/emu/rxb-emu" <<EOF
#!/bin/sh
exec "$pack/run" rxb-emu "\$@" --eal "${drivers[*]}"
EOF
cat >"$shim/bin/dpdk-testpmd" <<EOF
#!/bin/sh
exec "$pack/run" dpdk-testpmd ${drivers[*]} "\$@"
EOF
chmod +x "$shim/emu/rxb-emu" "$shim/bin/dpdk-testpmd"
echo "packed.sh: $shim ready (drivers: $((${#drivers[@]} / 2)))"
