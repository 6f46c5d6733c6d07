"""Code measures: functions that take more than 8 parameters or run over 60 lines, largest first.

Parameters are counted from the AST (positional, keyword-only, *args and **kwargs; not self or cls); lines from
the `def` to the last line of the body, docstring included. Nested functions are listed on their own (and count
in their parent's lines). `python bench/signatures.py [paths…]` (default: eyedp_core ui pages bench app.py).
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_PARAMETERS = 8
MAX_LINES = 60
ROOTS = ("eyedp_core", "ui", "pages", "bench", "app.py")


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function definition -> its parameter count without self / cls."""
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return sum(n not in ("self", "cls") for n in names)


def measure(paths: list[Path]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """Python files -> ((parameters, where) over MAX_PARAMETERS, (lines, where) over MAX_LINES), largest first."""
    many: list[tuple[int, str]] = []
    long: list[tuple[int, str]] = []

    def walk(node: ast.AST, path: Path, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = f"{path}:{prefix}{child.name}"
                if (n := _parameters(child)) > MAX_PARAMETERS:
                    many.append((n, where))
                if (n := child.end_lineno - child.lineno + 1) > MAX_LINES:
                    long.append((n, where))
                walk(child, path, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, path, f"{prefix}{child.name}.")
            else:
                walk(child, path, prefix)

    for path in paths:
        walk(ast.parse(path.read_text(encoding="utf-8")), path, "")
    return sorted(many, reverse=True), sorted(long, reverse=True)


def _files(roots: list[str]) -> list[Path]:
    """Files and folders -> the Python files in them, sorted."""
    out: list[Path] = []
    for root in roots:
        p = Path(root)
        out += [p] if p.is_file() else sorted(p.rglob("*.py"))
    return out


if __name__ == "__main__":
    many, long = measure(_files(sys.argv[1:] or list(ROOTS)))
    print(f"functions with more than {MAX_PARAMETERS} parameters: {len(many)}")
    print("\n".join(f"  {n:3d}  {where}" for n, where in many))
    print(f"functions over {MAX_LINES} lines: {len(long)}")
    print("\n".join(f"  {n:3d}  {where}" for n, where in long))
