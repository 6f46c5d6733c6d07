"""What each gaze-samples method guarantees, in plain words with the current numbers plugged in.

docs/PRIVACY_MODEL.md §8 (Kaleido: ε per w-sample window within radius r, never a participant-level ε)
and §9 (k-anonymity, k-same-synth, plausible deniability as published: not differential privacy).
The page shows these texts first; the formulas go behind an expander.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from eyedp_core.dp.planar import radius_quantile
from eyedp_core.dp.registry import Mech
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.deniability import pd_guarantee
from eyedp_core.gazestream.kaleido import KaleidoPlan, person_bound

__all__ = ["Guarantee", "kaleido_guarantee", "kanon_guarantee", "pd_guarantee_words", "synth_guarantee", "NOT_DP"]

NOT_DP = "NOT differential privacy"
DELTA_MAX = 0.01  # largest δ quoted for the randomised PD form


@dataclass(frozen=True)
class Guarantee:
    """One method's promise: registry member, one-line headline, verdict badge, plain words, formulas (LaTeX)."""

    mech: Mech
    headline: str
    verdict: str  # "w-event" | "not-dp" | "record"
    badge: str
    words: str
    formulas: tuple[str, ...] = ()


def _g(v: float) -> str:
    return f"{v:.3g}"


def kaleido_guarantee(plan: KaleidoPlan, rate_hz: float, n_samples: int, geometry: Geometry,
                      stream_lengths: tuple[int, ...] | None = None) -> Guarantee:
    """Kaleido plan, sampling rate, recording length (samples), geometry and, if known, the lengths of every
    stream of the shown person (each restarts the window) -> its guarantee in words."""
    ms = plan.w / rate_hz * 1000 if rate_hz > 0 else float("nan")
    r_deg = plan.r * max(geometry.deg_per_px())
    bound = person_bound(epsilon=plan.epsilon, w=plan.w, r=plan.r, n_max=n_samples, stream_lengths=stream_lengths,
                         screen_px=(geometry.width_px, geometry.height_px))
    streams = len(bound.lengths)
    whose = (f"this {bound.n_max:,}-sample recording is ε·⌈n/w⌉·d_max/r" if streams == 1 else
             f"this person's {streams} streams ({bound.n_max:,} samples; each stream restarts the window) is "
             f"ε·⌈n/w⌉·d_max/r summed over the streams, ε·Σ_s⌈n_s/w⌉·d_max/r")
    first = plan.schedule(1)
    eps1 = first[0] / plan.r if first else float("nan")
    headline = (f"ε = {_g(plan.epsilon)} per {plan.w}-sample window (≈ {ms:.0f} ms at {rate_hz:.0f} Hz), "
                f"radius r = {_g(plan.r)} px (≈ {r_deg:.2f}°)")
    words = (
        f"Within any {plan.w} consecutive samples, moving the gaze by up to {_g(plan.r)} px at any of them changes "
        f"the probability of every possible output by at most a factor e^ε = {_g(math.exp(plan.epsilon))}. "
        f"Larger moves cost more: a move of d px counts as ε·d/r. "
        f"This is a guarantee **per window, not per person**: it says nothing about what the whole recording "
        f"reveals. A different person's gaze may be anywhere on the screen, so the only person-level bound for "
        f"{whose} = {_g(plan.epsilon)} × {bound.windows:,} windows × {_g(bound.distance_factor)} (d_max = "
        f"{bound.diagonal:.0f} px, the diagonal of the screen the gaze is clamped to before Kaleido reads it, over "
        f"r) = {_g(bound.person_epsilon)} — no protection worth the name. That bound is what an export charges to "
        "the ledger for each person. Whether a sample is missing (blinks, or gaze more than a screen size off the "
        "screen) is treated as public.")
    formulas = (
        rf"n_\mathrm{{test}} = \lceil w/t_\mathrm{{skip}} \rceil = \lceil {plan.w}/{plan.t_skip} \rceil = {plan.n_test}",
        rf"\varepsilon_\mathrm{{test}} = \frac{{\varepsilon}}{{h\,n_\mathrm{{test}}}} = \frac{{{_g(plan.epsilon)}}}"
        rf"{{{_g(plan.h)}\cdot{plan.n_test}}} = {_g(plan.eps_test)}",
        rf"\eta \sim \mathrm{{Lap}}(r/\varepsilon_\mathrm{{test}}) = \mathrm{{Lap}}({_g(plan.test_noise_scale)}\ \mathrm{{px}})"
        rf"\quad\text{{repeat iff }} d(g_i, g'_\mathrm{{last}}) \le {_g(plan.l_thresh)} + \eta",
        r"\varepsilon^\mathrm{pub}_i = \tfrac12\Big(\varepsilon - \tfrac{\varepsilon}{h} - "
        r"\sum_{k=i-w+1}^{i-1}\varepsilon^\mathrm{pub}_k\Big)\ \text{(sliding window)}",
        r"\text{successive publications in one window: } " + ", ".join(_g(v) for v in plan.schedule(6))
        + rf"\ (\text{{none below }} {_g(plan.min_pub)})",
        rf"\varepsilon' = \varepsilon^\mathrm{{pub}}/r;\ \text{{first: }}\varepsilon' = {_g(eps1)}/\mathrm{{px}},\ "
        rf"E[R] = 2/\varepsilon' = {_g(2 / eps1) if first else '–'}\ \mathrm{{px}},\ "
        rf"R_{{95\%}} = {_g(radius_quantile(0.95, eps1)) if first else '–'}\ \mathrm{{px}}",
    )
    return Guarantee(Mech.KALEIDO, headline, "w-event", f"ε per {plan.w}-sample window, radius {_g(plan.r)} px",
                     words, formulas)


