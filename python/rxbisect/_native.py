"""The C side of the front end: the scenario rules, a design's shape and the capture reader.

One shared object, librxb_scenario.so (built by scenario/CMakeLists.txt), holds the code the
simulator, the emulator and the driver run: per-key checks against the key table, the
cross-key rules (one function and one message each), "auto" resolution, the interface shape
(lib/shape.c) and the pcap/pcapng reader (util/pcapread.c, libpcap). This module only
marshals values in and out with ctypes -- the liburing pattern: the C library is the
implementation, so a rule or a size has one statement and one message wherever it fires.

The library is found through $RXB_NATIVE_LIB, else build/scenario/librxb_scenario.so under
the repository root; neither there is an error that says to run `make build`.
"""

import ctypes
import os
from collections.abc import Iterator
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple

from . import checkout
from .errors import EngineError, ScenarioError, UsageError

ENV_LIB = "RXB_NATIVE_LIB"
BUILT_LIB = Path("build") / "scenario" / "librxb_scenario.so"  # under the repository root
ENGINES = {"sim": 0, "emu": 1}  # enum rxb_engine
TEXT_MAX = 8192  # the longest value text: a path, or a list of 64 integers


class _Err(ctypes.Structure):  # struct rxb_err (include/rxb/common.h)
    _fields_ = [("msg", ctypes.c_char * 256), ("code", ctypes.c_int)]

    def text(self) -> str:
        return self.msg.decode(errors="replace")


class _Machine(ctypes.Structure):  # struct rxb_scn_machine (scenario/scenario.h)
    _fields_ = [("name", ctypes.c_char_p), ("cores_per_socket", ctypes.c_uint32),
                ("nics", ctypes.c_uint32), ("llc_ways", ctypes.c_uint32),
                ("link_gbps", ctypes.c_double), ("llc_mib", ctypes.c_double),
                ("llc_line_bytes", ctypes.c_uint32)]


class Shape(ctypes.Structure):
    """struct rxb_iface_shape (include/rxb/shape.h): what rxb_iface_create would build."""

    _fields_ = [("n_srcs", ctypes.c_uint32), ("n_dests", ctypes.c_uint32),
                ("n_cores", ctypes.c_uint32), ("queues_per_core", ctypes.c_uint32),
                ("src_buffers", ctypes.c_uint32), ("rx_capacity", ctypes.c_uint32),
                ("posted", ctypes.c_uint64), ("needed", ctypes.c_uint64)]


class _PcapInfo(ctypes.Structure):  # struct rxb_pcapread_info (util/pcapread.h)
    _fields_ = [("linktype", ctypes.c_uint32), ("snaplen", ctypes.c_uint32),
                ("nsec", ctypes.c_bool), ("swapped", ctypes.c_bool), ("pcapng", ctypes.c_bool)]


class _PcapRec(ctypes.Structure):  # struct rxb_pcaprec (util/pcapread.h)
    _fields_ = [("sec", ctypes.c_uint64), ("frac", ctypes.c_uint32), ("caplen", ctypes.c_uint32),
                ("orig_len", ctypes.c_uint32), ("data", ctypes.POINTER(ctypes.c_uint8)),
                ("off", ctypes.c_uint64)]


class _Metric(ctypes.Structure):  # struct rxb_metric (scenario/scenario.h)
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_char_p), ("null", ctypes.c_bool),
                ("required", ctypes.c_bool), ("record", ctypes.c_bool)]


class _ProfileKey(ctypes.Structure):  # struct rxb_profile_key (scenario/scenario.h)
    _fields_ = [("section", ctypes.c_char_p), ("name", ctypes.c_char_p),
                ("type", ctypes.c_char_p), ("lo", ctypes.c_double), ("hi", ctypes.c_double),
                ("lo_open", ctypes.c_bool), ("pow2", ctypes.c_bool), ("unit", ctypes.c_char_p)]


class _CalibKey(ctypes.Structure):  # struct rxb_calib_key (generated from calibration_keys.toml)
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_size_t),
                ("per_arch", ctypes.c_bool), ("unit", ctypes.c_char_p),
                ("kind", ctypes.c_char_p), ("hi", ctypes.c_double)]


