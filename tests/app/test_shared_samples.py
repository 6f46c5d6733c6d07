"""The bundled samples are shared between sessions (st.cache_resource, no copy per run): no page may change them.

Every page is opened, and the views that compute most are switched on; afterwards the shared tables equal a fresh
read of the files, and the shared stimulus images are locked against writes."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.data import bundled
from tests.apptest import open_app

PAGES = ["pages/home.py", "pages/heatmaps.py", "pages/time_series.py", "pages/attacks.py", "pages/gaze_samples.py",
         "pages/report.py", "pages/your_data.py"]
NAMES = ("reading_features", "fixations", "gaze_streams", "demographics")


def _shared() -> dict[str, object]:
    """The objects the app's cache hands out, read through a one-line app in the same process."""
    def app() -> None:
        import streamlit as st

        from eyedp_core.data import bundled
        from ui import state

        st.session_state["out"] = {**{n: state._sample_frame(n) for n in
                                      ("reading_features", "fixations", "gaze_streams", "demographics")},
                                   **{f"img:{n}": state._sample_image(n) for n in bundled.stimulus_names()}}

    at = AppTest.from_function(app, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at.session_state["out"]


def test_pages_leave_the_shared_samples_unchanged() -> None:
    before = _shared()
    at = open_app()
    for page in PAGES:
        open_app(page, at)
    at.switch_page("pages/gaze_samples.py").run()
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    after = _shared()
    for name in NAMES:
        assert after[name] is before[name]  # shared, not a copy per run
        pd.testing.assert_frame_equal(after[name], bundled.load_sample(name))
    for name in bundled.stimulus_names():
        img = after[f"img:{name}"]
        assert not img.flags.writeable
        np.testing.assert_array_equal(img, bundled.stimulus_image(name))
        with pytest.raises(ValueError):
            img[0, 0, 0] = 0
