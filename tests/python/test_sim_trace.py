"""Trace replay in the real engine: packets steered by the hash a NIC computes (IPv6 over
its full addresses), replay scaled to a chosen rate, and looping of a short capture.

The expected cores come from an independent Toeplitz (bit by bit, the Microsoft
specification's definition) over the standard input, and the default round-robin RETA.
"""

import struct

import pytest

from conftest import needs_engine
from rxbisect.engines import engine
from rxbisect.errors import EngineError
from rxbisect.vocab import profile, scenario

pytestmark = needs_engine

MS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
                       "6a42b73bbeac01fa")
FRAME = 1518


def toeplitz(data: bytes, key: bytes = MS_KEY) -> int:
    k, kbits, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (kbits - 32 - i)) & 0xFFFFFFFF
    return h


def test_toeplitz_matches_a_published_ipv6_vector():
    """The oracle itself: Microsoft's IPv6/TCP vector (3ffe:2501:200:1fff::7:2794 ->
    3ffe:2501:200:3::1:1766 hashes to 0x40207d3d)."""
    src = bytes.fromhex("3ffe2501 02001fff 00000000 00000007".replace(" ", ""))
    dst = bytes.fromhex("3ffe2501 02000003 00000000 00000001".replace(" ", ""))
    assert toeplitz(src + dst + struct.pack("!HH", 2794, 1766)) == 0x40207d3d


def ipv6_tcp_frame(i: int) -> tuple[bytes, bytes]:
    """Frame i (a flow of its own) and the NIC's RSS input for it."""
    src = bytes.fromhex("20010db8") + struct.pack("!IQ", i * 7919, 0x1000 + i)
    dst = bytes.fromhex("fd000000") + struct.pack("!IQ", 0xabcdef, i * 104729)
    ports = struct.pack("!HH", 1024 + i % 50000, 443)
    tcp = ports + bytes(16)
    payload = bytes(FRAME - 4 - 14 - 40 - len(tcp))
    ip6 = struct.pack("!IHBB", 6 << 28, len(tcp) + len(payload), 6, 64) + src + dst
    eth = bytes.fromhex("020000000002 020000000001 86dd".replace(" ", ""))
    return eth + ip6 + tcp + payload, src + dst + ports


def write_pcap(path, frames, gap_ns: int) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1))
        for n, frame in enumerate(frames):
            t = n * gap_ns
            cap = frame[:128]
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(cap), len(frame)))
            f.write(cap)


def run(*sets):
    r = engine.run(scenario.load_resolved(None, sets), progress=False)
    assert r.metrics["conservation"] == {"packets_ok": True, "buffers_ok": True}
    return r.metrics


def test_ipv6_trace_packets_land_on_the_core_the_nic_picks(tmp_path):
    cores, flows = 4, 400
    frames, inputs = zip(*(ipv6_tcp_frame(i) for i in range(flows)), strict=True)
    write_pcap(tmp_path / "v6.pcap", frames, gap_ns=500)
    reta = profile.load("reference").nic.reta_size
    want = [0] * cores
    for x in inputs:  # default RETA: entry e -> queue e % cores
        want[(toeplitz(x) & (reta - 1)) % cores] += 1
    m = run("traffic.pattern=trace", f"traffic.pcap={tmp_path / 'v6.pcap'}",
            "system.nics=1", f"system.cores={cores}", "arch.name=privring",
            "run.duration_ms=1", "run.warmup_ms=0")
    got = [c["offered"] for c in m["per_core"]]
    assert got == want
    assert min(want) < max(want)  # the split is uneven: a folded hash would differ


def test_a_short_capture_loops_at_the_rate_asked_for(tmp_path):
    """50 packets 10 µs apart (1.2 Gbps, 0.5 ms) replayed at 20 Gbps per NIC on two NICs and
    looped over 4 ms: the offered load is 40 Gbps within the edge of one pass."""
    frames = [ipv6_tcp_frame(i)[0] for i in range(50)]
    write_pcap(tmp_path / "short.pcap", frames, gap_ns=10_000)
    m = run("traffic.pattern=trace", f"traffic.pcap={tmp_path / 'short.pcap'}",
            "traffic.pcap_rate_gbps=20", "traffic.pcap_loop=true", "system.nics=2",
            "run.duration_ms=4", "run.warmup_ms=0.5")
    assert m["offered_gbps"] == pytest.approx(40, rel=0.03)
    # without looping the capture is over after its 31 µs at that rate
    m = run("traffic.pattern=trace", f"traffic.pcap={tmp_path / 'short.pcap'}",
            "traffic.pcap_rate_gbps=20", "system.nics=2", "run.duration_ms=4",
            "run.warmup_ms=0.5")
    assert m["offered_packets"] == 0


