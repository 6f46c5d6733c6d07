"""The downloadable script of an uploaded vendor export reads the file as the Your data page did: the same
reader (Tobii, EyeLink, Pupil Labs, EyeLink ASC), columns, mapping and options, run in a fresh interpreter, give
the page's table exactly (read_table with guessed columns, which the scripts used before, does not)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.report.scripts import read_as_the_page
from ui.yourdata import view

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
SCENE = io.Geometry(1280, 720, 340.0, 190.0, 600.0)  # Pupil Labs positions are normalised: a screen is needed


def _page_read(path: Path, kind: str, geometry: io.Geometry | None) -> tuple[pd.DataFrame, dict]:
    """What 'Use this data' does for a recognised export with its reader on and the page's default choices: the
    page's own functions (ui.yourdata.view) -> (the table it keeps, the recipe it keeps with it)."""
    up = view.web_upload(path.read_bytes(), path.name)
    kept = [str(c) for c in up.preview().columns]
    reader = up.reader(kind, kept)
    assert reader != "generic", f"{path.name} is not recognised as a vendor export"
    raw, guess = up.converted(reader, kept, io.DEFAULT_MIN_CONFIDENCE)
    options = io.ReadOptions(kind=kind, geometry=geometry, drop_missing=True, file_geometry=False,
                             check_off_screen=geometry is not None)
    choice = view.TableRead(kind, reader, True, io.DEFAULT_MIN_CONFIDENCE, kept, dict(guess), options)
    rec = view.read_table(up, raw, choice, path.name, (), lambda f, text: None)
    return rec.samples, view.read_recipe(choice, path.name)


def _run_script(code: str, path: Path, tmp_path: Path) -> pd.DataFrame:
    """Loading lines of a script -> the table they make, run in a fresh interpreter next to a copy of the file."""
    (tmp_path / path.name).write_bytes(path.read_bytes())
    script = tmp_path / "load.py"
    script.write_text(code + "table.to_pickle('table.pkl')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return pd.read_pickle(tmp_path / "table.pkl")


@pytest.mark.parametrize("name,kind,geometry", [
    ("tobii_prolab_binocular.tsv", "gaze", None),
    ("tobii_studio_fixations.tsv", "fixations", None),
    ("eyelink_sample_report.txt", "gaze", None),
    ("pupil_gaze_positions.csv", "gaze", SCENE),
])
def test_the_script_reads_a_vendor_export_as_the_page_did(name: str, kind: str, geometry: io.Geometry | None,
                                                          tmp_path: Path) -> None:
    path = FIX / name
    want, recipe = _page_read(path, kind, geometry)
    assert recipe["reader"] != "generic" and len(want) > 0
    code = read_as_the_page(recipe, "table")
    assert f"_up.converted({recipe['reader']!r}" in code  # the vendor reader, not read_table + guess_mapping
    got = _run_script(code, path, tmp_path)
    pd.testing.assert_frame_equal(got, want)


def test_the_old_generic_read_is_not_the_pages_read_of_a_vendor_export() -> None:
    """Why the recipe is needed: read_table + guess_mapping (the scripts' read before) refuses a Tobii export
    outright, and reads an EyeLink sample report's left eye where the page's reader averages both eyes."""
    tobii = FIX / "tobii_prolab_binocular.tsv"
    raw = io.read_table(tobii.read_bytes(), tobii.name)
    with pytest.raises(io.DataError):
        io.apply_mapping(raw, io.guess_mapping(raw, "gaze"), "gaze", tobii.name)
    eyelink = FIX / "eyelink_sample_report.txt"
    want, _ = _page_read(eyelink, "gaze", None)
    raw = io.read_table(eyelink.read_bytes(), eyelink.name)
    old = io.apply_mapping(raw, io.guess_mapping(raw, "gaze"), "gaze", eyelink.name)
    assert old.shape == want.shape and (old["x"].to_numpy() != want["x"].to_numpy()).any()


@pytest.mark.parametrize("table", ["samples", "fixations"])
def test_the_script_reads_an_eyelink_asc_as_the_page_did(table: str, tmp_path: Path) -> None:
    path = FIX / "eyelink_binocular.asc"
    rec = view.web_upload(path.read_bytes(), path.name).recording(io.ReadOptions(kind="gaze"))  # view.asc_recording
    want = rec.samples if table == "samples" else rec.fixations()
    got = _run_script(read_as_the_page(view.asc_recipe(path.name, table), "table"), path, tmp_path)
    pd.testing.assert_frame_equal(got, want)


@pytest.mark.parametrize("name", ["tobii_prolab_binocular.tsv", "eyelink_sample_report.txt"])
def test_a_vendor_upload_on_the_page_keeps_a_recipe_its_script_reproduces(name: str, tmp_path: Path) -> None:
    """Through the Your data page itself: the upload's dataset keeps how it was read, and the script lines made
    from it, run on the file, give the page's table."""
    from tests.apptest import upload_file, use_data

    path = FIX / name
    at = upload_file("gaze", name, path.read_bytes())
    at.checkbox(key="yd_detect").set_value(False).run()
    use_data(at)
    ds = at.session_state["eyedp_uploads"]["gaze"][f"Upload: {name}"]
    assert ds.read is not None and ds.read["reader"] not in ("generic", None) and ds.read["file"] == name
    got = _run_script(read_as_the_page(ds.read, "table"), path, tmp_path)
    pd.testing.assert_frame_equal(got, ds.frame)
