"""AppTest helpers shared by the page tests: open a session on a page, read its text and metrics.

Imported as `from tests.apptest import ...` (a plain module, not conftest: `import conftest` is ambiguous
once tests/browser/conftest.py is collected)."""
from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from streamlit import config
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TEXT_KINDS = ("title", "header", "subheader", "markdown", "caption", "info", "error", "success", "warning")


def open_app(page: str | None = None, at: AppTest | None = None, timeout: float = 120) -> AppTest:
    """A session (fresh unless `at` is given) run on app.py and switched to `page`, with no exception."""
    if at is None:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
        at.run()
        assert not at.exception, at.exception
    if page is not None:
        at.switch_page(page).run()
        assert not at.exception, at.exception
    return at


def page_text(at: AppTest, kinds: Sequence[str] = TEXT_KINDS) -> str:
    """Everything the page wrote in these element kinds, joined."""
    return "\n".join(str(e.value) for kind in kinds for e in getattr(at, kind))


_NUMBER = re.compile(r'<div class="eyedp-number"(?: title="([^"]*)")?><div class="eyedp-number-label">(.*?)</div>'
                     r'<div class="eyedp-number-value">(.*?)</div></div>')


def shown_numbers(at: AppTest, metrics: bool = True) -> list[tuple[str, str]]:
    """(label, value) of every number shown: st.metric elements (unless `metrics` is False), then the rows of
    ui.numbers (one markdown each), in page order."""
    found = [(m.label, str(m.value)) for m in at.metric] if metrics else []
    for md in at.markdown:
        found += [(html.unescape(a), html.unescape(b)) for _, a, b in _NUMBER.findall(str(md.value))]
    return found


def number_help(at: AppTest, prefix: str) -> str:
    """The help (tooltip) of the first st.metric or ui.numbers number whose label starts with `prefix`."""
    helps = [m.proto.help for m in at.metric if m.label.startswith(prefix)]
    for md in at.markdown:
        helps += [html.unescape(h) for h, a, _ in _NUMBER.findall(str(md.value)) if html.unescape(a).startswith(prefix)]
    assert helps, f"no number labelled {prefix!r}..."
    return helps[0]


def metric_value(at: AppTest, prefix: str) -> float:
    """Value of the first shown number (st.metric or a ui.numbers row) whose label starts with `prefix`, as a float
    (thousands commas dropped)."""
    shown = shown_numbers(at)
    hits = [v for label, v in shown if label.startswith(prefix)]
    assert hits, f"no number labelled {prefix!r}...; shown: {[label for label, _ in shown]}"
    return float(hits[0].split()[0].replace(",", ""))


def open_link(page: str, params: dict[str, str] | None = None, timeout: float = 240) -> AppTest:
    """A fresh session whose first run is `page` opened with these query parameters (a shared link), with no
    exception."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def link_params(at: AppTest) -> dict[str, str]:
    """The session's query parameters (the link it would share), one text value per key."""
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


@contextmanager
def app_mode() -> Iterator[None]:
    """AppTest runs behave like a server after app.py's first st.navigation call, and failures show the real
    exception text (the app itself hides tracebacks from users). tests/conftest.py applies it to every test in a
    module that runs Streamlit.

    AppTest resets Streamlit's legacy pages/-folder flag before every run, so each run would start in legacy mode
    and ui.shell.ensure_shell would spend a rerun (dropping button clicks) to leave it."""
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    old = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(PagesManager, "__init__", init)
            yield
    finally:
        config.set_option("client.showErrorDetails", old)


def upload_file(kind: str, name: str, data: bytes) -> AppTest:
    """A session on Your data with `data` uploaded as `kind`; no exception box (tests raise unexpected errors)."""
    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value(kind).run()
    at.file_uploader(key=f"uploader_{kind}").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, at.exception
    return at


def use_data(at: AppTest) -> None:
    """Press 'Use this data' and check the run ended without an exception box."""
    [b for b in at.button if b.label == "Use this data"][0].click().run()
    assert not at.exception, at.exception
