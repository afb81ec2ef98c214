"""Scenarios: what to simulate, as typed sections with documented defaults.

A scenario file is TOML with sections arch, system, traffic, workload and run.
Loading merges the file over the defaults, then applies `--set section.key=value`
overrides typed by the key; `resolve` then loads the hardware profile, checks
the rules that involve several keys, and replaces every "auto" by a number, so
the engine never has to guess. The defaults reproduce the reference setup of
evaluation.md §2.4: 16 cores, 2 NICs, 2 × 100 Gbps, 1500 B packets (IP MTU 1500, i.e.
1518 B Ethernet frames), LB,
reference hardware, privRing 1024 / small privRing 128 / Ax 128, Bx 1024.

Units are in key names where it helps (`_gbps`, `_ms`, `_ns`, `_bytes`,
`_mib`); rates are per NIC; packet sizes are Ethernet frames including the
FCS, without the 20 B of preamble and inter-frame gap.
"""

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Sequence

from . import profile as profiles
from .errors import ScenarioError
from .schema import AUTO, Schema, as_dict, key, read_toml, show, suggest, to_toml

ARCHS = ("privring", "small_privring", "shring", "shring_list", "dyn_shring", "rxbisect", "spool")
SHARED = ("shring", "shring_list", "dyn_shring")  # archs with rings shared by share_degree cores
RING = dict(lo=2, hi=2**20, pow2=True)  # RXB_RING_MIN / RXB_RING_MAX of include/rxb/common.h
AX_VENDOR_MIN = 64  # RXB_AX_VENDOR_MIN: smallest Ax ring a NIC accepts (interfaces.md §5.1)
RXLIST_BATCH_MAX = 64  # RXB_SHRING_BATCH_MAX of include/rxb/shring.h
ETH_OVERHEAD_BYTES = 20  # preamble 7 + SFD 1 + inter-frame gap 12
Auto = Literal["auto"]


@dataclass(frozen=True)
class Arch:
    """The receive interface under test and its rings, buffers and policies."""

    name: str = key("rxbisect", "receive interface (interfaces.md §3-§6)", choices=ARCHS)
    rx_size: int | Auto = key(AUTO, "Rx ring entries (privRing per core, shRing per shared "
                              "ring, spool per representor with spool_mode none); auto = 128 for "
                              "small_privring, else 1024", unit="descriptors", **RING)
    ax_size: int = key(128, "rxBisect Ax ring entries per core (empty buffers, core -> NIC)",
                       unit="descriptors", lo=AX_VENDOR_MIN, hi=2**20, pow2=True)
    bx_size: int = key(1024, "rxBisect Bx ring entries per core (completions, NIC -> core)",
                       unit="entries", **RING)
    cr_size: int | Auto = key(AUTO, "completion ring entries per core for privRing/shRing; "
                              "auto = rx_size (x rxlist_batch for shring_list)",
                              unit="entries", **RING)
    emulated: bool = key(False, "model the software NIC of the emulator (virtual + physical "
                         "rings, emulator core) instead of a hardware NIC")
    share_degree: int | Auto = key(AUTO, "cores sharing one Rx ring (shRing variants); auto = "
                                   "all cores of a NIC", unit="cores", lo=1)
    rxlist_batch: int = key(1, "shring_list only (others ignore it): buffer slots per RxList "
                            "descriptor, the library's batched RxList (a core appends a "
                            "descriptor, under the lock, once per rxlist_batch packets); 1 = "
                            "not batched", unit="buffers", lo=1, hi=RXLIST_BATCH_MAX, pow2=True)
    ax_policy: str = key("linked_random", "rxBisect: the Ax linked to the Bx is used first when "
                         "it holds a buffer; otherwise another associated Ax chosen at random, "
                         "round-robin, or the one with most posted buffers",
                         choices=("linked_random", "round_robin", "most_available"))
    association: str = key("all", "rxBisect: which Ax rings may hold a Bx's packets: all Ax "
                           "rings, those of the same NIC, or `groups` disjoint applications",
                           choices=("all", "per_nic", "groups"))
    groups: int = key(2, "number of disjoint applications when association = groups "
                      "(equal, contiguous core ranges)", lo=1)
    coalesce: bool = key(False, "rxBisect: NIC holds a consumption-only Bx entry until a packet "
                         "for that Bx arrives or coalesce_timeout_ns passes")
    coalesce_timeout_ns: float = key(1000.0, "longest a coalesced notification may wait",
                                     unit="ns", lo=0, lo_open=True)
    batch: int = key(32, "most packets one receive call returns", unit="packets", lo=1, hi=1024)
    buffer_bytes: int | Auto = key(AUTO, "buffer data room; auto = 4096 (pages) for spool, "
                                   "else 2048", unit="bytes", lo=64, hi=65536)
    headroom_bytes: int = key(0, "bytes before packet data in each buffer", unit="bytes", lo=0)
    alloc_cache: int = key(256, "per-core buffer cache of the two-level allocator; flushed to "
                           "the shared pool above 1.5 x this (DPDK rule)", unit="buffers", lo=0)
    pool_buffers: int | Auto = key(AUTO, "buffers in the shared pool; auto = enough to fill every "
                                   "ring, Bx and per-core cache", unit="buffers", lo=1)
    spool_mode: str = key("spp", "representor queues: dedicated (none), all in the PF's shared "
                          "queues (basic), or shared page pool with adjustable depth (spp)",
                          choices=("none", "basic", "spp"))
    spool_ports: int = key(1024, "representor ports", unit="ports", lo=1)
    spool_low: int = key(128, "spp: filled depth of an idle port's queue", unit="buffers", lo=1)
    spool_high: int = key(1024, "spp: filled depth of a busy port's queue", unit="buffers", lo=1)
    dyn_sample_ms: float = key(10.0, "dynamic shRing: sampling period", unit="ms",
                               lo=0, lo_open=True)
    dyn_window: int = key(16, "dynamic shRing: samples in the sliding window", lo=1)
    dyn_tput_gbps: float = key(170.0, "dynamic shRing: throughput threshold", unit="Gbps", lo=0)
    dyn_membw_gibps: float = key(25.0, "dynamic shRing: memory-bandwidth threshold",
                                 unit="GiB/s", lo=0)
    dyn_overload_factor: float = key(32.0, "dynamic shRing: a core is overloaded when the std "
                                     "deviation of its receive-call intervals exceeds this x "
                                     "the median", lo=0, lo_open=True)


