"""`rxb fidelity --fit`: each NF's workload.nf_cycles from its calibration point, written as
a cost profile (docs/calibration.md, kind 3; docs/calibration.md has the derivation).

The simulated value falls as an NF's compute cycles rise (a slower core carries less), so the
cycles at which it equals the published value are found by bisection. Every NF's bisection
steps in lock-step, so one process pool runs them side by side, every seed of every point
(fidelity_check.evaluate_seeds).
`bisect_steps` is the bisection alone, pure over the values it is sent, so tests drive it with
synthetic curves. NFs with no published figure get the points file's estimate rule instead.
"""

import datetime
import math
import subprocess
import textwrap
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

from .. import checkout
from ..errors import UsageError
from ..vocab import costs, scenario
from .fidelity_check import Point, Points, evaluate_seeds, record, resolve

STUDY_FILE = costs.HERE / "study.toml"
VALUE_TOL = 0.01  # a bisection stops within 1 % of the published value ...
CYCLES_TOL = 5    # ... or when its bracket is this narrow (cycles)


@dataclass(frozen=True)
class Fit:
    x: int  # the cycles chosen
    value: float  # the simulated value there
    status: str  # met (within the value tolerance) | bracket (narrowed to the cycle
    #              tolerance) | unreachable (even `lo` gives less) | above (even x_max gives more)
    steps: tuple[tuple[int, float], ...] = field(default=())


Steps = Generator[list[int], list[float], Fit]


def bisect_steps(target: float, lo: int, hi: int, value_tol: float, x_tol: int,
                 x_max: int = costs.MAX_CYCLES) -> Steps:
    """Bisection for x where a non-increasing f(x) equals `target`, as a generator: it yields
    the x values to evaluate next and is sent their f values (same order); it returns the Fit.
    The first batch is both ends at once; `hi` doubles while f(hi) is still above target."""
    steps: list[tuple[int, float]] = []

    def done(x: int, y: float, status: str) -> Fit:
        return Fit(x, y, status, tuple(steps))

    y_lo, y_hi = yield [lo, hi]
    steps += [(lo, y_lo), (hi, y_hi)]
    for x, y in ((lo, y_lo), (hi, y_hi)):
        if abs(y - target) <= value_tol:
            return done(x, y, "met")
    if y_lo < target:  # the cheapest NF already falls short: no cycle count meets the point
        return done(lo, y_lo, "unreachable")
    while y_hi > target:
        if hi >= x_max:
            return done(hi, y_hi, "above")
        lo, y_lo, hi = hi, y_hi, min(2 * hi, x_max)
        (y_hi,) = yield [hi]
        steps.append((hi, y_hi))
        if abs(y_hi - target) <= value_tol:
            return done(hi, y_hi, "met")
    while hi - lo > x_tol:
        mid = (lo + hi) // 2
        (y,) = yield [mid]
        steps.append((mid, y))
        if abs(y - target) <= value_tol:
            return done(mid, y, "met")
        if y > target:
            lo, y_lo = mid, y
        else:
            hi, y_hi = mid, y
    x, y = min(((lo, y_lo), (hi, y_hi)), key=lambda s: abs(s[1] - target))
    return done(x, y, "bracket")


def drive(gens: Sequence[Steps], evaluate_batch: Callable[[list[tuple[int, list[int]]]],
                                                          list[list[float]]]) -> list[Fit]:
    """Run several bisections in lock-step: each round, every unfinished one's next x values
    go to `evaluate_batch([(index, xs), ...])`, which returns their values in order."""
    fits: list[Fit | None] = [None] * len(gens)
    pending = {i: next(g) for i, g in enumerate(gens)}
    while pending:
        batch = list(pending.items())
        for (i, xs), ys in zip(batch, evaluate_batch(batch), strict=True):
            if len(ys) != len(xs) or not all(isinstance(y, (int, float)) and math.isfinite(y)
                                             for y in ys):
                raise UsageError(f"bisection: values {ys!r} for x = {xs}: expected "
                                 f"{len(xs)} finite numbers")
            try:
                pending[i] = gens[i].send(list(ys))
            except StopIteration as stop:
                fits[i] = stop.value
                del pending[i]
    return fits  # type: ignore[return-value]


def bisect(f: Callable[[int], float], target: float, lo: int, hi: int, value_tol: float,
           x_tol: int, x_max: int = costs.MAX_CYCLES) -> Fit:
    """The bisection on a plain function (one x at a time)."""
    gen = bisect_steps(target, lo, hi, value_tol, x_tol, x_max)
    return drive([gen], lambda batch: [[f(x) for x in xs] for _, xs in batch])[0]


def budget(pts: Points, p: Point) -> int:
    """Cycles a core has per packet when the point carries its published value: the NF's
    compute alone cannot take more, so this is the bisection's first top."""
    res = resolve(p)
    s = res.scenario
    pps = p.published / pts.factor * 1e9 / (8 * (s.traffic.packet_bytes
                                                 + scenario.ETH_OVERHEAD_BYTES))
    return math.ceil(s.system.cores * res.profile.cpu.freq_ghz * 1e9 / pps)


@dataclass(frozen=True)
class Fitted:
    point: Point
    fit: Fit
    record: dict  # the fidelity record of the run at the fitted cycles


