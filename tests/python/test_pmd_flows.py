"""The flows a net_null wire carries (docs/pmd.md, "The wire").

net_null writes no bytes; the driver's NIC writes every frame it takes from
such a wire as the next of `flows` UDP flows. So the spread over the Rx
queues is the Toeplitz hash's (the library's reference, lib/rss.c; checked
against this file's own Toeplitz by test_pmd.py's pcap test) over those
flows, not an artefact of which wire buffers come round again.
"""
from __future__ import annotations

import collections
import math
import os
import re
import struct

import pytest

from test_pmd import MS_KEY, read_pcap, toeplitz, write_pcap
from testpmd import TESTPMD, TestPmd, pmd_so, queue_sum

pytestmark = pytest.mark.skipif(not pmd_so().exists() or not os.path.exists(TESTPMD),
                                reason="net_rxbisect or dpdk-testpmd not built/installed")

RETA_SIZE = 128  # the driver's default RETA, filled round-robin over the queues
LCORES_2FWD = "0@0,1@1,2@1,3@0"


def reta_queue(h: int, nq: int) -> int:
    return (h & (RETA_SIZE - 1)) % nq


def offered_after_stop(t: TestPmd, nq: int, want: int) -> dict[str, int]:
    t.wait_xstat(lambda x: queue_sum(x, "offered", nq) >= want, f"{want} frames offered")
    t.cmd("stop")
    t.cmd(f"port stop {t.port}")  # the NIC quiesced: the counters hold still
    return t.xstats()


@pytest.mark.parametrize("nq", [2, 4])
def test_many_flows_spread_evenly(nq):
    flows = 1024  # as many as the default
    with TestPmd(f"port=net_null0,iface=rxbisect,flows={flows}",
                 ["--nb-cores=2", f"--rxq={nq}", f"--txq={nq}"], lcores=LCORES_2FWD,
                 service="3") as t:
        assert t.started, t.log[-3000:]
        t.cmd("start")
        xs = offered_after_stop(t, nq, 50 * flows)
        total = queue_sum(xs, "offered", nq)
        # Each flow gets as many frames as any other (+-1: they come in
        # turn), and the hash sends a flow to a queue with probability 1/nq,
        # independently (random 5-tuples): a queue's share is its flow
        # count over `flows`, binomial, with this standard deviation. Five
        # of them: a fixed flow set that misses it is a broken spread.
        p = 1 / nq
        tol = 5 * math.sqrt(p * (1 - p) / flows)
        shares = [xs[f"rx_q{q}_offered"] / total for q in range(nq)]
        assert all(abs(s - p) <= tol for s in shares), (shares, tol)
        t.cmd(f"port start {t.port}")
        t.quit()


def pcap_port(tmp_path, nq: int) -> str:
    """A second testpmd port that writes what it is sent, one file per queue
    (its Rx queues read an empty trace)."""
    empty = tmp_path / "empty.pcap"
    write_pcap(empty, [])
    rx = ",".join(f"rx_pcap={empty}" for _ in range(nq))
    tx = ",".join(f"tx_pcap={tmp_path / f'q{q}.pcap'}" for q in range(nq))
    return f"net_pcap1,{rx},{tx}"


def tuple_of(frame: bytes) -> tuple[bytes, bytes]:
    """(source and destination IPv4 addresses, UDP ports)."""
    return frame[26:34], frame[34:38]


def ipv4_header_ok(frame: bytes) -> bool:
    words = struct.unpack("!10H", frame[14:34])
    s = sum(words)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


