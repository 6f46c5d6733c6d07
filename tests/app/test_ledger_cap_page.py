"""The cap on ε per person belongs to the study's ledger from its first run (AppTest): every charge path checks it
without the Report page ever being opened, the texts say what happened, and the smaller ledger promises hold
(every private choice of m counted, charging twice said before the click)."""
from __future__ import annotations

import pytest

from tests.apptest import metric_value, open_app, page_text


def _nearest(slider, target: float) -> float:
    """The option of a log select-slider closest to `target` (its options are the raw floats)."""
    return min((float(o) for o in slider.options), key=lambda v: abs(v - target))


def _released_boxes(at) -> list[str]:
    return [str(e.value) for e in at.success if str(e.value).startswith("Released")]


def test_a_fresh_session_refuses_a_heatmap_export_over_the_default_cap() -> None:
    at = open_app(timeout=300, page="pages/heatmaps.py")
    side = {m.label: str(m.value) for m in at.sidebar.metric}
    assert side["Worst-case ε per person, of the cap"] == "0 of 10"
    # An export under the cap goes through and shows its green box ...
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    assert len(at.session_state["eyedp_ledger"].releases) == 1
    assert _released_boxes(at)
    # ... one at ε ≈ 20 is refused before anything is drawn, and the accepted one's green box does not stand
    # under it.
    eps = _nearest(at.select_slider(key="hm_eps"), 20.0)
    assert eps >= 15.0
    at.select_slider(key="hm_eps").set_value(eps).run()
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    assert len(at.session_state["eyedp_ledger"].releases) == 1
    refusals = [str(e.value) for e in at.sidebar.error]
    assert any("Refused" in r and "cap ε ≤ 10" in r for r in refusals), refusals
    assert not _released_boxes(at)
    assert "hm_export_result" not in at.session_state
    # The Report page, opened for the first time now, shows the cap that refused it, and says nothing was lowered.
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    assert at.slider(key="rp_cap").value == pytest.approx(10.0)
    text = page_text(at)
    assert "lowered" not in text and "Cap: ε ≤ 10 per person" in text


def test_a_fresh_session_refuses_a_kaleido_export_over_the_cap() -> None:
    at = open_app(timeout=300, page="pages/gaze_samples.py")
    at.radio(key="gs_view").set_value("protect").run()
    at.toggle(key="share_open").set_value(True).run()
    assert not at.exception, at.exception
    assert any("this export would be refused" in str(i.value) for i in at.info)  # said before the click
    at.button(key="gs_release_export").click().run()
    assert not at.exception, at.exception
    assert at.session_state["eyedp_ledger"].releases == []
    assert "share_export_gaze_samples" not in at.session_state
    assert any("Refused" in str(e.value) for e in at.sidebar.error)


def test_lowering_the_cap_below_the_spent_total_says_so_with_the_cap_it_was_charged_under() -> None:
    at = open_app(timeout=300, page="pages/heatmaps.py")
    at.button(key="hm_export").click().run()
    spent = at.session_state["eyedp_ledger"].total()[0]
    at.switch_page("pages/report.py").run()
    at.slider(key="rp_cap").set_value(1.0).run()
    assert spent > 1.0
    errors = [str(e.value) for e in at.error]
    assert any("charged under a cap of up to ε ≤ 10, lowered since to 1" in e for e in errors), errors


def test_heatmaps_total_counts_every_private_choice_of_m() -> None:
    at = open_app(timeout=300, page="pages/heatmaps.py")
    at.segmented_control(key="hm_panel").set_value("cap").run()
    assert not at.exception, at.exception
    eps = float(at.select_slider(key="hm_eps").value)
    sel = float(at.select_slider(key="hm_sel_eps").value)
    for _ in range(3):
        at.button(key="hm_select_private").click().run()
        assert not at.exception, at.exception
    charged = [r.epsilon for r in at.session_state["eyedp_ledger"].releases]
    assert charged == pytest.approx([sel] * 3)
    assert metric_value(at, "Total ε per observer") == pytest.approx(eps + 3 * sel, rel=1e-3)


def test_time_series_says_before_the_click_that_record_and_export_charge_twice() -> None:
    at = open_app(timeout=300, page="pages/time_series.py")
    note = [str(c.value) for c in at.caption if "Recording and exporting are separate releases" in str(c.value)]
    assert note and "charges it twice" in note[0] and "already in the ledger" not in page_text(at)
    total = metric_value(at, "Total ε per person")
    at.button(key="ts_record").click().run()
    assert not at.exception, at.exception
    # The verdict box, which follows ε, says what pressing again charges.
    said = [str(a.value) for a in [*at.info, *at.warning] if "already in the ledger" in str(a.value)]
    assert said and f"charges another ε = {total:.4g} per person" in said[0]


