"""Session state shared by every page: the datasets on offer, which one is selected, the privacy ledger."""
from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

from eyedp_core.data import bundled
from eyedp_core.dp import budget, store
from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Ledger
from eyedp_core.io.errors import DataError
from ui import export_scale, settings
from ui.text import md_text

# Kinds of data a page can ask for, with the bundled sample that stands in when nothing is uploaded.
KINDS: dict[str, dict[str, str]] = {
    "features": {"label": "Feature windows", "sample": "reading_features"},
    "fixations": {"label": "Fixations", "sample": "fixations"},
    "gaze": {"label": "Gaze streams", "sample": "gaze_streams"},
}
SAMPLE_PREFIX = "Sample: "

if TYPE_CHECKING:  # pandas (and eyedp_core.data.derived) are imported where used: the Home page and the sidebar
    import pandas as pd  # of a first visit need neither (sample_data/summary.json)

    from eyedp_core.gaze.geometry import Geometry


@dataclass(frozen=True)
class Dataset:
    """One table (or image) on offer: where it came from and a content token for caching."""

    kind: str
    name: str
    source: str  # "sample" | "upload"
    token: str
    frame: pd.DataFrame | None = None
    image: np.ndarray | None = field(default=None, repr=False)
    notes: tuple[str, ...] = ()
    # How an upload was read (reader, columns, mapping, options: ui.yourdata.view.read_recipe), so that its
    # downloadable script repeats the same read; None for samples and for tables derived on the page.
    read: dict[str, Any] | None = field(default=None, repr=False)


def content_token(obj: pd.DataFrame | np.ndarray | bytes) -> str:
    """DataFrame, array or bytes -> short content hash used as the cache key."""
    import pandas as pd

    h = hashlib.blake2b(digest_size=12)
    if isinstance(obj, pd.DataFrame):
        # Hashed without attrs: pandas copies them into each column it hashes, and an upload's grow with its columns.
        bare = obj.copy(deep=False)
        bare.attrs = {}
        h.update(pd.util.hash_pandas_object(bare, index=False).values.tobytes())
        h.update("|".join(map(str, obj.columns)).encode())
    elif isinstance(obj, np.ndarray):
        h.update(np.ascontiguousarray(obj).tobytes())
        h.update(str(obj.shape).encode())
    else:
        h.update(obj)
    return h.hexdigest()


# Shared, not copied: st.cache_data would unpickle a fresh copy of every sample on every run that asks for it (the
# heatmaps fragment asks on each slider move). Pages treat these as read-only; the images are locked, and a test
# runs every page and checks that no sample table changed.
@st.cache_resource(show_spinner=False)
def _sample_frame(name: str) -> pd.DataFrame:
    """Bundled sample name -> its table (read once per server process, shared by every session: read-only)."""
    return bundled.load_sample(name)


@st.cache_resource(show_spinner=False)
def _sample_image(name: str) -> np.ndarray:
    """Bundled stimulus name -> its RGB pixels (read once per server process, shared: not writeable)."""
    image = bundled.stimulus_image(name)
    image.flags.writeable = False
    return image


def _uploads() -> dict[str, dict[str, Dataset]]:
    """The user's uploads of this session, by kind then name (never written to disk)."""
    if "eyedp_uploads" not in st.session_state:
        st.session_state["eyedp_uploads"] = {k: {} for k in [*KINDS, "image"]}
    return st.session_state["eyedp_uploads"]


def uploaded(kind: str) -> dict[str, Dataset]:
    """Kind -> the user's uploads of that kind in this session, by name (in upload order)."""
    return dict(_uploads()[kind])


GEOMETRY_KEY = "eyedp_upload_geometry"  # upload name -> the screen its positions are on (memory only)


def set_upload_geometry(name: str, geometry: Geometry | None) -> None:
    """Remember the screen geometry an upload's positions are on (the Gaze samples and Heatmaps pages start
    from it)."""
    if geometry is not None:
        st.session_state.setdefault(GEOMETRY_KEY, {})[name] = geometry


