"""`rxb repro`: the study's experiments (experiments/, docs/experiments.md).

    rxb repro ID|all [--quick] [--seeds N] [--profile NAME] [--out DIR] [--json]
                     [--jobs N | --cluster ADDRESS]
    rxb repro list
"""

import json
import sys

from .options import INT, bar_args, nonempty, pool_args, progress

LIST = "list"


def cmd_repro(args) -> int:
    from ..output import text_report
    from ..study import experiments, reproduce
    from ..study.sweeps import cpus
    if args.experiment == LIST:
        rows = [(i, experiments.load(i).title) for i in experiments.ids()]
        print(text_report.table(("experiment", "title"), rows))
        return 0
    planned = reproduce.prepare(args.experiment, args.quick, args.seeds, args.profile, args.out,
                            args.cluster, args.jobs)
    jobs = args.jobs or (None if args.cluster else cpus())
    points = [x for p in planned for x in p.points]
    # a cluster's width is its own: the estimate there is for one run at a time
    where = (f"one run at a time (the cluster {args.cluster} runs several at once)"
             if args.cluster else f"{jobs} local processes")
    eta = reproduce.duration_text(reproduce.estimate_s(points, jobs or 1))
    print(f"rxb: {len(planned)} experiment(s), {len(points)} points "
          f"({'quick' if args.quick else 'full'} variant); estimated {eta} on {where} "
          f"(points already in {args.out} are skipped)", file=sys.stderr)
    def show(p, res: dict) -> None:
        if args.json:
            return
        print(f"\n== {p.exp.id}: {p.exp.title} ==")
        print(reproduce.summary_table(p.exp, res["summary"]))
        print(f"{len(p.points)} points: {res['ran']} run now, {res['skipped']} already "
              f"recorded; {res['wall_s']:.1f} s")
        for f in res["files"]:
            print(f"  {f}")

    try:
        results, failure = reproduce.run_each(planned, args.out, args.cluster, args.jobs,
                                              progress(args), show, timeout=args.timeout), None
    except reproduce.Unfinished as e:  # the experiments that finished are shown all the same
        results, failure = e.results, e
    if args.json:
        print(json.dumps([{k: v for k, v in r.items() if k != "records"} for r in results],
                         indent=1))
    if failure:
        raise failure
    return 0


def register(sub) -> None:
    """Add the `repro` subcommand to the `rxb` parser."""
    from ..study import reproduce
    r = sub.add_parser("repro", help="run an experiment of the catalogue (experiments/): "
                       "records, table, summary and plot in DIR (docs/experiments.md)")
    r.add_argument("experiment", type=nonempty, metavar="ID", help="a catalogue ID, an experiment file, "
                   "'all' (every experiment) or 'list' (print the catalogue)")
    r.add_argument("--quick", action="store_true", help="the quick variant: same shape, "
                   "fewer points, shorter runs, one seed")
    r.add_argument("--seeds", type=INT, metavar="N", help="seeds per point (default: the "
                   "variant's; the full variant reports the trimmed mean of 10)")
    r.add_argument("--profile", type=nonempty, metavar="NAME", help="hardware profile for every point "
                   "(default: the experiment's, normally 'reference')")
    r.add_argument("--out", type=nonempty, default=reproduce.DEFAULT_OUT, metavar="DIR",
                   help=f"folder for ID.jsonl/.parquet/.summary.json/.png/.svg; points "
                   f"already recorded there are skipped (default {reproduce.DEFAULT_OUT})")
    pool_args(r)
    r.add_argument("--json", action="store_true", help="print the summaries as JSON")
    bar_args(r)
    r.set_defaults(func=cmd_repro)
