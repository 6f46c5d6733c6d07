"""Shareable settings in the running app (AppTest): the URL restores a view, follows every change, a reset
returns the defaults and a JSON configuration restores the same settings."""
from __future__ import annotations

import json

from eyedp_core.dp.registry import Mech
from eyedp_core.settings import decode_json
from tests.apptest import link_params, open_link, page_text
from ui import settings


def test_opening_a_url_restores_the_view_and_names_what_it_dropped() -> None:
    at = open_link("pages/time_series.py", {"ts_eps": "10.0", "ts_mech": "FPA", "ts_bogus": "1", "ts_runs": "abc",
                                         "ts_seed": "7"})
    assert at.session_state["ts_eps"] == 10.0
    assert at.session_state["ts_mech"] is Mech.FPA
    assert at.session_state["ts_seed"] == 7
    text = page_text(at, ("warning",))
    assert "ts_bogus" in text and "ts_runs" in text
    # The URL keeps the valid, non-default settings and loses the bad ones.
    assert link_params(at) == {"ts_eps": "10.0", "ts_mech": "FPA", "ts_seed": "7"}


def test_the_url_follows_a_slider_and_a_reset_clears_it() -> None:
    at = open_link("pages/heatmaps.py")
    assert not any(k.startswith("hm_") for k in link_params(at))
    at.number_input(key="hm_seed").set_value(42).run()
    assert not at.exception, at.exception
    assert link_params(at).get("hm_seed") == "42"
    at.button(key="share_reset").click().run()
    assert not at.exception, at.exception
    assert at.session_state["hm_seed"] == 0
    assert "hm_seed" not in link_params(at)


def test_a_json_configuration_restores_the_same_settings() -> None:
    at = open_link("pages/heatmaps.py")
    at.number_input(key="hm_seed").set_value(9).run()
    at.select_slider(key="hm_cell").set_value(16).run()
    assert not at.exception, at.exception
    state = {k: at.session_state[k] for k in settings.schema().keys() if k in at.session_state}
    doc = json.loads(settings.config_json("heatmaps", state=state))  # what the download button offers
    assert doc["page"] == "heatmaps" and doc["settings"]["hm_seed"] == 9
    assert {k for k in doc["settings"] if k.startswith("hm_")} >= {"hm_eps", "hm_delta", "hm_cell", "hm_mech"}
    values, page, messages = decode_json(json.dumps(doc), settings.schema())
    assert messages == [] and page == "heatmaps"
    other = open_link("pages/heatmaps.py")
    other.session_state["share_pending"] = {"heatmaps": values}  # what loading the file stores
    other.run()
    assert not other.exception, other.exception
    for key in ("hm_seed", "hm_cell", "hm_eps", "hm_mech"):
        assert other.session_state[key] == at.session_state[key], key
    assert link_params(other).get("hm_seed") == "9"


def test_current_values_hold_the_pages_settings_and_the_data_sources_in_schema_order():
    """A page's values are its own keys and the data sources, nothing of another page or outside the schema."""
    keys = settings.schema().keys()
    mine = [k for k in keys if k.startswith("hm_")][:3] + [k for k in keys if k.startswith("sel_")][:1]
    other = [k for k in keys if k.startswith("ts_")][:2]
    state = {k: i for i, k in enumerate(reversed(mine + other))} | {"not_a_setting": -1}
    got = settings.current_values("heatmaps", state)
    assert list(got) == [k for k in keys if k in mine]  # schema order, not the session's
    assert got == {k: state[k] for k in mine}
    # No page known: every page's settings, still nothing outside the schema.
    assert settings.current_values(None, state) == {k: state[k] for k in keys if k in state}