def upload_geometry(name: str) -> Geometry | None:
    """An upload's name -> the screen geometry its positions are on, or None (not given, or not an upload)."""
    return st.session_state.get(GEOMETRY_KEY, {}).get(name)


def add_upload(ds: Dataset) -> None:
    """Keep an uploaded dataset in this session and select it."""
    _uploads()[ds.kind][ds.name] = ds
    if ds.kind in KINDS:
        # The sidebar selectbox already exists in this run; it picks this up before it is drawn next run.
        st.session_state[f"pending_sel_{ds.kind}"] = ds.name


def apply_pending_selection(kind: str) -> None:
    """Move a selection requested by an upload into the selector's state (call before drawing it)."""
    pending = st.session_state.pop(f"pending_sel_{kind}", None)
    if pending is not None:
        st.session_state[f"sel_{kind}"] = pending


def options(kind: str) -> list[str]:
    """Kind -> names offered in the selector: the bundled sample first, then uploads."""
    sample = SAMPLE_PREFIX + KINDS[kind]["sample"].replace("_", " ")
    return [sample, *_uploads()[kind].keys()]


def current(kind: str) -> Dataset:
    """Kind -> the dataset selected in the sidebar (the bundled sample by default)."""
    name = st.session_state.get(f"sel_{kind}")
    uploads = _uploads()[kind]
    if name in uploads:
        return uploads[name]
    sample = KINDS[kind]["sample"]
    return Dataset(kind, SAMPLE_PREFIX + sample.replace("_", " "), "sample", "sample:" + sample, _sample_frame(sample))


def selection(kind: str) -> tuple[str, str, dict[str, Any], tuple[str, ...]]:
    """Kind -> (name, source, summary, notes) of the selected dataset, without loading a bundled sample: its
    summary (rows, people, columns) comes from sample_data/summary.json."""
    name = st.session_state.get(f"sel_{kind}")
    uploads = _uploads()[kind]
    if name in uploads:
        ds = uploads[name]
        return ds.name, ds.source, bundled.summarise(ds.frame), ds.notes
    sample = KINDS[kind]["sample"]
    return SAMPLE_PREFIX + sample.replace("_", " "), "sample", bundled.summary(sample), ()


def demographics() -> pd.DataFrame:
    """The bundled demographics table (age, gender per participant)."""
    return _sample_frame("demographics")


def stimuli() -> dict[str, Dataset]:
    """Stimulus images on offer: the bundled ones, then the user's uploads."""
    out = {
        n: Dataset("image", n, "sample", "sample-image:" + n, image=_sample_image(n))
        for n in bundled.stimulus_names()
    }
    out.update(_uploads()["image"])
    fix = current("fixations")
    out.update(blank_stimuli(fix, out))
    if fix.source != "upload":
        return out
    # The uploaded table's own stimuli come first, so the Heatmaps page opens on one that has fixations.
    if "stimulus" in fix.frame.columns:
        mine = set(_file_stimuli(fix.token, fix.frame))
        first = [n for n in out if n in mine or Path(n).stem in mine]
    else:
        first = [n for n, d in out.items() if d.token.startswith("blank:")]
    return {**{n: out[n] for n in first}, **out}


@st.cache_data(show_spinner=False, max_entries=16)
def _file_stimuli(token: str, _frame: pd.DataFrame) -> list[str]:
    """Fixation table (by content token) -> the names in its stimulus column, in order of appearance."""
    import pandas as pd

    return [str(s) for s in pd.unique(_frame["stimulus"].dropna().astype(str))]


@st.cache_data(show_spinner=False, max_entries=16)
def _extent(token: str, _frame: pd.DataFrame) -> tuple[int, int]:
    """Fixation table (by content token) -> the canvas size that holds every fixation."""
    from eyedp_core.data import derived

    return derived.data_extent(_frame)


