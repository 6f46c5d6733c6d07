"""Attacks view, Streamlit panels: the guarantee, threat models, clean baseline and traps, settings, the run with
its progress bar and stop button, and the results (chart, the papers' table, the trade-off finder).

Session state: "atk_request" holds the RunSettings of the last press of Run, "atk_cancel" is set by the stop
button, "atk_rows" keeps (data token, settings, rows finished so far) so a stopped run still shows what it
finished.
Every finished (setting, task) is cached in ui.attacks.view, so pressing Run again resumes instantly.
"""
from __future__ import annotations

import time

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from eyedp_core import attacks
from eyedp_core.attacks import ceiling
from eyedp_core.attacks.classifiers import Classifier
from eyedp_core.attacks.engine import Point
from eyedp_core.attacks.tables import AttackTable
from eyedp_core.attacks.tradeoff import k_one_phrase
from ui.attacks import figs, view
from ui.attacks.view import RunSettings
from ui.fragment import fragment
from ui.text import md_text

EPS_CHOICES = tuple(sorted({0.03, *attacks.DEFAULT_EPSILONS, 300000.0, 1000000.0}))
TASK_NAMES = {"task": "document type (utility)", "gender": "gender", "identity": "re-identification"}
SCENARIO_LABELS = {"private": "trained on its own private release (knows the mechanism and ε: the strongest)",
                   "clean": "trained on clean data, tested on the release"}
# Chip labels of the Scenario control: short enough that both fit side by side at 1280 px.
SCENARIO_CHIPS = {"private": "own private release (strongest)", "clean": "clean data"}
# Two points per decade from 0.1 to 10⁵ per person (the core's default grid): the curve has no jumps.
DEFAULT_EPSILONS = list(attacks.DEFAULT_EPSILONS)
LIVE_EVERY_S = 2.0
GAP_LABELS = {"window": "honest: a gap of one window length (no shared samples)",
              "paper": "as in the papers: halves that share samples (inflates re-identification)"}
ACCOUNTING_LABELS = {"participant": "per person (every feature, chunk and recording adds up)",
                     "paper": "as in the paper (per recording, chunks in parallel) — not a per-person guarantee"}


def eps_text(v: float) -> str:
    """ε -> '0.1', '1000', '1e+05' (plain up to 10,000)."""
    return f"{v:g}" if v < 1e5 else f"{v:.0e}"


def lead() -> None:
    """The per-person guarantee in plain words, first thing on the page."""
    st.markdown(
        "**What ε promises here.** Every ε on this page protects a **whole person**: whatever one participant's "
        "recordings contain — every feature, window and document — the released data, and anything an attacker "
        "computes from it, becomes at most e^ε times more (or less) likely than if that person had not taken "
        "part. ε = 1 keeps that factor below 2.7; ε = 10 allows 22,000. Below, classifiers try to re-identify "
        "people and guess their gender from such releases, while the same data should still tell which "
        "document someone was reading.")


def summary(name: str, at: AttackTable) -> None:
    """One line about the loaded table, and warnings about its bounds and windows."""
    labels = ", ".join(map(md_text, at.labels)) if at.labels else "none"
    st.markdown(f"Feature table **{md_text(name)}**: {at.n_participants} participants, {at.n_recordings} recordings, "
                f"{len(at.frame):,} windows, {len(at.features)} features; label columns: {labels}.")
    derived = view.data_derived_features(at)
    if derived:
        st.warning(f"{len(derived)} feature(s) have no documented public bounds "
                   f"({', '.join(map(md_text, derived[:5]))}{' …' if len(derived) > 5 else ''}): their clamp range is read off "
                   "the data, so results under noise are not a DP guarantee for them (docs/PRIVACY_MODEL.md §0.4).",
                   icon=":material/warning:")
    for note in at.notes:
        st.caption(f"Note: {md_text(note)}.")
    feature_preview(name, at)


PREVIEW_ROWS = 8


