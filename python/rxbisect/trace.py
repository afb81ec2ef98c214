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

Pure Python: pcap in both byte orders with µs or ns timestamps, pcapng (section, interface,
enhanced and simple packet blocks); link types Ethernet (with up to three 802.1Q/802.1ad
tags), raw IP, Linux cooked v1 and v2.
"""

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

from .errors import UsageError

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
        for row, byte in zip(self.table, data):
            h ^= row[byte]
        return h


# ---- reading captures --------------------------------------------------------------------

@dataclass(frozen=True)
class Record:
    t_ns: int  # nanoseconds since 1970, an integer: a float loses ns at today's epoch
    data: bytes  # captured bytes
    orig_len: int
    linktype: int


def _bad(path: Path, off: int, what: str) -> UsageError:
    return UsageError(f"{path}: byte {off}: {what}")


def _take(f: BinaryIO, n: int, path: Path, off: int, what: str) -> bytes | None:
    """n bytes, None at a clean end of file, an error naming `what` if cut short."""
    data = f.read(n)
    if not data and n:
        return None
    if len(data) < n:
        raise _bad(path, off, f"truncated {what}: {len(data)} of {n} bytes")
    return data


def _pcap(f: BinaryIO, path: Path, head: bytes) -> Iterator[Record]:
    magic = head[:4]
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
             b"\xa1\xb2\x3c\x4d": ">"}[magic]
    ns_per_frac = 1 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1000
    rest = _take(f, 20, path, 4, "pcap file header")
    if rest is None:
        raise _bad(path, 4, "truncated pcap file header: 0 of 20 bytes")
    linktype = struct.unpack(order + "I", rest[16:20])[0] & 0xFFFF
    off = 24
    while True:
        rh = _take(f, 16, path, off, "record header")
        if rh is None:
            return
        sec, sub, caplen, orig = struct.unpack(order + "IIII", rh)
        if caplen > 262144:
            raise _bad(path, off, f"implausible captured length {caplen}")
        data = _take(f, caplen, path, off + 16, "record") or b""
        yield Record(sec * 10**9 + sub * ns_per_frac, data, max(orig, caplen), linktype)
        off += 16 + caplen


def _ticks_to_ns(tsresol: int):
    """pcapng's if_tsresol: 10^-r s per tick, or 2^-r with the top bit set; exact integers."""
    r = tsresol & 0x7F
    if tsresol & 0x80:
        return lambda t: t * 10**9 >> r
    return (lambda t: t * 10**(9 - r)) if r <= 9 else (lambda t: t // 10**(r - 9))


def _pcapng(f: BinaryIO, path: Path) -> Iterator[Record]:
    order, ifaces, off = "<", [], 0
    while True:
        bh = _take(f, 8, path, off, "pcapng block header")
        if bh is None:
            return
        if bh[:4] == b"\x0a\x0d\x0d\x0a":  # section header: byte order; interfaces anew
            bom = f.read(4)
            if bom not in (b"\x4d\x3c\x2b\x1a", b"\x1a\x2b\x3c\x4d"):
                raise _bad(path, off + 8, "pcapng section header without a byte-order magic")
            order = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            total = struct.unpack(order + "I", bh[4:8])[0]
            f.read(total - 12)
            ifaces, off = [], off + total
            continue
        block_type, total = struct.unpack(order + "II", bh)
        if total < 12 or total % 4:
            raise _bad(path, off, f"pcapng block of implausible length {total}")
        # the block body, without the trailing copy of its length
        data = (_take(f, total - 8, path, off + 8, "pcapng block") or b"")[:-4]
        if block_type == 1:  # interface description: link type, timestamp resolution
            to_ns, opts = (lambda t: t * 1000), data[8:]
            while len(opts) >= 4:
                code, n = struct.unpack(order + "HH", opts[:4])
                if code == 0:
                    break
                if code == 9 and n >= 1:  # if_tsresol
                    r = opts[4]
                    to_ns = _ticks_to_ns(r)
                opts = opts[4 + (n + 3) // 4 * 4:]
            ifaces.append((struct.unpack(order + "H", data[:2])[0], to_ns))
        elif block_type in (6, 2):  # enhanced packet block (2: the obsolete packet block)
            iface, hi, lo, caplen, orig = struct.unpack(order + "IIIII", data[:20])
            iface &= 0xFFFF if block_type == 2 else 0xFFFFFFFF
            if iface >= len(ifaces):
                raise _bad(path, off, f"packet on interface {iface}, which was not described")
            lt, to_ns = ifaces[iface]
            yield Record(to_ns((hi << 32) | lo), data[20:20 + caplen], max(orig, caplen), lt)
        elif block_type == 3:  # simple packet block: interface 0, no timestamp
            if not ifaces:
                raise _bad(path, off, "packet before any interface description")
            orig = struct.unpack(order + "I", data[:4])[0]
            yield Record(0, data[4:4 + orig], orig, ifaces[0][0])
        off += total


def read(path: str | Path) -> Iterator[Record]:
    """Every packet record of a pcap or pcapng file, in file order."""
    path = Path(path)
    try:
        f = path.open("rb")
    except OSError as e:
        raise UsageError(f"cannot read {path} ({e.strerror or e})") from None
    with f:
        head = f.read(4)
        if head in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\xc3\xd4",
                    b"\xa1\xb2\x3c\x4d"):
            yield from _pcap(f, path, head)
        elif head == b"\x0a\x0d\x0d\x0a":
            f.seek(0)
            yield from _pcapng(f, path)
        else:
            raise UsageError(f"{path}: not a pcap or pcapng file (magic {head.hex() or 'none'})")


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


def stats(path: str | Path, cores: int = 16, reta_size: int = 512, key: bytes = KEY) -> dict:
    """Packets, flows, frame sizes and per-core RSS load of a capture (module doc)."""
    if isinstance(cores, bool) or not isinstance(cores, int) or not 1 <= cores <= 65536:
        raise UsageError(f"--cores {cores}: must be an integer from 1 to 65536")
    if reta_size not in [1 << i for i in range(6, 13)]:
        raise UsageError(f"--reta-size {reta_size}: must be a power of two from 64 to 4096")
    toeplitz, table, mask = Toeplitz(key), reta(cores, reta_size), reta_size - 1
    hashes: dict[bytes, int] = {b"": 0}  # per flow, not per packet: the hash is the cost
    flows: set[tuple] = set()
    sizes = [0] * len(SIZE_BINS)
    pk, by = [0] * cores, [0] * cores
    non_ip, t0, t1 = 0, None, None
    for rec in read(path):
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
    duration = (t1 - t0) / 1e9 if n > 1 else 0.0
    return {
        "file": str(path), "packets": n, "bytes": total, "non_ip": non_ip, "flows": len(flows),
        "duration_s": duration,
        "rate_gbps": 8 * total / duration / 1e9 if duration > 0 else None,
        "mean_frame_bytes": total / n if n else None,
        "size_histogram": [{"lo": lo, "hi": hi, "packets": c, "share": c / n if n else 0.0}
                           for (lo, hi), c in zip(SIZE_BINS, sizes)],
        "cores": cores, "reta_size": reta_size,
        "per_core": [{"core": i, "packets": pk[i], "bytes": by[i],
                      "share_packets": pk[i] / n if n else 0.0,
                      "share_bytes": by[i] / total if total else 0.0} for i in range(cores)],
        "max_min_packets": _ratio(pk), "max_min_bytes": _ratio(by),
    }