def test_looping_a_single_packet_capture_is_refused(tmp_path):
    write_pcap(tmp_path / "one.pcap", [ipv6_tcp_frame(0)[0]], gap_ns=0)
    with pytest.raises(EngineError, match="looping it needs at least two packets"):
        run("traffic.pattern=trace", f"traffic.pcap={tmp_path / 'one.pcap'}",
            "traffic.pcap_loop=true", "run.duration_ms=1", "run.warmup_ms=0")


def test_a_frame_larger_than_a_buffer_is_refused(tmp_path):
    """A 9018 B jumbo frame (FCS included) in 2 KiB buffers: the NIC wrote it over the next
    buffers' lines, silently. Bigger buffers take it."""
    small = ipv6_tcp_frame(0)[0]
    jumbo = small + bytes(9014 - len(small))
    write_pcap(tmp_path / "jumbo.pcap", [small, jumbo, small], gap_ns=1000)
    trace = ("traffic.pattern=trace", f"traffic.pcap={tmp_path / 'jumbo.pcap'}",
             "run.duration_ms=1", "run.warmup_ms=0")
    with pytest.raises(EngineError, match="a 9018-byte frame .FCS included. does not fit a "
                       "buffer of arch.buffer_bytes = 2048"):
        run(*trace)
    assert run(*trace, "arch.buffer_bytes=10240")["offered_packets"] == 3


def ecmp_port(h: int, n: int) -> int:
    """The NIC an upstream switch sends a packet of RSS hash h to (rxb_ecmp_port, rss.h)."""
    m = 0xFFFFFFFF
    h ^= h >> 16
    h = h * 0x85EBCA6B & m
    h ^= h >> 13
    h = h * 0xC2B2AE35 & m
    h ^= h >> 16
    return h * n >> 32


def test_a_nic_whose_link_the_trace_oversubscribes_delays_only_its_own_packets(tmp_path):
    """Nine flows in ten go to NIC 0: at 60 Gbps per NIC it is offered 108 Gbps on a 100 G link,
    and its link delays its packets more and more. NIC 1's 12 Gbps must not feel it. Once the
    whole trace was one stream: NIC 0's late packets moved the event clock ahead and NIC 1's
    then came before it, so its reads queued behind later ones and (rxBisect) its cores
    received nothing."""
    frames = {0: [], 1: []}
    i = 0
    while len(frames[0]) < 360 or len(frames[1]) < 40:
        frame, rss_input = ipv6_tcp_frame(i)
        frames[ecmp_port(toeplitz(rss_input), 2)].append(frame)
        i += 1
    mixed = [f for k in range(40) for f in frames[0][9 * k:9 * k + 9] + [frames[1][k]]]
    write_pcap(tmp_path / "uneven.pcap", mixed, gap_ns=1000)
    m = run("traffic.pattern=trace", f"traffic.pcap={tmp_path / 'uneven.pcap'}",
            "traffic.pcap_rate_gbps=60", "traffic.pcap_loop=true", "system.nics=2",
            "system.cores=8", "arch.name=rxbisect", "run.duration_ms=3", "run.warmup_ms=1")
    assert m["time_order"] == {"events_late": 0, "dma_reads_late": 0}
    nic1 = [c for c in m["per_core"] if c["nic"] == 1]
    offered, delivered = (sum(c[k] for c in nic1) for k in ("offered", "delivered"))
    assert offered > 0 and delivered >= 0.99 * offered
    assert m["pcie"][1]["dma_read_latency_ns_mean"] < 2000


def test_a_nic_that_no_flow_of_a_looped_trace_goes_to_gets_nothing(tmp_path):
    """One flow, looped, on two NICs: the NIC its ECMP port is not reads the capture to the
    run's end and stops (it read it for ever: a hung run)."""
    frame, rss_input = ipv6_tcp_frame(0)
    write_pcap(tmp_path / "one-flow.pcap", [frame] * 50, gap_ns=1000)
    r = engine.run(scenario.load_resolved(None, (
        "traffic.pattern=trace", f"traffic.pcap={tmp_path / 'one-flow.pcap'}",
        "traffic.pcap_rate_gbps=10", "traffic.pcap_loop=true", "system.nics=2",
        "system.cores=2", "run.duration_ms=2", "run.warmup_ms=0.5")), progress=False, timeout=60)
    per_nic = [sum(c["offered"] for c in r.metrics["per_core"] if c["nic"] == i) for i in (0, 1)]
    assert per_nic[ecmp_port(toeplitz(rss_input), 2)] > 0
    assert per_nic[1 - ecmp_port(toeplitz(rss_input), 2)] == 0