# --rss-udp: the NIC hashes addresses and ports, with the flows' hashes it
# precomputed for that choice
@pytest.mark.parametrize("nq,rss", [(2, "ip"), (4, "ip"), (4, "udp")])
def test_few_flows_land_where_the_hash_says(tmp_path, nq, rss):
    flows = 8
    # io forwarding: Rx queue q of net_rxbisect0 goes to Tx queue q of the
    # pcap port, so file q holds what queue q received
    with TestPmd(f"port=net_null0,iface=rxbisect,flows={flows}",
                 ["--nb-cores=2", f"--rxq={nq}", f"--txq={nq}", "--no-flush-rx", f"--rss-{rss}"],
                 lcores=LCORES_2FWD, service="3", pre_vdevs=[pcap_port(tmp_path, nq)]) as t:
        assert t.started, t.log[-3000:]
        out = t.cmd("show port summary all")
        t.port = int(re.search(r"^(\d+)\s+\S+\s+net_rxbisect0", out, re.M).group(1))
        t.cmd("start")
        xs = offered_after_stop(t, nq, 20000)
        assert t.quit() == 0  # closes the pcap port: its files are complete
    received = {q: read_pcap(tmp_path / f"q{q}.pcap") for q in range(nq)}
    # the wire carried exactly `flows` distinct 5-tuples, in valid frames
    seen = {tuple_of(f) for fs in received.values() for f in fs}
    assert len(seen) == flows
    assert all(ipv4_header_ok(f) for fs in received.values() for f in fs[:100])
    # every frame a queue received is one the hash and the RETA send there
    hashed = (lambda tu: tu[0]) if rss == "ip" else (lambda tu: tu[0] + tu[1])
    queue_of = {tu: reta_queue(toeplitz(MS_KEY, hashed(tu)), nq) for tu in seen}
    for q, fs in received.items():
        assert len(fs) == xs[f"rx_q{q}_received"]
        assert {queue_of[tuple_of(f)] for f in fs} <= {q}, q
    # the NIC offered each queue its flows' share: flows come in turn, so
    # each flow had total/flows frames, +-1
    total = queue_sum(xs, "offered", nq)
    per_queue = collections.Counter(queue_of.values())
    for q in range(nq):
        assert abs(xs[f"rx_q{q}_offered"] - total * per_queue[q] / flows) <= per_queue[q], \
            (q, xs[f"rx_q{q}_offered"], total, per_queue)


# The NIC makes each net_null frame itself, in the buffer: of the length the
# wire's frames have (its `size` devarg), or none when the wire makes none
# (`no-rx`), as one frame taken from the wire at start tells.
def test_null_frames_take_the_wire_length(tmp_path):
    nq = 2
    with TestPmd("port=net_null0,iface=privring,flows=8",
                 ["--nb-cores=2", f"--rxq={nq}", f"--txq={nq}", "--no-flush-rx"],
                 lcores=LCORES_2FWD, service="3",
                 pre_vdevs=["net_null0,size=200", pcap_port(tmp_path, nq)]) as t:
        assert t.started, t.log[-3000:]
        out = t.cmd("show port summary all")
        t.port = int(re.search(r"^(\d+)\s+\S+\s+net_rxbisect0", out, re.M).group(1))
        t.cmd("start")
        xs = offered_after_stop(t, nq, 5000)
        assert xs["rx_wire_bytes"] == 200 * xs["rx_wire_packets"]
        assert t.quit() == 0
    received = [f for q in range(nq) for f in read_pcap(tmp_path / f"q{q}.pcap")]
    assert len(received) == queue_sum(xs, "received", nq) > 0
    assert {len(f) for f in received} == {200}
    assert all(ipv4_header_ok(f) for f in received[:100])


def test_null_wire_without_frames_carries_none():
    with TestPmd("port=net_null0,iface=privring", ["--nb-cores=1", "--rxq=1", "--txq=1"],
                 lcores=LCORES_2FWD, service="3", pre_vdevs=["net_null0,no-rx=1"]) as t:
        assert t.started, t.log[-3000:]
        t.cmd("start")
        xs = t.wait_xstat(lambda x: x["rx_nic_idle_polls"] >= 10000, "the NIC polling")
        assert xs["rx_wire_packets"] == 0 and xs["rx_q0_received"] == 0
        t.cmd("stop")
        t.quit()
