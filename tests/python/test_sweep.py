"""`rxb sweep` and `rxbisect.sweep`: points, records, resume after SIGKILL / SIGINT / a dead
worker, the Dask cluster path, and the one-line errors (docs/sweeps.md).

Every run is tiny (0.5 ms simulated, 2 cores, 1 NIC). Interruptions are made deterministic
with a gated engine: a wrapper around the real rxb-sim that runs seed 1 at once and holds
every other seed until a file appears, so "killed mid-way" never depends on timing.
"""

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

import rxbisect
from conftest import REPO, run_cli
from rxbisect.commands import cli
from rxbisect.engines import engine
from rxbisect.output import records
from rxbisect.study.sweeps import idle_in_part, plan

TINY = ["run.duration_ms=0.5", "run.warmup_ms=0.1", "system.cores=2", "system.nics=1",
        "traffic.rate_gbps=10"]
SETS = [a for s in TINY for a in ("--set", s)]
# the sweep the interruption tests run: 2 interfaces x 3 seeds = 6 points
GRID = ["--grid", "arch.name=privring,rxbisect", "--seeds", "3"]

try:
    REAL_ENGINE = engine.find_engine()
except Exception:  # noqa: BLE001
    REAL_ENGINE = None
pytestmark = pytest.mark.skipif(REAL_ENGINE is None, reason="rxb-sim not built (make build)")


def sweep_cmd(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "rxbisect", "sweep", *SETS, *GRID, "--out", str(out),
            "--no-progress", *extra]


def lines(out: Path) -> list[dict]:
    """Every line of DIR/sweep.jsonl, each of which must be a whole record."""
    data = (out / records.FILE).read_bytes()
    assert data == b"" or data.endswith(b"\n"), "the file ends in a half-written line"
    return [json.loads(x) for x in data.splitlines()]


