"""`python -m eyedp_core.report verify`: the report states the stored ledger's head and entry count, and verify
confirms an intact chain and a matching report and names the entry when one was changed, removed or reordered."""
from __future__ import annotations

import hashlib
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.dp.ledger_codec import entry_hash
from eyedp_core.dp.store import GENESIS, EventKind, open_ledger
from eyedp_core.report.chain import LedgerStamp, read_stamp, report_ledger, seal, seal_ok
from eyedp_core.report.cli import main
from eyedp_core.report.html import ReportInput, build_html

ROOT = Path(__file__).resolve().parents[3]


def rel(label: str, eps: float = 0.5) -> Release:
    return Release(view="Time series", label=label, unit="participant", mechanism="laplace",
                   sensitivity_type="public", epsilon=eps)


@pytest.fixture
def made(tmp_path):
    """A study with five releases and a cap, and the release-safe report downloaded from it."""
    path = tmp_path / "ledger.sqlite"
    led = open_ledger(path, "pilot")
    led.set_cap(10.0, "the board's limit")
    for i in range(5):
        led.charge([rel(f"release-number-{i}")], 10.0)
    doc = build_html(ReportInput(ledger=led, artefacts=[], data={}, config_json="{}", version={"eyedp": "test"},
                                 release_safe=True))
    report = tmp_path / "report.html"
    report.write_text(doc, encoding="utf-8")
    return path, led, report


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(["verify", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_the_report_states_the_head_and_the_number_of_entries(made):
    """Meta tags and visible text carry the study, 7 entries (created, cap, 5 releases) and the head's hash."""
    path, led, report = made
    doc = report.read_text(encoding="utf-8")
    n, head = led.chain_position()
    assert n == 7 and read_stamp(doc) == LedgerStamp("pilot", 7, head)
    assert f'<meta name="eyedp-ledger-head" content="{head}">' in doc
    assert "7 entries" in doc and f"<code>{head}</code>" in doc and "study “pilot”" in doc


def test_report_ledger_reads_releases_and_stamp_together(made):
    """report_ledger: a plain copy of the stored releases and the stamp at the same entry."""
    _, led, _ = made
    plain, stamp = report_ledger(led)
    assert type(plain) is Ledger and plain.releases == led.releases and len(plain) == 5
    assert stamp == LedgerStamp("pilot", 7, led.chain_head())
    copy, none = report_ledger(plain)
    assert none is None and copy is not plain and copy.releases == plain.releases


def test_a_session_only_ledger_states_no_head(tmp_path, capsys):
    """A report from a plain in-memory ledger says so, and verify refuses to vouch for it."""
    doc = build_html(ReportInput(ledger=Ledger([rel("x")]), artefacts=[], data={}, config_json="{}",
                                 version={"eyedp": "test"}))
    assert read_stamp(doc) is None and "states no chain head" in doc and seal_ok(doc) is None
    report = tmp_path / "r.html"
    report.write_text(doc, encoding="utf-8")
    open_ledger(tmp_path / "l.sqlite", "s")
    code, out = run(capsys, "--ledger", str(tmp_path / "l.sqlite"), str(report))
    assert code == 1 and "states no chain head" in out


def test_an_intact_store_and_its_report_pass_through_python_m(made):
    """The real entry point: exit 0, the chain intact with 7 entries, the report matching."""
    path, led, report = made
    done = subprocess.run([sys.executable, "-m", "eyedp_core.report", "verify", "--ledger", str(path), str(report)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "chain intact, 7 entries" in done.stdout and "the report matches the store" in done.stdout


def test_later_entries_keep_the_report_valid(made, capsys):
    """Recording the report's download (and later releases) extends the chain; the report still matches."""
    path, led, report = made
    led.record(EventKind.REPORT_DOWNLOAD, {"kind": "release-safe"})
    led.charge([rel("after")], 10.0)
    code, out = run(capsys, "--ledger", str(path), str(report))
    assert code == 0 and "2 later entries were added" in out


def test_a_changed_byte_is_named(made, capsys):
    """One byte of entry 5's payload changed in the file: exit 1, entry 5 named."""
    path, _, report = made
    data = bytearray(path.read_bytes())
    needle = b"release-number-2"  # entry 5: created, cap change, releases 0, 1, 2
    assert data.count(needle) == 1
    data[data.index(needle)] = ord("R")
    path.write_bytes(bytes(data))
    code, out = run(capsys, "--ledger", str(path), str(report))
    assert code == 1 and "CHAIN BROKEN at entry 5" in out and "was changed" in out
    code, out = run(capsys, "--ledger", str(path))  # without a report: every study's chain is walked
    assert code == 1 and "entry 5" in out


def _raw(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("DROP TRIGGER events_no_update")
    con.execute("DROP TRIGGER events_no_delete")
    return con


def test_a_removed_entry_is_named(made, capsys):
    """Entry 4 deleted: exit 1, 'entry 4 is missing'."""
    path, _, report = made
    _raw(path).execute("DELETE FROM events WHERE seq = 4")
    code, out = run(capsys, "--ledger", str(path), str(report))
    assert code == 1 and "entry 4 is missing" in out


def test_removing_the_last_entries_is_found_by_the_report(made, capsys):
    """The chain cannot show that its tail was cut; the report's entry count does."""
    path, _, report = made
    _raw(path).execute("DELETE FROM events WHERE seq >= 6")
    code, out = run(capsys, "--ledger", str(path))
    assert code == 0  # the store alone still reads as intact
    code, out = run(capsys, "--ledger", str(path), str(report))
    assert code == 1 and "states 7 entries but the store holds only 5" in out


def test_reordered_entries_are_named(made, capsys):
    """Entries 4 and 5 swapped: exit 1, entry 4 named as not following entry 3."""
    path, _, report = made
    con = _raw(path)
    rows = {s: r for s, *r in con.execute("SELECT seq, kind, time, payload, prev_hash, hash FROM events")}
    for seq, other in ((4, 5), (5, 4)):
        con.execute("UPDATE events SET kind = ?, time = ?, payload = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                    (*rows[other], seq))
    code, out = run(capsys, "--ledger", str(path), str(report))
    assert code == 1 and "entry 4" in out and "does not follow entry 3" in out


def test_a_rewritten_chain_does_not_match_the_report(made, capsys):
    """Entry 3's ε lowered and every later hash recomputed: the chain is intact, the report does not match."""
    path, _, report = made
    con = _raw(path)
    prev = GENESIS
    for seq, kind, when, payload in con.execute("SELECT seq, kind, time, payload FROM events ORDER BY seq").fetchall():
        if seq == 3:
            assert '"epsilon":"0.5"' in payload
            payload = payload.replace('"epsilon":"0.5"', '"epsilon":"0.05"')
        digest = entry_hash(prev, "pilot", seq, kind, when, payload)
        con.execute("UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?", (payload, prev, digest, seq))
        prev = digest
    code, out = run(capsys, "--ledger", str(path), str(report))
    assert code == 1 and "chain intact" in out and "DOES NOT MATCH" in out and "entry 7" in out


def test_an_edited_report_copy_breaks_its_seal(made, capsys, tmp_path):
    """One character of the visible text changed in a copy (a total, say): exit 1, the seal no longer matches."""
    path, _, report = made
    doc = report.read_text(encoding="utf-8")
    assert seal_ok(doc) is True
    assert "ε = 2.5" in doc  # five releases at ε = 0.5
    copy = tmp_path / "copy.html"
    copy.write_text(doc.replace("ε = 2.5", "ε = 0.5"), encoding="utf-8")
    code, out = run(capsys, "--ledger", str(path), str(copy))
    assert code == 1 and "edited after EyeDP wrote it" in out


def test_a_resealed_report_with_another_head_does_not_match(made, capsys, tmp_path):
    """A forger who knows the format changes the stated head and recomputes the seal: the store still disagrees."""
    path, led, report = made
    head = led.chain_head()
    forged = head[:10] + ("0" if head[10] != "0" else "1") + head[11:]
    doc = report.read_text(encoding="utf-8").replace(head, forged)
    digest = re.search(r'name="eyedp-report-digest" content="([0-9a-f]{64})"', doc).group(1)
    copy = tmp_path / "copy.html"
    copy.write_text(seal(doc.replace(digest, "0" * 64)), encoding="utf-8")
    assert seal_ok(copy.read_text(encoding="utf-8")) is True
    code, out = run(capsys, "--ledger", str(path), str(copy))
    assert code == 1 and "DOES NOT MATCH" in out and forged in out


def test_a_missing_ledger_is_unreadable_and_not_created(tmp_path, capsys, made):
    """A wrong path: exit 2, and no file is created there."""
    _, _, report = made
    missing = tmp_path / "nowhere.sqlite"
    code, out = run(capsys, "--ledger", str(missing), str(report))
    assert code == 2 and "no EyeDP ledger" in out and not missing.exists()


def test_verify_writes_nothing_to_the_store(made, capsys):
    """Checking reads only: the file's bytes are the same before and after."""
    path, _, report = made
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    assert run(capsys, "--ledger", str(path), str(report))[0] == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
