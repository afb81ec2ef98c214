"""One rulebook: a rule that involves several keys is stated once, in the scenario library
(scenario/scn_rules.c), and every consumer refuses the same bad input with the same message:
the front end (through the library's binding), rxb-sim (a config that skips the front end's
check), rxb-emu (its own --set) and the driver net_rxbisect (its devargs at configure).

Each row is one rule of the library, and there is one row for every rule
(test_the_rows_are_the_librarys_rules): the engines the library's table binds it to, the
scenario keys that break it, the valid twin (the same keys with values the rule accepts: the
simulator's config is built from it before the bad values are written in), and the driver's
devargs where the driver can say it (its Rx queue count is its system.cores, on one NIC).
A consumer of a bound engine that cannot express the input says why in `cannot`.
"""

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

from conftest import REPO, needs_engine
from rxbisect import _native
from rxbisect.engines import emu, engine
from rxbisect.errors import RxbError
from rxbisect.vocab import scenario
from testpmd import TESTPMD, TestPmd, pmd_so

SIM, EMU = "sim", "emu"  # the library's engines
FRONT, SIM_BIN, EMU_BIN, DRIVER = "front end", "rxb-sim", "rxb-emu", "net_rxbisect"
ENGINE_OF = {FRONT: SIM, SIM_BIN: SIM, EMU_BIN: EMU, DRIVER: EMU}

ONE_NIC = ("system.nics=1",)
FOUR_ON_ONE_NIC = ("system.cores=4", *ONE_NIC)
PCAP = f"traffic.pcap={REPO / 'tests' / 'fuzz' / 'seeds' / 'pcap' / 'eth_vlan.pcap'}"

# Why a consumer cannot express a rule's bad input
NO_PROFILE = ("it runs on the host, not on a hardware profile: the rules about the profile's "
              "machine have no machine to check")
ONE_NIC_ONLY = "it is one NIC (system.nics = 1) whose Rx queues are system.cores"
NO_TRAFFIC = "no devarg sets traffic.*: the frames are the port's"
NO_RUN = "no devarg sets run.*: the application decides how long it runs"
NO_SPOOL = "it refuses iface=spool (representor ports are not ethdev Rx queues)"
NO_FAULTS = ("no devarg sets system.stalled_cores or system.slow_cores (fault_stall names an Rx "
             "queue and is checked as it is parsed)")


@dataclass(frozen=True)
class Rule:
    name: str  # rxb_scn_rule_name()
    binds: frozenset[str]  # the engines scn_rules.c's table binds the rule to
    sets: tuple[str, ...]  # the bad input, as --set KEY=VALUE
    valid: tuple[str, ...]  # the same keys with values the rule accepts (the sim's config base)
    devargs: str | None = None  # the driver's spelling, with `rxq` Rx queues
    rxq: int = 0
    cannot: Mapping[str, str] = field(default_factory=dict)  # consumer -> why not


BOTH, SIM_ONLY, EMU_ONLY = frozenset({SIM, EMU}), frozenset({SIM}), frozenset({EMU})
MACHINE = {EMU_BIN: NO_PROFILE, DRIVER: NO_PROFILE}

