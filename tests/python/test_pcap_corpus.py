"""One capture, three readers: the simulator's trace replay (rxb-sim, traffic.pattern=trace),
the emulator's pcap source (rxb-emu, emu.source=pcap) and `rxb trace stats` must see the same
packets, sizes and RSS queues in a pcap (µs, little-endian), a pcap (ns, big-endian) and a
pcapng of the same frames — IPv4/UDP, QinQ (802.1ad + 802.1Q) IPv4/TCP, 802.1Q IPv6/UDP and
ARP — and refuse a truncated file, a wrong magic and a non-Ethernet link type with a one-line
error naming the file.

The corpus is written by the test (tests/data/pcap/README.md says why no binaries are kept).
The expected queues come from this file's own Toeplitz (bit by bit, as the specification
states it) over the standard input, so a consumer that skipped the QinQ tags (hash 0: queue 0)
or hashed another field fails, whichever it is.
"""

import json
import struct

import pytest

from conftest import needs_engine, run_cli
from rxbisect.engines import emu, engine
from rxbisect.errors import EngineError
from rxbisect.tools import trace
from rxbisect.vocab import scenario

CORES = 4  # a RETA of 128 or 512 entries (the driver's, the emulator's and the simulator's) gives hash % 4
KEY = trace.KEY
MAC = bytes.fromhex("020000000002" "020000000001")
T0_NS = 1_700_000_000 * 10**9
GAP_NS = 1000

try:
    EMU = emu.find_emulator()
except EngineError:  # pragma: no cover - depends on the build
    EMU = None


def toeplitz(data: bytes) -> int:
    k, h = int.from_bytes(KEY, "big"), 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (len(KEY) * 8 - 32 - i)) & 0xFFFFFFFF
    return h


def ipv4(proto: int, src: bytes, dst: bytes, l4: bytes, pad: int) -> bytes:
    total = 20 + len(l4) + pad
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, proto, 0, src, dst) \
        + l4 + bytes(pad)


def ipv6_udp(src: bytes, dst: bytes, ports: bytes, pad: int) -> bytes:
    return struct.pack("!IHBB", 6 << 28, 8 + pad, 17, 64) + src + dst + ports + bytes(4 + pad)


def frame(etype: int, payload: bytes, tags=()) -> bytes:
    return MAC + b"".join(struct.pack("!HH", t, 7) for t in tags) + struct.pack("!H", etype) \
        + payload


def corpus() -> list[tuple[bytes, int]]:
    """(frame, RSS hash) of every packet: flows of each kind, sizes 60..1514."""
    out = []
    for i in range(24):
        src, dst = bytes([10, 0, 0, i]), bytes([10, 1, 0, 1])
        ports = struct.pack("!HH", 1000 + i, 53)
        out.append((frame(0x0800, ipv4(17, src, dst, ports + bytes(4), 18 + 50 * i)),
                    toeplitz(src + dst + ports)))
    for i in range(24):
        src, dst = bytes([192, 168, 1, i]), bytes([172, 16, 0, 9])
        ports = struct.pack("!HH", 40000 + i, 443)
        out.append((frame(0x0800, ipv4(6, src, dst, ports + bytes(16), 10 * i),
                          tags=(0x88A8, 0x8100)), toeplitz(src + dst + ports)))
    for i in range(16):
        src = bytes.fromhex("20010db8") + struct.pack("!IQ", i, 0x1000 + i)
        dst = bytes.fromhex("fd000000") + struct.pack("!IQ", 0xABCDEF, 77)
        ports = struct.pack("!HH", 5000 + i, 4789)
        out.append((frame(0x86DD, ipv6_udp(src, dst, ports, 30 * i), tags=(0x8100,)),
                    toeplitz(src + dst + ports)))
    arp = frame(0x0806, bytes(28))
    out += [(arp, 0)] * 4
    return out


def write_pcap(path, frames, nsec: bool, order: str, linktype: int = 1) -> None:
    magic = 0xA1B23C4D if nsec else 0xA1B2C3D4
    with open(path, "wb") as f:
        f.write(struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 65535, linktype))
        for n, fr in enumerate(frames):
            t = T0_NS + n * GAP_NS
            frac = t % 10**9 if nsec else t % 10**9 // 1000
            f.write(struct.pack(order + "IIII", t // 10**9, frac, len(fr), len(fr)) + fr)


def ng_block(btype: int, body: bytes) -> bytes:
    body += bytes(-len(body) % 4)
    return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


def write_pcapng(path, frames) -> None:
    """Section header, one Ethernet interface with ns timestamps (if_tsresol 9), and an
    enhanced packet block per frame."""
    shb = ng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = ng_block(1, struct.pack("<HHI", 1, 0, 65535)
                   + struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0))
    with open(path, "wb") as f:
        f.write(shb + idb)
        for n, fr in enumerate(frames):
            t = T0_NS + n * GAP_NS
            f.write(ng_block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(fr),
                                            len(fr)) + fr))


FORMATS = {
    "pcap-us-le": lambda p, fr: write_pcap(p, fr, nsec=False, order="<"),
    "pcap-ns-be": lambda p, fr: write_pcap(p, fr, nsec=True, order=">"),
    "pcapng": write_pcapng,
}


