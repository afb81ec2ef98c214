"""The scenario's sections as typed classes: one frozen dataclass per section, one field per
key of scenario_keys.toml, in the table's order.

The table gives each key's default, allowed values and documentation (`_key` reads them);
the classes give the names and types the rest of the package and the type checker rely on.
A key added to the table needs its line here: tests/python/test_package.py checks that both
list the same keys in the same order with the same types, and names the one that differs.
"""

from dataclasses import dataclass, field
from typing import Any, Literal

from .schema import Spec
from .tables import SCENARIO_KEYS

Auto = Literal["auto"]


def _spec(k: dict[str, Any]) -> Spec:
    return Spec(k["doc"], unit=k.get("unit", ""), choices=tuple(k.get("values", ())),
                lo=k.get("lo"), hi=k.get("hi"), lo_open=k.get("lo_open", False),
                pow2=k.get("pow2", False), path=k.get("path", False),
                engines=tuple(k["engines"]), auto_doc=k.get("auto", ""), emu=k.get("emu"))


def _key(section: str, name: str) -> Any:
    """The field of key section.name: its default and Spec from the table."""
    k = SCENARIO_KEYS[section][name]
    default = tuple(k["default"]) if k["type"] == "list" else k["default"]
    return field(default=default, metadata={"spec": _spec(k)})



@dataclass(frozen=True)
class Arch:
    name: str = _key("arch", "name")
    rx_size: int | Auto = _key("arch", "rx_size")
    ax_size: int = _key("arch", "ax_size")
    bx_size: int = _key("arch", "bx_size")
    cr_size: int | Auto = _key("arch", "cr_size")
    emulated: bool = _key("arch", "emulated")
    share_degree: int | Auto = _key("arch", "share_degree")
    rxlist_batch: int = _key("arch", "rxlist_batch")
    ax_policy: str = _key("arch", "ax_policy")
    association: str = _key("arch", "association")
    groups: int = _key("arch", "groups")
    coalesce: bool = _key("arch", "coalesce")
    coalesce_timeout_ns: float = _key("arch", "coalesce_timeout_ns")
    batch: int = _key("arch", "batch")
    buffer_bytes: int | Auto = _key("arch", "buffer_bytes")
    headroom_bytes: int = _key("arch", "headroom_bytes")
    alloc_cache: int = _key("arch", "alloc_cache")
    tx_size: int = _key("arch", "tx_size")
    pool_buffers: int | Auto = _key("arch", "pool_buffers")
    spool_mode: str = _key("arch", "spool_mode")
    spool_ports: int = _key("arch", "spool_ports")
    spool_low: int = _key("arch", "spool_low")
    spool_high: int = _key("arch", "spool_high")
    dyn_sample_ms: float = _key("arch", "dyn_sample_ms")
    dyn_window: int = _key("arch", "dyn_window")
    dyn_tput_gbps: float = _key("arch", "dyn_tput_gbps")
    dyn_membw_gibps: float = _key("arch", "dyn_membw_gibps")
    dyn_overload_factor: float = _key("arch", "dyn_overload_factor")


@dataclass(frozen=True)
class System:
    profile: str = _key("system", "profile")
    cores: int = _key("system", "cores")
    nics: int = _key("system", "nics")
    cores_per_nic: tuple[int, ...] = _key("system", "cores_per_nic")
    ddio_ways: int | Auto = _key("system", "ddio_ways")
    cat_ways: int = _key("system", "cat_ways")
    cat_prefetch: bool = _key("system", "cat_prefetch")
    mlp: int | Auto = _key("system", "mlp")
    rx_cqe_wave: int = _key("system", "rx_cqe_wave")
    stalled_cores: tuple[int, ...] = _key("system", "stalled_cores")
    stall_at_ms: float = _key("system", "stall_at_ms")
    stall_for_ms: float = _key("system", "stall_for_ms")
    slow_cores: tuple[int, ...] = _key("system", "slow_cores")
    slow_extra_ns: float = _key("system", "slow_extra_ns")
    service_cv: float = _key("system", "service_cv")
    tick_hz: float = _key("system", "tick_hz")
    tick_us: float = _key("system", "tick_us")
    pause_hz: float = _key("system", "pause_hz")
    pause_us: float = _key("system", "pause_us")
    hog: str = _key("system", "hog")
    hog_instances: int = _key("system", "hog_instances")