def fit(pts: Points, seeds: Sequence[int] = (1,), quick: bool = False, jobs: int | None = None,
        progress: bool | None = None, say: Callable[[str], None] = lambda m: None) \
        -> list[Fitted]:
    """workload.nf_cycles per point such that the simulated value meets the published one
    (within VALUE_TOL of it, or a bracket of CYCLES_TOL cycles). Every evaluation is one
    engine run per seed (an ndr point: one search each) with the cost set directly; its value
    is their median (evaluate_seeds)."""
    fixed = {"workload.costs": pts.base}
    gens = [bisect_steps(p.published, 0, budget(pts, p), VALUE_TOL * p.published, CYCLES_TOL)
            for p in pts.points]
    seen: dict[tuple[int, int], tuple[float, dict]] = {}
    rounds = 0

    def batch(reqs: list[tuple[int, list[int]]]) -> list[list[float]]:
        nonlocal rounds
        rounds += 1
        runs = [(i, x) for i, xs in reqs for x in xs]
        out = evaluate_seeds(pts, [(pts.points[i], {**fixed, "workload.nf_cycles": x})
                                   for i, x in runs], seeds, quick, jobs, progress,
                             f"fit round {rounds}")
        seen.update(zip(runs, out, strict=True))
        say(f"rxb: fit round {rounds}: " + "; ".join(
            f"{pts.points[i].workload} {x} cycles -> {seen[i, x][0]:.1f} "
            f"(target {pts.points[i].published:g})" for i, x in runs))
        return [[seen[i, x][0] for x in xs] for i, xs in reqs]

    fits = drive(gens, batch)
    return [Fitted(p, f, record(p, *seen[i, f.x])) for i, (p, f) in
            enumerate(zip(pts.points, fits, strict=True))]


def estimates(pts: Points, fitted: Sequence[Fitted]) -> dict[str, tuple[int, str]]:
    """The NFs with no published figure: (cycles, how they were derived) by the file's rule,
    base's hand estimate x fitted / base of the NF named `like`."""
    hand = costs.load(pts.base).cycles
    fits = {f.point.workload: f.fit for f in fitted}
    out = {}
    for nf, rule in pts.estimates.items():
        like, fit_ = rule["like"], fits[rule["like"]]
        if fit_.status in ("met", "bracket") and hand[like] > 0:
            ratio = fit_.x / hand[like]
            out[nf] = (round(hand[nf] * ratio), f"{pts.base}'s {hand[nf]} x {ratio:.3f}, "
                       f"{like}'s fitted / {pts.base} cycles ({fit_.x} / {hand[like]})")
        else:  # no ratio to scale by: keep the hand estimate and say why
            out[nf] = (hand[nf], f"{pts.base}'s {hand[nf]}, unscaled: {like}'s fit is "
                       f"'{fit_.status}', so there is no ratio to scale by")
    return out


def _simulator_version() -> str:
    """The commit the simulator was built from, and whether its sources had changes."""
    root = checkout.repo_root()
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "sim",
                                "lib", "include"], capture_output=True, text=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}{' with uncommitted changes under sim/, lib/ or include/' if dirty else ''}" \
        if head else "unknown"


def seeds_text(seeds: Sequence[int]) -> str:
    """'seed 1', or 'seeds 1-3 (each value their median)'."""
    return f"seed {seeds[0]}" if len(seeds) == 1 else \
        f"seeds {seeds[0]}-{seeds[-1]} (each value their median)"


def _wrap(text: str, first: str, rest: str = "#   ", width: int = 96) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest)


def profile_text(pts: Points, fitted: Sequence[Fitted], estimated: dict[str, tuple[int, str]],
                 command: str, seeds: Sequence[int], quick: bool, date: str | None = None) -> str:
    """The cost profile the fit writes: one commented entry per NF (costs.py's format)."""
    date = date or datetime.date.today().isoformat()
    run = pts.quick if quick else pts.run
    how = (f"Fitted {date} by `{command}`: simulator {_simulator_version()}, "
           f"{seeds_text(seeds)}, runs "
           f"of {run['run.duration_ms']:g} ms ({run['run.warmup_ms']:g} ms warm-up), points "
           f"{pts.path.name}; each point's bisection stops within {VALUE_TOL:.0%} of the "
           f"published value or at a {CYCLES_TOL}-cycle bracket.")
    lines = ["# Workload costs fitted to the study's calibration points (docs/calibration.md, kind 3):",
             "# each NF's compute cycles per packet outside the memory stalls the simulator",
             "# models, set so that the simulator meets the NF's one published point, and from",
             "# nothing else. Written by the fit; do not edit by hand (docs/calibration.md).",
             *_wrap(how, "# ", "# "),
             *(["# QUICK FIT: smoke-test run lengths, not a calibration."] if quick else []),
             'name = "study"',
             f'description = "fitted to the study\'s calibration points ({command}, {date})"',
             "", "[cycles]"]
    for f in fitted:
        p, r = f.point, f.record
        lines += _wrap(f"{p.workload}: fitted to calibration point \"{p.label}\" ({p.measure}, "
                       f"published {p.published:g} {p.unit}): simulated {r['simulated']:.1f} "
                       f"{p.unit} at {f.fit.x} cycles (ratio {r['simulated'] / p.published:.3f}"
                       f"), status {f.fit.status}, {len(f.fit.steps)} evaluations",
                       "# ") + [f"{p.workload} = {f.fit.x}"]
    for nf, (value, how_est) in estimated.items():
        lines += _wrap(f"{nf}: estimate, not fitted (no published figure): {how_est}; "
                       f"{pts.estimates[nf]['why']}", "# ") + [f"{nf} = {value}"]
    return "\n".join(lines) + "\n"