def ids(recs: list[dict]) -> list[str]:
    return [r["point_id"] for r in recs]


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, dict]:
    """The interruption tests' sweep, run once without interruption: point id -> record."""
    out = tmp_path_factory.mktemp("clean")
    env = {k: v for k, v in os.environ.items() if k != "RXB_SIM_BIN"}
    p = subprocess.run(sweep_cmd(out, "--jobs", "2"), capture_output=True, text=True,
                       cwd=REPO, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    recs = lines(out)
    assert len(recs) == 6 and len(set(ids(recs))) == 6
    return {r["point_id"]: r for r in recs}


@pytest.fixture
def gated(tmp_path):
    """(env, open_gate): RXB_SIM_BIN = the real engine behind a gate for seeds other than 1."""
    go = tmp_path / "go"
    gate = tmp_path / "gated-rxb-sim"
    gate.write_text(f"""#!{sys.executable}
import json, os, sys, time
cfg = json.load(open(sys.argv[2]))
if cfg["run"]["seed"] != 1:
    deadline = time.monotonic() + 120  # never outlive a broken test for long
    while not os.path.exists({str(go)!r}):
        if time.monotonic() > deadline:
            sys.exit("gate never opened")
        time.sleep(0.01)
os.execv({str(REAL_ENGINE)!r}, [{str(REAL_ENGINE)!r}] + sys.argv[1:])
""")
    gate.chmod(0o755)
    return {**os.environ, "RXB_SIM_BIN": str(gate)}, go.touch


def start_and_wait_for_a_record(out: Path, env: dict) -> tuple[subprocess.Popen, list]:
    """Start the gated sweep; return once a whole record is in the file (polled), with the
    process tree as it is then."""
    # SIGINT at its default in the sweep even when this test runs with SIGINT ignored (nohup,
    # a background script): an ignored disposition is inherited and Python keeps it ignored.
    proc = subprocess.Popen(sweep_cmd(out, "--jobs", "2"), cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    path = out / records.FILE
    deadline = time.monotonic() + 60
    while not (path.exists() and b"\n" in path.read_bytes()):
        assert proc.poll() is None, f"sweep ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "no record within 60 s"
        time.sleep(0.01)
    tree = psutil.Process(proc.pid).children(recursive=True)
    return proc, tree


def assert_all_gone(tree: list) -> None:
    _, alive = psutil.wait_procs(tree, timeout=15)
    assert not alive, f"left running: {[(p.pid, p.cmdline()) for p in alive]}"


def test_points_records_and_dataframe(tmp_path):
    out = tmp_path / "s"
    df = rxbisect.sweep(None, grid={"arch.name": ["privring", "rxbisect"],
                                    "traffic.rate_gbps": [5, 10.0]},
                        seeds=2, out=out, jobs=2, sets=TINY[:-1], progress=False)
    expected = {(a, r, s) for a in ("privring", "rxbisect") for r in (5.0, 10.0) for s in (1, 2)}
    recs = lines(out)
    assert len(recs) == len(df) == 8 and len(set(ids(recs))) == 8
    assert {(r["grid"]["arch.name"], r["grid"]["traffic.rate_gbps"], r["seed"])
            for r in recs} == expected
    for r in recs:
        assert r["experiment"] == "sweep" and r["arch"] == r["grid"]["arch.name"]
        assert r["params"]["arch.name"] == r["grid"]["arch.name"]
        assert r["params"]["traffic.rate_gbps"] == r["grid"]["traffic.rate_gbps"]
        assert r["params"]["run.seed"] == r["seed"] == r["config"]["run"]["seed"]
        assert r["config"]["system"]["cores"] == 2
        m = r["metrics"]
        assert m["conservation"]["packets_ok"]
        # the grid value reached the engine: 1 NIC offered at the point's rate
        assert m["offered_gbps"] == pytest.approx(r["grid"]["traffic.rate_gbps"], rel=0.05)
    # the DataFrame: one row per point, dotted columns, in the grid's order
    cols = (df["params.arch.name"], df["params.traffic.rate_gbps"], df["seed"])
    assert set(zip(*cols, strict=True)) == expected
    assert list(df["point_id"]) == [p.point_id for p in plan(
        None, {"arch.name": ["privring", "rxbisect"], "traffic.rate_gbps": [5, 10.0]}, 2,
        TINY[:-1])]
    for col in ("metrics.throughput_gbps", "metrics.drops_by_cause.no_ax_buf",
                "metrics.ring_occupancy.max", "params.run.seed", "sim_wall_s"):
        assert col in df.columns, col
    assert df.attrs["grid"] == ["params.arch.name", "params.traffic.rate_gbps"]
    table = pd.read_parquet(out / records.TABLE)
    assert sorted(table["point_id"]) == sorted(df["point_id"])
    assert table.set_index("point_id")["metrics.throughput_gbps"].to_dict() \
        == df.set_index("point_id")["metrics.throughput_gbps"].to_dict()

    # the same call again runs nothing: the file is untouched and the frame the same
    before = (out / records.FILE).read_bytes()
    again = rxbisect.sweep(None, grid={"arch.name": ["privring", "rxbisect"],
                                       "traffic.rate_gbps": [5, 10.0]},
                           seeds=2, out=out, jobs=2, sets=TINY[:-1], progress=False)
    assert (out / records.FILE).read_bytes() == before
    pd.testing.assert_frame_equal(again, df)
    # a wider grid runs only the new points
    wider = rxbisect.sweep(None, grid={"arch.name": ["privring", "rxbisect"],
                                       "traffic.rate_gbps": [5, 10.0, 20]},
                           seeds=2, out=out, jobs=2, sets=TINY[:-1], progress=False)
    assert len(wider) == 12 and len(lines(out)) == 12
    assert (out / records.FILE).read_bytes().startswith(before)


def test_without_seeds_every_point_keeps_the_scenarios_seed():
    points = plan(None, {"arch.ax_size": [64, "128"]}, None, [*TINY, "run.seed=7"])
    assert [(p.grid["arch.ax_size"], p.seed) for p in points] == [(64, 7), (128, 7)]
    assert points[0].task["sections"]["run"]["seed"] == 7
    # list values keep their commas: split only outside brackets
    stalled = plan(None, {"system.stalled_cores": ["[]", "[0]", "[0,1]"]}, None, TINY)
    assert [p.grid["system.stalled_cores"] for p in stalled] == [[], [0], [0, 1]]


def test_sigkill_mid_sweep_then_a_cut_line_resumes_exactly(tmp_path, gated, clean):
    env, open_gate = gated
    out = tmp_path / "s"
    proc, tree = start_and_wait_for_a_record(out, env)
    proc.kill()
    proc.communicate()
    assert_all_gone(tree)  # workers and their engines die with the sweep
    before = lines(out)
    assert 1 <= len(before) <= 2, before  # only seed 1 could finish
    # a half-written last line, as a kill in the middle of a write leaves
    with open(out / records.FILE, "ab") as f:
        f.write(json.dumps(before[0]).encode()[:200])
    open_gate()
    p = subprocess.run(sweep_cmd(out, "--jobs", "2"), cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "dropped a half-written last line" in p.stderr
    after = lines(out)
    assert after[:len(before)] == before  # kept as they were
    assert sorted(ids(after)) == sorted(clean)  # none lost, none twice
    for r in after:
        assert r["metrics"] == clean[r["point_id"]]["metrics"]  # deterministic engine


def test_sigint_leaves_whole_records_and_the_same_command_finishes(tmp_path, gated, clean):
    env, open_gate = gated
    out = tmp_path / "s"
    proc, tree = start_and_wait_for_a_record(out, env)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "run the same command again" in err and "rxb: interrupted" in err, err
    assert "Traceback" not in err, err
    assert_all_gone(tree)
    before = lines(out)
    assert 1 <= len(before) <= 2, before
    open_gate()
    p = subprocess.run(sweep_cmd(out, "--jobs", "2"), cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "half-written" not in p.stderr
    after = lines(out)
    assert sorted(ids(after)) == sorted(clean)


def test_a_second_sigint_during_the_cleanup_changes_nothing(tmp_path, gated):
    """Ctrl-C pressed twice (or a signal to the whole group): the second one cut the cleanup
    short with a traceback, or killed the process by SIGINT instead of exit 130."""
    env, _ = gated
    proc, tree = start_and_wait_for_a_record(tmp_path / "s", env)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert_all_gone(tree)


def test_a_killed_worker_stops_the_sweep_cleanly_and_it_resumes(tmp_path, gated, clean):
    env, open_gate = gated
    out = tmp_path / "s"
    proc, tree = start_and_wait_for_a_record(out, env)
    # a pool worker: a child of the sweep that runs engines in a process group of its own
    workers = [c for c in psutil.Process(proc.pid).children()
               if c.pid == os.getpgid(c.pid)]
    assert workers
    workers[0].kill()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert err.count("rxb: error:") == 1 and "a worker process died" in err
    assert_all_gone(tree)
    assert 1 <= len(lines(out)) <= 2
    open_gate()
    p = subprocess.run(sweep_cmd(out, "--jobs", "2"), cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert sorted(ids(lines(out))) == sorted(clean)


def test_dask_cluster_gives_the_records_of_the_local_pool(tmp_path, clean):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        out = tmp_path / "s"
        p = subprocess.run(sweep_cmd(out, "--cluster", cluster.scheduler_address),
                           cwd=REPO, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        recs = lines(out)
        assert sorted(ids(recs)) == sorted(clean)
        for r in recs:
            local = clean[r["point_id"]]
            for k in ("metrics", "params", "grid", "seed", "config", "sim_packets"):
                assert r[k] == local[k], k
        # the API with the cluster object itself, nothing written
        df = rxbisect.sweep(None, grid={"arch.name": ["privring"]}, seeds=1, sets=TINY,
                            cluster=cluster, progress=False)
        (pid,) = df["point_id"]
        assert df["metrics.throughput_gbps"][0] == clean[pid]["metrics"]["throughput_gbps"]


def test_a_failing_point_is_reported_the_others_recorded_and_a_rerun_retries_it(
        tmp_path, make_engine):
    curse = tmp_path / "curse"  # the same engine (build) fails, then does not
    curse.touch()
    make_engine(f"""\
    import os
    if cfg["run"]["seed"] == 2 and os.path.exists({str(curse)!r}):
        sys.stderr.write("error: seed 2 is cursed\\n")
        sys.exit(1)
    print(json.dumps(OUT))
    """)
    out = tmp_path / "s"
    args = ["sweep", *SETS, "--seeds", "3", "--out", str(out), "--jobs", "2", "--no-progress"]
    p = run_cli(*args)
    assert p.returncode == 1, p.stderr
    (error,) = [ln for ln in p.stderr.splitlines() if ln.startswith("rxb: error:")]
    assert "1 of 3 points failed; first: run.seed=2: rxb-sim failed with exit code 1: seed 2 " \
        "is cursed; 2 of 3 points are recorded" in error
    assert "rxb: warning: point run.seed=2 failed" in p.stderr  # said when it happened
    assert sorted(r["seed"] for r in lines(out)) == [1, 3]
    curse.unlink()
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    assert "3 points: 1 run now, 2 already recorded" in p.stdout
    assert sorted(r["seed"] for r in lines(out)) == [1, 2, 3]


def test_a_point_past_its_timeout_fails_and_the_others_are_recorded(tmp_path, make_engine):
    """A wedged engine held the sweep at 0/N until Ctrl-C: no run had a time limit."""
    make_engine("""\
    import time
    if cfg["run"]["seed"] == 2:
        time.sleep(600)
    print(json.dumps(OUT))
    """)
    out = tmp_path / "s"
    p = run_cli("sweep", *SETS, "--seeds", "3", "--out", str(out), "--jobs", "3",
                "--no-progress", "--timeout", "2")
    assert p.returncode == 1, p.stderr
    assert "1 of 3 points failed; first: run.seed=2: rxb-sim did not finish within 2 s and " \
        "was stopped; 2 of 3 points are recorded" in p.stderr
    assert sorted(r["seed"] for r in lines(out)) == [1, 3]


def test_a_damaged_record_is_run_again_not_reused(tmp_path):
    """A recorded point whose metrics are gone (a hand edit, another tool) once reached
    the table and failed there with a KeyError; it is now run again, and said so."""
    out = tmp_path / "s"
    args = ["sweep", *SETS, "--seeds", "2", "--out", str(out), "--no-progress"]
    assert run_cli(*args).returncode == 0
    path = out / "sweep.jsonl"
    recs = [json.loads(ln) for ln in path.read_text().splitlines()]
    recs[0]["metrics"] = {}
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    assert "rxb: 1 point re-run: its record is damaged" in p.stderr
    assert "2 points: 1 run now, 1 already recorded" in p.stdout
    assert len(records.read(out)) == 2 and all(r["metrics"] for r in records.read(out))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("args, message", [
    (["--grid", "arch.ax_size"], "--grid 'arch.ax_size': expected KEY=V1,V2,..."),
    (["--grid", "arch.ax_size="], "--grid arch.ax_size: no values"),
    (["--grid", "arch.ax_size=64,,128"], "--grid arch.ax_size=64,,128: an empty value"),
    (["--grid", "arch.ax_sise=64"],
     "--grid: unknown key 'arch.ax_sise' (did you mean 'arch.ax_size'?)"),
    (["--grid", "arch.ax_size=64,100"], "--grid: arch.ax_size = 100: not a power of two"),
    (["--grid", "traffic.target_share=0.5,fast"],
     "--grid: traffic.target_share = 'fast': cannot be read as float"),
    (["--grid", "arch.ax_size=64,0x40"], "--grid arch.ax_size: value 0x40 is given twice"),
    (["--grid", "arch.ax_size=64", "--grid", "arch.ax_size=128"],
     "--grid arch.ax_size is given twice"),
    (["--grid", "emu.port=1,2"], "--grid emu.port: no effect in the simulator"),
    (["--grid", "traffic.packet_bytes=64,9000"],
     "grid point traffic.packet_bytes=9000: traffic.packet_bytes = 9000: does not fit a buffer"),
    (["--grid", "arch.rx_size=auto,1024", "--set", "arch.name=privring"],
     "grid points arch.rx_size=auto and arch.rx_size=1024 are the same scenario"),
    (["--grid", "run.seed=1,2", "--seeds", "2"], "run.seed is both a grid key and set by --seeds"),
    (["--seeds", "0"], "--seeds 0: must be an integer in [1, 1000]"),
    (["--seeds", "100000000000000000000"], "--seeds 100000000000000000000: must be an integer"),
    (["--jobs", "100000"], "--jobs 100000: must be an integer in [1, 1024]"),
    (["--grid", "arch.ax_size=64", "--set", "arch.ax_size=128"],
     "--set arch.ax_size: also a --grid key, whose values replace it; give one of them"),
    (["--seeds", "2", "--set", "run.seed=7"],
     "--set run.seed: --seeds sets run.seed at every point; give one of them"),
    (["--jobs", "0"], "--jobs 0: must be an integer in [1, 1024]"),
    (["--set", "arch.batch=1000"], "--set: arch.batch = 1000: out of range"),
    (["--cluster", "nowhere"], "--cluster nowhere: expected HOST:PORT or tcp://HOST:PORT"),
    (["--cluster", "tcp://127.0.0.1:{port}"], "--cluster tcp://127.0.0.1:{port}: cannot reach "
                                              "a Dask scheduler there"),
    (["--jobs", "2", "--cluster", "tcp://127.0.0.1:1"], "--jobs sets the local pool"),
    (["--out", "{file}"], "--out {file}: a file, not a folder"),
    (["--out", "{file}/sub"], "--out {file}/sub: cannot create the folder"),
])
def test_each_bad_input_is_one_clear_error_before_anything_runs(tmp_path, capsys, args,
                                                                message):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    fill = {"port": _free_port(), "file": a_file}
    args = [a.format(**fill) for a in args]
    out = tmp_path / "out"
    argv = ["sweep", *SETS, "--no-progress", *args]
    if "--out" not in args:
        argv += ["--out", str(out)]
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.splitlines() == [f"rxb: error: {err.splitlines()[0][12:]}"]
    assert message.format(**fill) in err
    assert not out.exists()


def test_an_append_the_disk_refuses_leaves_whole_records_only(tmp_path, monkeypatch):
    """A full disk took part of a line: the file kept it, and the next run blamed "an
    interrupted run" for the half-written line it dropped."""
    out = tmp_path / "s"
    rec = {"point_id": "a" * 16, "metrics": {}}
    with records.Store(out) as store:
        store.append(rec)
        whole = (out / records.FILE).read_bytes()
        real_write = os.write

        def half_then_full(fd, data):
            real_write(fd, bytes(data[:len(data) // 2]))
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr(os, "write", half_then_full)
        with pytest.raises(rxbisect.errors.RxbError, match="cannot append to .*No space left"):
            store.append({**rec, "point_id": "b" * 16})
        monkeypatch.undo()
    assert (out / records.FILE).read_bytes() == whole


def test_a_second_sweep_on_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "s"
    with records.Store(out):
        with pytest.raises(rxbisect.errors.UsageError, match="being written by another"):
            records.Store(out)  # this process
        p = subprocess.run(sweep_cmd(out), cwd=REPO, capture_output=True, text=True,
                           timeout=120)  # another process
        assert p.returncode == 2
        assert p.stderr == f"rxb: error: {out / records.FILE} is being written by another " \
            "`rxb sweep` or `rxb repro`; wait for it to finish, or use another --out\n"
    records.Store(out).close()  # the lock went with the first


def test_a_grid_key_that_changes_nothing_at_some_points_is_warned():
    """arch.ax_size is rxBisect's: in a grid of designs, privRing's points repeat one run
    under as many point ids as it has values, which a plot draws as a flat line."""
    designs = {"arch.name": ["privring", "rxbisect"], "arch.ax_size": [64, 128]}
    assert idle_in_part(designs, plan(None, designs), "--grid") == [
        "--grid arch.ax_size: arch.ax_size has no effect for arch privring (it applies to "
        "rxbisect): at those 2 of the 4 points its values repeat the same run"]
    alone = {"arch.ax_size": [64, 128]}
    assert idle_in_part(alone, plan(None, alone, sets=["arch.name=rxbisect"]), "--grid") == []


def test_a_store_removes_the_file_it_made_only_while_empty(tmp_path):
    out = tmp_path / "s"
    records.Store(out).close()
    assert out.is_dir() and not (out / records.FILE).exists()
    (out / records.FILE).touch()  # not the Store's to remove
    records.Store(out).close()
    assert (out / records.FILE).exists()


def test_a_store_does_not_keep_a_file_another_run_removed_under_it(tmp_path, monkeypatch):
    """A run that held the lock removes its empty file as it closes; one that had opened that
    file meanwhile would take the lock on a name no one reads again, and its records would be
    lost. It opens the file anew."""
    out = tmp_path / "s"
    out.mkdir()
    path = out / records.FILE
    path.touch()
    lockf = records.fcntl.lockf

    def removed_first(fd: int, how: int) -> None:
        monkeypatch.setattr(records.fcntl, "lockf", lockf)
        path.unlink()  # the other run's close, between this one's open and its lock
        lockf(fd, how)

    monkeypatch.setattr(records.fcntl, "lockf", removed_first)
    with records.Store(out) as store:
        store.append({"point_id": "ab", "metrics": {}})
    with records.Store(out) as again:
        assert list(again.records) == ["ab"]


def test_a_damaged_line_before_the_last_is_an_error_not_silently_dropped(tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    good = json.dumps({"point_id": "ab", "metrics": {}})
    (out / records.FILE).write_text(f"{good}\nnot json\n{good}\n")
    with pytest.raises(rxbisect.errors.UsageError, match=r"sweep.jsonl line 2 is not a sweep"):
        records.Store(out)
    assert (out / records.FILE).read_text() == f"{good}\nnot json\n{good}\n"  # untouched


def test_a_whole_last_line_that_is_no_record_is_an_error_not_dropped(tmp_path):
    """A line ends in its newline only when written whole: a last line that is no record was
    edited in, and was deleted as "half-written"."""
    out = tmp_path / "s"
    out.mkdir()
    good = json.dumps({"point_id": "ab", "metrics": {}})
    text = f'{good}\n{{"experiment": "sweep", "note": "mine"}}\n'
    (out / records.FILE).write_text(text)
    with pytest.raises(rxbisect.errors.UsageError, match=r"sweep.jsonl line 2 is not a sweep"):
        records.Store(out)
    assert (out / records.FILE).read_text() == text  # untouched
