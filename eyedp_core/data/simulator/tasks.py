"""Task models of the gaze simulator: where a reader fixates and for how long, per document type.

Text reading is modelled on a character axis: every fixation moves the reading position forward by
a personal saccade length (in characters), sometimes backwards (regression) or far forward
(skimming). The running sum of these moves, cut into lines, columns and pages of the document's
layout, gives line-by-line reading, return sweeps and page turns without a loop over fixations.
Comics are read panel by panel: a short read of the speech bubble and a few fixations on the faces
and scene, then a jump to the next panel. All positions are screen pixels of the simulated screen.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eyedp_core.data.simulator.people import Modulation
from eyedp_core.data.simulator.stimuli import ComicPanel

TASKS = ("textbook", "newspaper", "comic")
KIND_TEXT, KIND_PICTURE = 0, 1


@dataclass(frozen=True)
class TextLayout:
    """Text page: column left edges (px), characters per line, char width and line height (px),
    lines per column, first line y (px), places glanced at besides the text (x, y, sx, sy)."""

    x0: tuple[float, ...]
    chars_per_line: int
    char_w: float
    line_h: float
    lines_per_col: int
    y0: float
    glances: tuple[tuple[float, float, float, float], ...] = ()


_TEXTBOOK_GLANCES = ((1030.0, 290.0, 110.0, 90.0), (490.0, 55.0, 200.0, 12.0))
_NEWS_GLANCES = ((640.0, 100.0, 260.0, 18.0), (1040.0, 195.0, 120.0, 35.0), (400.0, 200.0, 200.0, 12.0))
# Page variants: full-width prose and pages with lists/equations (shorter lines); newspaper pages
# with three narrow columns or two wider ones. {task: (layouts, share of pages)}.
DOCUMENTS: dict[str, tuple[tuple[TextLayout, ...], tuple[float, ...]]] = {
    "textbook": ((TextLayout((120.0,), 74, 10.0, 30.0, 22, 100.0, _TEXTBOOK_GLANCES),
                  TextLayout((120.0,), 52, 10.0, 30.0, 22, 100.0, _TEXTBOOK_GLANCES)), (0.7, 0.3)),
    "newspaper": ((TextLayout((90.0, 470.0, 850.0), 36, 9.5, 25.0, 20, 270.0, _NEWS_GLANCES),
                   TextLayout((90.0, 660.0), 56, 9.5, 25.0, 20, 270.0, _NEWS_GLANCES)), (0.6, 0.4)),
}

# Population-level task effects: log-factor on fixation duration, saccade length, blink rate; pupil
# offset in mm (brighter pages -> smaller pupils); rate (per fixation) and mean length (fixations) of
# excursions from the text to pictures/headlines; skimming multiplier.
TASK_EFFECTS = {
    "textbook": {"fix": 0.06, "len": 0.0, "blink": -0.30, "pupil": -0.10, "glance": 0.006, "run": 6.0,
                 "skim": 0.15},
    "newspaper": {"fix": -0.05, "len": 0.08, "blink": -0.15, "pupil": 0.0, "glance": 0.02, "run": 4.0,
                  "skim": 1.0},
    "comic": {"fix": -0.03, "len": -0.05, "blink": 0.05, "pupil": 0.20, "glance": 0.0, "run": 1.0,
              "skim": 0.3},
}
PICTURE_FIX_LOG = 0.22      # fixations on pictures last longer than on text
MIN_FIX_MS = 70.0           # fixations shorter than this are rare in reading (Rayner 1998)


def _durations(rng: np.random.Generator, n: int, traits: dict, mod: Modulation,
               log_offset: np.ndarray) -> np.ndarray:
    """Count, traits, modulation, per-fixation log offsets -> fixation durations in ms (time-varying)."""
    med = traits["fix_median_ms"] - MIN_FIX_MS
    z = rng.standard_normal(n) * traits["fix_log_sd"]
    base = MIN_FIX_MS + med * np.exp(z + log_offset)
    # First pass gives approximate onset times; the drift of the person's state is read there.
    t_approx = np.cumsum(base + 35.0) / 1000.0
    return MIN_FIX_MS + med * np.exp(z + log_offset + mod.log_factor("fix_median_ms", t_approx))


def _runs_mask(rng: np.random.Generator, n: int, rate: float, mean_len: float) -> np.ndarray:
    """Count, start rate per item, mean run length -> boolean mask of geometric-length runs."""
    start = np.flatnonzero(rng.random(n) < rate)
    end = np.minimum(start + rng.geometric(1.0 / max(mean_len, 1.0), start.size), n)
    d = np.zeros(n + 1, int)
    np.add.at(d, start, 1)
    np.add.at(d, end, -1)
    return np.cumsum(d[:-1]) > 0


def zoom(x: np.ndarray, y: np.ndarray, factor: float,
         centre: tuple[float, float] = (640.0, 400.0)) -> tuple[np.ndarray, np.ndarray]:
    """Positions, zoom factor -> positions of the same content shown larger/smaller about the centre."""
    factor = float(np.clip(factor, 0.85, 1.15))  # beyond this the page no longer fits the screen
    return centre[0] + (x - centre[0]) * factor, centre[1] + (y - centre[1]) * factor


def _text_positions(rng: np.random.Generator, n: int, traits: dict, mod: Modulation, task: str,
                    t_approx: np.ndarray, cpl: int, away: np.ndarray) -> np.ndarray:
    """Count, traits, task, approximate onsets, chars per line, off-text mask -> reading position (chars)."""
    eff = TASK_EFFECTS[task]
    mean_len = traits["sacc_len_chars"] * np.exp(eff["len"] + mod.log_factor("sacc_len_chars", t_approx))
    # Gamma-distributed forward moves (shape 4: few very short moves, long right tail = word skipping).
    step = rng.gamma(4.0, mean_len / 4.0)
    regress_p = np.clip(traits["regress_p"] * np.exp(mod.log_factor("regress_p", t_approx)), 0, 0.5)
    back = rng.random(n) < regress_p
    step = np.where(back, -rng.gamma(2.0, 3.5, n), step)
    skim = rng.random(n) < np.clip(traits["skim_p"] * eff["skim"], 0, 0.5)
    step = step + np.where(skim & ~back, cpl * (1 + rng.geometric(0.55, n)) * rng.uniform(0.8, 1.2, n), 0.0)
    # While the eyes are on a picture the place in the text is kept.
    return np.maximum(np.cumsum(np.where(away, 0.0, step)), 0.0)


def _page_geometry(layouts: tuple[TextLayout, ...], page_kind: np.ndarray) -> dict[str, np.ndarray]:
    """Layouts, layout index of every page -> per-page arrays (chars, cpl, lpc, columns, x0s, ...)."""
    ncol_max = max(len(lay.x0) for lay in layouts)
    x0 = np.array([list(lay.x0) + [lay.x0[-1]] * (ncol_max - len(lay.x0)) for lay in layouts])[page_kind]
    get = {k: np.array([getattr(lay, k) for lay in layouts], float)[page_kind]
           for k in ("chars_per_line", "char_w", "line_h", "lines_per_col", "y0")}
    ncol = np.array([len(lay.x0) for lay in layouts])[page_kind]
    chars = get["chars_per_line"] * get["lines_per_col"] * ncol
    return {**get, "ncol": ncol, "x0": x0, "start": np.r_[0.0, np.cumsum(chars)[:-1]]}


def text_fixations(rng: np.random.Generator, traits: dict, mod: Modulation, task: str, duration_s: float,
                   layouts: tuple[TextLayout, ...], page_p: tuple[float, ...]) -> dict[str, np.ndarray]:
    """Traits, modulation, task, duration, page layouts and their shares -> fixations {x, y, dur_ms, kind}.

    Every page of the document uses one of `layouts` (drawn with probabilities `page_p`), e.g. a
    newspaper page with three narrow or two wider columns."""
    n = int(duration_s / 0.12) + 50
    eff = TASK_EFFECTS[task]
    dur = _durations(rng, n, traits, mod, np.full(n, eff["fix"]))
    t_approx = np.cumsum(dur + 35.0) / 1000.0
    pg = _page_geometry(layouts, rng.choice(len(layouts), size=64, p=page_p))
    glances = layouts[0].glances
    away = np.zeros(n, bool)
    if glances:
        away = _runs_mask(rng, n, eff["glance"] * traits["picture_interest"], eff["run"])
    cpl_mean = float(np.mean([lay.chars_per_line for lay in layouts]))
    s = _text_positions(rng, n, traits, mod, task, t_approx, cpl_mean, away)
    page = np.minimum(np.searchsorted(pg["start"], s, side="right") - 1, pg["start"].size - 1)
    cpl = pg["chars_per_line"][page]
    rel = s - pg["start"][page]
    line = np.floor(rel / cpl)
    line_id = page * 10000 + line
    # Return sweeps often undershoot: an extra short fixation a few characters in, then a small
    # corrective saccade to the left (Hofmeister et al. 1999).
    new_line = np.r_[False, line_id[1:] > line_id[:-1]]
    undershoot = new_line & (rng.random(n) < 0.4)
    idx = np.repeat(np.arange(n), np.where(undershoot, 2, 1))
    first_copy = undershoot[idx] & np.r_[True, idx[1:] != idx[:-1]]
    rel, line, page, cpl, dur = rel[idx], line[idx], page[idx], cpl[idx], dur[idx]
    away = away[idx] & ~first_copy
    col_char = rel - line * cpl
    col_char = np.where(first_copy, col_char + rng.uniform(4, 9, col_char.size), col_char)
    dur = np.where(first_copy, MIN_FIX_MS + 0.45 * (dur - MIN_FIX_MS), dur)
    # Readers rarely fixate the first and last few letters of a line.
    char = 3.0 + np.clip(col_char, 0, cpl) * (cpl - 9.0) / cpl + rng.normal(0, 0.7, col_char.size)
    lpc = pg["lines_per_col"][page]
    col = np.minimum(line // lpc, pg["ncol"][page] - 1).astype(int)
    row = line - col * lpc
    x = pg["x0"][page, col] + char * pg["char_w"][page]
    row_pos = row + 0.5 + traits["vertical_bias"] + rng.normal(0, 0.12, row.size)
    y = pg["y0"][page] + row_pos * pg["line_h"][page]
    kind = np.full(x.size, KIND_TEXT)
    page_turn = np.r_[False, page[1:] > page[:-1]]
    dur = np.where(page_turn, dur + rng.uniform(150, 500, dur.size), dur)
    if glances:
        # One target per excursion (its first fixation picks it), scanned with picture-like scatter.
        run_id = np.cumsum(np.r_[away[:1], away[1:] & ~away[:-1]])
        pick = rng.integers(0, len(glances), run_id.max() + 1)
        g = np.asarray(glances)[pick[run_id]]
        x = np.where(away, g[:, 0] + rng.normal(0, 0.8, x.size) * g[:, 2], x)
        y = np.where(away, g[:, 1] + rng.normal(0, 0.8, x.size) * g[:, 3], y)
        dur = np.where(away, MIN_FIX_MS + (dur - MIN_FIX_MS) * np.exp(PICTURE_FIX_LOG), dur)
        kind = np.where(away, KIND_PICTURE, kind)
    x, y = zoom(x, y, traits["zoom"])
    return {"x": x, "y": y, "dur_ms": dur, "kind": kind}


def _segment_cumsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Values, boolean segment-start mask -> cumulative sum restarting at every segment start."""
    c = np.cumsum(values)
    seg = np.cumsum(starts) - 1
    offsets = (c - values)[np.flatnonzero(starts)]
    return c - offsets[seg]


