"""The sizing calculator of docs/interfaces.md §5.5 on the reference numbers."""

import pytest

from rxbisect.errors import UsageError
from rxbisect.tools import sizing

MiB = 2**20
REF = dict(nics=2, link_gbps=100, cores_per_nic=8, buffer_bytes=2048, ddio_bytes=22 * MiB * 2 // 11)


def test_reference_picks_ax_128_and_all_constraints_hold():
    sz = sizing.size(**REF)
    assert REF["ddio_bytes"] == 4 * MiB
    assert sz.bx == 1024
    assert (sz.k, sz.k_nic) == (16, 8)
    assert sz.ax_max_ddio == 128  # 16 × 128 × 2 KiB = 4 MiB
    assert sz.ax_min_burst == 128  # 8 × 128 = 1024 = |Bx|
    assert sz.ax == 128
    assert not sz.conflict and sz.given_up == ()
    assert all(c.ok for c in sz.checks)


def test_table_marks_each_constraint_per_candidate():
    rows = {r.ax: r for r in sizing.size(**REF).rows}
    assert (rows[64].ddio, rows[64].burst, rows[64].vendor) == (True, False, True)
    assert (rows[256].ddio, rows[256].burst) == (False, True)
    assert (rows[32].vendor) is False
    assert rows[128].working_set_bytes == 4 * MiB


def test_bigger_bx_conflicts_and_gives_up_burst_by_default():
    sz = sizing.size(**REF, bx=4096)  # needs |Ax| >= 512, DDIO allows <= 128
    assert sz.conflict
    assert sz.ax == 128 and sz.given_up == ("burst",)
    assert "cannot satisfy all three" in sz.verdict and "gives up 'burst'" in sz.verdict


def test_prefer_burst_gives_up_ddio_instead():
    sz = sizing.size(**REF, bx=4096, prefer="burst")
    assert sz.ax == 512 and sz.given_up == ("ddio",)
    assert "exceeds the DDIO capacity" in sz.verdict


def test_many_cores_force_ddio_overflow_even_at_vendor_minimum():
    # 56 cores × 64 × 2 KiB = 7 MiB > 4 MiB: nothing >= 64 fits, DDIO is given up.
    sz = sizing.size(**{**REF, "cores_per_nic": 28})
    assert sz.ax_max_ddio == 32
    assert sz.ax == 64 and sz.given_up == ("ddio",)
    assert "forced" in sz.verdict


def test_checking_a_given_ax_reports_every_violation():
    sz = sizing.size(**REF, ax=1024)
    assert sz.ax == 1024 and sz.given_up == ("ddio",)
    sz = sizing.size(**REF, ax=32)
    assert sz.given_up == ("burst", "vendor")


def test_bx_scales_with_link_rate():
    assert sizing.recommended_bx(100) == 1024
    assert sizing.recommended_bx(25) == 1024  # never below the reference
    assert sizing.recommended_bx(400) == 4096
    assert sizing.recommended_bx(200) == 2048


def test_uneven_nics_use_the_smallest_nic_for_bursts():
    sz = sizing.size(**{**REF, "cores_per_nic": (12, 4)})
    assert sz.k_nic == 4 and sz.ax_min_burst == 256


def test_large_working_sets_in_whole_mib():
    assert sizing.mib_text(4096 * 2**20) == "4,096 MiB" and sizing.mib_text(2**19) == "0.5 MiB"
    assert sizing.mib_text(999.7 * 2**20) == "1,000 MiB"  # not 1e+03


def test_cores_divided_in_proportion_to_traffic():
    assert sizing.split_cores(16, [100, 100]) == (8, 8)
    assert sizing.split_cores(16, [150, 50]) == (12, 4)
    assert sizing.split_cores(16, [100, 0.1]) == (15, 1)  # every NIC keeps a core
    assert sum(sizing.split_cores(15, [1, 1, 1, 1])) == 15


@pytest.mark.parametrize("kw", [dict(bx=1000), dict(ax=100), dict(prefer="x"),
                                dict(cores_per_nic=(8,)), dict(nics=0)])
def test_bad_inputs_are_usage_errors(kw):
    with pytest.raises(UsageError):
        sizing.size(**{**REF, **kw})


# ---- hand-worked examples (docs/interfaces.md §5.5) ------------------------------------------

def test_worked_reference_with_the_other_working_sets():
    # 2 NICs x 100 Gbps, 8 cores each, 2 KiB buffers, DDIO = 22 MiB x 2/11 ways = 4 MiB.
    # |Bx| = 1024 (100 Gbps). k = 16, k_nic = 8.
    # ddio:  16 x |Ax| x 2 KiB <= 4 MiB  ->  |Ax| <= 128
    # burst: 8 x |Ax| >= 1024            ->  |Ax| >= 128
    # -> |Ax| = 128, all hold; rxBisect's working set 16 x 128 x 2 KiB = 4 MiB.
    # Beside it: privRing 16 rings x 1024 x 2 KiB = 32 MiB (does not fit 4 MiB);
    # small privRing 16 x 128 x 2 KiB = 4 MiB; shRing 2 RxArr x 1024 x 2 KiB = 4 MiB.
    sz = sizing.size(**REF)
    got = {b.design: (b.rings, b.entries, b.working_set_bytes / MiB, b.fits_ddio)
           for b in sz.beside}
    assert got == {"privring": (16, 1024, 32, False), "small_privring": (16, 128, 4, True),
                   "shring": (2, 1024, 4, True), "rxbisect": (16, 128, 4, True)}


def test_worked_one_400g_nic():
    # 1 NIC x 400 Gbps, 32 cores, 2 KiB buffers, DDIO 12 MiB.
    # |Bx| = 1024 x 400/100 = 4096. k = k_nic = 32.
    # ddio:  32 x |Ax| x 2 KiB <= 12 MiB -> |Ax| <= 192 -> largest power of two 128
    # burst: 32 x |Ax| >= 4096           -> |Ax| >= 128
    # -> |Ax| = 128, working set 32 x 128 x 2 KiB = 8 MiB; privRing 32 x 1024 x 2 KiB =
    # 64 MiB; shRing 1 x 1024 x 2 KiB = 2 MiB.
    sz = sizing.size(nics=1, link_gbps=400, cores_per_nic=32, buffer_bytes=2048,
                     ddio_bytes=12 * MiB)
    assert (sz.bx, sz.ax_max_ddio, sz.ax_min_burst, sz.ax) == (4096, 128, 128, 128)
    assert not sz.conflict
    ws = {b.design: b.working_set_bytes / MiB for b in sz.beside}
    assert (ws["rxbisect"], ws["privring"], ws["shring"]) == (8, 64, 2)


def test_worked_uneven_traffic_conflict_is_stated_plainly():
    # 16 cores over 2 NICs carrying 150 and 50 Gbps -> 12 and 4 cores (in proportion).
    # k = 16, k_nic = 4 (the smaller NIC). |Bx| = 1024.
    # ddio:  16 x |Ax| x 2 KiB <= 4 MiB -> |Ax| <= 128
    # burst: 4 x |Ax| >= 1024           -> |Ax| >= 256      -> cannot both hold.
    # Default keeps the DDIO fit: |Ax| = 128, gives up burst: 4 x 128 = 512 packets.
    per_nic = sizing.split_cores(16, [150, 50])
    assert per_nic == (12, 4)
    sz = sizing.size(nics=2, link_gbps=100, cores_per_nic=per_nic, buffer_bytes=2048,
                     ddio_bytes=4 * MiB)
    assert (sz.ax_max_ddio, sz.ax_min_burst, sz.ax, sz.given_up) == (128, 256, 128, ("burst",))
    assert sz.verdict.startswith("cannot satisfy all three: DDIO fit needs |Ax| <= 128, "
                                 "burst absorption needs |Ax| >= 256")
    assert "more than k_nic x |Ax| = 512 packets to one core" in sz.verdict


@pytest.mark.parametrize("arch, sets", [("privring", ()), ("small_privring", ()),
                                        ("shring", ()), ("rxbisect", ("arch.ax_size=128",))])
def test_working_sets_agree_with_the_simulated_scenario(arch, sets):
    """One bound, two places: the calculator and scenario.derived (what rxb sim reports as
    nominal_working_set_mib) give the same bytes for the reference setup."""
    from rxbisect.vocab import scenario
    res = scenario.load_resolved(None, (f"arch.name={arch}", *sets))
    system = res.scenario.system
    sz = sizing.size(nics=system.nics, cores_per_nic=system.cores_per_nic,
                     buffer_bytes=res.scenario.arch.buffer_bytes, ddio_bytes=4 * MiB)
    beside = {b.design: b.working_set_bytes for b in sz.beside}
    assert beside[arch] == scenario.derived(res)["nominal_working_set_bytes"]


def test_cli_size_json_and_text(capsys):
    from rxbisect.commands.cli import main
    assert main(["size", "--json"]) == 0
    d = __import__("json").loads(capsys.readouterr().out)
    assert d["ax"] == 128 and {b["design"] for b in d["beside"]} == {
        "privring", "small_privring", "shring", "rxbisect"}
    assert main(["size", "--bx", "4096"]) == 0
    out = capsys.readouterr().out
    assert "CONFLICT: cannot satisfy all three" in out and "Working sets beside it" in out
    assert main(["size", "--cores", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rxb: error: --cores 1: fewer cores than NICs")


@pytest.mark.parametrize("args, message", [
    (["--link-gbps", "nan"], "argument --link-gbps: traffic.rate_gbps = nan: not a finite number"),
    (["--link-gbps", "inf"], "argument --link-gbps: traffic.rate_gbps = inf: not a finite number"),
    (["--ddio-mib", "inf"], "argument --ddio-mib: 'inf': out of range; allowed: a number from 0 "
                            "to 1048576 (MiB)"),
    (["--ddio-mib", "-1"], "argument --ddio-mib: '-1': out of range; allowed: a number from 0"),
    # finite, but its bytes overflowed into a traceback
    (["--ddio-mib", "1e308"], "argument --ddio-mib: '1e308': out of range"),
    (["--ddio-mib", "x"], "argument --ddio-mib: 'x' is not a number"),
    (["--traffic-gbps=nan,1"], "traffic.rate_gbps = nan: not a finite number"),
    (["--traffic-gbps=-1,1"], "traffic.rate_gbps = -1: out of range"),
    (["--nics", "0"], "argument --nics: system.nics = 0: out of range; allowed: an integer "
                      "from 1 to 64 (NICs)"),
    # each option takes the values of the scenario key it stands for, no more: these gave
    # a |Bx| no scenario accepts, or a sizing for 1-byte buffers
    (["--link-gbps", "1e6"], "traffic.rate_gbps = 1000000: out of range; allowed: a number > 0 "
                             "and <= 100000 (Gbps)"),
    (["--traffic-gbps=1e308,1"], "traffic.rate_gbps = 1e+308: out of range"),
    (["--buffer-bytes", "1"], "argument --buffer-bytes: arch.buffer_bytes = 1: out of range; "
                              "allowed: an integer from 64 to 65536 (bytes)"),
    (["--buffer-bytes", "auto"], "arch.buffer_bytes = 'auto': cannot be read as int"),
    (["--bx", "1000"], "argument --bx: arch.bx_size = 1000: not a power of two"),
    (["--ax", "32"], "argument --ax: arch.ax_size = 32: out of range"),
    (["--cores-per-nic", "8,0"], "system.cores = 0: out of range"),
    # one value per NIC: an empty item was skipped, a missing one named an internal field
    (["--cores-per-nic", "8,,8"], "argument --cores-per-nic: '8,,8': item 2 is empty"),
    (["--cores-per-nic", "8"], "--cores-per-nic has 1 values for --nics 2; allowed: one per NIC"),
    (["--traffic-gbps", "10"], "--traffic-gbps has 1 values for --nics 2; allowed: one per NIC"),
    # the cores followed a load the NIC cannot carry
    (["--link-gbps", "100", "--traffic-gbps", "400,50"],
     "--traffic-gbps 400: above the 100 Gbps link; allowed: 0 to 100 per NIC"),
    # two ways of saying one thing: one of them silently won
    (["--cores-per-nic", "8,8", "--cores", "4"], "--cores-per-nic replaces --cores and "
                                                  "--traffic-gbps; give one or the other"),
    (["--cores-per-nic", "8,8", "--traffic-gbps", "10,20"], "--cores-per-nic replaces"),
    (["--ddio-mib", "2", "--ddio-ways", "2"], "argument --ddio-ways: not allowed with argument "
                                              "--ddio-mib"),
])
def test_cli_size_refuses_what_is_not_a_rate(capsys, args, message):
    """NaN or infinity once crashed the calculator or passed its checks (NaN < 0 is false);
    values beyond what a scenario takes gave sizings of nothing."""
    from rxbisect.commands.cli import main
    try:
        rc = main(["size", *args])
    except SystemExit as e:  # argparse's own refusal of an option's type
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and "Traceback" not in "".join(err)


def test_split_cores_survives_rates_whose_sum_overflows():
    assert sizing.split_cores(16, [1e308, 1e308]) == (8, 8)
    assert sizing.split_cores(12, [100, 50]) == (8, 4)
