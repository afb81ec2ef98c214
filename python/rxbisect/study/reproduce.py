"""`rxb repro ID`: run one experiment of the catalogue (experiments/, docs/experiments.md).

    rxbisect.repro("ring-size", quick=True, out="results/repro")  -> pandas.DataFrame

1. plan: the experiment file's points, per [[interface]] the cross product of its grid
   times the seeds (sweep.plan, so every key is checked by the scenario schema), their
   union checked for duplicates; nothing runs before every experiment asked for is planned;
2. run: the points not yet in DIR/ID.jsonl through the sweep machinery (sweep.execute: a
   local process pool or a Dask cluster, progress bar, one record appended per finished
   point, resumable), the experiment's derivations added to each record before it is
   written;
3. summarise: DIR/ID.parquet (sweep.execute), DIR/ID.summary.json (per series and x, the
   trimmed mean over seeds, its 95 % bootstrap interval lo-hi, n), DIR/ID.png and .svg (plot.experiment).
"""

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engines import provenance
from ..errors import EngineError, UsageError
from ..output import records, text_report
from ..vocab import scenario
from . import experiments, ndr
from .experiments import DESIGN, Experiment
from .sweeps import Point, check_jobs, check_seeds, execute, reachable, value_text
from .sweeps import plan as plan_points

ALL = "all"
DEFAULT_OUT = "results/repro"
# Simulator speed for the duration estimate: docs/simulator.md §7 measures 2.5-4 M simulated
# packets per second per run on the development VM; the lower end, plus a run's start-up.
SIM_PACKETS_PER_S = 2.5e6
RUN_OVERHEAD_S = 0.05


@dataclass
class Planned:
    exp: Experiment
    quick: bool
    points: list[Point]


def plan(exp: Experiment, quick: bool = False, seeds: int | None = None,
         profile: str | None = None, traces: Path | None = None) -> Planned:
    """Every point of the experiment's quick or full variant, checked and resolved; an
    experiment with a [trace] replays its generated trace (made in `traces`)."""
    v = exp.variant(quick)
    base = [f"{k}={value_text(x)}" for k, x in v.set.items()]
    if exp.trace:
        pcap = trace_file(exp, exp.trace, traces or Path(tempfile.mkdtemp(prefix="rxb-traces-")))
        base += ["traffic.pattern=trace", f"traffic.pcap={pcap}"]
    base += [f"system.profile={profile}"] if profile else []
    points: list[Point] = []
    seen: dict[str, str] = {}
    narrowed = (exp.quick if quick else exp.full).get("grid", {})
    for itf in exp.interfaces:
        sets = [*base, f"arch.name={itf.name}", f"arch.emulated={value_text(itf.emulated)}",
                *(f"{k}={value_text(x)}" for k, x in itf.set.items())]
        grid = {**v.grid, **{k: own_values(vals, narrowed[k]) if k in narrowed else vals
                             for k, vals in itf.grid.items()}}
        for p in plan_points(exp.scenario, grid, seeds or v.seeds, sets, exp.id,
                            where=f"{exp.path}: {itf.label}:", link=itf.link,
                            params={DESIGN: itf.label}, search=v.search):
            if p.point_id in seen:
                raise UsageError(f"{exp.path}: {itf.label} {p.label} is the same point as "
                                 f"{seen[p.point_id]}; two [[interface]] entries overlap")
            seen[p.point_id] = f"{itf.label} {p.label}"
            points.append(p)
    return Planned(exp, quick, points)


def own_values(design: list, variant: list) -> list:
    """A design's own grid values (an [[interface]] grid) where the variant gives its own
    values of that key: those the variant also has, so the quick variant stays small; all
    of them when it has none (the design exists only at other values, as the 400 G
    profile in dark-packets)."""
    return [x for x in design if x in variant] or design


def estimate_s(points: Sequence[Point], jobs: int) -> float:
    """Wall-clock seconds the points should take on `jobs` parallel runs: simulated packets
    (offered rate x duration, times the trials of a search) over the simulator's speed."""
    total = 0.0
    for p in points:
        s = p.task["sections"]
        pps = s["system"]["nics"] * s["traffic"]["rate_gbps"] * 1e9 / \
            (8 * (s["traffic"]["packet_bytes"] + scenario.ETH_OVERHEAD_BYTES))
        runs = 1
        if p.task.get("search"):  # an upper bound: every trial at the point's rate
            q = p.task["search"]
            hi = q.get("hi") or s["traffic"]["rate_gbps"]
            runs = ndr.max_steps(q["lo"], max(hi, q["lo"] + q["resolution"]), q["resolution"])
        total += runs * (pps * s["run"]["duration_ms"] / 1e3 / SIM_PACKETS_PER_S + RUN_OVERHEAD_S)
    return total / max(1, jobs)