def comic_fixations(rng: np.random.Generator, traits: dict, mod: Modulation, duration_s: float,
                    panels: list[ComicPanel]) -> dict[str, np.ndarray]:
    """Reader traits, modulation, duration, comic layout -> fixations {x, y, dur_ms, kind}."""
    n_visits = int(duration_s / 1.0) + 10
    # Mostly the next panel; sometimes a look back to the previous one.
    steps = np.where(rng.random(n_visits) < 0.08, -1, 1)
    steps[0] = 0
    p_idx = np.maximum(np.cumsum(steps), 0) % len(panels)
    n_lines = np.array([p.n_lines for p in panels])[p_idx]
    chars = n_lines * 20.0
    n_text = 1 + rng.poisson(chars / (traits["sacc_len_chars"] * 0.85))
    n_text = np.where(steps < 0, rng.integers(0, 2, n_visits), n_text)
    n_pic = rng.poisson(3.0 * traits["picture_interest"], n_visits) + (rng.random(n_visits) < 0.4)
    pre = (rng.random(n_visits) < 0.45) & (n_pic > 0)
    # Order inside a visit: optional picture glance, bubble text, then the remaining picture fixations.
    phase_counts = np.stack([pre.astype(int), n_text, n_pic - pre], axis=1).ravel()
    phase = np.repeat(np.tile(np.array([KIND_PICTURE, KIND_TEXT, KIND_PICTURE]), n_visits), phase_counts)
    visit = np.repeat(np.repeat(np.arange(n_visits), 3), phase_counts)
    n = visit.size
    is_text = phase == KIND_TEXT
    visit_start = np.r_[True, visit[1:] != visit[:-1]]
    text_start = is_text & np.r_[True, ~is_text[:-1] | visit_start[1:]]
    step = np.where(is_text, rng.gamma(4.0, traits["sacc_len_chars"] * 0.85 / 4.0, n), 0.0)
    s = _segment_cumsum(step, text_start) - step * text_start
    cpl = 20.0
    line = np.minimum(np.floor(s / cpl), n_lines[visit] - 1)
    char = np.clip(s - line * cpl, 0, cpl)
    pv = p_idx[visit]
    bub = np.array([p.bubble for p in panels])[pv]
    bw = bub[:, 2] - bub[:, 0]
    lh = (bub[:, 3] - bub[:, 1] - 24) / n_lines[visit]
    tx = bub[:, 0] + bw * 0.15 + char / cpl * bw * 0.7 + rng.normal(0, 4, n)
    ty = bub[:, 1] + 12 + (line + 0.5 + 0.5 * traits["vertical_bias"]) * lh + rng.normal(0, 3, n)
    # Picture fixations: faces attract most, then the scene, then anywhere in the panel.
    faces = [np.array(p.faces) for p in panels]
    nf = np.array([f.shape[0] for f in faces])[pv]
    face_tab = np.array([[f[0], f[-1]] for f in faces])  # (panel, 2 faces, xy); one-face panels repeat it
    which = rng.integers(0, 2, n) * (nf > 1)
    fxy = face_tab[pv, which]
    box = np.array([p.box for p in panels])[pv]
    u = rng.random(n)
    px = np.where(u < 0.65, fxy[:, 0] + rng.normal(0, 24, n),
                  np.where(u < 0.85, (box[:, 0] + box[:, 2]) / 2 + rng.normal(0, 70, n),
                           rng.uniform(box[:, 0] + 20, box[:, 2] - 20)))
    py = np.where(u < 0.65, fxy[:, 1] + rng.normal(0, 24, n),
                  np.where(u < 0.85, box[:, 1] + 260 + rng.normal(0, 35, n),
                           rng.uniform(box[:, 1] + 20, box[:, 3] - 20)))
    log_off = TASK_EFFECTS["comic"]["fix"] + np.where(is_text, 0.0, PICTURE_FIX_LOG)
    dur = _durations(rng, n, traits, mod, log_off)
    x, y = zoom(np.where(is_text, tx, px), np.where(is_text, ty, py), traits["zoom"])
    return {"x": x, "y": y, "dur_ms": dur, "kind": phase}
