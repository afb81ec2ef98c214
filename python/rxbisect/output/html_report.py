"""`rxb report DIR`: one self-contained HTML page for every experiment in DIR.

    render(DIR, experiments=None, out=None, warn=None, baseline_html=None) -> Path

Inputs, per experiment ID: DIR/ID.jsonl (records, docs/evaluation.md §4); title, description and
`[plot]` from experiments/ID.toml, else DIR/ID.summary.json. Without a `[plot]` table a
default one is derived from what varies in the records.

The page tells the study in its order (experiments.NARRATIVE: the problem first, then the
designs, bursts, imbalance, scaling...; IDs outside the catalogue follow). Per experiment it
shows links to its files (JSONL, Parquet, SVG, ...), the command that made the records, a
reading generated from the aggregated points (reading.py: who is best, by how much, where
curves cross — never canned text), one figure per y metric at the page's width with a
numbered caption and hover values, what varied and what was fixed, the hardware profile
and calibration, the seeds, the aggregated points (plot.aggregate: the very numbers drawn,
trimmed mean and bootstrap interval) and where each packet's time goes (anatomy.py). A
small block at the top gives the records' provenance (commit, engine build, date, host).

The HTML comes from the Jinja2 templates in templates/ (autoescaped). Self-contained means
no external resource: figures are inline <svg> elements whose ids are prefixed per figure
(matplotlib's ids would collide across figures), CSS and script are inline; the links to the
experiment's files are relative, for a reader who has the folder. The inline script marks
the page when the figures are drawn, and how legible they are, for a headless browser's
--dump-dom (docs/report.md).

>>> import json, pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> rows = (("privring", "lb", 150.0), ("rxbisect", "lb", 199.0))
>>> _ = (d / "demo.jsonl").write_text("".join(json.dumps({"params": {"arch.name": n,
...     "workload.nf": nf}, "metrics": {"throughput_gbps": v}}) + "\\n" for n, nf, v in rows))
>>> text = render(d, baseline_html="<p>no change</p>").read_text()
>>> "Figure 1: throughput (Gbps)" in text and "Compared with a baseline" in text
True
"""

import functools
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import RxbError, UsageError
from ..study import anatomy
from ..study.experiments import DIR as EXPERIMENTS_DIR
from ..study.experiments import NARRATIVE
from ..version import __version__
from ..vocab import profile
from ..vocab.schema import read_toml, suggest
from . import plot, stats
from . import records as records_file
from .reading import fmt, reading

PAGE = "report.html"
# The files of an experiment the page links to, when they are in DIR (docs/experiments.md).
FILES = ("jsonl", "parquet", "svg", "png", "summary.json")


@dataclass
class Experiment:
    id: str
    records: list[dict]
    spec: dict  # a checked [plot] table
    own_spec: bool  # from experiments/ID.toml (else derived from the records)
    title: str
    description: str = ""
    variant: str = ""  # "quick" or "full", when rxb repro says
    figure: Path | None = None
    notes: list[str] = field(default_factory=list)


# ---- inputs ------------------------------------------------------------------------------

def _params(records: Sequence[dict]) -> tuple[dict, dict]:
    """(fixed {key: value} of the keys the records' params echo, varied {key: [values]} of
    every setting, plot.settings: a key only the resolved scenarios hold varies too), seed
    aside."""
    every = [plot.settings(r) for r in records]
    echoed = {k for r in records for k in (r.get("params") or {})}
    fixed, varied = {}, {}
    for k in dict.fromkeys(k for p in every for k in p):
        if k == plot.SEED_KEY:
            continue
        vals = list(dict.fromkeys(json.dumps(p.get(k), sort_keys=True) for p in every))
        if len(vals) > 1:
            varied[k] = [json.loads(v) for v in vals]
        elif k in echoed:
            fixed[k] = json.loads(vals[0])
    return fixed, varied


def default_spec(records: Sequence[dict]) -> dict:
    """A [plot] table for records without one: the first varied parameter on x (a line if
    it is numeric with 3+ values, else bars), throughput and p99 latency on y."""
    _, varied = _params(records)
    varied.pop(plot.EMULATED_KEY, None)
    xs = [k for k in varied if k != plot.DEFAULT_SERIES] or [plot.DEFAULT_SERIES]
    x = xs[0]
    values = varied.get(x, [])
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    metrics = records[0].get("metrics", {})
    y = [m for m in ("throughput_gbps", "latency_us_p99") if m in metrics] or \
        [k for k, v in metrics.items() if plot._number(v) is not None][:1]
    if not y:
        raise UsageError("the records have no numeric metric to plot")
    return plot.check_spec({"kind": "line" if numeric and len(values) >= 3 else "bar", "x": x,
                            "y": y, "xlabel": x, "ylabels": [_default_label(m) for m in y]})