def kanon_guarantee(k: int) -> Guarantee:
    """k -> k-anonymity's promise and why it is not differential privacy."""
    words = (f"Every released (gender, age range) is shared by at least k = {k} people, so a name cannot be "
             f"matched to one row from these two columns alone. **{NOT_DP}:** the ranges are a deterministic "
             "function of the table — change one person's age and a class count changes, visibly and with "
             "certainty, so no ε bounds what one row reveals. Releasing two generalisations of the same rows "
             "lets anyone intersect them and single a person out (the intersection attack below), and a class "
             "whose members share a sensitive value gives it away (homogeneity). Allow one generalisation per "
             "dataset.")
    return Guarantee(Mech.K_ANONYMITY, f"every class has ≥ {k} rows", "not-dp", NOT_DP, words,
                     (r"\forall\ \text{class } c:\ |\{\text{rows in } c\}| \ge k",))


def synth_guarantee(k: int) -> Guarantee:
    """k -> k-same-synth's promise and why it is not differential privacy."""
    words = (f"Each released fixation and saccade parameter vector is the mean of a group of at least k = {k} "
             f"identities, so matching it to its owner succeeds with probability at most 1/{k}. "
             f"**{NOT_DP}:** the released values are exact averages — anyone who knows {k - 1} of the group "
             "computes the last member's parameters exactly (k·mean − Σ others), and who is grouped with whom "
             "depends on everyone's data. It protects event parameters, not the person: the synthetic stream "
             "still follows the group's shared reading path.")
    return Guarantee(Mech.K_SAME_SYNTH, f"every released event vector is shared by ≥ {k} identities", "not-dp",
                     NOT_DP, words, (r"\hat d_{e} = \frac{1}{|C|}\sum_{j \in C} d_{j,e},\quad |C| \ge k",
                                     r"d_{\mathrm{last}} = |C|\,\hat d_e - \sum_{j \in C\setminus\{\mathrm{last}\}} d_{j,e}"))


def pd_guarantee_words(form: str, k: int, gamma: float, eps0: float) -> Guarantee:
    """PD form ("published" | "randomised"), k, γ, ε0 -> its promise in words."""
    test = (f"A fixation is published only if at least k − 1 = {k - 1} other people have a fixation under which "
            f"the published samples are about as likely (same γ-bucket, γ = {_g(gamma)}). ")
    formulas = [r"i' : \gamma^{-i'-1} < \Pr[y \mid d] \le \gamma^{-i'}",
                r"\text{pass iff } \#\{\text{other identities with a } d_a:\ \gamma^{-i'-1} < \Pr[y\mid d_a] "
                r"\le \gamma^{-i'}\} \ge k - 1" + (r" + \mathrm{Lap}(1/\varepsilon_0)" if form == "randomised" else "")]
    if form == "published":
        words = test + (f"**{NOT_DP} as published:** the threshold is fixed and a failing candidate is re-drawn "
                        "until one passes, so whether and what gets published depends on how unusual the person "
                        "is, and nothing bounds what one release reveals. The generative model here is fixed "
                        "(a 2-D normal per fixation); saccades would need the seed's C-VAE, which is left out.")
        others = f"{k - 1} other {'person' if k == 2 else 'people'}"
        return Guarantee(Mech.EVENT_SYNTH_PD, f"≥ {others} plausible per published fixation", "not-dp",
                         NOT_DP, words, tuple(formulas))
    tab = pd_guarantee(k, gamma, eps0)
    ok = tab[tab["delta"] <= DELTA_MAX] if k > 1 else tab.iloc[:0]
    if len(ok):
        best = ok.loc[ok["epsilon"].idxmin()]
        claim = (f"(ε, δ) = ({_g(best['epsilon'])}, {_g(best['delta'])}) per fixation record (t = "
                 f"{int(best['t'])})")
    else:
        claim = f"an (ε, δ) per fixation record, though none with δ ≤ {DELTA_MAX:g} at k = {k}"
    words = test + (f"Here the threshold is randomised (k − 1 + Lap(1/ε0), ε0 = {_g(eps0)}) and failing candidates "
                    f"are dropped, not re-drawn. **{NOT_DP} as implemented.** The paper's claim (Bindschaedler et "
                    f"al.): {claim}, for synthetic records whose seed is drawn at random and which are published "
                    "detached from it. Here each synthetic fixation is published under its seed's participant and "
                    "time — the record names whose fixation it came from, and where it lands reveals the seed's "
                    "position. No (ε, δ) holds for these records (docs/PRIVACY_MODEL.md §9.3), and even the "
                    "paper's would be per record, not per person. Nothing of it is charged to the ledger as "
                    "differential privacy.")
    formulas.append(r"\text{the paper's claim, for seed-detached records only: }\varepsilon = \varepsilon_0 + \ln(1 + \gamma/t),"
                    r"\quad \delta = e^{-\varepsilon_0 (k - t)},\quad 1 \le t < k")
    return Guarantee(Mech.EVENT_SYNTH_PD_RANDOMISED, "randomised threshold: not DP as implemented (each record is "
                     "published under its seed's participant)", "not-dp", NOT_DP, words, tuple(formulas))
