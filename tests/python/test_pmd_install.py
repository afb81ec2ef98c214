"""scripts/pmd-install.sh: the driver where DPDK agrees to load it (docs/pmd.md).

DPDK refuses a -d driver below a world-writable directory (a checkout under
/tmp); the script copies it to a directory that is not, prints the -d
argument, and refuses a destination DPDK would refuse.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

import testpmd
from testpmd import ROOT, TESTPMD, TestPmd, pmd_so

pytestmark = pytest.mark.skipif(not pmd_so().exists() or not os.path.exists(TESTPMD),
                                reason="net_rxbisect or dpdk-testpmd not built/installed")

SCRIPT = ROOT / "scripts" / "pmd-install.sh"


def install(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def private_dir():
    """A directory below the home directory, which no other user can write."""
    base = Path.home() / ".cache" / "rxbisect"
    base.mkdir(parents=True, exist_ok=True)
    d = Path(tempfile.mkdtemp(prefix="pmd-install-", dir=base))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_install_then_testpmd_loads_it(private_dir, monkeypatch):
    build = str(pmd_so().parents[1])
    dest = private_dir / "lib" / "rxbisect"
    r = install(build, str(dest))
    assert r.returncode == 0, r.stderr
    so = dest / pmd_so().name
    assert r.stdout.strip() == f"-d {so}"
    assert so.read_bytes() == pmd_so().read_bytes()
    assert stat.S_IMODE(so.stat().st_mode) == 0o644
    assert not dest.stat().st_mode & stat.S_IWOTH
    # testpmd given exactly that -d path
    monkeypatch.setattr(testpmd, "pmd_so_loadable", lambda: so)
    with TestPmd("port=net_null0", timeout=30) as t:
        assert t.started, t.log[-2000:]
        assert f"-d {so}" in " ".join(t.cmdline)
        assert "rxbisect over net_null0" in t.log
        assert t.quit() == 0


def test_world_writable_destination_refused(tmp_path):
    world = tmp_path / "shared"
    world.mkdir()
    world.chmod(0o777)
    r = install(str(pmd_so().parents[1]), str(world / "rxbisect"))
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "is world-writable" in lines[0] and "DEST" in lines[0], r.stderr
    assert not (world / "rxbisect").exists()


def test_missing_build_refused(private_dir):
    r = install(str(private_dir / "nobuild"), str(private_dir / "lib"))
    assert r.returncode != 0
    assert len(r.stderr.strip().splitlines()) == 1 and "no driver there" in r.stderr
