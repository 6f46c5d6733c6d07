"""Many files at once: plain files and zip archives unpacked in memory to (name, bytes) pairs, bounded.

Nothing is written to disk. A zip member is read only when its declared size fits what is left of the cap, and
is then read at most that far, so a zip bomb costs no more than the cap. Stimulus images (`image_files`) and raw
gaze recordings (eyedp_core.io.recordings) are unpacked the same way.
"""
from __future__ import annotations

import zipfile
from collections.abc import Callable
from io import BytesIO
from pathlib import PurePosixPath

from eyedp_core.io.errors import DataError

__all__ = ["IMAGE_SUFFIXES", "MAX_IMAGES", "image_files", "is_zip_name", "unpack_files"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
MAX_IMAGES = 2000  # per upload: a public dataset has ~700 stimuli


def is_zip_name(name: str) -> bool:
    """A file name -> whether it names a zip archive."""
    return name.lower().endswith(".zip")


def _hidden(name: str) -> bool:
    """A member's path -> whether it is an archiver's by-product (a dot file, macOS resource forks)."""
    p = PurePosixPath(name)
    return p.name.startswith(".") or "__MACOSX" in p.parts


def _is_image_name(name: str) -> bool:
    return PurePosixPath(name).suffix.lower() in IMAGE_SUFFIXES and not _hidden(name)


def _mb(n: int) -> str:
    return f"{n // 10**6:,} MB"


def unpack_files(files: list[tuple[str, bytes]], wanted: Callable[[str], bool], max_bytes: int | None,
                 max_files: int, what: str) -> tuple[list[tuple[str, bytes]], list[str]]:
    """Uploaded (name, bytes) files or zip archives of them, which member names to keep, a cap on the unpacked
    total (None: none), a cap on the number of files and what they are ('images') -> ((path, bytes) pairs in
    order: a zip member keeps its path inside the archive, sentences on what was skipped); DataError for a
    damaged zip or a cap."""
    out: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    total = 0
    room = (lambda: max_bytes - total) if max_bytes is not None else (lambda: float("inf"))
    for name, data in files:
        if not is_zip_name(name):
            total += len(data)
            out.append((name, data))
        else:
            try:
                archive = zipfile.ZipFile(BytesIO(data))
                members = [m for m in archive.infolist() if not m.is_dir()]
            except (zipfile.BadZipFile, OSError, ValueError):
                raise DataError("this is not a readable zip archive.", file=name,
                                expected=f"a .zip of {what}") from None
            others = [m.filename for m in members if not wanted(m.filename) and not _hidden(m.filename)]
            if others:
                skipped.append(f"{name}: {len(others):,} file(s) that are not {what} were skipped "
                               f"(e.g. {others[0]}).")
            for m in (m for m in members if wanted(m.filename)):
                if m.file_size > room():
                    raise DataError(f"the {what} unpack to more than {_mb(max_bytes or 0)} in all.", file=name,
                                    expected=f"at most {_mb(max_bytes or 0)} of {what}")
                try:
                    with archive.open(m) as fh:
                        blob = fh.read(m.file_size + 1)
                except (zipfile.BadZipFile, OSError, RuntimeError, ValueError, NotImplementedError):
                    raise DataError(f"the member {m.filename} cannot be unpacked.", file=name,
                                    expected="a zip without encryption") from None
                if len(blob) > m.file_size:  # a member larger than its header says
                    raise DataError(f"the member {m.filename} is larger than the archive declares.", file=name)
                total += len(blob)
                out.append((m.filename, blob))
        if len(out) > max_files:
            raise DataError(f"more than {max_files:,} {what} in one upload.", file=name,
                            expected=f"at most {max_files:,} {what}")
    if max_bytes is not None and total > max_bytes:
        raise DataError(f"the {what} take more than {_mb(max_bytes)} in all.",
                        expected=f"at most {_mb(max_bytes)} of {what}")
    return out, skipped


def image_files(files: list[tuple[str, bytes]], max_bytes: int) -> tuple[list[tuple[str, bytes]], list[str]]:
    """Uploaded (name, bytes) files, images or zip archives of images, and a cap on the unpacked total ->
    ((image name, bytes) pairs in order, sentences on what was skipped); DataError for a damaged zip or the cap."""
    pairs, skipped = unpack_files(files, _is_image_name, max_bytes, MAX_IMAGES, "images")
    skipped = [s.replace("are not images", "are not PNG/JPEG images") for s in skipped]
    return [(PurePosixPath(n).name, b) for n, b in pairs], skipped
