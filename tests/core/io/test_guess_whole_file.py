"""The stimulus column is guessed from the whole file on the page as in the library: a fixation table whose
`image_index` names one image per index in its first 5,000+ rows and, further down, a different filler image
under the same index (60 % of the rows) gets its file-name column, not the index, through the page's upload
pipeline (Upload.guess) and through read_recording alike."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.io.pipeline import PREVIEW_ROWS

PAIRS = 630
REALDATA = Path(__file__).resolve().parents[3].parent / "shared" / "realdata"


def misleading_fixations(seed: int = 0) -> bytes:
    """Fixations of 29 observers: the first 40 % of rows (more than the preview) show the targets, index i ->
    'target_i.jpg'; the rest show fillers under the same indices, index i -> 'filler_i.jpg'."""
    rng = np.random.default_rng(seed)
    n = 12_600
    n_target = int(0.4 * n)
    assert n_target > PREVIEW_ROWS
    index = rng.integers(0, PAIRS, n)
    name = np.where(np.arange(n) < n_target, [f"target_{i:03d}.jpg" for i in index],
                    [f"filler_{i:03d}.jpg" for i in index])
    df = pd.DataFrame({"subject": rng.integers(1, 30, n), "image_index": index, "filename": name,
                       "x": rng.uniform(10, 1000, n).round(1), "y": rng.uniform(10, 700, n).round(1),
                       "duration": rng.uniform(100, 400, n).round(0)})
    return df.to_csv(index=False).encode()


def test_the_head_alone_would_pick_the_index() -> None:
    """The shape misleads a guess from the preview: in the first rows each index names one image only."""
    head = io.read_table(misleading_fixations(), "fix.csv", nrows=PREVIEW_ROWS)
    assert io.guess_mapping(head, "fixations")["stimulus"] == "image_index"


def test_page_pipeline_and_library_choose_the_file_name_column() -> None:
    data = misleading_fixations()
    up = io.Upload(data, "fix.csv", io.WEB_LIMITS)
    assert len(up.preview()) == PREVIEW_ROWS  # the page sees only the head
    mapping, notes = up.guess("fixations", [str(c) for c in up.preview().columns])
    rec = io.read_recording(data, filename="fix.csv", options=io.ReadOptions(kind="fixations"))
    library = io.guess_mapping(io.read_table(data, "fix.csv"), "fixations")
    assert mapping["stimulus"] == library["stimulus"] == "filename"
    assert mapping == library
    assert any("'filename' was chosen for the stimulus, not 'image_index'" in n for n in notes)
    # The library's table keeps target and filler apart: 2 images per index.
    assert rec.samples["stimulus"].nunique() == 2 * PAIRS


def test_a_file_whose_head_is_all_of_it_is_not_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file no longer than the preview: the guess uses the preview only (the whole file is never parsed), and
    its index naming several file names is passed over there too."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"observer": rng.integers(0, 5, 50), "image_index": rng.integers(0, 3, 50),
                       "file": [f"img{i}.png" for i in rng.integers(0, 3, 50)], "x": 1.0, "y": 2.0})
    up = io.Upload(df.to_csv(index=False).encode(), "small.csv")
    up.preview()

    def no_full_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the whole file was read for the guess")
    monkeypatch.setattr(up, "full_table", no_full_read)
    mapping, _ = up.guess("fixations")
    assert mapping["stimulus"] == "file"


def test_a_file_unreadable_below_the_preview_still_gets_a_guess_with_a_note() -> None:
    """A file over the row limit is refused only by the full read: the guess falls back to the head and says why,
    so the page can still draw its mapping form; the full read refuses it again."""
    up = io.Upload(misleading_fixations(), "fix.csv", io.Limits(max_rows=8000))
    mapping, notes = up.guess("fixations")
    assert mapping["stimulus"] == "image_index"
    assert notes[0].startswith("The stimulus column was guessed from the first 5,000 rows only: the whole file "
                               "could not be read (fix.csv"), notes
    with pytest.raises(io.DataError, match="8,000"):
        up.full_table()


@pytest.mark.parametrize(("path", "kind", "stimulus"), [
    ("uniss_fgd/fgd_fixations.csv.gz", "fixations", "image_file"),
    ("osie/osie_fixations.csv.gz", "fixations", "image"),
    ("sbsat/18sat_trialfinal.csv", "fixations", "Trial_Index_"),
    ("lund2013/lund2013_samples.csv.gz", "gaze", "stimulus"),
])
def test_real_files_longer_than_the_preview_get_the_librarys_mapping(path: str, kind: str, stimulus: str) -> None:
    """Real recordings of 7,000 to 380,000 rows: the page's guess (preview plus the stimulus candidates read whole)
    equals the library's guess on the whole table, role for role."""
    file = REALDATA / path
    if not file.exists():
        pytest.skip(f"{file} is not here")
    data = file.read_bytes()
    up = io.Upload(data, file.name, io.WEB_LIMITS)
    page, _ = up.guess(kind)
    whole = io.read_table(data, file.name, limits=io.WEB_LIMITS)
    assert len(whole) > len(up.preview()) == PREVIEW_ROWS
    assert page == io.guess_mapping(whole, kind) and page["stimulus"] == stimulus
