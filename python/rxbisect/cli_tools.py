"""`rxb report` and `rxb trace`: reading results and traces."""

import argparse
import json
import sys


def cmd_report(args) -> int:
    from . import report_html
    path = report_html.render(args.dir, args.experiments, args.out)
    print(f"report: {path}")
    return 0


def _sizes(text: str) -> list[tuple[int, float]]:
    """`64:0.45,1518:0.55` -> [(64, 0.45), (1518, 0.55)]."""
    try:
        return [(int(n), float(w)) for n, w in (p.split(":") for p in text.split(","))]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LEN:WEIGHT,LEN:WEIGHT,... "
                                         "(e.g. 64:0.45,594:0.1,1518:0.45)") from None


def cmd_trace_gen(args) -> int:
    from . import tracegen
    out = tracegen.generate(args.out, args.duration_ms, args.rate_gbps, args.line_gbps or None,
                            args.alpha, args.flows, args.min_pkts, args.max_pkts,
                            args.flow_pps, args.flow_pps_sigma, args.sizes, args.tcp_share,
                            args.seed, args.snaplen)
    print(json.dumps(out) if args.json else f"wrote {out['file']}: {out['packets']:,} packets; "
          f"see `rxb trace stats {out['file']}`")
    return 0


def cmd_trace_stats(args) -> int:
    from . import profile, report, trace
    size = args.reta_size or profile.load(args.profile).nic.reta_size
    s = trace.stats(args.pcap, args.cores, size)
    print(json.dumps(s, indent=2) if args.json else report.trace_stats(s), end="\n" if
          args.json else "")
    return 0


def register(sub, parser_class: type[argparse.ArgumentParser]) -> None:
    """Add the `report` and `trace` subcommands to the `rxb` parser."""
    r = sub.add_parser("report", help="one self-contained HTML page for every experiment "
                       "in DIR (figures, tables, parameters, a reading; docs/report.md)")
    r.add_argument("dir", metavar="DIR", help="results folder with ID.jsonl files")
    r.add_argument("--experiments", metavar="FOLDER", help="where ID.toml experiment files "
                   "are (default: experiments/ of the repository)")
    r.add_argument("--out", metavar="FILE", help="the page to write (default DIR/report.html)")
    r.set_defaults(func=cmd_report)

    t = sub.add_parser("trace", help="make and characterise packet traces "
                       "(docs/trace-tools.md)")
    tsub = t.add_subparsers(dest="action", metavar="ACTION", parser_class=parser_class)
    t.set_defaults(func=lambda a: (t.print_help(sys.stderr), 2)[1])
    g = tsub.add_parser("gen", help="write a synthetic heavy-tailed trace (the simulator's "
                        "generator, sim/tracegen.h)")
    g.add_argument("out", metavar="OUT.pcap")
    g.add_argument("--duration-ms", type=float, default=100.0, help="trace length (default 100)")
    g.add_argument("--rate-gbps", type=float, default=10.0,
                   help="mean offered load, wire bits (default 10)")
    g.add_argument("--line-gbps", type=float, default=100.0, help="serialise frames at this "
                   "line rate; 0 = do not (default 100)")
    g.add_argument("--alpha", type=float, default=1.2, help="skew: Pareto shape of flow "
                   "sizes, smaller = heavier tail = more imbalance (default 1.2)")
    g.add_argument("--flows", type=int, help="about this many flows (sets the smallest flow "
                   "size; default: what --min-pkts gives)")
    g.add_argument("--min-pkts", type=float, default=1.0, help="Pareto scale: smallest flow, "
                   "packets (default 1)")
    g.add_argument("--max-pkts", type=int, default=1_000_000,
                   help="largest flow, packets (default 1000000)")
    g.add_argument("--flow-pps", type=float, default=10_000.0,
                   help="median per-flow packet rate (lognormal; default 10000)")
    g.add_argument("--flow-pps-sigma", type=float, default=1.0,
                   help="lognormal shape of per-flow rates (default 1)")
    g.add_argument("--sizes", type=_sizes, default=[(64, 0.45), (594, 0.1), (1518, 0.45)],
                   metavar="LEN:W,...", help="frame-size mix, one size per flow "
                   "(default 64:0.45,594:0.1,1518:0.45)")
    g.add_argument("--tcp-share", type=float, default=0.8, help="TCP flows, rest UDP "
                   "(default 0.8)")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--snaplen", type=int, default=128, help="bytes captured per packet "
                   "(default 128)")
    g.add_argument("--json", action="store_true")
    g.set_defaults(func=cmd_trace_gen)
    s = tsub.add_parser("stats", help="packets, flows, frame sizes and per-core RSS load of "
                        "a pcap/pcapng")
    s.add_argument("pcap", metavar="PCAP")
    s.add_argument("--cores", type=int, default=16, help="cores RSS spreads over (default 16)")
    s.add_argument("--reta-size", type=int, help="indirection table entries (default: the "
                   "profile's nic.reta_size)")
    s.add_argument("--profile", default="reference", help="hardware profile (default reference)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_trace_stats)
