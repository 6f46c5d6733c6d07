"""Uploaded PNG/JPEG bytes -> H x W x 3 uint8 RGB array, refusing oversized images before decoding."""
from __future__ import annotations

import warnings
from io import BytesIO

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from eyedp_core.io.errors import DataError

FORMATS = ("PNG", "JPEG")
# Transparent parts of a stimulus are shown on white, as a browser page would show them.
BACKGROUND = (255, 255, 255)


def _not_image(filename: str) -> DataError:
    """File name -> the 'not a PNG or JPEG image' error."""
    return DataError(f"{filename} is not a PNG or JPEG image.", expected="a PNG or JPEG image", file=filename)


def _too_big(filename: str, width: int, height: int, max_pixels: int) -> DataError:
    """Image size and limit -> the 'too many pixels' error."""
    return DataError(f"{filename} is {width:,} × {height:,} px = {width * height / 1e6:.1f} megapixels; the "
                     f"limit is {max_pixels / 1e6:.1f} megapixels. Scale it down to the size it was shown at "
                     "on screen and upload it again.", expected=f"at most {max_pixels} pixels",
                     file=filename)


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


def decode_image(data: bytes, filename: str, max_pixels: int, max_bytes: int) -> np.ndarray:
    """PNG/JPEG bytes -> H x W x 3 uint8; DataError when empty, too large, not PNG/JPEG or damaged."""
    if not data:
        raise DataError(f"{filename} is empty.", expected="a PNG or JPEG image", file=filename)
    if len(data) > max_bytes:
        raise DataError(f"{filename} is {len(data) / 2**20:.1f} MB; the limit is {max_bytes / 2**20:.0f} MB.",
                        expected=f"at most {max_bytes} bytes", file=filename)
    try:
        with warnings.catch_warnings():
            # Pillow warns above its own (larger) limit; ours is checked right below, before decoding.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            # open() reads only the header, so the pixel count is known before any pixel is decoded.
            img = Image.open(BytesIO(data), formats=FORMATS)
    except Image.DecompressionBombError:
        raise DataError(f"{filename} has far more pixels than the limit of {max_pixels / 1e6:.1f} "
                        "megapixels. Scale it down and upload it again.",
                        expected=f"at most {max_pixels} pixels", file=filename) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise _not_image(filename) from None
    width, height = img.size
    if width <= 0 or height <= 0:
        raise _not_image(filename)
    if width * height > max_pixels:
        raise _too_big(filename, width, height, max_pixels)
    try:
        img.load()
        # Phones store rotation in EXIF; browsers honour it, so the participant saw the rotated image.
        img = ImageOps.exif_transpose(img)
        rgb = _to_rgb(img)
    except Image.DecompressionBombError:
        raise _too_big(filename, width, height, max_pixels) from None
    except (OSError, ValueError, SyntaxError):
        raise DataError(f"{filename} is damaged or truncated and cannot be decoded.",
                        expected="a complete PNG or JPEG image", file=filename) from None
    return np.array(rgb, dtype=np.uint8)
