"""Scenario loading: defaults = reference setup, TOML merge, typed --set, resolution."""

import re
import struct
import tomllib

import pytest

from rxbisect.errors import ScenarioError
from rxbisect.vocab import scenario
from rxbisect.vocab.schema import AUTO


def test_defaults_reproduce_the_reference_setup():
    s = scenario.load()
    assert (s.system.cores, s.system.nics, s.system.profile) == (16, 2, "reference")
    assert (s.traffic.rate_gbps, s.traffic.packet_bytes) == (100.0, 1518)  # 2 x 100 Gbps
    assert s.workload.nf == "lb"
    assert (s.arch.ax_size, s.arch.bx_size) == (128, 1024)
    assert s.arch.rx_size == AUTO


@pytest.mark.parametrize("arch, rx", [("privring", 1024), ("small_privring", 128),
                                      ("shring", 1024)])
def test_ring_size_auto_follows_the_reference(arch, rx):
    r = scenario.load_resolved(None, [f"arch.name={arch}"])
    assert r.scenario.arch.rx_size == rx


def test_resolution_fills_every_auto_from_profile_and_interface():
    r = scenario.load_resolved(None, ["arch.name=shring"])
    a, sy = r.scenario.arch, r.scenario.system
    assert sy.cores_per_nic == (8, 8)  # 8 cores per NIC (docs/evaluation.md §2.4)
    assert a.share_degree == 8  # one shared ring per NIC
    assert sy.ddio_ways == 2 and sy.mlp == r.profile.cpu.mlp
    assert a.buffer_bytes == 2048 and a.cr_size == 1024
    flat = [v for sec in r.scenario.sections().values() for v in sec.values()]
    assert AUTO not in flat


