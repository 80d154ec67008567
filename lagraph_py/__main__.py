"""``python -m lagraph_py``: the demo (see :mod:`lagraph_py.demo`)."""

import sys

from .demo import main

sys.exit(main())
