"""The |Ax| / |Bx| sizing calculator of docs/interfaces.md §5.5.

rxBisect's promise is an I/O working set set by the Ax rings alone. This turns
the rules into numbers for one machine:

    |Bx| large enough to absorb bursts (1024 at 100 Gbps)
    ddio:   k × |Ax| × buffer <= DDIO capacity   (k = Ax rings over all NICs)
    burst:  k_nic × |Ax| >= |Bx|                  (k_nic = Ax rings of one NIC)
    vendor: |Ax| >= vendor minimum (64)

and, when they cannot all hold, says so and which one is given up. The vendor
minimum is hardware and is never given up by choice; between the other two the
caller chooses (`prefer`), keeping the DDIO fit by default because a small
working set is the point of rxBisect and a burst beyond k_nic × |Ax| is still
absorbed, only relying on refills while it lasts.

Beside the chosen |Ax| it gives the I/O working sets of the other receive interfaces on
the same NICs, cores and buffers (docs/interfaces.md §1: buffers the NIC can write into before
reusing one), with their reference ring sizes (docs/evaluation.md §2.4): privRing k x |Rx|
(1024), small privRing k x 128, shRing one RxArr of 1024 per NIC. That is the comparison
the rule is for: rxBisect's working set is set by |Ax|, theirs by the ring a burst needs.
(scenario.derived computes the same bound for a simulated scenario; a test keeps the two
in step.)

Pure functions of plain numbers, so simulator tests can call them directly.
"""

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ..errors import UsageError

VENDOR_MIN = 64  # RXB_AX_VENDOR_MIN
BX_AT_100G = 1024  # docs/interfaces.md §5.5
# Reference ring sizes of the other interfaces (docs/evaluation.md §2.4).
PRIVRING_RX, SMALL_PRIVRING_RX, SHRING_RXARR = 1024, 128, 1024


def _pow2_ceil(x: float) -> int:
    return 1 if x <= 1 else 1 << math.ceil(math.log2(x) - 1e-12)


def _pow2_floor(x: float) -> int:
    return 0 if x < 1 else 1 << math.floor(math.log2(x) + 1e-12)


def recommended_bx(link_gbps: float) -> int:
    """1024 at 100 Gbps, scaled with the link rate so a Bx covers the same burst
    duration (~120 µs of 1500 B frames), never below 1024."""
    return max(BX_AT_100G, _pow2_ceil(BX_AT_100G * link_gbps / 100))


def split_cores(total: int, rates: Sequence[float]) -> tuple[int, ...]:
    """Cores per NIC in proportion to each NIC's traffic (largest remainder, >= 1 each)."""
    n = len(rates)
    if n == 0 or total < n:
        raise UsageError(f"--cores {total}: fewer cores than NICs ({n}); allowed: at least {n}")
    if any(r < 0 for r in rates):
        raise UsageError(f"--traffic-gbps {','.join(f'{r:g}' for r in rates)}: rates must be "
                         ">= 0")
    top = max(rates)
    shares = [r / top for r in rates] if top > 0 else [1.0] * n  # no sum overflows to inf
    quota = [total * x / sum(shares) for x in shares]
    cores = [max(1, math.floor(q)) for q in quota]
    while sum(cores) < total:
        cores[max(range(n), key=lambda i: quota[i] - cores[i])] += 1
    while sum(cores) > total:
        cores[max((i for i in range(n) if cores[i] > 1), key=lambda i: cores[i] - quota[i])] -= 1
    return tuple(cores)


@dataclass(frozen=True)
class Check:
    name: str  # ddio | burst | vendor
    rule: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class Row:
    ax: int
    working_set_bytes: int
    ddio: bool
    burst: bool
    vendor: bool


@dataclass(frozen=True)
class Beside:
    """Another interface's I/O working set on the same NICs, cores and buffers."""

    design: str  # privring | small_privring | shring | rxbisect
    rings: int  # rings the NIC writes into
    entries: int  # entries per ring
    working_set_bytes: int
    fits_ddio: bool


def working_sets(cores_per_nic: Sequence[int], buffer_bytes: int, ddio_bytes: int, ax: int,
                 rx: int = PRIVRING_RX, small_rx: int = SMALL_PRIVRING_RX,
                 rxarr: int = SHRING_RXARR) -> tuple[Beside, ...]:
    """privRing (a ring per core), small privRing, shRing (one RxArr per NIC, shared by its
    cores) and rxBisect (an Ax per core) side by side."""
    k, nics = sum(cores_per_nic), len(cores_per_nic)
    return tuple(Beside(d, rings, n, rings * n * buffer_bytes,
                        rings * n * buffer_bytes <= ddio_bytes)
                 for d, rings, n in (("privring", k, rx), ("small_privring", k, small_rx),
                                     ("shring", nics, rxarr), ("rxbisect", k, ax)))


@dataclass(frozen=True)
class Sizing:
    nics: int
    link_gbps: float
    cores_per_nic: tuple[int, ...]
    buffer_bytes: int
    ddio_bytes: int
    vendor_min: int
    bx: int
    k: int
    k_nic: int
    ax_max_ddio: int  # largest power-of-two |Ax| that fits DDIO (0: none does)
    ax_min_burst: int  # smallest power-of-two |Ax| with k_nic × |Ax| >= |Bx|
    ax: int
    checks: tuple[Check, ...]
    given_up: tuple[str, ...]
    verdict: str
    rows: tuple[Row, ...]
    beside: tuple[Beside, ...]  # working sets of the other interfaces (working_sets)

    @property
    def conflict(self) -> bool:
        return bool(self.given_up)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["conflict"] = self.conflict
        return d


