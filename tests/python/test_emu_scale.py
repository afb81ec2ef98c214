"""bench/emu_scale.py, the full-run sweep: its grid stays within what rxb-emu accepts on any
CPU count, a point's row is the median of its runs, every finished run is on disk before the next
starts, and a point that fails or hangs makes the sweep exit non-zero with its rows kept."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_script
from rxbisect.engines import emu
from rxbisect.errors import EngineError

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "emu_scale.py"
emu_scale = load_script("bench/emu_scale.py")

try:
    BIN = emu.find_emulator()
except EngineError:  # pragma: no cover - depends on the build
    BIN = None

# what `rxb-emu --keys` prints for the key, and a run that fails the way rxb-emu does
FAKE = """#!/bin/sh
if [ "$1" = --keys ]; then
  echo "system.cores                 worker cores running the network function (one socket)"
  echo "                             default 2; an integer from 1 to 64 (cores); on the emulator"
  exit 0
fi
echo "error: system.cores: out of range" >&2
exit 1
"""


def grid(cpus, nic_lcores="1,2,4"):
    a = argparse.Namespace(nic_lcores=nic_lcores, archs=emu_scale.ARCHS, quick=False)
    return emu_scale.points(a, cpus, 64)


@pytest.mark.parametrize("cpus", [2, 16, 66, 67, 96, 128, 512])
def test_no_point_asks_for_more_workers_than_the_emulator_takes(cpus):
    g = grid(cpus)
    assert g and all(1 <= p["system.cores"] <= 64 for p in g)
    if cpus >= 128:
        assert max(p["system.cores"] for p in g) == 64


def test_the_limit_is_read_from_the_emulators_keys(tmp_path):
    fake = tmp_path / "rxb-emu"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    assert emu_scale.key_range(str(fake), "system.cores") == (1, 64)
    with pytest.raises(SystemExit, match="states no integer range of system.nope"):
        emu_scale.key_range(str(fake), "system.nope")


@pytest.mark.skipif(BIN is None, reason="rxb-emu is not built")
def test_the_real_emulator_states_its_worker_limit():
    lo, hi = emu_scale.key_range(str(BIN), "system.cores")
    assert lo == 1 and hi >= 8
    over = subprocess.run([str(BIN), "--set", f"system.cores={hi + 1}"], capture_output=True,
                          text=True, timeout=60)
    assert over.returncode != 0 and "system.cores" in over.stderr


def test_a_hung_point_is_an_error_row_not_a_traceback(monkeypatch):
    def hang(cmd, **kw):
        raise subprocess.TimeoutExpired(cmd, kw["timeout"])
    monkeypatch.setattr(emu_scale.subprocess, "run", hang)
    r = emu_scale.run_one("rxb-emu", {"system.cores": 2}, 10)
    assert r["error"].startswith("ran longer than") and "system.cores=2" in r["command"]


def test_failed_points_fail_the_sweep_and_keep_their_rows(tmp_path):
    fake = tmp_path / "rxb-emu"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    out = tmp_path / "scale.json"
    p = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--ms", "1", "--out", str(out)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "RXB_EMU_BIN": str(fake)})
    assert p.returncode != 0
    assert "points failed" in p.stderr and "out of range" in p.stderr
    doc = json.loads(out.read_text())
    assert doc["complete"] and doc["rows"] and all("error" in r for r in doc["rows"])
    assert all(len(r["runs"]) == 1 for r in doc["rows"])  # each failed once, not three times


def carried(mpps, **more):
    """run_one's summary of a run that carried `mpps`, the rest of its figures fixed."""
    return {"offered_mpps": 10.0, "throughput_mpps": mpps, "drop_rate": 0.0, "drops": {},
            "dispatch_mpps": mpps, "nic_cycles_per_packet": 200.0, "nic_idle_share": 0.1,
            "added_latency_ns": 900.0, "worker_idle_share": 0.2, "gen_late": 0,
            "latency_us_p99": None, "command": "rxb-emu --set ...", **more}