def feature_preview(name: str, at: AttackTable) -> None:
    """A captioned, compact look at the feature table the attacks read (a few rows, not all of them)."""
    with st.expander(f"The feature table: {len(at.frame):,} windows × {len(at.features)} features "
                     f"(first {PREVIEW_ROWS} rows)"):
        st.caption(f"**{md_text(name)}**: one row per window of {at.window_s:g} s of one recording — {at.n_participants} "
                   f"participants, {at.n_recordings} recordings, {len(at.frame):,} windows in all. The columns are "
                   f"the label columns ({', '.join(map(md_text, at.labels)) or 'none'}) and the {len(at.features)} eye-movement "
                   "features the classifiers see. Only the first rows are shown here; every row is used.")
        cols = [c for c in ("participant", *at.labels) if c in at.frame.columns] + list(at.features)
        st.dataframe(at.frame.head(PREVIEW_ROWS)[cols].round(3), hide_index=True, height=35 * (PREVIEW_ROWS + 1) + 3,
                     key="at_feature_preview")


def threat_models() -> None:
    """Both threat models in two sentences each."""
    a, b = st.columns(2)
    a.markdown("**Attacker without prior knowledge (gender).** The attacker has never seen the target and "
               "trains a classifier on other people's labelled data (here: leave one participant out). It then "
               "guesses the target's gender from the target's released features.")
    b.markdown("**Attacker with prior knowledge (re-identification).** The attacker already holds earlier "
               "recordings of every person and knows whose they are (here: the first part of each recording). "
               "It then tries to tell whose a newly released recording is (the second part).")


def baseline_and_traps(token: str, at: AttackTable) -> None:
    """Clean accuracies (bars) and the two protocol traps with their measured inflation."""
    try:
        base = view.baseline(token, at)
    except ValueError as err:
        st.error(f"Cannot run the attacks on this table: {md_text(err)}", icon=":material/error:")
        return
    if base.empty:
        st.info("This table has no task or gender column and fewer than two participants, so no attack applies.")
        return
    st.plotly_chart(figs.baseline_bars(base), key="at_baseline", theme=None)
    st.caption("SVM (RBF, C = 1) on standardised features, honest protocol. Document type and gender: leave one "
               "participant out. Re-identification: first part of each recording → second part, with a gap. "
               "Majority vote over the windows of each recording.")
    if "identity" not in set(base["task"]):
        return
    st.markdown("**Two traps in the published protocols, measured on this table:**")
    try:
        tr = view.traps(token, at)
    except ValueError as err:
        st.caption(f"Could not measure them here: {md_text(err)}.")
        return
    st.markdown(f"- {tr.overlap_sentence}\n- {tr.same_draw_sentence}")


def task_options(at: AttackTable) -> list[str]:
    """Prepared table -> the tasks it supports, then its other label columns."""
    return list(dict.fromkeys([*attacks.available_tasks(at), *[c for c in at.labels if c not in ("task", "gender")]]))


def _submit(settings: RunSettings) -> None:
    st.session_state["atk_request"] = settings
    st.session_state["atk_cancel"] = False


