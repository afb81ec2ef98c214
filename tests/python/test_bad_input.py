"""Bad input at the `rxb` command line: every row is one mistake a user made, the exit code
it must give and the field the last line of stderr must name. That line is the whole
answer: one line, `rxb: error: ...` (or `rxb: warning: ...` for input that runs but is not
what the user meant), never a traceback. Rows are refused before anything runs, or run
the engine for a millisecond or two.

Also here: the package's documented Python API (rxbisect/__init__.py) exists as written.
"""

import ast
import doctest
import inspect
import re

import pytest

import rxbisect
from conftest import REPO, needs_engine, valid_output
from rxbisect.commands import cli
from rxbisect.study import compare
from rxbisect.tools import darkpackets
from rxbisect.vocab import profile, scenario

PCAP = str(REPO / "tests" / "fuzz" / "seeds" / "pcap" / "eth_v6_ns_be.pcap")
SHORT = ("--set", "run.duration_ms=2", "--set", "run.warmup_ms=1")

# (argv, exit code, what the last line of stderr names)
REFUSED = [
    # a key given twice: the second value used to win silently
    (["sim", "--set", "run.duration_ms=2", "--set", "run.duration_ms=3"], 2, "run.duration_ms"),
    (["compare", "--set", "traffic.rate_gbps=50", "--set", "traffic.rate_gbps=60"], 2,
     "traffic.rate_gbps"),
    (["sweep", "--grid", "run.seed=1,2", "--set", "arch.name=shring",
      "--set", "arch.name=privring"], 2, "arch.name"),
    (["scenario", "show", "--set", "system.cores=8", "--set", "system.cores=4"], 2,
     "system.cores"),
    (["emu", "--set", "run.duration_ms=5", "--set", "run.duration_ms=6"], 2, "run.duration_ms"),
    # --timeout: a run cannot finish within no time
    (["sim", "--timeout", "-1"], 2, "--timeout"),
    (["sim", "--timeout", "0"], 2, "--timeout"),
    (["sim", "--timeout", "nan"], 2, "--timeout"),
    (["emu", "--timeout", "-1"], 2, "--timeout"),
    # the longest run.duration_ms with the default sample interval: too many samples
    (["sim", "--set", "run.duration_ms=1000000"], 2, "run.sample_ms"),
    (["sim", "--set", "run.duration_ms=200", "--set", "run.sample_ms=0.001"], 2,
     "run.sample_ms"),
    (["compare", "--set", "run.duration_ms=1000000"], 2, "run.sample_ms"),
    # one key's value
    (["sim", "--set", "run.duration_ms=0"], 2, "run.duration_ms"),
    (["sim", "--set", "arch.name=ringy"], 2, "arch.name"),
    (["sim", "--set", "arch.nosuch=1"], 2, "arch.nosuch"),
    (["sim", "--set", "arch.rx_size=1000"], 2, "arch.rx_size"),
    (["sim", "--set", "system.cores=0"], 2, "system.cores"),
    (["sim", "--set", "traffic.packet_bytes=true"], 2, "traffic.packet_bytes"),
    # past what the simulator's JSON configuration carries (its parser refused it, naming a
    # line of a temporary file)
    (["sim", "--set", f"run.seed={2**63}"], 2, "run.seed"),
    # keys together
    (["sim", "--set", "run.warmup_ms=20"], 2, "run.warmup_ms"),
    (["sim", "--set", "traffic.rate_gbps=1000"], 2, "traffic.rate_gbps"),
    (["sim", "--set", "traffic.pattern=trace"], 2, "traffic.pcap"),
    (["sim", "--set", "system.cores=100"], 2, "system.cores"),
    (["sim", "no-such-scenario"], 2, "no-such-scenario"),
    # compare chooses the design itself
    (["compare", "--set", "arch.name=privring"], 2, "arch.name"),
    (["compare", "--jobs", "0"], 2, "--jobs"),
    (["compare", "--plot", "/proc/self"], 2, "--plot"),
    # a sweep over keys that change nothing
    (["sweep", "--set", "arch.name=privring", "--grid", "arch.ax_size=64,128,256"], 2,
     "arch.ax_size"),
    (["sweep", "--grid", "traffic.burst_packets=16,32"], 2, "traffic.burst_packets"),
    (["sweep", "--grid", "arch.name=privring,shring", "--grid", "arch.spool_ports=4,8"], 2,
     "arch.spool_ports"),
    (["sweep", "--grid", "arch.ax_size=64", "--grid", "arch.ax_size=128"], 2, "arch.ax_size"),
    (["sweep", "--grid", "arch.ax_size=64,64"], 2, "arch.ax_size"),
    (["sweep", "--grid", "arch.nosuch=1,2"], 2, "arch.nosuch"),
    (["sweep", "--grid", "emu.port=1,2"], 2, "emu.port"),
    (["sweep", "--grid", "run.seed=1,2", "--seeds", "0"], 2, "--seeds"),
    (["sweep", "--grid", "run.seed=1,2", "--jobs", "0"], 2, "--jobs"),
    (["scenario", "keys", "nosection"], 2, "nosection"),
    # calculators
    (["size", "--cores-per-nic", "8,x"], 2, "--cores-per-nic"),
    (["size", "--ddio-ways", "99"], 2, "--ddio-ways"),
    (["size", "--traffic-gbps", "100"], 2, "--traffic-gbps"),
    (["dark", "--packet-bytes", "10"], 2, "packet_bytes"),
    (["dark", "--cores", "0"], 2, "cores"),
    (["dark", "--dram-ns", "-5"], 2, "--dram-ns"),
    (["dark", "--link-gbps", "fast"], 2, "--link-gbps"),
    # experiments and the calibration check
    (["repro", "no-such-experiment"], 2, "no-such-experiment"),
    (["repro", "ring-size", "--seeds", "0"], 2, "--seeds"),
    (["fidelity", "--points", "/nonexistent/points.toml"], 2, "/nonexistent/points.toml"),
    (["fidelity", "--fit", "--quick"], 2, "--out"),
]

