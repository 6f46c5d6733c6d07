"""Gaze-samples view: privacy methods for raw gaze streams after David-John et al. (docs/PRIVACY_MODEL.md §8, §9).

    from eyedp_core import gazestream
    table, scheme = gazestream.k_anonymize(demographics, k=4)       # k-anonymity (NOT DP)
    synth = gazestream.k_same_synth(stream_table, 3, rng)           # k-same-synth (NOT DP)
    plan = gazestream.kaleido_plan(epsilon=1, w=60, l_thresh=40, t_skip=6, r=50, h=2)  # Kaleido (w-event DP)
    out, eps = gazestream.kaleido(stream, plan, rng)

Modules: `streams` (input checks with plain messages), `events` (event parameters, saccade velocity-profile
fits), `kanon`, `synth`, `deniability` (event-synth-PD), `kaleido` (on the planar Laplace of
`eyedp_core.dp.planar`), `evaluate` (utility and privacy figures), `explain` (the guarantees in words), `display`
(the page's event computations). All randomness is preview noise from a caller-supplied numpy Generator
(docs/PRIVACY_MODEL.md §11).
"""
from eyedp_core.gazestream.deniability import PDResult, event_synth_pd  # noqa: F401
from eyedp_core.gazestream.evaluate import Figures, evaluate, utility_privacy_table  # noqa: F401
from eyedp_core.gazestream.events import EventParams, event_params, fit_velocity_profiles, gaussian_profile  # noqa: F401
from eyedp_core.gazestream.kaleido import KaleidoPlan, KaleidoRun, kaleido, kaleido_plan, kaleido_run, window_sums  # noqa: F401
from eyedp_core.gazestream.kanon import (  # noqa: F401
                                         SEED_DEMOGRAPHICS,
                                         SEED_TABLE2,
                                         Scheme,
                                         compare_with_seed,
                                         intersection_attack,
                                         k_anonymize,
)
from eyedp_core.gazestream.streams import PreparedStreams, StreamError, prepare_streams  # noqa: F401
from eyedp_core.gazestream.synth import SynthResult, k_same_synth  # noqa: F401

# Planar Laplace lives in eyedp_core.dp.planar: the names here are only what this package imports.
__all__ = ["EventParams", "Figures", "KaleidoPlan", "KaleidoRun", "PDResult", "PreparedStreams", "SEED_DEMOGRAPHICS", "SEED_TABLE2", "Scheme", "StreamError", "SynthResult",
           "compare_with_seed", "evaluate", "event_params", "event_synth_pd", "fit_velocity_profiles",
           "gaussian_profile", "intersection_attack", "k_anonymize", "k_same_synth", "kaleido", "kaleido_plan",
           "kaleido_run", "prepare_streams", "utility_privacy_table", "window_sums"]
