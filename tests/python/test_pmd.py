"""net_rxbisect under Debian's unmodified dpdk-testpmd (docs/pmd.md).

Every interface over net_null and net_ring, several queues on 2 CPUs with
--lcores, the NIC on a service lcore (or a dedicated one); forwarded counts,
xstats, packet conservation and every mbuf back at close; net_pcap output
compared with its input; restart; the faults; devarg errors; RSS and RETA.
With RXB_PMD_BUILD=build-asan RXB_PMD_ASAN=1 the same tests run the
AddressSanitizer build of the driver.
"""
from __future__ import annotations

import json
import os
import re
import socket
import struct

import pytest

from testpmd import TESTPMD, TestPmd, census_lines, conservation_errors, pmd_so, queue_sum

pytestmark = pytest.mark.skipif(not pmd_so().exists() or not os.path.exists(TESTPMD),
                                reason="net_rxbisect or dpdk-testpmd not built/installed")

IFACES = ["privring", "small_privring", "shring", "shring_list", "dyn_shring", "rxbisect"]
# 2 forwarding lcores on CPU 1 (mapped onto one CPU: correctness, not speed), the
# NIC service on CPU 0 beside the mostly idle main lcore.
LCORES_2FWD = "0@0,1@1,2@1,3@0"


def share_args(iface: str, nq: int) -> str:
    return f",share={nq}" if iface in ("shring", "shring_list", "dyn_shring") else ""


def forward_totals(out: str) -> tuple[int, int, int]:
    """RX-packets, TX-packets, TX-dropped of testpmd's accumulated statistics."""
    acc = out[out.index("Accumulated forward statistics"):]
    rx = int(re.search(r"RX-packets: (\d+)", acc).group(1))
    tx = int(re.search(r"TX-packets: (\d+)", acc).group(1))
    txd = int(re.search(r"TX-dropped: (\d+)", acc).group(1))
    return rx, tx, txd


def close_and_quit(t: TestPmd) -> None:
    t.cmd(f"port stop {t.port}")
    assert census_lines(t.log), t.log[-3000:]
    t.cmd(f"port close {t.port}")
    assert re.search(r"net_rxbisect: net_rxbisect0: mempool \S+: all \d+ mbufs back", t.log), \
        t.log[-2000:]
    assert t.quit() == 0
    assert "not back at close" not in t.log
    assert "AddressSanitizer" not in t.log and "runtime error" not in t.log


def run_forwarding(iface: str, wire: str, mode: str, nq: int) -> None:
    ring = wire == "net_ring0"
    app = [f"--forward-mode={mode}", f"--rxq={nq}", f"--txq={nq}", f"--nb-cores={min(nq, 2)}"]
    if ring:
        app.append("--txonly-multi-flow")
    with TestPmd(f"port={wire},iface={iface}{share_args(iface, nq)}", app,
                 lcores=LCORES_2FWD, service="3") as t:
        assert t.started, t.log[-3000:]
        t.cmd("start tx_first 8" if ring else "start")
        want = 300 if ring else 5000
        t.wait_xstat(lambda x: queue_sum(x, "received", nq) >= want, f"{want} packets received")
        rx, tx, txd = forward_totals(t.cmd("stop"))
        t.cmd(f"port stop {t.port}")
        xs = t.xstats()
        assert conservation_errors(xs, nq) == []
        # testpmd forwarded what the design handed out, less what it flushed
        # from the queues at "start" (flush_fwd_rx_queues)
        assert 0 < rx <= queue_sum(xs, "received", nq)
        # tx_first: 8 bursts of 32 per stream (one per queue) added to the loop
        assert tx + txd == rx + (8 * 32 * nq if ring else 0) and tx > 0
        if not ring:  # 1024 flows from net_null: RSS reaches every queue
            assert all(xs[f"rx_q{q}_received"] > 0 for q in range(nq)), xs
        # start again on the same port: a new design, counters from zero
        t.cmd(f"port start {t.port}")
        t.cmd("start tx_first 8" if ring else "start")
        t.wait_xstat(lambda x: queue_sum(x, "received", nq) >= want, "traffic after restart")
        t.cmd("stop")
        close_and_quit(t)


