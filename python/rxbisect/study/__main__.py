"""`python -m rxbisect.study` (`make run`): the headline study."""

import sys

from .headline import main

sys.exit(main())