# input that runs, with one warning line naming the key that did nothing
WARNED = [
    (["scenario", "show", "--set", "arch.name=privring", "--set", "arch.ax_size=256"],
     "arch.ax_size has no effect for arch privring (it applies to rxbisect)"),
    (["scenario", "show", "--set", f"traffic.pcap={PCAP}"],
     "traffic.pcap has no effect for pattern constant (it applies to trace)"),
    (["scenario", "show", "--set", "arch.name=shring", "--set", "arch.spool_mode=basic"],
     "arch.spool_mode has no effect for arch shring (it applies to spool)"),
    (["scenario", "show", "--set", "emu.sink=true"],
     "emu.sink has no effect in the simulator (it applies to rxb-emu)"),
    (["scenario", "show", "traffic-var", "--set", "traffic.pattern=poisson"],
     "traffic.target_share has no effect for pattern poisson (it applies to target)"),
    (["scenario", "show", "reference", "--set", "workload.reads=5"],
     "workload.reads has no effect for workload.nf lb (it applies to synthetic)"),
]


def _run(argv, capsys) -> tuple[int, str, str]:
    try:
        rc = cli.main(argv)
    except SystemExit as e:  # argparse
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def _last_line(err: str) -> str:
    assert err.endswith("\n") and "Traceback" not in err, err
    return err.splitlines()[-1]


@pytest.mark.parametrize("argv,code,field", REFUSED, ids=[" ".join(r[0]) for r in REFUSED])
def test_bad_input_is_one_line_naming_the_field(argv, code, field, capsys, monkeypatch,
                                                tmp_path):
    monkeypatch.chdir(tmp_path)  # were a row to run after all, its results land here
    rc, _, err = _run(argv, capsys)
    last = _last_line(err)
    assert rc == code, err
    assert last.startswith("rxb: error: ") and field in last, last


@pytest.mark.parametrize("argv,warning", WARNED, ids=[" ".join(r[0]) for r in WARNED])
def test_a_key_without_effect_gets_one_warning(argv, warning, capsys):
    rc, out, err = _run(argv, capsys)
    assert rc == 0, err
    assert err.splitlines() == [f"rxb: warning: {warning}"]
    assert "[arch]" in out  # the scenario is still shown


def test_a_scenario_file_spelling_out_defaults_is_not_warned_about(capsys):
    """reference.toml names arch.ax_size = 128, the default: a privring run of it chose
    nothing about Ax rings."""
    rc, _, err = _run(["scenario", "show", "reference", "--set", "arch.name=privring"], capsys)
    assert rc == 0 and err == ""


def test_compare_warns_about_a_key_no_design_it_runs_reads():
    assert compare.idle_keys(["arch.spool_mode=basic", "arch.ax_size=256"]) == [
        "arch.spool_mode has no effect for arch privring (it applies to spool); it changes no "
        "run of rxb compare"]


def test_the_no_effect_rule_reads_the_vocabulary():
    """Every key's scope names values of arch.name, traffic.pattern, emu.source and
    workload.nf, and a key without a scope applies everywhere."""
    for info in scenario.SCHEMA.keys():
        for eng in scenario.ENGINES:
            archs, patterns, sources, nfs = scenario.scope(info.full, eng)
            assert archs and set(archs) <= set(scenario.ARCHS), info.full
            assert patterns and set(patterns) <= set(scenario.PATTERNS), info.full
            assert sources and set(sources) <= set(scenario.SOURCES), info.full
            assert nfs and set(nfs) <= set(scenario.NFS), info.full
    assert scenario.no_effect("arch.batch", "privring", "trace") is None
    # the emulator replays traffic.pcap through its pcap source whatever the pattern ...
    assert scenario.no_effect("traffic.pcap", "rxbisect", "constant", "emu", "pcap") is None
    # ... and no other source reads it
    assert scenario.no_effect("traffic.pcap", "rxbisect", "constant", "emu", "gen") == (
        "traffic.pcap has no effect for emu.source gen (it applies to pcap)")
    assert scenario.no_effect("emu.port", "rxbisect", "constant", "emu", "null") == (
        "emu.port has no effect for emu.source null (it applies to port)")
    # the simulator's every NF makes target reads; the emulator's synthetic NF alone
    assert scenario.no_effect("workload.target_reads", "shring", "target", nf="nat") is None
    assert scenario.no_effect("workload.target_reads", "shring", "target", "emu", "gen",
                              "nat") == ("workload.target_reads has no effect for workload.nf "
                                         "nat (it applies to synthetic)")


