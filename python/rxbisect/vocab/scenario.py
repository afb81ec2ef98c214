"""Scenarios: what to simulate, as typed sections with documented defaults.

A scenario file is TOML with sections arch, system, traffic, workload, run and
emu. Every key is defined once, in scenario_keys.toml (tables.py finds it; sections.py
declares the typed section classes over it), and the C engines compile the same table
(scripts/gen_scenario.py, docs/scenario-keys.md). Loading merges the file over the
defaults, then applies `--set section.key=value` overrides typed by the key; `resolve`
then loads the hardware profile, checks the rules that involve several keys, and replaces
every "auto" by a number, so the engine never has to guess -- through the C library the
engines use (rxbisect/_native.py), so each rule has one statement and one message. The
defaults reproduce the reference setup of docs/evaluation.md §2.4: 16 cores, 2 NICs,
2 × 100 Gbps, 1500 B packets (IP MTU 1500, i.e. 1518 B Ethernet frames), LB, reference
hardware, privRing 1024 / small privRing 128 / Ax 128, Bx 1024.

Units are in key names where it helps (`_gbps`, `_ms`, `_ns`, `_bytes`,
`_mib`); rates are per NIC; packet sizes are Ethernet frames including the
FCS, without the 20 B of preamble and inter-frame gap.
"""

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _native
from ..errors import ScenarioError, UsageError
from . import costs as cost_profiles
from . import profile as profiles
from .schema import AUTO, Schema, as_dict, read_toml, suggest, to_toml
from .sections import Arch, Emu, Run, System, Traffic, Workload
from .tables import METRICS, SCENARIO_KEYS

ENGINES = ("sim", "emu")
SECTIONS = ("arch", "system", "traffic", "workload", "run", "emu")
ETH_OVERHEAD_BYTES = 20  # preamble 7 + SFD 1 + inter-frame gap 12


def metric_spec(required: bool) -> dict[str, Any]:
    """The required (or the optional) metrics as engine.check_tree reads them: name -> kind,
    a trailing "?" where null is allowed, or name -> {field: kind} for an object with
    fixed members."""
    return {name: dict(m["fields"]) if "fields" in m else m["kind"] + ("?" if m.get("null")
                                                                      else "")
            for name, m in METRICS.items() if m.get("required", False) == required}


ARCHS = tuple(SCENARIO_KEYS["arch"]["name"]["values"])
PATTERNS = tuple(SCENARIO_KEYS["traffic"]["pattern"]["values"])
SOURCES = tuple(SCENARIO_KEYS["emu"]["source"]["values"])
NFS = tuple(SCENARIO_KEYS["workload"]["nf"]["values"])


def honours(full: str, engine: str) -> bool:
    """Whether `engine` (sim or emu) gives key `full` an effect."""
    sec, name = full.split(".", 1)
    return engine in SCENARIO_KEYS[sec][name]["engines"]


def scope(full: str, engine: str) -> tuple[tuple[str, ...], ...]:
    """The arch.name, traffic.pattern, emu.source and workload.nf values key `full` has an
    effect for on `engine` (scenario_keys.toml `archs`, `patterns`, `sources`, `nfs`; an
    engine's own override first), in enum order."""
    sec, name = full.split(".", 1)
    k = SCENARIO_KEYS[sec][name]
    own = k.get(engine, {})
    return tuple(tuple(v for v in values if v in own.get(field, k.get(field, values)))
                 for field, values in (("archs", ARCHS), ("patterns", PATTERNS),
                                       ("sources", SOURCES), ("nfs", NFS)))


def no_effect(full: str, arch: str, pattern: str, engine: str = "sim",
              source: str | None = None, nf: str | None = None) -> str | None:
    """None when key `full` changes a run of design `arch` with traffic `pattern` (and, on
    the emulator, emu.source `source`; network function `nf`, the default one when None)
    on `engine`, else the one warning line both front ends print (the C library's
    rxb_scn_no_effect, which the engines print too)."""
    c = _native.Scn(engine)
    c.set("arch.name", arch)
    c.set("traffic.pattern", pattern)
    if source is not None:
        c.set("emu.source", source)
    if nf is not None:
        c.set("workload.nf", nf)
    return c.no_effect(full)


