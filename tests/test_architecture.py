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


def test_no_import_cycles_contract_covers_the_core_and_the_ui() -> None:
    """The acyclic-siblings contract (kept by the import-linter test above) stays in the configuration."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    ancestors = {a for c in contracts if c["type"] == "acyclic_siblings" for a in c["ancestors"]}
    assert {"eyedp_core", "ui"} <= ancestors


def test_no_alias_modules_and_no_star_reexports() -> None:
    """Every name is imported from the module that defines it: no module replaces itself in sys.modules with
    another one, and no module re-exports another with `import *`."""
    offenders = []
    for path in sorted([*(ROOT / "eyedp_core").rglob("*.py"), *(ROOT / "ui").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            star = isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
            alias = (isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and ast.unparse(t.value) ==
                                                          "sys.modules" for t in node.targets))
            if star or alias:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