def duration_text(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.1f} h"


# ---- aggregation ------------------------------------------------------------------------

def summarize(exp: Experiment, recs: Sequence[dict]) -> list[dict]:
    """The figure's points (plot.aggregate, the one aggregation: per series, x and metric the
    trimmed mean over seeds, its 95 % bootstrap interval lo-hi, n), as plain data for DIR/ID.summary.json."""
    from ..output.plot import aggregate
    return [p.to_dict() for p in aggregate(recs, exp.plot)] if recs else []


def summary_table(exp: Experiment, rows: Sequence[dict]) -> str:
    """The summary as a compact table: one row per series and x, one column per metric:
    trimmed mean [lo, hi] (its bootstrap interval) when seeds differ."""
    y = exp.plot["y"]
    cells: dict[tuple, dict] = {}
    for r in rows:
        cell = text_report.num(r["mean"], 3)
        if r["n"] > 1 and r["lo"] != r["hi"]:
            cell += f" [{text_report.num(r['lo'], 3)}, {text_report.num(r['hi'], 3)}]"
        cells.setdefault((r["series"], _cell(r["x"])), {})[r["metric"]] = cell
    body = [(series, x, *(m.get(k, "-") for k in y)) for (series, x), m in cells.items()]
    return text_report.table(("series", exp.plot["x"], *y), body, (False, True, *(True,) * len(y)))


def _cell(v: Any) -> str:
    return "-" if v is None else str(v)


# ---- running ----------------------------------------------------------------------------

def _finish(exp: Experiment):
    def finish(rec: dict) -> dict:
        for name in exp.derive:
            rec["metrics"].update(experiments.DERIVE[name](rec))
        return rec
    return finish


def _plot(exp: Experiment, recs: Sequence[dict], stem: Path) -> list[Path]:
    """DIR/ID.png and .svg (plot.experiment: matplotlib is imported only here)."""
    from ..output.plot import experiment
    return [Path(p) for p in experiment(list(recs), exp.plot, str(stem))] if recs else []


def run(planned: Planned, out: str | os.PathLike | None = DEFAULT_OUT, cluster: Any = None,
        jobs: int | None = None, progress: bool | None = None, say=None,
        timeout: float | None = None) -> dict:
    """Run one planned experiment; returns {"id", "records", "summary", "files", ...}.
    timeout: seconds a point's engine may run (sweeps.execute)."""
    say = say or (lambda m: print(m, file=sys.stderr))
    exp = planned.exp
    outcome = execute(planned.points, out, cluster, jobs, progress, say, stem=exp.id,
                      finish=_finish(exp), desc=exp.id, timeout=timeout)
    rows = summarize(exp, outcome.records)
    files, figure_error = [], None
    if out is not None:
        folder = Path(out)
        summary = folder / f"{exp.id}.summary.json"
        with records.replacing(summary) as tmp:
            tmp.write_text(json.dumps({"experiment": exp.id, "title": exp.title,
                                       "description": exp.description,
                                       "source": str(Path(exp.path).resolve()),
                                       "from_catalogue": experiments.in_catalogue(exp.path),
                                       "variant": "quick" if planned.quick else "full",
                                       "plot": exp.plot, "points": rows}, indent=1) + "\n")
        files = [outcome.file, outcome.table, summary]
        try:
            files += _plot(exp, outcome.records, folder / exp.id)
        except Exception as e:  # noqa: BLE001 (the figure fails alone: records and summary stand)
            figure_error = f"its figure was not drawn ({type(e).__name__}: {e})"
    return {"id": exp.id, "title": exp.title, "records": outcome.records, "summary": rows,
            "ran": outcome.ran, "skipped": outcome.skipped, "figure_error": figure_error,
            "files": [str(f) for f in files if f is not None]}


