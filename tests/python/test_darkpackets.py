"""The dark-packet bound against hand-computed values (darkpackets.md)."""

import pytest

from rxbisect import darkpackets
from rxbisect.errors import UsageError


def test_64_byte_frames_at_100g_arrive_every_6_72_ns():
    d = darkpackets.compute(100, 64, cores=1, accesses=1, dram_ns=100)
    assert d.wire_bytes == 84  # 64 + 20 B preamble and gap
    assert d.gap_ns == pytest.approx(6.72)  # 84 × 8 bit / 100 Gbit/s
    assert not d.keeps_up
    assert d.drop_fraction == pytest.approx(1 - 6.72 / 100)  # 0.9328
    assert d.cores_needed == 15  # ceil(100 / 6.72)
    assert d.offered_mpps_per_core == pytest.approx(148.81, abs=0.01)


def test_1518_byte_frames_every_123_ns_keep_up_with_one_access():
    d = darkpackets.compute(100, 1518, cores=1, accesses=1, dram_ns=100)
    assert d.gap_ns == pytest.approx(123.04)
    assert d.keeps_up and d.drop_fraction == 0 and d.delivered_gbps == 100


def test_cores_multiply_the_gap_and_compute_adds_to_service():
    d = darkpackets.compute(100, 64, cores=16, accesses=2, dram_ns=90, compute_ns=20)
    assert d.gap_ns == pytest.approx(6.72 * 16)  # 107.52
    assert d.service_ns == pytest.approx(200)
    assert d.drop_fraction == pytest.approx(1 - 107.52 / 200)
    assert d.cores_needed == 30  # ceil(200 / 6.72) = ceil(29.76)


def test_boundary_counts_as_keeping_up():
    # 400 Gbps, 1230 B frames -> 1250 B wire -> 25 ns per packet; 4 cores -> 100 ns
    d = darkpackets.compute(400, 1230, cores=4, accesses=1, dram_ns=100)
    assert d.gap_ns == pytest.approx(100) and d.keeps_up and d.cores_needed == 4


def test_no_memory_access_never_drops():
    d = darkpackets.compute(400, 64, accesses=0, dram_ns=100)
    assert d.keeps_up and d.capacity_mpps_per_core is None


@pytest.mark.parametrize("kw", [dict(link_gbps=0), dict(cores=0), dict(packet_bytes=-1),
                                dict(dram_ns=float("nan"))])
def test_bad_inputs(kw):
    with pytest.raises(UsageError) as e:
        darkpackets.compute(**{"link_gbps": 100, "packet_bytes": 64, **kw})
    assert next(iter(kw)) in str(e.value)
