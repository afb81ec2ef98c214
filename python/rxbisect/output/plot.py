"""Experiment figures in the style of a systems paper, and the aggregation behind them.

    experiment(records, plot_spec, stem) -> [stem.png, stem.svg]
    aggregate(records, plot_spec)        -> [Point(series, emulated, x, metric, mean, lo, hi, n)]

`plot_spec` is the `[plot]` table of an experiment file (docs/report.md):

    kind    "line" (numeric x) | "bar" (categorical x)
    x       a params key of the records ("arch.rx_size"), or "time_ms" for time series
    y       metric names, one panel each; nested ones dotted ("drops_by_cause.no_ax_buf")
    xlabel, ylabels (one per y), xscale ("linear" | "log2"), series (default "arch.name"),
    title (optional)

One source of truth: the report's tables and its generated reading use `aggregate`, so a
number in a table is exactly the point drawn.

Aggregation over seeds follows the study: the centre is the trimmed mean (the minimum and
the maximum dropped when there are at least 3 seeds), the error bar is its bootstrap
confidence interval (stats.estimate). A series is labelled with its key and value
("arch.name=rxbisect"), so a reader of the figure knows which scenario key it is.
Records with `params["arch.emulated"]` true form their own series ("<label> (emulated)"),
drawn dashed (lines) or hatched (bars) in the colour of the native series. Parameters that
vary within one (series, x) group other than the seed (e.g. workload.nf in an experiment
that sweeps two NFs) are added to the series label ("arch.name=privring, workload.nf=nat"),
so different settings are never averaged together. Parameters are every key of a record's
resolved scenario (`settings`), not only the ones its params echo. A value that is only a lower bound (an
NDR search that passed at the top of its range, ndr.lower_bounds) marks its point
`at_least`: it is read "≥ X".

Figures: `experiment` writes every panel side by side (the paper's layout, ID.png/.svg);
`panel_svgs` gives one figure per panel, sized to be read at page width, each point with an
SVG <title> holding its value (a browser shows it on hover).

Time series (x = "time_ms"): the engine writes `metrics["series"]`, a list of samples
`{"t_ms": ..., "<metric>": ...}`; also accepted are `metrics[y]` as a list of values with a
`metrics["time_ms"]` (or `"t_ms"`) list of the same length, or a list of [t, value] pairs.
"""

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..study import ndr
from . import records as records_file
from . import stats

if TYPE_CHECKING:  # matplotlib loads on the first plot, not with the package
    from matplotlib.typing import RcKeyType

KINDS = ("line", "bar")
XSCALES = ("linear", "log2")
TIME_X = "time_ms"
SEED_KEY = "run.seed"
EMULATED_KEY = "arch.emulated"
DEFAULT_SERIES = "arch.name"
EMULATED_SUFFIX = " (emulated)"
_FIELDS = ("kind", "x", "y", "xlabel", "ylabels", "xscale", "series", "title")

# Fixed colour and marker per design, so one design looks the same in every figure.
# Okabe-Ito colours (colour-blind safe) ordered by lightness, plus a distinct marker per
# series, so the figures stay readable printed in grayscale.
_STYLE = {
    "privring": ("#000000", "o"), "small_privring": ("#0072B2", "s"),
    "shring": ("#D55E00", "^"), "shring_list": ("#CC79A7", "v"),
    "rxbisect": ("#009E73", "D"), "dyn_shring": ("#E69F00", "P"),
    "spool": ("#56B4E9", "X"),
}
# Series that are not designs (e.g. series = "workload.nf") take the unused styles in order.
_SPARE = list(_STYLE.values()) + [("#555555", "*"), ("#999999", "h")]
_BAR_FILLS = ("", "..", "xx", "\\\\", "oo", "--")  # per series, for grayscale bars
_EMU_HATCH = "///"


@dataclass(frozen=True)
class Point:
    """One aggregated point: a series at one x for one metric, over its seeds."""

    series: str  # label, "(emulated)" included
    emulated: bool
    x: Any
    metric: str
    mean: float  # trimmed mean over seeds
    lo: float  # bootstrap confidence interval of the trimmed mean (stats.estimate)
    hi: float
    n: int  # seeds (records with a value)
    at_least: bool = False  # a lower bound: some seed's value hit the top of its range

    def to_dict(self) -> dict:
        return asdict(self)


# ---- the spec --------------------------------------------------------------------------

def _err(field: str, value: Any, allowed: str) -> UsageError:
    return UsageError(f"[plot] {field} = {value!r}: {allowed}")


