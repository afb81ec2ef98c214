#!/usr/bin/env python3
"""Generate the C side of the scenario vocabulary from its one definition.

    gen_scenario.py KEYS.toml METRICS.toml PROFILE.toml CALIBRATION.toml OUT_DIR

reads scenario/tables/scenario_keys.toml, result_metrics.toml, profile_keys.toml
and calibration_keys.toml (formats in their headers) and writes
OUT_DIR/scenario_gen.h (the enums the scenario owns, struct rxb_scn with one
typed field per key, a name constant per metric and per profile key, struct
rxb_calib_cycles with one field per calibration key) and OUT_DIR/scenario_gen.c
(the key table: kinds, offsets, per-engine ranges and defaults, enum names, docs;
the metric table; the profile key table; the calibration key table). Standard library
only: the build runs it with the system's python3 (>= 3.11 for tomllib).
Every check of the table that C can make at compile time is emitted as a
_Static_assert (a bound equal to the library constant it mirrors, an enum
with as many names as the library's table).
"""

import sys
import tomllib
from pathlib import Path

ENGINES = ("sim", "emu")
LIBRARY_HEADERS = ("rxb/common.h", "rxb/dynctl.h", "rxb/iface.h", "rxb/rxbisect.h",
                   "rxb/shring.h", "rxb/spool.h")
U32_MAX = 2**32 - 1
AUTO_SENTINEL = U32_MAX  # RXB_SCN_AUTO: an "auto" int stored before resolution
# The simulator reads its configuration as JSON, whose integers its parser holds as
# signed 64-bit: a larger value is refused there, with no key named.
SIM_INT_MAX = 2**63 - 1


class TableError(Exception):
    pass


def c_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def c_num(x: float) -> str:
    """A double literal that round-trips (integers stay exact up to 2^64)."""
    if float(x).is_integer() and abs(x) < 2**64:
        return f"{int(x)}.0"
    return repr(float(x))


def sectioned(path: Path) -> list[dict]:
    """A [section.key] table in file order: each key a dict with section, name and its
    fields."""
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    return [dict(k, section=section, name=name) for section, body in doc.items()
            for name, k in body.items()]


def load(path: Path) -> list[dict]:
    """The scenario keys in file order, each checked."""
    keys = sectioned(path)
    for k in keys:
        validate(k)
    chosen = {f"{k['section']}.{k['name']}": k for k in keys}
    for k in keys:
        validate_scope(k, chosen)
    return keys


def validate(k: dict) -> None:
    full = f"{k['section']}.{k['name']}"
    t = k.get("type")
    if t not in ("bool", "int", "float", "string", "enum", "list"):
        raise TableError(f"{full}: type {t!r} is not one of bool, int, float, string, enum, list")
    if not set(k.get("engines", ())) <= set(ENGINES) or not k.get("engines"):
        raise TableError(f"{full}: engines must be a non-empty subset of {ENGINES}")
    if t == "enum" and not k.get("values"):
        raise TableError(f"{full}: an enum needs values")
    if t == "enum" and ("c_names" in k) == ("c_enum" in k):
        raise TableError(f"{full}: an enum names either c_names (library) or c_enum")
    if ("auto" in k) != (t == "int" and k.get("default") == "auto"):
        raise TableError(f"{full}: an int key defaults to \"auto\" exactly when `auto` says how")
    if t == "int" and k.get("default") == "auto" and k.get("hi", 0) >= AUTO_SENTINEL:
        raise TableError(f"{full}: an \"auto\" int must stay below {AUTO_SENTINEL}")
    for eng in ENGINES:
        if eng in k and not k[eng].get("why"):
            raise TableError(f"{full}.{eng}: an engine override says why")
    if t == "int" and "sim" in k["engines"] and (limits(k, "sim")["hi"] or 0) > SIM_INT_MAX:
        raise TableError(f"{full}: hi above {SIM_INT_MAX}, the largest integer the simulator's "
                         "JSON configuration carries")


# The keys whose values a key's `archs`, `patterns`, `sources` and `nfs` name (its scope),
# in the order of struct rxb_scn_limits.
SCOPES = {"archs": "arch.name", "patterns": "traffic.pattern", "sources": "emu.source",
          "nfs": "workload.nf"}


