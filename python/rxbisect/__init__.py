"""rxbisect: the Python front end of the rxBisect toolkit, the same code the `rxb` command runs.

The public API, one function per `rxb` command (each documents itself, with examples):

    rxbisect.sim("reference", sets=[...])                       -> dict       (rxb sim --json)
    rxbisect.sweep("reference", grid={...}, seeds=3, out=DIR)   -> DataFrame  (rxb sweep)
    rxbisect.repro("ring-size", quick=True, out=DIR)            -> DataFrame  (rxb repro)
    rxbisect.report(DIR)                                        -> Path       (rxb report)
    rxbisect.fidelity(quick=True)                               -> records    (rxb fidelity)
    rxbisect.trace_stats(pcap, cores=16)                        -> dict       (rxb trace stats)
    rxbisect.trace_gen(out, flows=5000)                         -> dict       (rxb trace gen)
    rxbisect.size(...), rxbisect.dark(...)                      calculators  (rxb size, rxb dark)

(a test binds each call above to its function: the names and arguments exist.) The
calculators answer at once:

>>> import rxbisect
>>> rxbisect.dark(link_gbps=100, packet_bytes=1518, cores=1).keeps_up
True
>>> rxbisect.dark(link_gbps=100, packet_bytes=64).dram_ns  # the reference profile's
85.9
>>> rxbisect.size(nics=2, link_gbps=100, cores_per_nic=8).bx
1024

The modules behind them are grouped by role: `vocab` (scenario keys, profiles, cost
profiles), `engines` (rxb-sim, rxb-emu), `study` (sweeps, experiments, calibration,
fidelity), `output` (records, tables, the HTML report, figures), `tools` (calculators and
traces) and `commands` (the `rxb` command line).
"""

from .engines.engine import simulate as sim
from .output.html_report import render as report
from .study.fidelity_check import check as fidelity
from .study.reproduce import repro
from .study.sweeps import sweep
from .tools.darkpackets import compute as dark
from .tools.sizing import size
from .tools.trace import stats as trace_stats
from .tools.tracegen import generate as trace_gen
from .version import __version__

__all__ = ["__version__", "dark", "fidelity", "repro", "report", "sim", "size", "sweep",
           "trace_gen", "trace_stats"]
