"""The RFC 2544 no-drop rate search (ndr.py) on synthetic loss curves: no simulator, so the
true answer is known and the search can be held to it (docs/experiments.md, "NDR")."""

import math
import random

import pytest

from rxbisect.errors import UsageError
from rxbisect.study import ndr

LO, HI, RES = 1.0, 100.0, 0.5


def overload(capacity: float):
    """The loss of a server of this capacity offered `rate`: what exceeds it is lost."""
    return lambda rate: max(0.0, (rate - capacity) / rate)


def check_invariants(found: ndr.Result, lo: float = LO, hi: float = HI, res: float = RES):
    assert len(found.steps) <= ndr.max_steps(lo, hi, res)
    assert all(lo <= s.rate <= hi for s in found.steps)
    if found.rate is not None:  # the answer is a rate that was measured passing
        assert any(s.rate == found.rate and s.passed for s in found.steps)
        assert found.rate == max(s.rate for s in found.steps if s.passed)


@pytest.mark.parametrize("capacity", [1.7, 12.3, 50.0, 63.21, 99.2])
def test_monotone_curve_is_found_within_the_resolution(capacity):
    found = ndr.search(overload(capacity), LO, HI, RES)
    check_invariants(found)
    assert capacity - RES <= found.rate <= capacity
    # every trial above the capacity failed, every one at or below passed
    assert all(s.passed == (s.rate <= capacity) for s in found.steps)


def test_no_loss_is_the_top_of_the_range_in_one_trial():
    found = ndr.search(lambda rate: 0.0, LO, HI, RES)
    assert found.rate == HI and [(s.rate, s.passed) for s in found.steps] == [(HI, True)]


def test_all_loss_has_no_rate_and_tried_the_bottom():
    found = ndr.search(lambda rate: 0.3, LO, HI, RES)
    check_invariants(found)
    assert found.rate is None
    assert found.steps[-1].rate == LO and not any(s.passed for s in found.steps)


@pytest.mark.parametrize("seed", range(20))
def test_noisy_at_the_threshold_stays_inside_the_noisy_band(seed):
    """Loss is random in a band around the capacity: the answer is a rate that passed, not
    below the band (minus the resolution), never above it."""
    rng = random.Random(seed)
    capacity, band = rng.uniform(20, 80), 3.0

    def loss(rate: float) -> float:
        if rate < capacity - band:
            return 0.0
        if rate > capacity + band:
            return 0.05
        return rng.choice([0.0, 1e-4])

    found = ndr.search(loss, LO, HI, RES)
    check_invariants(found)
    assert capacity - band - RES <= found.rate <= capacity + band


def test_a_loss_threshold_lets_small_losses_pass():
    capacity, threshold = 40.0, 0.01
    found = ndr.search(overload(capacity), LO, HI, RES, threshold=threshold)
    check_invariants(found)
    edge = capacity / (1 - threshold)  # where loss reaches the threshold
    assert edge - RES <= found.rate <= edge
    assert found.rate > capacity  # it is not the zero-loss answer


@pytest.mark.parametrize("lo, hi, res, thr, message", [
    (1.0, 1.0, 0.5, 0.0, "need 0 <= lo < hi"),
    (-1.0, 10.0, 0.5, 0.0, "need 0 <= lo < hi"),
    (1.0, 10.0, 0.0, 0.0, "resolution = 0: must be > 0"),
    (1.0, 10.0, 0.5, 1.0, "threshold = 1: a loss fraction"),
    (1.0, math.inf, 0.5, 0.0, "hi = inf: expected a finite number"),
])
def test_bad_parameters_are_one_clear_error(lo, hi, res, thr, message):
    with pytest.raises(UsageError, match=message):
        ndr.search(lambda rate: 0.0, lo, hi, res, thr)


@pytest.mark.parametrize("field, value, message", [
    # divided by zero estimating the search's trials, a traceback before any run
    ("resolution", 0.0, "resolution = 0.0: allowed: a finite number > 0"),
    ("threshold", 2.0, "threshold = 2.0: allowed: a loss fraction"),
    ("lo", -1.0, "lo = -1.0: allowed: a finite number >= 0"),
])
def test_an_experiments_search_is_checked_as_it_is_read(field, value, message):
    table = {"key": "traffic.rate_gbps", "lo": 1.0, "resolution": 0.5, field: value}
    with pytest.raises(UsageError, match=message):
        ndr.spec("ndr.toml: [search]", table)


@pytest.mark.parametrize("bad", [1.5, -0.1, math.nan])
def test_a_loss_that_is_not_a_fraction_is_refused(bad):
    with pytest.raises(UsageError, match="not a fraction from 0 to 1"):
        ndr.search(lambda rate: bad, LO, HI, RES)


@pytest.mark.parametrize("search, bound", [
    ({"lo": 1.0, "hi": 100.0, "rate": 100.0}, {"ndr_gbps"}),  # passed at the top
    ({"lo": 1.0, "hi": 100.0, "rate": 99.5}, set()),  # found below it
    ({"lo": 1.0, "hi": 100.0, "rate": None}, set()),  # nothing passed
    (None, set()),  # a record without a search
])
def test_a_rate_at_the_top_of_the_range_is_a_lower_bound(search, bound):
    assert ndr.lower_bounds({"search": search} if search else {}) == bound


def test_a_range_above_the_link_is_refused_while_planning():
    """hi defaults to the profile's link rate (100 Gbps on the reference): lo = 150 made a
    search no point could run, found by each worker in turn (exit 1)."""
    from rxbisect.study import sweeps
    spec = ndr.spec("[search]", {"lo": 150.0, "resolution": 1.0})
    with pytest.raises(UsageError, match=r"--grid grid point arch.ax_size=64: \[search\] "
                                         "lo = 150, hi = 100: need 0 <= lo < hi"):
        sweeps.plan(None, {"arch.ax_size": ["64"]}, None, (),
                    search=spec)
