"""The README's library example runs as written and gives the values its comments promise."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_library_example_runs_and_matches_its_comments(capsys):
    """Execute the README's Python block; check the numbers quoted in its comments."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own documentation
    assert scope["b"] == pytest.approx(400.0)
    assert scope["sigma"] == pytest.approx(1.1426220, rel=1e-6)
    assert scope["ledger"].total() == (0.5, 0.0)
    assert "P01" in set(scope["feats"]["participant"])


def test_readme_commands_are_the_ones_ci_runs():
    """The two README commands exist, and .ci/run runs exactly the README's test command."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -r requirements.txt && streamlit run app.py" in text
    test_cmd = "pip install -r requirements-dev.txt && ruff check . && python -m pytest"
    assert test_cmd in text
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_cmd.replace("pip install", "pip install -q") in ci
