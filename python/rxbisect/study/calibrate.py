"""`rxb calibrate`: the simulator's software cycle costs, measured on this machine.

The simulator charges each software step a number of cycles from a calibration file
(docs/simulator.md §4; the compiled-in default is sim/calibration/default.json, made by
sim/calibration/make_default.py from `make bench` results on the project's machine). This
writes the same file for the machine it runs on:

  1. bench/run.sh (bench_rings) into a temporary folder: ns per packet of each receive path
     (receive burst + free through the library's allocator), RxArr with 1 and 2 cores
     sharing a ring, and, unless --quick, callgrind's instructions per packet that split
     those ns into receive / synchronisation / allocator;
  2. make_default.py on those results: the same conversion as the default (one formula,
     one place): rx_per_pkt, alloc_per_obj, lock, return_per_desc, tx_per_pkt;
  3. `rxb-emu --bench`: the emulator core's cost per packet at full bursts for each
     interface, which replaces the default's estimate of emu_per_pkt;
  4. what is not measurable here (the assumptions: empty poll, doorbell, ...) is carried
     over from the calibration key table (scenario/tables/calibration_keys.toml, through
     vocab/tables.py), and the file says which key is which (`provenance`).

The table also defines what a calibration document must hold: `load` accepts exactly its keys.

RxArr's synchronisation by sharing degree is recorded under `sharing` for degrees
1..min(8, CPUs): bench_rings runs at most two core threads, so degrees above 2 are listed
as not measurable here. The simulator does not read `sharing`: it models contention itself
from the uncontended costs.
"""

import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tqdm import tqdm

from .. import checkout
from ..engines import emu, engine
from ..errors import EngineError, UsageError
from ..output import records
from ..vocab import scenario
from ..vocab.tables import CALIBRATION_KEYS

BURST = 32  # arch.batch default: packets per emulator burst in --bench
MAX_DEGREE = 8
BENCH_THREADS = 2  # bench_rings' most core threads (the *_2threads rows)
# bench_rings options and rxb-emu --bench milliseconds: --quick, full
RINGS_OPTS = {True: ["--reps", "3", "--ms", "30"], False: []}
EMU_BENCH_MS = {True: 60, False: 300}
EMU_BENCH_RUNS = {True: 1, False: 3}  # the median per interface (the machine may be noisy)
# Share of the progress bar each step takes (quick has no callgrind step).
CALLGRIND_ARCHS = ("privring", "rxbisect", "shring_arr", "shring_list")


SHAPE = ("a calibration has the shape of sim/calibration/default.json; write one with "
         "`rxb calibrate`")


