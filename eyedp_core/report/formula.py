"""The views' LaTeX formulas as readable HTML text (Unicode symbols, <sub>/<sup>) for the report.

A review board reads the report in a browser or on paper, with no TeX renderer: a formula must read as math, not
as `\\frac{\\Delta_2}{\\varepsilon}`. Only the LaTeX the views write is covered; an unknown command is shown by
its name, never with a backslash.
"""
from __future__ import annotations

import html
import re

__all__ = ["tex_to_html"]

_SYMBOLS = {
    "varepsilon": "ε", "epsilon": "ε", "sigma": "σ", "Delta": "Δ", "delta": "δ", "lambda": "λ", "Phi": "Φ",
    "phi": "φ", "gamma": "γ", "eta": "η", "mu": "μ", "rho": "ρ", "alpha": "α", "beta": "β", "theta": "θ",
    "pi": "π", "tau": "τ", "kappa": "κ", "omega": "ω", "Sigma": "Σ", "sum": "Σ", "prod": "Π", "infty": "∞",
    "cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "approx": "≈", "neq": "≠",
    "ne": "≠", "pm": "±", "in": "∈", "forall": "∀", "setminus": "∖", "mid": "|", "prime": "′", "to": "→",
    "rightarrow": "→", "Rightarrow": "⇒", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋",
    "{": "{", "}": "}", "%": "%", "#": "#", "&": "&", "_": "_", "|": "‖", "ldots": "…", "dots": "…",
    "cdots": "⋯", "min": "min", "max": "max", "ln": "ln", "log": "log", "exp": "exp", "sqrt": "√",
    "inf": "inf", "sup": "sup", "Pr": "Pr", "sim": "∼", "propto": "∝", "lVert": "‖", "rVert": "‖",
}
_SPACES = {",", ";", ":", " ", "quad", "qquad", "enspace", "thinspace"}
_DROP = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle", "!",
         "limits", "nolimits"}
_TEXT = {"mathrm", "text", "operatorname", "mathbf", "mathit", "textbf", "textit", "mathsf", "boldsymbol"}
_WORDS = {"min", "max", "ln", "log", "exp", "inf", "sup", "Pr"}
_ACCENT = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304", "dot": "\u0307"}


def _command(s: str, i: int) -> tuple[str, int]:
    """Position after a backslash -> (command name, position after it)."""
    m = re.compile(r"[A-Za-z]+").match(s, i)
    if m:
        return m.group(0), m.end()
    return (s[i], i + 1) if i < len(s) else ("", i)


def _group(s: str, i: int) -> tuple[str, int]:
    """Position of an argument -> (its LaTeX source, position after it): a {…} group, a command or one char."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s):
        return "", i
    if s[i] == "{":
        depth, j = 0, i
        while j < len(s):
            if s[j] == "\\":
                j += 2
                continue
            depth += {"{": 1, "}": -1}.get(s[j], 0)
            if depth == 0:
                return s[i + 1:j], j + 1
            j += 1
        return s[i + 1:], len(s)
    if s[i] == "\\":
        name, j = _command(s, i + 1)
        return s[i:j], j
    return s[i], i + 1


def _atom(html_text: str, source: str) -> str:
    """An argument rendered -> wrapped in parentheses unless it is a single symbol or number."""
    core = re.sub(r"<(sub|sup)>.*?</\1>", "", html_text)  # a symbol with its index is still one symbol
    plain = re.sub(r"<[^>]+>", "", core)
    return html_text if re.fullmatch(r"\d+(\.\d+)?|.", plain) else f"({html_text})"


def _render(s: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            name, i = _command(s, i + 1)
            if name in ("frac", "tfrac", "dfrac"):
                a, i = _group(s, i)
                b, i = _group(s, i)
                out.append(f"{_atom(_render(a), a)}/{_atom(_render(b), b)}")
            elif name == "sqrt":
                a, i = _group(s, i)
                out.append(f"√{_atom(_render(a), a)}")
            elif name in _TEXT:
                a, i = _group(s, i)
                out.append(_render(a))
            elif name in _ACCENT:
                a, i = _group(s, i)
                out.append(_render(a) + _ACCENT[name])
            elif name in _SPACES:
                out.append(" ")
            elif name in _DROP:
                continue
            elif name == "\\":
                out.append("<br>")
            else:
                out.append(html.escape(_SYMBOLS.get(name, name)))
                if name in _WORDS and s[i:i + 1] not in ("(", "{", "\\"):
                    out.append(" ")  # "min x", not "minx"
        elif c in "_^":
            a, i = _group(s, i + 1)
            tag = "sub" if c == "_" else "sup"
            out.append(f"<{tag}>{_render(a)}</{tag}>")
        elif c == "{":
            a, i = _group(s, i)
            out.append(_render(a))
        elif c in "}$":
            i += 1
        elif c == "~":
            out.append(" ")
            i += 1
        else:
            out.append(html.escape(c))
            i += 1
    return "".join(out)


def tex_to_html(tex: str) -> str:
    """A LaTeX formula of the views -> escaped HTML text that reads as math (no backslash, no TeX source)."""
    text = _render(str(tex))
    return re.sub(r" {2,}", " ", text).strip()
