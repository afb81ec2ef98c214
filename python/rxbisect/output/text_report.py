"""Plain-text tables for the terminal.

Why plain text: results are read in terminals and CI logs and pasted into
issues; aligned ASCII columns survive all three. Everything here turns
already-validated data into strings and decides nothing.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from ..engines.engine import DROP_CAUSES, Result
from ..tools.darkpackets import DarkPackets
from ..tools.sizing import Sizing, mib_text
from ..vocab import scenario
from ..vocab.scenario import Resolved
from ..vocab.schema import KeyInfo, toml_value


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], right: Sequence[bool] = ()) -> str:
    """Aligned columns; `right[i]` right-aligns column i (numbers)."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for n, r in enumerate(cells):
        parts = [c.rjust(w) if i < len(right) and right[i] else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(parts).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def num(v: float | None, digits: int = 2, unit: str = "") -> str:
    if v is None:
        return "n/a"
    text = f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"
    return f"{text} {unit}".rstrip()


def pct(v: float | None, digits: int = 2) -> str:
    return "n/a" if v is None else f"{100 * v:.{digits}f} %"


def percent(v: float | None, digits: int = 2) -> str:
    """A share as a number of percent, for a column headed "... %"."""
    return num(None if v is None else 100 * v, digits)


def _slash(values: Sequence[float | None], digits: int, unit: str) -> str:
    return " / ".join(num(v, digits) for v in values) + f" {unit}"


# Above this share of offered packets still in flight when a run ends, its throughput and
# drop rate describe a run that had not settled
IN_FLIGHT_WARN_SHARE = 0.02


def in_flight_share(m: dict) -> float | None:
    """Offered packets neither delivered nor dropped when the run ended: delivered +
    dropped + in flight = offered."""
    offered = m.get("offered_packets")
    return m["in_flight_packets"] / offered if offered and "in_flight_packets" in m else None


def in_flight_warning(metrics: Iterable[dict]) -> str | None:
    """One line when any run left more than IN_FLIGHT_WARN_SHARE of its packets in flight."""
    worst = max((x for x in map(in_flight_share, metrics) if x is not None), default=None)
    if worst is None or worst <= IN_FLIGHT_WARN_SHARE:
        return None
    return (f"{100 * worst:.1f} % of offered packets were still in flight at the end: "
            "lengthen run.duration_ms")


def metrics(result: Result, res: Resolved) -> str:
    """The terminal view of one run (docs/evaluation.md §2.2)."""
    m, s = result.metrics, res.scenario
    sy, t = s.system, s.traffic
    head = (f"{s.arch.name}{' (emulated)' if s.arch.emulated else ''} on '{res.profile.name}': "
            f"{sy.cores} cores, {sy.nics} NIC(s) x {t.rate_gbps:g} Gbps offered, "
            f"{t.packet_bytes} B, {s.workload.nf}, {t.pattern}; {result.sim_packets:,} packets "
            f"simulated in {result.sim_wall_s:.1f} s")
    return f"{head}\n\n{_rows(_metric_rows(m))}\n"


def _emulation_cost(c: dict) -> str:
    """What the emulator adds: NIC work per packet, the capacity it leaves, the latency it adds."""
    return (f"{num(c['nic_ns_per_packet'], 1, 'ns')}/packet, capacity "
            f"{num(c['capacity_mpps'], 1, 'Mpps')}, +{num(c['added_latency_ns'], 0, 'ns')} latency")


def _steps(steps: dict) -> str:
    """A NIC lcore's cycles per packet by step of its loop, in loop order."""
    return ", ".join(f"{s} {num(v, 0)}" for s, v in steps.items())


def emu(record: dict) -> str:
    """The terminal view of one `rxb-emu` run: the simulator's rows, then the emulator's."""
    m, p = record["metrics"], record["params"]
    e = m["emulator"]
    kind = "emulated" if p.get("arch.emulated", True) else "native"
    source = p.get("emu.source")
    paced = source in scenario.scope("traffic.rate_gbps", "emu")[2]
    load = f"{p.get('traffic.rate_gbps'):g} Gbps offered" if paced else "offered unpaced"
    head = (f"{record['arch']} ({kind}) on this machine: {p.get('system.cores')} workers, "
            f"{p.get('system.nics')} NIC group(s) x {load}, "
            f"{p.get('traffic.packet_bytes')} B, {p.get('workload.nf')}, "
            f"{p.get('traffic.pattern')}, source {source}; "
            f"{m['offered_packets']:,} packets in {record.get('emu_wall_s', 0):.2f} s")
    rows = _metric_rows(m)
    at = next(i for i, (label, _) in enumerate(rows) if label == "  DRAM bandwidth") + 1
    rows.insert(at, ("  DMA write rate (source)", num(m.get("dma_write_gibps"), 3, "GiB/s")))
    block = [("Emulator core", "none (native: the workers poll the physical queues)")]
    if kind == "emulated":
        block = [
            ("Emulator core", ""),
            ("  dispatched", f"{num(e['dispatched'])}  ({num(e['dispatch_mpps'], 3, 'Mpps')})"),
            ("  cycles/packet busy / full bursts", _slash([e["cycles_per_packet"],
                                                          e["loaded_cycles_per_packet"]], 1, "")),
            ("  idle share", pct(e["idle_share"], 1)),
            ("  NIC lcores", num(e["nic_lcores"])),
            ("  emulation cost", _emulation_cost(e["cost"])),
            ("  its cycles/packet by step", _steps(e["cost"]["nic_stage_cycles_per_packet"])),
            ("  buffer mismatches / swaps", f"{num(e['buffer_mismatch'])} / {num(e['swaps'])}"),
            ("  RSS software / port hash", f"{num(e['sw_hash'])} / {num(e['port_hash'])}"),
            ("  slots physical / virtual", f"{num(e['phys_slots'])} / {num(e['virt_slots'])}"),
        ]
    rows[-1:-1] = block  # before the conservation row
    return f"{head}\n\n{_rows(rows)}\n"


def _metric_rows(m: dict) -> list[tuple[str, str]]:
    """The rows every engine's record shares (docs/engine-contract.md §4.1)."""
    rows: list[tuple[str, str]] = [
        ("Throughput", ""),
        ("  offered", num(m["offered_gbps"], 2, "Gbps")),
        ("  delivered", f"{num(m['throughput_gbps'], 2, 'Gbps')}  ({num(m['throughput_mpps'], 2, 'Mpps')})"),
        ("  drop rate", pct(m["drop_rate"], 3)),
        ("  in flight at the end", pct(in_flight_share(m), 3)),
        ("Drops by cause", ""),
        *((f"  {c}", num(m["drops_by_cause"][c])) for c in DROP_CAUSES),
        ("Latency (arrival -> processed)", ""),
        ("  mean / p50 / p99 / p99.9", _slash([m[f"latency_us_{q}"] for q in
                                               ("mean", "p50", "p99", "p999")], 2, "us")),
        ("Rings and memory", ""),
        ("  ring occupancy mean / max", _slash([m["ring_occupancy"]["mean"],
                                                m["ring_occupancy"]["max"]], 1, "entries")),
        ("  I/O working set", num(m["io_working_set_mib"], 2, "MiB")),
        ("  DDIO hit rate (NIC writes)", pct(m["ddio_hit_rate"], 1)),
        ("  LLC hit rate (application)", pct(m["llc_hit_rate"], 1)),
        ("  DRAM bandwidth", num(m["mem_bw_gibps"], 2, "GiB/s")),
        ("Cycles per packet", ""),
        ("  rx / sync / alloc / app", _slash([m["cycles_per_packet"][k] for k in
                                              ("rx", "sync", "alloc", "app")], 0, "")),
        ("  total", num(m["cycles_per_packet"]["total"], 0)),
    ]
    if m.get("desc_wait_us_mean") is not None:
        rows.append(("  descriptor wait mean / p99",
                     _slash([m["desc_wait_us_mean"], m.get("desc_wait_us_p99")], 2, "us")))
    c = m["conservation"]
    rows.append(("Conservation (interfaces.md §8)",
                 f"packets {'ok' if c['packets_ok'] else 'VIOLATED'}, "
                 f"buffers {'ok' if c['buffers_ok'] else 'VIOLATED'}"))
    return rows


def _rows(rows: Sequence[tuple[str, str]]) -> str:
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(width)}  {value}".rstrip() for label, value in rows)