def settings_form(at: AttackTable) -> None:
    """The run settings in a form (nothing recomputes until Run is pressed)."""
    tasks = task_options(at)
    with st.form("at_form"):
        c1, c2 = st.columns(2)
        mechs = c1.multiselect("Mechanisms", attacks.ATTACK_MECHANISMS, default=["FPA", "CFPA-32", "DCFPA-32"],
                               key="at_mechs", help="Bozkir et al.'s Fourier mechanisms (chunk size after the dash) "
                               "and the Laplace mechanism LPA.")
        clfs = c2.multiselect("Classifiers", [c.value for c in attacks.PAPER_ORDER], default=[Classifier.SVM.value],
                              key="at_clfs",
                              format_func=attacks.CLASSIFIERS.get)
        # Full width: thirteen ε, two scenarios or three task names side by side do not fit a half-width field at
        # 1280 px.
        eps = st.multiselect("ε grid (per person, or as in the paper under its accounting)", EPS_CHOICES,
                             default=DEFAULT_EPSILONS, format_func=eps_text, key="at_eps")
        scen = st.multiselect("Scenario (what the attacker trains on)", list(SCENARIO_LABELS),
                              default=list(SCENARIO_LABELS), key="at_scen", format_func=SCENARIO_CHIPS.get,
                              help="Own private release: the attacker knows the mechanism and ε and trains on its "
                                   "own release, the threat model DP is defined against (the strongest). Clean "
                                   "data: trained on clean data, tested on the release. The headline risk is the "
                                   "higher of the scenarios run.")
        chosen = st.multiselect("Tasks", tasks, default=tasks, key="at_tasks",
                                format_func=lambda t: TASK_NAMES.get(t, t))
        c3, c4 = st.columns(2)
        reps = c4.number_input("Repetitions (new noise each)", 1, 10, 1, key="at_reps")
        vote = c3.toggle("Majority vote per recording", True, key="at_vote")
        extend = c3.toggle("Extend ε until the transition shows", True, key="at_extend",
                           help="After the grid, larger ε (×10 each, up to 10⁶) are run for every mechanism "
                                "whose strongest attack has not left chance or whose task has not recovered.")
        with st.expander("Protocol and accounting"):
            gap = st.radio("Split for re-identification", list(GAP_LABELS), format_func=GAP_LABELS.get,
                           key="at_gap")
            acc = st.radio("What ε counts", list(ACCOUNTING_LABELS), format_func=ACCOUNTING_LABELS.get,
                           key="at_accounting")
            k_rule = st.radio("Fourier coefficients k", ["public rule", "fixed"], horizontal=True, key="at_k_rule",
                              help="The public rule reads only the chunk length and ε, never the data "
                                   "(docs/PRIVACY_MODEL.md §2.6).")
            k_fixed = st.number_input("k (if fixed)", 1, 65, 4, key="at_k")
            sub = st.number_input("Keep one window in every … (0: the papers' 10, and 5 for re-identification)",
                                  0, 100, 0, key="at_subsample",
                                  help="Neighbouring windows are near copies; the papers subsample them.")
        pressed = st.form_submit_button("Run attacks", type="primary")
    if pressed:
        missing = [n for n, v in (("a mechanism", mechs), ("an ε", eps), ("a scenario", scen),
                                  ("a classifier", clfs), ("a task", chosen)) if not v]
        if missing:
            st.error("Choose at least " + ", ".join(missing) + ".", icon=":material/error:")
            return
        _submit(RunSettings(mechanisms=tuple(mechs), epsilons=tuple(sorted(float(e) for e in eps)),
                            scenarios=tuple(scen), classifiers=tuple(c for c in attacks.CLASSIFIERS if c in clfs),
                            tasks=tuple(t for t in tasks if t in chosen), majority_vote=bool(vote),
                            repetitions=int(reps), accounting=acc, gap=gap,
                            k="public" if k_rule == "public rule" else int(k_fixed),
                            subsample=int(sub) or None, extend=bool(extend)))


def _cancel() -> None:
    st.session_state["atk_cancel"] = True


def _summary(rows: list[dict]) -> pd.DataFrame:
    return ceiling.add_ceilings(attacks.summarise(pd.DataFrame(rows))) if rows else pd.DataFrame()


def run(token: str, at: AttackTable, settings: RunSettings) -> None:
    """Run (or resume) the requested grid with an estimate, a progress bar, a stop button and a chart that grows;
    then, if asked, larger ε until every mechanism shows its transition."""
    points = settings.points()
    total = len(points) * len(settings.tasks)
    kept = st.session_state.get("atk_rows")
    done = len(kept[2]) // max(1, len(settings.classifiers)) if kept and kept[:2] == (token, settings) else 0
    if st.session_state.get("atk_cancel"):
        st.info(f"Run stopped after {done} of {total} steps. Press **Run attacks** to continue: finished steps "
                "come from the cache.", icon=":material/pause_circle:")
        return
    note = _estimate_note(token, at, settings, done)
    stop = st.empty()
    stop.button("Stop the run", key="at_stop", on_click=_cancel, icon=":material/stop_circle:")
    bar = st.progress(0.0, text=f"Running {total} steps…")
    live = st.empty()
    problems = _run_points(token, at, settings, points, bar, live)
    stop.empty()
    bar.empty()
    live.empty()
    note.empty()
    for p in dict.fromkeys(problems):
        st.warning(f"Skipped — {md_text(p)}", icon=":material/warning:")