def at(workers):
    """A grid point as points() makes them."""
    return emu_scale.point("rxbisect", workers, 1, **{"emu.source": "null"})


def test_a_points_row_is_the_median_of_its_runs_with_each_run_kept():
    runs = [carried(5.0, drops={"no_rx_desc": 4}), carried(9.0),
            carried(6.0, drops={"no_rx_desc": 2, "full": 1})]
    row = emu_scale.point_row({"arch.name": "rxbisect"}, runs)
    assert row["arch.name"] == "rxbisect"
    assert row["throughput_mpps"] == 6.0 and row["dispatch_mpps"] == 6.0
    assert (row["throughput_mpps_min"], row["throughput_mpps_max"]) == (5.0, 9.0)
    assert row["drops"] == {"no_rx_desc": 2}  # the median by cause: full was 0 in two runs
    assert row["latency_us_p99"] is None  # not measured: null in every run
    assert row["runs"] == runs and "error" not in row


def test_a_failed_run_makes_an_error_row_that_keeps_the_runs_before():
    runs = [carried(5.0), {"error": "exit 1", "command": "rxb-emu --set x=1"}]
    row = emu_scale.point_row({"arch.name": "shring"}, runs)
    assert row["error"] == "exit 1" and row["command"] == "rxb-emu --set x=1"
    assert row["runs"] == runs


def test_every_finished_run_is_on_disk_before_the_next_starts(tmp_path):
    """A sweep killed half way (here: at the fifth run) leaves every run it finished in the
    file, marked incomplete; the file is replaced whole, never left half written."""
    out = tmp_path / "scale.json"
    seen = []

    def run(sets):
        if out.exists():
            doc = json.loads(out.read_text())
            seen.append((doc["complete"], [len(r["runs"]) for r in doc["rows"]]))
        if len(seen) == 4:
            raise KeyboardInterrupt
        return carried(float(len(seen)))

    grid = [at(n) for n in (1, 2, 3)]
    doc = {"complete": False, "rows": []}
    with pytest.raises(KeyboardInterrupt):
        emu_scale.sweep(grid, 2, run, doc, str(out))
    assert seen == [(False, [1]), (False, [2]), (False, [2, 1]), (False, [2, 2])]
    left = json.loads(out.read_text())
    assert not left["complete"] and [r["system.cores"] for r in left["rows"]] == [1, 2]
    assert left["rows"][1]["throughput_mpps"] == 2.5  # the median of runs 3 and 4: 2.0, 3.0
    assert [p.name for p in tmp_path.iterdir()] == ["scale.json"]


def test_a_finished_sweep_is_marked_complete(tmp_path):
    out = tmp_path / "scale.json"
    doc = {"complete": False, "rows": []}
    emu_scale.sweep([at(1)], 3, lambda sets: carried(4.0), doc, str(out))
    doc = json.loads(out.read_text())
    assert doc["complete"] and len(doc["rows"][0]["runs"]) == 3


def test_a_failed_point_is_not_run_again(tmp_path):
    calls = []

    def run(sets):
        calls.append(sets)
        return {"error": "exit 1", "command": "rxb-emu"}

    doc = {"complete": False, "rows": []}
    emu_scale.sweep([at(1), at(2)], 3, run, doc,
                    str(tmp_path / "scale.json"))
    assert len(calls) == 2 and all("error" in r for r in doc["rows"])


@pytest.mark.parametrize("reps", ["0", "-2"])
def test_fewer_than_one_run_per_point_is_refused(tmp_path, reps):
    p = subprocess.run([sys.executable, str(SCRIPT), "--reps", reps, "--out",
                        str(tmp_path / "scale.json")],
                       capture_output=True, text=True, timeout=60, cwd=ROOT,
                       env={**os.environ, "RXB_EMU_BIN": "/bin/true"})
    assert p.returncode != 0
    assert f"emu_scale: --reps {reps}: must be at least 1" in p.stderr
    assert not (tmp_path / "scale.json").exists()
