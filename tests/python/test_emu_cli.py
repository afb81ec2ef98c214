"""`rxb emu`: the emulator front door, end to end against the real rxb-emu.

Runs are tiny (20 ms of traffic, 2 workers); each test takes well under a second here. They
need build/emu/rxb-emu ($RXB_EMU_BIN) and a DPDK EAL that starts on this machine; they are
skipped, saying which, when either is missing. The tests of the key mapping talk to rxb-emu's
option parser only (it rejects a configuration before DPDK starts).
"""

import json
import os
import struct
import subprocess

import pytest

from conftest import run_cli
from rxbisect import checkout
from rxbisect.commands import cli
from rxbisect.engines import emu
from rxbisect.errors import EngineError, ScenarioError
from rxbisect.vocab import scenario

try:
    BIN = emu.find_emulator()
except EngineError:  # pragma: no cover - depends on the build
    BIN = None
needs_bin = pytest.mark.skipif(BIN is None, reason="rxb-emu is not built (build/emu/rxb-emu "
                               "missing: run `make build`, or set RXB_EMU_BIN)")
TINY = ("--set", "run.duration_ms=20", "--set", "system.cores=2")


def emu_cli(*args: str):
    """`rxb emu ARGS`; skips when DPDK's EAL cannot start on this machine."""
    p = run_cli("emu", *args)
    if p.returncode == 1 and "rte_eal_init failed" in p.stderr:
        pytest.skip(f"DPDK EAL cannot start here: {p.stderr.strip().splitlines()[-1]}")
    return p


def balanced(m: dict) -> bool:
    return m["offered_packets"] == (m["delivered_packets"] + sum(m["drops_by_cause"].values())
                                    + m["in_flight_packets"])


@needs_bin
@pytest.mark.parametrize("arch", ["privring", "rxbisect"])
def test_tiny_run_returns_a_conserving_record(arch):
    p = emu_cli("--json", *TINY, "--set", f"arch.name={arch}")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    m = rec["metrics"]
    assert rec["experiment"] == "emu" and rec["arch"] == arch
    assert rec["params"]["system.cores"] == 2 and rec["params"]["run.duration_ms"] == 20
    assert m["conservation"] == {"packets_ok": True, "buffers_ok": True}
    assert m["offered_packets"] > 0 and balanced(m)
    assert m["emulator"]["buffer_mismatch"] == 0
    assert "Traceback" not in p.stderr


@needs_bin
def test_table_view_and_rxb_emu_notes_pass_through():
    p = emu_cli(*TINY, "--set", "arch.name=shring")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("shring (emulated) on this machine: 2 workers")
    for row in ("Drops by cause", "Emulator core", "cycles/packet busy / full bursts",
                "Conservation (interfaces.md §8)     packets ok, buffers ok"):
        assert row in p.stdout
    # rxb-emu's own stderr lines (no hugepages, lcores sharing CPUs) reach the user, named
    assert all(ln.startswith(("rxb-emu: warning:", "rxb-emu: note:", "rxb: warning:"))
               for ln in p.stderr.splitlines() if ln.strip()), p.stderr


@needs_bin
@pytest.mark.parametrize("source, load", [("gen", "x 3 Gbps offered, "),
                                          ("null", "x offered unpaced, ")])
def test_the_head_line_gives_a_rate_only_where_the_source_paces_to_it(source, load):
    """Only the generator paces to traffic.rate_gbps: the head line said "3 Gbps offered" for
    the null source too, which runs as fast as the NIC lcore takes its frames."""
    p = emu_cli(*TINY, "--set", f"emu.source={source}", "--set", "traffic.rate_gbps=3")
    assert p.returncode == 0, p.stderr
    assert load in p.stdout.splitlines()[0]


@needs_bin
def test_scenario_file_keys_pass_and_machine_keys_are_ignored_with_one_warning(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[arch]\nname = "small_privring"\n[system]\nprofile = "large"\nddio_ways = 2\n'
                 '[run]\nduration_ms = 20\n')
    p = emu_cli(str(f), "--json", "--set", "workload.nf=counter", "--set", "emu.sink=false")
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    assert rec["arch"] == "small_privring" and rec["params"]["workload.nf"] == "counter"
    assert rec["params"]["arch.rx_size"] == 128  # rxb-emu resolved its own "auto"
    warn = [ln for ln in p.stderr.splitlines() if ln.startswith("rxb: warning: ignored")]
    assert len(warn) == 1 and "system.profile, system.ddio_ways" in warn[0]