@dataclass(frozen=True)
class System:
    """The machine: hardware profile, cores and NICs used, cache knobs, faults, co-runners."""

    profile: str = key("reference", "hardware profile: a built-in name (reference, large) or a "
                       "path to a profile TOML file")
    cores: int = key(16, "worker cores running the network function (one socket)",
                     unit="cores", lo=1)
    nics: int = key(2, "NICs receiving traffic", unit="NICs", lo=1)
    cores_per_nic: tuple[int, ...] = key((), "cores serving each NIC, in NIC order; empty = "
                                         "split evenly", unit="cores", lo=1)
    ddio_ways: int | Auto = key(AUTO, "LLC ways DDIO may allocate into (0 = DDIO off); auto = "
                                "the profile's default", unit="ways", lo=0)
    cat_ways: int = key(0, "LLC ways reserved (Intel CAT) for the network function's critical "
                        "structure (darkpackets.md)", unit="ways", lo=0)
    mlp: int | Auto = key(AUTO, "outstanding memory accesses per core; auto = the profile's",
                          lo=1)
    stalled_cores: tuple[int, ...] = key((), "cores that stop polling at stall_at_ms (fault "
                                         "injection)", unit="core ids", lo=0)
    stall_at_ms: float = key(0.0, "when stalled_cores stop", unit="ms", lo=0)
    stall_for_ms: float = key(0.0, "how long they stay stopped; 0 = until the end", unit="ms",
                              lo=0)
    slow_cores: tuple[int, ...] = key((), "cores that pay slow_extra_ns more per packet",
                                      unit="core ids", lo=0)
    slow_extra_ns: float = key(0.0, "extra per-packet cost on slow_cores", unit="ns", lo=0)
    hog: str = key("none", "co-located memory hog: STREAM-triad-like streaming or "
                   "PageRank-like random access", choices=("none", "stream", "pagerank"))
    hog_instances: int = key(0, "instances of the hog, each on its own core", lo=0)