def _estimate_note(token: str, at: AttackTable, settings: RunSettings, done: int) -> DeltaGenerator:
    """The run's estimated time (from the clean baseline's timing) when over 5 s, in a slot cleared after the run."""
    on_disk, _ = view.stored_steps(token, settings, at)
    try:
        guess = view.estimate_seconds(view.baseline(token, at), settings, cached=max(done, on_disk))
    except ValueError:
        guess = float("nan")
    note = st.empty()
    if guess == guess and guess > 5:
        note.caption(f"Estimated time: about {guess:.0f} s on this machine (from the clean baseline's timing)"
                     + (", plus larger ε if the grid extends itself" if settings.extend else "")
                     + ". Settings run before come back instantly.")
    return note


def _run_points(token: str, at: AttackTable, settings: RunSettings, points: list[Point], bar: DeltaGenerator,
                live: DeltaGenerator) -> list[str]:
    """Every point for every task, then the extension's larger ε, with the progress bar and the growing chart kept
    current and the rows so far in the session; the problems met (a point's task skipped)."""
    rows: list[dict] = []
    problems: list[str] = []
    tasks = list(settings.tasks)
    total = len(points) * len(tasks)
    unit = "as in the paper" if settings.accounting == "paper" else "per person"
    step = 0
    drawn = time.perf_counter()
    queue = list(points)
    i = 0
    while queue:
        point = queue.pop(0)
        for task in tasks:
            try:
                rows += view.point_rows(token, settings.gap, settings.subsample, view.point_key(point), task,
                                        settings.classifiers, settings.majority_vote, at)
            except ValueError as err:
                problems.append(f"{TASK_NAMES.get(task, task)}: {err}")
            st.session_state["atk_rows"] = (token, settings, list(rows))
            step += 1
            what = point.label if point.mechanism is None else f"{point.label}, ε = {eps_text(point.epsilon)}"
            bar.progress(min(1.0, step / total), text=f"{step} of {total}: {what}, {md_text(TASK_NAMES.get(task, task))}")
        # Redraw the growing chart at most every LIVE_EVERY_S: a run served from the cache draws it once.
        if rows and time.perf_counter() - drawn >= LIVE_EVERY_S:
            drawn = time.perf_counter()
            live.plotly_chart(figs.accuracy_vs_epsilon(_summary(rows), _present(rows, tasks), settings.classifiers[0],
                                                       list(settings.scenarios), unit), key=f"at_live_{i}", theme=None)
        i += 1
        if not queue:
            queue = view.extension_points(settings, rows)
            total += len(queue) * len(tasks)
    return problems


def _present(rows: list[dict], tasks: list[str]) -> list[str]:
    have = {r["task"] for r in rows}
    return [t for t in tasks if t in have]


def _k_one(s: pd.DataFrame) -> list[str]:
    """Summary -> one phrase per mechanism whose plans kept k = 1 at every ε of the run."""
    out = []
    for mech, m in s[s["mechanism"] != "clean"].groupby("mechanism", sort=False):
        phrases = [k_one_phrase(str(p)) for p in m["plan"]]
        if phrases and all(phrases):
            out.append(f"{mech}: {phrases[0]}")
    return out


