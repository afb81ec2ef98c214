"""`rxb calibrate --costs FILE`: a cost profile measured from the emulator's real NFs, which
the simulator then accepts as workload.costs."""

import pytest

from conftest import run_cli
from rxbisect.engines import emu
from rxbisect.errors import EngineError
from rxbisect.vocab import costs, scenario


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    try:
        emu.find_emulator()
    except EngineError as e:
        pytest.skip(str(e))
    path = tmp_path_factory.mktemp("costs") / "measured.toml"
    p = run_cli("calibrate", "--costs", str(path), "--quick")
    if p.returncode != 0 and "rte_eal_init failed" in p.stderr:
        pytest.skip("DPDK cannot start here")
    assert p.returncode == 0, p.stderr
    return path, p.stdout


def test_every_nf_measured_and_the_profile_loads(measured):
    path, out = measured
    prof = costs.load(str(path))
    assert set(prof.cycles) == set(costs.nf_names())
    assert all(c > 0 for c in prof.cycles.values())
    assert f"workload.costs={path}" in out
    # the simulator takes it: nf_cycles resolve from the measured file
    res = scenario.load_resolved(None, [f"workload.costs={path}", "workload.nf=nat"])
    assert res.scenario.workload.nf_cycles == prof.cycles["nat"]


def test_a_folder_is_refused(tmp_path):
    p = run_cli("calibrate", "--costs", str(tmp_path))
    assert p.returncode == 2
    assert "is a folder" in p.stderr
