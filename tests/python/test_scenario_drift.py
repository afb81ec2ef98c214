"""One vocabulary: the front end and the compiled engines must agree on every scenario key.

scenario_keys.toml is read by Python at import and compiled into rxb-sim and rxb-emu
(scripts/gen_scenario.py). `rxb-sim --keys` prints the table the engines were built with;
any difference in names, kinds, enum names, ranges, defaults, engines or the designs and
patterns a key applies to fails here.
"""

import json
import math
import subprocess

import pytest

from rxbisect import engine, scenario

KIND = {"bool": "bool", "int": "int", "float": "float", "string": "string", "enum": "enum",
        "list": "int"}


@pytest.fixture(scope="module")
def compiled() -> dict:
    sim = engine.find_binary(engine.ENV_BIN, "build/sim/rxb-sim", "rxb-sim", "simulator")
    out = subprocess.run([str(sim), "--keys"], capture_output=True, text=True, timeout=30,
                         check=True).stdout
    return json.loads(out)


def _text(v) -> str:
    """A default as the C table stores it (--set syntax, as gen_scenario.py writes it)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(str(x) for x in v) + "]"
    return repr(v) if isinstance(v, float) else str(v)


def _bound(x):
    return None if x is None else float(x)


def test_the_engines_know_exactly_the_front_ends_keys(compiled):
    assert list(compiled) == [k.full for k in scenario.SCHEMA.keys()]


@pytest.mark.parametrize("info", scenario.SCHEMA.keys(), ids=lambda k: k.full)
def test_each_key_agrees(info, compiled):
    c = compiled[info.full]
    d = scenario.TABLE[info.section][info.name]
    assert c["type"] == ("list" if d["type"] == "list" else KIND[d["type"]])
    assert c["auto"] == info.auto
    assert c["pow2"] == info.spec.pow2 and c["lo_open"] == info.spec.lo_open
    assert c["names"] == list(info.spec.choices)  # the library's own tables, on the C side
    for eng in scenario.ENGINES:
        ce, over = c["engines"][eng], (d.get(eng) or {})
        assert ce["honours"] == scenario.honours(info.full, eng)
        assert ce["lo"] == _bound(over.get("lo", info.spec.lo))
        assert ce["hi"] == _bound(over.get("hi", info.spec.hi))
        assert ce["default"] == _text(over.get("default", info.default))
        assert (tuple(ce["archs"]), tuple(ce["patterns"])) == scenario.scope(info.full, eng)


def test_python_checks_the_same_ranges_as_the_engines(compiled):
    """A value just outside each simulator bound is refused by Python with the C words."""
    for info in scenario.SCHEMA.keys():
        hi = compiled[info.full]["engines"]["sim"]["hi"]
        if info.kind is int and hi is not None and math.isfinite(hi) and hi < 2**63:
            with pytest.raises(scenario.ScenarioError, match="out of range"):
                scenario.load(None, [f"{info.full}={int(hi) + 1}"])