@pytest.mark.parametrize("iface", IFACES)
def test_io_over_null_four_queues(iface):
    run_forwarding(iface, "net_null0", "io", 4)


@pytest.mark.parametrize("iface", IFACES)
def test_macswap_over_ring_two_queues(iface):
    run_forwarding(iface, "net_ring0", "macswap", 2)


def test_nic_on_a_dedicated_thread():
    with TestPmd("port=net_null0,iface=rxbisect,nic_cpu=0", ["--nb-cores=1"],
                 lcores="0@0,1@1", service=None) as t:
        assert t.started, t.log[-3000:]
        t.cmd("start")
        t.wait_xstat(lambda x: x["rx_q0_received"] >= 2000, "packets on queue 0")
        t.cmd("stop")
        close_and_quit(t)


# ---------------------------------------------------------------- net_pcap

def toeplitz(key: bytes, data: bytes) -> int:
    k = int.from_bytes(key, "big")
    kbits = len(key) * 8
    h = 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (kbits - 32 - i)) & 0xFFFFFFFF
    return h


MS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
                       "6a42b73bbeac01fa")


def udp_frame(i: int, payload_words: int = 8) -> tuple[bytes, int]:
    sip, dip = bytes([10, 0, i >> 8 & 255, i & 255]), bytes([192, 168, 1, i % 7])
    sport, dport = 1024 + i, 53 + i % 3
    payload = struct.pack("!I", i) * payload_words
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i & 0xFFFF, 0, 64, 17, 0, sip, dip)
    eth = bytes.fromhex("020000000001020000000002") + b"\x08\x00"
    h = toeplitz(MS_KEY, sip + dip + struct.pack("!HH", sport, dport))
    return eth + ip + udp, h


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for k, fr in enumerate(frames):
            f.write(struct.pack("<IIII", k, 0, len(fr), len(fr)) + fr)


def read_pcap(path):
    data = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(data):
        n = struct.unpack_from("<IIII", data, off)[2]
        out.append(data[off + 16:off + 16 + n])
        off += 16 + n
    return out


# Jumbo: frames of 3 KiB into the application's 4 KiB mbufs, each copied whole
# from the wire's mbufs that hold it.
@pytest.mark.parametrize("iface,payload_words,mbuf_size", [("privring", 8, None),
                                                           ("rxbisect", 8, None),
                                                           ("rxbisect", 750, 4096)])
def test_pcap_out_equals_in(tmp_path, iface, payload_words, mbuf_size):
    n, nq = 300, 2
    frames = [udp_frame(i, payload_words) for i in range(n)]
    write_pcap(tmp_path / "in.pcap", [f for f, _ in frames])
    pre = [f"net_pcap0,rx_pcap={tmp_path / 'in.pcap'},tx_pcap={tmp_path / 'out.pcap'}"]
    # rings deep enough that a burst of the whole trace is not dropped; the
    # trace arrives at port start: testpmd must not flush it at "start"
    sizes = "rx=1024,ax=512,bx=1024"
    mbufs = [f"--mbuf-size={mbuf_size}", "--max-pkt-len=4000"] if mbuf_size else []
    with TestPmd(f"port=net_pcap0,iface={iface},{sizes}", ["--nb-cores=2", f"--rxq={nq}",
                 f"--txq={nq}", "--rss-udp", "--no-flush-rx", *mbufs], lcores=LCORES_2FWD,
                 service="3", pre_vdevs=pre) as t:
        assert t.started, t.log[-3000:]
        t.cmd("set verbose 1")
        t.send("start")
        # the forwarding lcores print each packet, into the prompt too: wait
        # for all of them, then stop
        assert t.wait_output(r"RSS hash=0x", n) == n, t.log[-3000:]
        t.cmd("stop")
        close_and_quit(t)
        # every packet's RSS hash is the NIC's Toeplitz, and its queue the RETA's
        seen = re.findall(r"RSS hash=0x([0-9a-f]+) - RSS queue=0x([0-9a-f]+)", t.log)
        assert len(seen) == n
        expected = {h for _, h in frames}
        for h, q in seen:
            assert int(h, 16) in expected
            assert int(q, 16) == (int(h, 16) & 127) % nq
    assert sorted(read_pcap(tmp_path / "out.pcap")) == sorted(f for f, _ in frames)


