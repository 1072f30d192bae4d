"""Issue 33 §1: the analysis modules use each other (and the engine) through public names
only: no ``from rulekit... import _private`` in rulekit/analysis/."""

from __future__ import annotations

import ast
from pathlib import Path

ANALYSIS = Path(__file__).resolve().parent.parent / "rulekit" / "analysis"


def test_no_analysis_module_imports_a_private_name() -> None:
    found = []
    for path in sorted(ANALYSIS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rulekit"):
                found += [
                    f"{path.name}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_")
                ]
    assert not found, found
    assert len(list(ANALYSIS.glob("*.py"))) > 10  # the modules were found
