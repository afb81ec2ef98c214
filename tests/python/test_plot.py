"""rxbisect.plot: the [plot] spec, the aggregation over seeds, and the figures it writes.

Records are hand-made here on purpose: the aggregation is checked against values worked
out by hand, which a simulator run could not give.
"""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from rxbisect.errors import UsageError
from rxbisect.output import plot, stats

SPEC = {"kind": "line", "x": "arch.rx_size", "y": ["throughput_gbps"],
        "xlabel": "Rx ring size (descriptors)", "ylabels": ["Throughput (Gbps)"],
        "xscale": "log2"}


def rec(arch, x, seed, gbps, emulated=False, **params):
    return {"experiment": "t", "arch": arch, "seed": seed,
            "params": {"arch.name": arch, "arch.emulated": emulated, "arch.rx_size": x,
                       "run.seed": seed, **params},
            "metrics": {"throughput_gbps": gbps, "drops_by_cause": {"no_ax_buf": 10 * seed}}}


def test_aggregate_per_series_and_x_over_seeds():
    recs = [rec("privring", 256, s, v) for s, v in ((1, 100), (2, 110), (3, 150))]
    recs += [rec("privring", 64, s, v) for s, v in ((1, 50), (2, 70))]
    recs += [rec("rxbisect", 64, 1, 90)]
    pts = plot.aggregate(recs, SPEC)
    got = [(p.series, p.x, p.mean, p.n) for p in pts]
    # privring at 256: 100, 110, 150 -> trimmed mean 110 (stats.trimmed_mean)
    # privring at 64: 50, 70 -> mean 60; x sorted numerically within a series
    assert got == [("arch.name=privring", 64, 60, 2), ("arch.name=privring", 256, 110, 3),
                   ("arch.name=rxbisect", 64, 90, 1)]
    # the error bar is the bootstrap interval of the trimmed mean (stats.estimate), not
    # min..max: inside the values' range, around the centre; one seed has none
    for p, values in zip(pts[:2], ([50, 70], [100, 110, 150]), strict=True):
        assert (p.lo, p.hi) == (stats.estimate(values).lo, stats.estimate(values).hi)
        assert min(values) <= p.lo < p.mean < p.hi <= max(values)
    assert pts[2].lo == pts[2].hi == 90


def test_emulated_is_its_own_series_and_other_varied_params_split_series():
    recs = [rec("shring", 128, 1, 10.0), rec("shring", 128, 1, 8.0, emulated=True),
            rec("privring", 128, 1, 5.0, **{"workload.nf": "nat"}),
            rec("privring", 128, 1, 7.0, **{"workload.nf": "lb"})]
    pts = {p.series: p for p in plot.aggregate(recs, SPEC)}
    assert set(pts) == {"arch.name=shring", "arch.name=shring (emulated)",
                        "arch.name=privring, workload.nf=nat",
                        "arch.name=privring, workload.nf=lb"}
    assert pts["arch.name=shring (emulated)"].emulated
    assert pts["arch.name=privring, workload.nf=lb"].mean == 7.0


def test_a_setting_only_the_resolved_scenario_holds_splits_series_too():
    """Two sweeps into one folder, one with system.ddio_ways = 1 and one with 8: a sweep's
    params echo only the main keys and the grid's, so the two were averaged as two seeds of
    one point, with a confidence interval, though both ran seed 1."""
    recs = [{**rec("rxbisect", 256, 1, v), "config": {"system": {"ddio_ways": w, "cores": 16}}}
            for w, v in ((1, 168.0), (8, 201.0))]
    pts = {p.series: (p.mean, p.n) for p in plot.aggregate(recs, SPEC)}
    assert pts == {"arch.name=rxbisect, system.ddio_ways=1": (168.0, 1),
                   "arch.name=rxbisect, system.ddio_ways=8": (201.0, 1)}


