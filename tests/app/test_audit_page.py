"""The Audit page headless (Streamlit AppTest): it opens with its words (a lower bound, never a certificate; a
numpy Generator, nothing charged), a run on the sample's defaults reports ε̂ ≤ ε for every mechanism with its N,
confidence and time, a changed page setting reaches the audit, and a stopped run says so, keeps what finished and resumes."""
from __future__ import annotations

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.apptest import open_app, page_text

MECHANISM_PAGES = {"Heatmaps", "Time series", "Time series (release form)", "Areas of interest",
                   "Gaze samples (Kaleido)"}


def _audit() -> AppTest:
    return open_app("pages/audit.py", timeout=300)


def _run(at: AppTest) -> pd.DataFrame:
    at.button(key="FormSubmitter:aud_form-Run the audit").click().run()
    assert not at.exception, at.exception
    tables = [d.value for d in at.dataframe if "ε̂ (lower bound)" in getattr(d.value, "columns", [])]
    assert len(tables) == 1
    return tables[0]


def test_the_page_opens_with_its_words() -> None:
    at = _audit()
    text = page_text(at)
    assert at.title[0].value == "Audit"
    assert "lower bound" in text and "never certify a guarantee" in text
    assert "numpy Generator" in text and "nothing is charged" in text
    assert "every released value lies on the lattice" in text  # the float-residue check runs on opening


def test_a_run_on_the_sample_defaults_stays_under_every_claim() -> None:
    at = _audit()
    df = _run(at)
    assert set(df["page"]) == MECHANISM_PAGES
    assert (df["ε̂ (lower bound)"] <= df["claimed ε"]).all(), df
    assert (df["draws per neighbour"] >= 2_000).all() and set(df["confidence"]) == {"95%"}
    assert df["seconds"].sum() < 30.0
    # The Heatmaps default claims ε = 3 per observer; Kaleido's first publication (5 − 5/2)/2 = 1.25.
    claims = dict(zip(df["page"], df["claimed ε"], strict=True))
    assert claims["Heatmaps"] == 3.0 and claims["Gaze samples (Kaleido)"] == 1.25
    assert "no violation found" in page_text(at)


def test_a_page_setting_reaches_the_audit() -> None:
    at = _audit()
    at.session_state["hm_eps"] = 0.5
    at.session_state["hm_mech"] = "laplace"
    df = _run(at)
    row = df[df["page"] == "Heatmaps"].iloc[0]
    assert row["claimed ε"] == 0.5 and row["δ"] == 0.0 and "laplace" in row["mechanism"]
    assert "with laplace noise, the Heatmaps page's family" in page_text(at)  # the residue check follows it


def test_a_stopped_run_says_so_keeps_what_finished_and_resumes() -> None:
    at = _audit()
    _run(at)
    key, rows = at.session_state["aud_results"]
    at.session_state["aud_results"] = (key, rows[:2])  # as if Stop was pressed during the third mechanism
    at.session_state["aud_cancel"] = True
    at.run()
    assert "Audit stopped after 2 of 5 mechanisms" in page_text(at)
    shown = [d.value for d in at.dataframe if "ε̂ (lower bound)" in getattr(d.value, "columns", [])]
    assert len(shown) == 1 and len(shown[0]) == 2
    at.button(key="FormSubmitter:aud_form-Run the audit").click().run()
    shown = [d.value for d in at.dataframe if "ε̂ (lower bound)" in getattr(d.value, "columns", [])]
    assert list(shown[0]["page"]) == [r["page"] for r in rows]  # Run goes on: the first two kept, three run
    assert list(shown[0]["seconds"])[:2] == [r["seconds"] for r in rows[:2]]
    at.session_state["hm_eps"] = 1.5  # a setting moved elsewhere: the next run starts afresh
    at.button(key="FormSubmitter:aud_form-Run the audit").click().run()
    shown = [d.value for d in at.dataframe if "ε̂ (lower bound)" in getattr(d.value, "columns", [])]
    assert shown[0]["claimed ε"].iloc[0] == 1.5 and len(shown[0]) == 5


def test_the_heatmap_case_takes_the_data_the_heatmaps_page_drew() -> None:
    at = open_app("pages/heatmaps.py", timeout=300)
    at.session_state["hm_cell"] = 64
    at.run()
    assert not at.exception, at.exception
    at.switch_page("pages/audit.py").run()
    row = _run(at).set_index("page").loc["Heatmaps"]
    # The sample's stimulus is 1280 × 800 px with 40 observers: 64 px cells make a 13 × 20 grid.
    assert "13×20 cells" in row["mechanism"] and row["neighbours"].startswith("40 observers")
