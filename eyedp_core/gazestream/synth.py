"""k-same-synth (David-John et al.): k-anonymous event parameters, then synthetic samples from them.

docs/PRIVACY_MODEL.md §9.2. Guarantee: **each released event-parameter vector is shared by at least k
identities**, so matching a released vector to its owner succeeds with probability <= 1/k. NOT
differential privacy: the output is a deterministic function of the cluster members (an attacker who
knows k − 1 of them recovers the last exactly, k·mean − Σ others), and who clusters with whom depends
on everyone's data.

Our rules, which the seed leaves open:

* **Alignment.** Per stimulus (the `stimulus` column, else `task`, `recording`, `trial`; else the
  whole table), each identity's fixations and saccades are numbered in time order; event e of every
  identity is aligned with event e of every other, cut to the common count E (E fixations, E − 1
  saccades, so that saccade e leads from fixation e to fixation e + 1). Later events are dropped;
  blinks and undetected samples are not synthesised.
* **Clustering ("k-same-select").** Per stimulus, event type and aligned index, parameter vectors are
  standardised with public scales (screen size, one degree of visual angle, fixed time units, never
  data), then grouped: the unassigned identity farthest from the unassigned ones' centroid plus its
  k − 1 nearest unassigned neighbours form a cluster, until fewer than k remain; those join the
  cluster with the nearest mean. Every member's vector is replaced by its cluster's mean.
* **Synthesis.** Fixation e: round(duration·rate) samples from the 2-D normal N((μx, μy), diag(σx², σy²)).
  Saccade e: round(duration·rate) samples along the straight line from fixation e's centre to fixation
  e + 1's, progressing as the integral of the Gaussian velocity profile (b, c) (`events.saccade_progress`);
  its amplitude is therefore the distance between the two (anonymised) centres, and a is released with
  the parameters but not used to draw samples.

Randomness: a numpy Generator the caller passes (preview; docs/PRIVACY_MODEL.md §11).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.gaze.events import SAMPLE_SCREEN
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.events import FIXATION_PARAMS, SACCADE_PARAMS, EventParams, event_params, saccade_progress
from eyedp_core.gazestream.streams import selection_column

__all__ = ["SynthResult", "k_same_clusters", "k_same_synth", "public_scales", "synthesise"]


def public_scales(geometry: Geometry) -> dict[str, np.ndarray]:
    """Screen geometry -> standardisation scales per event type, from public quantities only."""
    dx, dy = geometry.deg_per_px()
    px_per_deg = 1.0 / max(dx, dy)
    return {
        # μx, μy over the screen; σx, σy in degrees; duration in units of 100 ms.
        "fixation": np.array([geometry.width_px, geometry.height_px, px_per_deg, px_per_deg, 0.1]),
        # peak velocity in 100 deg/s; b, c and duration in units of 10 ms.
        "saccade": np.array([100.0, 0.01, 0.01, 0.01]),
    }


def k_same_clusters(z: np.ndarray, k: int) -> np.ndarray:
    """Standardised vectors (E, N, D) -> cluster number (E, N) per aligned event; every cluster has >= k members.

    Vectorised over the E aligned events; the loop runs over the N // k clusters."""
    e_count, n, _ = z.shape
    if n < k:
        raise ValueError(f"k-same needs at least k = {k} identities, got {n}")
    labels = np.full((e_count, n), -1, np.intp)
    rows = np.arange(e_count)
    d2 = ((z[:, :, None, :] - z[:, None, :, :]) ** 2).sum(-1)  # (E, N, N)
    n_clusters = n // k
    for c in range(n_clusters):
        free = labels < 0
        cnt = free.sum(1, keepdims=True)
        centroid = (z * free[..., None]).sum(1) / cnt
        far = ((z - centroid[:, None, :]) ** 2).sum(-1)
        far[~free] = -np.inf
        seed = far.argmax(1)
        d = d2[rows, seed].copy()
        d[~free] = np.inf
        d[rows, seed] = -1.0  # the seed itself first, even when another vector is identical to it
        members = np.argsort(d, axis=1, kind="stable")[:, :k]
        labels[rows[:, None], members] = c
    left = labels < 0
    if left.any():
        onehot = (labels[..., None] == np.arange(n_clusters)).astype(float)  # (E, N, C)
        means = np.einsum("enc,end->ecd", onehot, z) / onehot.sum(1)[..., None]
        dist = ((z[:, :, None, :] - means[:, None, :, :]) ** 2).sum(-1)  # (E, N, C)
        labels = np.where(left, dist.argmin(2), labels)
    return labels