def sizing(sz: Sizing) -> str:
    yes = {True: "yes", False: "no"}
    head = (f"Sizing (docs/interfaces.md §5.5): {sz.nics} NIC(s) x {sz.link_gbps:g} Gbps, cores per NIC "
            f"{list(sz.cores_per_nic)}, buffer {sz.buffer_bytes} B, DDIO "
            f"{mib_text(sz.ddio_bytes)}\n"
            f"|Bx| = {sz.bx}, k = {sz.k} Ax rings in all, k_nic = {sz.k_nic} on the smallest NIC")
    rows = [(r.ax, mib_text(r.working_set_bytes), yes[r.ddio], yes[r.burst],
             yes[r.vendor], "<- chosen" if r.ax == sz.ax else "") for r in sz.rows]
    cands = table(("|Ax|", "working set", "ddio", "burst", "vendor", ""), rows,
                  (True, True))
    checks = table(("constraint", "rule", "holds", "numbers"),
                   ((c.name, c.rule, yes[c.ok], c.detail) for c in sz.checks))
    beside = table(("interface", "rings", "entries", "I/O working set", "fits DDIO"),
                   ((b.design, b.rings, b.entries, mib_text(b.working_set_bytes),
                     yes[b.fits_ddio]) for b in sz.beside), (False, True, True, True))
    return (f"{head}\n\n{cands}\n\nChecks for |Ax| = {sz.ax}:\n{checks}\n\n"
            f"{'CONFLICT: ' if sz.conflict else ''}{sz.verdict}\n\n"
            f"Working sets beside it (same NICs, cores and {sz.buffer_bytes} B buffers; "
            f"DDIO {mib_text(sz.ddio_bytes)}):\n{beside}\n")


