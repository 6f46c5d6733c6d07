"""What one participant contributes to a table, counted from the table's structure (docs/PRIVACY_MODEL.md §14).

Every per-person guarantee composes over a person's recordings, so the count must come from the rows that are
there, not from a list of tasks: a table made from fixations has no task column but can hold several recordings
per person (stimuli, sessions, trials). A *recording* is one distinct (participant, task, session, recording,
stimulus, trial) group among the columns the table has; a row whose split column is empty counts as a recording
of its own (never fewer recordings than are there).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

__all__ = ["RECORDING_SPLITS", "Contributions", "contributions"]

# Columns that split one participant's rows into recordings, in key order: the one definition (events, features,
# gaze streams, feature windows, time-series tensors and attack tables derive their groupings from it).
RECORDING_SPLITS: tuple[str, ...] = ("task", "session", "recording", "stimulus", "trial")


@dataclass(frozen=True)
class Contributions:
    """Recordings per participant (index: participant as text) and the columns that split them."""

    keys: tuple[str, ...]
    per_participant: pd.Series

    @property
    def max_recordings(self) -> int:
        """-> the most recordings any one participant has (at least 1): the m of every per-person bound."""
        return max(1, int(self.per_participant.max())) if len(self.per_participant) else 1

    @property
    def n_participants(self) -> int:
        """-> the number of distinct participants."""
        return int(len(self.per_participant))

    @property
    def n_recordings(self) -> int:
        """-> the number of recordings in the whole table."""
        return int(self.per_participant.sum())

    def words(self) -> str:
        """-> what a recording is here, e.g. 'distinct (participant, session, recording) groups'."""
        return f"distinct ({', '.join(('participant', *self.keys))}) groups"


def contributions(table: pd.DataFrame, participant: str = "participant",
                  splits: Sequence[str] = RECORDING_SPLITS) -> Contributions:
    """Table with a participant column -> recordings per participant, counted as the distinct groups of the
    participant and whichever `splits` columns the table has; ValueError without the participant column."""
    if participant not in table.columns:
        raise ValueError(f"the table has no {participant!r} column, so what a person contributes cannot be counted")
    keys = tuple(c for c in splits if c in table.columns and c != participant)
    rows = table[table[participant].notna()]
    who = rows[participant].astype(str)
    if not keys:
        counts = pd.Series(1, index=pd.Index(sorted(who.unique()), name=participant), dtype=int)
        return Contributions((), counts)
    # Empty split cells are kept as a group of their own (dropna=False): a count never falls below the truth.
    groups = rows[list(keys)].astype(object).where(rows[list(keys)].notna(), "\0missing")
    distinct = pd.concat([who.rename(participant), groups.astype(str)], axis=1).drop_duplicates()
    counts = distinct.groupby(participant, sort=True).size().astype(int)
    return Contributions(keys, counts)
