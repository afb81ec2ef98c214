"""rxbisect: the Python front end of the rxBisect toolkit.

Scenarios (`scenario`), hardware profiles (`profile`), the simulator engine
contract (`engine`), and two calculators that need no engine: the |Ax|/|Bx|
sizing rules (`sizing`) and the dark-packet bound (`darkpackets`). The `rxb`
command (`cli`) is a thin layer over these.
"""

__version__ = "0.1.0"

from .sweep import sweep  # noqa: E402,F401  (rxbisect.sweep(...) -> DataFrame; docs/sweeps.md)
