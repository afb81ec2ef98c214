"""bench/sim_bench.sh with a stand-in rxb-sim (RXB_SIM_BIN): a run that fails stops the
benchmark naming the interface and run with the engine's own stderr, progress goes to stderr,
and sim.json is written after every round with each median as a ratio to privring's."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "sim_bench.sh"

# a record with what sim_bench reads; privring twice as fast as the others. FAIL_AT: the call
# (counted in a file) that fails the way an engine does
FAKE = """#!/bin/sh
n=$(($(cat "{count}" 2>/dev/null || echo 0) + 1)); echo $n > "{count}"
if [ "$n" -ge {fail_at} ]; then echo "rxb-sim: error: bad scenario key" >&2; exit 3; fi
case $(cat "$2") in *'"privring"'*) wall=0.5 ;; *) wall=1.0 ;; esac
echo '{{"sim_packets": 1000, "sim_wall_s": '$wall', "metrics": {{"conservation":' \\
     '{{"packets_ok": true, "buffers_ok": true}}}}}}'
"""


def run(tmp_path, fail_at, runs=2):
    fake = tmp_path / "rxb-sim"
    fake.write_text(FAKE.format(count=tmp_path / "count", fail_at=fail_at))
    fake.chmod(0o755)
    env = {**os.environ, "RXB_SIM_BIN": str(fake), "RXB_SIM_BENCH_RUNS": str(runs),
           "RXB_SIM_BENCH_MS": "5", "RXB_SIM_BENCH_CALLGRIND": "0",
           "RXB_BENCH_RESULTS": str(tmp_path / "results")}
    p = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=300,
                       env=env, cwd=ROOT)
    out = tmp_path / "results" / "sim.json"
    return p, (json.loads(out.read_text()) if out.exists() else None)


def test_a_failing_run_names_itself_and_shows_the_engines_stderr(tmp_path):
    p, doc = run(tmp_path, fail_at=1)
    assert p.returncode == 1
    assert "sim_bench: privring run 1/2 failed (exit 3)" in p.stderr
    assert "rxb-sim: error: bad scenario key" in p.stderr
    assert doc is None


def test_progress_ratios_and_a_complete_json(tmp_path):
    p, doc = run(tmp_path, fail_at=10**6)
    assert p.returncode == 0, p.stderr
    assert "sim_bench: run 1/2" in p.stderr and "sim_bench: run 2/2" in p.stderr
    assert doc["complete"] is True and doc["runs"] == 2
    assert doc["sim_pkts_per_s"]["privring"] == 2000
    assert doc["sim_pkts_per_s_vs_privring"]["rxbisect"] == 0.5
    assert "0.50x privring" in p.stdout


def test_an_interrupted_benchmark_keeps_its_finished_rounds(tmp_path):
    p, doc = run(tmp_path, fail_at=8, runs=3)  # 6 interfaces a round: round 2 fails
    assert p.returncode == 1 and "run 2/3 failed" in p.stderr
    assert doc["complete"] is False and doc["runs"] == 1
    assert len(doc["samples"]["rxbisect"]) == 1