RULES = [
    Rule("cores fit one socket", BOTH, ("system.cores=17", *ONE_NIC, "system.cores_per_nic=[17]"),
         ("system.cores=16", *ONE_NIC, "system.cores_per_nic=[16]"), cannot=MACHINE),
    Rule("NICs exist", BOTH, ("system.cores=16", "system.nics=3", "system.cores_per_nic=[6,5,5]"),
         ("system.cores=16", "system.nics=2", "system.cores_per_nic=[8,8]"), cannot=MACHINE),
    # a split given: the simulator's config numbers every core's NIC (derived.nic_of_core)
    Rule("a core per NIC", BOTH, ("system.cores=1", "system.nics=2", "system.cores_per_nic=[1]"),
         ("system.cores=2", "system.nics=2", "system.cores_per_nic=[1,1]"),
         cannot={DRIVER: ONE_NIC_ONLY}),
    Rule("NICs share the cores equally", EMU_ONLY, ("system.cores=3", "system.nics=2"),
         ("system.cores=4", "system.nics=2"), cannot={DRIVER: ONE_NIC_ONLY}),
    Rule("the split adds up", BOTH,
         ("system.cores=4", "system.nics=2", "system.cores_per_nic=[1,2]"),
         ("system.cores=4", "system.nics=2", "system.cores_per_nic=[2,2]"),
         cannot={DRIVER: ONE_NIC_ONLY}),
    Rule("core ids exist", BOTH, (*FOUR_ON_ONE_NIC, "system.stalled_cores=[9]"),
         (*FOUR_ON_ONE_NIC, "system.stalled_cores=[3]"), cannot={DRIVER: NO_FAULTS}),
    Rule("core ids ascend", BOTH, (*FOUR_ON_ONE_NIC, "system.slow_cores=[2,2]"),
         (*FOUR_ON_ONE_NIC, "system.slow_cores=[2]"), cannot={DRIVER: NO_FAULTS}),
    Rule("DDIO ways exist", BOTH, ("system.ddio_ways=12",), ("system.ddio_ways=11",),
         cannot=MACHINE),
    Rule("CAT leaves a way", BOTH, ("system.cat_ways=11",), ("system.cat_ways=10",),
         cannot=MACHINE),
    Rule("hogs fit the socket", BOTH,
         ("system.cores=8", "system.hog=stream", "system.hog_instances=9"),
         ("system.cores=8", "system.hog=stream", "system.hog_instances=8"), cannot=MACHINE),
    Rule("rate fits the link", BOTH, ("traffic.rate_gbps=101",), ("traffic.rate_gbps=100",),
         cannot=MACHINE),
    Rule("bursts fit the link", BOTH,
         ("traffic.rate_gbps=60", "traffic.pattern=onoff", "traffic.burst_duty=0.5"),
         ("traffic.rate_gbps=60", "traffic.pattern=onoff", "traffic.burst_duty=0.6"),
         cannot=MACHINE),
    # emu.source = pcap: the emulator's valid twin must replay the trace through net_pcap
    Rule("a trace names its file", BOTH,
         ("traffic.pattern=trace", "emu.source=pcap", "traffic.pcap="),
         ("traffic.pattern=trace", "emu.source=pcap", PCAP), cannot={DRIVER: NO_TRAFFIC}),
    Rule("a trace is replayed from pcap", EMU_ONLY,
         ("traffic.pattern=trace", PCAP, "emu.source=gen"),
         ("traffic.pattern=trace", PCAP, "emu.source=pcap"), cannot={DRIVER: NO_TRAFFIC}),
    Rule("a load change has its target", BOTH,
         (*FOUR_ON_ONE_NIC, "traffic.change_at_ms=5", "traffic.target_core=4"),
         (*FOUR_ON_ONE_NIC, "traffic.change_at_ms=5", "traffic.target_core=3"),
         cannot={DRIVER: NO_TRAFFIC}),
    Rule("targeting has a load", BOTH,
         (*FOUR_ON_ONE_NIC, "traffic.pattern=target", "traffic.target_share=0"),
         (*FOUR_ON_ONE_NIC, "traffic.pattern=target", "traffic.target_share=0.5"),
         cannot={DRIVER: NO_TRAFFIC}),
    Rule("the target rate fits", BOTH,
         (*FOUR_ON_ONE_NIC, "traffic.rate_gbps=1", "traffic.pattern=target",
          "traffic.target_rate_gbps=2"),
         (*FOUR_ON_ONE_NIC, "traffic.rate_gbps=1", "traffic.pattern=target",
          "traffic.target_rate_gbps=1"), cannot={DRIVER: NO_TRAFFIC}),
    Rule("the target core exists", BOTH,
         (*FOUR_ON_ONE_NIC, "traffic.pattern=target", "traffic.target_share=0.5",
          "traffic.target_core=4"),
         (*FOUR_ON_ONE_NIC, "traffic.pattern=target", "traffic.target_share=0.5",
          "traffic.target_core=3"), cannot={DRIVER: NO_TRAFFIC}),
    Rule("targeting leaves other cores", SIM_ONLY,
         ("system.cores=2", "system.nics=2", "system.cores_per_nic=[1,1]",
          "traffic.pattern=target", "traffic.target_share=0.5"),
         ("system.cores=4", "system.nics=2", "system.cores_per_nic=[2,2]",
          "traffic.pattern=target", "traffic.target_share=0.5")),
    Rule("target frames are frames", BOTH, ("traffic.target_packet_bytes=32",),
         ("traffic.target_packet_bytes=64",), cannot={DRIVER: NO_TRAFFIC}),
    Rule("frames fit buffers", BOTH, ("traffic.packet_bytes=4000", "arch.buffer_bytes=2048"),
         ("traffic.packet_bytes=2048", "arch.buffer_bytes=2048"), cannot={DRIVER: NO_TRAFFIC}),
    Rule("share degree divides each NIC", BOTH,
         ("arch.name=shring", *FOUR_ON_ONE_NIC, "arch.share_degree=3"),
         ("arch.name=shring", *FOUR_ON_ONE_NIC, "arch.share_degree=2"),
         "iface=shring,share=3", 4),
    Rule("groups divide the cores", BOTH,
         ("arch.name=rxbisect", "arch.association=groups", "arch.groups=3", *FOUR_ON_ONE_NIC),
         ("arch.name=rxbisect", "arch.association=groups", "arch.groups=2", *FOUR_ON_ONE_NIC),
         "iface=rxbisect,assoc=groups,groups=3", 4),
    Rule("per-NIC sets are even", BOTH,
         ("arch.name=rxbisect", "arch.association=per_nic", "system.cores=6", "system.nics=2",
          "system.cores_per_nic=[2,4]"),
         ("arch.name=rxbisect", "arch.association=per_nic", "system.cores=6", "system.nics=2",
          "system.cores_per_nic=[3,3]"), cannot={DRIVER: ONE_NIC_ONLY}),
    Rule("RxList slots fit a ring", BOTH,
         ("arch.name=shring_list", "arch.rx_size=1048576", "arch.rxlist_batch=2"),
         ("arch.name=shring_list", "arch.rx_size=524288", "arch.rxlist_batch=2"),
         cannot={EMU_BIN: "arch.rxlist_batch is at most 1 on the emulator (its range refuses 2)",
                 DRIVER: "no devarg sets arch.rxlist_batch (at most 1 on the emulator)"}),
    Rule("RxList batches leave each core one", BOTH,
         ("arch.name=shring_list", "arch.rx_size=8", "arch.rxlist_batch=4"),
         ("arch.name=shring_list", "arch.rx_size=16", "arch.rxlist_batch=4"),
         cannot={EMU_BIN: "arch.rxlist_batch is at most 1 on the emulator (its range refuses 4)",
                 DRIVER: "no devarg sets arch.rxlist_batch (at most 1 on the emulator)"}),
    Rule("a Bx holds its Ax", BOTH,
         ("arch.name=rxbisect", "arch.ax_size=2048", "arch.bx_size=1024"),
         ("arch.name=rxbisect", "arch.ax_size=1024", "arch.bx_size=1024"),
         "iface=rxbisect,ax=2048,bx=1024", 2),
    Rule("spool queues fit", BOTH,
         ("arch.name=spool", "arch.spool_mode=spp", "arch.spool_ports=65537"),
         ("arch.name=spool", "arch.spool_mode=spp", "arch.spool_ports=65536"),
         cannot={EMU_BIN: "arch.spool_ports is at most 64 on the emulator (its range refuses "
                          "65537)", DRIVER: NO_SPOOL}),
    Rule("spool low below high", BOTH,
         ("arch.name=spool", "arch.spool_low=2048", "arch.spool_high=1024"),
         ("arch.name=spool", "arch.spool_low=1024", "arch.spool_high=1024"),
         cannot={DRIVER: NO_SPOOL}),
    Rule("native runs are privRing", EMU_ONLY, ("arch.name=rxbisect", "arch.emulated=false"),
         ("arch.name=privring", "arch.emulated=false"),
         cannot={DRIVER: "no devarg sets arch.emulated: the driver is the emulated NIC"}),
    Rule("basic queues fit the ports", BOTH,
         ("arch.name=spool", "arch.spool_mode=basic", "arch.spool_ports=1", "system.nics=2"),
         ("arch.name=spool", "arch.spool_mode=basic", "arch.spool_ports=2", "system.nics=2"),
         cannot={DRIVER: NO_SPOOL}),
    Rule("dynamic shRing needs the generator", EMU_ONLY,
         ("arch.name=dyn_shring", "emu.source=null"), ("arch.name=dyn_shring", "emu.source=gen"),
         cannot={DRIVER: "no devarg sets emu.source: the frames come from the port devarg"}),
    # the simulator failed as an engine, naming the library's pool.cache_size
    Rule("the cache fits the pool", BOTH, ("arch.alloc_cache=256", "arch.pool_buffers=100"),
         ("arch.alloc_cache=256", "arch.pool_buffers=6144"),
         cannot={DRIVER: "no devarg sets arch.alloc_cache or arch.pool_buffers: the "
                         "application owns the mempool"}),
    # the simulator's reference: 16 rxBisect cores post 2048 buffers (2 x 128 each)
    Rule("the pool primes the rings", SIM_ONLY, ("arch.pool_buffers=2047",),
         ("arch.pool_buffers=6144",)),
    Rule("the emulator model has the design", SIM_ONLY,
         ("arch.name=spool", "arch.emulated=true"), ("arch.name=spool", "arch.emulated=false")),
    Rule("KV requests have a source", EMU_ONLY, ("workload.nf=kvs", "emu.source=null"),
         ("workload.nf=kvs", "emu.source=gen"),
         cannot={DRIVER: "no devarg sets workload.*: the application is the network function"}),
    Rule("warm-up ends before the run", BOTH, ("run.warmup_ms=10", "run.duration_ms=5"),
         ("run.warmup_ms=1", "run.duration_ms=5"), cannot={DRIVER: NO_RUN}),
    # the LLC model refused it at creation, naming its own llc.sample_shift (exit 1)
    Rule("LLC sampling leaves sets", SIM_ONLY, ("run.llc_sample_shift=11",),
         ("run.llc_sample_shift=10",)),
    # a flow past the table took another's entry: an always-cached table (200 Gbps, not 160)
    # the boundary: tables of 2^19 entries a core hold fewer than its 1032064 flows, of 2^20 do
    Rule("flow tables hold the flows", SIM_ONLY, ("workload.flow_capacity=4194304",),
         ("workload.flow_capacity=4194305",)),
    Rule("samples fit", SIM_ONLY, ("run.duration_ms=1000", "run.sample_ms=0.001"),
         ("run.duration_ms=1000", "run.sample_ms=0.01")),
    # a run that never finished
    Rule("controller samples fit", SIM_ONLY,
         ("arch.name=dyn_shring", "run.duration_ms=10", "arch.dyn_sample_ms=0.00001"),
         ("arch.name=dyn_shring", "run.duration_ms=10", "arch.dyn_sample_ms=0.01")),
    # a run that hung: the core never got time
    Rule("ticks leave the core time", SIM_ONLY, ("system.tick_hz=250", "system.tick_us=4000"),
         ("system.tick_hz=250", "system.tick_us=3999")),
]


