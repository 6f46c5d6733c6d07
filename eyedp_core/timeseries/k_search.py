"""The paper's choice of k: minimum mean error over R noisy draws, all candidate k evaluated at once.

docs/PRIVACY_MODEL.md §0.7, §2.6: the search reads the private data and noisy results, so it is a release in
itself; every result is flagged `tuned_on_private_data`. The data-free alternatives live in `timeseries.k`
(`public_k`, `fraction_k`), the explanation of the trade-off in `timeseries.k.expected_error_curve`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.calibration import fpa_scale
from eyedp_core.timeseries.error_curves import standard_noise
from eyedp_core.timeseries.k import (
    _BLOCK_ELEMS,
    _dcfpa_bin_paths,
    _groups,
    _k_index,
    dcfpa_noise_basis,
    parseval_weights,
    prefix_quadratic,
    reconstruction_errors,
)
from eyedp_core.timeseries.sensitivity import dcfpa_kept_ratio
from eyedp_core.timeseries.setting import MechanismSetting

__all__ = ["OptimalK", "optimal_k"]


@dataclass(frozen=True)
class OptimalK:
    """Result of the paper's optimal-k search: chosen k, candidates, mean error per candidate, flags."""

    k: int
    ks: np.ndarray
    mean_error: np.ndarray  # mean over draws of Σ (x̃ − x)², summed over chunks, averaged over series
    per_chunk_k: np.ndarray | None = None  # (C,) argmin per chunk position (the paper picks k per chunk)
    per_chunk_error: np.ndarray | None = None  # (C, len(ks))
    tuned_on_private_data: bool = True
    note: str = field(
        default="optimal k chosen from noisy runs on the private data: the choice leaks and is not "
        "covered by the stated ε (docs/PRIVACY_MODEL.md §0.7, §2.6)"
    )


def _dcfpa_search_errors(
    rows: np.ndarray, lam: np.ndarray, idx: np.ndarray, z_re: np.ndarray, z_im: np.ndarray
) -> np.ndarray:
    """Difference chunks (S, C, n), λ (S, C, K), k indices, noise (R, S, C, nb) in, Σ_R,S,t err² (C, K) out.

    err_k = λN_k + r_k with r_k the cumulated truncation error: ‖r‖² + 2λ⟨u, Φr⟩ + λ²uᵀQu, so no
    (runs × bins × time) tensor is ever formed.
    """
    n, nb = rows.shape[-1], rows.shape[-1] // 2 + 1
    phi = dcfpa_noise_basis(n, nb)
    gram = phi @ phi.T
    u = np.empty(z_re.shape[:-1] + (2 * nb,))
    u[..., 0::2], u[..., 1::2] = z_re, z_im
    mask = (np.arange(2 * nb)[None, :] < 2 * (idx[:, None] + 1)).astype(float)  # (K, 2nb)
    quad = prefix_quadratic(u, gram)[..., 2 * idx + 1]  # (R, S, C, K)
    out = np.zeros((rows.shape[1], idx.size))
    step = max(1, _BLOCK_ELEMS // (rows.shape[1] * nb * n))
    for start in range(0, rows.shape[0], step):  # series blocks bound memory only
        paths = _dcfpa_bin_paths(rows[start : start + step])  # (s, C, nb, n)
        suffix = np.cumsum(paths[..., ::-1, :], axis=-2)[..., ::-1, :]
        # x̂_k − x = −Σ_{j≥k} path_j (zero when every bin is kept).
        resid = -np.concatenate([suffix[..., 1:, :], np.zeros_like(suffix[..., :1, :])], axis=-2)[..., idx, :]
        rr = np.einsum("sckt,sckt->sck", resid, resid)
        proj = (resid @ phi.T) * mask  # (s, C, K, 2nb)
        cross = np.einsum("rsca,scka->rsck", u[:, start : start + step], proj)
        lb = lam[start : start + step]
        err = rr[None] + 2.0 * lb * cross + lb**2 * quad[:, start : start + step]
        out += err.sum(axis=(0, 1))
    return out


def optimal_k(
    x: np.ndarray,
    setting: MechanismSetting,
    *,
    rng: np.random.Generator,
    sensitivity: float | np.ndarray | None = None,
    bounds: tuple | None = None,
    runs: int = 100,
    ks: np.ndarray | None = None,
) -> OptimalK:
    """Series (..., T), the setting (FPA, CFPA or DCFPA, ε per invocation, chunk, DCFPA's increment bound; its k is
    not read), rng in, the paper's k minimising the mean error over `runs` draws out.

    All candidate k share the same draws and are evaluated at once: with Parseval the FPA/CFPA error
    is RE(k) + λ(k)²·(prefix energy of the standard noise); DCFPA uses a fixed noise basis and Gram
    prefix sums. Flagged as tuned on private data.
    """
    method, epsilon = setting.mech, setting.epsilon
    groups, c = _groups(x, method, setting.chunk, sensitivity, bounds, setting.increment_bound)
    nb_max = max(g.n // 2 + 1 for g in groups)
    ks = np.arange(1, nb_max + 1) if ks is None else np.asarray(ks, dtype=int)
    per_chunk = np.zeros((c, ks.size))
    for g in groups:
        n, nb = g.n, g.n // 2 + 1
        s_rows, c_g = g.rows.shape[:2]
        idx = _k_index(ks, n)
        lam = np.asarray(fpa_scale(n, idx + 1, g.d2[..., None], epsilon))  # (S, C_g, K)
        if g.increment_ratio is not None:  # DCFPA under public bounds: the λ actually drawn (§4)
            lam = lam * dcfpa_kept_ratio(n, (idx + 1)[None, None, :], g.increment_ratio[:, :, None])
        # Standard Lap(1) Re/Im draws through dp.noise (Im of DC and Nyquist zero), shared by every k.
        z_re, z_im = standard_noise(rng, (runs, s_rows, c_g, nb), n)
        if method is Mech.DCFPA:
            per_chunk[g.chunk_index] = _dcfpa_search_errors(g.rows, lam, idx, z_re, z_im) / runs / s_rows
        else:
            re = reconstruction_errors(g.rows)[..., idx]  # (S, C_g, K)
            energy = parseval_weights(n) * (z_re**2 + z_im**2) / n
            prefix = np.cumsum(energy, axis=-1)[..., idx].mean(axis=0)  # (S, C_g, K)
            per_chunk[g.chunk_index] = (re + lam**2 * prefix).sum(axis=0) / s_rows
    total_err = per_chunk.sum(axis=0)
    return OptimalK(
        k=int(ks[int(np.argmin(total_err))]),
        ks=ks,
        mean_error=total_err,
        per_chunk_k=ks[np.argmin(per_chunk, axis=1)],
        per_chunk_error=per_chunk,
    )
