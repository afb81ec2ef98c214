#!/usr/bin/env python3
"""Write sim/calibration/default.json: the simulator's software cycle costs.

Where the numbers come from (docs/simulator.md, "Calibration"):
  - measured: bench/results/rings.json, written by `make bench` (bench/bench_rings.c) on this
    machine: ns per packet of each design's receive path (rx burst of 32 + free, through the
    library's rxb_pool), and the NIC-side (library model) ns per packet;
  - split: bench/results/callgrind.txt (same benchmark under callgrind) gives each function's
    instructions per packet; a design's ns are divided among receive / synchronisation /
    allocator in proportion to the instructions of the functions doing each;
  - converted: ns x this machine's clock (GHz, from rings.json's TSC or /proc/cpuinfo) = cycles;
    the simulator turns cycles back into time with the simulated CPU's clock
    (profile cpu.freq_ghz), i.e. it assumes a cost in cycles carries over between x86 cores;
  - assumption: what the benchmark does not measure (empty poll, doorbell, bulk moves of the
    allocator, an atomic OR), each with its reason in "notes".

Usage: python3 sim/calibration/make_default.py [--rings PATH] [--callgrind PATH] [--out PATH]
Without rings.json the previous default.json is kept (nothing to convert).
"""

import argparse
import datetime
import json
import platform
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BURST = 32  # packets per receive call in bench_rings (and the default arch.batch)

# Functions of bench/results/callgrind.txt by what they do.
ALLOC = re.compile(r"rxb_pool_endpoint_(get|put)")
LOOP = re.compile(r"bench_rings\.c:")
SYNC = re.compile(r"arr_release|list_release|shring_lock|shring_publish_unlock|"
                  r"shring_wait_account|popcount|arr_take_run|arr_return|arr_held_back")

# Assumptions (cycles), see docs/simulator.md.
ASSUMED = {
    "rx_per_call": 15.0,
    "empty_poll": 20.0,
    "doorbell": 50.0,
    "alloc_bulk": 50.0,
    "alloc_per_obj_shared": 1.0,
    "bitmap_or": 20.0,
    "rss": 30.0,
    "emu_per_batch": 40.0,
}
NOTES = {
    "rx_per_call": "assumption: fixed part of a receive call (call, loads of ring state, publish "
                   "of the consumer index); bench_rings amortises it over 32 packets",
    "empty_poll": "assumption: a receive call that finds the next completion not ready: call "
                  "overhead plus one L1-hot load",
    "doorbell": "assumption: one MMIO doorbell write (write-combining store + store fence) "
                "as DPDK PMDs issue per burst",
    "alloc_bulk": "assumption: one uncontended lock + unlock of the shared pool "
                  "(pthread mutex, two atomic RMWs and the call)",
    "alloc_per_obj_shared": "assumption: copying one handle between a cache and the shared stack",
    "bitmap_or": "assumption: one uncontended lock-prefixed RMW on an L1-hot line (Agner Fog's "
                 "instruction tables: ~18-20 cycles latency on Skylake)",
    "rss": "assumption: software Toeplitz over 12 bytes (table-driven, one load + XOR a byte) "
           "on the emulator core",
    "emu_per_batch": "assumption: the emulator's physical-queue poll and doorbell per burst",
    "lock": "measured: RxList synchronisation (lock, append, doorbell) per call = its sync "
            "instructions' share of its ns/packet x 32",
    "return_per_desc": "derived: RxArr sync per call minus lock minus 1.5 bitmap ORs "
                       "(a 32-descriptor batch spans 1.5 64-bit words on average), per "
                       "returned descriptor",
    "rx_per_pkt": "measured: ns/packet x GHz x (receive instructions / all instructions); "
                  "shRing variants receive like privRing (their extra is sync); small_privring "
                  "and spool run privRing code",
    "alloc_per_obj": "measured: privRing's allocator instructions' share of its ns/packet, "
                     "per object (one get and one put per packet)",
    "tx_per_pkt": "assumption: a transmit descriptor write costs what a receive descriptor "
                  "repost costs (privRing rx_per_pkt)",
    "emu_per_pkt": "measured NIC-side library cost per packet (rings.json "
                   "stats.<arch>.nic_side_ns_per_pkt_median) + rss + one physical-queue receive "
                   "(privRing rx_per_pkt)",
}