def test_the_attacks_trade_off_finder_says_its_epsilon_was_chosen_on_the_private_data() -> None:
    at = open_app(timeout=300, page="pages/attacks.py")
    for key, value in {"at_mechs": ["CFPA-32"], "at_eps": [1.0, 10000.0], "at_clfs": ["knn"],
                       "at_tasks": ["task"]}.items():
        at.multiselect(key=key).set_value(value)
    next(b for b in at.button if b.label == "Run attacks").click()
    at.run()
    assert not at.exception, at.exception
    # Said once, ahead of the finder's answers (the lists that follow it).
    finder = [str(m.value) for m in at.markdown if "*Where the transition is*" in str(m.value)]
    assert len(finder) == 1, finder
    caveat = finder[0].index("chosen from accuracies measured on the private data itself")
    assert caveat < finder[0].index("*Where the transition is*") < finder[0].index("\n- ")
    assert finder[0].count("Every ε this finder gives") == 1
    assert not [str(m.value) for m in at.markdown if "Every ε this finder gives" in str(m.value)][1:]


def test_a_kaleido_export_charges_and_states_the_person_level_bound() -> None:
    import math
    import os

    from eyedp_core.dp.store import DEFAULT_STUDY, open_ledger

    # The study's cap above Kaleido's person-level bound (set as another session would): the export goes through.
    open_ledger(os.environ["EYEDP_LEDGER"], DEFAULT_STUDY).set_cap(1e9, "above Kaleido's bound")
    at = open_app(timeout=300, page="pages/gaze_samples.py")
    at.radio(key="gs_view").set_value("protect").run()
    at.toggle(key="share_open").set_value(True).run()
    at.button(key="gs_release_export").click().run()
    assert not at.exception, at.exception
    (entry,) = at.session_state["eyedp_ledger"].releases
    man = at.session_state["share_export_gaze_samples"]["manifest"]
    cal = man["calibration"]
    assert cal["screen_diagonal_px"] == pytest.approx(math.hypot(*man["parameters"]["screen_px"]))
    r = man["parameters"]["r_px"]
    person = cal["epsilon_per_window"] * cal["windows_per_person"] * cal["screen_diagonal_px"] / r
    # The manifest, the ledger entry and the ledger's total agree on ε·⌈n/w⌉·d_max/r.
    assert man["epsilon_per_person"] == pytest.approx(person)
    assert entry.epsilon_total == pytest.approx(person) and entry.count == cal["windows_per_person"]
    assert at.session_state["eyedp_ledger"].total()[0] == pytest.approx(person)
    assert "ε·⌈n/w⌉·d_max/r" in man["guarantee"] and "within radius r" in man["guarantee"]
    assert f"{person:.4g}" in entry.meaning
    # The card on the page quotes the ledger's bound for the shown stream's length, with the same rule.
    assert "That bound is what an export charges to the ledger" in page_text(at)


@pytest.mark.parametrize("safe", [True, False])
def test_the_report_built_in_the_app_names_no_participant(safe: bool) -> None:
    at = open_app(timeout=300, page="pages/time_series.py")
    at.selectbox(key="ts_participant").set_value("P07").run()
    assert not at.exception, at.exception
    at.button(key="ts_record").click().run()
    assert at.session_state["eyedp_ledger"].releases
    at.switch_page("pages/report.py").run()
    at.toggle(key="rp_release_safe").set_value(safe).run()
    at.button(key="rp_build").click().run()
    assert not at.exception, at.exception
    doc = at.session_state["rp_report_html"].decode()
    assert "P07" not in doc and "ts_participant" not in doc
    assert ("NOT PROTECTED" in doc) is (not safe)
    assert at.session_state["rp_report_pdf"][:4] == b"%PDF"


def test_the_sidebar_states_the_cap_everywhere_but_on_the_report_page_which_shows_it_beside_its_slider() -> None:
    at = open_app(timeout=300, page="pages/report.py")
    side = {m.label: str(m.value) for m in at.sidebar.metric}
    # The Report page's cap slider re-runs only its fragment, which would leave a cap stated in the sidebar behind.
    assert side == {"Worst-case ε per person": "0"}
    captions = " ".join(str(c.value) for c in at.sidebar.caption)
    assert "cap on ε per person is on this page" in captions and "≤" not in captions
    at.slider(key="rp_cap").set_value(2.5).run()
    assert "Cap: ε ≤ 2.5 per person" in page_text(at)
    # Every other page states the cap the Report page set.
    at.switch_page("pages/home.py").run()
    assert not at.exception, at.exception
    side = {m.label: str(m.value) for m in at.sidebar.metric}
    assert side == {"Worst-case ε per person, of the cap": "0 of 2.5"}
    assert "cap ε ≤ 2.5 per person" in " ".join(str(c.value) for c in at.sidebar.caption)
    # With a release in the ledger the Report page's sidebar still leaves the cap to the page, and sends nobody to
    # the page they are on; Heatmaps states both and points to the Report page.
    at.switch_page("pages/heatmaps.py").run()
    at.select_slider(key="hm_eps").set_value(_nearest(at.select_slider(key="hm_eps"), 1.0)).run()  # under the cap
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    assert "cap ε ≤ 2.5 per person · see the Report page" in " ".join(str(c.value) for c in at.sidebar.caption)
    at.switch_page("pages/report.py").run()
    captions = " ".join(str(c.value) for c in at.sidebar.caption)
    assert "1 release(s) · the cap on ε per person is on this page" in captions, captions
    assert "see the Report page" not in captions
