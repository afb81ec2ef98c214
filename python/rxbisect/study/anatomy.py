"""Where each packet's time goes: the per-packet stall anatomy of a result record.

The simulator's record may carry `metrics.anatomy` (docs/simulator.md, "Per-packet stall
anatomy"): per core class ("main", "target", "slow"), the cores, the packets they processed,
the mean busy time per packet (`service_ns`) and the components that time is made of, in the
order a packet meets them. Each component has a `name` (open-ended: the engine decides), a
`kind` (KINDS) and `ns` per packet; an access component also has `count` (accesses per
packet), `l2`/`llc`/`dram` (the share served at each level) and `latency_ns` (their mean
latency). Overlapped accesses share their wave's stall, so the components sum to the
service time.

This module turns that into text (`explain`, `side_by_side`) and rows for other renderers
(`header`, `rows`), and checks it (`check_anatomy`). Every function accepts records without
anatomy (older records, emulator records) and says so instead of failing.
"""

import math
from collections.abc import Iterable, Sequence
from typing import Any, TypeGuard

from ..output.text_report import num, table

KINDS = ("cpu", "access", "wait", "sync")
CLASSES = ("main", "target", "slow")  # known core classes, in display order
LEVELS = ("l2", "llc", "dram")
SUM_TOLERANCE = 0.01  # components vs service_ns, relative
SHARE_TOLERANCE = 0.01  # l2 + llc + dram vs 1
MISSING = ("No per-packet stall anatomy in this record (metrics.anatomy is absent: an older "
           "engine, or an emulator record).")
HEADERS = ("component", "kind", "ns/packet", "share", "count/packet", "L2", "LLC", "DRAM",
           "latency ns")
RIGHT = (False, False, True, True, True, True, True, True, True)


def of(metrics: Any) -> dict | None:
    """The record's anatomy ({class: {...}}), or None when it has none."""
    a = metrics.get("anatomy") if isinstance(metrics, dict) else None
    return a if isinstance(a, dict) and a else None


def classes(anat: dict) -> list[str]:
    """The core classes of an anatomy: the known ones in CLASSES order, then any other."""
    return [c for c in CLASSES if c in anat] + [c for c in anat if c not in CLASSES]


def _components(doc: dict) -> list[dict]:
    """A class's components, leaving out what is not one (check_anatomy reports those)."""
    comps = doc.get("components")
    return [c for c in comps if isinstance(c, dict)] if isinstance(comps, list) else []


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _share(part: float, whole: Any) -> str:
    return _pct(part / whole) if _number(whole) and whole > 0 else "-"


def header(cls: str, doc: dict) -> str:
    """One line naming the class: cores, packets, service time."""
    return (f"Core class {cls}: {num(doc.get('cores'), 0)} cores, {num(doc.get('packets'), 0)} "
            f"packets, service time {num(doc.get('service_ns'), 1)} ns/packet")


def rows(doc: dict) -> list[tuple[str, ...]]:
    """The table of one class (columns HEADERS): a row per component, then the total row
    (the service time, and the components' share of it)."""
    service = doc.get("service_ns")
    out, total = [], 0.0
    for c in _components(doc):
        ns = c.get("ns")
        total += ns if _number(ns) else 0.0
        row = [str(c.get("name")), str(c.get("kind")), num(ns, 1),
               _share(ns, service) if _number(ns) else "-"]
        if c.get("kind") == "access":
            row += [num(c.get("count"), 2), *(_pct(c[lv]) if _number(c.get(lv)) else "-"
                                               for lv in LEVELS), num(c.get("latency_ns"), 1)]
        else:
            row += [""] * 5
        out.append(tuple(row))
    out.append(("total (service time)", "", num(service, 1), _share(total, service),
                *[""] * 5))
    return out


def explain(metrics: dict) -> str:
    """`rxb sim --explain`: a table per core class, or MISSING; problems found by
    check_anatomy are listed under the tables."""
    anat = of(metrics)
    if anat is None:
        return MISSING + "\n"
    parts = ["Where each packet's time goes (per-packet stall anatomy, docs/simulator.md):"]
    for cls in classes(anat):
        doc = anat[cls] if isinstance(anat[cls], dict) else {}
        parts.append(f"\n{header(cls, doc)}\n{table(HEADERS, rows(doc), RIGHT)}")
    problems = check_anatomy(metrics)
    if problems:
        parts.append("\nThe anatomy does not add up:\n" + "\n".join(f"  {p}" for p in problems))
    return "\n".join(parts) + "\n"


def _merge_names(lists: Iterable[Sequence[str]]) -> list[str]:
    """One component order for several designs: each list's order kept, a name first seen
    in a later list placed after its predecessor there."""
    out: list[str] = []
    for names in lists:
        prev = None
        for n in names:
            if n not in out:
                out.insert(out.index(prev) + 1 if prev is not None else 0, n)
            prev = n
    return out


