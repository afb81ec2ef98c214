"""`rxb compare`: every receive interface on the reference setup, balanced and imbalanced.

One `rxb sim` per (interface, scenario), run on a local process pool (the engine is a
separate process anyway; the pool only overlaps them). Two scenarios:

  balanced    the reference setup (docs/evaluation.md §2.4): 16 cores, 2 x 100 Gbps, 1518 B
              frames, LB, random 5-tuples spread evenly by RSS;
  imbalanced  traffic variability (scenarios/traffic-var.toml, experiment traffic-var): one
              target core per NIC gets traffic.target_share = 0.2 of the packets, as 64 B
              frames, the rest 1518 B.

`--set` overrides apply to both scenarios (after their own settings).
"""

import concurrent.futures as cf
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..engines import engine
from ..errors import UsageError
from ..output import text_report
from ..vocab import scenario
from . import anatomy, sweeps

ARCHS = ("privring", "small_privring", "shring", "shring_list", "rxbisect", "dyn_shring")
SCENARIOS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "balanced": (None, ()),
    "imbalanced": ("traffic-var", ("traffic.target_share=0.2", "traffic.target_packet_bytes=64")),
}
QUICK = ("run.duration_ms=3", "run.warmup_ms=1", "run.sample_ms=1")
DEFAULT_WORKERS = 2


@dataclass(frozen=True)
class Point:
    arch: str
    scenario: str
    record: dict


def _one(arch: str, scen: str, sets: tuple[str, ...]) -> Point:
    """One engine run (in a worker process): resolve, run, return the record."""
    ref, own = SCENARIOS[scen]
    res = scenario.load_resolved(ref, (*own, *sets, f"arch.name={arch}"))
    result = engine.run(res, progress=False)
    return Point(arch, scen, result.record() | {"scenario": scen})


def idle_keys(sets: Sequence[str]) -> list[str]:
    """A warning for each `--set` key that changes no run of the comparison (every design
    with both traffic scenarios); arch.name is refused: the comparison chooses it."""
    keys = scenario.set_keys(sets)
    if "arch.name" in keys:
        raise UsageError("--set arch.name: rxb compare runs every design itself ("
                         f"{', '.join(ARCHS)}); allowed: any other key (rxb sim runs one design)")
    runs = [scenario.load(ref, (*own, *sets)) for ref, own in SCENARIOS.values()]
    out = []
    for k in keys:
        said = [scenario.no_effect(k, a, s.traffic.pattern, nf=s.workload.nf)
                for a in ARCHS for s in runs]
        if all(said):
            out.append(f"{said[0]}; it changes no run of rxb compare")
    return out


def _with_quick(sets: Sequence[str], quick: bool) -> tuple[str, ...]:
    return (*(QUICK if quick else ()), *sets)


def describe(sets: Sequence[str] = (), quick: bool = False) -> str:
    """The runs as they will be (after --quick and `--set`), for the table's header."""
    bal, imb = (scenario.load(ref, (*own, *_with_quick(sets, quick)))
                for ref, own in SCENARIOS.values())
    sy, t = bal.system, imb.traffic
    return (f"{bal.run.duration_ms:g} ms runs, {sy.cores} cores, {sy.nics} NIC(s) offered "
            f"{bal.traffic.rate_gbps:g} Gbps each; "
            f"balanced = {bal.workload.nf.upper()}, {bal.traffic.packet_bytes} B, even RSS; "
            f"imbalanced = {imb.workload.nf.upper()}, {100 * t.target_share:g} % of packets "
            f"({t.target_packet_bytes} B) to one core per NIC, the rest {t.packet_bytes} B")


def run(sets: Sequence[str] = (), quick: bool = False, workers: int | None = None,
        archs: Sequence[str] = ARCHS) -> list[Point]:
    """Run every (interface, scenario) pair; results in a fixed order."""
    all_sets = _with_quick(sets, quick)
    for name in SCENARIOS:  # fail fast, in this process, on a bad --set
        scenario.load_resolved(SCENARIOS[name][0], (*SCENARIOS[name][1], *all_sets))
    jobs = [(a, s) for s in SCENARIOS for a in archs]
    n = min(workers or DEFAULT_WORKERS, sweeps.cpus(), len(jobs))
    with cf.ProcessPoolExecutor(max_workers=n) as pool:
        futs = {pool.submit(_one, a, s, all_sets): (a, s) for a, s in jobs}
        done = {futs[f]: f.result() for f in cf.as_completed(futs)}
    return [done[j] for j in jobs]


