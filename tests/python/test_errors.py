"""Every class of bad input gives ONE message naming the key, the value and what
is allowed — in-process as a ScenarioError, and through the CLI as one stderr
line `rxb: error: ...` with exit code 2 and no traceback."""

import struct

import pytest

from conftest import run_cli
from rxbisect.errors import ScenarioError
from rxbisect.vocab import scenario

PROFILE_MISSING_WAYS = "profile_missing"
PROFILE_BAD_WAYS = "profile_bad"
PCAP_NOT_A_CAPTURE = "pcap_not_a_capture"
PCAP_EMPTY = "pcap_empty"  # a file header and no record
PCAP_CUT = "pcap_cut"  # a record cut inside its data

# id: (scenario file text or None, --set list, substrings the message must contain)
CASES = {
    "unknown key (file)": ("[traffic]\nrat_gbps = 3\n", [],
                           ["unknown key 'traffic.rat_gbps' (did you mean 'traffic.rate_gbps'?)"]),
    "unknown key (--set)": (None, ["traffic.rat_gbps=3"],
                            ["unknown key 'traffic.rat_gbps' (did you mean 'traffic.rate_gbps'?)"]),
    "unknown section": ("[trafic]\nrate_gbps = 3\n", [],
                        ["unknown section 'trafic' (did you mean 'traffic'?)"]),
    "key outside a section": ("rate_gbps = 3\n", [],
                              ["unknown key 'rate_gbps' (did you mean 'traffic.rate_gbps'?)"]),
    "section is not a table": ("traffic = 3\n", [], ["[traffic] must be a table"]),
    "set without section": (None, ["rate_gbps=3"],
                            ["expected section.key=value", "traffic.rate_gbps"]),
    "set without =": (None, ["traffic.rate_gbps"], ["expected section.key=value"]),
    "wrong type (file)": ('[traffic]\nrate_gbps = "fast"\n', [],
                          ["traffic.rate_gbps = 'fast': wrong type (a string)",
                           "allowed: a number > 0 and <= 100000 (Gbps)"]),
    "wrong type (--set)": (None, ["traffic.rate_gbps=fast"],
                           ["traffic.rate_gbps = 'fast'", "allowed: a number > 0 and <= 100000 (Gbps)"]),
    "bool for int": ("[arch]\nbx_size = true\n", [],
                     ["arch.bx_size = true: wrong type (a boolean)", "power-of-two"]),
    "float for int": ("[arch]\nbx_size = 1024.0\n", [], ["arch.bx_size = 1024: wrong type"]),
    "bad bool (--set)": (None, ["arch.emulated=maybe"],
                         ["arch.emulated = 'maybe'", "allowed: true or false"]),
    "list element": ('[system]\nslow_cores = [1, "a"]\n', [],
                     ["system.slow_cores = [1, 'a']: wrong type", "a list of integers"]),
    "not finite": (None, ["traffic.rate_gbps=nan"], ["traffic.rate_gbps = nan: not a finite"]),
    "out of range (fraction)": (None, ["traffic.target_share=1.5"],
                                ["traffic.target_share = 1.5: out of range",
                                 "allowed: a number from 0 to 1"]),
    "out of range (open bound)": (None, ["traffic.rate_gbps=0"],
                                  ["traffic.rate_gbps = 0: out of range", "> 0"]),
    "negative list element": (None, ["system.stalled_cores=-1"],
                              ["system.stalled_cores = [-1]: out of range"]),
    # said "no such file" of a folder that exists
    "profile is a folder": (None, ["system.profile=/tmp"],
                            ["system.profile = '/tmp': a folder, not a profile file"]),
    # said "allowed: 64 to -63488", blaming the frame
    "headroom leaves no frame": (None, ["arch.headroom_bytes=65536"],
                                 ["arch.headroom_bytes = 65536: leaves less than a 64-byte frame",
                                  "allowed: 0 to 1984"]),
    # skipped, it stalled cores 0 and 1
    "empty list item": (None, ["system.stalled_cores=[0,,1]"],
                        ["system.stalled_cores = '[0,,1]': item 2 is empty"]),
    "not a power of two": (None, ["arch.bx_size=1000"],
                           ["arch.bx_size = 1000: not a power of two", "power-of-two integer"]),
    "Ax below vendor minimum": (None, ["arch.ax_size=32"],
                                ["arch.ax_size = 32: out of range", "from 64"]),
    "unknown choice": (None, ["arch.name=rxbisec"],
                       ["arch.name = 'rxbisec': unknown value (did you mean 'rxbisect'?)",
                        "one of privring, small_privring"]),
    "unreadable pcap": (None, ["traffic.pcap=/nonexistent/t.pcap"],
                        ["traffic.pcap = '/nonexistent/t.pcap': cannot read the file"]),
    "pcap is a folder": (None, ["traffic.pcap=/"], ["traffic.pcap = '/': cannot read the file"]),
    "pcap is not a capture": (None, ["traffic.pattern=trace", PCAP_NOT_A_CAPTURE],
                              ["traffic.pcap = '", "is neither pcap",
                               "allowed: a whole pcap or pcapng capture"]),
    # replayed a silent 0 Gbps
    "pcap without packets": (None, ["traffic.pattern=trace", PCAP_EMPTY],
                             ["traffic.pcap = '", "': no packets (a trace to replay needs one)",
                              "allowed: a whole pcap or pcapng capture with at least one packet"]),
    # failed as "rxb-sim rejected the configuration", exit 1
    "pcap cut short": (None, ["traffic.pattern=trace", PCAP_CUT],
                       ["traffic.pcap = '", "offset 40: truncated packet data"]),
    "trace without pcap": (None, ["traffic.pattern=trace"],
                           ["traffic.pcap = '': required when traffic.pattern = 'trace'"]),
    "more cores than the socket": (None, ["system.cores=32"],
                                   ["system.cores = 32", "16 cores per socket", "1 to 16"]),
    "rate above link": (None, ["traffic.rate_gbps=150"],
                        ["traffic.rate_gbps = 150: exceeds the 100 Gbps link"]),
    "share degree": (None, ["arch.name=shring", "arch.share_degree=3"],
                     ["arch.share_degree = 3: must divide"]),
    "cores per NIC": (None, ["system.cores_per_nic=8,4"],
                      ["system.cores_per_nic = [8, 4]", "adding up to system.cores = 16"]),
    "core id": (None, ["system.slow_cores=16"], ["system.slow_cores = [16]: core 16 does not"]),
    # two spellings of one set were two sweep points
    "core listed twice": (None, ["system.stalled_cores=[0,1,1]"],
                          ["system.stalled_cores = [0, 1, 1]: core 1 is listed twice",
                           "allowed: each core once, in ascending order: [0, 1]"]),
    "frame larger than buffer": (None, ["traffic.packet_bytes=4000"],
                                 ["traffic.packet_bytes = 4000: does not fit", "64 to 2048"]),
    "bursts above link": (None, ["traffic.pattern=onoff", "traffic.burst_duty=0.25"],
                          ["traffic.burst_duty = 0.25", "above the 100 Gbps link"]),
    "warm-up": (None, ["run.warmup_ms=10"], ["run.warmup_ms = 10: not shorter"]),
    "ddio ways": (None, ["system.ddio_ways=12"], ["system.ddio_ways = 12", "0 to 11"]),
    "bad TOML": ("[traffic\nrate_gbps = 3\n", [], ["not valid TOML", "line 1"]),
    "unknown profile": (None, ["system.profile=refrence"],
                        ["system.profile = 'refrence'", "(did you mean 'reference'?)"]),
    "profile missing a key": (None, [PROFILE_MISSING_WAYS], ["missing key 'llc.ways'"]),
    "profile with a bad value": (None, [PROFILE_BAD_WAYS],
                                 ["llc.ways = 0: out of range", "allowed: an integer from 1 to 1024"]),
}


