"""net_rxbisect: an early exit of the application, and devargs it cannot act on.

An application that exits before closing the port leaves the EAL's cleanup to
remove net_rxbisect and the wire it created (docs/pmd.md, "The wire"): that
must be an ordinary exit. A devarg given twice, or naming a queue the port
lacks, is refused with one line naming it; one the chosen design does not
read is kept, with one warning line in the Python front end's words.
"""
from __future__ import annotations

import os
import re

import pytest

from rxbisect.vocab import scenario
from testpmd import TESTPMD, TestPmd, pmd_so

pytestmark = pytest.mark.skipif(not pmd_so().exists() or not os.path.exists(TESTPMD),
                                reason="net_rxbisect or dpdk-testpmd not built/installed")

# testpmd's own error exit (rte_exit(EXIT_FAILURE, ...)), not a signal
TESTPMD_ERROR_EXIT = 1


def driver_lines(log: str) -> list[str]:
    return [ln.strip() for ln in log.splitlines() if ln.startswith("net_rxbisect:")]


@pytest.mark.parametrize("wire", ["created", "given"])
@pytest.mark.parametrize("app", [["--rxq=2000"],               # more queues than the port has
                                 ["--total-num-mbufs=2000000"]])  # a pool larger than -m
def test_early_exit_is_an_ordinary_exit(wire, app):
    pre = ["net_null0"] if wire == "given" else None
    with TestPmd("port=net_null0", app, pre_vdevs=pre, timeout=30) as t:
        assert not t.started, t.log[-2000:]
        rc = t.proc.wait(30)
        assert "rxbisect over net_null0" in t.log, t.log[-2000:]
        assert rc == TESTPMD_ERROR_EXIT, f"rc {rc}:\n{t.log[-2000:]}"


def test_repeated_devarg_refused():
    with TestPmd("port=net_null0,ax=64,ax=256", timeout=30) as t:
        rc = t.quit() if t.started else t.proc.wait(30)
        assert rc >= 0, t.log
        lines = driver_lines(t.log)
        assert len(lines) == 1 and "devarg ax=256: given twice (ax=64 came first)" in lines[0], \
            t.log[-2000:]
        assert "rxbisect over" not in t.log


def test_fault_stall_queue_out_of_range():
    with TestPmd("port=net_null0,fault_stall=5@100", ["--rxq=2", "--txq=2"], timeout=30) as t:
        assert t.started, t.log[-2000:]
        assert "Fail to configure port" in t.log or "Fail to start port" in t.log, t.log[-2000:]
        errors = [ln for ln in driver_lines(t.log) if "fault_stall" in ln]
        assert errors == ["net_rxbisect: net_rxbisect0: devarg fault_stall: Rx queue 5 is out "
                          "of range; allowed: a queue from 0 to 1 (the port has 2 Rx queues)"], \
            t.log[-2000:]
        assert t.quit() == 0


def test_fault_stall_queue_in_range_accepted():
    with TestPmd("port=net_null0,fault_stall=1@100", ["--rxq=2", "--txq=2"], timeout=30) as t:
        assert t.started and "Fail to" not in t.log, t.log[-2000:]
        assert t.quit() == 0


def test_nic_cpu_must_exist():
    n = os.cpu_count()
    with TestPmd(f"port=net_null0,nic_cpu={n + 64}", timeout=30) as t:
        rc = t.quit() if t.started else t.proc.wait(30)
        assert rc >= 0
        lines = driver_lines(t.log)
        assert len(lines) == 1 and f"devarg nic_cpu={n + 64}: not a CPU of this machine" \
            in lines[0], t.log[-2000:]


@pytest.mark.parametrize("devargs,key", [
    ("iface=privring,ax=64", "arch.ax_size"),
    ("iface=small_privring,bx=512", "arch.bx_size"),
    ("iface=rxbisect,rx=512", "arch.rx_size"),
    ("iface=rxbisect,cr=512", "arch.cr_size"),
    ("iface=privring,share=1", "arch.share_degree"),
    ("iface=shring,assoc=per_nic", "arch.association"),
    ("iface=shring_list,ax_policy=round_robin", "arch.ax_policy"),
    ("iface=dyn_shring,coalesce=true", "arch.coalesce"),
    ("iface=privring,dyn_sample_ms=5", "arch.dyn_sample_ms"),
])
def test_devarg_for_another_design_warned_as_the_library_words_it(devargs, key):
    arch, devarg = devargs.removeprefix("iface=").split(",")
    engine = "emu" if scenario.honours(key, "emu") else "sim"  # the driver honours every key
    said = scenario.no_effect(key, arch, "constant", engine)
    assert said is not None and said.startswith(f"{key} has no effect for arch {arch}"), said
    check_one_warning(devargs, f"devarg {devarg}: {said}")


@pytest.mark.parametrize("devargs,warning", [
    ("iface=rxbisect,groups=2", "devarg groups=2: arch.groups has no effect unless "
                                "assoc=groups"),
    ("iface=rxbisect,coalesce_ns=500", "devarg coalesce_ns=500: arch.coalesce_timeout_ns has "
                                       "no effect unless coalesce=true"),
])
def test_devarg_switched_off_by_another_warned(devargs, warning):
    check_one_warning(devargs, warning)


def check_one_warning(devargs: str, warning: str) -> None:
    with TestPmd(f"port=net_null0,{devargs}", timeout=30) as t:
        assert t.started, t.log[-2000:]
        lines = [ln for ln in driver_lines(t.log) if "no effect" in ln]
        assert lines == [f"net_rxbisect: net_rxbisect0: {warning}"], t.log[-2000:]
        assert t.quit() == 0


def test_flows_without_effect_on_a_wire_with_frames():
    with TestPmd("port=net_ring0,flows=8", timeout=30) as t:
        assert t.started, t.log[-2000:]
        lines = [ln for ln in driver_lines(t.log) if "no effect" in ln]
        assert len(lines) == 1 and "devarg flows=8 has no effect for wire net_ring0" in lines[0]
        assert t.quit() == 0


@pytest.mark.parametrize("devargs", [
    "iface=rxbisect,ax=64,bx=512,assoc=groups,groups=1,coalesce=true,coalesce_ns=500",
    "iface=shring,rx=512,cr=1024,share=1",
    "iface=dyn_shring,dyn_sample_ms=5,flows=16",
])
def test_devargs_the_design_reads_are_not_warned(devargs):
    with TestPmd(f"port=net_null0,{devargs}", timeout=30) as t:
        assert t.started, t.log[-2000:]
        assert not re.search(r"no effect|given twice", t.log), t.log[-2000:]
        assert t.quit() == 0


@pytest.mark.parametrize("devargs,entries", [
    ("iface=privring,rx=512", 512),
    ("iface=shring_list,rx=256,cr=512", 512),
    ("iface=rxbisect,bx=2048", 2048),
])
def test_a_queue_reads_the_ring_the_library_builds(devargs, entries):
    """nb_desc is not the ring size (devargs are): the log names the ring the queue reads, as
    the ring library sizes it (rxb_iface_shape)."""
    with TestPmd(f"port=net_null0,{devargs}", ["--rxd=100"], timeout=30) as t:
        assert t.started, t.log[-2000:]
        assert "nb_desc = 100 not used" in t.log, t.log[-2000:]
        assert f"this queue reads a ring of {entries} entries" in t.log, t.log[-2000:]
        assert t.quit() == 0