@fragment
def results(token: str, settings: RunSettings) -> None:
    """Chart per task, the papers' table, the trade-off finder (a fragment: its widgets re-run only this part)."""
    kept = st.session_state.get("atk_rows")
    if not kept or kept[:2] != (token, settings) or not kept[2]:
        return
    rows = kept[2]
    shipped = sum(r.get("stored") == "shipped" for r in rows)
    if shipped:
        st.caption(f"{shipped:d} of these {len(rows)} results were computed in advance for the bundled sample at "
                   "these settings, with this same code and seed (bench/attacks_precompute.py), and were read from "
                   "the file shipped with EyeDP; any other setting is computed here and kept on disk for next time.")
    s = view.summary(token, settings, len(rows), rows)  # cached: the trade-off sliders re-run only this fragment
    tasks = _present(rows, list(settings.tasks))
    clf = st.selectbox("Classifier shown", settings.classifiers, format_func=attacks.CLASSIFIERS.get,
                       key="at_chart_clf") if len(settings.classifiers) > 1 else settings.classifiers[0]
    transition_panel(token, settings, len(rows), s, tasks, clf)
    st.markdown("**Accuracy against ε, per task and scenario, under what the guarantee allows**")
    st.plotly_chart(view.result_figure(token, settings, len(rows), clf, tuple(tasks), s), key="at_result_chart", theme=None)
    ceiling_flag(s, clf)
    st.caption("One colour per mechanism; solid lines: the attacker trained on its own private release, dotted: "
               "trained on clean data. Dash-dot, same colour: the mechanism's **ceiling**, the highest accuracy "
               "*any* attacker can reach on that release at that ε (each person's mechanism calls composed "
               "exactly; re-identification and document type: singling one class out of the n; gender: the "
               "attribute bound at the test set's prior; docs/PRIVACY_MODEL.md §16). The gap between a ceiling "
               "and the measured line is what the mathematics allows and these classifiers do not reach. "
               "Red dashed: chance (the "
               "share of the most frequent class among the test units). Grey: the same classifier on clean data. "
               "Where mechanisms score alike their lines lie on top of each other (and on the chance line): "
               "hover a point, or read the table below, for every value."
               + (" Error bars: sd over repetitions." if settings.repetitions > 1 else "")
               + " The releases here are simulations with seeded numpy noise that never leave this page, so "
               "nothing is charged to the privacy ledger (docs/PRIVACY_MODEL.md §11).")
    k_one = _k_one(s)
    if k_one:
        st.info("Honest accounting forces k = 1 here — " + "; ".join(k_one) + ". The attacks (and the task) "
                "then only see those per-recording or per-chunk averages plus noise.", icon=":material/info:")

    shown = tuple(c for c in (*attacks.PAPER_ORDER, Classifier.SVM_FAST) if c in settings.classifiers)
    st.markdown("**The papers' layout** (Bozkir et al., Tables 1-3): methods × ε, each cell "
                f"{' | '.join(attacks.CLASSIFIERS[c].split(' (')[0] for c in shown)}"
                + (", after majority voting" if settings.majority_vote else ", per window") + ".")
    scen = settings.scenarios[0] if len(settings.scenarios) == 1 else st.radio(
        "Scenario of the table", settings.scenarios, format_func=SCENARIO_LABELS.get, horizontal=True,
        key="at_table_scen")
    for task in tasks:
        tbl = attacks.paper_table(s, task, train_on=scen, classifiers=shown)
        if tbl.empty:
            continue
        st.markdown(f"*{md_text(figs.TASK_TITLES.get(task, task))}* — chance {s[s['task'] == task]['chance'].mean():.2f}")
        st.dataframe(tbl, key=f"at_table_{task}")

    st.markdown("**Trade-off finder**")
    tradeoff_finder(token, settings, len(rows), s, tasks, clf)
    plans = s[s["mechanism"] != "clean"].drop_duplicates(["mechanism", "epsilon"])
    with st.expander("How each setting spent its budget"):
        _bullets([p for p in plans["plan"] if p])  # one element: every element of the page re-renders on a move


