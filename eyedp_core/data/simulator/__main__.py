"""`python -m eyedp_core.data.simulator`: regenerate sample_data/ and assets/stimuli/."""
from eyedp_core.data.simulator.main import main

raise SystemExit(main())
