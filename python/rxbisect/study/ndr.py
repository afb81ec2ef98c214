"""RFC 2544 no-drop rate (NDR): the highest offered rate at which a trial loses nothing.

One procedure for every experiment that needs it (`ndr`, `ax-size`; docs/experiments.md):

1. a trial at the top of the range (the line rate); if it passes, that is the answer;
2. otherwise a binary search between the bottom and the failed rate: a trial at the
   midpoint; a pass raises the bottom, a loss lowers the top; until top - bottom is at
   most the resolution (RFC 2544 §26.1 leaves the search to the tester; binary search is
   what testers do);
3. if no trial passed, one trial at the bottom itself: if that loses too, there is no
   no-drop rate in the range (reported as rate None, 0 in records).

A trial passes when its loss fraction is at most `threshold` (RFC 2544 says zero; a small
threshold tolerates a simulator's end-of-run effects when asked). The answer is always a
rate that *was* measured passing, never an interpolation, so a noisy loss curve near the
threshold gives a rate inside its noisy band, never one that failed.

`search` is pure over a `loss(rate) -> fraction` callable so tests drive it with synthetic
curves; `run_point` plugs the simulator in (one engine run per trial).
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..engines import engine
from ..errors import ScenarioError, UsageError
from ..vocab import scenario
from ..vocab.schema import fields

# The fields of an experiment file's [search] table, with their defaults (None: required
# or from the scenario). One place: experiments.py validates against it.
FIELDS = {"key": "traffic.rate_gbps",  # the offered-rate key the search moves
          "lo": None,  # bottom of the range (same unit as key)
          "hi": None,  # top of the range; default: the profile's link rate
          "resolution": None,  # stop when top - bottom <= this
          "threshold": 0.0}  # largest loss fraction that still passes


def spec(where: str, table: Any, partial: bool = False) -> dict:
    """A [search] table checked against FIELDS: numbers but `key`; complete (defaults filled
    in, lo and resolution required) unless `partial` (a variant's overrides). The caller
    checks that `key` is a scenario key it may move."""
    t = dict(fields(where, table, tuple(FIELDS)))
    if not partial:
        t = {**{k: v for k, v in FIELDS.items() if v is not None}, **t}
        for k in ("lo", "resolution"):
            if k not in t:
                raise UsageError(f"{where}: '{k}' is required (fields: {', '.join(FIELDS)})")
    for k, v in t.items():
        if k != "key" and not (v is None or (isinstance(v, (int, float))
                                             and not isinstance(v, bool))):
            raise UsageError(f"{where}: {k} = {v!r}: expected a number")
    if not isinstance(t.get("key", ""), str):
        raise UsageError(f"{where}: key = {t['key']!r}: expected the name of a scenario key "
                         f"(default {FIELDS['key']})")
    _check_each(t, f"{where}: ")
    return t


def _check_each(t: dict, where: str) -> None:
    """Each number given, on its own, before anything runs (a resolution of 0 divided by zero
    in the estimate of the search's trials)."""
    ranges = {"lo": (lambda v: v >= 0, "a finite number >= 0"),
              "hi": (lambda v: v > 0, "a finite number > 0"),
              "resolution": (lambda v: v > 0, "a finite number > 0"),
              "threshold": (lambda v: 0 <= v < 1, "a loss fraction, 0 <= it < 1")}
    for k, (ok, allowed) in ranges.items():
        v = t.get(k)
        if v is not None and not (math.isfinite(v) and ok(v)):
            raise UsageError(f"{where}{k} = {v!r}: allowed: {allowed}")
    if t.get("lo") is not None and t.get("hi") is not None and t["hi"] <= t["lo"]:
        raise UsageError(f"{where}hi = {t['hi']!r}: not above lo = {t['lo']!r}; allowed: a "
                         "range with lo < hi")


@dataclass(frozen=True)
class Step:
    rate: float
    loss: float
    passed: bool


@dataclass(frozen=True)
class Result:
    rate: float | None  # the highest rate measured passing; None when none passed
    steps: tuple[Step, ...]

    def to_dict(self) -> dict:
        return {"rate": self.rate, "steps": [asdict(s) for s in self.steps]}


def max_steps(lo: float, hi: float, resolution: float) -> int:
    """Most trials a search of this range can take (the top, the halvings, the bottom)."""
    return 2 + max(0, math.ceil(math.log2((hi - lo) / resolution)))


def check(lo: float, hi: float, resolution: float, threshold: float, where: str = "") -> None:
    for name, v in (("lo", lo), ("hi", hi), ("resolution", resolution),
                    ("threshold", threshold)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise UsageError(f"{where}{name} = {v!r}: expected a finite number")
    if lo < 0 or hi <= lo:
        raise UsageError(f"{where}lo = {lo:g}, hi = {hi:g}: need 0 <= lo < hi")
    if resolution <= 0:
        raise UsageError(f"{where}resolution = {resolution:g}: must be > 0")
    if not 0 <= threshold < 1:
        raise UsageError(f"{where}threshold = {threshold:g}: a loss fraction, 0 <= it < 1")


def search(loss: Callable[[float], float], lo: float, hi: float, resolution: float,
           threshold: float = 0.0) -> Result:
    """The no-drop rate in [lo, hi] to within `resolution`, by binary search on `loss`."""
    check(lo, hi, resolution, threshold)
    steps: list[Step] = []

    def trial(rate: float) -> bool:
        value = float(loss(rate))
        if not 0 <= value <= 1:  # NaN fails this too
            raise UsageError(f"loss({rate:g}) = {value!r}: not a fraction from 0 to 1")
        steps.append(Step(rate, value, value <= threshold))
        return steps[-1].passed

    if trial(hi):
        return Result(hi, tuple(steps))
    bottom, top, best = lo, hi, None
    while top - bottom > resolution:
        mid = (bottom + top) / 2
        if trial(mid):
            bottom = best = mid
        else:
            top = mid
    if best is None and trial(lo):
        best = lo
    return Result(best, tuple(steps))


def reached_top(search: Any) -> bool:
    """True when a record's `search` passed at the top of its range: the point's true no-drop
    rate may be higher than the range allowed, so its rate is a lower bound."""
    return isinstance(search, Mapping) and search.get("rate") is not None \
        and search.get("hi") is not None and search["rate"] >= search["hi"]


def lower_bounds(record: Mapping[str, Any]) -> set[str]:
    """The metrics of a record that are only lower bounds ("≥ X" in reports): `ndr_gbps`
    when its search reached the top of the range; none otherwise (no search, or a record
    written before searches were recorded)."""
    return {"ndr_gbps"} if reached_top(record.get("search")) else set()


def _with(res: scenario.Resolved, key: str, value: float) -> scenario.Resolved:
    """The resolved scenario with one key changed (checked by the schema again)."""
    section, name = key.split(".", 1)
    sections = {k: dict(v) for k, v in res.scenario.sections().items() if k != "emu"}
    sections[section][name] = value
    return scenario.rebuild(sections, "search: ")


def limits(res: scenario.Resolved, spec: Mapping[str, Any]) -> tuple[float, float]:
    """(lo, hi) of a [search] spec for this scenario: hi defaults to the link rate."""
    hi = spec.get("hi")
    return float(spec["lo"]), float(res.profile.nic.link_gbps if hi is None else hi)


def check_point(res: scenario.Resolved, spec: Mapping[str, Any], where: str) -> None:
    """UsageError unless the spec's range makes a search at this point (hi defaults to the
    profile's link rate, so lo must be below it) whose every trial is a scenario the key
    allows (a search with no passing trial runs its last one at lo): checked while
    planning, not by a worker after the other trials."""
    lo, hi = limits(res, spec)
    check(lo, hi, float(spec["resolution"]), float(spec.get("threshold", FIELDS["threshold"])),
          where)
    key = spec.get("key", FIELDS["key"])
    for name, value in (("lo", lo), ("hi", hi)):
        try:
            _with(res, key, value)
        except ScenarioError as e:
            raise UsageError(f"{where}{name} = {value:g}: a trial at it is refused: {e}") \
                from None


def run_point(res: scenario.Resolved, spec: Mapping[str, Any],
              timeout: float | None = None) -> tuple[engine.Result, dict]:
    """Search one point with the simulator: every trial is one engine run with `key` set to
    the trial's rate (at most `timeout` seconds each). Returns the run at the no-drop rate (the lowest trial's when none
    passed) and the extra record fields: metrics `ndr_gbps` (the key's value at the no-drop
    rate times the NICs when the key is the per-NIC rate, else the key's value; 0 when none
    passed) and `ndr_found`, and `search` (the spec and every step)."""
    key = spec.get("key", FIELDS["key"])
    lo, hi = limits(res, spec)
    runs: dict[float, engine.Result] = {}

    def loss(rate: float) -> float:
        runs[rate] = engine.run(_with(res, key, rate), progress=False, timeout=timeout)
        return runs[rate].metrics["drop_rate"]

    found = search(loss, lo, hi, float(spec["resolution"]),
                   float(spec.get("threshold", FIELDS["threshold"])))
    at = found.rate if found.rate is not None else min(runs)
    scale = res.scenario.system.nics if key == "traffic.rate_gbps" else 1
    others = [r for rate, r in runs.items() if rate != at]
    extra = {"metrics": {"ndr_gbps": (found.rate or 0.0) * scale,
                         "ndr_found": found.rate is not None},
             "search": {**dict(spec), "lo": lo, "hi": hi, **found.to_dict()},
             "sim_packets": sum(r.sim_packets for r in others),
             "sim_wall_s": sum(r.sim_wall_s for r in others)}
    return runs[at], extra
