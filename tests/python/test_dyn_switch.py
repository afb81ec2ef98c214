"""Dynamic shRing switching in the simulator, on the quick variant of the `dyn-switch`
experiment (experiments/dyn-switch.toml): both NFs, balanced load at 200 G until
traffic.change_at_ms, then 30 % of each NIC's packets to one core.

What must happen (docs/simulator.md §2.8, include/rxb/dynctl.h): under the balanced load the
controller sees throughput and bandwidth above its thresholds and no overloaded core, so it
moves to shared mode before the event; the pathological load then takes it back to private.
Two inputs of the controller are checked on their own, because each alone kept it in private
mode for the whole run: the throughput it is fed is the load the ports received (NAT's cores
under privRing deliver less than the 170 Gbps threshold), and a healthy core's idle time is no
spread of its receive-call intervals (counted as empty-poll intervals, it flagged every LB
core as overloaded in every sample).

Needs the built engine ($RXB_SIM_BIN, or build/sim/rxb-sim); skipped, saying so, without it.
"""

import pytest

from conftest import needs_engine
from rxbisect.engines import engine
from rxbisect.study import experiments
from rxbisect.vocab import scenario

pytestmark = needs_engine

EXP = experiments.load("dyn-switch")
QUICK = EXP.variant(quick=True)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def run(nf: str) -> dict:
    """The experiment's quick point for one NF: its metrics."""
    (iface,) = EXP.interfaces
    sets = [f"{k}={_value(v)}" for k, v in QUICK.set.items()]
    sets += [f"arch.name={iface.name}", f"workload.nf={nf}"]
    r = engine.run(scenario.load_resolved(EXP.scenario, sets), progress=False)
    assert r.metrics["conservation"] == {"packets_ok": True, "buffers_ok": True}
    return r.metrics


@pytest.fixture(scope="module", params=QUICK.grid["workload.nf"])
def point(request):
    return request.param, run(request.param)


def _samples(metrics: dict) -> list[dict]:
    return metrics["dyn_shring"]["samples"]


def test_switches_to_shared_under_the_balanced_load_and_back_after_the_event(point):
    nf, m = point
    change = QUICK.set["traffic.change_at_ms"]
    modes = [(s["t_ms"], s["mode"]) for s in _samples(m)]
    up = next((t for t, mode in modes if mode == "shared"), None)
    assert up is not None and up < change, f"{nf}: never shared before {change} ms: {modes}"
    down = next((t for t, mode in modes if t > up and mode == "private"), None)
    assert down is not None and down > change, \
        f"{nf}: no return to private after the event at {change} ms: {modes}"
    assert m["dyn_shring"]["switched_to_shared"] >= 1
    assert m["dyn_shring"]["switched_to_private"] >= 1


def test_the_throughput_sample_is_the_load_received(point):
    """Every sample's throughput is the offered load (200 G here, within 1 %), whatever the
    cores got through: privRing NAT delivers less, and that used to be the sample."""
    nf, m = point
    for s in _samples(m):
        assert s["tput_gbps"] == pytest.approx(m["offered_gbps"], rel=0.01), (nf, s)


def test_no_core_is_overloaded_under_the_balanced_load(point):
    """Before the event every core keeps up: none may count as overloaded, from the first
    sample (whose period starts with the cores idle before traffic) on."""
    nf, m = point
    before = [s for s in _samples(m) if s["t_ms"] <= QUICK.set["traffic.change_at_ms"]]
    assert before and all(s["overloaded_cores"] == 0 for s in before), \
        (nf, [(s["t_ms"], s["overloaded_cores"]) for s in before])
