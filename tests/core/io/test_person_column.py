"""The person column changes name in one function: observer in fixation tables, participant elsewhere."""
from __future__ import annotations

import pandas as pd

from eyedp_core.io.person_column import PersonColumn, person_column_of, with_person_column


def test_the_person_column_is_renamed_each_way_and_left_alone_otherwise() -> None:
    fix = pd.DataFrame({"observer": ["a", "b"], "x": [1.0, 2.0]})
    ev = with_person_column(fix, PersonColumn.PARTICIPANT)
    assert list(ev.columns) == ["participant", "x"]
    assert ev["participant"].tolist() == ["a", "b"]
    assert list(with_person_column(ev, PersonColumn.OBSERVER).columns) == ["observer", "x"]
    both = fix.assign(participant=["c", "d"])
    assert with_person_column(both, PersonColumn.PARTICIPANT) is both  # never two person columns
    nobody = pd.DataFrame({"x": [1.0]})
    assert with_person_column(nobody, PersonColumn.OBSERVER) is nobody


def test_fixation_tables_say_observer_and_every_other_kind_participant() -> None:
    assert person_column_of("fixations") == "observer"
    assert person_column_of("gaze") == "participant"
    assert person_column_of("features") == "participant"
