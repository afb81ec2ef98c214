#!/usr/bin/env bash
# bench/emu_bench.sh [BUILD_DIR]   — the emulator against DPDK's own forwarding (what `make
# bench` adds for rxb-emu; see bench/README.md, "Emulator")
#
# Per run, back to back:
#   1. rxb-emu --bench (docs/emulator.md "Benchmark mode") once per NIC lcore count (1, 2, 4):
#      per interface, the NIC lcores each on a CPU of their own when there are enough,
#      dispatching from net_null with software RSS to sink workers (achieved_mpps,
#      capacity_mpps at full bursts, NIC cycles per packet and where they go by step of the
#      loop, the latency the NIC lcores add), the workers' receive + free cost per packet on
#      one core (rx_ns, free_ns), and the machine's price of a line moved between two CPUs and
#      its floor for a packet handed from one CPU to another;
#   2. dpdk-testpmd io forwarding between two net_null vdevs on one forwarding core (the
#      baseline of docs/emulator.md): per port the median Rx-pps of the 1 s periods after the
#      first, summed over both ports = packets one core moves through two PMDs.
# Both on the same pages: rxb-emu picks (hugepages when 1 GiB of them is free, else 4 KiB;
# its record's machine.pages) and testpmd follows; the figures depend on it, testpmd's most.
# RUNS runs; medians with every sample, each also as a ratio to testpmd measured in the same
# invocation: dispatch Mpps / testpmd Mpps, and worker (rx + free) ns / testpmd ns per
# forwarded packet. The lcore map comes from the CPUs this process may use (rxb-emu picks
# it; testpmd's main lcore goes on the first of them and its forwarding lcore on the last,
# where rxb-emu puts its NIC lcore), so the script runs unchanged on a laptop, in a cpuset
# and on a many-core server. A testpmd that fails (any exit but the timeout's 124, or no
# Rx-pps figures) stops the script with the tail of its log. The JSON is rewritten after
# every run ("complete": false until the last), so an interrupted benchmark keeps its runs.
#   RXB_EMU_BENCH_RUNS       runs (default 3)
#   RXB_EMU_BENCH_MS         rxb-emu --bench-ms per interface (default 300)
#   RXB_EMU_BENCH_TESTPMD_S  seconds testpmd runs, start-up included (default 8)
#   RXB_EMU_BENCH_LCORES     NIC lcore counts (default "1 2 4")
#   RXB_EMU_BENCH_OUT        the JSON written (default $RXB_BENCH_RESULTS/emu.json, that folder
#                            being BUILD_DIR/bench-results unless `make bench` names another)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build}
RUNS=${RXB_EMU_BENCH_RUNS:-3}
MS=${RXB_EMU_BENCH_MS:-300}
TPMD_S=${RXB_EMU_BENCH_TESTPMD_S:-8}
LCORES=${RXB_EMU_BENCH_LCORES:-1 2 4}
OUT=${RXB_EMU_BENCH_OUT:-${RXB_BENCH_RESULTS:-$BUILD/bench-results}/emu.json}
BIN="$BUILD/emu/rxb-emu"

if [ -f "$BUILD/CMakeCache.txt" ]; then
  cmake --build "$BUILD" --target rxb-emu >/dev/null
fi
if [ ! -x "$BIN" ]; then
  echo "emu_bench: $BIN not found (DPDK missing at configure time? run \`make build\`)" >&2
  exit 1
fi
TPMD=$(command -v dpdk-testpmd || true)
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
mkdir -p "$(dirname "$OUT")"
tmp=$(mktemp -d)
prefix="rxb-tpmd-$$"
cleanup() {
  rm -rf "$tmp" "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix"
}
trap cleanup EXIT

# testpmd's lcores: main on the first CPU this process may use, forwarding on the last (the
# CPU rxb-emu gives its NIC lcore); one CPU: both on it
cpu_span=$("$PY" -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[-1])')
TPMD_LCORES="0@${cpu_span% *},1@${cpu_span#* }"

