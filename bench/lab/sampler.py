"""Lab: run a command (python -m module ...) with a thread that samples every thread's stack each ms while the file
EYEDP_SAMPLE_ON exists, and writes the folded stacks (per thread) to EYEDP_SAMPLE_OUT at exit.

python bench/lab/sampler.py -m streamlit run app.py ..."""
import atexit
import collections
import os
import runpy
import signal
import sys
import threading
import time

ON, OUT = os.environ.get("EYEDP_SAMPLE_ON", "/tmp/sample_on"), os.environ.get("EYEDP_SAMPLE_OUT", "/tmp/sample.txt")
counts: collections.Counter = collections.Counter()


def _loop() -> None:
    me = threading.get_ident()
    while True:
        time.sleep(0.001)
        if not os.path.exists(ON):
            time.sleep(0.02)
            continue
        names = {t.ident: t.name for t in threading.enumerate()}
        for tid, frame in sys._current_frames().items():
            if tid == me:
                continue
            stack = []
            while frame is not None:
                c = frame.f_code
                stack.append(f"{os.path.basename(c.co_filename)}:{c.co_name}")
                frame = frame.f_back
            counts[names.get(tid, "?") + ";" + ";".join(reversed(stack))] += 1


def _dump(*_a) -> None:
    with open(OUT, "w") as fh:
        for k, v in counts.most_common():
            fh.write(f"{k} {v}\n")


threading.Thread(target=_loop, daemon=True).start()
atexit.register(_dump)
signal.signal(signal.SIGTERM, lambda *a: (_dump(), os._exit(0)))
sys.argv = sys.argv[2:] if sys.argv[1] == "-m" else sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
