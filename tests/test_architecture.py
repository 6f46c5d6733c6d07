"""The layer rules of docs/ARCHITECTURE.md hold (import-linter contracts in pyproject.toml), pages stay thin,
and nothing in the repository points at a file a clone does not have."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_are_kept() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    out = subprocess.run([exe, "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "broken" in out.stdout and " 0 broken" in out.stdout


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_pages_import_only_ui_core_and_drawing_libraries() -> None:
    allowed = ("ui", "eyedp_core", "streamlit", "plotly", "pandas", "numpy", "__future__", "typing", "dataclasses")
    for page in sorted((ROOT / "pages").glob("*.py")):
        bad = {m for m in _imports(page) if not m.startswith(allowed)}
        assert not bad, f"{page.name} imports {bad}: computation belongs in eyedp_core, called through ui/"


def test_nothing_points_at_the_specification_outside_the_repository() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    offenders = [f for f in tracked if (ROOT / f).is_file() and f.endswith((".py", ".md", ".toml", ".txt"))
                 and "MECHANISMS" + ".md" in (ROOT / f).read_text(errors="ignore")]
    assert offenders == [], f"cite docs/PRIVACY_MODEL.md instead in {offenders}"