def load(path: str | os.PathLike) -> dict:
    """Read and check a calibration file (the shape of sim/calibration/default.json): every
    key of the calibration table under "cycles", a number from 0 to the key's `hi` each, and
    no other key."""
    where = f"--calibration {path}"
    try:
        doc = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file") from None
    except OSError as e:
        raise UsageError(f"{where}: cannot read it ({e.strerror or e})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"{where}: not JSON ({e})") from None
    cycles = doc.get("cycles") if isinstance(doc, dict) else None
    if not isinstance(cycles, dict):
        raise UsageError(f"{where}: no 'cycles' object; {SHAPE}")
    for k, spec in CALIBRATION_KEYS.items():
        for name, v in _numbers(where, cycles, k, spec):
            if not (isinstance(v, (int, float)) and not isinstance(v, bool)
                    and 0 <= v <= spec["hi"]):
                raise UsageError(f"{where}: cycles.{name} = {json.dumps(v)}: allowed: a number "
                                 f"from 0 to {spec['hi']:g} ({spec['unit']}); {SHAPE}")
    _only_known(where, "cycles", cycles, tuple(CALIBRATION_KEYS))
    return doc


def _numbers(where: str, cycles: dict, key: str, spec: dict) -> list[tuple[str, object]]:
    """A key's numbers as (name, value): one, or one per design of a per-design key."""
    if not spec.get("per_arch"):
        return [(key, cycles.get(key))]
    per = cycles.get(key)
    if not isinstance(per, dict):
        raise UsageError(f"{where}: cycles.{key} is missing or not an object; {SHAPE}")
    _only_known(where, f"cycles.{key}", per, scenario.ARCHS, "one of ")
    return [(f"{key}.{a}", per.get(a)) for a in scenario.ARCHS]


def _only_known(where: str, section: str, obj: dict, known: tuple[str, ...],
                lead: str = "") -> None:
    """A key the table does not define would be a silent misspelling of one it does (the
    simulator's words: `lead` "one of " before the designs)."""
    for k in obj:
        if k not in known:
            raise UsageError(f"{where}: {section}.{k}: unknown key; allowed: "
                             f"{lead}{', '.join(known)}")


class _Bar:
    """One bar over the steps; each step maps its own 0..1 onto its share."""

    def __init__(self, progress: bool | None, steps: dict[str, float]):
        self.bar = tqdm(total=100, desc="rxb calibrate", unit="%", leave=False,
                        disable=None if progress is None else not progress,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}")
        self.start, self.share, acc = {}, steps, 0.0
        for name, share in steps.items():
            self.start[name] = acc
            acc += share

    def at(self, step: str, frac: float) -> None:
        self.bar.set_description_str(f"rxb calibrate: {step}")
        pos = 100 * (self.start[step] + self.share[step] * min(max(frac, 0.0), 1.0))
        self.bar.update(max(0, round(pos) - self.bar.n))

    def close(self) -> None:
        self.bar.close()


def _rings_progress(line: str) -> float | None:
    """bench/run.sh's stderr: `rep i/n` (bench_rings), `bench: callgrind ARCH`."""
    m = re.fullmatch(r"\s*rep (\d+)/(\d+)\s*", line)
    if m:
        return int(m.group(1)) / max(1, int(m.group(2)))
    m = re.fullmatch(r"bench: callgrind (\w+)", line)
    if m and m.group(1) in CALLGRIND_ARCHS:
        return 1.0 + CALLGRIND_ARCHS.index(m.group(1)) / len(CALLGRIND_ARCHS)
    return None


def _bench_rings(tmp: Path, quick: bool, bar: _Bar) -> None:
    root = checkout.repo_root()
    script = root / "bench" / "run.sh"
    if not script.is_file():
        raise EngineError(f"{script} not found: rxb calibrate runs from a checkout of rxbisect")
    cmd = ["env", f"RXB_BENCH_RESULTS={tmp}", f"RXB_BENCH_CALLGRIND={0 if quick else 1}",
           "bash", str(script), str(root / "build"), *RINGS_OPTS[quick]]

    def report(frac: float) -> None:  # 0..1 bench_rings, 1..2 callgrind
        if frac <= 1.0:
            bar.at("bench_rings", frac)
        else:
            bar.at("bench_rings", 1.0)
            bar.at("callgrind", frac - 1.0)

    rc, _, tail, _, timed_out = engine.execute(cmd, "bench/run.sh", False, None,
                                               parse=_rings_progress, report=report)
    engine.check_exit("bench/run.sh", rc, tail, timed_out, None)
    if not (tmp / "rings.json").is_file():
        raise EngineError(f"bench/run.sh wrote no {tmp / 'rings.json'}")


def _convert(tmp: Path) -> tuple[dict, str]:
    """make_default.py on this run's results: (document, where the split came from)."""
    root = checkout.repo_root()
    script = root / "sim" / "calibration" / "make_default.py"
    here, repo = tmp / "callgrind.txt", root / "bench" / "results" / "callgrind.txt"
    if here.is_file():
        cg, split = here, "callgrind, run here"
    elif repo.is_file():
        cg, split = repo, f"carried over: {repo.relative_to(root)} (instruction counts of " \
                          "the same code; --quick skips callgrind)"
    else:
        cg, split = tmp / "none.txt", "carried over: bench/README.md instruction counts"
    p = subprocess.run([sys.executable, str(script), "--rings", str(tmp / "rings.json"),
                        "--callgrind", str(cg), "--out", str(tmp / "base.json")],
                       capture_output=True, text=True)
    if p.returncode != 0 or not (tmp / "base.json").is_file():
        raise EngineError(f"{script.name} failed: {(p.stderr or p.stdout).strip()[-300:]}")
    return json.loads((tmp / "base.json").read_text()), split


def _sharing(rings: dict, ghz: float) -> dict:
    """RxArr's synchronisation by sharing degree: ns/packet of RxArr minus privRing with as
    many threads (each thread receives on its own CPU; privRing shares nothing)."""
    stats = rings.get("stats", {})
    cpus = os.cpu_count() or 1
    wanted = list(range(1, min(MAX_DEGREE, cpus) + 1))
    measured, missing = {}, {}
    for d in wanted:
        suffix = "" if d == 1 else f"_{d}threads"
        arr, pr = stats.get(f"shring_arr{suffix}"), stats.get(f"privring{suffix}")
        if arr and pr:
            sync = max(0.0, arr["median"] - pr["median"])
            measured[str(d)] = {"rxarr_ns_per_pkt": arr["median"],
                                "privring_ns_per_pkt": pr["median"],
                                "sync_ns_per_pkt": round(sync, 3),
                                "sync_cycles_per_pkt": round(sync * ghz, 2),
                                "rxarr_drops": arr.get("drops", 0)}
        elif d > BENCH_THREADS:
            missing[str(d)] = (f"bench_rings runs at most {BENCH_THREADS} core threads on one "
                               "shared ring; not measurable with it")
        else:
            missing[str(d)] = "bench_rings ran no such row here (it needs 2 CPUs)"
    if cpus < MAX_DEGREE:
        note = f"degrees above {cpus}: this machine has {cpus} CPUs"
    else:
        note = f"degrees up to {MAX_DEGREE}"
    return {"what": "RxArr (shRing) receive + free, ns per packet, d cores sharing one ring, "
                    "minus privRing with d threads (shares nothing): the synchronisation "
                    "cost per packet at sharing degree d; not read by the simulator, which "
                    "models contention itself",
            "degrees_wanted": wanted, "scope": note, "measured": measured,
            "not_measured": missing}


def _emu_costs(quick: bool, bar: _Bar, emu_per_batch: float) -> tuple[dict | None, str]:
    """rxb-emu --bench, EMU_BENCH_RUNS times: (emu_per_pkt per arch, the runs) or None, and
    what happened."""
    runs, n = [], EMU_BENCH_RUNS[quick]
    try:
        for i in range(n):
            runs.append(emu.bench(EMU_BENCH_MS[quick],
                                  report=lambda f, i=i: bar.at("rxb-emu --bench", (i + f) / n)))
            bar.at("rxb-emu --bench", (i + 1) / n)
    except EngineError as e:
        return None, str(e)
    per = {}
    for d in runs[0]["dispatch"]:
        loaded = [x.get("loaded_cycles_per_packet") for r in runs for x in r["dispatch"]
                  if x["arch"] == d["arch"]]
        loaded = [v for v in loaded if isinstance(v, (int, float)) and v > 0]
        if loaded:
            per[d["arch"]] = round(max(0.0, statistics.median(loaded) - emu_per_batch / BURST), 2)
    if "privring" not in per:
        return None, "rxb-emu --bench measured no full-burst loop for privring"
    return {"emu_per_pkt": {a: per.get(a, per["privring"]) for a in scenario.ARCHS},
            "runs": runs}, "measured"


def _machine(base: dict) -> dict:
    m = dict(base.get("machine", {}))
    m.update({"online_cpus": os.cpu_count(), "host": platform.node(),
              "kernel": platform.release(), "python": platform.python_version()})
    return m


def run(out: str | os.PathLike, quick: bool = False, progress: bool | None = None,
        command: str = "rxb calibrate") -> dict:
    """Measure, convert, write `out`; returns the document."""
    out = Path(out)
    records.check_writable(out, "--out")
    steps = {"bench_rings": 0.6, "rxb-emu --bench": 0.4} if quick else \
        {"bench_rings": 0.55, "callgrind": 0.15, "rxb-emu --bench": 0.3}
    bar = _Bar(progress, steps)
    try:
        with tempfile.TemporaryDirectory(prefix="rxb-calibrate-") as t:
            tmp = Path(t)
            _bench_rings(tmp, quick, bar)
            rings = json.loads((tmp / "rings.json").read_text())
            doc, split = _convert(tmp)
        emu_costs, emu_how = _emu_costs(quick, bar, doc["cycles"]["emu_per_batch"])
    finally:
        bar.close()
    if emu_costs is None:
        print(f"rxb: warning: emulator cost not measured ({emu_how}); emu_per_pkt derived "
              "from bench_rings' NIC-side cost as make_default.py does", file=sys.stderr)
    doc = _compose(doc, rings, split, emu_costs, emu_how, quick, command)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=2) + "\n")
    except OSError as e:
        raise UsageError(f"--out {out}: cannot write it ({e.strerror or e})") from None
    return doc


