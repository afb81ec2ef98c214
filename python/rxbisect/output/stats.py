"""Statistics over seeds: the study's trimmed mean and its bootstrap confidence interval.

The study reports the trimmed mean of ten runs (minimum and maximum dropped). Ten values are
too few for a normal-theory interval, so the interval is a bootstrap one: resample the seeds
with replacement, take the trimmed mean of each resample, and read the interval off that
distribution (scipy.stats.bootstrap, percentile method: BCa needs a jackknife that a trimmed
mean of a handful of values makes unstable). One seed, or seeds that all agree, give a
zero-width interval at the value itself: there is no spread to resample.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20261126  # a fixed bootstrap seed: the same records always print the same interval


@dataclass(frozen=True)
class Estimate:
    """Trimmed mean over seeds with its bootstrap interval [lo, hi] and the seed count."""
    mean: float
    lo: float
    hi: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2


def trimmed_mean(values: Sequence[float]) -> float:
    """Mean without the minimum and maximum when there are at least 3 values (the study's
    trimmed mean of ten runs); the plain mean otherwise."""
    if not values:
        raise ValueError("trimmed_mean of no values")
    v = sorted(values)
    if len(v) >= 3:
        v = v[1:-1]
    return sum(v) / len(v)


def estimate(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """The trimmed mean of `values` and its bootstrap confidence interval."""
    centre = trimmed_mean(values)
    if len(values) < 2 or min(values) == max(values):
        return Estimate(centre, centre, centre, len(values))
    import numpy as np
    from scipy.stats import bootstrap  # imported here: scipy costs ~0.3 s to import
    res = bootstrap((np.asarray(values, dtype=float),), _trimmed_mean_axis,
                    confidence_level=confidence, n_resamples=RESAMPLES, method="percentile",
                    vectorized=True, random_state=np.random.default_rng(SEED))
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return Estimate(centre, min(lo, centre), max(hi, centre), len(values))


def _trimmed_mean_axis(sample, axis=-1):
    """trimmed_mean over one axis of a resample array (scipy's vectorised statistic)."""
    import numpy as np
    s = np.sort(sample, axis=axis)
    if s.shape[axis] >= 3:
        s = np.take(s, range(1, s.shape[axis] - 1), axis=axis)
    return s.mean(axis=axis)


def differ(a: Estimate, b: Estimate) -> bool:
    """True when two estimates differ beyond their seed spread: their intervals do not
    overlap. With one seed on either side there is no spread, so any difference counts."""
    return a.hi < b.lo or b.hi < a.lo
