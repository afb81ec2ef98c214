"""The study's workloads as they ran (docs/workloads.md), end to end through the real engine.

Each test checks one property of the workload model: the generator's flows, DRAM-resident
flow state whose latency follows the memory's load, FastClick's packet layout (the second
header line, the annotation lines, partial-line DMA writes), and the stall anatomy of the
record (docs/simulator.md, "Per-packet stall anatomy"): it accounts for every nanosecond of
a core's busy time, which the engine measures apart from it. Every run also has to pass the
conservation checks of docs/interfaces.md §8.

They need the built engine and are skipped, saying so, when it is missing.
"""

import json

import pytest

from rxbisect.engines import engine
from rxbisect.errors import EngineError
from rxbisect.study import anatomy
from rxbisect.vocab import scenario

try:
    ENGINE = engine.find_engine()
except EngineError:  # pragma: no cover - depends on the build
    ENGINE = None

pytestmark = pytest.mark.skipif(ENGINE is None, reason="rxb-sim is not built (run `make build` "
                                "or set RXB_SIM_BIN)")

STUDY_FLOWS = 8_256_508  # lcm(4 128 254 sources, 4 destinations): docs/workloads.md
SHORT = ("run.duration_ms=6", "run.warmup_ms=3")
# Counts per packet: accesses are counted from the warm-up's end as they are made, packets as
# they finish, so a burst in progress at that moment skews a short run's ratio slightly.
PER_PACKET = 0.02


def sim(*sets: str) -> dict:
    """One engine run's metrics; asserts conservation and the packet balance."""
    r = engine.run(scenario.load_resolved(None, sets), progress=False)
    m = r.metrics
    assert m["conservation"] == {"packets_ok": True, "buffers_ok": True}, \
        m.get("conservation_error")
    assert m["offered_packets"] == (m["delivered_packets"] + sum(m["drops_by_cause"].values())
                                    + m["in_flight_packets"])
    return m


def comp(m: dict, name: str, cls: str = "main") -> dict | None:
    """Component `name` of core class `cls` in the record's anatomy, or None."""
    return next((c for c in m["anatomy"][cls]["components"] if c["name"] == name), None)


@pytest.fixture(scope="module")
def lb_privring():
    """The reference LB on privRing at the study's costs: DRAM busy with its I/O."""
    return sim("arch.name=privring", "workload.nf=lb", *SHORT)


@pytest.fixture(scope="module")
def lb_light_load():
    """The same NF and traffic at 10 Gbps a NIC: the memory almost idle."""
    return sim("arch.name=privring", "workload.nf=lb", "traffic.rate_gbps=10", *SHORT)


def test_flow_model_auto_resolves_alike_in_python_and_in_the_engine(lb_privring):
    """traffic.flow_model auto: the front end and the engine apply the same rule."""
    for nf, model in (("lb", "generator"), ("nat", "generator"), ("synthetic", "random")):
        res = scenario.load_resolved(None, (f"workload.nf={nf}",))
        assert res.scenario.traffic.flow_model == model
    assert lb_privring["flows_per_nic"] == [STUDY_FLOWS, STUDY_FLOWS]
    m = sim("workload.nf=synthetic", "run.duration_ms=1", "run.warmup_ms=0.5")
    assert m["flows_per_nic"] == [65536, 65536]
    m = sim("workload.nf=lb", "traffic.flow_model=random", "traffic.flows=1000",
            "run.duration_ms=1", "run.warmup_ms=0.5")
    assert m["flows_per_nic"] == [1000, 1000]


def test_flow_table_lookups_miss_the_llc_and_follow_the_dram_load(lb_privring, lb_light_load):
    """Millions of flows: >= 95 % of the hash-table bucket reads go to DRAM, and they take
    the loaded DRAM latency — longer when the memory is busier."""
    for m in (lb_privring, lb_light_load):
        b = comp(m, "flow_bucket")
        assert b["count"] == pytest.approx(1.0, rel=PER_PACKET)
        assert b["dram"] >= 0.95, b
        # the bucket's latency is the memory's mean latency (a few LLC hits aside)
        assert b["latency_ns"] == pytest.approx(m["dram_latency_ns_mean"], rel=0.1)
    assert lb_privring["mem_bw_gibps"] > 2 * lb_light_load["mem_bw_gibps"]
    assert (comp(lb_privring, "flow_bucket")["latency_ns"]
            > 1.2 * comp(lb_light_load, "flow_bucket")["latency_ns"])


def test_the_flow_lookup_is_bucket_key_block(lb_privring):
    """FlowIPManagerIMP's chain: one bucket, one key-store entry, the block's 1-2 lines;
    nat adds its port object, lb its shared backend-load line."""
    assert comp(lb_privring, "flow_key")["count"] == pytest.approx(1.0, rel=PER_PACKET)
    assert 1.0 < comp(lb_privring, "flow_block")["count"] < 2.0  # 52 B blocks straddle lines
    assert comp(lb_privring, "lb_backend_load")["ns"] > 0
    assert comp(lb_privring, "nat_port") is None
    nat = sim("workload.nf=nat", "arch.name=privring", "run.duration_ms=2", "run.warmup_ms=1")
    assert comp(nat, "nat_port")["count"] == pytest.approx(1.0, rel=PER_PACKET)
    assert comp(nat, "lb_backend_load") is None


@pytest.mark.parametrize("nf,fastclick", [("lb", True), ("nat", True), ("synthetic", True),
                                          ("l3fwd", False)])
