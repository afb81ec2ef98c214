"""The NIC's DMA read engines and the transmit path in the real engine (docs/calibration.md:
"NIC DMA reads", "Transmit"): read latency follows where the data is and how loaded DRAM is,
a bounded number of reads in flight saturates and makes the NIC fall behind, and a buffer
returns to the pool only after its transmit completion."""

import re

from conftest import needs_engine
from rxbisect.engines import engine
from rxbisect.vocab import profile, scenario

pytestmark = needs_engine
# light costs: the cores keep up, so what moves is the NIC (the study's fitted costs put them
# at their budget)
SHORT = ("run.duration_ms=4", "run.warmup_ms=1", "arch.name=privring", "workload.costs=light")


def run(*sets):
    m = engine.run(scenario.load_resolved(None, SHORT + sets), progress=False).metrics
    assert m["conservation"] == {"packets_ok": True, "buffers_ok": True}
    return m


def profile_with(tmp_path, **changes) -> str:
    """The reference profile with some `key = value` lines changed, as a file."""
    text = profile.locate("reference").read_text()
    for k, v in changes.items():
        text, n = re.subn(rf"^{k} = \S+", f"{k} = {v}", text, flags=re.M)
        assert n == 1, k
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "p.toml"
    path.write_text(text)
    return f"system.profile={path}"


def test_read_latency_rises_with_llc_misses_and_loaded_dram():
    """With DDIO the NIC's transmit reads find the frames it wrote a few microseconds before
    in the LLC (or a core's L2); with DDIO off every DMA write went to DRAM, so the reads
    miss; STREAM hogs then load DRAM on top."""
    half = ("system.cores=8", "traffic.rate_gbps=50")  # 8 cores of the socket left for hogs
    cached, missed = run(*half), run(*half, "system.ddio_ways=0")
    loaded = run(*half, "system.ddio_ways=0", "system.hog=stream", "system.hog_instances=8")
    assert cached["nic_pcie_llc_miss_share"] < 0.6 < 0.9 < missed["nic_pcie_llc_miss_share"]
    lat = [m["nic_dma_read_latency_ns_mean"] for m in (cached, missed, loaded)]
    assert lat[0] < lat[1] < lat[2]
    assert loaded["dram_latency_ns_mean"] > 2 * missed["dram_latency_ns_mean"]
    # every read at least the PCIe round trip of its size (pcie-bench's warm-cache line)
    assert lat[0] >= 526.7


def test_saturated_read_engines_make_the_nic_fall_behind(tmp_path):
    """Two reads in flight cannot carry 100 Gbps of 512 B transmit reads at ~0.7-1 µs each:
    reads wait for a slot, the descriptor fetches behind them too, the Rx pipeline stalls and
    the on-NIC buffer overflows. The reference's 32 slots do not."""
    ok = run("system.nics=1", "system.cores=8")
    few = run("system.nics=1", "system.cores=8", profile_with(tmp_path, dma_read_slots=2))
    assert ok["drops_by_cause"]["pipeline"] == 0
    assert few["drops_by_cause"]["pipeline"] > 0.1 * few["offered_packets"]
    assert few["nic_dma_read_latency_ns_mean"] > 3 * ok["nic_dma_read_latency_ns_mean"]


def test_buffers_stay_out_of_the_pool_until_their_transmit_completes(tmp_path):
    """Little's law on each core's Tx ring: a buffer leaves it no earlier than its transmit
    completion (the NIC's read of the frame + the completion's DMA write latency), so the
    ring holds at least packet rate x that time — here with reads 20 µs slower, whose
    difference alone is ~10 buffers a core. (Descriptors are fetched 512 at a time so the
    slow reads do not starve reception.) A Tx ring too small for that makes the core wait."""
    base = ("system.nics=1", "system.cores=8", "traffic.rate_gbps=50")
    slow_reads = dict(dma_read_ns=20526.7, dma_read_slots=4096, desc_prefetch=512)
    fast = run(*base, profile_with(tmp_path / "fast", desc_prefetch=512))
    slow = run(*base, profile_with(tmp_path / "slow", **slow_reads))
    dma_write_ns = profile.load("reference").pcie.dma_write_ns  # the profiles keep it
    for m in (fast, slow):
        pps = m["throughput_mpps"] * 1e6 / 8
        held = pps * (m["nic_dma_read_latency_ns_mean"] + dma_write_ns) * 1e-9
        assert min(c["tx_ring_mean"] for c in m["per_core"]) >= held
    pps = slow["throughput_mpps"] * 1e6 / 8
    more = (slow["nic_dma_read_latency_ns_mean"] - fast["nic_dma_read_latency_ns_mean"]) * 1e-9
    grew = [b["tx_ring_mean"] - a["tx_ring_mean"] for a, b in zip(fast["per_core"],
                                                                   slow["per_core"], strict=True)]
    assert min(grew) >= 0.8 * pps * more
    assert sum(c["tx_full_waits"] for c in slow["per_core"]) == 0  # 1 Ki entries suffice
    # 200 µs reads: ~100 buffers a core in flight, more than a 64-entry ring
    tiny_ring = run(*base, "arch.tx_size=64",
                    profile_with(tmp_path / "tiny", **{**slow_reads, "dma_read_ns": 200526.7}))
    assert sum(c["tx_full_waits"] for c in tiny_ring["per_core"]) > 0


def desc_wait_ns(arch: str, *sets: str) -> float:
    return engine.run(scenario.load_resolved("reference", (f"arch.name={arch}", "run.duration_ms=3",
                                                          "run.warmup_ms=1") + sets),
                      progress=False).metrics["nic_desc_wait_ns_mean"]


def test_descriptors_are_fetched_one_batch_ahead(tmp_path):
    """The NIC requests a ring's next batch of descriptors when it starts taking from the
    current one, so a packet waits for its descriptor only when a batch goes faster than a
    read. At the reference load a private ring takes a batch of 8 in ~4 µs, a shared ring of 8
    cores in ~0.5 µs, and a read takes ~0.55 µs: neither waits (fetched only once a batch had
    started, a private ring's packets waited ~400 ns; with reads issued out of time order a
    shared ring's waited ~310 ns). With reads of ~2.1 µs (slots enough that they never queue)
    the shared ring waits and the private one still does not."""
    fast = profile.load("reference").pcie.dma_read_ns
    assert desc_wait_ns("privring") < 0.05 * fast
    assert desc_wait_ns("shring") < 0.05 * fast
    slow = 4 * fast
    reads = profile_with(tmp_path, dma_read_ns=slow, dma_read_slots=4096)
    assert desc_wait_ns("privring", reads) < 0.05 * slow
    assert desc_wait_ns("shring", reads) > 0.3 * slow
