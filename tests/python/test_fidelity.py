"""`rxb fidelity`: the calibration points file, the record schema, the fit's bisection, and the
fitted cost profile (rxbisect/study/fidelity_check.py, fidelity_fit.py, docs/calibration.md).

The simulator's numbers are never asserted here (they move with the mechanisms): the real
engine only has to return a record per point with a positive value; exact answers come from
synthetic curves and from a fake engine whose capacity is a known function of nf_cycles.
"""

import argparse
import json
import math
import re

import pytest

from conftest import needs_engine, run_cli
from rxbisect.commands import cli, cli_fidelity
from rxbisect.errors import UsageError
from rxbisect.study import fidelity_check as fidelity
from rxbisect.study import fidelity_fit
from rxbisect.vocab import costs, scenario

POINTS = fidelity.POINTS_FILE.read_text()


@pytest.fixture
def rxb(monkeypatch, capsys):
    """rxb(*args) -> (exit code, stdout, stderr) through cli.main, with `fidelity` in the
    parser (cli.py may not register it yet: the same register() call it will make)."""
    build = cli.build_parser

    def wired():
        p = build()
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
        if "fidelity" not in sub.choices:
            cli_fidelity.register(sub)
        return p
    monkeypatch.setattr(cli, "build_parser", wired)

    def run(*args: str):
        code = cli.main(list(args))
        out, err = capsys.readouterr()
        return code, out, err
    return run


def variant(tmp_path, old: str, new: str, text: str = POINTS):
    """The shipped points file with one edit (the first `old`; "re:..." a regular expression,
    so an edit need not repeat a value that may change), as a file."""
    pattern = old[3:] if old.startswith("re:") else re.escape(old)
    assert re.search(pattern, text, re.M), old
    path = tmp_path / "points.toml"
    path.write_text(re.sub(pattern, new.replace("\\", "\\\\"), text, count=1, flags=re.M))
    return path


# ---- the points file ----------------------------------------------------------------------

def test_shipped_points_are_the_calibration_points():
    pts = fidelity.load()
    assert [p.workload for p in pts.points] == ["lb", "nat", "synthetic", "l3fwd"]
    assert set(pts.estimates) == {"kvs", "counter"}
    for p in pts.points:
        assert p.keys["arch.name"] == p.arch == "privring" and p.keys["workload.nf"] == p.workload
        assert p.keys["arch.emulated"] is False and p.keys["system.ddio_ways"] == 2
        assert p.keys["traffic.packet_bytes"] == 1518
        assert (p.search is not None) == (p.measure == "ndr")
    syn = next(p for p in pts.points if p.published_range)
    assert syn.published == sum(syn.published_range) / 2  # the midpoint, by rule
    # every NF of the scenario vocabulary is either fitted or estimated
    nfs = set(scenario.SCHEMA.info("workload.nf").spec.choices)
    assert nfs == {p.workload for p in pts.points} | set(pts.estimates)


BAD = [  # (edit of the shipped file, words the one-line error must contain)
    ('measure = "throughput"', 'measure = "speed"', ["measure", "speed", "throughput, ndr"]),
    ("published = 162.0", "publishd = 162.0", ["unknown field 'publishd'", "published"]),
    ("published = 162.0", "", ["exactly one of 'published'"]),
    ("published = 162.0", "published = 162.0\npublished_range = [1.0, 2.0]",
     ["exactly one of"]),
    ("published_range = [175.0, 178.0]", "published_range = [178.0, 175.0]",
     ["low must be below high"]),
    ("published = 155.0", "published = -155.0", ["published", "positive number"]),
    ("workload = { lb_backends = 32,", "workload = { lb_backend = 32,",
     ["workload.lb_backend", "did you mean 'workload.lb_backends'"]),
    ("workload = { lb_backends = 32, flow_capacity = 10000000 }", 'workload = { nf = "nat" }',
     ["workload.nf", "the point's 'workload'"]),
    ("workload = { flow_capacity = 10000000 }", "run = { seed = 3 }", ["run.seed", "[run]"]),
    ("ddio_ways = 2 }", "ddio_ways = 99 }", ["system.ddio_ways", "99"]),
    ('workload = "nat"', 'workload = "lb"', ["two [[point]] entries for workload 'lb'"]),
    ('measure = "ndr"', 'measure = "throughput"', ["[point.search]", "ndr"]),
    ("resolution = 0.5", "resolution = 0.0", ["resolution", "> 0"]),
    ('kvs = { like = "l3fwd"', 'kvs = { like = "kvs"', ["kvs", "like", "calibration point"]),
    ('counter = { like = "l3fwd", why = "a minimal DPDK loop beside l3fwd in dark-packets; '
     'nothing published" }', "", ["counter has neither a calibration point nor an estimate"]),
    ('base = "light"', 'base = "heavy"', ["heavy", "cost profile"]),
    ("wire_line_gbps = 200.0", "wire_line_gbps = 0", ["wire_line_gbps", "positive"]),
    ('unit = "Gbps"', 'unit = "Mpps"', ["unit", "Mpps", "are in Gbps"]),
    ("\n[quick]\n", "\n[quik]\n", ["unknown field 'quik'", "quick"]),
    ("re:^duration_ms = .*$", 'duration_ms = "long"', ["run.duration_ms"]),
    ("cores_per_nic = [1] }", "cores_per_nic = [2] }", ["l3fwd", "system.cores_per_nic"]),
]


