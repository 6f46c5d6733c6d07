"""The stored ledger: one study's releases in an append-only, hash-chained SQLite file (PRIVACY_MODEL.md §0.6).

Every session that opens a study reads and charges the same ledger. The check against the cap and the insert of
the releases are one `BEGIN IMMEDIATE` transaction, so sessions and processes charging at once can never together
pass the cap; WAL journalling with `synchronous=FULL` keeps every committed entry through a crash. Each entry
stores its canonical JSON payload, the previous entry's SHA-256 and its own (a hash chain per study), so a changed,
removed or reordered entry is found by `verify` and named by its sequence number. Nothing is updated or deleted:
triggers refuse it, and an archive is an entry after which the totals start afresh.
Only standard-library modules: the store holds what the ledger holds (never uploaded data).
"""
from __future__ import annotations

import enum
import json
import math
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Ledger, PersonTotal, Release
from eyedp_core.dp.budget import BudgetExceeded, refusal
from eyedp_core.dp.ledger_codec import (
    canonical_json,
    entry_hash,
    float_text,
    plain_json,
    release_from_json,
    release_to_json,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "APP_ID",
    "DEFAULT_STUDY",
    "GENESIS",
    "SCHEMA_VERSION",
    "ChainCheck",
    "EventKind",
    "LedgerEvent",
    "StoreError",
    "StoredLedger",
    "default_ledger_path",
    "list_studies",
    "open_ledger",
]

DEFAULT_STUDY = "bundled samples"
# The file's magic: SQLite's application_id header field ("EYDP") and a row of the meta table say it is ours.
APP_ID = 0x45594450
APP_NAME = "eyedp-ledger"
SCHEMA_VERSION = 1
# prev_hash of a study's first entry.
GENESIS = "0" * 64
# Seconds a writer waits for another session's transaction before giving up (charges take milliseconds).
BUSY_TIMEOUT_S = 30.0
ENV_VAR = "EYEDP_LEDGER"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_MAX_STUDY_NAME = 200

_SCHEMA = (
    "CREATE TABLE eyedp_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # id: the file's insertion order; seq: 1, 2, ... within the study, the number verify names an entry by.
    "CREATE TABLE events (id INTEGER PRIMARY KEY, study TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, "
    "time TEXT NOT NULL, payload TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE (study, seq))",
    "CREATE INDEX events_kind ON events (study, kind, seq)",
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events "
    "BEGIN SELECT RAISE(ABORT, 'EyeDP ledger entries are append-only: an entry cannot be changed'); END",
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events "
    "BEGIN SELECT RAISE(ABORT, 'EyeDP ledger entries are append-only: an entry cannot be deleted'); END",
    "CREATE TRIGGER meta_no_update BEFORE UPDATE ON eyedp_meta "
    "BEGIN SELECT RAISE(ABORT, 'the EyeDP ledger header cannot be changed'); END",
    "CREATE TRIGGER meta_no_delete BEFORE DELETE ON eyedp_meta "
    "BEGIN SELECT RAISE(ABORT, 'the EyeDP ledger header cannot be deleted'); END",
)


class StoreError(RuntimeError):
    """The ledger file cannot be used: not an EyeDP ledger, corrupt, from a newer EyeDP, or not reachable."""


class EventKind(enum.Enum):
    """What one stored entry records."""

    STUDY_CREATED = "study_created"
    RELEASE = "release"
    REFUSAL = "refusal"
    CAP_CHANGE = "cap_change"
    ARCHIVE = "archive"
    REPORT_DOWNLOAD = "report_download"


# Kinds `record` may append; the others have their own method, which keeps their rules (the cap check, etc.).
_RECORDABLE = (EventKind.REFUSAL, EventKind.REPORT_DOWNLOAD)


@dataclass(frozen=True)
class LedgerEvent:
    """One stored entry: its number in the study, kind, UTC time, payload and the hash chain's two links."""

    seq: int
    kind: EventKind
    time: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str
    study: str = DEFAULT_STUDY


@dataclass(frozen=True)
class ChainCheck:
    """The result of walking one study's hash chain: ok, how many entries, the head, the first problem."""

    ok: bool
    entries: int
    head: str
    problem: str | None = None
    bad_entry: int | None = None  # sequence number of the first bad entry (None when ok)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


