"""The Heatmaps page in Streamlit's AppTest: sample data, sliders, presets, every panel, export, uploads."""
from __future__ import annotations

import io as _io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from eyedp_core.dp import calibration as dp_calibration
from tests.apptest import metric_value, open_app, page_text, shown_numbers

ROOT = Path(__file__).resolve().parents[2]

PAGE = "pages/heatmaps.py"
PANELS = ["curves", "cap", "calculator", "attack", "planning"]


def _heatmaps(at: AppTest | None = None) -> AppTest:
    """The Heatmaps page (in a fresh session unless one is given), checked for exceptions."""
    return open_app(PAGE, at=at, timeout=240)


def _text(at: AppTest, kinds=("markdown", "caption", "info", "warning", "error", "success")) -> str:
    """Everything the page wrote in these element kinds, joined."""
    return page_text(at, kinds)


def _png(width: int, height: int, mode: str = "RGB") -> bytes:
    """A plain PNG image of this size."""
    buf = _io.BytesIO()
    Image.new(mode, (width, height), 255 if mode == "1" else (240, 240, 240)).save(buf, format="PNG")
    return buf.getvalue()


def _upload_image(at: AppTest, name: str, data: bytes, use: bool = True) -> AppTest:
    """Your data page: upload an image and (if it decodes) press 'Use this image'."""
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value("image").run()
    at.file_uploader(key="uploader_image").set_value((name, data, "image/png")).run()
    assert not at.exception, at.exception
    if use and not at.error:
        at.button[0].click().run()
        assert not at.exception, at.exception
    return at


def _upload_fixations(at: AppTest, name: str, df: pd.DataFrame) -> AppTest:
    """Your data page: upload a fixation CSV and accept the guessed column mapping."""
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value("fixations").run()
    at.file_uploader(key="uploader_fixations").set_value((name, df.to_csv(index=False).encode(), "text/csv")).run()
    assert not at.exception, at.exception
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def _my_fixations(width: int, height: int, n_obs: int = 6, per: int = 12, seed: int = 3) -> pd.DataFrame:
    """Synthetic fixations inside a width x height image, without a stimulus column."""
    rng = np.random.default_rng(seed)
    n = n_obs * per
    return pd.DataFrame({"observer": np.repeat([f"me{i}" for i in range(n_obs)], per),
                         "x": rng.uniform(0, width - 1, n).round(1), "y": rng.uniform(0, height - 1, n).round(1),
                         "duration_ms": rng.uniform(100, 400, n).round()})


def test_page_runs_on_sample_data():
    """Clean and noisy heatmaps, metrics, the noise scale and the unit of privacy are shown."""
    at = _heatmaps()
    assert at.title[0].value == "Heatmaps"
    labels = {label for label, _ in shown_numbers(at)}
    assert {"CC", "MSE", "NMSE", "KL (nats)", "SIM", "Noise σ per cell", "Δ₂ (L2 sensitivity)",
            "Total ε per observer"} <= labels
    assert "EMD (px)" not in labels  # the linear program runs only on request
    at.toggle(key="hm_emd").set_value(True).run()
    assert not at.exception, at.exception
    assert metric_value(at, "EMD (px)") >= 0
    text = _text(at)
    assert "one observer's whole gaze map on this stimulus" in text
    assert "compose sequentially" in text and "one stimulus" in text
    assert "PREVIEW — NOT A PRIVATE RELEASE" in text
    assert -1.0 <= metric_value(at, "CC") <= 1.0
    assert not any("Liu et al. Theorem 3.4" in str(m.value) for m in at.markdown)  # behind a lazy expander
    at.session_state["hm_derivation"] = True
    at.run()
    assert any("Liu et al. Theorem 3.4" in str(m.value) for m in at.markdown)


def test_eps_move_sets_the_analytic_sigma_for_the_shown_sensitivity():
    """Moving ε changes the shown σ to dp_calibration.gaussian_sigma(Δ₂ shown, ε, δ shown)."""
    at = _heatmaps()
    before = metric_value(at, "Noise σ per cell")
    at.select_slider(key="hm_eps").set_value(0.5).run()
    assert not at.exception, at.exception
    l2 = metric_value(at, "Δ₂ (L2 sensitivity)")
    delta = float(at.select_slider(key="hm_delta").value)
    sigma = metric_value(at, "Noise σ per cell")
    assert sigma != before
    assert sigma == pytest.approx(dp_calibration.gaussian_sigma(l2, 0.5, delta, method="analytic"), rel=1e-5)
    # Total ε for three stimuli composes sequentially.
    at.number_input(key="hm_k_stimuli").set_value(3).run()
    assert metric_value(at, "Total ε per observer") == pytest.approx(1.5)


