"""scripts/test-all.sh (`make test`) with a stand-in make: a suite that hangs is stopped after
RXB_SUITE_TIMEOUT seconds, with what it started, and reported as timed out; the later suites
still run and the summary still prints."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# test-c hangs in a child (as ctest would), which writes its pid
FAKE_MAKE = """#!/bin/sh
suite=$2
echo "running $suite"
if [ "$suite" = test-c ]; then
  sh -c 'echo $$ > "{marker}"; sleep 20' &
  wait
fi
exit 0
"""


def test_a_hung_suite_is_reported_and_the_summary_prints(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "test-all.sh", tmp_path / "scripts")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "child.pid"
    (bin_dir / "make").write_text(FAKE_MAKE.format(marker=marker))
    (bin_dir / "make").chmod(0o755)
    t0 = time.monotonic()
    p = subprocess.run(["bash", "scripts/test-all.sh"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=120,
                       env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
                            "RXB_SUITE_TIMEOUT": "2"})
    assert time.monotonic() - t0 < 15
    assert p.returncode == 1
    summary = p.stdout[p.stdout.index("== make test summary =="):]
    assert "test-c       FAILED (timed out after 2 s)" in summary
    assert "test-all: test-c stopped after 2 s" in summary
    for suite in ("lint", "test-asan", "test-tsan", "test-fuzz", "test-py"):
        assert f"{suite:12s} passed" in summary
    pid = int(marker.read_text())
    time.sleep(0.5)
    stat = Path(f"/proc/{pid}/stat")
    # stopped with the suite, not left running (a zombie whose parent has not reaped it is dead)
    assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