@needs_engine
def test_packets_in_flight_are_shown_and_warned_about(capsys):
    """spool on a 2 ms run ends with most packets still in flight: the table says so and
    delivered + dropped + in flight = offered."""
    rc, out, err = _run(["sim", "--set", "arch.name=spool", *SHORT], capsys)
    assert rc == 0, err
    share = float(re.search(r"in flight at the end\s+([\d.]+) %", out).group(1))
    assert share > 2
    last = _last_line(err)
    assert last == (f"rxb: warning: {share:.1f} % of offered packets were still in flight at "
                    "the end: lengthen run.duration_ms")


@needs_engine
def test_sweep_table_has_the_in_flight_share(capsys, tmp_path):
    rc, out, err = _run(["sweep", "--grid", "run.seed=1,2", "--set", "arch.name=privring",
                         *SHORT, "--out", str(tmp_path), "--no-progress"], capsys)
    assert rc == 0, err
    assert "in flight %" in out.splitlines()[0]


def test_compare_keeps_its_table_when_the_plot_cannot_be_written(capsys, monkeypatch,
                                                                 tmp_path):
    """The folder was writable when checked but not when the figure is saved: the table
    printed after the runs stays, and the failure is one line."""
    points = [compare.Point(a, s, valid_output(a)) for s in compare.SCENARIOS
              for a in compare.ARCHS]
    monkeypatch.setattr(compare, "run", lambda *a, **k: points)

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")
    import matplotlib.figure
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", refuse)
    rc, out, err = _run(["compare", "--plot", str(tmp_path)], capsys)
    assert rc == 2
    assert "in flight %" in out and "rxbisect" in out
    assert _last_line(err).startswith(f"rxb: error: --plot {tmp_path}: cannot write there")


def test_dark_answers_the_same_from_the_command_and_the_api(capsys):
    rc, out, _ = _run(["dark", "--json"], capsys)
    assert rc == 0
    import json
    cli_point = json.loads(out)["points"][0]
    api_point = rxbisect.dark(100.0, 64).to_dict()
    assert cli_point == api_point
    assert api_point["dram_ns"] == profile.load(darkpackets.DEFAULT_PROFILE).dram.idle_ns


def _documented_calls() -> list[ast.Call]:
    """The `rxbisect.X(...)` calls the package docstring lists, as expressions."""
    calls = []
    for line in rxbisect.__doc__.splitlines():
        text = line.strip().split("  ")[0]
        if text.startswith("rxbisect."):
            tree = ast.parse(text.replace("...", "Ellipsis"), mode="eval")
            calls += [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    return calls


def _target(node: ast.expr):
    path = ast.unparse(node).split(".")
    assert path[0] == "rxbisect", path
    obj = rxbisect
    for name in path[1:]:
        obj = getattr(obj, name)  # AttributeError: the docstring names what does not exist
    return obj


def test_the_documented_api_exists_as_written():
    calls = _documented_calls()
    assert len(calls) >= 9
    for call in calls:
        fn = _target(call.func)
        args = [a for a in call.args if not (isinstance(a, ast.Name) and a.id == "Ellipsis")]
        kwargs = {k.arg: None for k in call.keywords}
        sig = inspect.signature(fn)
        # TypeError: no such parameter, or (without "...") a required one left out
        (sig.bind_partial if len(args) < len(call.args) else sig.bind)(*args, **kwargs)


def test_the_docstring_examples_run():
    result = doctest.testmod(rxbisect, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


def test_the_python_sweep_refuses_a_grid_without_effect_as_the_cli_does():
    """rxbisect.sweep() with arch.ax_size on privRing: the same refusal as `rxb sweep`."""
    from rxbisect.errors import UsageError
    with pytest.raises(UsageError, match=r"^grid arch.ax_size: arch.ax_size has no effect for "
                                         r"arch privring .*every point would be the same run"):
        rxbisect.sweep("reference", grid={"arch.ax_size": [64, 128]},
                       sets=["arch.name=privring"])
    # a key of another network function: the reference runs lb
    with pytest.raises(UsageError, match=r"^grid workload.reads: workload.reads has no effect "
                                         r"for workload.nf lb .*every point would be"):
        rxbisect.sweep("reference", grid={"workload.reads": [1, 2]})
