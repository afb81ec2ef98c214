"""Packet traces: read pcap/pcapng, and the per-core load RSS would give them.

    stats(path, cores=16, reta_size=None) -> dict   (`rxb trace stats PCAP`)

What a trace is characterised by (as the study characterised its backbone trace): packets,
flows (distinct 5-tuples), frame sizes, and how unevenly a NIC's RSS spreads it over N
cores: per-core packets and bytes and the max/min ratio.

RSS is computed as the NIC model does it (lib/rss.c rxb_rss_frame, docs/simulator.md): the
Toeplitz hash with the Microsoft verification key over source address, destination address,
source port, destination port, each in network byte order; IPv4 and IPv6 with their full
addresses; ports only for TCP and UDP, not for IPv4 fragments nor IPv6 packets whose next
header is an extension header; non-IP frames hash to 0. The queue is the indirection table
entry at the hash's low bits, the table filled round-robin (entry i -> core i mod N) with
the hardware profile's nic.reta_size entries, as the simulator sets it up; its trace replay
hashes each frame by the same rules (sim/pcap.h, "rss").

Frame sizes are the simulator's (sim/pcap.h): the original length of the Ethernet frame plus
the 4-byte FCS captures leave out, at least 64; raw-IP and Linux cooked captures get the
14-byte Ethernet header instead of theirs.

Files are read by the engines' reader (util/pcapread.c, libpcap, through the binding in
_native.py): pcap in both byte orders with µs or ns timestamps and pcapng; the frames are
parsed here: link types Ethernet (with up to three 802.1Q/802.1ad tags), raw IP, Linux
cooked v1 and v2.
"""

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import _native
from ..errors import UsageError
from ..vocab import profile
from ..vocab.scenario import ETH_OVERHEAD_BYTES

# the table sizes a profile may give (nic.reta_size: the ring library's RETA sizes)
RETA_SIZES = profile.SCHEMA.known("nic.reta_size").spec
# Microsoft's RSS verification key, the default of lib/rss.c (rxb_rss_default_key) and of
# many drivers; tests check it against the library's.
KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
                    "6a42b73bbeac01fa")
MAX_INPUT = 36  # IPv6 addresses + ports
FCS, ETH_HDR, MIN_FRAME = 4, 14, 64
SIZE_BINS = ((64, 64), (65, 127), (128, 255), (256, 511), (512, 1023), (1024, 1518),
             (1519, None))  # RFC 2544 frame sizes as bin edges; 1519+ is jumbo/offloaded
LT_ETHERNET, LT_LINUX_SLL, LT_LINUX_SLL2 = 1, 113, 276
LT_RAW = {101: None, 12: None, 14: None, 228: 4, 228 + 1: 6}  # raw IP; value: version only
_VLAN = (0x8100, 0x88A8, 0x9100)


class Toeplitz:
    """The Toeplitz hash with a 40-byte key. Linear in the input bits, so a table per input
    byte position holds every byte value's contribution (as lib/rss.c rxb_rss_init)."""

    def __init__(self, key: bytes = KEY):
        if len(key) != 40:
            raise UsageError(f"RSS key of {len(key)} bytes: must be exactly 40")
        k = int.from_bytes(key, "big")
        self.table = []
        for i in range(MAX_INPUT):
            # window of input bit 8i+b: key bits 8i+b .. 8i+b+31 (MSB first)
            win = [(k >> (320 - 32 - (8 * i + b))) & 0xFFFFFFFF for b in range(8)]
            row = [0] * 256
            for v in range(1, 256):
                low = (v & -v).bit_length() - 1  # lowest set bit = input bit 7 - low
                row[v] = row[v & (v - 1)] ^ win[7 - low]
            self.table.append(row)

    def hash(self, data: bytes) -> int:
        if len(data) > MAX_INPUT:
            raise ValueError(f"RSS input of {len(data)} bytes: at most {MAX_INPUT}")
        h = 0
        for row, byte in zip(self.table, data, strict=False):
            h ^= row[byte]
        return h


# ---- reading captures --------------------------------------------------------------------

# One record of a capture: t_ns (ns since 1970, an integer: a float loses ns at today's
# epoch), data (the captured bytes), orig_len (on the wire), linktype (libpcap's number).
Record = _native.PcapRecord