@pytest.fixture(scope="module")
def expected():
    """Per-queue packets and bytes (frame + FCS) by the default round-robin RETA."""
    pk, by = [0] * CORES, [0] * CORES
    for fr, h in corpus():
        pk[h % CORES] += 1
        by[h % CORES] += max(64, len(fr) + 4)
    assert min(pk) > 0 and pk[0] > 4  # every queue used, ARP not the only traffic of 0
    return pk, by


def write(tmp_path, fmt: str):
    path = tmp_path / f"corpus-{fmt}.pcap"
    FORMATS[fmt](path, [fr for fr, _ in corpus()])
    return path


@pytest.mark.parametrize("fmt", FORMATS)
def test_trace_stats_reads_every_format_alike(tmp_path, fmt, expected):
    s = trace.stats(write(tmp_path, fmt), cores=CORES, reta_size=128)
    assert s["packets"] == len(corpus()) and s["non_ip"] == 4
    assert [c["packets"] for c in s["per_core"]] == expected[0]
    assert [c["bytes"] for c in s["per_core"]] == expected[1]
    # seconds as floats since 1970: a few ns of rounding at this epoch
    assert s["duration_s"] == pytest.approx((len(corpus()) - 1) * GAP_NS * 1e-9, rel=1e-3)


@needs_engine
@pytest.mark.parametrize("fmt", FORMATS)
def test_simulator_replays_every_format_alike(tmp_path, fmt, expected):
    r = engine.run(scenario.load_resolved(None, [
        "traffic.pattern=trace", f"traffic.pcap={write(tmp_path, fmt)}", "system.nics=1",
        f"system.cores={CORES}", "arch.name=privring", "run.duration_ms=1",
        "run.warmup_ms=0"]), progress=False)
    assert [c["offered"] for c in r.metrics["per_core"]] == expected[0]


def emu_run(*sets: str):
    p = run_cli("emu", "--json", "--set", "emu.source=pcap", "--set", f"system.cores={CORES}",
                "--set", "run.duration_ms=200", *[a for s in sets for a in ("--set", s)])
    if p.returncode == 1 and "rte_eal_init failed" in p.stderr:
        pytest.skip(f"DPDK EAL cannot start here: {p.stderr.strip().splitlines()[-1]}")
    return p


@pytest.mark.skipif(EMU is None, reason="rxb-emu is not built (set RXB_EMU_BIN)")
@pytest.mark.parametrize("fmt", FORMATS)
def test_emulator_steers_every_format_alike(tmp_path, fmt, expected):
    p = emu_run(f"traffic.pcap={write(tmp_path, fmt)}")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)["metrics"]
    assert m["offered_packets"] == len(corpus())
    assert [q["offered"] for q in m["per_ring"]] == expected[0]


# ---- bad files: one line naming the file and what is wrong, in every consumer -------------

def bad_files(tmp_path) -> dict:
    frames = [fr for fr, _ in corpus()[:3]]
    good = tmp_path / "good.pcap"
    write_pcap(good, frames, nsec=False, order="<")
    data = good.read_bytes()
    (tmp_path / "truncated.pcap").write_bytes(data[:-5])
    (tmp_path / "magic.pcap").write_bytes(b"\x01\x02\x03\x04" + data[4:])
    write_pcap(tmp_path / "wifi.pcap", frames, nsec=False, order="<", linktype=105)
    return {"truncated": (tmp_path / "truncated.pcap", "truncat"),
            "magic": (tmp_path / "magic.pcap", "magic"),
            "linktype": (tmp_path / "wifi.pcap", "link type 105")}


BAD = ("truncated", "magic", "linktype")


def one_line(msg: str, path, what: str) -> None:
    assert "Traceback" not in msg
    assert str(path.name) in msg and what in msg, msg


@pytest.mark.parametrize("bad", BAD)
def test_trace_stats_refuses_bad_files(tmp_path, bad):
    path, what = bad_files(tmp_path)[bad]
    p = run_cli("trace", "stats", str(path))
    assert p.returncode != 0
    one_line(p.stderr.strip(), path, what)
    assert len(p.stderr.strip().splitlines()) == 1


@needs_engine
@pytest.mark.parametrize("bad", BAD)
def test_simulator_refuses_bad_files(tmp_path, bad):
    path, what = bad_files(tmp_path)[bad]
    data = path.read_bytes()
    # the front end checks the file header (tests/python/test_errors.py); the engine must
    # still refuse a file that went bad after that check
    path.write_bytes((tmp_path / "good.pcap").read_bytes())
    res = scenario.load_resolved(None, [
        "traffic.pattern=trace", f"traffic.pcap={path}", "system.nics=1",
        f"system.cores={CORES}", "run.duration_ms=1", "run.warmup_ms=0"])
    path.write_bytes(data)
    with pytest.raises(EngineError) as e:
        engine.run(res, progress=False)
    one_line(str(e.value), path, what)


@pytest.mark.skipif(EMU is None, reason="rxb-emu is not built (set RXB_EMU_BIN)")
@pytest.mark.parametrize("bad", BAD)
def test_emulator_refuses_bad_files(tmp_path, bad):
    path, what = bad_files(tmp_path)[bad]
    p = emu_run(f"traffic.pcap={path}")
    assert p.returncode != 0
    errors = [ln for ln in p.stderr.splitlines() if "warning" not in ln and "note" not in ln]
    assert len(errors) == 1, p.stderr
    one_line(errors[0], path, what)