def side_by_side(columns: Sequence[tuple[str, dict]]) -> str:
    """`rxb compare --explain`: per core class, one row per component and one column per
    design (ns/packet; "-" where a design has no such component or no anatomy at all), then
    the service time. `columns` are (label, metrics) pairs."""
    anats = [(label, of(m)) for label, m in columns]
    have = [a for _, a in anats if a is not None]
    if not have:
        return MISSING + "\n"
    labels = [label for label, _ in anats]
    parts = []
    for cls in classes({c: None for a in have for c in classes(a)}):
        docs = [a.get(cls) if a is not None and isinstance(a.get(cls), dict) else None
                for _, a in anats]
        comps = [{str(c.get("name")): c for c in _components(d)} if d else {} for d in docs]
        names = _merge_names([list(c) for c in comps])
        body = [(n, *(num(c[n].get("ns"), 1) if n in c else "-" for c in comps))
                for n in names]
        body.append(("service time", *(num(d.get("service_ns"), 1) if d else "-"
                                       for d in docs)))
        body.append(("cores / packets", *(f"{num(d.get('cores'), 0)} / "
                                          f"{num(d.get('packets'), 0)}" if d else "-"
                                          for d in docs)))
        parts.append(f"Core class {cls}, ns per packet:\n"
                     + table(("component", *labels), body, (False, *[True] * len(labels))))
    absent = [label for label, a in anats if a is None]
    if absent:
        parts.append(f"No anatomy in the records of: {', '.join(absent)}.")
    return "\n\n".join(parts) + "\n"


# ---- checks ------------------------------------------------------------------------------

def _number(v: Any) -> TypeGuard[float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_anatomy(metrics: dict) -> list[str]:
    """What is wrong with `metrics["anatomy"]` (empty when nothing, or when it is absent):
    per class, the components' ns sum to service_ns within SUM_TOLERANCE (and service_ns
    is that close to busy_ns, the cores' own measure, when the record has it); every ns is a
    non-negative number; an access row's l2/llc/dram shares lie in [0, 1] and sum to 1
    within SHARE_TOLERANCE (when it has accesses); kinds are KINDS."""
    if not isinstance(metrics, dict) or "anatomy" not in metrics:
        return []
    anat = metrics["anatomy"]
    if not isinstance(anat, dict):
        return [f"anatomy: expected an object of core classes, got {anat!r:.40}"]
    out: list[str] = []
    for cls, doc in anat.items():
        where = f"anatomy.{cls}"
        if not isinstance(doc, dict):
            out.append(f"{where}: expected an object, got {doc!r:.40}")
            continue
        for key in ("cores", "packets", "service_ns"):
            v = doc.get(key)
            if not _number(v) or v < 0:
                out.append(f"{where}.{key}: expected a number >= 0, got {v!r:.40}")
        comps = doc.get("components")
        if not isinstance(comps, list):
            out.append(f"{where}.components: expected a list, got {comps!r:.40}")
            continue
        total, seen = 0.0, set[str]()
        for i, c in enumerate(comps):
            if not isinstance(c, dict):
                out.append(f"{where}.components[{i}]: expected an object, got {c!r:.40}")
                continue
            out += _check_component(f"{where}.{c.get('name', f'components[{i}]')}", c, seen)
            total += c["ns"] if _number(c.get("ns")) else 0.0
        service, busy = doc.get("service_ns"), doc.get("busy_ns")
        if _number(service) and _apart(total, service):
            out.append(f"{where}: components sum to {total:.4g} ns, service_ns is "
                       f"{service:.4g} ns (more than {100 * SUM_TOLERANCE:g} % apart)")
        if _number(service) and _number(busy) and _apart(service, busy):
            out.append(f"{where}: service_ns {service:.4g} ns, but the cores measured "
                       f"busy_ns {busy:.4g} ns (more than {100 * SUM_TOLERANCE:g} % apart)")
    return out


def _apart(x: float, ref: float) -> bool:
    return abs(x - ref) > SUM_TOLERANCE * max(ref, 1e-9)


def _check_component(where: str, c: dict, seen: set[str]) -> list[str]:
    out = []
    name = c.get("name")
    if not isinstance(name, str) or not name:
        out.append(f"{where}: name should be a non-empty string, got {name!r:.40}")
    elif name in seen:
        out.append(f"{where}: listed twice")
    else:
        seen.add(name)
    if c.get("kind") not in KINDS:
        out.append(f"{where}: kind {c.get('kind')!r:.40} is not one of {', '.join(KINDS)}")
    if not _number(c.get("ns")) or c["ns"] < 0:
        out.append(f"{where}.ns: expected a number >= 0, got {c.get('ns')!r:.40}")
    if c.get("kind") != "access":
        return out
    for key in ("count", "latency_ns"):
        if not _number(c.get(key)) or c[key] < 0:
            out.append(f"{where}.{key}: expected a number >= 0, got {c.get(key)!r:.40}")
    bad = [lv for lv in LEVELS if not _number(c.get(lv)) or not 0 <= c[lv] <= 1]
    if bad:
        out.append(f"{where}: shares {', '.join(f'{lv}={c.get(lv)!r:.20}' for lv in bad)} "
                   "not in [0, 1]")
        return out
    shares = sum(c[lv] for lv in LEVELS)
    if (c.get("count") or 0) > 0 and abs(shares - 1) > SHARE_TOLERANCE:
        out.append(f"{where}: shares l2 + llc + dram = {shares:.4g}, not 1")
    return out