CANVAS_KEY = "eyedp_canvas_sizes"
BLANK_SUFFIX = " (blank canvas)"


# The canvas size sets the grid and so the sensitivity: when it is read off the fixations (one extreme fixation
# can quadruple the grid) it is a data-derived parameter, flagged on every release drawn on it.
DATA_CANVAS = "blank canvas size {w} × {h} px (the extent of the uploaded fixations)"


def _declared_canvas(ds: Dataset) -> tuple[int, int] | None:
    """The canvas size stated for an upload, never read off its rows: the stimulus size the user gave on the Your
    data page, else the screen declared with the upload (its positions are on that screen); None if neither."""
    given = st.session_state.get(CANVAS_KEY, {}).get(ds.name)
    if given:
        return int(given[0]), int(given[1])
    geo = upload_geometry(ds.name)
    return None if geo is None else (int(geo.width_px), int(geo.height_px))


def canvas_size(ds: Dataset) -> tuple[int, int]:
    """Fixation dataset -> (width, height) of the blank canvas its image-less stimuli are drawn on: the declared
    size (the stimulus size given, else the upload's screen), else the data's extent (flagged: canvas_from_data)."""
    return _declared_canvas(ds) or _extent(ds.token, ds.frame)


def canvas_from_data(ds: Dataset) -> bool:
    """Whether the blank canvas of this fixation upload is sized from its own data (no size or screen declared)."""
    return _declared_canvas(ds) is None


def data_derived_canvas(stimulus: Dataset) -> tuple[str, ...]:
    """A stimulus on offer -> the caveat its canvas size carries when it was read off the data (else ())."""
    return tuple(n for n in stimulus.notes if n.startswith("blank canvas size"))


def set_canvas_size(name: str, width: int, height: int) -> None:
    """Remember the stimulus size the user gave for an uploaded fixation table (this session only)."""
    st.session_state.setdefault(CANVAS_KEY, {})[name] = (int(width), int(height))


def blank_stimuli(ds: Dataset, images: dict[str, Dataset]) -> dict[str, Dataset]:
    """Uploaded fixations -> a blank-canvas stimulus for each of their stimuli without an image (or one for
    a table without a stimulus column), so every stimulus in the file reaches the Heatmaps page."""
    if ds.source != "upload" or ds.frame is None or ds.frame.empty:
        return {}
    import pandas as pd

    from eyedp_core.data import derived

    w, h = canvas_size(ds)
    img = derived.blank_canvas(w, h)  # a read-only view: one pixel of memory however many stimuli
    if "stimulus" not in ds.frame.columns:
        names = [ds.name.removeprefix("Upload: ") + BLANK_SUFFIX]
    else:
        names = derived.stimuli_without_images(pd.DataFrame({"stimulus": _file_stimuli(ds.token, ds.frame)}), images)
    # The token names the stimulus: the Heatmaps page keys its cached maps on the stimulus' token.
    notes = (f"no image uploaded: drawn on a blank {w} × {h} px canvas",)
    if canvas_from_data(ds):
        notes += (DATA_CANVAS.format(w=w, h=h),)
    return {n: Dataset("image", n, "upload", f"blank:{w}x{h}:{n}", image=img, notes=notes) for n in names}



def stimulus_names() -> list[str]:
    """Names of the stimulus images on offer (bundled, then uploads) without decoding any image."""
    return [*bundled.stimulus_names(), *_uploads()["image"]]

LEDGER_KEY = "eyedp_ledger"
# Session state that remembers releases or values read off the private data. Clearing the ledger must
# forget these too: a remembered export or choice of m would otherwise bring cleared entries back, or be
# reused uncharged. The cap sliders go back to their public defaults with the choice of m they held.
# Views add their own keys here.
LEDGER_DERIVED_KEYS: tuple[str, ...] = (
    "hm_export_result", "hm_m_tuned", "hm_m_count", "hm_m_duration",
    "ts_recorded_msg", "eyedp_release_context", "eyedp_refused", "eyedp_charge_outcome",
    "share_export_time_series", "share_export_gaze_samples", "aoi_release_result",
)


