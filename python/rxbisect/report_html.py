"""`rxb report DIR`: one self-contained HTML page for every experiment in DIR.

Inputs, per experiment ID: DIR/ID.jsonl (records, evaluation.md §4) and DIR/ID.svg or
DIR/ID.png. A missing figure is drawn again with plot.experiment from the `[plot]` table of
experiments/ID.toml (title and description are read from there too, when present). Without
a `[plot]` table a default one is derived from what varies in the records.

Per experiment the page shows the figure, the aggregated points (plot.aggregate: the very
numbers drawn), what varied and what was fixed, the hardware profile and calibration, the
seeds and their spread, where each packet's time goes (the stall anatomy of the records that
carry one, anatomy.py), and a reading generated from the aggregated points (reading.py: who
is best, by how much, where curves cross) — never canned text.

Self-contained means no external resource: figures are data: URIs of <img> elements (an
inline <svg> would share matplotlib's element ids with the other figures on the page), CSS
is inline. A small inline script marks the page when every figure has loaded and records
script errors in the DOM, so a headless browser's --dump-dom can check both.
"""

import base64
import html
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from . import __version__, anatomy, plot, profile
from .errors import RxbError, UsageError
from .experiments import DIR as EXPERIMENTS_DIR
from .reading import fmt, reading
from .schema import read_toml

PAGE = "report.html"


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

def read_records(path: Path) -> list[dict]:
    """The records of one ID.jsonl; a cut-off last line (an interrupted run) is ignored."""
    try:
        lines = path.read_text().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {path} ({getattr(e, 'strerror', None) or e})") from None
    out = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                break  # no newline after it: a half-written last record
            raise UsageError(f"{path} line {i + 1}: not a JSON record") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("metrics"), dict):
            raise UsageError(f"{path} line {i + 1}: not a result record (no \"metrics\" object)")
        out.append(rec)
    return out