def _default_label(metric: str) -> str:
    unit = {"gbps": "Gbps", "us": "µs", "mpps": "Mpps", "gibps": "GiB/s", "mib": "MiB"}
    parts = metric.split("_")
    units = [unit[p] for p in parts if p in unit]
    name = " ".join(p for p in parts if p not in unit and not re.fullmatch(r"p\d+", p))
    q = next((p for p in parts if re.fullmatch(r"p\d+", p)), "")
    return f"{(q + ' ') if q else ''}{name}" + (f" ({units[0]})" if units else "")


def read_summary(path: Path, warn: Callable[[str], None]) -> dict:
    """DIR/ID.summary.json as `rxb repro` writes it (title, variant, plot), or {}."""
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        warn(f"rxb: warning: {path}: not readable as JSON ({e}); ignored")
        return {}
    return doc if isinstance(doc, dict) else {}


def load(folder: Path, eid: str, experiments: Path, warn: Callable[[str], None]) -> Experiment:
    """One experiment: its records, and title, description and [plot] from
    experiments/ID.toml, else from DIR/ID.summary.json (the experiment file wins: an edited
    [plot] redraws old records). A summary that names another file as the one that ran (a
    user's experiment named like one of the catalogue's) is that experiment's own."""
    records = records_file.read_file(folder / f"{eid}.jsonl", strict=True)
    if not records:
        raise UsageError(f"{folder / (eid + '.jsonl')}: no records")
    toml_path = experiments / f"{eid}.toml"
    summary = read_summary(folder / f"{eid}.summary.json", warn)
    ran = summary.get("source")
    # the catalogue's own entry (in this checkout or another: results travel), or the file
    # at hand; a summary written before it named its source is taken to be the catalogue's
    ran_here = summary.get("from_catalogue", True) is not False or \
        (isinstance(ran, str) and Path(ran) == toml_path.resolve())
    own = read_toml(toml_path, "experiment file") if toml_path.is_file() and ran_here else {}
    doc = {**summary, **own}
    exp = Experiment(eid, records, {}, False, str(doc.get("title") or eid),
                     str(doc.get("description") or ""), variant=str(doc.get("variant") or ""))
    if "plot" in doc:
        try:
            exp.spec, exp.own_spec = plot.check_spec(doc["plot"]), True
        except UsageError as e:
            warn(f"rxb: warning: {eid}: {e}; using a default plot")
            exp.notes.append(f"The experiment's [plot] table is invalid ({e}); a default "
                             "plot is shown.")
    if exp.own_spec:
        _leave_out_unplotted(exp, warn)
    if not exp.own_spec:
        exp.spec = default_spec(records)
    # an empty file is a figure a full disk cut off (before writes were atomic): drawn again
    exp.figure = next((p for p in (folder / f"{eid}.svg", folder / f"{eid}.png")
                       if p.is_file() and p.stat().st_size > 0), None)
    return exp


def _leave_out_unplotted(exp: Experiment, warn: Callable[[str], None]) -> None:
    """A [plot] y that no record has a value for (a misspelt metric) is left out of the
    figures with a warning and a note, as an invalid [plot] is: when none is left, the
    experiment falls back to a default plot."""
    missing = plot.unplotted(exp.records, exp.spec)
    if not missing:
        return
    names = sorted({k for r in exp.records for k in r.get("metrics", {})})
    hints = [f"{m} (did you mean '{h}'?)" if (h := suggest(m, names)) else m for m in missing]
    why = f"[plot] y: no record has a value for {', '.join(hints)}"
    kept = [(y, label) for y, label in zip(exp.spec["y"], exp.spec["ylabels"], strict=True)
            if y not in missing]
    if kept:
        exp.spec = {**exp.spec, "y": [y for y, _ in kept], "ylabels": [lab for _, lab in kept]}
        warn(f"rxb: warning: {exp.id}: {why}; left out of the figures")
        exp.notes.append(f"The experiment's {why}; left out of the figures.")
    else:
        exp.own_spec = False
        warn(f"rxb: warning: {exp.id}: {why}; using a default plot")
        exp.notes.append(f"The experiment's {why}; a default plot is shown.")


