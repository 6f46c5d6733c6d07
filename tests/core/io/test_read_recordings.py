"""Many raw gaze files at once (io.read_recordings, io.recordings.table_files): each file one recording, named by
its column or else its path, the same samples as each file read alone, caps before parsing for the web page.

The real case is Lund 2013 split the way datasets ship it (one file per participant and stimulus, in a folder per
participant, no ID columns, the moving-dot trials without timestamps): read from a zip, it must give exactly the
recordings the combined file gives."""
from __future__ import annotations

import io as _io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.io.errors import DataError
from eyedp_core.io.recordings import combine, table_files
from eyedp_core.io.steps import Step

LUND = Path(__file__).resolve().parents[3].parent / "shared" / "realdata" / "lund2013" / "lund2013_samples.csv.gz"


def _gaze(n: int, x0: float, step_ms: float = 4.0, participant: str | None = None) -> pd.DataFrame:
    i = np.arange(n)
    out = pd.DataFrame({"time_ms": 1000 + i * step_ms, "x": x0 + 30 * np.sin(i / 9), "y": 300 + 20 * np.cos(i / 7)})
    return out if participant is None else out.assign(participant=participant)


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def _zip(members: dict[str, bytes]) -> bytes:
    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_three_files_without_a_participant_column_are_three_participants_named_by_file():
    files = [(f"P0{k}.csv", _csv(_gaze(50 + k, 100.0 * k))) for k in (1, 2, 3)]
    rec = io.read_recordings(files)
    s = rec.samples
    assert s.groupby("participant").size().to_dict() == {"P01": 51, "P02": 52, "P03": 53}
    for name, data in files:
        alone = io.read_recording(data, filename=name).samples
        mine = s[s.participant == name[:3]].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone.reset_index(drop=True))
    assert "stimulus" not in s.columns and rec.kind == "gaze"
    combined = [r for r in rec.reports if r.step is Step.COMBINE]
    assert len(combined) == 1
    assert "3 files read as one table of 3 recordings of 3 participants" in combined[0].sentence()
    assert {r.source for r in rec.reports if r.step is Step.VALIDATE} == {"P01.csv", "P02.csv", "P03.csv"}


def test_a_zip_of_the_same_files_reads_the_same_and_skips_other_members():
    files = {f"P0{k}.csv": _csv(_gaze(40, 100.0 * k)) for k in (1, 2)}
    zipped = _zip({**files, "notes/README.md": b"hello", "__MACOSX/._P01.csv": b"junk"})
    direct = io.read_recordings(list(files.items()))
    pd.testing.assert_frame_equal(io.read_recordings(("s.zip", zipped)).samples, direct.samples)
    pairs, skipped = table_files([("s.zip", zipped)], max_bytes=10**6)
    assert [n for n, _ in pairs] == ["P01.csv", "P02.csv"]
    assert skipped == ["s.zip: 1 file(s) that are not gaze recordings (CSV/TSV/TXT/ASC) were skipped "
                       "(e.g. notes/README.md)."]


def test_a_folder_is_read_file_by_file(tmp_path):
    for k in (1, 2):
        (tmp_path / f"S{k}.csv").write_bytes(_csv(_gaze(30, 100.0 * k)))
    (tmp_path / "info.json").write_text("{}")
    rec = io.read_recordings(tmp_path)
    assert rec.samples.groupby("participant").size().to_dict() == {"S1": 30, "S2": 30}


def test_a_participant_in_two_files_gets_each_file_as_its_recording():
    a = _csv(_gaze(20, 100, participant="P01"))
    b = _csv(_gaze(30, 200, participant="P01"))
    rec = io.read_recordings([("free.csv", a), ("search.csv", b)])
    sizes = rec.samples.groupby(["participant", "stimulus"]).size().to_dict()
    assert sizes == {("P01", "free"): 20, ("P01", "search"): 30}
    assert "recording 'free' from its file name (its participant is in another file too)" in " ".join(
        map(str, rec.warnings))


def test_the_same_recording_in_two_files_is_refused_naming_both():
    a = _csv(_gaze(20, 100, participant="P01").assign(trial="t1"))
    with pytest.raises(DataError, match=r"participant 'P01', stimulus 't1'\) is in a\.csv and in b\.csv"):
        io.read_recordings([("a.csv", a), ("b.csv", a)], mapping={"participant": "participant",
                                                                  "t_s": "time_ms", "x": "x", "y": "y",
                                                                  "stimulus": "trial"})


