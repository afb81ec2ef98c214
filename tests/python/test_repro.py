"""`rxb repro`: every experiment of the catalogue, its quick variant run for real, records that
validate, the files it writes, resume after a kill, and one clear error per bad input
(docs/experiments.md).

The simulator's numbers are being changed elsewhere: nothing here asserts a simulated value,
only the shape of what comes out (points, designs, metrics present, schema, files).
"""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

from conftest import REPO
from rxbisect.commands import cli
from rxbisect.errors import EngineError, UsageError
from rxbisect.output import plot, records
from rxbisect.study import experiments, reproduce
from test_sweep import (
    REAL_ENGINE,
    _free_port,
    assert_all_gone,
    gated,  # noqa: F401  (a fixture: pytest finds it by its name)
)

pytestmark = pytest.mark.skipif(REAL_ENGINE is None, reason="rxb-sim not built (make build)")

# A tiny experiment for the tests that run something of their own: 2 designs x 2 rates.
TINY = """\
title = "tiny"
description = "two designs, two rates, 2 cores"
[set]
run.duration_ms = 0.5
run.warmup_ms = 0.1
system.cores = 2
system.nics = 1
[grid]
traffic.rate_gbps = [5.0, 10.0]
[[interface]]
name = "privring"
[[interface]]
name = "rxbisect"
[plot]
kind = "line"
x = "traffic.rate_gbps"
y = ["throughput_gbps"]
xlabel = "Offered (Gbps)"
ylabels = ["Throughput (Gbps)"]
"""


def repro_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "rxbisect", "repro", *args, "--no-progress"]


def lines(path: Path) -> list[dict]:
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the file ends in a half-written line"
    return [json.loads(x) for x in data.splitlines()]


# ---- the catalogue ----------------------------------------------------------------------

CATALOGUE = ["ring-size", "core-scaling", "ndr", "nf-200g", "kvs", "ax-size", "bx-size",
             "bursts", "proc-var", "traffic-var", "trace", "stream-coloc", "low-rate", "fidelity",
             "share-degree", "mem-intensity", "dyn-switch", "representors", "dark-packets"]


def test_the_catalogue_is_every_id_of_evaluation_md():
    assert sorted(experiments.ids()) == sorted(CATALOGUE)


@pytest.mark.parametrize("exp_id", CATALOGUE)
def test_quick_has_the_shape_of_full(exp_id):
    """Quick keeps the designs and the axes; fewer or equal points, no longer runs; the full
    variant has the seeds for a trimmed mean (min and max dropped)."""
    exp = experiments.load(exp_id)
    quick, full = reproduce.plan(exp, quick=True), reproduce.plan(exp, quick=False)
    design = experiments.DESIGN
    assert {p.task["params"][design] for p in quick.points} == \
        {p.task["params"][design] for p in full.points} == {i.label for i in exp.interfaces}
    assert exp.variant(True).grid.keys() == exp.variant(False).grid.keys()
    assert 0 < len(quick.points) <= len(full.points)
    for label in {i.label for i in exp.interfaces}:  # a design may run longer (dynamic shRing)
        def runs(plan: reproduce.Planned, label: str = label) -> list[float]:
            return [p.task["sections"]["run"]["duration_ms"] for p in plan.points
                    if p.task["params"][design] == label]
        assert max(runs(quick)) <= min(runs(full)), label
    assert exp.variant(False).seeds >= 3
    assert reproduce.estimate_s(full.points, 2) > 0