# ---- the page ----------------------------------------------------------------------------

@functools.cache
def _env():
    """The templates (templates/, autoescaped: every value from records is escaped)."""
    import jinja2
    return jinja2.Environment(loader=jinja2.PackageLoader("rxbisect.output", "templates"),
                              autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], cls: str = "") -> str:
    """One HTML table (templates/table.html.j2); cells are escaped."""
    return _env().get_template("table.html.j2").render(
        headers=headers, rows=[[_value(c) for c in r] for r in rows], cls=cls)


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def order(ids: Sequence[str]) -> list[str]:
    """IDs in the study's narrative order; IDs outside the catalogue follow, sorted."""
    rank = {eid: i for i, eid in enumerate(NARRATIVE)}
    return sorted(ids, key=lambda eid: (rank.get(eid, len(rank)), eid))


_SVG_ID = re.compile(r'(\bid="|href="#|url\(#)([^")]+)')


def _inline_svg(text: str, prefix: str) -> str:
    """An SVG document as an element for the page: no XML prolog or doctype, and every id
    (and every reference to one) prefixed, so two figures' ids never collide."""
    text = text[text.index("<svg"):]
    return _SVG_ID.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)


def _href(base: str, name: str) -> str:
    """The link to DIR/name from the page: `base` is DIR relative to the page's folder ("."
    when the page is in DIR)."""
    return name if base == "." else f"{base}/{name}"


def _figures(exp: Experiment, folder: Path, first: int, warn: Callable[[str], None],
             base: str = ".") -> list:
    """One figure per y metric: inline SVG, caption numbered from `first`, and a link to its
    file in DIR when the experiment has its own [plot] (a default plot leaves nothing)."""
    from markupsafe import Markup
    labels = dict(zip(exp.spec["y"], exp.spec["ylabels"], strict=True))
    out = []
    for i, (metric, svg) in enumerate(plot.panel_svgs(exp.records, exp.spec)):
        fid = f"fig-{exp.id}-{i + 1}"
        name = _write_panel(folder, exp, metric, svg, warn)
        out.append({"id": fid, "number": first + i, "svg": Markup(_inline_svg(svg, fid)),
                    "href": _href(base, name) if name else None,
                    "caption": f"{labels[metric]} against {exp.spec['xlabel']}; "
                               f"{exp.title}."})
    return out


def _write_panel(folder: Path, exp: Experiment, metric: str, svg: str,
                 warn: Callable[[str], None]) -> str | None:
    """DIR/ID.METRIC.svg, the panel's own file; its name relative to the page, or None."""
    if not exp.own_spec:
        return None
    path = folder / f"{exp.id}.{metric}.svg"
    try:
        with records_file.replacing(path) as tmp:
            tmp.write_text(svg, encoding="utf-8")
    except OSError as e:
        warn(f"rxb: warning: cannot write {path} ({e.strerror or e}); the figure is only "
             "in the report")
        return None
    return path.name


def _ensure_figure(exp: Experiment, folder: Path, warn: Callable[[str], None]) -> None:
    """DIR/ID.svg and .png (all panels side by side) for an experiment with its own [plot]
    that has none yet (records from `rxb sweep`, or figures deleted)."""
    if exp.figure is not None or not exp.own_spec:
        if not exp.own_spec:
            exp.notes.append("Figures drawn by `rxb report` from a default plot (no [plot] "
                             "table for this experiment).")
        return
    try:
        exp.figure = plot.experiment(exp.records, exp.spec, folder / exp.id)[1]
        exp.notes.append("Figure files drawn by `rxb report` from the experiment's [plot] "
                         "table.")
    except UsageError as e:
        warn(f"rxb: warning: {e}; the figure is only in the report")


def _files(folder: Path, eid: str, base: str = ".") -> list[tuple[str, str]]:
    """(label, href from the page) of the experiment's files that exist in DIR."""
    return [(f"{eid}.{ext}", _href(base, f"{eid}.{ext}")) for ext in FILES
            if (folder / f"{eid}.{ext}").is_file() and (folder / f"{eid}.{ext}").stat().st_size]


def _points(points: Sequence[plot.Point]) -> list[tuple]:
    return [(p.series, _value(p.x), p.metric, plot.value_text(p, fmt), p.n) for p in points]