def collapse_flag(s: pd.DataFrame, clf: str) -> None:
    """One line each for results far below chance and for collapsed classifiers, their lists behind expanders."""
    if "collapsed" not in s:
        return
    low = s[(s["classifier"] == clf) & s.get("below_chance", pd.Series(False, index=s.index)).fillna(False).astype(bool)
            & ~s["collapsed"].fillna(False).astype(bool)]
    if not low.empty:
        items = [f"{md_text(TASK_NAMES.get(r.task, r.task))}, {md_text(str(r.mechanism))} at ε = {eps_text(r.epsilon)} "
                 f"({r.accuracy:.2f} vs chance {r.chance:.2f})" for r in low.itertuples()]
        with st.expander(f"⚠ Far below chance in {len(items)} result(s): a classifier that learnt nothing, "
                         "not protection — the list"):
            st.markdown("A leave-one-person-out classifier that learnt nothing answers the majority of its training "
                        "people, which excludes the held-out person's class.\n\n" + _bullet_lines(items, escaped=True))
    bad = s[(s["classifier"] == clf) & s["collapsed"].fillna(False).astype(bool)]
    if bad.empty:
        return
    groups = []
    for scen, g in bad.groupby("train_on", sort=False):
        # Tasks of one mechanism that collapsed at the same ε share one phrase.
        same: dict[tuple[str, tuple[float, ...]], list[str]] = {}
        for (mech, task), x in g.groupby(["mechanism", "task"], sort=False):
            same.setdefault((md_text(str(mech)), tuple(sorted(x["epsilon"]))), []).append(md_text(TASK_NAMES.get(task, task)))
        phrases = [f"{mech}, {' and '.join(tasks)} at ε = {', '.join(eps_text(e) for e in eps)}"
                   for (mech, eps), tasks in same.items()]
        groups.append(f"*{SCENARIO_LABELS.get(scen, scen).split(' (')[0]}*: " + "; ".join(phrases))
    with st.expander(f"⚠ Collapsed classifier in {len(bad)} result(s): one class for ≥ {attacks.COLLAPSE_SHARE:.0%} "
                     "of the test units, not protection (✕ on the chart) — the list"):
        st.markdown(f"It answered one class for at least {attacks.COLLAPSE_SHARE:.0%} of the test units although the "
                    "test set is not that unbalanced, so its accuracy at chance is **not** protection (✕ on the chart "
                    "where the stronger scenario collapsed too).\n\n" + _bullet_lines(groups, escaped=True))


def ceiling_flag(s: pd.DataFrame, clf: str) -> None:
    """Say in words whether every measured accuracy lies under the ceiling its guarantee allows; a point above it
    beyond binomial noise is a defect, named in an error box."""
    if "ceiling" not in s:
        return
    mine = s[(s["classifier"] == clf) & (s["mechanism"] != "clean") & s["ceiling"].notna()]
    if mine.empty:
        return
    bad = ceiling.defect_sentences(mine, TASK_NAMES)
    if bad:
        st.error(f"**Defect: {len(bad)} measured accuracy(ies) above the ceiling the guarantee allows any attacker** "
                 "— a mechanism draws less noise than its ε says, or the measurement is wrong; no finding here can "
                 "be trusted until it is fixed.\n\n" + _bullet_lines(bad), icon=":material/dangerous:")
        return
    above = int(mine["above"].sum())
    st.caption(f"All {len(mine)} measured accuracies lie under their analytic ceilings (dash-dot)"
               + (f"; {above:d} sit above by less than binomial noise explains (one-sided exact binomial test, "
                  f"p ≥ {ceiling.DEFECT_LEVEL:g})" if above else "") + ".")


def transition_panel(token: str, settings: RunSettings, n_rows: int, s: pd.DataFrame, tasks: list[str],
                     clf: str) -> None:
    """Utility and the strongest attacks against ε on one chart per mechanism, the transition in sentences, and
    the collapse flag."""
    st.markdown("**Utility and risk against ε.** Each line is the share of its clean-data advantage over chance a "
                "task keeps, (accuracy − chance)/(clean accuracy − chance): 0 is chance, 1 is as good as on clean data; values "
                "above 1 are drawn at 1 as a triangle (hover for the value). Risk is the **strongest attacker** at "
                "each ε — the higher of the scenarios run"
                + (f" ({' and '.join(SCENARIO_LABELS[x].split(' (')[0] for x in settings.scenarios)})"
                   if len(settings.scenarios) > 1 else "") + ". Green band: the ε where the task works while the "
                "attacks stay near chance.")
    collapse_flag(s, clf)
    st.plotly_chart(view.transition_figure(token, settings, n_rows, clf, tuple(tasks), s),
                    key="at_transition_chart", theme=None)
    st.caption("Where each curve leaves chance, in words, is in the trade-off finder below (with its targets).")


