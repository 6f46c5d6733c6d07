"""Your data (AppTest) on fixation tables the bundled sample does not resemble: the stimulus column guessed from
the whole file (an index naming other images below the preview is not chosen), a table without durations
that loads without an error box, and a wide table mapped in seconds."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from tests.apptest import page_text, upload_file, use_data
from tests.core.io.test_guess_whole_file import misleading_fixations
from tests.core.io.test_wide_uploads import wide_table


def test_the_page_guesses_the_file_name_column_from_the_whole_file():
    """The first 5,000 rows pair each index with one image; further down the same indices name fillers. The page
    pre-selects the file-name column, says why, and the loaded table keeps target and filler apart."""
    at = upload_file("fixations", "fix.csv", misleading_fixations())
    assert at.selectbox(key="map_fixations_stimulus").value == "filename"
    infos = " ".join(i.value for i in at.info)
    assert "'filename' was chosen for the stimulus, not 'image_index'" in infos
    use_data(at)
    assert "fix.csv loaded (12,600 rows" in " ".join(s.value for s in at.success), page_text(at)
    assert [b for b in at.button if b.label == "Make feature windows"]  # durations: windows are offered


def test_fixations_without_durations_load_without_an_error_box():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"observer": np.repeat(["a", "b", "c"], 20), "image": np.tile(["i1.jpg", "i2.jpg"], 30),
                       "x": rng.uniform(10, 800, 60).round(1), "y": rng.uniform(10, 600, 60).round(1)})
    at = upload_file("fixations", "nodur.csv", df.to_csv(index=False).encode())
    use_data(at)
    assert "nodur.csv loaded (60 rows" in " ".join(s.value for s in at.success), page_text(at)
    assert not at.error, [e.value for e in at.error]
    assert "No feature windows from this table: they are timed by the fixations' durations" in page_text(at)
    assert not [b for b in at.button if b.label == "Make feature windows"]


def test_a_wide_feature_table_is_mapped_and_loaded_on_the_page_in_seconds():
    """The 2,000-column, 97 KB table of tests/core/io/test_wide_uploads.py (the parser renames 1,300 repeated names)
    through the page: preview, guesses, label choice and 'Use this data' take about 16 s here; with a pass over
    every column per column (the preview, the guesses, the hash of the loaded table) they took 105 s."""
    start = time.perf_counter()
    at = upload_file("features", "wide.csv", wide_table(2000))
    use_data(at)
    took = time.perf_counter() - start
    assert "wide.csv loaded (8 rows" in " ".join(s.value for s in at.success), page_text(at)
    assert took < 75, f"{took:.0f} s"
