"""The `rxb` command end to end (subprocesses, as a user runs it)."""

import json
import math
import tomllib

import pytest

from conftest import cli_json, run_cli
from rxbisect.engines import engine
from rxbisect.vocab import scenario


def test_scenario_keys_lists_every_key_with_type_default_allowed_unit():
    keys = cli_json("scenario", "keys", "--json")
    by_name = {k["key"]: k for k in keys}
    assert set(by_name) == {k.full for k in scenario.SCHEMA.keys()}
    rate = by_name["traffic.rate_gbps"]
    assert (rate["type"], rate["default"], rate["unit"]) == ("float", 100.0, "Gbps")
    assert "> 0 and <= 100000" in rate["allowed"] and rate["doc"]
    assert by_name["arch.rx_size"]["type"] == 'int or "auto"'
    assert "privring" in by_name["arch.name"]["allowed"]
    for name in ("arch.name", "arch.rx_size", "arch.ax_size", "arch.bx_size", "arch.emulated",
                 "system.profile", "system.cores", "system.nics", "traffic.rate_gbps",
                 "traffic.packet_bytes", "traffic.pattern", "traffic.target_share",
                 "workload.nf", "run.duration_ms", "run.seed"):
        assert name in by_name, name


def test_scenario_keys_text_and_section_filter():
    p = run_cli("scenario", "keys", "traffic")
    assert p.returncode == 0
    assert "traffic.rate_gbps  [float] = 100.0  (Gbps)" in p.stdout
    assert "arch.name" not in p.stdout
    assert run_cli("scenario", "keys", "trafic").returncode == 2


def test_scenario_show_toml_reloads_to_the_same_scenario(tmp_path):
    p = run_cli("scenario", "show", "proc-var", "--set", "workload.target_reads=500")
    assert p.returncode == 0, p.stderr
    shown = tmp_path / "shown.toml"
    shown.write_text(p.stdout)
    assert tomllib.loads(p.stdout)["workload"]["target_reads"] == 500
    again = run_cli("scenario", "show", str(shown))
    assert again.stdout.splitlines()[1:] == p.stdout.splitlines()[1:]  # line 0: profile path


def test_scenario_show_json_is_the_engine_config():
    cfg = cli_json("scenario", "show", "--json", "--set", "arch.name=small_privring")
    expected = engine.build_config(scenario.load_resolved(None, ["arch.name=small_privring"]))
    assert cfg == json.loads(json.dumps(expected))
    assert cfg["arch"]["rx_size"] == 128


def test_scenario_list_names_builtins_and_profiles():
    p = run_cli("scenario", "list")
    assert p.returncode == 0
    for name in ("reference", "proc-var", "traffic-var", "bursts", "large"):
        assert name in p.stdout


def test_sizing_reference_json():
    d = cli_json("sizing", "--json")
    assert (d["bx"], d["ax"], d["ddio_bytes"], d["conflict"]) == (1024, 128, 4 * 2**20, False)
    assert d["cores_per_nic"] == [8, 8]


def test_sizing_conflict_is_reported_in_the_table():
    p = run_cli("sizing", "--bx", "4096")
    assert p.returncode == 0
    assert "CONFLICT" in p.stdout and "gives up 'burst'" in p.stdout
    assert "128        4 MiB  yes   no     yes     <- chosen" in p.stdout


def test_sizing_uses_the_profile_and_traffic_split():
    d = cli_json("sizing", "--json", "--profile", "large", "--cores", "56",
                 "--traffic-gbps", "300,100")
    assert d["link_gbps"] == 400 and d["bx"] == 4096
    assert d["cores_per_nic"] == [42, 14]
    assert d["ddio_bytes"] == 105 * 2**20 * 2 // 15


def test_darkpackets_json_over_combinations():
    d = cli_json("darkpackets", "--json", "--packet-bytes", "64,1518", "--dram-ns", "100")
    gaps = [p["gap_ns"] for p in d["points"]]
    assert gaps == [6.72, 123.04]
    assert [p["keeps_up"] for p in d["points"]] == [False, True]


def test_darkpackets_default_latency_comes_from_the_profile():
    d = cli_json("darkpackets", "--json")
    from rxbisect.vocab import profile
    assert d["points"][0]["dram_ns"] == profile.load("reference").dram.idle_ns


def test_bad_arguments_exit_2_in_the_same_shape():
    p = run_cli("darkpackets", "--cores", "x")
    assert p.returncode == 2 and "rxb: error: argument --cores" in p.stderr
    p = run_cli("darkpackets", "--cores", "0")
    assert p.returncode == 2 and p.stderr.splitlines()[-1].startswith(
        "rxb: error: argument --cores: system.cores = 0: out of range")
    assert "Traceback" not in p.stderr


