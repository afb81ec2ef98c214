"""The Python side of the engine contract (docs/engine-contract.md), against
fake engines written by the tests."""

import json

import pytest

from conftest import GOOD_ENGINE, REPO, cli_json, run_cli, valid_output
from rxbisect import checkout
from rxbisect.engines import engine, provenance
from rxbisect.errors import EngineError, UsageError
from rxbisect.vocab import scenario


@pytest.fixture
def res():
    return scenario.load_resolved()


# ---------------------------------------------------------------- running


def test_good_engine_round_trip(make_engine, res):
    make_engine(GOOD_ENGINE)
    r = engine.run(res, progress=False)
    assert r.metrics["drops_by_cause"]["no_ax_buf"] == 5
    assert r.metrics["per_core"] == [{"core": 0, "delivered": 62}]  # extra keys pass through
    assert r.sim_packets == 1000
    assert r.warnings == ("warning: fake engine",)
    rec = r.record()
    assert (rec["experiment"], rec["arch"]) == ("sim", "rxbisect")
    assert set(rec) == {"experiment", "arch", "params", "metrics", "sim_packets", "sim_wall_s",
                        "provenance"}
    assert provenance.problems(rec["provenance"]) == []


def test_engine_receives_the_fully_resolved_config(make_engine, res, tmp_path):
    seen = tmp_path / "seen.json"
    make_engine(f"json.dump(cfg, open({str(seen)!r}, 'w'))\n" + GOOD_ENGINE)
    keep = tmp_path / "kept.json"
    engine.run(res, progress=False, keep_config=keep)
    cfg = json.loads(seen.read_text())
    assert cfg == json.loads(keep.read_text()) == json.loads(json.dumps(engine.build_config(res)))
    assert cfg["contract"] == engine.CONTRACT_VERSION
    assert set(cfg) == {"contract", "description", "arch", "system", "traffic", "workload", "run",
                        "profile", "derived"}
    assert "auto" not in json.dumps(cfg)
    assert cfg["arch"]["rx_size"] == 1024 and cfg["system"]["cores_per_nic"] == [8, 8]
    assert cfg["profile"]["llc"]["ways"] == 11
    assert cfg["derived"]["ddio_bytes"] == 4 * 2**20
    assert cfg["derived"]["wire_bytes"] == 1538  # 1518 B frame (1500 B MTU) + 20
    assert cfg["derived"]["nic_of_core"] == [0] * 8 + [1] * 8


SLOW_ENGINE = """\
for f in (0.5, 1.0):
    time.sleep(0.25)  # longer than tqdm's 0.1 s refresh interval, so each step is drawn
    sys.stderr.write(f"progress {f}\\n"); sys.stderr.flush()
print(json.dumps(OUT))
"""


def test_progress_lines_drive_the_bar(make_engine, res, capsys):
    make_engine(SLOW_ENGINE)
    engine.run(res, progress=True)
    captured = capsys.readouterr()
    assert "50%" in captured.err and "100%" in captured.err
    assert captured.out == ""
    engine.run(res, progress=False)
    assert "%" not in capsys.readouterr().err


def test_warnings_go_to_stderr_never_stdout(make_engine, res, capsys):
    make_engine(GOOD_ENGINE)
    engine.run(res, progress=False)
    captured = capsys.readouterr()
    assert "rxb-sim: warning: fake engine" in captured.err and captured.out == ""


@pytest.mark.parametrize("line, frac", [("progress 0.25", 0.25), ("progress 1.5", 1.0),
                                        ("progress -1", 0.0), ("progress x", None),
                                        ("progress nan", None), ("progressing 0.1", None),
                                        ("warning: progress 0.5", None)])
def test_progress_line_parsing(line, frac):
    assert engine._progress(line) == frac


@pytest.mark.parametrize("body, message", [
    ("sys.stderr.write('error: contract 1 is unknown\\n'); sys.exit(2)",
     "rxb-sim rejected the configuration: contract 1 is unknown"),
    ("sys.stderr.write('error: out of memory (4 x 8 bytes)\\n'); sys.exit(3)",
     "rxb-sim ran out of memory: out of memory (4 x 8 bytes)"),
    ("sys.stderr.write('loading\\nboom in ring.c:42\\n'); sys.exit(5)",
     "rxb-sim failed with exit code 5: loading | boom in ring.c:42"),
    ("sys.exit(4)", "rxb-sim failed with exit code 4: (nothing on stderr)"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "rxb-sim was killed by SIGKILL"),
    ("print('not json')", "stdout is not one JSON object"),
])
def test_engine_failures_become_clear_errors(make_engine, res, body, message):
    make_engine(body)
    with pytest.raises(EngineError) as e:
        engine.run(res, progress=False)
    assert message in str(e.value)


