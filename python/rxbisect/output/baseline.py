"""Two result folders side by side: the regression view before merging a simulator change
(`rxb compare-runs DIR BASE`, `rxb report DIR --baseline BASE`; docs/regressions.md).

    compare(folder, base, experiments=None) -> Comparison
    text(comparison, every=False) -> str      the terminal table
    html(comparison) -> str                   a fragment for html_report.render

For each experiment both folders hold, the figure's points (its [plot] table: series, x and
y metrics, read from DIR as `rxb report` reads them) are estimated on each side from the
records' seeds (stats.estimate: trimmed mean and bootstrap interval). A point is flagged
when the two estimates differ beyond the seed spread (stats.differ). Points, and whole
experiments, present on one side only are listed, never dropped.

The seeds of a point are found by aggregating each seed's records on their own with
plot.aggregate, so a point's series label and x are exactly the figure's.
"""
from __future__ import annotations

import html as html_lib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..study.experiments import DIR as EXPERIMENTS_DIR
from . import html_report, plot, records, stats, text_report

NEW, BASE = "DIR", "baseline"  # the two sides, as the views name them
PROVENANCE = ("commit", "dirty", "engine_build")  # what a side's header shows


@dataclass(frozen=True)
class Row:
    """One point of one experiment: its estimate on each side (None where it is absent)."""
    experiment: str
    series: str
    x: Any
    metric: str
    new: stats.Estimate | None
    base: stats.Estimate | None

    @property
    def relative(self) -> float | None:
        """(DIR - baseline) / |baseline|; None when either side is absent or the baseline is
        0 and DIR is not (no finite ratio)."""
        if self.new is None or self.base is None:
            return None
        if self.base.mean == 0:
            return 0.0 if self.new.mean == 0 else None
        return (self.new.mean - self.base.mean) / abs(self.base.mean)

    @property
    def one_sided(self) -> bool:
        return self.new is None or self.base is None

    @property
    def flagged(self) -> bool:
        return self.new is not None and self.base is not None \
            and stats.differ(self.new, self.base)


@dataclass
class Side:
    folder: Path
    experiments: list[str]
    provenance: list[str]  # one line per distinct (commit, dirty, engine build) of its records
    profiles: list[str]  # the hardware profiles its records ran on, by name


@dataclass
class Comparison:
    new: Side
    base: Side
    rows: list[Row]
    settings: list[str] = field(default_factory=list)  # setting_mismatch's line per experiment

    @property
    def flagged(self) -> list[Row]:
        return [r for r in self.rows if r.flagged]

    @property
    def one_sided(self) -> list[Row]:
        return [r for r in self.rows if r.one_sided]

    def profile_mismatch(self) -> str | None:
        """A line saying the two sides ran on other machines, whose differences are then the
        machines' and no regression; None when they ran on the same."""
        if set(self.new.profiles) == set(self.base.profiles):
            return None
        return (f"warning: the sides ran on other hardware profiles ({NEW}: "
                f"{', '.join(self.new.profiles)}; {BASE}: {', '.join(self.base.profiles)}): "
                "their differences include the machines'")

    def only_in(self, side: str) -> list[str]:
        """Experiments of one side (NEW or BASE) that the other side lacks."""
        mine, other = (self.new, self.base) if side == NEW else (self.base, self.new)
        return [e for e in mine.experiments if e not in other.experiments]


# ---- comparing ---------------------------------------------------------------------------

def _ids(folder: str | Path, what: str, warn: Callable[[str], None]) -> list[str]:
    """The experiment ids of a results folder; UsageError when it is not one."""
    path = Path(folder)
    if not path.is_dir():
        raise UsageError(f"{what} {folder}: not a folder; expected a results folder with "
                         "ID.jsonl files (from `rxb repro --out DIR` or `make run`)")
    ids = html_report.experiment_ids(path, warn)
    if not ids:
        raise UsageError(f"{what} {folder}: no ID.jsonl result files in it; expected a "
                         "results folder from `rxb repro --out DIR` or `make run`")
    return ids


def seed_values(records: Sequence[dict], spec: dict) -> dict[tuple, tuple[Any, list[float]]]:
    """(series, x as a key, metric) -> (x, one value per seed), for the figure's points."""
    by_seed: dict[str, list[dict]] = {}
    for r in records:
        seed = (r.get("params") or {}).get(plot.SEED_KEY)
        by_seed.setdefault(json.dumps(seed), []).append(r)
    out: dict[tuple, tuple[Any, list[float]]] = {}
    for recs in by_seed.values():
        for p in plot.aggregate(recs, spec):
            out.setdefault((p.series, _key(p.x), p.metric), (p.x, []))[1].append(p.mean)
    return out