def check_spec(spec: Any) -> dict:
    """The `[plot]` table validated and with defaults filled in; UsageError names the field."""
    if not isinstance(spec, dict):
        raise UsageError(f"[plot]: expected a table, got {type(spec).__name__}")
    extra = sorted(set(spec) - set(_FIELDS))
    if extra:
        raise UsageError(f"[plot] {extra[0]}: unknown field; allowed: {', '.join(_FIELDS)}")
    for f in ("kind", "x", "y"):
        if f not in spec:
            raise UsageError(f"[plot] {f}: missing; it is required")
    s = {"xlabel": spec.get("x"), "xscale": "linear", "series": DEFAULT_SERIES, "title": None,
         **spec}
    if s["kind"] not in KINDS:
        raise _err("kind", s["kind"], "allowed: " + ", ".join(KINDS))
    for f in ("x", "series", "xlabel"):
        if not isinstance(s[f], str) or not s[f]:
            raise _err(f, s[f], "must be a non-empty string")
    if s["title"] is not None and not isinstance(s["title"], str):
        raise _err("title", s["title"], "must be a string")
    y = [s["y"]] if isinstance(s["y"], str) else s["y"]
    if not isinstance(y, list) or not y or not all(isinstance(v, str) and v for v in y):
        raise _err("y", s["y"], "must be a metric name or a non-empty list of them")
    s["y"] = y
    labels = s.get("ylabels", y)
    labels = [labels] if isinstance(labels, str) else labels
    if not isinstance(labels, list) or len(labels) != len(y) \
            or not all(isinstance(v, str) for v in labels):
        raise _err("ylabels", s.get("ylabels"), f"must be a list of {len(y)} strings, one per y")
    s["ylabels"] = labels
    if s["xscale"] not in XSCALES:
        raise _err("xscale", s["xscale"], "allowed: " + ", ".join(XSCALES))
    if s["kind"] == "bar" and s["x"] == TIME_X:
        raise _err("x", TIME_X, "a time series needs kind = \"line\"")
    return s


# ---- reading records ---------------------------------------------------------------------

def metric(metrics: dict, name: str) -> Any:
    """metrics["a"]["b"] for "a.b"; a top-level key containing dots wins; None if absent."""
    if name in metrics:
        return metrics[name]
    cur: Any = metrics
    for part in name.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def _samples(metrics: dict, name: str) -> list[tuple[float, float]]:
    """(t_ms, value) pairs of a time series metric, in any accepted shape (module doc)."""
    series = metrics.get("series")
    if isinstance(series, list) and series and isinstance(series[0], dict):
        out = []
        for s in series:
            t = _number(s.get("t_ms", s.get("time_ms")))
            v = _number(metric(s, name))
            if t is not None and v is not None:
                out.append((t, v))
        if out:
            return out
    values = metric(metrics, name)
    if not isinstance(values, list):
        return []
    if all(isinstance(p, (list, tuple)) and len(p) == 2 for p in values):
        pairs = values
    else:
        times = metrics.get("time_ms", metrics.get("t_ms"))
        if not isinstance(times, list) or len(times) != len(values):
            return []
        pairs = list(zip(times, values, strict=True))
    return [(t, v) for t, v in ((_number(a), _number(b)) for a, b in pairs)
            if t is not None and v is not None]


def _label(value: Any) -> str:
    return value if isinstance(value, str) else ("true" if value is True else
                                                  "false" if value is False else f"{value:g}"
                                                  if isinstance(value, float) else str(value))


def settings(record: dict) -> dict[str, Any]:
    """Every setting of a record, "section.key": value: its params, then each key of its
    resolved scenario (`config`) they leave out (a sweep's params echo only the main keys and
    the grid's: two sweeps on one folder with other --set values differ only in `config`)."""
    out = dict(record.get("params") or {})
    for section, keys in (record.get("config") or {}).items():
        if isinstance(keys, dict):
            for k, v in keys.items():
                out.setdefault(f"{section}.{k}", v)
    return out


def searched(record: dict) -> str | None:
    """The key a record's NDR search moved: each seed's search stops at a value of its own,
    so it does not tell scenarios apart."""
    search = record.get("search")
    return str(search.get("key", ndr.FIELDS["key"])) if isinstance(search, dict) else None