@needs_bin
@pytest.mark.parametrize("sets, named", [
    (["emu.source=bogus"],
     "emu.source = 'bogus': unknown value; allowed: one of gen, pcap, null, port"),
    (["arch.batch=100"], "arch.batch = 100: out of range"),   # the table's range (1..64)
    (["arch.rx_size=1000"], "arch.rx_size = 1000: not a power of two"),  # the schema's check
    (["arch.rx_sise=1024"], "unknown key 'arch.rx_sise' (did you mean 'arch.rx_size'?)"),
    (["system.hog=stream", "system.hog_instances=2"], "system.hog = 'stream'"),
    (["system.cores_per_nic=[1,3]", "system.cores=4"], "system.cores_per_nic = [1, 3]"),
    # rxBisect's 2 Ax rings hold 256 of the 290 buffers: too few left to learn flows with
    (["arch.name=rxbisect", "system.cores=2", "arch.pool_buffers=290", "arch.alloc_cache=0",
      "workload.nf=lb"], "emu.learn_flows: the pool has no 32 buffers"),
])
def test_bad_set_is_exit_2_naming_the_key(sets, named):
    p = run_cli("emu", *[a for s in sets for a in ("--set", s)])
    assert p.returncode == 2, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("rxb: error: ") and named in last, last
    assert "Traceback" not in p.stderr


@needs_bin
@pytest.mark.parametrize("args, named", [
    (["--eal", "--no-huge", "--eal", "--no-pci"], "--eal is given twice"),
    (["--eal", " ".join(["--no-pci"] * 129)], "--eal: more than 128 options"),
    (["--eal", "-" * 5000], "--eal: 5000 characters; allowed: at most 4095"),
    (["--bench", "--bench-ms", "5xyz"], "--bench-ms 5xyz: must be a number of milliseconds"),
    (["--bench", "--bench-ms", "1e15"], "allowed: > 0 and <= 1e+06"),
    (["--bench", "--bench-ms", "inf"], "--bench-ms inf"),
    (["--bench", "--bench-ms"], "error: --bench-ms needs a value; allowed: --bench-ms N"),
    (["--set"], "error: --set needs a value; allowed: --set key=value"),
    (["--bench", "--eal"], "error: --eal needs a value; allowed: --eal \"EAL arguments\""),
])
def test_bad_argument_is_exit_2_before_the_eal(args, named):
    """The binary's own options: refused with one line, before any DPDK start (a second
    --eal once overwrote the first's text and, long enough, wrote past its arrays)."""
    p = subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [p.stderr.strip()] and named in p.stderr
    assert "EAL: " not in p.stderr  # the EAL never started


def _pcap(path, frame_lens):
    """A microsecond Ethernet pcap of zero-filled frames of these lengths."""
    head = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
    recs = b"".join(struct.pack("<IIII", 0, i, n, n) + bytes(n) for i, n in enumerate(frame_lens))
    path.write_bytes(head + recs)
    return path


@needs_bin
@pytest.mark.parametrize("arch", ["rxbisect", "privring"])  # one queue; one file per queue
def test_a_trace_frame_larger_than_a_buffer_is_refused(tmp_path, arch):
    """net_pcap chains such a frame over several mbufs, which the run then counted as
    deliveries into the wrong buffer, and exited 0."""
    trace = _pcap(tmp_path / "big.pcap", [64, 9000, 64])
    p = emu_cli("--set", "emu.source=pcap", "--set", f"traffic.pcap={trace}",
                "--set", f"arch.name={arch}", "--set", "system.cores=2")
    assert p.returncode == 2, p.stderr
    assert (f"traffic.pcap = {trace}: record 2 holds a frame of 9000 bytes, more than a "
            "buffer's 2048 (arch.buffer_bytes)") in p.stderr


@needs_bin
@pytest.mark.parametrize("name, sets, said", [
    ("a,b.pcap", ["emu.source=pcap", "traffic.pcap={f}"], "traffic.pcap = {f}: "),
    ("x=y.pcap", ["emu.out=pcap:{f}"], "emu.out = pcap:{f}: "),
])
def test_a_pcap_name_net_pcap_cannot_take_is_refused(tmp_path, name, sets, said):
    """net_pcap reads its file names from devargs, which ',' and '=' cut: the run failed
    with a message about the device; it is now refused by name before the EAL starts."""
    f = _pcap(tmp_path / name, [64])
    p = subprocess.run([str(BIN), *[a for s in sets for a in ("--set", s.format(f=f))]],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        f"error: {said.format(f=f)}net_pcap's devargs cannot hold '{name[1]}' in a file name; "
        "allowed: a path without ',' or '=' (rename or link the file)"]


