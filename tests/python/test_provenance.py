"""Every result record carries `provenance` (docs/engine-contract.md §6), and a recorded
point is re-run, saying so, when the engine or the profiles it was run with changed
(docs/sweeps.md, "Resume").

The engine here is the fake of conftest (a Python script): its build id is a hash of the
script, so "the engine changed" is a copy of it with a byte appended.
"""

import hashlib
import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import GOOD_ENGINE, REPO, run_cli, valid_output
from rxbisect.engines import emu, provenance
from rxbisect.errors import EngineError
from rxbisect.output import records
from rxbisect.study import reproduce
from rxbisect.study.sweeps import execute, plan, run_point
from rxbisect.vocab import scenario
from test_repro import TINY as TINY_EXPERIMENT

SHORT = ["run.duration_ms=0.5", "run.warmup_ms=0.1", "system.cores=2", "system.nics=1"]
SETS = [a for s in SHORT for a in ("--set", s)]


def build_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_bytes().splitlines()]


def sweep_args(out: Path, *extra: str) -> list[str]:
    return ["sweep", *SETS, "--seeds", "3", "--out", str(out), "--jobs", "2", "--no-progress",
            *extra]


def notices(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "re-run" in ln]


# ---- the facts --------------------------------------------------------------------------

def test_sim_json_record_carries_exactly_the_provenance_keys(make_engine):
    fake = make_engine(GOOD_ENGINE)
    p = run_cli("sim", "--json", "--no-progress", *SETS)
    assert p.returncode == 0, p.stderr
    prov = json.loads(p.stdout)["provenance"]
    assert list(prov) == list(provenance.KEYS)
    assert prov["engine_build"] == build_of(fake)
    assert (prov["commit"], prov["dirty"]) == (None, None)  # the fake lives outside git
    assert "sim --json --no-progress" in prov["command"]
    res = scenario.load_resolved(None, SHORT)
    assert {k: prov[k] for k in ("profile_hash", "costs_hash", "trace_hash")} == \
        provenance.inputs(res.scenario, res.profile)
    assert prov["trace_hash"] is None  # no trace
    assert prov["date"].endswith("+00:00") and prov["host"]
    assert provenance.problems(prov) == []


