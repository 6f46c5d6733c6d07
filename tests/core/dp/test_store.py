"""The stored ledger: exact round trip, reopen in a new process, atomic charges across processes, crash safety,
the hash chain finding changed/removed/reordered entries, archives, foreign files (docs/PRIVACY_MODEL.md §0.6)."""
from __future__ import annotations

import hashlib
import math
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from eyedp_core.dp import budget
from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.dp.budget import BudgetExceeded
from eyedp_core.dp.ledger_codec import entry_hash
from eyedp_core.dp.store import (
    DEFAULT_STUDY,
    GENESIS,
    EventKind,
    StoredLedger,
    StoreError,
    default_ledger_path,
    list_studies,
    open_ledger,
)

ROOT = Path(__file__).resolve().parents[3]


def rel(label: str = "LPA", eps: float = 0.3, **kw) -> Release:
    return Release(view="Time series", label=label, unit=kw.pop("unit", "participant"), mechanism="laplace",
                   sensitivity_type="public", epsilon=eps, **kw)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_py(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run `code` in a fresh interpreter at the repository root (a second process, not a thread)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


ODD = [
    rel("a", 0.1 + 0.2, delta=5e-324, count=7, participants=("P01", "P02"), tuned_on_private_data=True,
        data_derived_parameters=("length T = 431, the longest recording", "B"), meaning="ε per window — ∑"),
    rel("b", math.inf, unit="chunk"),
    rel("c", 1e-300, delta=0.1 + 0.7, participants=()),
    rel("d", 2.0 ** -1074 * 3, count=10 ** 12),
    rel('<b>"e"</b>\n\\ ✓ 😀 \u0000', 0.5, participants=("P\"1", "ü")),
]


# ---------------------------------------------------------------------------------------------
# round trip and reopen


def test_releases_round_trip_exactly(tmp_path):
    """Every field of every release comes back equal, floats bit for bit (0.1 + 0.2, subnormals, ∞)."""
    led = open_ledger(tmp_path / "l.sqlite", "s")
    led.charge(ODD, None, context={"page": "time_series", "sigma": math.inf, "eps": 0.1 + 0.2})
    back = led.releases
    assert back == ODD
    assert [r.epsilon.hex() for r in back] == [r.epsilon.hex() for r in ODD]
    assert [r.delta.hex() for r in back] == [r.delta.hex() for r in ODD]
    assert led.contexts() == [{"page": "time_series", "sigma": "inf", "eps": 0.1 + 0.2}] * len(ODD)
    assert led.charges() == [[0, 1, 2, 3, 4]]
    assert isinstance(led, Ledger) and len(led) == 5 and list(led) == ODD


def test_a_charge_survives_reopen_in_a_new_process(tmp_path):
    """A second process charges; this one opens the file afresh and sees the same releases and chain head."""
    path = tmp_path / "l.sqlite"
    done = run_py("""
        import sys
        from eyedp_core.dp.store import open_ledger
        from eyedp_core.dp.accounting import Release
        led = open_ledger(sys.argv[1], "study one")
        led.charge([Release("Time series", "x", "participant", "laplace", "public", 0.1 + 0.2, 1e-9, 3,
                            ("P1",))], 10.0, context={"page": "time_series"})
        print(led.chain_head())
    """, str(path))
    assert done.returncode == 0, done.stderr
    led = open_ledger(path, "study one")
    assert led.releases == [Release("Time series", "x", "participant", "laplace", "public", 0.1 + 0.2, 1e-9, 3,
                                    ("P1",))]
    assert led.total("P1") == (3 * (0.1 + 0.2), 3 * 1e-9)
    assert led.chain_head() == done.stdout.strip()
    assert list_studies(path) == ["study one"]


def test_the_ledger_reads_other_sessions_charges_and_pickles(tmp_path):
    """Two handles on one study: a charge through one shows in the other's total at once; a handle pickles."""
    path = tmp_path / "l.sqlite"
    a, b = open_ledger(path, "s"), open_ledger(path, "s")
    a.charge([rel(eps=1.5)], 10)
    assert b.total() == (1.5, 0.0) and len(b) == 1
    c = pickle.loads(pickle.dumps(b))
    c.charge([rel(eps=2.0)], 10)
    assert a.total() == (3.5, 0.0)
    assert open_ledger(path, "other").total() == (0.0, 0.0)  # studies are separate ledgers
    assert list_studies(path) == ["s", "other"]


def test_a_snapshot_pairs_the_releases_with_the_head_they_end_at(tmp_path):
    """snapshot(): the releases, contexts, entry count and head of one moment (the head is the last entry's hash)."""
    led = open_ledger(tmp_path / "l.sqlite", "s")
    led.charge([rel("one")], None, context={"page": "heatmaps"})
    led.record(EventKind.REPORT_DOWNLOAD, {"kind": "full"})
    releases, contexts, entries, head = led.snapshot()
    assert [r.label for r in releases] == ["one"] and contexts == [{"page": "heatmaps"}]
    assert entries == 3 and head == led.events()[-1].hash == led.chain_head()


def test_budget_charge_delegates_to_the_stored_transaction(tmp_path):
    """eyedp_core.dp.budget.charge on a stored ledger refuses over the cap and stores a refusal entry."""
    led = open_ledger(tmp_path / "l.sqlite", "s")
    budget.charge(led, [rel(eps=6.0)], 10.0)
    with pytest.raises(BudgetExceeded, match="from 6 to 12"):
        budget.charge(led, [rel(eps=6.0)], 10.0)
    assert led.total() == (6.0, 0.0)
    assert [e.kind for e in led.events()] == [EventKind.STUDY_CREATED, EventKind.RELEASE, EventKind.REFUSAL]


def test_a_refused_batch_adds_nothing_and_the_stored_cap_binds(tmp_path):
    """A batch that passes the cap adds none of its entries; a stored cap lower than the caller's holds."""
    led = open_ledger(tmp_path / "l.sqlite", "s")
    with pytest.raises(BudgetExceeded):
        led.charge([rel(eps=4.0), rel(eps=4.0), rel(eps=4.0)], 10.0)
    assert len(led) == 0
    led.set_cap(2.0, "a cautious board")
    with pytest.raises(BudgetExceeded, match="cap ε ≤ 2"):
        led.charge([rel(eps=2.5)], 10.0)  # a session still holding the old cap 10 is held to 2
    refusal = led.events()[-1]
    assert refusal.kind is EventKind.REFUSAL and refusal.payload["epsilon_cap"] == "2.0"
    assert refusal.payload["releases"][0]["epsilon"] == "2.5"


# ---------------------------------------------------------------------------------------------
# concurrency and crashes

CHARGER = """
    import sys, time
    from pathlib import Path
    from eyedp_core.dp.store import open_ledger
    from eyedp_core.dp.accounting import Release
    from eyedp_core.dp.budget import BudgetExceeded
    led = open_ledger(sys.argv[1], "shared")
    go = Path(sys.argv[2])
    Path(f"{go}-{sys.argv[3]}").touch()  # ready: imported and opened
    while not go.exists():  # both processes start charging at the same moment
        time.sleep(0.001)
    accepted = 0
    for i in range(50):
        try:
            led.charge([Release("Time series", f"{sys.argv[3]}-{i}", "participant", "laplace", "public", 0.3)],
                       10.0)
            accepted += 1
        except BudgetExceeded:
            pass
        time.sleep(0.002)  # a breath between charges, as sessions take: a busy waiter gets its turn
    print(accepted)
"""


def _race(folder: Path) -> tuple[list[int], StoredLedger]:
    """Two processes charge one study at once; their accepted counts and the study's ledger afterwards."""
    folder.mkdir()
    path, go = folder / "l.sqlite", folder / "go"
    open_ledger(path, "shared")
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(CHARGER), str(path), str(go), name],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("A", "B")]
    deadline = time.monotonic() + 120
    while not all(Path(f"{go}-{n}").exists() for n in "AB") and time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            break  # one died before it was ready: its error is reported below
        time.sleep(0.005)
    go.touch()
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    return [int(o[0]) for o in outs], open_ledger(path, "shared")