# ---------------------------------------------------------------- faults

@pytest.mark.parametrize("iface,cause", [("rxbisect", "drops_no_bx_slot"),
                                         ("privring", "drops_no_rx_desc")])
def test_stalled_queue(iface, cause):
    with TestPmd(f"port=net_null0,iface={iface},fault_stall=1@0",
                 ["--nb-cores=2", "--rxq=2", "--txq=2"], lcores=LCORES_2FWD, service="3") as t:
        assert t.started, t.log[-3000:]
        t.cmd("start")
        xs = t.wait_xstat(lambda x: x["rx_q0_received"] >= 20000 and x[f"rx_q1_{cause}"] > 0,
                          "queue 0 progressing while queue 1 drops")
        assert xs["rx_q1_received"] == 0 and xs["rx_q1_stalled_polls"] > 0
        t.cmd("stop")
        t.cmd(f"port stop {t.port}")
        assert conservation_errors(t.xstats(), 2) == []
        close_and_quit(t)


def test_mempool_exhaustion():
    # rxBisect primes 2 x 512 Ax slots from a pool of 1100 (testpmd's least
    # is 1025): refills fail whenever the core falls behind, and reception
    # must go on at what it frees. One flow, so queue 0 takes all the
    # traffic; it stalls for 300 ms (fault_stall) so that the core falls
    # behind for sure: the NIC fills Bx 0 with what Ax 0 held meanwhile, and
    # catching up, the core re-arms faster than its transmit frees. (Left to
    # timing alone, a core that kept ahead of the NIC under TSan saw no
    # failure in 60 s.)
    with TestPmd("port=net_null0,iface=rxbisect,ax=512,flows=1,fault_stall=0@50+300",
                 ["--nb-cores=1", "--rxq=2", "--txq=2", "--total-num-mbufs=1100",
                  "--mbcache=0"]) as t:
        assert t.started, t.log[-3000:]
        t.cmd("start")
        assert "the rings can take the whole pool" in t.log
        xs = t.wait_xstat(lambda x: x["rx_mbuf_allocation_errors"] > 0, "allocation failures")
        # (an empty pool makes receive drop the head packet to re-arm: counted)
        t.wait_xstat(lambda x: queue_sum(x, "received", 2) > queue_sum(xs, "received", 2) + 5000
                     and x["rx_q0_stalled_polls"] > 0, "reception going on after them")
        t.cmd("stop")
        t.cmd(f"port stop {t.port}")
        xs = t.xstats()
        assert conservation_errors(xs, 2) == []
        close_and_quit(t)


def test_mempool_too_small_to_start():
    # 2 x 1024 Ax slots to prime from a pool of 1100
    with TestPmd("port=net_null0,iface=rxbisect,ax=1024", ["--nb-cores=1", "--rxq=2",
                 "--txq=2", "--total-num-mbufs=1100", "--mbcache=0"]) as t:
        assert "mempools cannot fill the design's rings" in t.log
        assert "Fail to start port 0" in t.log
        assert t.quit() == 0


def test_stop_start_close_while_wire_delivers():
    with TestPmd("port=net_null0,iface=shring,share=2", ["--nb-cores=2", "--rxq=2", "--txq=2"],
                 lcores=LCORES_2FWD, service="3") as t:
        assert t.started, t.log[-3000:]
        for _ in range(3):
            t.cmd("start")
            t.wait_xstat(lambda x: queue_sum(x, "received", 2) > 2000, "traffic")
            t.cmd("stop")
            # the NIC still receives from the wire here: stop it mid-flow
            t.cmd(f"port stop {t.port}")
            assert conservation_errors(t.xstats(), 2) == []
            t.cmd(f"port start {t.port}")
        close_and_quit(t)


STEPS = ["receive", "classify", "deliver", "free"]


