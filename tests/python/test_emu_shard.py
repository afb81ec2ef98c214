"""Several NIC lcores, end to end: "auto" gives each its own queues, given values stay.

The scenario library resolves an emulated run's "auto" arch.share_degree and
arch.association so that each of emu.nic_lcores NIC lcores gets physical queues of its own
(docs/emulator.md, "Several NIC lcores"); scenario/tests/test_scenario.c holds the numbers.
Here: the real rxb-emu runs that way through the front end, refuses an explicit value that
leaves a NIC lcore without a queue, and the simulator's resolution never sees emu.nic_lcores.
"""

import json
import subprocess

import pytest

from rxbisect.vocab import scenario
from test_emu_cli import BIN, balanced, emu_cli, needs_bin

SHARDED = ("--set", "run.duration_ms=20", "--set", "system.cores=4", "--set", "emu.nic_lcores=2")


@needs_bin
@pytest.mark.parametrize("arch, key, value", [
    ("shring", "arch.share_degree", 2),       # 2 shared rings
    ("shring_list", "arch.share_degree", 2),
    ("rxbisect", "arch.association", "groups"),  # 2 association sets
])
def test_auto_gives_each_nic_lcore_queues_of_its_own(arch, key, value):
    p = emu_cli("--json", *SHARDED, "--set", f"arch.name={arch}")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    m = rec["metrics"]
    assert rec["params"][key] == value
    assert m["emulator"]["nic_lcores"] == 2
    assert m["conservation"] == {"packets_ok": True, "buffers_ok": True} and balanced(m)


@needs_bin
@pytest.mark.parametrize("sets", [
    ("arch.name=rxbisect", "arch.association=all"),
    ("arch.name=shring", "arch.share_degree=4"),
])
def test_a_given_value_that_leaves_a_nic_lcore_idle_is_refused(sets):
    p = subprocess.run([str(BIN), *SHARDED, *[a for s in sets for a in ("--set", s)]],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "emu.nic_lcores = 2" in errors[0], p.stderr
    assert "1 physical queue" in errors[0], p.stderr


def test_the_simulator_resolves_without_nic_lcores():
    sets = ["arch.name=shring", "arch.emulated=true", "system.cores=8", "system.nics=1"]
    plain = scenario.load_resolved(None, sets).scenario.arch
    told = scenario.load_resolved(None, [*sets, "emu.nic_lcores=4"]).scenario.arch
    assert plain.share_degree == told.share_degree == 8
    assert plain.association == told.association == "all"


@needs_bin
def test_each_bench_design_resolves_its_own_auto_sizes():
    """`rxb-emu --bench` runs every design from one unresolved base: each gets its own "auto"
    ring sizes (small privRing its small rings), the buffers the library's shape posts."""
    p = subprocess.run([str(BIN), "--bench", "--bench-ms", "20", "--set", "system.cores=2"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = {r["arch"]: r for r in json.loads(p.stdout)["dispatch"]}
    for arch in ("privring", "small_privring"):
        c = scenario._native_scn(scenario.load(None, [f"arch.name={arch}", "system.cores=2"]))
        c.resolve(None)
        s = c.shape()
        assert rows[arch]["virt_slots"] == s.n_srcs * s.src_buffers, arch
    assert rows["small_privring"]["virt_slots"] < rows["privring"]["virt_slots"]