# name: (result type, argument types) of every function the binding calls
_P, _S, _E = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(_Err)
_SIGNATURES = {
    "rxb_scn_size": (ctypes.c_size_t, []),
    "rxb_scn_defaults": (None, [_P, ctypes.c_int]),
    "rxb_scn_set_text": (ctypes.c_int, [_P, ctypes.c_int, _S, _S, _E]),
    "rxb_scn_get_text": (ctypes.c_int, [_P, _S, ctypes.c_char_p, ctypes.c_size_t]),
    "rxb_scn_resolve": (ctypes.c_int, [_P, ctypes.POINTER(_Machine), ctypes.c_int, _E]),
    "rxb_scn_key_find": (_P, [_S]),
    "rxb_scn_no_effect": (_P, [_P, ctypes.c_int, _P, ctypes.c_char_p, ctypes.c_size_t]),
    "rxb_scn_shape": (ctypes.c_int, [_P, ctypes.POINTER(Shape), _E]),
    "rxb_scn_n_rules": (ctypes.c_uint, []),
    "rxb_scn_rule_name": (_S, [ctypes.c_uint]),
    "rxb_pcapread_open": (ctypes.c_int, [ctypes.POINTER(_P), _S, _E]),
    "rxb_pcapread_next": (ctypes.c_int, [_P, ctypes.POINTER(_PcapRec), _E]),
    "rxb_pcapread_info": (ctypes.POINTER(_PcapInfo), [_P]),
    "rxb_pcapread_close": (None, [_P]),
    "rxb_pcapread_scan": (ctypes.c_int, [_S, ctypes.POINTER(ctypes.c_uint64), _E]),
}


def lib_path() -> Path:
    """$RXB_NATIVE_LIB, else the build tree's librxb_scenario.so."""
    env = os.environ.get(ENV_LIB)
    if env:
        if not Path(env).is_file():
            raise EngineError(f"{ENV_LIB}={env}: no such file; allowed: the path of "
                              "librxb_scenario.so (run `make build`)")
        return Path(env)
    built = checkout.repo_root() / BUILT_LIB
    if not built.is_file():
        raise EngineError(f"the rules library {built} does not exist: run `make build`, or "
                          f"set {ENV_LIB} to its path")
    return built


@cache
def lib() -> ctypes.CDLL:
    """The loaded library, its functions typed (once per process)."""
    so = ctypes.CDLL(str(lib_path()))
    for name, (res, args) in _SIGNATURES.items():
        fn = getattr(so, name)
        fn.restype, fn.argtypes = res, args
    return so


def text(v: object) -> str:
    """A value in --set syntax, as the C parser reads it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(str(x) for x in v) + "]"
    return repr(v) if isinstance(v, float) else str(v)


class Scn:
    """A struct rxb_scn held as opaque memory, starting at `engine`'s defaults."""

    def __init__(self, engine: str = "sim"):
        self.engine = ENGINES[engine]
        self.mem = ctypes.create_string_buffer(lib().rxb_scn_size())
        lib().rxb_scn_defaults(self.mem, self.engine)

    def set(self, full: str, value: object) -> None:
        """Check and store one value (the key table's per-key checks)."""
        err = _Err()
        if lib().rxb_scn_set_text(self.mem, self.engine, full.encode(), text(value).encode(),
                                  ctypes.byref(err)) < 0:
            raise ScenarioError(err.text())

    def get(self, full: str) -> str:
        buf = ctypes.create_string_buffer(TEXT_MAX)
        if lib().rxb_scn_get_text(self.mem, full.encode(), buf, TEXT_MAX) != 0:
            raise ScenarioError(f"{full}: unknown key; allowed: the keys `rxb scenario keys` "
                                "lists")
        return buf.value.decode()

    def resolve(self, machine: dict | None) -> None:
        """Split the cores, resolve "auto", check every cross-key rule; ScenarioError with
        the rule's one message. `machine`: name, cores_per_socket, nics, llc_ways,
        link_gbps, llc_mib, llc_line_bytes (None: leave the machine's rules to the engine)."""
        err = _Err()
        m = _Machine(machine["name"].encode(), machine["cores_per_socket"], machine["nics"],
                     machine["llc_ways"], machine["link_gbps"], machine["llc_mib"],
                     machine["llc_line_bytes"]) if machine else None
        if lib().rxb_scn_resolve(self.mem, ctypes.byref(m) if m else None, self.engine,
                                 ctypes.byref(err)) != 0:
            raise ScenarioError(err.text())

    def no_effect(self, full: str) -> str | None:
        key = lib().rxb_scn_key_find(full.encode())
        if not key:
            raise ScenarioError(f"{full}: unknown key; allowed: the keys `rxb scenario keys` "
                                "lists")
        buf = ctypes.create_string_buffer(1024)
        said = lib().rxb_scn_no_effect(self.mem, self.engine, key, buf, len(buf))
        return buf.value.decode() if said else None

    def shape(self) -> Shape:
        s, err = Shape(), _Err()
        if lib().rxb_scn_shape(self.mem, ctypes.byref(s), ctypes.byref(err)) != 0:
            raise ScenarioError(err.text())
        return s


