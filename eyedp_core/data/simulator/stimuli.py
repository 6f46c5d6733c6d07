"""Stimulus images for the gaze simulator, drawn with pillow, and the salient regions that guide viewing.

Every picture is 1280 x 800 px (the simulated screen). Each drawing function returns the image and the
list of `Region`s it drew: the free-viewing model (sim_freeview) samples fixations from these regions,
so where observers look always matches what is on the picture. Drawing happens at twice the size and
is scaled down, which gives anti-aliased edges without needing anything beyond pillow.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

WIDTH, HEIGHT = 1280, 800
STIMULI = ("webpage", "portrait", "comic")
_S = 2  # supersampling factor
_WORDS = ("the of and to in is for on with as by at from that this are was be it an or have not new more "
          "study data eye gaze city people time world water report light market policy school energy "
          "research health science future river winter summer morning music garden window travel story "
          "people against between around through experts report shows growth local council museum").split()


@dataclass(frozen=True)
class Region:
    """A salient region: centre (x, y) and spread (sx, sy) in px, attraction weight, label."""

    name: str
    x: float
    y: float
    sx: float
    sy: float
    weight: float


def _font(size: float) -> ImageFont.FreeTypeFont:
    """Pixel size on the final image -> pillow's bundled scalable font at supersampled size."""
    # The bundled font keeps the images identical on every machine (no system font lookup).
    return ImageFont.load_default(size=int(round(size * _S)))


