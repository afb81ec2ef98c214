"""Variability in the real engine (docs/simulator.md §2.5): a packet's compute time spread,
pauses of a core, and a generator's back-to-back trains. Each is what makes ring size matter
when the mean load fits; each test turns one mechanism on against the same run without it.
"""

import pytest

from conftest import needs_engine
from rxbisect.engines import engine
from rxbisect.vocab import scenario

pytestmark = needs_engine

# One core of one NIC, privRing, at ~80 % of what it can serve; every source of
# variability off unless a test turns it on. Drawn flows, few enough for their state to stay
# in the core's L2: the study's millions of flows would make each packet's service time a
# chain of DRAM misses, a variability of its own these tests keep out.
BASE = ("arch.name=privring", "system.cores=1", "system.nics=1", "workload.nf_cycles=300",
        "traffic.flow_model=random", "traffic.flows=1024",
        "traffic.rate_gbps=40", "traffic.train_packets=1", "system.service_cv=0",
        "system.tick_hz=0", "system.pause_hz=0", "run.duration_ms=20", "run.warmup_ms=2")


def run(*sets):
    m = engine.run(scenario.load_resolved(None, BASE + sets), progress=False).metrics
    assert m["conservation"] == {"packets_ok": True, "buffers_ok": True}
    return m


def test_service_time_spread_queues_packets():
    """Same mean service, spread by a lognormal of CV 2: the queue and its p99 grow."""
    steady, spread = run(), run("system.service_cv=2")
    assert spread["cycles_per_packet"]["app"] == pytest.approx(
        steady["cycles_per_packet"]["app"], rel=0.05)
    assert spread["latency_us_p99"] > 2 * steady["latency_us_p99"]
    assert spread["ring_occupancy"]["max"] > 2 * steady["ring_occupancy"]["max"]


def test_a_pause_overflows_a_small_ring_and_not_a_large_one():
    """Pauses of 100 µs, 500 a second (about nine in the run): ~330 packets arrive during
    one; a 64-entry ring drops them, a 1024-entry ring holds them (the reason drivers default
    to 1 Ki)."""
    pause = ("system.pause_hz=500", "system.pause_us=100")
    small, large = run(*pause, "arch.rx_size=64"), run(*pause, "arch.rx_size=1024")
    assert small["drops_by_cause"]["no_rx_desc"] > 0
    assert large["drop_rate"] == 0
    assert run("arch.rx_size=64")["drop_rate"] == 0  # no pauses: 64 entries suffice
    busy = [c["paused_fraction"] for c in large["per_core"]]
    assert busy[0] == pytest.approx(500 * 100e-6, rel=0.5)  # ~5 % paused (Poisson count)


def test_timer_ticks_take_their_share_of_the_core():
    m = run("system.tick_hz=1000", "system.tick_us=10")
    assert m["per_core"][0]["paused_fraction"] == pytest.approx(0.01, rel=0.1)


def test_generator_trains_arrive_back_to_back():
    """At 40 of 100 Gbps, trains of 32 frames at line rate queue up to a train at the core;
    evenly spaced frames queue only behind the core's batched Tx completions."""
    even, trains = run(), run("traffic.train_packets=32")
    assert trains["offered_gbps"] == pytest.approx(even["offered_gbps"], rel=0.02)
    assert trains["ring_occupancy"]["max"] >= 2 * even["ring_occupancy"]["max"]
    assert trains["latency_us_mean"] > 1.5 * even["latency_us_mean"]


def test_variability_is_deterministic_per_seed():
    sets = ("system.service_cv=0.5", "system.pause_hz=100", "system.tick_hz=250",
            "traffic.train_packets=32")
    a, b = run(*sets), run(*sets)
    assert a == b


def test_a_load_turns_pathological_at_change_at_ms():
    """From change_at_ms on, half of the NIC's packets go to its target core (the others avoid
    it); before, RSS spreads them evenly over the 4 cores."""
    sets = ("system.cores=4", "traffic.rate_gbps=20", "traffic.target_core=1",
            "traffic.change_target_share=0.5", "run.duration_ms=6", "run.warmup_ms=2")
    after = run(*sets, "traffic.change_at_ms=1")    # changed before the measured interval
    never = run(*sets, "traffic.change_at_ms=100")  # after the run
    share = [c["offered"] / after["offered_packets"] for c in after["per_core"]]
    assert share[1] == pytest.approx(0.5, abs=0.02)
    share = [c["offered"] / never["offered_packets"] for c in never["per_core"]]
    assert share[1] == pytest.approx(0.25, abs=0.03)
