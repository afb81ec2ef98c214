"""Workload cost profiles (rxbisect/vocab/costs.py): one compute figure per NF, checked,
resolved into workload.nf_cycles, and what the engine charges."""

import pytest

from rxbisect.engines import engine
from rxbisect.errors import EngineError, ScenarioError
from rxbisect.vocab import costs, scenario


def test_builtin_profiles_cover_every_nf():
    for name in costs.builtin_names():
        prof = costs.load(name)
        assert set(prof.cycles) == set(costs.nf_names())


def test_nf_cycles_resolve_from_the_named_profile_unless_set():
    light = costs.load("light")
    for nf in costs.nf_names():
        res = scenario.load_resolved(None, [f"workload.nf={nf}", "workload.costs=light"])
        assert res.scenario.workload.nf_cycles == light.cycles[nf]
    res = scenario.load_resolved(None, ["workload.costs=light", "workload.nf_cycles=1234"])
    assert res.scenario.workload.nf_cycles == 1234


@pytest.mark.parametrize("text, msg", [
    ("[cycles]\nlb = 1\n", "cycles.l3fwd is missing"),
    ("[cycles]\nlb = 1\nlbb = 2\n", "cycles.lbb: not a network function (did you mean 'lb'?)"),
    ("[cycles]\nlb = 1.5\n", "cycles.lb = 1.5: not a cycle count"),
    ("[cycles]\nlb = -1\n", "cycles.lb = -1: not a cycle count"),
    ("name = 'x'\n", "[cycles] is missing"),
    ("colour = 'x'\n[cycles]\n", "unknown key 'colour'"),
])
def test_a_bad_cost_profile_says_which_entry(tmp_path, text, msg):
    f = tmp_path / "c.toml"
    f.write_text(text)
    with pytest.raises(ScenarioError) as e:
        costs.load(str(f))
    assert msg in str(e.value)


def test_an_unknown_profile_name_is_refused_with_the_choices():
    with pytest.raises(ScenarioError, match="workload.costs = 'studdy'.*did you mean 'study'"):
        scenario.load_resolved(None, ["workload.costs=studdy"])


def test_the_engine_charges_the_cycles_it_is_given():
    """Busy cores: the application share of cycles per packet grows by the difference."""
    try:
        engine.find_engine()
    except EngineError:
        pytest.skip("rxb-sim is not built")
    sets = ["run.duration_ms=1", "run.warmup_ms=0.2", "system.cores=2", "system.nics=1",
            "traffic.rate_gbps=5"]
    app = [engine.run(scenario.load_resolved(None, sets + [f"workload.nf_cycles={c}"]),
                      progress=False).metrics["cycles_per_packet"]["app"] for c in (100, 1100)]
    assert app[1] - app[0] == pytest.approx(1000, rel=0.02)
