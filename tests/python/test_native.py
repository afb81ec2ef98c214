"""The binding to the C rules library (rxbisect._native): found by one rule, it marshals and
the C code decides -- the same rule, message, size and reader as the engines."""

import struct

import pytest

from rxbisect import _native, checkout
from rxbisect.errors import EngineError, ScenarioError
from rxbisect.vocab import scenario


def test_the_library_is_found_by_one_rule(monkeypatch, tmp_path):
    monkeypatch.setenv(_native.ENV_LIB, str(tmp_path / "missing.so"))
    with pytest.raises(EngineError, match=r"RXB_NATIVE_LIB=.*missing.so: no such file.*make build"):
        _native.lib_path()
    monkeypatch.delenv(_native.ENV_LIB)
    monkeypatch.setattr(checkout, "repo_root", lambda: tmp_path)
    with pytest.raises(EngineError, match=r"does not exist: run `make build`, or set "
                                          "RXB_NATIVE_LIB"):
        _native.lib_path()


@pytest.mark.parametrize("sets, message", [
    (["system.cores=32"], "system.cores = 32: profile 'reference' has 16 cores per socket"),
    (["run.warmup_ms=10"], "run.warmup_ms = 10: not shorter than run.duration_ms = 10"),
    (["arch.name=shring", "arch.share_degree=3"],
     "arch.share_degree = 3: must divide the cores of every NIC [8, 8]"),
    (["system.cores_per_nic=[6,10]", "arch.association=per_nic"],
     "arch.association = 'per_nic': system.cores_per_nic = [6, 10] is uneven"),
    (["traffic.pattern=onoff", "traffic.burst_duty=0.25"],
     "traffic.burst_duty = 0.25: bursts would arrive at rate_gbps / burst_duty = 400 Gbps"),
])
def test_front_end_gives_the_c_rules_message(sets, message):
    with pytest.raises(ScenarioError) as e:
        scenario.load_resolved(None, sets)
    assert str(e.value).startswith(message)


def test_auto_sizes_come_from_c():
    a = scenario.load_resolved(None, ["arch.name=shring_list", "arch.rxlist_batch=4"]).scenario.arch
    assert (a.rx_size, a.cr_size, a.share_degree) == (1024, 4096, 8)
    # every core's share of the rings, its cache at 2x and its transmit ring
    assert a.pool_buffers == 16 * (1024 * 4 + 2 * a.alloc_cache + a.tx_size)


@pytest.mark.parametrize("arch, posted, srcs", [
    ("privring", 16 * 1024, 16), ("small_privring", 16 * 128, 16), ("shring", 2 * 1024, 2),
    ("dyn_shring", 16 * 1024 + 2 * 1024, 18), ("rxbisect", 16 * 128, 16)])
def test_shape_of_each_design(arch, posted, srcs):
    c = scenario._native_scn(scenario.load(None, [f"arch.name={arch}"]))
    c.resolve(None)
    s = c.shape()
    assert (s.posted, s.n_srcs, s.n_dests) == (posted, srcs, 16)
    assert s.needed >= s.posted


def test_no_effect_is_the_c_warning():
    assert scenario.no_effect("arch.ax_size", "privring", "constant") == \
        "arch.ax_size has no effect for arch privring (it applies to rxbisect)"
    assert scenario.no_effect("arch.ax_size", "rxbisect", "constant") is None


def test_a_key_is_checked_by_c():
    c = _native.Scn("sim")
    with pytest.raises(ScenarioError, match=r"^arch.ax_size = 100: not a power of two"):
        c.set("arch.ax_size", 100)
    c.set("system.stalled_cores", (1, 2))
    assert c.get("system.stalled_cores") == "[1, 2]"


def test_pcap_records_keep_time_and_original_length(tmp_path):
    frame = bytes(60)
    path = tmp_path / "t.pcap"
    path.write_bytes(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 64, 1)
                     + struct.pack("<IIII", 7, 5, 60, 1514) + frame)
    (rec,) = list(_native.pcap_records(path))
    assert (rec.t_ns, rec.orig_len, rec.data, rec.linktype) == (7 * 10**9 + 5, 1514, frame, 1)
