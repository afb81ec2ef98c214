"""Two builds of rxb-emu, alternated in one run: is a change faster, per design, on this machine?

On a shared machine the same binary moves by tens of percent between runs, so a speed-up is only
believable as a ratio against the build before the change measured in the same run. This runs
each measurement once per build per round, the order of the builds flipped every round, and
prints, per design (or frame size), each build's median, the ratio of the medians and the median
of the per-round ratios ("paired", which cancels a drift that hits both builds of a round).

  dispatch  rxb-emu --bench, N NIC lcores (docs/emulator.md "Benchmark mode"): the NIC lcores'
            cycles per packet of full-burst loops, and by step of the loop (lower is better)
  gen       one generator lcore's capacity: no NIC lcore (arch.emulated=false), one sink
            worker, an offered load no lcore reaches (800 Gbps): the Mpps it offered, 64 B and
            1518 B frames (higher is better)
  study     the study's emulated set-up: two NIC ports at 100 Gbps each of 1518 B frames, 8
            workers, --study-nic-lcores NIC lcores (default one per port) and as many generator
            lcores as the CPUs leave, up to one per worker (the most the emulator accepts:
            one per physical queue; --study-gen-lcores to choose): the Mpps carried (higher is
            better) and the NIC lcores' cycles per packet. It needs every busy lcore on a CPU of
            its own (12 CPUs at least by default); on fewer it is skipped, saying so.

    python3 bench/emu_ab.py --base OLD_RXB_EMU [--new NEW_RXB_EMU] [--rounds N]
                            [--what dispatch,gen,study] [--nic-lcores N] [--ms MS]
                            [--bench-ms MS] [--study-nic-lcores N] [--study-gen-lcores G]
                            [--out FILE]

--new defaults to $RXB_EMU_BIN, else build/emu/rxb-emu. Either may be a wrapper that runs a
packed build (bench/packed.sh). The JSON (default build/bench-results/emu_ab.json) is rewritten
after every run, so an interrupted comparison keeps what it measured.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import emu_scale  # noqa: E402  (its full run and summary of one; bench/ is no package)

WHATS = ("dispatch", "gen", "study")
GEN_SIZES = (64, 1518)
STUDY_WORKERS = 8
STUDY_NICS = 2


def run_json(binary, args, timeout_s):
    """rxb-emu's record of one run; SystemExit with its last error line when it fails."""
    cmd = [binary, *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        sys.exit(f"emu_ab: {' '.join(cmd)} ran longer than {timeout_s:.0f} s")
    if p.returncode != 0:
        last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        sys.exit(f"emu_ab: {' '.join(cmd)} failed: {last}")
    return json.loads(p.stdout)


def full_run(binary, keys, ms):
    """bench/emu_scale.py's summary of one full run of ms milliseconds; SystemExit naming the
    run when it failed."""
    r = emu_scale.run_one(binary, keys, ms)  # a run that hangs is an error too
    if "error" in r:
        sys.exit(f"emu_ab: {r['command']} failed: {r['error']}")
    return r


def measure_dispatch(binary, a):
    """Per design: the NIC lcores' cycles per packet and their split by step."""
    rec = run_json(binary, ["--bench", "--bench-ms", str(a.bench_ms),
                            "--set", f"emu.nic_lcores={a.nic_lcores}"], 120)
    return {d["arch"]: {"value": d["loaded_cycles_per_packet"], "lower_is_better": True,
                        "steps": d.get("stage_cycles_per_packet", {})}
            for d in rec["dispatch"]}


def measure_gen(binary, a):
    """Per frame size: the Mpps one generator lcore offered, unthrottled."""
    out = {}
    for size in GEN_SIZES:
        r = full_run(binary, {"arch.name": "privring", "arch.emulated": "false",
                              "emu.source": "gen", "traffic.packet_bytes": size,
                              "traffic.rate_gbps": 800, "system.cores": 1,
                              "emu.sink": "true"}, a.ms)
        out[f"{size}B"] = {"value": r["offered_mpps"], "lower_is_better": False}
    return out


def study_gen_lcores(cpus, nic_lcores):
    """Generator lcores for the study's set-up on `cpus` CPUs, or None: the most the CPUs
    left after main, the workers and the NIC lcores hold, that play the ports whole or split
    each between the same number of lcores (the emulator's rule: at most the ports, or a
    multiple of them), and no more than the workers: a port has at most one physical queue per
    worker behind it (one per destination), and the emulator gives each generator lcore whole
    queues (at most one lcore per queue: scenario key emu.gen_lcores), so a many-core server
    gets STUDY_WORKERS, not every CPU left."""
    spare = min(cpus - 1 - STUDY_WORKERS - nic_lcores, STUDY_WORKERS)
    gens = [g for g in range(1, spare + 1) if g <= STUDY_NICS or g % STUDY_NICS == 0]
    return max(gens) if gens else None


def measure_study(binary, a, gens):
    """Per design: Mpps carried, and the NIC lcores' cycles per packet."""
    out = {}
    for arch in a.archs.split(","):
        r = full_run(binary, {"arch.name": arch, "emu.source": "gen",
                              "system.nics": STUDY_NICS, "traffic.packet_bytes": 1518,
                              "traffic.rate_gbps": 100, "system.cores": STUDY_WORKERS,
                              "emu.nic_lcores": a.study_nic_lcores, "emu.gen_lcores": gens},
                     a.ms)
        out[arch] = {"value": r["throughput_mpps"], "lower_is_better": False,
                     "offered_mpps": r["offered_mpps"], "drop_rate": r["drop_rate"]}
        out[f"{arch} NIC cyc"] = {"value": r["nic_cycles_per_packet"], "lower_is_better": True}
    return out


def summarise(samples):
    """Per (what, key): each build's median, new/base of the medians and the median of the
    per-round ratios."""
    groups = {}
    for s in samples:
        g = groups.setdefault((s["what"], s["key"]),
                              {"base": {}, "new": {}, "lower": s["lower_is_better"]})
        g[s["build"]][s["round"]] = s["value"]
    out = []
    for (what, key), g in groups.items():
        if not g["base"] or not g["new"]:
            continue
        mb, mn = statistics.median(g["base"].values()), statistics.median(g["new"].values())
        paired = [g["new"][r] / g["base"][r] for r in g["base"] if r in g["new"] and g["base"][r]]
        out.append({"what": what, "key": key, "base": round(mb, 3), "new": round(mn, 3),
                    "new_over_base": round(mn / mb, 3) if mb else None,
                    "paired": round(statistics.median(paired), 3) if paired else None,
                    "rounds": len(paired), "lower_is_better": g["lower"]})
    return out


def print_summary(rows):
    print(f"{'what':9s} {'design/size':15s} {'base':>9s} {'new':>9s} {'new/base':>8s} "
          f"{'paired':>7s}  better")
    def ratio(v, width):  # None: the base measured 0 (a run that carried nothing)
        return f"{'n/a':>{width}s}" if v is None else f"{v:{width}.3f}"

    for r in rows:
        better = "lower" if r["lower_is_better"] else "higher"
        print(f"{r['what']:9s} {r['key']:15s} {r['base']:9.2f} {r['new']:9.2f} "
              f"{ratio(r['new_over_base'], 8)} {ratio(r['paired'], 7)}  {better}")


def check_binary(path, flag):
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        sys.exit(f"emu_ab: {flag} {path}: not an executable file (an rxb-emu build, or a "
                 "wrapper that runs one)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="rxb-emu before the change")
    ap.add_argument("--new", default=os.environ.get("RXB_EMU_BIN") or "build/emu/rxb-emu",
                    help="rxb-emu after it (default $RXB_EMU_BIN, else build/emu/rxb-emu)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--what", default="dispatch,gen,study")
    ap.add_argument("--nic-lcores", type=int, default=1, help="dispatch: NIC lcores")
    ap.add_argument("--archs", default="privring,shring,rxbisect", help="study: designs")
    ap.add_argument("--ms", type=int, default=800, help="gen, study: run.duration_ms")
    ap.add_argument("--bench-ms", type=int, default=300, help="dispatch: --bench-ms")
    ap.add_argument("--study-nic-lcores", type=int, default=STUDY_NICS,
                    help="study: NIC lcores (default one per port)")
    ap.add_argument("--study-gen-lcores", type=int, default=0,
                    help="study: generator lcores (default: as many as the CPUs leave)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    whats = [w for w in a.what.split(",") if w]
    bad = [w for w in whats if w not in WHATS]
    if bad or not whats:
        sys.exit(f"emu_ab: --what {a.what}: each must be one of {', '.join(WHATS)}")
    if a.rounds < 1:
        sys.exit(f"emu_ab: --rounds {a.rounds}: must be at least 1")
    if a.study_nic_lcores < 1 or a.study_gen_lcores < 0:
        sys.exit(f"emu_ab: --study-nic-lcores {a.study_nic_lcores} --study-gen-lcores "
                 f"{a.study_gen_lcores}: NIC lcores at least 1, generator lcores at least 1 "
                 "(0: as many as the CPUs leave)")
    check_binary(a.base, "--base")
    check_binary(a.new, "--new")
    out = a.out or os.path.join(os.environ.get("RXB_BENCH_RESULTS", "build/bench-results"),
                                "emu_ab.json")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    cpus = len(os.sched_getaffinity(0))
    gens = a.study_gen_lcores or study_gen_lcores(cpus, a.study_nic_lcores)
    if "study" in whats and gens is None:
        print(f"emu_ab: study skipped: {cpus} CPUs, it needs "
              f"{1 + STUDY_WORKERS + a.study_nic_lcores + 1} (main, {STUDY_WORKERS} workers, "
              f"{a.study_nic_lcores} NIC lcores and a generator lcore, each on a CPU of its "
              "own)", file=sys.stderr)
        whats.remove("study")
    builds = {"base": a.base, "new": a.new}
    doc = {"command": "python3 " + " ".join(sys.argv), "cpus": cpus, "builds": builds,
           "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "study_lcores": ({"gen": gens, "nic": a.study_nic_lcores, "workers": STUDY_WORKERS}
                            if gens else None),
           "samples": [], "summary": []}
    measure = {"dispatch": lambda b: measure_dispatch(b, a), "gen": lambda b: measure_gen(b, a),
               "study": lambda b: measure_study(b, a, gens)}
    for r in range(1, a.rounds + 1):
        order = ["base", "new"] if r % 2 else ["new", "base"]
        for what in whats:
            for build in order:
                print(f"emu_ab: round {r}/{a.rounds}: {what}, {build}", file=sys.stderr,
                      flush=True)
                for key, v in measure[what](builds[build]).items():
                    doc["samples"].append({"what": what, "key": key, "build": build,
                                           "round": r, **v})
                doc["summary"] = summarise(doc["samples"])
                with open(out, "w") as f:
                    json.dump(doc, f, indent=1)
    print_summary(doc["summary"])
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