def _key(x: Any) -> str:
    """x as a dictionary key that keeps 64 and 64.0 together (JSON text of a float)."""
    return json.dumps(float(x) if isinstance(x, int) and not isinstance(x, bool) else x)


def _estimate_of(values: tuple[Any, list[float]] | None) -> stats.Estimate | None:
    return None if values is None else stats.estimate(values[1])


def _rows(eid: str, new: dict[tuple, tuple[Any, list[float]]],
          base: dict[tuple, tuple[Any, list[float]]]) -> list[Row]:
    """One row per point of either side, DIR's order first, then the baseline's own."""
    rows = []
    for key in dict.fromkeys([*new, *base]):
        series, _, metric = key
        x = (new.get(key) or base[key])[0]
        rows.append(Row(eid, series, x, metric, _estimate_of(new.get(key)),
                        _estimate_of(base.get(key))))
    return rows


def provenance(records: Sequence[dict]) -> list[str]:
    """The distinct builds records were made with, one line each ("commit abc1234 (dirty),
    engine build ..."); empty when no record carries a `provenance` object."""
    seen = dict.fromkeys(tuple(p.get(k) for k in PROVENANCE) for r in records
                         if isinstance(p := r.get("provenance"), dict))
    return [", ".join(filter(None, (
        f"commit {commit}" + (" (dirty)" if dirty else "") if commit else "",
        f"engine build {build}" if build else ""))) or "provenance without a commit"
        for commit, dirty, build in seen]


# Settings that name a file: the path differs between two checkouts or results folders (a
# trace generated in each) while the file may not; their contents are the provenance's hashes,
# and the hardware profiles are compared by name above.
FILE_KEYS = ("traffic.pcap", "system.profile", "workload.costs")


def _values(records: Sequence[dict]) -> dict[str, set[str]]:
    """Each setting of the records (plot.settings; the seed as its own key) -> the set of its
    values, as JSON text; a search's key aside (its value is a result: the rate found), and
    the FILE_KEYS."""
    out: dict[str, set[str]] = {}
    for r in records:
        for k, v in plot.settings(r).items():
            if k != plot.searched(r) and k not in FILE_KEYS:
                out.setdefault(k, set()).add(json.dumps(v, sort_keys=True))
    return out


def setting_mismatch(eid: str, new: Sequence[dict], base: Sequence[dict]) -> str | None:
    """A line naming the settings one experiment's two sides ran with differently — a quick
    run against a full one, an edited --set — whose differences are then the settings' and no
    regression; None when they ran with the same. Compared: the seeds, and each setting that
    is fixed on both sides (one a grid varies is a point's, and a point on one side only is
    shown as such)."""
    mine, theirs = _values(new), _values(base)
    differ = [k for k in dict.fromkeys([*mine, *theirs]) if mine.get(k) != theirs.get(k)
              and (k == plot.SEED_KEY or (len(mine.get(k, ())) == 1 == len(theirs.get(k, ()))))]
    if not differ:
        return None
    shown = "; ".join(f"{k}: {_few(mine.get(k))} vs {_few(theirs.get(k))}" for k in differ[:4])
    more = f"; and {len(differ) - 4} more" if len(differ) > 4 else ""
    return (f"warning: {eid}: the sides ran other settings ({NEW} vs {BASE}: {shown}{more}): "
            "their differences include the settings'")


def _few(values: set[str] | None) -> str:
    """A setting's values on one side, in short: "-" when it has none."""
    if not values:
        return "-"
    items = sorted(values, key=lambda v: (len(v), v))
    return ", ".join(items[:3]) + (", …" if len(items) > 3 else "")


def profiles(records: Sequence[dict]) -> list[str]:
    """The distinct hardware profiles records ran on, by name."""
    return list(dict.fromkeys(p.get("name", "?") for r in records
                              if isinstance(p := r.get("profile"), dict)))