@pytest.mark.parametrize("wire", ["net_null0", "net_ring0"])
def test_nic_thread_cost_is_split_into_its_steps(wire):
    """The NIC thread's cycles in its full passes, and in each step of them (docs/pmd.md):
    every step it runs costs cycles, the steps fit in the passes they were timed in, and a
    net_null wire (the NIC makes each frame in the buffer) has no receive nor free."""
    ring = wire == "net_ring0"
    app = ["--nb-cores=1"] + (["--txonly-multi-flow"] if ring else [])
    with TestPmd(f"port={wire},iface=privring", app) as t:
        assert t.started, t.log[-3000:]
        t.cmd("start tx_first 8" if ring else "start")
        xs = t.wait_xstat(lambda x: x["rx_nic_full_pass_packets"] > 2000, "full passes")
        t.cmd("stop")
        step = {s: xs[f"rx_nic_step_cycles_{s}"] for s in STEPS}
        assert step["classify"] > 0 and step["deliver"] > 0, step
        assert (step["receive"] > 0 and step["free"] > 0) if ring else \
            (step["receive"] == 0 and step["free"] == 0), step
        assert 0 < sum(step.values()) <= xs["rx_nic_full_pass_cycles"], (step, xs)
        assert xs["rx_nic_full_pass_packets"] <= xs["rx_wire_packets"]
        close_and_quit(t)


def test_wire_goes_down_and_up():
    with TestPmd("port=net_ring0,iface=rxbisect,fault_link_down=300+500",
                 ["--nb-cores=1", "--txonly-multi-flow"]) as t:
        assert t.started, t.log[-3000:]
        t.cmd("start tx_first 4")
        xs = t.wait_xstat(lambda x: x["rx_wire_link_down_events"] == 1, "the link going down")
        before = xs["rx_wire_packets"]
        t.wait_xstat(lambda x: x["rx_wire_packets"] > before + 100, "traffic after link up")
        t.cmd("stop")
        assert t.link_status() == "up"
        close_and_quit(t)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("devargs,message", [
    ("iface=rxbisect", "devarg port=: missing"),
    ("port=net_null0,iface=bogus", "devarg iface=bogus: arch.name = bogus"),
    ("port=net_null0,rx=1000", "devarg rx=1000: arch.rx_size = 1000"),
    ("port=net_null0,bx=0", "devarg bx=0: arch.bx_size = 0"),
    ("port=net_null0,frobnicate=1", "devarg frobnicate=1: unknown devarg"),
    ("port=nosuch0", "devarg port=nosuch0: no such ethdev"),
    ("port=net_null0,rss_key=12ab", "devarg rss_key=12ab: not 80 hex digits"),
    ("port=net_null0,reta=100", "devarg reta=100: not a RETA size"),
    ("port=net_null0,fault_stall=x", "devarg fault_stall=x"),
    # a fault at NaN or infinite milliseconds would never happen
    ("port=net_null0,fault_stall=0@nan", "devarg fault_stall=0@nan"),
    ("port=net_null0,fault_stall=0@0+inf", "devarg fault_stall=0@0+inf"),
    ("port=net_null0,fault_link_down=100+1e400", "devarg fault_link_down=100+1e400"),
    # decimal only, and hex digits only in the key (strtoul took "-1" as 0xff)
    ("port=net_null0,reta=0200", "devarg reta=0200: not a RETA size"),
    ("port=net_null0,rss_key=" + "-1" * 40, "devarg rss_key=-1-1"),
    ("port=net_null0,iface=spool", "devarg iface=spool"),
])
def test_bad_devargs_one_clear_error(devargs, message):
    with TestPmd(devargs, timeout=30) as t:
        # the probe fails: testpmd goes on without the port, or exits
        rc = t.quit() if t.started else t.proc.wait(30)
        assert rc >= 0, t.log  # an exit, not a signal
        assert "No probed ethernet devices" in t.log or rc > 0
        errors = [ln for ln in t.log.splitlines() if ln.startswith("net_rxbisect:")]
        assert len(errors) == 1 and message in errors[0], t.log


def test_share_must_divide_queues():
    with TestPmd("port=net_null0,iface=shring,share=4", ["--rxq=2", "--txq=2"]) as t:
        assert ("with 2 Rx queues (system.cores = 2): arch.share_degree = 4: must divide" in t.log), t.log
        assert t.quit() == 0


# ---------------------------------------------------------------- RSS, telemetry

