"""The dark-packet bound against hand-computed values (docs/evaluation.md §4)."""

import pytest

from rxbisect.errors import UsageError
from rxbisect.tools import darkpackets


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


# ---- hand-worked examples (docs/evaluation.md §4) ----------------------------------------------

def test_worked_40g_192_byte_frames():
    # The study's example setting: 40 Gbps, 192 B frames.
    # wire = 192 + 20 = 212 B; one core: g = 8 x 212 / 40 = 42.4 ns.
    # One dependent DRAM access of 100 ns per packet: 42.4 < 100, drops -> 1 - 42.4/100
    # = 57.6 %; delivered 40 x 0.424 = 16.96 Gbps. Cores needed: ceil(100 / 42.4) = 3.
    one = darkpackets.compute(40, 192, cores=1, accesses=1, dram_ns=100)
    assert (one.wire_bytes, one.gap_ns) == (212, pytest.approx(42.4))
    assert one.drop_fraction == pytest.approx(0.576)
    assert one.delivered_gbps == pytest.approx(16.96)
    assert one.cores_needed == 3
    # Three cores: g = 127.2 ns >= 100 ns: they keep up.
    three = darkpackets.compute(40, 192, cores=3, accesses=1, dram_ns=100)
    assert three.gap_ns == pytest.approx(127.2) and three.keeps_up


def test_worked_10g_minimum_frames_with_compute():
    # 10 Gbps, 64 B: wire 84 B, g = 8 x 84 / 10 = 67.2 ns per packet on one core.
    # M = 2 accesses of 80 ns + 30 ns compute = 190 ns of service.
    # Drop -> 1 - 67.2 / 190 = 0.6463...; capacity 1000 / 190 = 5.263 Mpps per core
    # against 1000 / 67.2 = 14.88 Mpps offered; cores needed ceil(190 / 67.2) = ceil(2.83) = 3.
    d = darkpackets.compute(10, 64, cores=1, accesses=2, dram_ns=80, compute_ns=30)
    assert d.service_ns == 190
    assert d.drop_fraction == pytest.approx(1 - 67.2 / 190)
    assert d.capacity_mpps_per_core == pytest.approx(5.263, abs=1e-3)
    assert d.offered_mpps_per_core == pytest.approx(14.881, abs=1e-3)
    assert d.cores_needed == 3


def test_frames_below_the_ethernet_minimum_are_refused():
    with pytest.raises(UsageError, match=r"packet_bytes = 63: .*>= 64"):
        darkpackets.compute(100, 63)


def test_cli_dark_every_combination(capsys):
    from rxbisect.commands.cli import main
    assert main(["dark", "--link-gbps", "40", "--packet-bytes", "192", "--cores", "1,3",
                 "--dram-ns", "100", "--json"]) == 0
    pts = __import__("json").loads(capsys.readouterr().out)["points"]
    # the two points of the 40 Gbps example above
    assert [(p["cores"], p["keeps_up"], round(p["drop_fraction"], 3)) for p in pts] == \
        [(1, False, 0.576), (3, True, 0.0)]



@pytest.mark.parametrize("args, message", [
    (["--packet-bytes", "10"], "argument --packet-bytes: traffic.packet_bytes = 10: out of "
                               "range; allowed: an integer from 64 to 9018 (bytes)"),
    # each option takes the values of the scenario key it stands for: a 1e308 Gbps link
    # printed 300-digit cells
    (["--link-gbps", "1e308"], "traffic.rate_gbps = 1e+308: out of range"),
    (["--cores", "0"], "system.cores = 0: out of range"),
    (["--accesses", "-1"], "workload.reads = -1: out of range"),
    (["--compute-ns", "1e20"], "workload.compute_ns = 1e+20: out of range"),
    (["--dram-ns", "nan"], "argument --dram-ns: 'nan': out of range; allowed: a number from 0 "
                           "to 1000000 (ns)"),
    # a negative latency named the calculator's field (dram_ns = -1.0)
    (["--dram-ns", "-1"], "argument --dram-ns: '-1': out of range; allowed: a number from 0"),
    # a finite latency past any machine's: M x t_d overflowed into a traceback
    (["--dram-ns", "1e308", "--accesses", "1000"], "argument --dram-ns: '1e308': out of range"),
    # an empty item was skipped: 10,,20 gave two rows
    (["--link-gbps", "10,,20"], "argument --link-gbps: '10,,20': item 2 is empty; allowed: a "
                                "comma-separated list of float values"),
    (["--link-gbps", "10,"], "item 2 is empty"),
])
def test_cli_dark_refuses_values_no_scenario_takes(capsys, args, message):
    from rxbisect.commands.cli import main
    with pytest.raises(SystemExit) as e:  # argparse's refusal of an option's type
        main(["dark", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("rxb: error: argument --") and message in err[-1]
