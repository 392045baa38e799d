"""``python -m pibench_tui``: the same as the ``pibench`` command."""

from __future__ import annotations

import sys

from pibench_tui.cli import main

if __name__ == "__main__":
    sys.exit(main())