def cpu_mhz() -> float | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return float(line.split(":")[1])
    except OSError:
        pass
    return None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def callgrind_split(path: Path) -> dict[str, dict[str, float]]:
    """Per design: instructions per packet in receive, sync, alloc, loop."""
    out: dict[str, dict[str, float]] = {}
    arch = None
    for line in path.read_text().splitlines():
        m = re.match(r"== (\w+): ([\d.]+) Ir/pkt", line)
        if m:
            arch = m.group(1)
            out[arch] = {"total": float(m.group(2)), "alloc": 0.0, "sync": 0.0, "loop": 0.0}
            continue
        m = re.match(r"\s+([\d.]+)\s+(\S+)", line)
        if m and arch:
            ir, fn = float(m.group(1)), m.group(2)
            kind = ("alloc" if ALLOC.search(fn) else "loop" if LOOP.search(fn) else
                    "sync" if SYNC.search(fn) else None)
            if kind:
                out[arch][kind] += ir
    for v in out.values():
        v["rx"] = v["total"] - v["alloc"] - v["sync"] - v["loop"]
        for k in v:
            v[k] = round(v[k], 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rings", default=str(ROOT / "bench/results/rings.json"))
    ap.add_argument("--callgrind", default=str(ROOT / "bench/results/callgrind.txt"))
    ap.add_argument("--out", default=str(Path(__file__).with_name("default.json")))
    a = ap.parse_args()
    rings_p, cg_p = Path(a.rings), Path(a.callgrind)
    if not rings_p.is_file():
        print(f"make_default: {rings_p} not found (run `make bench`); keeping {a.out}",
              file=sys.stderr)
        return 0
    rings = json.loads(rings_p.read_text())
    ns = rings["rx_ns_per_pkt"]
    stats = rings.get("stats", {})
    ghz = rings.get("method", {}).get("tsc_ghz") or (cpu_mhz() or 0) / 1000
    if not ghz:
        print("make_default: no clock frequency (rings.json method.tsc_ghz or /proc/cpuinfo)",
              file=sys.stderr)
        return 1
    if cg_p.is_file():
        split = callgrind_split(cg_p)
        split_origin = str(cg_p.relative_to(ROOT) if cg_p.is_relative_to(ROOT) else cg_p)
    else:  # fall back to the instruction counts bench/README.md reports
        split = {"privring": {"total": 77.6, "alloc": 31.0, "sync": 0.0, "loop": 7.1},
                 "rxbisect": {"total": 86.4, "alloc": 31.0, "sync": 0.0, "loop": 7.1},
                 "shring_arr": {"total": 103.0, "alloc": 31.0, "sync": 28.7, "loop": 7.1},
                 "shring_list": {"total": 82.3, "alloc": 31.0, "sync": 7.9, "loop": 7.1}}
        for v in split.values():
            v["rx"] = v["total"] - v["alloc"] - v["sync"] - v["loop"]
        split_origin = "bench/README.md instruction counts (callgrind.txt missing)"

    def cyc(arch: str, part: str) -> float:
        s = split[arch]
        return ns[arch] * ghz * s[part] / s["total"]

    rx_priv = cyc("privring", "rx")
    rx_bis = cyc("rxbisect", "rx")
    alloc_obj = cyc("privring", "alloc") / 2
    list_call = cyc("shring_list", "sync") * BURST
    arr_call = cyc("shring_arr", "sync") * BURST
    ret_desc = max(0.0, (arr_call - list_call - 1.5 * ASSUMED["bitmap_or"]) / BURST)

    def nic_side(arch: str) -> float:
        return stats.get(arch, {}).get("nic_side_ns_per_pkt_median", 0.0) * ghz

    emu = {}
    for arch, key in (("privring", "privring"), ("small_privring", "privring"),
                      ("shring", "shring_arr"), ("shring_list", "shring_list"),
                      ("dyn_shring", "privring"), ("rxbisect", "rxbisect"),
                      ("spool", "privring")):
        emu[arch] = round(nic_side(key) + ASSUMED["rss"] + rx_priv, 2)
    r2 = lambda x: round(x, 2)  # noqa: E731
    doc = {
        "format": 1,
        "origin": ("default shipped with the project: derived from `make bench` measurements "
                   "of this project's ring code on the machine below; replace with "
                   "`rxb calibrate` output for your machine"),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": "python3 sim/calibration/make_default.py",
        "machine": {"cpu": cpu_model(), "ghz": round(ghz, 4),
                    "cpuinfo_mhz": cpu_mhz(),
                    "bench_machine": rings.get("machine", {})},
        "sources": {"rings": str(rings_p.relative_to(ROOT) if rings_p.is_relative_to(ROOT)
                                 else rings_p),
                    "split": split_origin,
                    "rx_ns_per_pkt": ns,
                    "instructions_per_pkt": split},
        "cycles": {
            "rx_per_pkt": {"privring": r2(rx_priv), "small_privring": r2(rx_priv),
                           "shring": r2(rx_priv), "shring_list": r2(rx_priv),
                           "dyn_shring": r2(rx_priv), "rxbisect": r2(rx_bis),
                           "spool": r2(rx_priv)},
            "rx_per_call": ASSUMED["rx_per_call"],
            "empty_poll": ASSUMED["empty_poll"],
            "doorbell": ASSUMED["doorbell"],
            "alloc_per_obj": r2(alloc_obj),
            "alloc_bulk": ASSUMED["alloc_bulk"],
            "alloc_per_obj_shared": ASSUMED["alloc_per_obj_shared"],
            "lock": r2(list_call),
            "bitmap_or": ASSUMED["bitmap_or"],
            "return_per_desc": r2(ret_desc),
            "tx_per_pkt": r2(rx_priv),
            "emu_per_pkt": emu,
            "emu_per_batch": ASSUMED["emu_per_batch"],
        },
        "kind": {k: ("assumption" if k in ASSUMED or k == "tx_per_pkt" else "measured")
                 for k in ("rx_per_pkt", "rx_per_call", "empty_poll", "doorbell",
                           "alloc_per_obj", "alloc_bulk", "alloc_per_obj_shared", "lock",
                           "bitmap_or", "return_per_desc", "tx_per_pkt", "emu_per_pkt",
                           "emu_per_batch")},
        "notes": NOTES,
    }
    Path(a.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {a.out}: privRing rx {rx_priv:.2f}, rxBisect rx {rx_bis:.2f}, alloc/obj "
          f"{alloc_obj:.2f}, lock {list_call:.1f}, return/desc {ret_desc:.2f} cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
