"""The Heatmaps page's controls: privacy level, ε, δ, noise, cell size, kernel, caps and screen geometry.

`draw_noise` (with the screen geometry), `draw_grid` and `draw_privacy` draw the rarely changed controls, the map controls
and the level, ε and δ (every widget keyed hm_…; the page runs them in three nested fragments); `read_settings`
reads the values back from the session. Nothing is computed here but the preset values and the kernel width in pixels (a core call)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import streamlit as st

from eyedp_core.data import bundled
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.heatmaps import cap, preview
from eyedp_core.heatmaps.calibration import preset_delta, privacy_level, privacy_presets
from ui import state
from ui.heatmaps import figs
from ui.widgets import badge, fmt_num, log_options, log_slider, snap_to_options

CELLS = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 40, 50, 64, 80, 100]
MECHS = {family.value: label for family, label in figs.MECH_LABEL.items()}
METHODS = {GaussianMethod.ANALYTIC.value: "analytic (exact, any ε)", GaussianMethod.CLASSICAL.value: "classical (ε < 1 only)"}
DEFAULT_C = {"count": 30, "duration": 8.0}
DEFAULT_M = {"count": 1, "duration": 0.5}
DURATION_CAPS = cap.PUBLIC_CAPS["duration"]  # the dwell-time cap slider offers the public candidates
M_KEYS = {"count": "hm_m_count", "duration": "hm_m_duration"}
LEVEL_BADGE = {"good": "dp", "okay": "paper", "poor": "notdp"}  # "custom" -> neutral


@dataclass(frozen=True, kw_only=True)
class Settings:
    """What the controls hold after this run."""

    epsilon: float
    delta: float
    mechanism: Family
    method: GaussianMethod
    seed: int
    cell: int
    degrees: float
    sigma_px: float
    screen: Geometry  # the fixation table's screen, the screen fields applied: σ in px is converted on it
    cap_m: float
    cap_total: float | None

    @property
    def pure(self) -> bool:
        """Laplace noise: pure ε-DP, δ unused."""
        return self.mechanism is Family.LAPLACE


def _clear_preset() -> None:
    """A manual ε or δ move leaves the preset."""
    st.session_state["hm_preset"] = None


@dataclass(frozen=True)
class LogSpec:
    """A log select-slider's range, default, density and exact extra values (drawn and snapped alike)."""

    lo: float
    hi: float
    default: float
    per_decade: int
    extra: tuple[float, ...] = ()

    def snap(self, key: str) -> None:
        """Put the session's value of `key` on the slider's options (log_slider does so when drawn): the
        guarantee, written above the slider, then states the value the slider shows."""
        snap_to_options(key, log_options(self.lo, self.hi, self.per_decade, self.extra))


EPS_SPEC = LogSpec(0.01, 100.0, 1.0, 6, (1.0, 3.0))


def delta_spec(n: int) -> LogSpec:
    """Observers n -> the δ slider's range, with 1/n, the paper's n^-1.5 and the presets' 1/n² on it."""
    return LogSpec(1e-12, 0.5, preset_delta(n), 3, (1.0 / n, n ** -1.5, preset_delta(n)))


def apply_preset(n: int) -> dict:
    """Number of observers -> the presets; a chosen preset sets ε and δ (δ = 1/n² follows n); ε and δ are put on
    their sliders' options (the privacy part reads them before it draws the sliders)."""
    presets = privacy_presets(n)
    st.session_state.setdefault("hm_preset", "okay")
    if st.session_state["hm_preset"] in presets:
        p = presets[st.session_state["hm_preset"]]
        st.session_state["hm_eps"], st.session_state["hm_delta"] = p.epsilon, p.delta
    EPS_SPEC.snap("hm_eps")
    delta_spec(n).snap("hm_delta")
    return presets


def level_line(eps: float, delta_used: float, n: int, pure: bool) -> str:
    """ε, the δ spent, n -> markdown of the level badge with the numbers (and how δ compares with 1/n)."""
    level = privacy_level(eps, delta_used, n)
    below = "" if pure or delta_used <= 0 else f" — {1 / (n * delta_used):,.0f}× below 1/n"
    return (f"Level: {badge(level, LEVEL_BADGE.get(level, 'preview'))} ε = {fmt_num(eps)}, "
            f"δ = {fmt_num(delta_used)}{' (Laplace: pure ε-DP)' if pure else below}, n = {n}")