STUDY_KEY = "eyedp_study"  # the study this session charges (the sidebar's picker); default store.DEFAULT_STUDY


def study() -> str:
    """The study whose stored ledger this session reads and charges."""
    return str(st.session_state.get(STUDY_KEY) or store.DEFAULT_STUDY)


def set_study(name: str) -> None:
    """Charge another study from the next run on (created in the store on first use). What the session keeps of
    the old study's releases (a cap m chosen and paid for there, the last export) is forgotten, as a fresh record
    forgets it: the new study's ledger did not pay for it."""
    if name != study():
        settings.forget(*LEDGER_DERIVED_KEYS, to_default=True)
    st.session_state[STUDY_KEY] = name
    st.session_state.pop(LEDGER_KEY, None)


def studies() -> list[str]:
    """The studies the ledger file holds, the default first (it exists before its first charge)."""
    try:
        names = store.list_studies(store.default_ledger_path())
    except store.StoreError:
        names = []
    return list(dict.fromkeys([store.DEFAULT_STUDY, *names, study()]))


def ledger() -> Ledger:
    """The privacy ledger this session charges: the current study's stored ledger, shared by every session that
    opens the study and kept across reloads and restarts (a plain Ledger put in the session is used as is)."""
    held = st.session_state.get(LEDGER_KEY)
    if held is not None and not isinstance(held, store.StoredLedger):
        return held
    try:
        path = store.default_ledger_path()
        if held is None or held.path != path or held.study != study():
            held = store.open_ledger(path, study())
            if held.cap() is None:  # the study's first cap is part of its record, so its history starts there
                held.set_cap(DEFAULT_EPSILON_CAP, "the default cap of a new study")
            st.session_state[LEDGER_KEY] = held
    except (store.StoreError, OSError, ValueError) as err:
        raise DataError(f"The privacy ledger cannot be used, so nothing can be released: {err}",
                        expected="an EyeDP ledger file (EYEDP_LEDGER) or a path where one can be created") from err
    return held


def releases_made() -> int:
    """How many releases the ledger holds as the user made them: one per charge (an AOI export with three noisy
    sums is one release of three ledger entries)."""
    led = ledger()
    return len(led.charges()) if isinstance(led, store.StoredLedger) else len(led.releases)


def stored() -> store.StoredLedger | None:
    """The session's ledger when it is the stored one (None for a plain in-memory ledger)."""
    led = ledger()
    return led if isinstance(led, store.StoredLedger) else None


def clear_ledger(reason: str = "") -> None:
    """Start a fresh record (the stored ledger keeps the old entries readable behind an archive entry with the
    reason) and forget everything in the session that could re-add or reuse an archived release."""
    led = ledger()
    if isinstance(led, store.StoredLedger):
        led.archive(reason.strip() or "no reason given")
    else:
        led.clear()
    # From the settings store too (else the next run would restore them); the cap sliders are set to their
    # defaults explicitly, so that they also show them.
    settings.forget(*LEDGER_DERIVED_KEYS, to_default=True)


# --------------------------------------------------------------------------------------------
# the cap on ε per person, and what each release was made with (Report page)

DEFAULT_EPSILON_CAP = 10.0  # the cap every new study starts with (the Report slider's default, rp_cap)
CAP_KEY = "eyedp_eps_cap"  # the cap this run uses (the study's, or a plain ledger's own)
CAP_WIDGET_KEY = "rp_cap"  # the Report page's cap slider: while its value is in the session it is the cap
REFUSED_KEY = "eyedp_refused"  # the last refusal, shown once in the sidebar
CONTEXT_KEY = "eyedp_release_context"  # per ledger entry: the page, its settings, the facts it showed, the cap
RELEASED_KEY = "released"  # on a ledger entry's context: what its release handed out (an AOI export's tables)
CHARGE_ID = "charge_id"  # on a ledger entry's context: one id per charge (what it handed out stays in the session)
FACTS_KEY = "eyedp_facts"  # per page: the last calibration, sensitivity, utility and data counts it showed