def test_laplace_shows_scale_and_std():
    """Laplace: b = Δ₁/ε and the standard deviation √2·b are both shown, with Liu's 'noise level' note."""
    at = _heatmaps()
    at.radio(key="hm_mech").set_value("laplace").run()
    assert not at.exception, at.exception
    eps = float(at.select_slider(key="hm_eps").value)
    b = metric_value(at, "Laplace scale b")
    assert b == pytest.approx(metric_value(at, "Δ₁ (L1 sensitivity)") / eps, rel=1e-5)
    assert metric_value(at, "Noise std √2·b") == pytest.approx(np.sqrt(2) * b, rel=1e-5)
    at.session_state["hm_derivation"] = True  # Liu's 'noise level' note is in the derivation (a lazy expander)
    at.run()
    assert "σ_L" in _text(at)


def test_poor_preset_warns_about_delta():
    """The 'poor' preset sets δ = 1/n and the δ ≥ 1/n warning appears."""
    at = _heatmaps()
    at.segmented_control(key="hm_preset").set_value("poor").run()
    assert not at.exception, at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "≥ 1/n" in warnings and "poor privacy" in warnings
    assert float(at.select_slider(key="hm_delta").value) == pytest.approx(1 / 40)


def test_the_hint_before_a_panel_is_chosen_names_every_panel():
    """While no panel is open, the hint under the switcher says what each of its panels answers."""
    from ui.heatmaps.panels import PANEL_PURPOSES
    from ui.heatmaps.panels import PANELS as SHOWN

    assert PANEL_PURPOSES.keys() == SHOWN.keys()
    at = _heatmaps()
    hint = next(c.value for c in at.caption if c.value.startswith("Choose a panel"))
    assert all(purpose in hint for purpose in PANEL_PURPOSES.values()), hint


@pytest.mark.parametrize("panel", PANELS)
def test_every_panel_runs(panel):
    """Each panel of the view switcher renders without an exception."""
    at = _heatmaps()
    at.segmented_control(key="hm_panel").set_value(panel).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    if panel == "planning":
        assert "PLANNING ONLY" in _text(at)
    if panel == "cap":
        assert "docs/PRIVACY_MODEL.md §0.7" in _text(at)


def test_cap_choices_are_flagged_and_charged():
    """Algorithm 1's m marks the release as tuned; the private choice adds its ε to the total."""
    at = _heatmaps()
    at.segmented_control(key="hm_panel").set_value("cap").run()
    at.button(key="hm_use_mopt").click().run()
    assert not at.exception, at.exception
    assert "tuned on private data" in _text(at)
    at.button(key="hm_select_private").click().run()
    assert not at.exception, at.exception
    eps = float(at.select_slider(key="hm_eps").value)
    sel = float(at.select_slider(key="hm_sel_eps").value)
    assert "chosen privately" in _text(at)
    assert metric_value(at, "Total ε per observer") == pytest.approx(eps + sel)


def test_export_records_a_release_in_the_ledger():
    """Export draws OpenDP noise, records one observer-level release and offers downloads."""
    at = _heatmaps()
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    ledger = at.session_state["eyedp_ledger"]
    assert len(ledger.releases) == 1
    rel = ledger.releases[0]
    assert rel.view == "Heatmaps" and rel.unit == "observer" and rel.sensitivity_type == "public"
    assert len(rel.participants) == 40 and not rel.tuned_on_private_data
    # The export σ is raised until OpenDP's own accounting certifies the requested (ε, δ).
    assert rel.epsilon == pytest.approx(float(at.select_slider(key="hm_eps").value), rel=1e-6)
    assert rel.delta == pytest.approx(float(at.select_slider(key="hm_delta").value))
    assert len([b for b in at.get("download_button") if b.key.startswith("hm_dl_")]) == 3  # the export's files
    # A second export is a second release (sequential composition), not a replacement.
    at.radio(key="hm_mech").set_value("laplace").run()
    at.button(key="hm_export").click().run()
    releases = at.session_state["eyedp_ledger"].releases
    assert len(releases) == 2 and releases[1].delta == 0.0 and releases[1].mechanism.startswith("laplace")


