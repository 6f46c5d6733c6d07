"""Uploaded PNG/JPEG bytes -> H x W x 3 uint8 RGB array, refusing oversized images before decoding."""
from __future__ import annotations

import re
import warnings
from io import BytesIO

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from eyedp_core.io.errors import DataError, megabytes, size_pair

FORMATS = ("PNG", "JPEG")
_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"))
# Transparent parts of a stimulus are shown on white, as a browser page would show them.
BACKGROUND = (255, 255, 255)


def _not_image(filename: str) -> DataError:
    """File name -> the 'not a PNG or JPEG image' error."""
    return DataError(f"{filename} is not a PNG or JPEG image.", expected="a PNG or JPEG image", file=filename)


def _damaged(filename: str, fmt: str) -> DataError:
    """File name and the format its first bytes claim -> the 'damaged' error."""
    return DataError(f"{filename} starts like a {fmt} image but is damaged or truncated and cannot be "
                     "decoded (a bad checksum or missing data). Save or export it again.",
                     expected=f"a complete {fmt} image", file=filename)


def _claimed(data: bytes) -> str | None:
    """Bytes -> 'PNG' or 'JPEG' when they start with that format's signature."""
    return next((fmt for magic, fmt in _SIGNATURES if data.startswith(magic)), None)


def _too_big(filename: str, width: int, height: int, max_pixels: int) -> DataError:
    """Image size and limit -> the 'too many pixels' error, stating the real size."""
    size, limit = size_pair(width * height, max_pixels, 1e6, " megapixels", " pixels")
    return DataError(f"{filename} is {width:,} × {height:,} px = {size}; the limit is {limit}. Scale it "
                     "down to the size it was shown at on screen and upload it again.",
                     expected=f"at most {max_pixels} pixels", file=filename, found=f"{width * height} pixels")


def _too_long(filename: str, width: int, height: int, max_side: int) -> DataError:
    """Image size and side limit -> the 'side too long' error."""
    return DataError(f"{filename} is {width:,} × {height:,} px; no side may be longer than {max_side:,} px. "
                     "Scale or crop it to the size it was shown at on screen.",
                     expected=f"sides of at most {max_side} px", file=filename,
                     found=f"{width} × {height} px")


def _to_rgb(img: Image.Image) -> Image.Image:
    """Decoded image in any mode -> RGB (alpha composited on white, 16-bit scaled to 8-bit)."""
    if img.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N"):
        # 16-bit greyscale: Pillow's own conversion clips at 255 instead of scaling.
        grey = np.asarray(img, dtype=np.float64) / 257.0
        img = Image.fromarray(np.clip(np.rint(grey), 0, 255).astype(np.uint8), mode="L")
    elif img.mode == "F":
        img = Image.fromarray(np.clip(np.rint(np.asarray(img)), 0, 255).astype(np.uint8), mode="L")
    if img.mode in ("RGBA", "LA", "PA") or (img.mode in ("P", "L", "RGB") and "transparency" in img.info):
        rgba = img.convert("RGBA")
        canvas = Image.new("RGBA", rgba.size, BACKGROUND + (255,))
        return Image.alpha_composite(canvas, rgba).convert("RGB")
    return img.convert("RGB")


def decode_image(data: bytes, filename: str, max_pixels: int, max_bytes: int | None,
                 max_side: int | None = None) -> np.ndarray:
    """PNG/JPEG bytes -> H x W x 3 uint8; DataError when empty, too large, not PNG/JPEG or damaged.

    The pixel count and side lengths are read from the header and checked before any pixel is decoded.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError(f"{filename} is not a file's bytes.", expected="a PNG or JPEG image", file=filename)
    data = bytes(data)
    if not data:
        raise DataError(f"{filename} is empty.", expected="a PNG or JPEG image", file=filename)
    if max_bytes is not None and len(data) > max_bytes:
        size, limit = megabytes(len(data), max_bytes)
        raise DataError(f"{filename} is {size}; the limit is {limit}.",
                        expected=f"at most {max_bytes} bytes", file=filename)
    claimed = _claimed(data)
    try:
        with warnings.catch_warnings():
            # Pillow warns above its own (larger) limit; ours is checked right below, before decoding.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            # open() reads only the header, so the pixel count is known before any pixel is decoded.
            img = Image.open(BytesIO(data), formats=FORMATS)
    except Image.DecompressionBombError as err:
        # Pillow refused from the header alone; its message holds the real pixel count.
        found = re.search(r"\((\d+) pixels\)", str(err))
        real = f" ({int(found.group(1)) / 1e6:,.1f} megapixels)" if found else ""
        raise DataError(f"{filename} has far more pixels{real} than the limit of {max_pixels / 1e6:.1f} "
                        "megapixels. Scale it down and upload it again.",
                        expected=f"at most {max_pixels} pixels", file=filename) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        raise (_damaged(filename, claimed) if claimed else _not_image(filename)) from None
    width, height = img.size
    if width <= 0 or height <= 0:
        raise _damaged(filename, claimed) if claimed else _not_image(filename)
    if max_side is not None and max(width, height) > max_side:
        raise _too_long(filename, width, height, max_side)
    if width * height > max_pixels:
        raise _too_big(filename, width, height, max_pixels)
    try:
        img.load()
        # Phones store rotation in EXIF; browsers honour it, so the participant saw the rotated image.
        img = ImageOps.exif_transpose(img)
        rgb = _to_rgb(img)
    except Image.DecompressionBombError:
        raise _too_big(filename, width, height, max_pixels) from None
    except (OSError, ValueError, SyntaxError, EOFError, MemoryError, IndexError, TypeError,
            ZeroDivisionError):
        raise _damaged(filename, claimed or img.format or "PNG or JPEG") from None
    return np.array(rgb, dtype=np.uint8)
