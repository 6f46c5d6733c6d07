"""Tables as the pages show them: the first rows of any frame, made safe for st.dataframe (Arrow) and short."""
from __future__ import annotations

import pandas as pd

# A preview cell longer than this is cut: the preview is for recognising columns, not for reading cells.
MAX_CELL_CHARS = 200


def _cell(value: object) -> object:
    """A cell of a column Arrow may not convert -> its text (cut), missing cells left missing."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    text = str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def preview_frame(df: pd.DataFrame, rows: int) -> pd.DataFrame:
    """A table -> a copy of its first rows st.dataframe can always draw: every column that is not numbers,
    booleans or dates becomes text (a Python integer wider than 64 bits, or mixed objects, would stop Arrow),
    long texts are cut."""
    head = df.head(rows).copy()
    # The reader's notes are shown as messages, not sent along with the preview; dropped first, because pandas
    # copies attrs into every column it hands out and they grow with a wide table's columns.
    head.attrs = {}
    kept = (pd.api.types.is_numeric_dtype, pd.api.types.is_bool_dtype, pd.api.types.is_datetime64_any_dtype)
    # Built column by column and joined once: setting columns of a wide frame one at a time costs its width each.
    columns = [s if any(k(s.dtype) for k in kept) else s.map(_cell).astype(object)
               for s in (head.iloc[:, i] for i in range(head.shape[1]))]
    out = pd.concat(columns, axis=1) if columns else head
    out.columns = [str(c) for c in head.columns]
    out.attrs = {}
    return out