def _sentence(rng: np.random.Generator, n_chars: int) -> str:
    """Target length -> pseudo-English text of about that many characters."""
    words = rng.choice(_WORDS, size=max(2, n_chars // 4))
    words = words[np.r_[True, words[1:] != words[:-1]]]  # "from from" reads like a bug
    text = " ".join(words)
    return text[:n_chars].rsplit(" ", 1)[0] if len(text) > n_chars else text


class _Canvas:
    """Supersampled pillow canvas taking final-pixel coordinates."""

    def __init__(self, bg: tuple[int, int, int]) -> None:
        self.img = Image.new("RGB", (WIDTH * _S, HEIGHT * _S), bg)
        self.d = ImageDraw.Draw(self.img)

    @staticmethod
    def _p(box: tuple[float, ...]) -> list[float]:
        return [v * _S for v in box]

    def rect(self, box: tuple[float, float, float, float], fill=None, outline=None, width: float = 0,
             radius: float = 0) -> None:
        """Rounded rectangle in final-pixel coordinates."""
        self.d.rounded_rectangle(self._p(box), radius=radius * _S, fill=fill, outline=outline,
                                 width=int(width * _S))

    def ellipse(self, box: tuple[float, float, float, float], fill=None, outline=None,
                width: float = 0) -> None:
        """Ellipse in its bounding box."""
        self.d.ellipse(self._p(box), fill=fill, outline=outline, width=int(width * _S))

    def polygon(self, pts: list[tuple[float, float]], fill=None, outline=None, width: float = 0) -> None:
        """Closed polygon."""
        self.d.polygon([(x * _S, y * _S) for x, y in pts], fill=fill, outline=outline, width=int(width * _S))

    def line(self, pts: list[tuple[float, float]], fill, width: float = 1) -> None:
        """Poly-line."""
        self.d.line([(x * _S, y * _S) for x, y in pts], fill=fill, width=int(width * _S), joint="curve")

    def arc(self, box: tuple[float, float, float, float], start: float, end: float, fill,
            width: float) -> None:
        """Elliptic arc (degrees, clockwise from 3 o'clock)."""
        self.d.arc(self._p(box), start, end, fill=fill, width=int(width * _S))

    def text(self, xy: tuple[float, float], s: str, size: float, fill, anchor: str = "la") -> None:
        """Text at a point with pillow's anchor convention."""
        self.d.text((xy[0] * _S, xy[1] * _S), s, font=_font(size), fill=fill, anchor=anchor)

    def text_lines(self, x: float, y: float, width: float, n_lines: int, size: float, lh: float, fill,
                   rng: np.random.Generator) -> None:
        """Block of pseudo-text lines filling `width` px; the last line is shorter, like a paragraph end."""
        chars = int(width / (0.52 * size))
        for i in range(n_lines):
            n = chars if i < n_lines - 1 else int(chars * rng.uniform(0.35, 0.8))
            self.text((x, y + i * lh), _sentence(rng, n), size, fill)

    def gradient(self, box: tuple[float, float, float, float], top: tuple[int, int, int],
                 bottom: tuple[int, int, int]) -> None:
        """Vertical colour gradient filling a box."""
        x0, y0, x1, y1 = (int(v * _S) for v in box)
        t = np.linspace(0, 1, y1 - y0)[:, None, None]
        rows = (np.array(top)[None, None, :] * (1 - t) + np.array(bottom)[None, None, :] * t).astype(np.uint8)
        self.img.paste(Image.fromarray(np.repeat(rows, x1 - x0, axis=1), "RGB"), (x0, y0))

    def finish(self) -> Image.Image:
        """Supersampled canvas -> final 1280 x 800 image."""
        return self.img.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


def _landscape(c: _Canvas, box: tuple[float, float, float, float],
               rng: np.random.Generator) -> tuple[float, float]:
    """Sky, sun, mountains and lake inside a box -> position of the sun (the picture's eye-catcher)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    c.gradient(box, (120, 170, 225), (250, 214, 170))
    sx, sy = x0 + w * rng.uniform(0.6, 0.8), y0 + h * 0.3
    c.ellipse((sx - 0.07 * h, sy - 0.07 * h, sx + 0.07 * h, sy + 0.07 * h), fill=(255, 236, 150))
    for k, col in enumerate([(92, 110, 140), (60, 84, 104), (40, 62, 70)]):
        n = 7
        xs = np.linspace(x0, x1, n)
        ys = y0 + h * (0.45 + 0.12 * k + rng.uniform(-0.1, 0.08, n))
        c.polygon([(x0, y1)] + list(zip(xs, ys, strict=True)) + [(x1, y1)], fill=col)
    c.polygon([(x0 + 0.1 * w, y1), (x0 + 0.35 * w, y0 + 0.82 * h), (x0 + 0.75 * w, y0 + 0.86 * h), (x1, y1)],
              fill=(84, 140, 170))
    return sx, sy


def draw_webpage(rng: np.random.Generator) -> tuple[Image.Image, list[Region]]:
    """Generator -> (news web-page mock-up, its salient regions)."""
    c = _Canvas((245, 246, 248))
    navy, grey, dark = (31, 42, 68), (120, 128, 140), (33, 37, 45)
    c.rect((0, 0, WIDTH, 64), fill=navy)
    c.ellipse((28, 14, 64, 50), fill=(255, 179, 71))
    c.text((76, 32), "NovaNews", 26, (255, 255, 255), "lm")
    for i, item in enumerate(["World", "Science", "Culture", "Sport", "Opinion"]):
        c.text((300 + i * 110, 32), item, 17, (210, 218, 235), "lm")
    c.rect((1000, 18, 1248, 46), fill=(255, 255, 255), radius=14)
    c.text((1016, 32), "Search", 14, grey, "lm")
    hero = (40, 88, 850, 388)
    sun = _landscape(c, hero, rng)
    c.rect((40, 300, 850, 388), fill=(20, 24, 32))
    c.text((64, 326), "Glaciers retreat faster than expected", 30, (255, 255, 255), "lm")
    c.text((64, 364), "New satellite data show a decade of rapid change in the Alps", 16, (200, 205, 215),
           "lm")
    # Right column: trending list, advert with a loud colour, call-to-action button.
    c.rect((880, 88, 1248, 420), fill=(255, 255, 255), radius=10)
    c.text((904, 116), "Trending", 22, dark, "lm")
    for i in range(5):
        y = 160 + i * 50
        c.text((904, y), f"{i + 1}", 24, (230, 96, 60), "lm")
        c.text((940, y - 9), _sentence(rng, 30), 14, dark)
        c.text((940, y + 9), _sentence(rng, 24), 13, grey)
    c.rect((880, 440, 1248, 640), fill=(255, 112, 67), radius=10)
    c.text((1064, 500), "SUMMER SALE", 30, (255, 255, 255), "mm")
    c.text((1064, 545), "-50% on all subscriptions", 17, (255, 240, 230), "mm")
    c.rect((990, 580, 1138, 620), fill=(255, 255, 255), radius=20)
    c.text((1064, 600), "Subscribe", 17, (230, 90, 50), "mm")
    c.rect((880, 660, 1248, 770), fill=(255, 255, 255), radius=10)
    c.text_lines(900, 680, 320, 4, 13, 21, grey, rng)
    regions = [Region("logo", 120, 32, 70, 18, 0.6), Region("navigation", 520, 32, 230, 14, 0.3),
               Region("hero picture", sun[0], sun[1] + 40, 120, 70, 0.9),
               Region("headline", 330, 330, 230, 22, 1.6), Region("trending", 1040, 240, 140, 110, 0.8),
               Region("advert", 1064, 520, 120, 40, 1.0), Region("button", 1064, 600, 60, 18, 0.6)]
    thumbs = [((170, 210, 160), (60, 140, 80)), ((250, 220, 170), (200, 120, 60)),
              ((190, 200, 235), (70, 90, 170))]
    for k, (bg, fg) in enumerate(thumbs):
        x0 = 40 + k * 275
        c.rect((x0, 410, x0 + 260, 770), fill=(255, 255, 255), radius=10)
        c.rect((x0, 410, x0 + 260, 540), fill=bg, radius=10)
        c.rect((x0, 520, x0 + 260, 540), fill=bg)
        cx = x0 + 130
        if k == 0:
            c.polygon([(cx - 50, 525), (cx, 440), (cx + 50, 525)], fill=fg)
            c.rect((cx - 8, 510, cx + 8, 535), fill=(120, 80, 50))
        elif k == 1:
            c.ellipse((cx - 40, 435, cx + 40, 515), fill=fg)
            c.ellipse((cx - 20, 455, cx + 20, 495), fill=bg)
        else:
            for j in range(4):
                c.rect((cx - 70 + j * 36, 520 - 20 * (j + 1), cx - 44 + j * 36, 530), fill=fg)
        c.text((x0 + 16, 562), _sentence(rng, 24).capitalize(), 18, dark, "lm")
        c.text_lines(x0 + 16, 588, 228, 6, 13, 27, grey, rng)
        regions += [Region(f"card {k + 1} picture", cx, 475, 60, 35, 0.5),
                    Region(f"card {k + 1} title", x0 + 110, 562, 80, 10, 0.5),
                    Region(f"card {k + 1} text", x0 + 130, 660, 100, 70, 0.3)]
    return c.finish(), regions


def draw_portrait(rng: np.random.Generator) -> tuple[Image.Image, list[Region]]:
    """Generator -> (portrait-like composition of a person in a room, its salient regions)."""
    c = _Canvas((0, 0, 0))
    c.gradient((0, 0, WIDTH, HEIGHT), (214, 226, 222), (160, 178, 176))
    # Window with a view on the left, a framed picture and a plant on the right: secondary targets.
    c.rect((70, 90, 330, 470), fill=(250, 250, 246), radius=4)
    _landscape(c, (86, 106, 314, 454), rng)
    c.line([(200, 106), (200, 454)], (250, 250, 246), 8)
    c.rect((960, 130, 1180, 300), fill=(120, 84, 52), radius=3)
    c.rect((974, 144, 1166, 286), fill=(236, 212, 160))
    c.ellipse((1030, 180, 1110, 260), fill=(200, 90, 70))
    for k in range(9):
        ang = np.pi * (0.1 + 0.8 * k / 8)
        tip = (1060 - 130 * np.cos(ang), 565 - 150 * np.sin(ang))
        c.line([(1060, 575), ((1060 + tip[0]) / 2, (575 + tip[1]) / 2 + 10), tip], (60, 110, 60), 4)
        c.ellipse((tip[0] - 26, tip[1] - 14, tip[0] + 26, tip[1] + 14), fill=(70, 135 + 6 * (k % 3), 80))
    c.rect((1010, 560, 1110, 700), fill=(176, 98, 70), radius=8)
    c.rect((1000, 556, 1120, 580), fill=(150, 80, 58), radius=6)
    c.rect((0, 720, WIDTH, HEIGHT), fill=(130, 110, 96))
    cx, cy = 640.0, 330.0
    skin, shade, hair, shirt = (233, 190, 160), (214, 164, 134), (66, 44, 34), (52, 92, 140)
    c.polygon([(cx - 250, HEIGHT), (cx - 230, 600), (cx - 120, 545), (cx + 120, 545), (cx + 230, 600),
               (cx + 250, HEIGHT)], fill=shirt)
    c.polygon([(cx - 60, 545), (cx, 610), (cx + 60, 545)], fill=(240, 240, 236))
    c.rect((cx - 48, 440, cx + 48, 560), fill=shade, radius=20)
    c.ellipse((cx - 145, cy - 190, cx + 145, cy + 120), fill=hair)
    c.ellipse((cx - 126, cy - 74, cx - 96, cy + 10), fill=shade)
    c.ellipse((cx + 96, cy - 74, cx + 126, cy + 10), fill=shade)
    c.ellipse((cx - 112, cy - 150, cx + 112, cy + 150), fill=skin)
    c.polygon([(cx - 118, cy - 60), (cx - 100, cy - 150), (cx, cy - 178), (cx + 100, cy - 150),
               (cx + 118, cy - 60), (cx + 60, cy - 120), (cx - 40, cy - 110)], fill=hair)
    eyes = []
    for sgn in (-1, 1):
        ex, ey = cx + sgn * 48, cy - 18
        eyes.append((ex, ey))
        c.arc((ex - 30, ey - 34, ex + 30, ey - 10), 200, 340, (70, 48, 36), 6)
        c.ellipse((ex - 25, ey - 12, ex + 25, ey + 12), fill=(250, 250, 250), outline=(120, 90, 80),
                  width=1.5)
        c.ellipse((ex - 11, ey - 11, ex + 11, ey + 11), fill=(92, 122, 84))
        c.ellipse((ex - 5, ey - 5, ex + 5, ey + 5), fill=(20, 20, 20))
        c.ellipse((ex + 2, ey - 7, ex + 6, ey - 3), fill=(255, 255, 255))
    c.line([(cx - 4, cy - 8), (cx - 12, cy + 40), (cx + 8, cy + 46)], (190, 140, 112), 4)
    c.polygon([(cx - 40, cy + 80), (cx, cy + 72), (cx + 40, cy + 80), (cx, cy + 98)], fill=(196, 92, 92))
    c.line([(cx - 40, cy + 80), (cx + 40, cy + 80)], (150, 60, 64), 2)
    c.text((WIDTH - 40, HEIGHT - 40), "Portrait study, 2024", 16, (240, 236, 228), "rm")
    img = c.finish().filter(ImageFilter.SMOOTH)
    regions = [Region("left eye", *eyes[0], 22, 14, 2.2), Region("right eye", *eyes[1], 22, 14, 2.2),
               Region("nose", cx, cy + 25, 20, 22, 0.7), Region("mouth", cx, cy + 85, 34, 16, 1.1),
               Region("hair", cx, cy - 150, 80, 30, 0.25), Region("window", 200, 280, 90, 120, 0.35),
               Region("picture", 1070, 215, 70, 55, 0.45), Region("plant", 1060, 520, 70, 60, 0.2),
               Region("caption", 1150, 760, 70, 10, 0.15), Region("collar", cx, 570, 60, 30, 0.15)]
    return img, regions


@dataclass(frozen=True)
class ComicPanel:
    """One comic panel: box, speech-bubble text box, text line count, character face centres."""

    box: tuple[float, float, float, float]
    bubble: tuple[float, float, float, float]
    n_lines: int
    faces: tuple[tuple[float, float], ...]


def comic_layout(rng: np.random.Generator) -> list[ComicPanel]:
    """Generator -> the 3 x 2 panel layout of a comic page (shared by the picture and the reading task)."""
    panels = []
    for row in range(2):
        for col in range(3):
            x0, y0 = 40 + col * 404, 40 + row * 372
            box = (x0, y0, x0 + 392, y0 + 356)
            n_faces = int(rng.integers(1, 3))
            if n_faces > 1:
                fx = np.sort(rng.uniform(x0 + 90, x0 + 302, n_faces))
            else:
                fx = [x0 + rng.uniform(150, 250)]
            if n_faces > 1 and fx[1] - fx[0] < 130:
                fx = [x0 + 110, x0 + 280]
            faces = tuple((float(x), float(y0 + rng.uniform(190, 215))) for x in fx)
            bx = x0 + rng.uniform(16, 120)
            bubble = (float(bx), float(y0 + 16), float(bx + 250), float(y0 + 100))
            panels.append(ComicPanel(box, bubble, int(rng.integers(2, 4)), faces))
    return panels


def draw_comic(rng: np.random.Generator,
               panels: list[ComicPanel] | None = None) -> tuple[Image.Image, list[Region]]:
    """Generator [, layout] -> (comic page with six panels, its salient regions)."""
    panels = comic_layout(rng) if panels is None else panels
    c = _Canvas((250, 248, 240))
    skies = [(150, 200, 240), (255, 214, 160), (190, 225, 200), (220, 200, 240), (140, 190, 230),
             (255, 190, 170)]
    clothes = [(220, 80, 70), (60, 120, 200), (240, 180, 40), (90, 160, 90)]
    regions = []
    for k, p in enumerate(panels):
        x0, y0, x1, y1 = p.box
        c.gradient((x0, y0, x1, y1), skies[k % len(skies)], (250, 245, 235))
        c.rect((x0, y0 + 250, x1, y1), fill=(150, 190, 110) if k % 2 == 0 else (200, 180, 150))
        if k % 3 == 1:
            c.rect((x1 - 110, y0 + 140, x1 - 30, y0 + 250), fill=(200, 110, 90))
            c.polygon([(x1 - 120, y0 + 140), (x1 - 70, y0 + 100), (x1 - 20, y0 + 140)], fill=(120, 70, 60))
        else:
            c.ellipse((x1 - 90, y0 + 120, x1 - 40, y0 + 170), fill=(255, 236, 150))
        for j, (fx, fy) in enumerate(p.faces):
            col = clothes[(k + j) % len(clothes)]
            c.rect((fx - 34, fy + 34, fx + 34, fy + 140), fill=col, radius=20)
            c.ellipse((fx - 36, fy - 36, fx + 36, fy + 36), fill=(246, 206, 170), outline=(40, 30, 30),
                      width=2.5)
            c.ellipse((fx - 36, fy - 40, fx + 36, fy - 8), fill=(60, 40, 30) if j == 0 else (200, 150, 60))
            look = 5 if j == 0 else -5
            for sgn in (-1, 1):
                ex = fx + sgn * 13 + look
                c.ellipse((ex - 5, fy - 2, ex + 5, fy + 10), fill=(20, 20, 20))
            c.arc((fx - 14, fy + 6, fx + 14, fy + 24), 20, 160, (120, 40, 40), 3)
            regions.append(Region(f"panel {k + 1} face {j + 1}", fx, fy, 24, 24, 1.3))
        bx0, by0, bx1, by1 = p.bubble
        fx, fy = p.faces[0]
        base = float(np.clip(fx, bx0 + 70, bx1 - 70))
        c.ellipse((bx0, by0, bx1, by1), fill=(255, 255, 255), outline=(30, 30, 30), width=2.5)
        c.polygon([(base - 14, by1 - 16), (base + 14, by1 - 16), (0.3 * base + 0.7 * fx, fy - 46)],
                  fill=(255, 255, 255), outline=(30, 30, 30), width=2.5)
        # An inner fill hides the tail's base so tail and bubble read as one outline.
        c.ellipse((bx0 + 3, by0 + 3, bx1 - 3, by1 - 3), fill=(255, 255, 255))
        lh = (by1 - by0 - 24) / p.n_lines
        for i in range(p.n_lines):
            c.text(((bx0 + bx1) / 2, by0 + 12 + (i + 0.5) * lh), _sentence(rng, 22).upper(), 13,
                   (20, 20, 20), "mm")
        c.rect(p.box, outline=(25, 25, 25), width=4)
        regions.append(Region(f"panel {k + 1} bubble", (bx0 + bx1) / 2, (by0 + by1) / 2, 80, 18, 1.0))
        regions.append(Region(f"panel {k + 1} scene", (x0 + x1) / 2, y0 + 250, 120, 60, 0.2))
    return c.finish(), regions


def render_stimuli(seed: int) -> dict[str, tuple[Image.Image, list[Region]]]:
    """Master seed -> {stimulus name: (image, salient regions)} for every name in STIMULI."""
    draw = {"webpage": draw_webpage, "portrait": draw_portrait, "comic": draw_comic}
    return {name: draw[name](np.random.default_rng([seed, 7, k])) for k, name in enumerate(STIMULI)}