def read(path: str | Path) -> Iterator[Record]:
    """Every packet record of a pcap or pcapng file, in file order: the engines' own reader
    (util/pcapread.c over libpcap) through the binding, so a file reads here exactly as the
    simulator and the emulator read it; a bad file is one UsageError line naming the file
    and the byte offset."""
    return _native.pcap_records(path)


# ---- what RSS sees -----------------------------------------------------------------------

@dataclass(frozen=True)
class Packet:
    t_ns: int
    frame_len: int  # Ethernet frame with FCS, as the simulator counts it
    l3: int  # 4, 6, or 0 (not IP)
    flow: tuple  # (src, dst, proto, sport, dport); () when not IP
    rss_input: bytes  # what the NIC hashes (b"" for non-IP: hash 0)


def _ip(d: bytes, version: int | None) -> tuple[int, tuple, bytes]:
    """(l3, flow, RSS input) of an IP packet starting at d (lib/rss.c hash_ipv4/6)."""
    v = d[0] >> 4 if d else 0
    if version and v != version:
        return 0, (), b""
    if v == 4 and len(d) >= 20:
        ihl = (d[0] & 0xF) * 4
        if ihl < 20 or len(d) < ihl:
            return 0, (), b""
        src, dst, proto = d[12:16], d[16:20], d[9]
        fragment = int.from_bytes(d[6:8], "big") & 0x3FFF
        ports = d[ihl:ihl + 4] if proto in (6, 17) and not fragment and len(d) >= ihl + 4 \
            else b""
    elif v == 6 and len(d) >= 40:
        src, dst, proto = d[8:24], d[24:40], d[6]
        ports = d[40:44] if proto in (6, 17) and len(d) >= 44 else b""
    else:
        return 0, (), b""
    sport, dport = (int.from_bytes(ports[:2], "big"), int.from_bytes(ports[2:], "big")) \
        if ports else (0, 0)
    return v, (src, dst, proto, sport, dport), src + dst + ports


def parse(rec: Record, path: str | Path = "") -> Packet:
    d, lt, extra = rec.data, rec.linktype, 0
    l3, flow, rin = 0, (), b""
    if lt == LT_ETHERNET:
        if len(d) >= ETH_HDR:
            etype, off = int.from_bytes(d[12:14], "big"), ETH_HDR
            for _ in range(3):
                if etype not in _VLAN or len(d) < off + 4:
                    break
                etype, off = int.from_bytes(d[off + 2:off + 4], "big"), off + 4
            if etype in (0x0800, 0x86DD):
                l3, flow, rin = _ip(d[off:], 4 if etype == 0x0800 else 6)
    elif lt in (LT_LINUX_SLL, LT_LINUX_SLL2):
        hl = 16 if lt == LT_LINUX_SLL else 20
        extra = ETH_HDR - hl
        if len(d) >= hl:
            etype = int.from_bytes(d[14:16] if lt == LT_LINUX_SLL else d[0:2], "big")
            if etype in (0x0800, 0x86DD):
                l3, flow, rin = _ip(d[hl:], 4 if etype == 0x0800 else 6)
    elif lt in LT_RAW:
        extra = ETH_HDR
        l3, flow, rin = _ip(d, LT_RAW[lt])
    else:
        raise UsageError(f"{path}: link type {lt} is not supported; allowed: Ethernet (1), raw IP "
                         "(12, 14, 101, 228, 229), Linux cooked (113, 276)")
    return Packet(rec.t_ns, max(MIN_FRAME, rec.orig_len + extra + FCS), l3, flow, rin)


# ---- statistics --------------------------------------------------------------------------

def reta(cores: int, size: int) -> list[int]:
    """The indirection table as drivers (and lib/rss.c rxb_reta_init) fill it: i -> i mod N."""
    return [i % cores for i in range(size)]


def _bin(length: int) -> int:
    return next(i for i, (lo, hi) in enumerate(SIZE_BINS) if hi is None or length <= hi)


def _ratio(values: list[int]) -> float | None:
    """max/min; None when some core gets nothing (the ratio is unbounded)."""
    return max(values) / min(values) if values and min(values) > 0 else None


RECORD_HEADER_BYTES = 16  # a classic pcap record's header: what the bar counts besides data
BAR_EVERY = 4096  # records between updates of the bar (an update per record slowed the read)