def compare(folder: str | Path, base: str | Path, experiments: str | Path | None = None,
            warn: Callable[[str], None] | None = None) -> Comparison:
    """The experiments of `folder` (DIR) next to those of `base` (the baseline folder);
    `experiments` is where ID.toml files are (default: the repository's catalogue)."""
    say = warn or (lambda m: None)
    new_ids, base_ids = _ids(folder, "DIR", say), _ids(base, "baseline", say)
    exp_dir = Path(experiments) if experiments else EXPERIMENTS_DIR
    rows, new_recs = [], []
    # every baseline file is read, so a damaged one is an error and its provenance shown
    # even for an experiment only the baseline has
    old = {eid: records.read_file(Path(base) / f"{eid}.jsonl", strict=True) for eid in base_ids}
    settings = []
    for eid in new_ids:
        exp = html_report.load(Path(folder), eid, exp_dir, say)
        new_recs += exp.records
        if eid in old:
            rows += _rows(eid, seed_values(exp.records, exp.spec),
                          seed_values(old[eid], exp.spec))
            settings.append(setting_mismatch(eid, exp.records, old[eid]))
    base_recs = [r for recs in old.values() for r in recs]
    return Comparison(Side(Path(folder), new_ids, provenance(new_recs), profiles(new_recs)),
                      Side(Path(base), base_ids, provenance(base_recs), profiles(base_recs)),
                      rows, [s for s in settings if s])


# ---- showing -----------------------------------------------------------------------------

def _estimate(e: stats.Estimate | None) -> str:
    if e is None:
        return "-"
    spread = f" [{text_report.num(e.lo, 3)}, {text_report.num(e.hi, 3)}]" if e.lo != e.hi else ""
    return f"{text_report.num(e.mean, 3)}{spread} n={e.n}"


def _relative(r: Row) -> str:
    if r.new is None or r.base is None:
        return "only in " + (BASE if r.new is None else NEW)
    rel = r.relative
    return "from 0" if rel is None else f"{100 * rel:+.1f} %"


HEADERS = ("experiment", "series", "x", "metric", NEW, BASE, "difference", "flag")
_FLAG = "differs"  # beyond the seed spread (stats.differ)


def cells(r: Row) -> tuple[str, ...]:
    """A row's cells, in HEADERS order (the terminal and the page show the same)."""
    return (r.experiment, r.series, html_report._value(r.x), r.metric, _estimate(r.new),
            _estimate(r.base), _relative(r), _FLAG if r.flagged else "")


def header_lines(c: Comparison) -> list[str]:
    """What each side is: its folder, the builds its records name and the hardware profiles
    they ran on; then a warning when the two sides' profiles differ, and one per experiment
    whose two sides ran with other settings."""
    def line(label: str, side: Side) -> str:
        facts = side.provenance + ([f"profile {', '.join(side.profiles)}"]
                                   if side.profiles else [])
        return f"{label}: {side.folder}" + (f" ({'; '.join(facts)})" if facts else "")

    mismatch = c.profile_mismatch()
    return [line(NEW, c.new), line(BASE, c.base)] + ([mismatch] if mismatch else []) \
        + c.settings


def summary(c: Comparison) -> str:
    both = len(c.rows) - len(c.one_sided)
    return (f"{both} points on both sides, {len(c.flagged)} differ beyond the seed spread; "
            f"{len(c.one_sided)} points on one side only")


def text(c: Comparison, every: bool = False) -> str:
    """The terminal view: the headers, the flagged and one-sided rows (every row with
    `every`), the experiments of one side only, and a summary line."""
    shown = c.rows if every else [r for r in c.rows if r.flagged or r.one_sided]
    out = header_lines(c)
    out += [f"experiment {e} only in {side}" for side in (NEW, BASE) for e in c.only_in(side)]
    if shown:
        out += ["", text_report.table(HEADERS, [cells(r) for r in shown])]
    return "\n".join([*out, "", summary(c)]) + "\n"


def html(c: Comparison) -> str:
    """The body of the page's baseline section (the page's template gives it its section and
    title): headers, every row (flagged ones marked), summary."""
    e = html_lib.escape
    only = "".join(f"<li>experiment {e(x)} only in {side}</li>"
                   for side in (NEW, BASE) for x in c.only_in(side))
    return ("".join(f"<p>{e(line)}</p>" for line in header_lines(c))
            + (f"<ul>{only}</ul>" if only else "")
            + f"<p>{e(summary(c))}. A point differs when the bootstrap intervals of its "
            "trimmed means over seeds do not overlap.</p>"
            + html_report._table(HEADERS, [cells(r) for r in c.rows], "num"))