def cases(consumer: str) -> list:
    """The rows whose rule binds `consumer`'s engine; those it cannot express are skipped with
    the row's reason."""
    out = []
    for r in RULES:
        if ENGINE_OF[consumer] not in r.binds:
            continue  # test_an_engine_the_rule_does_not_bind_takes_the_input
        marks: list = []
        if consumer in r.cannot:
            marks.append(pytest.mark.skip(reason=f"{consumer} cannot say it: {r.cannot[consumer]}"))
        out.append(pytest.param(r, id=r.name, marks=marks))
    return out


def library_check(engine_name: str, sets: tuple[str, ...]) -> None:
    """The library's own check for an engine, without a machine (as rxb-emu runs it)."""
    scn = _native.Scn(engine_name)
    for s in sets:
        scn.set(*s.split("=", 1))
    scn.resolve(None)


def the_message(rule: Rule) -> str:
    """The library's message, word for word: through the front end's binding where the rule
    binds the simulator, else the library's check for the emulator."""
    with pytest.raises(RxbError) as refused:
        if SIM in rule.binds:
            scenario.load_resolved(None, rule.sets)
        else:
            library_check(EMU, rule.sets)
    return str(refused.value)


def last_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines, "no message at all"
    return lines[-1]


def config_value(text: str):
    """A --set value as the simulator's JSON config holds it."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text  # a name or a path


def test_the_rows_are_the_librarys_rules():
    """One row per rule the library states (rxb_scn_rule_name), in its order: a new rule
    without a row fails here."""
    assert [r.name for r in RULES] == _native.rule_names()


def test_every_bound_consumer_is_checked_or_says_why_not():
    for r in RULES:
        bound = {c for c, e in ENGINE_OF.items() if e in r.binds}
        assert set(r.cannot) <= bound, r.name
        if DRIVER in bound:  # the driver can say it exactly when the row has its devargs
            assert (r.devargs is None) == (DRIVER in r.cannot), r.name


def assert_names_a_key_of(rule: Rule, msg: str) -> None:
    """The vocabulary's shape: "key = value: why; allowed ...", the key one of the input's."""
    assert "; allowed" in msg and msg.split(" = ")[0] in {s.split("=")[0] for s in rule.sets}, msg


@pytest.mark.parametrize("rule", cases(FRONT))
def test_the_front_end_gives_the_librarys_message(rule):
    assert_names_a_key_of(rule, the_message(rule))
    scenario.load_resolved(None, rule.valid)  # the valid twin passes: the rule, not a key range


@pytest.mark.parametrize("rule", cases(EMU_BIN))
def test_the_emulators_check_gives_the_message_and_passes_the_valid_twin(rule):
    """The library's check as rxb-emu and the driver run it (no machine): the same message
    as the simulator's where the rule binds both."""
    with pytest.raises(RxbError) as refused:
        library_check(EMU, rule.sets)
    assert str(refused.value) == the_message(rule)
    assert_names_a_key_of(rule, the_message(rule))
    library_check(EMU, rule.valid)