# ---------------------------------------------------------------------------------------------
# the file


def default_ledger_path() -> Path:
    """$EYEDP_LEDGER if set, else eyedp_data/ledger.sqlite under the source checkout (or the working folder)."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        path = Path(env).expanduser()
    else:
        root = Path(__file__).resolve().parents[2]
        base = root if (root / "pyproject.toml").is_file() else Path.cwd()
        path = base / "eyedp_data" / "ledger.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _connect(path: Path) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as err:
        raise StoreError(f"{path}: the ledger file cannot be opened ({err}).") from err
    con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    # FULL: a commit is on disk before charge() returns, so a crash (even of the machine) loses nothing committed.
    con.execute("PRAGMA synchronous = FULL")
    return con


def _check_header(path: Path) -> bool:
    """Path -> True when it holds an EyeDP ledger, False when it is missing or empty; StoreError for anything else.

    Reads only: a foreign or corrupt file is never written to."""
    if not path.exists():
        return False
    if path.is_dir():
        raise StoreError(f"{path}: is a folder, not an EyeDP ledger file.")
    try:
        with path.open("rb") as fh:
            head = fh.read(len(_SQLITE_MAGIC))
    except OSError as err:
        raise StoreError(f"{path}: cannot be read ({err}).") from err
    if not head:
        return False  # an empty file holds nothing to lose: it becomes a new ledger
    if head != _SQLITE_MAGIC:
        raise StoreError(f"{path}: is not an EyeDP ledger (not an SQLite database: its first bytes are "
                         f"{head[:8]!r}). Point EYEDP_LEDGER at another file; this one was left unchanged.")
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            app_id = con.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            meta = (dict(con.execute("SELECT key, value FROM eyedp_meta").fetchall())
                    if "eyedp_meta" in tables else {})
        finally:
            con.close()
    except sqlite3.DatabaseError as err:
        raise StoreError(f"{path}: is damaged or not an EyeDP ledger (SQLite says: {err}). It was left "
                         "unchanged; restore it from a backup or point EYEDP_LEDGER at another file.") from err
    if app_id == 0 and not tables:
        return False  # a database with nothing in it (e.g. created by a process killed before its first commit)
    if app_id != APP_ID or meta.get("app") != APP_NAME or "events" not in tables:
        raise StoreError(f"{path}: is an SQLite database but not an EyeDP ledger (application id {app_id:#x}, "
                         f"tables {sorted(tables)}). It was left unchanged; point EYEDP_LEDGER at another file.")
    try:
        version = int(meta.get("schema_version", "0"))
    except ValueError:
        version = -1
    if version != SCHEMA_VERSION:
        newer = version > SCHEMA_VERSION
        raise StoreError(f"{path}: an EyeDP ledger of schema version {meta.get('schema_version')!r}; this EyeDP "
                         f"reads version {SCHEMA_VERSION}" + (" (the file was made by a newer EyeDP)." if newer else "."))
    return True


def _create(path: Path) -> None:
    """Make the schema in a new (missing or empty) file; several processes may race here, one creates."""
    path.parent.mkdir(parents=True, exist_ok=True)
    con = _connect(path)
    try:
        con.execute("PRAGMA journal_mode = WAL")  # persistent in the file: every later connection writes a WAL
        con.execute("BEGIN IMMEDIATE")
        try:
            if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'eyedp_meta'").fetchone() is None:
                for stmt in _SCHEMA:
                    con.execute(stmt)
                con.execute(f"PRAGMA application_id = {APP_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                con.executemany("INSERT INTO eyedp_meta (key, value) VALUES (?, ?)",
                                [("app", APP_NAME), ("schema_version", str(SCHEMA_VERSION)), ("created", _now())])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as err:
        raise StoreError(f"{path}: a new ledger could not be created ({err}).") from err
    finally:
        con.close()


def _study_name(study: str) -> str:
    name = str(study).strip()
    if not name:
        raise ValueError("a study needs a name (for example 'bundled samples')")
    if len(name) > _MAX_STUDY_NAME or any(ord(c) < 32 for c in name):
        raise ValueError(f"a study name is one line of at most {_MAX_STUDY_NAME} characters, got {study!r}")
    return name


def open_ledger(path: str | os.PathLike, study: str, *, create: bool = True) -> StoredLedger:
    """Ledger file and study name in, the study's stored ledger out (file and study created on first use).

    create=False opens an existing study only (StoreError otherwise) and writes nothing, as `verify` needs."""
    p = Path(path).expanduser()
    name = _study_name(study)
    if not _check_header(p):
        if not create:
            raise StoreError(f"{p}: there is no EyeDP ledger at this path.")
        _create(p)
    ledger = StoredLedger(p, name)
    if not ledger._exists():
        if not create:
            raise StoreError(f"{p}: holds no study named {name!r} (it holds: {', '.join(list_studies(p)) or 'none'}).")
        ledger._ensure_study()
    return ledger


def list_studies(path: str | os.PathLike) -> list[str]:
    """Ledger file in, the names of its studies in the order they were created out (empty for no file)."""
    p = Path(path).expanduser()
    if not _check_header(p):
        return []
    con = _connect(p)
    try:
        rows = con.execute("SELECT study FROM events WHERE kind = ? ORDER BY id",
                           (EventKind.STUDY_CREATED.value,)).fetchall()
    except sqlite3.DatabaseError as err:
        raise StoreError(f"{p}: the list of studies cannot be read ({err}).") from err
    finally:
        con.close()
    return list(dict.fromkeys(r[0] for r in rows))


# ---------------------------------------------------------------------------------------------
# the study's ledger


class StoredLedger(Ledger):
    """A study's ledger kept in the SQLite file: the `Ledger` interface, re-read from the file on each access.

    Holds only the path, the study name and a cache keyed on the last entry's number (no connection), so it
    pickles and works from any thread; every operation opens its own short connection."""

    def __init__(self, path: Path, study: str) -> None:  # open_ledger makes these (it checks the file first)
        self.path = Path(path)
        self.study = study
        self._cache_seq = -1
        self._cache: tuple[list[Release], list[dict[str, Any]], list[float | None], list[int],
                           list[tuple[Accountant, float | None]]] = ([], [], [], [], [])

    def __repr__(self) -> str:
        return f"StoredLedger({str(self.path)!r}, study={self.study!r})"

    # --- connections and transactions

    def _con(self) -> sqlite3.Connection:
        return _connect(self.path)

    def _fail(self, what: str, err: sqlite3.Error) -> StoreError:
        return StoreError(f"{self.path}: {what} failed for study {self.study!r} (SQLite says: {err}); if this "
                          "persists the file is damaged: it is left as it is, restore it from a backup.")

    def _exists(self) -> bool:
        con = self._con()
        try:
            return con.execute("SELECT 1 FROM events WHERE study = ? LIMIT 1", (self.study,)).fetchone() is not None
        except sqlite3.DatabaseError as err:
            raise self._fail("reading", err) from err
        finally:
            con.close()

    def _ensure_study(self) -> None:
        def create(con: sqlite3.Connection) -> None:
            if con.execute("SELECT 1 FROM events WHERE study = ? LIMIT 1", (self.study,)).fetchone() is None:
                self._append(con, EventKind.STUDY_CREATED, {"study": self.study})
        self._write("creating the study", create)

    def _write(self, what: str, body):  # body(con) runs inside one BEGIN IMMEDIATE transaction
        con = self._con()
        try:
            con.execute("BEGIN IMMEDIATE")  # takes the write lock now: no other writer between our read and insert
            try:
                out = body(con)
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
            return out
        except sqlite3.DatabaseError as err:
            raise self._fail(what, err) from err
        finally:
            con.close()

    def _append(self, con: sqlite3.Connection, kind: EventKind, payload: Mapping[str, Any]) -> LedgerEvent:
        """Insert one entry after the study's last (call inside a write transaction)."""
        last = con.execute("SELECT seq, hash FROM events WHERE study = ? ORDER BY seq DESC LIMIT 1",
                           (self.study,)).fetchone()
        seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
        text = canonical_json(payload)
        time = _now()
        digest = entry_hash(prev, self.study, seq, kind.value, time, text)
        con.execute("INSERT INTO events (study, seq, kind, time, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (self.study, seq, kind.value, time, text, prev, digest))
        return LedgerEvent(seq, kind, time, json.loads(text), prev, digest, self.study)

    # --- reading

    @staticmethod
    def _live_rows(con: sqlite3.Connection, study: str) -> list[tuple[int, str]]:
        """(seq, payload) of the study's releases after its last archive, oldest first."""
        return con.execute(
            "SELECT seq, payload FROM events WHERE study = ? AND kind = ? AND seq > "
            "(SELECT COALESCE(MAX(seq), 0) FROM events WHERE study = ? AND kind = ?) ORDER BY seq",
            (study, EventKind.RELEASE.value, study, EventKind.ARCHIVE.value)).fetchall()

    def _decode(self, seq: int, text: str) -> dict[str, Any]:
        try:
            value = json.loads(text)
        except ValueError as err:
            raise StoreError(f"{self.path}: entry {seq} of study {self.study!r} is unreadable ({err}); run "
                             "`python -m eyedp_core.report verify --ledger PATH` to check the chain.") from err
        if not isinstance(value, dict):
            raise StoreError(f"{self.path}: entry {seq} of study {self.study!r} is not a JSON object.")
        return value

    def _live(self) -> tuple[list[Release], list[dict[str, Any]], list[float | None], list[int],
                             list[tuple[Accountant, float | None]]]:
        """The releases since the last archive with their contexts, caps, charge ids and the accountant (with its
        δ cap) each was charged under (cached per last entry)."""
        con = self._con()
        try:
            con.execute("BEGIN")  # one read snapshot: the rows are exactly those up to `last`
            last = con.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE study = ?", (self.study,)).fetchone()[0]
            rows = [] if last == self._cache_seq else self._live_rows(con, self.study)
            con.execute("COMMIT")
            if last == self._cache_seq:
                return self._cache
        except sqlite3.DatabaseError as err:
            raise self._fail("reading", err) from err
        finally:
            con.close()
        releases, contexts, caps, charges, accountings = [], [], [], [], []
        for seq, text in rows:
            data = self._decode(seq, text)
            try:
                releases.append(release_from_json(data["release"]))
            except (KeyError, TypeError, ValueError) as err:
                raise StoreError(f"{self.path}: entry {seq} of study {self.study!r} is not a valid release "
                                 f"({err}).") from err
            contexts.append(dict(data.get("context") or {}))
            cap = data.get("epsilon_cap")
            caps.append(None if cap is None else float(cap))
            charges.append(int(data.get("charge", seq)))
            dcap = data.get("delta_cap")  # entries charged before accountants were recorded: basic composition
            accountings.append((Accountant(data.get("accountant", Accountant.BASIC.value)),
                                None if dcap is None else float(dcap)))
        self._cache_seq, self._cache = last, (releases, contexts, caps, charges, accountings)
        return self._cache

    @property
    def _releases(self) -> list[Release]:  # what every inherited Ledger method reads
        return list(self._live()[0])

    @property
    def releases(self) -> list[Release]:
        """The study's releases since its last archive, oldest first (re-read: other sessions' charges show)."""
        return list(self._live()[0])

    def _snapshot(self) -> Ledger:
        live = self._live()
        led = Ledger(live[0])
        for accountant, delta_cap in live[4]:
            led.note_accounting(accountant, delta_cap)
        return led

    def stated(self, all_participants: Sequence[str] | None = None) -> PersonTotal:
        """As Ledger.stated, on one consistent read of the store."""
        return self._snapshot().stated(all_participants)

    def accounting(self) -> tuple[Accountant, float | None]:
        """The accountant the study's totals are stated under: zCDP (at its δ cap) once a release since the last
        archive was charged under it, else basic composition."""
        return self._snapshot().accounting()

    def accountings(self) -> list[tuple[Accountant, float | None]]:
        """Per release entry (aligned with `releases`), the accountant and δ cap its charge was checked under."""
        return list(self._live()[4])

    def __len__(self) -> int:
        return len(self._live()[0])

    def __iter__(self) -> Iterator[Release]:
        return iter(list(self._live()[0]))

    def total(self, participant: str | None = None, all_participants: Sequence[str] | None = None, *,
              accountant: Accountant = Accountant.BASIC, delta_cap: float | None = None) -> tuple[float, float]:
        """Participant id (or None) in, composed (ε, δ) over the releases since the last archive out."""
        return self._snapshot().total(participant, all_participants, accountant=accountant, delta_cap=delta_cap)

    def worst_case(self, participant: str | None = None, all_participants: Sequence[str] | None = None, *,
                   accountant: Accountant = Accountant.BASIC, delta_cap: float | None = None) -> PersonTotal:
        """As Ledger.worst_case, on one consistent read of the store."""
        return self._snapshot().worst_case(participant, all_participants, accountant=accountant, delta_cap=delta_cap)

    def per_participant(self, all_participants: Sequence[str] | None = None, *,
                        accountant: Accountant = Accountant.BASIC, delta_cap: float | None = None) -> pd.DataFrame:
        """As Ledger.per_participant, on one consistent read of the store."""
        return self._snapshot().per_participant(all_participants, accountant=accountant, delta_cap=delta_cap)

    def to_frame(self) -> pd.DataFrame:
        """As Ledger.to_frame, on one consistent read of the store."""
        return self._snapshot().to_frame()

    def warnings(self) -> list[str]:
        """As Ledger.warnings, on one consistent read of the store."""
        return self._snapshot().warnings()

    def contexts(self) -> list[dict[str, Any]]:
        """Per release entry (aligned with `releases`), the context stored with it (empty dict if none)."""
        return [dict(c) for c in self._live()[1]]

    def caps_at_charge(self) -> list[float | None]:
        """Per release entry (aligned with `releases`), the ε cap it was checked against (None: no cap)."""
        return list(self._live()[2])

    def charges(self) -> list[list[int]]:
        """The releases grouped as charged: lists of indices into `releases`, one list per `charge` call."""
        groups: dict[int, list[int]] = {}
        for i, charge_id in enumerate(self._live()[3]):
            groups.setdefault(charge_id, []).append(i)
        return list(groups.values())

    def events(self) -> list[LedgerEvent]:
        """Every entry of the study in order, archived ones included (nothing is ever deleted)."""
        return self._events()

    def _events(self, kind: EventKind | None = None) -> list[LedgerEvent]:
        sql = "SELECT seq, kind, time, payload, prev_hash, hash FROM events WHERE study = ?"
        args: tuple[Any, ...] = (self.study,)
        if kind is not None:
            sql += " AND kind = ?"
            args += (kind.value,)
        con = self._con()
        try:
            rows = con.execute(sql + " ORDER BY seq", args).fetchall()
        except sqlite3.DatabaseError as err:
            raise self._fail("reading", err) from err
        finally:
            con.close()
        out = []
        for seq, kind_text, time, text, prev, digest in rows:
            try:
                k = EventKind(kind_text)
            except ValueError as err:
                raise StoreError(f"{self.path}: entry {seq} of study {self.study!r} has an unknown kind "
                                 f"{kind_text!r}.") from err
            out.append(LedgerEvent(seq, k, time, self._decode(seq, text), prev, digest, self.study))
        return out

    def cap(self) -> float | None:
        """The study's ε cap per person: the latest cap change (None before any)."""
        history = self._events(EventKind.CAP_CHANGE)
        return float(history[-1].payload["epsilon_cap"]) if history else None

    def cap_history(self) -> list[LedgerEvent]:
        """Every cap change of the study, oldest first (payload: epsilon_cap, previous, reason)."""
        return self._events(EventKind.CAP_CHANGE)

    def snapshot(self) -> tuple[list[Release], list[dict[str, Any]], int, str]:
        """(releases since the last archive, their contexts, number of entries, chain head) as of one moment, so a
        report's releases and the head it states belong together even while other sessions charge."""
        for _ in range(100):
            entries, head = self.chain_position()
            releases, contexts = self._live()[:2]
            if self._cache_seq == entries:  # no entry was added between the two reads
                return list(releases), [dict(c) for c in contexts], entries, head
        raise StoreError(f"{self.path}: study {self.study!r} changed on every read; try again.")

    def snapshot_ledger(self) -> tuple[Ledger, int, str]:
        """(a plain ledger of the releases since the last archive, with the accountant they were charged under,
        number of entries, chain head) as of one moment, as a report states them."""
        for _ in range(100):
            entries, head = self.chain_position()
            led = self._snapshot()
            if self._cache_seq == entries:  # no entry was added between the two reads
                return led, entries, head
        raise StoreError(f"{self.path}: study {self.study!r} changed on every read; try again.")

    def chain_head(self) -> str:
        """Hex SHA-256 of the study's last entry (GENESIS for a study without entries)."""
        return self.chain_position()[1]

    def chain_position(self) -> tuple[int, str]:
        """(number of entries, hash of the last) read together, as a report states them."""
        con = self._con()
        try:
            row = con.execute("SELECT seq, hash FROM events WHERE study = ? ORDER BY seq DESC LIMIT 1",
                              (self.study,)).fetchone()
        except sqlite3.DatabaseError as err:
            raise self._fail("reading", err) from err
        finally:
            con.close()
        return (int(row[0]), str(row[1])) if row else (0, GENESIS)

    def entry_hash_at(self, seq: int) -> str | None:
        """The stored hash of entry `seq` (None when the study has no such entry)."""
        con = self._con()
        try:
            row = con.execute("SELECT hash FROM events WHERE study = ? AND seq = ?", (self.study, int(seq))).fetchone()
        except sqlite3.DatabaseError as err:
            raise self._fail("reading", err) from err
        finally:
            con.close()
        return None if row is None else str(row[0])

    def verify(self) -> ChainCheck:
        """Walk the study's chain: every entry's hash recomputed, linked to the one before, numbered 1, 2, ...

        Names the first bad entry: changed content, a gap (removed entry) or a broken link (reordered entries)."""
        con = self._con()
        try:
            rows = con.execute("SELECT seq, kind, time, payload, prev_hash, hash FROM events WHERE study = ? "
                               "ORDER BY seq", (self.study,)).fetchall()
        except sqlite3.DatabaseError as err:
            return ChainCheck(False, 0, GENESIS, f"the file cannot be read ({err})", None)
        finally:
            con.close()
        prev, expected = GENESIS, 1
        for seq, kind, time, text, prev_hash, digest in rows:
            where = f"entry {seq} ({kind}, {time})"
            if not isinstance(seq, int) or seq != expected:
                what = (f"entry {expected} is missing (the entries jump from {expected - 1} to {seq})"
                        if isinstance(seq, int) and seq > expected else f"{where} is out of order")
                return ChainCheck(False, len(rows), prev, what, expected)
            if prev_hash != prev:
                return ChainCheck(False, len(rows), prev, f"{where} does not follow entry {seq - 1}: its link to the "
                                  "previous entry does not match (an entry before it was removed, changed or moved)",
                                  seq)
            if entry_hash(str(prev_hash), self.study, seq, str(kind), str(time), str(text)) != digest:
                return ChainCheck(False, len(rows), prev, f"{where} was changed: its content does not match its "
                                  "hash", seq)
            prev, expected = str(digest), expected + 1
        return ChainCheck(True, len(rows), prev, None, None)

    # --- writing

    def charge(self, releases: Sequence[Release], epsilon_cap: float | None, delta_cap: float | None = None,
               *, context: Mapping[str, Any] | None = None, accountant: Accountant = Accountant.BASIC) -> None:
        """Check the releases against the cap and store them, in one transaction; BudgetExceeded when refused.

        The cap checked is the stricter of `epsilon_cap` and the study's stored cap (so a cap another session
        lowered holds here at once, and raising a cap leaves an entry through `set_cap`), for every person the
        releases cover, under `accountant` (zCDP needs `delta_cap`); a non-basic accountant is stored with each
        entry (absent: basic, as every entry made before accountants were recorded). A refusal stores a
        REFUSAL entry, which charges nothing."""
        acct = Accountant(accountant)
        if acct is Accountant.ZCDP and delta_cap is None:
            raise ValueError("a charge under the zCDP accountant needs its δ cap")
        counted = {} if acct is Accountant.BASIC else {"accountant": acct.value}
        batch = list(releases)
        for r in batch:
            if not isinstance(r, Release):
                raise TypeError(f"expected Release entries, got {type(r).__name__}")
        if not batch:
            return
        ctx = plain_json(dict(context or {}))

        def body(con: sqlite3.Connection) -> str | None:
            stored = con.execute("SELECT payload FROM events WHERE study = ? AND kind = ? ORDER BY seq DESC LIMIT 1",
                                 (self.study, EventKind.CAP_CHANGE.value)).fetchone()
            cap = epsilon_cap
            if stored is not None:
                stored_cap = float(json.loads(stored[0])["epsilon_cap"])
                cap = stored_cap if cap is None else min(float(cap), stored_cap)
            last = con.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE study = ?", (self.study,)).fetchone()[0]
            if last == self._cache_seq:  # the write lock is held: entries up to `last` are the ones cached
                now = Ledger(self._cache[0])
            else:
                now = Ledger(release_from_json(self._decode(seq, text)["release"])
                             for seq, text in self._live_rows(con, self.study))
            why = refusal(now, batch, cap, delta_cap, acct)
            if why is not None:
                self._append(con, EventKind.REFUSAL, {
                    "reason": why, "releases": [release_to_json(r) for r in batch], "context": ctx,
                    "epsilon_cap": float_text(cap), "delta_cap": float_text(delta_cap), **counted})
                return why
            first = None
            for i, r in enumerate(batch):
                payload = {"release": release_to_json(r), "context": ctx, "epsilon_cap": float_text(cap),
                           "delta_cap": float_text(delta_cap), "part": i + 1, "parts": len(batch), **counted}
                if first is not None:
                    payload["charge"] = first
                event = self._append(con, EventKind.RELEASE, payload)
                first = event.seq if first is None else first
            return None

        why = self._write("charging", body)
        if why is not None:
            raise BudgetExceeded(why)

    def add(self, release: Release) -> None:
        """Release in, stored (the plain Ledger's add): checked against the study's stored cap only, if any."""
        if not isinstance(release, Release):
            raise TypeError(f"expected a Release, got {type(release).__name__}")
        self.charge([release], None)

    def set_cap(self, epsilon_cap: float, reason: str = "") -> None:
        """Store a new ε cap per person for the study, with the reason the user gave (a CAP_CHANGE entry)."""
        cap = float(epsilon_cap)
        if math.isnan(cap) or cap < 0:
            raise ValueError(f"the cap must be a number >= 0, got {epsilon_cap!r}")

        def body(con: sqlite3.Connection) -> None:
            row = con.execute("SELECT payload FROM events WHERE study = ? AND kind = ? ORDER BY seq DESC LIMIT 1",
                              (self.study, EventKind.CAP_CHANGE.value)).fetchone()
            previous = json.loads(row[0])["epsilon_cap"] if row else None
            self._append(con, EventKind.CAP_CHANGE,
                         {"epsilon_cap": float_text(cap), "previous": previous, "reason": str(reason)})

        self._write("changing the cap", body)

    def archive(self, reason: str) -> None:
        """Start afresh: an ARCHIVE entry after which the totals count only later releases (nothing is deleted)."""
        def body(con: sqlite3.Connection) -> None:
            live = [release_from_json(self._decode(seq, text)["release"]) for seq, text in self._live_rows(con, self.study)]
            eps, dlt = Ledger(live).total()
            self._append(con, EventKind.ARCHIVE, {"reason": str(reason), "releases_archived": len(live),
                                                  "epsilon_total": float_text(eps), "delta_total": float_text(dlt)})

        self._write("archiving", body)

    def clear(self) -> None:
        """The plain Ledger's clear, kept as an archive entry: the old releases stay readable."""
        self.archive("cleared (no reason given)")

    def record(self, kind: EventKind, payload: Mapping[str, Any]) -> LedgerEvent:
        """Append an entry of a kind without its own method (a refusal decided elsewhere, a report download)."""
        kind = EventKind(kind)
        if kind not in _RECORDABLE:
            raise ValueError(f"{kind.name} entries are made by their own method (charge, set_cap, archive), "
                             "which keeps their rules")
        return self._write("recording", lambda con: self._append(con, kind, plain_json(dict(payload))))