@needs_bin
@pytest.mark.parametrize("where, why", [
    ("missing/out.pcap", "No such file or directory"),
    ("", "Is a directory"),
])
def test_an_output_capture_that_cannot_be_written_is_refused_by_name(tmp_path, where, why):
    """net_pcap failed to create it after the EAL had started: exit 1 and 'cannot create the
    virtual device ... Operation not permitted'."""
    out = tmp_path / where
    p = subprocess.run([str(BIN), "--set", f"emu.out=pcap:{out}"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        f"error: emu.out = pcap:{out}: cannot be written ({why}); allowed: a file in a "
        "directory you can write"]


@needs_bin
def test_a_trace_that_is_a_directory_is_named_so(tmp_path):
    """The engines' one pcap reader: a directory read as a file gave 'truncated file header
    (got 4096 of 24 bytes)'."""
    p = subprocess.run([str(BIN), "--set", "emu.source=pcap", "--set", f"traffic.pcap={tmp_path}",
                        "--eal", f"--no-huge -m 512 --no-pci --file-prefix rxbt{os.getpid()}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert f"pcap '{tmp_path}': is a directory, not a trace file" in p.stderr


@needs_bin
def test_packets_rxbisect_recycles_from_an_empty_pool_are_counted_as_drops():
    """With the pool smaller than the rings and caches hold, rxBisect's receive drops the
    packet at the head to re-arm its slot (`recycled`). The workers never see those packets;
    the run counted them nowhere and failed its own conservation check ("library received N
    != workers received M") in every run here. They are no_ax_buf drops."""
    p = emu_cli("--json", "--set", "run.duration_ms=50", "--set", "system.cores=2",
                "--set", "arch.name=rxbisect", "--set", "arch.pool_buffers=400")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)["metrics"]
    assert m["pool_exhausted"] > 0  # the path ran: the pool did run dry
    assert m["conservation"]["packets_ok"], p.stderr
    assert m["offered_packets"] == (m["delivered_packets"] + sum(m["drops_by_cause"].values())
                                    + m["in_flight_packets"])


@needs_bin
def test_a_trace_without_packets_is_refused(tmp_path):
    """It replayed nothing and reported 0 Gbps with exit 0."""
    trace = _pcap(tmp_path / "empty.pcap", [])
    p = emu_cli("--set", "emu.source=pcap", "--set", f"traffic.pcap={trace}")
    assert p.returncode == 2, p.stderr
    assert (f"traffic.pcap = {trace}: pcap '{trace}': no packets (a trace to replay needs one)"
            in p.stderr)


@needs_bin
def test_a_nat_table_smaller_than_its_flows_is_noted():
    """workload.nat_flows only bounds the NAT's table, which otherwise keeps the flows the
    generator's ranges can steer to its worker (as the LB's): set below them, the run says
    that the NAT drops the rest as full; at the default it says nothing."""
    nat = (*TINY, "--set", "workload.nf=nat", "--set", "emu.source=gen",
           "--set", "traffic.rate_gbps=1")
    low = emu_cli(*nat, "--set", "workload.nat_flows=1024")
    assert low.returncode == 0, low.stderr
    assert "note: workload.nat_flows = 1024 holds fewer flows" in low.stderr
    default = emu_cli(*nat)
    assert default.returncode == 0, default.stderr
    assert "workload.nat_flows" not in default.stderr


@needs_bin
def test_eal_options_reach_rxb_emu_and_its_failure_is_exit_1():
    p = run_cli("emu", "--eal", "--no-such-eal-option", *TINY)
    assert p.returncode == 1
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("rxb: error: rxb-emu failed with exit code 1: rte_eal_init failed")
    assert "--no-such-eal-option" in last


@needs_bin
def test_a_mempool_the_eal_cannot_hold_is_out_of_memory_exit_3():
    """Out of memory is not a configuration error: rxb-emu exits 3, rxb says so."""
    p = emu_cli(*TINY, "--set", "arch.pool_buffers=16777216",
                "--eal", "--no-huge -m 300 --no-pci")
    assert p.returncode == 1, p.stderr  # the engine failed; rxb's own exit is 1
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("rxb: error: rxb-emu ran out of memory: cannot create the mempool "
                           "of 16777216 buffers"), last


@needs_bin
def test_a_flow_table_the_eal_cannot_hold_names_the_keys_that_size_it():
    """The NAT's table follows the flows (here 4 M random ones, two hash entries each):
    more than the EAL's memory holds is out of memory, naming the key to lower."""
    p = emu_cli(*TINY, "--set", "workload.nf=nat", "--set", "traffic.flow_model=random",
                "--set", "traffic.flows=4000000", "--eal", "--no-huge -m 300 --no-pci")
    assert p.returncode == 1, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("rxb: error: rxb-emu ran out of memory: worker 0's flow table "
                           "does not fit (nat.capacity = 4000000"), last
    assert "lower workload.nat_flows" in last


def test_eal_value_may_start_with_dashes():
    assert cli._glue_eal(["emu", "--eal", "--no-pci", "--json"]) == \
        ["emu", "--eal=--no-pci", "--json"]


def test_missing_binary_says_how_to_get_one(tmp_path, monkeypatch):
    monkeypatch.delenv(emu.ENV_BIN, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(checkout, "repo_root", lambda: tmp_path)
    with pytest.raises(EngineError, match=r"emulator not found: .*build/emu/rxb-emu does not "
                       r"exist.*make build.*RXB_EMU_BIN"):
        emu.find_emulator()


def test_rxb_emu_bin_must_be_executable(tmp_path):
    f = tmp_path / "rxb-emu"
    f.write_text("#!/bin/sh\n")
    p = run_cli("emu", env={emu.ENV_BIN: str(f)})
    assert p.returncode == 1
    assert p.stderr.strip() == f"rxb: error: {emu.ENV_BIN}={f}: not an executable file"


def test_only_named_keys_are_passed_and_values_read_back():
    passed, ignored = emu.emu_sets(None, ["system.cores=4", "system.stalled_cores=[0,3]",
                                          "traffic.rate_gbps=2", "arch.emulated=false",
                                          "system.mlp=4", "emu.rss=sw"])
    assert passed == ["system.cores=4", "system.stalled_cores=[0,3]", "traffic.rate_gbps=2.0",
                      "arch.emulated=false", "emu.rss=sw"]
    assert ignored == ["system.mlp"]
    with pytest.raises(ScenarioError, match="system.hog = 'pagerank'"):
        emu.emu_sets(None, ["system.hog=pagerank", "system.hog_instances=1"])


def _emu_parse(*sets: str) -> str:
    """rxb-emu's option parser alone: a bad last key stops it before DPDK starts."""
    p = subprocess.run([str(BIN), *[a for s in (*sets, "emu.source=stop-here")
                                    for a in ("--set", s)]],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, p.stderr
    return p.stderr


@needs_bin
def test_every_scenario_key_is_understood_by_rxb_emu_or_ignored_by_both():
    """The mapping agrees with the binary: each key we pass is one rxb-emu knows (no
    'unknown key'), each key we drop is one rxb-emu itself would ignore."""
    for k in scenario.SCHEMA.keys():
        value = emu._text("auto" if k.auto else k.default)
        err = _emu_parse(f"{k.full}={value}")
        if not scenario.honours(k.full, "emu"):
            assert f"warning: {k.full} has no effect" in err, (k.full, err)
        else:
            assert "unknown key" not in err and "has no effect" not in err, (k.full, err)


@needs_bin
def test_native_baseline_has_no_emulator_block():
    p = emu_cli(*TINY, "--set", "arch.name=privring", "--set", "arch.emulated=false")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("privring (native) on this machine")
    assert "Emulator core                    none (native" in p.stdout
    assert "packets ok, buffers ok" in p.stdout
    steps = json.loads(emu_cli("--json", *TINY, "--set", "arch.name=privring", "--set",
                               "arch.emulated=false").stdout)["metrics"]["emulator"]["cost"]
    assert steps["nic_stage_cycles_per_packet"] == dict.fromkeys(emu.NIC_STAGES)


@needs_bin
def test_the_nic_lcore_cost_is_split_into_the_steps_of_its_loop():
    """emulator.cost says where a NIC lcore's cycles per packet go: each step of its loop
    measured, in loop order, and the rest; the measured steps fit inside the loops they were
    measured in (the rest is never negative), and each did work in a loaded run."""
    p = emu_cli("--json", "--set", "arch.name=privring", "--set", "emu.source=null",
                "--set", "emu.sink=true", "--set", "system.cores=1", "--set",
                "run.duration_ms=200")
    assert p.returncode == 0, p.stderr
    cost = json.loads(p.stdout)["metrics"]["emulator"]["cost"]
    steps = cost["nic_stage_cycles_per_packet"]
    assert tuple(steps) == emu.NIC_STAGES
    assert all(steps[s] > 0 for s in emu.NIC_STAGES if s != "other")
    assert steps["other"] >= 0
    assert sum(steps.values()) == pytest.approx(cost["nic_cycles_per_packet"], rel=1e-4)


def _emu_check_fails(*args: str) -> str:
    """rxb-emu up to its configuration check: warmup >= duration stops it before DPDK."""
    p = subprocess.run([str(BIN), *args, "--set", "run.warmup_ms=50", "--set",
                        "run.duration_ms=10"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, p.stderr
    return p.stderr


@needs_bin
def test_a_key_set_for_another_design_warns_once_as_the_library_words_it():
    err = _emu_check_fails("--set", "arch.name=rxbisect", "--set", "arch.rx_size=512",
                           "--set", "arch.rx_size=256", "--set", "system.mlp=4")
    idle = scenario.no_effect("arch.rx_size", "rxbisect", "constant", "emu")
    machine = scenario.no_effect("system.mlp", "rxbisect", "constant", "emu")
    warnings = [ln for ln in err.splitlines() if ln.startswith("warning:")]
    assert warnings == [f"warning: {machine}", f"warning: {idle}"], err


@needs_bin
def test_quiet_keys_leaves_the_warnings_to_the_front_end():
    err = _emu_check_fails("--quiet-keys", "--set", "arch.name=rxbisect", "--set",
                           "arch.rx_size=512", "--set", "system.mlp=4")
    assert "warning:" not in err, err


@needs_bin
@pytest.mark.parametrize("sets, why", [
    (("arch.name=dyn_shring", "emu.nic_lcores=2"), "dyn_shring"),
    (("arch.name=privring", "system.cores=2", "emu.nic_lcores=3"), "allowed: 1..2"),
    # rxBisect's queues are its association sets, here of one core each
    (("arch.name=rxbisect", "arch.association=groups", "arch.groups=2", "system.cores=2",
      "emu.nic_lcores=3"), "2 physical queues here (one per association set"),
])
def test_nic_lcores_that_cannot_shard_are_refused_in_one_line(sets, why):
    p = subprocess.run([str(BIN), *[a for s in sets for a in ("--set", s)]],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "emu.nic_lcores" in errors[0] and why in errors[0], p.stderr


# What rxb-emu says on stderr when it falls back to 4 KiB pages.
FALLBACK_NOTE = ": running with --no-huge -m 2048"


@needs_bin
@pytest.mark.parametrize("eal", [(), ("--eal", "--no-huge -m 1024")])
def test_bench_record_names_the_pages_it_ran_on(eal):
    """The benchmark's figures depend on the page size (a TLB miss per buffer on 4 KiB
    pages): its record says which the EAL used. Without --eal, rxb-emu says on stderr when
    it falls back to 4 KiB pages; otherwise it ran on hugepages."""
    p = subprocess.run([str(BIN), "--bench", "--bench-ms", "20", "--set", "system.cores=2",
                        *eal], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    fell_back = FALLBACK_NOTE in p.stderr
    assert json.loads(p.stdout)["machine"]["pages"] == \
        ("4 KiB" if eal or fell_back else "hugepages")


@needs_bin
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_bench_record_prices_a_line_and_a_packet_moved_between_cpus():
    """The benchmark measures what one cache line costs to move between two CPUs (the unit of
    a NIC lcore's cost per packet) and the fewest cycles per packet at which one CPU hands
    packets to another through rings (the floor of a NIC lcore's cost): positive figures when
    an lcore has a CPU other than the main lcore's, none when every lcore shares one (they
    would then measure the scheduler)."""
    def machine(*eal):
        p = subprocess.run([str(BIN), "--bench", "--bench-ms", "20", *eal],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        m = json.loads(p.stdout)["machine"]
        return m["line_transfer_cycles"], m["handoff_cycles_per_packet"]

    cpus = sorted(os.sched_getaffinity(0))
    line, packet = machine("--eal",
                           f"--no-huge -m 1024 --lcores=0@{cpus[0]},1@{cpus[0]},2@{cpus[1]}")
    assert line is not None and 1 < line < 1e6
    assert packet is not None and 1 < packet < 1e6
    assert machine("--eal", f"--no-huge -m 1024 --lcores=0@{cpus[0]},1@{cpus[0]},2@{cpus[0]}") \
        == (None, None)


def free_hugepage_mib() -> int:
    info = {}
    with open("/proc/meminfo") as f:
        for ln in f:
            k, v = ln.split(":", 1)
            info[k] = int(v.split()[0])
    return info.get("HugePages_Free", 0) * info.get("Hugepagesize", 0) // 1024


def hugetlbfs_mounts() -> list[str]:
    with open("/proc/mounts") as f:
        return [ln.split()[1] for ln in f if ln.split()[2] == "hugetlbfs"]


@needs_bin
@pytest.mark.skipif(free_hugepage_mib() < 1024 or not hugetlbfs_mounts(),
                    reason="needs 1 GiB of free hugepages and a hugetlbfs mount")
def test_a_run_on_hugepages_gives_them_back():
    """rxb-emu maps its hugepages unlinked: a run leaves no files in hugetlbfs that would
    hold pages after it exits."""
    def ours():
        return {f"{m}/{n}" for m in hugetlbfs_mounts() for n in os.listdir(m)
                if n.startswith("rxb-emu-")}
    before = ours()
    p = subprocess.run([str(BIN), "--bench", "--bench-ms", "20", "--set", "system.cores=2"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    if FALLBACK_NOTE in p.stderr:
        pytest.skip("the free hugepages went between collection and the run")
    assert json.loads(p.stdout)["machine"]["pages"] == "hugepages"
    assert ours() <= before


@needs_bin
def test_each_rings_offered_packets_are_delivered_or_dropped():
    """Per destination ring: offered = delivered + drops once the run has drained, the
    physical queue's drops (pipeline, here at 64 B and 100 Gbps on two CPUs) included. The
    record and the /rxb/rings telemetry take offered from one place."""
    p = emu_cli("--json", "--set", "traffic.rate_gbps=100", "--set", "traffic.packet_bytes=64",
                "--set", "run.duration_ms=100", "--set", "arch.name=privring")
    assert p.returncode == 0, p.stderr
    m = json.loads(p.stdout)["metrics"]
    assert m["in_flight_packets"] == 0
    for ring in m["per_ring"]:
        assert ring["offered"] == ring["delivered"] + sum(ring["drops"].values()), ring


@needs_bin
@pytest.mark.parametrize("keys, warned", [(1_000_000, True), (1000, False)])
def test_a_kv_partition_larger_than_its_table_is_warned_about(keys, warned):
    """The emulator's KV table holds 131072 keys a core (its values must fit -m 2048): with the
    default million keys on 2 cores most PUTs answered FULL and GETs missed, silently."""
    p = subprocess.run([str(BIN), "--set", "workload.nf=kvs", "--set", "system.cores=2",
                        "--set", f"workload.kvs_keys={keys}", "--set", "traffic.rate_gbps=0.1",
                        "--set", "emu.packets=200", "--set", "run.duration_ms=200"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert ("partition has 500001 keys, more than the emulator's table of 131072"
            in p.stderr) == warned, p.stderr


@needs_bin
def test_a_small_flow_capacity_is_the_table_fastclick_would_have():
    """workload.flow_capacity = 256 on one core: FastClick's per-thread table holds 256 flows
    (the simulator's too); the emulator's had a floor of 1024 and kept 1024 of 3000."""
    p = subprocess.run([str(BIN), "--set", "workload.nf=lb", "--set", "system.cores=1",
                        "--set", "traffic.rate_gbps=0.5", "--set", "run.duration_ms=300",
                        "--set", "traffic.gen_src_addrs=3000", "--set", "traffic.gen_dst_addrs=1",
                        "--set", "workload.flow_capacity=256"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    workers = json.loads(p.stdout)["metrics"]["per_worker"]
    assert [w["flows_learned"] for w in workers] == [256]
