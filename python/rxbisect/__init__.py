"""rxbisect: the Python front end of the rxBisect toolkit.

Scenarios (`scenario`), hardware profiles (`profile`), workload cost profiles
(`costs`), the simulator engine contract (`engine`), and what a notebook needs,
the same code the `rxb` command (`cli`) runs:

    rxbisect.sweep("reference", grid={...}, seeds=3, out=DIR)  -> DataFrame  (rxb sweep)
    rxbisect.repro("ring-size", quick=True, out=DIR)            -> DataFrame  (rxb repro)
    rxbisect.report_html.render(DIR)                            -> Path       (rxb report)
    rxbisect.fidelity.check(rxbisect.fidelity.load())           -> records    (rxb fidelity)
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
"""

# Set before the imports below: cli and report_html import it while the package loads.
__version__ = "0.1.0"

# The notebook API listed above (E402: these imports must follow __version__).
from . import fidelity, report_html, repro  # noqa: E402
from .darkpackets import compute as dark  # noqa: E402
from .sizing import size  # noqa: E402
from .sweep import sweep  # noqa: E402  (the function, not the module: docs/sweeps.md)
from .trace import stats as trace_stats  # noqa: E402
from .tracegen import generate as trace_gen  # noqa: E402

__all__ = ["__version__", "dark", "fidelity", "repro", "report_html", "size", "sweep",
           "trace_gen", "trace_stats"]