def _compose(doc: dict, rings: dict, split: str, emu_costs: dict | None, emu_how: str,
             quick: bool, command: str) -> dict:
    cy, kind, notes = doc["cycles"], doc["kind"], doc["notes"]
    ghz = doc["machine"]["ghz"]
    carried = [k for k, spec in CALIBRATION_KEYS.items() if "assumed" in spec]
    prov = {k: f"carried over: the calibration table's assumption ({notes[k]})"
            for k in carried}
    prov["rx_per_pkt"] = "measured here: bench_rings ns/packet x TSC GHz x receive share " \
                         f"of instructions (split {split})"
    for k in ("alloc_per_obj", "lock", "return_per_desc"):
        prov[k] = f"measured here: bench_rings ns/packet, split by instructions ({split})"
    prov["tx_per_pkt"] = "derived here: privRing rx_per_pkt (assumption: a transmit " \
                         "descriptor costs a receive repost)"
    if emu_costs:
        cy["emu_per_pkt"] = emu_costs["emu_per_pkt"]
        kind["emu_per_pkt"] = "measured"
        notes["emu_per_pkt"] = ("measured: rxb-emu --bench loaded_cycles_per_packet (emulator "
                                "loops at full bursts: fetch, poll, software RSS, deliver), "
                                f"median of {EMU_BENCH_RUNS[quick]} run(s), minus "
                                f"emu_per_batch / {BURST}; dyn_shring and spool take "
                                "privring's (not benchmarked)")
        prov["emu_per_pkt"] = "measured here: rxb-emu --bench (dyn_shring, spool: privring's)"
        doc["sources"]["emu_bench"] = [{k: r.get(k) for k in ("params", "dispatch", "rx_cost")}
                                        for r in emu_costs["runs"]]
    else:
        prov["emu_per_pkt"] = f"derived here from bench_rings' NIC-side cost (rxb-emu: {emu_how})"
    doc["origin"] = (f"rxb calibrate{' --quick' if quick else ''} on this machine: bench_rings"
                     f"{'' if quick else ' + callgrind'} + rxb-emu --bench; see provenance")
    doc["date"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["command"] = command
    doc["machine"] = _machine(doc)
    doc["sources"]["rings"] = "bench/run.sh " + " ".join(RINGS_OPTS[quick] or ["(defaults)"])
    doc["sources"]["split"] = split
    doc["sources"]["quick"] = quick
    doc["sharing"] = _sharing(rings, ghz)
    doc["provenance"] = prov
    doc["measured"] = sorted(k for k, v in prov.items() if not v.startswith("carried"))
    doc["carried_over"] = sorted(k for k, v in prov.items() if v.startswith("carried"))
    return doc