def test_two_processes_charging_at_once_never_pass_the_cap(tmp_path):
    """Two processes each charge ε = 0.3 fifty times on cap 10: exactly 33 accepted (33 × 0.3 = 9.9), total ≤ 10.

    The invariants hold on every run; a run where one process took every slot before the other woke (a busy
    machine) did not race for the last ones, so up to three runs are made until both got some."""
    for attempt in range(3):
        accepted, led = _race(tmp_path / f"run{attempt}")
        assert sum(accepted) == 33 == len(led), accepted
        assert led.total()[0] <= 10.0 and led.total()[0] == pytest.approx(9.9, abs=1e-12)
        assert [e.kind for e in led.events()].count(EventKind.REFUSAL) == 100 - 33
        check = led.verify()
        assert check.ok and check.entries == 1 + 100, check.problem
        if min(accepted) > 0:
            assert {r.label[0] for r in led.releases} == {"A", "B"}
            return
    pytest.fail(f"one process charged alone in three runs (last {accepted}): the race was never exercised")


def test_threads_of_one_process_charging_at_once_never_pass_the_cap(tmp_path):
    """Sessions of one server are threads: four each charge ε = 0.3 twenty times on cap 10, 33 accepted in all."""
    path = tmp_path / "l.sqlite"
    open_ledger(path, "shared")
    accepted: list[int] = []

    def session() -> None:
        led, n = open_ledger(path, "shared"), 0
        for _ in range(20):
            try:
                led.charge([rel(eps=0.3)], 10.0)
                n += 1
            except BudgetExceeded:
                pass
        accepted.append(n)

    workers = [threading.Thread(target=session) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    led = open_ledger(path, "shared")
    assert sum(accepted) == 33 == len(led) and len(accepted) == 4
    assert led.total()[0] <= 10.0 and led.verify().ok


KILLED = """
    import sys
    from eyedp_core.dp.store import open_ledger
    from eyedp_core.dp.accounting import Release
    led = open_ledger(sys.argv[1], "crash")
    i = 0
    while True:
        led.charge([Release("Time series", f"r{i}", "participant", "laplace", "public", 0.01)], None,
                   context={"i": i, "pad": "x" * 2000})
        print("committed", i, flush=True)
        i += 1
"""


def test_a_process_killed_mid_charge_loses_nothing_committed(tmp_path):
    """SIGKILL a process charging in a loop: every charge it reported committed is stored, the chain is intact."""
    path = tmp_path / "l.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(KILLED), str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    while len(lines) < 40:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()[-2000:]
        lines.append(line)
    os.kill(proc.pid, signal.SIGKILL)
    rest, _ = proc.communicate(timeout=60)
    lines += rest.splitlines()
    printed = [int(x.split()[1]) for x in lines if x.startswith("committed")]
    assert printed == list(range(len(printed))) and len(printed) >= 40
    led = open_ledger(path, "crash")
    stored = [r.label for r in led.releases]
    # the charge in flight at the kill may have committed before its print: at most one more than printed
    assert stored[:len(printed)] == [f"r{i}" for i in printed]
    assert len(printed) <= len(stored) <= len(printed) + 1
    check = led.verify()
    assert check.ok, check.problem
    assert check.entries == 1 + len(stored)


# ---------------------------------------------------------------------------------------------
# the hash chain


def _filled(tmp_path: Path) -> tuple[Path, StoredLedger]:
    path = tmp_path / "l.sqlite"
    led = open_ledger(path, "s")
    for i in range(5):
        led.charge([rel(f"release-number-{i}")], None)
    return path, led


def _raw(path: Path) -> sqlite3.Connection:
    """A plain connection that drops the append-only triggers, as anyone holding the file could."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("DROP TRIGGER events_no_update")
    con.execute("DROP TRIGGER events_no_delete")
    return con


def test_the_chain_links_every_entry_to_the_one_before(tmp_path):
    """Each stored hash is SHA-256 over [prev_hash, study, seq, kind, time, payload], recomputed independently."""
    path, led = _filled(tmp_path)
    rows = sqlite3.connect(path).execute("SELECT seq, kind, time, payload, prev_hash, hash FROM events "
                                         "WHERE study = 's' ORDER BY seq").fetchall()
    prev = GENESIS
    for seq, kind, when, payload, prev_hash, digest in rows:
        text = '["' + prev + '","s",' + str(seq) + ',"' + kind + '","' + when + '",' + _json_str(payload) + "]"
        assert prev_hash == prev and digest == hashlib.sha256(text.encode()).hexdigest()
        assert digest == entry_hash(prev, "s", seq, kind, when, payload)
        prev = digest
    check = led.verify()
    assert check.ok and check.entries == 6 and check.head == prev == led.chain_head()


def _json_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_sql_cannot_change_or_delete_an_entry(tmp_path):
    """The triggers refuse UPDATE and DELETE of entries: the store is append-only."""
    path, _ = _filled(tmp_path)
    con = sqlite3.connect(path)
    for sql in ("UPDATE events SET payload = '{}' WHERE seq = 2", "DELETE FROM events WHERE seq = 2"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            con.execute(sql)
    con.close()


def test_a_changed_byte_in_the_file_is_found_and_named(tmp_path):
    """One byte of entry 4's payload flipped in the file itself: verify fails and names entry 4."""
    path, led = _filled(tmp_path)
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    data = bytearray(path.read_bytes())
    needle = b"release-number-2"  # entry 4: study created, then releases 0, 1, 2
    assert data.count(needle) == 1
    at = data.index(needle) + len(b"release-number-")
    data[at] = ord("7")
    path.write_bytes(bytes(data))
    check = led.verify()
    assert not check.ok and check.bad_entry == 4
    assert check.problem.startswith("entry 4 (release,") and "changed" in check.problem


def test_a_removed_entry_is_found_and_named(tmp_path):
    """Entry 3 deleted behind the triggers' back: verify names entry 3 as missing."""
    path, led = _filled(tmp_path)
    _raw(path).execute("DELETE FROM events WHERE study = 's' AND seq = 3")
    check = led.verify()
    assert not check.ok and check.bad_entry == 3 and "entry 3 is missing" in check.problem


def test_reordered_entries_are_found_and_named(tmp_path):
    """Entries 3 and 4 swapped (contents exchanged between their places): verify names entry 3."""
    path, led = _filled(tmp_path)
    con = _raw(path)
    rows = {seq: row for seq, *row in con.execute("SELECT seq, kind, time, payload, prev_hash, hash FROM events")}
    for seq, other in ((3, 4), (4, 3)):
        con.execute("UPDATE events SET kind = ?, time = ?, payload = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                    (*rows[other], seq))
    check = led.verify()
    assert not check.ok and check.bad_entry == 3 and "does not follow entry 2" in check.problem


def test_a_rehashed_forgery_still_differs_from_the_head_a_report_stated(tmp_path):
    """A forger who rewrites an entry and recomputes every later hash gets an intact chain with another head."""
    path, led = _filled(tmp_path)
    stated = led.chain_position()
    con = _raw(path)
    rows = con.execute("SELECT seq, kind, time, payload FROM events WHERE study = 's' ORDER BY seq").fetchall()
    prev = GENESIS
    for seq, kind, when, payload in rows:
        payload = payload.replace('"epsilon":"0.3"', '"epsilon":"0.1"') if seq == 2 else payload
        digest = entry_hash(prev, "s", seq, kind, when, payload)
        con.execute("UPDATE events SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?", (payload, prev, digest, seq))
        prev = digest
    assert led.verify().ok and open_ledger(path, "s").releases[0].epsilon == 0.1
    assert led.entry_hash_at(stated[0]) != stated[1]


# ---------------------------------------------------------------------------------------------
# archive, cap history, records


def test_archive_starts_afresh_and_keeps_the_old_entries(tmp_path):
    """After an archive the totals count only later releases; every earlier entry stays readable."""
    led = open_ledger(tmp_path / "l.sqlite", "s")
    led.charge([rel("old", 4.0, participants=("P1",))], 10, context={"page": "heatmaps"})
    led.archive("pilot finished, new consent forms")
    assert led.total() == (0.0, 0.0) and led.releases == [] and led.contexts() == []
    led.charge([rel("new", 1.0)], 10)
    assert led.total() == (1.0, 0.0) and [r.label for r in led.releases] == ["new"]
    events = led.events()
    assert [e.kind for e in events] == [EventKind.STUDY_CREATED, EventKind.RELEASE, EventKind.ARCHIVE,
                                        EventKind.RELEASE]
    assert events[1].payload["release"]["label"] == "old" and events[1].payload["context"] == {"page": "heatmaps"}
    assert events[2].payload == {"reason": "pilot finished, new consent forms", "releases_archived": 1,
                                 "epsilon_total": "4.0", "delta_total": "0.0"}
    led.clear()  # the plain Ledger's clear is an archive entry too
    assert len(led) == 0 and led.events()[-1].kind is EventKind.ARCHIVE and len(led.events()) == 5
    assert led.verify().ok


def test_cap_history_keeps_every_change_with_its_reason(tmp_path):
    """Raise and lower: the history lists both with the previous cap, the reason and a UTC time."""
    led = open_ledger(tmp_path / "l.sqlite", DEFAULT_STUDY)
    assert led.cap() is None and led.cap_history() == []
    led.set_cap(10)
    led.set_cap(100, "one large release for the pilot")
    led.set_cap(10, "back to the board's limit")
    hist = led.cap_history()
    assert [(e.payload["epsilon_cap"], e.payload["previous"], e.payload["reason"]) for e in hist] == [
        ("10.0", None, ""), ("100.0", "10.0", "one large release for the pilot"),
        ("10.0", "100.0", "back to the board's limit")]
    assert all(e.time.endswith("+00:00") for e in hist) and led.cap() == 10.0
    with pytest.raises(ValueError):
        led.set_cap(float("nan"))


def test_record_appends_only_the_kinds_without_their_own_rules(tmp_path):
    """A report download is recorded; a release cannot be recorded around the cap check."""
    led = open_ledger(tmp_path / "l.sqlite", "s")
    ev = led.record(EventKind.REPORT_DOWNLOAD, {"kind": "release-safe", "entries": 1})
    assert ev.seq == 2 and ev.payload == {"kind": "release-safe", "entries": 1} and led.chain_head() == ev.hash
    for kind in (EventKind.RELEASE, EventKind.CAP_CHANGE, EventKind.ARCHIVE, EventKind.STUDY_CREATED):
        with pytest.raises(ValueError):
            led.record(kind, {})
    assert len(led.events()) == 2


# ---------------------------------------------------------------------------------------------
# the file


def test_a_foreign_sqlite_file_is_refused_and_left_unchanged(tmp_path):
    """Someone else's database: StoreError naming the file; its bytes and folder are untouched."""
    path = tmp_path / "theirs.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE patients (name TEXT)")
    con.execute("INSERT INTO patients VALUES ('x')")
    con.commit()
    con.close()
    before, listing = sha(path), sorted(os.listdir(tmp_path))
    with pytest.raises(StoreError, match="not an EyeDP ledger"):
        open_ledger(path, "s")
    with pytest.raises(StoreError, match="not an EyeDP ledger"):
        list_studies(path)
    assert sha(path) == before and sorted(os.listdir(tmp_path)) == listing


@pytest.mark.parametrize("content", [b"\x00garbage\xff" * 500, b"SQLite format 3\x00" + b"\xa5" * 8000],
                         ids=["garbage", "sqlite-header-then-garbage"])
def test_a_garbage_file_is_refused_and_left_unchanged(tmp_path, content):
    """A file that is not a database (or a damaged one): StoreError with a clear message, bytes unchanged."""
    path = tmp_path / "ledger.sqlite"
    path.write_bytes(content)
    before = sha(path)
    with pytest.raises(StoreError, match=str(path.name)) as err:
        open_ledger(path, "s")
    assert "left unchanged" in str(err.value)
    assert sha(path) == before


def test_a_truncated_ledger_is_refused_and_left_unchanged(tmp_path):
    """An EyeDP ledger cut to half its size (a bad copy): StoreError saying it is damaged, for an existing or a new
    study, its bytes unchanged."""
    path = tmp_path / "l.sqlite"
    led = open_ledger(path, "s")
    for i in range(200):
        led.charge([rel(f"entry {i} " + "x" * 200, 0.001)], None)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    before = sha(path)
    for study in ("s", "a new one"):
        with pytest.raises(StoreError, match="damaged"):
            open_ledger(path, study)
    assert sha(path) == before


def test_a_newer_schema_is_refused(tmp_path):
    """A ledger written by a newer schema version is not read with the old rules."""
    path = tmp_path / "l.sqlite"
    open_ledger(path, "s")
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("DROP TRIGGER meta_no_update")
    con.execute("UPDATE eyedp_meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(StoreError, match="newer EyeDP"):
        open_ledger(path, "s")


def test_opening_without_create_writes_nothing(tmp_path):
    """create=False (as verify opens) refuses a missing file or study and creates neither."""
    path = tmp_path / "l.sqlite"
    with pytest.raises(StoreError, match="no EyeDP ledger"):
        open_ledger(path, "s", create=False)
    assert not path.exists()
    open_ledger(path, "s")
    with pytest.raises(StoreError, match="no study named 'other'"):
        open_ledger(path, "other", create=False)
    assert list_studies(path) == ["s"]


def test_the_default_path_follows_the_environment(tmp_path, monkeypatch):
    """EYEDP_LEDGER names the file (its folder created); without it the file is eyedp_data/ledger.sqlite."""
    monkeypatch.setenv("EYEDP_LEDGER", str(tmp_path / "deep" / "x.sqlite"))
    assert default_ledger_path() == tmp_path / "deep" / "x.sqlite" and (tmp_path / "deep").is_dir()
    monkeypatch.delenv("EYEDP_LEDGER")
    assert default_ledger_path().parts[-2:] == ("eyedp_data", "ledger.sqlite")


def test_study_names_are_checked(tmp_path):
    """An empty or multi-line study name is refused before anything is written."""
    for bad in ("", "  ", "a\nb"):
        with pytest.raises(ValueError):
            open_ledger(tmp_path / "l.sqlite", bad)
    assert not (tmp_path / "l.sqlite").exists()
