"""Typed, documented configuration keys: the machinery behind scenarios and profiles.

Why a small home-made layer rather than pydantic or attrs: the point is error
messages of one fixed shape that name the key as the user wrote it —

    traffic.rate_gbps = 'fast': wrong type (a string); allowed: a number > 0 (Gbps)
    unknown key 'traffic.rat_gbps' (did you mean 'traffic.rate_gbps'?)

— one at a time, plus a listing of every key with its type, default, allowed
values and unit for `rxb scenario keys`. Both fall out of plain dataclasses
whose fields carry a `Spec` in their metadata, so the dataclass *is* the
documentation and the validator.

Conventions: a section is a frozen dataclass; a key's Python annotation gives
its type (`int`, `float`, `bool`, `str`, `tuple[int, ...]` for a list of
integers) and `int | Literal["auto"]` marks keys whose value may be "auto"
(resolved later from the hardware profile or the interface). Lists are kept as
tuples so sections stay immutable and hashable.
"""

import dataclasses
import difflib
import functools
import json
import math
import os
import sys
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ScenarioError, UsageError

AUTO = "auto"
REQUIRED = dataclasses.MISSING


@dataclass(frozen=True)
class Spec:
    """What a key means and which values it accepts (numbers: lo <= v <= hi)."""

    doc: str
    unit: str = ""
    choices: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False  # lo itself is not allowed (v > lo)
    pow2: bool = False  # integers (or each list element) must be powers of two
    path: bool = False  # a string naming a readable file ("" = none)
    engines: tuple[str, ...] = ()  # scenario keys: the engines that honour it
    auto_doc: str = ""  # what "auto" resolves to
    emu: Mapping[str, Any] | None = None  # scenario keys: what differs on the emulator


def key(default: Any, doc: str, **spec: Any) -> Any:
    """Declare a documented key of a section; `REQUIRED` makes it mandatory."""
    if isinstance(default, list):
        default = tuple(default)
    return field(default=default, metadata={"spec": Spec(doc, **spec)})


_TYPE_NAMES = {int: "int", float: "float", bool: "bool", str: "string", tuple: "list of int"}
_NOUNS = {int: "an integer", float: "a number", tuple: "a list of integers"}


@dataclass(frozen=True)
class KeyInfo:
    """One key of one section, with everything needed to check and list it."""

    section: str
    name: str
    kind: type  # int, float, bool, str, or tuple (a list of integers)
    auto: bool  # may be "auto"
    default: Any  # REQUIRED when the key is mandatory
    spec: Spec

    @property
    def full(self) -> str:
        return f"{self.section}.{self.name}"

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def type_name(self) -> str:
        return _TYPE_NAMES[self.kind] + (' or "auto"' if self.auto else "")

    def allowed(self) -> str:
        """Human description of the accepted values, used in every error."""
        s = self.spec
        if self.kind is bool:
            text = "true or false"
        elif s.choices:
            text = "one of " + ", ".join(s.choices)
        elif self.kind is str:
            text = 'a path to a readable file, or "" for none' if s.path else "a string"
        else:
            noun = "a power-of-two integer" if s.pow2 else _NOUNS[self.kind]
            text = f"{noun} {_range_text(s)}".strip()
        if s.unit:
            text += f" ({s.unit})"
        if self.auto:
            text += ', or "auto"'
        return text


def _num(x: float) -> str:
    """Whole numbers without ".0", as TOML integers, but in exponent form (1e+308) beyond
    what a double holds exactly (2^53), not 309 digits; an integer bound as written."""
    if isinstance(x, int):
        return str(x)
    return str(int(x)) if float(x).is_integer() and abs(x) < 2**53 else repr(float(x))


def _range_text(s: Spec) -> str:
    if s.lo is not None and s.hi is not None:
        if s.lo_open:
            return f"> {_num(s.lo)} and <= {_num(s.hi)}"
        return f"from {_num(s.lo)} to {_num(s.hi)}"
    if s.lo is not None:
        return f"{'>' if s.lo_open else '>='} {_num(s.lo)}"
    if s.hi is not None:
        return f"<= {_num(s.hi)}"
    return ""


