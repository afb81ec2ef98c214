"""The `rxb` command.

    rxb sim [SCENARIO] [--set section.key=value ...] [--json] [--explain] [--calibration FILE]
    rxb emu [SCENARIO] [--set section.key=value ...] [--eal "..."] [--json]
    rxb calibrate [--out FILE] [--quick]
    rxb compare [--set ...] [--json] [--quick] [--explain] [--plot DIR] [--jobs N]
    rxb sweep [SCENARIO] --grid KEY=V1,V2 ... [--seeds N] [--out DIR] [--jobs N | --cluster ADDR]
    rxb scenario show [SCENARIO] [--set ...] [--json]
    rxb scenario keys [SECTION ...] [--json]
    rxb scenario list
    rxb size [--nics N] [--link-gbps X] [--cores-per-nic 8,8] [--buffer-bytes B] ...
    rxb dark [--link-gbps 100] [--packet-bytes 64,1518] [--cores 1] [--accesses M] ...
    rxb repro ID|all [--quick] [--seeds N] [--out DIR] [--jobs N | --cluster ADDR] ...
    rxb report DIR [--baseline DIR2]
    rxb compare-runs DIR DIR2 [--all]
    rxb trace gen OUT.pcap [...] | rxb trace stats PCAP [--cores N] [--json]
    rxb fidelity [--json] [--quick] [--fit [--out FILE]]

A thin layer: parsing arguments, calling the modules, printing. Every error the
user can cause ends as one line `rxb: error: ...` on stderr and exit code 2
(bad input) or 1 (engine failure), never a traceback.
"""

import argparse
import itertools
import sys
from collections.abc import Sequence

from ..engines import emu, engine
from ..errors import UsageError
from ..output import text_report
from ..study import anatomy, calibrate, compare, nf_costs
from ..study.sweeps import (
    check_jobs,
    execute,
    grid_from_args,
    idle_everywhere,
    idle_in_part,
    plan,
    refuse_idle_grid,
)
from ..study.sweeps import table as sweep_table
from ..tools import darkpackets, sizing
from ..version import __version__
from ..vocab import profile, scenario
from . import cli_fidelity, cli_repro, cli_tools
from .options import (
    INT,
    ListDefaults,
    Parser,
    as_key,
    at_most,
    bar_args,
    exit_status,
    list_of,
    nonempty,
    option_blamed,
    pool_args,
    print_json,
    progress,
    scenario_args,
    seconds,
    set_args,
    warn,
)


def _warn_in_flight(records: Sequence[dict]) -> None:
    warning = text_report.in_flight_warning(r["metrics"] for r in records)
    warn([warning] if warning else [])


def _resolved(args) -> scenario.Resolved:
    """The scenario of `rxb sim` and `rxb scenario show`, with a warning for each key given
    that changes nothing in it."""
    scenario.check_sets(args.sets)
    res = scenario.load_resolved(args.scenario, args.sets)
    warn(scenario.idle_keys(res.scenario, scenario.chosen_keys(args.scenario, args.sets)))
    return res


def cmd_sim(args) -> int:
    res = _resolved(args)
    cal = calibrate.load(args.calibration) if args.calibration else None
    result = engine.run(res, progress=progress(args), timeout=args.timeout,
                        keep_config=args.keep_config, calibration=cal)
    if args.json:
        print_json(result.record())
    else:
        print(text_report.metrics(result, res), end="")
    _warn_in_flight([result.record()])
    if args.explain:  # beside --json on stderr, so stdout stays one JSON record
        print("\n" + anatomy.explain(result.metrics), end="",
              file=sys.stderr if args.json else sys.stdout)
    return 0


def cmd_emu(args) -> int:
    scenario.check_sets(args.sets)
    scn = scenario.load(args.scenario, args.sets)
    # rxb-emu itself warns about the keys it does not honour at all
    given = [k for k in scenario.chosen_keys(args.scenario, args.sets)
             if scenario.honours(k, "emu")]
    warn(scenario.idle_keys(scn, given, "emu"))
    run = emu.run(args.scenario, args.sets, eal=args.eal, progress=progress(args),
                  timeout=args.timeout)
    if args.json:
        print_json(run.record)
    else:
        print(text_report.emu(run.record), end="")
    return 0


