"""`python -m rxbisect` = `rxb` (useful where the console script is not on PATH)."""

import sys

from .commands.cli import main

sys.exit(main())
