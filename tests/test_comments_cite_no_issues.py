"""Comments and docstrings say why, not which issue or review item asked for the code: none cites an issue
number (the word followed by a number, or a hash and a number) or a numbered defect, in the core, the UI, the pages, the benchmarks or the tests."""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREES = ("eyedp_core", "ui", "pages", "bench", "tests", "app.py")
CITATION = re.compile(r"""\bissues?\s*#?\d+|(?<![&\w"'])#\d+\b|\bdefect\s+\d+""", re.IGNORECASE)


def _files() -> list[Path]:
    out: list[Path] = []
    for name in TREES:
        path = ROOT / name
        out += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return out


def _texts(source: str) -> list[tuple[int, str]]:
    """Python source -> (line, text) of every comment and docstring."""
    out = [(tok.start[0], tok.string[1:]) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append((node.body[0].lineno, doc))
    return out


def test_the_pattern_finds_citations_and_spares_html_entities():
    hits = [bool(CITATION.search(t)) for t in ("moved out of the page, issue 7", "see #12", "Defect 5: x",
                                               "issues 3 and 4", "&#34; quote", "'#1' is no heading",
                                               "item 1 of the list", "RFC 4180")]
    assert hits == [True, True, True, True, False, False, False, False]


def test_no_comment_or_docstring_cites_an_issue():
    found = [f"{path.relative_to(ROOT)}:{line}: {CITATION.search(text).group(0)!r}"
             for path in _files() for line, text in _texts(path.read_text(encoding="utf-8"))
             if CITATION.search(text)]
    assert not found, "comments should say why, not cite issues:\n" + "\n".join(found)