@dataclass(frozen=True)
class Traffic:
    """Offered load: rate, sizes, arrival process, steering, flows."""

    rate_gbps: float = key(100.0, "offered load per NIC, on the wire (frames + 20 B overhead)",
                           unit="Gbps", lo=0, lo_open=True)
    packet_bytes: int = key(1518, "Ethernet frame size including FCS; the spec's \"1500 B "
                            "packets\" (IP MTU 1500) are 1518 B frames", unit="bytes",
                            lo=64, hi=9018)
    pattern: str = key("constant", "arrival process: constant rate, Poisson, on/off bursts, "
                       "per-core targeting (target_*), or pcap replay",
                       choices=("constant", "poisson", "onoff", "target", "trace"))
    target_share: float = key(0.0, "pattern target: fraction of each NIC's packets sent to its "
                              "target core", unit="fraction", lo=0, hi=1)
    target_rate_gbps: float = key(0.0, "pattern target: fixed rate to the target core instead "
                                  "of target_share (0 = use target_share)", unit="Gbps", lo=0)
    target_packet_bytes: int = key(0, "pattern target: frame size of the target's packets "
                                   "(0 = packet_bytes)", unit="bytes", lo=0, hi=9018)
    target_core: int = key(0, "pattern target: index of the target core among each NIC's cores",
                           lo=0)
    burst_packets: int = key(1024, "pattern onoff: packets per burst", unit="packets", lo=1)
    burst_duty: float = key(0.5, "pattern onoff: fraction of time bursts are on; the on-rate "
                            "is rate_gbps / burst_duty", unit="fraction", lo=0, hi=1,
                            lo_open=True)
    pcap: str = key("", "pattern trace: packet trace to replay (timing and 5-tuples)", path=True)
    pcap_speedup: float = key(1.0, "pattern trace: replay speed factor", lo=0, lo_open=True)
    flows: int = key(65536, "distinct 5-tuples (random, so RSS spreads evenly)", unit="flows",
                     lo=1)
    key_dist: str = key("uniform", "flow / key popularity", choices=("uniform", "zipf"))
    zipf_s: float = key(0.99, "Zipf exponent when key_dist = zipf", lo=0, lo_open=True)


@dataclass(frozen=True)
class Workload:
    """The network function each core runs (evaluation.md §3)."""

    nf: str = key("lb", "network function", choices=("l3fwd", "nat", "lb", "synthetic", "kvs",
                                                      "counter"))
    reads: int = key(2, "synthetic: random reads per packet in a buffer of buffer_mib",
                     unit="reads", lo=0)
    buffer_mib: float = key(40.0, "synthetic: size of the randomly read buffer", unit="MiB",
                            lo=0, lo_open=True)
    payload: str = key("untouched", "synthetic: what happens to the payload",
                       choices=("untouched", "read", "written"))
    target_reads: int = key(0, "extra random memory accesses per packet on each target core "
                            "(processing variability)", unit="accesses", lo=0)
    compute_ns: float = key(0.0, "extra pure compute per packet on every core", unit="ns", lo=0)
    nat_flows: int = key(10_000_000, "nat: flow table capacity per core (two entries a flow)",
                         unit="flows", lo=1)
    lb_backends: int = key(32, "lb: backends flows are assigned to round-robin", lo=1)
    kvs_put_share: float = key(0.95, "kvs: fraction of PUT requests", unit="fraction", lo=0, hi=1)
    kvs_keys: int = key(1_000_000, "kvs: distinct keys", unit="keys", lo=1)
    kvs_key_bytes: int = key(128, "kvs: key size", unit="bytes", lo=1)
    kvs_value_bytes: int = key(1024, "kvs: value size", unit="bytes", lo=1)
    counter_slots: int = key(64, "counter: size of the counter array", unit="counters", lo=1)


@dataclass(frozen=True)
class Run:
    """How long, how reproducibly, and what the engine records."""

    duration_ms: float = key(10.0, "simulated time", unit="ms", lo=0, lo_open=True)
    warmup_ms: float = key(1.0, "simulated time excluded from the metrics", unit="ms", lo=0)
    seed: int = key(1, "random seed (the engine is deterministic for a given seed)", lo=0,
                    hi=2**64 - 1)
    sample_ms: float = key(1.0, "interval of time-series samples", unit="ms", lo=0, lo_open=True)
    check_invariants: bool = key(False, "check the conservation invariants (interfaces.md §8) at "
                                 "every sample (slower)")
    llc_sample_shift: int = key(4, "LLC set sampling: simulate 1 in 2^k set groups (0 = every "
                                "set; exact but slower)", lo=0, hi=16)