def draw_privacy(n: int, eps_disabled: bool = False) -> None:
    """Observers n -> the privacy controls: level preset, ε and δ (values: read_settings); the ε slider greyed
    out while a risk target sets ε."""
    presets = apply_preset(n)
    st.segmented_control("Privacy level (after Liu et al. §3.2)", list(presets), key="hm_preset",
                         format_func=lambda k: k.capitalize(),
                         help=" · ".join(f"{v.label}" for v in presets.values()))
    e, d = EPS_SPEC, delta_spec(n)
    log_slider("ε — privacy loss (log scale)", e.lo, e.hi, e.default, "hm_eps", extra=e.extra,
               per_decade=e.per_decade, on_change=_clear_preset, disabled=eps_disabled,
               help="Smaller ε = stronger privacy = more noise.")
    mech_now = st.session_state.get("hm_mech", Family.GAUSSIAN.value)  # its radio is drawn by the `rare` part
    log_slider("δ — failure probability (log scale)", d.lo, d.hi, d.default, "hm_delta", extra=d.extra,
               per_decade=d.per_decade, on_change=_clear_preset, disabled=Family(mech_now) is Family.LAPLACE,
               help=f"δ must be much smaller than 1/n = {fmt_num(1 / n)}: the presets use "
                    f"1/n² = {fmt_num(preset_delta(n))}; the paper's n^-1.5 = "
                    f"{fmt_num(n ** -1.5)} is on the slider for comparison. Not used by "
                    "Laplace noise (pure ε-DP).")


def draw_noise(upload: bool) -> None:
    """Whether the stimulus is an upload -> the noise controls: family, Gaussian calibration and preview seed, and
    the screen geometry (open for an upload); drawn by the `rare` part: an ε move does not re-send them (a change
    of family re-runs the privacy part and so the δ slider, greyed out for Laplace)."""
    a, b, c = st.columns([1, 1.3, 1], gap="medium")
    mech = a.radio("Noise", list(MECHS), format_func=MECHS.get, horizontal=True, key="hm_mech")
    if Family(mech) is Family.GAUSSIAN:
        b.radio("Gaussian calibration", list(METHODS), format_func=METHODS.get, key="hm_method")
    c.number_input("Preview noise seed", 0, 1_000_000, 0, key="hm_seed",
                   help="Previews use seeded numpy noise: the same seed gives the same noise "
                        "pattern at every ε. Exports use fresh OpenDP noise.")
    with st.expander("Screen geometry (converts the kernel width from degrees to pixels)", expanded=upload):
        g0 = bundled.SAMPLE_SCREEN
        g = st.columns(3)
        g[0].number_input("screen width (px)", 100, 20000, g0.width_px, key="hm_wpx")
        g[1].number_input("screen width (cm)", 5.0, 1000.0, float(g0.width_cm), key="hm_wcm")
        g[2].number_input("viewing distance (cm)", 10.0, 1000.0, float(g0.distance_cm), key="hm_dist")
        st.caption("The kernel width in pixels (shown under the heatmaps) assumes the stimulus was shown at "
                   "its own pixel size on this screen.")


def draw_grid(weight: str) -> None:
    """The weighting -> the map sliders: cell size, kernel width and cap m (values: read_settings)."""
    m_key = M_KEYS[weight]
    row = st.container(horizontal=True, gap="medium")  # one block: the three sliders side by side
    row.select_slider("Cell size (px)", CELLS, value=32, key="hm_cell",
                      help="Gaze maps are counted on square cells; coarser cells mean fewer "
                           "cells r and less noise per cell.")
    row.slider("Kernel width σ (degrees of visual angle)", 0.0, 4.0, 1.5, 0.1, key="hm_deg",
               help="Gaussian smoothing after the noise (post-processing). 0 = no smoothing. Its width "
                    "in pixels is given under the heatmaps.")
    st.session_state.setdefault(m_key, DEFAULT_M[weight])  # no value=: buttons may set m
    if weight == "count":
        row.slider("Cap m (fixations per observer per cell)", 1, 20, key=m_key)
    else:
        row.select_slider("Cap m (seconds per observer per cell)", DURATION_CAPS, key=m_key)


def screen(fixations: Any) -> Geometry:
    """A fixation dataset -> the screen its positions are on: the one declared with an upload (Your data), else the
    bundled sample's."""
    return _declared_screen(fixations) or bundled.SAMPLE_SCREEN


