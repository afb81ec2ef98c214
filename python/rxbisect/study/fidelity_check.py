"""`rxb fidelity`: the study's calibration points in the simulator, published vs simulated, and
the fit that sets each NF's one free parameter from its point (docs/calibration.md; docs/calibration.md).

    rxb fidelity [--json] [--quick] [--costs NAME]   # the check: one row per point
    rxb fidelity --fit [--out FILE]                  # the fit (fidelity_fit.py)

The points, and nothing else the study published, are in calibration_points.toml beside this
module; this module holds no published number of its own. Every point is run through the
sweep machinery (sweep.plan/execute: a local process pool, NDR points searched by ndr.py), so
a fidelity run is the same engine run an experiment makes.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import checkout
from ..errors import UsageError
from ..vocab import costs, scenario
from ..vocab.schema import fields, read_toml, show
from . import ndr

# the package's `sweep` is the function rxbisect.sweep(); the module's parts by name
from .sweeps import execute, plan, value_text

POINTS_FILE = Path(__file__).parent / "calibration_points.toml"
MEASURES = {"throughput": "throughput_gbps", "ndr": "ndr_gbps"}  # measure -> record metric
UNIT = "Gbps"  # both measures'; the [unit] table says how the study counted them
RECORD_KEYS = ("workload", "arch", "params", "published", "simulated", "unit")
TOP = ("unit", "run", "quick", "common", "point", "estimates")
POINT = ("workload", "arch", "published", "published_range", "unit", "measure", "source",
         "set", "search")
OWN = {"workload.nf": "workload", "arch.name": "arch"}  # keys a point gives by its fields


@dataclass(frozen=True)
class Point:
    workload: str
    arch: str
    published: float  # the value fitted to (a range's midpoint)
    published_range: tuple[float, float] | None
    unit: str
    measure: str
    source: str
    keys: dict[str, Any]  # every scenario key the file sets for it, flat (section.key)
    search: dict | None  # the NDR search (ndr.FIELDS) of an ndr point

    @property
    def label(self) -> str:
        return f"{self.workload} {self.arch}"


@dataclass(frozen=True)
class Points:
    path: Path
    factor: float  # simulated wire Gbps x factor = the study's Gbps
    run: dict[str, Any]  # run.* keys of a full run, and of a --quick one
    quick: dict[str, Any]
    quick_resolution: float
    points: tuple[Point, ...]
    base: str  # the cost profile whose hand estimates the estimates scale
    estimates: dict[str, dict[str, str]]  # NF -> {"like": fitted NF, "why": text}


# ---- the points file ----------------------------------------------------------------------

def _number(where: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise UsageError(f"{where} = {show(v)}: expected a positive number")
    return float(v)


def _text(where: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise UsageError(f"{where} = {show(v)}: expected a non-empty string")
    return v


def _keys(where: str, sections: Any) -> dict[str, Any]:
    """Scenario keys in scenario-file layout ({section: {key: value}}), checked by the schema
    and flattened to {section.key: value}."""
    vals: dict[str, dict[str, Any]] = {s: {} for s in scenario.SCHEMA.sections}
    if not isinstance(sections, dict):
        raise UsageError(f"{where}: expected tables of scenario keys, got {show(sections)}")
    scenario.SCHEMA.merge(vals, sections, f"{where}: ")
    flat = {f"{s}.{k}": v for s, body in vals.items() for k, v in body.items()}
    for k in flat:
        if not scenario.honours(k, "sim"):
            raise UsageError(f"{where}: {k} has no effect in the simulator (emulator-only key)")
    return flat


def _point(where: str, t: Any, common: dict[str, Any], run: dict[str, Any]) -> Point:
    t = fields(where, t, POINT)
    for k in ("workload", "arch", "unit", "measure", "source"):
        if k not in t:
            raise UsageError(f"{where}: '{k}' is required")
    nf = costs.nf_names()
    if t["workload"] not in nf:
        raise UsageError(f"{where}: workload = {show(t['workload'])}: not a network function; "
                         f"allowed: {', '.join(nf)}")
    where = f"{where} ({t['workload']})"
    archs = scenario.ARCHS
    if t["arch"] not in archs:
        raise UsageError(f"{where}: arch = {show(t['arch'])}: allowed: {', '.join(archs)}")
    if t["measure"] not in MEASURES:
        raise UsageError(f"{where}: measure = {show(t['measure'])}: allowed: "
                         f"{', '.join(MEASURES)}")
    if ("published" in t) == ("published_range" in t):
        raise UsageError(f"{where}: give exactly one of 'published' (a number) and "
                         "'published_range' ([low, high]: the fit aims at the midpoint)")
    rng = t.get("published_range")
    if rng is not None:
        if not isinstance(rng, list) or len(rng) != 2:
            raise UsageError(f"{where}: published_range = {show(rng)}: expected [low, high]")
        lo, hi = (_number(f"{where}: published_range", v) for v in rng)
        if lo >= hi:
            raise UsageError(f"{where}: published_range = {show(rng)}: low must be below high")
        rng = (lo, hi)
    published = (rng[0] + rng[1]) / 2 if rng else _number(f"{where}: published", t["published"])
    own = _keys(f"{where} [point.set]", t.get("set", {}))
    for k in own:
        if k in OWN or k.startswith("run."):
            raise UsageError(f"{where} [point.set]: {k} is not set here: "
                             + (f"it is the point's '{OWN[k]}'" if k in OWN else
                                "run lengths are in [run] and [quick]"))
    search = None
    if t["measure"] == "ndr":
        if "search" not in t:
            raise UsageError(f"{where}: measure 'ndr' needs a [point.search] table "
                             f"(fields: {', '.join(ndr.FIELDS)})")
        search = ndr.spec(f"{where} [point.search]", t["search"])
        if scenario.SCHEMA.info(str(search["key"])) is None:
            raise UsageError(f"{where} [point.search]: key = {show(search['key'])}: not a "
                             "scenario key")
    elif "search" in t:
        raise UsageError(f"{where}: [point.search] belongs to measure 'ndr' only")
    if t["unit"] != UNIT:
        raise UsageError(f"{where}: unit = {show(t['unit'])}: the measures ({', '.join(MEASURES)})"
                         f" are in {UNIT}; allowed: \"{UNIT}\"")
    keys = {**common, **own, "workload.nf": t["workload"], "arch.name": t["arch"], **run}
    p = Point(t["workload"], t["arch"], published, rng, UNIT, t["measure"],
              _text(f"{where}: source", t["source"]), keys, search)
    res = resolve(p, where=where)  # the rules between keys and the profile now, not mid-run
    if search:
        ndr.check(*ndr.limits(res, search), search["resolution"], search["threshold"],
                  f"{where} [point.search]: ")
    return p


def load(path: str | Path | None = None) -> Points:
    """Read and check a calibration points file (default: the study's)."""
    path = Path(path or POINTS_FILE)
    f = f"calibration points {path}"
    doc = fields(f, read_toml(path, "calibration points file"), TOP)
    for k in ("unit", "run", "quick", "point", "estimates"):
        if k not in doc:
            raise UsageError(f"{f}: [{k}] is required")
    unit = fields(f"{f}: [unit]", doc["unit"], ("study_line_gbps", "wire_line_gbps"))
    factor = (_number(f"{f}: [unit] study_line_gbps", unit.get("study_line_gbps"))
              / _number(f"{f}: [unit] wire_line_gbps", unit.get("wire_line_gbps")))
    quick = dict(fields(f"{f}: [quick]", doc["quick"],
                         ("duration_ms", "warmup_ms", "ndr_resolution_gbps")))
    resolution = _number(f"{f}: [quick] ndr_resolution_gbps", quick.pop("ndr_resolution_gbps",
                                                                          None))
    run = _keys(f"{f}: [run]", {"run": fields(f"{f}: [run]", doc["run"],
                                               ("duration_ms", "warmup_ms"))})
    quick = _keys(f"{f}: [quick]", {"run": quick})
    common = _keys(f"{f}: [common]", doc.get("common", {}))
    if any(k in OWN or k.startswith("run.") for k in common):
        raise UsageError(f"{f}: [common] may not set workload.nf, arch.name or run.* (they "
                         "are each point's fields and [run])")
    raw = doc["point"]
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{f}: at least one [[point]] is required")
    points = tuple(_point(f"{f}: [[point]] #{i + 1}", t, common, run) for i, t in enumerate(raw))
    seen = [p.workload for p in points]
    dup = next((w for w in seen if seen.count(w) > 1), None)
    if dup:  # docs/calibration.md: one free parameter per NF, set by its one point
        raise UsageError(f"{f}: two [[point]] entries for workload '{dup}'; an NF has one "
                         "calibration point")
    base, estimates = _estimates(f"{f}: [estimates]", doc["estimates"], seen)
    for i, p in enumerate(points):
        resolve(p, quick, where=f"{f}: [[point]] #{i + 1} ({p.workload}) with [quick]")
    return Points(path, factor, run, quick, resolution, points, base, estimates)


def _estimates(where: str, t: Any, fitted: list[str]) -> tuple[str, dict[str, dict[str, str]]]:
    """[estimates]: base = a cost profile; NF = {like, why} for every NF with no point."""
    nfs = costs.nf_names()
    t = dict(fields(where, t, ("base", *nfs)))
    base = _text(f"{where} base", t.pop("base", None))
    hand = [n for n in costs.builtin_names() if n != "study"]  # study: the fit's output
    if base not in hand:
        raise UsageError(f"{where} base = {show(base)}: not a built-in cost profile of hand "
                         f"estimates; allowed: {', '.join(hand)}")
    out = {}
    for nf, rule in t.items():
        rule = fields(f"{where} {nf}", rule, ("like", "why"))
        if nf in fitted:
            raise UsageError(f"{where} {nf}: has a calibration point; it is fitted, not "
                             "estimated")
        if rule.get("like") not in fitted:
            raise UsageError(f"{where} {nf}: like = {show(rule.get('like'))}: expected an NF "
                             f"with a calibration point ({', '.join(fitted)})")
        out[nf] = {"like": rule["like"], "why": _text(f"{where} {nf}: why", rule.get("why"))}
    missing = [nf for nf in nfs if nf not in fitted and nf not in out]
    if missing:
        raise UsageError(f"{where}: {missing[0]} has neither a calibration point nor an "
                         "estimate rule; every NF needs one")
    return base, out


# ---- running points -----------------------------------------------------------------------

def keys_of(p: Point, quick: dict | None = None, extra: dict | None = None) -> dict[str, Any]:
    """The point's scenario keys: the file's, a --quick run's lengths, then `extra`."""
    return {**p.keys, **(quick or {}), **(extra or {})}


def sets_of(p: Point, quick: dict | None = None, extra: dict | None = None) -> list[str]:
    """The same as `--set` texts (what scenario.load and sweep.plan take)."""
    return [f"{k}={value_text(v)}" for k, v in keys_of(p, quick, extra).items()]


def resolve(p: Point, quick: dict | None = None, extra: dict | None = None,
            where: str = "") -> scenario.Resolved:
    try:
        return scenario.load_resolved(None, sets_of(p, quick, extra))
    except UsageError as e:
        raise UsageError(f"{where or 'calibration point ' + p.label}: {e}") from None


def evaluate(pts: Points, runs: Sequence[tuple[Point, dict]], quick: bool = False,
             jobs: int | None = None, progress: bool | None = None, desc: str = "fidelity") \
        -> list[tuple[float, dict]]:
    """Run each (point, extra keys) once (an ndr point: one search) on the process pool;
    returns (simulated value in the study's unit, the record) per run, in order."""
    planned = []
    for p, extra in runs:
        search = p.search
        if quick and search:
            search = {**search, "resolution": pts.quick_resolution}
        # the NF and the keys this run adds as a one-point grid: they name it in messages
        grid = {k: [v] for k, v in {"workload.nf": p.workload, **(extra or {})}.items()}
        sets = [s for s in sets_of(p, pts.quick if quick else None)
                if scenario.set_key(s) not in grid]
        planned += plan(None, grid, sets=sets, experiment="fidelity", search=search)
    outcome = execute(planned, jobs=jobs, progress=progress, desc=desc)
    return [(rec["metrics"][MEASURES[p.measure]] * pts.factor, rec)
            for (p, _), rec in zip(runs, outcome.records, strict=True)]


def evaluate_seeds(pts: Points, runs: Sequence[tuple[Point, dict]], seeds: Sequence[int],
                   quick: bool = False, jobs: int | None = None, progress: bool | None = None,
                   desc: str = "fidelity") -> list[tuple[float, dict]]:
    """Each run once per seed (all on one pool): per run, the median value over the seeds and
    the record of the seed that gave it (the lower middle one for an even count). privRing lb
    has two steady states at its point and which one a run ends in depends on its start
    (docs/calibration.md): the median reads what most seeds do, where one seed reads its own."""
    out = evaluate(pts, [(p, {**extra, "run.seed": s}) for p, extra in runs for s in seeds],
                   quick, jobs, progress, desc)
    n = len(seeds)
    return [sorted(out[i * n:(i + 1) * n], key=lambda vr: vr[0])[(n - 1) // 2]
            for i in range(len(runs))]


def record(p: Point, value: float, rec: dict) -> dict:
    """The fidelity record: the point, the scenario keys that set it up (as resolved, so
    workload.nf_cycles shows the cost that ran), published and simulated."""
    cfg = rec["config"]
    names = [*p.keys, "run.seed", "workload.costs", "workload.nf_cycles"]
    params = {k: cfg[k.split(".")[0]][k.split(".", 1)[1]] for k in dict.fromkeys(names)}
    return {"workload": p.workload, "arch": p.arch, "params": params,
            "published": p.published, "simulated": value, "unit": p.unit}


def check(pts: Points | None = None, quick: bool = False, costs_ref: str | None = None,
          seeds: Sequence[int] = (1,), jobs: int | None = None, progress: bool | None = None) \
        -> list[dict]:
    """Every calibration point once per seed (default: the study's points file): one record
    per point (RECORD_KEYS), its median seed's. The first point in a quick run:

    >>> import dataclasses
    >>> pts = load()
    >>> [r["workload"] for r in check(dataclasses.replace(pts, points=pts.points[:1]),
    ...                                quick=True, jobs=1, progress=False)]
    ['lb']"""
    pts = pts or load()
    extra = {"workload.costs": costs_ref} if costs_ref else {}
    runs = [(p, extra) for p in pts.points]
    return [record(p, v, rec) for (p, _), (v, rec) in
            zip(runs, evaluate_seeds(pts, runs, seeds, quick, jobs, progress), strict=True)]


def table(pts: Points, records: Sequence[dict]) -> str:
    from ..output.text_report import table as text_table
    by = {p.workload: p for p in pts.points}
    rows = []
    for r in records:
        p = by[r["workload"]]
        shown = f"{p.published:g}" + (f" ({p.published_range[0]:g}-{p.published_range[1]:g})"
                                      if p.published_range else "")
        rows.append((r["workload"], r["arch"], p.measure, r["params"]["workload.nf_cycles"],
                     f"{shown} {r['unit']}", f"{r['simulated']:.1f} {r['unit']}",
                     f"{r['simulated'] / r['published']:.3f}"))
    out = text_table(("workload", "arch", "measure", "nf_cycles", "published", "simulated",
                      "sim/pub"), rows, (False, False, False, True, True, True, True))
    est = ", ".join(pts.estimates)
    return (f"{out}\n\nGbps in the study's unit (IP-level; simulated wire Gbps x {pts.factor:.4f})."
            f"\n{est}: no published figure, so no row; their costs are estimates "
            f"(see the cost profile).\nPoints and their sources: {_shown(pts.path)}\n")


def _shown(path: Path) -> str:
    """A path inside the repository relative to it (what a reader of the docs can find)."""
    root = checkout.repo_root()
    return str(path.resolve().relative_to(root)) if path.resolve().is_relative_to(root) \
        else str(path)
