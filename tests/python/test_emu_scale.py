"""bench/emu_scale.py, the full-run sweep: its grid stays within what rxb-emu accepts on any
CPU count, and a point that fails or hangs makes the sweep exit non-zero with its rows kept."""
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
    rows = json.loads(out.read_text())["rows"]
    assert rows and all("error" in r for r in rows)
