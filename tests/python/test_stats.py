"""rxbisect.stats: the trimmed mean over seeds and its bootstrap interval."""
import pytest

from rxbisect.output import stats


def test_trimmed_mean_drops_min_and_max_from_three_values_on():
    assert stats.trimmed_mean([1, 100, 2, 3]) == 2.5
    assert stats.trimmed_mean([1, 3]) == 2


def test_trimmed_mean_of_nothing_is_an_error():
    with pytest.raises(ValueError):
        stats.trimmed_mean([])


def test_interval_brackets_the_trimmed_mean_and_narrows_with_less_spread():
    wide = stats.estimate([8, 14, 9, 13, 10, 12, 11, 7, 15, 10])
    narrow = stats.estimate([10.9, 11.1, 11.0, 10.95, 11.05, 11.0, 10.9, 11.1, 11.0, 11.0])
    assert wide.lo < wide.mean < wide.hi
    assert narrow.half_width < wide.half_width / 5
    assert wide.n == 10


def test_interval_is_reproducible():
    v = [3.0, 4.5, 2.5, 5.0, 4.0]
    assert stats.estimate(v) == stats.estimate(v)


def test_no_spread_gives_a_zero_width_interval():
    assert stats.estimate([7.0]) == stats.Estimate(7.0, 7.0, 7.0, 1)
    assert stats.estimate([2.0, 2.0, 2.0]).half_width == 0


def test_differ_needs_disjoint_intervals():
    a = stats.estimate([10, 11, 12, 11, 10])
    assert stats.differ(a, stats.estimate([20, 21, 22, 21, 20]))
    assert not stats.differ(a, stats.estimate([10.5, 11.5, 11, 12, 10]))