def _split_keys(records: Sequence[dict], spec: dict) -> list[str]:
    """Settings besides x, series, emulated, seed and a search's key that vary inside one
    (series, x) group."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        p = settings(r)
        key = (_label(p.get(spec["series"])), bool(p.get(EMULATED_KEY)),
               _label(p.get(spec["x"])) if spec["x"] != TIME_X else None)
        groups.setdefault(key, []).append(p)
    skip = {spec["x"], spec["series"], EMULATED_KEY, SEED_KEY, *map(searched, records)}
    keys = sorted({k for p in itertools.chain(*groups.values()) for k in p} - skip)
    return [k for k in keys
            if any(len({repr(p.get(k)) for p in g}) > 1 for g in groups.values())]


def _series_of(params: dict, spec: dict, split: list[str]) -> tuple[str, bool]:
    """The series label: key=value of the series key, then of every split key."""
    emulated = bool(params.get(EMULATED_KEY))
    parts = [f"{k}={_label(params.get(k, '?'))}" for k in [spec["series"], *split]
             if k == spec["series"] or params.get(k) is not None]
    return ", ".join(parts) + (EMULATED_SUFFIX if emulated else ""), emulated


def series_value(label: str) -> str:
    """The series key's value in a label: "rxbisect" from "arch.name=rxbisect, ..."."""
    return label.removesuffix(EMULATED_SUFFIX).split(", ")[0].split("=", 1)[-1]


def _x_value(params: dict, spec: dict) -> Any:
    if spec["x"] not in params:
        raise UsageError(f"[plot] x = {spec['x']!r}: not a params key of the records; "
                         f"they have: {', '.join(sorted(params)) or 'none'}")
    v = params[spec["x"]]
    if spec["kind"] == "line" and _number(v) is None:
        raise UsageError(f"[plot] x = {spec['x']!r}: kind = \"line\" needs numeric x values, "
                         f"a record has {v!r}; use kind = \"bar\"")
    return v


def aggregate(records: Iterable[dict], plot_spec: dict) -> list[Point]:
    """The points of the figure: per series, x and y metric, over seeds (module doc).
    Order: y metrics as in the spec, series in order of first appearance, x sorted
    (numeric) or in order of first appearance (categorical)."""
    spec = check_spec(plot_spec)
    recs = [r for r in records if isinstance(r, dict)]
    if not recs:
        raise UsageError("no records to plot")
    split = _split_keys(recs, spec)
    values: dict[tuple, list[float]] = {}  # (metric, series, emulated, x) -> values
    bounded: set[tuple] = set()  # keys with a value that is only a lower bound
    for r in recs:
        params, metrics = settings(r), r.get("metrics") or {}
        series, emu = _series_of(params, spec, split)
        lower = ndr.lower_bounds(r)
        for y in spec["y"]:
            if spec["x"] == TIME_X:
                pairs = _samples(metrics, y)
            else:
                v = _number(metric(metrics, y))
                pairs = [] if v is None else [(_x_value(params, spec), v)]
            for x, v in pairs:
                values.setdefault((y, series, emu, x), []).append(v)
                if y in lower:
                    bounded.add((y, series, emu, x))
    numeric = all(_number(k[3]) is not None for k in values)
    order = {y: i for i, y in enumerate(spec["y"])}
    first_series = {k[1]: i for i, k in reversed(list(enumerate(values)))}
    first_x = {k[3]: i for i, k in reversed(list(enumerate(values)))}
    keys = sorted(values, key=lambda k: (order[k[0]], first_series[k[1]],
                                         k[3] if numeric else first_x[k[3]]))
    return [_point(k, stats.estimate(values[k]), k in bounded) for k in keys]


def _point(key: tuple[str, str, bool, Any], est: stats.Estimate, at_least: bool) -> Point:
    y, series, emulated, x = key
    return Point(series, emulated, x, y, est.mean, est.lo, est.hi, est.n, at_least)


# ---- drawing -----------------------------------------------------------------------------

def _styles(points: Sequence[Point]) -> dict[str, tuple[str, str, int]]:
    """series label -> (colour, marker, index); an emulated series shares its native twin's.
    A design keeps its own style; other series take the styles no design here uses."""
    out: dict[str, tuple[str, str, int]] = {}
    bases: dict[str, tuple[str, str, int]] = {}
    names = {series_value(p.series) for p in points}
    # more series than styles: they repeat (never empty: _SPARE has styles no design owns)
    spare = itertools.cycle([s for s in _SPARE if s not in {_STYLE.get(n) for n in names}])
    for p in points:
        if p.series in out:
            continue
        base = p.series.removesuffix(EMULATED_SUFFIX)
        if base not in bases:
            name = series_value(base)
            colour, marker = _STYLE[name] if name in _STYLE and not any(
                series_value(b) == name for b in bases) else next(spare)
            bases[base] = (colour, marker, len(bases))
        out[p.series] = bases[base]
    return out


def _tick(v: Any) -> str:
    f = _number(v)
    return f"{f:g}" if f is not None else str(v)