def _hardware(records: Sequence[dict]) -> tuple[list[tuple], list[tuple]]:
    """The profile(s) and calibration(s) the records were simulated with, as table rows."""
    names = list(dict.fromkeys(str((r.get("params") or {}).get("system.profile")
                                   or ((r.get("config") or {}).get("system") or {}).get("profile")
                                   or "reference") for r in records))
    rows = []
    for name in names:
        try:
            p = profile.load(name)
            rows.append((name, f"{p.description}; {p.cpu.model}, {p.cpu.cores_per_socket} cores "
                         f"x {p.cpu.sockets} at {p.cpu.freq_ghz:g} GHz; LLC {p.llc.size_mib:g} "
                         f"MiB {p.llc.ways}-way, {p.llc.ddio_ways} DDIO ways; {p.dram.kind} "
                         f"x {p.dram.channels} channels, {p.dram.idle_ns:g} ns idle; "
                         f"{p.nic.count} x {p.nic.model} at {p.nic.link_gbps:g} Gbps"))
        except RxbError as e:
            rows.append((name, f"(profile not available here: {e})"))
    cals = list(dict.fromkeys(json.dumps((r.get("metrics") or {}).get("calibration"),
                                         sort_keys=True) for r in records))
    cal_rows = [(c.get("machine", "?"), c.get("date", "?"), c.get("origin", "?"))
                for c in map(json.loads, cals) if isinstance(c, dict)]
    return rows, cal_rows


def _seed(record: dict) -> Any:
    """A record's seed: its own field, else its params'."""
    return record.get("seed", (record.get("params") or {}).get(plot.SEED_KEY))


def _seed_order(seed: Any) -> tuple:
    """Whole seeds in numeric order (1, 2, 10), anything else after them as text."""
    whole = isinstance(seed, int) and not isinstance(seed, bool)
    return (0, seed, "") if whole else (1, 0, str(seed))


def _seeds(records: Sequence[dict], points: Sequence[plot.Point]) -> str:
    seeds = sorted({_seed(r) for r in records}, key=_seed_order)
    wall = sum(float(r.get("sim_wall_s") or 0) for r in records)
    ns = sorted({p.n for p in points})
    how = "trimmed mean (min and max dropped)" if ns and ns[-1] >= 3 else "mean"
    return (f"{len(records)} records; seeds {', '.join(map(str, seeds))}; "
            f"{'/'.join(map(str, ns))} per point; centre = {how}, error bars and brackets = "
            f"its {stats.CONFIDENCE * 100:g} % bootstrap confidence interval. Simulation wall "
            f"time {wall:.1f} s in all.")


def _anatomy(records: Sequence[dict]) -> list[dict]:
    """"Where each packet's time goes": per record with `metrics.anatomy`, its label (design,
    varied parameters, seed) and the tables of `rxb sim --explain`, one per core class."""
    _, varied = _params(records)
    out = []
    for r in records:
        anat = anatomy.of(r.get("metrics"))
        if anat is None:
            continue
        params = plot.settings(r)
        label = ", ".join([str(r.get("arch") or params.get(plot.DEFAULT_SERIES))]
                          + [f"{k}={_value(params.get(k))}" for k in varied
                             if k != plot.DEFAULT_SERIES]
                          + [f"seed {_seed(r)}"])
        out.append({"label": label, "problems": anatomy.check_anatomy(r["metrics"]),
                    "classes": [{"header": anatomy.header(c, anat[c]),
                                 "rows": [[_value(v) for v in row]
                                          for row in anatomy.rows(anat[c])]}
                                for c in anatomy.classes(anat) if isinstance(anat[c], dict)]})
    return out


def _commands(records: Sequence[dict]) -> list[str]:
    """The distinct commands that wrote the records (their `provenance`)."""
    return list(dict.fromkeys(str(p["command"]) for r in records
                              if isinstance(p := r.get("provenance"), dict) and p.get("command")))