CAP_SEEN_KEY = "eyedp_cap_seen"  # the study's cap as this session last saw it (tells a slider move from a stale value)
CAP_REASON_KEY = "ledger_cap_reason"  # the Report page's text: why the cap changes (stored with the change)


def _held_cap(led: Ledger) -> float:
    """The cap a ledger holds: the study's stored cap (a plain ledger: the session's), default 10."""
    if isinstance(led, store.StoredLedger):
        cap = led.cap()
        return DEFAULT_EPSILON_CAP if cap is None else float(cap)
    return float(st.session_state.get(CAP_KEY, DEFAULT_EPSILON_CAP))


def epsilon_cap() -> float:
    """The cap on the worst-case ε per person: the study's, stored with its ledger (default 10), so every charge
    of every session of the study is checked against it whether or not the Report page was ever opened."""
    led = ledger()
    cap = _held_cap(led)
    widget = st.session_state.get(CAP_WIDGET_KEY)
    if widget is not None and float(widget) != cap:
        if float(widget) != st.session_state.get(CAP_SEEN_KEY):
            # The slider asks for a new cap (a move, a reset, a shared link or a settings file set it before the
            # sidebar is drawn): stored as a cap change, so this run's sidebar and charges already use it.
            _store_cap(led, float(widget))
            cap = float(widget)
        else:  # another session of the study changed the cap since: the slider follows the store
            try:
                st.session_state[CAP_WIDGET_KEY] = cap
            except StreamlitAPIException:  # the slider is already drawn in this run; the next run follows
                pass
    st.session_state[CAP_SEEN_KEY] = cap
    st.session_state[CAP_KEY] = cap
    # The Report page's remembered settings follow the study too: restoring the slider on the page's next visit
    # must not bring back a cap that another session has changed since (it would read as a move).
    remembered = st.session_state.get(settings.SNAPSHOTS, {}).get("report", {})
    if CAP_WIDGET_KEY in remembered:
        remembered[CAP_WIDGET_KEY] = cap
    return cap


def _store_cap(led: Ledger, cap: float) -> None:
    """Keep a new cap with the ledger: a cap-change entry with the user's reason (a plain ledger: the session)."""
    if isinstance(led, store.StoredLedger):
        led.set_cap(cap, str(st.session_state.get(CAP_REASON_KEY) or "").strip())
    st.session_state[CAP_SEEN_KEY] = cap
    st.session_state[CAP_KEY] = cap


def set_epsilon_cap(cap: float) -> None:
    """Set the cap on ε per person (the Report page's slider); a cap equal to the study's leaves no entry."""
    led = ledger()
    if float(cap) != _held_cap(led):
        _store_cap(led, float(cap))


def refusal(releases: list | tuple, accountant: Accountant = Accountant.BASIC,
            delta_cap: float | None = None) -> str | None:
    """Why these releases would be refused under the study's cap, counted by the accountant (zCDP at `delta_cap`;
    None: they fit); nothing is charged."""
    return budget.refusal(ledger(), list(releases), epsilon_cap(), delta_cap, accountant)


def caps_at_charge() -> list[float | None]:
    """Per ledger entry, the cap in force when it was charged (None where not known)."""
    led = ledger()
    if isinstance(led, store.StoredLedger):
        return led.caps_at_charge()
    return [c.get("cap") for c in st.session_state.get(CONTEXT_KEY, [])]


