"""The experiment catalogue: one declarative TOML file per ID in experiments/ (docs/evaluation.md §4).

    title = "..."                       # one line, for tables and plots
    description = "..."                 # what the experiment asks
    scenario = "reference"              # base scenario (built-in name or file); optional
    derive = ["cycles_split"]           # Python-side metrics added to each record (DERIVE)
    [set]      workload.nf = "lb"       # fixed keys (any scenario key but those below)
    [grid]     arch.rx_size = [64, ...] # what varies: the cross product
    [[interface]]                       # one entry per design; points are the union
    name = "privring"                   # arch.name
    emulated = false                    # arch.emulated
    label = "privRing"                  # params["design"]; default: the name (+ " emulated")
    set = {...}; grid = {...}           # this design's own keys / grid values
    link = {"arch.rx_size" = "arch.ax_size"}  # a key that takes a grid key's value
    [search]                            # optional: each point is an RFC 2544 NDR search (ndr.py)
    [quick] / [full]                    # seeds, and set / grid / search overrides
    [plot]                              # the plot (plot.py's fixed schema)

Every key and value goes through the scenario schema (scenario_keys.toml); a mistake is one
UsageError naming the file, the field and what is allowed. docs/experiments.md has the rest.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import checkout
from ..errors import UsageError
from ..output import plot
from ..tools import darkpackets
from ..vocab import scenario
from ..vocab.schema import check, fields, read_toml, unknown
from . import ndr, sweeps

DIR = checkout.repo_root() / "experiments"
# Keys an experiment may not set or vary itself: they come from [[interface]] and the seeds.
RESERVED = {"arch.name": "[[interface]] name", "arch.emulated": "[[interface]] emulated",
            "run.seed": "[quick]/[full] seeds (or --seeds)"}
TOP = ("title", "description", "scenario", "derive", "set", "grid", "interface", "search",
       "trace", "quick", "full", "plot")
# A [trace] table: the trace generator's options (tracegen.generate; docs/trace-tools.md).
TRACE = ("flows", "seed", "duration_ms", "rate_gbps", "line_gbps", "alpha", "min_pkts",
         "max_pkts", "pps_median", "pps_sigma", "tcp_share", "sizes", "snaplen")
VARIANT = ("seeds", "set", "grid", "search")
INTERFACE = ("name", "emulated", "label", "set", "grid", "link")
DESIGN = "design"  # the params key holding an interface's label
# The study's argument, in order: the problem (ring size against the LLC and its DDIO ways),
# the designs head to head, Rx/Bx/Ax sizing, bursts, imbalance (traffic, processing, a real
# trace, a load that turns), scaling, then the rest of the catalogue. Reports and `make run`
# present experiments in this order; every catalogue ID is in it (tested).
NARRATIVE = ("ring-size", "nf-200g", "bx-size", "ax-size", "bursts", "traffic-var",
             "proc-var", "trace", "dyn-switch", "core-scaling", "share-degree", "ndr",
             "low-rate", "kvs", "stream-coloc", "mem-intensity", "dark-packets",
             "representors", "fidelity")
DEFAULT_SEEDS = {"quick": 1, "full": 10}  # the study's ten runs, trimmed mean (docs/evaluation.md §4)


# ---- Python-side derivations: metrics computed from a record, added before it is written --

def _cycles_split(rec: dict) -> dict:
    """cycles/packet as flat metrics: sync (shRing's lock/bitmap) vs the rest ("work")."""
    c = rec["metrics"].get("cycles_per_packet") or {}
    return {"cycles_per_packet_total": c.get("total"), "cycles_per_packet_sync": c.get("sync"),
            "cycles_per_packet_work": (c["total"] - c["sync"]) if "total" in c and "sync" in c
            else None}


def _spool(rec: dict) -> dict:
    """The representor figures of docs/interfaces.md §6, flat: memory, fairness, latency spread."""
    sp, m = rec["metrics"].get("spool") or {}, rec["metrics"]
    p50, p99 = m.get("latency_us_p50"), m.get("latency_us_p99")
    mem = sp.get("memory_bytes_mean", sp.get("memory_bytes"))  # held over time, else at the end
    return {"spool_memory_mib": mem / 2**20 if mem is not None else None,
            "noisy_port_share": sp.get("noisy_port_share"),
            "spool_memory_kib_per_port": sp["memory_bytes_per_port"] / 2**10
            if "memory_bytes_per_port" in sp else None,
            "fairness_jain": sp.get("fairness_jain"),
            "latency_spread": p99 / p50 if p50 and p99 is not None else None}


def _dark_bound(rec: dict) -> dict:
    """The analytic dark-packet bound (darkpackets.py) at this point: link = the per-NIC
    offered rate, N = cores per NIC, M = the synthetic NF's dependent reads, t_d = the
    profile's idle DRAM latency (and, second, the latency the simulator measured), c = the
    NF's compute: its cycles at the profile's clock plus workload.compute_ns."""
    cfg = rec["config"]
    cores = math.ceil(cfg["system"]["cores"] / cfg["system"]["nics"])
    args = (cfg["traffic"]["rate_gbps"], cfg["traffic"]["packet_bytes"], cores,
            cfg["workload"]["reads"])
    compute = (cfg["workload"]["nf_cycles"] / rec["profile"]["cpu"]["freq_ghz"]
               + cfg["workload"]["compute_ns"])
    out: dict[str, float | None] = {}
    out["dark_bound_drop_rate"] = darkpackets.compute(  # the profile the point ran with
        *args, rec["profile"]["dram"]["idle_ns"], compute).drop_fraction
    loaded = rec["metrics"].get("dram_latency_ns_mean")
    out["dark_bound_drop_rate_loaded"] = darkpackets.compute(
        *args, loaded, compute).drop_fraction if loaded else None
    return out


def _latency_ratio(rec: dict) -> dict:
    """p99 over mean latency: a latency spread that needs no second record."""
    m = rec["metrics"]
    return {"latency_p99_over_mean": m["latency_us_p99"] / m["latency_us_mean"]
            if m.get("latency_us_mean") and m.get("latency_us_p99") is not None else None}


def _flat_metrics(rec: dict) -> dict:
    """Objects of numbers as flat metrics a plot can name: ring_occupancy_mean,
    cycles_per_packet_sync, drops_by_cause_no_ax_buf, ..."""
    return {f"{k}_{sub}": x for k, v in rec["metrics"].items() if isinstance(v, dict)
            for sub, x in v.items() if isinstance(x, (int, float)) and not isinstance(x, bool)}


def _alloc_by_target(rec: dict) -> dict:
    """The allocator's share of cycles on the target cores and, averaged, on the others
    (per_core[].target): rxBisect's frees land on other cores than its allocations, and the
    system-wide share hides where (at a 1 % share the target's is several times the others')."""
    cores = [c for c in rec["metrics"].get("per_core") or []
             if c.get("alloc_cycle_share") is not None]

    def mean(group: list[dict]) -> float | None:
        return sum(c["alloc_cycle_share"] for c in group) / len(group) if group else None

    return {"alloc_cycle_share_target": mean([c for c in cores if c.get("target")]),
            "alloc_cycle_share_others": mean([c for c in cores if not c.get("target")])}


def _mode_numeric(rec: dict) -> dict:
    """Dynamic shRing's mode in each time-series sample as a number a plot can draw:
    `shared` = 1 in shared mode, 0 in private mode (the samples are changed in place)."""
    for sample in rec["metrics"].get("series") or []:
        if "mode" in sample:
            sample["shared"] = 1 if sample["mode"] == "shared" else 0
    return {}


DERIVE: dict[str, Callable[[dict], dict]] = {
    "flat": _flat_metrics, "cycles_split": _cycles_split, "spool": _spool,
    "dark_bound": _dark_bound, "latency_ratio": _latency_ratio, "mode_numeric": _mode_numeric,
    "alloc_by_target": _alloc_by_target}


# ---- the file -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Interface:
    name: str
    emulated: bool
    label: str
    set: dict[str, Any]
    grid: dict[str, list]
    link: dict[str, str]


@dataclass(frozen=True)
class Variant:
    """What one run of the experiment does: quick or full, already merged."""
    seeds: int
    set: dict[str, Any]
    grid: dict[str, list]
    search: dict | None


@dataclass(frozen=True)
class Experiment:
    id: str
    path: Path
    title: str
    description: str
    scenario: str | None
    set: dict[str, Any]
    grid: dict[str, list]
    interfaces: tuple[Interface, ...]
    search: dict | None
    quick: dict = field(repr=False)
    full: dict = field(repr=False)
    plot: dict = field(default_factory=dict)
    derive: tuple[str, ...] = ()
    trace: dict | None = None  # generate a trace with these options and replay it

    def variant(self, quick: bool) -> Variant:
        own = self.quick if quick else self.full
        search = {**self.search, **own.get("search", {})} if self.search else None
        return Variant(own.get("seeds", DEFAULT_SEEDS["quick" if quick else "full"]),
                       {**self.set, **own.get("set", {})}, {**self.grid, **own.get("grid", {})},
                       search)


def ids() -> list[str]:
    """Every catalogue ID (the files in experiments/), sorted."""
    return sorted(p.stem for p in DIR.glob("*.toml"))


def in_catalogue(path: str | Path) -> bool:
    """Whether an experiment file is one of the catalogue's (experiments/ of this checkout)."""
    return Path(path).resolve().parent == DIR.resolve()


def load(ref: str) -> Experiment:
    """An experiment by catalogue ID, or a file of the same format."""
    path = Path(ref)
    if not (path.suffix == ".toml" or "/" in ref):
        if ref not in ids():
            raise UsageError(f"{unknown('experiment', ref, ids())}; known: "
                             f"{', '.join(ids())} (or an experiment file)")
        path = DIR / f"{ref}.toml"
    if not path.is_file():
        raise UsageError(f"experiment file {path}: "
                         + ("a folder, not a file" if path.is_dir() else "no such file"))
    return parse(read_toml(path, "experiment file"), path)


def _flat(table: dict, prefix: str = "") -> dict[str, Any]:
    """`[set] workload.nf = "lb"` (TOML nests dotted keys) back to {"workload.nf": "lb"}."""
    out = {}
    for k, v in table.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _key(where: str, key: str):
    info = scenario.SCHEMA.info(key)
    if info is None:
        raise unknown("key", key, [k.full for k in scenario.SCHEMA.keys()], f"{where}: ")
    if key in RESERVED:
        raise UsageError(f"{where}: {key} is given by {RESERVED[key]}, not here")
    if not scenario.honours(key, "sim"):
        raise UsageError(f"{where}: {key} has no effect in the simulator (emulator-only key)")
    return info


def _table(where: str, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise UsageError(f"{where}: expected a table of scenario keys, got {table!r:.40}")
    return _flat(table)


def _sets(where: str, table: Any, base: Path) -> dict[str, Any]:
    return {key: check(_key(where, key), v, f"{where}: ", base)
            for key, v in _table(where, table).items()}


def _grid(where: str, table: Any, base: Path) -> dict[str, list]:
    out = {}
    for key, values in _table(where, table).items():
        info = _key(where, key)
        if not isinstance(values, list) or not values:
            raise UsageError(f"{where}: {key}: expected a non-empty list of values, "
                             f"got {values!r:.40}")
        out[key] = [check(info, v, f"{where}: ", base) for v in values]
    return out


def _seeds(where: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= sweeps.MAX_SEEDS:
        raise UsageError(f"{where}: seeds = {v!r}: expected an integer from 1 to "
                         f"{sweeps.MAX_SEEDS} (each seed runs every point once more)")
    return v


def _search(where: str, table: Any, partial: bool) -> dict:
    t = ndr.spec(where, table, partial)
    if not partial:
        _key(where, t["key"])
    return t


def _plot(where: str, table: Any) -> dict:
    """The [plot] table through plot.check_spec (the plot's own rules), and x / series must
    name a scenario key, the design label or time_ms."""
    try:
        spec = plot.check_spec(table)
    except UsageError as e:
        raise UsageError(f"{where.rsplit(': [plot]', 1)[0]}: {e}") from None
    for k in ("x", "series"):
        v = spec[k]
        if v not in (plot.TIME_X, DESIGN) and scenario.SCHEMA.info(v) is None:
            raise unknown("key", v, [plot.TIME_X, DESIGN,
                                     *(i.full for i in scenario.SCHEMA.keys())],
                          f"{where} {k}: ")
    return dict(table)


def _trace(where: str, table: Any, sets: dict) -> dict:
    """The generator's options (its own checks run when it runs); the replay is set here."""
    t = dict(fields(where, table, TRACE))
    for key in ("traffic.pattern", "traffic.pcap"):
        if key in sets:
            raise UsageError(f"{where.rsplit(': ', 1)[0]}: [set] {key}: given by [trace] "
                             "(the generated trace is replayed)")
    return t


def parse(doc: dict, path: Path) -> Experiment:
    """Validate a parsed experiment file; every problem is one UsageError naming the file."""
    f = str(path)
    doc = fields(f, doc, TOP)
    for k in ("title", "description"):
        if not isinstance(doc.get(k), str) or not doc[k].strip():
            raise UsageError(f"{f}: '{k}' is required (a non-empty string)")
    base = path.resolve().parent
    ref = doc.get("scenario")
    if ref is not None:
        if not isinstance(ref, str):
            raise UsageError(f"{f}: scenario = {ref!r}: expected a built-in name or a file")
        if ref not in scenario.builtin_names():
            ref = str(base / ref)  # a file beside the experiment
        scenario.load(ref)  # its own message if it is bad
    derive = doc.get("derive", [])
    for d in derive if isinstance(derive, list) else [derive]:
        if not isinstance(d, str) or d not in DERIVE:
            raise UsageError(f"{f}: derive: unknown derivation {d!r}; allowed: "
                             f"{', '.join(DERIVE)}")
    sets = _sets(f"{f}: [set]", doc.get("set", {}), base)
    grid = _grid(f"{f}: [grid]", doc.get("grid", {}), base)
    search = _search(f"{f}: [search]", doc["search"], False) if "search" in doc else None
    variants = {}
    for name in ("quick", "full"):
        w = f"{f}: [{name}]"
        v = dict(fields(w, doc.get(name, {}), VARIANT))
        if "seeds" in v:
            v["seeds"] = _seeds(w, v["seeds"])
        v["set"] = _sets(f"{w} set", v.get("set", {}), base)
        v["grid"] = _grid(f"{w} grid", v.get("grid", {}), base)
        for k in v["grid"]:
            if k not in grid:  # same shape: a variant only picks other values
                raise UsageError(f"{w} grid: {k} is not in [grid]; a variant may change the "
                                 f"values of {', '.join(grid) or '(no grid keys)'} only")
        if "search" in v:
            if search is None:
                raise UsageError(f"{w} search: the experiment has no [search]")
            v["search"] = _search(f"{w} search", v["search"], True)
        variants[name] = v
    raw = doc.get("interface")
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{f}: at least one [[interface]] is required (name = an arch.name)")
    names = scenario.SCHEMA.known("arch.name")
    interfaces = []
    for i, t in enumerate(raw):
        w = f"{f}: [[interface]] #{i + 1}"
        t = fields(w, t, INTERFACE)
        if "name" not in t:
            raise UsageError(f"{w}: 'name' is required; allowed: {names.allowed()}")
        name = check(names, t["name"], f"{w}: ")
        emulated = check(scenario.SCHEMA.known("arch.emulated"), t.get("emulated", False),
                         f"{w}: ")
        link = t.get("link", {})
        if not isinstance(link, dict):
            raise UsageError(f"{w}: link: expected a table {{key = grid key}}")
        link = _flat(link)
        for dst, src in link.items():
            _key(f"{w} link", dst)
            if not isinstance(src, str) or src not in grid:
                raise UsageError(f"{w} link: {dst} = {src!r}: not a key of [grid] "
                                 f"({', '.join(grid) or 'none'})")
        own = _grid(f"{w} grid", t.get("grid", {}), base)
        for k in own:
            if k not in grid:  # its own values of the experiment's axes, not a new axis
                raise UsageError(f"{w} grid: {k} is not in [grid] "
                                 f"({', '.join(grid) or 'none'}); put it in set")
        label = t.get("label", name + (" emulated" if emulated else ""))
        if not isinstance(label, str) or not label:
            raise UsageError(f"{w}: label = {label!r}: expected a non-empty string")
        interfaces.append(Interface(name, emulated, label, _sets(f"{w} set", t.get("set", {}),
                                                                 base), own, link))
    labels = [i.label for i in interfaces]
    if len(set(labels)) != len(labels):
        raise UsageError(f"{f}: two [[interface]] entries share the label "
                         f"{next(x for x in labels if labels.count(x) > 1)!r}")
    if "plot" not in doc:
        raise UsageError(f"{f}: a [plot] table is required (docs/experiments.md)")
    return Experiment(path.stem, path, doc["title"], doc["description"], ref, sets, grid,
                      tuple(interfaces), search, variants["quick"], variants["full"],
                      _plot(f"{f}: [plot]", doc["plot"]),
                      tuple(derive if isinstance(derive, list) else [derive]),
                      _trace(f"{f}: [trace]", doc["trace"], sets) if "trace" in doc else None)
