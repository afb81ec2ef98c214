"""The reading of an experiment: sentences computed from its aggregated points.

    reading(points, spec) -> [sentence, ...]     (points: plot.aggregate; spec: [plot])

Per y metric: who is best and by how much, how each line moves along x, where lines cross,
and how far seeds spread. Nothing is canned: every name and number comes from the points.
Differences under TIE_PCT are treated as noise, not as a lead or a crossing, so a flat
comparison reads "within 1 %" instead of a list of meaningless winners.

Short on purpose: a series is named by its value ("rxbisect"; the figure's legend carries
the key, "arch.name=rxbisect"), and the x axis and the metric are named once per sentence,
not once per series. A value reads as plot.value_text writes it: its confidence interval in
brackets when seeds differ, "≥ X" when it is only a lower bound.
"""

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .plot import TIME_X, Point, check_spec, value_text

# Metrics where less is better; anything else (throughput, hit rates) is better higher.
LOWER_BETTER = ("latency", "drop", "cycles", "wait", "mem_bw", "working_set", "occupancy",
                "memory", "miss", "cores_needed", "spread")
TIE_PCT = 1.0  # closer than this: no lead, no crossing
SAME_PCT = 3.0  # a line "stays within" this many percent of its start
MAX_CROSSINGS = 3  # more than this for a pair: counted, not listed


def lower_is_better(metric: str) -> bool:
    return any(w in metric for w in LOWER_BETTER)


def split_label(label: str, lower: bool = True) -> tuple[str, str]:
    """("throughput", "Gbps") from "Throughput (Gbps)": the quantity, to go inside a
    sentence (lowercased unless `lower` is false or it starts with an acronym), and its unit
    (none when the bracket holds a number, as in "Shared mode (1)")."""
    m = re.match(r"\s*(.*?)\s*\(([^)]*)\)\s*$", label)
    name, unit = (m.group(1), m.group(2)) if m and not re.fullmatch(r"[\d.\s]+", m.group(2)) \
        else (label.strip(), "")
    if lower and not name[:2].isupper():
        name = name[:1].lower() + name[1:]
    return name, unit


def fmt(v: float, unit: str = "") -> str:
    """About three significant digits."""
    a = abs(v)
    text = f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.2f}" if a >= 0.1 \
        else f"{v:.3g}"
    return f"{text} {unit}".rstrip()


def _v(p: Point, unit: str = "") -> str:
    """A point's value with its interval or bound (plot.value_text) and unit."""
    return f"{value_text(p, fmt)} {unit}".rstrip()


def _p(pct: float) -> str:
    return f"{pct:.1f}" if pct < 10 else f"{pct:.0f}"