def _with_bar(records: Iterator[Record], path: str | Path,
              progress: bool | None) -> Iterator[Record]:
    """The records, with a bar over the file's bytes on stderr (progress as for `rxb sim`:
    None shows it on a terminal only). pcapng's blocks are longer than the bar counts: it
    is closed at the end of the file whatever it reached."""
    from tqdm import tqdm
    size = Path(path).stat().st_size if Path(path).is_file() else None
    with tqdm(total=size, unit="B", unit_scale=True, desc="trace stats", file=sys.stderr,
              disable=None if progress is None else not progress, dynamic_ncols=True) as bar:
        done = 0
        for i, rec in enumerate(records, 1):
            done += len(rec.data) + RECORD_HEADER_BYTES
            if i % BAR_EVERY == 0:
                bar.update(done)
                done = 0
            yield rec
        bar.update(done)


def check_spread(cores: int, reta_size: int) -> None:
    """UsageError unless `cores` and `reta_size` are a spread stats() can compute (the CLI
    calls it first, so that no warning about them is said of values it then refuses)."""
    if isinstance(cores, bool) or not isinstance(cores, int) or not 1 <= cores <= 65536:
        raise UsageError(f"--cores {cores}: must be an integer from 1 to 65536")
    lo, hi = int(RETA_SIZES.lo or 1), int(RETA_SIZES.hi or 1)
    if reta_size not in [1 << i for i in range(lo.bit_length() - 1, hi.bit_length())]:
        raise UsageError(f"--reta-size {reta_size}: must be a power of two from {lo} to {hi}")


def stats(path: str | Path, cores: int = 16, reta_size: int = 512, key: bytes = KEY,
          progress: bool | None = False) -> dict:
    """Packets, flows, frame sizes and per-core RSS load of a capture (module doc); a
    generated trace's are in rxbisect.trace_gen's example. progress: a bar over the file on
    stderr (None: on a terminal only).

    >>> stats("/nonexistent.pcap")
    Traceback (most recent call last):
    ...
    rxbisect.errors.UsageError: ...nonexistent.pcap..."""
    check_spread(cores, reta_size)
    toeplitz, table, mask = Toeplitz(key), reta(cores, reta_size), reta_size - 1
    hashes: dict[bytes, int] = {b"": 0}  # per flow, not per packet: the hash is the cost
    flows: set[tuple] = set()
    sizes = [0] * len(SIZE_BINS)
    pk, by = [0] * cores, [0] * cores
    non_ip, t0, t1 = 0, None, None
    for rec in _with_bar(read(path), path, progress):
        p = parse(rec, path)
        h = hashes.get(p.rss_input)
        if h is None:
            h = hashes[p.rss_input] = toeplitz.hash(p.rss_input)
        q = table[h & mask]
        pk[q] += 1
        by[q] += p.frame_len
        sizes[_bin(p.frame_len)] += 1
        if p.l3:
            flows.add(p.flow)
        else:
            non_ip += 1
        t0 = p.t_ns if t0 is None else min(t0, p.t_ns)
        t1 = p.t_ns if t1 is None else max(t1, p.t_ns)
    n, total = sum(pk), sum(by)
    duration = (t1 - t0) / 1e9 if n > 1 and t0 is not None and t1 is not None else 0.0
    return {
        "file": str(path), "packets": n, "bytes": total, "non_ip": non_ip, "flows": len(flows),
        "duration_s": duration,
        # on the wire, as traffic.rate_gbps and the generator's --rate-gbps count it
        "rate_gbps": 8 * (total + ETH_OVERHEAD_BYTES * n) / duration / 1e9 if duration > 0
        else None,
        "mean_frame_bytes": total / n if n else None,
        "size_histogram": [{"lo": lo, "hi": hi, "packets": c, "share": c / n if n else 0.0}
                           for (lo, hi), c in zip(SIZE_BINS, sizes, strict=True)],
        "cores": cores, "reta_size": reta_size,
        "per_core": [{"core": i, "packets": pk[i], "bytes": by[i],
                      "share_packets": pk[i] / n if n else 0.0,
                      "share_bytes": by[i] / total if total else 0.0} for i in range(cores)],
        "max_min_packets": _ratio(pk), "max_min_bytes": _ratio(by),
    }