def idle_keys(scn: "Scenario", given: Sequence[str], engine: str = "sim") -> list[str]:
    """The warning of each key in `given` (the keys named explicitly) that changes nothing
    in `scn` on `engine`."""
    source = scn.emu.source if engine == "emu" else None
    said = (no_effect(k, scn.arch.name, scn.traffic.pattern, engine, source, scn.workload.nf)
            for k in given)
    return [w for w in said if w]


def set_key(assignment: str) -> str:
    """The key a `--set KEY=VALUE` names, as written (not checked)."""
    return assignment.partition("=")[0].strip()


def set_keys(sets: Sequence[str]) -> list[str]:
    """The keys `sets` name, each once, in first-seen order."""
    return list(dict.fromkeys(set_key(s) for s in sets))


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
    profile_named_in: Path | None = None  # the file system.profile comes from (its errors say so)

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
    named: list[str] = []
    if ref:
        path = _locate(ref)
        base = path.resolve().parent
        raw = read_toml(path)
        top = SCHEMA.merge(vals, raw, f"{path}: ", base)
        named = [f"system.{k}" for k in raw.get("system", {})]
    for s in sets:
        SCHEMA.apply_set(vals, s)
        if set_key(s) == "system.profile":
            base = None  # a profile named on the command line is relative to the cwd
            named = []
    return Scenario(**SCHEMA.instantiate(vals), description=top.get("description", ""),
                    base=base, profile_named_in=path if "system.profile" in named else None)


def given_keys(ref: str | None = None, sets: Sequence[str] = ()) -> list[str]:
    """The keys a scenario file and `--set`s name explicitly (section.key, first-seen order):
    what a front end with other defaults (`rxb emu`) must pass on and nothing more."""
    names = []
    if ref:
        raw = read_toml(_locate(ref))
        names += [f"{sec}.{k}" for sec, body in raw.items() if isinstance(body, dict)
                  for k in body]
    names += set_keys(sets)
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
    names += set_keys(sets)
    return list(dict.fromkeys(names))


def load_resolved(ref: str | None = None, sets: Sequence[str] = ()) -> Resolved:
    return resolve(load(ref, sets))


def rebuild(sections: Mapping[str, Mapping[str, Any]], where: str) -> Resolved:
    """The resolved scenario from its sections (as Scenario.sections() gives them, without
    "emu"), checked by the schema again; an error starts with `where`."""
    vals = SCHEMA.defaults()
    SCHEMA.merge(vals, sections, where)
    return resolve(Scenario(**SCHEMA.instantiate(vals)))


def _machine(prof: profiles.Profile) -> dict[str, Any]:
    """What the cross-key rules read of the hardware profile."""
    return {"name": prof.name, "cores_per_socket": prof.cpu.cores_per_socket,
            "nics": prof.nic.count, "llc_ways": prof.llc.ways, "link_gbps": prof.nic.link_gbps,
            "llc_mib": prof.llc.size_mib, "llc_line_bytes": prof.llc.line_bytes}


def _native_scn(scn: Scenario) -> _native.Scn:
    """The scenario as the C engines hold it (the simulator's sections), checked key by key."""
    c = _native.Scn("sim")
    for sec in (s for s in SECTIONS if s != "emu"):  # emu.* binds only the emulator
        for name, value in as_dict(getattr(scn, sec)).items():
            c.set(f"{sec}.{name}", value)
    return c


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.strip("[]").split(",") if x.strip())