def test_fastclick_layout_reads_the_second_header_line_and_writes_annotations(nf, fastclick):
    """FastClick's 96 B annotation area puts the frame at byte 32 of a line: its NFs read the
    second header line and write two annotation lines per packet; l3fwd does neither."""
    m = sim(f"workload.nf={nf}", "run.duration_ms=3", "run.warmup_ms=1")
    hdr2, annot = comp(m, "header_line2"), comp(m, "annotations")
    if fastclick:
        assert hdr2["count"] == pytest.approx(1.0, rel=PER_PACKET) and hdr2["ns"] > 0
        assert annot["count"] == pytest.approx(2.0, rel=PER_PACKET)
    else:
        assert hdr2 is None and annot is None
    assert comp(m, "header_line1")["count"] == pytest.approx(1.0, rel=PER_PACKET)


@pytest.mark.parametrize("nf,partial", [("lb", 2), ("l3fwd", 1)])
def test_partial_line_dma_writes_read_the_line_on_a_miss(nf, partial):
    """With DDIO off every NIC write misses the LLC: each line a frame covers only in part
    is read from DRAM first. A FastClick frame (byte 32 on) has two such lines, l3fwd's
    (aligned, 1514 B) only its last."""
    m = sim(f"workload.nf={nf}", "system.ddio_ways=0", "arch.name=shring",
            "traffic.rate_gbps=20", "run.duration_ms=2", "run.warmup_ms=1")
    written = m["delivered_packets"]  # every offered packet was written (no drops here)
    assert sum(m["drops_by_cause"].values()) == 0
    assert m["nic_partial_line_reads"] == pytest.approx(partial * written, rel=0.02)


@pytest.mark.parametrize("arch", ["privring", "small_privring", "shring", "rxbisect"])
def test_anatomy_accounts_for_the_measured_busy_time(arch):
    """The components sum to the service time, and the service time is the core's busy
    time per packet, which the engine measures apart from the anatomy."""
    m = sim(f"arch.name={arch}", *SHORT)
    assert anatomy.check_anatomy(m) == []
    for cls in m["anatomy"].values():
        total = sum(c["ns"] for c in cls["components"])
        assert total == pytest.approx(cls["service_ns"], rel=PER_PACKET)
        assert cls["service_ns"] == pytest.approx(cls["busy_ns"], rel=PER_PACKET)


def test_anatomy_names_the_target_core_class():
    """A target core (pattern target) is its own class: its extra reads show there only."""
    m = sim("workload.nf=synthetic", "traffic.pattern=target", "traffic.target_rate_gbps=1",
            "workload.target_reads=20", "run.duration_ms=2", "run.warmup_ms=1")
    assert set(m["anatomy"]) == {"main", "target"}
    assert m["anatomy"]["target"]["cores"] == 2
    assert comp(m, "target_reads", "target")["count"] == pytest.approx(20.0, rel=0.03)
    assert comp(m, "target_reads", "main") is None


def test_deterministic_with_the_study_workload():
    """Same seed, same record (millions of flows, no memo)."""
    a, b = sim("run.duration_ms=2", "run.warmup_ms=1"), sim("run.duration_ms=2", "run.warmup_ms=1")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_three_seeds_agree_on_an_overloaded_run():
    """privRing LB past the compute at which it tips into its loaded state (docs/calibration.md:
    the fitted cost sits at that edge, where seeds differ in which state they end in) carries
    ~162 of 200 Gbps: three seeds give the same throughput within 3 %."""
    runs = [sim("arch.name=privring", f"run.seed={seed}", "run.duration_ms=40",
                "run.warmup_ms=25", "workload.nf_cycles=1250") for seed in (1, 2, 3)]
    gbps = [m["throughput_gbps"] for m in runs]
    assert max(m["drop_rate"] for m in runs) > 0.05  # overloaded indeed
    assert max(gbps) <= 1.03 * min(gbps), gbps


def test_pcie_miss_share_per_request_beside_per_line():
    """With DDIO off every data line the NIC writes misses the LLC, and so do the frames it
    reads back for transmit (the core never read most of their lines): per line almost all
    miss. Counted per PCIe request, as Intel PCM counts them, the descriptor fetches, WQE
    reads and completion writes — small requests to lines the core keeps cached — hit, so
    the share is lower, yet most requests (the data's) still miss."""
    m = sim("system.ddio_ways=0", "arch.name=shring", "traffic.rate_gbps=20",
            "run.duration_ms=2", "run.warmup_ms=1")
    per_line, per_req = m["nic_pcie_llc_miss_share"], m["nic_pcie_request_miss_share"]
    assert per_line > 0.9
    assert 0.6 < per_req < per_line - 0.05, (per_req, per_line)


@pytest.mark.parametrize("arch", ["small_privring", "privring"])
def test_sampled_llc_agrees_with_full_simulation_on_the_receive_path(arch):
    """The LLC's set sampling (llc.h) must not change what the receive path sees: a core's
    completion ring is 8 KiB for small privRing, so most cores have no simulated line of it,
    and their reads draw the rates learned on the other cores' (one class for every core's
    completion reads). Sampled and full simulation agree on the completions' DRAM share and
    on the service time."""
    runs = [sim(f"arch.name={arch}", f"run.llc_sample_shift={k}", "traffic.rate_gbps=60",
                "run.duration_ms=6", "run.warmup_ms=3") for k in (4, 0)]
    cqe = [comp(m, "cqe") for m in runs]
    assert cqe[0]["dram"] == pytest.approx(cqe[1]["dram"], abs=0.05)
    svc = [m["anatomy"]["main"]["service_ns"] for m in runs]
    assert svc[0] == pytest.approx(svc[1], rel=0.03)