@pytest.mark.parametrize("old,new,words", BAD, ids=[b[1][:30] or b[0][:30] for b in BAD])
def test_a_bad_points_file_is_one_clear_error(tmp_path, rxb, old, new, words):
    path = variant(tmp_path, old, new)
    with pytest.raises(UsageError) as e:
        fidelity.load(path)
    for w in words:
        assert w in str(e.value), str(e.value)
    assert str(path) in str(e.value)
    code, out, err = rxb("fidelity", "--points", str(path))  # before anything runs
    assert (code, out) == (2, "")
    assert err.startswith("rxb: error: ") and err.count("\n") == 1, err


def test_unreadable_points_files(tmp_path, rxb):
    assert "not found" in rxb("fidelity", "--points", str(tmp_path / "none.toml"))[2]
    broken = tmp_path / "broken.toml"
    broken.write_text("[unit\n")
    code, _, err = rxb("fidelity", "--points", str(broken))
    assert code == 2 and "not valid TOML" in err


@pytest.mark.parametrize("args,words", [
    (["--out", "x.toml"], "add --fit"),
    (["--fit", "--quick"], "give --out FILE"),
    (["--fit", "--costs", "light", "--out", "x.toml"], "--costs"),
    (["--jobs", "0"], "--jobs 0"),
    (["--seeds", "0"], "--seeds 0"),
    (["--costs", "nosuch", "--quick"], "workload.costs"),
])
def test_bad_options(rxb, args, words):
    code, out, err = rxb("fidelity", *args)
    assert code == 2 and out == "" and words in err and err.count("\n") == 1, err


@pytest.mark.parametrize("seed", ["99999999999999999999999", "-1"])
def test_a_seed_out_of_range_names_the_option(seed):
    """Past run.seed's range it was blamed on a --grid the user never gave."""
    p = run_cli("fidelity", "--seed", seed)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines()[-1].startswith(f"rxb: error: argument --seed: run.seed = {seed}: "
                                                "out of range")


# ---- the bisection, on synthetic curves ---------------------------------------------------

def falling(top: float, knee: int, slope: float):
    """Flat at `top` up to the knee (the line rate), then falling linearly: a core's limit."""
    return lambda x: top if x <= knee else max(0.0, top - slope * (x - knee))


@pytest.mark.parametrize("target", [10.0, 77.7, 150.0, 189.0])
def test_bisection_meets_the_target_of_a_monotone_curve(target):
    f = falling(195.6, 900, 0.07)
    calls = []
    fit = fidelity_fit.bisect(lambda x: calls.append(x) or f(x), target, 0, 4000, 0.01 * target, 5)
    assert fit.status == "met" and abs(f(fit.x) - target) <= 0.01 * target
    assert fit.value == f(fit.x) and [x for x, _ in fit.steps] == calls
    assert len(calls) <= 2 + math.ceil(math.log2(4000 / 5))


def test_bisection_stops_at_the_cycle_bracket_on_a_step():
    def f(x: float) -> float:  # a step: no x gives 75 within 1 %
        return 100.0 if x < 1234 else 50.0

    fit = fidelity_fit.bisect(f, 75.0, 0, 4000, 0.75, 5)
    assert fit.status == "bracket"
    xs = sorted(x for x, _ in fit.steps)
    below = max(x for x in xs if x < 1234)
    above = min(x for x in xs if x >= 1234)
    assert above - below <= 5 and fit.x in (below, above)


