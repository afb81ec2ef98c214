"""Scenarios: what to simulate, as typed sections with documented defaults.

A scenario file is TOML with sections arch, system, traffic, workload, run and
emu. Every key is defined once, in scenario_keys.toml beside this file: this
module builds the section dataclasses from it, and the C engines compile the
same table (scripts/gen_scenario.py, docs/scenario-keys.md). Loading merges the file over the defaults, then applies `--set section.key=value`
overrides typed by the key; `resolve` then loads the hardware profile, checks
the rules that involve several keys, and replaces every "auto" by a number, so
the engine never has to guess. The defaults reproduce the reference setup of
docs/evaluation.md §2.4: 16 cores, 2 NICs, 2 × 100 Gbps, 1500 B packets (IP MTU 1500, i.e.
1518 B Ethernet frames), LB,
reference hardware, privRing 1024 / small privRing 128 / Ax 128, Bx 1024.

Units are in key names where it helps (`_gbps`, `_ms`, `_ns`, `_bytes`,
`_mib`); rates are per NIC; packet sizes are Ethernet frames including the
FCS, without the 20 B of preamble and inter-frame gap.
"""

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from . import costs as cost_profiles
from . import profile as profiles
from .errors import ScenarioError
from .schema import AUTO, Schema, Spec, as_dict, read_toml, show, suggest, to_toml

KEYS_FILE = Path(__file__).parent / "scenario_keys.toml"
ENGINES = ("sim", "emu")
SECTIONS = ("arch", "system", "traffic", "workload", "run", "emu")
ETH_OVERHEAD_BYTES = 20  # preamble 7 + SFD 1 + inter-frame gap 12
Auto = Literal["auto"]
_TYPES = {"bool": bool, "int": int, "float": float, "string": str, "enum": str,
          "list": tuple[int, ...]}


def _read_keys() -> dict[str, dict[str, dict[str, Any]]]:
    with open(KEYS_FILE, "rb") as f:
        return tomllib.load(f)


TABLE = _read_keys()  # section -> key -> its definition (scenario_keys.toml)


def _spec(k: dict[str, Any]) -> Spec:
    return Spec(k["doc"], unit=k.get("unit", ""), choices=tuple(k.get("values", ())),
                lo=k.get("lo"), hi=k.get("hi"), lo_open=k.get("lo_open", False),
                pow2=k.get("pow2", False), path=k.get("path", False),
                engines=tuple(k["engines"]), auto_doc=k.get("auto", ""), emu=k.get("emu"))


def _section_class(section: str) -> type:
    """A frozen dataclass with one documented field per key of the section."""
    fields = []
    for name, k in TABLE[section].items():
        kind = _TYPES[k["type"]]
        default = tuple(k["default"]) if k["type"] == "list" else k["default"]
        fields.append((name, kind | Auto if "auto" in k else kind,
                       field(default=default, metadata={"spec": _spec(k)})))
    return dataclasses.make_dataclass(section.capitalize(), fields, frozen=True)


Arch, System, Traffic, Workload, Run, Emu = (_section_class(s) for s in SECTIONS)
ARCHS = tuple(TABLE["arch"]["name"]["values"])
PATTERNS = tuple(TABLE["traffic"]["pattern"]["values"])
# Most time-series samples the simulator keeps in one run (sim/simcfg.c rejects more)
MAX_SAMPLES = TABLE["run"]["sample_ms"]["max_samples"]
SHARED = ("shring", "shring_list", "dyn_shring")  # archs with rings shared by share_degree cores
RING_MAX = TABLE["arch"]["rx_size"]["hi"]  # RXB_RING_MAX of include/rxb/common.h
# RXB_MAX_QUEUES (include/rxb/common.h): queues one privRing, so one page pool, can have (the
# library refuses more itself; this check only says it before anything runs)
MAX_QUEUES = 65536


def honours(full: str, engine: str) -> bool:
    """Whether `engine` (sim or emu) gives key `full` an effect."""
    sec, name = full.split(".", 1)
    return engine in TABLE[sec][name]["engines"]