def _cluster_means(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Raw vectors (E, N, D) and cluster labels (E, N) -> every member's cluster mean (E, N, D)."""
    n_c = int(labels.max()) + 1
    onehot = (labels[..., None] == np.arange(n_c)).astype(float)
    means = np.einsum("enc,end->ecd", onehot, values) / onehot.sum(1)[..., None]
    return np.take_along_axis(means, labels[..., None], axis=1)


def synthesise(fix: np.ndarray, sac: np.ndarray, rate_hz: np.ndarray, t0: np.ndarray,
               rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Parameters per identity -> synthetic samples, all identities at once.

    fix: (N, E, 5) = μx, μy, σx, σy, duration (s); sac: (N, E − 1, 4) = a, b, c, duration (s); rate_hz and t0:
    (N,). Returns flat arrays (identity, t_s, x, y, is_saccade, event_index)."""
    n_id, e_count, _ = fix.shape
    rate = np.asarray(rate_hz, float)[:, None]
    nf = np.maximum(1, np.rint(fix[..., 4] * rate)).astype(np.intp)  # (N, E)
    ns = np.maximum(1, np.rint(sac[..., 3] * rate)).astype(np.intp) if e_count > 1 else np.zeros((n_id, 0), np.intp)
    counts = np.zeros((n_id, 2 * e_count - 1), np.intp)
    counts[:, 0::2] = nf
    counts[:, 1::2] = ns
    flat = counts.ravel()
    total = int(flat.sum())
    ev_id = np.repeat(np.arange(flat.size), flat)  # which (identity, slot) each sample belongs to
    ident = ev_id // counts.shape[1]
    slot = ev_id % counts.shape[1]
    starts = np.r_[0, np.cumsum(flat)[:-1]]
    j = np.arange(total) - starts[ev_id]  # sample number inside its event
    per_id = counts.sum(1)
    first = np.r_[0, np.cumsum(per_id)[:-1]]
    k_in_id = np.arange(total) - first[ident]
    t = np.asarray(t0, float)[ident] + k_in_id / rate[ident, 0]
    is_sac = slot % 2 == 1
    e = slot // 2
    x = np.empty(total)
    y = np.empty(total)
    fi = ~is_sac
    z = rng.standard_normal((int(fi.sum()), 2))
    fp = fix[ident[fi], e[fi]]
    x[fi] = fp[:, 0] + fp[:, 2] * z[:, 0]
    y[fi] = fp[:, 1] + fp[:, 3] * z[:, 1]
    if is_sac.any():
        si = is_sac
        sp = sac[ident[si], e[si]]
        a_c = fix[ident[si], e[si]]
        b_c = fix[ident[si], e[si] + 1]
        tau = (j[si] + 0.5) / rate[ident[si], 0]
        prog = saccade_progress(tau, sp[:, 1], np.maximum(sp[:, 2], 1e-4), np.maximum(sp[:, 3], 1e-4))
        x[si] = a_c[:, 0] + prog * (b_c[:, 0] - a_c[:, 0])
        y[si] = a_c[:, 1] + prog * (b_c[:, 1] - a_c[:, 1])
    return ident, t, x, y, is_sac, e


@dataclass(frozen=True)
class SynthResult:
    """k-same-synth output: synthetic samples, the released parameters, what was left out and why."""

    samples: pd.DataFrame
    params: pd.DataFrame
    k: int
    notes: tuple[str, ...]
    events: EventParams


def _aligned(ep_table: pd.DataFrame, who: list[str], cols: tuple[str, ...], count: int) -> np.ndarray:
    """Event table of one stimulus -> (count, N, D) parameters of the first `count` events of each identity."""
    ordered = ep_table.sort_values(["participant", "t_start_s"], kind="stable")
    rank = ordered.groupby("participant", sort=False).cumcount().to_numpy()
    col = pd.Index(who).get_indexer(ordered["participant"])
    keep = (rank < count) & (col >= 0)
    out = np.full((count, len(who), len(cols)), np.nan)
    out[rank[keep], col[keep], :] = ordered[list(cols)].to_numpy(float)[keep]
    return out


def _published(fm: pd.DataFrame, sm: pd.DataFrame, who: list[str], count: int, k: int,
               scales: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One stimulus' fixations and saccades of the identities `who`, aligned to `count` fixations -> the released
    fixation and saccade parameters (E, N, d) (each the mean of a cluster of >= k) and the cluster labels."""
    f_raw = _aligned(fm, who, FIXATION_PARAMS, count)  # (E, N, 5)
    f_pub = _cluster_means(f_raw, f_lab := k_same_clusters(f_raw / scales["fixation"], k))
    if count > 1:
        s_raw = _aligned(sm, who, SACCADE_PARAMS, count - 1)
        s_pub = _cluster_means(s_raw, s_lab := k_same_clusters(s_raw / scales["saccade"], k))
    else:
        s_raw = np.zeros((0, len(who), 4))
        s_pub, s_lab = s_raw, np.zeros((0, len(who)), np.intp)
    return f_pub, f_lab, s_pub, s_lab


def _param_table(kind: str, pub: np.ndarray, lab: np.ndarray, cols: tuple[str, ...], who: list[str],
                 selection: tuple[str, object] | None) -> pd.DataFrame:
    """Released parameters (E, N, d) of one event kind -> one row per identity and event (with its cluster and,
    if the samples are split by stimulus or task, that column)."""
    ee, ii = np.meshgrid(np.arange(pub.shape[0]), np.arange(len(who)), indexing="ij")
    table = pd.DataFrame({"participant": np.asarray(who, dtype=object)[ii.ravel()], "type": kind,
                          "index": ee.ravel(), "cluster": lab.ravel()})
    for d, col in enumerate(cols):
        table[col] = pub[:, :, d].ravel()
    if selection is not None:
        table.insert(1, *selection)
    return table


def k_same_synth(samples: pd.DataFrame, k: int, rng: np.random.Generator, *,
                 geometry: Geometry = SAMPLE_SCREEN, method: str = "ivt", threshold: float | None = None,
                 events: EventParams | None = None) -> SynthResult:
    """Raw samples (participant, [stimulus|task], t_s, x, y), k and a Generator -> SynthResult.

    Each released fixation/saccade parameter vector is shared by >= k identities (per stimulus and aligned
    event); samples are synthesised from them. ValueError when no stimulus has k identities with events.
    `events` reuses parameters already computed with `event_params` on the same samples."""
    if int(k) != k or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    k = int(k)
    if not isinstance(rng, np.random.Generator):
        raise TypeError("k-same-synth previews need a numpy.random.Generator")
    if "participant" not in samples.columns:
        raise ValueError("k-same-synth groups identities: the samples need a participant column")
    ep = events if events is not None else event_params(samples, geometry, method=method, threshold=threshold)
    sel = selection_column(samples)
    scales = public_scales(geometry)
    notes: list[str] = []
    parts, params = [], []
    fix_all, sac_all = ep.fixations, ep.saccades
    classes = [None] if sel is None else sorted(samples[sel].dropna().unique(), key=str)
    for m in classes:
        fm = fix_all if m is None else fix_all[fix_all[sel] == m]
        sm = sac_all if m is None else sac_all[sac_all[sel] == m]
        smp = samples if m is None else samples[samples[sel] == m]
        who = sorted(set(fm["participant"]) & set(sm["participant"]))
        label = "the recording" if m is None else f"{sel} {m}"
        if len(who) < k:
            notes.append(f"{label}: only {len(who)} identit{'y' if len(who) == 1 else 'ies'} with fixations and "
                         f"saccades, fewer than k = {k}; left out.")
            continue
        nf = fm.groupby("participant").size().reindex(who)
        ns = sm.groupby("participant").size().reindex(who)
        count = int(min(nf.min(), ns.min() + 1))
        dropped = int((nf - count).sum() + (ns - max(count - 1, 0)).sum())
        if dropped:
            notes.append(f"{label}: events aligned by their order, cut to the common {count} fixations and "
                         f"{count - 1} saccades per identity; {dropped} later events dropped.")
        f_pub, f_lab, s_pub, s_lab = _published(fm, sm, who, count, k, scales)
        t_first = smp.groupby("participant")["t_s"].min().reindex(who).to_numpy()
        dts = smp.groupby("participant")["t_s"].apply(lambda s: float(np.median(np.diff(s.to_numpy()))))
        rate = 1.0 / dts.reindex(who).to_numpy()
        ident, t, x, y, is_sac, e = synthesise(np.transpose(f_pub, (1, 0, 2)), np.transpose(s_pub, (1, 0, 2)),
                                               rate, t_first, rng)
        frame = pd.DataFrame({"participant": np.asarray(who, dtype=object)[ident], "t_s": t, "x": x, "y": y,
                              "event": np.where(is_sac, "saccade", "fixation"), "event_index": e})
        if sel is not None:
            frame.insert(1, sel, m)
        parts.append(frame)
        for kind, pub, lab, cols in (("fixation", f_pub, f_lab, FIXATION_PARAMS), ("saccade", s_pub, s_lab, SACCADE_PARAMS)):
            if pub.shape[0] > 0:
                params.append(_param_table(kind, pub, lab, cols, who, None if sel is None else (sel, m)))
    if not parts:
        raise ValueError("k-same-synth found no stimulus with at least k identities that have fixations and "
                         f"saccades (k = {k}). " + " ".join(notes))
    out = pd.concat(parts, ignore_index=True)
    return SynthResult(out, pd.concat(params, ignore_index=True), k, tuple(notes), ep)
