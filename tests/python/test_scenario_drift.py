"""One vocabulary: the front end and the compiled engines must agree on every generated table.

scenario_keys.toml, result_metrics.toml, profile_keys.toml and calibration_keys.toml are read
by Python and compiled into rxb-sim, rxb-emu and the rules library (scripts/gen_scenario.py).
`rxb-sim --keys` prints the key table the engines were built with, and the rules library hands
over its metric, profile and calibration key tables; any difference in names, kinds, enum names,
ranges, defaults, engines or the designs, patterns and emulator sources a key applies to, in a
metric's name, kind or flags, or in a calibration key, fails here. So does a calibration key missing
from the shipped default calibration, or a key there that the table does not define.
"""

import json
import math
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, load_script
from rxbisect import _native
from rxbisect.engines import engine
from rxbisect.errors import UsageError
from rxbisect.study import calibrate
from rxbisect.vocab import profile, scenario, tables

KIND = {"bool": "bool", "int": "int", "float": "float", "string": "string", "enum": "enum",
        "list": "int"}


def _sim() -> Path:
    return engine.find_binary(engine.ENV_BIN, "build/sim/rxb-sim", "rxb-sim", "simulator")


@pytest.fixture(scope="module")
def compiled() -> dict:
    out = subprocess.run([str(_sim()), "--keys"], capture_output=True, text=True, timeout=30,
                         check=True).stdout
    return json.loads(out)


def _bound(x):
    return None if x is None else float(x)


def test_the_engines_know_exactly_the_front_ends_keys(compiled):
    assert list(compiled) == [k.full for k in scenario.SCHEMA.keys()]


@pytest.mark.parametrize("info", scenario.SCHEMA.keys(), ids=lambda k: k.full)
def test_each_key_agrees(info, compiled):
    c = compiled[info.full]
    d = tables.SCENARIO_KEYS[info.section][info.name]
    assert c["type"] == ("list" if d["type"] == "list" else KIND[d["type"]])
    assert c["auto"] == info.auto
    assert c["pow2"] == info.spec.pow2 and c["lo_open"] == info.spec.lo_open
    assert c["names"] == list(info.spec.choices)  # the library's own tables, on the C side
    for eng in scenario.ENGINES:
        ce, over = c["engines"][eng], (d.get(eng) or {})
        assert ce["honours"] == scenario.honours(info.full, eng)
        assert ce["lo"] == _bound(over.get("lo", info.spec.lo))
        assert ce["hi"] == _bound(over.get("hi", info.spec.hi))
        assert ce["default"] == _native.text(over.get("default", info.default))
        assert (tuple(ce["archs"]), tuple(ce["patterns"]), tuple(ce["sources"]),
                tuple(ce["nfs"])) == scenario.scope(info.full, eng)


def test_the_table_refuses_sources_for_a_key_the_simulator_reads():
    """emu.source exists only in the emulator: a `sources` scope the simulator would read is a
    table error at build time."""
    gen = load_script("scripts/gen_scenario.py")
    key = {"section": "traffic", "name": "x", "engines": ["sim", "emu"], "sources": ["pcap"]}
    with pytest.raises(gen.TableError, match=r"traffic.x: sources only in \[traffic.x.emu\]"):
        gen.validate_scope(key, {})
    gen.validate_scope({**key, "engines": ["emu"]}, {"emu.source": {"values": ["gen", "pcap"]}})


def test_the_table_refuses_an_int_the_simulators_json_cannot_carry():
    """The simulator's configuration is JSON read into signed 64-bit integers: a range above
    2^63 - 1 for a key it reads is a table error, one for an emulator-only key is not."""
    gen = load_script("scripts/gen_scenario.py")
    key = {"section": "run", "name": "x", "type": "int", "default": 1, "lo": 0, "hi": 2**63,
           "engines": ["sim", "emu"]}
    with pytest.raises(gen.TableError, match=r"run.x: hi above 9223372036854775807"):
        gen.validate(key)
    gen.validate({**key, "engines": ["emu"]})
    gen.validate({**key, "hi": 2**63 - 1})


def test_python_checks_the_same_ranges_as_the_engines(compiled):
    """A value just outside each simulator bound is refused by Python with the C words."""
    for info in scenario.SCHEMA.keys():
        hi = compiled[info.full]["engines"]["sim"]["hi"]
        if info.kind is int and hi is not None and math.isfinite(hi) and hi < 2**63:
            with pytest.raises(scenario.ScenarioError, match="out of range"):
                scenario.load(None, [f"{info.full}={int(hi) + 1}"])


def _flat_metrics() -> list[dict]:
    """result_metrics.toml as the generator flattens it: fields after their object."""
    out = []
    for name, m in tables.METRICS.items():
        flags = {f: m.get(f, False) for f in ("null", "required", "record")}
        out.append({"name": name, "kind": m["kind"], **flags})
        out += [{"name": f"{name}.{f}", "kind": k.rstrip("?"), "null": k.endswith("?"),
                 "required": flags["required"], "record": flags["record"]}
                for f, k in m.get("fields", {}).items()]
    return out


def test_the_engines_know_exactly_the_front_ends_metrics():
    assert _native.metrics() == _flat_metrics()


def test_one_metric_list_for_runs_and_records():
    """engine.py and records.py read the same table: every record metric is a required one."""
    from rxbisect.output import records
    assert set(records.REQUIRED_METRICS) <= set(engine.REQUIRED_METRICS)
    assert {n for n, m in tables.METRICS.items() if m.get("required")} == \
        set(engine.REQUIRED_METRICS)