SCHEMA = Schema({"arch": Arch, "system": System, "traffic": Traffic, "workload": Workload,
                 "run": Run}, top=("description",))


@dataclass(frozen=True)
class Scenario:
    arch: Arch = field(default_factory=Arch)
    system: System = field(default_factory=System)
    traffic: Traffic = field(default_factory=Traffic)
    workload: Workload = field(default_factory=Workload)
    run: Run = field(default_factory=Run)
    description: str = ""
    base: Path | None = None  # folder of the scenario file: relative profile paths start there

    def sections(self) -> dict[str, dict[str, Any]]:
        return {s: as_dict(getattr(self, s)) for s in SCHEMA.sections}

    def to_toml(self) -> str:
        top = {"description": self.description} if self.description else {}
        return to_toml(self.sections(), top)


@dataclass(frozen=True)
class Resolved:
    """A validated scenario with no "auto" left, and the profile it runs on."""

    scenario: Scenario
    profile: profiles.Profile


def builtin_names() -> list[str]:
    return sorted(p.stem for p in (Path(__file__).parent / "scenarios").glob("*.toml"))


def _locate(ref: str) -> Path:
    p = Path(ref).expanduser()
    if p.is_file() or p.suffix == ".toml" or "/" in ref:
        return p  # read_toml reports a missing file by its path
    if ref in builtin_names():
        return Path(__file__).parent / "scenarios" / f"{ref}.toml"
    hint = suggest(ref, builtin_names())
    raise ScenarioError(f"scenario '{ref}' is neither a file nor a built-in scenario"
                        + (f" (did you mean '{hint}'?)" if hint else "")
                        + f"; built-in: {', '.join(builtin_names())}")


def load(ref: str | None = None, sets: Sequence[str] = ()) -> Scenario:
    """Defaults, merged with a scenario file (path or built-in name), then `--set`s."""
    vals = SCHEMA.defaults()
    top: dict[str, str] = {}
    base = None
    if ref:
        path = _locate(ref)
        base = path.resolve().parent
        top = SCHEMA.merge(vals, read_toml(path), f"{path}: ", base)
    for s in sets:
        SCHEMA.apply_set(vals, s)
        if s.partition("=")[0].strip() == "system.profile":
            base = None  # a profile named on the command line is relative to the cwd
    return Scenario(**SCHEMA.instantiate(vals), description=top.get("description", ""),
                    base=base)


def given_keys(ref: str | None = None, sets: Sequence[str] = ()) -> list[str]:
    """The keys a scenario file and `--set`s name explicitly (section.key, first-seen order):
    what a front end with other defaults (`rxb emu`) must pass on and nothing more."""
    names = []
    if ref:
        raw = read_toml(_locate(ref))
        names += [f"{sec}.{k}" for sec, body in raw.items() if isinstance(body, dict)
                  for k in body]
    names += [s.partition("=")[0].strip() for s in sets]
    return list(dict.fromkeys(names))


def load_resolved(ref: str | None = None, sets: Sequence[str] = ()) -> Resolved:
    return resolve(load(ref, sets))