def value_text(p: Point, fmt: Callable[[float], str] = lambda v: f"{v:.3g}") -> str:
    """A point's value as the report writes it: "≥ X" for a lower bound, the interval in
    brackets when seeds differ ("110 [104, 118]")."""
    if p.at_least:
        return f"≥ {fmt(p.mean)}"
    return fmt(p.mean) + (f" [{fmt(p.lo)}, {fmt(p.hi)}]" if p.lo != p.hi else "")


# Hover values: each point's artist gets an id (gid), and after saving, a <title> with the
# point's value is put inside the element of that id. Long series (time) get none: a title
# per sample would be one artist per sample (slow) for values nobody hovers over.
HOVER_MAX = 40
_GID = "rxbpt-"


def _hover(p: Point, spec: dict) -> str:
    return f"{p.series}; {spec['xlabel']} = {_tick(p.x)}: {value_text(p)} (n = {p.n})"


def _error(pts: Sequence[Point]) -> list[list[float]] | None:
    """Error bars (the confidence interval), or None when no point has one; clamped at 0:
    the mean can round a last bit past an interval bound equal to it."""
    if not any(p.lo != p.hi for p in pts):
        return None
    return [[max(0.0, p.mean - p.lo) for p in pts], [max(0.0, p.hi - p.mean) for p in pts]]


