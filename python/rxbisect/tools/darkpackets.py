"""The analytic dark-packet bound of docs/evaluation.md §4.

Packets lost because processing waits on DRAM rather than on the CPU. With link
rate L, wire size P (frame + 20 B preamble and gap), N cores sharing the
traffic evenly, M dependent DRAM accesses per packet of latency t_d and a
compute time c:

    per-core inter-packet gap   g = 8 · P · N / L
    a core keeps up only if     g >= M · t_d + c
    otherwise, once the ring is full, the dropped fraction -> 1 − g / (M · t_d + c)

It is the yardstick the simulator is checked against where the bound is tight
(no caching, no memory-level parallelism). Pure functions so tests can call it.
"""

import math
from dataclasses import asdict, dataclass

from ..errors import UsageError
from ..vocab import profile
from ..vocab.scenario import ETH_OVERHEAD_BYTES

MIN_FRAME_BYTES = 64  # the shortest Ethernet frame, FCS included
DEFAULT_PROFILE = "reference"  # the machine whose DRAM latency t_d defaults to


def default_dram_ns(profile_ref: str = DEFAULT_PROFILE) -> float:
    """t_d when none is given: the hardware profile's unloaded DRAM latency, the one
    default `rxb dark` and `rxbisect.dark()` share."""
    return profile.load(profile_ref).dram.idle_ns


@dataclass(frozen=True)
class DarkPackets:
    link_gbps: float
    packet_bytes: int  # Ethernet frame including FCS
    cores: int
    accesses: int  # M
    dram_ns: float  # t_d
    compute_ns: float  # c
    wire_bytes: int
    gap_ns: float  # g, per core
    service_ns: float  # M · t_d + c
    keeps_up: bool
    drop_fraction: float
    offered_mpps_per_core: float
    capacity_mpps_per_core: float | None  # None when service time is 0
    delivered_gbps: float  # on the wire, link_gbps × (1 − drop)
    cores_needed: int  # smallest N that keeps up

    def to_dict(self) -> dict:
        return asdict(self)


def compute(link_gbps: float, packet_bytes: int, cores: int = 1, accesses: int = 1,
            dram_ns: float | None = None, compute_ns: float = 0.0) -> DarkPackets:
    """Evaluate the bound for one point; dram_ns None is default_dram_ns().

    >>> p = compute(100, 64)  # one core, one DRAM access per 64 B packet at 100 Gbps
    >>> p.keeps_up, p.cores_needed, round(p.drop_fraction, 2)
    (False, 13, 0.92)"""
    dram_ns = default_dram_ns() if dram_ns is None else dram_ns
    for name, v, ok in (("link_gbps", link_gbps, link_gbps > 0),
                        ("packet_bytes", packet_bytes, packet_bytes >= MIN_FRAME_BYTES),
                        ("cores", cores, cores >= 1), ("accesses", accesses, accesses >= 0),
                        ("dram_ns", dram_ns, dram_ns >= 0), ("compute_ns", compute_ns,
                                                              compute_ns >= 0)):
        if not ok or not math.isfinite(v):
            raise UsageError(f"{name} = {v}: must be a finite number "
                             + ("> 0" if name == "link_gbps" else
                                f">= {MIN_FRAME_BYTES} (an Ethernet frame with its FCS)"
                                if name == "packet_bytes" else
                                ">= 1" if name == "cores" else ">= 0"))
    wire = packet_bytes + ETH_OVERHEAD_BYTES
    per_packet_ns = 8 * wire / link_gbps  # bits / (Gbit/s) = ns
    gap = per_packet_ns * cores
    service = accesses * dram_ns + compute_ns
    keeps_up = gap >= service
    drop = 0.0 if keeps_up else 1 - gap / service
    return DarkPackets(
        link_gbps, packet_bytes, cores, accesses, dram_ns, compute_ns, wire, gap, service,
        keeps_up, drop, 1e3 / gap, (1e3 / service) if service > 0 else None,
        link_gbps * (1 - drop), max(1, math.ceil(service / per_packet_ns - 1e-9)))
