"""Many stimulus images at once: files and zip archives unpacked in memory to (name, bytes) pairs, bounded.

Nothing is written to disk. A zip member is read only when its declared size fits what is left of the cap, and
is then read at most that far, so a zip bomb costs no more than the cap.
"""
from __future__ import annotations

import zipfile
from io import BytesIO
from pathlib import PurePosixPath

from eyedp_core.io.errors import DataError

__all__ = ["IMAGE_SUFFIXES", "MAX_IMAGES", "image_files"]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
MAX_IMAGES = 2000  # per upload: a public dataset has ~700 stimuli


def _is_image_name(name: str) -> bool:
    p = PurePosixPath(name)
    return p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".") and "__MACOSX" not in p.parts


def image_files(files: list[tuple[str, bytes]], max_bytes: int) -> tuple[list[tuple[str, bytes]], list[str]]:
    """Uploaded (name, bytes) files, images or zip archives of images, and a cap on the unpacked total ->
    ((image name, bytes) pairs in order, sentences on what was skipped); DataError for a damaged zip or the cap."""
    out: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    total = 0
    for name, data in files:
        if not name.lower().endswith(".zip"):
            total += len(data)
            out.append((PurePosixPath(name).name, data))
            continue
        try:
            archive = zipfile.ZipFile(BytesIO(data))
            members = [m for m in archive.infolist() if not m.is_dir()]
        except (zipfile.BadZipFile, OSError, ValueError):
            raise DataError("this is not a readable zip archive.", file=name, expected="a .zip of PNG/JPEG images")
        others = [m.filename for m in members if not _is_image_name(m.filename)]
        if others:
            skipped.append(f"{name}: {len(others):,} file(s) that are not PNG/JPEG images were skipped "
                           f"(e.g. {others[0]}).")
        for m in (m for m in members if _is_image_name(m.filename)):
            if m.file_size > max_bytes - total:
                raise DataError(f"the images unpack to more than {max_bytes // 10**6:,} MB in all.", file=name,
                                expected=f"at most {max_bytes // 10**6:,} MB of images")
            try:
                with archive.open(m) as fh:
                    blob = fh.read(m.file_size + 1)
            except (zipfile.BadZipFile, OSError, RuntimeError, ValueError, NotImplementedError):
                raise DataError(f"the member {m.filename} cannot be unpacked.", file=name,
                                expected="a zip without encryption") from None
            if len(blob) > m.file_size:  # a member larger than its header says
                raise DataError(f"the member {m.filename} is larger than the archive declares.", file=name)
            total += len(blob)
            out.append((PurePosixPath(m.filename).name, blob))
        if len(out) > MAX_IMAGES:
            raise DataError(f"more than {MAX_IMAGES:,} images in one upload.", file=name,
                            expected=f"at most {MAX_IMAGES:,} images")
    if total > max_bytes:
        raise DataError(f"the images take more than {max_bytes // 10**6:,} MB in all.",
                        expected=f"at most {max_bytes // 10**6:,} MB of images")
    return out, skipped