def test_bisection_widens_a_top_that_is_too_low_and_reports_the_impossible():
    f = falling(195.6, 9000, 0.01)  # the knee lies above the first top
    fit = fidelity_fit.bisect(f, 150.0, 0, 1000, 1.5, 5)
    assert fit.status == "met" and fit.x > 9000 and max(x for x, _ in fit.steps) > 1000
    slow = fidelity_fit.bisect(lambda x: 60.0 - x / 100, 80.0, 0, 1000, 0.8, 5)
    assert (slow.status, slow.x) == ("unreachable", 0)  # even free compute falls short
    fast = fidelity_fit.bisect(lambda x: 100.0, 80.0, 0, 1000, 0.8, 5, x_max=4000)
    assert (fast.status, fast.x) == ("above", 4000)


def test_lockstep_bisections_equal_separate_ones():
    curves = [(falling(195.6, 500, 0.1), 160.0), (falling(97.8, 40, 0.3), 80.0)]
    alone = [fidelity_fit.bisect(f, t, 0, 3000, 0.01 * t, 5) for f, t in curves]
    rounds = []

    def batch(reqs):
        rounds.append(reqs)
        return [[curves[i][0](x) for x in xs] for i, xs in reqs]
    together = fidelity_fit.drive([fidelity_fit.bisect_steps(t, 0, 3000, 0.01 * t, 5)
                               for _, t in curves], batch)
    assert together == alone
    assert len(rounds[0]) == 2 and all(len(xs) == 2 for _, xs in rounds[0])  # both ends at once


def test_a_value_that_is_not_a_number_stops_the_bisection():
    with pytest.raises(UsageError, match="finite"):
        fidelity_fit.bisect(lambda x: float("nan"), 80.0, 0, 100, 0.8, 5)


# ---- records and the fit through the sweep machinery, with a fake engine ------------------

# Capacity of each NIC falls with the NF's cycles as K / (K + cycles): a curve with a known
# inverse, so the fit's answer can be checked without the simulator.
CURVE = """\
c = cfg["workload"]["nf_cycles"]
cap = 100.0 * 1000 / (1000 + c)
rate = cfg["traffic"]["rate_gbps"]
nics = cfg["system"]["nics"]
OUT["metrics"]["throughput_gbps"] = nics * min(rate, cap)
OUT["metrics"]["drop_rate"] = max(0.0, 1 - cap / rate)
print(json.dumps(OUT))
"""


def test_records_have_exactly_the_schema_and_the_study_unit(make_engine, rxb):
    make_engine(CURVE)
    code, out, err = rxb("fidelity", "--quick", "--json", "--no-progress")
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    pts = fidelity.load()
    assert [(r["workload"], r["arch"]) for r in recs] == [(p.workload, p.arch)
                                                          for p in pts.points]
    for r, p in zip(recs, pts.points, strict=True):
        assert tuple(r) == fidelity.RECORD_KEYS
        assert (r["published"], r["unit"]) == (p.published, p.unit)
        assert r["params"]["workload.nf_cycles"] == costs.load("study").cycles[p.workload]
        assert r["params"]["run.duration_ms"] == pts.quick["run.duration_ms"]
        if p.measure == "throughput":  # the fake's wire Gbps, in the study's unit
            c = r["params"]["workload.nf_cycles"]
            wire = r["params"]["system.nics"] * 100.0 * min(1.0, 1000 / (1000 + c))
            assert r["simulated"] == pytest.approx(wire * pts.factor)


def test_the_table_has_a_row_per_point_and_says_what_has_none(make_engine, rxb):
    make_engine(CURVE)
    code, out, err = rxb("fidelity", "--quick", "--no-progress")
    assert code == 0, err
    rows = [line.split() for line in out.splitlines()[2:] if line.strip()]
    pts = fidelity.load()
    for p in pts.points:
        row = next(r for r in rows if r[0] == p.workload)
        units = [i for i, word in enumerate(row) if word == "Gbps"]  # published, simulated
        simulated = float(row[units[-1] - 1])
        assert float(row[-1]) == pytest.approx(simulated / p.published, abs=1e-3)
    assert all(nf in out and "no published figure" in out for nf in pts.estimates)


# Seed 1 carries half what seeds 2 and 3 do: a point with two steady states, which one a run
# ends in set by its start (privRing lb at its calibration point, docs/calibration.md).
TWO_STATES = CURVE.replace('OUT["metrics"]["throughput_gbps"] = nics * min(rate, cap)',
                           'OUT["metrics"]["throughput_gbps"] = nics * min(rate, cap) * '
                           '(0.5 if cfg["run"]["seed"] == 1 else 1.0)')