def resolve(scn: Scenario) -> Resolved:
    """Check the rules that involve several keys or the profile; fill in "auto". The rules,
    their messages and the "auto" sizes are the C library's (scenario/scn_rules.c), the one
    statement the simulator, the emulator and the driver check too."""
    try:
        prof = profiles.load(scn.system.profile, scn.base)
    except ScenarioError as e:
        if scn.profile_named_in is None:
            raise
        raise ScenarioError(f"{scn.profile_named_in}: {e}") from None
    c = _native_scn(scn)
    c.resolve(_machine(prof))
    _check_trace(scn.traffic.pcap)
    sizes: dict[str, Any] = {k: int(c.get(f"arch.{k}")) for k in _ARCH_AUTO}
    arch = dataclasses.replace(scn.arch, association=c.get("arch.association"),
                               groups=int(c.get("arch.groups")), **sizes)
    wl = scn.workload
    costs = cost_profiles.load(wl.costs, scn.base)
    workload = dataclasses.replace(
        wl, nf_cycles=costs.cycles[wl.nf] if wl.nf_cycles == AUTO else wl.nf_cycles,
        costs=wl.costs if wl.costs in cost_profiles.builtin_names() else costs.source)
    traffic = dataclasses.replace(scn.traffic, flow_model=_flow_model(scn.traffic, wl.nf))
    sy = scn.system
    system = dataclasses.replace(
        sy, cores_per_nic=_ints(c.get("system.cores_per_nic")),
        ddio_ways=prof.llc.ddio_ways if sy.ddio_ways == AUTO else sy.ddio_ways,
        mlp=prof.cpu.mlp if sy.mlp == AUTO else sy.mlp,
        # a profile file is recorded by absolute path, so the resolved scenario reads anywhere
        profile=sy.profile if sy.profile in profiles.builtin_names() else prof.source)
    return Resolved(dataclasses.replace(scn, arch=arch, system=system, traffic=traffic,
                                        workload=workload), prof)


def _check_trace(pcap: str) -> None:
    """A trace must be a capture the engines can read to its end, with at least one packet:
    checked here, before the simulator runs, so that a wrong file is the user's error (exit 2),
    not an engine failure or a silent 0 Gbps (rxb-emu checks its keys itself, with exit 2
    too)."""
    if not pcap:
        return
    try:
        _native.check_capture(pcap)
    except UsageError as e:
        raise ScenarioError(f"traffic.pcap = '{pcap}': {e}; allowed: a whole pcap or pcapng "
                            "capture with at least one packet") from None


# The arch keys whose "auto" the C library resolves from the others
_ARCH_AUTO = ("rx_size", "cr_size", "share_degree", "buffer_bytes", "pool_buffers")


def _flow_model(t: Traffic, nf: str) -> str:
    """traffic.flow_model "auto": the study's generator ranges for the flow-state NFs under a
    plain arrival process (targeting and a load change need flows steered to cores). The C
    engine resolves "auto" by the same rule (sim/nic.c, generator_ranges); a test runs both."""
    if t.flow_model != AUTO:
        return t.flow_model
    plain = t.pattern in ("constant", "poisson", "onoff") and not (
        t.change_at_ms > 0 and t.change_target_share > 0)
    return "generator" if nf in ("lb", "nat") and plain else "random"


def derived(res: Resolved) -> dict[str, Any]:
    """Numbers computed once here so the engine and reports agree on them."""
    a, sy, t = res.scenario.arch, res.scenario.system, res.scenario.traffic
    # resolve() left no "auto": int() states it (and fails loudly if one slipped through)
    buf = int(a.buffer_bytes)
    nic_of_core = [n for n, c in enumerate(sy.cores_per_nic) for _ in range(c)]
    wire = t.packet_bytes + ETH_OVERHEAD_BYTES
    # Buffers the NIC can write into before reusing one: the I/O working set bound of
    # docs/interfaces.md §1, as the ring library builds the design (its shape).
    posted = _native_scn(res.scenario).shape().posted
    return {
        "nic_of_core": nic_of_core,
        "wire_bytes": wire,
        "offered_pps_per_nic": t.rate_gbps * 1e9 / (8 * wire),
        "llc_bytes": res.profile.llc_bytes,
        "ddio_bytes": res.profile.ddio_bytes(int(sy.ddio_ways)),
        "dram_peak_gibps": res.profile.dram_peak_gibps,
        "posted_buffers": posted,
        "nominal_working_set_bytes": posted * buf,
    }