# How a warning names an engine: where a key is idle, and what it applies to
_PLACE = {"sim": "in the simulator", "emu": "in the emulator"}
_PROGRAM = {"sim": "rxb-sim", "emu": "rxb-emu"}


def scope(full: str, engine: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The arch.name and traffic.pattern values key `full` has an effect for on `engine`
    (scenario_keys.toml `archs`, `patterns`; an engine's own override first), in enum order."""
    sec, name = full.split(".", 1)
    k = TABLE[sec][name]
    own = k.get(engine, {})
    archs = own.get("archs", k.get("archs", ARCHS))
    patterns = own.get("patterns", k.get("patterns", PATTERNS))
    return (tuple(a for a in ARCHS if a in archs), tuple(p for p in PATTERNS if p in patterns))


def no_effect(full: str, arch: str, pattern: str, engine: str = "sim") -> str | None:
    """None when key `full` changes a run of design `arch` with traffic `pattern` on
    `engine`, else the one warning line both front ends print (scenario/ has the same
    function, rxb_scn_no_effect, and a test pins the same text)."""
    if not honours(full, engine):
        sec, name = full.split(".", 1)
        applies = ", ".join(_PROGRAM[e] for e in ENGINES if e in TABLE[sec][name]["engines"])
        return f"{full} has no effect {_PLACE[engine]} (it applies to {applies})"
    archs, patterns = scope(full, engine)
    if arch not in archs:
        return f"{full} has no effect for arch {arch} (it applies to {', '.join(archs)})"
    if pattern not in patterns:
        return (f"{full} has no effect for pattern {pattern} "
                f"(it applies to {', '.join(patterns)})")
    return None


def idle_keys(scn: "Scenario", given: Sequence[str], engine: str = "sim") -> list[str]:
    """The warning of each key in `given` (the keys named explicitly) that changes nothing
    in `scn` on `engine`."""
    said = (no_effect(k, scn.arch.name, scn.traffic.pattern, engine) for k in given)
    return [w for w in said if w]


def check_sets(sets: Sequence[str]) -> None:
    """A key may be `--set` once: a second value would silently win over the first."""
    seen: dict[str, str] = {}
    for s in sets:
        key, _, value = s.partition("=")
        key = key.strip()
        if key in seen:
            raise ScenarioError(f"--set {key} is given twice ({seen[key]} and {value.strip()}); "
                                "allowed: each key once")
        seen[key] = value.strip()


SCHEMA = Schema({"arch": Arch, "system": System, "traffic": Traffic, "workload": Workload,
                 "run": Run, "emu": Emu}, top=("description",))


@dataclass(frozen=True)
class Scenario:
    arch: Arch = field(default_factory=Arch)
    system: System = field(default_factory=System)
    traffic: Traffic = field(default_factory=Traffic)
    workload: Workload = field(default_factory=Workload)
    run: Run = field(default_factory=Run)
    emu: Emu = field(default_factory=Emu)
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


def _value(scn: "Scenario", full: str) -> Any:
    sec, name = full.split(".", 1)
    return getattr(getattr(scn, sec), name)


def chosen_keys(ref: str | None = None, sets: Sequence[str] = ()) -> list[str]:
    """The keys a user chose: every `--set`, and each key the scenario file gives another
    value than its default (a built-in file that spells out defaults chooses nothing) --
    those a warning about keys without effect speaks of."""
    names = []
    if ref:
        chosen, plain = load(ref), Scenario()
        names += [k for k in given_keys(ref) if _value(chosen, k) != _value(plain, k)]
    names += [s.partition("=")[0].strip() for s in sets]
    return list(dict.fromkeys(names))


def load_resolved(ref: str | None = None, sets: Sequence[str] = ()) -> Resolved:
    return resolve(load(ref, sets))


def rebuild(sections: Mapping[str, Mapping[str, Any]], where: str) -> Resolved:
    """The resolved scenario from its sections (as Scenario.sections() gives them, without
    "emu"), checked by the schema again; an error starts with `where`."""
    vals = SCHEMA.defaults()
    SCHEMA.merge(vals, sections, where)
    return resolve(Scenario(**SCHEMA.instantiate(vals)))


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
    _check_run(scn.run)
    wl = scn.workload
    costs = cost_profiles.load(wl.costs, scn.base)
    workload = dataclasses.replace(
        wl, nf_cycles=costs.cycles[wl.nf] if wl.nf_cycles == AUTO else wl.nf_cycles,
        costs=wl.costs if wl.costs in cost_profiles.builtin_names() else costs.source)
    traffic = dataclasses.replace(scn.traffic, flow_model=_flow_model(scn.traffic, wl.nf))
    sy = scn.system
    system = dataclasses.replace(
        sy, cores_per_nic=split,
        ddio_ways=prof.llc.ddio_ways if sy.ddio_ways == AUTO else sy.ddio_ways,
        mlp=prof.cpu.mlp if sy.mlp == AUTO else sy.mlp,
        # a profile file is recorded by absolute path, so the resolved scenario reads anywhere
        profile=sy.profile if sy.profile in profiles.builtin_names() else prof.source)
    return Resolved(dataclasses.replace(scn, arch=arch, system=system, traffic=traffic,
                                        workload=workload), prof)


def _check_run(r: Run) -> None:
    if r.warmup_ms >= r.duration_ms:
        raise _bad("run.warmup_ms", r.warmup_ms, f"not shorter than run.duration_ms = "
                   f"{r.duration_ms:g}", f"0 to below {r.duration_ms:g}")
    if r.duration_ms / r.sample_ms > MAX_SAMPLES:
        raise _bad("run.sample_ms", r.sample_ms, f"run.duration_ms = {r.duration_ms:g} would "
                   f"take {r.duration_ms / r.sample_ms:.0f} samples, more than the simulator's "
                   f"{MAX_SAMPLES}", f"at least {r.duration_ms / MAX_SAMPLES:g} (or a shorter "
                   "run.duration_ms)")


def _flow_model(t: Traffic, nf: str) -> str:
    """traffic.flow_model "auto": the study's generator ranges for the flow-state NFs under a
    plain arrival process (targeting and a load change need flows steered to cores). The C
    engine resolves "auto" by the same rule (sim/nic.c, generator_ranges); a test runs both."""
    if t.flow_model != AUTO:
        return t.flow_model
    plain = t.pattern in ("constant", "poisson", "onoff") and not (
        t.change_at_ms > 0 and t.change_target_share > 0)
    return "generator" if nf in ("lb", "nat") and plain else "random"


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
    if t.change_at_ms > 0 and t.target_core >= min(split):
        raise _bad("traffic.target_core", t.target_core, f"traffic.change_at_ms needs a target "
                   f"core and a NIC has only {min(split)} cores", f"0 to {min(split) - 1}")
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
    if rx * slots > RING_MAX:
        raise _bad("arch.rxlist_batch", a.rxlist_batch, f"arch.rx_size x arch.rxlist_batch = "
                   f"{rx * slots} buffer slots, more than the library's {RING_MAX}",
                   f"1 to {RING_MAX // rx} (a power of two)")
    if a.name == "spool" and a.spool_mode != "basic" and a.spool_ports > MAX_QUEUES:
        raise _bad("arch.spool_ports", a.spool_ports, f"spool_mode = '{a.spool_mode}' gives every "
                   f"port a queue of its own and the library has at most {MAX_QUEUES}",
                   f"1 to {MAX_QUEUES}, or spool_mode = 'basic'")
    if a.spool_low > a.spool_high:
        raise _bad("arch.spool_low", a.spool_low, f"above arch.spool_high = {a.spool_high}",
                   f"1 to {a.spool_high}")
    pool = a.pool_buffers
    if pool == AUTO:
        # every ring full at once (rxBisect: Ax posted + Bx delivered, docs/interfaces.md §5.4),
        # plus every per-core cache at its 1.5x flush threshold, rounded up to 2x
        per_core = (a.ax_size + a.bx_size if a.name == "rxbisect" else rx * slots) + \
            2 * a.alloc_cache
        per_core += a.tx_size  # transmitted buffers wait for their completions
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
    # docs/interfaces.md §1 (rxBisect: k × |Ax| × buffer; shRing: one ring per share group).
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