def test_a_point_reads_the_median_of_its_seeds(make_engine, rxb):
    """Three seeds by default: the value is what two of them give, the record the median
    seed's; with --seeds 1 the first seed alone."""
    make_engine(TWO_STATES)
    runs = {}
    for args, said in (((), "seeds 1-3 (each value their median)"), (("--seeds", "1"), "seed 1")):
        code, out, err = rxb("fidelity", "--quick", "--json", "--no-progress", *args)
        assert code == 0 and err.rstrip().endswith(said), err
        runs[args] = {r["workload"]: r for r in map(json.loads, out.splitlines())}
    lb_median, lb_one = runs[()]["lb"], runs[("--seeds", "1")]["lb"]
    assert lb_median["params"]["run.seed"] in (2, 3) and lb_one["params"]["run.seed"] == 1
    assert lb_median["simulated"] == pytest.approx(2 * lb_one["simulated"])


def test_the_fit_finds_the_cycles_of_a_known_curve_and_writes_a_profile(make_engine, tmp_path,
                                                                        rxb):
    make_engine(CURVE)
    out = tmp_path / "fitted.toml"
    code, _, err = rxb("fidelity", "--fit", "--quick", "--out", str(out), "--no-progress")
    assert code == 0, err
    assert "fit round 1" in err
    pts, prof = fidelity.load(), costs.load(str(out))
    for p in pts.points:
        c = prof.cycles[p.workload]
        cap = 100.0 * 1000 / (1000 + c) * pts.factor * p.keys["system.nics"]
        exact = 1000 * (100.0 * pts.factor * p.keys["system.nics"] / p.published - 1)
        tol = pts.quick_resolution if p.measure == "ndr" else fidelity_fit.VALUE_TOL * p.published
        assert abs(cap - p.published) <= tol or abs(c - exact) <= fidelity_fit.CYCLES_TOL
    entries = comments(out.read_text())
    check_profile_comments(pts, prof, entries)
    hand = costs.load(pts.base).cycles
    for nf, rule in pts.estimates.items():  # the stated rule, from the fitted value
        like = rule["like"]
        assert prof.cycles[nf] == round(hand[nf] * prof.cycles[like] / hand[like])


def test_estimates_keep_the_hand_value_when_there_is_no_ratio():
    pts = fidelity.load()
    hand = costs.load(pts.base).cycles
    fitted = [fidelity_fit.Fitted(p, fidelity_fit.Fit(0, 1.0, "unreachable"), {})
              for p in pts.points]
    est = fidelity_fit.estimates(pts, fitted)
    assert {nf: v for nf, (v, _) in est.items()} == {nf: hand[nf] for nf in pts.estimates}
    assert all("unscaled" in why and "unreachable" in why for _, why in est.values())


# ---- the committed study profile ----------------------------------------------------------

def comments(text: str) -> dict[str, str]:
    """{NF: the comment block right above its line in [cycles]}."""
    out, block = {}, []
    for line in text.split("[cycles]", 1)[1].splitlines():
        if line.startswith("#"):
            block.append(line.lstrip("# ").strip())
        elif m := re.match(r"(\w+) = (\d+)$", line):
            out[m[1]] = " ".join(block)
            block = []
    return out


def check_profile_comments(pts, prof, entries):
    assert set(entries) == set(prof.cycles)
    for p in pts.points:
        text = entries[p.workload]
        m = re.search(r'fitted to calibration point "([^"]+)".*published ([\d.]+) .* at (\d+) '
                      r"cycles", text)
        assert m, text
        assert m[1] == p.label and float(m[2]) == p.published and int(m[3]) == \
            prof.cycles[p.workload]
        assert re.search(r"simulated [\d.]+ ", text), text
    for nf in pts.estimates:
        assert entries[nf].startswith(f"{nf}: estimate, not fitted"), entries[nf]


def test_study_profile_names_the_point_each_entry_was_fitted_to():
    text = (costs.HERE / "study.toml").read_text()
    assert "QUICK FIT" not in text  # only a full fit may stand as the study's costs
    assert re.search(r"Fitted \d{4}-\d\d-\d\d by `rxb fidelity --fit", text), \
        "study.toml is not the fit's output: run `rxb fidelity --fit` (docs/calibration.md)"
    check_profile_comments(fidelity.load(), costs.load("study"), comments(text))


# ---- the real simulator -------------------------------------------------------------------

@needs_engine
def test_quick_real_run_gives_a_positive_value_per_point(rxb):
    code, out, err = rxb("fidelity", "--quick", "--json", "--no-progress", "--jobs", "2")
    assert code == 0, err
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["workload"] for r in recs] == [p.workload for p in fidelity.load().points]
    assert all(tuple(r) == fidelity.RECORD_KEYS and r["simulated"] > 0 for r in recs)
