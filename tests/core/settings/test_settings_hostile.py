"""Settings that cannot break a page: the codec never raises on any text, JSON or mapping, bounds its work
(size, nesting depth, number length), refuses each unusable value with one message naming the key and the
reason, and every text setting of the app has its allowed values (or is capped free text)."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eyedp_core.settings import Schema, decode_json, decode_query, encode_json, encode_query
from eyedp_core.settings.codec import MAX_DEPTH, MAX_JSON_CHARS, MAX_NUMBER_CHARS
from eyedp_core.settings.schema import MAX_TEXT_CHARS

ROOT = Path(__file__).resolve().parents[3]
APP = Schema.from_dict(json.loads((ROOT / "ui" / "share" / "schema.json").read_text()))
KEYS = APP.keys()
FORMAT = "eyedp-settings/1"

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=20)
_key = st.sampled_from(KEYS) | st.text(max_size=12)


def _doc(settings_obj: object) -> str:
    return json.dumps({"format": FORMAT, "page": "heatmaps", "settings": settings_obj})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=st.dictionaries(_key, st.text(max_size=60) | st.sampled_from(
    ["~", "[", "[[1]]", "1e999", "NaN", "[1e400]", "-0", "true", "[" * 3000, "9" * 5000, "9" * 400,
     "[1" + "0" * 320 + ".5]", '["' + '\\"' * 2000, "[" * 15 + "1" + "]" * 15]), max_size=8))
def test_decode_query_never_raises_on_any_strings(params: dict[str, str]) -> None:
    values, messages = decode_query(params, APP)
    assert set(values) <= set(params)
    # One message per dropped parameter, never more.
    assert len(values) + len(messages) == len(params)
    for key, value in values.items():
        assert APP[key].check(value) == value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(settings_obj=st.dictionaries(_key, _json, max_size=8))
def test_decode_json_never_raises_on_any_json(settings_obj: dict) -> None:
    values, page, messages = decode_json(_doc(settings_obj), APP)
    assert page == "heatmaps"
    assert len(values) + len(messages) == len(settings_obj)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=200) | st.binary(max_size=200) | _json.map(json.dumps)
       | st.sampled_from(["[" * 3000, _doc({"hm_eps": 1}).replace("1}", "9" * 5000 + "}"), '{"format": 1e999}']))
def test_decode_json_never_raises_on_any_text(text: str | bytes) -> None:
    values, _, messages = decode_json(text, APP)
    assert values == {} or messages is not None


HOSTILE_QUERY = {
    "at_mechs": "[" * 3000,                          # RecursionError in json.loads before
    "ts_sweep_range": "[1" + "0" * 320 + ".5, 2]",   # a float of over 308 digits: OverflowError before
    "hm_seed": "9" * 400,
    "ts_eps": "9" * 5000,                            # beyond Python's int() digit limit
    "hm_mech": "~",
    "ts_k_src": "~",
    "hm_weight": "xyz",
    "hm_method": "bar",
    "hm_cell": "abc",
    "sel_gaze": "x" * (MAX_TEXT_CHARS + 1),
}


def test_each_hostile_url_value_is_dropped_with_one_message_naming_key_and_reason() -> None:
    params = {**HOSTILE_QUERY, "hm_eps": "10.0", "hm_stimulus": "webpage"}
    values, messages = decode_query(params, APP)
    assert values == {"hm_eps": 10.0, "hm_stimulus": "webpage"}
    assert len(messages) == len(HOSTILE_QUERY)
    for key, reason in [("at_mechs", f"nested more than {MAX_DEPTH} levels deep"),
                        ("ts_sweep_range", f"a number of 323 characters (at most {MAX_NUMBER_CHARS})"),
                        ("hm_seed", "a number of 400 characters"), ("ts_eps", "a number of 5,000 characters"),
                        ("hm_mech", "not one of the choices"), ("ts_k_src", "not one of the choices"),
                        ("hm_weight", "'xyz' is not one of the choices (count, duration)"),
                        ("hm_method", "'bar' is not one of the choices"), ("hm_cell", "expected a whole number"),
                        ("sel_gaze", f"a text of {MAX_TEXT_CHARS + 1} characters")]:
        hits = [m for m in messages if m.startswith(f"URL setting '{key}'")]
        assert len(hits) == 1 and reason in hits[0], (key, hits)
        assert len(hits[0]) < 300  # the hostile value is quoted shortened


def test_hostile_settings_files_are_refused_per_key_within_bounded_time() -> None:
    t0 = time.perf_counter()
    doc = ('{"format": "eyedp-settings/1", "page": "heatmaps", "settings": {"hm_seed": ' + "9" * 5000
           + ', "hm_cell": ' + "1" * 400 + ', "hm_mech": "bogus", "at_eps": [1, NaN], "hm_deg": Infinity, '
           '"hm_eps": [[[[[[[[1]]]]]]]], "ts_sweep_range": [1' + "0" * 320 + '.0, 2], "hm_stimulus": "webpage"}}')
    values, page, messages = decode_json(doc, APP)
    assert values == {"hm_stimulus": "webpage"} and page == "heatmaps"
    joined = "\n".join(messages)
    assert len(messages) == 7
    for key in ("hm_seed", "hm_cell", "hm_mech", "at_eps", "hm_deg", "hm_eps", "ts_sweep_range"):
        assert sum(m.startswith(f"Setting '{key}'") for m in messages) == 1, key
    assert "a number of 5,000 characters" in joined and "NaN is not a finite number" in joined
    assert "'bogus' is not one of the choices" in joined
    # Nesting beyond the bound, and a file beyond the size bound, are refused before parsing.
    deep = '{"format": "eyedp-settings/1", "settings": {"hm_eps": ' + "[" * 50_000 + "]" * 50_000 + "}}"
    assert decode_json(deep, APP) == ({}, None, [f"The configuration is not read: nested more than {MAX_DEPTH} "
                                                 "levels deep."])
    big = _doc({"sel_gaze": "x" * MAX_JSON_CHARS})
    assert "characters long" in decode_json(big, APP)[2][0]
    # An unterminated string of escaped quotes must not make the depth scan quadratic.
    assert decode_json('["' + '\\"' * 90_000, APP)[0] == {}
    assert time.perf_counter() - t0 < 2.0


def test_every_text_setting_has_its_allowed_values_or_is_capped_free_text() -> None:
    texts = [s for s in APP if s.kind == "str" or (s.kind == "list" and s.item == "str")]
    assert len(texts) > 35
    free = sorted(s.key for s in texts if s.choices is None)
    # The AOI table as CSV text (AOIs are public parameters that travel), the study plan as JSON, data source
    # names (uploads add names) and the declared tighter time-series bounds (lines of text).
    assert free == ["aoi_text", "plan_json", "sel_features", "sel_fixations", "sel_gaze", "ts_tighter"]
    assert all(APP[k].free_text for k in free)
    for s in texts:
        if s.choices is not None:
            default = s.default if s.kind == "str" else None
            assert default is None or default in s.choices, s.key
            with pytest.raises(ValueError, match="not one of the choices"):
                s.check("~" if s.kind == "str" else ["~"])


def test_documented_examples_of_the_hostile_input_issue() -> None:
    assert "not one of the choices" in decode_query({"hm_mech": "~"}, APP)[1][0]
    assert decode_json(_doc({"hm_mech": "bogus"}), APP)[0] == {}


def _strategy(s) -> st.SearchStrategy:
    """Values drawn from the schema entry itself: its choices, bounds, length."""
    def scalar(kind: str) -> st.SearchStrategy:
        if s.choices is not None:
            return st.sampled_from(s.choices)
        if kind == "bool":
            return st.booleans()
        if kind == "int":
            return st.integers(int(s.lo) if s.lo is not None else -10**12, int(s.hi) if s.hi is not None else 10**12)
        if kind == "float":
            return st.floats(s.lo if s.lo is not None else -1e12, s.hi if s.hi is not None else 1e12,
                             allow_nan=False, allow_infinity=False)
        return st.text(max_size=MAX_TEXT_CHARS)
    if s.kind != "list":
        return st.one_of(st.none(), scalar(s.kind)) if s.nullable else scalar(s.kind)
    if s.length is not None:
        return st.lists(scalar(s.item), min_size=s.length, max_size=s.length).map(tuple)
    return st.lists(scalar(s.item), max_size=8)


@pytest.mark.parametrize("key", KEYS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_app_setting_round_trips_through_url_and_file(key: str, data: st.DataObject) -> None:
    s = APP[key]
    value = data.draw(_strategy(s))
    back, messages = decode_query(encode_query({key: value}, APP, only_changed=False), APP)
    assert messages == [] and back[key] == s.check(value)
    restored, _, messages = decode_json(encode_json({key: value}, APP), APP)
    assert messages == [] and restored[key] == s.check(value)
