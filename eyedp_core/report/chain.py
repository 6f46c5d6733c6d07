"""The report's stamp of the stored ledger: study, number of entries and chain head, visible and machine-readable.

`verify` (eyedp_core.report.cli) reads the stamp back from a report and compares it with the store: the report
stands for the store's first `entries` entries exactly when the store's entry number `entries` has hash `head`.
A report with a stamp is also sealed: a <meta> tag holds the SHA-256 of the whole document (with that tag's value
set to zeros), so a copy edited after EyeDP wrote it no longer matches its seal. Anyone can recompute a seal (there
is no key): it catches an edited copy, not a forger who knows the format; the store's head is what binds."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from html.parser import HTMLParser

from eyedp_core.dp.accounting import Ledger
from eyedp_core.dp.store import StoredLedger
from eyedp_core.report.markup import esc

__all__ = ["META_DIGEST", "META_ENTRIES", "META_HEAD", "META_STUDY", "LedgerStamp", "read_stamp", "report_ledger",
           "seal", "seal_ok", "stamp_html", "stamp_meta", "stamp_of"]

META_HEAD = "eyedp-ledger-head"
META_ENTRIES = "eyedp-ledger-entries"
META_STUDY = "eyedp-ledger-study"
META_DIGEST = "eyedp-report-digest"
_UNSEALED = "0" * 64


def _seal_tag(value: str) -> str:
    return f'<meta name="{META_DIGEST}" content="{value}">'


@dataclass(frozen=True)
class LedgerStamp:
    """Where a report stands in a stored ledger: the study, its number of entries and the last entry's hash."""

    study: str
    entries: int
    head: str


def stamp_of(ledger: Ledger, given: LedgerStamp | None = None) -> LedgerStamp | None:
    """The report's ledger (and a stamp the caller read) -> the stamp to state; None for a session-only ledger."""
    if given is not None:
        return given
    if isinstance(ledger, StoredLedger):
        entries, head = ledger.chain_position()  # one read: the count and the head belong together
        return LedgerStamp(ledger.study, entries, head)
    return None


def report_ledger(ledger: Ledger) -> tuple[Ledger, LedgerStamp | None]:
    """The ledger a report is built from -> (a plain copy of its releases and of the accountant they were charged
    under, its stamp), read at one moment so the report lists exactly the releases up to the head it states (a
    plain ledger: a copy and no stamp)."""
    if isinstance(ledger, StoredLedger):
        copy, entries, head = ledger.snapshot_ledger()
        return copy, LedgerStamp(ledger.study, entries, head)
    copy = Ledger(ledger.releases)
    copy.note_accounting(*ledger.accounting())
    return copy, None


def stamp_meta(stamp: LedgerStamp | None) -> str:
    """Stamp -> the <meta> tags `verify` reads (nothing for a session-only ledger)."""
    if stamp is None:
        return ""
    return "".join(f'<meta name="{name}" content="{esc(value)}">' for name, value in
                   ((META_STUDY, stamp.study), (META_ENTRIES, stamp.entries), (META_HEAD, stamp.head))) + \
        _seal_tag(_UNSEALED)


def seal(document: str) -> str:
    """A finished report -> the same report with its seal filled in (unchanged when it has no seal slot)."""
    slot = _seal_tag(_UNSEALED)
    if document.count(slot) != 1:
        return document
    return document.replace(slot, _seal_tag(hashlib.sha256(document.encode("utf-8")).hexdigest()))


def seal_ok(document: str) -> bool | None:
    """A report -> True when its content matches its seal, False when not, None when it carries no seal."""
    parser = _Metas()
    parser.feed(document)
    value = parser.found.get(META_DIGEST)
    if value is None:
        return None
    tag = _seal_tag(value)
    if document.count(tag) != 1:
        return False
    return hashlib.sha256(document.replace(tag, _seal_tag(_UNSEALED)).encode("utf-8")).hexdigest() == value


def stamp_html(stamp: LedgerStamp | None) -> str:
    """Stamp -> the visible paragraph stating it and how to check it."""
    if stamp is None:
        return ("<p class='muted' id='ledger-chain'>This report was made from a ledger kept only in one session: it "
                "states no chain head and cannot be checked against a stored ledger.</p>")
    return (f"<p class='muted' id='ledger-chain'>Stored ledger: study “{esc(stamp.study)}”, {stamp.entries} entries "
            f"(releases, refusals, cap changes, archives, downloads), chain head (SHA-256 of entry {stamp.entries}) "
            f"<code>{esc(stamp.head)}</code>. Check that this report matches the store and that no entry was changed, "
            "removed or reordered: <code>python -m eyedp_core.report verify --ledger PATH THIS_REPORT.html</code>."
            "</p>")


class _Metas(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "meta":
            a = dict(attrs)
            name = a.get("name")
            if name in (META_HEAD, META_ENTRIES, META_STUDY, META_DIGEST) and name not in self.found:
                self.found[name] = a.get("content") or ""


def read_stamp(document: str) -> LedgerStamp | None:
    """A report's HTML -> the stamp its <meta> tags state (None when it states none); ValueError if malformed."""
    parser = _Metas()
    parser.feed(document)
    found = parser.found
    if META_HEAD not in found:
        return None
    missing = [m for m in (META_STUDY, META_ENTRIES) if m not in found]
    if missing:
        raise ValueError(f"the report states a chain head but not {', '.join(missing)}")
    head = found[META_HEAD].strip().lower()
    if len(head) != 64 or any(c not in "0123456789abcdef" for c in head):
        raise ValueError(f"the report's chain head {found[META_HEAD]!r} is not a SHA-256 in hex")
    try:
        entries = int(found[META_ENTRIES])
    except ValueError as err:
        raise ValueError(f"the report's number of entries {found[META_ENTRIES]!r} is not a whole number") from err
    return LedgerStamp(found[META_STUDY], entries, head)
