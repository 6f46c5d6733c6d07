"""`python -m eyedp_core.report verify --ledger PATH [REPORT.html] [--study NAME]`: is the stored chain intact, and
does the report stand for it? Exit 0 when everything checked holds, 1 when a check fails (the entry is named),
2 when the ledger or report cannot be read."""
from __future__ import annotations

import argparse
import enum
import sys
from collections.abc import Sequence
from pathlib import Path

from eyedp_core.dp.store import StoredLedger, StoreError, list_studies, open_ledger
from eyedp_core.report.chain import LedgerStamp, read_stamp, seal_ok

__all__ = ["Exit", "main", "verify_report", "verify_store"]


class Exit(enum.IntEnum):
    """The command's exit status."""

    OK = 0
    FAILED = 1
    UNREADABLE = 2


def verify_store(ledger: StoredLedger) -> tuple[bool, str]:
    """A study's ledger -> (intact, one line saying so or naming the first bad entry)."""
    check = ledger.verify()
    if check.ok:
        return True, f"study {ledger.study!r}: chain intact, {check.entries} entries, head {check.head}"
    return False, f"study {ledger.study!r}: CHAIN BROKEN at entry {check.bad_entry}: {check.problem}"


def verify_report(ledger: StoredLedger, stamp: LedgerStamp) -> tuple[bool, str]:
    """A study's ledger and a report's stamp -> (the report matches the store, one line saying why or why not)."""
    entries, _ = ledger.chain_position()
    if stamp.entries > entries:
        return False, (f"the report states {stamp.entries} entries but the store holds only {entries}: entries "
                       f"{entries + 1} to {stamp.entries} were removed (or the report comes from another file)")
    stored = ledger.entry_hash_at(stamp.entries) if stamp.entries else None
    if stamp.entries and stored != stamp.head:
        return False, (f"entry {stamp.entries} of the store has hash {stored}, the report states {stamp.head}: the "
                       f"store's entries 1 to {stamp.entries} are not those the report was made from (one was "
                       "changed, removed or reordered and the chain rewritten, or the report was edited)")
    later = entries - stamp.entries
    tail = f"; {later} later entries were added after it" if later else ""
    return True, f"the report matches the store: its head is entry {stamp.entries}'s hash{tail}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m eyedp_core.report",
                                     description="Check EyeDP's stored ledger and reports made from it.")
    sub = parser.add_subparsers(dest="command", required=True)
    ver = sub.add_parser("verify", help="check the hash chain of a stored ledger, and a report against it")
    ver.add_argument("report", nargs="?", type=Path, help="a report (HTML) downloaded from EyeDP")
    ver.add_argument("--ledger", required=True, type=Path, help="the ledger file (SQLite)")
    ver.add_argument("--study", help="the study to check (default: the report's study, else every study)")
    return parser


def _verify(args: argparse.Namespace) -> Exit:
    stamp = None
    if args.report is not None:
        try:
            document = args.report.read_text(encoding="utf-8")
            stamp = read_stamp(document)
        except (OSError, UnicodeDecodeError, ValueError) as err:
            print(f"{args.report}: cannot be read as an EyeDP report ({err})", file=sys.stderr)
            return Exit.UNREADABLE
        if stamp is None:
            print(f"{args.report}: states no chain head (made from a ledger kept only in one session): there is "
                  "nothing to compare with the store", file=sys.stderr)
            return Exit.FAILED
        if not seal_ok(document):
            print(f"{args.report}: DOES NOT MATCH: the report was edited after EyeDP wrote it (its content does not "
                  "match the SHA-256 seal in its header)", file=sys.stderr)
            return Exit.FAILED
        if args.study and args.study != stamp.study:
            print(f"{args.report}: is a report of study {stamp.study!r}, not {args.study!r}", file=sys.stderr)
            return Exit.FAILED
    try:
        studies = [args.study or stamp.study] if (args.study or stamp) else list_studies(args.ledger)
        if not studies:
            print(f"{args.ledger}: holds no study" if args.ledger.exists() else
                  f"{args.ledger}: there is no EyeDP ledger at this path", file=sys.stderr)
            return Exit.UNREADABLE
        ledgers = [open_ledger(args.ledger, s, create=False) for s in studies]
    except (StoreError, ValueError) as err:
        print(str(err), file=sys.stderr)
        return Exit.UNREADABLE
    ok = True
    for led in ledgers:
        good, line = verify_store(led)
        ok &= good
        print(line)
    if stamp is not None:
        good, line = verify_report(ledgers[0], stamp)
        ok &= good
        print(f"{args.report}: {line}" if good else f"{args.report}: DOES NOT MATCH: {line}")
    return Exit.OK if ok else Exit.FAILED


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line arguments in, exit status out (0: intact and matching; 1: a check failed; 2: unreadable)."""
    args = _parser().parse_args(argv)
    if args.command == "verify":
        return int(_verify(args))
    return int(Exit.UNREADABLE)
