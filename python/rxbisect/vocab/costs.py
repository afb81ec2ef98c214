"""Workload cost profiles: what each network function costs per packet outside the memory
stalls the simulator models itself (docs/calibration.md, kind 3 of the numbers).

Each NF has exactly one such number, its compute cycles per packet (`workload.nf_cycles`
resolves to it). A profile is a small TOML file, `[cycles]` one integer per NF, with a
comment per entry that says where it comes from:

- `study` (the default): fitted to the study's calibration points, one point per NF and
  nothing else (`rxb fidelity --fit` writes it; docs/calibration.md shows the derivation);
- `light`: the project's earlier order-of-magnitude estimates of the work alone (parse,
  hash, rewrite, checksum), kept so results can be compared against them;
- a file of the user's, e.g. one `rxb calibrate` measured on the emulator's real NFs.

Why not part of the hardware profile: those are vendor quantities of a machine, these are
properties of the software that runs on it (docs/calibration.md keeps the kinds apart).
"""

from dataclasses import dataclass
from pathlib import Path

from ..errors import ScenarioError, UsageError
from .schema import builtin_toml_names, locate_toml, read_toml, suggest
from .tables import choices

HERE = Path(__file__).parent / "costs"
MAX_CYCLES = 10_000_000  # 5 ms at 2 GHz per packet: anything above is a typo


@dataclass(frozen=True)
class CostProfile:
    name: str
    description: str
    source: str            # the file it was read from
    cycles: dict[str, int]  # NF -> compute cycles per packet


def nf_names() -> tuple[str, ...]:
    """The NFs a profile must cover: the values of workload.nf (one vocabulary)."""
    return choices("workload", "nf")


def builtin_names() -> list[str]:
    return builtin_toml_names(HERE)


def locate(ref: str, base: Path | None = None) -> Path:
    """A built-in cost profile name, or a path (relative to `base`) to a cost profile file."""
    return locate_toml(ref, base, HERE, "workload.costs", "cost profile")


def write(path: Path, text: str, where: str = "") -> Path:
    """Write a cost profile (its folder too) and read it back through load(), the reader
    every run uses; `where` starts an error message."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError as e:
        raise UsageError(f"{where}cannot write {path} ({e.strerror or e})") from None
    load(str(path.resolve()))
    return path


def load(ref: str = "study", base: Path | None = None) -> CostProfile:
    """Read and check a cost profile: one non-negative integer per NF, nothing else."""
    path = locate(ref, base)
    where = f"cost profile {path.name}: "
    raw = read_toml(path, "cost profile file")
    unknown = set(raw) - {"name", "description", "cycles"}
    if unknown:
        raise ScenarioError(f"{where}unknown key '{sorted(unknown)[0]}'; allowed: name, "
                            "description, [cycles]")
    table = raw.get("cycles")
    if not isinstance(table, dict):
        raise ScenarioError(f"{where}[cycles] is missing; it holds one integer per NF: "
                            f"{', '.join(nf_names())}")
    nfs = nf_names()
    for nf, v in table.items():
        if nf not in nfs:
            hint = suggest(nf, nfs)
            raise ScenarioError(f"{where}cycles.{nf}: not a network function"
                                + (f" (did you mean '{hint}'?)" if hint else "")
                                + f"; allowed: {', '.join(nfs)}")
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_CYCLES:
            raise ScenarioError(f"{where}cycles.{nf} = {v!r}: not a cycle count; allowed: an "
                                f"integer from 0 to {MAX_CYCLES}")
    missing = [nf for nf in nfs if nf not in table]
    if missing:
        raise ScenarioError(f"{where}cycles.{missing[0]} is missing; a cost profile names "
                            f"every NF: {', '.join(nfs)}")
    return CostProfile(str(raw.get("name", path.stem)), str(raw.get("description", "")),
                       str(path), dict(table))