def test_timeout_stops_the_engine(make_engine, res):
    make_engine("time.sleep(30)\n" + GOOD_ENGINE)
    with pytest.raises(EngineError, match="did not finish within 0.5 s"):
        engine.run(res, progress=False, timeout=0.5)


def test_engine_echoing_another_config_is_caught(make_engine, res):
    make_engine("OUT['params']['run.seed'] = 99\n" + GOOD_ENGINE)
    with pytest.raises(EngineError, match=r"params.run.seed = 99 but the config asked for 1"):
        engine.run(res, progress=False)


# ---------------------------------------------------------------- finding


def test_rxb_sim_bin_must_be_executable(tmp_path, monkeypatch):
    f = tmp_path / "rxb-sim"
    f.write_text("#!/bin/sh\n")
    monkeypatch.setenv("RXB_SIM_BIN", str(f))
    with pytest.raises(EngineError, match="not an executable file"):
        engine.find_engine()


def test_missing_engine_says_how_to_get_one(tmp_path, monkeypatch):
    monkeypatch.delenv("RXB_SIM_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(checkout, "repo_root", lambda: tmp_path)
    with pytest.raises(EngineError, match="make build.*RXB_SIM_BIN"):
        engine.find_engine()


def test_repo_build_is_found(tmp_path, monkeypatch):
    monkeypatch.delenv("RXB_SIM_BIN", raising=False)
    monkeypatch.setattr(checkout, "repo_root", lambda: tmp_path)
    built = tmp_path / "build" / "sim" / "rxb-sim"
    built.parent.mkdir(parents=True)
    built.write_text("#!/bin/sh\n")
    built.chmod(0o755)
    assert engine.find_engine() == built


# ---------------------------------------------------------------- output contract


def _broken(mutate):
    out = valid_output()
    mutate(out)
    return json.dumps(out)


def _set(path, value):
    def mutate(out):
        *parents, last = path.split(".")
        node = out
        for p in parents:
            node = node[p]
        node[last] = value
    return mutate


def _drop(path):
    def mutate(out):
        *parents, last = path.split(".")
        node = out
        for p in parents:
            node = node[p]
        del node[last]
    return mutate


BROKEN = {
    "empty": ("", "nothing was printed"),
    "two objects": (json.dumps(valid_output()) * 2, "not one JSON object"),
    "array": ("[1, 2]", "a JSON list, not an object"),
    "missing metrics": (_broken(_drop("metrics")), "top-level key 'metrics' is missing"),
    "missing cause": (_broken(_drop("metrics.drops_by_cause.no_bx_slot")),
                      "metrics.drops_by_cause.no_bx_slot is missing"),
    "missing p99": (_broken(_drop("metrics.latency_us_p99")), "metrics.latency_us_p99 is missing"),
    "fraction > 1": (_broken(_set("metrics.drop_rate", 1.5)), "metrics.drop_rate should be fraction"),
    "string latency": (_broken(_set("metrics.latency_us_mean", "3")), "should be number or null"),
    "negative count": (_broken(_set("metrics.drops_by_cause.cr_full", -1)), "should be count"),
    "bool count": (_broken(_set("sim_packets", True)), "sim_packets should be count"),
    "null not allowed": (_broken(_set("metrics.mem_bw_gibps", None)), "should be number,"),
    "bad optional": (_broken(_set("metrics.desc_wait_us_mean", "x")),
                     "metrics.desc_wait_us_mean should be number or null"),
    "conservation": (_broken(_set("metrics.in_flight_packets", 5)), "packets are not conserved"),
    "no echo": (_broken(lambda out: out["params"].pop("arch.name")), "params.arch.name is missing"),
    "params not object": (_broken(_set("params", [])), "params should be an object"),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_broken_output_is_rejected_with_the_offending_key(case):
    text, message = BROKEN[case]
    with pytest.raises(EngineError) as e:
        engine.parse_output(text)
    assert "broke the output contract" in str(e.value)
    assert message in str(e.value)


def test_valid_output_with_nulls_and_extras_is_accepted():
    out = valid_output()
    out["metrics"]["latency_us_p999"] = None
    out["metrics"]["desc_wait_us_mean"] = 12.5
    out["engine_version"] = "0.1"
    r = engine.parse_output(json.dumps(out))
    assert r.metrics["latency_us_p999"] is None
    assert r.extra == {"engine_version": "0.1"}


# ---------------------------------------------------------------- CLI


def test_cli_sim_prints_a_readable_table(make_engine):
    make_engine(GOOD_ENGINE)
    p = run_cli("sim", "--no-progress")
    assert p.returncode == 0, p.stderr
    for needle in ("Throughput", "198.00 Gbps", "16.30 Mpps", "no_ax_buf", "p99.9",
                   "3.25 / 2.50 / 9.75 / 14.00 us", "97.5 %", "n/a", "40 / 0 / 25 / 310",
                   "packets ok, buffers ok", "rxbisect on 'reference'"):
        assert needle in p.stdout, needle


def test_cli_sim_json_is_one_record(make_engine):
    make_engine(GOOD_ENGINE)
    rec = cli_json("sim", "--json", "--set", "arch.name=privring", "--set", "run.seed=7")
    assert rec["arch"] == "privring" and rec["params"]["run.seed"] == 7
    assert rec["metrics"]["drops_by_cause"]["no_bx_slot"] == 1


def test_cli_engine_failure_is_exit_1_without_traceback(make_engine):
    make_engine("sys.stderr.write('error: out of memory\\n'); sys.exit(1)")
    p = run_cli("sim")
    assert p.returncode == 1
    assert p.stderr.strip().splitlines()[-1] == \
        "rxb: error: rxb-sim failed with exit code 1: out of memory"
    assert "Traceback" not in p.stderr


# ---------------------------------------------------------------- the document


def test_contract_document_lists_every_config_key_and_metric(res):
    doc = (REPO / "docs" / "engine-contract.md").read_text()
    cfg = engine.build_config(res)
    missing = []
    for sec, body in cfg.items():
        if sec in scenario.SCHEMA.sections:  # §3.1 points to scenario_keys.toml
            assert "scenario_keys.toml" in doc and f"`{sec}`" in doc
            continue
        if isinstance(body, dict):
            for k, v in body.items():
                names = [f"{sec}.{k}"] if not isinstance(v, dict) else [
                    f"{sec}.{k}.{kk}" for kk in v]
                if sec == "profile" and isinstance(v, dict):  # doc lists them as cpu.model, ...
                    names = [n.removeprefix("profile.") for n in names]
                missing += [n for n in names if f"`{n}`" not in doc]
        elif f"`{sec}`" not in doc:
            missing.append(sec)
    for k, kind in engine.REQUIRED_METRICS.items():
        if f"`{k}`" not in doc:
            missing.append(f"metrics.{k}")
        if isinstance(kind, dict):
            missing += [f"metrics.{k}.{kk}" for kk in kind if f"`{kk}`" not in doc]
    missing += [f"metrics.{k}" for k in engine.OPTIONAL_METRICS if f"`{k}`" not in doc]
    assert not missing, f"docs/engine-contract.md lacks {missing}"


def test_engine_that_cannot_start(make_engine, res):
    path = make_engine("")
    path.write_text("this is not a program\n")  # executable bit, but no interpreter line
    with pytest.raises(EngineError, match="cannot start"):
        engine.run(res, progress=False)


def test_unwritable_keep_config_is_a_usage_error(make_engine, res, tmp_path):
    make_engine(GOOD_ENGINE)
    with pytest.raises(UsageError, match="cannot write the config"):
        engine.run(res, progress=False, keep_config=tmp_path / "no" / "such" / "dir.json")


def test_engine_out_of_memory_is_exit_3_not_a_rejected_configuration(tmp_path):
    """A valid scenario this machine cannot hold: the pool's allocation fails under an
    address-space limit, rxb-sim exits 3 (docs/engine-contract.md §5)."""
    import resource
    import subprocess

    res = scenario.load_resolved(None, ("arch.pool_buffers=2147483648",))
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps(engine.build_config(res)))
    limit = 2 << 30

    def cap_memory():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    sim = engine.find_binary(engine.ENV_BIN, "build/sim/rxb-sim", "rxb-sim", "simulator")
    p = subprocess.run([str(sim), "--config", str(cfg)], capture_output=True, text=True,
                       timeout=60, preexec_fn=cap_memory)
    assert p.returncode == engine.EXIT_NOMEM, p.stderr
    assert "error: out of memory" in p.stderr