@fragment
def tradeoff_finder(token: str, settings: RunSettings, n_rows: int, s: pd.DataFrame, tasks: list[str],
                    clf: str) -> None:
    """The trade-off sliders and their answers (a fragment inside the results: moving a slider re-runs only this,
    the charts and tables above are not sent again; the answers are cached per run and setting)."""
    util = "task" if "task" in tasks else None
    # Each element here is re-sent on every move: the sliders share one row, the answers are one markdown.
    row = st.container(horizontal=True)
    target = row.slider("Task accuracy at least", 0.3, 1.0, 0.8, 0.05, key="at_target", disabled=util is None)
    margin = row.slider("Attacks at most chance +", 0.0, 0.3, 0.05, 0.01, key="at_margin")
    ask = view.FinderTargets(target, margin, util, clf)
    sections = [("*Where the transition is* (the strongest attacker at each ε):",
                 view.transition_sentences(token, settings, n_rows, ask, s)),
                ("*Where both targets hold* (each sentence names the scenario it used):",
                 view.tradeoff_sentences(token, settings, n_rows, ask, s))]
    # Said once, before every answer of the finder (the number input's below too), not after each list.
    st.markdown((TUNED_ON_PRIVATE + "\n\n" if any(a for _, a in sections) else "") + _sections(sections))
    if util is not None:
        want = st.number_input("Which ε do I need for document-type accuracy…", 0.0, 1.0, 0.8, 0.05,
                               key="at_want")
        _bullets(view.accuracy_sentences(token, settings, n_rows, want, clf, None, s))


# The finder reads accuracies measured on the private data: an ε picked from them is tuned on that data.
TUNED_ON_PRIVATE = ("**Every ε this finder gives is chosen from accuracies measured on the private data itself:** "
                    "picking ε this way spends privacy that no ledger entry counts (docs/PRIVACY_MODEL.md §0.7); "
                    "choose ε on public or held-out data to publish it.")


def _bullet_lines(sentences: list[str], escaped: bool = False) -> str:
    """Sentences -> one markdown list, each sentence escaped unless it already is ('' for none)."""
    return "\n".join(f"- {sentence if escaped else md_text(sentence)}" for sentence in sentences)


def _sections(sections: list[tuple[str, list[str]]]) -> str:
    """(constant heading, sentences) pairs -> one markdown: each heading, then its sentences as a list."""
    return "\n\n".join("\n\n".join(filter(None, (head, _bullet_lines(sentences)))) for head, sentences in sections)


def _bullets(sentences: list[str]) -> None:
    """Sentences -> one markdown list (one element, not one per line)."""
    if sentences:
        st.markdown(_bullet_lines(sentences))


def formulas() -> None:
    """The accounting behind the numbers, behind an expander."""
    with st.expander("Formulas: how ε becomes noise (docs/PRIVACY_MODEL.md §0.6, §2, §3)"):
        st.markdown("A release runs one mechanism call per feature series and chunk of every recording. With "
                    "F features, C chunks per series and R_p recordings of person p, the calls on one person's "
                    "data add up (sequential composition), so each call gets")
        st.latex(r"\varepsilon_{\text{call}} = \frac{\varepsilon_{\text{person}}}{F \cdot C \cdot R_p}")
        st.markdown("Each chunk of n windows keeps k Fourier coefficients with Laplace noise of scale")
        st.latex(r"\lambda = \sqrt{k\,n}\;\frac{\Delta_2}{\varepsilon_{\text{call}}},\qquad "
                 r"\Delta_2 = \sqrt{n}\,(U-L)\ \text{(CFPA)},\quad \sqrt{4n-3}\,(U-L)\ \text{(DCFPA)}")
        st.markdown("with public bounds [L, U] per feature. The paper's accounting gives every call "
                    "ε / F instead (chunks and recordings counted in parallel), so a person's true total is "
                    "ε · C · R_p. The public rule for k minimises the expected error under a prior fixed in "
                    "advance; at honest budgets it keeps k = 1.")

