"""bench_rings' 2-thread rows run on CPUs of the process's affinity mask and say which, not on
CPUs 0 and 1 whatever the mask: under a one-CPU mask they are refused, saying why."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "build" / "bench" / "bench_rings"
pytestmark = pytest.mark.skipif(not BIN.is_file(), reason="bench_rings is not built")
ALLOWED = sorted(os.sched_getaffinity(0))


def run(tmp_path, cpus):
    out = tmp_path / "rings.json"
    p = subprocess.run([str(BIN), "--reps", "1", "--ms", "5", "--only", "privring_2threads",
                        "--json", str(out)], capture_output=True, text=True, timeout=120,
                       preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    return p, out


@pytest.mark.skipif(len(ALLOWED) < 2, reason="needs 2 CPUs")
def test_two_threads_run_on_allowed_cpus_and_the_json_names_them(tmp_path):
    p, out = run(tmp_path, ALLOWED)
    assert p.returncode == 0, p.stderr
    m = json.loads(out.read_text())["machine"]
    a, b = m["two_thread_cpus"]
    assert a != b and {a, b} <= set(ALLOWED)
    assert m["allowed_cpus"] == len(ALLOWED) and m["two_thread_pinned"] is True
    if len(ALLOWED) >= 3:
        assert 0 not in (a, b)


def test_one_allowed_cpu_refuses_the_two_thread_rows(tmp_path):
    # sysconf(_SC_NPROCESSORS_ONLN) counted the machine's CPUs, not the mask, and the threads
    # ran unpinned on CPUs they were not given
    p, out = run(tmp_path, [ALLOWED[-1]])
    assert p.returncode != 0
    assert "needs 2 CPUs this process may use; it has 1" in p.stderr
