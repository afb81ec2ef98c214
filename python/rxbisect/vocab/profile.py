"""Hardware profiles: the physical constants of one machine (docs/evaluation.md §2.4).

Why separate from scenarios: a scenario says *what to run*, a profile says
*what it runs on*. Profiles hold only vendor or measured quantities, each with
its source in a comment of the TOML file, so "what about my machine" is a copy
of `profiles/reference.toml` with other numbers. Every key is mandatory: a
profile that silently inherited numbers from another machine would be a lie.

Each key is defined once, in profile_keys.toml (tables.py reads it; the simulator compiles the
same table): its doc, unit and range. Each number has a range no machine is outside of (a
1e308 MiB LLC overflowed the calculators), and the sizes the ring library builds have its
ranges. The classes below give the names and types the package and the type checker rely on;
tests/python/test_scenario_drift.py checks they list the table's keys in its order and types.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from .schema import REQUIRED, Schema, as_dict, builtin_toml_names, key, locate_toml, read_toml
from .tables import PROFILE_KEYS


def _key(section: str, name: str) -> Any:
    """The field of required key section.name, documented and bounded by the table."""
    k = PROFILE_KEYS[section][name]
    return key(REQUIRED, k["doc"], unit=k.get("unit", ""), lo=k.get("lo"), hi=k.get("hi"),
               lo_open=k.get("lo_open", False), pow2=k.get("pow2", False))


@dataclass(frozen=True)
class Cpu:
    """Cores of one socket (applications run on one socket, docs/evaluation.md §2.4)."""

    model: str = _key("cpu", "model")
    sockets: int = _key("cpu", "sockets")
    cores_per_socket: int = _key("cpu", "cores_per_socket")
    freq_ghz: float = _key("cpu", "freq_ghz")
    mlp: int = _key("cpu", "mlp")
    l1d_kib: int = _key("cpu", "l1d_kib")
    l1d_ways: int = _key("cpu", "l1d_ways")
    l1d_latency_cycles: int = _key("cpu", "l1d_latency_cycles")
    l2_kib: int = _key("cpu", "l2_kib")
    l2_ways: int = _key("cpu", "l2_ways")
    l2_latency_cycles: int = _key("cpu", "l2_latency_cycles")
    xsocket_ns: float = _key("cpu", "xsocket_ns")


@dataclass(frozen=True)
class Llc:
    """Shared last-level cache of the socket and its DDIO partition."""

    size_mib: float = _key("llc", "size_mib")
    ways: int = _key("llc", "ways")
    line_bytes: int = _key("llc", "line_bytes")
    latency_cycles: int = _key("llc", "latency_cycles")
    ddio_ways: int = _key("llc", "ddio_ways")
    inclusive: bool = _key("llc", "inclusive")


@dataclass(frozen=True)
class Dram:
    """Memory of the socket the NICs and buffers live on; the loaded-latency
    curve is the M/D/1 queue of sim/dram.h."""

    kind: str = _key("dram", "kind")
    channels: int = _key("dram", "channels")
    dimm_mts: int = _key("dram", "dimm_mts")
    cpu_max_mts: int = _key("dram", "cpu_max_mts")
    bus_bytes: int = _key("dram", "bus_bytes")
    capacity_gib: int = _key("dram", "capacity_gib")
    idle_ns: float = _key("dram", "idle_ns")
    efficiency: float = _key("dram", "efficiency")
    service_ns: float = _key("dram", "service_ns")
    rho_max: float = _key("dram", "rho_max")
    write_penalty: float = _key("dram", "write_penalty")


@dataclass(frozen=True)
class Pcie:
    """Link between one NIC and the socket."""

    gen: int = _key("pcie", "gen")
    lanes: int = _key("pcie", "lanes")
    gbps: float = _key("pcie", "gbps")
    dma_read_ns: float = _key("pcie", "dma_read_ns")
    dma_read_ns_per_byte: float = _key("pcie", "dma_read_ns_per_byte")
    mrrs_bytes: int = _key("pcie", "mrrs_bytes")
    mps_bytes: int = _key("pcie", "mps_bytes")
    tlp_overhead_bytes: int = _key("pcie", "tlp_overhead_bytes")
    dma_write_ns: float = _key("pcie", "dma_write_ns")


@dataclass(frozen=True)
class Nic:
    """The NICs of the machine."""

    model: str = _key("nic", "model")
    count: int = _key("nic", "count")
    link_gbps: float = _key("nic", "link_gbps")
    desc_bytes: int = _key("nic", "desc_bytes")
    cqe_bytes: int = _key("nic", "cqe_bytes")
    desc_prefetch: int = _key("nic", "desc_prefetch")
    dma_read_slots: int = _key("nic", "dma_read_slots")
    reta_size: int = _key("nic", "reta_size")
    buffer_kib: float = _key("nic", "buffer_kib")


SCHEMA = Schema({"cpu": Cpu, "llc": Llc, "dram": Dram, "pcie": Pcie, "nic": Nic},
                top=("name", "description"))


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    source: str  # file it was read from
    cpu: Cpu
    llc: Llc
    dram: Dram
    pcie: Pcie
    nic: Nic

    @property
    def llc_bytes(self) -> int:
        return int(self.llc.size_mib * 2**20)

    def ddio_bytes(self, ways: int | None = None) -> int:
        """LLC capacity DDIO may fill: size × ddio_ways / ways."""
        w = self.llc.ddio_ways if ways is None else ways
        return self.llc_bytes * w // self.llc.ways

    @property
    def dram_peak_gibps(self) -> float:
        d = self.dram
        mts = min(d.dimm_mts, d.cpu_max_mts) if d.cpu_max_mts else d.dimm_mts
        return mts * 1e6 * d.bus_bytes * d.channels / 2**30

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"name": self.name, "description": self.description, "source": self.source}
        out.update({s: as_dict(getattr(self, s)) for s in SCHEMA.sections})
        return out


HERE = Path(__file__).parent / "profiles"


def builtin_names() -> list[str]:
    return builtin_toml_names(HERE)


def locate(ref: str, base: Path | None = None) -> Path:
    """A built-in profile name, or a path (relative to `base`) to a profile file."""
    return locate_toml(ref, base, HERE, "system.profile", "profile")


def load(ref: str = "reference", base: Path | None = None) -> Profile:
    """Read and validate a profile; errors name the file and the key."""
    path = locate(ref, base)
    where = f"profile {path.name}: "
    raw = read_toml(path, "profile file")
    vals: dict[str, dict[str, Any]] = {s: {} for s in SCHEMA.sections}
    top = SCHEMA.merge(vals, raw, where, path.parent)
    sections = SCHEMA.instantiate(vals, where)
    llc = sections["llc"]
    if llc.ddio_ways > llc.ways:
        raise ScenarioError(f"{where}llc.ddio_ways = {llc.ddio_ways}: more than llc.ways = "
                            f"{llc.ways}; allowed: 0 to {llc.ways}")
    return Profile(top.get("name", path.stem), top.get("description", ""), str(path), **sections)
