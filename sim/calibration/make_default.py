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
The keys, their kinds, the assumptions' values and the notes are the calibration key table's
(scenario/tables/calibration_keys.toml), written in its order.

Usage: python3 sim/calibration/make_default.py [--rings PATH] [--callgrind PATH] [--out PATH]
Without rings.json the previous default.json is kept (nothing to convert).
"""

import argparse
import datetime
import json
import platform
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BURST = 32  # packets per receive call in bench_rings (and the default arch.batch)

# Functions of bench/results/callgrind.txt by what they do.
ALLOC = re.compile(r"rxb_pool_endpoint_(get|put)")
LOOP = re.compile(r"bench_rings\.c:")
SYNC = re.compile(r"arr_release|list_release|shring_lock|shring_publish_unlock|"
                  r"shring_wait_account|popcount|arr_take_run|arr_return|arr_held_back")

# The keys of a calibration document: unit, kind ("measured" or "assumption"), an
# assumption's value and where each number comes from (written as the document's notes).
TABLE = ROOT / "scenario" / "tables" / "calibration_keys.toml"
with open(TABLE, "rb") as _f:
    KEYS = tomllib.load(_f)
# The bench_rings row that runs each design's code (arch.name's values, in their order).
BENCH_ROW = {"privring": "privring", "small_privring": "privring", "shring": "shring_arr",
             "shring_list": "shring_list", "dyn_shring": "privring", "rxbisect": "rxbisect",
             "spool": "privring"}
# Not a key of its own: part of the emulator's cost per packet (emu_per_pkt), in cycles.
RSS = 30.0
NOTES = {k: spec["source"] for k, spec in KEYS.items()} | {
    "rss": "assumption: software Toeplitz over 12 bytes (table-driven, one load + XOR a byte) "
           "on the emulator core"}


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


def cycles(measured: dict) -> dict:
    """Every key of the table, in its order: an assumption's value, else the measured one."""
    missing = [k for k, spec in KEYS.items() if "assumed" not in spec and k not in measured]
    if missing:
        raise SystemExit(f"make_default: {TABLE.name} has {', '.join(missing)}, which this "
                         "script does not compute; teach it how")
    return {k: spec["assumed"] if "assumed" in spec else measured[k] for k, spec in KEYS.items()}


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
    ret_desc = max(0.0, (arr_call - list_call - 1.5 * KEYS["bitmap_or"]["assumed"]) / BURST)

    def nic_side(arch: str) -> float:
        return stats.get(arch, {}).get("nic_side_ns_per_pkt_median", 0.0) * ghz

    emu = {arch: round(nic_side(row) + RSS + rx_priv, 2) for arch, row in BENCH_ROW.items()}
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
        "cycles": cycles({"rx_per_pkt": {a: r2(rx_bis if a == "rxbisect" else rx_priv)
                                         for a in BENCH_ROW},
                          "alloc_per_obj": r2(alloc_obj), "lock": r2(list_call),
                          "return_per_desc": r2(ret_desc), "tx_per_pkt": r2(rx_priv),
                          "emu_per_pkt": emu}),
        "kind": {k: spec["kind"] for k, spec in KEYS.items()},
        "notes": NOTES,
    }
    Path(a.out).write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {a.out}: privRing rx {rx_priv:.2f}, rxBisect rx {rx_bis:.2f}, alloc/obj "
          f"{alloc_obj:.2f}, lock {list_call:.1f}, return/desc {ret_desc:.2f} cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
