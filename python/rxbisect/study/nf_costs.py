"""`rxb calibrate --costs FILE`: a workload cost profile measured on this machine, from the
emulator's real network functions (docs/calibration.md).

Each NF runs on rxb-emu (real packets, real tables, the native privRing path so the
emulator's own software NIC is not in the figure) at the emulator's light default load, and
its `cycles_per_packet.app` — the cycles the worker spent in the NF per packet — becomes that
NF's `workload.nf_cycles`. What this figure is, said plainly in the file it writes: it
includes the memory stalls of the emulator's tables on this machine (laptop-sized by
default, so mostly cache hits), so it is the NF's compute *plus* those stalls — an upper
bound of the one parameter the simulator wants, which adds the stalls it models itself.
"""

import datetime
import platform
from collections.abc import Callable
from pathlib import Path

from ..engines import emu
from ..errors import EngineError
from ..output import records
from ..vocab import costs

# The native privRing path at the emulator's own load: the NF, not the software NIC.
BASE_SETS = ("arch.name=privring", "arch.emulated=false")
RUN_MS = {False: 1000, True: 300}


def measure_one(nf: str, quick: bool) -> float:
    """The emulator's app cycles per packet for one NF."""
    run = emu.run(None, [*BASE_SETS, f"workload.nf={nf}", f"run.duration_ms={RUN_MS[quick]}"],
                  progress=False)
    app = run.record["metrics"]["cycles_per_packet"]["app"]
    if not isinstance(app, (int, float)) or app <= 0:
        raise EngineError(f"rxb-emu measured no NF cycles for workload.nf = {nf} (app = {app})")
    return float(app)


def measure(out: str | Path, quick: bool = False,
            report: Callable[[str, int, int], None] = lambda nf, i, n: None) -> dict[str, int]:
    """Measure every NF, write the cost profile to `out`, return its cycles."""
    out = Path(out)
    records.check_writable(out, "--costs")
    nfs = costs.nf_names()
    cycles = {}
    for i, nf in enumerate(nfs):
        report(nf, i, len(nfs))
        cycles[nf] = round(measure_one(nf, quick))
    costs.write(out, profile_text(cycles, quick), f"--costs {out}: ")
    return cycles


def profile_text(cycles: dict[str, int], quick: bool) -> str:
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    cmd = "rxb calibrate --costs FILE" + (" --quick" if quick else "")
    head = [
        f"# Measured by `{cmd}` on {platform.node()} ({platform.processor() or platform.machine()}),",
        f"# {when}: each NF on rxb-emu ({', '.join(BASE_SETS)}, {RUN_MS[quick]} ms at the",
        "# emulator's default load); the figure is the worker's cycles in the NF per packet,",
        "# memory stalls of the emulator's tables on this machine included (python/rxbisect/",
        "# nf_costs.py says why that is an upper bound of workload.nf_cycles).",
        'name = "measured"',
        f'description = "emulator NFs measured on {platform.node()} ({when})"',
        "",
        "[cycles]",
    ]
    return "\n".join(head + [f"{nf} = {c}" for nf, c in cycles.items()]) + "\n"