def rule_names() -> list[str]:
    """The cross-key rules the library states (scn_rules.c), in the order it checks them."""
    return [lib().rxb_scn_rule_name(i).decode() for i in range(lib().rxb_scn_n_rules())]


def metrics() -> list[dict]:
    """The metric table the C engines were built with (rxb_metrics[]): name, kind, null,
    required, record; an object's fields follow it as "object.field"."""
    n = ctypes.c_uint.in_dll(lib(), "rxb_n_metrics").value
    return [{"name": m.name.decode(), "kind": m.kind.decode(), "null": m.null,
             "required": m.required, "record": m.record}
            for m in (_Metric * n).in_dll(lib(), "rxb_metrics")]


def profile_keys() -> list[tuple[str, str, str]]:
    """The profile key table the simulator was built with: (section, name, type)."""
    n = ctypes.c_uint.in_dll(lib(), "rxb_n_profile_keys").value
    return [(k.section.decode(), k.name.decode(), k.type.decode())
            for k in (_ProfileKey * n).in_dll(lib(), "rxb_profile_keys")]


def calib_keys() -> list[tuple[str, bool, str, str, float]]:
    """The calibration key table the simulator was built with: (name, per_arch, unit, kind,
    hi)."""
    n = ctypes.c_uint.in_dll(lib(), "rxb_n_calib_keys").value
    return [(k.name.decode(), k.per_arch, k.unit.decode(), k.kind.decode(), k.hi)
            for k in (_CalibKey * n).in_dll(lib(), "rxb_calib_keys")]


# ---- capture files -------------------------------------------------------------------------

class PcapRecord(NamedTuple):
    t_ns: int  # nanoseconds since 1970
    data: bytes  # captured bytes
    orig_len: int  # length on the wire
    linktype: int  # as libpcap reports it (raw IP: 12)


def _pcap_open(path: str | Path) -> ctypes.c_void_p:
    """A reader of `path` past its file header; UsageError with the reader's one-line message
    (file, byte offset, what was wrong)."""
    err, handle = _Err(), _P()
    if lib().rxb_pcapread_open(ctypes.byref(handle), str(path).encode(), ctypes.byref(err)) != 0:
        raise UsageError(err.text())
    return handle


def check_capture(path: str | Path) -> int:
    """The number of records of the pcap or pcapng capture at `path`, read to its end;
    UsageError with the reader's one-line message for a file that does not open, a cut or
    corrupt record, or a capture without any record."""
    try:
        st = os.stat(path)
        version = (st.st_size, st.st_mtime_ns)
    except OSError:
        version = (-1, -1)  # the reader's open names the failure; a failure is not cached
    return _scan_capture(str(path), *version)


@lru_cache(maxsize=16)
def _scan_capture(path: str, size: int, mtime_ns: int) -> int:
    """check_capture's read, once per version of a file (a sweep resolves it at every point);
    size and mtime_ns only key the cache."""
    err, records = _Err(), ctypes.c_uint64()
    if lib().rxb_pcapread_scan(path.encode(), ctypes.byref(records), ctypes.byref(err)) != 0:
        raise UsageError(err.text())
    return records.value


def pcap_records(path: str | Path) -> Iterator[PcapRecord]:
    """Every record of a pcap or pcapng file through util/pcapread (libpcap); UsageError with
    the reader's one-line message (file, byte offset, what was wrong)."""
    so, err, handle = lib(), _Err(), _pcap_open(path)
    try:
        info = so.rxb_pcapread_info(handle).contents
        ns_per_frac, lt = (1 if info.nsec else 1000), info.linktype
        rec = _PcapRec()
        while (rc := so.rxb_pcapread_next(handle, ctypes.byref(rec), ctypes.byref(err))) == 1:
            yield PcapRecord(rec.sec * 10**9 + rec.frac * ns_per_frac,
                             ctypes.string_at(rec.data, rec.caplen), rec.orig_len, lt)
        if rc < 0:
            raise UsageError(err.text())
    finally:
        so.rxb_pcapread_close(handle)