@dataclass(frozen=True)
class Traffic:
    rate_gbps: float = _key("traffic", "rate_gbps")
    packet_bytes: int = _key("traffic", "packet_bytes")
    pattern: str = _key("traffic", "pattern")
    target_share: float = _key("traffic", "target_share")
    target_rate_gbps: float = _key("traffic", "target_rate_gbps")
    target_packet_bytes: int = _key("traffic", "target_packet_bytes")
    target_core: int = _key("traffic", "target_core")
    burst_packets: int = _key("traffic", "burst_packets")
    burst_duty: float = _key("traffic", "burst_duty")
    change_at_ms: float = _key("traffic", "change_at_ms")
    change_target_share: float = _key("traffic", "change_target_share")
    train_packets: int = _key("traffic", "train_packets")
    pcap: str = _key("traffic", "pcap")
    pcap_speedup: float = _key("traffic", "pcap_speedup")
    pcap_rate_gbps: float = _key("traffic", "pcap_rate_gbps")
    pcap_loop: bool = _key("traffic", "pcap_loop")
    flows: int = _key("traffic", "flows")
    flow_model: str = _key("traffic", "flow_model")
    gen_src_addrs: int = _key("traffic", "gen_src_addrs")
    gen_dst_addrs: int = _key("traffic", "gen_dst_addrs")
    key_dist: str = _key("traffic", "key_dist")
    zipf_s: float = _key("traffic", "zipf_s")


@dataclass(frozen=True)
class Workload:
    nf: str = _key("workload", "nf")
    reads: int = _key("workload", "reads")
    buffer_mib: float = _key("workload", "buffer_mib")
    payload: str = _key("workload", "payload")
    target_reads: int = _key("workload", "target_reads")
    costs: str = _key("workload", "costs")
    nf_cycles: int | Auto = _key("workload", "nf_cycles")
    compute_ns: float = _key("workload", "compute_ns")
    nat_flows: int = _key("workload", "nat_flows")
    lb_backends: int = _key("workload", "lb_backends")
    kvs_put_share: float = _key("workload", "kvs_put_share")
    kvs_keys: int = _key("workload", "kvs_keys")
    kvs_key_bytes: int = _key("workload", "kvs_key_bytes")
    kvs_value_bytes: int = _key("workload", "kvs_value_bytes")
    counter_slots: int = _key("workload", "counter_slots")
    lpm_table_mib: float = _key("workload", "lpm_table_mib")
    flow_capacity: int = _key("workload", "flow_capacity")


@dataclass(frozen=True)
class Run:
    duration_ms: float = _key("run", "duration_ms")
    warmup_ms: float = _key("run", "warmup_ms")
    seed: int = _key("run", "seed")
    sample_ms: float = _key("run", "sample_ms")
    check_invariants: bool = _key("run", "check_invariants")
    llc_sample_shift: int = _key("run", "llc_sample_shift")


@dataclass(frozen=True)
class Emu:
    source: str = _key("emu", "source")
    port: int = _key("emu", "port")
    out: str = _key("emu", "out")
    rss: str = _key("emu", "rss")
    packets: int = _key("emu", "packets")
    drain_ms: float = _key("emu", "drain_ms")
    telemetry: bool = _key("emu", "telemetry")
    progress: bool = _key("emu", "progress")
    sink: bool = _key("emu", "sink")
    learn_flows: bool = _key("emu", "learn_flows")
    nic_lcores: int = _key("emu", "nic_lcores")
    gen_lcores: int = _key("emu", "gen_lcores")