def _prepare(tmp_path, text, sets):
    """Write the scenario file and the broken profiles the cases refer to."""
    from rxbisect.vocab import profile
    ref = profile.locate("reference").read_text()
    (tmp_path / "missing.toml").write_text(ref.replace("ways = 11 ", "# no ways "))
    (tmp_path / "bad.toml").write_text(ref.replace("ways = 11 ", "ways = 0 "))
    pcap_head = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
    (tmp_path / "empty.pcap").write_bytes(pcap_head)
    (tmp_path / "cut.pcap").write_bytes(pcap_head + struct.pack("<IIII", 0, 0, 60, 60) + bytes(10))
    sets = [{PROFILE_MISSING_WAYS: f"system.profile={tmp_path / 'missing.toml'}",
             PROFILE_BAD_WAYS: f"system.profile={tmp_path / 'bad.toml'}",
             PCAP_NOT_A_CAPTURE: f"traffic.pcap={tmp_path / 'bad.toml'}",
             PCAP_EMPTY: f"traffic.pcap={tmp_path / 'empty.pcap'}",
             PCAP_CUT: f"traffic.pcap={tmp_path / 'cut.pcap'}"}.get(s, s) for s in sets]
    path = None
    if text is not None:
        path = tmp_path / "scenario.toml"
        path.write_text(text)
    return path, sets


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_one_message_naming_the_key(case, tmp_path):
    text, sets, expected = CASES[case]
    path, sets = _prepare(tmp_path, text, sets)
    with pytest.raises(ScenarioError) as err:
        scenario.load_resolved(str(path) if path else None, sets)
    msg = str(err.value)
    assert "\n" not in msg
    for part in expected:
        assert part in msg


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_cli_exit_2_one_line_no_traceback(case, tmp_path):
    text, sets, expected = CASES[case]
    path, sets = _prepare(tmp_path, text, sets)
    args = ["scenario", "show"] + ([str(path)] if path else [])
    for s in sets:
        args += ["--set", s]
    p = run_cli(*args)
    assert p.returncode == 2
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rxb: error: ")
    for part in expected:
        assert part in lines[0]


