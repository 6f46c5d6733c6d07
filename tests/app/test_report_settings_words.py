"""The report writes every page's settings in words: no enum name, None, True/False, list or dict repr in the
'Settings when released' line, for every setting of every page (the schema's defaults and typical values)."""
from __future__ import annotations

import re

from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.report import Artefact, ReportInput, build_html
from eyedp_core.report.html import setting_words
from eyedp_core.timeseries.choices import KSource
from ui import settings
from ui.share.labels import setting_labels


def _settings_line(values: dict) -> str:
    r = Release(view="Heatmaps", label="x", unit="observer", mechanism="gaussian", sensitivity_type="public",
                epsilon=1.0)
    doc = build_html(ReportInput(ledger=Ledger([r]), artefacts=[Artefact(r, page="heatmaps", settings=values)],
                                 data={}, config_json="{}", version={}, setting_labels=setting_labels()))
    (line,) = re.findall(r"Settings when released: (.*?)</p>", doc)
    return line


def test_every_pages_settings_are_written_in_words() -> None:
    sch = settings.schema()
    values = sch.defaults(list(sch.keys()))
    assert {type(v) for v in values.values()} >= {bool, list, type(None)}  # the shapes that printed as code
    values.update(ts_k_source=KSource.RULE, extra_pairs={"a": [1, 2], "b": None})
    line = _settings_line(values)
    labels = setting_labels()
    from eyedp_core.report.html import setting_name  # noqa: PLC0415 - beside its use
    from eyedp_core.report.markup import esc  # noqa: PLC0415

    for key, value in values.items():
        words = setting_words(value)
        for code in ("KSource", "None", "True", "False", "[", "{", "'"):
            assert code not in words, (key, value, words)
        if "participant" not in key:  # a setting naming a person is left out
            assert esc(f"{setting_name(key, labels)}: {words}") in line, (key, words)
    for code in ("KSource", "None", "True", "False", "['", "{'"):
        assert code not in line, (code, line)


def test_setting_words_of_each_shape() -> None:
    assert setting_words(True) == "yes" and setting_words(False) == "no" and setting_words(None) == "not set"
    assert setting_words(KSource.OPTIMAL) == "optimal"
    assert setting_words([1.0, 1000.0]) == "1, 1000" and setting_words([]) == "none"
    assert setting_words({"w": 10, "on": True}) == "w: 10; on: yes"
