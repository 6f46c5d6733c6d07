"""Settings travel: every setting round-trips through the URL encoding and the JSON configuration, and bad
input is dropped with a message (eyedp_core.settings; the app's schema in ui/share/schema.json)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eyedp_core.settings import Schema, Setting, decode_json, decode_query, encode_json, encode_query

ROOT = Path(__file__).resolve().parents[3]
APP_SCHEMA = Schema.from_dict(json.loads((ROOT / "ui" / "share" / "schema.json").read_text()))


def _value(s: Setting) -> st.SearchStrategy:
    """Strategy for valid values of one setting."""
    def scalar(kind: str) -> st.SearchStrategy:
        if s.choices is not None:
            return st.sampled_from(s.choices)
        if kind == "bool":
            return st.booleans()
        if kind == "int":
            lo = int(s.lo) if s.lo is not None else -10**9
            hi = int(s.hi) if s.hi is not None else 10**9
            return st.integers(lo, hi)
        if kind == "float":
            return st.floats(s.lo if s.lo is not None else -1e12, s.hi if s.hi is not None else 1e12,
                             allow_nan=False, allow_infinity=False)
        return st.text(max_size=30)

    if s.kind != "list":
        base = scalar(s.kind)
        return st.one_of(st.none(), base) if s.nullable else base
    item = s.item or "str"
    if s.length is not None:
        return st.lists(scalar(item), min_size=s.length, max_size=s.length).map(tuple)
    return st.lists(scalar(item), max_size=6)


@st.composite
def _settings(draw: st.DrawFn, schema: Schema) -> dict:
    keys = draw(st.lists(st.sampled_from(schema.keys()), unique=True, max_size=len(schema)))
    return {k: draw(_value(schema[k])) for k in keys}


def _same(a: object, b: object) -> bool:
    return (list(a) == list(b)) if isinstance(a, (list, tuple)) else a == b


_RANDOM_SCHEMA = Schema([
    Setting("x_float", "float", 1.0, lo=-1e6, hi=1e6), Setting("x_any_float", "float", 0.5),
    Setting("x_int", "int", 3, lo=0, hi=100), Setting("x_bool", "bool", False), Setting("x_text", "str", ""),
    Setting("x_choice", "str", "a", choices=("a", "b, c", "ü &=?")),
    Setting("x_list", "list", ["p"], item="str"), Setting("x_nums", "list", [1.0], item="float"),
    Setting("x_range", "list", (0.0, 1.0), item="float", length=2, lo=0, hi=10),
    Setting("x_null", "str", "okay", choices=("okay", "strong"), nullable=True),
])


@pytest.mark.parametrize("schema", [_RANDOM_SCHEMA, APP_SCHEMA], ids=["every-kind", "app"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_settings_round_trip_through_url_and_json(schema: Schema, data: st.DataObject) -> None:
    values = data.draw(_settings(schema))
    query = encode_query(values, schema)
    assert all(isinstance(v, str) for v in query.values())
    back, messages = decode_query(query, schema)
    assert messages == []
    # Defaults are left out of the URL: filling them in gives back every value exactly.
    full = {**schema.defaults(values), **back}
    for k, v in values.items():
        assert _same(full[k], v), (k, v, full[k], query.get(k))
    restored, page, messages = decode_json(encode_json(values, schema, page="heatmaps"), schema)
    assert messages == [] and page == "heatmaps"
    assert set(restored) == set(values)
    for k, v in values.items():
        assert _same(restored[k], v) and type(restored[k]) is type(schema[k].check(v)), (k, v, restored[k])


def test_floats_survive_the_url_bit_for_bit() -> None:
    s = Schema([Setting("e", "float", 1.0)])
    for v in (0.1, 1 / 3, 1e-300, 5e-324, 123456789.123456789, -0.0 + 2.0 ** -1074):
        assert decode_query(encode_query({"e": v}, s), s)[0]["e"] == v


def test_unknown_and_invalid_values_are_dropped_with_a_message() -> None:
    values, messages = decode_query(
        {"x_float": "2e7", "x_int": "4.5", "x_bool": "maybe", "x_choice": "z", "nope": "1", "x_text": "fine",
         "x_any_float": "nan", "x_range": "[1,2,3]", "x_list": "not json", "x_null": "~"},
        _RANDOM_SCHEMA)
    assert values == {"x_text": "fine", "x_null": None}
    assert len(messages) == 8
    joined = "\n".join(messages)
    for key in ("x_float", "x_int", "x_bool", "x_choice", "nope", "x_any_float", "x_range", "x_list"):
        assert f"'{key}'" in joined
    assert "above the maximum" in joined and "not a setting" in joined


def test_a_bad_configuration_file_says_what_is_wrong() -> None:
    assert decode_json(b"\xff\xfe", _RANDOM_SCHEMA)[2][0].startswith("The configuration is not valid JSON")
    assert "Not an EyeDP configuration" in decode_json('{"a": 1}', _RANDOM_SCHEMA)[2][0]
    doc = json.dumps({"format": "eyedp-settings/1", "page": "x", "settings": {"x_int": 500, "x_bool": True}})
    values, page, messages = decode_json(doc, _RANDOM_SCHEMA)
    assert values == {"x_bool": True} and page == "x" and "'x_int'" in messages[0]


def test_app_schema_covers_the_views_main_settings() -> None:
    for key in ("hm_eps", "hm_delta", "hm_cell", "hm_mech", "hm_seed", "ts_eps", "ts_mech", "ts_chunk", "ts_k",
                "gs_kal_eps", "at_mechs", "home_eps", "sel_features", "sel_fixations", "sel_gaze"):
        assert key in APP_SCHEMA, key
    assert APP_SCHEMA["hm_eps"].kind == "float" and APP_SCHEMA["hm_eps"].lo and APP_SCHEMA["hm_eps"].hi