def test_sim_validates_before_looking_for_the_engine(tmp_path):
    # Even with no engine anywhere, a bad scenario is a usage error (2), not an engine error.
    p = run_cli("sim", "--set", "traffic.rat_gbps=3",
                env={"RXB_SIM_BIN": str(tmp_path / "does-not-exist")})
    assert p.returncode == 2
    assert "unknown key 'traffic.rat_gbps' (did you mean 'traffic.rate_gbps'?)" in p.stderr


def test_missing_scenario_file_and_unknown_builtin(tmp_path):
    p = run_cli("scenario", "show", str(tmp_path / "nope.toml"))
    assert p.returncode == 2 and "nope.toml' not found" in p.stderr
    p = run_cli("scenario", "show", "refrence")
    assert p.returncode == 2 and "(did you mean 'reference'?)" in p.stderr


# Files tomllib cannot turn into values, and values Python cannot turn into
# floats or decimal text: one ScenarioError naming the file (or the key), as
# for any other bad input, not a traceback (fuzz_profile found these).
BAD_FILES = {
    "not UTF-8": (b"[traffic]\nrate_gbps = 3 # \xff\xfe\n", ["not UTF-8", "byte 0xff at offset 26"]),
    "integer of 4301 digits": (b"[traffic]\nflows = 1" + b"0" * 4300 + b"\n",
                               ["more than 4300 digits"]),
    "hexadecimal integer of 5058 digits": (b"[traffic]\nflows = 0x" + b"f" * 4200 + b"\n",
                                           ["more than 4300 digits"]),
    "nested too deeply": (b"[traffic]\nflows = " + b"[" * 2000 + b"]" * 2000 + b"\n",
                          ["nested too deeply"]),
}


@pytest.mark.parametrize("case", BAD_FILES, ids=list(BAD_FILES))
def test_unreadable_toml_is_one_error_naming_the_file(case, tmp_path):
    data, expected = BAD_FILES[case]
    path = tmp_path / "bad.toml"
    path.write_bytes(data)
    with pytest.raises(ScenarioError) as err:
        scenario.load_resolved(str(path), [])
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{path}: not valid TOML: ")
    for part in expected:
        assert part in msg
    p = run_cli("scenario", "show", str(path))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rxb: error: ") and str(path) in lines[0]


def test_integer_beyond_the_float_range_is_not_finite(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text("[traffic]\nrate_gbps = 1" + "0" * 400 + "\n")
    with pytest.raises(ScenarioError) as err:
        scenario.load_resolved(str(path), [])
    msg = str(err.value)
    assert "\n" not in msg
    assert "traffic.rate_gbps = 1000" in msg and ": not a finite number" in msg
    p = run_cli("scenario", "show", str(path))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.startswith("rxb: error: ") and "not a finite number" in p.stderr


def test_set_integer_too_long_to_print(tmp_path):
    # --set reads 0x... without Python's digit limit; the message cannot show it.
    with pytest.raises(ScenarioError) as err:
        scenario.load_resolved(None, ["arch.rx_size=0x" + "f" * 4200])
    assert str(err.value).startswith("--set: arch.rx_size = an integer of more than 4300 digits: "
                                     "out of range; allowed: a power-of-two integer")


def test_integer_bounds_past_a_double_are_written_in_full():
    # 2^63 - 1 was "9.223372036854776e+18": not a number the user can type back.
    with pytest.raises(ScenarioError) as err:
        scenario.load_resolved(None, ["run.seed=-1"])
    assert str(err.value).endswith("allowed: an integer from 0 to 9223372036854775807")


def test_cores_per_nic_entries_at_most_1024():
    # The engines' nic_of_core has RXB_MAX_CORES entries; the table bounds each entry.
    with pytest.raises(ScenarioError) as err:
        scenario.load_resolved(None, ["system.cores=8", "system.cores_per_nic=4294967295,9"])
    assert "system.cores_per_nic = [4294967295, 9]: out of range" in str(err.value)
    assert "from 1 to 1024" in str(err.value)