def test_negative_zero_latency_reads_as_zero():
    """--dram-ns -0 printed a -0 column and "dram_ns": -0.0."""
    d = cli_json("darkpackets", "--json", "--dram-ns", "-0")
    assert math.copysign(1.0, d["points"][0]["dram_ns"]) == 1.0


@pytest.mark.parametrize("args, option", [
    # an unset shell variable: the built-in calibration ran, nothing was kept, the sweep's
    # records went into the current folder, a report covered it
    (["sim", "--calibration", ""], "--calibration"),
    (["sim", "--keep-config", " "], "--keep-config"),
    (["sim", ""], "SCENARIO"),
    (["sweep", "--grid", "arch.ax_size=64", "--out", ""], "--out"),
    (["repro", "ring-size", "--quick", "--out", ""], "--out"),
    (["report", ""], "DIR"),
    (["report", "results", "--out", ""], "--out"),
    (["trace", "gen", ""], "OUT.pcap"),
    (["size", "--profile", ""], "--profile"),
])
def test_an_empty_path_is_refused(args, option):
    p = run_cli(*args)
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines()[-1] == (f"rxb: error: argument {option}: empty; allowed: a "
                                         "file, folder or name")


@pytest.mark.parametrize("args", [
    ["dark", "--profile", "refrence"],
    # --dram-ns replaces the profile's latency, and the profile was not read at all
    ["dark", "--profile", "refrence", "--dram-ns", "80"],
    ["size", "--profile", "refrence"],
])
def test_a_calculators_unknown_profile_is_blamed_on_profile(args):
    """The error named only the scenario key system.profile, which the command line lacks."""
    p = run_cli(*args)
    assert p.returncode == 2, p.stderr
    [line] = p.stderr.splitlines()
    assert line.startswith("rxb: error: --profile refrence: ") and "(did you mean 'reference'?)" in line


@pytest.mark.parametrize("args, message", [
    # argparse's own "invalid int value: 'abc'"
    (["sweep", "--jobs", "abc"], "argument --jobs: 'abc' is not an integer"),
    (["repro", "ring-size", "--seeds", "1.5"], "argument --seeds: '1.5' is not an integer"),
])
def test_a_count_that_is_no_integer(args, message):
    p = run_cli(*args)
    assert p.returncode == 2 and p.stderr.splitlines()[-1] == f"rxb: error: {message}"


def test_no_command_prints_help_and_exits_2():
    p = run_cli()
    assert p.returncode == 2 and "sim" in p.stderr and "sizing" in p.stderr


def test_console_script_is_declared_and_installed():
    import sys
    from pathlib import Path

    from conftest import REPO
    meta = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())
    assert meta["project"]["scripts"]["rxb"] == "rxbisect.commands.cli:main"
    assert "pytest" in " ".join(meta["project"]["optional-dependencies"]["test"])
    script = Path(sys.executable).parent / "rxb"
    if script.exists():  # installed with pip install -e "python[test]"
        import subprocess
        out = subprocess.run([str(script), "--version"], capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.startswith("rxb ")


def test_sim_warns_about_keys_only_the_emulator_honours():
    p = run_cli("sim", "--set", "run.duration_ms=0.5", "--set", "run.warmup_ms=0.1",
                "--set", "emu.sink=true", "--set", "arch.name=privring")
    assert p.returncode == 0, p.stderr
    assert "rxb: warning: emu.sink has no effect in the simulator (it applies to rxb-emu)\n" \
        in p.stderr


@pytest.mark.parametrize("args, measuring, line", [
    (["calibrate", "--quick", "--out", "/proc/x.json", "--no-progress"],
     ("rxbisect.study.calibrate", "_bench_rings"),
     "rxb: error: --out /proc/x.json: cannot write it (No such file or directory)"),
    (["calibrate", "--costs", "/proc/x.toml", "--quick", "--no-progress"],
     ("rxbisect.study.nf_costs", "measure_one"),
     "rxb: error: --costs /proc/x.toml: cannot write it (No such file or directory)"),
    (["fidelity", "--fit", "--quick", "--out", "/proc/x.toml", "--jobs", "1"],
     ("rxbisect.study.fidelity_fit", "fit"),
     "rxb: error: --out /proc/x.toml: cannot write it (No such file or directory)"),
])
def test_a_file_that_cannot_be_written_is_refused_before_measuring(args, measuring, line,
                                                                   monkeypatch, capsys):
    """The measurements (seconds to minutes) ran first and were thrown away."""
    import importlib

    from rxbisect.commands.cli import main

    def measured(*a, **kw):
        raise AssertionError("measured before the output file was checked")
    monkeypatch.setattr(importlib.import_module(measuring[0]), measuring[1], measured)
    assert main(args) == 2
    assert capsys.readouterr().err.splitlines()[-1] == line