def test_an_engine_in_a_git_checkout_names_its_commit_and_whether_it_is_dirty(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "rxb-sim").write_text("v1\n")
    subprocess.run([*git, "add", "rxb-sim"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert provenance.git_facts(repo) == (head, False)
    (repo / "rxb-sim").write_text("v2\n")
    sub = repo / "sub"
    sub.mkdir()
    assert provenance.git_facts(sub) == (head, True)
    assert provenance.git_facts(tmp_path) == (None, None)


def test_git_is_asked_once_per_folder_per_process(tmp_path, monkeypatch):
    calls = []
    real = subprocess.run
    monkeypatch.setattr(provenance.subprocess, "run",
                        lambda cmd, **kw: calls.append(cmd) or real(cmd, **kw))
    folder = tmp_path / "once"
    folder.mkdir()
    first = provenance.git_facts(folder)
    assert provenance.git_facts(folder) == first
    assert len(calls) == 1  # outside a checkout: rev-parse fails, status is not asked


def test_the_build_id_follows_the_bytes_of_the_binary(tmp_path):
    binary = tmp_path / "engine"
    binary.write_bytes(b"\x7fELF one")
    one = provenance.engine_build(binary)
    assert one == build_of(binary)
    with open(binary, "ab") as f:
        f.write(b"!")
    assert provenance.engine_build(binary) == build_of(binary) != one


def test_emu_record_carries_provenance_of_the_emulator(tmp_path, monkeypatch):
    fake = tmp_path / "rxb-emu"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("RXB_EMU_BIN", str(fake))
    doc = valid_output("privring")
    doc["metrics"]["emulator"] = {"dispatch_mpps": None, "cycles_per_packet": None,
                                  "loaded_cycles_per_packet": None, "idle_share": None,
                                  "dispatched": 0, "buffer_mismatch": 0, "swaps": 0,
                                  "nic_lcores": 1,
                                  "cost": {"nic_cycles_per_packet": None,
                                           "nic_ns_per_packet": None, "capacity_mpps": None,
                                           "nic_stage_cycles_per_packet":
                                               dict.fromkeys(emu.NIC_STAGES),
                                           "added_latency_ns": None}}
    monkeypatch.setattr(emu, "_invoke", lambda *a, **k: (doc, []))
    prov = emu.run(None, ["system.cores=2"]).record["provenance"]
    assert list(prov) == list(provenance.KEYS) and provenance.problems(prov) == []
    assert prov["engine_build"] == build_of(fake)


@pytest.mark.parametrize("change, problem", [
    (lambda r: r.pop("provenance"), "provenance: expected an object, got None"),
    (lambda r: r["provenance"].pop("host"), "provenance: expected exactly the keys commit"),
    (lambda r: r["provenance"].update(extra=1), "provenance: expected exactly the keys"),
    (lambda r: r["provenance"].update(dirty="yes"),
     "provenance.dirty: expected a boolean or null, got 'yes'"),
    (lambda r: r["provenance"].update(engine_build=None),
     "provenance.engine_build: expected a string, got None"),
])
def test_record_problems_require_a_whole_provenance(make_engine, tmp_path, change, problem):
    make_engine(GOOD_ENGINE)
    out = tmp_path / "o"
    outcome = execute(plan(None, {"arch.name": ["rxbisect"]}, 1, SHORT), out, jobs=1,
                      progress=False)
    (rec,) = outcome.records
    assert records.problems(rec) == []
    change(rec)
    assert any(problem in p for p in records.problems(rec)), records.problems(rec)


# ---- reuse ------------------------------------------------------------------------------

def test_points_recorded_by_another_engine_are_re_run_and_said_so(make_engine, tmp_path,
                                                                  monkeypatch):
    first = make_engine(GOOD_ENGINE)
    out = tmp_path / "o"
    p = run_cli(*sweep_args(out))
    assert p.returncode == 0, p.stderr
    assert notices(p.stderr) == []
    p = run_cli(*sweep_args(out))  # the same engine: everything is reused, silently
    assert "3 points: 0 run now, 3 already recorded" in p.stdout and notices(p.stderr) == []
    changed = tmp_path / "rxb-sim-2"
    shutil.copy(first, changed)
    with open(changed, "a") as f:
        f.write("\n# one byte more\n")
    monkeypatch.setenv("RXB_SIM_BIN", str(changed))
    p = run_cli(*sweep_args(out))
    assert p.returncode == 0, p.stderr
    assert notices(p.stderr) == ["rxb: 3 points re-run: engine changed"]
    assert "3 points: 3 run now, 0 already recorded" in p.stdout
    latest = {r["point_id"]: r for r in lines(out / records.FILE)}
    assert {r["provenance"]["engine_build"] for r in latest.values()} == {build_of(changed)}


def test_records_without_provenance_are_stale_with_one_notice(make_engine, tmp_path):
    make_engine(GOOD_ENGINE)
    out = tmp_path / "o"
    assert run_cli(*sweep_args(out)).returncode == 0
    path = out / records.FILE
    old = [{k: v for k, v in r.items() if k != "provenance"} for r in lines(path)]
    path.write_text("".join(json.dumps(r) + "\n" for r in old[:2]))  # an older folder
    p = run_cli(*sweep_args(out))
    assert p.returncode == 0, p.stderr
    assert notices(p.stderr) == ["rxb: 2 points re-run: no provenance (recorded by an older "
                                 "rxb)"]
    assert "3 points: 3 run now, 0 already recorded" in p.stdout


def test_a_changed_cost_profile_re_runs_the_points(make_engine, tmp_path):
    make_engine(GOOD_ENGINE)
    costs = tmp_path / "costs.toml"
    study = (REPO / "python/rxbisect/vocab/costs/study.toml").read_text()
    costs.write_text(study)
    out = tmp_path / "o"
    args = sweep_args(out, "--set", f"workload.costs={costs}")
    assert run_cli(*args).returncode == 0
    # another NF's number: this point's config, hence its id, stays the same
    costs.write_text(study.replace("\nkvs = ", "\nkvs = 1", 1))
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    assert notices(p.stderr) == ["rxb: 3 points re-run: cost profile changed"]


def _one_packet_pcap(path: Path, byte: int) -> Path:
    """A pcap of one 60-byte frame filled with `byte` (the fake engine does not read it)."""
    path.write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
                     + struct.pack("<IIII", 0, 0, 60, 60) + bytes([byte]) * 60)
    return path


def test_a_trace_written_again_at_its_path_re_runs_the_points(make_engine, tmp_path):
    """The scenario holds only the trace's path: a new trace at the same path was reused as
    the old one's results ("0 run now, 3 already recorded")."""
    make_engine(GOOD_ENGINE)
    trace, out = _one_packet_pcap(tmp_path / "t.pcap", 1), tmp_path / "o"
    args = sweep_args(out, "--set", "traffic.pattern=trace", "--set", f"traffic.pcap={trace}")
    assert run_cli(*args).returncode == 0
    assert {r["provenance"]["trace_hash"] for r in lines(out / records.FILE)} == \
        {provenance.trace_hash(str(trace))}
    _one_packet_pcap(trace, 2)
    p = run_cli(*args)
    assert p.returncode == 0, p.stderr
    assert notices(p.stderr) == ["rxb: 3 points re-run: trace changed"]
    assert "3 points: 3 run now, 0 already recorded" in p.stdout


def test_a_worker_whose_trace_differs_refuses_the_point(tmp_path):
    trace = _one_packet_pcap(tmp_path / "t.pcap", 1)
    (point,) = plan(None, {"arch.name": ["rxbisect"]}, None,
                    [*SHORT, "traffic.pattern=trace", f"traffic.pcap={trace}"])
    _one_packet_pcap(trace, 2)  # what this "worker" finds at the path
    with pytest.raises(EngineError, match="reads other files than the plan did "
                                          r"\(trace changed: a trace or cost profile"):
        run_point(point.task)


def test_records_from_before_trace_hash_are_valid_and_re_run():
    prov = {k: "x" for k in provenance.KEYS if k not in ("dirty", "trace_hash")}
    assert provenance.problems({**prov, "dirty": False}) == []
    assert provenance.stale({"provenance": prov}, {"trace_hash": None}) is None
    assert provenance.stale({"provenance": prov}, {"trace_hash": "t"}) == \
        "no trace_hash (recorded by an older rxb)"
    assert provenance.stale({"provenance": {**prov, "trace_hash": "s"}},
                            {"trace_hash": "t"}) == "trace changed"


def test_reasons_are_counted_per_kind_in_one_line():
    rec = {"provenance": {"engine_build": "a", "profile_hash": "p", "costs_hash": "c"}}
    want = {"engine_build": "a", "profile_hash": "p", "costs_hash": "c"}
    assert provenance.stale(rec, want) is None
    assert provenance.stale(rec, {**want, "profile_hash": "q"}) == "hardware profile changed"
    assert provenance.stale(rec, {**want, "engine_build": None}) is None  # unknown: kept
    assert provenance.stale({}, want) == provenance.MISSING
    from rxbisect.study.sweeps import rerun_text
    assert rerun_text({"engine changed": 1}) == "1 point re-run: engine changed"
    assert rerun_text({"engine changed": 2, provenance.MISSING: 1}) == \
        f"3 points re-run: engine changed (2), {provenance.MISSING} (1)"


def test_a_repro_rerun_with_another_engine_runs_its_points_again(make_engine, tmp_path,
                                                                 monkeypatch, capsys):
    make_engine(GOOD_ENGINE)
    exp = tmp_path / "tiny.toml"
    exp.write_text(TINY_EXPERIMENT)
    out = tmp_path / "o"
    kw = dict(quick=True, seeds=1, out=out, jobs=2, progress=False)
    reproduce.repro(str(exp), **kw)
    capsys.readouterr()
    monkeypatch.setattr(provenance, "engine_build", lambda binary: "0123456789ab")
    reproduce.repro(str(exp), **kw)
    assert notices(capsys.readouterr().err) == ["rxb: 4 points re-run: engine changed"]
    lines = (out / "tiny.jsonl").read_text().splitlines()
    assert len(lines) == 8  # the re-runs are appended; the first run's records stay
    recs = records.read(out, stem="tiny")  # the current record of each point: the re-run's
    assert len(recs) == 4 and all(records.problems(r) == [] for r in recs)
    assert {r["provenance"]["engine_build"] for r in recs} == {"0123456789ab"}
