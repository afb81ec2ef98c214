"""`rxb fidelity`: the study's calibration points, published vs simulated, and the workload fit.

    rxb fidelity [--json] [--quick] [--costs NAME] [--seed N] [--seeds K] [--points FILE] [--jobs N]
    rxb fidelity --fit [--out FILE] [--seed N] [--seeds K] [--points FILE] [--jobs N] [--json]

(study/fidelity_check.py runs the points, fidelity_fit.py fits; docs/calibration.md explains the numbers.)
"""

import json
import shlex
import sys

from ..errors import UsageError
from ..study.sweeps import check_jobs
from .options import INT, as_key, bar_args, nonempty, progress


def _command(args) -> str:
    """The fit's command line as it would be typed again (written into the profile)."""
    words = ["rxb", "fidelity", "--fit"]
    for flag, value in (("--quick", args.quick), ("--seed", args.seed if args.seed != 1 else None),
                        ("--seeds", args.seeds if args.seeds != SEEDS else None),
                        ("--points", args.points), ("--out", args.out)):
        if value is True:
            words.append(flag)
        elif value not in (None, False):
            words += [flag, str(value)]
    return shlex.join(words)


SEEDS = 3  # default seeds per point: lb's point has two steady states (docs/calibration.md)


def seed_list(args) -> list[int]:
    """--seed and the --seeds - 1 seeds after it."""
    if args.seeds < 1:
        raise UsageError(f"--seeds {args.seeds}: must be at least 1")
    return list(range(args.seed, args.seed + args.seeds))


def _fit(args, pts) -> int:
    from pathlib import Path

    from ..output import records
    from ..study import fidelity_fit as ff
    from ..vocab import costs
    if args.costs:
        raise UsageError("--costs names the profile the check runs with; --fit sets the "
                         "costs itself (its estimates start from the points file's "
                         "[estimates] base)")
    if args.quick and not args.out:
        raise UsageError("--fit --quick is a smoke test with short runs: give --out FILE "
                         f"(only a full fit may write {ff.STUDY_FILE.name})")
    out = Path(args.out) if args.out else ff.STUDY_FILE
    records.check_writable(out, "--out")  # before the fit's minutes of runs

    def say(m: str) -> None:
        print(m, file=sys.stderr)

    seeds = seed_list(args)
    say(f"rxb: fitting workload.nf_cycles of {', '.join(p.workload for p in pts.points)} to "
        f"their calibration points ({pts.path.name}); {ff.seeds_text(seeds)}")
    fitted = ff.fit(pts, seeds, args.quick, args.jobs, progress(args), say)
    estimated = ff.estimates(pts, fitted)
    costs.write(out, ff.profile_text(pts, fitted, estimated, _command(args), seeds,
                                     args.quick))
    rows = [{"workload": f.point.workload, "nf_cycles": f.fit.x, "status": f.fit.status,
             "published": f.point.published, "simulated": f.record["simulated"],
             "unit": f.point.unit, "steps": [list(s) for s in f.fit.steps]} for f in fitted]
    rows += [{"workload": nf, "nf_cycles": v, "status": "estimate"}
             for nf, (v, _) in estimated.items()]
    print(json.dumps(rows, indent=1) if args.json else _fit_table(rows) + f"\nwrote {out}")
    return 0


def _fit_table(rows: list[dict]) -> str:
    from ..output.text_report import table
    dash = "-"
    return table(("NF", "published", "simulated at fit", "nf_cycles", "status", "evaluations"),
                 [(r["workload"], f"{r['published']:g} {r['unit']}" if "unit" in r else dash,
                   f"{r['simulated']:.1f} {r['unit']}" if "unit" in r else dash,
                   r["nf_cycles"], r["status"], len(r.get("steps", ()))) for r in rows],
                 (False, True, True, True, False, True))


def cmd_fidelity(args) -> int:
    from ..study.fidelity_check import (  # by name: the package's `fidelity` is check()
        check,
        load,
        table,
    )
    from ..vocab import costs
    check_jobs(args.jobs, None)
    if args.out and not args.fit:
        raise UsageError("--out is where --fit writes its cost profile; add --fit")
    pts = load(args.points)
    if args.fit:
        return _fit(args, pts)
    if args.costs:
        try:  # before anything runs, and named by the option that set it
            costs.load(args.costs)
        except UsageError as e:
            raise UsageError(f"--costs {args.costs}: sets {e}") from None
    from ..study.fidelity_fit import seeds_text
    run = pts.quick if args.quick else pts.run
    seeds = seed_list(args)
    print(f"rxb: {len(pts.points)} calibration points ({pts.path.name}), runs of "
          f"{run['run.duration_ms']:g} ms, {seeds_text(seeds)}", file=sys.stderr)
    records = check(pts, args.quick, args.costs, seeds, args.jobs, progress(args))
    if args.json:
        for r in records:
            print(json.dumps(r))
    else:
        print(table(pts, records), end="")
    return 0


def register(sub) -> None:
    """Add the `fidelity` subcommand to the `rxb` parser."""
    f = sub.add_parser("fidelity", help="the study's calibration points in the simulator: "
                       "published vs simulated; --fit sets the workload costs from them "
                       "(docs/calibration.md)")
    f.add_argument("--json", action="store_true", help="one JSON record per point "
                   "(workload, arch, params, published, simulated, unit)")
    f.add_argument("--quick", action="store_true", help="short runs and a coarse NDR "
                   "search: a smoke test, not a comparison")
    f.add_argument("--costs", type=nonempty, metavar="NAME", help="workload cost profile to check: a "
                   "built-in name or a file (default: the scenario default, study)")
    f.add_argument("--fit", action="store_true", help="find each NF's workload.nf_cycles "
                   "that meets its point, and write a cost profile")
    f.add_argument("--out", type=nonempty, metavar="FILE", help="with --fit: the profile to write (default: "
                   "overwrite python/rxbisect/vocab/costs/study.toml)")
    f.add_argument("--seed", type=as_key("run.seed"), default=1,
                   help="run.seed of the first run of each point (default 1)")
    f.add_argument("--seeds", type=INT, default=SEEDS, metavar="K",
                   help=f"runs of each point, seeds --seed on; a point's value is their median "
                   f"(default {SEEDS})")
    f.add_argument("--points", type=nonempty, metavar="FILE", help="calibration points file (default: the "
                   "study's, python/rxbisect/study/calibration_points.toml)")
    f.add_argument("--jobs", type=INT, metavar="N", help="engine runs at once (default: "
                   "every CPU)")
    bar_args(f)
    f.set_defaults(func=cmd_fidelity)