def _x(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def pct(a: float, b: float) -> float:
    """How much a differs from b, in % of |b| (inf when b is 0 and a is not)."""
    return 0.0 if a == b else math.inf if b == 0 else 100 * (a - b) / abs(b)


def _margin(w: Point, r: Point, unit: str) -> str:
    """The lead of w over r: in % unless r is 0, then in the metric's unit."""
    d = pct(w.mean, r.mean)
    return f"{_p(abs(d))} %" if math.isfinite(d) else \
        f"a difference of {fmt(abs(w.mean - r.mean), unit)}"


def _xs(xs: list) -> str:
    if len(xs) <= 4:
        return ", ".join(map(_x, xs))
    return f"{len(xs)} points from {_x(xs[0])} to {_x(xs[-1])}"


def _leaders(series: dict[str, dict], xs: list, label: str, unit: str, low: bool,
             xname: str) -> str | None:
    """Who is best at each x: the series within TIE_PCT of the best one lead together, over
    the rest (a design that ties others at line rate still leads one that does not)."""
    best = "lowest" if low else "highest"
    order = list(series)
    lead: dict[str, list] = {}  # leading series (", "-joined) -> x where they lead
    widest: tuple[float, Any, Point, Point] | None = None  # (margin %, x, best, best of the rest)
    compared = 0
    for x in xs:
        at = sorted((s[x] for s in series.values() if x in s), key=lambda p: p.mean,
                    reverse=not low)
        if len(at) < 2:
            continue
        compared += 1
        leaders = [p for p in at if abs(pct(p.mean, at[0].mean)) < TIE_PCT]
        if len(leaders) == len(at):
            continue
        rest = at[len(leaders)]
        m = abs(pct(at[0].mean, rest.mean))
        names = ", ".join(sorted((p.series for p in leaders), key=order.index))
        lead.setdefault(names, []).append(x)
        if widest is None or m > widest[0]:
            widest = (m, x, at[0], rest)
    if not compared:
        return None
    if widest is None:  # set with the first entry of `lead`: no x has a leader
        return f"All series are within {TIE_PCT:g} % of each other in {label} at every point."
    _, x, w, r = widest
    gap = (f"the widest gap is at {xname} {_x(x)}: {_v(w, unit)} vs "
           f"{_v(r, unit)} ({r.series}), {_margin(w, r, unit)}")
    if len(lead) == 1:
        name, where = next(iter(lead.items()))
        scope = "at every point" if len(where) == compared else \
            f"wherever the series differ by {TIE_PCT:g} % or more ({xname} {_xs(where)})"
        who = f"{name} has the {best} {label}" if ", " not in name else \
            f"{name} share the {best} {label} (within {TIE_PCT:g} % of each other)"
        return f"{who} {scope}; {gap}."
    parts = "; ".join(f"{s} at {_xs(where)}" for s, where in lead.items())
    return f"The {best} {label} changes hands along {xname}: {parts}; {gap}."


def _trend(name: str, pts: list[Point], unit: str, span: tuple) -> str:
    """How one series moves from its first x to its last (the span named only when it is
    not the common one)."""
    first, last = pts[0], pts[-1]
    own = "" if (first.x, last.x) == span else f" (from {_x(first.x)} to {_x(last.x)})"
    if all(abs(pct(p.mean, first.mean)) <= SAME_PCT for p in pts):
        return f"{name} stays within {SAME_PCT:g} % of {_v(first, unit)}{own}"
    if last.mean == first.mean:
        text = f"{name} is {_v(first, unit)} at both ends{own}"
    else:
        verb = "rises" if last.mean > first.mean else "falls"
        text = f"{name} {verb} from {_v(first)} to {_v(last, unit)}{own}"
    if len(pts) > 4:  # a long series: where the biggest step is tells more than the ends
        a, b = max(itertools.pairwise(pts), key=lambda ab: abs(ab[1].mean - ab[0].mean))
        text += (f", the largest step ({fmt(a.mean)} to {fmt(b.mean, unit)}) between "
                 f"{_x(a.x)} and {_x(b.x)}")
    return text


def _trends(series: dict[str, dict], label: str, unit: str, xname: str) -> str | None:
    """One sentence for every series of a metric: the x span said once."""
    lines = {s: [pp[x] for x in sorted(pp)] for s, pp in series.items() if len(pp) >= 2}
    if not lines:
        return None
    span = (min(p[0].x for p in lines.values()), max(p[-1].x for p in lines.values()))
    return (f"As {xname} goes from {_x(span[0])} to {_x(span[1])}, {label}: "
            + "; ".join(_trend(s, pts, unit, span) for s, pts in lines.items()) + ".")


def _crossings(series: dict[str, dict]) -> list[str]:
    out = []
    names = list(series)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            xs = sorted(x for x in series[a] if x in series[b])
            signs = []  # (x, sign) where the two differ by TIE_PCT or more
            for x in xs:
                pa, pb = series[a][x].mean, series[b][x].mean
                if abs(pct(pa, pb)) >= TIE_PCT:
                    signs.append((x, pa > pb))
            cross = [(x0, x1) for (x0, s0), (x1, s1) in itertools.pairwise(signs) if s0 != s1]
            if len(cross) > MAX_CROSSINGS:
                out.append(f"{a} and {b} {len(cross)} times")
            else:
                out += [f"{a} and {b} between {_x(x0)} and {_x(x1)}" for x0, x1 in cross]
    return out


def _spread(pts: Sequence[Point], label: str, xname: str) -> str | None:
    """The widest confidence interval relative to its trimmed mean, and where."""
    widths = [(100 * (p.hi - p.lo) / abs(p.mean), p) for p in pts if p.n > 1 and p.mean]
    if not widths:
        return None
    worst, p = max(widths, key=lambda t: t[0])
    return (f"Over seeds, the confidence interval of {label} spans at most {_p(worst)} % of "
            f"its trimmed mean ({p.series} at {xname} {_x(p.x)}, {p.n} seeds).")


_SPLIT_KEY = re.compile(r"(?:\w+\.)+(\w+)=")  # "workload.nf=lb" -> "nf=lb"


def short_series(points: Sequence[Point], spec: dict) -> list[Point]:
    """The points with their series named by value, and further keys by their last part
    ("privring, nf=lb"): the full keys are said once, in the figure's legend, not in every
    sentence."""
    prefix = f"{spec['series']}="
    return [replace(p, series=_SPLIT_KEY.sub(r"\1=", p.series.replace(prefix, "", 1)))
            for p in points]


def reading(points: Sequence[Point], spec: dict) -> list[str]:
    """Sentences about the aggregated points of one experiment (module doc)."""
    out = []
    spec = check_spec(spec)
    xname, _ = split_label(spec["xlabel"], lower=False)
    points = short_series(points, spec)
    for metric, ylabel in zip(spec["y"], spec["ylabels"], strict=True):
        label, unit = split_label(ylabel)
        pts = [p for p in points if p.metric == metric]
        if not pts:
            out.append(f"No record has a value for {metric}.")
            continue
        series: dict[str, dict] = {}
        for p in pts:
            series.setdefault(p.series, {})[p.x] = p
        xs = list(dict.fromkeys(p.x for p in pts))
        if spec["kind"] == "line" or spec["x"] == TIME_X:
            xs.sort()
        said = [_leaders(series, xs, label, unit, lower_is_better(metric), xname)]
        if spec["kind"] == "line":
            said.append(_trends(series, label, unit, xname))
            cross = _crossings(series)
            said.append(f"Crossings along {xname}: {'; '.join(cross)}." if cross else None)
        said.append(_spread(pts, label, xname))
        out += [s for s in said if s]
    return out