def test_toml_file_is_merged_over_defaults(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('description = "x"\n[traffic]\nrate_gbps = 40\n[arch]\nname = "privring"\n')
    s = scenario.load(str(f))
    assert s.traffic.rate_gbps == 40.0 and isinstance(s.traffic.rate_gbps, float)
    assert s.arch.name == "privring"
    assert s.traffic.packet_bytes == 1518  # untouched keys keep defaults
    assert s.description == "x"


def test_set_overrides_the_file_and_is_typed_by_the_key(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("[traffic]\nrate_gbps = 40\n")
    s = scenario.load(str(f), [
        "traffic.rate_gbps=25",  # float key, written as an int
        "arch.bx_size=2048",  # int
        "arch.emulated=true",  # bool
        "workload.nf=nat",  # string choice
        "system.slow_cores=1,3",  # list of int
        "system.stalled_cores=[2]",  # list, TOML-ish
        "arch.rx_size=auto",  # auto keyword
        "run.seed=0x10",  # integer literal forms
    ])
    assert s.traffic.rate_gbps == 25.0 and isinstance(s.traffic.rate_gbps, float)
    assert s.arch.bx_size == 2048 and isinstance(s.arch.bx_size, int)
    assert s.arch.emulated is True
    assert s.workload.nf == "nat"
    assert s.system.slow_cores == (1, 3) and s.system.stalled_cores == (2,)
    assert s.arch.rx_size == AUTO
    assert s.run.seed == 16
    assert scenario.load(None, ['arch.cr_size="auto"']).arch.cr_size == AUTO  # quoted, as TOML


def test_later_set_wins():
    s = scenario.load(None, ["traffic.packet_bytes=64", "traffic.packet_bytes=128"])
    assert s.traffic.packet_bytes == 128


def test_uneven_split_and_explicit_cores_per_nic():
    r = scenario.load_resolved(None, ["system.cores=15"])
    assert r.scenario.system.cores_per_nic == (8, 7)
    r = scenario.load_resolved(None, ["system.cores_per_nic=12,4"])
    assert r.scenario.system.cores_per_nic == (12, 4)


def test_show_toml_round_trips(tmp_path):
    r = scenario.load_resolved(None, ["arch.name=shring", "traffic.packet_bytes=64",
                                      "system.slow_cores=3"])
    f = tmp_path / "shown.toml"
    f.write_text(r.scenario.to_toml())
    assert tomllib.loads(f.read_text())["traffic"]["packet_bytes"] == 64
    again = scenario.load_resolved(str(f))
    assert again.scenario.sections() == r.scenario.sections()


def test_relative_paths_are_read_from_the_scenario_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    # a pcap file header (magic, version 2.4, snap length, Ethernet) and one 60-byte record
    (tmp_path / "sub" / "t.pcap").write_bytes(
        struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
        + struct.pack("<IIII", 0, 0, 60, 60) + bytes(60))
    prof = (scenario.profiles.locate("reference")).read_text()
    (tmp_path / "sub" / "mine.toml").write_text(prof.replace('name = "reference"',
                                                             'name = "mine"'))
    f = tmp_path / "sub" / "s.toml"
    f.write_text('[traffic]\npattern = "trace"\npcap = "t.pcap"\n[system]\nprofile = "mine.toml"\n')
    r = scenario.load_resolved(str(f))
    assert r.scenario.traffic.pcap == str(tmp_path / "sub" / "t.pcap")
    assert r.profile.name == "mine"
    assert r.scenario.system.profile == str(tmp_path / "sub" / "mine.toml")


def test_a_bad_profile_named_by_a_file_is_an_error_naming_the_file(tmp_path):
    """Every other key a scenario file gets wrong is named with the file; the profile was not.
    A --set of the profile is the command line's, and replaces the file's."""
    f = tmp_path / "s.toml"
    f.write_text('[system]\nprofile = "bogus"\n')
    with pytest.raises(ScenarioError, match=f"^{re.escape(str(f))}: system.profile = 'bogus': "
                       "no built-in profile"):
        scenario.load_resolved(str(f))
    with pytest.raises(ScenarioError, match="^system.profile = 'nope': no built-in profile"):
        scenario.load_resolved(str(f), ["system.profile=nope"])
    assert scenario.load_resolved(str(f), ["system.profile=large"]).profile.name == "large"


@pytest.mark.parametrize("name", scenario.builtin_names())
def test_builtin_scenarios_resolve(name):
    r = scenario.load_resolved(name)
    assert r.scenario.description


def test_builtin_list_is_not_empty():
    assert {"reference", "proc-var", "traffic-var", "bursts"} <= set(scenario.builtin_names())


def test_large_profile_allows_what_reference_refuses():
    sets = ["system.cores=56", "traffic.rate_gbps=400"]
    with pytest.raises(ScenarioError):
        scenario.load_resolved(None, sets)
    r = scenario.load_resolved(None, sets + ["system.profile=large"])
    assert r.scenario.system.cores_per_nic == (28, 28)


def test_rxlist_batch_default_resolution_and_validation():
    """arch.rxlist_batch: the library's batched RxList (struct rxb_iface_config.batch).
    Default 1 (not batched); a power of two up to 64; shring_list's rings then hold
    rx_size x batch buffers, which cr_size auto, pool_buffers auto and posted_buffers count."""
    plain = scenario.load_resolved(None, ["arch.name=shring_list"])
    assert plain.scenario.arch.rxlist_batch == 1
    r = scenario.load_resolved(None, ["arch.name=shring_list", "arch.rxlist_batch=8"])
    a = r.scenario.arch
    assert a.rxlist_batch == 8
    assert a.cr_size == a.rx_size * 8  # the library's default: ring entries x batch
    posted = (16 // a.share_degree) * a.rx_size * 8
    assert scenario.derived(r)["posted_buffers"] == posted
    assert a.pool_buffers >= posted + 16 * 2 * a.alloc_cache
    assert a.pool_buffers > plain.scenario.arch.pool_buffers
    # other interfaces ignore it: nothing about them changes
    p1 = scenario.load_resolved(None, ["arch.name=privring"])
    p8 = scenario.load_resolved(None, ["arch.name=privring", "arch.rxlist_batch=8"])
    assert scenario.derived(p1) == scenario.derived(p8)
    assert p1.scenario.arch.pool_buffers == p8.scenario.arch.pool_buffers
    for bad, msg in (("3", "not a power of two"), ("128", "out of range"),
                     ("0", "out of range"), ("'2.0'", "cannot be read as int")):
        with pytest.raises(ScenarioError, match=f"arch.rxlist_batch = {bad}: {msg}"):
            scenario.load_resolved(None, ["arch.name=shring_list",
                                          f"arch.rxlist_batch={bad.strip(chr(39))}"])
    with pytest.raises(ScenarioError, match="arch.rx_size x arch.rxlist_batch = 2097152"):
        scenario.load_resolved(None, ["arch.name=shring_list", "arch.rx_size=65536",
                                      "arch.rxlist_batch=32"])


def test_spool_ports_beyond_the_librarys_queues_need_basic_mode():
    with pytest.raises(ScenarioError, match="arch.spool_ports = 70000: spool_mode = 'spp' gives"):
        scenario.load_resolved(None, ["arch.name=spool", "arch.spool_ports=70000"])
    r = scenario.load_resolved(None, ["arch.name=spool", "arch.spool_ports=70000",
                                      "arch.spool_mode=basic"])
    assert r.scenario.arch.spool_ports == 70000
