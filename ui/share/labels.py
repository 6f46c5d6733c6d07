"""Each setting's name in words: the label its control shows, read from the pages' source (for the report, which
names settings as the user saw them, never by their widget key)."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

__all__ = ["setting_labels"]

ROOT = Path(__file__).resolve().parents[2]
OVERRIDES = {"hm_m_count": "Cap m per observer and cell (fixations)",
             "hm_m_duration": "Cap m per observer and cell (seconds of dwell time)",
             "ts_length_from_data": "Length T read off the data", "share_open": "Share box open",
             "ts_eps": "ε", "ts_k": "k (Fourier coefficients kept)", "ts_k_search": "k from the paper's search",
             "ts_corr_lag": "Largest lag", "hm_k_stimuli": "Stimuli released from these observers",
             "hm_sel_bound_count": "Public upper bound B on any observer's value in one cell (fixations)",
             "hm_sel_bound_duration": "Public upper bound B on any observer's value in one cell (seconds)",
             "hm_calc_delta": "δ (noise calculator)", "hm_plan_delta": "δ (planning)",
             "sel_features": "Feature windows in use", "sel_fixations": "Fixations in use",
             "sel_gaze": "Gaze streams in use"}


def _label_of(call: ast.Call) -> tuple[str, str] | None:
    """A widget call -> (key, label) when both are literal strings (key as keyword or as a later positional)."""
    strings = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    kw = {k.arg: k.value for k in call.keywords}
    key = kw.get("key")
    label = kw.get("label")
    key_s = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    label_s = label.value if isinstance(label, ast.Constant) and isinstance(label.value, str) else None
    if key_s is None and len(strings) >= 2 and "_" in strings[-1] and " " not in strings[-1]:
        key_s = strings[-1]  # helpers such as log_slider("ε", lo, hi, default, "hm_eps")
    if label_s is None and strings and strings[0] != key_s:
        label_s = strings[0]
    return (key_s, label_s) if key_s and label_s else None


@functools.cache
def setting_labels() -> dict[str, str]:
    """Setting key -> the label of its control (from the source of pages/ and ui/)."""
    out: dict[str, str] = {}
    for path in sorted([*ROOT.joinpath("pages").glob("*.py"), *ROOT.joinpath("ui").rglob("*.py")]):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (got := _label_of(node)):
                out.setdefault(*got)
    out.update(OVERRIDES)
    return out
