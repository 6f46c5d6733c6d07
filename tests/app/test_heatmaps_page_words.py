"""The Heatmaps page in words (AppTest): the guarantee first, warnings only where they apply, number formats,
presets that agree with "δ much smaller than 1/n", formulas behind an expander."""
from __future__ import annotations

import pytest

from tests.apptest import metric_value, open_app, page_text
from ui.heatmaps.noise import liu_note_kind, odds_words

PAGE = "pages/heatmaps.py"
N_SAMPLE = 40  # observers of the default sample stimulus


@pytest.fixture(scope="module")
def at():
    """One session on the Heatmaps page (tests below set the controls they need)."""
    return open_app(PAGE, timeout=240)


def _warnings(at) -> str:
    return " ".join(w.value for w in at.warning)


def _open_derivation(at) -> None:
    """Open the lazy 'How the noise scale is derived' expander (its content is drawn only when open)."""
    at.session_state["hm_derivation"] = True
    at.run()
    assert not at.exception, at.exception


def test_liu_note_kind():
    """A warning only when Liu's σ is in use and not enough; a caption when only compared; nothing when fine."""
    assert liu_note_kind("liu-thm-3.4", False) == "warning"
    assert liu_note_kind("analytic", False) == "caption"
    assert liu_note_kind("classical", False) == "caption"
    assert liu_note_kind("analytic", True) is None and liu_note_kind("liu-thm-3.4", True) is None


def test_odds_words_are_bounded():
    assert odds_words(1.0) == "at most ×2.72"
    assert odds_words(10.0) == "about 22,026 times"
    assert odds_words(50.0) == "more than a million times"


def test_page_leads_with_the_guarantee_in_words(at):
    """The first text under the title names the unit; the next one gives ε and δ per observer in words."""
    md = [str(m.value) for m in at.markdown]
    assert "the unit of privacy is one observer" in md[0]
    lead = next(m for m in md if m.startswith("**Each observer is protected with"))
    eps = float(at.select_slider(key="hm_eps").value)
    assert f"ε = {eps:g}" in lead and "odds" in lead and f"n = {N_SAMPLE} observers" in lead
    # The formulas sit behind an expander, drawn only when it is opened; then every LaTeX block is inside it.
    assert len(at.latex) == 0
    _open_derivation(at)
    assert len(at.latex) > 0
    assert len(at.latex) == sum(len(e.latex) for e in at.expander)
    derivation = [e for e in at.expander if e.label.startswith("How the noise scale is derived")]
    assert derivation and len(derivation[0].latex) >= 4


def test_liu_warning_only_when_it_applies(at):
    """ε = 70 with the analytic calibration: Liu's σ is not in use, so no warning about Theorem 3.4 — a
    neutral caption in the derivation instead; the ε > 10 warning does apply and is shown."""
    _open_derivation(at)
    at.radio(key="hm_mech").set_value("gaussian").run()
    at.radio(key="hm_method").set_value("analytic").run()
    at.select_slider(key="hm_eps").set_value(70.0).run()
    assert not at.exception, at.exception
    warnings = _warnings(at)
    assert "Theorem 3.4" not in warnings and "Use the analytic calibration" not in warnings
    assert "ε = 70 > 10" in warnings  # this one applies
    assert "would not be enough (r < r*)" in page_text(at, ("caption",))
    # At ε = 1 Liu's σ is enough: no r < r* remark at all.
    at.select_slider(key="hm_eps").set_value(1.0).run()
    assert "r < r*" not in page_text(at, ("caption", "warning"))
    assert "Theorem 3.4" not in _warnings(at)


def test_liu_badge_is_not_green(at):
    """The 'as in the paper — not a proof in general' badge uses the neutral paper colour, never the DP green."""
    _open_derivation(at)
    at.radio(key="hm_mech").set_value("gaussian").run()
    liu = [str(m.value) for m in at.markdown if "not a proof in general" in str(m.value)]
    assert liu and all('class="eyedp-badge paper"' in m and 'class="eyedp-badge dp"' not in m for m in liu)


def test_total_cap_is_a_whole_number(at):
    """A total cap on a count of fixations is shown as 30, not 30.00, in the input and in the text."""
    at.radio(key="hm_weight").set_value("count").run()
    box = at.number_input(key="hm_c_count")
    assert box.value == 30 and isinstance(box.value, int)
    text = page_text(at, ("markdown",))
    assert "C = 30 fixations" in text and "30.00" not in text and "C = 30.0" not in text


def test_presets_agree_with_delta_much_smaller_than_one_over_n(at):
    """'Okay' and 'Good' set δ = 1/n² (n times below 1/n) and the level line says so; 'Poor' warns."""
    for name, eps in (("okay", 3.0), ("good", 1.0)):
        at.segmented_control(key="hm_preset").set_value(name).run()
        assert not at.exception, at.exception
        delta = float(at.select_slider(key="hm_delta").value)
        assert delta == pytest.approx(N_SAMPLE ** -2.0)
        assert float(at.select_slider(key="hm_eps").value) == eps
        level = next(part for m in at.markdown for part in str(m.value).split("\n\n") if part.startswith("Level:"))
        assert f">{name}<" in level and f"{N_SAMPLE}× below 1/n" in level
        assert "poor privacy" not in _warnings(at)
    at.segmented_control(key="hm_preset").set_value("poor").run()
    assert "poor privacy" in _warnings(at) and "1/n² = 0.000625" in _warnings(at)


def test_noise_sentence_uses_the_core_numbers(at):
    """The plain sentence quotes the σ, Δ₂ and Δ₁ shown as metrics (computed by the core)."""
    at.segmented_control(key="hm_preset").set_value("good").run()
    sentence = next(part for m in at.markdown for part in str(m.value).split("\n\n")
                    if part.startswith("**Every cell of the average map"))
    sigma = metric_value(at, "Noise σ per cell")
    l2 = metric_value(at, "Δ₂ (L2 sensitivity)")
    assert f"σ = {sigma:.3g}" in sentence and f"Δ₂ = {l2:.3g}" in sentence and f"n = {N_SAMPLE}" in sentence