def _even_split(total: int, parts: int) -> tuple[int, ...]:
    return tuple(total // parts + (i < total % parts) for i in range(parts))


def _bad(full: str, value: Any, reason: str, allowed: str) -> ScenarioError:
    return ScenarioError(f"{full} = {show(value)}: {reason}; allowed: {allowed}")


def resolve(scn: Scenario) -> Resolved:
    """Check the rules that involve several keys or the profile; fill in "auto"."""
    prof = profiles.load(scn.system.profile, scn.base)
    split = _check_system(scn.system, prof)
    _check_traffic(scn.traffic, prof, split)
    arch = _resolve_arch(scn.arch, scn.system, scn.traffic, split)
    if scn.run.warmup_ms >= scn.run.duration_ms:
        raise _bad("run.warmup_ms", scn.run.warmup_ms, f"not shorter than run.duration_ms = "
                   f"{scn.run.duration_ms:g}", f"0 to below {scn.run.duration_ms:g}")
    sy = scn.system
    system = dataclasses.replace(
        sy, cores_per_nic=split,
        ddio_ways=prof.llc.ddio_ways if sy.ddio_ways == AUTO else sy.ddio_ways,
        mlp=prof.cpu.mlp if sy.mlp == AUTO else sy.mlp,
        # a profile file is recorded by absolute path, so the resolved scenario reads anywhere
        profile=sy.profile if sy.profile in profiles.builtin_names() else prof.source)
    return Resolved(dataclasses.replace(scn, arch=arch, system=system), prof)


def _check_system(sy: System, prof: profiles.Profile) -> tuple[int, ...]:
    """Cores, NICs and cache ways against the machine; returns the cores of each NIC."""
    pname, per_socket, ways = f"profile '{prof.name}'", prof.cpu.cores_per_socket, prof.llc.ways
    if sy.cores > per_socket:
        raise _bad("system.cores", sy.cores, f"{pname} has {per_socket} cores per socket and "
                   "applications run on one socket", f"1 to {per_socket}")
    if sy.nics > prof.nic.count:
        raise _bad("system.nics", sy.nics, f"{pname} has {prof.nic.count} NICs",
                   f"1 to {prof.nic.count}")
    if sy.cores < sy.nics:
        raise _bad("system.cores", sy.cores, f"fewer cores than NICs (system.nics = {sy.nics})",
                   f"at least {sy.nics}")
    split = sy.cores_per_nic or _even_split(sy.cores, sy.nics)
    if len(split) != sy.nics or sum(split) != sy.cores:
        raise _bad("system.cores_per_nic", sy.cores_per_nic, f"needs {sy.nics} entries (one per "
                   f"NIC) adding up to system.cores = {sy.cores}",
                   "such a list, or [] to split evenly")
    for k in ("stalled_cores", "slow_cores"):
        bad = [c for c in getattr(sy, k) if c >= sy.cores]
        if bad:
            raise _bad(f"system.{k}", getattr(sy, k), f"core {bad[0]} does not exist "
                       f"(system.cores = {sy.cores})", f"core ids 0 to {sy.cores - 1}")
    if sy.ddio_ways != AUTO and sy.ddio_ways > ways:
        raise _bad("system.ddio_ways", sy.ddio_ways, f"{pname} LLC has {ways} ways",
                   f"0 to {ways}")
    if sy.cat_ways >= ways:
        raise _bad("system.cat_ways", sy.cat_ways, f"must leave at least one of the {ways} LLC "
                   f"ways of {pname} unreserved", f"0 to {ways - 1}")
    if sy.hog != "none" and sy.hog_instances + sy.cores > per_socket:
        raise _bad("system.hog_instances", sy.hog_instances, f"with {sy.cores} worker cores the "
                   f"socket of {pname} has {per_socket - sy.cores} cores left",
                   f"0 to {per_socket - sy.cores}")
    return tuple(split)


def _check_traffic(t: Traffic, prof: profiles.Profile, split: tuple[int, ...]) -> None:
    link = prof.nic.link_gbps
    if t.rate_gbps > link:
        raise _bad("traffic.rate_gbps", t.rate_gbps, f"exceeds the {link:g} Gbps link of "
                   f"profile '{prof.name}'", f"a number > 0 and <= {link:g}")
    if t.pattern == "onoff" and t.rate_gbps / t.burst_duty > link * (1 + 1e-9):
        raise _bad("traffic.burst_duty", t.burst_duty, f"bursts would arrive at rate_gbps / "
                   f"burst_duty = {t.rate_gbps / t.burst_duty:g} Gbps, above the {link:g} Gbps "
                   "link", f"{t.rate_gbps / link:g} to 1")
    if t.pattern == "trace" and not t.pcap:
        raise _bad("traffic.pcap", t.pcap, "required when traffic.pattern = 'trace'",
                   "a path to a readable pcap file")
    if t.pattern != "target":
        return
    if t.target_share == 0 and t.target_rate_gbps == 0:
        raise _bad("traffic.target_share", t.target_share, "pattern 'target' needs a share or "
                   "traffic.target_rate_gbps", "a number > 0 and <= 1")
    if t.target_rate_gbps > t.rate_gbps:
        raise _bad("traffic.target_rate_gbps", t.target_rate_gbps, "more than the NIC's "
                   f"traffic.rate_gbps = {t.rate_gbps:g}", f"0 to {t.rate_gbps:g}")
    if t.target_core >= min(split):
        raise _bad("traffic.target_core", t.target_core, f"a NIC has only {min(split)} cores",
                   f"0 to {min(split) - 1}")


def _resolve_arch(a: Arch, sy: System, t: Traffic, split: tuple[int, ...]) -> Arch:
    """Interface rules, and the ring, buffer and pool sizes behind every "auto"."""
    buffer = (4096 if a.name == "spool" else 2048) if a.buffer_bytes == AUTO else a.buffer_bytes
    room = buffer - a.headroom_bytes
    biggest = max(t.packet_bytes, t.target_packet_bytes)
    if biggest > room:
        k = "traffic.packet_bytes" if biggest == t.packet_bytes else "traffic.target_packet_bytes"
        raise _bad(k, biggest, f"does not fit a buffer of arch.buffer_bytes = {buffer} minus "
                   f"arch.headroom_bytes = {a.headroom_bytes}", f"64 to {room}")
    rx = (128 if a.name == "small_privring" else 1024) if a.rx_size == AUTO else a.rx_size
    share = min(split) if a.share_degree == AUTO else a.share_degree
    if a.name in SHARED and any(n % share for n in split):
        raise _bad("arch.share_degree", share, f"must divide the cores of every NIC {list(split)}",
                   "a common divisor of the per-NIC core counts, or \"auto\"")
    if a.association == "groups" and sy.cores % a.groups:
        raise _bad("arch.groups", a.groups, f"must divide system.cores = {sy.cores}",
                   "a divisor of system.cores")
    # batched RxList: every descriptor of the shared ring holds rxlist_batch buffers
    slots = a.rxlist_batch if a.name == "shring_list" else 1
    if rx * slots > RING["hi"]:
        raise _bad("arch.rxlist_batch", a.rxlist_batch, f"arch.rx_size x arch.rxlist_batch = "
                   f"{rx * slots} buffer slots, more than the library's {RING['hi']}",
                   f"1 to {RING['hi'] // rx} (a power of two)")
    if a.spool_low > a.spool_high:
        raise _bad("arch.spool_low", a.spool_low, f"above arch.spool_high = {a.spool_high}",
                   f"1 to {a.spool_high}")
    pool = a.pool_buffers
    if pool == AUTO:
        # every ring full at once (rxBisect: Ax posted + Bx delivered, interfaces.md §5.4),
        # plus every per-core cache at its 1.5x flush threshold, rounded up to 2x
        per_core = (a.ax_size + a.bx_size if a.name == "rxbisect" else rx * slots) + \
            2 * a.alloc_cache
        pool = sy.cores * per_core + (a.spool_ports * max(rx, a.spool_high)
                                      if a.name == "spool" else 0)
    # cr_size auto: the library's own default, ring entries x batch (a core's CR may have
    # to hold every buffer slot of its shared ring)
    cr = rx * slots if a.cr_size == AUTO else a.cr_size
    return dataclasses.replace(a, rx_size=rx, cr_size=cr,
                               share_degree=share, buffer_bytes=buffer, pool_buffers=pool)


def derived(res: Resolved) -> dict[str, Any]:
    """Numbers computed once here so the engine and reports agree on them."""
    a, sy, t = res.scenario.arch, res.scenario.system, res.scenario.traffic
    nic_of_core = [n for n, c in enumerate(sy.cores_per_nic) for _ in range(c)]
    wire = t.packet_bytes + ETH_OVERHEAD_BYTES
    # Buffers the NIC can write into before reusing one: the I/O working set bound of
    # interfaces.md §1 (rxBisect: k × |Ax| × buffer; shRing: one ring per share group).
    rings = {"privring": sy.cores * a.rx_size, "small_privring": sy.cores * a.rx_size,
             "rxbisect": sy.cores * a.ax_size,
             "spool": (sy.nics * a.rx_size if a.spool_mode == "basic" else
                       a.spool_ports * (a.rx_size if a.spool_mode == "none" else a.spool_high))}
    slots = a.rxlist_batch if a.name == "shring_list" else 1  # buffers per descriptor
    posted = rings.get(a.name, (sy.cores // a.share_degree) * a.rx_size * slots)
    return {
        "nic_of_core": nic_of_core,
        "wire_bytes": wire,
        "offered_pps_per_nic": t.rate_gbps * 1e9 / (8 * wire),
        "llc_bytes": res.profile.llc_bytes,
        "ddio_bytes": res.profile.ddio_bytes(sy.ddio_ways),
        "dram_peak_gibps": res.profile.dram_peak_gibps,
        "posted_buffers": posted,
        "nominal_working_set_bytes": posted * a.buffer_bytes,
    }