def _draw_line(ax, pts: list[Point], style: tuple[str, str, int], spec: dict,
               titles: dict[str, str]) -> None:
    colour, marker, idx = style
    xs = [float(p.x) for p in pts]
    ys = [p.mean for p in pts]
    # a long series (time): a marker every tenth point, shifted per series so overlapping
    # lines still show each one's markers (and stay apart in grayscale)
    every = max(1, len(pts) // 10)
    ax.errorbar(xs, ys, yerr=_error(pts), color=colour,
                marker=marker, markevery=(idx * max(1, every // 3) % every, every),
                markersize=4, linewidth=1.3, capsize=2,
                elinewidth=0.8, linestyle="--" if pts[0].emulated else "-",
                markerfacecolor="white" if pts[0].emulated else colour, label=pts[0].series)
    if len(pts) <= HOVER_MAX:
        for p, x in zip(pts, xs, strict=True):  # an invisible, larger marker: the hover target
            gid = f"{_GID}{len(titles)}"
            titles[gid] = _hover(p, spec)
            ax.plot([x], [p.mean], linestyle="", marker="o", markersize=9, alpha=0, gid=gid)


def _draw_bars(ax, points: list[Point], series: list[str], styles: dict, spec: dict,
               titles: dict[str, str]) -> None:
    cats = list(dict.fromkeys(p.x for p in points))
    width = 0.8 / max(1, len(series))
    for j, s in enumerate(series):
        colour, _, idx = styles[s]
        pts = {p.x: p for p in points if p.series == s}
        xs = [i - 0.4 + width * (j + 0.5) for i, c in enumerate(cats) if c in pts]
        ps = [pts[c] for c in cats if c in pts]
        emulated = ps[0].emulated
        bars = ax.bar(xs, [p.mean for p in ps], width, color="white" if emulated else colour,
                      edgecolor=colour if emulated else "black", linewidth=0.6,
                      hatch=_EMU_HATCH if emulated else _BAR_FILLS[idx % len(_BAR_FILLS)],
                      label=s, yerr=_error(ps),
                      error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#333333"})
        for bar, p in zip(bars, ps, strict=True):
            gid = f"{_GID}{len(titles)}"
            titles[gid] = _hover(p, spec)
            bar.set_gid(gid)
    ax.set_xticks(range(len(cats)), [_tick(c) for c in cats])


def _panel(ax, points: list[Point], spec: dict, styles: dict, ylabel: str,
           titles: dict[str, str]) -> None:
    series = list(dict.fromkeys(p.series for p in points))
    if spec["kind"] == "line":
        for s in series:
            _draw_line(ax, [p for p in points if p.series == s], styles[s], spec, titles)
        if spec["xscale"] == "log2":
            ax.set_xscale("log", base=2)
        if spec["x"] != TIME_X:
            xs = sorted({float(p.x) for p in points})
            if len(xs) <= 12:
                ax.set_xticks(xs, [_tick(x) for x in xs])
                ax.minorticks_off()
    else:
        _draw_bars(ax, points, series, styles, spec, titles)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=min(0.0, min((p.lo for p in points), default=0.0)))
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


_RC: "dict[RcKeyType, Any]" = {
    "font.family": "serif", "font.size": 8, "axes.titlesize": 9, "axes.labelsize": 8,
    "legend.fontsize": 7, "xtick.labelsize": 7, "ytick.labelsize": 7, "hatch.linewidth": 0.5,
    "svg.hashsalt": "rxbisect", "svg.fonttype": "none"}
PANEL_WIDTH_IN = 3.2  # per panel side by side (experiment)
PAGE_WIDTH_IN = 8.0  # one panel alone (panel_svgs): at a page's width, 7 pt text reads at ~12 px


def _legend_cols(series: int) -> int:
    return min(series, max(4, math.ceil(series / 8)))  # a legend of many series goes wide


def _figure(points: list[Point], spec: dict, metrics: Sequence[tuple[str, str]],
            width_in: float, titles: dict[str, str]):
    """A Figure with one panel per (metric, ylabel), side by side, and one legend on top."""
    from matplotlib.figure import Figure  # no pyplot: no global backend state, Agg canvas

    styles = _styles(points)
    series = len({p.series for p in points if p.metric in dict(metrics)})
    cols = _legend_cols(series)
    # the figure grows to hold the legend's rows above the panels
    fig = Figure(figsize=(max(width_in, 1.6 * cols), 2.7 + 0.18 * math.ceil(series / cols)),
                 layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    for ax, (y, label) in zip(axes, metrics, strict=True):
        pts = [p for p in points if p.metric == y]
        if pts:
            _panel(ax, pts, spec, styles, label, titles)
        else:
            ax.text(0.5, 0.5, f"no data for {y}", ha="center", va="center",
                    transform=ax.transAxes)
            ax.set_axis_off()
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    # The title heads the legend: a separate suptitle collides with an outside legend.
    fig.legend(handles, labels, loc="outside upper center", ncols=cols,
               frameon=False, title=spec["title"], columnspacing=1.5)
    return fig


def _svg_text(fig, titles: dict[str, str]) -> str:
    """The figure as SVG text, each hover target's element given its <title>."""
    import io
    from xml.sax.saxutils import escape

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    for gid, title in titles.items():
        text = text.replace(f'<g id="{gid}">', f'<g id="{gid}"><title>{escape(title)}</title>',
                            1)
    return text


def unplotted(records: Sequence[dict], plot_spec: dict) -> list[str]:
    """The y metrics of the spec that no record has a value for (a misspelt name), in order:
    their panels would be empty."""
    spec = check_spec(plot_spec)
    have = {p.metric for p in aggregate(records, spec)}
    return [y for y in spec["y"] if y not in have]


def _points(records: Sequence[dict], plot_spec: dict) -> tuple[dict, list[Point]]:
    spec = check_spec(plot_spec)
    points = aggregate(records, spec)
    if not points:
        raise UsageError(f"no record has a value for {', '.join(spec['y'])}: nothing to plot")
    return spec, points


def experiment(records: Sequence[dict], plot_spec: dict, stem: str | Path) -> list[Path]:
    """Write stem.png and stem.svg: one panel per y metric side by side, one line or bar
    group per series, error bars the confidence interval, a shared legend. Returns both
    paths."""
    from matplotlib import rc_context

    spec, points = _points(records, plot_spec)
    stem = Path(stem)
    titles: dict[str, str] = {}
    with rc_context(_RC):
        fig = _figure(points, spec, list(zip(spec["y"], spec["ylabels"], strict=True)),
                      PANEL_WIDTH_IN * len(spec["y"]), titles)
        paths = [stem.parent / f"{stem.name}.png", stem.parent / f"{stem.name}.svg"]
        try:
            stem.parent.mkdir(parents=True, exist_ok=True)
            with records_file.replacing(paths[0]) as tmp:
                fig.savefig(tmp, dpi=200, bbox_inches="tight", format="png")
            with records_file.replacing(paths[1]) as tmp:
                tmp.write_text(_svg_text(fig, titles), encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write {stem}.png/.svg ({e.strerror or e})") from None
    return paths


def panel_svgs(records: Sequence[dict], plot_spec: dict) -> list[tuple[str, str]]:
    """One figure per y metric, PAGE_WIDTH_IN wide, as (metric, SVG text), in the spec's
    order: what a page shows at its full width, with hover values."""
    from matplotlib import rc_context

    spec, points = _points(records, plot_spec)
    out = []
    with rc_context(_RC):
        for y, label in zip(spec["y"], spec["ylabels"], strict=True):
            titles: dict[str, str] = {}
            fig = _figure(points, spec, [(y, label)], PAGE_WIDTH_IN, titles)
            out.append((y, _svg_text(fig, titles)))
    return out