def cmd_calibrate(args) -> int:
    if args.costs:
        cycles = nf_costs.measure(args.costs, args.quick, report=lambda nf, i, n: print(
            f"rxb: measuring {nf} on rxb-emu ({i + 1}/{n})", file=sys.stderr))
        print(text_report.table(("nf", "cycles per packet"), cycles.items(), (False, True)))
        print(f"wrote {args.costs}: use it with --set workload.costs={args.costs}")
        return 0
    cmd = "rxb calibrate" + (" --quick" if args.quick else "") + f" --out {args.out}"
    doc = calibrate.run(args.out, quick=args.quick, progress=progress(args), command=cmd)
    rows = []
    for k, v in doc["cycles"].items():
        src = "measured here" if k in doc["measured"] else "carried over (assumption)"
        per = v.items() if isinstance(v, dict) else [(None, v)]
        rows += [(f"{k}.{a}" if a else k, f"{x:.2f}", src) for a, x in per]
    print(text_report.table(("cycles", "value", "source"), rows, (False, True)))
    print(f"\nwrote {args.out}; use it with `rxb sim --calibration {args.out}`")
    return 0


def cmd_compare(args) -> int:
    check_jobs(args.jobs, None)
    scenario.check_sets(args.sets)
    warn(compare.idle_keys(args.sets))
    if args.plot:  # before the runs: a folder it cannot write fails in seconds, not minutes
        compare.check_plot_folder(args.plot)
    points = compare.run(args.sets, quick=args.quick, workers=args.jobs)
    if args.json:
        print_json([p.record for p in points])
    else:
        print(f"Receive interfaces, {compare.describe(args.sets, args.quick)}\n")
        print(compare.table(points))
    _warn_in_flight([p.record for p in points])
    if args.explain:
        print("\n" + compare.explain(points), end="", file=sys.stderr if args.json else sys.stdout)
    if args.plot:
        path = compare.plot(points, args.plot)
        print(f"\nplot: {path}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _check_sweep_keys(args, grid: dict, points: Sequence) -> None:
    """Refuse grid keys that change nothing at any point (their values would be the same
    run again), warn for those that change nothing at some; warn for such keys given by the
    scenario file or --set."""
    refuse_idle_grid(grid, points, "--grid")
    warn(idle_in_part(grid, points, "--grid"))
    given = [k for k in scenario.chosen_keys(args.scenario, args.sets) if k not in grid]
    warn([w for k in given if (w := idle_everywhere(k, points))])


def _refuse_replaced_sets(sets: Sequence[str], grid: dict, seeds: int | None) -> None:
    """A --set whose key the grid or --seeds sets at every point would be silently lost."""
    for k in scenario.set_keys(sets):
        if k in grid:
            raise UsageError(f"--set {k}: also a --grid key, whose values replace it; "
                             "give one of them")
        if k == "run.seed" and seeds is not None:
            raise UsageError("--set run.seed: --seeds sets run.seed at every point; "
                             "give one of them")


def cmd_sweep(args) -> int:
    scenario.check_sets(args.sets)
    grid = grid_from_args(args.grid)
    _refuse_replaced_sets(args.sets, grid, args.seeds)
    points = plan(args.scenario, grid, args.seeds, args.sets)
    _check_sweep_keys(args, grid, points)
    outcome = execute(points, args.out, args.cluster, args.jobs, progress(args),
                      timeout=args.timeout)
    if args.json:
        print_json(outcome.records)
    else:
        print(sweep_table(outcome), end="")
    _warn_in_flight(outcome.records)
    return 0


def cmd_show(args) -> int:
    res = _resolved(args)
    if args.json:
        print_json(engine.build_config(res))
    else:
        print(f"# resolved scenario; hardware profile '{res.profile.name}' "
              f"({res.profile.source})")
        print(res.scenario.to_toml(), end="")
    return 0


def cmd_keys(args) -> int:
    infos = scenario.SCHEMA.keys()
    for s in args.sections:
        if s not in scenario.SCHEMA.sections:
            raise UsageError(f"unknown section '{s}'; allowed: "
                             + ", ".join(scenario.SCHEMA.sections))
    if args.sections:
        infos = [k for k in infos if k.section in args.sections]
    if args.json:
        print_json([{"key": k.full, "type": k.type_name(), "default": k.default,
                      "allowed": k.allowed(), "unit": k.spec.unit, "doc": k.spec.doc,
                      "engines": list(k.spec.engines), "emu": k.spec.emu or {}}
                     for k in infos])
    else:
        print(text_report.keys(infos), end="")
    return 0


def cmd_list(args) -> int:
    rows = [(name, scenario.load(name).description) for name in scenario.builtin_names()]
    print(text_report.table(("scenario", "description"), rows))
    rows = [(name, profile.load(name).description) for name in profile.builtin_names()]
    print()
    print(text_report.table(("profile", "description"), rows))
    return 0


SIZE_CORES = 16  # rxb size --cores when neither it nor --cores-per-nic is given


def _cores_per_nic(args, link: float) -> tuple[int, ...]:
    """rxb size's cores of each NIC: --cores-per-nic, or --cores split in proportion to
    --traffic-gbps (each NIC at line rate by default). Mixing the two ways is refused rather
    than one silently winning."""
    def one_per_nic(option: str, values: list) -> None:
        if len(values) != args.nics:
            raise UsageError(f"{option} has {len(values)} values for --nics {args.nics}; "
                             "allowed: one per NIC")
    if args.cores_per_nic:
        if args.cores is not None or args.traffic_gbps:
            raise UsageError("--cores-per-nic replaces --cores and --traffic-gbps; "
                             "give one or the other")
        one_per_nic("--cores-per-nic", args.cores_per_nic)
        return tuple(args.cores_per_nic)
    rates = args.traffic_gbps or [link] * args.nics
    one_per_nic("--traffic-gbps", rates)
    over = [r for r in rates if r > link]
    if over:  # the cores would follow a load the NIC cannot carry
        raise UsageError(f"--traffic-gbps {over[0]:g}: above the {link:g} Gbps link; allowed: "
                         f"0 to {link:g} per NIC (--link-gbps or the profile's nic.link_gbps)")
    return sizing.split_cores(SIZE_CORES if args.cores is None else args.cores, rates)


def cmd_sizing(args) -> int:
    with option_blamed("--profile", args.profile):
        prof = profile.load(args.profile)
    link = args.link_gbps if args.link_gbps is not None else prof.nic.link_gbps
    per_nic = _cores_per_nic(args, link)
    if args.ddio_mib is not None:
        ddio = int(args.ddio_mib * 2**20)
    else:
        ways = prof.llc.ddio_ways if args.ddio_ways is None else args.ddio_ways
        if not 0 <= ways <= prof.llc.ways:
            raise UsageError(f"--ddio-ways {ways}: profile '{prof.name}' has {prof.llc.ways} LLC "
                             f"ways; allowed: 0 to {prof.llc.ways}")
        ddio = prof.ddio_bytes(ways)
    sz = sizing.size(nics=args.nics, link_gbps=link, cores_per_nic=per_nic,
                     buffer_bytes=args.buffer_bytes, ddio_bytes=ddio, bx=args.bx, ax=args.ax,
                     prefer=args.prefer)
    if args.json:
        print_json(sz.to_dict())
    else:
        print(text_report.sizing(sz), end="")
    return 0


def cmd_dark(args) -> int:
    with option_blamed("--profile", args.profile):  # checked even when --dram-ns replaces it
        idle = darkpackets.default_dram_ns(args.profile)
    dram = args.dram_ns or [idle]
    points = [darkpackets.compute(*combo) for combo in itertools.product(
        args.link_gbps, args.packet_bytes, args.cores, args.accesses, dram, args.compute_ns)]
    if args.json:
        print_json({"points": [p.to_dict() for p in points]})
    else:
        print(text_report.darkpackets(points), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="rxb", description="rxbisect: NIC receive interfaces — scenarios, "
                "simulator runs, sizing and dark-packet calculators.")
    p.add_argument("--version", action="version", version=f"rxb {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    s = sub.add_parser("sim", help="simulate one scenario with the rxb-sim engine")
    scenario_args(s)
    s.add_argument("--json", action="store_true", help="print one JSON result record")
    s.add_argument("--explain", action="store_true", help="also print where each packet's "
                   "time goes: the per-packet stall anatomy per core class (on stderr with "
                   "--json)")
    bar_args(s)
    s.add_argument("--keep-config", type=nonempty, metavar="FILE", help="also write the engine's config JSON here")
    s.add_argument("--timeout", type=seconds, metavar="SECONDS",
                   help="stop the engine after this")
    s.add_argument("--calibration", type=nonempty, metavar="FILE", help="software cycle costs to use instead "
                   "of the built-in ones (a file `rxb calibrate` writes)")
    s.set_defaults(func=cmd_sim)

    e = sub.add_parser("emu", help="run one scenario on the DPDK emulator rxb-emu (real cores, "
                       "real packets; docs/emulator.md)")
    scenario_args(e, "rxb-emu's own (2 workers, 1 Gbps, 1 s); only the keys a file or "
                   "--set names are passed on")
    e.add_argument("--eal", metavar="\"OPTIONS\"", help="DPDK EAL options (default: what "
                   "rxb-emu picks for this machine: --no-huge unless 1 GiB of hugepages is free, "
                   "--no-pci, --lcores)")
    e.add_argument("--json", action="store_true", help="print rxb-emu's JSON result record")
    bar_args(e)
    e.add_argument("--timeout", type=seconds, metavar="SECONDS", help="stop rxb-emu after this")
    e.set_defaults(func=cmd_emu)

    k = sub.add_parser("calibrate", help="measure this machine's software costs and write a "
                       "calibration file for `rxb sim --calibration`")
    k.add_argument("--out", type=nonempty, default="calibration.json", metavar="FILE",
                   help="where to write it (default calibration.json)")
    k.add_argument("--quick", action="store_true", help="short measurements, no callgrind "
                   "(a few seconds; noisier)")
    k.add_argument("--costs", type=nonempty, metavar="FILE", help="instead: measure each NF on the emulator "
                   "and write a workload cost profile for `--set workload.costs=FILE`")
    bar_args(k)
    k.set_defaults(func=cmd_calibrate)

    c = sub.add_parser("compare", help="simulate every receive interface, balanced and "
                       "imbalanced, and print one table")
    set_args(c, "override a key in every run (repeatable)")
    c.add_argument("--json", action="store_true", help="print the result records as JSON")
    c.add_argument("--quick", action="store_true", help="3 ms of simulated time per run")
    c.add_argument("--explain", action="store_true", help="also print each design's per-packet "
                   "stall anatomy side by side, per traffic and core class (on stderr with "
                   "--json)")
    c.add_argument("--plot", type=nonempty, metavar="DIR", help="also write DIR/compare.png (bar charts)")
    c.add_argument("--jobs", type=INT, metavar="N",
                   help=f"engine runs at once (default {compare.DEFAULT_WORKERS}, at most the CPUs)")
    c.set_defaults(func=cmd_compare)

    w = sub.add_parser("sweep", help="simulate a scenario over the cross product of key grids "
                       "and seeds; resumable records in DIR/sweep.jsonl (docs/sweeps.md)")
    scenario_args(w)
    w.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="values of one key (repeatable; the points are the cross product)")
    w.add_argument("--seeds", type=INT, metavar="N",
                   help="run every point with run.seed = 1..N (default: the scenario's seed)")
    w.add_argument("--out", type=nonempty, default="results/sweep", metavar="DIR",
                   help="folder for sweep.jsonl and sweep.parquet; points already recorded "
                   "there are skipped (default results/sweep)")
    pool_args(w)
    w.add_argument("--json", action="store_true", help="print the points' records as JSON")
    bar_args(w)
    w.set_defaults(func=cmd_sweep)

    sc = sub.add_parser("scenario", help="inspect scenarios and their keys")
    scsub = sc.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    show = scsub.add_parser("show", help="print the resolved scenario (TOML, or the engine's "
                            "JSON config with --json)")
    scenario_args(show)
    show.add_argument("--json", action="store_true", help="the exact JSON the engine receives")
    show.set_defaults(func=cmd_show)
    keys = scsub.add_parser("keys", help="list every key: type, default, allowed values, unit")
    keys.add_argument("sections", nargs="*", metavar="SECTION")
    keys.add_argument("--json", action="store_true")
    keys.set_defaults(func=cmd_keys)
    lst = scsub.add_parser("list", help="list built-in scenarios and hardware profiles")
    lst.set_defaults(func=cmd_list)
    sc.set_defaults(func=lambda a: _help(sc))

    z = sub.add_parser("size", aliases=["sizing"], help="|Ax| and |Bx| from the sizing rules of docs/interfaces.md §5.5")
    z.add_argument("--profile", type=nonempty, default="reference", help="hardware profile (name or file) for "
                   "the DDIO capacity and link rate (default: reference)")
    # each option takes the values of the scenario key it stands for (as_key)
    z.add_argument("--nics", type=as_key("system.nics"), default=2, help="NICs (default 2)")
    z.add_argument("--link-gbps", type=as_key("traffic.rate_gbps"),
                   help="line rate per NIC (default: the profile's)")
    z.add_argument("--cores", type=as_key("system.cores"), help="cores to divide "
                   f"among the NICs in proportion to --traffic-gbps (default {SIZE_CORES})")
    z.add_argument("--traffic-gbps", type=list_of(as_key("traffic.rate_gbps")),
                   metavar="R1,R2,...", help="traffic per NIC (default: line rate on every NIC)")
    z.add_argument("--cores-per-nic", type=list_of(as_key("system.cores")), metavar="C1,C2,...",
                   help="cores per NIC, instead of --cores/--traffic-gbps")
    z.add_argument("--buffer-bytes", type=as_key("arch.buffer_bytes"), default=2048,
                   help="buffer size (default 2048)")
    ddio = z.add_mutually_exclusive_group()
    ddio.add_argument("--ddio-ways", type=as_key("system.ddio_ways"),
                      help="DDIO ways (default: the profile's)")
    ddio.add_argument("--ddio-mib", type=at_most(2**20, "MiB"), help="DDIO capacity, instead of the "
                      "profile's LLC size x ddio ways / ways")
    z.add_argument("--bx", type=as_key("arch.bx_size"),
                   help="|Bx| (default: 1024 per 100 Gbps of link, min 1024)")
    z.add_argument("--ax", type=as_key("arch.ax_size"),
                   help="check this |Ax| instead of choosing one")
    z.add_argument("--prefer", choices=("ddio", "burst"), default="ddio",
                   help="which constraint to keep when DDIO fit and burst absorption conflict")
    z.add_argument("--json", action="store_true")
    z.set_defaults(func=cmd_sizing)

    d = sub.add_parser("dark", aliases=["darkpackets"], help="the analytic dark-packet bound of docs/evaluation.md §4; "
                       "each option takes a comma-separated list and all combinations are shown",
                       formatter_class=ListDefaults)
    # each option takes the values of the scenario key it stands for (as_key)
    d.add_argument("--link-gbps", type=list_of(as_key("traffic.rate_gbps")), default=[100.0],
                   metavar="L", help="link rate (default: %(default)s)")
    d.add_argument("--packet-bytes", type=list_of(as_key("traffic.packet_bytes")), default=[64],
                   metavar="P", help="Ethernet frame incl. FCS; 20 B of preamble and gap are "
                   "added (default: %(default)s)")
    d.add_argument("--cores", type=list_of(as_key("system.cores")), default=[1], metavar="N",
                   help="cores sharing the link (default: %(default)s)")
    d.add_argument("--accesses", type=list_of(as_key("workload.reads")), default=[1],
                   metavar="M", help="dependent DRAM accesses per packet (default: %(default)s)")
    d.add_argument("--dram-ns", type=list_of(at_most(1e6, "ns")), metavar="T",
                   help="DRAM latency (default: the profile's idle latency)")
    d.add_argument("--compute-ns", type=list_of(as_key("workload.compute_ns")), default=[0.0],
                   metavar="C", help="compute per packet besides the accesses "
                   "(default: %(default)s)")
    d.add_argument("--profile", type=nonempty, default=darkpackets.DEFAULT_PROFILE,
                   help="hardware profile whose DRAM idle latency --dram-ns defaults to "
                   "(default: %(default)s)")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=cmd_dark)

    cli_repro.register(sub)  # rxb repro
    cli_tools.register(sub)  # rxb report, rxb trace
    cli_fidelity.register(sub)  # rxb fidelity
    return p


def _help(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _glue_eal(argv: list[str]) -> list[str]:
    """`--eal "--no-pci"` as `--eal=--no-pci`: argparse would take a lone `--no-pci` for an
    option of ours and say --eal has no argument."""
    out = []
    it = iter(argv)
    for a in it:
        out.append(f"--eal={next(it, '')}" if a == "--eal" else a)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_glue_eal(list(sys.argv[1:] if argv is None else argv)))
    if not hasattr(args, "func"):
        return _help(parser)
    return exit_status(lambda: args.func(args), program=argv is None)


if __name__ == "__main__":
    sys.exit(main())
