"""Hardware profiles: the physical constants of one machine (docs/evaluation.md §2.4).

Why separate from scenarios: a scenario says *what to run*, a profile says
*what it runs on*. Profiles hold only vendor or measured quantities, each with
its source in a comment of the TOML file, so "what about my machine" is a copy
of `profiles/reference.toml` with other numbers. Every key is mandatory: a
profile that silently inherited numbers from another machine would be a lie. Each number has
a range no machine is outside of (a 1e308 MiB LLC overflowed the calculators), and the sizes
the ring library builds have its ranges.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from .schema import REQUIRED, Schema, as_dict, builtin_toml_names, key, locate_toml, read_toml


@dataclass(frozen=True)
class Cpu:
    """Cores of one socket (applications run on one socket, docs/evaluation.md §2.4)."""

    model: str = key(REQUIRED, "processor model")
    sockets: int = key(REQUIRED, "sockets in the machine", lo=1, hi=64)
    cores_per_socket: int = key(REQUIRED, "physical cores per socket", lo=1, hi=4096)
    freq_ghz: float = key(REQUIRED, "core clock with Turbo off", unit="GHz", lo=0.1, hi=10)
    mlp: int = key(REQUIRED, "memory-level parallelism: outstanding L1D misses per core", lo=1,
                   hi=1024)
    l1d_kib: int = key(REQUIRED, "L1 data cache per core", unit="KiB", lo=1, hi=4096)
    l1d_ways: int = key(REQUIRED, "L1 data cache associativity", lo=1, hi=256)
    l1d_latency_cycles: int = key(REQUIRED, "L1D load-to-use latency", unit="cycles", lo=1,
                                  hi=1000)
    l2_kib: int = key(REQUIRED, "private L2 per core", unit="KiB", lo=1, hi=1 << 20)
    l2_ways: int = key(REQUIRED, "L2 associativity", lo=1, hi=256)
    l2_latency_cycles: int = key(REQUIRED, "L2 load-to-use latency", unit="cycles", lo=1,
                                 hi=1000)
    xsocket_ns: float = key(REQUIRED, "a read of a line another socket's core wrote (emulated "
                            "designs: workers read the emulator's completions)", unit="ns", lo=0,
                            hi=1e5)


@dataclass(frozen=True)
class Llc:
    """Shared last-level cache of the socket and its DDIO partition."""

    size_mib: float = key(REQUIRED, "LLC capacity per socket", unit="MiB", lo=0, lo_open=True,
                          hi=1 << 20)
    ways: int = key(REQUIRED, "LLC associativity", lo=1, hi=1024)
    line_bytes: int = key(REQUIRED, "cache line size", unit="bytes", lo=8, hi=4096, pow2=True)
    latency_cycles: int = key(REQUIRED, "LLC load-to-use latency", unit="cycles", lo=1, hi=10000)
    ddio_ways: int = key(REQUIRED, "LLC ways DDIO may allocate into by default", lo=0)
    inclusive: bool = key(REQUIRED, "LLC inclusive of the private caches")


@dataclass(frozen=True)
class Dram:
    """Memory of the socket the NICs and buffers live on; the loaded-latency
    curve is the M/D/1 queue of sim/dram.h."""

    kind: str = key(REQUIRED, "DIMM type as sold")
    channels: int = key(REQUIRED, "populated channels per socket", lo=1, hi=1024)
    dimm_mts: int = key(REQUIRED, "DIMM rating", unit="MT/s", lo=1, hi=100000)
    cpu_max_mts: int = key(REQUIRED, "highest speed the CPU's memory controller runs (0 = no "
                           "limit); the memory runs at the lower of the two", unit="MT/s", lo=0,
                           hi=100000)
    bus_bytes: int = key(REQUIRED, "data bus width of a channel", unit="bytes", lo=1, hi=1024)
    capacity_gib: int = key(REQUIRED, "memory per socket", unit="GiB", lo=1, hi=1 << 30)
    idle_ns: float = key(REQUIRED, "unloaded load-to-use latency, local socket", unit="ns",
                         lo=0, lo_open=True, hi=1e5)
    efficiency: float = key(REQUIRED, "sustainable fraction of peak bandwidth", lo=0, hi=1,
                            lo_open=True)
    service_ns: float = key(REQUIRED, "effective service time of the memory queue (sets how fast "
                            "latency rises with load)", unit="ns", lo=0, lo_open=True,
                            hi=1e5)
    rho_max: float = key(REQUIRED, "cap of the utilisation in the queueing term", lo=0, hi=1,
                         lo_open=True)
    write_penalty: float = key(REQUIRED, "bandwidth lost to writes: the sustainable bandwidth at "
                               "write share w is efficiency x peak / (1 + write_penalty x w)",
                               lo=0, hi=4)


@dataclass(frozen=True)
class Pcie:
    """Link between one NIC and the socket."""

    gen: int = key(REQUIRED, "PCIe generation", lo=1, hi=16)
    lanes: int = key(REQUIRED, "lanes per NIC", lo=1, hi=64)
    gbps: float = key(REQUIRED, "raw bandwidth per direction after line encoding", unit="Gbps",
                      lo=0, lo_open=True, hi=1e5)
    dma_read_ns: float = key(REQUIRED, "round trip of a small DMA read that hits the LLC, "
                             "extrapolated to 0 bytes", unit="ns", lo=0, lo_open=True, hi=1e6)
    dma_read_ns_per_byte: float = key(REQUIRED, "added round trip per byte a DMA read returns",
                                      unit="ns/byte", lo=0, hi=1000)
    mrrs_bytes: int = key(REQUIRED, "max read request size: larger DMA reads are split",
                          unit="bytes", lo=64, hi=4096, pow2=True)
    mps_bytes: int = key(REQUIRED, "max payload size: DMA writes go in TLPs of at most this",
                         unit="bytes", lo=64, hi=4096, pow2=True)
    tlp_overhead_bytes: int = key(REQUIRED, "link bytes per TLP beyond its payload (header, "
                                  "sequence number, LCRC, framing, DLLP share)", unit="bytes",
                                  lo=0, hi=256)
    dma_write_ns: float = key(REQUIRED, "a DMA write's trip until the host sees it",
                              unit="ns", lo=0, hi=1e6)


@dataclass(frozen=True)
class Nic:
    """The NICs of the machine."""

    model: str = key(REQUIRED, "NIC model")
    count: int = key(REQUIRED, "NICs attached to the application socket", lo=1, hi=64)
    link_gbps: float = key(REQUIRED, "line rate per NIC", unit="Gbps", lo=0, lo_open=True,
                          hi=1e5)
    desc_bytes: int = key(REQUIRED, "Rx descriptor size", unit="bytes", lo=1, hi=4096)
    cqe_bytes: int = key(REQUIRED, "completion entry size", unit="bytes", lo=1, hi=4096)
    desc_prefetch: int = key(REQUIRED, "contiguous descriptors fetched by one PCIe read", lo=1,
                             hi=4096)
    dma_read_slots: int = key(REQUIRED, "DMA read requests the NIC keeps outstanding (its read "
                              "engines: descriptor fetches and transmit reads)", lo=1, hi=4096)
    # the ring library's RETA sizes (include/rxb/rss.h RXB_RETA_MIN, RXB_RETA_MAX)
    reta_size: int = key(REQUIRED, "RSS indirection table entries", lo=64, hi=4096, pow2=True)
    buffer_kib: float = key(REQUIRED, "on-NIC receive packet buffer", unit="KiB", lo=0,
                            lo_open=True, hi=1 << 30)


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