def darkpackets(points: Sequence[DarkPackets]) -> str:
    head = ("Dark-packet bound (docs/evaluation.md §4): per-core gap g = 8 x wire bytes x cores / "
            "link; a core keeps up if g >= M x t_d + compute, else drops -> "
            "1 - g / (M x t_d + compute)\n\n")
    rows = [(f"{p.link_gbps:g}", p.packet_bytes, p.wire_bytes, p.cores, p.accesses,
             f"{p.dram_ns:g}", f"{p.compute_ns:g}", f"{p.gap_ns:.2f}", f"{p.service_ns:.2f}",
             "yes" if p.keeps_up else "no", pct(p.drop_fraction, 2), p.cores_needed)
            for p in points]
    return head + table(("Gbps", "frame B", "wire B", "cores", "M", "t_d ns", "compute ns",
                  "gap/core ns", "service ns", "keeps up", "drops", "cores needed"),
                 rows, (True,) * 12) + "\n"


def keys(infos: Sequence[KeyInfo]) -> str:
    """`rxb scenario keys`: every key with type, default, allowed values and unit."""
    out = []
    for k in infos:
        default = "(required)" if k.required else toml_value(k.default)
        unit = f"  ({k.spec.unit})" if k.spec.unit else ""
        out.append(f"{k.full}  [{k.type_name()}] = {default}{unit}")
        out.append(f"    {k.spec.doc}")
        if k.spec.auto_doc:
            out.append(f"    auto: {k.spec.auto_doc}")
        out.append(f"    allowed: {k.allowed()}")
        if k.spec.engines:
            out.append(f"    engines: {', '.join(k.spec.engines)}")
        if k.spec.emu:
            differs = ", ".join(f"{n} {toml_value(v)}" for n, v in k.spec.emu.items()
                                if n in ("default", "lo", "hi"))
            out.append(f"    on the emulator: {differs} ({k.spec.emu['why']})")
    return "\n".join(out) + "\n"


def trace_stats(s: dict) -> str:
    """`rxb trace stats`: the trace, its frame sizes and its per-core RSS load."""
    rate = f", {s['rate_gbps']:.3g} Gbps on the wire" if s["rate_gbps"] is not None else ""
    head = (f"{s['file']}: {s['packets']:,} packets ({s['non_ip']:,} not IP), {s['flows']:,} "
            f"flows, {s['bytes']:,} frame bytes over {s['duration_s']:.6g} s{rate}")
    sizes = table(("frame bytes", "packets", "share"),
                  ((f"{b['lo']}" if b["lo"] == b["hi"] else
                    f"{b['lo']}-{b['hi'] if b['hi'] else ''}", f"{b['packets']:,}",
                    pct(b["share"], 1)) for b in s["size_histogram"]), (False, True, True))
    cores = table(("core", "packets", "bytes", "share of packets", "share of bytes"),
                  ((c["core"], f"{c['packets']:,}", f"{c['bytes']:,}",
                    pct(c["share_packets"], 2), pct(c["share_bytes"], 2))
                   for c in s["per_core"]), (True,) * 5)

    def ratio(v: float | None) -> str:
        if v is not None:
            return f"{v:.2f}"
        return "none (no packets)" if s["packets"] == 0 else "unbounded (a core gets nothing)"
    return (f"{head}\n\nFrame sizes (Ethernet frame with FCS):\n{sizes}\n\n"
            f"RSS over {s['cores']} cores (Toeplitz, {s['reta_size']}-entry indirection "
            f"table, round-robin):\n{cores}\n\nmax/min per-core load: packets "
            f"{ratio(s['max_min_packets'])}, bytes {ratio(s['max_min_bytes'])}\n")
