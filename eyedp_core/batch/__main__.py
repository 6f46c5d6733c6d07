"""`python -m eyedp_core.batch`: the batch command line."""
import sys

from eyedp_core.batch.cli import main

sys.exit(main())
