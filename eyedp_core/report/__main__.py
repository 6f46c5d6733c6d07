"""`python -m eyedp_core.report verify --ledger PATH [REPORT.html]`: see eyedp_core.report.cli."""
from __future__ import annotations

import sys

from eyedp_core.report.cli import main

if __name__ == "__main__":
    sys.exit(main())