def contexts() -> list[dict[str, Any]]:
    """Per ledger entry (aligned with `ledger().releases`), what its release was made with: the page, its facts
    and settings (from the store for every session's entries; what this session handed out is added)."""
    led = ledger()
    mine = st.session_state.get(CONTEXT_KEY, [])
    if not isinstance(led, store.StoredLedger):
        return [dict(c) for c in mine[:len(led.releases)]]
    handed = {c.get(CHARGE_ID): c[RELEASED_KEY] for c in mine if RELEASED_KEY in c}
    out = []
    for c in led.contexts():
        if c.get(CHARGE_ID) in handed:
            c[RELEASED_KEY] = handed[c[CHARGE_ID]]
        out.append(c)
    return out


def attach_released(count: int, released: object) -> None:
    """Keep what a release handed out on the contexts of the last `count` ledger entries (the ones it charged),
    so the report finds it next to them (and forgets it with them)."""
    for context in st.session_state.get(CONTEXT_KEY, [])[-count:] if count > 0 else []:
        context[RELEASED_KEY] = released


OUTCOME_KEY = "eyedp_charge_outcome"  # the last refused charge: where its button is, why, and the ledger it met


def charge(releases: list | tuple, *, page: str | None = None, shown: tuple[str, ...] = (),
           place: str | None = None, facts: Mapping[str, Any] | None = None,
           settings_used: Mapping[str, Any] | None = None,
           counted: tuple[Accountant, float | None] = (Accountant.BASIC, None)) -> bool:
    """The one way a release enters the ledger: added unless it pushes anyone it covers over the study's cap,
    counted by `counted` (an accountant and its δ cap: a plan's zCDP charge is checked at the plan's δ).

    Each entry keeps ITS OWN facts and settings: `facts`/`settings_used` when the release says what it was made
    with (a private choice of m is not the page's preview), else the page's current ones. Refused: nothing is
    added, the reason is kept for the sidebar and for `outcome_here(place)` next to the pressed button (`place`,
    default the page), and `shown` (the session keys of the page's last "Released" result) is forgotten, so an
    earlier success box does not stand under the refusal."""
    page = page or st.session_state.get("share_page")
    led, cap = ledger(), epsilon_cap()
    if facts is None:
        facts = export_scale.finish(st.session_state.get(FACTS_KEY, {}).get(page))
    if settings_used is None:
        settings_used = st.session_state.get("share_snapshots", {}).get(page)
    context = {"page": page, "facts": dict(facts) if facts else None,
               "settings": dict(settings_used) if settings_used else None, "cap": cap, CHARGE_ID: uuid.uuid4().hex}
    try:
        accountant, delta_cap = counted
        if isinstance(led, store.StoredLedger):  # the cap check and the insert: one transaction in the store
            led.charge(list(releases), cap, delta_cap, context=context, accountant=accountant)
        else:
            budget.charge(led, list(releases), cap, delta_cap, accountant)
    except budget.BudgetExceeded as err:
        text = md_text(err)  # shown as markdown; labels quote data names
        st.session_state[REFUSED_KEY] = text
        st.session_state[OUTCOME_KEY] = (place or page, str(err), _ledger_mark())
        for key in shown:
            st.session_state.pop(key, None)
        return False
    st.session_state.pop(OUTCOME_KEY, None)
    st.session_state.setdefault(CONTEXT_KEY, []).extend(dict(context) for _ in releases)
    return True


def _ledger_mark() -> tuple[int, float]:
    """What a refusal met: the number of ledger entries and the cap (a refusal is news only while both hold)."""
    return len(ledger().releases), epsilon_cap()


def outcome_here(place: str) -> None:
    """Next to the button at `place`: why its last press was refused, while the ledger and the cap are as the
    refusal met them (a later charge anywhere, or a new cap, makes it old news)."""
    got = st.session_state.get(OUTCOME_KEY)
    if not got or got[0] != place:
        return
    if got[2] != _ledger_mark():
        st.session_state.pop(OUTCOME_KEY, None)
        return
    st.error(md_text(got[1]), icon=":material/block:")  # shown as markdown; labels quote data names
