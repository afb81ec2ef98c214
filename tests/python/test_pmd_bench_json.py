"""bench/pmd_bench.py rewrites its JSON after every testpmd run ("complete": false until the
last), so a benchmark interrupted part way keeps the runs it finished; the complete document
keeps the fields it had when it was written only at the end. testpmd is not started: its run is
replaced by a fake one."""
from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import load_script

pmd_bench = load_script("bench/pmd_bench.py")

# a complete document's top-level fields, besides "complete"
FIELDS = {"what", "goal_ratio", "goal_met", "queues", "direct", "direct_equal_cpus",
          "direct_nic_threads", "nic_threads_skipped", "interfaces", "design_cpu_budget",
          "design_command", "base_driver", "cpu_hz", "method", "machine", "runs", "elapsed_s",
          "date", "command"}
# Mpps forwarded per configuration; a repetition runs direct, privring, direct_equal_cpus,
# rxbisect, direct
MPPS = {"direct": 10.0, "privring": 6.0, "direct_equal_cpus": 12.0, "rxbisect": 5.0}


def forwarded(name):
    """one_run's result of a run of configuration `name` that measured."""
    pps = int(MPPS[name] * 1e6)
    return {"ok": True, "rc": 0, "log": "run.log", "startup_s": 0.1, "windows_s": 2.0,
            "exit_s": 0.1, "load_avg_before": 0.0, "rx_pps": [pps, pps], "tx_pps": [pps, pps],
            "mpps": MPPS[name], "rx_mpps": MPPS[name]}


@pytest.fixture
def bench(monkeypatch, tmp_path):
    """main() over two interfaces, 2 repetitions, its runs made by the fake one given; the
    path of its JSON."""
    out = tmp_path / "pmd.json"

    def start(fake_run):
        monkeypatch.setattr(pmd_bench, "one_run", fake_run)
        monkeypatch.setattr(sys, "argv", [
            "pmd_bench.py", "--testpmd", "dpdk-testpmd", "--so", "driver.so", "--out", str(out),
            "--log-dir", str(tmp_path), "--reps", "2", "--ifaces", "privring,rxbisect",
            "--prefix", f"rxb-pmdb-test-{os.getpid()}"])
        return pmd_bench.main()
    return out, start


def runs_on_disk(out):
    """(complete, runs written) of the document at out, or None when there is none."""
    if not out.exists():
        return None
    doc = json.loads(out.read_text())
    return doc["complete"], sum(len(v) for v in doc["runs"].values())


def test_every_finished_run_is_on_disk_before_the_next_starts(bench):
    out, start = bench
    seen = []

    def run(a, name, eal, app, tag, log_dir):
        seen.append(runs_on_disk(out))
        return forwarded(name)

    assert start(run) == 0
    assert seen == [None] + [(False, n) for n in range(1, 10)]
    doc = json.loads(out.read_text())
    assert doc["complete"] is True and set(doc) == FIELDS | {"complete"}
    assert doc["interfaces"]["privring"]["ratio"] == 0.6
    assert doc["interfaces"]["rxbisect"]["samples_mpps"] == [5.0, 5.0]
    assert doc["direct"]["samples_mpps"] == [10.0] * 4


def test_an_interrupted_benchmark_keeps_the_runs_it_finished(bench):
    out, start = bench

    def run(a, name, eal, app, tag, log_dir):
        if name == "rxbisect":  # the fourth run: the user stops the benchmark
            raise KeyboardInterrupt
        return forwarded(name)

    with pytest.raises(KeyboardInterrupt):
        start(run)
    doc = json.loads(out.read_text())
    assert doc["complete"] is False
    assert {k: len(v) for k, v in doc["runs"].items()} == {
        "direct": 1, "direct_equal_cpus": 1, "privring": 1, "rxbisect": 0}
    assert list(doc["interfaces"]) == ["privring"]  # rxbisect has not run: no entry yet
    assert doc["interfaces"]["privring"]["ratio"] == 0.6
    assert not out.with_name("pmd.json.tmp").exists()