def _drops(d: dict) -> str:
    parts = [f"{k} {v:,}" for k, v in d.items() if v]
    return ", ".join(parts) or "-"


def table(points: Sequence[Point]) -> str:
    rows = []
    for p in points:
        m = p.record["metrics"]
        occ = m["ring_occupancy"]
        rows.append((
            p.arch, p.scenario,
            f"{m['throughput_gbps']:.1f}",
            f"{100 * m['drop_rate']:.2f}",
            text_report.percent(text_report.in_flight_share(m), 2),
            _drops(m["drops_by_cause"]),
            text_report.num(m["latency_us_p99"], 2),
            f"{occ['mean']:.1f} / {occ['max']:.0f}",
            text_report.pct(m["ddio_hit_rate"], 1),
            f"{m['mem_bw_gibps']:.1f}",
            f"{m['io_working_set_mib']:.1f}",
        ))
    return text_report.table(("interface", "traffic", "Gbps", "drop %", "in flight %",
                         "drops by cause", "p99 us", "occupancy mean/max", "DDIO hit",
                         "mem GiB/s", "I/O WS MiB"),
                        rows, (False, False, True, True, True, False, True, True, True, True,
                               True))


def explain(points: Sequence[Point]) -> str:
    """`rxb compare --explain`: per traffic scenario, every design's per-packet stall
    anatomy side by side (anatomy.side_by_side), one column per interface."""
    scens = list(dict.fromkeys(p.scenario for p in points))
    return "\n".join(f"Where each packet's time goes, {s} traffic:\n"
                     + anatomy.side_by_side([(p.arch, p.record["metrics"]) for p in points
                                             if p.scenario == s]) for s in scens)


def _cannot_write(folder: str | os.PathLike, e: OSError) -> UsageError:
    return UsageError(f"--plot {folder}: cannot write there ({e.strerror or e}); allowed: a "
                      "folder this user can create and write")


def check_plot_folder(folder: str | os.PathLike) -> None:
    """Create `folder` and make sure a file can be written in it (before any run)."""
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise _cannot_write(folder, e) from None


def plot(points: Sequence[Point], folder: str | os.PathLike) -> Path:
    """Grouped bar charts (interfaces x scenarios) of four metrics; returns the PNG path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    check_plot_folder(folder)
    out = Path(folder)
    archs = list(dict.fromkeys(p.arch for p in points))
    scens = list(dict.fromkeys(p.scenario for p in points))
    by = {(p.arch, p.scenario): p.record["metrics"] for p in points}
    panels = (("throughput_gbps", "throughput (Gbps)"), ("latency_us_p99", "p99 latency (us)"),
              ("mem_bw_gibps", "DRAM bandwidth (GiB/s)"), ("ddio_hit_rate", "DDIO hit rate"))
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    width = 0.8 / len(scens)
    for ax, (key, label) in zip(axes.flat, panels, strict=True):
        for j, s in enumerate(scens):
            vals = [by[(a, s)][key] or 0 for a in archs]
            ax.bar([i + j * width for i in range(len(archs))], vals, width, label=s)
        ax.set_xticks([i + width * (len(scens) - 1) / 2 for i in range(len(archs))])
        ax.set_xticklabels(archs, rotation=30, ha="right", fontsize=8)
        ax.set_title(label, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig.suptitle("rxb compare: receive interfaces on the reference setup", fontsize=11)
    fig.tight_layout()
    path = out / "compare.png"
    try:  # the folder may have changed since check_plot_folder
        fig.savefig(path, dpi=120)
    except OSError as e:
        raise _cannot_write(folder, e) from None
    finally:
        plt.close(fig)
    return path