def _params(records: Sequence[dict]) -> tuple[dict, dict]:
    """(fixed {key: value}, varied {key: [values]}) over the records' params, seed aside."""
    keys = list(dict.fromkeys(k for r in records for k in (r.get("params") or {})))
    fixed, varied = {}, {}
    for k in keys:
        if k == plot.SEED_KEY:
            continue
        vals = list(dict.fromkeys(json.dumps((r.get("params") or {}).get(k), sort_keys=True)
                                  for r in records))
        if len(vals) == 1:
            fixed[k] = json.loads(vals[0])
        else:
            varied[k] = [json.loads(v) for v in vals]
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
    experiments/ID.toml, else from DIR/ID.summary.json (the experiment file wins)."""
    records = read_records(folder / f"{eid}.jsonl")
    if not records:
        raise UsageError(f"{folder / (eid + '.jsonl')}: no records")
    toml_path = experiments / f"{eid}.toml"
    doc = {**read_summary(folder / f"{eid}.summary.json", warn), **(read_toml(toml_path, "experiment file") if toml_path.is_file() else {})}
    exp = Experiment(eid, records, {}, False, str(doc.get("title") or eid),
                     str(doc.get("description") or ""), variant=str(doc.get("variant") or ""))
    if "plot" in doc:
        try:
            exp.spec, exp.own_spec = plot.check_spec(doc["plot"]), True
        except UsageError as e:
            warn(f"rxb: warning: {eid}: {e}; using a default plot")
            exp.notes.append(f"The experiment's [plot] table is invalid ({e}); a default "
                             "plot is shown.")
    if not exp.own_spec:
        exp.spec = default_spec(records)
    exp.figure = next((p for p in (folder / f"{eid}.svg", folder / f"{eid}.png")
                       if p.is_file()), None)
    return exp


# ---- the page ----------------------------------------------------------------------------

def _e(v: Any) -> str:
    return html.escape(v if isinstance(v, str) else json.dumps(v), quote=True)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], cls: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _figure(exp: Experiment, folder: Path, warn: Callable[[str], None]) -> str:
    """The figure as an <img> with a data: URI; drawn now when DIR has none."""
    path = exp.figure
    with tempfile.TemporaryDirectory(prefix="rxb-report-") as tmp:
        if path is None:
            stem = folder / exp.id if exp.own_spec else Path(tmp) / exp.id
            try:
                path = plot.experiment(exp.records, exp.spec, stem)[1]
            except UsageError as e:
                if not exp.own_spec:
                    raise
                warn(f"rxb: warning: {e}; the figure is only in the report")
                path = plot.experiment(exp.records, exp.spec, Path(tmp) / exp.id)[1]
            exp.notes.append("Figure drawn by `rxb report` from "
                             + ("the experiment's [plot] table." if exp.own_spec else
                                "a default plot (no [plot] table for this experiment)."))
        data = path.read_bytes()
    mime = "image/svg+xml" if path.suffix == ".svg" else "image/png"
    uri = f"data:{mime};base64,{base64.b64encode(data).decode()}"
    return (f'<figure><img class="figure" alt="{_e(exp.title)}" src="{uri}">'
            f"<figcaption>{_e(path.name)}</figcaption></figure>")


def _points(points: Sequence[plot.Point], spec: dict) -> str:
    rows = [(p.series, _value(p.x), p.metric, fmt(p.mean), fmt(p.lo), fmt(p.hi), p.n)
            for p in points]
    return _table(("series", spec["x"], "metric", "trimmed mean", "min", "max", "seeds"), rows,
                  "num")


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def _hardware(records: Sequence[dict]) -> str:
    """The profile(s) and calibration(s) the records were simulated with."""
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
    return (_table(("hardware profile", "what it is"), rows) +
            (_table(("calibration machine", "date", "origin"), cal_rows) if cal_rows else
             "<p>The records name no calibration (the engine's built-in one).</p>"))


def _seed(record: dict) -> Any:
    """A record's seed: its own field, else its params'."""
    return record.get("seed", (record.get("params") or {}).get(plot.SEED_KEY))


def _seeds(records: Sequence[dict], points: Sequence[plot.Point]) -> str:
    seeds = sorted({_seed(r) for r in records}, key=str)
    wall = sum(float(r.get("sim_wall_s") or 0) for r in records)
    ns = sorted({p.n for p in points})
    how = "trimmed mean (min and max dropped)" if ns and ns[-1] >= 3 else "mean"
    return (f"<p>{len(records)} records; seeds {_e(', '.join(map(str, seeds)))}; "
            f"{'/'.join(map(str, ns))} per point; centre = {how}, error bars = min..max. "
            f"Simulation wall time {wall:.1f} s in all.</p>")


def _anatomy(records: Sequence[dict]) -> str:
    """"Where each packet's time goes": per record with `metrics.anatomy`, the tables of
    `rxb sim --explain` (one per core class), each record folded under its label (design,
    varied parameters, seed); the only one is shown open. Empty when no record has one."""
    have = [r for r in records if anatomy.of(r.get("metrics"))]
    if not have:
        return ""
    _, varied = _params(records)
    out = []
    for r in have:
        params = r.get("params") or {}
        label = ", ".join([str(r.get("arch") or params.get(plot.DEFAULT_SERIES))]
                          + [f"{k}={_value(params.get(k))}" for k in varied
                             if k != plot.DEFAULT_SERIES]
                          + [f"seed {_seed(r)}"])
        anat = anatomy.of(r["metrics"])
        body = "".join(f"<p>{_e(anatomy.header(c, anat[c]))}</p>"
                       + _table(anatomy.HEADERS, anatomy.rows(anat[c]), "num")
                       for c in anatomy.classes(anat) if isinstance(anat[c], dict))
        body += "".join(f'<p class="note">{_e(p)}</p>'
                        for p in anatomy.check_anatomy(r["metrics"]))
        out.append(f"<details{' open' if len(have) == 1 else ''}><summary>{_e(label)}"
                   f"</summary>{body}</details>")
    return ("<h3>Where each packet's time goes</h3><p>Mean busy time per packet, per core "
            "class, split into the components a packet meets (the per-packet stall anatomy, "
            f"docs/simulator.md); {len(have)} of {len(records)} records carry one.</p>"
            + "".join(out))


def section(exp: Experiment, folder: Path, warn: Callable[[str], None]) -> str:
    points = plot.aggregate(exp.records, exp.spec)
    fixed, varied = _params(exp.records)
    figure = _figure(exp, folder, warn)
    text = "".join(f"<li>{_e(s)}</li>" for s in reading(points, exp.spec))
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in exp.notes)
    variant = f" ({exp.variant} variant)" if exp.variant else ""
    return (f'<section id="{_e(exp.id)}"><h2>{_e(exp.title)} <code>{_e(exp.id)}'
            f'{_e(variant)}</code></h2>'
            + (f"<p>{_e(exp.description)}</p>" if exp.description else "")
            + f'<h3>Reading</h3><ul class="reading">{text}</ul>{figure}{notes}'
            + "<h3>Parameters</h3>"
            + _table(("varied", "values"), [(k, ", ".join(map(_value, v)))
                                            for k, v in varied.items()])
            + _table(("fixed", "value"), [(k, _value(v)) for k, v in fixed.items()])
            + "<h3>Hardware and calibration</h3>" + _hardware(exp.records)
            + "<h3>Seeds and spread</h3>" + _seeds(exp.records, points)
            + "<h3>Aggregated points</h3>"
            # a long table (time series) folds away; it is still in the page, one click off
            + (f"<details><summary>{len(points)} points</summary>{_points(points, exp.spec)}"
               "</details>" if len(points) > 40 else _points(points, exp.spec))
            + _anatomy(exp.records)
            + "</section>")


# The page checks itself: once loaded, body[data-figures] says "ok N" or which figures
# broke, and script errors land in #script-errors (for a headless --dump-dom, docs/report.md).
_SCRIPT = """
var errs = [];
window.onerror = function (msg, src, line) {
  errs.push(msg + " (line " + line + ")");
  document.getElementById("script-errors").textContent = errs.join("\\n");
  document.body.setAttribute("data-script-errors", String(errs.length));
};
window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("img.figure"), bad = [];
  for (var i = 0; i < imgs.length; i++)
    if (!(imgs[i].complete && imgs[i].naturalWidth > 0)) bad.push(imgs[i].alt);
  document.body.setAttribute("data-figures",
    bad.length ? "broken: " + bad.join("; ") : "ok " + imgs.length);
});
"""
_CSS = """
body { font: 15px/1.45 Georgia, serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #111; }
h1 { font-size: 1.6em; } h2 { border-top: 1px solid #ccc; padding-top: 1em; }
code { font-size: 0.85em; color: #555; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border-bottom: 1px solid #ddd; padding: 2px 8px; text-align: left;
         vertical-align: top; }
table.num td { text-align: right; } table.num td:first-child { text-align: left; }
img.figure { max-width: 100%; } figcaption { font-size: 0.8em; color: #666; }
.note { color: #8a5a00; font-size: 0.9em; } #script-errors { color: #b00; }
"""


def experiment_ids(folder: Path) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.jsonl") if p.is_file())


def render(folder: str | Path, experiments: str | Path | None = None,
           out: str | Path | None = None, warn: Callable[[str], None] | None = None) -> Path:
    """Write the report of every DIR/ID.jsonl to `out` (default DIR/report.html)."""
    say = warn or (lambda m: print(m, file=sys.stderr))
    folder = Path(folder)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (expected a results folder with ID.jsonl "
                         "files, e.g. from `rxb repro --out DIR`)")
    ids = experiment_ids(folder)
    if not ids:
        raise UsageError(f"{folder}: no ID.jsonl result files; run `rxb repro ID --out "
                         f"{folder}` or `rxb sweep ... --out {folder}` first")
    exp_dir = Path(experiments) if experiments else EXPERIMENTS_DIR
    exps = [load(folder, i, exp_dir, say) for i in ids]
    sections = "".join(section(x, folder, say) for x in exps)
    toc = "".join(f'<li><a href="#{_e(x.id)}">{_e(x.title)}</a> ({len(x.records)} records)</li>'
                  for x in exps)
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>rxbisect report: {_e(folder.name)}</title><style>{_CSS}</style>"
            f"<script>{_SCRIPT}</script></head><body>"
            f"<h1>rxbisect report: {_e(str(folder))}</h1>"
            f"<p>{len(exps)} experiments, generated by rxb {__version__} from the records in "
            f"this folder. Readings are computed from the aggregated points.</p>"
            f"<ul>{toc}</ul>{sections}<pre id=\"script-errors\"></pre></body></html>\n")
    path = Path(out) if out else folder / PAGE
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {path} ({e.strerror or e})") from None
    return path