def test_reta_update_moves_traffic():
    with TestPmd("port=net_null0,iface=rxbisect", ["--nb-cores=2", "--rxq=2", "--txq=2"],
                 lcores=LCORES_2FWD, service="3") as t:
        assert t.started, t.log[-3000:]
        for first in range(0, 128, 12):  # testpmd takes a list of < 128 characters
            entries = ",".join(f"({i},1)" for i in range(first, min(first + 12, 128)))
            out = t.cmd(f"port config {t.port} rss reta {entries}")
            assert "error" not in out.lower() and "bad" not in out.lower(), out
        out = t.cmd(f"show port {t.port} rss reta 128 (0xffffffffffffffff,0xffffffffffffffff)")
        assert re.findall(r"RSS RETA configuration: hash index=\d+, queue=(\d+)", out) == \
            ["1"] * 128
        # the NIC has been steering since the port started: compare from now
        before = t.xstats()
        t.cmd("start")
        xs = t.wait_xstat(lambda x: x["rx_q1_received"] > before["rx_q1_received"] + 5000,
                          "queue 1 traffic")
        t.cmd("stop")
        # at most the one wire burst (PMD_WIRE_BURST, pmd/pmd.h) the NIC thread had steered
        # with the old table when the update landed may still reach queue 0 after `before`
        assert 0 <= xs["rx_q0_offered"] - before["rx_q0_offered"] <= 32, \
            (before["rx_q0_offered"], xs["rx_q0_offered"])
        close_and_quit(t)


@pytest.mark.skipif(bool(os.environ.get("RXB_PMD_TSAN")),
                    reason="DPDK's own telemetry thread closes the socket under a preloaded "
                           "ThreadSanitizer runtime; not the driver's code")
def test_telemetry_xstats():
    with TestPmd("port=net_null0,iface=rxbisect", ["--nb-cores=1"]) as t:
        assert t.started, t.log[-3000:]
        t.cmd("start")
        t.wait_xstat(lambda x: x["rx_q0_received"] > 1000, "traffic")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(f"/var/run/dpdk/{t.prefix}/dpdk_telemetry.v2")
        s.recv(4096)  # greeting
        s.send(f"/ethdev/xstats,{t.port}".encode())
        reply = json.loads(s.recv(1 << 20))["/ethdev/xstats"]
        s.close()
        assert reply["rx_q0_received"] > 1000 and "rx_q0_foreign_deliveries" in reply
        t.cmd("stop")
        close_and_quit(t)


def test_xstats_reset_bases_counts_not_occupancy():
    """After `clear port xstats` counts start again from zero, while occupancy, a level,
    still reads the entries in the ring. Nothing polls the queue, so once it drops for want
    of descriptors its ring stays full and nothing more is delivered."""
    with TestPmd("port=net_null0,iface=privring", ["--rxq=1", "--txq=1"]) as t:
        assert t.started, t.log[-3000:]
        full = t.wait_xstat(lambda x: x["rx_q0_drops_no_rx_desc"] > 0, "a full ring")
        assert full["rx_q0_occupancy"] > 0 and full["rx_q0_delivered"] > 0
        t.cmd(f"clear port xstats {t.port}")
        xs = t.xstats()
        assert xs["rx_q0_occupancy"] == full["rx_q0_occupancy"], (full, xs)
        assert xs["rx_q0_delivered"] == 0, xs
        close_and_quit(t)


def test_rss_fields_change_while_the_nic_steers():
    """rss_hf may change while the port runs: the NIC threads read the L4 choice per frame
    while the control thread writes it (a data race the TSan run of this file reports
    without the atomic flag), and traffic goes on."""
    with TestPmd("port=net_null0,iface=rxbisect", ["--nb-cores=2", "--rxq=2", "--txq=2"],
                 lcores=LCORES_2FWD, service="3") as t:
        assert t.started, t.log[-3000:]
        t.cmd("start")
        for fields in ("udp", "ip", "tcp", "ip"):
            t.cmd(f"port config all rss {fields}")
        before = t.xstats()
        xs = t.wait_xstat(lambda x: x["rx_q0_received"] + x["rx_q1_received"] >
                          before["rx_q0_received"] + before["rx_q1_received"] + 5000,
                          "traffic after the changes")
        assert xs["rx_q0_received"] > 0
        t.cmd("stop")
        close_and_quit(t)
