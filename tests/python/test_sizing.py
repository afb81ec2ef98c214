"""The sizing calculator of interfaces.md §5.5 on the reference numbers."""

import pytest

from rxbisect import sizing
from rxbisect.errors import UsageError

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
