"""`rxb calibrate` and `rxb sim --calibration`: the file, and the plumbing into the engine.

The end-to-end test runs `rxb calibrate --quick` (bench_rings with short repetitions and, when
it is built and DPDK starts, `rxb-emu --bench`: a few seconds), then the real simulator with the
file it wrote. It is a mechanism test: the numbers are this machine's, what is checked is that
they reach the engine.
"""

import json

import pytest

from conftest import GOOD_ENGINE, REPO, cli_json, run_cli
from rxbisect.engines import engine
from rxbisect.errors import EngineError, UsageError
from rxbisect.study import calibrate
from rxbisect.vocab import scenario

try:
    engine.find_engine()
    SIM = True
except EngineError:  # pragma: no cover - depends on the build
    SIM = False
RINGS = (REPO / "build" / "bench" / "bench_rings").is_file()
DEFAULT = json.loads((REPO / "sim" / "calibration" / "default.json").read_text())


def _write(tmp_path, doc, name="cal.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_the_shipped_default_is_a_valid_calibration():
    assert calibrate.load(REPO / "sim" / "calibration" / "default.json")["cycles"]


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.pop("cycles"), "no 'cycles' object"),
    (lambda d: d["cycles"].pop("lock"), "cycles.lock = null"),
    (lambda d: d["cycles"]["rx_per_pkt"].pop("rxbisect"), "cycles.rx_per_pkt.rxbisect = null"),
    (lambda d: d["cycles"].update(doorbell=-3), "cycles.doorbell = -3: allowed: a number from 0"),
    # past any machine: the engine's clock overflowed, and ran it faster than a smaller cost
    (lambda d: d["cycles"].update(doorbell=2e7), "cycles.doorbell = 20000000.0: allowed: a number "
                                                 "from 0 to"),
    (lambda d: d["cycles"].update(emu_per_pkt=5), "cycles.emu_per_pkt is missing or not an"),
])
def test_a_bad_calibration_is_a_usage_error_naming_the_key(tmp_path, mutate, message):
    doc = json.loads(json.dumps(DEFAULT))
    mutate(doc)
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(".", r"\.")):
        calibrate.load(_write(tmp_path, doc))


def test_missing_or_unreadable_file(tmp_path):
    p = run_cli("sim", "--calibration", str(tmp_path / "nope.json"))
    assert p.returncode == 2
    assert p.stderr.strip() == f"rxb: error: --calibration {tmp_path / 'nope.json'}: no such file"
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(UsageError, match="not JSON"):
        calibrate.load(tmp_path / "x.json")


def test_config_embeds_the_calibration_only_when_given():
    res = scenario.load_resolved(None, ["run.duration_ms=2"])
    assert "calibration" not in engine.build_config(res)
    assert engine.build_config(res, DEFAULT)["calibration"] == DEFAULT


def test_sim_calibration_reaches_the_engine_config(tmp_path, make_engine):
    doc = json.loads(json.dumps(DEFAULT)) | {"origin": "test calibration"}
    make_engine("OUT['params']['cal'] = cfg.get('calibration', {}).get('origin')\n"
                + GOOD_ENGINE)
    rec = cli_json("sim", "--json", "--calibration", str(_write(tmp_path, doc)))
    assert rec["params"]["cal"] == "test calibration"
    assert cli_json("sim", "--json")["params"]["cal"] is None


def _rx_cycles(path) -> float:
    rec = cli_json("sim", "--json", "--calibration", str(path), "--set", "arch.name=privring",
                   "--set", "system.cores=2", "--set", "run.duration_ms=1",
                   "--set", "run.warmup_ms=0.2", "--set", "traffic.rate_gbps=10")
    m = rec["metrics"]
    assert m["conservation"] == {"packets_ok": True, "buffers_ok": True}
    return m["cycles_per_packet"]["rx"]


@pytest.mark.skipif(not (SIM and RINGS), reason="needs build/sim/rxb-sim and "
                    "build/bench/bench_rings (run `make build`)")
def test_quick_calibration_is_valid_and_its_rx_cost_reaches_the_simulator(tmp_path):
    out = tmp_path / "cal.json"
    p = run_cli("calibrate", "--quick", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert f"wrote {out}" in p.stdout
    doc = calibrate.load(out)
    assert doc["command"] == f"rxb calibrate --quick --out {out}"
    assert doc["date"] and doc["machine"]["cpu"] and doc["machine"]["online_cpus"]
    assert {"rx_per_pkt", "alloc_per_obj", "lock"} <= set(doc["measured"])
    assert "doorbell" in doc["carried_over"]
    assert doc["cycles"]["doorbell"] == DEFAULT["cycles"]["doorbell"]
    assert set(doc["measured"]) | set(doc["carried_over"]) == set(doc["cycles"])
    assert "1" in doc["sharing"]["measured"]
    assert set(doc["sharing"]["measured"]) | set(doc["sharing"]["not_measured"]) == \
        {str(d) for d in doc["sharing"]["degrees_wanted"]}

    base = _rx_cycles(out)
    doc["cycles"]["rx_per_pkt"] = {a: 10 * v for a, v in doc["cycles"]["rx_per_pkt"].items()}
    dearer = _rx_cycles(_write(tmp_path, doc, "dearer.json"))
    # 10x the calibrated receive cost; rx also holds memory stalls, so less than 10x overall
    assert dearer > base + 5 * doc["cycles"]["rx_per_pkt"]["privring"] / 10, (base, dearer)