def provenance(records: Sequence[dict]) -> dict:
    """The page's provenance block: one row per (commit + dirty flag, engine build) with the
    dates and hosts of its records, and how many records carry none."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        p = r.get("provenance")
        if isinstance(p, dict):
            commit = str(p.get("commit") or "?") + (" (dirty)" if p.get("dirty") else "")
            groups.setdefault((commit, str(p.get("engine_build") or "?")), []).append(p)
    rows = []
    for (commit, build), ps in groups.items():
        dates = sorted(str(p["date"]) for p in ps if p.get("date"))
        rows.append((commit, build, (dates[0] if dates[0] == dates[-1] else
                                     f"{dates[0]} – {dates[-1]}") if dates else "?",
                     ", ".join(dict.fromkeys(str(p.get("host") or "?") for p in ps)), len(ps)))
    total = len(records)
    return {"rows": rows, "missing": total - sum(len(g) for g in groups.values()),
            "total": total}


def context(exp: Experiment, number: int, first_figure: int, folder: Path,
            warn: Callable[[str], None], base: str = ".") -> dict:
    """Everything the experiment's template (templates/experiment.html.j2) shows; `base` is
    DIR relative to the page's folder, for links to DIR's files."""
    points = plot.aggregate(exp.records, exp.spec)
    fixed, varied = _params(exp.records)
    _ensure_figure(exp, folder, warn)
    hardware, calibrations = _hardware(exp.records)
    return {"id": exp.id, "number": number, "title": exp.title,
            "description": exp.description, "variant": exp.variant,
            "records": len(exp.records), "files": _files(folder, exp.id, base),
            "commands": _commands(exp.records), "reading": reading(points, exp.spec),
            "figures": _figures(exp, folder, first_figure, warn, base), "notes": exp.notes,
            "varied": [(k, ", ".join(map(_value, v))) for k, v in varied.items()],
            "fixed": [(k, _value(v)) for k, v in fixed.items()],
            "hardware": hardware, "calibrations": calibrations,
            "seeds": _seeds(exp.records, points), "x": exp.spec["x"],
            "points": _points(points), "anatomy": _anatomy(exp.records)}


def experiment_ids(folder: Path, warn: Callable[[str], None]) -> list[str]:
    """The ID of every DIR/ID.jsonl with something in it. An empty one is a run that recorded
    no point (killed before its first, or every point failed): left out with a warning, so
    that it does not stop the report of the others."""
    files = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    for p in files:
        if p.stat().st_size == 0:
            warn(f"rxb: warning: {p}: no records yet (a run that recorded no point); left out")
    return [p.stem for p in files if p.stat().st_size > 0]


def render(folder: str | Path, experiments: str | Path | None = None,
           out: str | Path | None = None, warn: Callable[[str], None] | None = None,
           baseline_html: str | None = None) -> Path:
    """Write the report of every DIR/ID.jsonl to `out` (default DIR/report.html) and return
    its path. `experiments`: a folder of ID.toml files (default: the catalogue); `warn`: where
    warnings go (default stderr); `baseline_html`: an HTML fragment (baseline.html) shown as
    "Compared with a baseline" near the top, trusted as it is.

    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> _ = rxbisect.sweep(grid={"arch.ax_size": [64, 128]}, out=out, jobs=2, progress=False,
    ...                    sets=["run.duration_ms=0.2", "run.warmup_ms=0.05"])
    >>> render(out).name
    'report.html'
    >>> render("/nonexistent")
    Traceback (most recent call last):
    ...
    rxbisect.errors.UsageError: /nonexistent: not a folder (expected a results folder with \
ID.jsonl files, e.g. from `rxb repro --out DIR`)
    """
    from markupsafe import Markup
    say = warn or (lambda m: print(m, file=sys.stderr))
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (expected a results folder with ID.jsonl "
                         "files, e.g. from `rxb repro --out DIR`)")
    ids = experiment_ids(folder, say)
    if not ids:
        raise UsageError(f"{folder}: no ID.jsonl result files; run `rxb repro ID --out "
                         f"{folder}` or `rxb sweep ... --out {folder}` first")
    exp_dir = Path(experiments) if experiments else EXPERIMENTS_DIR
    loaded = [load(folder, eid, exp_dir, say) for eid in order(ids)]
    path = Path(out) if out else folder / PAGE
    base = Path(os.path.relpath(folder.resolve(), path.resolve().parent)).as_posix()
    exps, figures = [], 1
    for number, exp in enumerate(loaded, 1):
        exps.append(context(exp, number, figures, folder, say, base))
        figures += len(exps[-1]["figures"])
    page = _env().get_template("report.html.j2").render(
        folder=str(folder), folder_name=folder.name, version=__version__, experiments=exps,
        confidence=f"{stats.CONFIDENCE * 100:g}",
        provenance=provenance([r for x in loaded for r in x.records]),
        baseline_html=Markup(baseline_html) if baseline_html is not None else None,
        anatomy_headers=anatomy.HEADERS)
    try:
        with records_file.replacing(path) as tmp:
            tmp.write_text(page, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {path} ({e.strerror or e})") from None
    return path
