"""`rxb report`, `rxb compare-runs` and `rxb trace`: reading results and traces."""

import argparse
import json
import sys
from pathlib import Path

from ..errors import UsageError
from .options import FLOAT, INT, Parser, bar_args, nonempty, option_blamed, progress, warn


def _experiments_dir(args) -> Path | None:
    """--experiments as a folder, or None for the catalogue; UsageError when it is not one
    (an experiment file missing from it would otherwise go unnoticed)."""
    if args.experiments is None:
        return None
    path = Path(args.experiments)
    if not path.is_dir():
        raise UsageError(f"--experiments {args.experiments}: not a folder; expected a folder "
                         "of ID.toml experiment files (default: experiments/ of the "
                         "repository)")
    return path


def cmd_report(args) -> int:
    from ..output import html_report
    experiments = _experiments_dir(args)
    baseline_html = None
    if args.baseline is not None:
        from ..output import baseline
        baseline_html = baseline.html(baseline.compare(args.dir, args.baseline, experiments,
                                                       _say))
    path = html_report.render(args.dir, experiments, args.out, baseline_html=baseline_html)
    print(f"report: {path}")
    return 0


def cmd_compare_runs(args) -> int:
    from ..output import baseline
    c = baseline.compare(args.dir, args.baseline, _experiments_dir(args), _say)
    if not set(c.new.experiments) & set(c.base.experiments):  # a gate that compared nothing
        raise UsageError(f"no experiment is in both {args.dir} ({', '.join(c.new.experiments)}) "
                         f"and {args.baseline} ({', '.join(c.base.experiments)}); allowed: two "
                         "results folders of the same experiments")
    print(baseline.text(c, every=args.all), end="")
    return 1 if c.flagged else 0


def _say(message: str) -> None:
    print(message, file=sys.stderr)


# rxb trace gen's options: rxb-tracegen's flags (it checks them and names the bad one),
# so the defaults shown are the generator's own (sim_tracegen_cfg_default).
_GEN_FLAGS = (
    ("seed", INT, "PRNG seed (default 1)"),
    ("duration-ms", FLOAT, "trace length (default 100)"),
    ("rate-gbps", FLOAT, "mean offered load in wire bits (default 10)"),
    ("line-gbps", FLOAT, "serialise frames at this line rate; 0 = do not (default 0)"),
    ("alpha", FLOAT, "skew: Pareto shape of flow sizes, lower = heavier tail = more uneven "
     "per-core load (default 1.2)"),
    ("min-pkts", FLOAT, "Pareto scale: the smallest flow, packets (default 1)"),
    ("max-pkts", INT, "the largest flow, packets (default 1000000)"),
    ("pps-median", FLOAT, "median per-flow packet rate, lognormal (default 10000)"),
    ("pps-sigma", FLOAT, "lognormal sigma of per-flow rates (default 1)"),
    ("tcp-share", FLOAT, "fraction of flows that are TCP, the rest UDP (default 0.8)"),
    ("sizes", str, "frame-size mix LEN:WEIGHT,..., one size per flow "
     "(default 64:0.45,594:0.1,1518:0.45)"),
    ("snaplen", INT, "bytes captured per packet (default 128)"),
)


def cmd_trace_gen(args) -> int:
    from ..tools import tracegen
    flags = {name.replace("-", "_"): getattr(args, name.replace("-", "_"))
             for name, _, _ in _GEN_FLAGS}
    out = tracegen.generate(args.out, args.flows, **flags)
    print(json.dumps(out) if args.json else
          f"wrote {out['file']}: {out['packets']:,} packets, {out['flows']:,} flows over "
          f"{out['duration_ms']:g} ms; see `rxb trace stats {out['file']}`")
    return 0


def cmd_trace_stats(args) -> int:
    from ..output import text_report
    from ..tools import trace
    from ..vocab import profile
    # the profile is read (and checked) even when --reta-size replaces its table size
    with option_blamed("--profile", args.profile):
        prof = profile.load(args.profile)
    size = prof.nic.reta_size if args.reta_size is None else args.reta_size
    trace.check_spread(args.cores, size)
    if args.cores > size:  # said before the read, which may take minutes
        warn([f"--cores {args.cores} is more than the {size} entries of the indirection table: "
              f"cores {size} to {args.cores - 1} get no entry, so no packet"])
    s = trace.stats(args.pcap, args.cores, size, progress=progress(args))
    print(json.dumps(s, indent=2) if args.json else text_report.trace_stats(s), end="\n" if
          args.json else "")
    return 0


def _experiments_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--experiments", type=nonempty, metavar="FOLDER", help="where ID.toml experiment files "
                   "are (default: experiments/ of the repository)")


def register(sub) -> None:
    """Add the `report`, `compare-runs` and `trace` subcommands to the `rxb` parser."""
    r = sub.add_parser("report", help="one self-contained HTML page for every experiment "
                       "in DIR (figures, tables, parameters, a reading; docs/report.md)")
    r.add_argument("dir", type=nonempty, metavar="DIR", help="results folder with ID.jsonl files")
    _experiments_arg(r)
    r.add_argument("--out", type=nonempty, metavar="FILE", help="the page to write (default DIR/report.html)")
    r.add_argument("--baseline", type=nonempty, metavar="DIR2", help="add a section comparing DIR with the "
                   "results in DIR2, point by point (docs/regressions.md)")
    r.set_defaults(func=cmd_report)

    c = sub.add_parser("compare-runs", help="the same experiments of two results folders "
                       "side by side; exit 1 when a point differs beyond the seed spread "
                       "(docs/regressions.md)")
    c.add_argument("dir", type=nonempty, metavar="DIR", help="results folder to check (e.g. of a change)")
    c.add_argument("baseline", type=nonempty, metavar="DIR2", help="results folder to check it against")
    _experiments_arg(c)
    c.add_argument("--all", action="store_true", help="show every point, not only those "
                   "that differ or are on one side only")
    c.set_defaults(func=cmd_compare_runs)

    t = sub.add_parser("trace", help="make and characterise packet traces "
                       "(docs/trace-tools.md)")
    tsub = t.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    t.set_defaults(func=lambda a: (t.print_help(sys.stderr), 2)[1])
    g = tsub.add_parser("gen", help="write a synthetic heavy-tailed trace (the simulator's "
                        "generator, sim/tracegen.h)")
    g.add_argument("out", type=nonempty, metavar="OUT.pcap")
    g.add_argument("--flows", type=INT, help="about this many flows (sets --min-pkts by "
                   "bisection on the generator's own flow count)")
    for name, conv, text in _GEN_FLAGS:
        g.add_argument(f"--{name}", type=conv, help=text)
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=cmd_trace_gen)
    s = tsub.add_parser("stats", help="packets, flows, frame sizes and per-core RSS load of "
                        "a pcap/pcapng")
    s.add_argument("pcap", type=nonempty, metavar="PCAP")
    s.add_argument("--cores", type=INT, default=16, help="cores RSS spreads over (default 16)")
    s.add_argument("--reta-size", type=INT, help="indirection table entries (default: the "
                   "profile's nic.reta_size)")
    s.add_argument("--profile", type=nonempty, default="reference", help="hardware profile (default reference)")
    s.add_argument("--json", action="store_true")
    bar_args(s)
    s.set_defaults(func=cmd_trace_stats)