def show(v: Any) -> str:
    """A value as the user would write it in TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, float):
        return _num(v) if math.isfinite(v) else repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "a table"
    return str(v)


def _what(v: Any) -> str:
    if isinstance(v, bool):
        return "a boolean"
    for t, name in ((str, "a string"), (int, "an integer"), (float, "a number"),
                    (list, "a list"), (tuple, "a list"), (dict, "a table")):
        if isinstance(v, t):
            return name
    return type(v).__name__


def suggest(name: str, candidates: typing.Sequence[str]) -> str | None:
    """Closest known name (difflib), or one ending in the same key name."""
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if close:
        return close[0]
    tail = name.rsplit(".", 1)[-1]
    same_tail = [c for c in candidates if c.rsplit(".", 1)[-1] == tail]
    return same_tail[0] if same_tail else None


def builtin_toml_names(folder: Path) -> list[str]:
    """The built-in TOML files of a package folder (profiles, cost profiles), by name."""
    return sorted(p.stem for p in folder.glob("*.toml"))


def locate_toml(ref: str, base: Path | None, folder: Path, key: str, noun: str) -> Path:
    """A built-in name (a file of `folder`) or a path (relative to `base`, else the cwd) to a
    TOML file; an error names the scenario key, the built-ins and a close one."""
    names = builtin_toml_names(folder)
    if ref in names:
        return folder / f"{ref}.toml"
    p = Path(ref).expanduser()
    if not p.is_absolute():
        p = (base or Path.cwd()) / p
    if p.is_file():
        return p
    hint = suggest(ref, names)
    what = (f"a folder, not a {noun} file" if p.is_dir()
            else f"no built-in {noun} of that name and no such file")
    raise ScenarioError(
        f"{key} = {ref!r}: {what}"
        + (f" (did you mean '{hint}'?)" if hint else "")
        + f"; allowed: {', '.join(names)}, or a path to a {noun} TOML file")


def unknown(what: str, name: str, candidates: list[str], where: str = "") -> ScenarioError:
    hint = suggest(name, candidates)
    return ScenarioError(f"{where}unknown {what} '{name}'" + (f" (did you mean '{hint}'?)" if hint else ""))


def fields(where: str, table: Any, allowed: typing.Sequence[str]) -> dict:
    """A TOML table of a file's own fields (not scenario keys): each must be in `allowed`."""
    if not isinstance(table, dict):
        raise UsageError(f"{where}: expected a table, got {show(table)}")
    bad = next((k for k in table if k not in allowed), None)
    if bad is not None:
        raise UsageError(f"{unknown('field', bad, list(allowed), where + ': ')}; allowed: "
                         f"{', '.join(allowed)}")
    return table