@pytest.mark.parametrize("rule,engine_name",
                         [(r, e) for r in RULES for e in (SIM, EMU) if e not in r.binds],
                         ids=lambda v: v.name if isinstance(v, Rule) else v)
def test_an_engine_the_rule_does_not_bind_takes_the_input(rule, engine_name):
    """The row's `binds` is the library's table: the other engine accepts the bad input."""
    if engine_name == SIM:
        scenario.load_resolved(None, rule.sets)
    else:
        library_check(EMU, rule.sets)


@needs_engine
@pytest.mark.parametrize("rule", cases(SIM_BIN))
def test_rxb_sim_refuses_a_config_with_the_same_message(rule, tmp_path):
    cfg = engine.build_config(scenario.load_resolved(None, rule.valid))
    for s in rule.sets:  # write the bad values past the front end's check
        full, value = s.split("=", 1)
        sec, key = full.split(".", 1)
        if sec != "emu":  # the simulator's config has no emu section
            cfg[sec][key] = config_value(value)
    # as the front end derives it: every core's NIC, from the split
    cfg["derived"]["nic_of_core"] = [n for n, c in enumerate(cfg["system"]["cores_per_nic"])
                                     for _ in range(c)]
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg))
    p = subprocess.run([str(engine.find_engine()), "--config", str(path)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode != 0, p.stdout[-500:]
    assert last_error(p.stderr).endswith(the_message(rule)), p.stderr


@pytest.mark.parametrize("rule", cases(EMU_BIN))
def test_rxb_emu_refuses_the_same_sets_with_the_same_message(rule):
    try:
        binary = emu.find_emulator()
    except RxbError as e:
        pytest.skip(str(e))
    cmd = [str(binary), "--quiet-keys"] + [a for s in rule.sets for a in ("--set", s)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert last_error(p.stderr) == f"error: {the_message(rule)}", p.stderr


@pytest.mark.skipif(not pmd_so().exists() or not os.path.exists(TESTPMD),
                    reason="net_rxbisect or dpdk-testpmd not built/installed")
@pytest.mark.parametrize("rule", cases(DRIVER))
def test_the_driver_refuses_the_same_design_with_the_same_message(rule):
    rxq = f"--rxq={rule.rxq}"
    with TestPmd(f"port=net_null0,{rule.devargs}", [rxq, f"--txq={rule.rxq}"]) as t:
        t.quit() if t.started else t.proc.wait(30)
    want = f"with {rule.rxq} Rx queues (system.cores = {rule.rxq}): {the_message(rule)}"
    errors = [ln for ln in t.log.splitlines() if "Rx queues (system.cores" in ln]
    assert len(errors) == 1 and errors[0].endswith(want), t.log