def test_files_on_different_screens_and_of_different_kinds_are_refused():
    one = io.read_recording(_csv(_gaze(20, 100)), filename="a.csv", geometry="desktop_24")
    other = io.read_recording(_csv(_gaze(20, 100)), filename="b.csv", geometry="laptop_14")
    with pytest.raises(DataError, match="different screens"):
        combine([one, other])
    fix = io.read_recording(_csv(pd.DataFrame({"x": [1.0, 2], "y": [1.0, 2], "duration_ms": [200, 300]})), filename="f.csv", options=io.ReadOptions(kind="fixations"))
    with pytest.raises(DataError, match="different kinds"):
        combine([one, fix])


def test_caps_refuse_a_zip_bomb_and_too_much_in_all_before_parsing():
    bomb = _zip({"big.csv": b"t,x,y\n" + b"0,0,0\n" * 500_000})
    with pytest.raises(DataError, match="unpack to more than 1 MB"):
        table_files([("bomb.zip", bomb)], max_bytes=1_000_000)
    small = _csv(_gaze(20, 100))
    with pytest.raises(DataError, match="take more than 0 MB in all"):
        table_files([("a.csv", small), ("b.csv", small)], max_bytes=len(small) + 1)
    with pytest.raises(DataError, match="no file here is one of the gaze recordings"):
        table_files([("only.zip", _zip({"a.png": b"x"}))], max_bytes=None)
    # The library reads any size: no cap unless asked.
    assert len(table_files([("bomb.zip", bomb)], max_bytes=None)[0]) == 1


@pytest.mark.skipif(not LUND.is_file(), reason=f"Lund 2013 samples not found at {LUND}")
def test_lund2013_split_per_recording_in_folders_reads_as_the_combined_file():
    raw = pd.read_csv(LUND)
    people = sorted(raw["participant"].unique())[:6]
    raw = raw[raw["participant"].isin(people)]
    members = {f"{p}/{s}.csv": _csv(g.drop(columns=["participant", "stimulus"]))
               for (p, s), g in raw.groupby(["participant", "stimulus"], sort=True)}
    assert any(k.endswith("/trial17.csv") for k in members) and len(members) >= 12
    rec = io.read_recordings(("lund.zip", _zip(members)), options=io.ReadOptions(sampling_rate_hz=500))
    whole = io.read_recording(raw.to_csv(index=False).encode(), filename="lund.csv", options=io.ReadOptions(sampling_rate_hz=500))
    key = ["participant", "stimulus"]
    got = rec.samples.sort_values(key, kind="stable").reset_index(drop=True)
    want = whole.samples.sort_values(key, kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(got[key + ["t_s", "x", "y"]], want[key + ["t_s", "x", "y"]])
    assert got.groupby(key).ngroups == len(members) and got["participant"].nunique() == len(people)
    assert rec.counts["time_rebuilt"] == whole.counts["time_rebuilt"] > 0
    assert rec.counts["zero_time_dropped"] == whole.counts["zero_time_dropped"]


def test_files_named_as_people_say_the_guarantee_is_per_file_unless_labelled():
    files = [(f"S{k}.csv", _csv(_gaze(20, 100.0 * k))) for k in (1, 2)]
    text = " ".join(map(str, io.read_recordings(files).warnings))
    assert "2 files have no participant column: each is taken as a different participant" in text
    assert "every guarantee per participant holds per file, not per person" in text
    labelled = [(f"S{k}.csv", _csv(_gaze(20, 100.0 * k, participant=f"P{k}"))) for k in (1, 2)]
    assert "no participant column" not in " ".join(map(str, io.read_recordings(labelled).warnings))
    folders = [(f"P{k}/free.csv", _csv(_gaze(20, 100.0 * k))) for k in (1, 2)]
    assert "no participant column" not in " ".join(map(str, io.read_recordings(folders).warnings))


def test_fixation_files_combine_by_observer_and_feature_tables_are_refused():
    def fix(n: int) -> bytes:
        return _csv(pd.DataFrame({"x": 100.0 + np.arange(n), "y": 200.0 + np.arange(n), "duration_ms": 250.0}))
    rec = io.read_recordings([("O1.csv", fix(3)), ("O2.csv", fix(4))], options=io.ReadOptions(kind="fixations"))
    assert rec.kind == "fixations" and "participant" not in rec.samples.columns
    assert rec.samples.groupby("observer").size().to_dict() == {"O1": 3, "O2": 4}
    feats = _csv(pd.DataFrame({"participant": ["a", "b"], "window": [0, 0], "f1": [1.0, 2.0]}))
    with pytest.raises(DataError, match="feature tables are not combined"):
        io.read_recordings([("a.csv", feats), ("b.csv", feats)], options=io.ReadOptions(kind="features"))
