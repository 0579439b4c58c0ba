"""``python -m symgrad``: the command line (see symgrad/cli.py)."""

import sys

from .cli import main

sys.exit(main())