def test_export_on_a_too_fine_grid_says_what_it_accepts():
    """A 1-px grid on the 1280 x 800 sample has 1,024,000 cells: no red error box, but the cell sizes an export
    accepts, in words (2 px makes 256,000 cells, under the 300,000 limit)."""
    at = _heatmaps()
    at.select_slider(key="hm_cell").set_value(1).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    info = " ".join(i.value for i in at.info)
    assert "1,024,000" in info and "cell sizes of 2 px or more" in info and "300,000 cells" in info
    assert not [b for b in at.button if b.key == "hm_export"]
    at.select_slider(key="hm_cell").set_value(2).run()
    assert [b for b in at.button if b.key == "hm_export"] and "cell sizes of" not in " ".join(i.value for i in at.info)


def test_uploaded_image_and_fixations_are_used():
    """An uploaded image and a fixation table without a stimulus column drive the page."""
    at = _upload_image(open_app(timeout=240), "mystim.png", _png(320, 200))
    assert "mystim.png" in _text(at, ("success",))
    at = _upload_fixations(at, "myfix.csv", _my_fixations(320, 200))
    at = _heatmaps(at)
    at.selectbox(key="hm_stimulus").set_value("mystim.png").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    text = _text(at)
    assert "6 observers" in text and "72 fixations" in text and "no stimulus column" in text
    assert "Upload: myfix.csv" in text
    assert metric_value(at, "Δ₂ (L2 sensitivity)") > 0
    for panel in PANELS:
        at.segmented_control(key="hm_panel").set_value(panel).run()
        assert not at.exception, (panel, at.exception)


def test_fixations_outside_the_image_name_the_row():
    """A fixation outside the chosen image gives the DataError message with its row, not a traceback."""
    at = _upload_image(open_app(timeout=240), "small.png", _png(320, 200))
    df = _my_fixations(320, 200)
    df.loc[2, "x"] = 500.0  # third data row = line 4 of the CSV
    at = _upload_fixations(at, "outside.csv", df)
    at = _heatmaps(at)
    at.selectbox(key="hm_stimulus").set_value("small.png").run()
    assert not at.exception, at.exception
    err = " ".join(e.value for e in at.error)
    assert "row 4" in err and "'x'" in err and "500" in err and "outside the stimulus" in err


def test_sample_fixations_on_an_uploaded_image_explain_the_mismatch():
    """Sample fixations (with a stimulus column) have no rows for an uploaded image: a clear message."""
    at = _upload_image(open_app(timeout=240), "other.png", _png(320, 200))
    at = _heatmaps(at)
    at.selectbox(key="hm_stimulus").set_value("other.png").run()
    assert not at.exception, at.exception
    err = " ".join(e.value for e in at.error)
    assert "no fixations for the stimulus 'other.png'" in err and "portrait" in err


def test_non_image_upload_is_refused():
    """A text file posing as a PNG is refused with a message naming it."""
    at = _upload_image(open_app(timeout=240), "fake.png", b"this is not an image", use=False)
    assert not at.exception
    err = " ".join(e.value for e in at.error)
    assert "fake.png is not a PNG or JPEG image" in err


def test_hundred_megapixel_image_is_refused():
    """A 10,000 x 10,000 PNG (small file, 100 megapixels) is refused before decoding, with the limit."""
    data = _png(10_000, 10_000, mode="1")
    assert len(data) < 1_000_000
    at = _upload_image(open_app(timeout=240), "huge.png", data, use=False)
    assert not at.exception
    err = " ".join(e.value for e in at.error)
    assert "huge.png" in err and "100.0 megapixels" in err and "limit" in err


def test_difference_attack_caption_quotes_the_tables_draw_and_the_expectation():
    """The caption's MSE is the table's row for the page's mechanism (one draw, one number), and the expectation
    it states is n²·σ² with σ the calibration the page shows."""
    import re

    at = _heatmaps()
    at.segmented_control(key="hm_panel").set_value("attack").run()
    assert not at.exception, at.exception
    caption = next(c.value for c in at.caption if "in the table's draw" in c.value)
    table = at.dataframe[0].value
    mse = float(table.loc[table["mechanism"] == "Gaussian noise", "MSE per cell"].iloc[0])
    drawn = float(re.search(r"MSE ([0-9.e+-]+) per cell in the table's draw", caption).group(1))
    assert drawn == pytest.approx(mse, rel=5e-3)
    n, sigma, expected = re.search(r"expected n²·σ² = (\d+)² × ([0-9.e+-]+)² = ([0-9.e+-]+)\)", caption).groups()
    assert float(expected) == pytest.approx(int(n) ** 2 * float(sigma) ** 2, rel=1e-2)
    # A draw of ~n_cells squared Gaussians lies near its expectation (the map has hundreds of cells).
    assert 0.5 < drawn / float(expected) < 2.0
