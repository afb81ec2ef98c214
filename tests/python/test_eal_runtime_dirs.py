"""The emulator's and the driver's C tests remove their DPDK runtime directory when they exit:
each has a file prefix of its own (NAME_PID), and rte_eal_cleanup() leaves the directory and its
~6.5 MB of files on a tmpfs, so every `make test` used to add ~100 MB under /var/run/dpdk."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"


def runtime_root() -> Path:
    if os.getuid() == 0:
        return Path("/var/run/dpdk")
    return Path(os.environ.get("XDG_RUNTIME_DIR", "/tmp")) / "dpdk"


@pytest.mark.parametrize("test,prefix", [("emu/test_emu_gen", "rxb_test_emu_gen"),
                                         ("pmd/test_pmd_queues", "pmdq")])
def test_a_c_test_leaves_no_runtime_dir(test, prefix):
    exe = BUILD / test
    if not exe.is_file():
        pytest.skip(f"{exe} is not built")
    p = subprocess.Popen([str(exe)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    out, _ = p.communicate(timeout=300)
    if p.returncode == 2 and ("rte_eal_init" in out or "cannot start the EAL" in out):
        pytest.skip("DPDK EAL cannot start here")
    assert p.returncode == 0, out
    assert not (runtime_root() / f"{prefix}_{p.pid}").exists()