def fail(info: KeyInfo, value: Any, reason: str, where: str = "") -> ScenarioError:
    """The one error shape: where, key, bad value, why, what is allowed."""
    return ScenarioError(f"{where}{info.full} = {show(value)}: {reason}; allowed: {info.allowed()}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check(info: KeyInfo, value: Any, where: str = "", base: Path | None = None) -> Any:
    """Return `value` converted to the key's type, or raise ScenarioError.

    `base` is the directory relative paths are read from (the scenario file's
    folder); accepted paths are returned absolute so the engine, which runs
    elsewhere, reads the same file.
    """
    if info.auto and value == AUTO:
        return AUTO
    k, s = info.kind, info.spec
    if k is bool:
        ok = isinstance(value, bool)
    elif k is int:
        ok = _is_int(value)
    elif k is float:
        ok = _is_int(value) or isinstance(value, float)
    elif k is str:
        ok = isinstance(value, str)
    else:
        ok = isinstance(value, (list, tuple)) and all(_is_int(x) for x in value)
    if not ok:
        what = _what(value)
        if k is tuple and isinstance(value, (list, tuple)):
            what = "a list with a non-integer element"
        raise fail(info, value, f"wrong type ({what})", where)
    if k in (int, float, tuple) and any(
            _is_int(n) and _too_long(n) for n in (value if k is tuple else (value,))):
        # Python will not write it in decimal, so the message cannot show it.
        raise ScenarioError(f"{where}{info.full} = an integer of more than "
                            f"{sys.get_int_max_str_digits()} digits: out of range; "
                            f"allowed: {info.allowed()}")
    if k is float:
        try:
            value = float(value)
        except OverflowError:  # an integer beyond the float range, as 10**400
            raise fail(info, value, "not a finite number", where) from None
        if not math.isfinite(value):
            raise fail(info, value, "not a finite number", where)
    if k is tuple:
        value = tuple(value)
    numbers = value if k is tuple else (value,) if k in (int, float) else ()
    for n in numbers:
        if (s.lo is not None and (n < s.lo or (s.lo_open and n == s.lo))) or (
            s.hi is not None and n > s.hi
        ):
            raise fail(info, value, "out of range", where)
        if s.pow2 and (n <= 0 or n & (n - 1)):
            raise fail(info, value, "not a power of two", where)
    if s.choices and value not in s.choices:
        hint = suggest(value, list(s.choices))
        raise fail(info, value, "unknown value" + (f" (did you mean '{hint}'?)" if hint else ""), where)
    if s.path and value:
        return _readable(info, value, where, base)
    return value


def _readable(info: KeyInfo, value: str, where: str, base: Path | None) -> str:
    p = Path(value).expanduser()
    if not p.is_absolute():
        p = (base or Path.cwd()) / p
    try:
        with open(p, "rb") as f:
            f.read(1)
    except OSError as e:
        raise fail(info, value, f"cannot read the file ({e.strerror or e})", where) from None
    return str(p.resolve())


_BOOLS = {"true": True, "yes": True, "on": True, "1": True,
          "false": False, "no": False, "off": False, "0": False}


def parse_text(info: KeyInfo, text: str, where: str = "") -> Any:
    """Read a `--set` value according to the key's type, then `check` it."""
    t = text.strip()
    if info.auto and t in (AUTO, f'"{AUTO}"', f"'{AUTO}'"):  # quoted as a string key may be
        return AUTO
    k = info.kind
    try:
        if k is bool:
            value: Any = _BOOLS[t.lower()]
        elif k is int:
            value = int(t, 0) if t[:2].lower() in ("0x", "0b", "0o") else int(t)
        elif k is float:
            value = float(t)
        elif k is str:
            value = t[1:-1] if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"" else t
        else:
            value = _list_items(info, t, where)
    except ScenarioError:
        raise
    except (KeyError, ValueError):
        raise fail(info, t, f"cannot be read as {_TYPE_NAMES[k]}", where) from None
    return check(info, value, where)


def _list_items(info: KeyInfo, t: str, where: str) -> tuple[int, ...]:
    """The integers of a list value ("[0, 2]", "0,2"; "[]" or "" is the empty list). An empty
    item ("[0,,1]") is refused, not skipped: it would change which cores the list names."""
    inner = t[1:-1] if t.startswith("[") and t.endswith("]") else t
    if inner.strip() == "":
        return ()
    items = [x.strip() for x in inner.split(",")]
    if "" in items:
        raise fail(info, t, f"item {items.index('') + 1} is empty", where)
    return tuple(int(x) for x in items)


def _kind(hint: Any) -> tuple[type, bool]:
    """(base type, may be "auto") from an annotation like `int | Literal["auto"]`."""
    auto = False
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        args = typing.get_args(hint)
        rest = [a for a in args if typing.get_origin(a) is not Literal]
        auto, (hint,) = len(rest) < len(args), rest
    return (tuple if typing.get_origin(hint) is tuple else hint), auto


@functools.cache
def section_keys(cls: type, section: str) -> tuple[KeyInfo, ...]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        kind, auto = _kind(hints[f.name])
        out.append(KeyInfo(section, f.name, kind, auto, f.default, f.metadata["spec"]))
    return tuple(out)


Values = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Schema:
    """A file format: named sections (dataclasses) plus free top-level strings."""

    sections: dict[str, type]
    top: tuple[str, ...] = ()  # allowed top-level string keys (name, description)

    def keys(self) -> list[KeyInfo]:
        return [k for name, cls in self.sections.items() for k in section_keys(cls, name)]

    def info(self, full: str) -> KeyInfo | None:
        return next((k for k in self.keys() if k.full == full), None)

    def known(self, full: str) -> KeyInfo:
        """A key the code itself names (not one read from input): its absence is a bug."""
        info = self.info(full)
        if info is None:
            raise KeyError(f"{full} is not a key of this schema")
        return info

    def defaults(self) -> Values:
        vals: Values = {s: {} for s in self.sections}
        for k in self.keys():
            if not k.required:
                vals[k.section][k.name] = k.default
        return vals

    def merge(self, vals: Values, raw: Mapping[str, Any], where: str = "",
              base: Path | None = None) -> dict[str, str]:
        """Check a parsed TOML document into `vals`; return its top-level strings."""
        full_names = [k.full for k in self.keys()]
        top: dict[str, str] = {}
        for name, body in raw.items():
            if name in self.top:
                if not isinstance(body, str):
                    raise ScenarioError(f"{where}{name} = {show(body)}: wrong type ({_what(body)}); "
                                        "allowed: a string")
                top[name] = body
            elif name in self.sections:
                if not isinstance(body, dict):
                    raise ScenarioError(f"{where}[{name}] must be a table of keys, got {show(body)}")
                for kname, value in body.items():
                    info = self.info(f"{name}.{kname}")
                    if info is None:
                        raise unknown("key", f"{name}.{kname}", full_names, where)
                    vals[name][kname] = check(info, value, where, base)
            elif isinstance(body, dict):
                raise unknown("section", name, list(self.sections) + list(self.top), where)
            else:
                raise unknown("key", name, full_names + list(self.top), where)
        return top

    def apply_set(self, vals: Values, assignment: str) -> None:
        """Apply one `section.key=value` override, typed by the key."""
        where = "--set: "
        name, eq, text = assignment.partition("=")
        name = name.strip()
        full_names = [k.full for k in self.keys()]
        if not eq or "." not in name:
            hint = suggest(name, full_names)
            raise ScenarioError(f"--set {assignment!r}: expected section.key=value"
                                + (f" (did you mean '{hint}=...'?)" if hint else ""))
        info = self.info(name)
        if info is None:
            raise unknown("key", name, full_names, where)
        vals[info.section][info.name] = parse_text(info, text, where)

    def instantiate(self, vals: Values, where: str = "") -> dict[str, Any]:
        """Build the section dataclasses; a missing mandatory key is an error."""
        for k in self.keys():
            if k.name not in vals.get(k.section, {}):
                raise ScenarioError(f"{where}missing key '{k.full}'; allowed: {k.allowed()}")
        return {s: cls(**vals[s]) for s, cls in self.sections.items()}


def _too_long(n: int) -> bool:
    """An integer Python will not convert to decimal (sys.get_int_max_str_digits)."""
    limit = sys.get_int_max_str_digits()
    if limit == 0 or n.bit_length() <= 3 * limit:  # 3 bits < 1 digit: within the limit
        return False
    try:
        str(n)
    except ValueError:
        return True
    return False


def _long_int_in(doc: Any) -> bool:
    """A parsed TOML document holds an integer _too_long (a loop: it may nest deeply)."""
    todo = [doc]
    while todo:
        v = todo.pop()
        if isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
        elif _is_int(v) and _too_long(v):
            return True
    return False


def read_toml(path: str | os.PathLike, what: str = "scenario file") -> dict[str, Any]:
    """Parse a TOML file; every failure becomes one ScenarioError naming the file."""
    digits = (f"an integer of more than {sys.get_int_max_str_digits()} digits "
              "(TOML integers are 64-bit)")
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except FileNotFoundError:
        raise ScenarioError(f"{what} '{path}' not found") from None
    except OSError as e:
        raise ScenarioError(f"{what} '{path}': cannot read it ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:  # tomllib decodes the whole file: offsets are the file's
        raise ScenarioError(f"{path}: not valid TOML: not UTF-8 text "
                            f"(byte 0x{e.object[e.start]:02x} at offset {e.start})") from None
    except ValueError as e:  # int() of a decimal integer longer than Python converts
        why = digits if "integer string conversion" in str(e) else str(e)
        raise ScenarioError(f"{path}: not valid TOML: {why}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ScenarioError(f"{path}: not valid TOML: arrays or inline tables nested "
                            "too deeply") from None
    if _long_int_in(doc):  # hexadecimal, octal or binary: tomllib reads it, str() would not
        raise ScenarioError(f"{path}: not valid TOML: {digits}")
    return doc


def as_dict(section: Any) -> dict[str, Any]:
    """A section dataclass as plain JSON/TOML-ready values (tuples become lists)."""
    return {f.name: (list(v) if isinstance(v := getattr(section, f.name), tuple) else v)
            for f in dataclasses.fields(section)}


def toml_value(v: Any) -> str:
    """One value in TOML syntax."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        # JSON string escapes are a subset of TOML basic-string escapes.
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return str(v)


def to_toml(sections: Mapping[str, Mapping[str, Any]], top: Mapping[str, str] | None = None) -> str:
    """Write flat sections as TOML (all our files are one level deep)."""
    lines = [f"{k} = {toml_value(v)}" for k, v in (top or {}).items()]
    for name, body in sections.items():
        lines += ["", f"[{name}]"] + [f"{k} = {toml_value(v)}" for k, v in body.items()]
    return "\n".join(lines).lstrip("\n") + "\n"