PROFILE_TYPES = {"int": int, "float": float, "bool": bool, "string": str}


def _profile_table() -> list[tuple[str, str, dict]]:
    return [(sec, name, k) for sec, body in tables.PROFILE_KEYS.items() for name, k in body.items()]


def test_the_engines_know_exactly_the_profiles_keys():
    assert _native.profile_keys() == [(s, n, k["type"]) for s, n, k in _profile_table()]


def test_profile_py_names_the_tables_keys():
    """profile.py's classes give each key of the table its name and type, in the table's order;
    the rest of each key (doc, unit, range) they read from the table."""
    table = _profile_table()
    assert [k.full for k in profile.SCHEMA.keys()] == [f"{s}.{n}" for s, n, _ in table]
    for info, (_, _, k) in zip(profile.SCHEMA.keys(), table, strict=True):
        assert info.kind is PROFILE_TYPES[k["type"]], info.full


# ---- calibration keys ----------------------------------------------------------------------

CALIB = tables.CALIBRATION_KEYS
PER_ARCH = next(name for name, k in CALIB.items() if k.get("per_arch"))


def _default_calibration() -> dict:
    return json.loads((REPO / "sim" / "calibration" / "default.json").read_text())


def test_the_simulator_knows_exactly_the_calibration_tables_keys():
    assert _native.calib_keys() == \
        [(name, k.get("per_arch", False), k["unit"], k["kind"], k["hi"])
         for name, k in CALIB.items()]


def test_the_default_calibration_has_exactly_the_tables_keys():
    """Its cycles, kinds, assumptions and notes are the table's, key by key, in table order."""
    doc = _default_calibration()
    assert list(doc["cycles"]) == list(CALIB)
    assert list(doc["kind"]) == list(CALIB)
    for name, k in CALIB.items():
        v = doc["cycles"][name]
        if k.get("per_arch"):
            assert list(v) == list(scenario.ARCHS), name
        else:
            assert isinstance(v, float), name
        assert doc["kind"][name] == k["kind"], name
        assert doc["notes"][name] == k["source"], name
        if "assumed" in k:
            assert v == k["assumed"], name


def _sim_with(tmp_path, calibration: dict) -> subprocess.CompletedProcess:
    res = scenario.load_resolved(None, ["run.duration_ms=1", "run.warmup_ms=0.2",
                                        "system.cores=2", "traffic.rate_gbps=10"])
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps(engine.build_config(res, calibration)))
    return subprocess.run([str(_sim()), "--config", str(cfg)], capture_output=True, text=True,
                          timeout=60)


def _sim_refuses(tmp_path, doc: dict, message: str) -> None:
    p = _sim_with(tmp_path, doc)
    assert p.returncode == 2 and f"error: calibration.{message}" in p.stderr, p.stderr


def _front_end_refuses(tmp_path, doc: dict, message: str) -> None:
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(UsageError) as e:
        calibrate.load(path)
    assert message in str(e.value)


def _both_refuse(tmp_path, doc: dict, message: str) -> None:
    """The simulator and the front end refuse the document in the same words."""
    _sim_refuses(tmp_path, doc, message)
    _front_end_refuses(tmp_path, doc, message)


def test_the_simulator_runs_with_the_default_calibration_given_as_a_document(tmp_path):
    p = _sim_with(tmp_path, _default_calibration())
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("name", list(CALIB))
def test_a_calibration_missing_a_key_is_refused(tmp_path, name):
    doc = _default_calibration()
    del doc["cycles"][name]
    _sim_refuses(tmp_path, doc, f"cycles.{name}: missing")
    _front_end_refuses(tmp_path, doc, f"cycles.{name}")


def test_a_calibration_missing_a_design_is_refused(tmp_path):
    doc = _default_calibration()
    del doc["cycles"][PER_ARCH][scenario.ARCHS[-1]]
    _sim_refuses(tmp_path, doc, f"cycles.{PER_ARCH}.{scenario.ARCHS[-1]}: missing")
    _front_end_refuses(tmp_path, doc, f"cycles.{PER_ARCH}.{scenario.ARCHS[-1]}")


def test_a_calibration_with_an_unknown_key_is_refused(tmp_path):
    doc = _default_calibration()
    doc["cycles"]["doorbel"] = 50.0
    _both_refuse(tmp_path, doc, "cycles.doorbel: unknown key; allowed: " + ", ".join(CALIB))


def test_a_calibration_with_an_unknown_design_is_refused(tmp_path):
    doc = _default_calibration()
    doc["cycles"][PER_ARCH]["privring2"] = 1.0
    _both_refuse(tmp_path, doc, f"cycles.{PER_ARCH}.privring2: unknown key; allowed: one of "
                 + ", ".join(scenario.ARCHS))


def test_a_negative_cost_is_refused(tmp_path):
    doc = _default_calibration()
    doc["cycles"]["doorbell"] = -3
    _both_refuse(tmp_path, doc, "cycles.doorbell = -3: allowed: a number from 0 to 1e+07 "
                 "(cycles per doorbell)")


def test_a_cost_no_machine_has_is_refused(tmp_path):
    """A 1e308 cycle cost ran faster than a 1e12 one (the engine's clock overflowed)."""
    doc = _default_calibration()
    doc["cycles"][PER_ARCH]["rxbisect"] = 1e308
    _both_refuse(tmp_path, doc, f"cycles.{PER_ARCH}.rxbisect = 1e+308: allowed: a number from 0 "
                 "to 1e+07")