@pytest.fixture(scope="module")
def quick_all(tmp_path_factory):
    """`rxb repro all --quick`, once, as a user runs it: (folder, stdout, stderr, seconds)."""
    out = tmp_path_factory.mktemp("repro")
    start = time.monotonic()
    p = subprocess.run(repro_cmd("all", "--quick", "--out", str(out), "--jobs", "2"),
                       cwd=REPO, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return out, p.stdout, p.stderr, time.monotonic() - start


@pytest.mark.parametrize("exp_id", CATALOGUE)
def test_quick_variant_runs_and_its_records_validate(quick_all, exp_id):
    out, stdout, stderr, _ = quick_all
    exp = experiments.load(exp_id)
    planned = reproduce.plan(exp, quick=True, traces=out)  # a generated trace lives in DIR
    recs = lines(out / f"{exp_id}.jsonl")
    # one record per planned point, no duplicates, no strays
    assert sorted(r["point_id"] for r in recs) == sorted(p.point_id for p in planned.points)
    for r in recs:
        assert records.problems(r) == [], r["point_id"]
        assert r["experiment"] == exp_id
        assert r["params"]["arch.emulated"] == r["config"]["arch"]["emulated"]
    assert {r["params"][experiments.DESIGN] for r in recs} == {i.label for i in exp.interfaces}
    # what the plot needs is in every record: its x, and each y metric
    for r in recs:
        m = r["metrics"]
        if exp.plot["x"] == plot.TIME_X:
            samples = m["series"]
            assert samples and all("t_ms" in s for s in samples)
            for y in exp.plot["y"]:
                assert all(y in s for s in samples), y
        else:
            assert exp.plot["x"] in r["params"]
            for y in exp.plot["y"]:
                assert y in m, y
    for y in exp.plot["y"]:  # and at least one record has a number for it
        assert any(isinstance(plot.metric(s, y), (int, float)) for r in recs
                   for s in (r["metrics"]["series"] if exp.plot["x"] == plot.TIME_X
                             else [r["metrics"]])), y
    # the table, the summary, the figure
    table = pd.read_parquet(out / f"{exp_id}.parquet")
    assert len(table) == len(recs) and set(table["point_id"]) == {r["point_id"] for r in recs}
    summary = json.loads((out / f"{exp_id}.summary.json").read_text())
    assert summary["experiment"] == exp_id and summary["variant"] == "quick"
    assert summary["points"] and {p["metric"] for p in summary["points"]} <= set(exp.plot["y"])
    for p in summary["points"]:
        slack = 1e-9 * max(1.0, abs(p["hi"]))  # a mean of equal values may round past them
        assert p["lo"] - slack <= p["mean"] <= p["hi"] + slack and p["n"] >= 1
    assert (out / f"{exp_id}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (out / f"{exp_id}.svg").read_bytes()[:2000]
    assert f"== {exp_id}: {exp.title} ==" in stdout


@pytest.mark.parametrize("exp_id", ["ndr", "ax-size"])
def test_no_drop_rate_points_record_their_search(quick_all, exp_id):
    out = quick_all[0]
    for r in lines(out / f"{exp_id}.jsonl"):
        s, m = r["search"], r["metrics"]
        assert s["steps"] and all(s["lo"] <= x["rate"] <= s["hi"] for x in s["steps"])
        passed = [x["rate"] for x in s["steps"] if x["passed"]]
        assert m["ndr_found"] == bool(passed)
        nics = r["config"]["system"]["nics"]
        assert m["ndr_gbps"] == pytest.approx(max(passed) * nics if passed else 0.0)
        # the record's run is the one at the no-drop rate, and it lost nothing
        if passed:
            assert r["params"]["traffic.rate_gbps"] == pytest.approx(max(passed))
            assert m["drop_rate"] <= s["threshold"]


def test_dark_packets_carry_the_analytic_bound(quick_all):
    for r in lines(quick_all[0] / "dark-packets.jsonl"):
        assert 0 <= r["metrics"]["dark_bound_drop_rate"] <= 1
        assert r["metrics"]["dark_bound_drop_rate_loaded"] is None \
            or 0 <= r["metrics"]["dark_bound_drop_rate_loaded"] <= 1


def test_quick_all_reports_its_time(quick_all):
    _, _, stderr, seconds = quick_all
    assert "estimated" in stderr.splitlines()[0]
    print(f"rxb repro all --quick: {seconds:.1f} s")


# ---- a run of our own: Python API, resume ------------------------------------------------

def test_python_api_returns_one_row_per_point(tmp_path):
    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY)
    df = reproduce.repro(str(exp), quick=True, seeds=3, out=tmp_path / "o", jobs=2,
                     progress=False)
    assert len(df) == 2 * 2 * 3 and set(df["experiment"]) == {"tiny"}
    assert set(df["params.design"]) == {"privring", "rxbisect"}
    summary = json.loads((tmp_path / "o" / "tiny.summary.json").read_text())
    assert {p["n"] for p in summary["points"]} == {3}  # 3 seeds behind every point
    # a second call resumes: nothing runs again, the same records come back
    again = reproduce.repro(str(exp), quick=True, seeds=3, out=tmp_path / "o", jobs=2,
                        progress=False)
    assert list(again["point_id"]) == list(df["point_id"])
    assert len(lines(tmp_path / "o" / "tiny.jsonl")) == 12


def test_a_killed_repro_resumes_without_duplicates(tmp_path, gated):  # noqa: F811
    env, open_gate = gated
    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY)
    clean = tmp_path / "clean"
    p = subprocess.run(repro_cmd(str(exp), "--seeds", "3", "--out", str(clean), "--jobs", "2"),
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    expected = {r["point_id"]: r for r in lines(clean / "tiny.jsonl")}
    assert len(expected) == 12

    out = tmp_path / "killed"
    cmd = repro_cmd(str(exp), "--seeds", "3", "--out", str(out), "--jobs", "2")
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    path = out / "tiny.jsonl"
    deadline = time.monotonic() + 60
    while not (path.exists() and b"\n" in path.read_bytes()):  # seed 1 runs, others wait
        assert proc.poll() is None, f"repro ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "no record within 60 s"
        time.sleep(0.01)
    tree = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert_all_gone(tree)
    first = lines(path)
    assert 0 < len(first) < 12

    open_gate()
    p = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    recs = lines(path)
    assert len(recs) == 12 and len({r["point_id"] for r in recs}) == 12
    assert [r["point_id"] for r in recs[:len(first)]] == [r["point_id"] for r in first]
    for r in recs:  # deterministic: the same records as the uninterrupted run
        want = expected[r["point_id"]]
        assert (r["params"], r["config"]) == (want["params"], want["config"])
        assert r["metrics"]["delivered_packets"] == want["metrics"]["delivered_packets"]
    assert f"{len(first)} already recorded" in p.stdout


# ---- one clear error per bad input ---------------------------------------------------------

def test_a_resume_gives_recorded_points_an_edited_label_and_derive(tmp_path, capsys):
    """The label and the derivations are the experiment file's, added in this process: a
    rerun after editing them reused the records as they were ("0 run now"), old label, and
    the new derived metric missing from every point."""
    exp, out = tmp_path / "tiny.toml", tmp_path / "o"
    exp.write_text(TINY)
    assert cli.main(["repro", str(exp), "--quick", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    exp.write_text(TINY.replace('name = "privring"', 'name = "privring"\nlabel = "private"')
                   .replace('title = "tiny"', 'title = "tiny"\nderive = ["latency_ratio"]'))
    assert cli.main(["repro", str(exp), "--quick", "--out", str(out), "--no-progress"]) == 0
    io = capsys.readouterr()
    assert "0 run now" in io.out + io.err
    assert "rxb: 4 recorded points given the experiment's labels and derived metrics anew" \
        in io.err
    recs = records.read(out, stem="tiny")
    assert {r["params"]["design"] for r in recs} == {"private", "rxbisect"}
    assert all("latency_p99_over_mean" in r["metrics"] for r in recs)
    assert all(records.problems(r) == [] for r in recs)


def _one_error(capsys, argv: list[str]) -> str:
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    lines_ = err.splitlines()
    assert len(lines_) == 1 and lines_[0].startswith("rxb: error: "), err
    return lines_[0]


def test_unknown_experiment_id(capsys, tmp_path):
    line = _one_error(capsys, ["repro", "ring-sise", "--quick", "--out", str(tmp_path / "o")])
    assert "unknown experiment 'ring-sise' (did you mean 'ring-size'?)" in line
    assert "known: " in line and not (tmp_path / "o").exists()


def _bad(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize("change, message", [
    (("traffic.rate_gbps = [5.0, 10.0]", "traffic.rate_gbs = [5.0, 10.0]"),
     "[grid]: unknown key 'traffic.rate_gbs' (did you mean 'traffic.rate_gbps'?)"),
    (("system.cores = 2", "system.cores = 0"), "[set]: system.cores = 0:"),
    (("[grid]", "[grids]"), "unknown field 'grids' (did you mean 'grid'?)"),
    (('kind = "line"', 'kind = "pie"'), "[plot] kind = 'pie': allowed: line, bar"),
    (('name = "rxbisect"', 'name = "rxbisekt"'), "[[interface]] #2: arch.name = 'rxbisekt'"),
    (("[set]", "[set]\narch.name = \"shring\""), "arch.name is given by [[interface]] name"),
    (("[plot]", "[quick]\ngrid = { system.cores = [1] }\n[plot]"),
     "[quick] grid: system.cores is not in [grid]"),
    (('name = "privring"', 'name = "privring"\nlink = { arch.rx_size = "arch.ax_size" }'),
     "link: arch.rx_size = 'arch.ax_size': not a key of [grid]"),
    (('x = "traffic.rate_gbps"', 'x = "traffic.rate"'), "[plot] x: unknown key"),
    # each was a TypeError or AttributeError traceback
    (('title = "tiny"', 'title = "tiny"\nderive = [{a = 1}]'),
     "derive: unknown derivation {'a': 1}"),
    (('name = "privring"', 'name = "privring"\nlink = { arch.rx_size = ["traffic.rate_gbps"] }'),
     "link: arch.rx_size = ['traffic.rate_gbps']: not a key of [grid]"),
    (("[plot]", '[search]\nlo = 1.0\nresolution = 0.5\nkey = ["x"]\n[plot]'),
     "[search]: key = ['x']: expected the name of a scenario key"),
    # each point failed in a worker, exit 1, with advice to run the same command again
    (("[plot]", "[search]\nlo = 1.0\nresolution = 1.0\nhi = 0.5\n[plot]"),
     "[search]: hi = 0.5: not above lo = 1.0"),
    (("title = \"tiny\"", "title = "), "tiny.toml"),  # TOML syntax: read_toml's message
    # blamed on --seeds, which was not given, and left an empty o/tiny.jsonl
    (("[plot]", "[full]\nseeds = 100000\n[plot]"),
     "[full]: seeds = 100000: expected an integer from 1 to 1000"),
])
def test_a_bad_experiment_file_is_one_clear_error(capsys, tmp_path, change, message):
    exp = tmp_path / "tiny.toml"
    exp.write_text(_bad(TINY, *change))
    line = _one_error(capsys, ["repro", str(exp), "--out", str(tmp_path / "o")])
    assert str(exp) in line and message in line, line
    assert not (tmp_path / "o").exists()
    with pytest.raises(UsageError):
        experiments.load(str(exp))


def test_a_search_whose_bottom_trial_the_key_refuses_is_refused_while_planning(capsys,
                                                                             tmp_path):
    """lo = 0 passes the [search] table's checks, but traffic.rate_gbps must be above 0: a
    search in which no rate passes ran its last trial there, and the point failed after all
    its runs (and again on every rerun)."""
    exp = tmp_path / "tiny.toml"
    exp.write_text(_bad(TINY, "[plot]", "[search]\nlo = 0.0\nresolution = 20.0\n[plot]"))
    line = _one_error(capsys, ["repro", str(exp), "--out", str(tmp_path / "o")])
    assert "lo = 0: a trial at it is refused" in line and "traffic.rate_gbps = 0" in line, line
    assert not (tmp_path / "o" / "tiny.jsonl").exists()


def test_unwritable_out(capsys, tmp_path):
    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY)
    blocker = tmp_path / "file"
    blocker.write_text("")
    line = _one_error(capsys, ["repro", str(exp), "--out", str(blocker / "o")])
    assert f"--out {blocker / 'o'}: cannot create the folder" in line


def test_unreachable_cluster(capsys, tmp_path):
    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY)
    address = f"tcp://127.0.0.1:{_free_port()}"
    line = _one_error(capsys, ["repro", str(exp), "--out", str(tmp_path / "o"),
                               "--cluster", address])
    assert f"--cluster {address}: cannot reach a Dask scheduler there" in line


def test_bad_seeds(capsys, tmp_path):
    line = _one_error(capsys, ["repro", "ring-size", "--seeds", "0", "--out", str(tmp_path)])
    assert "--seeds 0: must be an integer in [1, 1000]" in line


@pytest.mark.parametrize("extra, message", [
    (["--jobs", "0"], "--jobs 0: must be an integer in [1, 1024]"),
    (["--jobs", "2", "--cluster", "tcp://127.0.0.1:1"], "--jobs sets the local pool"),
])
def test_bad_jobs(capsys, tmp_path, extra, message):
    line = _one_error(capsys, ["repro", "ring-size", "--out", str(tmp_path / "o"), *extra])
    assert message in line and not (tmp_path / "o").exists()


@pytest.mark.parametrize("table, message", [
    ("alfa = 0.9", "[trace]: unknown field 'alfa' (did you mean 'alpha'?)"),
    ("alpha = 0.0", "[trace]: --alpha 0"),  # the generator's own check, named by the file
])
def test_a_bad_trace_table_is_one_clear_error(capsys, tmp_path, table, message):
    exp = tmp_path / "tiny.toml"
    exp.write_text(_bad(TINY, "[plot]", f"[trace]\nflows = 20\n{table}\n[plot]"))
    line = _one_error(capsys, ["repro", str(exp), "--out", str(tmp_path / "o")])
    assert str(exp) in line and message in line, line


def test_a_cluster_gives_the_records_of_the_local_pool_searches_included(tmp_path):
    """The same experiment, with RFC 2544 searches as points, on a real local Dask cluster
    and on the local pool: the same records."""
    distributed = pytest.importorskip("distributed")
    exp = tmp_path / "tiny.toml"
    exp.write_text(_bad(TINY, "[plot]", "[search]\nlo = 1.0\nresolution = 20.0\n[plot]")
                   .replace('y = ["throughput_gbps"]', 'y = ["ndr_gbps"]'))
    local = reproduce.repro(str(exp), out=tmp_path / "local", seeds=1, jobs=2, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        p = subprocess.run(repro_cmd(str(exp), "--seeds", "1", "--out", str(tmp_path / "c"),
                                     "--cluster", cluster.scheduler_address),
                           cwd=REPO, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
    # the estimate is a serial one there: it was said to be the cluster's
    assert f"on one run at a time (the cluster {cluster.scheduler_address} runs several" \
        in p.stderr
    want = {r["point_id"]: r for r in lines(tmp_path / "local" / "tiny.jsonl")}
    got = lines(tmp_path / "c" / "tiny.jsonl")
    assert sorted(r["point_id"] for r in got) == sorted(want) == sorted(local["point_id"])
    for r in got:
        for k in ("metrics", "params", "search", "config", "sim_packets"):
            assert r[k] == want[r["point_id"]][k], k


def test_unknown_profile(capsys, tmp_path):
    line = _one_error(capsys, ["repro", "ring-size", "--profile", "bogus",
                               "--out", str(tmp_path / "o")])
    assert "--profile bogus: " in line and "no built-in profile" in line
    assert not (tmp_path / "o").exists()


def test_an_experiment_with_failed_points_does_not_stop_the_others(tmp_path, make_engine,
                                                                    capsys):
    make_engine("""\
    if cfg["arch"]["name"] == "rxbisect":
        sys.stderr.write("error: rxbisect is cursed\\n")
        sys.exit(1)
    print(json.dumps(OUT))
    """)
    (tmp_path / "a.toml").write_text(TINY)
    (tmp_path / "b.toml").write_text(_bad(TINY, '[[interface]]\nname = "rxbisect"\n', ""))
    out = tmp_path / "o"
    planned = [reproduce.prepare(str(tmp_path / f"{x}.toml"), quick=True, out=out, jobs=2)[0]
               for x in "ab"]
    with pytest.raises(EngineError, match=r"1 of 2 experiments did not finish cleanly: a \("):
        reproduce.run_each(planned, out, None, 2, False)
    assert "rxb: warning: a: " in capsys.readouterr().err
    assert {r["arch"] for r in lines(out / "a.jsonl")} == {"privring"}  # recorded anyway
    assert len(lines(out / "b.jsonl")) == 2 and (out / "b.summary.json").exists()


def test_an_experiment_that_recorded_no_point_leaves_no_empty_file(tmp_path, make_engine,
                                                                    capsys):
    """Every point failed, and the ID.jsonl made for them stayed behind empty: `rxb report`
    and `rxb compare-runs` then refused the whole folder."""
    make_engine('sys.stderr.write("error: cursed\\n")\nsys.exit(1)\n')
    (tmp_path / "tiny.toml").write_text(TINY)
    out = tmp_path / "o"
    planned = reproduce.prepare(str(tmp_path / "tiny.toml"), quick=True, out=out, jobs=2)
    assert not (out / "tiny.jsonl").exists()  # the check that it can be written made none
    with pytest.raises(EngineError, match=r"tiny \(4 of 4 points failed"):
        reproduce.run_each(planned, out, None, 2, False)
    assert not (out / "tiny.jsonl").exists()
    capsys.readouterr()


def test_a_figure_that_fails_leaves_records_and_summary_and_says_so(tmp_path, monkeypatch,
                                                                    capsys):
    def broken(*args, **kwargs):
        raise ValueError("no ink")
    monkeypatch.setattr(plot, "experiment", broken)
    (tmp_path / "tiny.toml").write_text(TINY)
    out = tmp_path / "o"
    planned = reproduce.prepare(str(tmp_path / "tiny.toml"), quick=True, out=out, jobs=2)
    with pytest.raises(EngineError, match=r"tiny \(its figure was not drawn \(ValueError: no ink"):
        reproduce.run_each(planned, out, None, 2, False)
    assert "rxb: warning: tiny: its figure was not drawn" in capsys.readouterr().err
    assert len(lines(out / "tiny.jsonl")) == 4 and (out / "tiny.summary.json").exists()


def test_json_shows_the_experiments_that_finished_when_one_did_not(tmp_path, monkeypatch,
                                                                   capsys):
    """stdout stayed empty: the JSON was printed only when every experiment finished."""
    def broken(*args, **kwargs):
        raise ValueError("no ink")
    monkeypatch.setattr(plot, "experiment", broken)
    (tmp_path / "tiny.toml").write_text(TINY)
    assert cli.main(["repro", str(tmp_path / "tiny.toml"), "--quick", "--json", "--jobs", "2",
                     "--out", str(tmp_path / "o"), "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert [r["id"] for r in json.loads(out)] == ["tiny"]
    assert "rxb: error: 1 of 1 experiments did not finish cleanly: tiny" in err


def test_an_interface_grid_keeps_its_values_in_full_and_is_narrowed_in_quick(tmp_path):
    exp = tmp_path / "tiny.toml"
    exp.write_text(_bad(TINY, 'name = "rxbisect"\n',
                        'name = "rxbisect"\ngrid = { traffic.rate_gbps = [5.0, 10.0, 20.0] }\n')
                   .replace("[plot]", "[quick]\ngrid = { traffic.rate_gbps = [5.0] }\n[plot]"))
    e = experiments.load(str(exp))

    def rates(quick: bool) -> dict[str, set]:
        out: dict[str, set] = {}
        for p in reproduce.plan(e, quick).points:
            out.setdefault(p.task["params"]["design"], set()).add(p.grid["traffic.rate_gbps"])
        return out
    assert rates(False) == {"privring": {5.0, 10.0}, "rxbisect": {5.0, 10.0, 20.0}}
    assert rates(True) == {"privring": {5.0}, "rxbisect": {5.0}}


@pytest.mark.parametrize("quick", [True, False])
def test_dynamic_shring_is_measured_after_its_controller_can_decide(quick):
    """Dynamic shRing starts as privRing and decides on a window of arch.dyn_window samples of
    arch.dyn_sample_ms (160 ms): proc-var, traffic-var and trace measured it from 30 or 80 ms,
    so its series was privRing's under another name. (dyn-switch plots the controller's own
    time series from the start: its point is the switching, not a measured interval.)"""
    for eid in experiments.ids():
        exp = experiments.load(eid)
        if eid == "dyn-switch" or not any(i.name == "dyn_shring" for i in exp.interfaces):
            continue
        for p in reproduce.plan(exp, quick=quick).points:
            s = p.task["sections"]
            if s["arch"]["name"] == "dyn_shring":
                window = s["arch"]["dyn_window"] * s["arch"]["dyn_sample_ms"]
                assert s["run"]["warmup_ms"] >= window, (eid, quick, s["run"])


def test_the_dark_packet_bound_counts_the_nfs_compute():
    """darkpackets.md's bound is 1 - g / (M t_d + compute): with the NF's 2100 cycles at
    2.1 GHz (1000 ns), 4 reads of 100 ns and a 123.04 ns gap (1518 B at 100 G on one core)
    it is 1 - 123.04 / 1400; without the compute it read 1 - 123.04 / 400."""
    rec = {"config": {"system": {"cores": 1, "nics": 1},
                      "traffic": {"rate_gbps": 100.0, "packet_bytes": 1518},
                      "workload": {"reads": 4, "nf_cycles": 2100, "compute_ns": 0.0}},
           "profile": {"cpu": {"freq_ghz": 2.1}, "dram": {"idle_ns": 100.0}},
           "metrics": {"dram_latency_ns_mean": None}}
    bound = experiments.DERIVE["dark_bound"](rec)["dark_bound_drop_rate"]
    assert bound == pytest.approx(1 - 8 * 1538 / 100 / 1400)


def test_the_allocator_share_is_split_between_target_and_other_cores():
    """traffic-var's catalogue metric is the allocator's share per core: the system-wide mean
    hid the target core's (0.035 against the others' 0.005 for rxBisect at a 1 % share)."""
    rec = {"metrics": {"per_core": [
        {"core": 0, "target": True, "alloc_cycle_share": 0.04},
        {"core": 1, "target": False, "alloc_cycle_share": 0.004},
        {"core": 2, "target": False, "alloc_cycle_share": 0.006},
        {"core": 3, "target": False, "alloc_cycle_share": None}]}}
    got = experiments.DERIVE["alloc_by_target"](rec)
    assert got == pytest.approx({"alloc_cycle_share_target": 0.04,
                                 "alloc_cycle_share_others": 0.005})