def validate_scope(k: dict, chosen: dict[str, dict]) -> None:
    """`archs`, `patterns`, `sources` and `nfs` (and an engine's own) name values of
    arch.name, traffic.pattern, emu.source and workload.nf, each at most once; `sources`
    only where the emulator alone reads them (the simulator has no emu.source)."""
    full = f"{k['section']}.{k['name']}"
    if "sources" in k and "sim" in k["engines"]:
        raise TableError(f"{full}: sources only in [{full}.emu] or for an emulator-only key")
    for where, body in ((full, k), *((f"{full}.{e}", k[e]) for e in ENGINES if e in k)):
        for field, by in SCOPES.items():
            names = body.get(field)
            if names is None:
                continue
            values = chosen[by]["values"]
            if not names or len(set(names)) != len(names) or not set(names) <= set(values):
                raise TableError(f"{where}: {field} must be distinct values of {by} "
                                 f"({', '.join(values)})")


def scope_mask(k: dict, eng: str, field: str, keys: dict[str, dict]) -> str:
    """The bit mask of the values in the key's (or engine's) `field`; all bits when absent."""
    values = keys[SCOPES[field]]["values"]
    names = k.get(eng, {}).get(field, k.get(field, values))
    return f"0x{sum(1 << values.index(n) for n in names):x}u"


def c_kind(k: dict) -> str:
    t = k["type"]
    if t == "int":
        return "RXB_SCN_U64" if k.get("hi", 0) > U32_MAX else "RXB_SCN_U32"
    return {"bool": "RXB_SCN_BOOL", "float": "RXB_SCN_F64", "string": "RXB_SCN_STR",
            "enum": "RXB_SCN_ENUM", "list": "RXB_SCN_LIST"}[t]


def c_enum_type(k: dict) -> str:
    return k["c_type"] if "c_names" in k else f"enum {k['c_enum']}"


def c_field(k: dict) -> str:
    kind, name = c_kind(k), k["name"]
    return {"RXB_SCN_BOOL": f"bool {name};",
            "RXB_SCN_U32": f"uint32_t {name};",
            "RXB_SCN_U64": f"uint64_t {name};",
            "RXB_SCN_F64": f"double {name};",
            "RXB_SCN_STR": f"char {name}[{k.get('max_bytes', 256)}];",
            "RXB_SCN_ENUM": f"{c_enum_type(k) if k['type'] == 'enum' else ''} {name};",
            "RXB_SCN_LIST": f"struct rxb_scn_list {name};"}[kind]


def text(v) -> str:
    """A default as the text parser reads it (the --set syntax)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ",".join(str(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def limits(k: dict, eng: str) -> dict:
    o = k.get(eng, {})
    return {"lo": o.get("lo", k.get("lo")), "hi": o.get("hi", k.get("hi")),
            "default": o.get("default", k.get("default")), "why": o.get("why", "")}


def max_samples(keys: list[dict]) -> int:
    return next(k["max_samples"] for k in keys if "max_samples" in k)


METRIC_KINDS = ("count", "number", "fraction", "bool", "object", "counts")


def load_metrics(path: Path) -> list[dict]:
    """The metrics in file order, an object's fields after it as "name.field" entries."""
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    out = []
    for name, m in doc.items():
        if m.get("kind") not in METRIC_KINDS:
            raise TableError(f"{name}: kind {m.get('kind')!r} is not one of "
                             f"{', '.join(METRIC_KINDS)}")
        if "fields" in m and m["kind"] != "object":
            raise TableError(f"{name}: only an object has fields")
        flags = {f: bool(m.get(f, False)) for f in ("null", "required", "record")}
        out.append({"name": name, "kind": m["kind"], **flags})
        for field, kind in m.get("fields", {}).items():
            if kind.rstrip("?") not in METRIC_KINDS:
                raise TableError(f"{name}.{field}: kind {kind!r} is not one of "
                                 f"{', '.join(METRIC_KINDS)} (a trailing ? allows null)")
            out.append({"name": f"{name}.{field}", "kind": kind.rstrip("?"),
                        "null": kind.endswith("?"), "required": flags["required"],
                        "record": flags["record"]})
    return out


PROFILE_TYPES = ("int", "float", "bool", "string")


def load_profile(path: Path) -> list[dict]:
    """The profile keys in file order, each with a known type."""
    keys = sectioned(path)
    for k in keys:
        if k.get("type") not in PROFILE_TYPES:
            raise TableError(f"{k['section']}.{k['name']}: type {k.get('type')!r} is not one "
                             f"of {', '.join(PROFILE_TYPES)}")
    return keys


def profile_lines(profile: list[dict]) -> list[str]:
    """A constant per section and per key, as the simulator names them in its config."""
    out = ["/* The hardware profile's keys (profile_keys.toml): a constant per section",
           " * (RXB_PROFILE_SECTION_CPU \"cpu\") and per key (RXB_PROFILE_CPU_FREQ_GHZ",
           " * \"freq_ghz\", the name within its section). */",
           f"#define RXB_N_PROFILE_KEYS {len(profile)}u"]
    out += [f"#define RXB_PROFILE_SECTION_{s.upper()} {c_str(s)}"
            for s in dict.fromkeys(k["section"] for k in profile)]
    out += [f"#define RXB_PROFILE_{k['section'].upper()}_{k['name'].upper()} {c_str(k['name'])}"
            for k in profile]
    return out + [""]