def mib_text(b: float) -> str:
    """Bytes in MiB, whole MiB from 1000 on (not 4.1e+03)."""
    mib = b / 2**20
    return f"{mib:.3g} MiB" if mib < 999.5 else f"{mib:,.0f} MiB"


def _checks(ax: int, s: dict) -> tuple[Check, ...]:
    ws = s["k"] * ax * s["buffer_bytes"]
    return (
        Check("ddio", "k x |Ax| x buffer <= DDIO", ws <= s["ddio_bytes"],
              f"{s['k']} x {ax} x {s['buffer_bytes']} B = {mib_text(ws)} vs {mib_text(s['ddio_bytes'])}"),
        Check("burst", "k_nic x |Ax| >= |Bx|", s["k_nic"] * ax >= s["bx"],
              f"{s['k_nic']} x {ax} = {s['k_nic'] * ax} vs |Bx| = {s['bx']}"),
        Check("vendor", "|Ax| >= vendor minimum", ax >= s["vendor_min"],
              f"{ax} vs {s['vendor_min']}"),
    )


def _consequence(name: str, ax: int, s: dict) -> str:
    if name == "burst":
        return (f"a burst of more than k_nic x |Ax| = {s['k_nic'] * ax} packets to one core "
                "relies on refills while it lasts")
    if name == "ddio":
        ws = s["k"] * ax * s["buffer_bytes"]
        return (f"the working set {mib_text(ws)} exceeds the DDIO capacity {mib_text(s['ddio_bytes'])}, "
                "so NIC writes will evict buffers to DRAM")
    return f"|Ax| = {ax} is below what the NIC accepts"


def size(nics: int = 2, link_gbps: float = 100.0, cores_per_nic: int | Sequence[int] = 8,
         buffer_bytes: int = 2048, ddio_bytes: int = 4 * 2**20, bx: int | None = None,
         ax: int | None = None, prefer: str = "ddio", vendor_min: int = VENDOR_MIN,
         rx: int = PRIVRING_RX, small_rx: int = SMALL_PRIVRING_RX,
         rxarr: int = SHRING_RXARR) -> Sizing:
    """Pick |Bx| and |Ax| (or check a given |Ax|) against the three constraints; `rx`,
    `small_rx` and `rxarr` are the other interfaces' ring sizes for the comparison.

    >>> s = size(nics=2, link_gbps=100, cores_per_nic=8)
    >>> s.bx, s.ax
    (1024, 128)
    """
    per_nic = (cores_per_nic,) * nics if isinstance(cores_per_nic, int) else tuple(cores_per_nic)
    for name, v in (("nics", nics), ("buffer_bytes", buffer_bytes), ("vendor_min", vendor_min)):
        if v < 1:
            raise UsageError(f"{name} = {v}: must be >= 1")
    if link_gbps <= 0 or ddio_bytes < 0:
        raise UsageError(f"link_gbps = {link_gbps}, ddio_bytes = {ddio_bytes}: must be > 0 and >= 0")
    if len(per_nic) != nics or min(per_nic) < 1:
        raise UsageError(f"cores_per_nic = {list(per_nic)}: needs {nics} entries (one per NIC), "
                         "each >= 1")
    for name, v in (("rx", rx), ("small_rx", small_rx), ("rxarr", rxarr)):
        if v < 1:
            raise UsageError(f"{name} = {v}: ring entries must be >= 1")
    for name, opt in (("bx", bx), ("ax", ax)):
        if opt is not None and (opt < 1 or opt & (opt - 1)):
            raise UsageError(f"{name} = {opt}: not a power of two; allowed: 1, 2, 4, ... entries")
    if prefer not in ("ddio", "burst"):
        raise UsageError(f"prefer = {prefer!r}: allowed: ddio, burst")

    s = dict(k=sum(per_nic), k_nic=min(per_nic), buffer_bytes=buffer_bytes,
             ddio_bytes=ddio_bytes, vendor_min=vendor_min,
             bx=recommended_bx(link_gbps) if bx is None else bx)
    hi = _pow2_floor(ddio_bytes / (s["k"] * buffer_bytes))
    lo_burst = _pow2_ceil(s["bx"] / s["k_nic"])
    need = max(lo_burst, _pow2_ceil(vendor_min))
    if ax is not None:
        chosen, why = ax, f"|Ax| = {ax} as given"
    elif need <= hi:
        chosen, why = need, f"|Ax| = {need}: the smallest size for which all three hold"
    elif hi < vendor_min or prefer == "burst":
        chosen, why = need, f"|Ax| = {need}"
    else:
        chosen, why = hi, f"|Ax| = {hi}"
    checks = _checks(chosen, s)
    given_up = tuple(c.name for c in checks if not c.ok)
    if given_up and ax is None:
        forced = " (forced: even the vendor minimum overflows DDIO)" if hi < vendor_min else ""
        why = (f"cannot satisfy all three: DDIO fit needs |Ax| <= {hi}, burst absorption needs "
               f"|Ax| >= {lo_burst}, the vendor minimum is {vendor_min}; {why} gives up "
               f"'{given_up[0]}'{forced}: " + _consequence(given_up[0], chosen, s))
    elif given_up:
        why += "; violates " + ", ".join(f"'{g}': {_consequence(g, chosen, s)}" for g in given_up)
    top = max(s["bx"], chosen, vendor_min)
    rows = tuple(Row(a, s["k"] * a * buffer_bytes, *(c.ok for c in _checks(a, s)))
                 for a in (1 << i for i in range(5, top.bit_length())))
    beside = working_sets(per_nic, buffer_bytes, ddio_bytes, chosen, rx, small_rx, rxarr)
    return Sizing(nics, link_gbps, per_nic, buffer_bytes, ddio_bytes, vendor_min, s["bx"],
                  s["k"], s["k_nic"], hi, lo_burst, chosen, checks, given_up, why, rows, beside)
