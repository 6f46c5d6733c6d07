"""Mechanism identity is typed: no code outside the registries compares a mechanism, family, method or
classifier name as a string (it compares enum members, parsed once where a widget or URL hands in text).

The names are spelled out here, not read from the registries, so the scan still runs (and fails) on code
that has no enums yet; `test_names_are_the_registries` keeps the two lists equal.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("eyedp_core", "ui", "pages")
# The registries themselves: the only places that may spell the names out.
REGISTRIES = {"eyedp_core/dp/registry.py", "eyedp_core/attacks/classifiers.py"}

MECH_NAMES = {"LPA", "FPA", "CFPA", "DCFPA", "Steil", "Steil (published)", "heatmap Gaussian", "heatmap Laplace",
              "private choice of m", "Kaleido", "k-anonymity", "k-same-synth", "event-synth-PD",
              "event-synth-PD (randomised threshold)"}
FAMILY_NAMES = {"laplace", "gaussian", "exponential", "planar-laplace"}  # Family.NONE ("none") is too common a word
GAUSSIAN_METHOD_NAMES = {"analytic", "classical", "liu-thm-3.4"}
SELECTION_METHOD_NAMES = {"exponential", "report-noisy-min"}
CLASSIFIER_NAMES = {"knn", "svm", "tree", "forest", "svm-fast"}
NAMES = MECH_NAMES | FAMILY_NAMES | GAUSSIAN_METHOD_NAMES | SELECTION_METHOD_NAMES | CLASSIFIER_NAMES

_PREFIX_CALLS = {"startswith", "endswith"}
_ENUMS = {"Mech", "Family", "GaussianMethod", "SelectionMethod", "Classifier"}


def _one_name(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """A string literal that is a registry name, a module constant holding one (`LIU = "liu-thm-3.4"`), or
    `Enum.MEMBER.value` (a member turned back into text)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value in NAMES else None
    if isinstance(node, ast.Name) and node.id in aliases:
        return aliases[node.id]
    if (isinstance(node, ast.Attribute) and node.attr == "value" and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name) and node.value.value.id in _ENUMS):
        return f"{node.value.value.id}.{node.value.attr}.value"
    return None


def _named_strings(node: ast.AST, aliases: dict[str, str]) -> list[str]:
    """The registry names a compared operand spells out: a string literal, or a tuple/list/set of them."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [n for n in (_one_name(e, aliases) for e in node.elts) if n is not None]
    name = _one_name(node, aliases)
    return [] if name is None else [name]


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Module-level constants that hold a registry name as a bare string."""
    out = {}
    for node in tree.body:
        if (isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant)
                and node.value.value in NAMES):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update({t.id: node.value.value for t in targets if isinstance(t, ast.Name)})
    return out


def string_compares(source: str) -> list[tuple[int, str]]:
    """Python source in, (line, name) of every string compare against a registry name out."""
    hits: list[tuple[int, str]] = []
    tree = ast.parse(source)
    aliases = _aliases(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                hits += [(node.lineno, name) for name in _named_strings(operand, aliases)]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _PREFIX_CALLS and node.args):
            hits += [(node.lineno, name) for name in _named_strings(node.args[0], aliases)]
    return hits


def scan(root: Path = ROOT) -> list[str]:
    """A source tree in, 'path:line: name' for every string compare of a registry name outside the registries."""
    out = []
    for package in SCANNED:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in REGISTRIES:
                continue
            out += [f"{rel}:{line}: {name!r}" for line, name in string_compares(path.read_text(encoding="utf-8"))]
    return out


def test_no_string_compares_of_mechanism_method_or_classifier_names():
    hits = scan()
    assert not hits, ("compare enum members (Mech, Family, GaussianMethod, SelectionMethod, Classifier), "
                      "not strings:\n" + "\n".join(hits))


@pytest.mark.parametrize("snippet, found", [
    ('if cal.mechanism == "gaussian": pass', ["gaussian"]),
    ('x = method != "analytic"', ["analytic"]),
    ('ok = name in ("knn", "svm")', ["knn", "svm"]),
    ('ok = lab in {"LPA", "FPA"}', ["LPA", "FPA"]),
    ('ok = label.startswith("DCFPA")', ["DCFPA"]),
    ('ok = weight == "count"', []),
    ('ok = cal.mechanism == Family.LAPLACE.value', ["Family.LAPLACE.value"]),
    ('LIU = "liu-thm-3.4"\nok = m == LIU', ["liu-thm-3.4"]),
    ('ok = fam is Family.GAUSSIAN', []),
    ('d = {"gaussian": 1}', []),
])
def test_the_scan_sees_compares_and_only_compares(snippet, found):
    """The scanner itself: it finds ==, !=, in-tuples/sets and prefix tests of names, and nothing else."""
    assert [name for _, name in string_compares(snippet)] == found


def test_names_are_the_registries():
    """The names scanned for are exactly the registries' values."""
    from eyedp_core.attacks.classifiers import Classifier
    from eyedp_core.dp.registry import Family, GaussianMethod, Mech, SelectionMethod

    assert MECH_NAMES == {m.value for m in Mech}
    assert FAMILY_NAMES == {f.value for f in Family} - {Family.NONE.value}
    assert GAUSSIAN_METHOD_NAMES == {m.value for m in GaussianMethod}
    assert SELECTION_METHOD_NAMES == {m.value for m in SelectionMethod}
    assert CLASSIFIER_NAMES == {c.value for c in Classifier}