CALIB_KINDS = ("measured", "assumption")


def load_calib(path: Path) -> list[dict]:
    """The calibration keys in file order, each checked."""
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    keys = [dict(k, name=name) for name, k in doc.items()]
    for k in keys:
        validate_calib(k)
    return keys


def validate_calib(k: dict) -> None:
    name = k["name"]
    if not name.isidentifier():
        raise TableError(f"{name}: a calibration key is a C identifier")
    if k.get("kind") not in CALIB_KINDS:
        raise TableError(f"{name}: kind {k.get('kind')!r} is not one of {', '.join(CALIB_KINDS)}")
    if "assumed" in k and k["kind"] != "assumption":
        raise TableError(f"{name}: only an assumption has an `assumed` value")
    if not isinstance(k.get("per_arch", False), bool):
        raise TableError(f"{name}: per_arch must be true or false")
    for field in ("unit", "doc", "source"):
        if not k.get(field):
            raise TableError(f"{name}: {field} is missing (every key says it)")
    hi = k.get("hi")
    if not (isinstance(hi, (int, float)) and not isinstance(hi, bool) and 0 < hi < float("inf")):
        raise TableError(f"{name}: hi {hi!r} is not a finite number > 0 (every key bounds "
                         "its cost)")


def calib_lines(calib: list[dict]) -> list[str]:
    """struct rxb_calib_cycles, one double per key (one per design for a per-design key),
    and the table that names each field."""
    out = ["/* The calibration's cycle costs (calibration_keys.toml): the numbers under",
           " * \"cycles\" of a calibration document, one field per key; a per-design key",
           " * has one number per value of arch.name (rxb_arch_name). */",
           f"#define RXB_CALIB_SECTION {c_str('cycles')}",
           f"#define RXB_N_CALIB_KEYS {len(calib)}u",
           "/* Their names, for the messages that list what is allowed. */",
           f"#define RXB_CALIB_KEY_NAMES {c_str(', '.join(k['name'] for k in calib))}",
           "struct rxb_calib_cycles {"]
    out += [f"\tdouble {k['name']}{'[RXB_ARCHS]' if k.get('per_arch') else ''};"
            for k in calib]
    out += ["};", "",
            "/* A calibration key: its field of struct rxb_calib_cycles, and what it counts. */",
            "struct rxb_calib_key {", "\tconst char *name;",
            "\tsize_t offset; /* of its field in struct rxb_calib_cycles */",
            "\tbool per_arch; /* RXB_ARCHS numbers, named by rxb_arch_name */",
            "\tconst char *unit;", "\tconst char *kind; /* measured or assumption */",
            "\tdouble hi; /* the most a cost may be */", "};",
            "extern const unsigned rxb_n_calib_keys;",
            "extern const struct rxb_calib_key rxb_calib_keys[RXB_N_CALIB_KEYS];", ""]
    return out


def profile_entry(k: dict) -> str:
    lo = c_num(k["lo"]) if "lo" in k else "-HUGE_VAL"
    hi = c_num(k["hi"]) if "hi" in k else "HUGE_VAL"
    return (f"\t{{ {c_str(k['section'])}, {c_str(k['name'])}, {c_str(k['type'])}, {lo}, {hi}, "
            f"{'true' if k.get('lo_open') else 'false'}, "
            f"{'true' if k.get('pow2') else 'false'}, {c_str(k.get('unit', ''))} }},")


def calib_entry(k: dict) -> str:
    return (f"\t{{ .name = {c_str(k['name'])}, "
            f".offset = offsetof(struct rxb_calib_cycles, {k['name']}),\n"
            f"\t  .per_arch = {'true' if k.get('per_arch') else 'false'}, "
            f".unit = {c_str(k['unit'])}, .kind = {c_str(k['kind'])}, "
            f".hi = {float(k['hi'])!r} }},")


def metric_const(name: str) -> str:
    return "RXB_METRIC_" + name.upper().replace(".", "__")