def _declared_screen(fixations: Any) -> Geometry | None:
    """A fixation dataset -> the screen declared with it on Your data, or None (a sample, or none declared)."""
    return state.upload_geometry(fixations.name) if fixations.source == "upload" else None


def start_from_screen(fixations: Any) -> None:
    """A fixation dataset -> the screen fields start from its screen once per dataset, so the kernel's width in
    degrees is converted on the screen its positions are on; a value typed in a field overrides it until another
    table is chosen. Until a table with a declared screen is chosen, the fields keep what they hold (the sample's
    screen, or a shared link's values)."""
    ss = st.session_state
    seen = ss.get("hm_geometry_of")
    if seen == fixations.token or (seen is None and _declared_screen(fixations) is None):
        return
    g = screen(fixations)
    ss.update(hm_wpx=int(g.width_px), hm_wcm=float(g.width_cm), hm_dist=float(g.distance_cm),
              hm_geometry_of=fixations.token)


def _screen_fields(g: Geometry) -> Geometry:
    """A screen -> the same screen with the values of the screen fields (width in px and cm, distance in cm)."""
    ss = st.session_state
    return replace(g, width_px=int(ss.get("hm_wpx", g.width_px)),
                   width_mm=float(ss.get("hm_wcm", g.width_cm)) * 10.0,
                   distance_mm=float(ss.get("hm_dist", g.distance_cm)) * 10.0)


def read_settings(n: int, weight: str) -> Settings:
    """Observers n and the weighting -> the values the controls hold (defaults where one was never drawn)."""
    ss = st.session_state
    eps = float(ss.get("hm_eps", 1.0))
    # The widgets (and links) hold the stored names: parsed here, once, for everything downstream.
    mech = Family(ss.get("hm_mech", Family.GAUSSIAN.value))
    method = GaussianMethod.ANALYTIC  # the Gaussian calibration (also used for Gaussian curves when Laplace is shown)
    if mech is Family.GAUSSIAN:
        method = preview.gaussian_method(GaussianMethod(ss.get("hm_method", GaussianMethod.ANALYTIC.value)), eps)
    deg = float(ss.get("hm_deg", 1.5))
    shown_on = _screen_fields(screen(state.current("fixations")))
    sigma_px = shown_on.span_px(deg)[0]
    cap_total = None
    if ss.get("hm_use_c", True):
        cap_total = float(ss.get(f"hm_c_{weight}", DEFAULT_C[weight]))
    return Settings(epsilon=eps, delta=float(ss.get("hm_delta", preset_delta(n))), mechanism=mech, method=method,
                    seed=int(ss.get("hm_seed", 0)), cell=int(ss.get("hm_cell", 32)), degrees=deg, sigma_px=sigma_px,
                    screen=shown_on, cap_m=float(ss.get(M_KEYS[weight], DEFAULT_M[weight])), cap_total=cap_total)


def level_markdown(s: Settings, n: int) -> str:
    """Settings and n -> the level line, plus why the classical calibration was replaced when it was."""
    pure = s.pure
    line = level_line(s.epsilon, preview.delta_spent(s.mechanism, s.delta), n, pure)
    if not pure and GaussianMethod(st.session_state.get("hm_method", GaussianMethod.ANALYTIC.value)) is not s.method:
        line += ("\n\n:material/info: *The classical calibration is proven only for ε < 1; the analytic one is "
                 "used.*")
    return line


def draw_total_cap(weight: str) -> float | None:
    """The 'total cap C' toggle and its input: a whole number of fixations, or seconds (drawn by the `rare` part
    right under the map controls: a slider move does not re-send them; changing them re-runs all parts)."""
    use_c = st.toggle("Cap each observer's total at C", value=True, key="hm_use_c",
                      help="docs/PRIVACY_MODEL.md §6.1: with totals ≤ C the L2 sensitivity is at most √(2mC)/n.")
    if not use_c:
        return None
    help_c = "A public number fixed in advance (e.g. trial length × fixation rate), not read off the data."
    if weight == "count":  # a count of fixations: a whole number, shown without decimals
        return float(st.number_input("Total cap C (fixations per observer)", min_value=1, max_value=1_000_000,
                                     value=DEFAULT_C["count"], step=1, key="hm_c_count", help=help_c, width=260))
    return float(st.number_input("Total cap C (seconds per observer)", min_value=0.01, max_value=1e6,
                                 value=DEFAULT_C["duration"], key="hm_c_duration", help=help_c, width=260))
