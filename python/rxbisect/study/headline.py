"""`make run`: the study in one command — the headline experiments of the catalogue in their
quick variant, then the report, then a compact reading on the terminal.

    python -m rxbisect.study [DIR] [--full] [--jobs N]

The headline experiments are the ones the project exists for (docs/evaluation.md §4), in the
study's narrative order (experiments.NARRATIVE): the Rx ring size of privRing (the
problem), the two NFs at 200 Gbps on every design, the Bx size of rxBisect, on/off bursts to
one core (where small rings drop), traffic and processing variability. Everything runs
through `rxb repro` (resumable: a second run skips finished points) and `rxb report`; the
terminal shows, per experiment, the sentences the report computes from the data, so the
table is never canned.
"""

import sys
import time
from pathlib import Path

from ..commands.options import INT, Parser, exit_status, nonempty
from ..output import html_report, plot, reading
from . import experiments, reproduce

HEADLINE = tuple(eid for eid in experiments.NARRATIVE
                 if eid in {"ring-size", "nf-200g", "bx-size", "bursts", "traffic-var",
                            "proc-var"})
DEFAULT_OUT = "results/study"


def run(out: str = DEFAULT_OUT, quick: bool = True, jobs: int | None = None,
        progress: bool | None = None) -> tuple[list[dict], Path, reproduce.Unfinished | None]:
    """Run the headline experiments into `out` and render its report; returns the results
    (reproduce.run's) of those that finished, the report's path, and the failure of the
    others, if any (the report covers what finished all the same)."""
    planned = [p for eid in HEADLINE for p in reproduce.prepare(eid, quick=quick, out=out,
                                                           jobs=jobs)]
    try:
        results, failure = reproduce.run_each(planned, out, None, jobs, progress), None
    except reproduce.Unfinished as e:
        results, failure = e.results, e
    return results, html_report.render(out), failure


def readings(results: list[dict]) -> str:
    """Per experiment: its title, how long it ran, and the report's computed reading."""
    lines = []
    for res in results:
        spec = experiments.load(res["id"]).plot
        points = plot.aggregate(res["records"], spec)
        lines.append(f"{res['title']} [{res['id']}, {res['wall_s']:.0f} s, "
                     f"{len(res['records'])} points]")
        lines += [f"  - {s}" for s in reading.reading(points, spec)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = Parser(prog="python -m rxbisect.study", description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=nonempty, default=DEFAULT_OUT,
                    help=f"results folder ({DEFAULT_OUT})")
    ap.add_argument("--full", action="store_true", help="the full variants (seeds, all points)")
    ap.add_argument("--jobs", type=INT, help="engine runs at once (default: every CPU)")
    args = ap.parse_args(argv)
    return exit_status(lambda: _study(args), program=argv is None)


def _study(args) -> int:
    start = time.monotonic()
    results, page, failure = run(args.out, quick=not args.full, jobs=args.jobs)
    print(readings(results))
    print(f"\n{len(results)} experiments in {time.monotonic() - start:.0f} s; "
          f"report: {page}")
    if failure:
        raise failure
    return 0


if __name__ == "__main__":
    sys.exit(main())