# The JSON and (on stdout) the table from the first DONE runs; the last argument says whether
# they are all of them. Called after every run, so an interrupted benchmark keeps its runs.
summarise() {
  "$PY" - "$tmp" "$OUT" "$1" "$MS" "$TPMD_S" "${TPMD:-}" "$LCORES" "$TPMD_MEM" "$TPMD_LCORES" \
    "$([ "$1" -eq "$RUNS" ] && echo true || echo false)" <<'PYEOF'
import datetime, json, os, re, statistics, sys
tmp, out, tpmd = sys.argv[1], sys.argv[2], sys.argv[6]
runs, ms, tpmd_s = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
lcores = [int(n) for n in sys.argv[7].split()]
tpmd_mem, tpmd_lcores, complete = sys.argv[8], sys.argv[9], sys.argv[10] == "true"
med = statistics.median

def testpmd(path):
    """Packets per second one core forwards (both ports), from testpmd's 1 s periods."""
    rx = [int(v) for v in re.findall(r"Rx-pps:\s+(\d+)", open(path, errors="replace").read())]
    ports = [rx[0::2], rx[1::2]]
    ports = [[v for v in p[1:] if v > 0] for p in ports]  # first period is zero (start-up)
    if not all(ports):
        return None
    return {"per_port_mpps": [round(med(p) / 1e6, 3) for p in ports],
            "total_mpps": round(sum(med(p) for p in ports) / 1e6, 3),
            "periods": [len(p) for p in ports]}

base = [testpmd(f"{tmp}/tpmd.{i}") for i in range(1, runs + 1)] if tpmd else []
for i, b in enumerate(base, 1):
    if b is None:  # the baseline of every ratio: never silently null
        tail = open(f"{tmp}/tpmd.{i}", errors="replace").read().splitlines()[-20:]
        sys.exit(f"emu_bench: run {i}: dpdk-testpmd printed no Rx-pps figures for both ports; "
                 "the end of its output:\n" + "\n".join(tail))
tp_mpps = med([b["total_mpps"] for b in base]) if base else None
tp_ns = 1e3 / tp_mpps if tp_mpps else None
hz = None
ratio = lambda a, b: round(a / b, 3) if a is not None and b else None  # noqa: E731
rmed = lambda rows, k: round(med([r[k] for r in rows if r[k] is not None]), 3) \
    if any(r[k] is not None for r in rows) else None  # noqa: E731

def dispatch_of(emu):
    """Per interface, medians over the runs of one NIC lcore count."""
    table = {}
    for d in emu[0]["dispatch"]:
        a = d["arch"]
        rows = [next(x for x in e["dispatch"] if x["arch"] == a) for e in emu]
        assert all(r["conservation_ok"] for r in rows), a
        m = {k: rmed(rows, k) for k in ("achieved_mpps", "capacity_mpps", "cycles_per_packet",
                                        "loaded_cycles_per_packet", "idle_share",
                                        "added_latency_ns")}
        m["loaded_ns_per_packet"] = round(m["loaded_cycles_per_packet"] / hz * 1e9, 3) \
            if m["loaded_cycles_per_packet"] else None
        steps = [r["stage_cycles_per_packet"] for r in rows]
        m["stage_cycles_per_packet"] = {s: rmed(steps, s) for s in steps[0]}
        m["samples_achieved_mpps"] = [r["achieved_mpps"] for r in rows]
        m["samples_capacity_mpps"] = [r["capacity_mpps"] for r in rows]
        m["achieved_vs_testpmd"] = ratio(m["achieved_mpps"], tp_mpps)
        m["capacity_vs_testpmd"] = ratio(m["capacity_mpps"], tp_mpps)
        table[a] = m
    return table

emus = {n: [json.load(open(f"{tmp}/emu.{n}.{i}.json")) for i in range(1, runs + 1)]
        for n in lcores}
first = emus[lcores[0]]
hz = first[0]["machine"]["tsc_hz"]
by_lcores = {str(n): dispatch_of(emus[n]) for n in lcores}
rx_cost = {}
for d in first[0]["rx_cost"]:
    a = d["arch"]
    rows = [next(x for x in e["rx_cost"] if x["arch"] == a) for e in first]
    m = {k: round(med([r[k] for r in rows]), 3) for k in ("rx_ns", "free_ns", "rx_cycles",
                                                          "free_cycles")}
    m["rx_free_ns"] = round(m["rx_ns"] + m["free_ns"], 3)
    m["samples_rx_ns"] = [r["rx_ns"] for r in rows]
    m["rx_free_vs_testpmd_ns"] = ratio(m["rx_free_ns"], tp_ns)
    rx_cost[a] = m

doc = {
    "testpmd": {"total_mpps": tp_mpps, "ns_per_pkt": round(tp_ns, 3) if tp_ns else None,
                "runs": base, "seconds": tpmd_s,
                "command": "timeout %g dpdk-testpmd %s--no-pci --vdev=net_null0 "
                           "--vdev=net_null1 --lcores=%s -- --forward-mode=io --stats-period=1 "
                           "--nb-cores=1 --rxq=1 --txq=1" % (tpmd_s, tpmd_mem + " " if tpmd_mem
                                                             else "", tpmd_lcores),
                "note": ("io forwarding, two net_null ports, one forwarding core: per port the "
                         "median Rx-pps after the first period, summed") if tpmd else
                        "dpdk-testpmd not installed: no baseline, ratios are null"},
    "dispatch": by_lcores[str(lcores[0])],
    "dispatch_by_nic_lcores": by_lcores,
    "rx_cost": rx_cost,
    "ratios": {"dispatch": "achieved_mpps and capacity_mpps (full bursts, all NIC lcores) / "
                           "testpmd total_mpps",
               "rx_cost": "(rx_ns + free_ns) / testpmd ns_per_pkt (= 1000 / total_mpps: one "
                          "core's cost to receive, forward and free a packet through PMDs)"},
    "runs": runs, "complete": complete, "bench_ms": ms, "nic_lcores": lcores,
    "setup": first[0].get("params"), "machine": first[0].get("machine"),
    "online_cpus": os.cpu_count(),
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "command": "bash bench/emu_bench.sh",
}
with open(out + ".tmp", "w") as f:  # replaced whole: a reader never sees half a file
    json.dump(doc, f, indent=2)
    f.write("\n")
os.replace(out + ".tmp", out)
tp = f"{tp_mpps:.1f} Mpps ({tp_ns:.1f} ns/packet)" if tp_mpps else "n/a"
fmt = lambda v, f: format(v, f) if v is not None else "n/a"  # noqa: E731
times = lambda v: f"{v:.2f}x" if v is not None else "n/a"  # noqa: E731
pages = (first[0].get("machine") or {}).get("pages", "unknown")
print(f"emulator vs dpdk-testpmd io forwarding on one core ({tp}), medians of {runs} runs, "
      f"on {pages if pages == 'hugepages' else pages + ' pages'}:")
for n in lcores:
    print(f"  {n} NIC lcore(s)   {'achieved':>9s} {'capacity':>9s} {'cyc/pkt':>8s} {'ns/pkt':>7s}"
          f" {'cap/tpmd':>9s} {'added ns':>9s}   {'rx+free ns':>10s} {'/tpmd ns':>9s}")
    for a, d in by_lcores[str(n)].items():
        r = rx_cost.get(a, {})
        print(f"  {a:15s} {fmt(d['achieved_mpps'], '8.2f')}M {fmt(d['capacity_mpps'], '8.2f')}M "
              f"{fmt(d['loaded_cycles_per_packet'], '8.1f')} {fmt(d['loaded_ns_per_packet'], '7.1f')}"
              f" {times(d['capacity_vs_testpmd']):>9s} {fmt(d['added_latency_ns'], '9.0f')}   "
              f"{fmt(r.get('rx_free_ns'), '10.2f')} {times(r.get('rx_free_vs_testpmd_ns')):>9s}")
print("  achieved: sink workers; capacity: NIC lcores x TSC Hz / cycles per packet of full-burst "
      "loops (cyc/pkt, ns/pkt: one NIC lcore); added: ns a packet spends in a NIC lcore")
steps = list(next(iter(by_lcores[str(lcores[0])].values()))["stage_cycles_per_packet"])
print(f"  where one NIC lcore's cycles per packet go ({lcores[0]} NIC lcore(s)):")
print("  " + " " * 15 + "".join(f"{s:>9s}" for s in steps))
for a, d in by_lcores[str(lcores[0])].items():
    print(f"  {a:15s}" + "".join(fmt(d["stage_cycles_per_packet"][s], "9.1f") for s in steps))
lt = (first[0].get("machine") or {}).get("line_transfer_cycles")
print(f"  one cache line moved between two CPUs here: {fmt(lt, '.0f')} cycles (every line a packet "
      "shares between NIC lcore and worker costs this)")
ho = (first[0].get("machine") or {}).get("handoff_cycles_per_packet")
print(f"  one packet handed from one CPU to another through rings, nothing else: {fmt(ho, '.1f')} "
      "cycles (the floor of a NIC lcore's cyc/pkt here)")
print(f"wrote {out}")
PYEOF
}

