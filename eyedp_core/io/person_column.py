"""The column that names a person, and the one place a table's person column changes name.

Fixation tables (heatmaps, AOI metrics, the batch shards of the README's input format) name it `observer`; gaze
samples, event tables and feature tables name it `participant`. Both names stay: the observer name is part of
the documented batch input and of 40-odd core and UI modules and 60-odd tests, and each name reads as the
neighbouring unit the ledger charges for that data (observers for heatmaps/AOI, participants for features and
time series). Code that moves a table from one side to the other calls `with_person_column`, nothing else
renames the column.
"""
from __future__ import annotations

from enum import StrEnum

import pandas as pd

__all__ = ["PersonColumn", "person_column_of", "with_person_column"]


class PersonColumn(StrEnum):
    """Name of the person column: OBSERVER in fixation tables, PARTICIPANT in samples, events and features."""

    OBSERVER = "observer"
    PARTICIPANT = "participant"


def person_column_of(kind: str) -> PersonColumn:
    """Recording kind ("fixations", "gaze", "features") -> the name its person column has."""
    return PersonColumn.OBSERVER if kind == "fixations" else PersonColumn.PARTICIPANT


def with_person_column(table: pd.DataFrame, to: PersonColumn) -> pd.DataFrame:
    """Table -> the same table with its person column named `to` (unchanged when it already has a column `to`
    or names no person)."""
    other = PersonColumn.PARTICIPANT if to is PersonColumn.OBSERVER else PersonColumn.OBSERVER
    if other.value in table.columns and to.value not in table.columns:
        return table.rename(columns={other.value: to.value})
    return table