def prepare(ref: str, quick: bool = False, seeds: int | None = None,
            profile: str | None = None, out: str | os.PathLike | None = DEFAULT_OUT,
            cluster: Any = None, jobs: int | None = None) -> list[Planned]:
    """The experiments `ref` names (an ID, a file, or "all"), checked and planned before any
    runs, with the checks that would otherwise stop a run half-way: the jobs, the cluster
    answers, each DIR/ID.jsonl can be created and locked; then the traces the experiments
    generate (written to DIR, or a temporary folder without one) and every point."""
    check_seeds(seeds)
    exps = [experiments.load(r) for r in (experiments.ids() if ref == ALL else [ref])]
    if profile is not None:  # its own message, before a point's
        try:
            scenario.load_resolved(None, [f"system.profile={profile}"])
        except UsageError as e:
            raise UsageError(f"--profile {profile}: {e}") from None
    check_jobs(jobs, cluster)
    if isinstance(cluster, str):
        reachable(cluster)
    if out is not None:
        for exp in exps:
            records.Store(out, stem=exp.id).close()
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="rxb-traces-"))
    return [plan(exp, quick, seeds, profile, folder) for exp in exps]


def trace_file(exp: Experiment, trace: dict, folder: Path) -> Path:
    """The experiment's generated trace, DIR/ID-HASH.pcap: written once by the trace
    generator (tracegen.py) from `trace` (its [trace] table) and reused; the hash of the table
    names it, so a changed table makes a new trace (and new points) instead of reusing a stale
    one."""
    path = folder / f"{exp.id}-{provenance.digest(trace)[:8]}.pcap"
    if not path.exists():
        from ..tools.tracegen import generate
        try:
            with records.replacing(path) as tmp:
                generate(tmp, **trace)
        except UsageError as e:
            raise UsageError(f"{exp.path}: [trace]: {e}") from None
    return path.resolve()


def repro(experiment: str, quick: bool = False, seeds: int | None = None,
          out: str | os.PathLike | None = DEFAULT_OUT, cluster: Any = None,
          jobs: int | None = None, profile: str | None = None, progress: bool | None = None):
    """Run a catalogue experiment (an ID, an experiment file, or "all") and return its
    records as a pandas DataFrame (records.frame; one row per point). With `out` the files
    DIR/ID.{jsonl,parquet,summary.json,png,svg} are written and finished points are
    skipped on a rerun; `cluster` is a Dask scheduler address, client or cluster object.

    `rxbisect.repro("ring-size", quick=True, out=None)` runs the quick Rx ring sweep (four
    sizes, a few seconds; tests/python/test_api.py runs it). IDs are checked first:

    >>> repro("ring-sise")
    Traceback (most recent call last):
    ...
    rxbisect.errors.UsageError: unknown experiment 'ring-sise' (did you mean 'ring-size'?); ...
    """
    planned = prepare(experiment, quick, seeds, profile, out, cluster, jobs)
    results = run_each(planned, out, cluster, jobs, progress)
    return records.frame([r for res in results for r in res["records"]])


class Unfinished(EngineError):
    """Some experiments of run_each failed; `results` are those that finished, which a
    command still shows (its --json, the study's report) before it fails."""

    def __init__(self, message: str, results: list[dict]):
        super().__init__(message)
        self.results = results


def run_each(planned: Sequence[Planned], out: str | os.PathLike | None, cluster: Any,
             jobs: int | None, progress: bool | None,
             done: Callable[[Planned, dict], None] | None = None,
             timeout: float | None = None) -> list[dict]:
    """Run the experiments one after another, `done(planned, result)` after each. An
    experiment whose points failed, or whose figure could not be drawn, does not stop the
    others (what finished is recorded); Unfinished at the end names each one."""
    results, failed = [], []

    def fail(exp_id: str, why: str) -> None:
        print(f"rxb: warning: {exp_id}: {why}", file=sys.stderr)
        failed.append(f"{exp_id} ({why})")

    for p in planned:
        start = time.monotonic()
        try:
            res = run(p, out, cluster, jobs, progress, timeout=timeout)
        except EngineError as e:
            fail(p.exp.id, str(e))
            continue
        res["wall_s"] = time.monotonic() - start
        results.append(res)
        if done:
            done(p, res)
        if res["figure_error"]:
            fail(p.exp.id, res["figure_error"])
    if failed:
        raise Unfinished(f"{len(failed)} of {len(planned)} experiments did not finish "
                         "cleanly: " + "; ".join(failed), results)
    return results