def test_seeds_of_a_search_stay_one_point_though_each_stops_at_its_own_rate():
    """An NDR point's record is the run at the rate its search found, which differs by seed:
    the search's key is not a setting that tells scenarios apart."""
    search = {"key": "traffic.rate_gbps", "rate": 0.0, "hi": 100.0}
    recs = [{**rec("privring", 256, seed, ndr, **{"traffic.rate_gbps": ndr / 2}),
             "search": search, "config": {"traffic": {"rate_gbps": 100.0}}}
            for seed, ndr in ((1, 80.0), (2, 82.5))]
    assert [(p.series, p.n) for p in plot.aggregate(recs, SPEC)] == [("arch.name=privring", 2)]


def test_nested_metric_and_missing_values():
    recs = [rec("privring", 64, s, None) for s in (1, 2, 3)]
    spec = dict(SPEC, y=["drops_by_cause.no_ax_buf", "throughput_gbps"], ylabels=["d", "t"])
    pts = plot.aggregate(recs, spec)
    # drops 10, 20, 30 -> trimmed mean 20; throughput is None everywhere: no point
    assert [(p.metric, p.mean, p.n) for p in pts] == [("drops_by_cause.no_ax_buf", 20, 3)]


@pytest.mark.parametrize("metrics", [
    {"series": [{"t_ms": 1.0, "throughput_gbps": 4.0}, {"t_ms": 2.0, "throughput_gbps": 6.0}]},
    {"throughput_gbps": [4.0, 6.0], "time_ms": [1.0, 2.0]},
    {"throughput_gbps": [[1.0, 4.0], [2.0, 6.0]]},
])
def test_time_series_shapes(metrics):
    recs = [{"params": {"arch.name": "dyn_shring", "run.seed": s}, "metrics": metrics}
            for s in (1, 2)]
    spec = {"kind": "line", "x": "time_ms", "y": "throughput_gbps"}
    pts = plot.aggregate(recs, spec)
    assert [(p.x, p.mean, p.n) for p in pts] == [(1.0, 4.0, 2), (2.0, 6.0, 2)]


@pytest.mark.parametrize("bad, words", [
    ({"x": "a", "y": ["b"]}, "[plot] kind: missing"),
    (dict(SPEC, kind="pie"), "[plot] kind = 'pie': allowed: line, bar"),
    (dict(SPEC, xscale="log10"), "[plot] xscale = 'log10': allowed: linear, log2"),
    (dict(SPEC, ylabels=["a", "b"]), "[plot] ylabels"),
    (dict(SPEC, y=[]), "[plot] y = []"),
    (dict(SPEC, colour="red"), "[plot] colour: unknown field"),
    (dict(SPEC, kind="bar", x="time_ms"), "a time series needs kind"),
    ("line", "[plot]: expected a table"),
])
def test_bad_spec_names_the_field(bad, words):
    with pytest.raises(UsageError) as e:
        plot.check_spec(bad)
    assert words in str(e.value)


def test_line_needs_numeric_x_and_x_must_be_a_param():
    with pytest.raises(UsageError, match="needs numeric x values"):
        plot.aggregate([rec("privring", "auto", 1, 1.0)], SPEC)
    with pytest.raises(UsageError, match="not a params key"):
        plot.aggregate([rec("privring", 64, 1, 1.0)], dict(SPEC, x="arch.bx_size"))


def _svg(path):
    return ET.parse(path).getroot()


def test_line_figure_files_and_dashed_emulated(tmp_path):
    recs = [rec(a, x, s, 100 + x / 64 + s, emulated=e) for a in ("privring", "rxbisect")
            for e in (False, True) for x in (64, 256) for s in (1, 2, 3)]
    _, svg = plot.experiment([r for r in recs if not r["params"]["arch.emulated"]], SPEC,
                             tmp_path / "native")
    assert "stroke-dasharray" not in svg.read_text()
    png, svg = plot.experiment(recs, dict(SPEC, title="Ring size"), tmp_path / "ring-size")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image
    h, w = matplotlib.image.imread(png).shape[:2]
    assert w > 400 and h > 200
    text = svg.read_text()
    _svg(svg)  # well-formed
    for label in ("arch.name=privring", "arch.name=rxbisect (emulated)", "Ring size", "Rx ring size (descriptors)",
                  "Throughput (Gbps)"):
        assert label in text
    # two emulated lines and their two legend samples are dashed; native ones are not
    assert text.count("stroke-dasharray") >= 4


