"""The Attacks page's waits, headless (Streamlit AppTest), against the trivial page in the same process.

Run alone: python bench/bench_attacks_page.py [--repeats N]

Figures, each in a fresh process state (empty Streamlit caches):
* trivial: the one-slider page (bench/trivial_app.py), first run;
* open: the app's first page, then switching to Attacks (table prepared, clean baseline, the two traps);
* default run: pressing "Run attacks" with the default settings (both scenarios, the default ε grid and its
  extension), until the results are drawn;
* again: the same run pressed a second time (everything from the cache).
Also prints the classifier-cap comparison that fixed the page's training cap: the strongest attack and the task
at three ε under max_train 4,000 (the core default) and 1,000 (the page), with their times.
The machine is shared (two cores, other jobs running): compare against the trivial page of the same run, and
read the CPU seconds (this process, all threads), which the other jobs do not inflate: on two free cores the
wall time is about CPU / 2 for the run (its folds use both threads) and about CPU for the open.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _headless_navigation() -> None:
    """As tests/conftest.py: keep AppTest out of Streamlit's legacy pages mode (it would drop the click)."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init  # type: ignore[method-assign]


def page_waits() -> list[dict]:
    """Trivial page, Attacks first open, default run, and the run again: seconds each."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    _headless_navigation()
    st.cache_data.clear()
    st.cache_resource.clear()
    t0 = time.perf_counter()
    AppTest.from_file(str(ROOT / "bench" / "trivial_app.py"), default_timeout=60).run()
    trivial = time.perf_counter() - t0
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    t0, c0 = time.perf_counter(), time.process_time()
    at.switch_page("pages/attacks.py").run()
    opened, opened_cpu = time.perf_counter() - t0, time.process_time() - c0
    assert not at.exception, at.exception
    button = next(b for b in at.button if b.label == "Run attacks")
    t0, c0 = time.perf_counter(), time.process_time()
    button.click()
    at.run()
    default_run, run_cpu = time.perf_counter() - t0, time.process_time() - c0
    assert not at.exception, at.exception
    assert any("Utility and risk" in str(m.value) for m in at.markdown), "the run did not finish"
    for m in at.markdown:
        if str(m.value).startswith("- With "):
            print(m.value)
    for w in at.warning:
        print("warning:", str(w.value)[:400])
    t0 = time.perf_counter()
    next(b for b in at.button if b.label == "Run attacks").click()
    at.run()
    again = time.perf_counter() - t0
    print(f"trivial page {trivial:.1f} s; Attacks first open {opened:.1f} s (CPU {opened_cpu:.1f} s); default run "
          f"{default_run:.1f} s (CPU {run_cpu:.1f} s over both threads); the same run again {again:.1f} s")
    return [dict(name="attacks page: first open", seconds=opened, baseline_seconds=trivial),
            dict(name="attacks page: default run", seconds=default_run, baseline_seconds=trivial),
            dict(name="attacks page: default run again (cached)", seconds=again, baseline_seconds=trivial)]


def training_cap() -> None:
    """The strongest attack and the task under training caps of 4,000 and 1,000 windows per fold, with times."""
    from eyedp_core import attacks
    from eyedp_core.data import bundled

    at = attacks.prepare(bundled.load_sample("reading_features"))
    tasks = attacks.available_tasks(at)
    for cap in (4000, 1000):
        runner = attacks.Runner(at, bounds="auto", max_train=cap)
        t0 = time.perf_counter()
        rows = list(runner.run_point(attacks.Point(), tasks=tasks))
        for mech in ("FPA", "CFPA-32", "DCFPA-32"):
            for eps in (1e3, 1e4, 1e5):
                rows += list(runner.run_point(attacks.Point(mech, eps, train_on="private"), tasks=tasks))
        took = time.perf_counter() - t0
        s = attacks.summarise(rows)
        cells = ", ".join(f"{r.mechanism}@{r.epsilon:g} {r.task} {r.accuracy:.2f}" for r in s.itertuples()
                          if r.mechanism != "clean")
        print(f"max_train {cap}: {took:.1f} s; {cells}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cap", action="store_true", help="also compare the training caps")
    args = ap.parse_args()
    page_waits()
    if args.cap:
        training_cap()
