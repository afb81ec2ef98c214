"""bench/emu_bench.sh with stand-ins for rxb-emu and dpdk-testpmd: testpmd's lcores come from
the CPUs this process may use (not CPUs 0 and 1), a testpmd that fails stops the benchmark with
its output instead of leaving every ratio null, and the JSON is written after every run."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "emu_bench.sh"

RECORD = {
    "machine": {"pages": "4k", "tsc_hz": 1e9},
    "params": {},
    "dispatch": [{"arch": "privring", "conservation_ok": True, "achieved_mpps": 10.0,
                  "capacity_mpps": 20.0, "cycles_per_packet": 50.0,
                  "loaded_cycles_per_packet": 50.0, "idle_share": 0.1,
                  "added_latency_ns": 100.0, "stage_cycles_per_packet": {"rx": 10.0}}],
    "rx_cost": [{"arch": "privring", "rx_ns": 5.0, "free_ns": 5.0, "rx_cycles": 5.0,
                 "free_cycles": 5.0}],
}

# testpmd's 1 s periods for two ports: the first of each is start-up (zero)
TESTPMD = """#!/bin/sh
echo "$@" >> "{args}"
calls=$(wc -l < "{args}")
if [ "{mode}" = fail ] || {{ [ "{mode}" = fail2 ] && [ "$calls" -ge 2 ]; }}; then
  echo "EAL: Cannot set affinity" >&2; exit 1
fi
[ "{mode}" = silent ] && exit 124  # stopped by the timeout before any period
for n in 0 1 2; do
  echo "  Rx-pps:   $((n * 1000000))"
  echo "  Rx-pps:   $((n * 1000000))"
done
sleep 30
"""


def run_bench(tmp_path, mode, runs=2):
    build = tmp_path / "build"
    (build / "emu").mkdir(parents=True)
    emu = build / "emu" / "rxb-emu"
    emu.write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps(RECORD)}\nEOF\n")
    emu.chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tpmd = bin_dir / "dpdk-testpmd"
    args = tmp_path / "testpmd.args"
    tpmd.write_text(TESTPMD.format(args=args, mode=mode))
    tpmd.chmod(0o755)
    out = tmp_path / "emu.json"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "RXB_EMU_BENCH_RUNS": str(runs), "RXB_EMU_BENCH_MS": "1",
           "RXB_EMU_BENCH_TESTPMD_S": "1", "RXB_EMU_BENCH_LCORES": "1",
           "RXB_EMU_BENCH_OUT": str(out)}
    p = subprocess.run(["bash", str(SCRIPT), str(build)], capture_output=True, text=True,
                       timeout=120, env=env, cwd=ROOT)
    return p, out, (args.read_text().splitlines() if args.exists() else [])


def test_testpmd_runs_on_the_cpus_this_process_may_use_and_the_json_says_so(tmp_path):
    p, out, args = run_bench(tmp_path, "ok")
    assert p.returncode == 0, p.stderr
    cpus = sorted(os.sched_getaffinity(0))
    want = f"--lcores=0@{cpus[0]},1@{cpus[-1]}"
    assert len(args) == 2 and all(want in a.split() for a in args), args
    assert all(" -l " not in f" {a} " for a in args)
    doc = json.loads(out.read_text())
    assert doc["complete"] and doc["runs"] == 2 and want in doc["testpmd"]["command"]
    assert doc["testpmd"]["total_mpps"] == 3.0  # medians of 1 and 2 Mpps, per port, summed
    assert doc["dispatch"]["privring"]["achieved_vs_testpmd"] == round(10 / 3, 3)


@pytest.mark.parametrize("mode", ["fail", "silent"])
def test_a_failed_baseline_fails_the_benchmark_with_its_output(tmp_path, mode):
    p, out, args = run_bench(tmp_path, mode)
    assert p.returncode != 0
    assert "dpdk-testpmd" in p.stderr
    if mode == "fail":
        assert "exit 1" in p.stderr and "Cannot set affinity" in p.stderr
    assert len(args) == 1  # stopped at the first run
    assert not out.exists()


def test_the_json_is_written_after_every_run(tmp_path):
    # the second testpmd fails: the first run's figures are kept, marked incomplete
    p, out, args = run_bench(tmp_path, "fail2", runs=3)
    assert p.returncode != 0 and "run 2/3: dpdk-testpmd failed" in p.stderr
    doc = json.loads(out.read_text())
    assert doc["runs"] == 1 and doc["complete"] is False
    assert doc["testpmd"]["total_mpps"] == 3.0
