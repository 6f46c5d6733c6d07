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


# A recording is split by these columns (eyedp_core.gaze.contributions.RECORDING_SPLITS); the participant column
# goes by two names. A literal of three or more of them, and nothing else, is a definition of a recording key.
_SPLIT_NAMES = frozenset({"task", "session", "recording", "stimulus", "trial"})
_KEY_NAMES = _SPLIT_NAMES | {"participant", "observer"}


def _recording_key_literals(source: str) -> list[int]:
    """Python source -> line numbers of tuple/list/set literals made only of recording-key column names (>= 3 splits)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
            if not all(isinstance(e, ast.Constant) and e.value in _KEY_NAMES for e in node.elts):
                continue
            if len({e.value for e in node.elts} & _SPLIT_NAMES) >= 3:
                lines.append(node.lineno)
    return lines


def test_one_definition_of_what_splits_a_table_into_recordings() -> None:
    """Every module that groups by recording derives its columns from gaze.contributions.RECORDING_SPLITS."""
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "eyedp_core").rglob("*.py"))
             for line in _recording_key_literals(path.read_text())]
    assert len(found) == 1 and found[0].startswith("eyedp_core/gaze/contributions.py:"), found


def test_the_recording_key_scan_sees_a_second_definition() -> None:
    """The scan above is not blind: the six definitions the tree once had are each found."""
    old = ['DEFAULT_GROUPS = ("participant", "observer", "task", "stimulus", "recording", "trial")',
           'GROUP_COLUMNS = ("participant", "task", "recording", "stimulus", "trial")',
           'GROUP_COLUMNS = ("participant", "stimulus", "task", "recording", "trial")',
           'SELECTION_COLUMNS = ("stimulus", "task", "recording", "trial")',
           'RECORDING_KEYS: tuple[str, ...] = ("task", "session", "recording")',
           'lead = [c for c in ("task", "session", "recording", "stimulus") if c in out.columns]']
    assert [_recording_key_literals(src) for src in old] == [[1]] * len(old)
    assert _recording_key_literals('keys = [c for c in splits if c not in ("task", "session")]') == []


# Third-party modules go by the short names their own documentation uses; no other module is renamed on import.
_CONVENTIONAL_ALIASES = {"numpy": "np", "pandas": "pd", "streamlit": "st", "plotly.graph_objects": "go",
                         "plotly.io": "pio", "scipy.sparse": "sp", "pyarrow": "pa", "pyarrow.parquet": "pq",
                         "pyarrow.compute": "pc", "opendp.prelude": "dp", "pyspark.sql.functions": "F",
                         "datetime": "dt"}
_FIRST_PARTY = ("eyedp_core", "ui", "pages")


def _is_module(name: str) -> bool:
    """Dotted name -> whether it names an importable module (not a function or class inside one)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _module_aliases(source: str) -> list[str]:
    """Python source -> 'module as alias' for every module imported under another name (outside the convention)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        pairs: list[tuple[str, str]] = []
        if isinstance(node, ast.Import):
            pairs = [(a.name, a.asname) for a in node.names if a.asname and a.asname != a.name]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            pairs = [(f"{node.module}.{a.name}", a.asname) for a in node.names if a.asname and a.asname != a.name]
        for name, alias in pairs:
            if _CONVENTIONAL_ALIASES.get(name) == alias:
                continue
            if isinstance(node, ast.Import) or _is_module(name):
                found.append(f"{name} as {alias}")
    return found


def test_no_module_is_imported_under_another_name() -> None:
    """docs/ARCHITECTURE.md: no module aliases, so a module reads the same in every file that uses it."""
    offenders = [f"{path.relative_to(ROOT)}: {a}"
                 for root in _FIRST_PARTY for path in sorted((ROOT / root).rglob("*.py"))
                 for a in _module_aliases(path.read_text())]
    assert offenders == []


def test_the_module_alias_scan_sees_the_old_aliases() -> None:
    """The scan above is not blind: each alias the tree once had is found; a renamed function is not a module."""
    old = ["from eyedp_core.timeseries import k as ts_k", "from eyedp_core.dp import calibration as dp_calibration",
           "from dp_accounting.pld import privacy_loss_distribution as pld_lib", "import scipy.fft as sfft",
           "import pyarrow.csv as pacsv"]
    assert [_module_aliases(src) for src in old] == [
        ["eyedp_core.timeseries.k as ts_k"], ["eyedp_core.dp.calibration as dp_calibration"],
        ["dp_accounting.pld.privacy_loss_distribution as pld_lib"], ["scipy.fft as sfft"], ["pyarrow.csv as pacsv"]]
    assert _module_aliases("import numpy as np\nfrom eyedp_core.dp.calibration import Calibration as C") == []


# A page draws: it calls its view's ui package and holds no function longer than this many lines.
_PAGE_FUNCTION_LINES = 30


def _page_computes(source: str) -> list[str]:
    """A page's source -> what in it computes: imports of eyedp_core (the upload pipeline included) and functions
    over _PAGE_FUNCTION_LINES lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.startswith("eyedp_core")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("eyedp_core"):
            found.append(f"from {node.module} import …")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > _PAGE_FUNCTION_LINES:
                found.append(f"{node.name}: {length} lines")
    return found


def test_your_data_page_only_draws() -> None:
    """The Your data page reads, maps, derives and memoises through ui.yourdata, as every other page does."""
    assert _page_computes((ROOT / "pages" / "your_data.py").read_text()) == []