def header(keys: list[dict], metrics: list[dict], profile: list[dict],
           calib: list[dict]) -> str:
    out = ["/* Generated from the tables in python/rxbisect by scripts/gen_scenario.py:",
           " * do not edit. The scenario's own enums and struct rxb_scn, one typed field",
           " * per key (docs/scenario-keys.md). */",
           "#ifndef RXB_SCENARIO_GEN_H", "#define RXB_SCENARIO_GEN_H", "",
           "#include <stdbool.h>", "#include <stddef.h>", "#include <stdint.h>", ""]
    out += [f'#include "{h}"' for h in LIBRARY_HEADERS] + [""]
    out += ["/* An \"auto\" integer not yet resolved (rxb_scn_resolve). */",
            f"#define RXB_SCN_AUTO {AUTO_SENTINEL}u",
            f"#define RXB_SCN_LIST_MAX {max(k.get('max_len', 0) for k in keys)}u",
            "/* Most time-series samples in one simulated run (run.sample_ms). */",
            f"#define RXB_SCN_MAX_SAMPLES {max_samples(keys)}u", "",
            "struct rxb_scn_list {", "\tuint32_t n;", "\tuint32_t v[RXB_SCN_LIST_MAX];",
            "};", ""]
    for k in keys:
        if "c_enum" not in k:
            continue
        e, up = k["c_enum"], k["c_enum"].upper()
        consts = [f"\t{up}_{v.upper()}," for v in k["values"]]
        out += [f"/* {k['section']}.{k['name']} */", f"enum {e} {{"] + consts + \
               [f"\t{up}_COUNT", "};", f"extern const char *const {e}_name[{up}_COUNT];", ""]
    sections = list(dict.fromkeys(k["section"] for k in keys))
    for s in sections:
        out += [f"struct rxb_scn_{s} {{"]
        out += [f"\t{c_field(k)}" for k in keys if k["section"] == s]
        out += ["};", ""]
    out += ["struct rxb_scn {"] + [f"\tstruct rxb_scn_{s} {s};" for s in sections] + ["};", ""]
    out += [f"#define RXB_SCN_N_KEYS {len(keys)}u", ""]
    out += ["/* The emulator's narrower bounds that mirror its own constants: expanded",
            " * where those are visible (emu/emu_cfg.c). */",
            "#define RXB_SCN_EMU_STATIC_CHECKS \\"]
    out += [f"\t{a} \\" for k in keys for a in static_asserts(k, k.get("emu", {}))]
    out += ["\t_Static_assert(1, \"\")", ""]
    out += ["/* The result metrics (result_metrics.toml): a constant per name, an object's",
            " * fields as OBJECT__FIELD (their JSON name is what follows the dot). */",
            f"#define RXB_N_METRICS {len(metrics)}u"]
    out += [f"#define {metric_const(m['name'])} {c_str(m['name'])}" for m in metrics]
    out += [""] + profile_lines(profile) + calib_lines(calib)
    out += ["#endif /* RXB_SCENARIO_GEN_H */", ""]
    return "\n".join(out)


def names_ref(k: dict) -> tuple[str, str]:
    if "c_names" in k:
        return k["c_names"], k["c_count"]
    return f"{k['c_enum']}_name", f"{k['c_enum'].upper()}_COUNT"


def static_asserts(k: dict, where: dict) -> list[str]:
    """Bounds of `where` (the key, or its engine override) that mirror a C
    constant; for the key itself also the enum sizes."""
    full = f"{k['section']}.{k['name']}"
    out = []
    for bound in ("lo", "hi"):
        const = where.get(f"{bound}_c")
        if const:
            out.append(f"_Static_assert({const} == {int(where[bound])}ull, "
                       f"{c_str(f'{full}: {bound} must equal {const}')});")
    if where is k and "c_names" in k:
        out.append(f"_Static_assert({k['c_count']} == {len(k['values'])}, "
                   f"{c_str(f'{full}: the library has another number of names')});")
        out.append(f"_Static_assert(sizeof({k['c_type']}) == sizeof(unsigned), "
                   f"{c_str(f'{full}: stored as unsigned')});")
    return out