def test_bar_figure_hatches_emulated(tmp_path):
    spec = {"kind": "bar", "x": "workload.nf", "y": ["throughput_gbps"]}
    native = [rec("privring", 1, 1, 10.0, **{"workload.nf": n}) for n in ("nat", "lb")]
    _, svg = plot.experiment(native, spec, tmp_path / "a")
    assert "<pattern" not in svg.read_text()  # the first series is solid
    both = native + [rec("privring", 1, 1, 9.0, emulated=True, **{"workload.nf": n})
                     for n in ("nat", "lb")]
    _, svg = plot.experiment(both, spec, tmp_path / "b")
    assert "<pattern" in svg.read_text() and "arch.name=privring (emulated)" in svg.read_text()


def test_unwritable_stem_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(UsageError, match="cannot write"):
        plot.experiment([rec("privring", 64, 1, 1.0)], SPEC, blocker / "sub" / "x")


def test_many_series_and_a_mean_past_its_extremes_still_draw(tmp_path):
    """Regressions from full `rxb repro` runs: dozens of series (more than the styles) and a
    trimmed mean that rounds a last bit past min == max (a negative error bar)."""
    assert (0.1 + 0.1 + 0.1) / 3 > 0.1  # five seeds of 0.1: the trimmed mean is above max
    recs = [{"experiment": "x", "arch": "privring", "seed": s,
             "params": {"arch.name": "privring", "workload.reads": r, "arch.rx_size": x},
             "metrics": {"throughput_gbps": 0.1 if r == 0 else float(r + x)}}
            for r in range(60) for x in (64, 128) for s in range(1, 6)]
    spec = {"kind": "line", "x": "arch.rx_size", "y": ["throughput_gbps"],
            "xlabel": "Rx", "ylabels": ["Gbps"]}
    paths = plot.experiment(recs, spec, tmp_path / "many")
    assert all(p.stat().st_size > 0 for p in map(Path, paths))


def ndr_rec(arch, seed, rate, hi):
    """A record of an NDR search that passed at `rate` in a range topped at `hi`."""
    return {"params": {"arch.name": arch, "system.cores": 8, "run.seed": seed},
            "search": {"lo": 1.0, "hi": hi, "rate": rate},
            "metrics": {"ndr_gbps": rate, "ndr_found": True}}


def test_an_ndr_at_the_top_of_its_range_is_a_lower_bound():
    spec = {"kind": "bar", "x": "system.cores", "y": "ndr_gbps"}
    recs = [ndr_rec("privring", 1, 100.0, 100.0), ndr_rec("shring", 1, 60.0, 100.0)]
    pts = {p.series: p for p in plot.aggregate(recs, spec)}
    assert pts["arch.name=privring"].at_least and not pts["arch.name=shring"].at_least
    assert plot.value_text(pts["arch.name=privring"]) == "≥ 100"
    assert plot.value_text(pts["arch.name=shring"]) == "60"


def test_value_text_gives_the_interval_when_seeds_differ():
    p = plot.Point("s", False, 1, "m", 110.0, 104.0, 118.0, 3)
    assert plot.value_text(p) == "110 [104, 118]"


def test_one_figure_per_panel_with_hover_values(tmp_path):
    spec = dict(SPEC, y=["throughput_gbps", "drops_by_cause.no_ax_buf"], ylabels=["T", "D"])
    recs = [rec(a, x, 1, 100.0 + x / 64) for a in ("privring", "rxbisect") for x in (64, 256)]
    panels = plot.panel_svgs(recs, spec)
    assert [m for m, _ in panels] == spec["y"]
    for _, svg in panels:
        root = ET.fromstring(svg)  # well-formed, one axes each
        titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
        # one hover value per point: 2 designs x 2 ring sizes
        assert len(titles) == 4, titles
    assert "arch.name=rxbisect; Rx ring size (descriptors) = 256: 104 (n = 1)" in panels[0][1]