def test_the_page_scan_sees_computation() -> None:
    """The scan above is not blind: an io import and a long function are each found."""
    long_body = "def _table():\n" + "    x = 1\n" * _PAGE_FUNCTION_LINES
    assert _page_computes("from eyedp_core import io\nimport eyedp_core.io.windows\n" + long_body) == [
        "from eyedp_core import …", "import eyedp_core.io.windows", f"_table: {_PAGE_FUNCTION_LINES + 1} lines"]


# Internal code imports a name from the module that defines it; a package's re-exports are its public API for
# users (README: `from eyedp_core.plan import StudyPlan`), not an import source inside the repository.
def _module_file(module: str) -> Path | None:
    """Dotted first-party module name -> its source file (module.py or package/__init__.py), None if not ours."""
    base = ROOT.joinpath(*module.split("."))
    return next((f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()), None)


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements, those inside module-level if/try/with blocks included (not function bodies)."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        for block in ("body", "orelse", "finalbody"):
            if isinstance(node, (ast.If, ast.Try, ast.With)):
                found += _module_level(getattr(node, block, []))
        for handler in getattr(node, "handlers", []):
            found += _module_level(handler.body)
    return found


def _bindings(path: Path) -> tuple[set[str], set[str]]:
    """A module's source -> (names it defines, names it binds by importing them from elsewhere)."""
    defined: set[str] = set()
    imported: set[str] = set()
    for node in _module_level(ast.parse(path.read_text()).body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            module = _module_file(f"{node.module}.{node.names[0].name}") if node.module else None
            imported |= {a.asname or a.name for a in node.names if module is None}
        elif isinstance(node, ast.Import):
            imported |= {a.asname or a.name.split(".")[0] for a in node.names}
    return defined, imported


def _reexport_imports(source: str) -> list[str]:
    """Python source -> 'from X import name' for each first-party name taken from a module X that does not define
    it (X imports it, or loads it on first use through a module __getattr__); a submodule import is not one."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and node.module.split(".")[0] in _FIRST_PARTY and (path := _module_file(node.module))):
            continue
        defined, imported = _bindings(path)
        for alias in node.names:
            submodule = _module_file(f"{node.module}.{alias.name}") is not None and alias.name not in imported
            if alias.name not in defined and not submodule:
                found.append(f"from {node.module} import {alias.name}")
    return found


def test_names_are_imported_from_the_module_that_defines_them() -> None:
    """docs/ARCHITECTURE.md: internal code (core, ui, pages, app) imports each name from its defining module."""
    sources = [p for root in _FIRST_PARTY for p in sorted((ROOT / root).rglob("*.py"))] + [ROOT / "app.py"]
    offenders = [f"{path.relative_to(ROOT)}: {imp}" for path in sources for imp in _reexport_imports(path.read_text())]
    assert offenders == []


def test_the_reexport_scan_sees_a_reexport() -> None:
    """The scan above is not blind: the package re-exports once used as import sources are each found (a function
    re-exported under its submodule's name included); the defining module and a submodule are not."""
    old = ["from eyedp_core.plan import allocate", "from eyedp_core.plan import StudyPlan, OutputKind",
           "from eyedp_core.settings import encode_json", "from eyedp_core.report import build_html",
           "def f():\n    from eyedp_core.io.readers import Reader"]
    assert [_reexport_imports(src) for src in old] == [
        ["from eyedp_core.plan import allocate"],
        ["from eyedp_core.plan import StudyPlan", "from eyedp_core.plan import OutputKind"],
        ["from eyedp_core.settings import encode_json"], ["from eyedp_core.report import build_html"],
        ["from eyedp_core.io.readers import Reader"]]
    assert _reexport_imports("from eyedp_core.plan.allocate import allocate\nfrom eyedp_core.heatmaps import "
                             "calibration\nfrom eyedp_core.plan.schema import StudyPlan") == []


# Settings objects instead of long parameter lists, and functions short enough to read at once (bench/signatures.py
# measures both): no exception in the core, the UI, the pages or app.py.


def _signature_offenders(paths: list[Path]) -> list[str]:
    """Python files -> 'where: N parameters' / 'where: N lines' for every function over the bounds of
    bench/signatures.py."""
    from bench.signatures import MAX_LINES, MAX_PARAMETERS, measure

    many, long = measure(paths)
    return ([f"{where}: {n} parameters (over {MAX_PARAMETERS})" for n, where in many]
            + [f"{where}: {n} lines (over {MAX_LINES})" for n, where in long])


def test_no_function_takes_over_8_parameters_or_runs_over_60_lines() -> None:
    """House rule (docs/ARCHITECTURE.md): settings objects instead of long parameter lists, and small functions."""
    paths = [p for root in _FIRST_PARTY for p in sorted((ROOT / root).rglob("*.py"))]
    assert _signature_offenders([*paths, ROOT / "app.py"]) == []


def test_the_signature_scan_sees_wide_and_long_functions(tmp_path: Path) -> None:
    """The scan above is not blind: nine parameters and sixty-one lines are each found; eight and sixty are not,
    and `self` does not count."""
    src = ("def wide(a, b, c, d, e, f, g, h, i):\n    pass\n"
           "def fits(a, b, c, d, e, f, g, h):\n    pass\n"
           "class K:\n    def method(self, a, b, c, d, e, f, g, h):\n        pass\n"
           "def long():\n" + "    x = 1\n" * 60
           + "def short():\n" + "    x = 1\n" * 59)
    (tmp_path / "m.py").write_text(src)
    assert _signature_offenders([tmp_path / "m.py"]) == [
        f"{tmp_path / 'm.py'}:wide: 9 parameters (over 8)", f"{tmp_path / 'm.py'}:long: 61 lines (over 60)"]
