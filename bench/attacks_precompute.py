"""Compute the Attacks page's default run on the bundled sample once and ship it (eyedp_core/attacks/store.SHIPPED).

Run alone: python bench/attacks_precompute.py

It opens the page headless (Streamlit AppTest) with an empty result directory, presses "Run attacks" with the
default settings (the grid and its extension), and packs every result the page computed into the shipped file.
Each result is keyed on the table's content, the settings and the source of the code that computed it
(store.code_fingerprint), so after any change to that code the page computes live again until this is re-run.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    """Run the default grid through the page into a fresh directory, then pack it as the shipped file."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["EYEDP_ATTACK_CACHE"] = str(Path(tmp) / "results")
        os.environ.setdefault("EYEDP_LEDGER", str(Path(tmp) / "ledger.sqlite"))
        from streamlit.testing.v1 import AppTest

        from bench.bench_attacks_page import _headless_navigation
        from eyedp_core.attacks import store

        _headless_navigation()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=3600)
        at.run()
        at.switch_page("pages/attacks.py").run()
        t0 = time.perf_counter()
        next(b for b in at.button if b.label == "Run attacks").click()
        at.run()
        assert not at.exception, at.exception
        directory = Path(os.environ["EYEDP_ATTACK_CACHE"])
        keys = sorted(p.name.removesuffix(".json") for p in directory.glob("*.json"))
        n = store.pack(directory, keys)
        print(f"default run computed in {time.perf_counter() - t0:.1f} s; {n} results packed into {store.SHIPPED} "
              f"({store.SHIPPED.stat().st_size / 1024:.0f} KB), code {store.code_fingerprint()[:12]}")


if __name__ == "__main__":
    main()
