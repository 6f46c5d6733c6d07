"""Stimulus image uploads (eyedp_core.io.load_image): formats, colour modes, size limits, bad files."""
from __future__ import annotations

import struct
import time
import zlib
from io import BytesIO

import numpy as np
import pytest
from PIL import Image

from eyedp_core.io import uploads as io


def _encode(img: Image.Image, fmt: str = "PNG", **kw) -> bytes:
    """PIL image -> encoded bytes, in memory."""
    buf = BytesIO()
    img.save(buf, format=fmt, **kw)
    return buf.getvalue()


def _png_header(width: int, height: int) -> bytes:
    """A PNG that declares width x height RGB pixels but carries almost no data (decoding would fail)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        """Chunk type and body -> length + type + body + CRC."""
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(
        b"IEND", b"")


def _rgb(h: int = 6, w: int = 9) -> np.ndarray:
    """A small image with distinct pixel values."""
    return np.random.default_rng(5).integers(0, 256, (h, w, 3), dtype=np.uint8)


def test_png_rgb_round_trips_exactly():
    """An RGB PNG decodes to the exact same pixels."""
    arr = _rgb()
    out = io.load_image(_encode(Image.fromarray(arr)), "stim.png")
    assert out.dtype == np.uint8 and out.shape == (6, 9, 3)
    np.testing.assert_array_equal(out, arr)


def test_jpeg_is_decoded_to_rgb():
    """A JPEG decodes to H x W x 3 uint8 close to the original colour."""
    arr = np.full((16, 24, 3), (200, 40, 90), dtype=np.uint8)
    out = io.load_image(_encode(Image.fromarray(arr), "JPEG", quality=95), "stim.jpg")
    assert out.shape == (16, 24, 3) and np.abs(out.astype(int) - arr).max() <= 4


def test_rgba_is_composited_on_white():
    """Transparency is composited on white; opaque pixels keep their colour."""
    rgba = np.zeros((2, 2, 4), dtype=np.uint8)
    rgba[0, 0] = (255, 0, 0, 255)   # opaque red
    rgba[0, 1] = (0, 0, 255, 0)     # fully transparent
    rgba[1, :] = (0, 0, 0, 128)     # half-transparent black
    out = io.load_image(_encode(Image.fromarray(rgba, "RGBA")), "a.png")
    assert out[0, 0].tolist() == [255, 0, 0] and out[0, 1].tolist() == [255, 255, 255]
    assert np.all(np.abs(out[1].astype(int) - 127) <= 1)


def test_greyscale_palette_and_16_bit_become_rgb():
    """Greyscale, palette and 16-bit PNGs become RGB with the right values."""
    grey = np.arange(12, dtype=np.uint8).reshape(3, 4) * 20
    out = io.load_image(_encode(Image.fromarray(grey, "L")), "g.png")
    assert out.shape == (3, 4, 3) and np.all(out == grey[..., None])
    pal = Image.fromarray(_rgb()).convert("P", palette=Image.Palette.ADAPTIVE, colors=4)
    np.testing.assert_array_equal(io.load_image(_encode(pal), "p.png"), np.asarray(pal.convert("RGB")))
    deep = np.array([[0, 65535], [257 * 100, 257 * 200]], dtype=np.uint16)
    out16 = io.load_image(_encode(Image.fromarray(deep)), "d.png")
    assert out16[..., 0].tolist() == [[0, 255], [100, 200]]


@pytest.mark.parametrize("data", [b"not an image at all", b"GIF89a" + b"\x00" * 40])
def test_non_image_is_refused_with_its_name(data):
    """Text or a GIF header give 'x.png is not a PNG or JPEG image.'."""
    with pytest.raises(io.DataError) as info:
        io.load_image(data, "x.png")
    assert str(info.value) == "x.png is not a PNG or JPEG image." and info.value.file == "x.png"


def test_bare_png_signature_is_called_damaged_not_foreign():
    """A file that starts like a PNG but stops after the signature is damaged, not 'not a PNG'."""
    with pytest.raises(io.DataError, match="starts like a PNG image but is damaged") as info:
        io.load_image(b"\x89PNG\r\n\x1a\n", "x.png")
    assert info.value.file == "x.png"


def test_gif_is_refused_even_though_pillow_reads_it():
    """A valid GIF is refused: only PNG and JPEG are accepted."""
    gif = _encode(Image.fromarray(_rgb()).convert("P"), "GIF")
    with pytest.raises(io.DataError, match="not a PNG or JPEG"):
        io.load_image(gif, "anim.gif")


def test_truncated_and_empty_files_are_refused():
    """A truncated PNG is refused as damaged, an empty file as empty."""
    data = _encode(Image.fromarray(np.random.default_rng(0).integers(0, 256, (200, 200, 3), dtype=np.uint8)))
    with pytest.raises(io.DataError, match="damaged or truncated"):
        io.load_image(data[: len(data) // 2], "half.png")
    with pytest.raises(io.DataError, match="empty"):
        io.load_image(b"", "e.png")


def test_100_megapixel_image_is_refused_before_decoding():
    """A 100-megapixel header is refused in milliseconds; a bomb-sized one too."""
    start = time.perf_counter()
    expected = r"10,000 × 10,000 px = 100.0 megapixels; the limit is 12.0"
    with pytest.raises(io.DataError, match=expected) as info:
        io.load_image(_png_header(10_000, 10_000), "huge.png")
    # Decoding 100 MP would take seconds and 300 MB; reading the header takes milliseconds.
    assert time.perf_counter() - start < 0.5 and info.value.file == "huge.png"
    # Beyond twice Pillow's own limit, Pillow raises DecompressionBombError while opening.
    with pytest.raises(io.DataError, match="far more pixels"):
        io.load_image(_png_header(20_000, 20_000), "bomb.png")


def test_max_pixels_argument_and_byte_limit(monkeypatch):
    """max_pixels is honoured exactly, and MAX_UPLOAD_BYTES applies to images."""
    data = _encode(Image.fromarray(_rgb(100, 100)))
    assert io.load_image(data, "ok.png", max_pixels=10_000).shape == (100, 100, 3)
    # The real size and the limit never read the same ("12.0 megapixels; the limit is 12.0 megapixels").
    with pytest.raises(io.DataError, match="10,000 pixels; the limit is 9,999 pixels"):
        io.load_image(data, "big.png", max_pixels=9_999)
    with pytest.raises(io.DataError, match="limit is"):
        io.load_image(data, "big.png", max_bytes=len(data) - 1)
    assert io.load_image.__kwdefaults__["max_bytes"] == io.MAX_UPLOAD_BYTES