def key_entry(k: dict, by_name: dict[str, dict]) -> str:
    full = f"{k['section']}.{k['name']}"
    kind = c_kind(k)
    size = (f"sizeof(((struct rxb_scn *)0)->{k['section']}.{k['name']})" if kind == "RXB_SCN_STR"
            else str(k.get("max_len", 0)))
    names, count = names_ref(k) if kind == "RXB_SCN_ENUM" else ("NULL", "0")
    # the names as this table lists them: a test checks they are the library's
    listed = ("(const char *const[]){ " + ", ".join(c_str(v) for v in k["values"]) + " }"
              if kind == "RXB_SCN_ENUM" else "NULL")
    engines = " | ".join(f"RXB_ENGINE_BIT({'RXB_ENGINE_' + e.upper()})" for e in k["engines"])
    lims = []
    for eng in ENGINES:
        lm = limits(k, eng)
        lo = c_num(lm["lo"]) if lm["lo"] is not None else "-HUGE_VAL"
        hi = c_num(lm["hi"]) if lm["hi"] is not None else "HUGE_VAL"
        scope = ", ".join(scope_mask(k, eng, f, by_name) for f in SCOPES)
        lims.append(f"{{ {lo}, {hi}, {c_str(text(lm['default']))}, {c_str(lm['why'])}, "
                    f"{scope} }}")
    return "\n".join([
        "\t{",
        f"\t\t.full = {c_str(full)}, .section = {c_str(k['section'])}, .name = {c_str(k['name'])},",
        f"\t\t.kind = {kind}, .offset = offsetof(struct rxb_scn, {k['section']}.{k['name']}),",
        f"\t\t.size = {size}, .names = {names}, .n_names = {count}, .listed = {listed},",
        f"\t\t.auto_ok = {'true' if 'auto' in k else 'false'}, "
        f".lo_open = {'true' if k.get('lo_open') else 'false'}, "
        f".pow2 = {'true' if k.get('pow2') else 'false'}, "
        f".path = {'true' if k.get('path') else 'false'},",
        f"\t\t.engines = {engines},",
        f"\t\t.lim = {{ {', '.join(lims)} }},",
        f"\t\t.unit = {c_str(k.get('unit', ''))}, .doc = {c_str(k['doc'])}, "
        f".auto_doc = {c_str(k.get('auto', ''))},",
        "\t},"])


def metric_entry(m: dict) -> str:
    flags = ", ".join(f".{f} = {'true' if m[f] else 'false'}" for f in ("null", "required",
                                                                       "record"))
    return f"\t{{ .name = {c_str(m['name'])}, .kind = {c_str(m['kind'])}, {flags} }},"


def source(keys: list[dict], metrics: list[dict], profile: list[dict],
           calib: list[dict]) -> str:
    out = ["/* Generated from the tables in python/rxbisect by scripts/gen_scenario.py:",
           " * do not edit. The key table of the scenario vocabulary. */",
           "#include <math.h>", "#include <stddef.h>", "",
           '#include "scenario.h"', ""]
    for k in keys:
        if "c_enum" in k:
            e, up = k["c_enum"], k["c_enum"].upper()
            out.append(f"const char *const {e}_name[{up}_COUNT] = {{ "
                       + ", ".join(c_str(v) for v in k["values"]) + " };")
    out.append("")
    for k in keys:
        out += static_asserts(k, k)
    out += ["", "const struct rxb_scn_key rxb_scn_keys[RXB_SCN_N_KEYS] = {"]
    by_name = {f"{k['section']}.{k['name']}": k for k in keys}
    out += [key_entry(k, by_name) for k in keys]
    out += ["};", "", "const unsigned rxb_n_metrics = RXB_N_METRICS;",
            "const struct rxb_metric rxb_metrics[RXB_N_METRICS] = {"]
    out += [metric_entry(m) for m in metrics]
    out += ["};", "", "const unsigned rxb_n_profile_keys = RXB_N_PROFILE_KEYS;",
            "const struct rxb_profile_key rxb_profile_keys[RXB_N_PROFILE_KEYS] = {"]
    out += [profile_entry(k) for k in profile]
    out += ["};", "", "const unsigned rxb_n_calib_keys = RXB_N_CALIB_KEYS;",
            "const struct rxb_calib_key rxb_calib_keys[RXB_N_CALIB_KEYS] = {"]
    out += [calib_entry(k) for k in calib]
    out += ["};", ""]
    return "\n".join(out)


def read_tables(paths: list[Path]) -> tuple[list[dict], ...] | None:
    """The four tables, or None after saying which file is wrong and why."""
    tables = []
    for path, loader in zip(paths, (load, load_metrics, load_profile, load_calib), strict=True):
        try:
            tables.append(loader(path))
        except (TableError, tomllib.TOMLDecodeError, OSError) as e:
            print(f"gen_scenario: {path}: {e}", file=sys.stderr)
            return None
    return tuple(tables)


def main(argv: list[str]) -> int:
    if len(argv) != 6:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    tables = read_tables([Path(a) for a in argv[1:5]])
    if tables is None:
        return 1
    out = Path(argv[5])
    out.mkdir(parents=True, exist_ok=True)
    for path, body in ((out / "scenario_gen.h", header(*tables)),
                       (out / "scenario_gen.c", source(*tables))):
        if not path.exists() or path.read_text() != body:  # keep timestamps: no rebuilds
            path.write_text(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