TPMD_MEM=""
for i in $(seq "$RUNS"); do
  for n in $LCORES; do
    echo "emu_bench: run $i/$RUNS: rxb-emu --bench --bench-ms $MS, $n NIC lcore(s)" >&2
    "$BIN" --bench --bench-ms "$MS" --set "emu.nic_lcores=$n" >"$tmp/emu.$n.$i.json" \
      2>"$tmp/emu.$n.$i.err" || { cat "$tmp/emu.$n.$i.err" >&2; exit 1; }
  done
  if [ -n "$TPMD" ]; then
    # testpmd on the pages rxb-emu ran on (its record says which): the baseline pays the
    # same TLB misses as the emulator
    pages=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["machine"]["pages"])' \
      "$tmp/emu.${LCORES%% *}.$i.json")
    if [ "$pages" = hugepages ]; then
      TPMD_MEM="--huge-unlink" on_pages=hugepages
    else
      TPMD_MEM="--no-huge -m 1024" on_pages="$pages pages"
    fi
    echo "emu_bench: run $i/$RUNS: dpdk-testpmd io forwarding (${TPMD_S} s, on $on_pages)" >&2
    # exits 124 when the timeout stops it, as intended; any other status is a failure
    rc=0
    # shellcheck disable=SC2086 # TPMD_MEM: one or three words
    timeout "$TPMD_S" "$TPMD" $TPMD_MEM --no-pci --vdev=net_null0 --vdev=net_null1 \
      --lcores="$TPMD_LCORES" --file-prefix="$prefix" --log-level='*:warning' -- \
      --forward-mode=io --stats-period=1 --nb-cores=1 --rxq=1 --txq=1 \
      >"$tmp/tpmd.$i" 2>&1 </dev/null || rc=$?
    rm -rf "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix"
    if [ "$rc" -ne 124 ]; then
      echo "emu_bench: run $i/$RUNS: dpdk-testpmd failed (exit $rc, the baseline of every" \
           "ratio); the end of its output:" >&2
      tail -n 20 "$tmp/tpmd.$i" >&2
      exit 1
    fi
  fi
  summarise "$i" >/dev/null
done
summarise "$RUNS"

