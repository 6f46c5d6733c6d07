"""Old import path, kept for outside code and `python -m eyedp_core.simulate`: the simulator is
`eyedp_core.data.simulator.main`."""
import sys

from eyedp_core.data.simulator import main as _module

if __name__ == "__main__":
    raise SystemExit(_module.main())
else:
    sys.modules[__name__] = _module
